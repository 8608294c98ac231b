/*
 * rwlock.pml — the readers-writer lock with its queues, promote() and
 * demote() (DL_LEASE_SHARED / DL_LEASE_WRITE: src/core/lease/dl_scripts.h,
 * dl_acquire.c's wait loop, dl_rwlock.c's become()). The upgrade of branch
 * `edges` (lockExclusive() on a name the instance holds shared, when it is
 * the only reader, and the exclusive view's release demoting back) is the
 * same two scripts: a holder of a shared lease promotes, later demotes.
 *
 * Bounds: N = 3 clients, one acquisition each: client 0 shared, client 1
 * exclusive, client 2 either (so two readers, two writers, and a reader
 * beside a writer are all reachable), then at most one change of kind (a
 * shared holder may promote, an exclusive holder may demote). Every step is named after the script or C
 * function it abstracts; a Lua script is one atomic step.
 *
 * Server state (one name): K the writer ("\0W" .. token; its "\0R" form
 * mirrors R and is not modelled), R the shared holders (a member per live
 * shared lease; rkey: R exists, rttl: R carries a TTL: an ended member stays
 * in R until a script prunes it), Q / RQ the exclusive / shared waiters
 * (ZSETs, always with their TTL), W / RW their wake lists (counts, always
 * with a TTL). A lease ends on the server only after its holder's validity
 * ended (unless EARLY_EXPIRY).
 *
 * Client: the acquire script (registers the waiter when it cannot have the
 * name), BLPOP on W (exclusive) or RW (shared) with the acquire script
 * carried behind it, the last block at the deadline alone, then the cancel
 * script; holding: the refresh script (the watchdog), promote/demote, the
 * release script. A crash is a choice at every step; a reply lost after the
 * server ran the command is a choice (the undo by token: the release script);
 * for promote and demote (DL_RETRY_NEVER) a lost reply leaves the client with
 * what become() keeps on an error: the kind and validity it had before.
 *
 * LIVE: no crash, no lost reply, no lease end, BLPOP untimed except the last
 * block of the one client with a deadline: a waiter blocked for ever is an
 * invalid end state (a lost wake-up).
 *
 * Broken variants (each one step):
 *   BREAK_PROMOTE   DL_SCRIPT_RW_PROMOTE without `redis.call('ZCARD', kR) > 1`
 *                   (promotes beside other readers): writer beside a reader.
 *   BREAK_SHARED    DL_SCRIPT_RW_SHARED_ACQUIRE without `not held`: a reader
 *                   beside the writer.
 *   EARLY_EXPIRY    the server ends a lease before its holder's validity.
 *   BREAK_WCANCEL   DL_SCRIPT_RW_WRITE_CANCEL without DL_LUA_RW_WAKE: the
 *                   readers a writer-in-waiting kept out are never woken.
 *   BREAK_DEMOTE    DL_SCRIPT_RW_DEMOTE without DL_LUA_RW_WAKE: R made by
 *                   the demotion has no TTL (and shared waiters stay out).
 */
/* bounds: N */
#define N 3

#ifdef LIVE
#define CRASHY false
#define LOSSY false
#define DEADLINE(c) (c == N - 1)
#else
#define CRASHY true
#define LOSSY true
#define DEADLINE(c) true
#endif

/* ---- the server ---- */
byte kw;           /* K: 0 absent, c + 1 the writer c */
bool inr[N];       /* c's live member of R */
bool rkey, rttl;   /* R exists (maybe with ended members only); R carries a TTL */
bool inq[N], inrq[N];
byte wlen, rwlen;

/* ---- the clients ---- */
bool vw[N], vr[N];    /* believes it holds exclusive / shared (granted, validity not ended) */
bool waiting[N];
byte ndone;

hidden byte nq, nrq, nr, nvw, nvr;   /* scratch, inside atomic steps only: not part of the state */

inline count_all() {
    nq = inq[0] + inq[1] + inq[2]; nrq = inrq[0] + inrq[1] + inrq[2]; nr = inr[0] + inr[1] + inr[2]
}

/* What the clients believe: at most one writer, and no reader beside it. */
inline exclusion() {
    nvw = vw[0] + vw[1] + vw[2]; nvr = vr[0] + vr[1] + vr[2];
    assert(nvw == 0 || (nvw == 1 && nvr == 0))
}

/* ZREMRANGEBYSCORE kR -inf now: ended members go; an emptied ZSET is gone. */
inline prune_r() {
    count_all();
    if :: nr == 0 -> rkey = false; rttl = false :: else fi
}

/* DL_LUA_RW_KEEP_R: R (and K's "\0R") as long as the longest shared lease. */
inline keep_r() {
    count_all();
    if :: nr > 0 -> rttl = true :: else fi
}

