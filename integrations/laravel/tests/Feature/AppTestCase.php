<?php

namespace DistLock\Laravel\Tests\Feature;

use Illuminate\Support\Facades\Cache;
use Orchestra\Testbench\TestCase;

/** Base of the package's own tests: the test app, a raw Redis client, artisan processes. */
abstract class AppTestCase extends TestCase
{
    /**
     * A client on the test database, without Laravel's prefix: phpredis, or
     * where it is not built (PHP 8.5) Predis behind phpredis's calls (PredisRaw).
     */
    protected function raw(): \Redis|PredisRaw
    {
        if (!extension_loaded('redis')) {
            return new PredisRaw(new \Predis\Client([
                'host' => getenv('REDIS_HOST') ?: '127.0.0.1', 'port' => (int) (getenv('REDIS_PORT') ?: 6379),
                'database' => (int) config('database.redis.default.database'),
            ]));
        }
        $r = new \Redis();
        $r->connect(getenv('REDIS_HOST') ?: '127.0.0.1', (int) (getenv('REDIS_PORT') ?: 6379), 2.0);
        $r->select((int) config('database.redis.default.database'));
        return $r;
    }

    /** The full Redis key of Laravel's own Redis lock $name (connection prefix + cache prefix + name). */
    protected function lockKey(string $name): string
    {
        return config('database.redis.options.prefix') . Cache::store('redis-values')->getStore()->getPrefix() . $name;
    }

    /** Starts `php artisan ...` of the test app with the extension loaded; returns the process. */
    protected function startArtisan(array $args, array $env = [])
    {
        $cmd = array_merge([PHP_BINARY, '-d', 'extension=' . getenv('DISTLOCK_SO'), getenv('DISTLOCK_TEST_APP') . '/artisan'], $args);
        $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, array_merge(getenv(), $env));
        $this->assertIsResource($p);
        return [$p, $pipes];
    }

    /** Waits for a process from startArtisan(); returns [exit code, stdout, stderr]. */
    protected function finish(array $proc): array
    {
        [$p, $pipes] = $proc;
        $out = stream_get_contents($pipes[1]);
        $err = stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        return [proc_close($p), trim($out), trim($err)];
    }

    /** Runs artisan to the end; fails the test on a non-zero exit; returns stdout. */
    protected function artisanOk(array $args, array $env = []): string
    {
        [$rc, $out, $err] = $this->finish($this->startArtisan($args, $env));
        $this->assertSame(0, $rc, "artisan " . implode(' ', $args) . " failed:\n$out\n$err");
        return $out;
    }
}
