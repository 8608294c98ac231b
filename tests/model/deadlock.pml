/*
 * deadlock.pml — deadlock detection (issue 47): the check a default-mode
 * mutex waiter that holds other mutex leases writes behind its registration,
 * as dl_lock_acquire runs it (src/core/lease/dl_acquire.c: try_script_checked,
 * carried_step; src/core/lease/dl_deadlock.c: dl_deadlock_command) with the
 * scripts of src/core/lease/dl_scripts.h (DL_SCRIPT_ACQUIRE, DL_SCRIPT_DEADLOCK,
 * DL_SCRIPT_CANCEL; the release is DL_SCRIPT_RELEASE, as in mutex.pml). Each
 * Promela step is named after the Lua script or C function it abstracts; a
 * script is one atomic step; two pipelined commands are two steps (other
 * clients' commands may run between): the acquire script and the check behind
 * it are two steps, the carried SET and its ZREM are two steps.
 *
 * Threads and names: 3 threads (PHP processes), 3 names (mutexes). Thread i
 * takes name i by a try (SET NX PX: no wait, no check; taken already: it
 * ends, holding nothing), then waits (lock()) for one of the two other names,
 * chosen nondeterministically: a 2-cycle (1 and 2 wait for each other's) and
 * a 3-ring (1 -> 2 -> 3 -> 1) are both reachable. Granted: with -DNEST it may
 * then wait for the third name, holding two (two holder keys, a name it took
 * by waiting); then it releases what it holds, in any order. Reported ({2}):
 * it cancels and throws DeadlockException (no BLPOP); then it releases what
 * it holds and ends, or retries the wait (RETRY times at most), holding on.
 *
 * Server state:
 *   K[n]      the holder of name n's lease key (a thread; 0: absent). A
 *             thread's token for a name is one per (thread, name): a lease
 *             handle's, so K[n] = i stands for "the token of i's lease on n"
 *   Q(n,i)    thread i's entry in Q(n), live (an expired entry is dropped:
 *             ZSCORE's "> now", every count and prune ignore it alike)
 *   W[n]      wake tokens on n's wake list (0 or 1: LTRIM); no TTL modelled
 *             (a token left over costs a waiter one more attempt)
 *   REC(i,n)  the wait record R = <stem(n)>:waitfor:<owner i> exists (a HASH:
 *             k = n, t = i's token for n, q = Q(n): all fixed by (i, n))
 *   HK(n,i)   the holder key <stem(n)>:holder:<i's token for n> -> R(i, m):
 *             m (0: absent)
 *   Records and holder keys never expire in the model (PX 3000 each publish):
 *   expiry only removes what a walk reads, so it only ends walks earlier;
 *   keeping them is the harder case for "no false report", and a waiter
 *   publishes again at each registration, within its entry's window.
 * Ghost state (what is true, not what the server knows):
 *   gw[i]     the name thread i really waits for: from the try that found it
 *             taken (or, FENCING, the registration) until its grant or its
 *             cancel. A thread that left lock() with its entry still in Q (it
 *             died, or its cancel was lost) still counts while that entry is
 *             live, unless STRICT_GONE: nothing on the server tells it from a
 *             live waiter (its entry lives 3 s: DL_WAITERS_TTL_MS)
 *   K[n]      who really holds n (the server's K: a lease that expired is
 *             not held, whatever its holder believes)
 *   a cycle:  i -> K[gw[i]] -> K[gw[..]] -> ... back to i (a mutex waiter
 *             waits for one name, a mutex has one holder: a functional graph,
 *             so 3 threads have at most one cycle at a time)
 *   rep       the threads reported ({2}) in the current cycle: reset when no
 *             cycle exists (every step that changes gw or K calls track())
 *             and when a thread of the cycle leaves lock() (its wait is over;
 *             a retry is a new wait, so a new cycle)
 *
 * Properties (issue 47), asserted in every check:
 *   true_cycle   no false report: a thread gets {2} only while a cycle of
 *                real waits runs through it (at the check's atomic step)
 *   victims<=1   one victim per cycle: of the threads of one cycle (from its
 *                forming to its breaking), at most one gets {2}
 *   invalid end  (no -DTIMED) no missed cycle: a block ends by a wake token,
 *                or by its timer only while its thread is on a cycle, and
 *                then once per thread per cycle (after that its wait is
 *                untimed): a cycle nobody reports blocks its threads for
 *                good. So: a cycle is reported at the registration that
 *                closes it, or else by the time each of its threads has
 *                re-registered once since it formed (the last to do so, at
 *                the latest). Closing registrations do miss: a check that
 *                found the name free and published nothing, so a thread that
 *                then took that name and waited for one of ours saw no
 *                cycle (-DNEST; found by this model): a check now publishes
 *                on a free name too, and the closing registration reports. Not covered: timers that keep firing inside
 *                another thread's round trip (its carried ZREM to its next
 *                check) can defer the report for ever in an untimed model;
 *                a block lasts far longer than a round trip.
 *
 * Out of scope (no model): the semaphore's OR-wait and multi-lock waits: no
 * check is sent for them (dl_deadlock_applies: not permits; not on a
 * Cluster; scripting allowed), they publish nothing, a walk that meets one
 * ends as "can progress". A thread that waits holding nothing sends no check
 * either (it cannot be on a cycle): here a thread whose try failed ends.
 * Checked elsewhere, not modelled: fair mode (its liveness hash FA in place of
 * Q, the hand-over leaving it) and readers-writer names (the AND-wait of an
 * exclusive waiter on every reader: the walk's search over several holders),
 * by tests/phpt/424 and 425; on mutexes the search is the path modelled here.
 *
 * Time is not a clock (the process Env): a dead or departed thread's Q entry
 * expires at any step after it left lock() (a live waiter's never: it
 * registers again within its window); with -DEXPIRE a lease expires at any
 * step (K deleted; its holder still believes it holds, and passes its holder
 * key), EXPIRIES times in a run, but not between the carried SET that granted
 * it and the ZREM behind it (one pipeline: far shorter than a TTL).
 *
 * Options (-D):
 *   TIMED        blocks end by their timer at any step (else: see invalid end)
 *   NO_TIMER     (untimed) not even the once-per-cycle timer: a block ends by a
 *                wake token only, so a cycle must be reported at the
 *                registration that closes it (not with FENCING, whose first
 *                registration carries no check)
 *   DEADLINES    a wait's deadline may pass while blocked (dl_block_time_us
 *                cuts the last block at the deadline; an attempt's own
 *                "remaining_us <= 0" is the same cancel one step earlier):
 *                the cancel, then the thread releases what it holds and ends
 *   CRASH        a thread may die (FAULTS in all): while blocked, between the
 *                carried SET and its ZREM, or holding names (each stays until
 *                its lease expires: for ever without -DEXPIRE)
 *   LOST         a cancel may be lost (FAULTS in all; cancel_quietly ignores
 *                the failure): the thread goes on, its entry stays until it
 *                expires
 *   STRICT_GONE  (with CRASH or LOST) a thread that left lock() does not count
 *                as waiting, even while its entry is live in Q
 *   EXPIRE       leases expire (EXPIRIES in all)
 *   NEST         a thread granted its second name may wait for the third
 *   FENCING      the fencing mutex: every attempt is the acquire script, the
 *                first without the check (an uncontended lock() sends it), the
 *                re-registrations carried behind the BLPOP with the check
 *                (carried_step's c->checked) rather than the plain SET + ZREM;
 *                not granted: the next block
 *   RETRY        times a reported thread may retry its wait (default 1)
 * Broken variants (each one step away from the real protocol; .checks):
 *   BROKEN_NO_LIVE_CHECK     DL_SCRIPT_DEADLOCK without "local live =
 *                            pcall('ZSCORE', rec[6], rec[4]) if ... <= now
 *                            then break end": the record of a thread that was
 *                            granted and moved on, or gave up, still counts
 *   GRANTED_CHECK            (not a break: an addition) a walk also stops at a
 *                            record whose thread holds the name it waited for,
 *                            as a first version of DL_SCRIPT_DEADLOCK did
 *                            ("v == rec[4]"): redundant, the same states
 *                            (deadlock.checks says why)
 *   BROKEN_NO_OWN_HOLDS      DL_SCRIPT_DEADLOCK's "for i = 6, #ARGV do
 *                            mine[ARGV[i]] = true end" dropped: the walk never
 *                            recognises a holder key of its own (it still
 *                            publishes them)
 *   BROKEN_VICTIM_PUBLISHES  DL_SCRIPT_DEADLOCK's "if mine[hk] then
 *                            call('DEL', KEYS[2]) return out end" publishes the
 *                            record and the holder keys before it returns
 *   BROKEN_FREE_NO_PUBLISH   DL_SCRIPT_DEADLOCK returns {0} and publishes
 *                            nothing when it finds the name free (as a first
 *                            version did): with NO_TIMER a cycle is missed
 *   BROKEN_NO_RECHECK        a re-registration after a carried SET that found
 *                            the name taken is try_script without the check
 *                            (dl_lock_acquire's "by_script && dd ?
 *                            try_script_checked" taken for the first only)
 */
