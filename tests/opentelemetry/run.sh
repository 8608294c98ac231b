#!/usr/bin/env bash
# tests/opentelemetry/run.sh — the OpenTelemetry integration (integrations/opentelemetry).
#
# A suite script per tests/lib/common.sh: run from the repository root by
# scripts/test, or standalone (it then starts its own redis-server and uses
# ./modules/distlock.so unless DISTLOCK_SO says otherwise). It builds nothing.
#
# A scratch project requires distlock/opentelemetry through a path repository
# (so that the package's own composer.json resolves and Composer's autoloader
# runs its _register.php, as in an application), with open-telemetry/sdk,
# open-telemetry/exporter-otlp (and guzzlehttp/guzzle as its HTTP client) and
# PHPUnit 11.5 from Composer, twice: the newest versions served, and the oldest
# the constraints allow (--prefer-lowest). The package's tests run from the
# installed copy:
#  - the SDK's in-memory span and metric exporters: the span tree, the
#    attributes, the histograms and counters, lost leases, timeouts, errors,
#    lock names left out by default and written on request;
#  - the automatic registration in fresh processes, and
#    OTEL_PHP_DISABLED_INSTRUMENTATIONS / OTEL_SDK_DISABLED turning it off;
#  - OTLP/HTTP export (protobuf and JSON) to a receiver on 127.0.0.1
#    (tests/otlp/receiver.php under PHP's built-in server: no OTLP receiver
#    is served by Debian or npm, see integrations/opentelemetry/README.md).
# Then, in a project with open-telemetry/api alone (no SDK), the automatic
# registration's own reading of OTEL_PHP_DISABLED_INSTRUMENTATIONS and
# OTEL_SDK_DISABLED, and the observer on the API's no-op providers.
# Every test is counted from PHPUnit's JUnit log; a skipped test fails.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
. tests/lib/common.sh

INTEGRATION="$ROOT/integrations/opentelemetry"
: "${DISTLOCK_SO:=$ROOT/modules/distlock.so}"
export DISTLOCK_SO
OTEL_API_CONSTRAINT='^1.0'
OTEL_SDK_CONSTRAINT='^1.0'
PHPUNIT_CONSTRAINT='^11.5'

SCRATCHES=()
cleanup() { stop_redis_all; local d; for d in "${SCRATCHES[@]+"${SCRATCHES[@]}"}"; do rm -rf "$d"; done; }
trap cleanup EXIT

section "OpenTelemetry integration: set-up"
# php-bcmath: google/protobuf's PHP decoder of OTLP's JSON encoding needs it (64-bit integers).
ensure_packages php-cli php-xml php-mbstring php-bcmath composer redis-server redis-tools \
    || suite_fail "apt: could not install the packages the suite needs"
require_distlock 'method_exists("DistLock", "addObserver") && class_exists("DistLock\\Event")' \
    "the observer API (DistLock::addObserver(), DistLock\\Event)"
use_test_redis opentelemetry
# The tests set the OpenTelemetry variables they test; none may leak in.
unset OTEL_PHP_DISABLED_INSTRUMENTATIONS OTEL_SDK_DISABLED OTEL_PHP_AUTOLOAD_ENABLED \
    OTEL_PHP_DISTLOCK_LOCK_NAMES OTEL_PHP_DISTLOCK_TRACES OTEL_PHP_DISTLOCK_METRICS

composer_env
if (cd "$INTEGRATION" && composer validate --no-check-publish --no-check-lock) >"$DISTLOCK_LOG_DIR/composer-validate.log" 2>&1; then
    suite_pass "composer validate integrations/opentelemetry/composer.json"
else
    suite_fail "composer validate integrations/opentelemetry/composer.json"
    excerpt "$DISTLOCK_LOG_DIR/composer-validate.log"
fi

# scratch_run NAME COMPOSER_FLAGS...: a scratch project that requires the package
# through a path repository, installed with Composer (the flags: e.g.
# --prefer-lowest), then the package's tests from the installed copy.
scratch_run() {
    local name=$1 dir
    shift
    dir=$(mktemp -d "${TMPDIR:-/tmp}/distlock-otel-$name.XXXXXX")
    SCRATCHES+=("$dir")
    "$PHP" -r '
        echo json_encode([
            "name" => "distlock-test/opentelemetry-scratch",
            "require" => ["distlock/opentelemetry" => "*@dev", "open-telemetry/api" => $argv[2]],
            "require-dev" => ["open-telemetry/sdk" => $argv[3], "open-telemetry/exporter-otlp" => "^1.0",
                "guzzlehttp/guzzle" => "^7.0", "phpunit/phpunit" => $argv[4]],
            "repositories" => [["type" => "path", "url" => $argv[1], "options" => ["symlink" => false]]],
            "minimum-stability" => "stable",
            "config" => ["sort-packages" => true,
                "allow-plugins" => ["php-http/discovery" => true, "tbachert/spi" => true]],
        ], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES), "\n";' \
        "$INTEGRATION" "$OTEL_API_CONSTRAINT" "$OTEL_SDK_CONSTRAINT" "$PHPUNIT_CONSTRAINT" >"$dir/composer.json"
    # The extension is loaded so that Composer checks the package's ext-distlock for real.
    if ! (cd "$dir" && timeout 600 "$PHP" -d "extension=$DISTLOCK_SO" "$(command -v composer)" update --no-progress --prefer-dist "$@") \
            >"$DISTLOCK_LOG_DIR/composer-$name.log" 2>&1; then
        suite_fail "composer ($name): distlock/opentelemetry with open-telemetry/api $OTEL_API_CONSTRAINT did not install"
        excerpt "$DISTLOCK_LOG_DIR/composer-$name.log" --tail
        return
    fi
    local v
    v=$(cd "$dir" && for p in open-telemetry/api open-telemetry/sdk open-telemetry/sem-conv open-telemetry/exporter-otlp phpunit/phpunit; do
        printf '%s %s, ' "$p" "$(composer show "$p" 2>/dev/null | sed -n 's/^versions *: *\* *v\{0,1\}//p')"; done)
    suite_pass "composer ($name): distlock/opentelemetry installs with ${v%, }"
    VERSIONS+=("$name: ${v%, }")
    DISTLOCK_OTEL_AUTOLOAD="$dir/vendor/autoload.php" run_phpunit "otel-tests-$name" "$dir/vendor/bin/phpunit" \
        --bootstrap "$dir/vendor/distlock/opentelemetry/tests/bootstrap.php" "$dir/vendor/distlock/opentelemetry/tests"
}

