#!/usr/bin/env bash
# tests/packaging/run.sh — the glue's call graph has no cycle
# (tests/packaging/glue-graph.sh, on the build's objects); one version stated
# everywhere (scripts/check-version); and `pecl package`
# of the shipped files (the list in DISTLOCK_SHIPPED_LIST, "role<TAB>path" from
# scripts/gen-package-xml --list), every one of them in the tarball, pecl's
# install of it (--packagingroot) into a scratch root (never into the system's PHP), the module it installed loads
# from there and prints nothing but its version, and the system's PHP is
# unchanged afterwards.
#
# How pecl is kept off the system (Debian's php-pear 1.10): --installroot does
# not apply to a built extension (PEAR copies it to php-config's extension
# dir), so the install uses --packagingroot=ROOT, which prefixes every file,
# the built .so included, and the registry. PEAR's temp, cache, download and
# registry dirs come from PHP_PEAR_* (with -C/-c naming config files that do
# not exist, so no pear.conf or ~/.pearrc changes them) and lie in the
# scratch dir. With --packagingroot PEAR unpacks the sources under ROOT but
# builds them from the unprefixed temp dir: that dir is a link to the
# prefixed one. `pecl uninstall` cannot be pointed at ROOT (with
# --installroot it dies: "Call to a member function getPackageType() on
# string"), and run against the registry it would delete the files at the
# system paths it records: so what pecl wrote is removed by removing ROOT.
set -uo pipefail
source tests/lib/common.sh
log="$DISTLOCK_LOG_DIR/pecl.log"
scratch="$DISTLOCK_LOG_DIR/package"
shipped=${DISTLOCK_SHIPPED_LIST:-}
pear="$scratch/pear"        # PEAR's own dirs (temp, cache, download, registry)
root="$scratch/root"        # --packagingroot: what pecl's install writes
cleanup() { rm -rf "$root" "$pear"; }
trap cleanup EXIT

# pecl with every dir it writes in the scratch dir.
PECL=(env PHP_PEAR_SYSCONF_DIR="$pear/etc" PHP_PEAR_METADATA_DIR="$pear/registry"
      PHP_PEAR_TEMP_DIR="$pear/tmp" PHP_PEAR_CACHE_DIR="$pear/cache" PHP_PEAR_DOWNLOAD_DIR="$pear/download"
      pecl -C "$pear/etc/pear.conf" -c "$pear/pearrc")

