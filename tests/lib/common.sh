# tests/lib/common.sh — shared by scripts/test and the suite scripts under tests/.
#
# A suite script (tests/<area>/run.sh) is run by scripts/test from the
# repository root, as its own bash process, with this environment:
#   PHP                  the php binary
#   DISTLOCK_SO          absolute path of the built modules/distlock.so
#   DISTLOCK_LOG_DIR     a directory for this suite's logs (created)
#   DISTLOCK_CACHE_DIR   a cache kept across runs and clones (source builds,
#                        Composer downloads, Debian source packages)
#   DISTLOCK_TEST_REDIS, DISTLOCK_TEST_REDIS_PORT, DISTLOCK_TEST_REDIS_SOCK,
#   DISTLOCK_TEST_REDIS_AUTH, DISTLOCK_TEST_REDIS_AUTH_PORT,
#   DISTLOCK_TEST_REDIS_PASSWORD, REDIS_SERVER, REDIS_CLI
# Every PHP process it starts reads the php.ini and scan dir that
# php_ini_setup (below) writes: PHPRC and PHP_INI_SCAN_DIR are exported, so
# the system's php.ini and conf.d are never read.
# It sources this file, counts with suite_pass/suite_fail/suite_count, and
# ends with suite_end, which prints the plain line "N passed, N failed"
# (", N skipped") that scripts/test adds to its own totals, and exits non-zero
# when anything failed. A suite that skips a test counts it as failed: the
# servers are there, so a green run means every test ran.

: "${DISTLOCK_CACHE_DIR:=/var/cache/distlock-test}"
: "${DISTLOCK_LOG_DIR:=$(mktemp -d "${TMPDIR:-/tmp}/distlock-suite.XXXXXX")}"
: "${PHP:=$(command -v php)}"
export DISTLOCK_CACHE_DIR DISTLOCK_LOG_DIR PHP
mkdir -p "$DISTLOCK_CACHE_DIR" "$DISTLOCK_LOG_DIR"

# ---------------------------------------------------------------------------
# The PHP configuration of the test command. A machine's PHP may load, through
# its own php.ini or conf.d, a distlock of another build (or an
# `extension=distlock` whose file is gone), Xdebug, or an ini line that warns
# at every start: none of that may change a result. So every PHP process a
# suite starts (php, Composer, PHPUnit, pecl, run-tests.php, php-fpm) reads a
# php.ini and a scan dir written here: PHPRC names the php.ini (it wins over
# the system's; php-fpm's -c wins over it), PHP_INI_SCAN_DIR replaces the
# system's conf.d. The scan dir loads, from the system's extension dir, the
# Debian-packaged extensions the suites use (PHP_INI_EXTENSIONS) that are
# installed, in Debian's order ("; priority=N" of mods-available/NAME.ini,
# default 20, as phpenmod does): never distlock, never Xdebug. The php.ini
# holds the settings of Debian's CLI php.ini that a test can notice, written
# out. A suite that runs another PHP build (tests/zts) gives it an empty scan
# dir; `php -n` runs read neither.
PHP_INI_EXTENSIONS="opcache pdo xml calendar ctype dom exif ffi fileinfo ftp gettext iconv intl mbstring phar
    posix readline shmop simplexml sockets sysvmsg sysvsem sysvshm tokenizer xmlreader xmlwriter xsl
    igbinary msgpack redis sqlite3 pdo_sqlite curl zip bcmath gmp"

