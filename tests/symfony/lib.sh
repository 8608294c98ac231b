# tests/symfony/lib.sh — what tests/symfony/run.sh (symfony/lock 5.4 to 7.4,
# on the system's PHP) and tests/symfony/root.sh (8.1, in the Debian roots of
# tests/php84 and tests/php85) share. Sourced after tests/lib/common.sh;
# needs INTEGRATION (integrations/symfony).

# sf_project DIR LOCK_CONSTRAINT PLATFORM_PHP REQUIRE_JSON [DEBIAN_PART...]:
# a Composer project in DIR that requires distlock/symfony-lock through a path
# repository (its own composer.json resolves), symfony/lock LOCK_CONSTRAINT
# and REQUIRE_JSON's packages; PLATFORM_PHP (or "" for the running PHP) as
# config.platform.php; DEBIAN_PARTS (debian_parts in common.sh) for what the
# Packagist copy here does not serve. Composer runs with the extension loaded
# (ext-distlock is checked for real); its log is composer-<DIR's name>.log.
sf_project() {
    local dir=$1 lock=$2 platform=$3 require=$4 log
    shift 4
    log="$DISTLOCK_LOG_DIR/composer-${dir##*/}.log"
    rm -rf "$dir" && mkdir -p "$dir" || return 1
    # A part not found fails by itself (debian_parts counts it); the project is
    # made without it, so that what does not need it still runs.
    debian_parts "$dir" "$@" || true
    "$PHP" -r '
        [, $pkg, $lock, $platform, $require, $replace, $psr4, $files] = $argv;
        $config = ["sort-packages" => true];
        if ($platform !== "") $config["platform"] = ["php" => $platform];
        echo json_encode([
            "name" => "distlock-test/symfony-scratch",
            "require" => ["distlock/symfony-lock" => "*@dev", "symfony/lock" => $lock] + json_decode($require, true),
            "replace" => json_decode($replace), "autoload" => ["psr-4" => json_decode($psr4), "files" => json_decode($files)],
            "repositories" => [["type" => "path", "url" => $pkg, "options" => ["symlink" => false]]],
            "minimum-stability" => "stable", "prefer-stable" => true, "config" => $config,
        ], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES), "\n";' \
        "$INTEGRATION" "$lock" "$platform" "$require" "$DEBIAN_REPLACE" "$DEBIAN_PSR4" "$DEBIAN_FILES" >"$dir/composer.json" || return 1
    (cd "$dir" && timeout --foreground 600 "$PHP" -d "extension=$DISTLOCK_SO" "$(command -v composer)" update --no-progress --prefer-dist) \
        >"$log" 2>&1 || { excerpt "$log" --tail; return 1; }
}

# sf_servers NAME: the test server (use_test_redis NAME) and three more masters
# for the store on a Redlock client (the package's own tests), exported as
# DISTLOCK_TEST_REDIS and DISTLOCK_TEST_REDLOCK.
sf_servers() {
    local i redlock=()
    use_test_redis "$1"
    for i in 1 2 3; do
        start_redis "$1-redlock-$i" "" && redlock+=("redis://127.0.0.1:$STARTED_PORT")
    done
    [ "${#redlock[@]}" -eq 3 ] || suite_fail "redis: only ${#redlock[@]} of the 3 Redlock masters started"
    DISTLOCK_TEST_REDLOCK=$(IFS=,; echo "${redlock[*]}")
    export DISTLOCK_TEST_REDLOCK
    note "redlock: $DISTLOCK_TEST_REDLOCK"
}
