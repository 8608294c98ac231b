#!/usr/bin/env bash
# tests/model/tie.sh — ties each model to the code it abstracts.
#
# A model tests/model/<model>.pml stands for some Lua scripts and some C
# functions (the order of commands they send). tests/model/<model>.ties lists
# them, one a line, each with a digest recorded BY HAND after the model was
# reviewed against that text:
#   <digest> script <MACRO>                  the text of `#define MACRO` in
#                                            src/core/lease/dl_scripts.h, from the
#                                            #define to the macro's last line
#   <digest> function <file> <name>          a C function, from its definition
#                                            line to the `}` at column 0
#   <digest> lines <file> <start-ERE> <end-ERE>  the first line matching start
#                                            to the next one matching end (EREs
#                                            without spaces: use [[:space:]])
# (# comments and blank lines ignored). The digest is the first 16 hex digits
# of the sha256 of the text with its whitespace folded (runs of blanks and
# newlines become one space; leading and trailing ones dropped), so reflowing
# a comment or re-indenting does not move it, and any change to a token does.
# A macro's text is its own: a script built from other macros (DL_LUA_FENCE,
# DL_LUA_MUTEX_ONLY) is tied to those by lines of their own.
#
#   tie.sh --check [MODEL...]   compare (default: every model); prints one line
#                               per tie: "ok ..." or "moved ..."; exit 1 when
#                               any moved or is missing
#   tie.sh --print MODEL...     prints the model's .ties lines with the digests of
#                               today's code, for a reviewer to copy by hand after
#                               reviewing the model (nothing is written)
#   tie.sh --digest KIND ARGS   the digest of one text (to add a new tie)
#
# Run from anywhere; paths are relative to the repository root.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MODEL_DIR="$ROOT/tests/model"
SCRIPTS_H="src/core/lease/dl_scripts.h"

fold() { tr -s ' \t\r\n' '    ' | sed -E 's/^ +//; s/ +$//'; }
digest() { fold | sha256sum | cut -c1-16; }

# text KIND ARGS...: prints the raw text a tie stands for; exit 1 when not found.
text() {
    local kind=$1; shift
    case "$kind" in
        script)
            [ $# -eq 1 ] || return 2
            awk -v m="$1" '
                !on && ($1 == "#define" && $2 == m) { on = 1 }
                on { print; if ($0 !~ /\\[ \t]*$/) { found = 1; exit } }
                END { exit found ? 0 : 1 }' "$ROOT/$SCRIPTS_H" ;;
        function)
            [ $# -eq 2 ] || return 2
            [ -f "$ROOT/$1" ] || return 1
            # A definition: a line at column 0 naming NAME( whose first line ending
            # in ";" or holding "{" holds "{" (a prototype ends in ";" first).
            awk -v n="$2" '
                function isdef(line) { return line ~ ("^[A-Za-z_].*[ *]" n "\\(") || line ~ ("^" n "\\(") }
                { L[NR] = $0 }
                END {
                    for (i = 1; i <= NR; i++) {
                        if (!isdef(L[i])) continue
                        for (j = i; j <= NR; j++) {
                            if (L[j] ~ /\{/) { kind = "def"; break }
                            if (L[j] ~ /;[ \t]*$/) { kind = "proto"; break }
                        }
                        if (kind != "def") { kind = ""; continue }
                        for (k = i; k <= NR; k++) { print L[k]; if (L[k] ~ /^\}/) exit 0 }
                        exit 1
                    }
                    exit 1
                }' "$ROOT/$1" ;;
        lines)
            [ $# -eq 3 ] || return 2
            [ -f "$ROOT/$1" ] || return 1
            awk -v s="$2" -v e="$3" '
                !on && $0 ~ s { on = 1; print; next }
                on { print; if ($0 ~ e) { found = 1; exit } }
                END { exit found ? 0 : 1 }' "$ROOT/$1" ;;
        *) return 2 ;;
    esac
}

# ties MODEL: prints "digest kind args..." lines of MODEL's .ties.
ties() { sed -E 's/#.*$//; /^[[:space:]]*$/d' "$MODEL_DIR/$1.ties"; }

models() { local f; for f in "$MODEL_DIR"/*.ties; do [ -e "$f" ] && basename "$f" .ties; done; }

check_model() {
    local model=$1 bad=0 rec kind args now
    if [ ! -f "$MODEL_DIR/$model.ties" ]; then
        echo "moved $model: no tests/model/$model.ties (every model is tied to the code it abstracts)"
        return 1
    fi
    while read -r rec kind args; do
        # shellcheck disable=SC2086
        if ! now=$(text "$kind" $args | digest) || ! text "$kind" $args >/dev/null; then
            echo "moved $model: $kind $args: not found in the code (review the model, then update its .ties by hand)"
            bad=1
        elif [ "$now" != "$rec" ]; then
            echo "moved $model: $kind $args: recorded $rec, the code now gives $now (review the model, then update the digest by hand)"
            bad=1
        else
            echo "ok $model: $kind $args ($rec)"
        fi
    done < <(ties "$model")
    return "$bad"
}

case "${1:-}" in
    --check)
        shift; rc=0
        [ $# -gt 0 ] || set -- $(models)
        for m in "$@"; do check_model "$m" || rc=1; done
        exit "$rc" ;;
    --print)
        shift; [ $# -gt 0 ] || { echo "usage: tie.sh --print MODEL..." >&2; exit 2; }
        rc=0
        for m in "$@"; do
            echo "# $m.ties as today's code gives it (copy by hand after reviewing the model)"
            while read -r rec kind args; do
                # shellcheck disable=SC2086
                if text "$kind" $args >/dev/null; then
                    echo "$(text "$kind" $args | digest) $kind $args"
                else
                    echo "# NOT FOUND: $kind $args"; rc=1
                fi
            done < <(ties "$m")
        done
        exit "$rc" ;;
    --digest)
        shift
        text "$@" >/dev/null || { echo "not found: $*" >&2; exit 1; }
        echo "$(text "$@" | digest) $*" ;;
    --text)   # for a reviewer: the text a tie stands for
        shift; text "$@" ;;
    *)
        sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
        exit 2 ;;
esac
