#!/usr/bin/env bash
# integrations/opentelemetry/bench/setup.sh — installs distlock/opentelemetry
# (this checkout's, through a Composer path repository) and the OpenTelemetry
# SDK into a project kept outside the clone (DISTLOCK_CACHE_DIR, default
# /var/cache/distlock-test), and prints the path of its vendor/autoload.php,
# which bootstrap.php (beside this file) reads from DISTLOCK_OTEL_AUTOLOAD.
# ext-distlock is not checked here: the bench loads the build it measures.
# bench/observer-run runs PHP with -n (no php.ini, no shared extension): the
# SDK's use of ctype is served by symfony/polyfill-ctype.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
CACHE="${DISTLOCK_CACHE_DIR:-/var/cache/distlock-test}"
DIR="$CACHE/bench-otel"
export COMPOSER_ALLOW_SUPERUSER=1 COMPOSER_NO_INTERACTION=1 COMPOSER_NO_AUDIT=1
export COMPOSER_HOME="$CACHE/composer-home" COMPOSER_CACHE_DIR="$CACHE/composer-cache"
mkdir -p "$DIR" "$COMPOSER_HOME" "$COMPOSER_CACHE_DIR"
php -r '
    echo json_encode([
        "name" => "distlock-bench/opentelemetry",
        "require" => ["distlock/opentelemetry" => "*@dev", "open-telemetry/sdk" => "^1.0", "symfony/polyfill-ctype" => "^1.0"],
        "repositories" => [["type" => "path", "url" => $argv[1], "options" => ["symlink" => false]]],
        "minimum-stability" => "stable",
        "config" => ["allow-plugins" => ["php-http/discovery" => true, "tbachert/spi" => true]],
    ], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES), "\n";' "$ROOT/integrations/opentelemetry" >"$DIR/composer.json"
(cd "$DIR" && composer update --no-progress --prefer-dist -q --ignore-platform-req=ext-distlock) >&2
echo "$DIR/vendor/autoload.php"
