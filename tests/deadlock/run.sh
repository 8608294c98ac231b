#!/usr/bin/env bash
# tests/deadlock/run.sh — deadlock detection under load (issue 47): 8 worker
# processes (tests/deadlock/stress.php) take random pairs of 4 names in random
# order for 20 s against a redis-server of the suite's own on loopback
# (lock(first, 10, 5), lock(second, 10, 5), a read-sleep-write of each name's
# counter over a plain connection, both released in random order; on a
# DeadlockException the first is released and the pair redone after 0-20 ms),
# each logging the call and return times (hrtime) of every lock() and
# release(). tests/deadlock/check.php then checks the logs: every
# DeadlockException names a cycle the logs allow at one instant of its call
# (0 false reports), one victim per cycle, every cycle of certain waits ended
# by a member's DeadlockException and no timeout that waited one out (every
# cycle reported), certain holds of a name disjoint and no lost update (0
# overlaps), the workers' stats() agreeing with their logs, and at least 20
# deadlocks reported. Before it, the checker's self-test (a fabricated breach
# of each rule must fail it); after it, a control run with
# 'deadlock_detection' => false whose waited-out cycles the checker must
# catch (in both runs a ConnectionException for a last attempt answered after
# the call's bound, at the very end of a whole 5 s wait, is listed, not
# failed: a loaded machine's answer, check.php, --tolerate-bound-spent). About 30 s on 2
# cores. DISTLOCK_DEADLOCK_SECONDS (20, whole seconds) and
# DISTLOCK_DEADLOCK_SEED (the workers' random pairs) change the main run.
set -uo pipefail
SUITE_T0=$(date +%s.%N)
cd "$(dirname "$0")/../.."
source tests/lib/common.sh
: "${DISTLOCK_SO:=$PWD/modules/distlock.so}"
SECONDS_RUN=${DISTLOCK_DEADLOCK_SECONDS:-20}
SEED=${DISTLOCK_DEADLOCK_SEED:-$((RANDOM * 32768 + RANDOM))}
WORKERS=8
trap stop_redis_all EXIT
require_distlock 'class_exists("DistLock\\DeadlockException") && function_exists("pcntl_fork")' \
    "DistLock\\DeadlockException (issue 47), or this PHP lacks pcntl"

# check_lines LABEL FILE: counts the "CHECK <rule> ok|FAIL <detail>" lines of a check.php run.
check_lines() {
    local label=$1 file=$2 rule verdict detail n=0
    while read -r _ rule verdict detail; do
        n=$((n + 1))
        if [ "$verdict" = ok ]; then suite_pass "$label: $rule: $detail"; else suite_fail "$label: $rule: $detail"; fi
    done < <(grep '^CHECK ' "$file")
    [ "$n" -gt 0 ] || { suite_fail "$label: the checker reported nothing (log: $file)"; excerpt "$file" --tail; }
    # the problems each failed rule listed (at most 10 a rule)
    grep -E '^  ' "$file" | head -n 60 || true
}

section "deadlock: the checker's self-test (each rule must be able to fail)"
"$PHP" -n tests/deadlock/check.php --selftest >"$DISTLOCK_LOG_DIR/selftest.txt" 2>"$DISTLOCK_LOG_DIR/selftest.err"
while read -r verdict line; do
    case "$verdict" in
        ok) suite_pass "deadlock: checker self-test: ${line#- }" ;;
        not) suite_fail "deadlock: checker self-test: ${line#ok - } (log: $DISTLOCK_LOG_DIR/selftest.err)" ;;
    esac
done <"$DISTLOCK_LOG_DIR/selftest.txt"
grep -q '^ok ' "$DISTLOCK_LOG_DIR/selftest.txt" || suite_fail "deadlock: the checker's self-test reported nothing (log: $DISTLOCK_LOG_DIR/selftest.err)"

if ! start_redis deadlock ""; then
    suite_fail "deadlock: could not start a redis-server"
    suite_end
fi
PORT=$STARTED_PORT
URI="redis://127.0.0.1:$PORT"
CLI=${REDIS_CLI:-redis-cli}

# stress_run LABEL DIR SECONDS DETECTION: one workload run into DIR; fails the suite when it did not end well.
stress_run() {
    local label=$1 dir=$2 secs=$3 detection=$4 rc=0
    rm -rf "$dir"
    "$CLI" -p "$PORT" flushall >/dev/null
    timeout --kill-after=10 $((secs + 90)) "$PHP" -d "extension=$DISTLOCK_SO" tests/deadlock/stress.php --uri="$URI" --out="$dir" \
        --workers="$WORKERS" --seconds="$secs" --detection="$detection" --seed="$SEED" >"$dir.log" 2>&1 || rc=$?
    sed 's/^/  /' "$dir.log" | head -n 20
    if [ "$rc" != 0 ]; then
        suite_fail "deadlock: $label: stress.php exited $rc (log: $dir.log)"
        excerpt "$dir.log" --tail
    fi
}

section "deadlock: $WORKERS workers, random pairs of 4 names, ${SECONDS_RUN} s, seed $SEED ($URI)"
RUN="$DISTLOCK_LOG_DIR/run"
stress_run "main run" "$RUN" "$SECONDS_RUN" 1
"$PHP" -n -d memory_limit=-1 tests/deadlock/check.php "$RUN" --min-deadlocks=20 --cycle-limit=2.5 --tolerate-bound-spent >"$DISTLOCK_LOG_DIR/check.txt" 2>&1
check_lines deadlock "$DISTLOCK_LOG_DIR/check.txt"
SUMMARY=$(sed -n 's/^SUMMARY //p' "$DISTLOCK_LOG_DIR/check.txt")

section "deadlock: control run, 'deadlock_detection' => false (the checker must catch the cycles waited out)"
CONTROL="$DISTLOCK_LOG_DIR/control"
stress_run "control run" "$CONTROL" 1 0
"$PHP" -n -d memory_limit=-1 tests/deadlock/check.php "$CONTROL" --control --tolerate-bound-spent --cycle-limit=2.5 >"$DISTLOCK_LOG_DIR/check-control.txt" 2>&1
check_lines "deadlock: control" "$DISTLOCK_LOG_DIR/check-control.txt"
note "control: $(sed -n 's/^SUMMARY //p' "$DISTLOCK_LOG_DIR/check-control.txt")"

stop_redis_all
note "deadlock: ${SUMMARY:-no summary (log: $DISTLOCK_LOG_DIR/check.txt)}; seed $SEED; logs $DISTLOCK_LOG_DIR; suite wall time $(awk -v a="$SUITE_T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
suite_end
