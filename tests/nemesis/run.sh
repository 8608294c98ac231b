#!/usr/bin/env bash
# tests/nemesis/run.sh — the fault campaign in CI (issues 23, 27): first the
# checker's self-test (tests/nemesis/selftest.php: a fabricated breach of each
# rule must fail it), then one seeded run of distlock's workload (8 PHP
# workers drawing, cycle by cycle, a mutex, a shared or exclusive lease, a
# semaphore's permits or a multi-lock, and working on a fencing resource)
# that visits every fault type once — client pauses and kills, server pauses,
# restarts with and without persistence, a stalled, slowed or resetting
# network, a server clock jump, Sentinel failover with and without
# min_replicas, Cluster failover, Redlock minority and majority stops and
# restarts — then the checker (tests/nemesis/check.php). Each fault type ×
# check (exclusion, rw, permits, multi, fencing, liveness) is counted: a forbidden anomaly fails
# it. The seed is fixed (DISTLOCK_NEMESIS_SEED to change it); the soak
# (tests/nemesis/soak) draws one at random. Only servers and processes this
# run started are faulted, all on loopback. The phases run in 2 lanes side by
# side (the single server's faults beside Sentinel, Cluster and Redlock: see
# campaign.php), about 65 s on 2 cores (the broken workload: 2 s more); the
# suite prints its own wall time.
set -uo pipefail
SUITE_T0=$(date +%s.%N)
cd "$(dirname "$0")/../.."
source tests/lib/common.sh
source tests/lib/server-build.sh
source tests/nemesis/env.sh
: "${DISTLOCK_SO:=$PWD/modules/distlock.so}"
SEED=${DISTLOCK_NEMESIS_SEED:-20261125}

section "nemesis: the checker's self-test (each rule must be able to fail)"
# fabricated histories, one breach of each rule (tests/nemesis/selftest.php): no servers, about 1 s
"$PHP" tests/nemesis/selftest.php >"$DISTLOCK_LOG_DIR/selftest.txt" 2>"$DISTLOCK_LOG_DIR/selftest.err"
while read -r verdict line; do
    case "$verdict" in
        ok) suite_pass "nemesis: checker self-test: ${line#- }" ;;
        not) suite_fail "nemesis: checker self-test: ${line#ok - } (log: $DISTLOCK_LOG_DIR/selftest.err)" ;;
    esac
done <"$DISTLOCK_LOG_DIR/selftest.txt"
grep -q '^ok ' "$DISTLOCK_LOG_DIR/selftest.txt" || suite_fail "nemesis: the checker's self-test reported nothing (log: $DISTLOCK_LOG_DIR/selftest.err)"

section "nemesis: distlock, seed $SEED, every fault type once"
if ! nemesis_env; then
    suite_fail "nemesis: the servers it needs could not be had"
    suite_end
fi
OUT="$DISTLOCK_LOG_DIR/nemesis-run"
rm -rf "$OUT"
if ! timeout 1200 "$PHP" -d "extension=$DISTLOCK_SO" tests/nemesis/campaign.php --lib=distlock --out="$OUT" --seed="$SEED" \
        --seconds=0 --lanes=2 --redis-server="$NEMESIS_SERVER" --redis-cli="$NEMESIS_CLI" --fake-server="$NEMESIS_FAKE_SERVER" \
        --fake-lib="$NEMESIS_FAKE_LIB" --ext="$DISTLOCK_SO" >"$DISTLOCK_LOG_DIR/campaign.log" 2>&1; then
    suite_fail "nemesis: the campaign did not finish (log: $DISTLOCK_LOG_DIR/campaign.log)"
    excerpt "$DISTLOCK_LOG_DIR/campaign.log" --tail
fi
sed 's/^/  /' "$DISTLOCK_LOG_DIR/campaign.log" | tail -n 60
"$PHP" tests/nemesis/check.php "$OUT" --checks --json="$DISTLOCK_LOG_DIR/nemesis.json" >"$DISTLOCK_LOG_DIR/check.txt" 2>&1
grep -v '^CHECK ' "$DISTLOCK_LOG_DIR/check.txt" | sed 's/^/  /'
while read -r _ fault check verdict detail; do
    if [ "$verdict" = ok ]; then suite_pass "nemesis: $fault: $check"; else suite_fail "nemesis: $fault: $check: $detail"; fi
done < <(grep '^CHECK ' "$DISTLOCK_LOG_DIR/check.txt")
grep -q '^CHECK ' "$DISTLOCK_LOG_DIR/check.txt" || suite_fail "nemesis: the checker reported nothing (log: $DISTLOCK_LOG_DIR/check.txt)"

section "nemesis: a deliberately broken workload (the checker must catch each primitive's breach)"
# 2 s on one server, no fault: writers that take shared leases, permits asked of the limit + 1,
# multi-locks that leave their last name out (worker.php); each rule must FAIL under "none"
BROKEN="$DISTLOCK_LOG_DIR/nemesis-broken"
rm -rf "$BROKEN"
timeout 120 "$PHP" -d "extension=$DISTLOCK_SO" tests/nemesis/campaign.php --lib=distlock --out="$BROKEN" --seed="$SEED" \
    --phases=single --faults=- --break=rw,semaphore,multi --redis-server="$NEMESIS_SERVER" --redis-cli="$NEMESIS_CLI" \
    --ext="$DISTLOCK_SO" >"$DISTLOCK_LOG_DIR/campaign-broken.log" 2>&1
"$PHP" tests/nemesis/check.php "$BROKEN" --checks >"$DISTLOCK_LOG_DIR/check-broken.txt" 2>&1
for rule in exclusion rw permits multi; do
    line=$(grep "^CHECK none $rule " "$DISTLOCK_LOG_DIR/check-broken.txt")
    case "$line" in
        *" FAIL "*) suite_pass "nemesis: broken workload caught by rule $rule: ${line#CHECK none $rule FAIL }" ;;
        *) suite_fail "nemesis: broken workload NOT caught by rule $rule: ${line:-no verdict} (log: $DISTLOCK_LOG_DIR/check-broken.txt)" ;;
    esac
done
note "nemesis: suite wall time $(awk -v a="$SUITE_T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s (campaign: $(sed -nE 's/.*done: [0-9]+ faults in ([0-9]+) s.*/\1/p' "$DISTLOCK_LOG_DIR/campaign.log" | tail -n1) s)"
suite_end
