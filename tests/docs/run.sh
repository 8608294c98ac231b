#!/usr/bin/env bash
# tests/docs/run.sh — the docs suite: the docs say what is true, and their
# PHP samples run as printed.
#
# A suite script per tests/lib/common.sh: run from the repository root by
# scripts/test, or standalone (it then uses ./modules/distlock.so unless
# DISTLOCK_SO says otherwise). It builds nothing.
#
#  1. tests/docs/links.php: every heading of the README as it was before the
#     reference moved to docs/ (tests/docs/moved-headings.txt) has a section
#     it moved to, every relative link of README.md, docs/*.md,
#     docs/decisions/*.md, integrations/*/README.md and bench/*.md reaches its
#     file and its anchor (GitHub's anchor rules), and every docs/...md
#     reference in the comments of src/, stubs/, tests/model/, the phpt tests
#     and bench/*.php names a file (and its #anchor or quoted heading) that
#     exists.
#  2. tests/docs/tops.php: a page whose PHP samples use a variable of the
#     prelude ($locks, $other) without assigning it says at its top (before
#     its first subheading, block and table) what the variable is and the
#     server the prelude gives it (127.0.0.1:6379).
#  3. tests/docs/run-blocks.php: every fenced block of README.md, docs/*.md
#     and integrations/*/README.md that parses as PHP runs as printed, each in
#     its own php process with the extension, after a prelude that defines
#     $locks and $other (tests/docs/prelude.php), then the checks written
#     beside it (tests/docs/blocks.php says how). At least nine in ten PHP
#     blocks must run (the rest are marked, with their reason), none failing.
#
# The samples name the addresses a reader has: redis://127.0.0.1:6379,
# Redlock masters a, b, c, Sentinels s1..s3, Cluster nodes node1, node2. So
# the blocks run in a private network and mount namespace (unshare): its own
# loopback, where the suite's throw-away servers listen on exactly those
# addresses (127.0.0.0/8 only), and its own /etc/hosts naming them. Nothing
# outside the namespace is reachable from it, or sees it. The suite's main
# test servers (DISTLOCK_TEST_REDIS...) are not used: the docs name their own.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
. tests/lib/common.sh
: "${DISTLOCK_SO:=$ROOT/modules/distlock.so}"
export DISTLOCK_SO

if [ -z "${DOCS_IN_NAMESPACE:-}" ]; then
    section "docs: links and moved headings"
    "$PHP" tests/docs/links.php >"$DISTLOCK_LOG_DIR/links.txt" 2>&1
    cat "$DISTLOCK_LOG_DIR/links.txt"
    suite_count "$(grep -c '^PASS: ' "$DISTLOCK_LOG_DIR/links.txt")" "$(grep -c '^FAIL: ' "$DISTLOCK_LOG_DIR/links.txt")"
    grep -q '^links: done$' "$DISTLOCK_LOG_DIR/links.txt" || suite_fail "links.php did not finish"
    section "docs: the prelude's variables named at the top of each page that uses them"
    "$PHP" tests/docs/tops.php >"$DISTLOCK_LOG_DIR/tops.txt" 2>&1
    cat "$DISTLOCK_LOG_DIR/tops.txt"
    suite_count "$(grep -c '^PASS: ' "$DISTLOCK_LOG_DIR/tops.txt")" "$(grep -c '^FAIL: ' "$DISTLOCK_LOG_DIR/tops.txt")"
    grep -q '^tops: done$' "$DISTLOCK_LOG_DIR/tops.txt" || suite_fail "tops.php did not finish"
    require_distlock true "nothing"
    # pdo_sqlite: the resource of the fencing sample; iproute2 and util-linux: the namespace.
    ensure_packages php8.2-sqlite3 redis-server redis-tools iproute2 util-linux \
        || { suite_fail "docs: apt-get install"; suite_end; }
    # The frameworks' Composer projects (outside the namespace: Composer needs
    # its registry), made once per version of the integration and kept in
    # $DISTLOCK_CACHE_DIR/docs-vendor. A block that needs one whose Composer
    # run failed is marked, with the reason.
    composer_env
    docs_vendor() {   # NAME INTEGRATION REQUIRE_JSON [EXTRA_JSON [APP_DIR]]
        local name=$1 integ="$ROOT/integrations/$2" req=$3 extra=${4:-'{}'} app=${5:-} key dir var
        var=$(tr a-z A-Z <<<"$name")
        # the key: what is required, and every file of the integration (its README aside) and of the app
        key=$({ echo "$req$extra"; find "$integ" ${app:+"$app"} -type f ! -path "$integ/README.md" -print0 | sort -z | xargs -0 sha256sum; } \
              | sha256sum | cut -c1-16)
        dir="$DISTLOCK_CACHE_DIR/docs-vendor/$name-$key"
        if [ ! -f "$dir/vendor/autoload.php" ]; then
            rm -rf "$DISTLOCK_CACHE_DIR/docs-vendor/$name-"* && mkdir -p "$dir"   # an older one goes
            [ -n "$app" ] && cp -r "$app/." "$dir/"
            "$PHP" -r 'echo json_encode(array_merge_recursive(["name" => "distlock-docs/" . $argv[1], "type" => "project",
                    "repositories" => [["type" => "path", "url" => $argv[2], "options" => ["symlink" => false]]],
                    "require" => json_decode($argv[3], true), "minimum-stability" => "stable", "prefer-stable" => true],
                    json_decode($argv[4], true)), JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES), "\n";' "$name" "$integ" "$req" "$extra" >"$dir/composer.json"
            if ! (cd "$dir" && timeout 300 "$PHP" -d "extension=$DISTLOCK_SO" "$(command -v composer)" update --no-progress --prefer-dist) \
                    >"$DISTLOCK_LOG_DIR/composer-$name.log" 2>&1; then
                excerpt "$DISTLOCK_LOG_DIR/composer-$name.log" --tail
                rm -rf "$dir"
                export "DOCS_NO_VENDOR_$var=composer update failed (log $DISTLOCK_LOG_DIR/composer-$name.log)"
                return 0
            fi
        fi
        note "$name: $dir"
        export "DOCS_VENDOR_$var=$dir/vendor/autoload.php"
    }
    docs_vendor symfony symfony '{"distlock/symfony-lock": "*@dev", "symfony/lock": "^7.4", "symfony/http-kernel": "^7.4"}'
    docs_vendor opentelemetry opentelemetry '{"distlock/opentelemetry": "*@dev", "open-telemetry/sdk": "^1.0"}'
    # Laravel 12 in the laravel suite's test application (integrations/laravel/tests/app),
    # with the stand-ins for what the Packagist copy here does not serve (as tests/laravel/run.sh).
    docs_vendor laravel laravel '{"distlock/laravel": "*@dev", "laravel/framework": "^12.0"}' \
        '{"replace": {"fruitcake/php-cors": "*", "league/config": "*", "symfony/polyfill-php85": "*", "symfony/clock": "*"},
          "autoload": {"psr-4": {"App\\": "app/"}, "files": ["'"$ROOT"'/integrations/laravel/tests/standins-laravel12.php"]}}' \
        "$ROOT/integrations/laravel/tests/app"
    # symfony/semaphore is not served by the Packagist copy here: Debian's 5.4
    # with Debian's symfony/lock (as the symfony suite), and the integration's classes.
    if ensure_packages php-symfony-lock php-symfony-semaphore && [ -f /usr/share/php/Symfony/Component/Semaphore/autoload.php ]; then
        cat >"$DISTLOCK_LOG_DIR/semaphore-autoload.php" <<PHP
