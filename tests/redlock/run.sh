#!/usr/bin/env bash
# tests/redlock/run.sh — Redlock over five independent masters: five
# throw-away redis-servers on free loopback ports, and the phpt tests of
# tests/redlock/ against them (the API over a quorum, and the faults: masters
# stopped with SIGSTOP and resumed, masters that refuse connections, eight
# workers read-modify-writing while masters stop one after another, the
# watchdog through stopped masters, the hand-over by wake-up, and connects to
# masters that do not answer, made in parallel). The tests stop and resume the servers
# themselves (kill -STOP / -CONT of the pids given in the environment).
set -uo pipefail
source tests/lib/common.sh
source tests/lib/phpt.sh
trap stop_redis_all EXIT

section "Redlock: five masters"
uris=() pids=()
for i in 1 2 3 4 5; do
    if start_redis "redlock-$i" ""; then
        uris+=("redis://127.0.0.1:$STARTED_PORT")
        pids+=("$STARTED_PID")
    fi
done
phpt_use_dir tests/redlock
if [ "${#uris[@]}" -ne 5 ]; then
    suite_fail "Redlock: only ${#uris[@]} of 5 masters started"
    suite_count 0 "$N_PHPT"
    suite_end
fi
export DISTLOCK_TEST_REDLOCK=$(IFS=,; echo "${uris[*]}")
export DISTLOCK_TEST_REDLOCK_PIDS=$(IFS=,; echo "${pids[*]}")
note "DISTLOCK_TEST_REDLOCK=$DISTLOCK_TEST_REDLOCK"
# One test at a time: the fault tests stop servers the others use. 05-workers
# (4000 locked updates under rolling stops) takes about a minute: a test
# may run 300 s instead of run-tests' 60.
DISTLOCK_TEST_JOBS=1 run_phpt "redlock" "$DISTLOCK_LOG_DIR/redlock-results.txt" "$DISTLOCK_LOG_DIR/redlock.log" 900 \
    --set-timeout 300
count_phpt "redlock" "$DISTLOCK_LOG_DIR/redlock-results.txt" "$DISTLOCK_LOG_DIR/redlock.log" "$N_PHPT"
suite_end
