#!/usr/bin/env bash
# tests/symfony/run.sh — the Symfony Lock integration (integrations/symfony).
#
# A suite script per tests/lib/common.sh: run from the repository root by
# scripts/test, or standalone (it then starts its own redis-server and uses
# ./modules/distlock.so unless DISTLOCK_SO says otherwise).
#
#  1. symfony/lock 5.4 from Debian (php-symfony-lock) with Debian's phpunit:
#     a. symfony's own store tests, unmodified, taken at run time from Debian's
#        source package `symfony` (Tests/Store/AbstractStoreTestCase.php,
#        ExpiringStoreTestTrait.php, BlockingStoreTestTrait.php,
#        SharedLockStoreTestTrait.php), against DistLockStore;
#     b. symfony/semaphore 5.4 from Debian (php-symfony-semaphore): symfony's
#        own Semaphore/Tests/Store/AbstractStoreTestCase.php from the same
#        source package, unmodified, against DistLockSemaphoreStore;
#     c. the integration's own tests of both stores (three more servers for
#        the lock store on a Redlock client), and of the store's PSR-3 logging.
#  2. symfony/lock 7.4 from Composer in a scratch project that requires
#     distlock/symfony-lock through a path repository (so that the package's
#     own composer.json resolves; tests/symfony/lib.sh's sf_project) with the
#     suggested packages (symfony/semaphore 7.4: Debian's, which the Packagist
#     copy here does not serve) and PHPUnit 11.5 (the PHPUnit symfony 7.4's
#     tests run with on PHP 8.2): symfony's public Test\AbstractStoreTestCase
#     and the integration's own tests, the semaphore store's among them, from
#     the installed copy; and the README's services.yaml loaded by
#     symfony/dependency-injection 7.4; with SYMFONY_LOCK7_TESTS_DIR=DIR (the
#     Tests/ folder of symfony/lock's 7.x line, from symfony/symfony's public
#     repository, never committed here), symfony's own store tests from DIR too.
#  3. symfony/lock 6.4 from Composer with the suggested packages: every class
#     of the package loads (tests/lib/load-classes.php), as it does on 5.4 and
#     7.4 above (and on 8.1 in tests/php84 and tests/php85: tests/symfony/root.sh).
#     DISTLOCK_SYMFONY_CLASS_MATRIX=0 leaves these checks out (tests/hostile).
# Every test is counted from PHPUnit's JUnit log; a skipped test fails.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
. tests/lib/common.sh

INTEGRATION="$ROOT/integrations/symfony"
. tests/symfony/lib.sh
: "${DISTLOCK_SO:=$ROOT/modules/distlock.so}"
CLASS_MATRIX=${DISTLOCK_SYMFONY_CLASS_MATRIX:-1}   # 0: no check that every class loads (hostile's runs)
export DISTLOCK_SO
SF74_CONSTRAINT='^7.4'
PHPUNIT74_CONSTRAINT='^11.5'

cleanup() { stop_redis_all; [ -n "${SCRATCH:-}" ] && rm -rf "$SCRATCH"; }
trap cleanup EXIT

# sf_phpunit NAME AUTOLOAD PHPUNIT_CMD... : one PHPUnit run with the given autoloader, counted.
sf_phpunit() {
    local name=$1 autoload=$2
    shift 2
    DISTLOCK_SF_AUTOLOAD=$autoload run_phpunit "$name" "$@"
}

# ---------------------------------------------------------------------------
section "Symfony Lock integration: set-up"
ensure_packages php-cli php-xml php-mbstring php-redis php-symfony-lock php-symfony-semaphore phpunit composer redis-server redis-tools \
    php-symfony-framework-bundle php-symfony-twig-bundle php-symfony-web-profiler-bundle \
    || suite_fail "apt: could not install the packages the suite needs"

require_distlock 'method_exists("DistLock\\Lock", "detach") && method_exists("DistLock", "owner")' \
    "the caller-token / detached-lease API (Lock::detach(), DistLock::owner())"
sf_servers symfony