/* DL_LUA_RW_WAKE: after any change, wake whoever can go now. */
inline rw_wake() {
    prune_r();
    if :: kw == 0 -> keep_r() :: else fi;
    count_all();
    if :: nq == 0 -> wlen = 0 :: else fi;
    if :: nrq == 0 -> rwlen = 0 :: else fi;
    if
    :: kw == 0 && nq > 0 -> if :: nr == 0 -> wlen = 1 :: else fi   /* RPUSH kW; LTRIM 0 0 */
    :: kw == 0 && nq == 0 && nrq > 0 -> rwlen = nrq                /* nr tokens, LTRIM 0 nr-1 */
    :: else
    fi
}

/* DL_SCRIPT_RW_WRITE_ACQUIRE (waiting) */
inline write_acquire(c, g) {
    atomic {
        g = false;
        prune_r();
        count_all();
        if
        :: kw == 0 && nr == 0 ->
            kw = c + 1;
            inq[c] = false; count_all(); if :: nq == 0 -> wlen = 0 :: else fi;
            vw[c] = true; exclusion(); g = true
        :: else -> inq[c] = true
        fi
    }
}

/* DL_SCRIPT_RW_SHARED_ACQUIRE (waiting) */
inline shared_acquire(c, g) {
    atomic {
        g = false;
        prune_r();
        count_all();
        if
#ifndef BREAK_SHARED
        :: kw == 0 && nq == 0 ->
#else
        :: nq == 0 ->
#endif
            inr[c] = true; rkey = true; keep_r();
            inrq[c] = false; count_all(); if :: nrq == 0 -> rwlen = 0 :: else fi;
            vr[c] = true; exclusion(); g = true
        :: else -> inrq[c] = true
        fi
    }
}

/* DL_SCRIPT_RW_WRITE_RELEASE (also the undo of an exclusive attempt) */
inline write_release(c) {
    atomic { if :: kw == c + 1 -> kw = 0; rw_wake() :: else fi }
}

/* DL_SCRIPT_RW_SHARED_RELEASE (also the undo of a shared attempt) */
inline shared_release(c) {
    atomic { if :: inr[c] -> inr[c] = false; rw_wake() :: else fi }
}

/* DL_SCRIPT_RW_WRITE_CANCEL / DL_SCRIPT_RW_SHARED_CANCEL */
inline rw_cancel(c, ex) {
    atomic {
        if
        :: ex -> inq[c] = false;
#ifndef BREAK_WCANCEL
            rw_wake()
#endif
        :: else -> inrq[c] = false; rw_wake()
        fi
    }
}

/* DL_SCRIPT_RW_WRITE_REFRESH / DL_SCRIPT_RW_SHARED_REFRESH: 1 when ours was live, else 0. */
inline rw_refresh(c, ex) {
    atomic {
        if
        :: ex && kw == c + 1 -> vw[c] = true; exclusion()
        :: !ex && inr[c] -> keep_r(); vr[c] = true; exclusion()
        :: else -> vw[c] = false; vr[c] = false
        fi
    }
}

/* DL_SCRIPT_RW_PROMOTE: the sole shared holder becomes the writer, at once, or not at all. */
inline rw_promote(c, ok) {
    atomic {
        ok = false;
        prune_r();
        count_all();
        if
        :: !inr[c] -> vr[c] = false                         /* {-1, 0}: our shared lease had ended */
#ifndef BREAK_PROMOTE
        :: inr[c] && (kw != 0 || nr > 1) -> skip            /* {0, 0}: other holders; ours is kept */
        :: inr[c] && kw == 0 && nr <= 1 ->
#else
        :: inr[c] && kw != 0 -> skip
        :: inr[c] && kw == 0 ->
#endif
            inr[c] = false; prune_r();                      /* DEL kR (ours was its only live member) */
            kw = c + 1; ok = true;                          /* SET kK "\0W" .. tok PX ttl */
            vr[c] = false; vw[c] = true; exclusion()        /* {1, fence}: exclusive from the send time */
        fi
    }
}

/* DL_SCRIPT_RW_DEMOTE: the writer becomes a shared holder; shared waiters may join. */
inline rw_demote(c, ok) {
    atomic {
        ok = false;
        if
        :: kw == c + 1 ->
            kw = 0; inr[c] = true; rkey = true;
#ifndef BREAK_DEMOTE
            rw_wake();
#endif
            ok = true; vw[c] = false; vr[c] = true          /* 1: shared from now */
        :: else -> vw[c] = false                            /* 0 / -1: lost */
        fi
    }
}

