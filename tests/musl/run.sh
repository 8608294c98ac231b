#!/usr/bin/env bash
# tests/musl/run.sh — the extension on musl libc, the C library of Alpine
# (the official php:8.x-*-alpine images):
#   1. a minimal PHP 8.2 CLI (--disable-all plus pcntl, posix and sockets;
#      dynamic, so it can load extensions) built with musl-gcc (Debian's
#      musl-tools) from Debian's php8.2 source package, once, into
#      $DISTLOCK_CACHE_DIR/php-<version>-musl;
#   2. hiredis built with musl-gcc from Debian's hiredis source package, once,
#      into $DISTLOCK_CACHE_DIR/hiredis-<version>-musl. Without TLS: there is
#      no musl OpenSSL here, and building one costs more than this suite may
#      (README, "Platforms");
#   3. distlock built against them with musl-gcc, phpize and php-config of the
#      musl PHP: -Wall -Wextra, no warning; its ldd shows only musl's loader
#      and the musl hiredis (nothing of glibc);
#   4. the phpt suite (tests/phpt) with the musl PHP against the servers
#      scripts/test started (glibc redis-servers on loopback: the test is of
#      the client).
# musl-gcc brings no Linux kernel headers (<linux/*.h>): PHP's configure finds
# none and its sockets extension leaves out the two options that need them
# (SO_MEMINFO, SO_BPF_EXTENSIONS); nothing else asks for them.
# Every test is counted; a skip fails.
set -uo pipefail
source tests/lib/common.sh
source tests/lib/phpt.sh

MUSL_CC=musl-gcc
HIREDIS_SERIES=1.2.
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
    # -O1 and no -g: about half the compile time of -O2 -g, and the tests
    # wait on the network, not on the VM. json, pcre, hash, random, SPL and
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

build_musl_hiredis() {   # sets MUSL_HIREDIS_PREFIX, HIREDIS_VER
    local src build stage t0 rc
    HIREDIS_VER=$(apt_source_version hiredis "$HIREDIS_SERIES") || { note "no hiredis $HIREDIS_SERIES* source in the lists"; return 1; }
    MUSL_HIREDIS_PREFIX="$DISTLOCK_CACHE_DIR/hiredis-${HIREDIS_VER#*:}-musl"
    [ -f "$MUSL_HIREDIS_PREFIX/.built" ] && { note "cached: $MUSL_HIREDIS_PREFIX ($(cat "$MUSL_HIREDIS_PREFIX/.built"))"; return 0; }
    cache_wait "$MUSL_HIREDIS_PREFIX"; rc=$?
    [ "$rc" = 1 ] || return "$rc"
    src=$(apt_source hiredis "$HIREDIS_VER") || { note "apt_source hiredis $HIREDIS_VER failed"; return 1; }
    build="$MUSL_HIREDIS_PREFIX.build" stage="$MUSL_HIREDIS_PREFIX.stage"
    rm -rf "$build" "$stage" "$MUSL_HIREDIS_PREFIX" && cp -a "$src" "$build" || return 1
    t0=$SECONDS
    # Installed into a staging root first and moved in one step.
    if ! nice make -C "$build" -j2 CC=$MUSL_CC USE_SSL=0 PREFIX="$MUSL_HIREDIS_PREFIX" DESTDIR="$stage" install \
            >"$DISTLOCK_LOG_DIR/hiredis-build.log" 2>&1; then
        excerpt "$DISTLOCK_LOG_DIR/hiredis-build.log" --tail
        return 1
    fi
    mv "$stage$MUSL_HIREDIS_PREFIX" "$MUSL_HIREDIS_PREFIX" || return 1
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

section "hiredis $HIREDIS_SERIES* built with musl-gcc"
t0=$SECONDS
if ! build_musl_hiredis; then
    suite_fail "musl: building hiredis with musl-gcc"
    suite_end
fi
note "hiredis step: $((SECONDS - t0)) s"

section "distlock with musl-gcc against the musl PHP and hiredis (-Wall -Wextra)"
t0=$SECONDS
MBUILD="$DISTLOCK_LOG_DIR/build"
# phpize and configure of the musl PHP (its php-config), musl-gcc as the compiler.
if PATH="$MUSL_PHP_PREFIX/bin:$PATH" CC=$MUSL_CC build_ext "$MBUILD" "$DISTLOCK_LOG_DIR/ext" "musl build" \
        --with-php-config="$MUSL_PHP_PREFIX/bin/php-config" --with-hiredis="$MUSL_HIREDIS_PREFIX"; then
    suite_pass "musl build: distlock.so with musl-gcc against PHP $("$MUSL_PHP" -n -r 'echo PHP_VERSION;') and hiredis ${HIREDIS_VER#*:} (musl), no compiler warnings"
else
    suite_end
fi
note "extension build: $((SECONDS - t0)) s"
MUSL_SO="$MBUILD/modules/distlock.so"
# What the loader will map: musl's libc and the musl hiredis, found by the
# rpath configure wrote; a glibc library here would mean a mixed process.
needed=$(readelf -d "$MUSL_SO" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p' | tr '\n' ' ')
ri=$("$MUSL_PHP" -n -d "extension=$MUSL_SO" --ri distlock 2>&1)
if grep -q 'libhiredis' <<<"$needed" && ! grep -qE 'libc\.so\.6|libpthread\.so\.0' <<<"$needed" &&
   grep -qE '^hiredis version => 1\.2\.[0-9]+$' <<<"$ri"; then
    suite_pass "musl build: loads in the musl PHP (needs: $needed; $(grep '^hiredis version' <<<"$ri"); $(grep '^TLS support' <<<"$ri" || echo 'TLS ?'))"
else
    note "needs: $needed"
    excerpt <(printf '%s\n' "$ri")
    suite_fail "musl build: distlock.so does not load in the musl PHP with the musl hiredis"
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
stop_redis_all
suite_end
