# tests/lib/server-build.sh — a Redis-compatible server built from Debian's
# source package with Debian's patches and `make BUILD_TLS=no MALLOC=libc`
# (server and cli only; the libc allocator also lets it run under libfaketime),
# cached in $DISTLOCK_CACHE_DIR/servers/<package>-<version>. Sourced after
# common.sh by tests/servers/run.sh and tests/nemesis/run.sh.

# build_server PACKAGE VERSION: sets BIN_DIR to a directory holding redis-server
# and redis-cli of that source version (built now, or by an earlier run), and
# BUILT_HOW to how; returns non-zero when it could not be fetched or built.
build_server() {
    local pkg=$1 ver=$2 dir src build deb p t0
    dir="$DISTLOCK_CACHE_DIR/servers/$pkg-${ver#*:}"
    BIN_DIR="$dir/bin"
    [ -f "$dir/.built" ] && { BUILT_HOW="cached build, $(cat "$dir/.built")"; return 0; }
    mkdir -p "$DISTLOCK_CACHE_DIR/servers"
    apt_src_setup
    # Another run building the same version at the same time waits for it.
    exec 9>"$dir.lock"
    flock -w 1800 9 || { note "timed out waiting for $dir.lock"; return 1; }
    [ -f "$dir/.built" ] && { BUILT_HOW="built by a concurrent run"; return 0; }
    src=$(apt_source "$pkg" "$ver") || { note "apt_source $pkg $ver failed (log: $DISTLOCK_LOG_DIR/apt-source.log)"; return 1; }
    deb=$(ls "$APT_SRC_BASE/dl/${pkg}_${ver#*:}".debian.tar.* 2>/dev/null | head -n1)
    [ -n "$deb" ] || { note "no Debian tarball for $pkg $ver in $APT_SRC_BASE/dl"; return 1; }
    build="$dir.build"
    rm -rf "$build" "$dir" && cp -a "$src" "$build" && tar -xf "$deb" -C "$build" || return 1
    # Debian's patch series (quilt layout; no quilt needed), as the package builds it.
    while read -r p _; do
        case "$p" in ''|'#'*) continue ;; esac
        patch -d "$build" -p1 --batch --forward <"$build/debian/patches/$p" >>"$DISTLOCK_LOG_DIR/build.log" 2>&1 \
            || { note "patch $p does not apply"; excerpt "$DISTLOCK_LOG_DIR/build.log" --tail; return 1; }
    done <"$build/debian/patches/series"
    t0=$SECONDS
    # OPTIMIZATION=-O2: without it the Makefile builds -O3 -flto=auto, whose
    # link took most of a 33 min build on a loaded machine; a test server needs
    # no link-time optimisation.
    note "building $pkg $ver: make -C src BUILD_TLS=no MALLOC=libc OPTIMIZATION=-O2 -j2 $pkg-server $pkg-cli (log: $DISTLOCK_LOG_DIR/build.log)"
    if ! nice make -C "$build/src" BUILD_TLS=no MALLOC=libc OPTIMIZATION=-O2 -j2 "$pkg-server" "$pkg-cli" >>"$DISTLOCK_LOG_DIR/build.log" 2>&1; then
        excerpt "$DISTLOCK_LOG_DIR/build.log" --tail
        return 1
    fi
    mkdir -p "$dir.tmp/bin" && cp "$build/src/$pkg-server" "$build/src/$pkg-cli" "$dir.tmp/bin/" || return 1
    # The phpt helpers start extra servers as "redis-server" beside REDIS_CLI.
    [ "$pkg" = redis ] || { ln -s "$pkg-server" "$dir.tmp/bin/redis-server"; ln -s "$pkg-cli" "$dir.tmp/bin/redis-cli"; }
    echo "built $(date -u +%FT%TZ) in $((SECONDS - t0)) s" >"$dir.tmp/.built"
    cp "$DISTLOCK_LOG_DIR/build.log" "$dir.tmp/build.log"
    mv "$dir.tmp" "$dir" && rm -rf "$build"
    BUILT_HOW=$(cat "$dir/.built")
}
