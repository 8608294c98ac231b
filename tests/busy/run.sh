#!/usr/bin/env bash
# tests/busy/run.sh — the phpt suite again, beside two CPU-bound processes (a
# second build on a 2-core machine, a busy neighbour): every timing assertion
# must hold there too (issue 21). The hogs are this suite's children, bounded
# in time, and stopped when it ends. Counted like tests/phpt/run.sh.
set -uo pipefail
source tests/lib/common.sh
hogs=()
for _ in 1 2; do
    timeout 1800 "$PHP" -n -r 'for ($x = 0; ; $x++) {}' &
    hogs+=($!)
done
stop_hogs() { kill "${hogs[@]}" 2>/dev/null; wait "${hogs[@]}" 2>/dev/null; }
trap stop_hogs EXIT
note "CPU hogs: pids ${hogs[*]} ($(nproc) cores)"
DISTLOCK_PHPT_LABEL="phpt beside 2 CPU hogs" bash tests/phpt/run.sh
