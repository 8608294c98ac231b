# tests/lib/debian-root.sh — the extension on another Debian's PHP, in a root
# of that Debian (sourced after common.sh by tests/php84/run.sh and
# tests/php85/run.sh, which set the variables below and call
# debian_root_suite).
#
#   1. A root of ROOT_SUITE, made once with mmdebstrap (--variant=minbase, its
#      apt run native, maintainer scripts run) from the Debian mirror the
#      machine's apt sources name, ROOT_EXTRA suites added to its sources,
#      ROOT_PACKAGES installed in the same apt run, kept as a tarball in
#      $DISTLOCK_CACHE_DIR keyed by ROOT_TARBALL
#      (which carries a version to bump when the packages change) and
#      unpacked for each run. The system's apt configuration is not touched:
#      apt runs inside the root, with the root's own sources. sid's and
#      experimental's Release files carry a Valid-Until a week ahead, which a
#      machine whose clock has passed it refuses: they are read with
#      check-valid-until=no (Acquire::Check-Valid-Until=false for them alone).
#   2. Inside it (chroot; /proc, /dev and /dev/pts mounted for the run and
#      unmounted afterwards, also when a step fails): tests/lib/root-inside.sh
#      with the environment ROOT_INSIDE_ENV names (which PHP, which servers,
#      which suites) builds the extension with -Werror and runs the suite
#      scripts, each labelled with its PHP and server.
#   3. With ROOT_FRAMEWORKS=1, the framework packages on the root's PHP:
#      Composer (on the host: the root has none) makes a Laravel 13 and a
#      Symfony 8.1 project for the root's PHP version (tests/laravel/root.sh
#      and tests/symfony/root.sh with DISTLOCK_ROOT_PREPARE) in the log dir,
#      which the root sees as /logs, while the root runs its first suites;
#      root-inside.sh waits for them and runs their tests inside the root.
#      Set on the host, DISTLOCK_LARAVEL13_TESTS and SYMFONY_LOCK8_TESTS_DIR
#      (the frameworks' own tests from their public repositories) are
#      copied in and run there too.
# A root that cannot be made fails the run; it is never skipped.
#
# Set before debian_root_suite:
#   ROOT_LABEL      the suite's name in messages (php84)
#   ROOT_SUITE      the Debian suite mmdebstrap makes (trixie, sid)
#   ROOT_EXTRA      further suites in the root's sources ("" or experimental)
#   ROOT_PACKAGES   what apt installs
#   ROOT_PIN        packages (apt patterns) taken from ROOT_EXTRA's suites:
#                   pinned there at 500 (the others stay at 1, the default of
#                   experimental: its php-common, for one, Breaks php8.5-common)
#   ROOT_TARBALL    the cached tarball
#   ROOT_INSIDE_ENV VAR=value words for tests/lib/root-inside.sh
#   ROOT_FRAMEWORKS 1: step 3

ROOT="$DISTLOCK_LOG_DIR/root"
MOUNTS=()

unmount_all() {
    local i
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
        umount -l "${MOUNTS[$i]}" 2>/dev/null || true
    done
    MOUNTS=()
}
mount_into() {   # mount_into ROOT: /proc, /dev, /dev/pts
    local r=$1
    mount -t proc proc "$r/proc" && MOUNTS+=("$r/proc") &&
    mount --bind /dev "$r/dev" && MOUNTS+=("$r/dev") &&
    mount -t devpts devpts "$r/dev/pts" && MOUNTS+=("$r/dev/pts")
}
# safe_rm DIR: removes a root only when nothing is mounted under it (a lazy
# umount may still be in progress; the host's /dev is bind-mounted into it),
# and never crosses into another file system.
safe_rm() {
    if grep -q " $1/" /proc/mounts; then
        note "$ROOT_LABEL: $1 still has mounts under it: left in place"
        return 1
    fi
    rm -rf --one-file-system "$1"
}
debian_root_cleanup() {
    [ -z "${FRAMEWORKS_PID:-}" ] || { kill -TERM -- "-$FRAMEWORKS_PID" 2>/dev/null; wait "$FRAMEWORKS_PID" 2>/dev/null; }
    unmount_all
    # The projects' vendor/ trees go with the root; their logs stay.
    rm -rf "$DISTLOCK_LOG_DIR/frameworks/laravel" "$DISTLOCK_LOG_DIR/frameworks/symfony" "$DISTLOCK_LOG_DIR/frameworks/extern"
    # What the run left in the root (the unpacked tree) goes; the logs stay.
    [ -d "$ROOT" ] && safe_rm "$ROOT"
}

# The first Debian mirror the system's apt sources name (deb822 or one-line).
debian_mirror() {
    local m
    m=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | tr ' ' '\n' |
        grep -E '/debian/?$' | head -n 1)
    [ -n "$m" ] || m=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }' \
                       /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null)
    echo "${m:-}"
}