# php_ini_setup: (re)writes $DISTLOCK_LOG_DIR/php-ini/{php.ini,conf.d} for the
# PHP in $PHP and exports PHPRC and PHP_INI_SCAN_DIR. Does nothing while PHP
# is not installed (ensure_packages calls it again after installing).
php_ini_setup() {
    local dir="$DISTLOCK_LOG_DIR/php-ini" info extdir series name prio kind
    { [ -n "$PHP" ] && [ -x "$PHP" ]; } || return 0
    info=$("$PHP" -n -r 'echo PHP_EXTENSION_DIR, "\n", PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION, "\n";' 2>/dev/null) || return 0
    extdir=$(sed -n 1p <<<"$info") series=$(sed -n 2p <<<"$info")
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/conf.d"
    cat >"$dir.tmp/php.ini" <<'EOF'
; Written by tests/lib/common.sh (php_ini_setup): the php.ini of every PHP
; process the test command starts: Debian's CLI settings, none read from it.
memory_limit = -1
error_reporting = E_ALL & ~E_DEPRECATED
display_errors = Off
display_startup_errors = On
log_errors = On
zend.assertions = -1
zend.exception_ignore_args = On
serialize_precision = -1
short_open_tag = Off
variables_order = "GPCS"
request_order = "GP"
default_socket_timeout = 60
session.gc_probability = 0
EOF
    for name in $PHP_INI_EXTENSIONS; do
        [ -f "$extdir/$name.so" ] || continue
        prio=$(sed -nE 's/^;[[:space:]]*priority[[:space:]]*=[[:space:]]*([0-9]+).*/\1/p' \
            "/etc/php/$series/mods-available/$name.ini" 2>/dev/null | head -n1)
        kind=extension; [ "$name" = opcache ] && kind=zend_extension
        echo "$kind=$name" >"$dir.tmp/conf.d/${prio:-20}-$name.ini"
    done
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
    export PHPRC="$dir/php.ini" PHP_INI_SCAN_DIR="$dir/conf.d"
}
php_ini_setup

# system_php_state: one line per file or link of the system's PHP that the
# test command must leave alone (the extension dir, /etc/php, the PEAR
# registry and config, phpenmod's state), with its checksum or link target,
# sorted: equal output before and after means nothing there changed.
system_php_state() {
    local extdir
    extdir=$("$PHP" -n -r 'echo PHP_EXTENSION_DIR;' 2>/dev/null)
    find ${extdir:+"$extdir"} /etc/php /etc/pear /var/lib/php/modules /usr/share/php/.registry /usr/share/php/.channels \
            /usr/share/php/.filemap /usr/share/php/.depdb \( -type f -o -type l \) -printf '%y %p %l\n' 2>/dev/null | sort |
        while read -r type path link; do
            if [ "$type" = f ]; then echo "$(sha256sum <"$path" | cut -c1-64) $path"; else echo "link $path -> $link"; fi
        done
}

# expect_system_php_unchanged LABEL BEFORE: compares system_php_state now
# with BEFORE (taken at the start) and counts a pass or a failure showing the
# difference (< before, > after).
expect_system_php_unchanged() {
    local label=$1 before=$2 after
    after=$(system_php_state)
    if [ "$before" = "$after" ]; then
        suite_pass "$label: the system's PHP is untouched (extension dir, /etc/php, PEAR registry: $(wc -l <<<"$after") files and links, checksums equal)"
    else
        diff <(echo "$before") <(echo "$after") | head -n 40 | sed 's/^/  | /'
        suite_fail "$label: the system's PHP changed during the run (above: < before, > after)"
    fi
}

SUITE_PASSED=0
SUITE_FAILED=0
SUITE_SKIPPED=0
SUITE_REDIS_PIDS=()
MAX_EXCERPT=${MAX_EXCERPT:-400}

section() { printf '\n==== %s ====\n' "$*"; }
note()    { printf '  %s\n' "$*"; }
suite_pass() { SUITE_PASSED=$((SUITE_PASSED + 1)); echo "PASS: $*"; }
suite_fail() { SUITE_FAILED=$((SUITE_FAILED + 1)); echo "FAIL: $*"; }
# suite_count PASSED FAILED [SKIPPED]: adds a sub-runner's totals.
suite_count() { SUITE_PASSED=$((SUITE_PASSED + $1)); SUITE_FAILED=$((SUITE_FAILED + $2)); SUITE_SKIPPED=$((SUITE_SKIPPED + ${3:-0})); }

# Prints the closing line and exits: 0 when nothing failed.
suite_end() {
    if [ "$SUITE_SKIPPED" -gt 0 ]; then
        echo "$SUITE_PASSED passed, $SUITE_FAILED failed, $SUITE_SKIPPED skipped"
    else
        echo "$SUITE_PASSED passed, $SUITE_FAILED failed"
    fi
    [ "$SUITE_FAILED" -eq 0 ]
    exit $?
}

# require_distlock CHECK WHAT: ends the suite unless the extension under test
# ($DISTLOCK_SO) exists and the PHP expression CHECK, run with it loaded, is
# true; WHAT names what it lacks otherwise. CHECK "true" asks only that it exists.
require_distlock() {
    if [ ! -f "$DISTLOCK_SO" ]; then
        suite_fail "no extension at $DISTLOCK_SO (build it: phpize && ./configure && make)"
        suite_end
    fi
    if ! "$PHP" -d "extension=$DISTLOCK_SO" -r "exit(($1) ? 0 : 1);"; then
        suite_fail "$DISTLOCK_SO lacks $2"
        suite_end
    fi
}