if (cd "$INTEGRATION" && composer validate --no-check-publish --no-check-lock) >"$DISTLOCK_LOG_DIR/composer-validate.log" 2>&1; then
    suite_pass "composer validate integrations/symfony/composer.json"
else
    suite_fail "composer validate integrations/symfony/composer.json"
    excerpt "$DISTLOCK_LOG_DIR/composer-validate.log"
fi

# ---------------------------------------------------------------------------
SF54_DEB=$(dpkg-query -W -f='${Version}' php-symfony-lock 2>/dev/null)
PHPUNIT_DEB=$(dpkg-query -W -f='${Version}' phpunit 2>/dev/null)
section "symfony/lock $SF54_DEB (Debian php-symfony-lock), PHPUnit $PHPUNIT_DEB (Debian)"
DEB_AUTOLOAD=/usr/share/php/Symfony/Component/Lock/autoload.php
if SRC=$(apt_source symfony "$SF54_DEB") && [ -f "$SRC/src/Symfony/Component/Lock/Tests/Store/AbstractStoreTestCase.php" ]; then
    export SYMFONY_LOCK_TESTS_DIR="$SRC/src/Symfony/Component/Lock/Tests"
    note "symfony's tests from the source package: $SYMFONY_LOCK_TESTS_DIR"
    sf_phpunit sf54-symfony-store-tests "$DEB_AUTOLOAD" /usr/bin/phpunit --bootstrap "$INTEGRATION/tests/bootstrap.php" \
        "$INTEGRATION/tests/SymfonySuite/DistLockStoreSymfonyTest.php"
    sf_phpunit sf54-symfony-redis-store-tests "$DEB_AUTOLOAD" /usr/bin/phpunit --bootstrap "$INTEGRATION/tests/bootstrap.php" \
        "$INTEGRATION/tests/SymfonySuite/DistLockStoreRedisSuiteTest.php"
    unset SYMFONY_LOCK_TESTS_DIR
else
    suite_fail "apt_source symfony $SF54_DEB: no Lock/Tests/Store in the source package"
    SRC=""
fi
SEM_DEB=$(dpkg-query -W -f='${Version}' php-symfony-semaphore 2>/dev/null)
note "symfony/semaphore $SEM_DEB (Debian php-symfony-semaphore)"
if [ -n "${SRC:-}" ] && [ -f "$SRC/src/Symfony/Component/Semaphore/Tests/Store/AbstractStoreTestCase.php" ]; then
    export SYMFONY_SEMAPHORE_TESTS_DIR="$SRC/src/Symfony/Component/Semaphore/Tests"
    note "symfony/semaphore's tests from the source package: $SYMFONY_SEMAPHORE_TESTS_DIR"
    sf_phpunit sf54-symfony-semaphore-store-tests "$DEB_AUTOLOAD" /usr/bin/phpunit --bootstrap "$INTEGRATION/tests/bootstrap.php" \
        "$INTEGRATION/tests/SymfonySuite/DistLockSemaphoreStoreSymfonyTest.php"
    unset SYMFONY_SEMAPHORE_TESTS_DIR
else
    suite_fail "apt_source symfony $SF54_DEB: no Semaphore/Tests/Store in the source package"
fi
# Every class of the package on Debian's 5.4 with the suggested packages
# (Debian's semaphore, framework, twig and web-profiler bundles).
cat >"$DISTLOCK_LOG_DIR/debian-autoload.php" <<'PHP'
<?php
foreach (['Component/Lock', 'Component/Semaphore', 'Bundle/FrameworkBundle', 'Bundle/TwigBundle', 'Bundle/WebProfilerBundle'] as $c) {
    require_once "/usr/share/php/Symfony/$c/autoload.php";
}
spl_autoload_register(static function (string $class): void {   // the package, as its composer.json maps it
    if (str_starts_with($class, 'DistLock\\Symfony\\')) {
        @include getenv('DISTLOCK_SF_SRC') . '/' . str_replace('\\', '/', substr($class, 17)) . '.php';
    }
});
PHP
export DISTLOCK_SF_SRC=$INTEGRATION/src
[ "$CLASS_MATRIX" = 0 ] || load_classes sf54-classes "$DISTLOCK_LOG_DIR/debian-autoload.php" "$INTEGRATION/src" 'DistLock\Symfony'
sf_phpunit sf54-own-tests "$DEB_AUTOLOAD" /usr/bin/phpunit --bootstrap "$INTEGRATION/tests/bootstrap.php" \
    "$INTEGRATION/tests/DistLockStoreTest.php"
