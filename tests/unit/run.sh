#!/usr/bin/env bash
# tests/unit/run.sh — the C unit tests of the core (cmocka, built with
# ASan + UBSan + LSan by tests/unit/Makefile). Every cmocka test is counted;
# a skipped one, a crashed binary or a sanitizer report fails the run.
set -uo pipefail
source tests/lib/common.sh
source tests/lib/cmocka.sh
export CMOCKA_MESSAGE_OUTPUT=stdout
log="$DISTLOCK_LOG_DIR/unit.log"

if ! make -C tests/unit >"$DISTLOCK_LOG_DIR/unit-build.log" 2>&1; then
    grep -E 'error|warning' "$DISTLOCK_LOG_DIR/unit-build.log" | head -n 100 | sed 's/^/  | /' || true
    note "(full log: $DISTLOCK_LOG_DIR/unit-build.log)"
    suite_fail "C unit tests: build failed"
    suite_end
fi
rc=0
timeout --kill-after=30 900 make -k -C tests/unit check >"$log" 2>&1 || rc=$?
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then note "C unit tests: timed out after 900 s"; fi
count_cmocka "C unit" "$log" "$rc"
suite_end
