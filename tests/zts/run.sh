#!/usr/bin/env bash
# tests/zts/run.sh — the extension on thread-safe PHP, as FrankenPHP and
# threaded Apache run it:
#   1. PHP 8.2 built with --enable-zts --enable-embed (and the CLI) from
#      Debian's php8.2 source package (its upstream tarball, through the
#      project's private deb-src list), once, into $DISTLOCK_CACHE_DIR;
#   2. distlock built against it with -Werror;
#   3. the phpt suite (tests/phpt) on the ZTS CLI, against the servers
#      scripts/test started.
# Every test is counted; a skip fails.
set -uo pipefail
source tests/lib/common.sh
source tests/lib/phpt.sh

build_zts_php() {   # sets ZTS_PREFIX
    local ver src build t0
    ver=$(apt_source_version php8.2 "8.2.") || { note "no php8.2 source version in the lists"; return 1; }
    ZTS_PREFIX="$DISTLOCK_CACHE_DIR/php-${ver#*:}-zts"
    [ -f "$ZTS_PREFIX/.built" ] && { note "cached: $ZTS_PREFIX ($(cat "$ZTS_PREFIX/.built"))"; return 0; }
    exec 9>"$ZTS_PREFIX.lock"
    flock -w 2400 9 || { note "timed out waiting for $ZTS_PREFIX.lock"; return 1; }
    [ -f "$ZTS_PREFIX/.built" ] && { note "built by a concurrent run: $ZTS_PREFIX"; return 0; }
    ensure_packages build-essential pkg-config bison re2c >/dev/null || return 1
    src=$(apt_source php8.2 "$ver") || { note "apt_source php8.2 $ver failed"; return 1; }
    build="$ZTS_PREFIX.build"
    rm -rf "$build" "$ZTS_PREFIX" "$ZTS_PREFIX.tmp" && cp -a "$src" "$build" || return 1
    t0=$SECONDS
    note "building PHP $ver with --enable-zts --enable-embed (log: $DISTLOCK_LOG_DIR/php-build.log)"
    # Only what the tests use: pcntl and posix for the fork tests; json, pcre,
    # hash, random and SPL are always built in.
    if ! (cd "$build" && ./configure --prefix="$ZTS_PREFIX" --enable-zts --enable-embed=shared --enable-cli \
            --disable-cgi --disable-phpdbg --disable-all --without-libxml --without-sqlite3 --without-pdo-sqlite \
            --without-pear --enable-pcntl --enable-posix && nice make -j2 && make install) \
            >"$DISTLOCK_LOG_DIR/php-build.log" 2>&1; then
        excerpt "$DISTLOCK_LOG_DIR/php-build.log" --tail
        return 1
    fi
    # make install wrote into the prefix: mark it complete last.
    echo "built $(date -u +%FT%TZ) in $((SECONDS - t0)) s" >"$ZTS_PREFIX/.built"
    rm -rf "$build"
}

section "PHP 8.2 ZTS with the embed SAPI"
if ! build_zts_php; then
    suite_fail "zts: building PHP 8.2 with --enable-zts --enable-embed"
    suite_end
fi
ZTS_PHP="$ZTS_PREFIX/bin/php"
if "$ZTS_PHP" -n -r 'exit(PHP_ZTS ? 0 : 1);' && [ -f "$ZTS_PREFIX/lib/libphp.so" ]; then
    suite_pass "zts: $("$ZTS_PHP" -n -v | head -n1 | cut -d' ' -f1-3), ZTS, with libphp.so (embed)"
else
    suite_fail "zts: $ZTS_PHP is not a thread-safe build with the embed SAPI"
    suite_end
fi

section "distlock on PHP ZTS (-Werror)"
ZBUILD="$DISTLOCK_LOG_DIR/build"
rm -rf "$ZBUILD" && mkdir -p "$ZBUILD"
tar -cf - config.m4 config.w32 php_distlock.h src stubs | tar -xf - -C "$ZBUILD"
if (cd "$ZBUILD" && "$ZTS_PREFIX/bin/phpize" && CFLAGS="-g -O2 -Wall -Wextra -Werror" \
        ./configure --with-php-config="$ZTS_PREFIX/bin/php-config" && make -j2) >"$DISTLOCK_LOG_DIR/build.log" 2>&1 &&
   [ -f "$ZBUILD/modules/distlock.so" ]; then
    suite_pass "zts build: distlock.so against PHP ZTS, no compiler warnings"
else
    grep -E 'error|warning:' "$DISTLOCK_LOG_DIR/build.log" | head -n 60 | sed 's/^/  | /'
    suite_fail "zts build (log: $DISTLOCK_LOG_DIR/build.log)"
    suite_end
fi

section "phpt suite on the ZTS CLI"
export PHP="$ZTS_PHP" DISTLOCK_SO="$ZBUILD/modules/distlock.so" TEST_PHP_EXECUTABLE="$ZTS_PHP"
phpt_use_dir tests/phpt
run_phpt "phpt (PHP ZTS)" "$DISTLOCK_LOG_DIR/phpt-results.txt" "$DISTLOCK_LOG_DIR/phpt.log" 1200
count_phpt "phpt (PHP ZTS)" "$DISTLOCK_LOG_DIR/phpt-results.txt" "$DISTLOCK_LOG_DIR/phpt.log" "$N_PHPT"
suite_end