/* bounds: THREADS NAMES RETRY FAULTS EXPIRIES */
#define THREADS 3
#define NAMES 3
#ifndef RETRY
#define RETRY 1
#endif
#ifndef FAULTS
#define FAULTS 1
#endif
#ifndef EXPIRIES
#define EXPIRIES 1
#endif

#ifdef CRASH
#define CRASH_ON 1
#else
#define CRASH_ON 0
#endif
#ifdef LOST
#define LOST_ON 1
#else
#define LOST_ON 0
#endif
#ifdef DEADLINES
#define DEADLINE_ON 1
#else
#define DEADLINE_ON 0
#endif
#ifdef STRICT_GONE
#define STRICT_ON 1
#else
#define STRICT_ON 0
#endif

/* ---- the server (index 0 unused: K[0] = 0, gw[0] = 0 end every chain) ---- */
byte K[4];
bool q[16];
byte W[4];
bool rec[16];
byte hk[16];
#define Q(n, i)   q[(n) * 4 + (i)]
#define REC(i, n) rec[(i) * 4 + (n)]
#define HK(n, i)  hk[(n) * 4 + (i)]
#define QLIVE(n)  (Q(n, 1) || Q(n, 2) || Q(n, 3))

/* ---- the threads ---- */
byte holdm[4];         /* the names thread i believes it holds (bit n-1): its holder keys (ARGV) */
bool inlock[4];        /* thread i is inside lock() (a wait for its second or third name) */
bool blocked[4];       /* its BLPOP is blocked on the server ... */
bool popped[4];        /* ... or was served a wake token */
byte bn[4];            /* the name whose wake list its BLPOP waits on */
byte faults = FAULTS;
byte expiries = EXPIRIES;

