#!/usr/bin/env bash
# tests/lib/root-inside.sh — run by tests/lib/debian-root.sh inside a Debian
# root (tests/php84, tests/php85), from the project's shipped files: the build
# with -Werror (PHP's own headers through -isystem: a warning they give is
# PHP's, not ours), then the suite scripts, each as its own process, labelled,
# and counted into one closing line. Environment:
#   ROOT_PHP_SERIES  8.4, 8.5: /usr/bin/php<series>, php<series>-fpm
#   ROOT_TLS=1       also the TLS tests with the root's packaged hiredis_ssl
#   ROOT_FRAMEWORKS=1  also Laravel 13 and Symfony 8.1 (tests/laravel/root.sh,
#                    tests/symfony/root.sh) on the projects the host makes in
#                    /logs/frameworks (tests/lib/debian-root.sh, step 3)
set -uo pipefail
export PHP=/usr/bin/php${ROOT_PHP_SERIES:?e.g. 8.4}
source tests/lib/common.sh
PHPV=$("$PHP" -n -r 'echo PHP_VERSION;')
REDISV=$(redis-server --version | sed -nE 's/.*v=([0-9.]+).*/\1/p')
VALKEYV=$(valkey-server --version | sed -nE 's/.*v=([0-9.]+).*/\1/p')

section "Build on PHP $PHPV (phpize, configure, make, -Werror)"
BUILD=/tmp/build
export DISTLOCK_SO="$BUILD/modules/distlock.so"
rm -rf "$BUILD" && mkdir -p "$BUILD"
tar -cf - config.m4 config.w32 php_distlock.h src stubs | tar -xf - -C "$BUILD"
if (cd "$BUILD" && "phpize$ROOT_PHP_SERIES" && CFLAGS="-g -O2 -Wall -Wextra -Werror $(php_isystem "php-config$ROOT_PHP_SERIES")" \
        ./configure --with-php-config="php-config$ROOT_PHP_SERIES" && make -j2) \
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

# The first line of a crash report in the test servers' logs (an assertion of
# the server's own, a fatal signal); empty when neither crashed.
server_crash() {
    cat "$DISTLOCK_LOG_DIR"/redis-main.log "$DISTLOCK_LOG_DIR"/redis-auth.log 2>/dev/null |
        grep -m1 -E "==> .* is not true|crashed by signal" | sed -E 's/^[0-9]+:[A-Z] [^#]*# //'
}

# phpt_on DIR LABEL SERVER CLI: the phpt suite as a sub-run against fresh
# servers of SERVER. A server that crashes on its own has a bug of its own (no
# client input may crash it): experimental's Redis 8.6.3 asserts now and then
# (db.c:2715 'de != NULL', under a SET), as tests/servers/run.sh met too. Its
# report is kept and named, and the run repeated once on fresh servers; a
# second crash fails.
phpt_on() {
    local dir=$1 label=$2 crash f
    start_servers "$3" "$4" || { suite_fail "$label: the servers did not start"; return; }
    sub_run "$dir" "$label" tests/phpt/run.sh DISTLOCK_PHPT_LABEL="$label"
    stop_redis_all
    crash=$(server_crash)
    if [ -n "$crash" ]; then
        for f in main auth; do mv "$DISTLOCK_LOG_DIR/redis-$f.log" "$DISTLOCK_LOG_DIR/$dir-redis-$f.crashed.log" 2>/dev/null; done
        rm -rf "$DISTLOCK_LOG_DIR/$dir.crashed" && mv "$DISTLOCK_LOG_DIR/$dir" "$DISTLOCK_LOG_DIR/$dir.crashed"
        note "$label: the server crashed during the run: $crash (its report: $dir-redis-main.crashed.log; the run: $dir.crashed/); the run is repeated once on fresh servers"
        start_servers "$3" "$4" || { suite_fail "$label: the servers did not start again"; return; }
        sub_run "$dir" "$label" tests/phpt/run.sh DISTLOCK_PHPT_LABEL="$label"
        stop_redis_all
        crash=$(server_crash)
        [ -z "$crash" ] || suite_fail "$label: the server crashed again, in the repeated run: $crash"
    fi
    sub_report "$dir" "$label"
}

