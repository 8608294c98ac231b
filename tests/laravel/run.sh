#!/usr/bin/env bash
# tests/laravel/run.sh — the Laravel integration (integrations/laravel).
#
# A suite script per tests/lib/common.sh: run from the repository root by
# scripts/test, or standalone (it then starts its own redis-server and uses
# ./modules/distlock.so unless DISTLOCK_SO says otherwise).
#
# For each Laravel version, a scratch app is made from the package's test app
# (integrations/laravel/tests/app) plus a composer.json that requires
# distlock/laravel through a path repository, so that the package's own
# composer.json resolves and auto-discovery registers its provider:
#  1. Laravel 8.83 from Debian (php-laravel-framework) with Debian's PHPUnit
#     9.6: Laravel's own RedisCacheLockTest and WithoutOverlappingJobsTest,
#     unmodified, from bookworm's source package, and its
#     Redis/ConcurrentLimiterTest with the limiter class switched to
#     distlock's (tests/limiter-switch.php); then the package's tests.
#  2. laravel/framework 10.50.4 from Composer (10.48 is not served; 10.50.4 is
#     the 10.x there) with PHPUnit 10.5: the same three tests from trixie's
#     10.48 source package.
#  3. laravel/framework ^12 from Composer with PHPUnit 11.5: the package's tests
#     (among them Laravel-12-shaped contract checks, and tests/Feature12: what
#     Laravel 12 added that locks through the store); with
#     DISTLOCK_LARAVEL12_TESTS=DIR (DIR = the tests/ folder of laravel/framework's
#     12.x line, taken from its public repository: Packagist's dist leaves tests/
#     out and no Debian source package has 12.x), also Laravel's own lock tests
#     (framework-tests.txt) and limiter test from DIR.
#  4. laravel/framework ^9 and ^11 from Composer: every class of the package
#     loads (tests/lib/load-classes.php); so it does in 1-3 (and on Laravel 13
#     in tests/php84 and tests/php85: tests/laravel/root.sh).
# DISTLOCK_LARAVEL_VERSIONS (default "8 9 10 11 12") picks the sections that run.
# Laravel's tests run with the Testbench stand-in (tests/testbench) and the
# cache store "redis" switched to the distlock driver. Every test is counted
# from PHPUnit's JUnit log; a skipped test fails.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
. tests/lib/common.sh

INTEGRATION="$ROOT/integrations/laravel"
: "${DISTLOCK_SO:=$ROOT/modules/distlock.so}"
export DISTLOCK_SO
L8_SRC_VER=8.83.26+dfsg-2
L10_SRC_VER=10.48.29+dfsg-1
L10_CONSTRAINT=10.50.4
L12_CONSTRAINT='^12.0'
: "${DISTLOCK_LARAVEL_VERSIONS:=8 9 10 11 12}"
wants() { case " $DISTLOCK_LARAVEL_VERSIONS " in *" $1 "*) return 0 ;; esac; return 1; }
# Packages laravel/framework requires that the partial Packagist copy here
# does not serve; none is on the code paths these tests run (CORS middleware,
# Markdown, Symfony's clock); Laravel 12's calls of PHP 8.5 functions get
# the stand-ins in tests/standins-laravel12.php (PHP 8.5 functions, Symfony's
# ClockInterface).
UNSERVED='{"fruitcake/php-cors": "*", "league/config": "*", "symfony/polyfill-php85": "*", "symfony/clock": "*"}'

. tests/laravel/lib.sh
LOADED=()

# ---------------------------------------------------------------------------
section "Laravel integration: set-up"
ensure_packages php-cli php-xml php-mbstring php-redis php8.2-sqlite3 php-nrk-predis php-laravel-framework php-mockery \
    phpunit composer redis-server redis-tools \
    || suite_fail "apt: could not install the packages the suite needs"
if [ ! -f "$DISTLOCK_SO" ]; then
    suite_fail "no extension at $DISTLOCK_SO (build it: phpize && ./configure && make)"
    suite_end
