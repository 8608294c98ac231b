<?php

declare(strict_types=1);

/*
 * Test bootstrap.
 *
 * Environment:
 *   DISTLOCK_OTEL_AUTOLOAD  the Composer autoloader of a project that requires
 *                           distlock/opentelemetry (tests/opentelemetry/run.sh makes
 *                           one); default: ../vendor/autoload.php
 *   DISTLOCK_TEST_REDIS     redis://127.0.0.1:PORT of a throw-away server
 *   DISTLOCK_SO             the extension, loaded into the processes the tests start
 */

if (!extension_loaded('distlock')) {
    fwrite(STDERR, "the distlock extension is not loaded (php -d extension=.../distlock.so)\n");
    exit(1);
}
$autoload = getenv('DISTLOCK_OTEL_AUTOLOAD') ?: __DIR__ . '/../vendor/autoload.php';
require_once $autoload;
putenv('DISTLOCK_OTEL_AUTOLOAD=' . realpath($autoload)); // inherited by the processes the tests start

// The tests' own classes (a dependency's autoload-dev is not in the project's autoloader).
spl_autoload_register(static function (string $class): void {
    foreach (['DistLock\\OpenTelemetry\\Tests\\' => __DIR__ . '/'] as $prefix => $dir) {
        if (str_starts_with($class, $prefix)) {
            $file = $dir . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
            if (is_file($file)) {
                require $file;
            }
        }
    }
}, true, true);

// Composer ran _register.php: the automatic registration, on the global
// (no-op) providers. Tests register by hand, which takes it over; what it
// was is kept for AutoRegistrationTest.
define('DISTLOCK_OTEL_AUTO_AT_BOOT', \DistLock\OpenTelemetry\DistLockInstrumentation::automatic() !== null);
