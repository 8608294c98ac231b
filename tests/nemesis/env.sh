# tests/nemesis/env.sh — what the fault campaign needs, for run.sh and soak
# (sourced after tests/lib/common.sh and tests/lib/server-build.sh): Debian's
# redis-server (the faulted servers), a Redis 8.0 built from Debian's source
# with the libc allocator (run under libfaketime for the clock jumps: jemalloc
# and libfaketime clash at start-up), libfaketime, phpredis. Sets
# NEMESIS_SERVER, NEMESIS_CLI, NEMESIS_FAKE_SERVER, NEMESIS_FAKE_LIB; returns
# non-zero (with a note) when one of them cannot be had.
nemesis_env() {
    ensure_packages redis-server redis-tools faketime php-cli php-redis || { note "apt: could not install the packages"; return 1; }
    NEMESIS_SERVER=$(command -v redis-server) NEMESIS_CLI=$(command -v redis-cli)
    local ver
    ver=$(apt_source_version redis 8.0.) || { note "no redis 8.0 source version (log: $DISTLOCK_LOG_DIR/apt-source.log)"; return 1; }
    build_server redis "$ver" || { note "redis $ver: fetch or build failed"; return 1; }
    NEMESIS_FAKE_SERVER="$BIN_DIR/redis-server"
    NEMESIS_FAKE_LIB=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -n1)
    [ -n "$NEMESIS_FAKE_LIB" ] || { note "libfaketime.so.1 not found (package faketime)"; return 1; }
    note "servers: $("$NEMESIS_SERVER" --version | cut -d' ' -f1-3); under libfaketime: $("$NEMESIS_FAKE_SERVER" --version | cut -d' ' -f1-3) ($BUILT_HOW)"
}