<?php
require '/usr/share/php/Symfony/Component/Lock/autoload.php';
require '/usr/share/php/Symfony/Component/Semaphore/autoload.php';
spl_autoload_register(static function (string \$class): void {
    if (str_starts_with(\$class, 'DistLock\\\\Symfony\\\\')) {
        \$file = '$ROOT/integrations/symfony/src/' . strtr(substr(\$class, 16), '\\\\', '/') . '.php';
        if (is_file(\$file)) require \$file;
    }
});
PHP
        export DOCS_VENDOR_SEMAPHORE="$DISTLOCK_LOG_DIR/semaphore-autoload.php"
    else
        export DOCS_NO_VENDOR_SEMAPHORE="apt-get install php-symfony-semaphore failed"
    fi
    # The blocks, in the namespace; their counts come back on the last line.
    unshare --net --mount --propagation private env DOCS_IN_NAMESPACE=1 bash "$0" >"$DISTLOCK_LOG_DIR/blocks.txt" 2>&1
    cat "$DISTLOCK_LOG_DIR/blocks.txt"
    totals=$(grep -E '^docs blocks: ' "$DISTLOCK_LOG_DIR/blocks.txt" | tail -n 1)
    if [ -z "$totals" ]; then
        suite_fail "docs blocks: the run in the namespace ended without its counts (log $DISTLOCK_LOG_DIR/blocks.txt)"
        suite_end
    fi
    read -r total run passed failed marked < <(sed -E 's/^docs blocks: ([0-9]+) PHP blocks, ([0-9]+) run, ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) marked$/\1 \2 \3 \4 \5/' <<<"$totals")
    suite_count "$passed" "$failed"
    if [ $((run * 10)) -ge $((total * 9)) ]; then
        suite_pass "docs blocks: $run of $total PHP blocks ran (at least nine in ten), $marked marked"
    else
        suite_fail "docs blocks: only $run of $total PHP blocks ran (nine in ten must: $marked marked)"
    fi
    suite_end
fi

# --- in the private network and mount namespace ---------------------------
trap stop_redis_all EXIT
ip link set lo up || { echo "docs blocks: cannot bring up the namespace's loopback"; exit 1; }
HOSTS="$DISTLOCK_LOG_DIR/hosts"
cat >"$HOSTS" <<'HOSTS'
127.0.0.1   localhost
::1         localhost ip6-localhost ip6-loopback
127.0.0.2   a
127.0.0.3   b
127.0.0.4   c
127.0.0.5   s1
127.0.0.6   s2
127.0.0.7   s3
127.0.0.10  node1
127.0.0.11  node2
127.0.0.12  node3
127.0.0.8   sentinel-master
127.0.0.9   sentinel-replica
HOSTS
mount --bind "$HOSTS" /etc/hosts || { echo "docs blocks: cannot mount the namespace's /etc/hosts"; exit 1; }

