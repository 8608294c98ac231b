#!/usr/bin/env bash
# tests/profiler/run.sh — the Symfony Web Profiler's "Locks" panel
# (integrations/symfony: DistLockBundle, DataCollector\DistLockDataCollector),
# in a real browser.
#
# A suite script per tests/lib/common.sh: run from the repository root by
# scripts/test, or standalone (it then starts its own redis-server and uses
# ./modules/distlock.so unless DISTLOCK_SO says otherwise).
#
#  1. A scratch Composer project requires distlock/symfony-lock through a path
#     repository with symfony/framework-bundle, twig-bundle, web-profiler-bundle
#     and lock 7.4 and PHPUnit 11.5 (Composer's cache under DISTLOCK_CACHE_DIR).
#  2. PHPUnit runs, from the installed copy of the package:
#     - tests/Profiler/DistLockDataCollectorTest.php: the collector in process
#       (the observer from kernel.request to the profile's save, and gone after);
#     - tests/Profiler/ProfilerPanelTest.php: the test application
#       (tests/ProfilerApp, a MicroKernelTrait kernel) served by `php -S` with the
#       extension and this suite's php.ini; its /locks page takes locks and waits
#       for one a second process holds for 1 s; headless Chromium (Debian's
#       `chromium`, installed here when missing) renders the profiler page
#       /_profiler/<token>?panel=distlock (the token from X-Debug-Token) and the
#       page with its toolbar, and the test asserts what they show from the DOM.
#  3. Screenshots (profiler-panel.png, profiler-toolbar.png) and the DOM dumps are
#     kept in $DISTLOCK_LOG_DIR/browser/.
# Every test is counted from PHPUnit's JUnit log; a skipped test fails.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
. tests/lib/common.sh

INTEGRATION="$ROOT/integrations/symfony"
: "${DISTLOCK_SO:=$ROOT/modules/distlock.so}"
export DISTLOCK_SO
SF_CONSTRAINT='^7.4'
PHPUNIT_CONSTRAINT='^11.5'

cleanup() { stop_redis_all; [ -n "${SCRATCH:-}" ] && rm -rf "$SCRATCH"; }
trap cleanup EXIT

section "Symfony profiler panel: set-up"
ensure_packages php-cli php-xml php-mbstring composer redis-server redis-tools chromium fonts-dejavu-core \
    || suite_fail "apt: could not install the packages the suite needs"
CHROMIUM=$(command -v chromium || true)
export CHROMIUM
if [ -z "$CHROMIUM" ]; then
    suite_fail "no chromium (Debian package chromium)"
    suite_end
fi
note "$("$CHROMIUM" --version 2>/dev/null | head -n1)"

require_distlock 'method_exists("DistLock", "addObserver") && class_exists("DistLock\\Event")' \
    "the observer (DistLock::addObserver(), DistLock\\Event)"
use_test_redis profiler

section "symfony/framework-bundle, twig-bundle, web-profiler-bundle $SF_CONSTRAINT, PHPUnit $PHPUNIT_CONSTRAINT (path repository)"
composer_env
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/distlock-profiler.XXXXXX")
"$PHP" -r '
    $sf = $argv[2];
    echo json_encode([
        "name" => "distlock-test/profiler-scratch",
        "require" => ["distlock/symfony-lock" => "*@dev", "symfony/lock" => $sf,
            "symfony/framework-bundle" => $sf, "symfony/twig-bundle" => $sf, "symfony/web-profiler-bundle" => $sf],
        "require-dev" => ["phpunit/phpunit" => $argv[3]],
        "repositories" => [["type" => "path", "url" => $argv[1], "options" => ["symlink" => false]]],
        "minimum-stability" => "stable",
        "config" => ["sort-packages" => true],
    ], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES), "\n";' \
    "$INTEGRATION" "$SF_CONSTRAINT" "$PHPUNIT_CONSTRAINT" >"$SCRATCH/composer.json"
if ! (cd "$SCRATCH" && timeout 600 "$PHP" -d "extension=$DISTLOCK_SO" "$(command -v composer)" update --no-progress --prefer-dist) \
        >"$DISTLOCK_LOG_DIR/composer.log" 2>&1; then
    suite_fail "composer: distlock/symfony-lock with the Symfony $SF_CONSTRAINT bundles did not install"
    excerpt "$DISTLOCK_LOG_DIR/composer.log" --tail
    suite_end
fi
suite_pass "composer: distlock/symfony-lock resolves with symfony/web-profiler-bundle $SF_CONSTRAINT"
PKG="$SCRATCH/vendor/distlock/symfony-lock"
versions=$(cd "$SCRATCH" && composer show 2>/dev/null | awk '$1 ~ /^symfony\/(framework-bundle|web-profiler-bundle|twig-bundle|lock)$|^phpunit\/phpunit$|^twig\/twig$/ { printf "%s %s; ", $1, $2 }')
note "installed: ${versions%; }"

OUT="$DISTLOCK_LOG_DIR/browser"
rm -rf "$OUT" && mkdir -p "$OUT"
DISTLOCK_SF_AUTOLOAD="$SCRATCH/vendor/autoload.php" DISTLOCK_PROFILER_VAR="$OUT/collector-var" \
    run_phpunit profiler-collector "$SCRATCH/vendor/bin/phpunit" \
    --bootstrap "$PKG/tests/bootstrap.php" "$PKG/tests/Profiler/DistLockDataCollectorTest.php"
DISTLOCK_SF_AUTOLOAD="$SCRATCH/vendor/autoload.php" DISTLOCK_PROFILER_OUT="$OUT" \
    run_phpunit profiler-browser "$SCRATCH/vendor/bin/phpunit" \
    --bootstrap "$PKG/tests/bootstrap.php" "$PKG/tests/Profiler/ProfilerPanelTest.php"

for png in profiler-panel.png profiler-toolbar.png; do
    if [ -s "$OUT/$png" ]; then
        note "screenshot: $OUT/$png"
    else
        suite_fail "no screenshot $OUT/$png"
    fi
done
rm -rf "$OUT/app-var" "$OUT/collector-var"
suite_end