proctype client(byte c) {
    bool g, ex, ok, changed;
    if                                                      /* 0 shared, 1 exclusive, 2 either */
    :: c != 0 -> ex = true
    :: c != 1 -> ex = false
    fi;
    waiting[c] = true;
    if :: ex -> write_acquire(c, g) :: else -> shared_acquire(c, g) fi;   /* try_script */
    if
    :: true
    :: LOSSY -> atomic { waiting[c] = false; vw[c] = false; vr[c] = false };
        if :: ex -> write_release(c) :: else -> shared_release(c) :: LOSSY -> skip fi;   /* the undo */
        goto done
    :: CRASHY -> goto crash
    fi;
    if :: g -> goto hold :: else fi;
    do
    :: /* block_on_then: BLPOP on W or RW, the acquire script written behind it */
        if
        :: atomic { ex && wlen > 0 -> wlen-- }
        :: atomic { !ex && rwlen > 0 -> rwlen-- }
#ifndef LIVE
        :: skip                                             /* timed out */
#endif
        fi;
        if :: ex -> write_acquire(c, g) :: else -> shared_acquire(c, g) fi;
        if
        :: true
        :: LOSSY -> atomic { waiting[c] = false; vw[c] = false; vr[c] = false };
            if :: ex -> write_release(c) :: else -> shared_release(c) :: LOSSY -> skip fi;
            if :: rw_cancel(c, ex) :: LOSSY -> skip fi;
            goto done
        :: CRASHY -> goto crash
        fi;
        if :: g -> goto hold :: else fi
    :: DEADLINE(c) ->   /* the last block carries nothing, may be abandoned after its pop */
        if
        :: atomic { ex && wlen > 0 -> wlen-- }
        :: atomic { !ex && rwlen > 0 -> rwlen-- }
        :: skip
        fi;
        waiting[c] = false;
        if :: rw_cancel(c, ex) :: LOSSY -> skip fi;
        goto done
    :: CRASHY -> goto crash
    od;
hold:
    waiting[c] = false;
    do
    :: rw_refresh(c, ex)
    :: atomic { vw[c] = false; vr[c] = false }              /* validity ends: nothing renewed it */
    :: !changed && !ex ->                                   /* promote(), or the upgrade of `edges` */
        changed = true;
        rw_promote(c, ok);
        if
        :: ok -> ex = true;
            if
            :: true
            :: LOSSY -> atomic { ex = false; vw[c] = false; vr[c] = true }   /* reply lost: become() keeps the shared lease */
            fi
        :: else
        fi
    :: !changed && ex ->                                    /* demote(), or the exclusive view's release */
        changed = true;
        if
        :: rw_demote(c, ok);
            if
            :: ok -> ex = false;
                if
                :: true
#ifdef DEMOTE_KEEPS
                :: LOSSY -> atomic { ex = true; vr[c] = false; vw[c] = true; exclusion() }   /* reply lost: kept exclusive */
#else
                :: LOSSY -> skip                            /* reply lost: become() makes it shared */
#endif
                fi
            :: else
            fi
#ifndef DEMOTE_KEEPS
        :: LOSSY -> atomic { ex = false; vr[c] = vw[c]; vw[c] = false }   /* never ran, error: shared */
#endif
        fi
    :: break
    :: CRASHY -> goto crash
    od;
    atomic { vw[c] = false; vr[c] = false };
    if :: ex -> write_release(c) :: else -> shared_release(c) fi;
    goto done;
crash:
    atomic { vw[c] = false; vr[c] = false; waiting[c] = false };
done:
    ndone++
}

#ifdef EARLY_EXPIRY
#define ENDED(c) true
#else
#define ENDED(c) (!vw[c] && !vr[c])
#endif
#define LEASE_ENDS(c) \
    :: atomic { kw == c + 1 && ENDED(c) -> kw = 0 } \
    :: atomic { inr[c] && ENDED(c) -> inr[c] = false }
#define ENTRY_ENDS(c) \
    :: atomic { inq[c] && !waiting[c] -> inq[c] = false } \
    :: atomic { inrq[c] && !waiting[c] -> inrq[c] = false }

/* Time: a lease, R (its TTL) or a waiter's entry ends once nothing keeps it. */
active proctype expiry() {
end:
    do
#ifndef LIVE
    LEASE_ENDS(0) LEASE_ENDS(1) LEASE_ENDS(2)
    :: atomic { rkey && rttl && ENDED(0) && ENDED(1) && ENDED(2) ->
                rkey = false; rttl = false; inr[0] = false; inr[1] = false; inr[2] = false }
#endif
    ENTRY_ENDS(0) ENTRY_ENDS(1) ENTRY_ENDS(2)
    od
}

init {
    atomic { run client(0); run client(1); run client(2) };
    ndone == N;
    /* bounded state: every key is gone or carries a TTL (K, Q, RQ, W, RW always do) */
    assert(!rkey || rttl)
}