# count_closing_line FILE RC WHAT: adds to this suite's counts the last
# "N passed, N failed" line in FILE, the output of a sub-run (WHAT) that
# exited RC. Counts a failure when there is no such line, or when the sub-run
# exited non-zero without a counted failure.
count_closing_line() {
    local file=$1 rc=$2 what=$3 totals p f s
    totals=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$file" | tail -n 1)
    if [ -z "$totals" ]; then
        suite_fail "$what: no closing line (exit $rc; log $file)"
        return 1
    fi
    read -r p _ f _ s _ <<<"${totals//,/}"
    suite_count "$p" "$f" "${s:-0}"
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then suite_fail "$what: exited $rc without a counted failure"; fi
}

# run_sub DIR LABEL SCRIPT [VAR=value...]: another suite script as a sub-run
# of this one (logs in $DISTLOCK_LOG_DIR/DIR), its output shown with the
# label, its closing line counted into this suite's.
run_sub() {
    sub_run "$@"
    sub_report "$1" "$2"
}
# sub_run DIR LABEL SCRIPT [VAR=value...]: run_sub's run alone (its output in
# $DISTLOCK_LOG_DIR/DIR/output.txt, its exit code in .../rc); sub_report DIR
# LABEL shows and counts it.
sub_run() {
    local dir="$DISTLOCK_LOG_DIR/$1" script=$3 rc=0
    shift 3
    mkdir -p "$dir"
    env DISTLOCK_LOG_DIR="$dir" "$@" bash "$script" >"$dir/output.txt" 2>&1 || rc=$?
    echo "$rc" >"$dir/rc"
}
sub_report() {
    local dir="$DISTLOCK_LOG_DIR/$1" name=$2
    section "$name"
    sed -E "s/^FAIL: /FAIL: $name: /; s/^([0-9]+ passed, [0-9]+ failed.*)$/($name: \\1)/" "$dir/output.txt"
    count_closing_line "$dir/output.txt" "$(cat "$dir/rc" 2>/dev/null || echo 1)" "$name"
}

# use_test_redis NAME: the server in DISTLOCK_TEST_REDIS, or one of the suite's
# own (start_redis NAME), exported as DISTLOCK_TEST_REDIS.
use_test_redis() {
    if [ -z "${DISTLOCK_TEST_REDIS:-}" ]; then
        start_redis "$1" "" || { suite_fail "redis: could not start a server"; suite_end; }
        export DISTLOCK_TEST_REDIS="redis://127.0.0.1:$STARTED_PORT"
    fi
    note "redis: $DISTLOCK_TEST_REDIS"
}


# Prints at most MAX_EXCERPT lines of a log (its last ones with --tail).
excerpt() {
    local file=$1 mode=${2:-} n
    [ -f "$file" ] || { note "(no log $file)"; return 0; }
    n=$(wc -l <"$file")
    if [ "$n" -le "$MAX_EXCERPT" ]; then
        sed 's/^/  | /' "$file"
    elif [ "$mode" = --tail ]; then
        note "... (last $MAX_EXCERPT of $n lines; full log: $file)"
        tail -n "$MAX_EXCERPT" "$file" | sed 's/^/  | /'
    else
        head -n "$MAX_EXCERPT" "$file" | sed 's/^/  | /'
        note "... (first $MAX_EXCERPT of $n lines; full log: $file)"
    fi
}

# Sum of the N in lines of FILE matching the ERE $2 with N in its first group.
sum_matches() {
    sed -nE "s/$2/\1/p" "$1" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'
}