make_root() {
    local mirror s opts srcs=() log="$DISTLOCK_LOG_DIR/mmdebstrap.log" hook
    mirror=$(debian_mirror)
    if [ -z "$mirror" ]; then
        note "no Debian mirror found in /etc/apt/sources.list{,.d}"
        return 1
    fi
    ensure_packages mmdebstrap >/dev/null || return 1
    for s in $ROOT_SUITE $ROOT_EXTRA; do
        opts=
        case $s in sid|unstable|experimental) opts="[check-valid-until=no] " ;; esac
        srcs+=("deb $opts$mirror $s main")
    done
    # ROOT_PIN's packages from ROOT_EXTRA's suites, pinned before apt installs
    # anything (a setup hook runs after the sources are written, before the
    # first package goes in).
    hook='mkdir -p "$1/etc/apt/preferences.d"'
    if [ -n "${ROOT_PIN:-}" ]; then
        for s in $ROOT_EXTRA; do
            hook="$hook && printf 'Package: %s\\nPin: release a=%s\\nPin-Priority: 500\\n\\n' '$ROOT_PIN' '$s' >>\"\$1/etc/apt/preferences.d/distlock-tests\""
        done
    fi
    note "mmdebstrap --variant=minbase $ROOT_SUITE${ROOT_EXTRA:+ + $ROOT_EXTRA} from $mirror, with ROOT_PACKAGES (log: $log)"
    # One native apt run resolves and installs everything, maintainer scripts
    # included (php alternatives, conf.d links, fpm, nginx), into a tarball
    # at once. debootstrap and then apt-get in the root
    # took 69 (trixie) and 72 s (sid) on a quiet machine, 12 minutes and more
    # on a loaded one; mmdebstrap made the sid root in 45 s. No service starts
    # while packages install (mmdebstrap's own policy-rc.d, removed when it is
    # done: the tests start their servers by hand).
    # shellcheck disable=SC2086
    if ! mmdebstrap --variant=minbase --mode=root --format=tar \
            --include="$(echo $ROOT_PACKAGES | tr ' ' ',')" \
            --setup-hook="$hook" \
            "$ROOT_SUITE" - "${srcs[@]}" 2>"$log" | gzip -1 >"$ROOT_TARBALL.part"; then
        excerpt "$log" --tail; rm -f "$ROOT_TARBALL.part"; return 1
    fi
    mv "$ROOT_TARBALL.part" "$ROOT_TARBALL"
    # The tarballs this one replaces (an earlier ROOT_VERSION, an earlier php8.5): 200 MB and more each.
    local old
    for old in "$DISTLOCK_CACHE_DIR/$ROOT_SUITE-php"*-root-v*.tar.gz; do
        [ "$old" = "$ROOT_TARBALL" ] || [ ! -f "$old" ] || rm -f "$old" "$old.lock"
    done
}

# frameworks_prepare PHP_VERSION: step 3's projects, one after the other, each
# leaving <name>.txt (its output) and <name>.done (its exit code) in
# $DISTLOCK_LOG_DIR/frameworks; run in the background (FRAMEWORKS_PID).
frameworks_prepare() {
    local dir="$DISTLOCK_LOG_DIR/frameworks" name
    for name in laravel symfony; do
        DISTLOCK_LOG_DIR="$dir/$name-log" DISTLOCK_ROOT_PREPARE="$dir/$name" DISTLOCK_PLATFORM_PHP="$1" \
            bash "tests/$name/root.sh" >"$dir/$name.txt" 2>&1
        echo $? >"$dir/$name.done"
    done
}

