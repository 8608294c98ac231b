#!/usr/bin/env bash
# tests/foreign/root.sh ARCH SUITE TARBALL LOG PACKAGES — makes one foreign
# Debian root as a tarball (run by tests/foreign/run.sh, which holds the lock).
#
# mmdebstrap --variant=extract: apt resolves the Essential set plus PACKAGES
# and their dependencies for ARCH, and the packages are only unpacked — no
# maintainer script runs, so nothing runs under emulation. (debootstrap
# --variant=minbase plus apt-get inside the root took 16 minutes for arm64 on
# this 2-core machine, nearly all of it dpkg and maintainer scripts under
# qemu; this takes 3 to 4, most of it downloads.) What those scripts would
# have made and the tests use is written here: /etc/passwd and /etc/group
# (base-passwd's masters), the awk alternative (mawk), PHP's
# mods-available/*.ini (php_ini_setup reads their priorities), the dynamic
# linker's cache. Written to TARBALL
# atomically; the temporary tree is removed.
set -uo pipefail
arch=$1 suite=$2 tarball=$3 log=$4 packages=$5
source tests/lib/common.sh
tmp=$(mktemp -d "$DISTLOCK_CACHE_DIR/foreign-$suite-$arch-build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mirror=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | tr ' ' '\n' | grep -E '/debian/?$' | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null)
[ -n "$mirror" ] || { echo "no Debian mirror in the apt sources"; exit 1; }
t0=$SECONDS
echo "== mmdebstrap --variant=extract --architectures=$arch $suite $mirror: ?essential $packages"
nice -n 10 mmdebstrap --mode=root --variant=extract --architectures="$arch" \
    --include='?essential' --include="$(echo $packages | tr ' ' ',')" \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
    "$suite" "$tmp/root" "$mirror" || exit 1
echo "== mmdebstrap: $((SECONDS - t0)) s"
r="$tmp/root"
cp "$r/usr/share/base-passwd/passwd.master" "$r/etc/passwd" &&
cp "$r/usr/share/base-passwd/group.master" "$r/etc/group" || exit 1
for d in "$r"/usr/share/php[0-9]*; do   # usr/share/php8.4-common/common/ctype.ini -> etc/php/8.4/mods-available/
    v=${d##*/php}; v=${v%%-*}
    mkdir -p "$r/etc/php/$v/mods-available"
    find "$d" -name '*.ini' -exec cp {} "$r/etc/php/$v/mods-available/" \;
done
[ -e "$r/usr/bin/awk" ] || ln -s mawk "$r/usr/bin/awk" || exit 1
chmod 1777 "$r/tmp"
chroot "$r" /sbin/ldconfig || exit 1
t1=$SECONDS
tar -C "$r" -czf "$tarball.part" . && mv "$tarball.part" "$tarball" || exit 1
echo "== tar: $((SECONDS - t1)) s; total $((SECONDS - t0)) s"
