#!/usr/bin/env bash
# tests/musl/run.sh — the extension on musl libc, the C library of Alpine
# (the official php:8.x-*-alpine images):
#   1. a minimal PHP 8.2 CLI (--disable-all plus pcntl, posix and sockets;
#      dynamic, so it can load extensions) built with musl-gcc (Debian's
#      musl-tools) from Debian's php8.2 source package, once, into
#      $DISTLOCK_CACHE_DIR/php-<version>-musl;
#   2. OpenSSL (Debian 12's 3.0 source; libssl and libcrypto, static, PIC)
#      and hiredis 1.2 with USE_SSL=1 (Debian's hiredis source; its static
#      libraries) built with musl-gcc, once, into $DISTLOCK_CACHE_DIR;
#   3. distlock built against them with musl-gcc, phpize and php-config of the
#      musl PHP: -Wall -Wextra, no warning, TLS compiled in; hiredis and
#      OpenSSL are linked into distlock.so, which needs nothing but musl's
#      libc (one copy of OpenSSL in the process, nothing of glibc);
#   4. the phpt suite (tests/phpt) with the musl PHP against the servers
#      scripts/test started (glibc redis-servers on loopback: the test is of
#      the client), then the TLS tests (tests/tls) against TLS redis-servers
#      with throw-away certificates.
# musl-gcc brings no Linux kernel headers (<linux/*.h>, <asm/*.h>): PHP's
# configure finds none and its sockets extension leaves out the two options
# that need them (SO_MEMINFO, SO_BPF_EXTENSIONS). OpenSSL's secure heap
# includes <linux/mman.h>: its build alone sees Debian's kernel headers
# (linux-libc-dev: libc-independent), through a directory that holds only
# linux/, asm/ and asm-generic/ (never glibc's own headers).
# Every test is counted; a skip fails.
set -uo pipefail
source tests/lib/common.sh
source tests/lib/phpt.sh
source tests/tls/certs.sh

MUSL_CC=musl-gcc
HIREDIS_SERIES=1.2.
OPENSSL_SERIES=3.0.
trap 'stop_redis_all' EXIT

# cache_wait PREFIX: takes PREFIX.lock (fd 9, held until the next cache_wait or the
# end); 0 when PREFIX/.built appeared meanwhile, 1 when the caller must build, 2 on a timeout.
cache_wait() {
    exec 9>"$1.lock"
    flock -w 2400 9 || { note "timed out waiting for $1.lock"; return 2; }
    [ -f "$1/.built" ] && { note "built by a concurrent run: $1"; return 0; }
    return 1
}

build_musl_php() {   # sets MUSL_PHP_PREFIX
    local ver src build t0 rc
    ver=$(apt_source_version php8.2 "8.2.") || { note "no php8.2 source version in the lists"; return 1; }
    MUSL_PHP_PREFIX="$DISTLOCK_CACHE_DIR/php-${ver#*:}-musl"
    [ -f "$MUSL_PHP_PREFIX/.built" ] && { note "cached: $MUSL_PHP_PREFIX ($(cat "$MUSL_PHP_PREFIX/.built"))"; return 0; }
    cache_wait "$MUSL_PHP_PREFIX"; rc=$?
    [ "$rc" = 1 ] || return "$rc"
    src=$(apt_source php8.2 "$ver") || { note "apt_source php8.2 $ver failed"; return 1; }
    build="$MUSL_PHP_PREFIX.build"
    rm -rf "$build" "$MUSL_PHP_PREFIX" && cp -a "$src" "$build" || return 1
    t0=$SECONDS
    note "building PHP $ver with $MUSL_CC (log: $DISTLOCK_LOG_DIR/php-build.log)"
    # -O1 and no -g: shorter compiles, and the tests wait on the network,
    # not on the VM (about 200 s on 2 busy cores). json, pcre, hash, random, SPL and
    # standard are always built in; pcntl and posix for the fork tests,
    # sockets as Alpine's images offer it. run-tests.php needs nothing more.
    # Nothing of the host's glibc world may leak in: pkg-config sees no .pc
    # file (PKG_CONFIG_LIBDIR), and valgrind support (on in Debian's source)
    # is off, or /usr/include/valgrind would join the include path.
    if ! (cd "$build" && CC=$MUSL_CC CFLAGS="-O1" PKG_CONFIG_LIBDIR=/nonexistent ./configure --prefix="$MUSL_PHP_PREFIX" \
            --disable-all --enable-cli --disable-cgi --disable-phpdbg --without-pear --without-valgrind \
            --without-libxml --without-sqlite3 --without-pdo-sqlite \
            --enable-pcntl --enable-posix --enable-sockets &&
          nice make -j2 && make install) \
            >"$DISTLOCK_LOG_DIR/php-build.log" 2>&1; then
        excerpt "$DISTLOCK_LOG_DIR/php-build.log" --tail
        return 1
    fi
    # make install wrote into the prefix: mark it complete last.
    echo "built $(date -u +%FT%TZ) in $((SECONDS - t0)) s" >"$MUSL_PHP_PREFIX/.built"
    rm -rf "$build"
}

