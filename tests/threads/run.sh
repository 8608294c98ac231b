#!/usr/bin/env bash
# tests/threads/run.sh — one check: tests/threads/watchdog.php, which drives
# every path the watchdog thread shares with PHP, under valgrind's helgrind.
# Any race, lock-order or API-misuse report fails it (--error-exitcode), and so
# does the script itself when the watchdog's behaviour did not hold.
set -uo pipefail
source tests/lib/common.sh
log="$DISTLOCK_LOG_DIR/helgrind.log"
if timeout --kill-after=30 900 valgrind --tool=helgrind -q --error-exitcode=9 \
        --suppressions=tests/threads/helgrind.supp --trace-children=no \
        "$PHP" -n -d "extension=$DISTLOCK_SO" tests/threads/watchdog.php >"$log" 2>&1; then
    suite_pass "helgrind: the watchdog thread and the PHP thread share state without races ($(tail -n 1 "$log"))"
else
    excerpt "$log"
    suite_fail "helgrind: reports or a failed run (log: $log)"
fi
suite_end