packaging_check() {
    local ver tarball out f nmissing=0
    : >"$log"
    [ -f package.xml ] || { note "package.xml does not exist (scripts/gen-package-xml writes it)"; return 1; }
    if ! "$PHP" scripts/gen-package-xml --check >>"$log" 2>&1; then
        sed 's/^/  /' "$log" | head -n 60
        return 1
    fi
    [ -s "$shipped" ] || { note "no list of shipped files (DISTLOCK_SHIPPED_LIST)"; return 1; }
    ver=$("$PHP" -r '$x = file_get_contents("package.xml");
        if (preg_match("~<version>\s*<release>([^<]+)</release>~", $x, $m)) echo trim($m[1]);')
    [ -n "$ver" ] || { note "no <version><release> in package.xml"; return 1; }

    # pecl package in a scratch copy holding just the shipped files.
    rm -rf "$scratch" && mkdir -p "$scratch/src" "$pear/etc" "$root$pear/tmp"
    ln -s "$root$pear/tmp" "$pear/tmp"
    cut -f2 "$shipped" | tar -cf - -T - package.xml | tar -C "$scratch/src" -xf -
    if ! (cd "$scratch/src" && "${PECL[@]}" package package.xml) >>"$log" 2>&1; then
        note "pecl package failed:"; excerpt "$log" --tail
        return 1
    fi
    tarball="$scratch/src/distlock-$ver.tgz"
    [ -f "$tarball" ] || { note "pecl package wrote no $tarball"; excerpt "$log" --tail; return 1; }
    # Every shipped file must be in the tarball (pecl does not notice missing ones).
    tar -tzf "$tarball" >"$DISTLOCK_LOG_DIR/pecl-tarball.txt"
    while IFS=$'\t' read -r _ f; do
        if ! grep -qxF "distlock-$ver/$f" "$DISTLOCK_LOG_DIR/pecl-tarball.txt"; then
            note "not in the tarball: $f"
            nmissing=$((nmissing + 1))
        fi
    done <"$shipped"
    [ "$nmissing" -eq 0 ] || return 1
    note "distlock-$ver.tgz: $(wc -l <"$DISTLOCK_LOG_DIR/pecl-tarball.txt") entries, all $(wc -l <"$shipped") shipped files present"

    # pecl's install into the scratch root (answers the configure prompt with its default).
    if ! printf '\n' | timeout --kill-after=30 900 "${PECL[@]}" install -O --packagingroot="$root" "$tarball" \
            >"$DISTLOCK_LOG_DIR/pecl-install.log" 2>&1; then
        note "pecl's install failed:"; excerpt "$DISTLOCK_LOG_DIR/pecl-install.log" --tail
        return 1
    fi
    grep -E 'warning:' "$DISTLOCK_LOG_DIR/pecl-install.log" | head -n 20 | sed 's/^/  | /' || true
    so="$root$extdir/distlock.so"
    if [ ! -f "$so" ]; then
        note "pecl's install wrote no $so:"; grep -E "^Installing '" "$DISTLOCK_LOG_DIR/pecl-install.log" | sed 's/^/  | /'
        return 1
    fi
    if ! grep -qE "^install ok: channel://pecl.php.net/distlock-$ver\$" "$DISTLOCK_LOG_DIR/pecl-install.log" ||
       [ ! -f "$root$pear/registry/.registry/.channel.pecl.php.net/distlock.reg" ]; then
        note "pecl's install did not register distlock-$ver in the scratch registry:"; excerpt "$DISTLOCK_LOG_DIR/pecl-install.log" --tail
        return 1
    fi
    out=$("$PHP" -n -d "extension_dir=$root$extdir" -d extension=distlock -r 'echo phpversion("distlock");' 2>&1 || true)
    if [ "$out" != "$ver" ]; then
        note "php -n -d extension_dir=<scratch root> -d extension=distlock printed (want exactly \"$ver\"):"
        printf '%s\n' "$out" | head -n 30 | sed 's/^/  | /'
        return 1
    fi
    note "pecl's install ok into $root ($(cd "$root" && find . -type f | grep -vc "^\.$pear/") files, registry included); it loads from there as $out, silently"
}

# The glue's call graph (tests/packaging/glue-graph.sh) has no cycle: checked on
# the objects of the test command's build, after the checker has been shown a
# cycle it must find (two objects that call each other).
glue_graph_check() {
    local objs=() dir gg="$DISTLOCK_LOG_DIR/glue-graph"
    for dir in "$(dirname "$DISTLOCK_SO")/../src/php/.libs" "$(dirname "$DISTLOCK_SO")/../src/php"; do
        if compgen -G "$dir/*.o" >/dev/null; then objs=("$dir"/*.o); break; fi
    done
    [ "${#objs[@]}" -ge 10 ] || { note "glue graph: no src/php objects next to $DISTLOCK_SO (found ${#objs[@]})"; return 1; }
    rm -rf "$gg" && mkdir -p "$gg"
    printf 'void b(void);\nvoid a(void) { b(); }\n' >"$gg/a.c"
    printf 'void a(void);\nvoid b(void) { a(); }\n' >"$gg/b.c"
    if ! (cd "$gg" && cc -c a.c b.c) >"$gg/cc.log" 2>&1; then
        note "glue graph: could not compile its self-check"; excerpt "$gg/cc.log" --tail; return 1
    fi
    if bash tests/packaging/glue-graph.sh "$gg/a.o" "$gg/b.o" >"$gg/self.txt" 2>&1 || ! grep -q '^cycle' "$gg/self.txt"; then
        note "glue graph: the checker did not find the cycle a <-> b:"; sed 's/^/  | /' "$gg/self.txt"; return 1
    fi
    if ! bash tests/packaging/glue-graph.sh "${objs[@]}" >"$gg/graph.txt" 2>&1; then
        sed 's/^/  | /' "$gg/graph.txt"; return 1
    fi
    note "glue graph: $(grep -c ' -> ' "$gg/graph.txt") arrows between ${#objs[@]} files of src/php, no cycle ($gg/graph.txt)"
}
if glue_graph_check; then
    suite_pass "glue: the call graph between src/php files has no cycle"
else
    suite_fail "glue: the call graph between src/php files (tests/packaging/glue-graph.sh)"
fi

# One version (scripts/check-version): package.xml, gen-package-xml's template,
# php_distlock.h, CHANGELOG.md, the docs; no composer.json with a version. It
# must also fail on a copy of those files whose php_distlock.h says another.
version_check() {
    local vc="$DISTLOCK_LOG_DIR/check-version" f
    if ! "$PHP" scripts/check-version >"$vc.log" 2>&1; then
        sed 's/^/  | /' "$vc.log"; return 1
    fi
    rm -rf "$vc" && mkdir -p "$vc/root/scripts"
    for f in package.xml php_distlock.h CHANGELOG.md README.md RELEASING.md composer.json docs integrations; do
        [ -e "$f" ] && cp -r "$f" "$vc/root/"
    done
    cp scripts/gen-package-xml "$vc/root/scripts/"
    sed -i -E 's/^(#define PHP_DISTLOCK_VERSION ")[^"]*"/\19.9.9"/' "$vc/root/php_distlock.h"
    if "$PHP" scripts/check-version "$vc/root" >"$vc/other.log" 2>&1 || ! grep -q 'php_distlock.h: PHP_DISTLOCK_VERSION is "9.9.9"' "$vc/other.log"; then
        note "check-version did not see php_distlock.h's 9.9.9:"; sed 's/^/  | /' "$vc/other.log"; return 1
    fi
    note "$(cat "$vc.log")"
}
if version_check; then
    suite_pass "version: one version in package.xml, gen-package-xml, php_distlock.h, CHANGELOG.md, the docs"
else
    suite_fail "version: not one version (scripts/check-version)"
fi

extdir=$("$PHP" -n -r 'echo PHP_EXTENSION_DIR;')
before=$(system_php_state)
if packaging_check; then
    suite_pass "packaging: pecl package / install into a scratch root / load"
else
    suite_fail "packaging (logs: $DISTLOCK_LOG_DIR/pecl*.log)"
fi
cleanup
expect_system_php_unchanged packaging "$before"
suite_end