build_musl_openssl() {   # sets MUSL_OPENSSL_PREFIX, OPENSSL_VER
    local src build stage kh t0 rc
    OPENSSL_VER=$(apt_source_version openssl "$OPENSSL_SERIES") || { note "no openssl $OPENSSL_SERIES* source in the lists"; return 1; }
    MUSL_OPENSSL_PREFIX="$DISTLOCK_CACHE_DIR/openssl-${OPENSSL_VER#*:}-musl"
    [ -f "$MUSL_OPENSSL_PREFIX/.built" ] && { note "cached: $MUSL_OPENSSL_PREFIX ($(cat "$MUSL_OPENSSL_PREFIX/.built"))"; return 0; }
    cache_wait "$MUSL_OPENSSL_PREFIX"; rc=$?
    [ "$rc" = 1 ] || return "$rc"
    src=$(apt_source openssl "$OPENSSL_VER") || { note "apt_source openssl $OPENSSL_VER failed"; return 1; }
    build="$MUSL_OPENSSL_PREFIX.build" stage="$MUSL_OPENSSL_PREFIX.stage" kh="$MUSL_OPENSSL_PREFIX.kernel-headers"
    rm -rf "$build" "$stage" "$kh" "$MUSL_OPENSSL_PREFIX" && cp -a "$src" "$build" || return 1
    ensure_packages linux-libc-dev >/dev/null || return 1
    mkdir -p "$kh" && ln -s /usr/include/linux "$kh/linux" && ln -s /usr/include/asm-generic "$kh/asm-generic" &&
        ln -s "/usr/include/$(gcc -print-multiarch)/asm" "$kh/asm" || return 1
    t0=$SECONDS
    note "building OpenSSL $OPENSSL_VER with $MUSL_CC (log: $DISTLOCK_LOG_DIR/openssl-build.log)"
    # The libraries only (build_libs, install_dev: no apps, tests or docs),
    # static (position-independent on linux-x86_64: they go into a .so), and
    # without what needs more of the kernel's headers (AF_ALG) or loads
    # code at run time (engines, provider modules). -O1 as for PHP.
    if ! (cd "$build" && CC="$MUSL_CC -isystem $kh" ./Configure linux-x86_64 no-shared no-tests no-afalgeng \
              no-engine no-module --prefix="$MUSL_OPENSSL_PREFIX" --libdir=lib -O1 &&
          nice make -j2 build_libs && make DESTDIR="$stage" install_dev) \
            >"$DISTLOCK_LOG_DIR/openssl-build.log" 2>&1; then
        excerpt "$DISTLOCK_LOG_DIR/openssl-build.log" --tail
        return 1
    fi
    mv "$stage$MUSL_OPENSSL_PREFIX" "$MUSL_OPENSSL_PREFIX" || return 1
    echo "built $(date -u +%FT%TZ) in $((SECONDS - t0)) s" >"$MUSL_OPENSSL_PREFIX/.built"
    rm -rf "$build" "$stage" "$kh"
}