/* ---- ghost ---- */
byte gw[4];
byte rep;              /* bit i-1: thread i reported in the current cycle */
bool tb[4];            /* no TIMED: thread i's block timer spent in the current cycle */
#define NX(i)   K[gw[i]]
#define CYC(i)  (NX(i) != 0 && (NX(i) == (i) || NX(NX(i)) == (i) || NX(NX(NX(i))) == (i)))
#define ANYCYC  (CYC(1) || CYC(2) || CYC(3))
#define TBIT(i) (1 << ((i) - 1))
#define HB(n)   (1 << ((n) - 1))

/* After every step that changes gw or K: a cycle that broke is over. */
inline track() {
    if
    :: !ANYCYC -> rep = 0; tb[1] = 0; tb[2] = 0; tb[3] = 0
    :: else -> skip
    fi
}

/* Redis serves a blocked BLPOP at the end of the script that pushed, before
 * any other client's command; which one is left open. */
inline serve_blocked(n) {
    if
    :: W[n] > 0 && blocked[1] && bn[1] == n -> W[n]--; blocked[1] = 0; popped[1] = 1
    :: W[n] > 0 && blocked[2] && bn[2] == n -> W[n]--; blocked[2] = 0; popped[2] = 1
    :: W[n] > 0 && blocked[3] && bn[3] == n -> W[n]--; blocked[3] = 0; popped[3] = 1
    :: else -> skip
    fi
}