fi
if [ -z "${REDIS_HOST:-}" ]; then
    if [ -n "${DISTLOCK_TEST_REDIS_PORT:-}" ]; then
        export REDIS_HOST=127.0.0.1 REDIS_PORT=$DISTLOCK_TEST_REDIS_PORT
    else
        start_redis laravel "" || { suite_fail "redis: could not start a server"; suite_end; }
        export REDIS_HOST=127.0.0.1 REDIS_PORT=$STARTED_PORT
    fi
fi
note "redis: $REDIS_HOST:$REDIS_PORT (Laravel's tests: db 5 and 3; the package's tests: db 3)"
if (cd "$INTEGRATION" && composer validate --no-check-publish --no-check-lock) >"$DISTLOCK_LOG_DIR/composer-validate.log" 2>&1; then
    suite_pass "composer validate integrations/laravel/composer.json"
else
    suite_fail "composer validate integrations/laravel/composer.json"
    excerpt "$DISTLOCK_LOG_DIR/composer-validate.log"
fi
composer_env
export REDIS_DB=3

# ---------------------------------------------------------------------------
L8=$(dpkg-query -W -f='${Version}' php-laravel-framework 2>/dev/null)
L8_PLAIN=${L8%%+*}
PHPUNIT_DEB=$(dpkg-query -W -f='${Version}' phpunit 2>/dev/null)
if wants 8; then
section "Laravel $L8 (Debian php-laravel-framework), PHPUnit $PHPUNIT_DEB (Debian)"
deb_provides=$("$PHP" -r 'foreach (["laravel/framework","illuminate/cache","illuminate/console","illuminate/contracts","illuminate/support"] as $p) $r[$p] = $argv[1]; echo json_encode($r);' "$L8_PLAIN")
if make_app l8 '{"distlock/laravel": "*@dev"}' \
        "{\"replace\": $deb_provides, \"autoload\": {\"files\": [\"/usr/share/php/Illuminate/autoload.php\", \"/usr/share/php/Mockery/autoload.php\", \"/usr/share/php/Predis/autoload.php\"]}}"; then
    APP8=$APP
    suite_pass "composer: distlock/laravel resolves against Debian's Laravel $L8_PLAIN"
    load_classes l8-classes "$APP8/vendor/autoload.php" "$APP8/vendor/distlock/laravel/src" 'DistLock\Laravel'
    if SRC8=$(apt_source php-laravel-framework "$L8_SRC_VER"); then
        laravel_tests l8 "$APP8" "$SRC8/tests" /usr/bin/phpunit
        limiter_test l8 "$APP8" "$SRC8/tests" /usr/bin/phpunit
    else
        suite_fail "apt_source php-laravel-framework $L8_SRC_VER"
    fi
    own_tests l8 "$APP8" /usr/bin/phpunit
else
    suite_fail "composer: scratch app on Debian's Laravel $L8_PLAIN"
fi
fi

# ---------------------------------------------------------------------------
# Laravel 9 and 11, which no other section runs: every class of the package
# loads on them (tests/lib/load-classes.php), as an app on them would load it.
for major in 9 11; do
    wants "$major" || continue
    section "laravel/framework ^$major.0 (Composer): every class of the package loads"
    if make_app "l$major" "{\"distlock/laravel\": \"*@dev\", \"laravel/framework\": \"^$major.0\"}" \
            "{\"replace\": $UNSERVED}" >/dev/null; then
        load_classes "l$major-classes" "$APP/vendor/autoload.php" "$APP/vendor/distlock/laravel/src" 'DistLock\Laravel' &&
            LOADED+=("laravel/framework $(composer_version "$APP" laravel/framework) (Composer): every class of the package loads")
    else
        suite_fail "composer: scratch app with laravel/framework ^$major.0"
    fi
done

