# tests/lib/cmocka.sh — counting a log of cmocka test binaries (sourced after
# common.sh by tests/unit/run.sh and tests/foreign/inside.sh).

# count_cmocka LABEL LOG RC: counts the cmocka totals in LOG (the output of the
# test binaries, run one after another, RC the runner's exit status): every
# test is counted; a skipped one, a failed setup ("[  ERROR   ]"), a binary
# that crashed (tests run but never reported) or a sanitizer report fails.
count_cmocka() {
    local label=$1 log=$2 rc=$3 u_run u_pass u_fail u_skip u_err u_lost u_bad u_san
    # cmocka >= 1.1.6 (Debian 13) puts the group's name before the count: "[==========] tests: Running 29 test(s)."
    u_run=$(sum_matches "$log" '^\[==========\] [^R]*Running ([0-9]+) test\(s\)\.')
    u_pass=$(sum_matches "$log" '^\[  PASSED  \] [^0-9]*([0-9]+) test\(s\)\.')
    u_fail=$(sum_matches "$log" '^\[  FAILED  \] [^0-9]*([0-9]+) test\(s\), listed below:')
    u_skip=$(sum_matches "$log" '^\[  SKIPPED \] [^0-9]*([0-9]+) test\(s\), listed below:')
    # A test whose setup/teardown failed is an "[  ERROR   ] name", in no total.
    u_err=$(grep -cE '^\[  ERROR   \] [A-Za-z_][A-Za-z0-9_]*$' "$log" || true)
    # A binary that crashed (ASan abort, signal) ran tests it never reported.
    u_lost=$((u_run - u_pass - u_fail - u_skip - u_err))
    [ "$u_lost" -lt 0 ] && u_lost=0
    u_bad=$((u_fail + u_err + u_skip + u_lost))
    u_san=$(grep -cE 'ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:' "$log" || true)
    note "$label: $u_run run, $u_pass passed, $u_fail failed, $u_err errors, $u_skip skipped, $u_lost unreported (crashed); sanitizer reports: $u_san (exit $rc)"
    grep -E '^NOTICE' "$log" | sed 's/^/  /' || true
    suite_count "$u_pass" "$u_bad"
    sed -nE 's/^\[  (FAILED|ERROR|SKIPPED) *\] ([A-Za-z_][A-Za-z0-9_]*)$/FAIL: '"$label"': \2 (\1)/p' "$log" | awk '!seen[$0]++' | head -n 100
    [ "$u_skip" -gt 0 ] && note "skipped C unit tests count as failed"
    [ "$u_lost" -gt 0 ] && echo "FAIL: $label: $u_lost test(s) not reported (a test binary crashed)"
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        suite_fail "$label: timed out"
    elif [ "$u_bad" -eq 0 ] && [ "$u_san" -gt 0 ]; then
        suite_fail "$label: $u_san sanitizer report(s)"     # e.g. LeakSanitizer at exit
    elif [ "$u_bad" -eq 0 ] && [ "$rc" != 0 ]; then
        suite_fail "$label: the test run exited $rc without a cmocka failure"
    fi
    if [ "$rc" != 0 ] || [ "$u_bad" -gt 0 ] || [ "$u_san" -gt 0 ]; then
        grep -E '^\[  (FAILED|ERROR|SKIPPED|  LINE  ) |^FAILED|ERROR: [A-Za-z]+Sanitizer|runtime error:|^SUMMARY:' "$log" \
            | head -n 150 | sed 's/^/  | /' || true
        note "(full log: $log)"
    fi
    [ "$u_run" -eq 0 ] && suite_fail "$label: no cmocka test ran"
    return 0
}