# ensure_packages PKG...: apt-get installs the Debian packages that are missing.
ensure_packages() {
    local p missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    note "installing: ${missing[*]}"
    if [ "$(id -u)" != 0 ]; then
        note "not root: cannot apt-get install ${missing[*]}"
        return 1
    fi
    # One install at a time: suites run side by side (scripts/test's lanes),
    # and a second apt-get would fail at once on dpkg's lock.
    (
        flock -w 900 9 || { echo "timed out waiting for $DISTLOCK_CACHE_DIR/apt-install.lock"; exit 1; }
        # (the lock's descriptor is not passed on: a daemon a postinst starts would keep it)
        apt-get update 9>&- && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
            -o DPkg::Lock::Timeout=600 "${missing[@]}" 9>&-
    ) 9>"$DISTLOCK_CACHE_DIR/apt-install.lock" >>"$DISTLOCK_LOG_DIR/apt.log" 2>&1 || { excerpt "$DISTLOCK_LOG_DIR/apt.log" --tail; return 1; }
    [ -n "$PHP" ] || PHP=$(command -v php || true)
    php_ini_setup   # a new PHP or a new extension: the ini again
}

# The private deb-src setup shared by apt_source and apt_source_version: sets
# APT_SRC_BASE and APT_SRC_OPTS (apt-get/apt-cache options that point at a
# sources.list and lists of our own; the system's apt configuration is not
# touched). Suites served: bookworm, trixie, sid, experimental (Redis 8.6 and
# PHP 8.5 are uploaded there). sid's and experimental's Release files carry a
# Valid-Until a week ahead, which a machine whose clock has passed it (a
# mirror that serves a snapshot) would refuse: those two are read with
# check-valid-until=no, the per-source form of Acquire::Check-Valid-Until=false.
# A sources.list written by an older checkout (without experimental) is
# replaced, and the lists fetched again (apt_src_update).
APT_SRC_SUITES="bookworm trixie sid experimental"
apt_src_setup() {
    APT_SRC_BASE="$DISTLOCK_CACHE_DIR/apt-src"
    mkdir -p "$APT_SRC_BASE/lists/partial" "$APT_SRC_BASE/dl" "$DISTLOCK_CACHE_DIR/src"
    APT_SRC_OPTS=(-o "Dir::Etc::SourceList=$APT_SRC_BASE/sources.list" -o Dir::Etc::SourceParts=/dev/null
                  -o "Dir::State::Lists=$APT_SRC_BASE/lists" -o "Dir::Cache=$APT_SRC_BASE/cache" -o APT::Sandbox::User=root)
    local s opts want
    want=$(for s in $APT_SRC_SUITES; do
        opts="signed-by=/usr/share/keyrings/debian-archive-keyring.gpg"
        case $s in sid|experimental) opts="$opts check-valid-until=no" ;; esac
        echo "deb-src [$opts] http://deb.debian.org/debian $s main"
    done)
    if [ "$(cat "$APT_SRC_BASE/sources.list" 2>/dev/null)" != "$want" ]; then
        echo "$want" >"$APT_SRC_BASE/sources.list.$$" && mv "$APT_SRC_BASE/sources.list.$$" "$APT_SRC_BASE/sources.list"
    fi
}

# Fetches the source lists again when they are older than a day (a new
# upload replaces the old version) or older than the sources.list (a suite
# added). One update at a time (a flock in the cache): concurrent runs share
# the lists.
apt_src_update() {
    apt_src_setup
    local stamp="$APT_SRC_BASE/lists/.updated"
    (
        flock -w 900 8 || { note "timed out waiting for $APT_SRC_BASE/update.lock" >&2; exit 1; }
        if [ -z "$(find "$stamp" -mtime -1 -newer "$APT_SRC_BASE/sources.list" 2>/dev/null)" ]; then
            apt-get "${APT_SRC_OPTS[@]}" update >>"$DISTLOCK_LOG_DIR/apt-source.log" 2>&1 \
                || { excerpt "$DISTLOCK_LOG_DIR/apt-source.log" --tail >&2; exit 1; }
            touch "$stamp"
        fi
    ) 8>"$APT_SRC_BASE/update.lock"
}

# apt_source_version PACKAGE PREFIX: prints the highest version of source
# PACKAGE in the lists whose upstream part (after any epoch) starts with
# PREFIX, e.g. "apt_source_version redis 8.0." -> "5:8.0.6-3"; fails if none.
apt_source_version() {
    local pkg=$1 prefix=$2 v best=
    apt_src_update || return 1
    while read -r v; do
        [[ "${v#*:}" == "$prefix"* ]] || continue
        if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
    done < <(apt-cache "${APT_SRC_OPTS[@]}" showsrc "$pkg" 2>/dev/null | sed -nE 's/^Version: //p')
    [ -n "$best" ] || { note "no source package $pkg $prefix* in the lists" >&2; return 1; }
    echo "$best"
}