run_sub unit "C unit (PHP $PHPV's toolchain, hiredis $(pkg-config --modversion hiredis))" tests/unit/run.sh
phpt_on phpt-redis "phpt (PHP $PHPV, Redis $REDISV)" "$(command -v redis-server)" "$(command -v redis-cli)"
phpt_on phpt-valkey "phpt (PHP $PHPV, Valkey $VALKEYV)" "$(command -v valkey-server)" "$(command -v valkey-cli)"
unset DISTLOCK_TEST_REDIS DISTLOCK_TEST_REDIS_PORT DISTLOCK_TEST_REDIS_SOCK DISTLOCK_TEST_REDIS_AUTH \
      DISTLOCK_TEST_REDIS_AUTH_PORT DISTLOCK_TEST_REDIS_PASSWORD
export REDIS_SERVER=$(command -v redis-server) REDIS_CLI=$(command -v redis-cli)
# The TLS suite: its TLS tests with the packaged hiredis_ssl; the whole phpt
# suite it would run first ran above already, on this build, which has TLS
# compiled in (hiredis 1.2 and libssl-dev are in the root: configure found them).
if [ "${ROOT_TLS:-0}" = 1 ]; then
    # Read whole, then matched: `php --ri | grep -q` under pipefail fails when
    # grep exits at its match while php still writes (SIGPIPE): it did in a run.
    ri=$("$PHP" -n -d "extension=$DISTLOCK_SO" --ri distlock 2>&1)
    if grep -q '^TLS support => yes' <<<"$ri"; then
        suite_pass "build on PHP $PHPV: TLS compiled in ($(pkg-config --modversion hiredis_ssl) hiredis_ssl, OpenSSL $(pkg-config --modversion openssl))"
        tls_phpt=0
    else
        suite_fail "build on PHP $PHPV: no TLS compiled in (php --ri distlock), though hiredis_ssl and libssl-dev are in the root"
        tls_phpt=1
    fi
    # Its own build and unit run would repeat the two above (same hiredis, TLS
    # compiled in, the unit Makefile finds hiredis_ssl by pkg-config).
    run_sub tls "TLS (PHP $PHPV, packaged hiredis $(pkg-config --modversion hiredis) with hiredis_ssl, Redis $REDISV)" tests/tls/run.sh \
        DISTLOCK_TLS_HIREDIS=system DISTLOCK_PHP_SERIES="$ROOT_PHP_SERIES" DISTLOCK_TLS_PHPT=$tls_phpt \
        DISTLOCK_TLS_SO="$DISTLOCK_SO" DISTLOCK_TLS_UNIT=0
fi
run_sub fpm "php-fpm (PHP $PHPV, Redis $REDISV)" tests/fpm/run.sh DISTLOCK_PHP_SERIES="$ROOT_PHP_SERIES"
if [ "${ROOT_FRAMEWORKS:-0}" = 1 ]; then
    # The host's Composer runs began with the root's first suites and are done
    # by now as a rule; waited for, both within one bound, when not. A project
    # runs only when its Composer run ended well (its .done holds 0): when not,
    # the host reports why (debian-root.sh).
    for ((i = 0; i < 900; i++)); do
        [ -f /logs/frameworks/laravel.done ] && [ -f /logs/frameworks/symfony.done ] && break
        sleep 1
    done
    for name in laravel symfony; do
        if [ ! -f "/logs/frameworks/$name.done" ]; then
            suite_fail "the $name project: its Composer run on the host did not end within 15 minutes"
        elif [ "$(cat "/logs/frameworks/$name.done")" != 0 ]; then
            note "the $name project: its Composer run on the host failed (the host counts it): its tests are not run"
        elif [ "$name" = laravel ]; then
            run_sub laravel13 "Laravel 13 (PHP $PHPV, Redis $REDISV)" tests/laravel/root.sh \
                DISTLOCK_LARAVEL_APP=/logs/frameworks/laravel ${DISTLOCK_LARAVEL13_TESTS:+DISTLOCK_LARAVEL13_TESTS="$DISTLOCK_LARAVEL13_TESTS"}
        else
            run_sub symfony8 "Symfony 8.1 (PHP $PHPV, Redis $REDISV)" tests/symfony/root.sh \
                DISTLOCK_SYMFONY_APP=/logs/frameworks/symfony ${SYMFONY_LOCK8_TESTS_DIR:+SYMFONY_LOCK8_TESTS_DIR="$SYMFONY_LOCK8_TESTS_DIR"}
        fi
    done
fi
suite_end
