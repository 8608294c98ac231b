#!/usr/bin/env bash
# tests/hostile/run.sh — the test command on a machine whose PHP already loads
# distlock by itself, as a contributor who uses it has: proof that the suites
# read only the ini they write (tests/lib/common.sh, php_ini_setup) and never
# install into or remove from the system's PHP.
#
# Installs system-wide, the way the README says, a distlock of another build:
# the built distlock.so with its version string patched (e.g. "1.0.0" ->
# "9.9.9", same length), as PHP_EXTENSION_DIR/distlock.so, with
# /etc/php/<series>/mods-available/distlock.ini (extension=distlock) linked as
# 20-distlock.ini into every SAPI's conf.d (what phpenmod does). Then:
#   A. with it enabled: the phpt suite, the packaging check, the php-fpm suite
#      and the Symfony suite (DISTLOCK_HOSTILE_SUITES_A) each pass in full, as
#      they do on a clean machine;
#   B. with `extension=distlock` enabled but the file gone (every PHP start
#      that reads the system's ini warns): the Symfony suite
#      (DISTLOCK_HOSTILE_SUITES_B) passes in full. B's phpt run was retired
#      in issue 38: every PHP process of the phpt suite loads distlock (-n
#      and -d extension=, run-tests.php's children and the tests' own), so a
#      process that read the system's ini is caught by A already (a second
#      distlock, 9.9.9, next to ours: "already loaded", a wrong version);
#      what B adds is the processes that do not load distlock (Composer,
#      PHPUnit's runner), which the Symfony suite starts;
# the installed copy is byte-for-byte what was installed after A, and after
# the run the system's PHP (system_php_state: extension dir, /etc/php, PEAR
# registry) is exactly as before. The sub-suites run without PHPRC and
# PHP_INI_SCAN_DIR in their environment, as a suite started by hand would.
#
# Whatever it changes it first records in $DISTLOCK_CACHE_DIR/hostile-restore
# (the paths, and a copy of any that existed): a trap restores on any exit or
# signal, and a run killed beyond traps (SIGKILL) is restored by the next
# `bash tests/hostile/run.sh --restore`, which scripts/test runs first thing.
set -uo pipefail
source tests/lib/common.sh
JOURNAL=${DISTLOCK_HOSTILE_JOURNAL:-$DISTLOCK_CACHE_DIR/hostile-restore}

# hostile_restore: puts back every path the journal lists (a copy if it
# existed, else nothing), then removes the journal. Idempotent.
hostile_restore() {
    [ -f "$JOURNAL/paths" ] || { rm -rf "$JOURNAL"; return 0; }
    local p
    while IFS= read -r p; do
        [ -n "$p" ] && rm -f "$p"
    done <"$JOURNAL/paths"
    if [ -f "$JOURNAL/backup.tar" ]; then
        tar -C / -xpf "$JOURNAL/backup.tar" || return 1
    fi
    rm -rf "$JOURNAL"
}
if [ "${1:-}" = --restore ]; then
    if [ -f "$JOURNAL/paths" ]; then
        echo "tests/hostile: restoring the system's PHP after an interrupted run ($(wc -l <"$JOURNAL/paths") paths)"
    fi
    hostile_restore
    exit $?
fi
hostile_restore || { suite_fail "hostile: could not restore an earlier run's leftovers ($JOURNAL)"; suite_end; }

info=$("$PHP" -n -r 'echo PHP_EXTENSION_DIR, "\n", PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION, "\n";')
EXTDIR=$(sed -n 1p <<<"$info") SERIES=$(sed -n 2p <<<"$info")
ETC="/etc/php/$SERIES"
WANT=$("$PHP" -n -d "extension=$DISTLOCK_SO" -r 'echo phpversion("distlock");')
OTHER=$(tr '0-8' '9' <<<"$WANT")
[ "$OTHER" = "$WANT" ] && OTHER=$(tr '9' '8' <<<"$WANT")
SUITES_A=${DISTLOCK_HOSTILE_SUITES_A:-phpt packaging fpm symfony}
SUITES_B=${DISTLOCK_HOSTILE_SUITES_B:-symfony}
# The packages the sub-suites install, installed before the "before" state
# is taken (a package's own conf.d links are not this suite's change).
ensure_packages "php$SERIES-fpm" nginx-light apache2-utils curl php-xml php-mbstring php-redis \
    php-symfony-lock php-symfony-semaphore phpunit composer \
    || { suite_fail "hostile: apt-get install"; suite_end; }

