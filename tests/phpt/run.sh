#!/usr/bin/env bash
# tests/phpt/run.sh — the phpt suite (tests/phpt/*.phpt) against the server in
# DISTLOCK_TEST_REDIS, with PHP's run-tests.php. Each test is counted; a test
# that SKIPs, WARNs or BORKs counts as failed (the servers are there).
# DISTLOCK_PHPT_LABEL names the run in the output (e.g. the server's version).
set -uo pipefail
source tests/lib/common.sh
source tests/lib/phpt.sh
label=${DISTLOCK_PHPT_LABEL:-phpt}

results="$DISTLOCK_LOG_DIR/phpt-results.txt"
log="$DISTLOCK_LOG_DIR/phpt.log"
: >"$results"
if [ "$N_PHPT" -eq 0 ]; then
    suite_fail "$label: no phpt tests under tests/phpt"
    suite_end
fi
if [ -z "$RUN_TESTS" ]; then
    suite_fail "$label: run-tests.php not found (php<series>-dev)"
    suite_count 0 "$N_PHPT"
    suite_end
fi
note "run-tests: ${RUN_TESTS_SOURCE:-$RUN_TESTS}${RUN_TESTS_SOURCE:+ (its retry of failed tests turned off)}; $N_PHPT tests against ${DISTLOCK_TEST_REDIS:-?}"
run_phpt "$label" "$results" "$log" 1200
count_phpt "$label" "$results" "$log" "$N_PHPT"
suite_end
