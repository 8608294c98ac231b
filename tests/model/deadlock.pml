/*
 * deadlock.pml — deadlock detection (issue 47): the check a waiter that holds
 * other leases writes behind its registration, as dl_lock_acquire runs it
 * (src/core/lease/dl_acquire.c: try_script_checked, carried_step;
 * src/core/lease/dl_deadlock.c: dl_deadlock_applies, dl_deadlock_command)
 * with the scripts of src/core/lease/dl_scripts.h (DL_SCRIPT_ACQUIRE,
 * DL_SCRIPT_DEADLOCK, DL_SCRIPT_CANCEL; with -DSEMA DL_SCRIPT_SEM_ACQUIRE,
 * DL_SCRIPT_SEM_RELEASE, DL_SCRIPT_SEM_CANCEL; the mutex's release is
 * DL_SCRIPT_RELEASE, as in mutex.pml). Each Promela step is named after the
 * Lua script or C function it abstracts; a script is one atomic step; two
 * pipelined commands are two steps (other clients' commands may run
 * between): the acquire script and the check behind it are two steps, the
 * carried SET and its ZREM are two steps.
 *
 * Threads and names: 3 threads (PHP processes), 3 names (mutexes; with
 * -DSEMA name 3 is a semaphore of PERMITS = 2, one permit a holder). Thread i
 * takes name i by a try (SET NX PX, or the semaphore's acquire script
 * without waiting: no wait, no check; taken already: it ends, holding
 * nothing), then waits (lock()) for one of the two other names, chosen
 * nondeterministically: a 2-cycle (1 and 2 wait for each other's) and a
 * 3-ring (1 -> 2 -> 3 -> 1) are both reachable. Granted: with -DNEST it may
 * then wait for the third name, holding two (two holder keys, a name it took
 * by waiting); then it releases what it holds, in any order. Reported ({2}):
 * it cancels and throws DeadlockException (no BLPOP); then it releases what
 * it holds and ends, or retries the wait (RETRY times at most), holding on.
 * With -DSEMA, thread 1 also takes a permit by a second try (the semaphore
 * full: it goes on with name 1 alone) and waits for name 2 only; thread 2's
 * wait for name 3 is then an OR-wait on threads 1 and 3, the permits'
 * holders, which is a knot when thread 3 waits for 1 or 2 (every holder that
 * could free it blocked in the same set) and not one while thread 3 has not
 * started waiting, was granted, or left its wait (reported, its deadline).
 *
 * Server state:
 *   K[n]      the holder of name n's lease key (a thread; 0: absent). A
 *             thread's token for a name is one per (thread, name): a lease
 *             handle's, so K[n] = i stands for "the token of i's lease on n"
 *   sh        (SEMA) the semaphore's live permits (bit i-1: thread i holds
 *             one; the STRING form of one holder and the ZSET form are the
 *             same set to every script here); K[3] stays 0
 *   Q(n,i)    thread i's entry in Q(n), live (an expired entry is dropped:
 *             ZSCORE's "> now", every count and prune ignore it alike)
 *   W[n]      wake tokens on n's wake list (a mutex's 0 or 1: LTRIM; the
 *             semaphore's at most one a live waiter); no TTL modelled (a
 *             token left over costs a waiter one more attempt)
 *   REC(i,n)  the wait record R = <stem(n)>:waitfor:<owner i> exists (a HASH:
 *             k = n, t = i's token for n, q = Q(n), m = the kind, c and w the
 *             semaphore's limit and the permits asked: all fixed by (i, n))
 *   HK(n,i)   the holder key <stem(n)>:holder:<sha1 of i's token for n> ->
 *             R(i, m): m (0: absent); a semaphore's permit is a hold too
 *   Records and holder keys never expire in the model (PX 3000 each publish):
 *   expiry only removes what a search reads, so it only makes it see less;
 *   keeping them is the harder case for "no false report", and a waiter
 *   publishes again at each registration, within its entry's window.
 * Ghost state (what is true, not what the server knows):
 *   gw[i]     the name thread i really waits for: from the try that found it
 *             taken (or, for a scripted wait, the registration) until its
 *             grant or its cancel. A thread that left lock() with its entry
 *             still in Q (it died, or its cancel was lost) still counts while
 *             that entry is live, unless STRICT_GONE: nothing on the server
 *             tells it from a live waiter (its entry lives 3 s:
 *             DL_WAITERS_TTL_MS)
 *   K[n], sh  who really holds n (the server's: a lease that expired is not
 *             held, whatever its holder believes)
 *   dl        the threads that are deadlocked (track(), after every step that
 *             changes gw, K or sh): the least fixpoint of "can progress" over
 *             the real waits (waiting for nothing; a mutex's AND-wait, when
 *             its holder can or there is none; the semaphore's OR-wait, when
 *             a permit is free or one holder can), and a thread is deadlocked
 *             when it cannot progress and a chain of blocked threads leads
 *             from what it waits for back to it: a cycle, or for an OR-wait a
 *             knot, through it. DL_SCRIPT_DEADLOCK's own rule, computed from
 *             the truth, not from the records. On mutexes alone it is "on a
 *             cycle" (a functional graph: 3 threads have at most one cycle),
 *             as the first version of this model had it: every mutex check
 *             below visits the very same states as it did then
 *   rep       the threads reported ({2}) in the current deadlock: reset when
 *             nobody is deadlocked and when a deadlocked thread leaves lock()
 *             (its wait is over; a retry is a new wait, so a new deadlock)
 *
 * Properties (issue 47), asserted in every check:
 *   true_cycle   no false report: a thread gets {2} only while it is
 *                deadlocked (dl), at the check's atomic step: on a cycle of
 *                real waits, and where an OR-wait is on it, in a knot: never
 *                because one holder of a semaphore is in a cycle with its
 *                waiter while another could free it (the issue's "OR-waits
 *                handled"; broken-or-as-and), nor while a permit is free for
 *                it (broken-no-permit-count)
 *   victims<=1   one victim per deadlock: of its threads (from its forming to
 *                its breaking), at most one gets {2}
 *   invalid end  (no -DTIMED) no missed cycle or knot: a block ends by a wake
 *                token, or by its timer only while its thread is deadlocked,
 *                and then once per thread per deadlock (after that its wait
 *                is untimed): a deadlock nobody reports blocks its threads for
 *                good. So: it is reported at the registration that closes
 *                it, or else by the time each of its threads has re-registered
 *                once since it formed (the last to do so, at the latest; a
 *                semaphore's wait is checked from its first re-registration,
 *                as the fencing mutex's). Closing registrations do miss: a
 *                check that found the name free and published nothing, so a
 *                thread that then took that name and waited for one of ours
 *                saw no cycle (-DNEST; found by this model): a check now
 *                publishes on a free name too, and the closing registration
 *                reports. Not covered: timers that keep firing inside another
 *                thread's round trip (its carried ZREM to its next check) can
 *                defer the report for ever in an untimed model; a block lasts
 *                far longer than a round trip.
 *
 * Found by this model (-DSEMA; BROKEN_NO_PERMIT_COUNT is that version): the
 * check of 04da30e did not know a semaphore's limit, so an OR-wait whose
 * semaphore had had a permit free since its waiter registered (a holder
 * released it; the waiter's wake token on its way) still counted as blocked
 * by the holders left, and a check that found a chain through it back to its
 * caller reported (the holder left, waiting for the waiter's name; or the
 * waiter's own check, behind an acquire script that ran before the release)
 * although the waiter was about to be granted. The check now takes the
 * waiter's limit and permits (ARGV, and the record's c and w) and counts the
 * permits in use: room for the waiter's is "unknown", it can progress.
 *
 * Not modelled: multi-lock waits ('a': an AND-wait on the holders of all its
 * names, as a mutex's on one) and readers-writer names (the AND-wait of an
 * exclusive waiter on every reader; a shared waiter's on the readers behind
 * a queued exclusive waiter), fair mode (its liveness hash FA in place of Q,
 * the hand-over leaving it): tests/phpt/424 to 426. A wait on a semaphore of
 * one's own (own > 0: "unknown", can progress), several permits a holder or
 * a waiter (P, <stem>:permits, which the check reads: empty here, one permit
 * each) and permits that expire (the semaphore's K never expires here). A thread
 * that waits holding nothing sends no check (it cannot be on a cycle): here a
 * thread whose try failed ends. The read budget (128 reads) is never reached
 * by 3 threads.
 *
 * Time is not a clock (the process Env): a dead or departed thread's Q entry
 * expires at any step after it left lock() (a live waiter's never: it
 * registers again within its window); with -DEXPIRE a mutex's lease expires at
 * any step (K deleted; its holder still believes it holds, and passes its
 * holder key), EXPIRIES times in a run, but not between the carried SET that
 * granted it and the ZREM behind it (one pipeline: far shorter than a TTL).
 *
 * Options (-D):
 *   TIMED        blocks end by their timer at any step (else: see invalid end)
 *   NO_TIMER     (untimed) not even the once-per-deadlock timer: a block ends
 *                by a wake token only, so a cycle must be reported at the
 *                registration that closes it (not with FENCING or SEMA, whose
 *                first registration carries no check)
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
 *   EXPIRE       mutex leases expire (EXPIRIES in all)
 *   NEST         a thread granted its second name may wait for the third
 *   FENCING      the fencing mutex: every attempt is the acquire script, the
 *                first without the check (an uncontended lock() sends it), the
 *                re-registrations carried behind the BLPOP with the check
 *                (carried_step's c->checked) rather than the plain SET + ZREM;
 *                not granted: the next block
 *   SEMA         name 3 is a semaphore of 2 permits (see above). Its wait is
 *                scripted as the fencing mutex's (permits are not plain:
 *                carried_step carries the acquire script and the check); with
 *                NEST a thread granted a permit may wait for the third name
 *                (no thread waits for the semaphore holding a permit)
 *   RETRY        times a reported thread may retry its wait (default 1)
 * Broken variants (each one step away from the real protocol; .checks):
 *   BROKEN_NO_LIVE_CHECK     DL_SCRIPT_DEADLOCK without the node's "live(rec[6],
 *                            rec[7], rec[4])": the record of a thread that was
 *                            granted and moved on, or gave up, still counts
 *   GRANTED_CHECK            (not a break: an addition) a node whose thread
 *                            holds the name its live record waits for can
 *                            progress, as a first version's walk stopped there
 *                            ("v == rec[4]"): redundant, the same states
 *                            (deadlock.checks says why)
 *   BROKEN_NO_OWN_HOLDS      DL_SCRIPT_DEADLOCK's "for i = 10 + 3 * nx, #ARGV -
 *                            1, 2 do mine[...] = true end" dropped: the search
 *                            never recognises a holder key of its own (it
 *                            still publishes them)
 *   BROKEN_VICTIM_PUBLISHES  DL_SCRIPT_DEADLOCK's "call('DEL', KEYS[2]) return
 *                            out" publishes the record and the holder keys
 *                            before it returns
 *   BROKEN_FREE_NO_PUBLISH   DL_SCRIPT_DEADLOCK's "if own > 0 and #me.edges ==
 *                            0 and not me.unknown then ... return {0}" without
 *                            "own > 0 and": a free name publishes nothing (as a
 *                            first version did): with NO_TIMER a cycle is missed
 *   BROKEN_NO_RECHECK        a re-registration after a carried SET that found
 *                            the name taken is try_script without the check
 *                            (dl_lock_acquire's "by_script && dd ?
 *                            try_script_checked" taken for the first only)
 *   BROKEN_OR_AS_AND         DL_SCRIPT_DEADLOCK's free(nd) with nd.orw false:
 *                            the semaphore's wait blocked when one holder is
 *                            (a false report: not a knot)
 *   BROKEN_OR_ALWAYS_FREE    DL_SCRIPT_DEADLOCK's free(nd) true for an OR-wait,
 *                            as a search that met a semaphore did before
 *                            04da30e: a knot is missed
 *   BROKEN_NO_PERMIT_COUNT   DL_SCRIPT_DEADLOCK's holders() for 'p' never finds
 *                            room ("return lm - used >= wn" false: 04da30e's,
 *                            which had no limit): the false report above
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
#ifdef FENCING
#define FENCING_ON 1
#else
#define FENCING_ON 0
#endif
#ifdef SEMA
#define SEMA_ON 1
#define ISSEM(n) ((n) == 3)     /* name 3 is the semaphore */
#else
#define SEMA_ON 0
#define ISSEM(n) 0
#endif
#define PERMITS 2               /* the semaphore's limit (one permit a holder) */
/* A wait by script from its first attempt, its check from its first
 * re-registration, carried behind each BLPOP with the acquire script: the
 * fencing mutex, and the semaphore (not plain: carried_step carries its
 * acquire script, with the check behind it). */