build_musl_hiredis() {   # sets MUSL_HIREDIS_PREFIX, HIREDIS_VER (after build_musl_openssl)
    local src build stage t0 rc
    HIREDIS_VER=$(apt_source_version hiredis "$HIREDIS_SERIES") || { note "no hiredis $HIREDIS_SERIES* source in the lists"; return 1; }
    MUSL_HIREDIS_PREFIX="$DISTLOCK_CACHE_DIR/hiredis-${HIREDIS_VER#*:}-musl-openssl-${OPENSSL_VER#*:}"
    [ -f "$MUSL_HIREDIS_PREFIX/.built" ] && { note "cached: $MUSL_HIREDIS_PREFIX ($(cat "$MUSL_HIREDIS_PREFIX/.built"))"; return 0; }
    cache_wait "$MUSL_HIREDIS_PREFIX"; rc=$?
    [ "$rc" = 1 ] || return "$rc"
    src=$(apt_source hiredis "$HIREDIS_VER") || { note "apt_source hiredis $HIREDIS_VER failed"; return 1; }
    build="$MUSL_HIREDIS_PREFIX.build" stage="$MUSL_HIREDIS_PREFIX.stage"
    rm -rf "$build" "$stage" "$MUSL_HIREDIS_PREFIX" && cp -a "$src" "$build" || return 1
    t0=$SECONDS
    # Installed into a staging root first and moved in one step. Only the
    # static libraries stay (position-independent: hiredis builds with -fPIC),
    # so the extension links hiredis, hiredis_ssl and OpenSSL in: one copy of
    # OpenSSL in the process, no run path to get right.
    if ! nice make -C "$build" -j2 CC=$MUSL_CC USE_SSL=1 OPENSSL_PREFIX="$MUSL_OPENSSL_PREFIX" \
            PREFIX="$MUSL_HIREDIS_PREFIX" DESTDIR="$stage" install >"$DISTLOCK_LOG_DIR/hiredis-build.log" 2>&1; then
        excerpt "$DISTLOCK_LOG_DIR/hiredis-build.log" --tail
        return 1
    fi
    rm -f "$stage$MUSL_HIREDIS_PREFIX"/lib/lib*.so* && mv "$stage$MUSL_HIREDIS_PREFIX" "$MUSL_HIREDIS_PREFIX" || return 1
    echo "built $(date -u +%FT%TZ) in $((SECONDS - t0)) s" >"$MUSL_HIREDIS_PREFIX/.built"
    rm -rf "$build" "$stage"
}

section "Dependencies"
if ! ensure_packages musl-tools build-essential pkg-config autoconf >/dev/null || ! command -v "$MUSL_CC" >/dev/null; then
    suite_fail "musl: musl-tools (musl-gcc) could not be installed"
    suite_end
fi
note "$(dpkg-query -W -f='musl ${Version}' musl-dev)"

section "PHP 8.2 CLI built with musl-gcc"
t0=$SECONDS
if ! build_musl_php; then
    suite_fail "musl: building PHP 8.2 with musl-gcc"
    suite_end
fi
note "PHP step: $((SECONDS - t0)) s"
MUSL_PHP="$MUSL_PHP_PREFIX/bin/php"
# The interpreter of a musl binary is musl's loader; glibc's libc.so.6 is nowhere in it.
interp=$(readelf -l "$MUSL_PHP" 2>/dev/null | sed -nE 's/.*Requesting program interpreter: ([^]]*)].*/\1/p')
if [ "$interp" = /lib/ld-musl-x86_64.so.1 ] && ! readelf -d "$MUSL_PHP" | grep -q 'libc\.so\.6' &&
   "$MUSL_PHP" -n -r 'exit(function_exists("pcntl_fork") && function_exists("posix_kill") && function_exists("socket_create") ? 0 : 1);'; then
    suite_pass "musl: $("$MUSL_PHP" -n -v | head -n1 | cut -d' ' -f1-3) on musl ($interp), with pcntl, posix, sockets"
else
    suite_fail "musl: $MUSL_PHP is not a musl binary with pcntl, posix and sockets (interpreter ${interp:-none})"
    suite_end
fi

