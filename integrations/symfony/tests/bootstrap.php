<?php

declare(strict_types=1);

/*
 * Test bootstrap, for PHPUnit and for the worker processes the tests start.
 *
 * Environment:
 *   DISTLOCK_SF_AUTOLOAD    the autoloader that provides symfony/lock (a Composer
 *                           vendor/autoload.php, or Debian's
 *                           /usr/share/php/Symfony/Component/Lock/autoload.php);
 *                           default: ../vendor/autoload.php when present, else Debian's
 *   SYMFONY_LOCK_TESTS_DIR  symfony/lock's Tests/ directory from its source (for the
 *                           Symfony\Component\Lock\Tests\ classes), optional
 *   SYMFONY_SEMAPHORE_TESTS_DIR  the same for symfony/semaphore, optional
 *   (with Debian's lock autoloader, Debian's php-symfony-semaphore is loaded too
 *   when installed: /usr/share/php/Symfony/Component/Semaphore/autoload.php)
 *   DISTLOCK_TEST_REDIS     redis://127.0.0.1:PORT of a throw-away server
 *   DISTLOCK_SO             the extension, loaded into worker processes with -d extension=
 */

$autoload = getenv('DISTLOCK_SF_AUTOLOAD') ?: null;
if ($autoload === null) {
    $autoload = is_file(__DIR__ . '/../vendor/autoload.php')
        ? __DIR__ . '/../vendor/autoload.php'
        : '/usr/share/php/Symfony/Component/Lock/autoload.php';
}
require_once $autoload;
$debianSemaphore = '/usr/share/php/Symfony/Component/Semaphore/autoload.php';
if (str_starts_with((string) realpath($autoload), '/usr/share/php/') && is_file($debianSemaphore)) {
    require_once $debianSemaphore;
}
putenv('DISTLOCK_SF_AUTOLOAD=' . realpath($autoload)); // inherited by the workers

if (!extension_loaded('distlock')) {
    fwrite(STDERR, "the distlock extension is not loaded (php -d extension=.../distlock.so)\n");
    exit(1);
}

$prefixes = [
    'DistLock\\Symfony\\Tests\\' => __DIR__ . '/',
    'DistLock\\Symfony\\' => __DIR__ . '/../src/',
];
if (($dir = getenv('SYMFONY_LOCK_TESTS_DIR')) !== false && $dir !== '') {
    $prefixes['Symfony\\Component\\Lock\\Tests\\'] = rtrim($dir, '/') . '/';
}
if (($dir = getenv('SYMFONY_SEMAPHORE_TESTS_DIR')) !== false && $dir !== '') {
    $prefixes['Symfony\\Component\\Semaphore\\Tests\\'] = rtrim($dir, '/') . '/';
}
spl_autoload_register(static function (string $class) use ($prefixes): void {
    foreach ($prefixes as $prefix => $dir) {
        if (str_starts_with($class, $prefix)) {
            $file = $dir . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
            if (is_file($file)) {
                require $file;
            }
            return;
        }
    }
});
