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
    suite_fail "$label: run-tests.php not found (php8.2-dev)"
    suite_count 0 "$N_PHPT"
    suite_end
fi
note "run-tests: $RUN_TESTS; $N_PHPT tests against ${DISTLOCK_TEST_REDIS:-?}"
run_phpt "$label" "$results" "$log" 1200
p_pass=$(results_with "$results" 'PASSED' | wc -l)
p_xfail=$(results_with "$results" 'XFAILED' | wc -l)
p_bad=$(results_with "$results" 'FAILED|WARNED|BORKED|LEAKED|XLEAKED' | wc -l)
p_skip=$(results_with "$results" 'SKIPPED' | wc -l)
p_lost=$((N_PHPT - $(wc -l <"$results")))
[ "$p_lost" -lt 0 ] && p_lost=0
note "$label: $p_pass passed, $p_bad failed/warned/borked, $p_skip skipped, $p_xfail expected-fail, $p_lost without a result (exit $PHPT_RC)"
suite_count $((p_pass + p_xfail)) $((p_bad + p_skip + p_lost))
while IFS=$'\t' read -r r t; do
    case "$r" in
        PASSED|XFAILED) ;;
        *) echo "FAIL: $label: ${t#"$PWD/"} ($r)" ;;
    esac
done <"$results"
if [ "$p_skip" -gt 0 ]; then
    echo "skipped phpt tests (a skip fails the run: the test servers are up):"
    grep -E '^SKIP ' "$log" | head -n 100 | sed 's/^/  /' || true
fi
if [ "$p_xfail" -gt 0 ]; then
    echo "expected failures (XFAIL, counted as passed):"
    results_with "$results" 'XFAILED' | sed 's/^/  /'
fi
[ "$p_lost" -gt 0 ] && echo "FAIL: $label: $p_lost test(s) got no result (run-tests died or timed out)"
if [ "$PHPT_RC" != 0 ] && [ $((p_bad + p_skip + p_lost)) -eq 0 ]; then
    suite_fail "$label: run-tests.php exited $PHPT_RC without a failed test"
fi
if [ "$PHPT_RC" != 0 ] || [ $((p_bad + p_skip + p_lost)) -gt 0 ]; then
    show_phpt_log "$log"
fi
suite_end
