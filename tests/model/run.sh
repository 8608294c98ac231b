#!/usr/bin/env bash
# tests/model/run.sh — the suite `model`: the lease protocols model-checked with
# Spin (tests/model/README.md).
#
# First the ties (tie.sh --check): a Lua script or a command order a model
# abstracts that moved fails the suite until the model is reviewed and its
# digest updated by hand. Then every check of every model, two at a time:
# tests/model/<model>.checks, one check a line ("#" comments, blank lines
# ignored):
#   <check-name> <expect> <mode> [-DNAME[=VALUE] ...] [pan:-DFLAG ...] [run:-OPT ...]
#   expect  pass         pan reports 0 errors and the search is complete
#           fail         pan reports errors >= 1 (the property's violation);
#           fail:TEXT    ... and its report names TEXT (e.g. the assertion's
#                        own text, "acceptance", "invalid end state");
#                        the trail is replayed (spin -t -p) into the log
#   mode    safety       assertions and invalid end states (pan compiled -DSAFETY)
#           noend        assertions only (-DSAFETY, pan -E)
#           ltl:NAME     the model's ltl formula NAME: acceptance cycles under
#                        weak fairness (pan -a -f -N NAME)
#   -D...   given to spin -a (the model's bounds and variants);
#   pan:-D  given to the C compiler of pan (e.g. pan:-DCOLLAPSE);
#   run:-X  given to pan (e.g. run:-m2000000).
# Never bitstate or hash compaction (refused here): a pass is exhaustive.
# Each check's line gives its model, check, bounds (the macros the model
# lists on its "/* bounds: NAME ... */" line, as the check sets them or as the
# model defines them), states stored, depth, time and result. The work
# directory of each check (pan's output, the trail and its replay) is kept
# in $DISTLOCK_LOG_DIR/<model>/<check>/.
#
# Environment: DISTLOCK_MODEL_ONLY="mutex fair/exclusion" runs only those
# models or model/check pairs; DISTLOCK_MODEL_JOBS (default 2);
# DISTLOCK_MODEL_MEMLIM_MB (default 2048, pan's -DMEMLIM, per check);
# DISTLOCK_MODEL_DEPTH (default 1000000, pan's -m). Compiled verifiers are
# kept in $DISTLOCK_CACHE_DIR/model-pan, keyed by a digest of spin's output,
# the compiler flags and gcc's version (a changed model or variant compiles
# anew; the check itself always runs).
set -uo pipefail
source tests/lib/common.sh
MODEL_DIR=tests/model
JOBS=${DISTLOCK_MODEL_JOBS:-2}
MEMLIM=${DISTLOCK_MODEL_MEMLIM_MB:-2048}
DEPTH=${DISTLOCK_MODEL_DEPTH:-1000000}
SUITE_START=$(date +%s.%N)
PAN_CACHE="$DISTLOCK_CACHE_DIR/model-pan"   # compiled verifiers, by a digest of their sources and flags
mkdir -p "$PAN_CACHE" 2>/dev/null || PAN_CACHE="$DISTLOCK_LOG_DIR/pan-cache"
mkdir -p "$PAN_CACHE"

section "Spin"
if ! ensure_packages spin gcc; then suite_fail "model: apt-get install spin gcc"; suite_end; fi
note "$(spin -V 2>&1 | head -n1); $(gcc --version | head -n1)"

section "Ties to the code (tests/model/*.ties, tie.sh --check)"
ties_out=$(bash "$MODEL_DIR/tie.sh" --check 2>&1)
for m in $(sed -nE 's/^(ok|moved) ([^:]+):.*/\2/p' <<<"$ties_out" | sort -u); do
    moved=$(grep -E "^moved $m:" <<<"$ties_out" || true)
    if [ -n "$moved" ]; then
        while IFS= read -r line; do suite_fail "ties: ${line#moved }"; done <<<"$moved"
    else
        suite_pass "ties: $m: $(grep -cE "^ok $m:" <<<"$ties_out") texts as reviewed"
    fi
done
for pml in "$MODEL_DIR"/*.pml; do
    m=$(basename "$pml" .pml)
    [ -f "$MODEL_DIR/$m.ties" ] || suite_fail "ties: $m: no tests/model/$m.ties (a model is tied to the code it abstracts)"
done

# selected MODEL CHECK: whether DISTLOCK_MODEL_ONLY asks for it.
selected() {
    [ -z "${DISTLOCK_MODEL_ONLY:-}" ] && return 0
    [[ " $DISTLOCK_MODEL_ONLY " == *" $1 "* || " $DISTLOCK_MODEL_ONLY " == *" $1/$2 "* ]]
}

# bounds MODEL SPIN_DEFS...: "NAME=value ..." for the macros on the model's
# "/* bounds: ... */" line: the check's -D, else the model's #define.
bounds() {
    local pml="$MODEL_DIR/$1.pml" name val out="" d
    shift
    for name in $(sed -nE 's@.*/\* bounds: (.*) \*/.*@\1@p' "$pml" | head -n1); do
        val=""
        for d in "$@"; do case "$d" in -D"$name"=*) val=${d#-D"$name"=} ;; -D"$name") val=1 ;; esac; done
        [ -n "$val" ] || val=$(sed -nE "s/^[[:space:]]*#define[[:space:]]+$name[[:space:]]+([^[:space:]]+).*/\1/p" "$pml" | head -n1)
        out+="${out:+ }$name=${val:-?}"
    done
    echo "${out:-bounds not stated}"
}

