<?php

namespace Orchestra\Testbench;

use Illuminate\Contracts\Console\Kernel;
use Illuminate\Foundation\Testing\TestCase as BaseTestCase;

/**
 * Stand-in for orchestra/testbench's TestCase (the Composer registry here
 * does not serve orchestra/testbench): boots the package's minimal Laravel
 * app (DISTLOCK_TEST_APP = the scratch app's base path, a copy of
 * tests/app with vendor/), calls Testbench's hooks, and starts each test on
 * an empty Redis test database, as Testbench's fresh cache would.
 */
abstract class TestCase extends BaseTestCase
{
    public function createApplication()
    {
        $app = require getenv('DISTLOCK_TEST_APP') . '/bootstrap/app.php';
        $app->make(Kernel::class)->bootstrap();
        $this->getEnvironmentSetUp($app);
        $this->defineEnvironment($app);
        $app['redis']->connection()->flushdb();
        return $app;
    }

    /** Testbench hook. @param \Illuminate\Foundation\Application $app */
    protected function getEnvironmentSetUp($app)
    {
    }

    /** Testbench hook. @param \Illuminate\Foundation\Application $app */
    protected function defineEnvironment($app)
    {
    }

    /** Testbench's helper (Laravel 12's PhpRedisCacheLockTest calls it). */
    protected function markTestSkippedUnless($condition, string $message = ''): void
    {
        if (! (is_callable($condition) ? $condition() : $condition)) {
            $this->markTestSkipped($message);
        }
    }
}