/* A grant on the server: the thread holds n and waits for nothing. */
inline grant(me, n) {
    K[n] = me; gw[me] = 0; track()
}

/* DL_SCRIPT_ACQUIRE (waiting): SET NX PX and leave Q, or enter Q. */
inline acquire_script(me, n) {
    if
    :: K[n] == 0 -> grant(me, n); Q(n, me) = 0; got = 1
    :: else -> Q(n, me) = 1; gw[me] = n; track(); got = 0
    fi
}

/* DL_SCRIPT_RELEASE: compare-and-delete; a wake token when a live waiter is in Q. */
inline release_script(me, n) {
    if
    :: K[n] == me ->
       K[n] = 0; track();
       if :: QLIVE(n) -> W[n] = 1; serve_blocked(n) :: else -> skip fi
    :: else -> skip
    fi
}

/* DL_SCRIPT_CANCEL: leave Q; the last one out removes W; while others still
 * wait and the name is free, pass a wake token on. */
inline cancel_script(me, n) {
    Q(n, me) = 0;
    if
    :: !QLIVE(n) -> W[n] = 0
    :: QLIVE(n) && K[n] != 0 -> skip
    :: QLIVE(n) && K[n] == 0 -> W[n] = 1; serve_blocked(n)
    fi
}

/* The thread leaves lock() (cancel run or lost, a report, a crash): it waits
 * for nothing, unless its entry is still live in Q (a lost cancel, a death),
 * where it counts as waiting until the entry expires (not with STRICT_GONE).
 * Its wait ended: a cycle it was on is over for the count of victims (a
 * retry is a new wait, a new cycle), even while its entry keeps it counted. */
inline leave_wait(me) {
    inlock[me] = 0;
    if :: CYC(me) -> rep = 0 :: else -> skip fi;
    if
    :: gw[me] != 0 && Q(gw[me], me) && !STRICT_ON -> skip
    :: else -> gw[me] = 0
    fi;
    track()
}

/* The cancel (cancel_quietly): run, or lost with LOST (a failure it ignores). */
inline cancel(me, n) {
    if
    :: LOST_ON && faults > 0 -> faults--
    :: true -> cancel_script(me, n)
    fi;
    leave_wait(me)
}

/* The publish of DL_SCRIPT_DEADLOCK: HSET R ..., PEXPIRE R, SET each holder key -> R PX. */
inline publish(me, x) {
    REC(me, x) = 1;
    if :: holdm[me] & HB(1) -> HK(1, me) = x :: else -> skip fi;
    if :: holdm[me] & HB(2) -> HK(2, me) = x :: else -> skip fi;
    if :: holdm[me] & HB(3) -> HK(3, me) = x :: else -> skip fi
}

/* mine[hk]: the holder key <stem(n)>:holder:<v> is one of ours (ARGV[6..]). */
#ifndef BROKEN_NO_OWN_HOLDS
#define MINE(me, n, v) ((v) == (me) && (holdm[me] & HB(n)))
#else
/* breaks DL_SCRIPT_DEADLOCK's "for i = 6, #ARGV do mine[ARGV[i]] = true end": mine stays empty */
#define MINE(me, n, v) 0
#endif

