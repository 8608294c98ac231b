#!/usr/bin/env bash
# tests/pie/run.sh — the root composer.json that makes `pie install
# distlock/distlock` work (type php-ext), checked three ways:
#   1. `composer validate --strict --no-check-publish` accepts it, and its
#      php-ext section follows PIE's schema and matches ./configure and
#      package.xml (tests/pie/check-php-ext.php);
#   2. Composer delivers the package from a path repository holding what a
#      release archive of the checkout holds (the files git tracks or would
#      track), and the build PIE runs on it (phpize, ./configure with the
#      configure option PIE passes, --with-hiredis=PREFIX, make) gives a module
#      that loads silently and reports the version of php_distlock.h;
#      `make install` of it (PIE's install step) puts distlock.so into the
#      extension dir, where it loads;
#   3. PIE itself (php/pie through Composer) installs it from that path
#      repository, it loads silently. The Packagist copy this machine reaches
#      does not serve php/pie: then this check says so in a note, and 1 and 2
#      are what is checked.
# PIE installs into the system's PHP (make install into php-config's extension
# dir, and it enables the extension in /etc/php): here every install runs in a
# private mount namespace (in_scratch_php) where the extension dir, /etc/php
# and /var/lib/php are overlays whose writes land in the scratch dir, so the
# system's PHP never changes (asserted: system_php_state before and after).
set -uo pipefail
source tests/lib/common.sh
ensure_packages composer git php8.2-dev libhiredis-dev || { suite_fail "pie: apt-get install composer git php8.2-dev libhiredis-dev"; suite_end; }
composer_env
root=$PWD
scratch="$DISTLOCK_LOG_DIR/scratch"
want=$(sed -nE 's/^#define PHP_DISTLOCK_VERSION "([^"]+)"/\1/p' php_distlock.h)
extdir=$("$PHP" -n -r 'echo PHP_EXTENSION_DIR;')
state_before=$(system_php_state)

