/*
 * fencing.pml — fencing tokens from per-slot counters (DL_LUA_FENCE in every
 * granting script; dl_key_fence_counter), the migration from the earlier
 * per-name counters, and a slot moving between two Cluster nodes (resharding:
 * MIGRATE key by key, then the slot assigned to the target).
 *
 * Bounds: N = 3 clients, one fenced grant each of name X or Y (as each
 * chooses; both names in one hash slot s, so their grants share F(s) and
 * interleave), then a release; name X has a per-name counter FN left by an
 * earlier release with value FNX (2 by default), Y has none. One migration of
 * slot s from node 0 to node 1, at any time.
 *
 * Server: per node, the keys of slot s it holds: K of X and Y (holder or
 * none), F(s) (fval, 0 absent), FN of X and Y. Routing as Redis Cluster
 * does it for a script (getNodeByQuery): stable, the slot's owner runs it;
 * while the slot migrates, the source runs it only when all its keys are
 * there (none there: ASK, then the target runs it under ASKING only when all
 * are there; some: TRYAGAIN), so a grant (K absent: a key missing) waits for
 * the migration's end. A grant is one atomic step (the acquire script with
 * DL_LUA_FENCE); a release is the release script (K only). A crash is a
 * choice at every step; a lost reply changes nothing here (the token was
 * issued all the same: it is recorded when the script runs).
 *
 * Properties: FENCE: the tokens of one name strictly increase across its
 * grants, earlier releases' per-name tokens included (last[] records the
 * highest token issued per name, FNX for X at the start); BOUNDED: the
 * counters are one per slot plus the per-name ones an earlier release left
 * (no per-name counter is ever created, each is deleted by its name's next
 * fenced grant).
 *
 * Broken variants (each one step):
 *   BREAK_GE        DL_LUA_FENCE's `if o >= out` as `o > out`: a token equal
 *                   to the per-name counter's last is issued again.
 *   BREAK_NOFN      DL_LUA_FENCE without the FN read (fn never looked at): the
 *                   first grant after the upgrade is below the old tokens.
 *   FENCE_STAYS     the counter is not in the slot of K (dl_key_fence_counter
 *                   without the slot's tag): the migration leaves it on the
 *                   source, and the target counts from 1 again.
 *   BREAK_PERNAME   the counter is per name (dl_key_fence_counter returns FN:
 *                   `c == fn`): a counter per name fenced, unbounded.
 */
/* bounds: N FNX */
#define N 3
#ifndef FNX
#define FNX 2
#endif
#define CRASHY true

/* per node (0 source, 1 target) */
byte kx[2], ky[2];      /* K of X, Y: 0 absent, c + 1 the holder */
byte fval[2];           /* F(s): 0 absent */
byte fnx[2], fny[2];    /* FN of X, Y: 0 absent */
byte mig;               /* 0 slot s on node 0, 1 migrating 0 -> 1, 2 on node 1 */

byte last[2];           /* the highest token issued per name (X = 0, Y = 1) */
byte ndone;
hidden byte f, o;       /* scratch, inside atomic steps only */

/* DL_LUA_FENCE on node d for name n: f = INCR F; FN o >= f: f = o + 1, SET F f; DEL FN. */
inline fence(d, n) {
#ifdef BREAK_PERNAME
    if
    :: n == 0 -> fnx[d]++; f = fnx[d]
    :: else -> fny[d]++; f = fny[d]
    fi;
#else
    fval[d]++; f = fval[d];
#ifndef BREAK_NOFN
    if :: n == 0 -> o = fnx[d] :: else -> o = fny[d] fi;
    if
#ifdef BREAK_GE
    :: o != 0 && o > f -> f = o + 1; fval[d] = f
#else
    :: o != 0 && o >= f -> f = o + 1; fval[d] = f
#endif
    :: else
    fi;
    if :: n == 0 -> fnx[d] = 0 :: else -> fny[d] = 0 fi;
#endif
#endif
    /* FENCE: above every token the name had */
    assert(f > last[n]);
    last[n] = f;
    /* BOUNDED: no per-name counter made (X's may only go, Y never had one) */
    assert(fny[0] + fny[1] == 0 && fnx[0] + fnx[1] <= FNX)
}

