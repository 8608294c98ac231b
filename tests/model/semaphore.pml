/*
 * semaphore.pml — the counting semaphore with per-permit leases
 * (DL_LEASE_PERMITS: src/core/lease/dl_scripts.h, dl_acquire.c's wait loop).
 *
 * Bounds: N = 3 clients, one acquisition of one permit each, LIMIT permits
 * (2 by default; 1 for the wake-up and bounded-state checks, where two
 * waiters queue behind one holder). Every step is named after the script or
 * C function it abstracts; a Lua script is one atomic step.
 *
 * Server state (one semaphore name):
 *   K   absent, the STRING form "\0S"..token (one holder of one permit, K's
 *       TTL its lease), or the ZSET form (marker "\0S" at +inf, one member a
 *       holder); kttl: K carries a TTL. P (permits beyond one) is not
 *       modelled: every client takes one permit.
 *   Q   the waiters (ZSET token -> entry expiry); W the wake list (a count).
 * A member's lease ends on the server only after its holder's validity has
 * ended (valid[c] false), unless EARLY_EXPIRY. An ended member is modelled as
 * gone: every script compares it with now, so it counts for nothing.
 *
 * Client (dl_lock_acquire): SEM_ACQUIRE by script (it registers the waiter
 * when the permits are taken), BLPOP on W with the acquire script carried
 * behind it (block_on_then), the last block at the deadline alone, then
 * SEM_CANCEL; holding: SEM_REFRESH (the watchdog), SEM_RELEASE. A crash is a
 * choice at every step, so is a reply lost after the server ran the command
 * (then the undo by token, SEM_RELEASE, which may itself not get through).
 *
 * LIVE: no crash, no lost reply, no lease expiry, BLPOP untimed except the
 * last block at a deadline: then a waiter left blocked for ever is an invalid
 * end state (a lost wake-up: every holder released, nobody woke it).
 *
 * Broken variants (each one step):
 *   BREAK_CONVERT      SEM_ACQUIRE's STRING -> ZSET conversion forgets the
 *                      holder (`if p > 0 then call('ZADD', KEYS[1], now + p + 1,
 *                      string.sub(v, 3))` dropped): permits > limit.
 *   BREAK_REFRESH      SEM_REFRESH without its owner check (`if not s or
 *                      tonumber(s) <= now then return 0 end` dropped, ZADD
 *                      without XX): an ended lease comes back: permits > limit.
 *   EARLY_EXPIRY       the server ends a lease before its holder's validity
 *                      (the assumption every lease rests on, dropped).
 *   BREAK_CANCEL       SEM_CANCEL does not pass on a wake-up (`redis.call('RPUSH',
 *                      KEYS[3], '1')` dropped): lost wake-up (with LIVE).
 *   BREAK_CONVERT_TTL  the conversion's `call('PEXPIRE', KEYS[1], p + 2)`
 *                      dropped: K kept for ever once its holders are gone.
 */
/* bounds: N LIMIT */
#define N 3
#ifndef LIMIT
#define LIMIT 2
#endif

#ifdef LIVE
#define CRASHY false
#define LOSSY false
#define DEADLINE(c) (c == N - 1)   /* one waiter with a deadline, the others untimed */
#else
#define CRASHY true
#define LOSSY true
#define DEADLINE(c) true
#endif

/* ---- the server ---- */
byte kform;        /* 0 absent, 1 STRING, 2 ZSET */
byte strh;         /* the STRING form's holder */
bool kttl;         /* K carries a TTL */
bool inz[N];       /* a holder's live member of the ZSET */
bool inq[N];       /* a waiter's entry in Q (Q always carries its TTL: ZADD then PEXPIRE) */
byte wlen;         /* tokens on W (W always carries its TTL) */

/* ---- the clients ---- */
bool valid[N];     /* believes it holds a permit (granted, validity not ended) */
bool waiting[N];   /* in its wait loop (its Q entry is kept alive by its attempts) */
byte ndone;

hidden byte nq, nz, nv;   /* scratch, inside atomic steps only: not part of the state */

inline count_q() { nq = inq[0] + inq[1] + inq[2] }
inline count_z() { nz = inz[0] + inz[1] + inz[2] }
inline count_v() { nv = valid[0] + valid[1] + valid[2] }

/* A grant, in the step that grants (validity counts from the send time):
 * what the clients believe may not exceed the limit. */
inline believe(c) {
    valid[c] = true;
    count_v();
    assert(nv <= LIMIT)
}

/* The grant's waiter bookkeeping: leave Q; the last one out removes W. */
inline leave_q(c) {
    inq[c] = false;
    count_q();
    if :: nq == 0 -> wlen = 0 :: else fi
}

/* RPUSH W '1' then LTRIM W 0 n-1 (n the waiters left in Q). */
inline push_wake() {
    count_q();
    if
    :: nq > 0 -> wlen = wlen + 1; if :: wlen > nq -> wlen = nq :: else fi
    :: else
    fi
}

/* DL_SCRIPT_SEM_ACQUIRE (waiting: ARGV[6] given), one permit. */
inline sem_acquire(c, g) {
    atomic {
        g = false;
        if
        :: kform == 0 ->                     /* ty == 'none' and k == 1: the STRING form */
            kform = 1; strh = c; kttl = true; leave_q(c); g = true; believe(c)
        :: else ->
            if
            :: kform == 1 ->                 /* a STRING K is first made the ZSET of its holder */
                kform = 2;
#ifndef BREAK_CONVERT
                inz[strh] = true;
#endif
#ifndef BREAK_CONVERT_TTL
                kttl = true
#else
                kttl = false
#endif
            :: else
            fi;
            count_z();                       /* ZREMRANGEBYSCORE ... now; n = ZCARD - 1 */
            if
            :: nz + 1 <= LIMIT ->
                inz[c] = true; kttl = true;  /* ZADD; PEXPIRE when ours is the longest lease */
                leave_q(c); g = true; believe(c)
            :: else ->
                if :: nz == 0 -> kform = 0 :: else fi;   /* if n == 0 then DEL K */
                inq[c] = true                /* ZADD Q now + w token; PEXPIRE Q */
            fi
        fi
    }
}

