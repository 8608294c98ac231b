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
#     it moved to, and every relative link of README.md, docs/*.md,
#     integrations/*/README.md and bench/*.md reaches its file and its anchor
#     (GitHub's anchor rules).
#  2. tests/docs/run-blocks.php: every fenced block of README.md, docs/*.md
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
    require_distlock true "nothing"
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
FLUSH="127.0.0.1:6379 127.0.0.2:6379 127.0.0.3:6379:secret 127.0.0.4:6379"

DOCS_FLUSH=$FLUSH "$PHP" tests/docs/run-blocks.php README.md docs/*.md integrations/*/README.md
