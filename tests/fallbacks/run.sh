#!/usr/bin/env bash
# tests/fallbacks/run.sh — the portable paths, run on Linux (issue 28.3).
#
# macOS has no getrandom, ppoll or pthread_condattr_setclock; src/core/base/
# dl_platform.c then takes getentropy(), poll() re-timed on the monotonic
# clock, and a self-pipe for the watchdog's sleeps. So that those paths are
# not dead code, this suite:
#   1. builds the extension with ./configure --enable-distlock-fallbacks in a
#      scratch copy, warning-free, and checks that php --ri distlock names the
#      fallbacks (and that the normal build, $DISTLOCK_SO, names the first
#      choices: the switch really changed something);
#   2. runs the C unit tests with the same paths (tests/unit/run.sh with
#      PLATFORM_HIDE), then test_platform and test_token once more with
#      getentropy hidden too (arc4random_buf, the last choice);
#   3. runs the phpt contract suite (tests/phpt) against the fallback build;
#   4. runs the watchdog's helgrind test (tests/threads) on the fallback
#      build, unless DISTLOCK_TEST_SKIP_VALGRIND=1;
#   5. runs tests/fallbacks/wallclock.php (a watchdog-held lease and a timed
#      wait while the process's wall clock jumps hours back and forth, under
#      libfaketime) against the fallback build and the normal one.
# Runs standalone too, against the test servers in DISTLOCK_TEST_REDIS.
set -uo pipefail
source tests/lib/common.sh
source tests/lib/phpt.sh
: "${DISTLOCK_SO:=$PWD/modules/distlock.so}"
HIDE="getrandom ppoll pthread_condattr_setclock"
WANT="random=getentropy poll=poll wakeup=self-pipe"
SCRATCH="$DISTLOCK_LOG_DIR/build"
FB_SO="$SCRATCH/modules/distlock.so"

# ---------------------------------------------------------------------------
section "distlock with --enable-distlock-fallbacks (scratch build in $SCRATCH)"
if build_ext "$SCRATCH" "$DISTLOCK_LOG_DIR/fallbacks" "fallbacks build" --enable-distlock-fallbacks; then
    suite_pass "fallbacks build: distlock.so with every portable path, no compiler warnings"
fi
if [ ! -f "$FB_SO" ]; then
    suite_fail "fallbacks: no build: nothing else can run"
    suite_end
fi
grep -E '^checking for (getrandom|getentropy|arc4random_buf|ppoll|pthread_condattr_setclock)\.\.\.' "$DISTLOCK_LOG_DIR/fallbacks-configure.log" \
    | sed 's/^/  configure: /'
paths=$("$PHP" -n -d "extension=$FB_SO" --ri distlock 2>&1 | sed -n 's/^Platform paths => //p')
if [ "$paths" = "$WANT" ]; then
    suite_pass "fallbacks build: php --ri distlock says Platform paths => $paths"
else
    suite_fail "fallbacks build: php --ri distlock says Platform paths => '$paths', not '$WANT'"
fi
normal=$("$PHP" -n -d "extension=$DISTLOCK_SO" --ri distlock 2>&1 | sed -n 's/^Platform paths => //p')
if [ -n "$normal" ] && [ "$normal" != "$paths" ]; then
    suite_pass "normal build: Platform paths => $normal (not the fallbacks)"
else
    suite_fail "normal build ($DISTLOCK_SO): Platform paths => '$normal': the fallbacks test nothing the normal run does not"
fi

# ---------------------------------------------------------------------------
section "C unit tests with PLATFORM_HIDE=\"$HIDE\""
mkdir -p "$DISTLOCK_LOG_DIR/unit"
BUILD="$DISTLOCK_LOG_DIR/unit-build" PLATFORM_HIDE="$HIDE" DISTLOCK_LOG_DIR="$DISTLOCK_LOG_DIR/unit" \
    bash tests/unit/run.sh >"$DISTLOCK_LOG_DIR/unit/output.txt" 2>&1
unit_totals=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$DISTLOCK_LOG_DIR/unit/output.txt" | tail -n 1)
grep -E '^(FAIL|  cmocka|NOTICE)' "$DISTLOCK_LOG_DIR/unit/output.txt" | sed 's/^FAIL: /FAIL: fallbacks: /'
grep -h '^platform paths:' "$DISTLOCK_LOG_DIR/unit/unit.log" 2>/dev/null | sed 's/^/  C unit /'
if [ -n "$unit_totals" ] && grep -qx "platform paths: $WANT" "$DISTLOCK_LOG_DIR/unit/unit.log"; then
    read -r up _ uf _ <<<"${unit_totals//,/}"
    suite_count "$up" "$uf"
else
    suite_fail "C unit tests (fallbacks): no totals, or not on '$WANT' (log $DISTLOCK_LOG_DIR/unit/output.txt)"