# apt_deb PACKAGE PREFIX: the files of a Debian binary package of trixie, sid
# or experimental, the highest version whose upstream part starts with PREFIX
# (e.g. "8.1."), taken through a private deb list ($DISTLOCK_CACHE_DIR/apt-bin,
# like the deb-src one above: the system's apt configuration is not touched;
# the lists fetched again when a day old), unpacked (dpkg-deb -x, nothing
# installed) into $DISTLOCK_CACHE_DIR/deb/PACKAGE-VERSION once; prints that
# directory (when the mirror cannot be read or has no such version any more,
# the newest copy unpacked before). For the few PHP libraries the Packagist
# copy here does not serve.
apt_deb() {
    local pkg=$1 prefix=$2 base="$DISTLOCK_CACHE_DIR/apt-bin" opts ver want
    mkdir -p "$base/lists/partial" "$base/dl" "$DISTLOCK_CACHE_DIR/deb"
    opts=(-o "Dir::Etc::SourceList=$base/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$base/lists" -o "Dir::Cache=$base/cache" -o APT::Sandbox::User=root)
    (
        flock -w 900 8 || exit 1
        # The newest copy unpacked before: what is used when the mirror cannot
        # be read, or no longer has that version.
        cached() {
            local d
            d=$(ls -d "$DISTLOCK_CACHE_DIR/deb/$pkg-$prefix"* 2>/dev/null | sort -V | tail -n 1)
            [ -n "$d" ] && [ -f "$d/.unpacked" ] && echo "$d" && echo "$pkg: the mirror failed; $d is used" >>"$DISTLOCK_LOG_DIR/apt-deb.log"
        }
        want=$(printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg check-valid-until=no] http://deb.debian.org/debian %s main\n' \
            trixie sid experimental)
        [ "$(cat "$base/sources.list" 2>/dev/null)" = "$want" ] || echo "$want" >"$base/sources.list"
        if [ -z "$(find "$base/lists/.updated" -mtime -1 -newer "$base/sources.list" 2>/dev/null)" ]; then
            if apt-get "${opts[@]}" update >>"$DISTLOCK_LOG_DIR/apt-deb.log" 2>&1; then touch "$base/lists/.updated"; fi
        fi
        ver=$(apt-cache "${opts[@]}" madison "$pkg" 2>/dev/null | awk -F' *[|] *' -v p="$prefix" \
              '{ v = $2; sub(/^[0-9]+:/, "", v) } index(v, p) == 1 { print $2 }' | sort -V | tail -n 1)
        if [ -z "$ver" ]; then
            echo "no $pkg $prefix* in the lists of trixie, sid and experimental" >>"$DISTLOCK_LOG_DIR/apt-deb.log"
            cached; exit
        fi
        dest="$DISTLOCK_CACHE_DIR/deb/$pkg-${ver#*:}"
        if [ ! -f "$dest/.unpacked" ]; then
            if ! (cd "$base/dl" && apt-get "${opts[@]}" download "$pkg=$ver") >>"$DISTLOCK_LOG_DIR/apt-deb.log" 2>&1; then
                cached; exit
            fi
            rm -rf "$dest.tmp" && mkdir -p "$dest.tmp" && dpkg-deb -x "$(ls "$base/dl/${pkg}_${ver#*:}_"*.deb | head -n 1)" "$dest.tmp" &&
            rm -rf "$dest" && mv "$dest.tmp" "$dest" && touch "$dest/.unpacked" || exit 1
        fi
        echo "$dest"
    ) 8>"$base/lock" || { excerpt "$DISTLOCK_LOG_DIR/apt-deb.log" --tail >&2; return 1; }
}

