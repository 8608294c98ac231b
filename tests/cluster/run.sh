#!/usr/bin/env bash
# tests/cluster/run.sh — the core on a real 6-node Redis Cluster, at the C
# level and through the extension's phpt tests (tests/cluster/*.phpt). Builds
# tests/cluster/cluster_smoke.c against the core (tests/unit's libdlcore.a, ASan/UBSan) and hiredis, starts the
# cluster (start.sh), and checks:
#   - every companion key of hostile names is in its lock key's slot (CLUSTER KEYSLOT);
#   - acquire / contend / release / fenced re-acquire on names of every master;
#   - a loop of acquire/release sees 0 errors while the slot of its names is
#     migrated to another master and back (SETSLOT IMPORTING/MIGRATING, MIGRATE,
#     SETSLOT NODE), and the router did follow redirections.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
. tests/cluster/start.sh

ensure_packages redis-server redis-tools || true
SMOKE="$DISTLOCK_LOG_DIR/cluster_smoke"

section "cluster: build"
if make -C tests/unit build/libdlcore.a >"$DISTLOCK_LOG_DIR/cluster-build.log" 2>&1 &&
   ${CC:-cc} -std=c99 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
       -fno-sanitize-recover=all -Isrc/core/base -Isrc/core/transport -Isrc/core/lease -Isrc/core/topology tests/cluster/cluster_smoke.c tests/unit/build/libdlcore.a \
       $(pkg-config --libs hiredis) -fsanitize=address,undefined -pthread -lm -o "$SMOKE" >>"$DISTLOCK_LOG_DIR/cluster-build.log" 2>&1; then
    suite_pass "cluster_smoke built"
else
    excerpt "$DISTLOCK_LOG_DIR/cluster-build.log" --tail
    suite_fail "cluster_smoke did not build"
    suite_end
fi
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

section "cluster: start 3 masters + 3 replicas"
if cluster_start; then suite_pass "cluster up: $DISTLOCK_TEST_CLUSTER_SEEDS"; else suite_fail "cluster did not start"; suite_end; fi

# run_mode NAME ARGS...: one cluster_smoke run, its PASS/FAIL lines counted.
run_mode() {
    local name=$1 log="$DISTLOCK_LOG_DIR/cluster-$1.log" rc=0
    shift
    timeout 300 "$SMOKE" "$@" >"$log" 2>&1 || rc=$?
    sed -n 's/^\(PASS\|FAIL\): /\1: /p; s/^  /  /p' "$log"
    SUITE_PASSED=$((SUITE_PASSED + $(grep -c '^PASS: ' "$log")))
    SUITE_FAILED=$((SUITE_FAILED + $(grep -c '^FAIL: ' "$log")))
    if [ "$rc" -ne 0 ] && ! grep -q '^FAIL: ' "$log"; then
        excerpt "$log" --tail
        suite_fail "$name: cluster_smoke exited with $rc"
    fi
}

section "cluster: companion keys in the lock key's slot (CLUSTER KEYSLOT)"
run_mode keys keys 127.0.0.1 "$CLUSTER_SEED_PORT"

section "cluster: locks on every master"
run_mode locks locks 127.0.0.1 "$CLUSTER_SEED_PORT"

section "cluster: semaphore, shared locks and multi-locks"
run_mode primitives primitives 127.0.0.1 "$CLUSTER_SEED_PORT"

section "cluster: acquire/release loop through slot migrations"
TAG=migr
SLOT=$(ccli "$CLUSTER_SEED_PORT" CLUSTER KEYSLOT "$TAG")
HOME_PORT=$(cluster_owner_port "$SLOT")
OTHER_PORT=
for p in "${CLUSTER_PORTS[@]}"; do
    if [ "$p" != "$HOME_PORT" ] && ccli "$p" INFO replication | grep -q '^role:master'; then OTHER_PORT=$p; break; fi
done
note "slot $SLOT of {$TAG}: 127.0.0.1:$HOME_PORT, migrated to 127.0.0.1:$OTHER_PORT and back"
LOOP_LOG="$DISTLOCK_LOG_DIR/cluster-loop.log"
timeout 300 "$SMOKE" loop 127.0.0.1 "$CLUSTER_SEED_PORT" 14 "$TAG" >"$LOOP_LOG" 2>&1 &
LOOP_PID=$!
sleep 1
migrated=1
cluster_migrate_slot "$SLOT" "$OTHER_PORT" || migrated=0
sleep 1
cluster_migrate_slot "$SLOT" "$HOME_PORT" || migrated=0
sleep 1
cluster_migrate_slot "$SLOT" "$OTHER_PORT" || migrated=0
LOOP_RC=0
wait "$LOOP_PID" || LOOP_RC=$?
if [ "$migrated" -eq 1 ] && [ "$(cluster_owner_port "$SLOT")" = "$OTHER_PORT" ]; then
    suite_pass "slot $SLOT migrated 3 times (now on 127.0.0.1:$OTHER_PORT)"
else
    suite_fail "the slot migration itself failed"
fi
line=$(grep '^loop: ' "$LOOP_LOG" || true)
note "${line:-no totals}"
ops=$(sed -nE 's/.*ops=([0-9]+).*/\1/p' <<<"$line")
errors=$(sed -nE 's/.*errors=([0-9]+).*/\1/p' <<<"$line")
moved=$(sed -nE 's/.*moved=([0-9]+).*/\1/p' <<<"$line")
asks=$(sed -nE 's/.*asks=([0-9]+).*/\1/p' <<<"$line")
retries=$(sed -nE 's/.*retries=([0-9]+).*/\1/p' <<<"$line")
if [ "$LOOP_RC" -eq 0 ] && [ "${errors:-1}" -eq 0 ] && [ "${ops:-0}" -gt 100 ]; then
    suite_pass "loop: $ops acquire/release cycles through the migrations, 0 errors"
else
    excerpt "$LOOP_LOG" --tail
    suite_fail "loop: exit $LOOP_RC, ${ops:-?} cycles, ${errors:-?} errors"
fi
if [ "${moved:-0}" -gt 0 ] && [ $(( ${asks:-0} + ${retries:-0} )) -gt 0 ]; then
    suite_pass "the router followed the migration: $moved MOVED, $asks ASK, $retries TRYAGAIN/CLUSTERDOWN retries"
else
    suite_fail "the loop saw no redirection (moved=${moved:-?} asks=${asks:-?} retries=${retries:-?}): the test did not test"
fi

section "cluster: the extension's own tests (tests/cluster/*.phpt)"
. tests/lib/phpt.sh
phpt_use_dir tests/cluster
DISTLOCK_TEST_JOBS=1 run_phpt "cluster" "$DISTLOCK_LOG_DIR/cluster-results.txt" "$DISTLOCK_LOG_DIR/cluster-phpt.log" 600
count_phpt "cluster" "$DISTLOCK_LOG_DIR/cluster-results.txt" "$DISTLOCK_LOG_DIR/cluster-phpt.log" "$N_PHPT"

cluster_stop
suite_end
