#!/usr/bin/env bash
# tests/tls/run.sh — the TLS build and its tests (issue 10).
#
#   1. hiredis 1.2 (Debian trixie's source package) built with USE_SSL=1 into
#      $DISTLOCK_CACHE_DIR/hiredis-<version>-ssl, once (later runs reuse it);
#   2. the extension built against it in a scratch copy of the sources
#      (--with-hiredis=PREFIX; the checkout's own modules/ is not touched):
#      warning-free, and php --ri says TLS yes and hiredis 1.2.x;
#   3. the C unit tests against hiredis 1.2 (tests/unit/run.sh with
#      HIREDIS_PREFIX and its own BUILD directory);
#   4. throw-away certificates (tests/tls/certs.sh) and three redis-servers
#      with a TLS port and a plain port: main (tls-auth-clients no), mtls
#      (tls-auth-clients yes), expired (its certificate has expired);
#      (DISTLOCK_TLS_SO=<a TLS build> and DISTLOCK_TLS_UNIT=0: a root's suite,
#      tests/lib/root-inside.sh, built the same configuration with -Werror and
#      ran the unit tests with TLS compiled in already: 2 and 3 are not redone);
#   5. the whole phpt suite (tests/phpt) with the TLS build (not with
#      DISTLOCK_TLS_PHPT=0: tests/lib/root-inside.sh ran it already on a build
#      of the same configuration, TLS compiled in), then the TLS tests
#      (tests/tls/*.phpt) with it.
# Every test is counted; a skip fails. Runs standalone too (it then starts
# the plain test servers tests/phpt needs):
#   bash tests/tls/run.sh            (from the repository root)
set -uo pipefail
source tests/lib/common.sh
source tests/lib/phpt.sh
source tests/tls/certs.sh

# DISTLOCK_TLS_HIREDIS=system: the system's own hiredis (>= 1.0 with
# hiredis_ssl, e.g. Debian 13's libhiredis-dev; tests/php84) instead of the
# source build. DISTLOCK_PHP_SERIES: the PHP packages (default 8.2).
PHP_SERIES=${DISTLOCK_PHP_SERIES:-8.2}
if [ "${DISTLOCK_TLS_HIREDIS:-source}" = system ]; then
    HIREDIS_DEB_VERSION=$(pkg-config --modversion hiredis 2>/dev/null || echo "?")
    HIREDIS_PREFIX=/usr
else
    HIREDIS_DEB_VERSION=${DISTLOCK_TLS_HIREDIS_VERSION:-1.2.0-6}
    HIREDIS_PREFIX="$DISTLOCK_CACHE_DIR/hiredis-$HIREDIS_DEB_VERSION-ssl"
fi
SCRATCH="$DISTLOCK_LOG_DIR/ext-tls"
CERTS="$DISTLOCK_LOG_DIR/certs"
trap 'stop_redis_all' EXIT

# ---------------------------------------------------------------------------
section "Dependencies"
if ! ensure_packages libssl-dev openssl pkg-config build-essential "php$PHP_SERIES-dev" "php$PHP_SERIES-cli" redis-server libcmocka-dev; then
    suite_fail "tls: dependencies (libssl-dev, openssl, ...) could not be installed"
    suite_end
fi
note "$(openssl version)"

# ---------------------------------------------------------------------------
section "hiredis $HIREDIS_DEB_VERSION with USE_SSL=1 ($HIREDIS_PREFIX)"
if [ "$HIREDIS_PREFIX" = /usr ]; then
    if [ -r /usr/include/hiredis/hiredis_ssl.h ]; then
        note "the system's hiredis $HIREDIS_DEB_VERSION, with hiredis_ssl"
    else
        suite_fail "tls: the system's hiredis has no hiredis_ssl.h"
        suite_end
    fi
elif [ -f "$HIREDIS_PREFIX/.distlock-built" ] && [ -r "$HIREDIS_PREFIX/include/hiredis/hiredis_ssl.h" ]; then
    note "cached: $HIREDIS_PREFIX"
