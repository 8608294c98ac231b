#!/usr/bin/env bash
# tests/laravel/root.sh — distlock/laravel on Laravel 13, which needs PHP 8.3
# or later: in the Debian roots of tests/php84 and tests/php85, on their PHP.
#
#   DISTLOCK_ROOT_PREPARE=DIR DISTLOCK_PLATFORM_PHP=PHP_VERSION bash tests/laravel/root.sh
#       on the host (tests/lib/debian-root.sh, before it enters the root):
#       the scratch app (tests/laravel/lib.sh's make_app) in DIR, Composer
#       resolving laravel/framework ^13 with config.platform.php = PHP_VERSION,
#       the root's PHP (Composer is not in the root, and needs none there).
#   bash tests/laravel/root.sh
#       inside the root (tests/lib/root-inside.sh), DISTLOCK_LARAVEL_APP = the
#       app made above: every class of the package loads on Laravel 13, the
#       package's own tests (tests/Feature) and those of what Laravel 12 and
#       13 added (tests/Feature12, tests/Feature13), with a Redis server of its own; with
#       DISTLOCK_LARAVEL13_TESTS=DIR (the tests/ folder of laravel/framework's
#       13.x line, from its public repository: Packagist's dist leaves tests/
#       out and Debian's 13.x source is listed but not served), also Laravel's
#       own lock tests (framework-tests.txt, framework-tests-13.txt) from DIR.
# Without phpredis for the root's PHP (Debian builds none for 8.5 yet), the
# app's Redis client is Predis (REDIS_CLIENT=predis). Every test is counted
# from PHPUnit's JUnit log; a skipped test fails.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
INTEGRATION="$PWD/integrations/laravel"
. tests/laravel/lib.sh
L13_CONSTRAINT='^13.0'
PHPUNIT13_CONSTRAINT='^12.5'

if [ -n "${DISTLOCK_ROOT_PREPARE:-}" ]; then
    set -- prepare "$DISTLOCK_ROOT_PREPARE" "${DISTLOCK_PLATFORM_PHP:?the PHP version of the root}"
    composer_env
    : "${DISTLOCK_SO:?the build on the host, for the ext-distlock check of Composer}"
    if MAKE_APP_DIR=$2 make_app l13 "{\"distlock/laravel\": \"*@dev\", \"laravel/framework\": \"$L13_CONSTRAINT\", \"phpunit/phpunit\": \"$PHPUNIT13_CONSTRAINT\", \"mockery/mockery\": \"^1.6\", \"predis/predis\": \"*\"}" \
            "{\"config\": {\"platform\": {\"php\": \"$3\"}}}" >/dev/null; then
        suite_pass "composer: distlock/laravel resolves with laravel/framework $(composer_version "$2" laravel/framework) for PHP $3"
    else
        suite_fail "composer: distlock/laravel with laravel/framework $L13_CONSTRAINT for PHP $3 (log: $DISTLOCK_LOG_DIR/composer-l13.log)"
    fi
    suite_end
fi

APP=${DISTLOCK_LARAVEL_APP:?the app tests/laravel/root.sh prepare made}
PHPV=$("$PHP" -n -r 'echo PHP_VERSION;')
L13=$(installed_version "$APP" laravel/framework)
section "laravel/framework $L13 on PHP $PHPV"
if [ ! -f "$APP/vendor/autoload.php" ]; then
    suite_fail "no app at $APP (its Composer run on the host failed)"
    suite_end
fi
start_redis laravel13 "" || { suite_fail "redis: could not start a server"; suite_end; }
export REDIS_HOST=127.0.0.1 REDIS_PORT=$STARTED_PORT REDIS_DB=3
"$PHP" -n -r 'exit(extension_loaded("redis") ? 0 : 1);' 2>/dev/null ||
    "$PHP" -r 'exit(extension_loaded("redis") ? 0 : 1);' || export REDIS_CLIENT=predis
note "redis: $REDIS_HOST:$REDIS_PORT, Laravel's client: ${REDIS_CLIENT:-phpredis}"

load_classes l13-classes "$APP/vendor/autoload.php" "$APP/vendor/distlock/laravel/src" 'DistLock\Laravel'
PHPUNIT=("$APP/vendor/bin/phpunit")
app_phpunit l13-own "$APP" "${PHPUNIT[@]}" --bootstrap "$INTEGRATION/tests/bootstrap.php" "$INTEGRATION/tests/Feature"
app_phpunit l13-apis12 "$APP" "${PHPUNIT[@]}" --bootstrap "$INTEGRATION/tests/bootstrap.php" "$INTEGRATION/tests/Feature12"
app_phpunit l13-apis "$APP" "${PHPUNIT[@]}" --bootstrap "$INTEGRATION/tests/bootstrap.php" "$INTEGRATION/tests/Feature13"
if [ -n "${DISTLOCK_LARAVEL13_TESTS:-}" ]; then
    note "Laravel's own tests from $DISTLOCK_LARAVEL13_TESTS"
    LARAVEL_TESTS_MORE=$INTEGRATION/tests/framework-tests-13.txt laravel_tests l13 "$APP" "$DISTLOCK_LARAVEL13_TESTS" "${PHPUNIT[@]}"
    limiter_test l13 "$APP" "$DISTLOCK_LARAVEL13_TESTS" "${PHPUNIT[@]}"
fi
note "laravel/framework $L13 (Composer, resolved for PHP $PHPV) with PHPUnit $(installed_version "$APP" phpunit/phpunit)"
suite_end
