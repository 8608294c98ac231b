#!/usr/bin/env bash
# tests/valgrind/run.sh — the phpt suite again under valgrind memcheck
# (run-tests -m), one check: no memory error and no leak in any test. A test
# that fails only under valgrind fails it too (DISTLOCK_PHPT_RESULTS: the
# results of the plain run, which counted the tests that fail anyway).
set -uo pipefail
source tests/lib/common.sh
source tests/lib/phpt.sh
plain=${DISTLOCK_PHPT_RESULTS:-/dev/null}

if [ -z "$RUN_TESTS" ] || [ "$N_PHPT" -eq 0 ]; then
    suite_fail "valgrind: not run (no run-tests.php or no phpt tests)"
    suite_end
fi
results="$DISTLOCK_LOG_DIR/valgrind-results.txt"
log="$DISTLOCK_LOG_DIR/valgrind.log"
# PCRE2's JIT code (no object file: "???" frames) reads past string ends on
# purpose; memcheck reports that in plain PHP with no extension loaded. Real
# code always has an object name, so only JIT code matches obj:???.
supp="$DISTLOCK_LOG_DIR/pcre-jit.supp"
for kind in Cond Value8 Addr8 Addr16 Addr32; do
    printf '{\n   pcre2-jit-%s\n   Memcheck:%s\n   obj:???\n}\n' "$kind" "$kind"
done >"$supp"
# run-tests' valgrind line is -q --tool=memcheck --trace-children=yes; report
# definite and indirect leaks as errors (they land in the .mem file: a LEAK).
export VALGRIND_OPTS="--leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --num-callers=30 --suppressions=$supp --trace-children-skip=*/redis-server,*/redis-cli,*/redis-benchmark"
# Memcheck keeps a core busy per test: as many at a time as there are cores.
DISTLOCK_TEST_JOBS=${DISTLOCK_TEST_JOBS:-2} run_phpt valgrind "$results" "$log" 2700 -m
unset VALGRIND_OPTS
bad=()
noise=0
# LEAKED also stands for LEAK&FAIL (then a .diff is left). A FAIL here only
# counts when the test passed without valgrind (else it is counted already).
while IFS=$'\t' read -r r t; do
    base=${t%.phpt}
    short=${t#"$PWD/"}
    failed_too=0
    case "$r" in
        FAILED|WARNED) failed_too=1 ;;
        LEAKED|XLEAKED) [ -f "$base.diff" ] && failed_too=1 ;;
    esac
    if [ "$failed_too" = 1 ] && grep -qxF "PASSED"$'\t'"$t" "$plain"; then
        bad+=("$short (fails under valgrind only)")
    fi
    case "$r" in
        BORKED) bad+=("$short (BORKED)") ;;
        LEAKED|XLEAKED)
            mem_out="$DISTLOCK_LOG_DIR/$(basename "$base").mem"
            verdict="real: no $base.mem to look at"
            [ -f "$base.mem" ] && verdict=$("$PHP" -n tests/valgrind/filter.php "$base.mem" "$mem_out" 2>&1 || true)
            case "$verdict" in
                real*) bad+=("$short (valgrind: ${verdict#real }; $mem_out)") ;;
                noise*) noise=$((noise + 1)); note "ignored: $short: ${verdict#noise }" ;;
                *) bad+=("$short (LEAKED; filter said: $verdict)") ;;
            esac ;;
    esac
done <"$results"
seen=$(wc -l <"$results")
skipped=$(results_with "$results" 'SKIPPED' | wc -l)
note "valgrind: $seen results, $skipped skipped, ${#bad[@]} with problems, $noise with leaks only in processes that ended in a fatal error (exit $PHPT_RC)"
if [ "$skipped" -gt 0 ]; then
    note "skipped under valgrind (allowed):"
    results_with "$results" 'SKIPPED' | head -n 50 | sed "s|^$PWD/|    |"
fi
[ "$seen" -lt "$N_PHPT" ] && bad+=("$((N_PHPT - seen)) test(s) got no result (run-tests died or timed out)")
if [ "${#bad[@]}" -eq 0 ]; then
    suite_pass "valgrind: $seen phpt tests, no leaks or memory errors"
else
    for t in "${bad[@]}"; do echo "FAIL: valgrind: $t"; done
    show_phpt_log "$log"
    shown=0
    for t in $(results_with "$results" 'LEAKED|XLEAKED'); do
        f="$DISTLOCK_LOG_DIR/$(basename "${t%.phpt}").mem"
        if [ -s "$f" ] && [ "$shown" -lt 5 ]; then
            shown=$((shown + 1))
            echo "  -- $f (records that count):"
            head -n 40 "$f" | sed 's/^/  | /'
        fi
    done
    suite_fail "valgrind: ${#bad[@]} problem(s) (log: $log)"
fi
suite_end
