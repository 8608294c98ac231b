#!/usr/bin/env bash
# tests/sentinel/run.sh — the Sentinel suite: builds sentinel_smoke against the
# core (src/core/*/*.c, ASan + UBSan) and hiredis, and runs each scenario on a
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
# dl_platform.c takes its paths from config.h: the checks config.m4 makes, as the unit tests probe them.
sh "$ROOT/tests/unit/platform-probe.sh" cc >"$BUILD/config.h"
if ! cc -std=c99 -D_GNU_SOURCE -DHAVE_CONFIG_H -I"$BUILD" -Wall -Wextra -Werror -g -O1 $SAN -I"$ROOT/src/core/base" -I"$ROOT/src/core/transport" \
        -I"$ROOT/src/core/lease" -I"$ROOT/src/core/topology" $(pkg-config --cflags hiredis) \
        "$ROOT"/src/core/*/*.c "$ROOT/tests/sentinel/sentinel_smoke.c" -o "$BUILD/sentinel_smoke" \
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

# The extension's own tests (tests/sentinel/*.phpt), on a fresh topology;
# 09-failover kills its master, so it runs last.
run_phpt_scenario() {
    section "phpt: the extension through Sentinel"
    source "$ROOT/tests/lib/phpt.sh"
    phpt_use_dir tests/sentinel
    if ! sentinel_topology_start; then
        suite_fail "phpt: the topology did not start"
        suite_count 0 "$N_PHPT"
        return
    fi
    DISTLOCK_TEST_JOBS=1 run_phpt "sentinel" "$DISTLOCK_LOG_DIR/sentinel-results.txt" "$DISTLOCK_LOG_DIR/sentinel.log" 600
    count_phpt "sentinel" "$DISTLOCK_LOG_DIR/sentinel-results.txt" "$DISTLOCK_LOG_DIR/sentinel.log" "$N_PHPT"
    stop_redis_all
}

case "${1:-all}" in
    all)
        run_scenario basic
        run_scenario failover
        run_scenario doublegrant 0
        run_scenario doublegrant 1
        run_phpt_scenario
        ;;
    phpt) run_phpt_scenario ;;
    *) run_scenario "$@" ;;
esac
suite_end
