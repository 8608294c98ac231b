#!/usr/bin/env bash
# tests/foreign/inside.sh — run by tests/foreign/run.sh inside a foreign root
# (arm64 or s390x, under qemu-user), from the project's shipped files, with
# the cross-built extension (DISTLOCK_SO) and C unit tests (DISTLOCK_UNIT_DIR):
# the root's redis-server on 127.0.0.1 (free ports), the C unit tests as
# tests/unit/Makefile's check runs them, then the phpt suite (the files in
# tests/phpt: run.sh leaves there the ones this architecture runs), each
# counted into one closing line.
set -uo pipefail
source tests/lib/common.sh
source tests/lib/cmocka.sh
arch=${DISTLOCK_ARCH:-?}
PHPV=$("$PHP" -n -r 'echo PHP_VERSION;')
REDISV=$(redis-server --version | sed -nE 's/.*v=([0-9.]+).*/\1/p')

if "$PHP" -n -d "extension=$DISTLOCK_SO" -r 'exit(extension_loaded("distlock") ? 0 : 1);' >"$DISTLOCK_LOG_DIR/load.txt" 2>&1; then
    suite_pass "$arch: distlock $("$PHP" -n -d "extension=$DISTLOCK_SO" -r 'echo phpversion("distlock");') loads in PHP $PHPV"
else
    excerpt "$DISTLOCK_LOG_DIR/load.txt"; suite_fail "$arch: distlock.so does not load in PHP $PHPV"
fi

# The servers the phpt suite uses (plain + unix socket, and one with a password).
pass='s3cr3t-p@ss'
export REDIS_SERVER=$(command -v redis-server) REDIS_CLI=$(command -v redis-cli)
trap stop_redis_all EXIT
if ! { start_redis main "" --unixsocket "$DISTLOCK_LOG_DIR/redis.sock" --unixsocketperm 777 && p1=$STARTED_PORT &&
       start_redis auth "$pass" --requirepass "$pass" && p2=$STARTED_PORT; }; then
    suite_fail "$arch: redis-server $REDISV did not start"
    suite_end
fi
export DISTLOCK_TEST_REDIS="redis://127.0.0.1:$p1" DISTLOCK_TEST_REDIS_PORT="$p1"
export DISTLOCK_TEST_REDIS_SOCK="$DISTLOCK_LOG_DIR/redis.sock"
export DISTLOCK_TEST_REDIS_AUTH="redis://:s3cr3t-p%40ss@127.0.0.1:$p2" DISTLOCK_TEST_REDIS_AUTH_PORT="$p2"
export DISTLOCK_TEST_REDIS_PASSWORD="$pass"

section "$arch: C unit tests (cmocka, UBSan), Redis $REDISV on 127.0.0.1:$p1"
# As tests/unit/Makefile's check runs them, without ASan (run.sh says why).
log="$DISTLOCK_LOG_DIR/unit.log"
: >"$log"
rc=0
t0=$SECONDS
for t in "$DISTLOCK_UNIT_DIR"/test_*; do
    echo "=== $t" >>"$log"
    if UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 CMOCKA_MESSAGE_OUTPUT=stdout \
       timeout --kill-after=30 600 "$t" >>"$log" 2>&1; then :; else
        r=$?; echo "FAILED: $t (exit $r)" >>"$log"; rc=1
    fi
done
count_cmocka "$arch C unit" "$log" "$rc"
note "C unit tests in $((SECONDS - t0)) s"

section "$arch: phpt (PHP $PHPV, Redis $REDISV), DISTLOCK_TEST_SLOWDOWN=${DISTLOCK_TEST_SLOWDOWN:-1}"
dir="$DISTLOCK_LOG_DIR/phpt"
mkdir -p "$dir"
t0=$SECONDS
rc=0
env DISTLOCK_LOG_DIR="$dir" DISTLOCK_PHPT_LABEL="phpt ($arch, PHP $PHPV, Redis $REDISV)" \
    bash tests/phpt/run.sh >"$dir/output.txt" 2>&1 || rc=$?
totals=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$dir/output.txt" | tail -n 1)
sed -E "s/^([0-9]+ passed, [0-9]+ failed.*)$/(phpt: \\1)/" "$dir/output.txt"
if [ -n "$totals" ]; then
    read -r p _ f _ s _ <<<"${totals//,/}"
    suite_count "$p" "$f" "${s:-0}"
else
    suite_fail "$arch: phpt: no closing line (exit $rc; log $dir/output.txt)"
fi
note "phpt in $((SECONDS - t0)) s"
stop_redis_all
suite_end