else
    if ! src=$(apt_source hiredis "$HIREDIS_DEB_VERSION"); then
        suite_fail "tls: apt_source hiredis $HIREDIS_DEB_VERSION"
        suite_end
    fi
    hb="$DISTLOCK_LOG_DIR/hiredis-build"
    stage="$DISTLOCK_LOG_DIR/hiredis-stage"
    rm -rf "$hb" "$stage" && cp -a "$src" "$hb"
    # Installed into a staging root first and moved in one step, so that a
    # concurrent run never sees half a prefix.
    if make -C "$hb" -j2 USE_SSL=1 PREFIX="$HIREDIS_PREFIX" DESTDIR="$stage" install >"$DISTLOCK_LOG_DIR/hiredis-build.log" 2>&1; then
        touch "$stage$HIREDIS_PREFIX/.distlock-built"
        rm -rf "$HIREDIS_PREFIX.old"
        [ -d "$HIREDIS_PREFIX" ] && mv "$HIREDIS_PREFIX" "$HIREDIS_PREFIX.old"
        mkdir -p "$(dirname "$HIREDIS_PREFIX")" && mv "$stage$HIREDIS_PREFIX" "$HIREDIS_PREFIX"
        rm -rf "$HIREDIS_PREFIX.old" "$hb" "$stage"
        note "built: $HIREDIS_PREFIX"
    else
        excerpt "$DISTLOCK_LOG_DIR/hiredis-build.log" --tail
        suite_fail "tls: building hiredis $HIREDIS_DEB_VERSION with USE_SSL=1"
        suite_end
    fi
fi

# ---------------------------------------------------------------------------
if [ -n "${DISTLOCK_TLS_SO:-}" ]; then
    # A root's suite (tests/lib/root-inside.sh) built this configuration
    # already, with -Werror, against the same system hiredis with hiredis_ssl.
    section "distlock against hiredis $HIREDIS_DEB_VERSION (the caller's build: $DISTLOCK_TLS_SO)"
    TLS_SO=$DISTLOCK_TLS_SO
else
    section "distlock against hiredis $HIREDIS_DEB_VERSION (scratch build in $SCRATCH)"
    TLS_SO="$SCRATCH/modules/distlock.so"
    if build_ext "$SCRATCH" "$DISTLOCK_LOG_DIR/tls" "tls build" $([ "$HIREDIS_PREFIX" = /usr ] || echo "--with-hiredis=$HIREDIS_PREFIX"); then
        suite_pass "tls build: distlock.so against hiredis $HIREDIS_DEB_VERSION, no compiler warnings"
    fi
fi
if [ ! -f "$TLS_SO" ]; then
    suite_fail "tls: no TLS build: nothing else can run"
    suite_end
fi
[ -f "$DISTLOCK_LOG_DIR/tls-configure.log" ] &&
    grep -E '^checking (for the hiredis version|whether distlock speaks TLS)' "$DISTLOCK_LOG_DIR/tls-configure.log" | sed 's/^/  configure: /'
ri=$("$PHP" -n -d "extension=$TLS_SO" --ri distlock 2>&1)
if grep -qx 'TLS support => yes' <<<"$ri" && grep -qE '^hiredis version => 1\.2\.[0-9]+$' <<<"$ri"; then
    suite_pass "tls build: php --ri distlock says TLS support => yes, $(grep '^hiredis version' <<<"$ri")"
else
    grep -E 'hiredis|TLS' <<<"$ri" | sed 's/^/  | /'
    suite_fail "tls build: php --ri distlock does not say TLS yes with hiredis 1.2.x"
fi
note "$(grep '^TLS library' <<<"$ri" || true)"

# ---------------------------------------------------------------------------
if [ "${DISTLOCK_TLS_UNIT:-1}" = 0 ]; then
    note "C unit tests: run by the caller against this hiredis, TLS compiled in (DISTLOCK_TLS_UNIT=0)"
else
section "C unit tests against hiredis $HIREDIS_DEB_VERSION"
mkdir -p "$DISTLOCK_LOG_DIR/unit"
BUILD="$DISTLOCK_LOG_DIR/unit-build" HIREDIS_PREFIX="$HIREDIS_PREFIX" DISTLOCK_LOG_DIR="$DISTLOCK_LOG_DIR/unit" \
    bash tests/unit/run.sh >"$DISTLOCK_LOG_DIR/unit/output.txt" 2>&1