/* DL_SCRIPT_DEADLOCK for thread me waiting for x (one atomic step): res 0
 * (free, ours: R deleted), 1 (no cycle through us: published) or 2 (our wait
 * closes a cycle: R deleted, nothing published). The walk: v = K's holder; its
 * holder key ours: a cycle; else the record it names, if it exists, its
 * thread is live in that name's Q and does not hold that name: on to that
 * name's holder. A record seen twice is someone else's cycle: stop. (At most
 * 3 threads' records here: far under the 32 hops.) */
inline deadlock_check(me, x) {
    v = K[x];
    if
    :: !Q(x, me) -> REC(me, x) = 0; res = 0              /* not a live waiter (granted): R deleted */
#ifndef BROKEN_FREE_NO_PUBLISH
    :: Q(x, me) && v == 0 -> res = 1; publish(me, x)     /* free since: published all the same */
#else
    /* breaks DL_SCRIPT_DEADLOCK's "if #first > 0 and #stack == 0": a free name publishes nothing */
    :: Q(x, me) && v == 0 -> REC(me, x) = 0; res = 0
#endif
    :: else ->
       n = x; seen = 0; res = 1;
       do
       :: MINE(me, n, v) ->
#ifndef BROKEN_VICTIM_PUBLISHES
          REC(me, x) = 0;
#else
          /* breaks DL_SCRIPT_DEADLOCK's "if mine[hk] then call('DEL', KEYS[2])
           * return out end": the victim publishes its record anyway */
          publish(me, x);
#endif
          res = 2; break
       :: else ->
          m = HK(n, v);                                   /* local r = pcall('GET', hk) */
          if
          :: m == 0 -> break                              /* nothing published: can progress */
          :: m != 0 && (seen & (1 << ((v - 1) * 3 + m - 1))) -> break   /* seen[r]: someone else's cycle */
          :: else -> seen = seen | (1 << ((v - 1) * 3 + m - 1))
          fi;
          if :: !REC(v, m) -> break :: else -> skip fi;  /* HMGET r: deleted, or expired */
#ifndef BROKEN_NO_LIVE_CHECK
          if :: !Q(m, v) -> break :: else -> skip fi;    /* ZSCORE q t <= now: not live in Q */
#endif
          n = m;
#ifndef GRANTED_CHECK
          if :: K[n] == 0 -> break :: else -> skip fi      /* holders(k): none, the name is free */
#else
          /* a stop at a waiter that holds the name its live record waits for (a
           * carried SET before its ZREM), as a first version did: redundant */
          if :: K[n] == 0 || K[n] == v -> break :: else -> skip fi
#endif
          ;
          v = K[n]
       od;
       if :: res == 1 -> publish(me, x) :: else -> skip fi
    fi;
    v = 0; n = 0; m = 0; seen = 0;
    /* what the client reads: {2} is a DeadlockException when the acquire
     * script did not grant (try_script_checked: "!*acquired", then
     * dl_deadlock_judge; a grant's own lease may have expired and been taken
     * since: a {2} behind a grant is ignored) */
    if
    :: res == 2 && !got ->
       true_cycle = CYC(me);
       assert(true_cycle);                                /* no false report */
       rep = rep | TBIT(me);
       victims = ((rep & 1) != 0) + ((rep & 2) != 0) + ((rep & 4) != 0);
       assert(victims <= 1);                              /* one victim per cycle */
       true_cycle = 0; victims = 0
    :: else -> skip
    fi
}

/* A lease expires: K deleted. Not between the carried SET that granted it and
 * the ZREM behind it (inlock and still in Q: one pipeline, far shorter than a
 * TTL). A dead thread's grant whose ZREM never ran: once the lease is gone,
 * its entry reads as a waiter's (it counts as waiting, as any dead waiter). */
inline expire(n) {
    i = K[n]; K[n] = 0; expiries--;
    if :: !inlock[i] && Q(n, i) && !STRICT_ON -> gw[i] = n :: else -> skip fi;
    i = 0;
    track()
}

/* Time, expiry (see the top). A Q entry of a thread not in lock() expires
 * (then it counts as waiting no more); -DEXPIRE: a lease expires. */