/* DL_SCRIPT_SEM_RELEASE (also the undo by token): 1 if our lease was live and is gone. */
inline sem_release(c) {
    atomic {
        if
        :: kform == 1 && strh == c ->
            kform = 0; kttl = false; push_wake()
        :: kform == 2 && inz[c] ->
            inz[c] = false;
            count_z();
            if :: nz == 0 -> kform = 0; kttl = false :: else fi;   /* ZCARD == 1: DEL K P */
            push_wake()                      /* min(live waiters, k) tokens, W trimmed to Q's size */
        :: else -> skip                      /* -1: held nothing */
        fi
    }
}

/* DL_SCRIPT_SEM_CANCEL: leave Q; while others wait, pass on one wake token. */
inline sem_cancel(c) {
    atomic {
        inq[c] = false;
        count_q();
        if
        :: nq == 0 -> wlen = 0
        :: else ->
#ifndef BREAK_CANCEL
            wlen = wlen + 1; if :: wlen > nq -> wlen = nq :: else fi
#else
            skip
#endif
        fi
    }
}

/* DL_SCRIPT_SEM_REFRESH: 1 when our lease was live (extended), else 0. */
inline sem_refresh(c) {
    atomic {
        if
        :: (kform == 1 && strh == c) || (kform == 2 && inz[c]) -> believe(c)
#ifdef BREAK_REFRESH
        :: else -> if :: kform == 1 -> kform = 2; inz[strh] = true :: kform == 0 -> kform = 2 :: else fi;
                   inz[c] = true; kttl = true; believe(c)
#else
        :: else -> valid[c] = false
#endif
        fi
    }
}

/* run_quietly(undo): sent by EVAL within the grace, or never (the process or the server went away). */
inline undo(c) {
    if :: sem_release(c) :: LOSSY -> skip fi
}

/* run_quietly(cancel) */
inline cancel(c) {
    if :: sem_cancel(c) :: LOSSY -> skip fi
}

proctype client(byte c) {
    bool g;
    waiting[c] = true;                       /* in dl_lock_acquire: its Q entry lives */
    sem_acquire(c, g);                       /* try_script: the first attempt */
    if
    :: true
    ::  LOSSY -> atomic { waiting[c] = false; valid[c] = false }; undo(c); goto done   /* transport failure: undo, break */
    :: CRASHY -> goto crash
    fi;
    if :: g -> goto hold :: else fi;
    do
    :: /* block_on_then: BLPOP W, the acquire script written behind it */
        if
        :: atomic { wlen > 0 -> wlen-- }
#ifndef LIVE
        :: skip                              /* timed out (the earliest lease end) */
#endif
        fi;
        sem_acquire(c, g);                   /* runs on the server right after the BLPOP */
        if
        :: true
        :: LOSSY -> atomic { waiting[c] = false; valid[c] = false }; undo(c); cancel(c); goto done   /* the connection broke */
        :: CRASHY -> goto crash
        fi;
        if :: g -> goto hold :: else fi
    :: DEADLINE(c) ->   /* the last block carries nothing and may be abandoned after its pop */
        if :: atomic { wlen > 0 -> wlen-- } :: skip fi;
        waiting[c] = false;
        cancel(c);
        goto done
    :: CRASHY -> goto crash
    od;
hold:
    waiting[c] = false;
    do
    :: sem_refresh(c)                        /* the watchdog's renewal */
    :: valid[c] = false                      /* validity ends: nothing renewed it in time */
    :: break
    :: CRASHY -> goto crash
    od;
    valid[c] = false;
    sem_release(c);
    if :: skip :: LOSSY -> sem_release(c) fi   /* reply lost: sent again (DL_RETRY_ANY) */
    goto done;
crash:
    atomic { valid[c] = false; waiting[c] = false };
done:
    ndone++
}

/* Time: a lease, K or a waiter's entry ends once nothing keeps it (LIVE: no lease ends). */
#ifdef EARLY_EXPIRY
#define ENDED(c) true
#else
#define ENDED(c) !valid[c]
#endif
#define MEMBER_ENDS(c) :: atomic { inz[c] && ENDED(c) -> inz[c] = false }
#define ENTRY_ENDS(c) :: atomic { inq[c] && !waiting[c] -> inq[c] = false }
active proctype expiry() {
end:
    do
#ifndef LIVE
    :: atomic { kform == 1 && ENDED(strh) -> kform = 0; kttl = false }
    :: atomic { kform == 2 && kttl && !valid[0] && !valid[1] && !valid[2] ->
                kform = 0; kttl = false; inz[0] = false; inz[1] = false; inz[2] = false }
    MEMBER_ENDS(0) MEMBER_ENDS(1) MEMBER_ENDS(2)
#endif
    ENTRY_ENDS(0) ENTRY_ENDS(1) ENTRY_ENDS(2)
    od
}

init {
    atomic { run client(0); run client(1); run client(2) };
    ndone == N;
    /* bounded state: no client holds or waits; every key is gone or carries a TTL */
    assert(kform == 0 || kttl)
}
