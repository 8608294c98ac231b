#!/bin/sh
# tests/unit/platform-probe.sh CC [NAME...] — prints the config.h that the C
# unit tests compile src/core/base/dl_platform.c with: the same HAVE_* checks
# as config.m4 (a header that compiles, a function that links, autoconf's way),
# so the unit tests take the paths the extension takes on this system. Each
# NAME given (getrandom, ppoll, ...) is reported absent without a check: how
# tests/fallbacks forces the portable paths, as --enable-distlock-fallbacks does.
cc=$1
shift
hidden=" $* "
dir=$(mktemp -d "${TMPDIR:-/tmp}/dl-probe.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
echo "/* made by tests/unit/platform-probe.sh${hidden% } */"
printf '#include <sys/random.h>\nint main(void) { return 0; }\n' >"$dir/h.c"
$cc -c "$dir/h.c" -o "$dir/h.o" 2>/dev/null && echo "#define HAVE_SYS_RANDOM_H 1"
for f in getrandom getentropy arc4random_buf ppoll pthread_condattr_setclock; do
    case "$hidden" in *" $f "*) echo "/* $f: hidden */"; continue ;; esac
    printf 'char %s(void);\nint main(void) { return %s(); }\n' "$f" "$f" >"$dir/f.c"
    if $cc "$dir/f.c" -o "$dir/f" -pthread 2>/dev/null; then
        echo "#define HAVE_$(echo "$f" | tr '[:lower:]' '[:upper:]') 1"
    fi
done