#define SCRIPTED(n) (FENCING_ON || ISSEM(n))

/* ---- the server (index 0 unused: K[0] = 0, gw[0] = 0 end every chain) ---- */
byte K[4];
byte sh;               /* SEMA: the semaphore's live permits (bit i-1: thread i holds one); K[3] stays 0 */
bool q[16];
byte W[4];
bool rec[16];
byte hk[16];
#define Q(n, i)   q[(n) * 4 + (i)]
#define REC(i, n) rec[(i) * 4 + (n)]
#define HK(n, i)  hk[(n) * 4 + (i)]
#define QLIVE(n)  (Q(n, 1) || Q(n, 2) || Q(n, 3))
#define NQ(n)     (Q(n, 1) + Q(n, 2) + Q(n, 3))
#define NSH       (((sh & 1) != 0) + ((sh & 2) != 0) + ((sh & 4) != 0))
#define TBIT(i) (1 << ((i) - 1))
#define HB(n)   (1 << ((n) - 1))
/* The holders of name n (bit i-1: thread i): a mutex's one (K), the semaphore's permits. */
#define HOLDERS(n) (ISSEM(n) -> sh : (K[n] != 0 -> TBIT(K[n]) : 0))

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
byte dl;               /* bit i-1: thread i is deadlocked (track()) */
byte rep;              /* bit i-1: thread i reported in the current deadlock */
bool tb[4];            /* no TIMED: thread i's block timer spent in the current deadlock */
hidden byte gp, g1, g2, gi, gk;   /* track()'s scratch, inside one d_step: not part of the state */
#define DL(i)   ((dl & TBIT(i)) != 0)
/* Thread i can progress, given the threads gp that can: it waits for
 * nothing; an AND-wait (a mutex) when every holder can (none: the name is
 * free); an OR-wait (the semaphore) when a permit is free or one holder can. */