# debian_root_suite TITLE: the whole suite (steps 1 to 3 above); ends it.
debian_root_suite() {
    local t0 rc name
    trap debian_root_cleanup EXIT
    section "$1 ($ROOT_TARBALL)"
    if [ "$(id -u)" != 0 ]; then
        suite_fail "$ROOT_LABEL: needs root (mmdebstrap, chroot, mount)"
        suite_end
    fi
    exec 9>"$ROOT_TARBALL.lock"
    flock 9
    if [ -f "$ROOT_TARBALL" ]; then
        note "cached: $ROOT_TARBALL ($(du -h "$ROOT_TARBALL" | cut -f1))"
    else
        t0=$SECONDS
        if make_root; then
            note "made in $((SECONDS - t0)) s: $ROOT_TARBALL ($(du -h "$ROOT_TARBALL" | cut -f1))"
        else
            flock -u 9
            suite_fail "$ROOT_LABEL: the $ROOT_SUITE root could not be made"
            suite_end
        fi
    fi
    flock -u 9
    safe_rm "$ROOT" && mkdir -p "$ROOT"
    if ! tar -C "$ROOT" -xzf "$ROOT_TARBALL"; then
        suite_fail "$ROOT_LABEL: unpacking $ROOT_TARBALL"
        suite_end
    fi
    # What any installed system has and mmdebstrap does not write: localhost.
    printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$ROOT/etc/hosts"
    # The project's shipped files, and a log dir the host can read.
    mkdir -p "$ROOT/distlock" "$ROOT/logs"
    if ! "$PHP" scripts/gen-package-xml --list | cut -f2 | tar -cf - -T - | tar -xf - -C "$ROOT/distlock"; then
        suite_fail "$ROOT_LABEL: copying the shipped files into the root"
        suite_end
    fi
    local inside_env=$ROOT_INSIDE_ENV fw="$DISTLOCK_LOG_DIR/frameworks" root_php
    if [ "${ROOT_FRAMEWORKS:-0}" = 1 ]; then
        # The framework packages' sources and tests (Composer packages of
        # their own: not in package.xml), and step 3's projects.
        if ! tar -cf - --exclude=vendor integrations/laravel integrations/symfony | tar -xf - -C "$ROOT/distlock"; then
            suite_fail "$ROOT_LABEL: copying integrations/ into the root"
        fi
        rm -rf "$fw" && mkdir -p "$fw"
        root_php=$(chroot "$ROOT" php -n -r 'echo PHP_VERSION;')
        # At the lowest CPU and I/O priority: beside the root's phpt and fpm runs,
        # which time what they test.
        set -m; nice -n 19 ionice -c 3 bash -c "$(declare -f frameworks_prepare); frameworks_prepare $root_php" &
        FRAMEWORKS_PID=$!; set +m
        inside_env="$inside_env ROOT_FRAMEWORKS=1"
        if [ -n "${DISTLOCK_LARAVEL13_TESTS:-}" ]; then
            mkdir -p "$fw/extern/laravel13" && cp -r "$DISTLOCK_LARAVEL13_TESTS/." "$fw/extern/laravel13/" ||
                suite_fail "$ROOT_LABEL: copying $DISTLOCK_LARAVEL13_TESTS into the root"
            inside_env="$inside_env DISTLOCK_LARAVEL13_TESTS=/logs/frameworks/extern/laravel13"
        fi
        if [ -n "${SYMFONY_LOCK8_TESTS_DIR:-}" ]; then
            mkdir -p "$fw/extern/symfony-lock8" && cp -r "$SYMFONY_LOCK8_TESTS_DIR/." "$fw/extern/symfony-lock8/" ||
                suite_fail "$ROOT_LABEL: copying $SYMFONY_LOCK8_TESTS_DIR into the root"
            inside_env="$inside_env SYMFONY_LOCK8_TESTS_DIR=/logs/frameworks/extern/symfony-lock8"
        fi
    fi
    if ! mount_into "$ROOT" || ! mount --bind "$DISTLOCK_LOG_DIR" "$ROOT/logs" || ! MOUNTS+=("$ROOT/logs"); then
        suite_fail "$ROOT_LABEL: mounting /proc, /dev and the log dir into the root"
        suite_end
    fi
    note "$(chroot "$ROOT" php -n -r 'echo "PHP ", PHP_VERSION, " (", PHP_OS, ")";'); $(chroot "$ROOT" redis-server --version | cut -d' ' -f1-3); $(chroot "$ROOT" valkey-server --version | cut -d' ' -f1-3)"

    # shellcheck disable=SC2086
    chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
        DISTLOCK_CACHE_DIR=/var/cache/distlock-test DISTLOCK_LOG_DIR=/logs/inside \
        DISTLOCK_TEST_JOBS="${DISTLOCK_TEST_JOBS:-}" $inside_env \
        bash -c 'cd /distlock && bash tests/lib/root-inside.sh' >"$DISTLOCK_LOG_DIR/inside.txt" 2>&1
    rc=$?
    # (its closing line renamed: the suite's own, from suite_end, is the one scripts/test reads)
    sed -E 's/^([0-9]+ passed, [0-9]+ failed.*)$/(inside the root: \1)/' "$DISTLOCK_LOG_DIR/inside.txt"
    count_closing_line "$DISTLOCK_LOG_DIR/inside.txt" "$rc" "$ROOT_LABEL: root-inside.sh"
    if [ -n "${FRAMEWORKS_PID:-}" ]; then
        wait "$FRAMEWORKS_PID"; FRAMEWORKS_PID=
        for name in laravel symfony; do   # the host's part: Composer for the root's PHP
            section "$ROOT_LABEL: the $name project for PHP $root_php (Composer, on the host)"
            sed -E 's/^([0-9]+ passed, [0-9]+ failed.*)$/(the '"$name"' project: \1)/' "$fw/$name.txt"
            count_closing_line "$fw/$name.txt" "$(cat "$fw/$name.done" 2>/dev/null || echo 1)" "$ROOT_LABEL: the $name project"
        done
    fi
    unmount_all
}