active proctype Env() {
    byte i;
end:
    do
#if defined(CRASH) || defined(LOST)
    :: atomic { Q(1, 2) && !inlock[2] -> Q(1, 2) = 0; if :: gw[2] == 1 -> gw[2] = 0; track() :: else -> skip fi }
    :: atomic { Q(1, 3) && !inlock[3] -> Q(1, 3) = 0; if :: gw[3] == 1 -> gw[3] = 0; track() :: else -> skip fi }
    :: atomic { Q(2, 1) && !inlock[1] -> Q(2, 1) = 0; if :: gw[1] == 2 -> gw[1] = 0; track() :: else -> skip fi }
    :: atomic { Q(2, 3) && !inlock[3] -> Q(2, 3) = 0; if :: gw[3] == 2 -> gw[3] = 0; track() :: else -> skip fi }
    :: atomic { Q(3, 1) && !inlock[1] -> Q(3, 1) = 0; if :: gw[1] == 3 -> gw[1] = 0; track() :: else -> skip fi }
    :: atomic { Q(3, 2) && !inlock[2] -> Q(3, 2) = 0; if :: gw[2] == 3 -> gw[2] = 0; track() :: else -> skip fi }
#endif
#ifdef EXPIRE
    :: atomic { expiries > 0 && K[1] != 0 && !(inlock[K[1]] && Q(1, K[1])) -> expire(1) }
    :: atomic { expiries > 0 && K[2] != 0 && !(inlock[K[2]] && Q(2, K[2])) -> expire(2) }
    :: atomic { expiries > 0 && K[3] != 0 && !(inlock[K[3]] && Q(3, K[3])) -> expire(3) }
#endif
    :: false
    od
}

/*
 * One thread: its first name by a try, then lock() of a second
 * (dl_lock_acquire with dd set: it holds a lease), with -DNEST then maybe
 * lock() of the third (holding two), then release() of each. Each atomic
 * block is one server step with what the thread does with its reply up to its
 * next command.
 */
