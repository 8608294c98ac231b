#!/usr/bin/env bash
# tests/packaging/run.sh — one check: `pecl package` of the shipped files (the
# list in DISTLOCK_SHIPPED_LIST, "role<TAB>path" from scripts/gen-package-xml
# --list), every one of them in the tarball, `pecl install` of it into the
# system PHP, the module loads and prints nothing but its version, and
# `pecl uninstall` removes it again.
set -uo pipefail
source tests/lib/common.sh
log="$DISTLOCK_LOG_DIR/pecl.log"
scratch="$DISTLOCK_LOG_DIR/package"
shipped=${DISTLOCK_SHIPPED_LIST:-}
installed=0
cleanup() { [ "$installed" = 1 ] && pecl uninstall distlock >>"$DISTLOCK_LOG_DIR/pecl-uninstall.log" 2>&1; installed=0; }
trap cleanup EXIT

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
    rm -rf "$scratch" && mkdir -p "$scratch"
    cut -f2 "$shipped" | tar -cf - -T - package.xml | tar -C "$scratch" -xf -
    if ! (cd "$scratch" && pecl package package.xml) >>"$log" 2>&1; then
        note "pecl package failed:"; excerpt "$log" --tail
        return 1
    fi
    tarball="$scratch/distlock-$ver.tgz"
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

    # pecl install into the system PHP (answers the configure prompt with its default).
    installed=1
    if ! printf '\n' | timeout --kill-after=30 900 pecl install -f "$tarball" >"$DISTLOCK_LOG_DIR/pecl-install.log" 2>&1; then
        note "pecl install failed:"; excerpt "$DISTLOCK_LOG_DIR/pecl-install.log" --tail
        return 1
    fi
    grep -E 'warning:' "$DISTLOCK_LOG_DIR/pecl-install.log" | head -n 20 | sed 's/^/  | /' || true
    out=$("$PHP" -n -d extension=distlock -r 'echo phpversion("distlock");' 2>&1 || true)
    if [ "$out" != "$ver" ]; then
        note "php -n -d extension=distlock printed (want exactly \"$ver\"):"
        printf '%s\n' "$out" | head -n 30 | sed 's/^/  | /'
        return 1
    fi
    note "pecl install ok; php -d extension=distlock loads version $out silently"
    if ! pecl uninstall distlock >"$DISTLOCK_LOG_DIR/pecl-uninstall.log" 2>&1; then
        note "pecl uninstall failed:"; excerpt "$DISTLOCK_LOG_DIR/pecl-uninstall.log" --tail
        return 1
    fi
    installed=0
    if [ -e "$(php-config --extension-dir)/distlock.so" ]; then
        note "pecl uninstall left $(php-config --extension-dir)/distlock.so behind"
        return 1
    fi
}
if packaging_check; then
    suite_pass "packaging: pecl package / install / load / uninstall"
else
    suite_fail "packaging (logs: $DISTLOCK_LOG_DIR/pecl*.log)"
fi
suite_end