# srv NAME ADDR PORT [redis-server args...]: one throw-away server on ADDR:PORT.
srv() {
    local name=$1 addr=$2 port=$3 dir="$DISTLOCK_LOG_DIR/redis-$1" pid i
    shift 3
    mkdir -p "$dir"
    "${REDIS_SERVER:-redis-server}" --port "$port" --bind "$addr" --save '' --appendonly no --daemonize no \
        --dir "$dir" --logfile "$dir/redis.log" "$@" </dev/null >/dev/null 2>&1 3>&- 4>&- &
    pid=$!
    SUITE_REDIS_PIDS+=("$pid")
    for i in $(seq 1 100); do
        "${REDIS_CLI:-redis-cli}" -h "$addr" -p "$port" ping 2>&1 | grep -qE 'PONG|NOAUTH' && { note "$name: $addr:$port"; return 0; }
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    excerpt "$dir/redis.log" --tail
    echo "docs blocks: $name did not start on $addr:$port"
    exit 1
}
srv main 127.0.0.1 6379
srv redlock-a 127.0.0.2 6379
srv redlock-b 127.0.0.3 6379 --requirepass secret
srv redlock-c 127.0.0.4 6379
# Sentinel (docs/topologies.md): a master with a replica, three Sentinels
# s1..s3 that monitor it as "mymaster", the passwords the sample gives.
srv sentinel-master 127.0.0.8 6379 --requirepass master-secret --masterauth master-secret
srv sentinel-replica 127.0.0.9 6379 --requirepass master-secret --masterauth master-secret --replicaof 127.0.0.8 6379 --replica-announce-ip 127.0.0.9
for i in 1 2 3; do
    addr=127.0.0.$((4 + i)) dir="$DISTLOCK_LOG_DIR/redis-s$i"
    mkdir -p "$dir"
    cat >"$dir/sentinel.conf" <<CONF
port 26379
bind $addr
daemonize no
dir $dir
logfile $dir/sentinel.log
requirepass sentinel-secret
sentinel sentinel-pass sentinel-secret
sentinel announce-ip $addr
sentinel monitor mymaster 127.0.0.8 6379 2
sentinel auth-pass mymaster master-secret
sentinel down-after-milliseconds mymaster 5000
CONF
    "${REDIS_SERVER:-redis-server}" "$dir/sentinel.conf" --sentinel </dev/null >/dev/null 2>&1 3>&- 4>&- &
    SUITE_REDIS_PIDS+=("$!")
done
# Cluster (docs/topologies.md): node1, node2 (and node3: a cluster has three masters at least).
for i in 1 2 3; do srv "cluster-node$i" 127.0.0.$((9 + i)) 7000 --cluster-enabled yes --cluster-config-file nodes.conf --cluster-announce-ip 127.0.0.$((9 + i)); done
timeout 60 "${REDIS_CLI:-redis-cli}" --cluster create 127.0.0.10:7000 127.0.0.11:7000 127.0.0.12:7000 --cluster-yes \
    >"$DISTLOCK_LOG_DIR/cluster-create.log" 2>&1 || { excerpt "$DISTLOCK_LOG_DIR/cluster-create.log"; echo "docs blocks: cluster create failed"; exit 1; }
ready=0
for i in $(seq 1 300); do
    ok=1
    for n in 10 11 12; do
        "${REDIS_CLI:-redis-cli}" -h 127.0.0.$n -p 7000 cluster info 2>/dev/null | grep -q 'cluster_state:ok' || ok=0
    done
    "${REDIS_CLI:-redis-cli}" -h 127.0.0.9 -p 6379 -a master-secret --no-auth-warning info replication 2>/dev/null | grep -q 'master_link_status:up' || ok=0
    for n in 5 6 7; do
        "${REDIS_CLI:-redis-cli}" -h 127.0.0.$n -p 26379 -a sentinel-secret --no-auth-warning ping 2>/dev/null | grep -q PONG || ok=0
    done
    [ "$ok" = 1 ] && { ready=1; break; }
    sleep 0.1
done
[ "$ready" = 1 ] || { echo "docs blocks: the cluster, the replica or the Sentinels did not come up in 30 s"; exit 1; }
note "sentinel: master 127.0.0.8:6379, replica 127.0.0.9:6379, Sentinels s1..s3:26379; cluster: node1..node3:7000"
FLUSH="127.0.0.1:6379 127.0.0.2:6379 127.0.0.3:6379:secret 127.0.0.4:6379 127.0.0.8:6379:master-secret 127.0.0.10:7000 127.0.0.11:7000 127.0.0.12:7000"

DOCS_FLUSH=$FLUSH "$PHP" tests/docs/run-blocks.php README.md docs/*.md integrations/*/README.md