# run_check MODEL CHECK EXPECT MODE ARGS...: runs one check in its own work
# directory; writes the verdict line ("PASS: ..." or "FAIL: ...") to DIR/verdict.
run_check() {
    local model=$1 check=$2 expect=$3 mode=$4 dir="$DISTLOCK_LOG_DIR/$1/$2"
    shift 4
    local spin_defs=() cc_defs=() run_opts=() a t0 t1 secs out errors states depth why="" b ltl=""
    for a in "$@"; do
        case "$a" in
            -D*) spin_defs+=("$a") ;;
            pan:*) cc_defs+=("${a#pan:}") ;;
            run:*) run_opts+=("${a#run:}") ;;
            *) echo "FAIL: $model/$check: bad word '$a' in $model.checks" >"$dir/verdict"; return ;;
        esac
    done
    b=$(bounds "$model" "${spin_defs[@]}")
    local label="$model/$check [$b${spin_defs[*]:+; ${spin_defs[*]}}]"
    case " ${cc_defs[*]} ${run_opts[*]} " in
        *BITSTATE*|*-DHC*|*" -DMA="*) echo "FAIL: $label: bitstate/hash compaction refused: a pass must be exhaustive" >"$dir/verdict"; return ;;
    esac
    local cc=(gcc -O2 -w "-DMEMLIM=$MEMLIM") pan=("-m$DEPTH")
    case "$mode" in
        safety) cc+=(-DSAFETY -DNOCLAIM) ;;
        noend)  cc+=(-DSAFETY -DNOCLAIM); pan+=(-E) ;;
        ltl:*)  ltl=${mode#ltl:}; cc+=(-DNFAIR=3); pan+=(-a -f -N "$ltl") ;;
        *) echo "FAIL: $label: unknown mode '$mode'" >"$dir/verdict"; return ;;
    esac
    case "$expect" in
        pass|fail|fail:*) ;;
        *) echo "FAIL: $label: unknown expectation '$expect'" >"$dir/verdict"; return ;;
    esac
    cc+=("${cc_defs[@]}"); pan+=("${run_opts[@]}")
    rm -rf "$dir" && mkdir -p "$dir" && cp "$MODEL_DIR/$model.pml" "$dir/"
    t0=$(date +%s.%N)
    # One pan per model text, -D set and compiler flags, shared by the checks
    # that need the same (e.g. the ltl checks of one variant: -N picks one).
    local key bin
    key=$( { cat "$MODEL_DIR/$model.pml"; echo "${spin_defs[*]} | ${cc[*]}"; } | sha256sum | cut -c1-16)
    bin="$DISTLOCK_LOG_DIR/pan/$model-$key"
    mkdir -p "$bin"
    (
        flock 9
        [ -x "$bin/pan" ] && exit 0
        cp "$MODEL_DIR/$model.pml" "$bin/"
        if ! (cd "$bin" && spin -a "${spin_defs[@]}" "$model.pml") >"$bin/spin.log" 2>&1; then
            echo "spin -a failed: $(tail -n 3 "$bin/spin.log" | tr '\n' ' ')" >"$bin/error"; exit 1
        fi
        # A pan compiled from the same generated sources with the same flags and
        # compiler is taken from the cache (compiling is most of a small check).
        ckey=$( { cat "$bin"/pan.[bchmpt]; echo "${cc[*]}"; gcc -dumpfullversion; } | sha256sum | cut -c1-24)
        if [ -x "$PAN_CACHE/$ckey" ]; then
            cp "$PAN_CACHE/$ckey" "$bin/pan" && echo "pan from the cache ($PAN_CACHE/$ckey)" >"$bin/cc.log"
        elif ! (cd "$bin" && "${cc[@]}" -o pan pan.c) >"$bin/cc.log" 2>&1; then
            echo "compiling pan failed: $(tail -n 3 "$bin/cc.log" | tr '\n' ' ')" >"$bin/error"; exit 1
        else
            cp "$bin/pan" "$PAN_CACHE/.$ckey.$$" 2>/dev/null && mv -f "$PAN_CACHE/.$ckey.$$" "$PAN_CACHE/$ckey" 2>/dev/null
        fi
        rm -f "$bin/error"
    ) 9>"$bin.lock"
    if [ ! -x "$bin/pan" ]; then
        echo "FAIL: $label: $(cat "$bin/error" 2>/dev/null || echo 'no pan')" >"$dir/verdict"; return
    fi
    echo "spin -a ${spin_defs[*]} $model.pml; ${cc[*]} -o pan pan.c; ./pan ${pan[*]}" >"$dir/command"
    (cd "$dir" && "$bin/pan" "${pan[@]}") >"$dir/pan.out" 2>&1
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    out="$dir/pan.out"
    errors=$(sed -nE 's/.*errors: ([0-9]+).*/\1/p' "$out" | tail -n1)
    states=$(sed -nE 's/^[[:space:]]*([0-9.e+]+) states, stored.*/\1/p' "$out" | tail -n1)
    depth=$(sed -nE 's/.*depth reached ([0-9]+).*/\1/p' "$out" | tail -n1)
    local stats="${states:-?} states stored, depth ${depth:-?}, ${secs} s"
    echo "$label: $stats" >"$dir/summary"
    if [ -z "$errors" ]; then
        echo "FAIL: $label: pan gave no result ($(tail -n 2 "$out" | tr '\n' ' '))" >"$dir/verdict"; return
    fi
    # An incomplete search proves nothing: too shallow, out of memory, stopped.
    why=$(grep -m1 -E 'max search depth too small|[Ss]earch not completed|reached -DMEMLIM bound|out of memory' "$out" || true)
    case "$expect" in
        pass)
            if [ "$errors" != 0 ]; then
                (cd "$dir" && spin -t -p -k "$model.pml.trail" "${spin_defs[@]}" "$model.pml") >"$dir/trail.txt" 2>&1
                echo "FAIL: $label: $(grep -m1 -E '^pan:[0-9]+:|pan: ' "$out") ($stats; trail $dir/trail.txt)" >"$dir/verdict"
            elif [ -n "$why" ]; then
                echo "FAIL: $label: search incomplete: $why ($stats)" >"$dir/verdict"
            else
                echo "PASS: $label: holds, search complete ($stats)" >"$dir/verdict"
            fi ;;
        fail*)
            if [ "$errors" = 0 ]; then
                echo "FAIL: $label: the broken variant was not caught: 0 errors${why:+ (and: $why)} ($stats)" >"$dir/verdict"; return
            fi
            local found want=${expect#fail} ; want=${want#:}
            found=$(grep -m1 -E '^pan:[0-9]+:|^pan: (acceptance|invalid|assertion)' "$out" | sed -E 's/^pan:[0-9]+: *//')
            (cd "$dir" && spin -t -p -k "$model.pml.trail" "${spin_defs[@]}" "$model.pml") >"$dir/trail.txt" 2>&1
            if [ ! -s "$dir/trail.txt" ]; then
                echo "FAIL: $label: violation found but its trail did not replay ($stats)" >"$dir/verdict"; return
            fi
            if [ -n "$want" ] && ! grep -m1 -E '^pan:[0-9]+:|^pan: (acceptance|invalid|assertion)' "$out" | grep -qF -- "$want"; then
                echo "FAIL: $label: expected a violation naming '$want', pan found: $found ($stats)" >"$dir/verdict"; return
            fi
            echo "PASS: $label: broken variant caught: $found ($stats; trail $dir/trail.txt, $(grep -c . "$dir/trail.txt") lines)" >"$dir/verdict" ;;
    esac
}