fi
# The last random source (arc4random_buf: where neither getrandom nor
# getentropy exists), for the two tests that use it; the core is rebuilt in
# its own directory (about as long as the run above).
B2="$DISTLOCK_LOG_DIR/unit-build-arc4random"
if make -C tests/unit BUILD="$B2" PLATFORM_HIDE="$HIDE getentropy" "$B2/test_platform" "$B2/test_token" \
        >"$DISTLOCK_LOG_DIR/unit-arc4random.log" 2>&1; then
    for t in test_platform test_token; do
        if out=$(ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 CMOCKA_MESSAGE_OUTPUT=stdout "$B2/$t" 2>&1) &&
           { [ "$t" != test_platform ] || grep -q '^platform paths: random=arc4random_buf ' <<<"$out"; }; then
            suite_pass "C unit $t on arc4random_buf: $(grep -oE 'PASSED  \] [0-9]+ test' <<<"$out" | grep -oE '[0-9]+') passed"
        else
            printf '%s\n' "$out" | tail -n 20 | sed 's/^/  | /'
            suite_fail "C unit $t on arc4random_buf"
        fi
    done
else
    excerpt "$DISTLOCK_LOG_DIR/unit-arc4random.log" --tail
    suite_fail "C unit tests on arc4random_buf: build"
fi

# ---------------------------------------------------------------------------
section "phpt contract suite against the fallbacks build"
label="phpt (fallbacks)"
if [ -z "$RUN_TESTS" ] || [ "$N_PHPT" -eq 0 ]; then
    suite_fail "$label: run-tests.php or the tests not found"
else
    DISTLOCK_SO="$FB_SO" run_phpt "$label" "$DISTLOCK_LOG_DIR/phpt-results.txt" "$DISTLOCK_LOG_DIR/phpt.log" 1200
    count_phpt "$label" "$DISTLOCK_LOG_DIR/phpt-results.txt" "$DISTLOCK_LOG_DIR/phpt.log" "$N_PHPT"
fi

# ---------------------------------------------------------------------------
# The self-pipe is new thread code: the watchdog's race test under helgrind
# (tests/threads), as the helgrind suite runs it on the normal build.
if [ "${DISTLOCK_TEST_SKIP_VALGRIND:-0}" != 1 ]; then
    section "helgrind: the watchdog on the self-pipe"
    mkdir -p "$DISTLOCK_LOG_DIR/helgrind"
    DISTLOCK_SO="$FB_SO" DISTLOCK_LOG_DIR="$DISTLOCK_LOG_DIR/helgrind" bash tests/threads/run.sh >"$DISTLOCK_LOG_DIR/helgrind/output.txt" 2>&1
    hg=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$DISTLOCK_LOG_DIR/helgrind/output.txt" | tail -n 1)
    grep -E '^(PASS|FAIL): ' "$DISTLOCK_LOG_DIR/helgrind/output.txt" | sed 's/^FAIL: /FAIL: fallbacks build: /; s/^PASS: /  fallbacks build: /'
    if [ -n "$hg" ]; then read -r hp _ hf _ <<<"${hg//,/}"; suite_count "$hp" "$hf"; else suite_fail "helgrind (fallbacks build): no totals"; fi
fi

# ---------------------------------------------------------------------------
section "the client's wall clock jumps (libfaketime) while it holds and waits"
ensure_packages faketime >/dev/null 2>&1 || true
FAKE_LIB=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -n1)
if [ -z "$FAKE_LIB" ]; then
    suite_fail "wall clock: libfaketime.so.1 not found (package faketime)"
else
    for build in "fallbacks:$FB_SO" "normal:$DISTLOCK_SO"; do
        name=${build%%:*} so=${build#*:} clockfile="$DISTLOCK_LOG_DIR/faketime-$name"
        echo "+0" >"$clockfile"
        LD_PRELOAD="$FAKE_LIB" FAKETIME_TIMESTAMP_FILE="$clockfile" FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1 \
            timeout 60 "$PHP" -n -d "extension=$so" tests/fallbacks/wallclock.php "$clockfile" \
            >"$DISTLOCK_LOG_DIR/wallclock-$name.log" 2>&1
        rc=$?
        while IFS= read -r line; do
            case "$line" in
                "ok "*) suite_pass "wall clock ($name build): ${line#ok }" ;;
                "not ok "*) suite_fail "wall clock ($name build): ${line#not ok }" ;;
            esac
        done <"$DISTLOCK_LOG_DIR/wallclock-$name.log"
        if [ "$rc" != 0 ] || ! grep -q '^ok no renewal after the release' "$DISTLOCK_LOG_DIR/wallclock-$name.log"; then
            excerpt "$DISTLOCK_LOG_DIR/wallclock-$name.log" --tail
            suite_fail "wall clock ($name build): wallclock.php did not finish cleanly (exit $rc)"
        fi
    done
fi
suite_end