unit_totals=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$DISTLOCK_LOG_DIR/unit/output.txt" | tail -n 1)
grep -E '^(FAIL|  cmocka|NOTICE)' "$DISTLOCK_LOG_DIR/unit/output.txt" | sed 's/^FAIL: /FAIL: hiredis 1.2: /'
if [ -n "$unit_totals" ]; then
    read -r up _ uf _ <<<"${unit_totals//,/}"
    note "C unit tests (hiredis $HIREDIS_DEB_VERSION, TLS): $up passed, $uf failed"
    suite_count "$up" "$uf"
else
    suite_fail "C unit tests against hiredis $HIREDIS_DEB_VERSION: no totals (log $DISTLOCK_LOG_DIR/unit/output.txt)"
fi
fi

# ---------------------------------------------------------------------------
section "Certificates and TLS servers"
if ! make_test_certs "$CERTS"; then
    excerpt "$CERTS/openssl.log" --tail
    suite_fail "tls: making the test certificates with openssl"
    suite_end
fi
note "certificates in $CERTS"
tls_server() {   # tls_server NAME CERT AUTH_CLIENTS -> TLS_PORT_<NAME>, plain port in STARTED_PORT
    local name=$1 cert=$2 auth=$3 tport
    tport=$(free_port) || return 1
    start_redis "$name" "" --tls-port "$tport" --tls-cert-file "$CERTS/$cert" --tls-key-file "$CERTS/server.key" \
        --tls-ca-cert-file "$CERTS/ca.crt" --tls-auth-clients "$auth" || return 1
    printf -v "TLS_PORT_$name" '%s' "$tport"
}
if tls_server main server.crt no && MAIN_PLAIN=$STARTED_PORT &&
   tls_server mtls server.crt yes && tls_server expired expired.crt no; then
    export DISTLOCK_TEST_TLS_MAIN_PORT=$TLS_PORT_main DISTLOCK_TEST_TLS_MTLS_PORT=$TLS_PORT_mtls
    export DISTLOCK_TEST_TLS_EXPIRED_PORT=$TLS_PORT_expired DISTLOCK_TEST_TLS_CERTS=$CERTS
    note "TLS ports: main $TLS_PORT_main (plain $MAIN_PLAIN), mtls $TLS_PORT_mtls, expired $TLS_PORT_expired"
else
    suite_fail "tls: could not start the TLS redis-servers"
    suite_end
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
        suite_fail "tls: could not start the plain test servers"
    fi
fi

# ---------------------------------------------------------------------------
export DISTLOCK_SO="$TLS_SO"
if [ -z "$RUN_TESTS" ]; then
    suite_fail "tls: run-tests.php not found (php$PHP_SERIES-dev)"
    suite_end
fi
if [ "${DISTLOCK_TLS_PHPT:-1}" = 1 ]; then
    section "phpt suite (tests/phpt) with the TLS build"
    phpt_use_dir tests/phpt
    run_phpt "phpt (TLS build)" "$DISTLOCK_LOG_DIR/phpt-results.txt" "$DISTLOCK_LOG_DIR/phpt.log" 1200
    count_phpt "phpt (TLS build)" "$DISTLOCK_LOG_DIR/phpt-results.txt" "$DISTLOCK_LOG_DIR/phpt.log" "$N_PHPT"
fi

section "TLS tests (tests/tls)"
phpt_use_dir tests/tls
# raw_redis() and client_entry() of the TLS tests look at the main TLS server's plain port.
DISTLOCK_TEST_REDIS="redis://127.0.0.1:$MAIN_PLAIN" DISTLOCK_TEST_REDIS_PORT="$MAIN_PLAIN" \
    run_phpt "tls" "$DISTLOCK_LOG_DIR/tls-results.txt" "$DISTLOCK_LOG_DIR/tls.log" 300
count_phpt "tls" "$DISTLOCK_LOG_DIR/tls-results.txt" "$DISTLOCK_LOG_DIR/tls.log" "$N_PHPT"
[ "$N_PHPT" -eq 0 ] && suite_fail "tls: no tests under tests/tls"

stop_redis_all
suite_end