sf_phpunit sf54-own-logger-tests "$DEB_AUTOLOAD" /usr/bin/phpunit --bootstrap "$INTEGRATION/tests/bootstrap.php" \
    "$INTEGRATION/tests/DistLockStoreLoggerTest.php"
sf_phpunit sf54-mixed-deploy "$DEB_AUTOLOAD" /usr/bin/phpunit --bootstrap "$INTEGRATION/tests/bootstrap.php" \
    "$INTEGRATION/tests/MixedDeployTest.php"
sf_phpunit sf54-own-semaphore-tests "$DEB_AUTOLOAD" /usr/bin/phpunit --bootstrap "$INTEGRATION/tests/bootstrap.php" \
    "$INTEGRATION/tests/DistLockSemaphoreStoreTest.php"

# ---------------------------------------------------------------------------
section "symfony/lock $SF74_CONSTRAINT and PHPUnit $PHPUNIT74_CONSTRAINT from Composer (path repository)"
composer_env
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/distlock-symfony.XXXXXX")
S74=$SCRATCH/sf74
# With the suggested packages (the semaphore from Debian: the Packagist copy here does not serve it).
if sf_project "$S74" "$SF74_CONSTRAINT" "" "$("$PHP" -r 'echo json_encode(array_fill_keys(["symfony/dependency-injection",
        "symfony/config", "symfony/yaml", "symfony/framework-bundle", "symfony/twig-bundle", "symfony/web-profiler-bundle"],
        $argv[1]) + ["phpunit/phpunit" => $argv[2]]);' "$SF74_CONSTRAINT" "$PHPUNIT74_CONSTRAINT")" \
        "symfony/semaphore php-symfony-semaphore 7.4. Symfony\\Component\\Semaphore\\ Symfony/Component/Semaphore"; then
    suite_pass "composer: distlock/symfony-lock resolves with symfony/lock $SF74_CONSTRAINT"
    PKG="$S74/vendor/distlock/symfony-lock"
    SF74=$(cd "$S74" && composer show symfony/lock 2>/dev/null | sed -n 's/^versions *: *\* *//p')
    PHPUNIT74=$(cd "$S74" && composer show phpunit/phpunit 2>/dev/null | sed -n 's/^versions *: *\* *//p')
    note "installed: symfony/lock $SF74, phpunit/phpunit $PHPUNIT74; distlock/symfony-lock copied to $PKG"
    unset SYMFONY_LOCK_TESTS_DIR
    if [ -f "$S74/vendor/symfony/lock/Test/AbstractStoreTestCase.php" ]; then
        sf_phpunit sf74-symfony-public-testcase "$S74/vendor/autoload.php" "$S74/vendor/bin/phpunit" \
            --bootstrap "$PKG/tests/bootstrap.php" "$PKG/tests/SymfonySuite/DistLockStorePublicTestCaseTest.php"
    else
        note "symfony/lock $SF74 ships no Symfony\\Component\\Lock\\Test\\AbstractStoreTestCase"
    fi
    sf_phpunit sf74-own-tests "$S74/vendor/autoload.php" "$S74/vendor/bin/phpunit" \
        --bootstrap "$PKG/tests/bootstrap.php" "$PKG/tests/DistLockStoreTest.php"
    sf_phpunit sf74-own-logger-tests "$S74/vendor/autoload.php" "$S74/vendor/bin/phpunit" \
        --bootstrap "$PKG/tests/bootstrap.php" "$PKG/tests/DistLockStoreLoggerTest.php"
    sf_phpunit sf74-mixed-deploy "$S74/vendor/autoload.php" "$S74/vendor/bin/phpunit" \
        --bootstrap "$PKG/tests/bootstrap.php" "$PKG/tests/MixedDeployTest.php"
    # symfony/lock 7.x's own Tests/Store (Packagist's dist leaves Tests/ out, no Debian
    # package has 7.x): when SYMFONY_LOCK7_TESTS_DIR names that folder, taken from
    # symfony/symfony's public repository by hand, its store tests run here too.
    if [ -n "${SYMFONY_LOCK7_TESTS_DIR:-}" ]; then
        note "symfony's 7.x store tests from $SYMFONY_LOCK7_TESTS_DIR"
        for t in DistLockStoreSymfonyTest DistLockStoreRedisSuiteTest; do
            SYMFONY_LOCK_TESTS_DIR=$SYMFONY_LOCK7_TESTS_DIR sf_phpunit "sf74-symfony7-$t" "$S74/vendor/autoload.php" \
                "$S74/vendor/bin/phpunit" --bootstrap "$PKG/tests/bootstrap.php" "$PKG/tests/SymfonySuite/$t.php"
        done
    fi
    # symfony/semaphore 7.4 (Debian's: sf_project above): the package's own semaphore tests on it.
    SEM74=$DEBIAN_VERSIONS
    sf_phpunit sf74-own-semaphore-tests "$S74/vendor/autoload.php" "$S74/vendor/bin/phpunit" \
        --bootstrap "$PKG/tests/bootstrap.php" "$PKG/tests/DistLockSemaphoreStoreTest.php"
    [ "$CLASS_MATRIX" = 0 ] || load_classes sf74-classes "$S74/vendor/autoload.php" "$PKG/src" 'DistLock\Symfony'
    # The README's services.yaml, loaded by symfony/dependency-injection (not in Debian's set).
    sf_phpunit sf74-services-yaml "$S74/vendor/autoload.php" "$S74/vendor/bin/phpunit" \
        --bootstrap "$PKG/tests/bootstrap.php" "$PKG/tests/ServicesYamlTest.php"
