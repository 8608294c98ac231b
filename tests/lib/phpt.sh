# tests/lib/phpt.sh — running the phpt suite with PHP's run-tests.php (sourced
# after common.sh by the suites that run phpt: tests/phpt, tests/valgrind).

find_run_tests() {
    local c api prefix
    api=$(php-config --phpapi 2>/dev/null || true)
    prefix=$(php-config --prefix 2>/dev/null || echo /usr)
    for c in "$prefix/lib/php/$api/build/run-tests.php" \
             "$(php-config --extension-dir 2>/dev/null)/build/run-tests.php" \
             /usr/lib/php/*/build/run-tests.php "$PWD/run-tests.php"; do
        if [ -f "$c" ]; then echo "$c"; return 0; fi
    done
    return 1
}

RUN_TESTS=$(find_run_tests || true)
# run-tests.php runs a failed test a second time when its code calls usleep(),
# hrtime() and the like or its output says "timed out", and reports a pass on
# that retry as WARNED. That blanket retry would hide a flaky test, so the
# suites run a copy of run-tests.php in which only a test that declares it
# retries: a --FLAKY-- section, with its reason (php-src's convention); its pass
# on the retry is counted as passed and named in the summary (count_phpt:
# "RETRIED:"). The copy also seeds its --shuffle from DISTLOCK_PHPT_SEED, so a
# shuffled order can be replayed (run_phpt prints the seed). The original is
# used if either line ever changes shape (then no test retries, and the order
# cannot be replayed).
if [ -n "$RUN_TESTS" ]; then
    _patched="$DISTLOCK_LOG_DIR/run-tests-distlock.php"
    sed -e 's/if (!\$passed && !\$retried && error_may_be_retried(\$test, \$output)) {/if (!$passed \&\& !$retried \&\& $test->hasSection('"'FLAKY'"')) {/' \
        -e 's/^\( *\)shuffle(\$test_files);/\1mt_srand((int) getenv('"'DISTLOCK_PHPT_SEED'"')); shuffle($test_files);/' \
        "$RUN_TESTS" >"$_patched" 2>/dev/null || true
    if grep -q "if (!\$passed && !\$retried && \$test->hasSection('FLAKY')) {" "$_patched" 2>/dev/null &&
       grep -q "mt_srand((int) getenv('DISTLOCK_PHPT_SEED')); shuffle(\$test_files);" "$_patched"; then
        RUN_TESTS_SOURCE=$RUN_TESTS
        RUN_TESTS=$_patched
    fi
fi
# phpt_use_dir DIR: the directory run_phpt runs (default tests/phpt; tests/tls for the TLS tests).
phpt_use_dir() {
    PHPT_DIR=$1
    mapfile -t PHPT_FILES < <(find "$PHPT_DIR" -name '*.phpt' -type f 2>/dev/null | sort)
    N_PHPT=${#PHPT_FILES[@]}
}
phpt_use_dir tests/phpt
export TEST_PHP_EXECUTABLE="$PHP" REPORT_EXIT_STATUS=1 NO_INTERACTION=1

# Leftovers of an earlier run (x.diff, x.out, x.mem, ... beside x.phpt).
clean_phpt_outputs() {
    local t b
    for t in "${PHPT_FILES[@]+"${PHPT_FILES[@]}"}"; do
        b=${t%.phpt}
        rm -f "$b.diff" "$b.exp" "$b.log" "$b.out" "$b.php" "$b.sh" "$b.mem" "$b.skip.php" "$b.clean.php"
    done
}

# run_phpt NAME RESULTS LOG TIMEOUT [run-tests options]: runs the suite with
# the extension loaded (php -n: no php.ini); the exit status lands in PHPT_RC.
# DISTLOCK_TEST_JOBS tests at a time (default 4: most tests wait on the
# server or a child, and the cores idle 80-95 % of a run at 2), handed out in
# a shuffled order (run-tests' --shuffle, which also hands them out 4 at a
# time: without it each worker takes a sorted run of ~30, and the run lasts as
# long as the run holding the stalled-server tests); DISTLOCK_PHPT_SHUFFLE=0
# keeps the sorted order. The log lists the tests that took over
# DISTLOCK_PHPT_SLOW_MS (default 4000) ms.
run_phpt() {
    local name=$1 results=$2 log=$3 limit=$4 shuffle=
    shift 4
    if [ "${DISTLOCK_PHPT_SHUFFLE:-1}" = 1 ]; then
        shuffle=--shuffle
        export DISTLOCK_PHPT_SEED=${DISTLOCK_PHPT_SEED:-$((RANDOM * 32768 + RANDOM))}
        note "$name: shuffled with seed $DISTLOCK_PHPT_SEED (the same order again: DISTLOCK_PHPT_SEED=$DISTLOCK_PHPT_SEED)"
    fi
    clean_phpt_outputs
    : >"$results"
    PHPT_RC=0
    timeout --kill-after=30 "$limit" "$PHP" -n "$RUN_TESTS" -q --show-diff --no-color --no-progress \
        -n -d "extension=$DISTLOCK_SO" \
        "-j${DISTLOCK_TEST_JOBS:-4}" $shuffle --show-slow ${DISTLOCK_PHPT_SLOW_MS:-4000} -W "$results" "$@" ${PHPT_DIR:+"$PHPT_DIR"} >"$log" 2>&1 || PHPT_RC=$?
    if [ "$PHPT_RC" = 124 ] || [ "$PHPT_RC" = 137 ]; then
        note "$name: run-tests.php timed out after $limit s"
    fi
}

# Prints run-tests' log without the PASS lines, capped.
show_phpt_log() {
    grep -v -E '^PASS ' "$1" >"$1.brief" || true
    excerpt "$1.brief"
}

# Lists the tests of a results file whose result matches the ERE $2.
results_with() { awk -F'\t' -v re="^($2)\$" '$1 ~ re { print $2 }' "$1"; }

# count_phpt LABEL RESULTS LOG N: counts a run-tests results file of N tests:
# PASSED and XFAILED pass; FAILED, WARNED (passed only on a retry), BORKED,
# LEAKED, SKIPPED and a test without a result fail (the servers are up, so a
# green run means every test ran). Shows the log when anything failed.
count_phpt() {
    local label=$1 results=$2 log=$3 n=$4 pass xfail bad skip lost r t retried nretried
    # A WARNED test that declares --FLAKY-- and whose log line says it passed
    # on its retry (the only retry the patched run-tests.php makes): a pass,
    # named. Any other WARN (a SKIPIF's "warn", an XFAIL that passes) fails.
    retried=$(results_with "$results" 'WARNED' | while read -r t; do
        grep -q '^--FLAKY--' "$t" 2>/dev/null && grep -F "[$t]" "$log" | grep -qF "(warn: Test passed on retry attempt)" && echo "$t"
    done)
    nretried=$(grep -c . <<<"$retried" || true)
    pass=$(( $(results_with "$results" 'PASSED' | wc -l) + nretried ))
    xfail=$(results_with "$results" 'XFAILED' | wc -l)
    bad=$(( $(results_with "$results" 'FAILED|WARNED|BORKED|LEAKED|XLEAKED' | wc -l) - nretried ))
    skip=$(results_with "$results" 'SKIPPED' | wc -l)
    lost=$((n - $(wc -l <"$results")))
    [ "$lost" -lt 0 ] && lost=0
    note "$label: $pass passed, $bad failed/warned/borked, $skip skipped, $xfail expected-fail, $lost without a result (exit $PHPT_RC)"
    suite_count $((pass + xfail)) $((bad + skip + lost))
    while IFS=$'\t' read -r r t; do
        case "$r" in
            PASSED|XFAILED) ;;
            WARNED) if grep -qxF "$t" <<<"$retried"; then
                        echo "RETRIED: $label: ${t#"$PWD/"} passed on its retry (--FLAKY--: $(sed -n '/^--FLAKY--$/{n;p;q}' "$t"))"
                    else
                        echo "FAIL: $label: ${t#"$PWD/"} ($r)"
                    fi ;;
            *) echo "FAIL: $label: ${t#"$PWD/"} ($r)" ;;
        esac
    done <"$results"
    if [ "$skip" -gt 0 ]; then
        echo "skipped phpt tests (a skip fails the run: the test servers are up):"
        grep -E '^SKIP ' "$log" | head -n 100 | sed 's/^/  /' || true
    fi
    if [ "$xfail" -gt 0 ]; then
        echo "expected failures (XFAIL, counted as passed):"
        results_with "$results" 'XFAILED' | sed 's/^/  /'
    fi
    [ "$lost" -gt 0 ] && echo "FAIL: $label: $lost test(s) got no result (run-tests died or timed out)"
    if [ "$PHPT_RC" != 0 ] && [ $((bad + skip + lost)) -eq 0 ]; then
        suite_fail "$label: run-tests.php exited $PHPT_RC without a failed test"
    fi
    if [ "$PHPT_RC" != 0 ] || [ $((bad + skip + lost)) -gt 0 ]; then show_phpt_log "$log"; fi
}