section "Checks (tests/model/*.checks: $JOBS at a time, pan -m$DEPTH, -DMEMLIM=$MEMLIM)"
order=()
for checks in "$MODEL_DIR"/*.checks; do
    [ -e "$checks" ] || continue
    model=$(basename "$checks" .checks)
    if [ ! -f "$MODEL_DIR/$model.pml" ]; then suite_fail "$model: $checks without $model.pml"; continue; fi
    while read -r name expect mode rest; do
        selected "$model" "$name" || continue
        if [ -z "$mode" ]; then suite_fail "$model: malformed line in $model.checks: $name $expect"; continue; fi
        mkdir -p "$DISTLOCK_LOG_DIR/$model/$name"
        # shellcheck disable=SC2086
        run_check "$model" "$name" "$expect" "$mode" $rest &
        order+=("$model/$name")
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    done < <(sed -E 's/#.*$//; /^[[:space:]]*$/d' "$checks")
done
wait
for c in "${order[@]}"; do
    v=$(cat "$DISTLOCK_LOG_DIR/$c/verdict" 2>/dev/null || echo "FAIL: $c: no verdict (the check died)")
    case "$v" in
        PASS:*) suite_pass "${v#PASS: }" ;;
        *) suite_fail "${v#FAIL: }" ;;
    esac
done
note "model suite: $(awk -v a="$SUITE_START" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s for ${#order[@]} checks"
suite_end
