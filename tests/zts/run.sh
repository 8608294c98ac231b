#!/usr/bin/env bash
# tests/zts/run.sh — the extension on thread-safe PHP, as FrankenPHP and
# threaded Apache run it:
#   1. PHP <series> (DISTLOCK_ZTS_SERIES, default 8.2) built with
#      --enable-zts --enable-embed (and the CLI) from Debian's php<series>
#      source package (its upstream tarball, through the project's private
#      deb-src list), once, into $DISTLOCK_CACHE_DIR/php-<version>-zts (a new
#      upload is built afresh). 8.5 (experimental's php8.5) is where this
#      should move: the Debian mirror here lists php8.5's source but answers
#      404 for its files (php8.4's and php8.6's too; php8.2's are served);
#   2. distlock built against it with -Werror (PHP's headers -isystem);
#   3. the phpt suite (tests/phpt) on the ZTS CLI, against the servers
#      scripts/test started;
#   4. tests/zts/harness.c, PHP requests on 8 threads at once over the embed
#      SAPI (FrankenPHP's way), in two processes at once: locked
#      read-modify-writes lose no update across threads and processes; a lease
#      a request leaves behind (uncaught exception, exit(), fatal error) is
#      released at that thread's request end and no other's; persistent
#      connections are shared by the threads; on_lost => 'throw' raises in the
#      request whose lease was lost and in no other; then both again, on 3
#      threads, under valgrind's helgrind: no race, lock-order or API-misuse
#      report (tests/zts/helgrind.supp names the one PHP-internal exception).
# Every test is counted; a skip fails.
set -uo pipefail
source tests/lib/common.sh
source tests/lib/phpt.sh

SERIES=${DISTLOCK_ZTS_SERIES:-8.2}

build_zts_php() {   # sets ZTS_PREFIX
    local ver src build t0
    ver=$(apt_source_version "php$SERIES" "$SERIES.") || { note "no php$SERIES source version in the lists"; return 1; }
    ZTS_PREFIX="$DISTLOCK_CACHE_DIR/php-${ver#*:}-zts"
    [ -f "$ZTS_PREFIX/.built" ] && { note "cached: $ZTS_PREFIX ($(cat "$ZTS_PREFIX/.built"))"; return 0; }
    exec 9>"$ZTS_PREFIX.lock"
    flock -w 2400 9 || { note "timed out waiting for $ZTS_PREFIX.lock"; return 1; }
    [ -f "$ZTS_PREFIX/.built" ] && { note "built by a concurrent run: $ZTS_PREFIX"; return 0; }
    ensure_packages build-essential pkg-config bison re2c >/dev/null || return 1
    src=$(apt_source "php$SERIES" "$ver") || { note "apt_source php$SERIES $ver failed"; return 1; }
    build="$ZTS_PREFIX.build"
    rm -rf "$build" "$ZTS_PREFIX" "$ZTS_PREFIX.tmp" && cp -a "$src" "$build" || return 1
    t0=$SECONDS
    note "building PHP $ver with --enable-zts --enable-embed (log: $DISTLOCK_LOG_DIR/php-build.log)"
    # Only what the tests use: pcntl and posix for the fork tests; json, pcre,
    # hash, random and SPL are always built in.
    # libtool compiles every file twice, position-independent for libphp.so and
    # not for the CLI; once is enough (the CLI links the PIC objects): about
    # 3 of 11 minutes on a 2-core machine (PHP 8.2).
    if ! (cd "$build" && ./configure --prefix="$ZTS_PREFIX" --enable-zts --enable-embed=shared --enable-cli \
            --disable-cgi --disable-phpdbg --disable-all --without-libxml --without-sqlite3 --without-pdo-sqlite \
            --without-pear --enable-pcntl --enable-posix &&
          sed -i 's/^build_old_libs=yes$/build_old_libs=no/' libtool &&
          sed -i '/^BUILD_CLI = /s/:\.lo=\.o)/)/g' Makefile &&
          nice make -j2 && make install) \
            >"$DISTLOCK_LOG_DIR/php-build.log" 2>&1; then
        excerpt "$DISTLOCK_LOG_DIR/php-build.log" --tail
        return 1
    fi
    # make install wrote into the prefix: mark it complete last.
    echo "built $(date -u +%FT%TZ) in $((SECONDS - t0)) s" >"$ZTS_PREFIX/.built"
    rm -rf "$build"
}

