#!/usr/bin/env bash
# tests/php84/inside.sh — run by tests/php84/run.sh inside the Debian 13 root,
# from the project's shipped files: the build with -Werror, then the suite
# scripts, each as its own process, labelled, and counted into one closing line.
set -uo pipefail
export PHP=/usr/bin/php8.4
source tests/lib/common.sh
PHPV=$("$PHP" -n -r 'echo PHP_VERSION;')
REDISV=$(redis-server --version | sed -nE 's/.*v=([0-9.]+).*/\1/p')
VALKEYV=$(valkey-server --version | sed -nE 's/.*v=([0-9.]+).*/\1/p')

# sub DIR LABEL SCRIPT [VAR=value...]: one suite script (logs in DIR), its
# output shown with the label, its closing line counted.
sub() {
    local dir="$DISTLOCK_LOG_DIR/$1" name=$2 script=$3 rc=0 totals p f s
    shift 3
    section "$name"
    mkdir -p "$dir"
    env DISTLOCK_LOG_DIR="$dir" "$@" bash "$script" >"$dir/output.txt" 2>&1 || rc=$?
    totals=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$dir/output.txt" | tail -n 1)
    sed -E "s/^FAIL: /FAIL: $name: /; s/^([0-9]+ passed, [0-9]+ failed.*)$/($name: \\1)/" "$dir/output.txt"
    if [ -z "$totals" ]; then
        suite_fail "$name: no closing line (exit $rc; log $dir/output.txt)"
        return
    fi
    read -r p _ f _ s _ <<<"${totals//,/}"
    suite_count "$p" "$f" "${s:-0}"
}

section "Build on PHP $PHPV (phpize, configure, make, -Werror)"
BUILD=/tmp/build
export DISTLOCK_SO="$BUILD/modules/distlock.so"
rm -rf "$BUILD" && mkdir -p "$BUILD"
tar -cf - config.m4 config.w32 php_distlock.h src stubs | tar -xf - -C "$BUILD"
if (cd "$BUILD" && phpize && CFLAGS="-g -O2 -Wall -Wextra -Werror" ./configure && make -j2) \
        >"$DISTLOCK_LOG_DIR/build.log" 2>&1 && [ -f "$DISTLOCK_SO" ]; then
    suite_pass "build on PHP $PHPV: no compiler warnings (-Werror), loads as distlock $("$PHP" -n -d "extension=$DISTLOCK_SO" -r 'echo phpversion("distlock");')"
else
    grep -E 'error|warning:' "$DISTLOCK_LOG_DIR/build.log" | head -n 60 | sed 's/^/  | /'
    suite_fail "build on PHP $PHPV (log: $DISTLOCK_LOG_DIR/build.log)"
    suite_end
fi

# start_servers BIN CLI: the plain, socket and password servers the phpt suite uses.
start_servers() {
    local pass='s3cr3t-p@ss'
    stop_redis_all
    export REDIS_SERVER=$1 REDIS_CLI=$2
    start_redis main "" --unixsocket "$DISTLOCK_LOG_DIR/redis.sock" --unixsocketperm 777 && local p1=$STARTED_PORT &&
    start_redis auth "$pass" --requirepass "$pass" && local p2=$STARTED_PORT || return 1
    export DISTLOCK_TEST_REDIS="redis://127.0.0.1:$p1" DISTLOCK_TEST_REDIS_PORT="$p1"
    export DISTLOCK_TEST_REDIS_SOCK="$DISTLOCK_LOG_DIR/redis.sock"
    export DISTLOCK_TEST_REDIS_AUTH="redis://:s3cr3t-p%40ss@127.0.0.1:$p2" DISTLOCK_TEST_REDIS_AUTH_PORT="$p2"
    export DISTLOCK_TEST_REDIS_PASSWORD="$pass"
}
trap stop_redis_all EXIT

if start_servers "$(command -v redis-server)" "$(command -v redis-cli)"; then
    sub unit "C unit (PHP $PHPV's toolchain, hiredis $(pkg-config --modversion hiredis))" tests/unit/run.sh
    sub phpt-redis "phpt (PHP $PHPV, Redis $REDISV)" tests/phpt/run.sh DISTLOCK_PHPT_LABEL="phpt (PHP $PHPV, Redis $REDISV)"
else
    suite_fail "redis-server $REDISV did not start"
fi
if start_servers "$(command -v valkey-server)" "$(command -v valkey-cli)"; then
    sub phpt-valkey "phpt (PHP $PHPV, Valkey $VALKEYV)" tests/phpt/run.sh DISTLOCK_PHPT_LABEL="phpt (PHP $PHPV, Valkey $VALKEYV)"
else
    suite_fail "valkey-server $VALKEYV did not start"
fi
stop_redis_all
unset DISTLOCK_TEST_REDIS DISTLOCK_TEST_REDIS_PORT DISTLOCK_TEST_REDIS_SOCK DISTLOCK_TEST_REDIS_AUTH \
      DISTLOCK_TEST_REDIS_AUTH_PORT DISTLOCK_TEST_REDIS_PASSWORD
export REDIS_SERVER=$(command -v redis-server) REDIS_CLI=$(command -v redis-cli)
sub tls "TLS (PHP $PHPV, packaged hiredis $(pkg-config --modversion hiredis) with hiredis_ssl, Redis $REDISV)" tests/tls/run.sh \
    DISTLOCK_TLS_HIREDIS=system DISTLOCK_PHP_SERIES=8.4
sub fpm "php-fpm (PHP $PHPV, Redis $REDISV)" tests/fpm/run.sh DISTLOCK_PHP_SERIES=8.4
suite_end