# debian_parts DIR PART...: PHP libraries a Composer project needs that the
# Packagist copy here does not serve, from Debian's binary packages (apt_deb):
# each PART is "composer-name debian-package version-prefix PSR-4-namespace
# path-under-/usr/share/php [file-to-autoload]". The files are copied into
# DIR/debian/<path>; sets DEBIAN_REPLACE, DEBIAN_PSR4 and DEBIAN_FILES, the JSON
# of composer.json's "replace" (so Composer counts them as there) and
# "autoload" entries (paths relative to DIR), and DEBIAN_VERSIONS ("name
# version (Debian's package), ..."). Fails when one is not found.
debian_parts() {
    local dir=$1 part name pkg prefix ns path file src ver rc=0
    shift
    DEBIAN_REPLACE={} DEBIAN_PSR4={} DEBIAN_FILES=[] DEBIAN_VERSIONS=
    for part in "$@"; do
        read -r name pkg prefix ns path file <<<"$part"
        if ! src=$(apt_deb "$pkg" "$prefix"); then
            suite_fail "apt_deb $pkg $prefix*: not found (log: $DISTLOCK_LOG_DIR/apt-deb.log)"; rc=1; continue
        fi
        if [ ! -d "$src/usr/share/php/$path" ]; then
            suite_fail "$pkg (${src##*/}) has no /usr/share/php/$path"; rc=1; continue
        fi
        mkdir -p "$dir/debian/$path" && cp -r "$src/usr/share/php/$path/." "$dir/debian/$path/" || { rc=1; continue; }
        ver=${src##*/}; ver=${ver#"$pkg"-}; ver=${ver%%[+-]*}
        DEBIAN_REPLACE=$("$PHP" -r '$r = json_decode($argv[1], true) ?: []; $r[$argv[2]] = $argv[3]; echo json_encode($r);' "$DEBIAN_REPLACE" "$name" "$ver")
        DEBIAN_PSR4=$("$PHP" -r '$r = json_decode($argv[1], true) ?: []; $r[$argv[2]] = $argv[3]; echo json_encode($r, JSON_UNESCAPED_SLASHES);' "$DEBIAN_PSR4" "$ns" "debian/$path/")
        [ -z "${file:-}" ] || DEBIAN_FILES=$("$PHP" -r '$r = json_decode($argv[1], true); $r[] = $argv[2]; echo json_encode($r, JSON_UNESCAPED_SLASHES);' "$DEBIAN_FILES" "debian/$path/$file")
        note "$name $ver: Debian's ${src##*/}"
        DEBIAN_VERSIONS="${DEBIAN_VERSIONS:+$DEBIAN_VERSIONS, }$name $ver (Debian's $pkg)"
    done
    return $rc
}

# apt_source PACKAGE VERSION: downloads and unpacks a Debian source package
# (its upstream tarball; the Debian tarball stays beside it in
# $APT_SRC_BASE/dl) through the private deb-src list into
# $DISTLOCK_CACHE_DIR/src/PACKAGE-VERSION, once; prints that directory.
# VERSION may carry an epoch ("5:8.0.6-3"); file names do not.
apt_source() {
    local pkg=$1 ver=${2#*:} dest
    dest="$DISTLOCK_CACHE_DIR/src/$pkg-$ver"
    if [ -f "$dest/.unpacked" ]; then echo "$dest"; return 0; fi
    apt_src_setup
    local base=$APT_SRC_BASE
    if ! ls "$base/dl/${pkg}_${ver%%-*}"*.orig.tar.* >/dev/null 2>&1 || ! ls "$base/dl/${pkg}_${ver}.dsc" >/dev/null 2>&1; then
        apt_src_update || return 1
        (cd "$base/dl" && apt-get "${APT_SRC_OPTS[@]}" source --download-only "$pkg=$2") >>"$DISTLOCK_LOG_DIR/apt-source.log" 2>&1 \
            || { excerpt "$DISTLOCK_LOG_DIR/apt-source.log" --tail >&2; return 1; }
    fi
    rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
    tar -xf "$(ls "$base/dl/${pkg}_${ver%%-*}"*.orig.tar.* | head -n1)" -C "$dest.tmp" --strip-components=1 \
        || { rm -rf "$dest.tmp"; return 1; }
    rm -rf "$dest" && mv "$dest.tmp" "$dest" && touch "$dest/.unpacked"
    echo "$dest"
}

# Composer with its cache and home outside the clone (kept across runs).
composer_env() {
    export COMPOSER_ALLOW_SUPERUSER=1 COMPOSER_NO_INTERACTION=1 COMPOSER_NO_AUDIT=1
    export COMPOSER_HOME="$DISTLOCK_CACHE_DIR/composer-home" COMPOSER_CACHE_DIR="$DISTLOCK_CACHE_DIR/composer-cache"
    mkdir -p "$COMPOSER_HOME" "$COMPOSER_CACHE_DIR"
}

free_port() {
    "$PHP" -n -r '$s = stream_socket_server("tcp://127.0.0.1:0", $e, $m);
        if (!$s) { fwrite(STDERR, "$m\n"); exit(1); }
        $n = stream_socket_get_name($s, false); echo substr($n, strrpos($n, ":") + 1);'
}

# start_redis NAME PASSWORD [redis-server args...]: starts a throw-away server
# on a free loopback port (no persistence), waits for PONG; sets STARTED_PORT
# and STARTED_PID. PASSWORD may be empty. Stopped by stop_redis_all.
start_redis() {
    local name=$1 pass=$2 port pid try i auth=() dir="$DISTLOCK_LOG_DIR/redis-$1"
    shift 2
    [ -n "$pass" ] && auth=(-a "$pass" --no-auth-warning)
    mkdir -p "$dir"
    for try in 1 2 3 4 5; do
        port=$(free_port) || return 1
        "${REDIS_SERVER:-redis-server}" --port "$port" --bind 127.0.0.1 -::1 --save '' --appendonly no \
            --daemonize no --enable-debug-command local --dir "$dir" \
            --logfile "$DISTLOCK_LOG_DIR/redis-$name.log" "$@" </dev/null >/dev/null 2>&1 3>&- 4>&- &
        pid=$!
        SUITE_REDIS_PIDS+=("$pid")
        for i in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            if [ "$("${REDIS_CLI:-redis-cli}" -p "$port" "${auth[@]+"${auth[@]}"}" ping 2>/dev/null)" = PONG ]; then
                STARTED_PORT=$port STARTED_PID=$pid
                note "$name: pid $pid, 127.0.0.1:$port $*"
                return 0
            fi
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        note "$name: redis-server on port $port did not come up (try $try)"
    done
    excerpt "$DISTLOCK_LOG_DIR/redis-$name.log" --tail
    return 1
}

stop_redis_all() {
    local pid i
    for pid in "${SUITE_REDIS_PIDS[@]+"${SUITE_REDIS_PIDS[@]}"}"; do
        kill -CONT "$pid" 2>/dev/null || true
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${SUITE_REDIS_PIDS[@]+"${SUITE_REDIS_PIDS[@]}"}"; do
        for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    SUITE_REDIS_PIDS=()
}

# run_phpunit NAME PHPUNIT_CMD...: one PHPUnit run with the extension loaded,
# counted from its JUnit log (junit_count), the log excerpted when anything
# failed. Variables the tests read go before the call: VAR=value run_phpunit ...
run_phpunit() {
    local name=$1 junit="$DISTLOCK_LOG_DIR/$1.xml" log="$DISTLOCK_LOG_DIR/$1.log" rc=0
    shift
    rm -f "$junit"
    timeout 600 "$PHP" -d "extension=$DISTLOCK_SO" "$@" --do-not-cache-result --log-junit "$junit" >"$log" 2>&1 || rc=$?
    junit_count "$name" "$junit" || { excerpt "$log" --tail; return 1; }
    if [ "$rc" -ne 0 ]; then
        suite_fail "$name: phpunit exited with $rc"
        excerpt "$log" --tail
        return 1
    fi
}

# junit_count NAME FILE: adds the totals of a PHPUnit JUnit XML log (skipped
# and incomplete tests count as failed) and lists what did not pass.
junit_count() {
    local name=$1 file=$2 out err="$DISTLOCK_LOG_DIR/$1.junit-count.err"
    if [ ! -s "$file" ]; then suite_fail "$name: no JUnit log ($file)"; return 1; fi
    # Not "php -n": SimpleXML is a shared extension on Debian, loaded by the
    # suite's scan dir. Its stderr goes aside: a "PHP Warning" line is not a count.
    out=$("$PHP" -r '
        $x = @simplexml_load_file($argv[1]); if (!$x) { echo "0 1 0\nunreadable JUnit log\n"; exit; }
        $p = $f = $s = 0; $bad = [];
        foreach ($x->xpath("//testcase") as $t) {
            $id = $t["class"] . "::" . $t["name"];
            if (isset($t->failure) || isset($t->error)) { $f++; $bad[] = "$id (failed)"; }
            elseif (isset($t->skipped)) { $s++; $bad[] = "$id (skipped)"; }
            else { $p++; }
        }
        echo "$p $f $s\n", implode("\n", $bad), "\n";' "$file" 2>"$err")
    local p f s
    if [ -s "$err" ]; then excerpt "$err"; fi
    if ! read -r p f s < <(grep -E '^[0-9]+ [0-9]+ [0-9]+$' <<<"$out" | head -n1) || [ -z "$s" ]; then
        suite_fail "$name: could not count the JUnit log $file"
        return 1
    fi
    grep -vE '^([0-9]+ [0-9]+ [0-9]+)?$' <<<"$out" | sed 's/^/  not passed: /'
    note "$name: $p passed, $f failed, $s skipped"
    suite_count "$p" "$((f + s))"
    [ $((f + s)) -eq 0 ] && [ "$p" -gt 0 ]
}

# php_isystem PHP_CONFIG: PHP's include directories as -isystem flags, for
# CFLAGS: a warning from PHP's own headers (PHP 8.5's zend_operators.h gives
# -Wunused-parameter under -Wextra) is then not ours, while -Werror still
# holds for every line of the extension. gcc searches a directory given by
# both -I (phpize's INCLUDES) and -isystem as a system one.
php_isystem() {
    "$1" --includes | tr ' ' '\n' | sed -n 's/^-I/-isystem /p' | tr '\n' ' '
}

# build_ext DIR LOG LABEL [configure options...]: phpize, ./configure (CFLAGS
# from DISTLOCK_TEST_CFLAGS) and make of the extension's sources, copied to a
# scratch DIR (the checkout is not touched); logs LOG-phpize.log,
# LOG-configure.log, LOG-make.log. Returns 0 for DIR/modules/distlock.so built
# with no compiler warning (the caller counts the pass in its own words);
# otherwise counts a failure naming the step and returns 1.
build_ext() {
    local dir=$1 log=$2 label=$3 nwarn
    shift 3
    rm -rf "$dir" && mkdir -p "$dir"
    tar -cf - --exclude='*.lo' --exclude='*.o' --exclude='*.dep' --exclude='.libs' \
        config.m4 config.w32 php_distlock.h src stubs | tar -xf - -C "$dir"
    if ! (cd "$dir" && phpize) >"$log-phpize.log" 2>&1; then
        excerpt "$log-phpize.log" --tail; suite_fail "$label: phpize"
    elif ! (cd "$dir" && CFLAGS="${DISTLOCK_TEST_CFLAGS:--g -O2 -Wall -Wextra}" ./configure "$@") >"$log-configure.log" 2>&1; then
        excerpt "$log-configure.log" --tail; suite_fail "$label: configure $*"
    elif ! make -C "$dir" -j2 >"$log-make.log" 2>&1 || [ ! -f "$dir/modules/distlock.so" ]; then
        grep -E 'error|warning:' "$log-make.log" | head -n 100 | sed 's/^/  | /' || true
        suite_fail "$label: make (log: $log-make.log)"
    else
        nwarn=$(grep -c 'warning:' "$log-make.log" || true)
        [ "$nwarn" -eq 0 ] && return 0
        grep -E -B2 -A3 'warning:' "$log-make.log" | head -n 150 | sed 's/^/  | /'
        suite_fail "$label: $nwarn compiler warning(s) (log: $log-make.log)"
    fi
    return 1
}

# installed_version DIR PACKAGE: the version Composer installed in DIR/vendor
# (from vendor/composer/installed.json: no Composer needed, e.g. in a root).
installed_version() {
    "$PHP" -r 'foreach (json_decode(file_get_contents($argv[1]), true)["packages"] ?? [] as $p)
        if ($p["name"] === $argv[2]) echo ltrim($p["version"], "v");' "$1/vendor/composer/installed.json" "$2" 2>/dev/null
}

# load_classes NAME AUTOLOAD SRC_DIR NAMESPACE: every class of a package's src/
# loads through AUTOLOAD on $PHP (tests/lib/load-classes.php); one test.
# Returns non-zero when one does not.
load_classes() {
    local name=$1 log="$DISTLOCK_LOG_DIR/$1.classes.log" last
    if "$PHP" -d "extension=$DISTLOCK_SO" tests/lib/load-classes.php "$2" "$3" "$4" >"$log" 2>&1; then
        suite_pass "$name: every class of $4 loads ($(tail -n 1 "$log"))"
    else
        last=$(grep '^loading ' "$log" | tail -n 1)
        suite_fail "$name: a class of $4 does not load (${last#loading }): $(grep -vE '^loading ' "$log" | head -n 3 | tr '\n' ' ')"
        return 1
    fi
}