# ---------------------------------------------------------------------------
if wants 10; then
section "laravel/framework $L10_CONSTRAINT (Composer) with Laravel $L10_SRC_VER's tests (trixie), PHPUnit ^10.5"
if make_app l10 "{\"distlock/laravel\": \"*@dev\", \"laravel/framework\": \"$L10_CONSTRAINT\", \"phpunit/phpunit\": \"^10.5\", \"mockery/mockery\": \"^1.6\", \"predis/predis\": \"*\"}" \
        "{\"replace\": $UNSERVED}"; then
    APP10=$APP
    L10=$(composer_version "$APP10" laravel/framework); PHPUNIT10=$(composer_version "$APP10" phpunit/phpunit)
    suite_pass "composer: distlock/laravel resolves with laravel/framework $L10"
    load_classes l10-classes "$APP10/vendor/autoload.php" "$APP10/vendor/distlock/laravel/src" 'DistLock\Laravel'
    if SRC10=$(apt_source php-laravel-framework "$L10_SRC_VER"); then
        laravel_tests l10 "$APP10" "$SRC10/tests" "$APP10/vendor/bin/phpunit"
        limiter_test l10 "$APP10" "$SRC10/tests" "$APP10/vendor/bin/phpunit"
    else
        suite_fail "apt_source php-laravel-framework $L10_SRC_VER"
    fi
else
    suite_fail "composer: scratch app with laravel/framework $L10_CONSTRAINT"; L10="(not installed)" PHPUNIT10=-
fi
fi

# ---------------------------------------------------------------------------
if wants 12; then
section "laravel/framework $L12_CONSTRAINT (Composer), PHPUnit ^11.5"
if make_app l12 "{\"distlock/laravel\": \"*@dev\", \"laravel/framework\": \"$L12_CONSTRAINT\", \"phpunit/phpunit\": \"^11.5\", \"mockery/mockery\": \"^1.6\", \"predis/predis\": \"*\"}" \
        "{\"replace\": $UNSERVED, \"autoload\": {\"files\": [\"$INTEGRATION/tests/standins-laravel12.php\"]}}"; then
    APP12=$APP
    L12=$(composer_version "$APP12" laravel/framework); PHPUNIT12=$(composer_version "$APP12" phpunit/phpunit)
    suite_pass "composer: distlock/laravel resolves with laravel/framework $L12"
    load_classes l12-classes "$APP12/vendor/autoload.php" "$APP12/vendor/distlock/laravel/src" 'DistLock\Laravel'
    own_tests l12 "$APP12" "$APP12/vendor/bin/phpunit"
    app_phpunit l12-apis "$APP12" "$APP12/vendor/bin/phpunit" --bootstrap "$INTEGRATION/tests/bootstrap.php" "$INTEGRATION/tests/Feature12"
    if [ -n "${DISTLOCK_LARAVEL12_TESTS:-}" ]; then
        note "Laravel's own tests from $DISTLOCK_LARAVEL12_TESTS"
        laravel_tests l12 "$APP12" "$DISTLOCK_LARAVEL12_TESTS" "$APP12/vendor/bin/phpunit"
        limiter_test l12 "$APP12" "$DISTLOCK_LARAVEL12_TESTS" "$APP12/vendor/bin/phpunit"
        L12_OWN=" + Laravel's lock and limiter tests from $DISTLOCK_LARAVEL12_TESTS"
    fi
else
    suite_fail "composer: scratch app with laravel/framework $L12_CONSTRAINT"; L12="(not installed)" PHPUNIT12=-
fi
fi

section "versions tested"
wants 8 && note "Laravel $L8 (Debian) with PHPUnit $PHPUNIT_DEB (Debian): Laravel $L8_SRC_VER's lock and limiter tests + the package's tests"
wants 10 && note "laravel/framework ${L10:-?} (Composer) with PHPUnit ${PHPUNIT10:-?}: Laravel $L10_SRC_VER's lock and limiter tests"
wants 12 && note "laravel/framework ${L12:-?} (Composer) with PHPUnit ${PHPUNIT12:-?}: the package's tests${L12_OWN:-}"
for line in "${LOADED[@]+"${LOADED[@]}"}"; do note "$line"; done
note "Laravel 13: tests/php84 and tests/php85 (tests/laravel/root.sh, PHP 8.4 and 8.5)"
suite_end