section "OpenSSL $OPENSSL_SERIES* and hiredis $HIREDIS_SERIES* (USE_SSL=1) built with musl-gcc"
t0=$SECONDS
if ! build_musl_openssl; then
    suite_fail "musl: building OpenSSL with musl-gcc"
    suite_end
fi
note "OpenSSL step: $((SECONDS - t0)) s"
t0=$SECONDS
if ! build_musl_hiredis; then
    suite_fail "musl: building hiredis with musl-gcc"
    suite_end
fi
note "hiredis step: $((SECONDS - t0)) s"

section "distlock with musl-gcc against the musl PHP, hiredis and OpenSSL (-Wall -Wextra)"
t0=$SECONDS
MBUILD="$DISTLOCK_LOG_DIR/build"
# phpize and configure of the musl PHP (its php-config), musl-gcc as the compiler.
# pkg-config sees only the musl OpenSSL's .pc (configure asks it for OpenSSL's flags).
if PATH="$MUSL_PHP_PREFIX/bin:$PATH" CC=$MUSL_CC PKG_CONFIG_LIBDIR="$MUSL_OPENSSL_PREFIX/lib/pkgconfig" \
        build_ext "$MBUILD" "$DISTLOCK_LOG_DIR/ext" "musl build" \
        --with-php-config="$MUSL_PHP_PREFIX/bin/php-config" --with-hiredis="$MUSL_HIREDIS_PREFIX"; then
    suite_pass "musl build: distlock.so with musl-gcc against PHP $("$MUSL_PHP" -n -r 'echo PHP_VERSION;'), hiredis ${HIREDIS_VER#*:} and OpenSSL ${OPENSSL_VER#*:} (musl), no compiler warnings"
else
    suite_end