# in_scratch_php NAME CMD...: runs CMD in a private mount namespace where the
# extension dir, /etc/php and /var/lib/php are overlays: what CMD writes there
# (those that exist) lands in $scratch/NAME/upper/{ext,etc-php,var-lib-php},
# the system's copies stay as they are, and the mounts end with CMD.
in_scratch_php() {
    local d="$scratch/$1" pairs= p
    shift
    for p in "$extdir:ext" /etc/php:etc-php /var/lib/php:var-lib-php; do
        [ -d "${p%%:*}" ] && pairs+=" $p"
    done
    PAIRS=$pairs unshare --mount --propagation private bash -c '
        set -e
        d=$1; shift
        for p in $PAIRS; do
            dir=${p%%:*} n=${p##*:}
            mkdir -p "$d/upper/$n" "$d/work/$n"
            mount -t overlay overlay -o "lowerdir=$dir,upperdir=$d/upper/$n,workdir=$d/work/$n" "$dir"
        done
        exec "$@"' in_scratch_php "$d" "$@"
}

# The release archive's files, copied to a source directory: a path repository of it.
rm -rf "$scratch" && mkdir -p "$scratch/src" "$scratch/project"
git ls-files -co --exclude-standard -z | tar --null -cf - -T - | tar -C "$scratch/src" -xf - \
    || { suite_fail "pie: could not copy the checkout's files"; suite_end; }

# 1. composer.json: Composer's validation, PIE's php-ext rules, ./configure and package.xml.
section "composer.json"
if ! composer validate --strict --no-check-publish composer.json >"$DISTLOCK_LOG_DIR/validate.log" 2>&1; then
    excerpt "$DISTLOCK_LOG_DIR/validate.log"
    suite_fail "composer.json: composer validate --strict --no-check-publish"
elif ! (cp -a "$scratch/src" "$scratch/help" && cd "$scratch/help" && phpize && ./configure --help) >"$DISTLOCK_LOG_DIR/configure-help.txt" 2>"$DISTLOCK_LOG_DIR/phpize.log"; then
    excerpt "$DISTLOCK_LOG_DIR/phpize.log" --tail
    suite_fail "composer.json: phpize / ./configure --help failed"
elif ! out=$("$PHP" -n tests/pie/check-php-ext.php composer.json "$DISTLOCK_LOG_DIR/configure-help.txt" package.xml 2>&1); then
    printf '%s\n' "$out" | sed 's/^/  /'
    suite_fail "composer.json: the php-ext section does not match PIE's schema, ./configure or package.xml"
else
    suite_pass "composer.json: valid for Composer $(composer --version 2>/dev/null | awk '{print $3}'); php-ext follows PIE's schema; --with-hiredis=DIR is a ./configure option; PHP range as in package.xml"
fi

# 2. Composer delivers it (path repository, copied), and PIE's build steps work on what it delivered.
section "Composer delivery and PIE's build steps"
cat >"$scratch/project/composer.json" <<EOF
{
    "repositories": [{"type": "path", "url": "$scratch/src", "options": {"symlink": false, "versions": {"distlock/distlock": "$want"}}}],
    "require": {"distlock/distlock": "$want"}
}
EOF
pkgdir="$scratch/project/vendor/distlock/distlock"
if ! (cd "$scratch/project" && composer update --no-progress) >"$DISTLOCK_LOG_DIR/composer.log" 2>&1; then
    excerpt "$DISTLOCK_LOG_DIR/composer.log" --tail
    suite_fail "pie build: composer could not install distlock/distlock from a path repository"
elif [ ! -f "$pkgdir/config.m4" ]; then
    suite_fail "pie build: composer installed no config.m4 into $pkgdir"
elif ! (cd "$pkgdir" && phpize && ./configure --with-hiredis=/usr && make -j2) \
        >"$DISTLOCK_LOG_DIR/pie-build.log" 2>&1; then
    excerpt "$DISTLOCK_LOG_DIR/pie-build.log" --tail
    suite_fail "pie build: phpize / ./configure --with-hiredis=/usr / make failed in the delivered package"
else
    out=$("$PHP" -n -d "extension=$pkgdir/modules/distlock.so" -r 'echo phpversion("distlock");' 2>&1)
    if [ "$out" = "$want" ]; then
        suite_pass "pie build: delivered by Composer as distlock/distlock $want, built with --with-hiredis=/usr, loads silently as $out"
    else
        note "php -n -d extension=... printed (want exactly \"$want\"):"; printf '%s\n' "$out" | head -n 20 | sed 's/^/  | /'
        suite_fail "pie build: the module built from the delivered package does not load silently"
    fi
    # PIE's install step, make install, into the extension dir (an overlay here).
    if ! in_scratch_php make-install bash -c 'make -C "$1" install && "$2" -n -d extension=distlock -r "echo phpversion(\"distlock\");"' \
            _ "$pkgdir" "$PHP" >"$DISTLOCK_LOG_DIR/make-install.log" 2>&1; then
        excerpt "$DISTLOCK_LOG_DIR/make-install.log" --tail
        suite_fail "pie build: make install into the extension dir (an overlay in a private mount namespace) failed"
    elif [ ! -f "$scratch/make-install/upper/ext/distlock.so" ] || [ "$(tail -n1 "$DISTLOCK_LOG_DIR/make-install.log")" != "$want" ]; then
        excerpt "$DISTLOCK_LOG_DIR/make-install.log" --tail
        suite_fail "pie build: make install wrote no distlock.so into the extension dir, or it did not load from there as $want"
    else
        suite_pass "pie build: make install puts distlock.so into the extension dir (an overlay in a private mount namespace), where extension=distlock loads it as $want"
    fi
fi

# 3. PIE itself, when the registry serves it.
section "PIE"
if ! composer show -a php/pie >"$DISTLOCK_LOG_DIR/pie-show.log" 2>&1; then
    note "PIE not checked: the package registry this machine reaches does not serve php/pie"
    note "($(grep -m1 -E 'not found|Could not' "$DISTLOCK_LOG_DIR/pie-show.log" | sed 's/^ *//'))"
else
    piedir="$scratch/pie"
    if ! composer create-project --no-progress --no-dev php/pie "$piedir" >"$DISTLOCK_LOG_DIR/pie-install.log" 2>&1; then
        excerpt "$DISTLOCK_LOG_DIR/pie-install.log" --tail
        suite_fail "pie: composer could not install php/pie"
    else
        pie=("$PHP" "$piedir/bin/pie")
        export PIE_WORKING_DIRECTORY="$scratch/pie-home"    # not ~/.pie
        if ! { "${pie[@]}" repository:add path "$scratch/src" &&
               in_scratch_php pie "${pie[@]}" install --with-hiredis=/usr "distlock/distlock:$want"; } >"$DISTLOCK_LOG_DIR/pie.log" 2>&1; then
            excerpt "$DISTLOCK_LOG_DIR/pie.log" --tail
            suite_fail "pie: pie install distlock/distlock failed"
        else
            out=$(in_scratch_php pie "$PHP" -n -d extension=distlock -r 'echo phpversion("distlock");' 2>&1)
            if [ "$out" = "$want" ] && [ -f "$scratch/pie/upper/ext/distlock.so" ]; then
                suite_pass "pie: pie install distlock/distlock into the extension dir (an overlay in a private mount namespace); loads silently as $out"
            else
                printf '%s\n' "$out" | head -n 20 | sed 's/^/  | /'
                suite_fail "pie: the module PIE installed is not in the extension dir or does not load silently"
            fi
        fi
        "${pie[@]}" repository:remove "$scratch/src" >>"$DISTLOCK_LOG_DIR/pie.log" 2>&1
    fi
fi
expect_system_php_unchanged pie "$state_before"
suite_end