else
    suite_fail "composer: distlock/symfony-lock with symfony/lock $SF74_CONSTRAINT did not install"
    excerpt "$DISTLOCK_LOG_DIR/composer-sf74.log" --tail
    SF74="(not installed)" PHPUNIT74="-" SEM74="(not installed)"
fi

# ---------------------------------------------------------------------------
# symfony/lock 6.4, which no other section runs: every class of the package
# loads on it with the suggested packages (the semaphore from Debian's trixie).
section "symfony/lock ^6.4 from Composer: every class of the package loads"
S64=$SCRATCH/sf64
if [ "$CLASS_MATRIX" = 0 ]; then
    note "DISTLOCK_SYMFONY_CLASS_MATRIX=0: left out"; SF64="(left out)"
elif sf_project "$S64" '^6.4' "" "$("$PHP" -r 'echo json_encode(array_fill_keys(["symfony/framework-bundle",
        "symfony/twig-bundle", "symfony/web-profiler-bundle"], "^6.4"));')" \
        "symfony/semaphore php-symfony-semaphore 6.4. Symfony\\Component\\Semaphore\\ Symfony/Component/Semaphore"; then
    SF64="$(installed_version "$S64" symfony/lock) (Composer), with the suggested packages ($DEBIAN_VERSIONS)"
    load_classes sf64-classes "$S64/vendor/autoload.php" "$S64/vendor/distlock/symfony-lock/src" 'DistLock\Symfony' &&
        SF64="$SF64: every class of the package loads"
else
    suite_fail "composer: distlock/symfony-lock with symfony/lock ^6.4"; SF64="(not installed)"
fi

section "versions tested"
note "symfony/lock $SF54_DEB (Debian) with PHPUnit $PHPUNIT_DEB (Debian)"
note "symfony/lock ${SF64:-?}"
note "symfony/lock $SF74 (Composer) with PHPUnit $PHPUNIT74 (Composer)"
note "symfony/semaphore $SEM_DEB (Debian): symfony's store tests and the package's"
case "${SEM74:-(not installed)}" in
    "("*) note "symfony/semaphore from Composer: ${SEM74:-(not installed)}" ;;
    *) note "$SEM74: the package's tests" ;;
esac
suite_end