fi
note "extension build: $((SECONDS - t0)) s"
MUSL_SO="$MBUILD/modules/distlock.so"
# What the loader will map: musl's libc alone (hiredis and OpenSSL are in the
# .so); a glibc library here would mean a mixed process.
needed=$(readelf -d "$MUSL_SO" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p' | tr '\n' ' ')
ri=$("$MUSL_PHP" -n -d "extension=$MUSL_SO" --ri distlock 2>&1)
if [ "$needed" = "libc.so " ] && grep -qE '^hiredis version => 1\.2\.[0-9]+$' <<<"$ri" &&
   grep -qx 'TLS support => yes' <<<"$ri" && grep -q "^TLS library => OpenSSL ${OPENSSL_VER%%-*}" <<<"$ri"; then
    suite_pass "musl build: loads in the musl PHP (needs: $needed; $(grep '^hiredis version' <<<"$ri"); TLS yes, $(grep '^TLS library' <<<"$ri"))"
else
    note "needs: $needed"
    excerpt <(printf '%s\n' "$ri")
    suite_fail "musl build: distlock.so does not load in the musl PHP, or without TLS and the musl hiredis and OpenSSL in it"
    suite_end
fi
# musl 1.2.3 has all three first choices; configure must find them there as on glibc.
if grep -qx 'Platform paths => random=getrandom poll=ppoll wakeup=condvar-monotonic' <<<"$ri"; then
    suite_pass "musl build: configure took the first choices on musl ($(grep '^Platform paths' <<<"$ri"))"
else
    suite_fail "musl build: not the first choices on musl: $(grep '^Platform paths' <<<"$ri" || echo 'no Platform paths line')"
fi

# Standalone: the plain servers the phpt suite needs (scripts/test starts them otherwise).
if [ -z "${DISTLOCK_TEST_REDIS:-}" ]; then
    pass='s3cr3t-p@ss'
    if start_redis plain "" --unixsocket "$DISTLOCK_LOG_DIR/redis.sock" --unixsocketperm 777 && p1=$STARTED_PORT &&
       start_redis auth "$pass" --requirepass "$pass" && p2=$STARTED_PORT; then
        export DISTLOCK_TEST_REDIS="redis://127.0.0.1:$p1" DISTLOCK_TEST_REDIS_PORT="$p1" DISTLOCK_TEST_REDIS_SOCK="$DISTLOCK_LOG_DIR/redis.sock"
        export DISTLOCK_TEST_REDIS_AUTH="redis://:s3cr3t-p%40ss@127.0.0.1:$p2" DISTLOCK_TEST_REDIS_AUTH_PORT="$p2"
        export DISTLOCK_TEST_REDIS_PASSWORD="$pass" REDIS_CLI REDIS_SERVER
        REDIS_CLI=$(command -v redis-cli) REDIS_SERVER=$(command -v redis-server)
    else
        suite_fail "musl: could not start the test servers"
    fi
fi

section "phpt suite on the musl PHP"
if [ -z "$RUN_TESTS" ]; then
    suite_fail "musl: run-tests.php not found (php8.2-dev)"
    suite_end
fi
t0=$SECONDS
export PHP="$MUSL_PHP" DISTLOCK_SO="$MUSL_SO" TEST_PHP_EXECUTABLE="$MUSL_PHP"
# From here on PHP is the musl build (another libc and API than the system's
# extensions): the ini of its runs is their -n, no scan dir.
export PHP_INI_SCAN_DIR= PHPRC="$DISTLOCK_LOG_DIR/no-ini"
phpt_use_dir tests/phpt
run_phpt "phpt (musl)" "$DISTLOCK_LOG_DIR/phpt-results.txt" "$DISTLOCK_LOG_DIR/phpt.log" 1200
count_phpt "phpt (musl)" "$DISTLOCK_LOG_DIR/phpt-results.txt" "$DISTLOCK_LOG_DIR/phpt.log" "$N_PHPT"
note "phpt: $((SECONDS - t0)) s"

# The TLS tests as tests/tls runs them (its certificates, its three servers:
# plain verification, mutual TLS, an expired certificate), with the musl PHP.
section "TLS tests (tests/tls) on the musl PHP"
t0=$SECONDS
CERTS="$DISTLOCK_LOG_DIR/certs"
tls_server() {   # tls_server NAME CERT AUTH_CLIENTS -> TLS_PORT_<NAME>, plain port in STARTED_PORT
    local name=$1 cert=$2 auth=$3 tport
    tport=$(free_port) || return 1
    start_redis "$name" "" --tls-port "$tport" --tls-cert-file "$CERTS/$cert" --tls-key-file "$CERTS/server.key" \
        --tls-ca-cert-file "$CERTS/ca.crt" --tls-auth-clients "$auth" || return 1
    printf -v "TLS_PORT_$name" '%s' "$tport"
}
if ! make_test_certs "$CERTS"; then
    excerpt "$CERTS/openssl.log" --tail
    suite_fail "musl tls: making the test certificates with openssl"
elif ! { tls_server tlsmain server.crt no && MAIN_PLAIN=$STARTED_PORT &&
         tls_server tlsmtls server.crt yes && tls_server tlsexpired expired.crt no; }; then
    suite_fail "musl tls: could not start the TLS redis-servers"
else
    export DISTLOCK_TEST_TLS_MAIN_PORT=$TLS_PORT_tlsmain DISTLOCK_TEST_TLS_MTLS_PORT=$TLS_PORT_tlsmtls
    export DISTLOCK_TEST_TLS_EXPIRED_PORT=$TLS_PORT_tlsexpired DISTLOCK_TEST_TLS_CERTS=$CERTS
    phpt_use_dir tests/tls
    # raw_redis() and client_entry() of the TLS tests look at the main TLS server's plain port.
    DISTLOCK_TEST_REDIS="redis://127.0.0.1:$MAIN_PLAIN" DISTLOCK_TEST_REDIS_PORT="$MAIN_PLAIN" \
        run_phpt "tls (musl)" "$DISTLOCK_LOG_DIR/tls-results.txt" "$DISTLOCK_LOG_DIR/tls.log" 300
    count_phpt "tls (musl)" "$DISTLOCK_LOG_DIR/tls-results.txt" "$DISTLOCK_LOG_DIR/tls.log" "$N_PHPT"
    [ "$N_PHPT" -eq 0 ] && suite_fail "musl tls: no tests under tests/tls"
fi
note "tls: $((SECONDS - t0)) s"
stop_redis_all
suite_end