section "PHP $SERIES ZTS with the embed SAPI"
if ! build_zts_php; then
    suite_fail "zts: building PHP $SERIES with --enable-zts --enable-embed"
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
if (cd "$ZBUILD" && "$ZTS_PREFIX/bin/phpize" && CFLAGS="-g -O2 -Wall -Wextra -Werror $(php_isystem "$ZTS_PREFIX/bin/php-config")" \
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
# From here on PHP is the ZTS build (another API than the system's
# extensions): the ini of its runs is their -n or PHPRC below, no scan dir.
export PHP_INI_SCAN_DIR= PHPRC="$DISTLOCK_LOG_DIR/ini"
phpt_use_dir tests/phpt
run_phpt "phpt (PHP $SERIES ZTS)" "$DISTLOCK_LOG_DIR/phpt-results.txt" "$DISTLOCK_LOG_DIR/phpt.log" 1200
count_phpt "phpt (PHP $SERIES ZTS)" "$DISTLOCK_LOG_DIR/phpt-results.txt" "$DISTLOCK_LOG_DIR/phpt.log" "$N_PHPT"

section "Threads: tests/zts/harness.c over the embed SAPI"
THREADS=8 REQUESTS=${DISTLOCK_ZTS_REQUESTS:-48} PROCS=2
HARNESS="$DISTLOCK_LOG_DIR/harness"
# shellcheck disable=SC2046
if ! cc -O1 -g -D_GNU_SOURCE -Wall -Wextra -Werror -pthread $(php_isystem "$ZTS_PREFIX/bin/php-config") tests/zts/harness.c \
        -L"$ZTS_PREFIX/lib" -lphp -Wl,-rpath,"$ZTS_PREFIX/lib" -o "$HARNESS" >"$DISTLOCK_LOG_DIR/harness-build.log" 2>&1; then
    excerpt "$DISTLOCK_LOG_DIR/harness-build.log" --tail
    suite_fail "zts: building tests/zts/harness.c"
    suite_end
fi
mkdir -p "$DISTLOCK_LOG_DIR/ini"
printf 'extension=%s\nmemory_limit=128M\ndisplay_errors=stderr\nlog_errors=0\n' "$DISTLOCK_SO" >"$DISTLOCK_LOG_DIR/ini/php.ini"
rcli() { "$REDIS_CLI" -p "$DISTLOCK_TEST_REDIS_PORT" "$@"; }
# wrappers SCRIPT: one t<T>.php per thread that sets $T and runs SCRIPT.
wrappers() {
    local d="$DISTLOCK_LOG_DIR/scripts-$(basename "$1" .php)" t
    mkdir -p "$d"
    for ((t = 0; t < THREADS; t++)); do printf '<?php\n$T = %d;\nrequire %s;\n' "$t" "'$PWD/$1'" >"$d/t$t.php"; done
    echo "$d"
}
# run_harness SCRIPT REQUESTS: PROCS harness processes at once; 0 when all ended well.
run_harness() {
    local dir pids=() p rc=0
    dir=$(wrappers "$1")
    for ((p = 0; p < PROCS; p++)); do
        PHPRC="$DISTLOCK_LOG_DIR/ini" HARNESS_PROC=$p HARNESS_THREADS=$THREADS \
            timeout 300 "$HARNESS" "$THREADS" "$2" "$dir" >"$DISTLOCK_LOG_DIR/harness-$(basename "$1" .php)-$p.log" 2>&1 &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    return $rc
}
rcli DEL zts:value zts:done >/dev/null
rcli --scan --pattern 'zts:*' | xargs -r "$REDIS_CLI" -p "$DISTLOCK_TEST_REDIS_PORT" DEL >/dev/null
t0=$SECONDS
run_harness tests/zts/request.php "$REQUESTS"; hrc=$?
note "$PROCS processes x $THREADS threads x $REQUESTS requests in $((SECONDS - t0)) s; $(grep -h '^harness:' "$DISTLOCK_LOG_DIR"/harness-request-*.log | sort | uniq -c | sed 's/^ *//' | tr '\n' ';')"
leaky=$((PROCS * THREADS * ( (REQUESTS / 8) * 3 + ( REQUESTS % 8 > 0 ? 1 : 0 ) + ( REQUESTS % 8 > 2 ? 1 : 0 ) + ( REQUESTS % 8 > 4 ? 1 : 0 ) )))
expect=$((PROCS * THREADS * REQUESTS - leaky))
value=$(rcli GET zts:value); done_=$(rcli GET zts:done)
if [ "$hrc" = 0 ] && [ "${value:-0}" = "$expect" ] && [ "${done_:-0}" = "$expect" ]; then
    suite_pass "zts: $expect locked read-modify-writes by 16 threads in 2 processes, 0 lost updates (counter $value)"
else
    excerpt "$DISTLOCK_LOG_DIR/harness-request-0.log" --tail
    suite_fail "zts: read-modify-writes: counter ${value:-none}, $done_ done, $expect expected (harness exit $hrc)"
fi
exits=$(grep -c 'RuntimeException\|Allowed memory size' "$DISTLOCK_LOG_DIR"/harness-request-*.log | awk -F: '{s += $2} END {print s + 0}')
left=$(rcli --scan --pattern 'zts:leak:*' | grep -vc '{' || true)
if [ "$(rcli GET zts:violations:leak)" = "" ] && [ "$left" = 0 ] && [ "$exits" -gt 0 ]; then
    suite_pass "zts: $leaky leases left by requests (uncaught exception, exit(), fatal error: $exits of them reported) were released at their thread's request end"
else
    suite_fail "zts: leases left behind: $(rcli GET zts:violations:leak) found still held by the next request, $left keys left, $exits failures reported"
fi
if [ "$(rcli GET zts:violations:own)" = "" ]; then
    suite_pass "zts: no request end released another thread's lease ($expect checks)"
else
    suite_fail "zts: $(rcli GET zts:violations:own) leases were released under another thread's request"
fi

run_harness tests/zts/lost.php 1; hrc=$?
victims=$(( $(rcli GET zts:wd:raised:0 | sed 's/^$/0/') + $(rcli GET zts:wd:raised:1 | sed 's/^$/0/') ))
others=0; quiet=0
for ((t = 2; t < THREADS; t++)); do
    others=$((others + $(rcli GET "zts:wd:raised:$t" | sed 's/^$/0/')))
    quiet=$((quiet + $(rcli GET "zts:wd:quiet:$t" | sed 's/^$/0/')))
done
if [ "$hrc" = 0 ] && [ "$victims" = $((2 * PROCS)) ] && [ "$others" = 0 ] && [ "$quiet" = $((PROCS * (THREADS - 2))) ] &&
   [ "$(rcli GET zts:violations:wd)" = "" ]; then
    suite_pass "zts: on_lost=throw raised in each of the $((2 * PROCS)) requests whose leases one watchdog round found lost (threads 0 and 1 of $PROCS processes) and in none of the other $((PROCS * (THREADS - 2))), whose leases the shared watchdog kept"
else
    excerpt "$DISTLOCK_LOG_DIR/harness-lost-0.log" --tail
    suite_fail "zts: on_lost=throw: raised in the victims' requests $victims times (want $((2 * PROCS))), in others $others, quiet $quiet, others' leases lost $(rcli GET zts:violations:wd)"
fi

section "Threads under helgrind (3 threads: the request script, then the on_lost one)"
ensure_packages valgrind >/dev/null
for script in request lost; do
    rcli --scan --pattern 'zts:*' | xargs -r "$REDIS_CLI" -p "$DISTLOCK_TEST_REDIS_PORT" DEL >/dev/null
    log="$DISTLOCK_LOG_DIR/helgrind-$script.log"
    if PHPRC="$DISTLOCK_LOG_DIR/ini" HARNESS_PROC=0 HARNESS_THREADS=3 timeout 900 valgrind --tool=helgrind -q \
            --error-exitcode=9 --suppressions=tests/threads/helgrind.supp --suppressions=tests/zts/helgrind.supp \
            "$HARNESS" 3 "$([ "$script" = request ] && echo 8 || echo 1)" "$DISTLOCK_LOG_DIR/scripts-$script" >"$log" 2>&1 &&
       grep -q '^harness: 3 threads' "$log"; then
        suite_pass "zts helgrind: tests/zts/$script.php on 3 threads: no reports ($(grep '^harness:' "$log"))"
    else
        excerpt "$log" --tail
        suite_fail "zts helgrind: tests/zts/$script.php on 3 threads: reports or a failed run (log: $log)"
    fi
done
rcli --scan --pattern 'zts:*' | xargs -r "$REDIS_CLI" -p "$DISTLOCK_TEST_REDIS_PORT" DEL >/dev/null
suite_end
