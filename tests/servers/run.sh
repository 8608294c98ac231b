#!/usr/bin/env bash
# tests/servers/run.sh — the phpt suite against another server than Debian's
# redis-server: the newest Debian source package DISTLOCK_SERVER_PACKAGE
# (valkey, redis) whose upstream version starts with DISTLOCK_SERVER_SERIES
# ("9.", "8.0.", "8.6."; Redis 8.6 comes from Debian experimental), built here with Debian's patches and
# `make BUILD_TLS=no MALLOC=libc` (server and cli only) into
# $DISTLOCK_CACHE_DIR/servers/<package>-<version>, reused by later runs; a new
# upload has another version and is built afresh. Two servers of it (one with
# a unix socket, one with a password) take the place of the driver's, and
# tests/phpt/run.sh runs as a sub-run labelled "phpt (<Server> <version>)".
# A server that cannot be fetched or built fails the run (never skipped).
set -uo pipefail
source tests/lib/common.sh
source tests/lib/server-build.sh
pkg=${DISTLOCK_SERVER_PACKAGE:?valkey or redis}
series=${DISTLOCK_SERVER_SERIES:?e.g. 9. or 8.0.}
trap stop_redis_all EXIT
mapfile -t phpt_files < <(find tests/phpt -name '*.phpt' -type f)

# A build that did not happen fails its check and every phpt test it kept from running.
not_built() {
    suite_fail "$pkg $series: $1"
    note "phpt not run against it: ${#phpt_files[@]} tests counted as failed"
    suite_count 0 "${#phpt_files[@]}"
    suite_end
}

section "$pkg $series* from Debian's source packages"
ver=$(apt_source_version "$pkg" "$series") || not_built "no source version found (log: $DISTLOCK_LOG_DIR/apt-source.log)"
build_server "$pkg" "$ver" || not_built "$ver: fetch or build failed (logs: $DISTLOCK_LOG_DIR/)"
export REDIS_SERVER="$BIN_DIR/redis-server" REDIS_CLI="$BIN_DIR/redis-cli"
# "Valkey server v=9.1.2 sha=..." / "Redis server v=8.0.6 sha=..."
name_ver=$("$REDIS_SERVER" --version 2>&1 | sed -nE 's/^([A-Za-z]+) server v=([0-9.]+).*/\1 \2/p')
upstream=${ver#*:}; upstream=${upstream%-*}; upstream=${upstream%%+*}
if [ "${name_ver##* }" = "$upstream" ] && [ "$("$REDIS_CLI" --version 2>&1 | awk '{print $2}')" = "$upstream" ]; then
    suite_pass "$name_ver: server and cli from Debian source $pkg $ver ($BUILT_HOW)"
else
    not_built "$BIN_DIR: server says '$("$REDIS_SERVER" --version 2>&1 | head -n1)', source is $ver"
fi

password='s3cr3t-p@ss' password_enc='s3cr3t-p%40ss'
sock="$DISTLOCK_LOG_DIR/redis.sock"
sub="$DISTLOCK_LOG_DIR/phpt"

# The first line of a crash report in a test server's log (an assertion of
# its own, a fatal signal), empty when neither server crashed.
server_crash() {
    cat "$DISTLOCK_LOG_DIR"/redis-main.log "$DISTLOCK_LOG_DIR"/redis-auth.log 2>/dev/null |
        grep -m1 -E "==> .* is not true|crashed by signal" | sed -E 's/^[0-9]+:[A-Z] [^#]*# //'
}

# Two servers, then the phpt suite as a sub-run: its closing line becomes a note.
run_once() {
    if start_redis main "" --unixsocket "$sock" --unixsocketperm 777 && port1=$STARTED_PORT &&
       start_redis auth "$password" --requirepass "$password" && port2=$STARTED_PORT; then
        export DISTLOCK_TEST_REDIS="redis://127.0.0.1:$port1" DISTLOCK_TEST_REDIS_PORT="$port1" DISTLOCK_TEST_REDIS_SOCK="$sock"
        export DISTLOCK_TEST_REDIS_AUTH="redis://:$password_enc@127.0.0.1:$port2" DISTLOCK_TEST_REDIS_AUTH_PORT="$port2"
        export DISTLOCK_TEST_REDIS_PASSWORD="$password"
    else
        not_built "$name_ver: the test servers did not start"
    fi
    rm -rf "$sub" && mkdir -p "$sub"
    DISTLOCK_LOG_DIR="$sub" DISTLOCK_PHPT_LABEL="phpt ($name_ver)" bash tests/phpt/run.sh >"$sub/output.txt" 2>&1 3>&- 4>&-
    stop_redis_all
}

# A server that crashes on its own assertion or a fatal signal has a bug of its
# own (no client input may crash it): Redis 8.6.3 once asserted in
# setExpireByLink (db.c:2715 'de != NULL') under a SET ... PX inside a script,
# in one run of many. Its report is kept and named, and the phpt run is
# repeated once on fresh servers; a second crash fails the suite.
run_once
crash=$(server_crash)
if [ -n "$crash" ]; then
    for f in main auth; do mv "$DISTLOCK_LOG_DIR/redis-$f.log" "$DISTLOCK_LOG_DIR/redis-$f.crashed.log" 2>/dev/null; done
    mv "$sub" "$sub.crashed"
    echo "NOTE: $name_ver crashed during the phpt run: $crash (its report: $DISTLOCK_LOG_DIR/redis-main.crashed.log, redis-auth.crashed.log; the run: $sub.crashed/). The run is repeated once on fresh servers."
    run_once
    crash=$(server_crash)
    [ -n "$crash" ] && suite_fail "$name_ver crashed again, in the repeated phpt run: $crash"
fi
totals=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$sub/output.txt" | tail -n 1)
sed -E 's/^([0-9]+ passed, [0-9]+ failed.*)$/  (phpt ('"$name_ver"'): \1)/' "$sub/output.txt"
if [ -n "$totals" ]; then
    read -r p _ f _ s _ <<<"${totals//,/}"
    suite_count "$p" "$f" "${s:-0}"
else
    suite_fail "phpt ($name_ver): the sub-run ended without its closing line (log: $sub/output.txt)"
fi
suite_end