#define GFREE(i) (gw[i] == 0 || \
                  (ISSEM(gw[i]) -> (NSH < PERMITS || (sh & gp) != 0) : ((HOLDERS(gw[i]) & ~gp) == 0)))

/*
 * After every step that changes gw, K or sh: who is deadlocked. The least
 * fixpoint of "can progress" over the real waits (GFREE, from nobody: three
 * rounds reach every thread that can, there being three); a thread is
 * deadlocked when it cannot progress and a chain of blocked threads leads
 * from what it waits for back to it (g1: the blocked threads reached in 1 to
 * 3 steps): the check's own rule, applied to what is true rather than to
 * what was published. A blocked thread waiting only behind somebody else's
 * cycle is not deadlocked: that cycle's victim frees it. On mutexes alone
 * (one holder a name, a functional graph) this is "on a cycle", as the first
 * version of this model had it. A deadlock that broke is over: nobody
 * deadlocked.
 */
inline track() {
    d_step {
        gp = 0; gk = 0;
        do
        :: gk < 9 ->
           gi = gk % 3 + 1;
           if :: GFREE(gi) -> gp = gp | TBIT(gi) :: else -> skip fi;
           gk++
        :: else -> break
        od;
        dl = 0; gi = 1;
        do
        :: gi <= 3 && (gp & TBIT(gi)) == 0 ->
           g1 = HOLDERS(gw[gi]) & ~gp; gk = 0;
           do
           :: gk < 6 ->
              g2 = gk % 3 + 1;
              if :: g1 & TBIT(g2) -> g1 = g1 | (HOLDERS(gw[g2]) & ~gp) :: else -> skip fi;
              gk++
           :: else -> break
           od;
           if :: g1 & TBIT(gi) -> dl = dl | TBIT(gi) :: else -> skip fi;
           gi++
        :: gi <= 3 && (gp & TBIT(gi)) != 0 -> gi++
        :: else -> break
        od;
        gp = 0; g1 = 0; g2 = 0; gi = 0; gk = 0;
        if
        :: dl == 0 -> rep = 0; tb[1] = 0; tb[2] = 0; tb[3] = 0
        :: else -> skip
        fi
    }
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

/* DL_SCRIPT_ACQUIRE (waiting): SET NX PX and leave Q, or enter Q.
 * DL_SCRIPT_SEM_ACQUIRE (waiting): a permit when the live holders leave one
 * (ZADD; ZREM Q, and W deleted when Q is left empty), or enter Q. */
inline acquire_script(me, n) {
    if
    :: ISSEM(n) && NSH < PERMITS ->
       sh = sh | TBIT(me); gw[me] = 0; track(); Q(n, me) = 0;
       if :: !QLIVE(n) -> W[n] = 0 :: else -> skip fi;
       got = 1
    :: !ISSEM(n) && K[n] == 0 -> grant(me, n); Q(n, me) = 0; got = 1
    :: else -> Q(n, me) = 1; gw[me] = n; track(); got = 0
    fi
}

/* DL_SCRIPT_RELEASE: compare-and-delete; a wake token when a live waiter is in Q.
 * DL_SCRIPT_SEM_RELEASE: ZREM our member; one wake token for the permit it
 * frees while a live waiter is in Q (RPUSH, LTRIM to the live waiters:
 * W = min(W + 1, live waiters)), each token serving a blocked BLPOP. */
inline release_script(me, n) {
    if
    :: ISSEM(n) && (sh & TBIT(me)) ->
       sh = sh & ~TBIT(me); track();
       if :: NQ(n) > W[n] -> W[n]++ :: else -> skip fi;
       serve_blocked(n); serve_blocked(n)
    :: !ISSEM(n) && K[n] == me ->
       K[n] = 0; track();
       if :: QLIVE(n) -> W[n] = 1; serve_blocked(n) :: else -> skip fi
    :: else -> skip
    fi
}

/* DL_SCRIPT_CANCEL: leave Q; the last one out removes W; while others still
 * wait and the name is free, pass a wake token on. DL_SCRIPT_SEM_CANCEL:
 * leave Q; the last one out removes W; while others still wait, one wake
 * token (free permit or not). */
inline cancel_script(me, n) {
    Q(n, me) = 0;
    if
    :: !QLIVE(n) -> W[n] = 0
    :: QLIVE(n) && ISSEM(n) ->
       if :: NQ(n) > W[n] -> W[n]++ :: else -> skip fi;
       serve_blocked(n)
    :: QLIVE(n) && !ISSEM(n) && K[n] != 0 -> skip
    :: QLIVE(n) && !ISSEM(n) && K[n] == 0 -> W[n] = 1; serve_blocked(n)
    fi
}

/* The thread leaves lock() (cancel run or lost, a report, a crash): it waits
 * for nothing, unless its entry is still live in Q (a lost cancel, a death),
 * where it counts as waiting until the entry expires (not with STRICT_GONE).
 * Its wait ended: a deadlock it was in is over for the count of victims (a
 * retry is a new wait, a new deadlock), even while its entry keeps it counted. */
inline leave_wait(me) {
    inlock[me] = 0;
    if :: DL(me) -> rep = 0 :: else -> skip fi;
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

/* The publish of DL_SCRIPT_DEADLOCK: DEL R, HSET R ..., PEXPIRE R, SET each
 * holder key -> R PX (a semaphore's permit is a hold: its holder key too). */
inline publish(me, x) {
    REC(me, x) = 1;
    if :: holdm[me] & HB(1) -> HK(1, me) = x :: else -> skip fi;
    if :: holdm[me] & HB(2) -> HK(2, me) = x :: else -> skip fi;
    if :: holdm[me] & HB(3) -> HK(3, me) = x :: else -> skip fi
}

/* mine[hk]: the holder key <stem(n)>:holder:<sha1(t's token)> is one of ours (ARGV). */
#ifndef BROKEN_NO_OWN_HOLDS
#define MINE(me, n, t) ((t) == (me) && (holdm[me] & HB(n)))
#else
/* breaks DL_SCRIPT_DEADLOCK's "for i = 10 + 3 * nx, #ARGV - 1, 2 do mine[hkey(ARGV[i], ARGV[i + 1])] = true end": mine stays empty */
#define MINE(me, n, t) 0
#endif

/*
 * DL_SCRIPT_DEADLOCK's search, over what it reads. A node is a wait record
 * R(w, m) (thread w waits for name m) that is live: it exists and w's token
 * is live in m's Q (ZSCORE > now). An edge is a holder key HK(n, t), of
 * holder t of name n: mine, or it leads to the record it names. A node's
 * edges are the holders of its name as the script reads them now (GET K: the
 * mutex's holder; the semaphore's ZSET: each live member but the marker).
 * Scratch, inside one d_step: pr the records that can progress (bit RB(w,
 * m)), the least fixpoint; rc the blocked records reached from our edges;
 * ca, cb, co a wait's edges that can, cannot, are ours (the caller's own).
 */
hidden short pr, rc, r0;
hidden byte cw, cm, ct, ca, cb, co, cf, fd;
#define RB(w, m) (1 << (((w) - 1) * 3 + (m) - 1))
#ifndef BROKEN_NO_LIVE_CHECK
#define LIVE(w, m) ((m) != 0 && REC(w, m) && Q(m, w))
#else
/* breaks DL_SCRIPT_DEADLOCK's node condition "live(rec[6], rec[7], rec[4])":
 * the record of a thread that was granted and moved on, or gave up, still
 * counts */
#define LIVE(w, m) ((m) != 0 && REC(w, m))
#endif
/* the edge HK(n, t) leads to a live record that cannot progress (so far) */
#define ENODE(n, t) (LIVE(t, HK(n, t)) && (pr & RB(t, HK(n, t))) == 0)

/* The edges of a wait for name m counted (ca can, cb cannot; with caller,
 * ours apart in co, as "own": not edges): can(hk) is false for a holder key
 * of ours, and for one that leads to a node that cannot progress. */
inline count_edges(me, m, caller) {
    ca = 0; cb = 0; co = 0; ct = 1;
    do
    :: ct <= 3 ->
       if
       :: (HOLDERS(m) & TBIT(ct)) == 0 -> skip
       :: (HOLDERS(m) & TBIT(ct)) != 0 && caller && MINE(me, m, ct) -> co++
       :: (HOLDERS(m) & TBIT(ct)) != 0 && !caller && MINE(me, m, ct) -> cb++
       :: (HOLDERS(m) & TBIT(ct)) != 0 && !MINE(me, m, ct) && ENODE(m, ct) -> cb++
       :: (HOLDERS(m) & TBIT(ct)) != 0 && !MINE(me, m, ct) && !ENODE(m, ct) -> ca++
       fi;
       ct++
    :: else -> break
    od
}

/* holders(k, ..., 'p', ..., lim, want)'s "unknown": the permits in use leave
 * room for the waiter's (lim - used >= want: one permit each here, so a
 * holder fewer than PERMITS); it counts as can progress, caller and node
 * alike (a permit freed since it registered is its at its next attempt). */
#ifndef BROKEN_NO_PERMIT_COUNT
#define ROOM (NSH < PERMITS)
#else
/* breaks DL_SCRIPT_DEADLOCK's holders() for 'p': "return lm - used >= wn"
 * taken as false (the version of 04da30e, which had no limit to count
 * against): a semaphore with a permit free still waits for the holders left */
#define ROOM 0
#endif

/* free(nd) of a wait for name m by thread w, from its counted edges: none
 * (or unknown): it can; a mutex's AND-wait: when no edge is blocked; the
 * semaphore's OR-wait: when one edge can. */
#ifndef GRANTED_CHECK
#define AND_FREE(w, m) (cb == 0)
#else
/* a node whose thread holds the name its live record waits for (a carried
 * SET before its ZREM) can progress, as a first version's walk stopped there:
 * redundant */
#define AND_FREE(w, m) (cb == 0 || K[m] == (w))
#endif
#if defined(BROKEN_OR_AS_AND)
/* breaks DL_SCRIPT_DEADLOCK's free(nd): "if can(e[1]) == nd.orw then return
 * nd.orw end ... return not nd.orw" taken with nd.orw false: the semaphore's
 * wait is an AND-wait on its holders, blocked when one of them is */
#define OR_FREE (cb == 0)
#elif defined(BROKEN_OR_ALWAYS_FREE)
/* breaks DL_SCRIPT_DEADLOCK's free(nd): "if #nd.edges == 0 or nd.unknown
 * then return true end" with "or nd.orw" added: an OR-wait always can
 * progress, as a search that met a semaphore did before 04da30e */
#define OR_FREE 1
#else
#define OR_FREE (ca > 0 || cb == 0)
#endif
#define WAIT_FREE(w, m) (ISSEM(m) -> (ROOM || OR_FREE) : AND_FREE(w, m))

/* DL_SCRIPT_DEADLOCK for thread me waiting for x, as one step: res 0 (not a
 * live waiter, or every holder ours: R deleted), 1 (not deadlocked through
 * us: published) or 2 (our wait closes a cycle or a knot: R deleted, nothing
 * published). */
inline deadlock_check(me, x) {
    d_step {
        pr = 0; rc = 0; fd = 0;
        if
        :: !Q(x, me) -> res = 0                              /* here: not live (granted): {0} */
        :: else ->
           /* while changed do ... free(nd) ... end: the least fixpoint of
            * "can progress" over every live record (the script's covers the
            * records reached from our edges; the others are no node's edge,
            * so they change nothing) */
           do
           :: r0 = pr; cw = 1;
              do
              :: cw <= 3 ->
                 cm = 1;
                 do
                 :: cm <= 3 ->
                    if
                    :: LIVE(cw, cm) && (pr & RB(cw, cm)) == 0 ->
                       count_edges(me, cm, 0);
                       if :: WAIT_FREE(cw, cm) -> pr = pr | RB(cw, cm) :: else -> skip fi
                    :: else -> skip
                    fi;
                    cm++
                 :: else -> break
                 od;
                 cw++
              :: else -> break
              od;
              if :: pr == r0 -> break :: else -> skip fi
           od;
           /* first: our name's holders; own: ours; me.edges: the others;
            * me.unknown: room for our permits */
           count_edges(me, x, 1);
           if
#ifndef BROKEN_FREE_NO_PUBLISH
           :: co > 0 && ca + cb == 0 && !(ISSEM(x) && ROOM) -> res = 0; cf = 1   /* every holder ours: {0} */
#else
           /* breaks DL_SCRIPT_DEADLOCK's "if own > 0 and #me.edges == 0 and
            * not me.unknown then ... return {0}" without "own > 0 and": a free
            * name publishes nothing, as a first version did */
           :: ca + cb == 0 && !(ISSEM(x) && ROOM) -> res = 0; cf = 1
#endif
           :: else ->
              res = 1;                                   /* a free name: published all the same */
              cf = (ca + cb == 0 || (co > 0 && ISSEM(x)) || WAIT_FREE(me, x))   /* own > 0 and orw: unknown */
           fi;
           /* not free(me): the blocked records reached from our edges,
            * breadth first; an edge of one that is ours ends it: {2} */
           if
           :: !cf ->
              ct = 1;
              do
              :: ct <= 3 ->
                 if
                 :: (HOLDERS(x) & TBIT(ct)) && !MINE(me, x, ct) && ENODE(x, ct) -> rc = rc | RB(ct, HK(x, ct))
                 :: else -> skip
                 fi;
                 ct++
              :: else -> break
              od;
              do
              :: r0 = rc; cw = 1;
                 do
                 :: cw <= 3 ->
                    cm = 1;
                    do
                    :: cm <= 3 ->
                       if
                       :: rc & RB(cw, cm) ->
                          ct = 1;
                          do
                          :: ct <= 3 ->
                             if
                             :: (HOLDERS(cm) & TBIT(ct)) && MINE(me, cm, ct) -> fd = 1
                             :: (HOLDERS(cm) & TBIT(ct)) && !MINE(me, cm, ct) && ENODE(cm, ct) ->
                                rc = rc | RB(ct, HK(cm, ct))
                             :: else -> skip
                             fi;
                             ct++
                          :: else -> break
                          od
                       :: else -> skip
                       fi;
                       cm++
                    :: else -> break
                    od;
                    cw++
                 :: else -> break
                 od;
                 if :: fd || rc == r0 -> break :: else -> skip fi
              od;
              res = (fd -> 2 : 1)
           :: else -> skip
           fi
        fi;
        pr = 0; rc = 0; r0 = 0; cw = 0; cm = 0; ct = 0; ca = 0; cb = 0; co = 0; cf = 0; fd = 0
    }
    if
    :: res == 0 -> REC(me, x) = 0
    :: res == 1 -> publish(me, x)
    :: res == 2 ->
#ifndef BROKEN_VICTIM_PUBLISHES
       REC(me, x) = 0
#else
       /* breaks DL_SCRIPT_DEADLOCK's "call('DEL', KEYS[2]) return out": the
        * victim publishes its record and holder keys before it returns */
       publish(me, x)
#endif
    fi;
    /* what the client reads: {2} is a DeadlockException when the acquire
     * script did not grant (try_script_checked: "!*acquired", then
     * dl_deadlock_judge; a grant's own lease may have expired and been taken
     * since: a {2} behind a grant is ignored) */
    if
    :: res == 2 && !got ->
       true_cycle = DL(me);
       assert(true_cycle);                                /* no false report */
       rep = rep | TBIT(me);
       victims = ((rep & 1) != 0) + ((rep & 2) != 0) + ((rep & 4) != 0);
       assert(victims <= 1);                              /* one victim per deadlock */
       true_cycle = 0; victims = 0
    :: else -> skip
    fi
}

/* A lease expires: K deleted. Not between the carried SET that granted it and
 * the ZREM behind it (inlock and still in Q: one pipeline, far shorter than a
 * TTL). A dead thread's grant whose ZREM never ran: once the lease is gone,
 * its entry reads as a waiter's (it counts as waiting, as any dead waiter).
 * The semaphore's permits do not expire in the model (K[3] stays 0). */
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
 * One thread: its first name by a try (SEMA: thread 1 a permit too), then
 * lock() of a second (dl_lock_acquire with dd set: it holds a lease), with
 * -DNEST then maybe lock() of the third (holding two), then release() of
 * each. Each atomic block is one server step with what the thread does with
 * its reply up to its next command.
 */
proctype Thread(byte me) {
    byte s, res, tries = 0;
    bit fresh;   /* a scripted wait's first attempt, whose script an uncontended lock() sends: no check */
    bool got, true_cycle;
    byte victims;

    /* tryLock: SET K token NX PX; the semaphore's acquire script without
     * waiting (a permit when one is free). No wait, no check. */
    atomic {
        if
        :: ISSEM(me) && NSH < PERMITS -> sh = sh | TBIT(me); holdm[me] = HB(me); track()
        :: !ISSEM(me) && K[me] == 0 -> K[me] = me; holdm[me] = HB(me); track()
        :: else -> goto done                              /* taken: it holds nothing, waits for nothing */
        fi;
        if
        :: s = (me % 3) + 1
        :: !(SEMA_ON && me == 1) -> s = ((me + 1) % 3) + 1   /* SEMA: thread 1 waits for 2 only */
        fi
    }
#ifdef SEMA
    /* thread 1: a permit of the semaphore by a second try (taken: it goes on
     * holding name 1 alone) */
    atomic {
        if
        :: me == 1 && NSH < PERMITS -> sh = sh | TBIT(1); holdm[1] = holdm[1] | HB(3); track()
        :: else -> skip
        fi
    }
#endif
lock:
    atomic {
        inlock[me] = 1; got = 0; res = 0;
        if
        :: SCRIPTED(s) -> fresh = 1                       /* by script from the first attempt */
        :: !SCRIPTED(s) && K[s] == 0 -> grant(me, s); got = 1; goto granted   /* try_set: SET K token NX PX */
        :: !SCRIPTED(s) && K[s] != 0 -> gw[me] = s; track()   /* taken: the script next, at once */
        fi
    }
attempt:
    /* try_script_checked: the acquire script, then DL_SCRIPT_DEADLOCK behind
     * it (one pipeline, two steps); never on a first attempt (dl_lock_acquire's
     * "res->attempts > 0"): a scripted wait's first attempt is try_script alone */
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
    :: atomic { blocked[me] && DL(me) && !tb[me] -> blocked[me] = 0; tb[me] = 1 }
#endif
    :: atomic { DEADLINE_ON && blocked[me] -> blocked[me] = 0; goto give_up }
       /* the deadline: the connection dropped, the cancel follows */
    :: atomic { CRASH_ON && faults > 0 && blocked[me] -> faults--; blocked[me] = 0; goto crash }
    fi;
carried:
    /* what was carried behind the BLPOP runs (carried_step) */
    atomic {
        if
        :: SCRIPTED(s) -> acquire_script(me, s); goto carried_check   /* the acquire script, its check behind it */
        :: else ->                                         /* SET K token NX PX, then ZREM Q token */
           if
           :: K[s] == 0 -> grant(me, s); got = 1
           :: else -> skip
           fi
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
carried_check:
    /* a scripted wait: the check behind the carried acquire script
     * (carried_step's c->checked: three commands, the BLPOP then two steps) */
    atomic {
        deadlock_check(me, s);
        if
        :: got -> goto granted
        :: res == 2 -> goto victim
        :: else -> goto block                              /* not granted: the next block */
        fi
    }

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
