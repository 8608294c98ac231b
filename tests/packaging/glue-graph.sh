#!/usr/bin/env bash
# tests/packaging/glue-graph.sh OBJECT... — the call graph between the glue's
# files (src/php/*.c), derived from the compiled objects: file A -> file B when
# A's object uses (nm: undefined) a function B's object defines (nm: T/W).
# Prints the edges, one "A -> B (n symbols)" a line, and exits 1 when the graph
# has a cycle (tsort names its members on stderr), 2 on bad input.
#
# Why objects and not the sources: the compiler has already resolved macros,
# static inlines of the headers and statics of the same name in two files, so
# an edge is a real link-time dependency. Function pointers a file takes of
# another's function count too (distlock.c's method tables -> client.c's
# ZEND_METHODs); data (class entries, globals) does not.
#
# The glue keeps its arrows one way (client.c <- helpers.c, registry.c <-
# lostwatch.c, ...): a cycle means two files that can no longer be read, tested
# or changed apart.
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: $0 OBJECT..." >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/glue-graph.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for o in "$@"; do
    [ -f "$o" ] || { echo "no such object: $o" >&2; exit 2; }
    f=$(basename "$o" .o)
    nm -g --defined-only "$o" | awk -v f="$f" '$2 ~ /^[TW]$/ { print $3, f }' >>"$tmp/defs" || exit 2
    nm -u "$o" | awk -v f="$f" '{ print $2, f }' >>"$tmp/uses" || exit 2
done
# "user definer" for every use of a function another file defines.
awk 'NR == FNR { def[$1] = $2; next }
     ($1 in def) && def[$1] != $2 { print $2, def[$1] }' "$tmp/defs" "$tmp/uses" | sort >"$tmp/edges"
uniq -c "$tmp/edges" | awk '{ printf "%s -> %s (%d symbol%s)\n", $2, $3, $1, $1 == 1 ? "" : "s" }'
# tsort: a loop in its input is reported on stderr, with a non-zero exit.
sort -u "$tmp/edges" >"$tmp/pairs"
awk '{ print $1, $1 }' "$tmp/defs" >>"$tmp/pairs"   # every file a node, edges or not
if ! tsort "$tmp/pairs" >/dev/null 2>"$tmp/tsort.err"; then
    echo "cycle in the glue's call graph:"
    grep -v 'input contains a loop' "$tmp/tsort.err" | sed 's/^tsort: /  /'
    exit 1
fi
exit 0