proctype Thread(byte me) {
    byte s, v, n, m, res, tries = 0;
    bit fresh;   /* FENCING: the first attempt, whose script an uncontended lock() sends: no check */
    short seen;
    bool got, true_cycle;
    byte victims;

    /* tryLock: SET K token NX PX (no wait, no check) */
    atomic {
        if
        :: K[me] == 0 -> K[me] = me; holdm[me] = HB(me); track()
        :: else -> goto done                              /* taken: it holds nothing, waits for nothing */
        fi;
        if
        :: s = (me % 3) + 1
        :: s = ((me + 1) % 3) + 1
        fi
    }
lock:
#ifndef FENCING
    atomic {
        inlock[me] = 1; got = 0; res = 0;
        if                                                /* try_set: SET K token NX PX */
        :: K[s] == 0 -> grant(me, s); got = 1; goto granted
        :: else -> gw[me] = s; track()                    /* taken: the script next, at once */
        fi
    }
#else
    atomic { inlock[me] = 1; got = 0; res = 0; fresh = 1 }   /* fencing: by script from the first attempt */
#endif
attempt:
    /* try_script_checked: DL_SCRIPT_ACQUIRE, then DL_SCRIPT_DEADLOCK behind it
     * (one pipeline, two steps); never on a first attempt (dl_lock_acquire's
     * "res->attempts > 0"): under FENCING that is try_script alone */
    atomic { acquire_script(me, s) }
    atomic {
        if
        :: fresh -> fresh = 0; res = 0
        :: else -> deadlock_check(me, s)
        fi;
        if
        :: got -> goto granted
        :: res == 2 -> goto victim                        /* dl_deadlock_judge: DL_ERR_DEADLOCK */
        :: else -> skip
        fi
    }
#ifdef BROKEN_NO_RECHECK
    goto block;
reregister:
    /* breaks dl_lock_acquire's "by_script && dd ? try_script_checked": the
     * re-registration after a carried SET that found the name taken is
     * try_script, without the check behind it */
    atomic {
        acquire_script(me, s);
        if
        :: got -> goto granted
        :: else -> skip
        fi
    }
#endif
    /* ---- block_on_then: BLPOP W, with the attempt carried behind it ---- */
block:
    atomic {
        bn[me] = s;
        if
        :: W[s] > 0 -> W[s]--; goto carried                /* a wake token there: served at once */
        :: else -> blocked[me] = 1
        fi
    }
    /* how the block ends */
    if
    :: atomic { popped[me] -> popped[me] = 0 }             /* served by a release's or a cancel's push */
#ifdef TIMED
    :: atomic { blocked[me] -> blocked[me] = 0 }
#elif !defined(NO_TIMER)
    :: atomic { blocked[me] && CYC(me) && !tb[me] -> blocked[me] = 0; tb[me] = 1 }
#endif
    :: atomic { DEADLINE_ON && blocked[me] -> blocked[me] = 0; goto give_up }
       /* the deadline: the connection dropped, the cancel follows */
    :: atomic { CRASH_ON && faults > 0 && blocked[me] -> faults--; blocked[me] = 0; goto crash }
    fi;
carried:
#ifndef FENCING
    /* what was carried behind the BLPOP runs: SET K token NX PX, then ZREM Q
     * token (carried_step: two pipelined commands, no check) */
    atomic {
        if
        :: K[s] == 0 -> grant(me, s); got = 1
        :: else -> skip
        fi
    }
    if
    :: CRASH_ON && got && faults > 0 -> faults--; goto crash   /* dead before its ZREM ran */
    :: else -> skip
    fi;
    atomic {
        Q(s, me) = 0;                                      /* ZREM Q token */
        if
        :: got -> goto granted
#ifndef BROKEN_NO_RECHECK
        :: else -> goto attempt                            /* judge_carried_set: taken: script_now */
#else
        :: else -> goto reregister
#endif
        fi
    }
#else
    /* the fencing mutex: the acquire script carried, its check behind it
     * (carried_step's c->checked: three commands, the BLPOP then two steps) */
    atomic { acquire_script(me, s) }
    atomic {
        deadlock_check(me, s);
        if
        :: got -> goto granted
        :: res == 2 -> goto victim
        :: else -> goto block                              /* not granted: the next block */
        fi
    }
#endif

give_up:
    atomic { cancel(me, s); goto release }                 /* cancel_quietly; lock() returns false */

victim:
    /* DL_ERR_DEADLOCK: dl_lock_acquire cancels (cancel_quietly), lock() throws */
    atomic {
        cancel(me, s);
        if
        :: tries < RETRY -> tries++; goto lock             /* the caller catches it and tries again */
        :: true -> goto release                            /* ... or releases what it holds */
        fi
    }

granted:
    atomic {
        inlock[me] = 0; gw[me] = 0; holdm[me] = holdm[me] | HB(s); track();
#ifdef NEST
        if
        :: holdm[me] != 7 -> s = 6 - me - s; goto lock     /* holding two, it waits for the third */
        :: true -> skip
        fi
#endif
    }

release:
    /* release() of each lease held, in any order */
    do
    :: atomic { holdm[me] & HB(1) -> release_script(me, 1); holdm[me] = holdm[me] & ~HB(1) }
    :: atomic { holdm[me] & HB(2) -> release_script(me, 2); holdm[me] = holdm[me] & ~HB(2) }
    :: atomic { holdm[me] & HB(3) -> release_script(me, 3); holdm[me] = holdm[me] & ~HB(3) }
    :: CRASH_ON && faults > 0 && holdm[me] != 0 -> faults--; goto done   /* dead holding: their TTLs end them */
    :: holdm[me] == 0 -> break
    od;
    goto done;

crash:
    atomic { popped[me] = 0; leave_wait(me) }              /* its leases and entry stay until they expire */
done:
    skip
}

init {
    atomic { run Thread(1); run Thread(2); run Thread(3) }
}