VERSIONS=()
# ---------------------------------------------------------------------------
section "the newest open-telemetry/api, sdk, sem-conv and exporter-otlp served, PHPUnit $PHPUNIT_CONSTRAINT (Composer, path repository)"
scratch_run newest
# ---------------------------------------------------------------------------
section "the oldest of each that the constraints allow and the Packagist copy serves (--prefer-lowest)"
scratch_run lowest --prefer-lowest

# ---------------------------------------------------------------------------
section "open-telemetry/api alone (no SDK): the automatic registration's own reading of the environment"
# Without open-telemetry/sdk, _register.php reads OTEL_PHP_DISABLED_INSTRUMENTATIONS and
# OTEL_SDK_DISABLED itself; the global providers are the API's no-op ones, on which
# the observer must not fail (stats()['observer_errors'] stays 0).
API_ONLY=$(mktemp -d "${TMPDIR:-/tmp}/distlock-otel-api.XXXXXX")
SCRATCHES+=("$API_ONLY")
"$PHP" -r '
    echo json_encode([
        "name" => "distlock-test/opentelemetry-api-only",
        "require" => ["distlock/opentelemetry" => "*@dev", "open-telemetry/api" => $argv[2]],
        "repositories" => [["type" => "path", "url" => $argv[1], "options" => ["symlink" => false]]],
        "minimum-stability" => "stable",
    ], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES), "\n";' "$INTEGRATION" "$OTEL_API_CONSTRAINT" >"$API_ONLY/composer.json"
if (cd "$API_ONLY" && timeout 600 "$PHP" -d "extension=$DISTLOCK_SO" "$(command -v composer)" update --no-progress --prefer-dist) \
        >"$DISTLOCK_LOG_DIR/composer-api-only.log" 2>&1; then
    suite_pass "composer (api only): distlock/opentelemetry installs without open-telemetry/sdk"
    # api_only_case LABEL EXPECTED VAR=value...: "registered" or "not registered", and no observer error.
    api_only_case() {
        local label=$1 want=$2 got
        shift 2
        got=$(env "$@" "$PHP" -d "extension=$DISTLOCK_SO" -r '
            require $argv[1];
            $auto = DistLock\OpenTelemetry\DistLockInstrumentation::automatic() !== null;
            if (class_exists("OpenTelemetry\\SDK\\Sdk")) { echo "the SDK is installed"; exit; }
            $l = new DistLock($argv[2], ["prefix" => "otel-test:"]);
            $l->lock("api-only:" . getmypid(), 5, 1)->release();
            echo $auto ? "registered" : "not registered", ", observer_errors ", $l->stats()["observer_errors"];' \
            "$API_ONLY/vendor/autoload.php" "$DISTLOCK_TEST_REDIS" 2>&1)
        if [ "$got" = "$want, observer_errors 0" ]; then
            suite_pass "api only, $label: $got"
        else
            suite_fail "api only, $label: expected \"$want, observer_errors 0\", got: $got"
        fi
    }
    api_only_case "no variable" "registered"
    api_only_case "OTEL_PHP_DISABLED_INSTRUMENTATIONS=distlock" "not registered" OTEL_PHP_DISABLED_INSTRUMENTATIONS=distlock
    api_only_case "OTEL_PHP_DISABLED_INSTRUMENTATIONS=' pdo , distlock'" "not registered" "OTEL_PHP_DISABLED_INSTRUMENTATIONS= pdo , distlock"
    api_only_case "OTEL_PHP_DISABLED_INSTRUMENTATIONS=all" "not registered" OTEL_PHP_DISABLED_INSTRUMENTATIONS=all
    api_only_case "OTEL_PHP_DISABLED_INSTRUMENTATIONS=pdo" "registered" OTEL_PHP_DISABLED_INSTRUMENTATIONS=pdo
    api_only_case "OTEL_SDK_DISABLED=true" "not registered" OTEL_SDK_DISABLED=true
else
    suite_fail "composer (api only): distlock/opentelemetry without the SDK did not install"
    excerpt "$DISTLOCK_LOG_DIR/composer-api-only.log" --tail
fi

section "versions tested"
for v in "${VERSIONS[@]+"${VERSIONS[@]}"}"; do note "$v"; done
suite_end