/* Where the acquire script (keys K F FN) runs: d, or 2 when refused (TRYAGAIN). */
#define ALL_ON(d, n) ((n == 0 -> kx[d] : ky[d]) != 0 && (FENCE_KEY_ON(d)) && (n == 0 -> fnx[d] : fny[d]) != 0)
#define NONE_ON(d, n) ((n == 0 -> kx[d] : ky[d]) == 0 && !(FENCE_KEY_ON(d)) && (n == 0 -> fnx[d] : fny[d]) == 0)
#ifdef FENCE_STAYS
#define F_MOVED true
#define FENCE_KEY_ON(d) true   /* not in slot s: not part of its routing */
#else
#define F_MOVED (fval[0] == 0)
#define FENCE_KEY_ON(d) (fval[d] != 0)
#endif

/* DL_SCRIPT_ACQUIRE (fenced try), routed */
inline acquire(c, n, g) {
    atomic {
        g = false;
        if
        :: mig == 0 -> d = 0
        :: mig == 2 -> d = 1
        :: mig == 1 && ALL_ON(0, n) -> d = 0
        :: mig == 1 && !ALL_ON(0, n) && NONE_ON(0, n) && ALL_ON(1, n) -> d = 1   /* ASK, ASKING */
        :: else -> d = 2                                                          /* TRYAGAIN */
        fi;
        if
        :: d < 2 && n == 0 && kx[d] == 0 -> kx[d] = c + 1; fence(d, n); g = true
        :: d < 2 && n == 1 && ky[d] == 0 -> ky[d] = c + 1; fence(d, n); g = true
        :: else
        fi
    }
}

/* DL_SCRIPT_RELEASE (K only: served where K is; ASK when the source lacks it) */
inline release(c, n) {
    atomic {
        if :: n == 0 && kx[0] == c + 1 -> kx[0] = 0 :: n == 0 && kx[1] == c + 1 -> kx[1] = 0
           :: n == 1 && ky[0] == c + 1 -> ky[0] = 0 :: n == 1 && ky[1] == c + 1 -> ky[1] = 0
           :: else fi
    }
}

proctype client(byte c) {
    byte n, d;
    bool g;
    if :: n = 0 :: n = 1 fi;
    do
    :: acquire(c, n, g); if :: g -> break :: d == 2 -> skip :: else -> goto done fi   /* TRYAGAIN: again */
    :: CRASHY -> goto done
    od;
    if :: release(c, n) :: CRASHY -> skip fi;   /* a crash: K ends at its TTL (modelled by expiry) */
done:
    ndone++
}

/* MIGRATE key by key (atomic each: the key leaves the source as it lands on
 * the target), then CLUSTER SETSLOT s NODE target; leases end at their TTL. */
#define MOVE(a) :: atomic { mig == 1 && a[0] != 0 -> a[1] = a[0]; a[0] = 0 }
proctype cluster() {
end:
    do
    :: atomic { mig == 0 -> mig = 1 }
    MOVE(kx) MOVE(ky) MOVE(fnx) MOVE(fny)
#ifndef FENCE_STAYS
    MOVE(fval)
#endif
    :: atomic { mig == 1 && kx[0] == 0 && ky[0] == 0 && fnx[0] == 0 && fny[0] == 0 && F_MOVED -> mig = 2 }
    :: atomic { kx[0] != 0 -> kx[0] = 0 } :: atomic { kx[1] != 0 -> kx[1] = 0 }   /* a crashed holder's lease ends */
    :: atomic { ky[0] != 0 -> ky[0] = 0 } :: atomic { ky[1] != 0 -> ky[1] = 0 }
    od
}

init {
    atomic { fnx[0] = FNX; last[0] = FNX; run cluster(); run client(0); run client(1); run client(2) };
    ndone == N
}