# The other build: the version string patched in a copy (same length, so the
# ELF layout does not move), checked to load and report it.
other_so="$DISTLOCK_LOG_DIR/distlock-$OTHER.so"
perl -0777 -pe 's/\x00\Q'"$WANT"'\E\x00/\x00'"$OTHER"'\x00/g' "$DISTLOCK_SO" >"$other_so"
got=$("$PHP" -n -d "extension=$other_so" -r 'echo phpversion("distlock");' 2>&1)
if [ "$got" != "$OTHER" ]; then
    suite_fail "hostile: the patched build reports '$got', not $OTHER"
    suite_end
fi

# The paths installed: the module, the ini, one conf.d link per SAPI; then
# any other conf.d entry that enables distlock (a user's own, under another
# name), which is put aside for the run so that only this setup loads it.
PATHS=("$EXTDIR/distlock.so" "$ETC/mods-available/distlock.ini")
for d in "$ETC"/*/conf.d; do [ -d "$d" ] && PATHS+=("$d/20-distlock.ini"); done
N_OURS=${#PATHS[@]}
while IFS= read -r p; do
    [[ " ${PATHS[*]} " == *" $p "* ]] || PATHS+=("$p")
done < <(grep -lsE '^[[:space:]]*extension[[:space:]]*=[[:space:]]*"?([^"]*/)?distlock(\.so)?"?[[:space:]]*$' "$ETC"/*/conf.d/*.ini)
STATE_BEFORE=$(system_php_state)

