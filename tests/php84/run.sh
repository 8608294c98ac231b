#!/usr/bin/env bash
# tests/php84/run.sh — the extension on PHP 8.4, as Debian 13 ("trixie")
# ships it, with trixie's hiredis 1.2, Redis 8.0 and Valkey 8.1.
#
#   1. A trixie root, made once with debootstrap (--variant=minbase) from the
#      Debian mirror the machine's apt sources already name, with the packages
#      below installed in it, kept as a tarball in $DISTLOCK_CACHE_DIR and
#      unpacked for each run. The system's apt configuration is not touched:
#      apt runs inside the root, with the root's own sources.
#   2. Inside it (chroot; /proc, /dev and /dev/pts mounted for the run and
#      unmounted afterwards, also when a step fails): tests/php84/inside.sh
#      builds the extension with -Werror and runs the C unit tests, the phpt
#      suite against Redis 8.0 and against Valkey 8.1, the TLS suite with the
#      packaged hiredis 1.2 (hiredis_ssl) and the php-fpm suite — the same
#      suite scripts as on PHP 8.2, each labelled with its PHP and server.
# A root that cannot be made fails the run; it is never skipped.
set -uo pipefail
source tests/lib/common.sh

ROOT_VERSION=1   # bump when PACKAGES changes: a new tarball is made
PACKAGES="php8.4-dev php8.4-cli php8.4-fpm libhiredis-dev redis-server valkey-server nginx-light apache2-utils
curl libcmocka-dev libssl-dev openssl pkg-config build-essential procps ca-certificates"
TARBALL="$DISTLOCK_CACHE_DIR/trixie-php84-root-v$ROOT_VERSION.tar.gz"
ROOT="$DISTLOCK_LOG_DIR/root"
MOUNTS=()

unmount_all() {
    local i
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
        umount -l "${MOUNTS[$i]}" 2>/dev/null || true
    done
    MOUNTS=()
}
mount_into() {   # mount_into ROOT: /proc, /dev, /dev/pts, and the run's log dir
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
        note "php84: $1 still has mounts under it: left in place"
        return 1
    fi
    rm -rf --one-file-system "$1"
}
cleanup() {
    unmount_all
    # What the run left in the root (the unpacked tree) goes; the logs stay.
    [ -d "$ROOT" ] && safe_rm "$ROOT"
}
trap cleanup EXIT

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
    local tmp mirror log="$DISTLOCK_LOG_DIR/debootstrap.log"
    mirror=$(debian_mirror)
    if [ -z "$mirror" ]; then
        note "no Debian mirror found in /etc/apt/sources.list{,.d}"
        return 1
    fi
    ensure_packages debootstrap >/dev/null || return 1
    tmp=$(mktemp -d "$DISTLOCK_CACHE_DIR/trixie-build.XXXXXX")
    note "debootstrap --variant=minbase trixie from $mirror (log: $log)"
    if ! debootstrap --variant=minbase trixie "$tmp/root" "$mirror" >"$log" 2>&1; then
        excerpt "$log" --tail; safe_rm "$tmp"; return 1
    fi
    # No service starts inside the root while packages install.
    printf '#!/bin/sh\nexit 101\n' >"$tmp/root/usr/sbin/policy-rc.d" && chmod 755 "$tmp/root/usr/sbin/policy-rc.d"
    if ! mount_into "$tmp/root"; then unmount_all; safe_rm "$tmp"; return 1; fi
    # shellcheck disable=SC2086
    if ! chroot "$tmp/root" /usr/bin/env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
            sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends $(echo $PACKAGES) && apt-get clean" \
            >>"$log" 2>&1; then
        unmount_all; excerpt "$log" --tail; safe_rm "$tmp"; return 1
    fi
    unmount_all
    tar -C "$tmp/root" -czf "$TARBALL.part" . && mv "$TARBALL.part" "$TARBALL"
    local rc=$?
    safe_rm "$tmp"
    return $rc
}

section "Debian 13 root with PHP 8.4 ($TARBALL)"
if [ "$(id -u)" != 0 ]; then
    suite_fail "php84: needs root (debootstrap, chroot, mount)"
    suite_end
fi
exec 9>"$TARBALL.lock"
flock 9
if [ -f "$TARBALL" ]; then
    note "cached: $TARBALL ($(du -h "$TARBALL" | cut -f1))"
else
    t0=$SECONDS
    if make_root; then
        note "made in $((SECONDS - t0)) s: $TARBALL ($(du -h "$TARBALL" | cut -f1))"
    else
        flock -u 9
        suite_fail "php84: the Debian 13 root could not be made"
        suite_end
    fi
fi
flock -u 9
safe_rm "$ROOT" && mkdir -p "$ROOT"
if ! tar -C "$ROOT" -xzf "$TARBALL"; then
    suite_fail "php84: unpacking $TARBALL"
    suite_end
fi
# What any installed system has and debootstrap does not write: localhost.
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$ROOT/etc/hosts"
# The project's shipped files, and a log dir the host can read.
mkdir -p "$ROOT/distlock" "$ROOT/logs"
if ! "$PHP" scripts/gen-package-xml --list | cut -f2 | tar -cf - -T - | tar -xf - -C "$ROOT/distlock"; then
    suite_fail "php84: copying the shipped files into the root"
    suite_end
fi
if ! mount_into "$ROOT" || ! mount --bind "$DISTLOCK_LOG_DIR" "$ROOT/logs" || ! MOUNTS+=("$ROOT/logs"); then
    suite_fail "php84: mounting /proc, /dev and the log dir into the root"
    suite_end
fi
note "$(chroot "$ROOT" php -n -r 'echo "PHP ", PHP_VERSION, " (", PHP_OS, ")";'); $(chroot "$ROOT" redis-server --version | cut -d' ' -f1-3); $(chroot "$ROOT" valkey-server --version | cut -d' ' -f1-3)"

chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
    DISTLOCK_CACHE_DIR=/var/cache/distlock-test DISTLOCK_LOG_DIR=/logs/inside \
    DISTLOCK_TEST_JOBS="${DISTLOCK_TEST_JOBS:-2}" \
    bash -c 'cd /distlock && bash tests/php84/inside.sh' >"$DISTLOCK_LOG_DIR/inside.txt" 2>&1
rc=$?
cat "$DISTLOCK_LOG_DIR/inside.txt"
totals=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$DISTLOCK_LOG_DIR/inside.txt" | tail -n 1)
if [ -n "$totals" ]; then
    read -r p _ f _ s _ <<<"${totals//,/}"
    suite_count "$p" "$f" "${s:-0}"
    [ "$rc" != 0 ] && [ "$f" = 0 ] && suite_fail "php84: inside.sh exited $rc without a counted failure"
else
    suite_fail "php84: inside.sh ended without its closing line (exit $rc)"
fi
unmount_all
suite_end
