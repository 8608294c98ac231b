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
#     (among them Laravel-12-shaped contract checks); with
#     DISTLOCK_LARAVEL12_TESTS=DIR (DIR = the tests/ folder of laravel/framework's
#     12.x line, taken from its public repository: Packagist's dist leaves tests/
#     out and no Debian source package has 12.x), also Laravel's own lock tests
#     (framework-tests.txt) and limiter test from DIR.
# DISTLOCK_LARAVEL_VERSIONS (default "8 10 12") picks the sections that run.
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
: "${DISTLOCK_LARAVEL_VERSIONS:=8 10 12}"
wants() { case " $DISTLOCK_LARAVEL_VERSIONS " in *" $1 "*) return 0 ;; esac; return 1; }
# Packages laravel/framework requires that the partial Packagist copy here
# does not serve; none is on the code paths these tests run (CORS middleware,
# Markdown, Symfony's clock); Laravel 12's calls of PHP 8.5 functions get
# the stand-ins in tests/standins-laravel12.php (PHP 8.5 functions, Symfony's
# ClockInterface).
UNSERVED='{"fruitcake/php-cors": "*", "league/config": "*", "symfony/polyfill-php85": "*", "symfony/clock": "*"}'

SCRATCHES=()
cleanup() { stop_redis_all; local d; for d in "${SCRATCHES[@]+"${SCRATCHES[@]}"}"; do rm -rf "$d"; done; }
trap cleanup EXIT

# app_phpunit NAME APP PHPUNIT_CMD... : one PHPUnit run against the scratch app APP, counted.
app_phpunit() {
    local name=$1 app=$2
    shift 2
    DISTLOCK_TEST_APP=$app run_phpunit "$name" "$@"
}

# make_app NAME REQUIRE_JSON EXTRA_JSON: a scratch app with the test app's files and
# composer.json; Composer runs with the extension loaded (ext-distlock is checked
# for real). Sets APP to the app's directory; returns non-zero when Composer failed.
make_app() {
    local name=$1 dir
    dir=$(mktemp -d "${TMPDIR:-/tmp}/distlock-laravel-$name.XXXXXX") || return 1
    SCRATCHES+=("$dir")
    APP=$dir
    cp -r "$INTEGRATION/tests/app/." "$dir/"
    "$PHP" -r '
        $j = [
            "name" => "distlock-test/laravel-app", "type" => "project",
            "repositories" => [["type" => "path", "url" => $argv[1], "options" => ["symlink" => false]]],
            "require" => json_decode($argv[2], true),
            "autoload" => ["psr-4" => ["App\\" => "app/"]],
            "minimum-stability" => "stable", "prefer-stable" => true,
        ];
        echo json_encode(array_merge_recursive($j, json_decode($argv[3], true)), JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES), "\n";' \
        "$INTEGRATION" "$2" "$3" >"$dir/composer.json"
    (cd "$dir" && timeout 600 "$PHP" -d "extension=$DISTLOCK_SO" "$(command -v composer)" update --no-progress --prefer-dist) \
        >"$DISTLOCK_LOG_DIR/composer-$name.log" 2>&1 || { excerpt "$DISTLOCK_LOG_DIR/composer-$name.log" --tail >&2; return 1; }
    echo "$dir"
}

composer_version() { (cd "$1" && composer show "$2" 2>/dev/null | sed -n 's/^versions *: *\* *v\{0,1\}//p'); }

# laravel_tests NAME APP TESTS_DIR PHPUNIT...: Laravel's own lock tests, unmodified.
laravel_tests() {
    local name=$1 app=$2 tests=$3
    shift 3
    local t
    for t in $(grep -v '^#' "$INTEGRATION/tests/framework-tests.txt"); do
        if [ ! -f "$tests/Integration/$t.php" ]; then suite_fail "$name: $t.php is not in the source package"; continue; fi
        DISTLOCK_LARAVEL_TESTS=$tests app_phpunit "$name-$(basename "$t")" "$app" "$@" \
            --bootstrap "$INTEGRATION/tests/bootstrap.php" "$tests/Integration/$t.php"
    done
}

# limiter_test NAME APP TESTS PHPUNIT_CMD...: Laravel's own tests/Redis/ConcurrentLimiterTest.php,
# unmodified, with the limiter class switched to distlock's (tests/limiter-switch.php).
limiter_test() {
    local name=$1 app=$2 tests=$3
    shift 3
    if [ ! -f "$tests/Redis/ConcurrentLimiterTest.php" ]; then
        suite_fail "$name: Redis/ConcurrentLimiterTest.php is not in the source package"
        return
    fi
    local got
    got=$("$PHP" -d "extension=$DISTLOCK_SO" -r '
        require $argv[1]; require $argv[2];
        echo (new ReflectionClass("Illuminate\\Redis\\Limiters\\ConcurrencyLimiter"))->getName();' \
        "$app/vendor/autoload.php" "$INTEGRATION/tests/limiter-switch.php" 2>&1)
    if [ "$got" = 'DistLock\Laravel\Limiters\ConcurrencyLimiter' ]; then
        suite_pass "$name: with the switch, Laravel's ConcurrencyLimiter is $got"
    else
        suite_fail "$name: the limiter switch did not apply (Laravel's ConcurrencyLimiter is: $got)"
    fi
    DISTLOCK_SWITCH_LIMITER=1 DISTLOCK_LARAVEL_TESTS=$tests app_phpunit "$name-ConcurrentLimiterTest" "$app" "$@" \
        --bootstrap "$INTEGRATION/tests/bootstrap.php" "$tests/Redis/ConcurrentLimiterTest.php"
}

own_tests() {
    local name=$1 app=$2
    shift 2
    app_phpunit "$name-own" "$app" "$@" --bootstrap "$INTEGRATION/tests/bootstrap.php" "$INTEGRATION/tests/Feature"
}

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
if wants 10; then
section "laravel/framework $L10_CONSTRAINT (Composer) with Laravel $L10_SRC_VER's tests (trixie), PHPUnit ^10.5"
if make_app l10 "{\"distlock/laravel\": \"*@dev\", \"laravel/framework\": \"$L10_CONSTRAINT\", \"phpunit/phpunit\": \"^10.5\", \"mockery/mockery\": \"^1.6\", \"predis/predis\": \"*\"}" \
        "{\"replace\": $UNSERVED}"; then
    APP10=$APP
    L10=$(composer_version "$APP10" laravel/framework); PHPUNIT10=$(composer_version "$APP10" phpunit/phpunit)
    suite_pass "composer: distlock/laravel resolves with laravel/framework $L10"
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
    own_tests l12 "$APP12" "$APP12/vendor/bin/phpunit"
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
suite_end
