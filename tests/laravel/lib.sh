# tests/laravel/lib.sh — what tests/laravel/run.sh (Laravel 8 to 12, on the
# system's PHP) and tests/laravel/root.sh (Laravel 13, in the Debian roots of
# tests/php84 and tests/php85) share: scratch apps made with Composer, and
# PHPUnit runs of the package's and Laravel's own tests against them.
# Sourced after tests/lib/common.sh; needs INTEGRATION (integrations/laravel).

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
# With MAKE_APP_DIR set, the app is made there and kept (tests/laravel/root.sh
# makes it on the host, inside the root); else in a scratch dir removed at exit.
make_app() {
    local name=$1 dir
    if [ -n "${MAKE_APP_DIR:-}" ]; then
        dir=$MAKE_APP_DIR && rm -rf "$dir" && mkdir -p "$dir" || return 1
    else
        dir=$(mktemp -d "${TMPDIR:-/tmp}/distlock-laravel-$name.XXXXXX") || return 1
        SCRATCHES+=("$dir")
    fi
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
    (cd "$dir" && timeout --foreground 600 "$PHP" -d "extension=$DISTLOCK_SO" "$(command -v composer)" update --no-progress --prefer-dist) \
        >"$DISTLOCK_LOG_DIR/composer-$name.log" 2>&1 || { excerpt "$DISTLOCK_LOG_DIR/composer-$name.log" --tail >&2; return 1; }
    echo "$dir"
}

composer_version() { (cd "$1" && composer show "$2" 2>/dev/null | sed -n 's/^versions *: *\* *v\{0,1\}//p'); }

# laravel_tests NAME APP TESTS_DIR PHPUNIT...: Laravel's own lock tests, unmodified
# (framework-tests.txt, and the further list LARAVEL_TESTS_MORE names, if set).
laravel_tests() {
    local name=$1 app=$2 tests=$3
    shift 3
    local t
    for t in $(cat "$INTEGRATION/tests/framework-tests.txt" ${LARAVEL_TESTS_MORE:+"$LARAVEL_TESTS_MORE"} | grep -v '^#'); do
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

