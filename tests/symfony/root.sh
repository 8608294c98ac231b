#!/usr/bin/env bash
# tests/symfony/root.sh — distlock/symfony-lock on Symfony 8.1, which needs
# PHP 8.4 or later: in the Debian roots of tests/php84 and tests/php85, on
# their PHP.
#
#   DISTLOCK_ROOT_PREPARE=DIR DISTLOCK_PLATFORM_PHP=PHP_VERSION bash tests/symfony/root.sh
#       on the host (tests/lib/debian-root.sh, before it enters the root): a
#       scratch project in DIR that requires distlock/symfony-lock through a
#       path repository with symfony/lock, console, framework-bundle,
#       twig-bundle, web-profiler-bundle, dependency-injection and yaml ^8.1
#       and PHPUnit 12.5 (and Predis, the tests' Redis client where there
#       is no phpredis: PHP 8.5; psr/clock, for Debian's symfony/clock), Composer resolving them with config.platform.php =
#       PHP_VERSION. What the Packagist copy here does not serve comes from
#       Debian's sid and experimental binary packages (apt_deb, unpacked into
#       DIR/debian and autoloaded from there; Composer told they are there
#       through "replace"): symfony/semaphore, scheduler and clock 8.1, and
#       symfony/polyfill-deepclone (which framework-bundle 8.1 needs).
#   bash tests/symfony/root.sh
#       inside the root (tests/lib/root-inside.sh), DISTLOCK_SYMFONY_APP = the
#       project made above: every class of the package loads on Symfony 8.1;
#       symfony/lock's shipped Test\AbstractStoreTestCase against
#       DistLockStore; the package's own tests (the lock store, its logging,
#       the mixed deploy, the semaphore store on symfony/semaphore 8.1, the
#       README's services.yaml, the profiler's data collector in a kernel);
#       and Console's LockableTrait and a Scheduler schedule that locks
#       (tests/Symfony8). With SYMFONY_LOCK8_TESTS_DIR=DIR (symfony/lock's
#       Tests/ from a source checkout: export-ignored in the dist), also
#       symfony's own store tests from DIR.
# Every test is counted from PHPUnit's JUnit log; a skipped test fails.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
INTEGRATION="$PWD/integrations/symfony"
. tests/symfony/lib.sh
SF8_CONSTRAINT='^8.1'
PHPUNIT8_CONSTRAINT='^12.5'
# What the Packagist copy here lacks, from Debian (common.sh's debian_parts)
DEBIAN_PARTS=(
    "symfony/semaphore php-symfony-semaphore 8.1. Symfony\\Component\\Semaphore\\ Symfony/Component/Semaphore"
    "symfony/scheduler php-symfony-scheduler 8.1. Symfony\\Component\\Scheduler\\ Symfony/Component/Scheduler"
    "symfony/clock php-symfony-clock 8.1. Symfony\\Component\\Clock\\ Symfony/Component/Clock Resources/now.php"
    "symfony/polyfill-deepclone php-symfony-polyfill-deepclone 1. Symfony\\Polyfill\\DeepClone\\ Symfony/Polyfill/DeepClone bootstrap.php"
)

sf_phpunit() {   # sf_phpunit NAME TEST_FILE: one PHPUnit run in the project, counted
    DISTLOCK_SF_AUTOLOAD="$APP/vendor/autoload.php" run_phpunit "$1" "$APP/vendor/bin/phpunit" \
        --bootstrap "$INTEGRATION/tests/bootstrap.php" "$INTEGRATION/tests/$2"
}

if [ -n "${DISTLOCK_ROOT_PREPARE:-}" ]; then
    APP=$DISTLOCK_ROOT_PREPARE PHPV=${DISTLOCK_PLATFORM_PHP:?the PHP version of the root}
    composer_env
    : "${DISTLOCK_SO:?the build on the host, for the ext-distlock check of Composer}"
    if sf_project "$APP" "$SF8_CONSTRAINT" "$PHPV" "$("$PHP" -r 'echo json_encode(array_fill_keys(["symfony/console",
            "symfony/framework-bundle", "symfony/twig-bundle", "symfony/web-profiler-bundle", "symfony/dependency-injection",
            "symfony/config", "symfony/yaml"], $argv[1]) + ["phpunit/phpunit" => $argv[2], "predis/predis" => "*",
            "psr/clock" => "^1.0"]);' "$SF8_CONSTRAINT" "$PHPUNIT8_CONSTRAINT")" "${DEBIAN_PARTS[@]}"; then
        suite_pass "composer: distlock/symfony-lock resolves with symfony/lock $(installed_version "$APP" symfony/lock) for PHP $PHPV"
    else
        suite_fail "composer: distlock/symfony-lock with symfony/lock $SF8_CONSTRAINT for PHP $PHPV (log: $DISTLOCK_LOG_DIR/composer-${APP##*/}.log)"
    fi
    suite_end
fi

APP=${DISTLOCK_SYMFONY_APP:?the project tests/symfony/root.sh made on the host}
PHPV=$("$PHP" -n -r 'echo PHP_VERSION;')
SF8=$(installed_version "$APP" symfony/lock)
section "symfony/lock $SF8 on PHP $PHPV"
if [ ! -f "$APP/vendor/autoload.php" ]; then
    suite_fail "no project at $APP (its Composer run on the host failed)"
    suite_end
fi
trap stop_redis_all EXIT
sf_servers symfony8

load_classes sf8-classes "$APP/vendor/autoload.php" "$APP/vendor/distlock/symfony-lock/src" 'DistLock\Symfony'
sf_phpunit sf8-symfony-public-testcase SymfonySuite/DistLockStorePublicTestCaseTest.php
for t in DistLockStoreTest DistLockStoreLoggerTest MixedDeployTest DistLockSemaphoreStoreTest ServicesYamlTest \
         Profiler/DistLockDataCollectorTest Symfony8/ConsoleAndSchedulerTest; do
    sf_phpunit "sf8-$(basename "$t")" "$t.php"
done
if [ -n "${SYMFONY_LOCK8_TESTS_DIR:-}" ]; then
    note "symfony's store tests from $SYMFONY_LOCK8_TESTS_DIR"
    for t in DistLockStoreSymfonyTest DistLockStoreRedisSuiteTest; do
        SYMFONY_LOCK_TESTS_DIR=$SYMFONY_LOCK8_TESTS_DIR sf_phpunit "sf8-symfony-$t" "SymfonySuite/$t.php"
    done
fi
note "symfony/lock $SF8, console $(installed_version "$APP" symfony/console), framework-bundle $(installed_version "$APP" symfony/framework-bundle) (Composer, resolved for PHP $PHPV); semaphore, scheduler and clock from Debian; PHPUnit $(installed_version "$APP" phpunit/phpunit)"
suite_end
