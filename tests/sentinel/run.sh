#!/usr/bin/env bash
# tests/sentinel/run.sh — the Sentinel suite: builds sentinel_smoke against the
# core (src/core/*.c, ASan + UBSan) and hiredis, and runs each scenario on a
# fresh topology from start.sh (master + replica + 3 sentinels on loopback).
# Prints "N passed, N failed" at the end (common.sh's suite_end).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/lib/common.sh"
source "$ROOT/tests/sentinel/start.sh"
BUILD=$(mktemp -d "${TMPDIR:-/tmp}/distlock-sentinel-build.XXXXXX")
cleanup() { stop_redis_all; rm -rf "$BUILD"; }
trap cleanup EXIT

ensure_packages redis-server redis-tools >/dev/null || true

section "build sentinel_smoke"
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
if ! cc -std=c99 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 $SAN -I"$ROOT/src/core" $(pkg-config --cflags hiredis) \
        "$ROOT"/src/core/*.c "$ROOT/tests/sentinel/sentinel_smoke.c" -o "$BUILD/sentinel_smoke" \
        $SAN -pthread -lm $(pkg-config --libs hiredis) >"$BUILD/build.log" 2>&1; then
    excerpt "$BUILD/build.log"
    suite_fail "sentinel_smoke does not build"
    suite_end
fi

# run_scenario ARGS...: a fresh topology, one run of the smoke, its counts added.
run_scenario() {
    local log="$DISTLOCK_LOG_DIR/smoke-$*.log" p f
    section "scenario: $*"
    if ! sentinel_topology_start; then
        suite_fail "$*: the topology did not start"
        stop_redis_all
        return
    fi
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        timeout 300 "$BUILD/sentinel_smoke" "$@" 2>&1 | tee "$log" | sed 's/^/  /'
    p=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1/p' "$log" | tail -n1)
    f=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p' "$log" | tail -n1)
    if [ -z "$p" ]; then
        suite_fail "$*: the smoke did not finish (see $log)"
    else
        suite_count "$p" "$f"
    fi
    stop_redis_all
}

if [ $# -gt 0 ]; then
    run_scenario "$@"
else
    run_scenario basic
    run_scenario failover
    run_scenario doublegrant 0
    run_scenario doublegrant 1
fi
suite_end