# Records the paths (and a copy of those that exist) before touching them.
journal_write() {
    local p have=()
    mkdir -p "$JOURNAL"
    for p in "${PATHS[@]}"; do [ -e "$p" ] || [ -L "$p" ] && have+=("${p#/}"); done
    if [ "${#have[@]}" -gt 0 ]; then
        tar --format=posix -C / -cpf "$JOURNAL/backup.tar.tmp" "${have[@]}" || return 1
        mv "$JOURNAL/backup.tar.tmp" "$JOURNAL/backup.tar"
    fi
    printf '%s\n' "${PATHS[@]}" >"$JOURNAL/paths.tmp" && mv "$JOURNAL/paths.tmp" "$JOURNAL/paths"
}
declare -A SUB_PID=() SUB_T0=()
on_exit() {
    local rc=$? pid
    trap - EXIT INT TERM
    # Sub-suites still running (a signal): stopped before the system is put back.
    for pid in "${SUB_PID[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null; done
    wait 2>/dev/null
    hostile_restore || echo "FAIL: hostile: restoring the system's PHP failed: see $JOURNAL"
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

journal_write || { suite_fail "hostile: could not write the journal $JOURNAL"; suite_end; }
for p in "${PATHS[@]:N_OURS}"; do rm -f "$p"; done
rm -f "${PATHS[@]:0:N_OURS}"
install -m 0644 "$other_so" "$EXTDIR/distlock.so"
printf '; priority=20\nextension=distlock\n' >"$ETC/mods-available/distlock.ini"
for p in "${PATHS[@]:2:N_OURS-2}"; do ln -s "$ETC/mods-available/distlock.ini" "$p"; done
installed() { sha256sum "${PATHS[@]:0:2}"; for p in "${PATHS[@]:2:N_OURS-2}"; do echo "$p -> $(readlink "$p")"; done; }
installed_sums=$(installed)

# system_php PHP-ARGS...: the system's PHP with the system's ini, as a user's
# shell runs it (what the hostile setup changes).
system_php() { env -u PHPRC -u PHP_INI_SCAN_DIR "$PHP" "$@"; }

# sub_suite_start SCENARIO NAME: starts tests/NAME/run.sh in the background as
# scripts/test would (without the ini variables); sub_suite_end SCENARIO NAME
# waits for it and passes when it ended "N passed, 0 failed", N > 0. A
# scenario's suites run side by side (they idle most of the time: 35 s of CPU
# in 3 minutes when they ran one after another); symfony gets a server of its
# own, so that its store tests and the phpt suite never share one.
sub_suite_start() {
    local scen=$1 name=$2 dir="$DISTLOCK_LOG_DIR/$1-$2" extra=() unset_env=(-u PHPRC -u PHP_INI_SCAN_DIR)
    mkdir -p "$dir"
    [ "$name" = packaging ] && extra=(DISTLOCK_SHIPPED_LIST="$dir/shipped.txt") &&
        "$PHP" -n scripts/gen-package-xml --list >"$dir/shipped.txt" 2>/dev/null
    # (symfony without its check that every class loads on each symfony/lock
    # major: nothing of the system's PHP is in it, and it ran in its own slot)
    [ "$name" = symfony ] && unset_env+=(-u DISTLOCK_TEST_REDIS -u DISTLOCK_TEST_REDIS_PORT) &&
        extra+=(DISTLOCK_SYMFONY_CLASS_MATRIX=0)
    SUB_T0[$scen-$name]=$SECONDS
    timeout --kill-after=30 900 env "${unset_env[@]}" DISTLOCK_LOG_DIR="$dir" "${extra[@]}" \
        bash "tests/$name/run.sh" >"$dir/output.txt" 2>&1 </dev/null &
    SUB_PID[$scen-$name]=$!
}
sub_suite_end() {
    local scen=$1 name=$2 dir="$DISTLOCK_LOG_DIR/$1-$2" rc=0 totals p f
    wait "${SUB_PID[$scen-$name]}" || rc=$?
    unset "SUB_PID[$scen-$name]"   # reaped: on_exit must not signal its (reusable) pid
    totals=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$dir/output.txt" | tail -n 1)
    read -r p _ f _ <<<"${totals//,/}"
    if [ -n "$totals" ] && [ "$rc" = 0 ] && [ "${f:-1}" = 0 ] && [ "${p:-0}" -gt 0 ]; then
        suite_pass "hostile $scen: $name: $totals ($((SECONDS - SUB_T0[$scen-$name])) s)"
    else
        # the failures and the logs they quote ("  | "), so that a CI log shows why
        grep -E '^(FAIL: |  \| )' "$dir/output.txt" | head -n 60 | sed 's/^/  | /'
        suite_fail "hostile $scen: $name: ${totals:-no closing line} (exit $rc; log $dir/output.txt)"
    fi
}
# sub_suites SCENARIO NAME...: the scenario's suites side by side, then each counted.
sub_suites() {
    local scen=$1 s
    shift
    for s in "$@"; do sub_suite_start "$scen" "$s"; done
    for s in "$@"; do sub_suite_end "$scen" "$s"; done
}

section "A: distlock $OTHER installed and enabled system-wide ($EXTDIR/distlock.so, $ETC/*/conf.d/20-distlock.ini)"
got=$(system_php -r 'echo phpversion("distlock");' 2>&1)
if [ "$got" = "$OTHER" ]; then
    suite_pass "hostile A: the system's php loads distlock $OTHER by itself"
else
    suite_fail "hostile A: the system's php printed '$got', not distlock $OTHER: the setup is not hostile"
fi
# shellcheck disable=SC2086
sub_suites A $SUITES_A
now_sums=$(installed)
if [ "$now_sums" = "$installed_sums" ]; then
    suite_pass "hostile A: the installed distlock $OTHER (module, ini, $N_OURS paths) is byte-for-byte as installed"
else
    diff <(echo "$installed_sums") <(echo "$now_sums") | sed 's/^/  | /'
    suite_fail "hostile A: the suites changed the system's distlock installation"
fi

section "B: extension=distlock enabled system-wide, $EXTDIR/distlock.so missing"
rm -f "$EXTDIR/distlock.so"
got=$(system_php -r 'echo "ok";' 2>&1)
if grep -q "Unable to load dynamic library 'distlock'" <<<"$got"; then
    suite_pass "hostile B: every start of the system's php warns: $(grep -m1 -o "Unable to load dynamic library 'distlock'" <<<"$got")"
else
    suite_fail "hostile B: the system's php did not warn about the missing distlock (printed '$got')"
fi
# shellcheck disable=SC2086
sub_suites B $SUITES_B
if [ ! -e "$EXTDIR/distlock.so" ] && [ "$(sha256sum "${PATHS[1]}")" = "$(sed -n 2p <<<"$installed_sums")" ]; then
    suite_pass "hostile B: the enabled ini is as installed, and nothing put a distlock.so back"
else
    suite_fail "hostile B: the suites changed the system's distlock ini or installed a distlock.so"
fi

hostile_restore || suite_fail "hostile: restoring the system's PHP failed (journal $JOURNAL)"
expect_system_php_unchanged hostile "$STATE_BEFORE"
suite_end
