/*
 * fair.pml — the mutex in fair mode: FIFO hand-over to the queue's live head
 * (DL_SCRIPT_FAIR_ACQUIRE, DL_SCRIPT_FAIR_RELEASE and its cancel form), each
 * waiter blocked on its own wake list with the owner-checked refresh
 * (DL_SCRIPT_REFRESH) carried behind its BLPOP (carried_step,
 * take_handover in src/core/lease/dl_acquire.c). A script is one atomic step.
 *
 * Server state: K owner (0: absent); fq[i] client i's place in the fair
 * queue FQ (its arrival number, 0: not queued; ZADD NX keeps the first);
 * alive[i] its liveness entry in FA is fresh; mywake[i] a hand-over token in
 * its own wake list; blocked/popped its BLPOP. Client beliefs as mutex.pml.
 * Time: validities end at any step; K expires only after its holder's
 * validity (a hand-over's validity counts from the waiter's last attempt);
 * a liveness entry goes stale only while its client is not waiting (a live
 * waiter refreshes it within 2 s, it lasts 3 s).
 *
 * Options: CLIENTS (3), ACQ, CRASH, TIMED, DEADLINES, NOEXPIRE (as mutex.pml);
 *   CLAIM   the claim and its refresh (a ttl longer than the claim, 3 s): a
 *           hand-over grants min(ttl, claim) (vt set by the grant: a short
 *           lease, whose validity, then K, may end at any step before the
 *           refresh lands); the refresh carried behind the BLPOP
 *           (carried_step: DL_SCRIPT_REFRESH, owner-checked) runs at a later
 *           step than the pop, and only when it extended does the waiter's
 *           validity count anew (take_handover: blocked_ns + ttl); "not
 *           ours": the next attempt. A hand-over found by an attempt is
 *           extended by DL_SCRIPT_FAIR_ACQUIRE's own owner-checked PEXPIRE.
 * Broken variants:
 *   BROKEN_FAIR_NO_HEAD_CHECK   DL_SCRIPT_FAIR_ACQUIRE takes a free name without
 *                               "(not head or head == tok)": a newcomer passes
 *                               the queue
 *   BROKEN_FAIR_CANCEL_NO_PASS  the cancel form of DL_SCRIPT_FAIR_RELEASE leaves
 *                               the queue and returns: a hand-over that came as
 *                               the waiter left is not passed on
 *   BROKEN_FAIR_REFRESH_NO_OWNER (CLAIM) the carried DL_SCRIPT_REFRESH without
 *                               "if v == ARGV[1] then": a plain PEXPIRE K, 1
 *                               whenever K exists: after the claim ran out and
 *                               another client took the name, it extends that
 *                               client's lease and says "extended"
 */
/* bounds: CLIENTS ACQ */
#ifndef CLIENTS
#define CLIENTS 3
#endif
#if CLIENTS != 3
#error "fair.pml is written for 3 clients"
#endif
#ifndef ACQ
#define ACQ 1
#endif
#ifndef FAULTS
#define FAULTS 1
#endif
#define N CLIENTS

byte K = 0;
byte fq[N + 1];
byte seq = 0;
bool alive[N + 1];
bool mywake[N + 1];
bool blocked[N + 1];
bool popped[N + 1];
bool vt[N + 1];
bool holds[N + 1];
bool waiting[N + 1];
byte nholding = 0;
byte ndone = 0;
byte faults = FAULTS;

#ifdef CRASH
#define CRASH_ON 1
#else
#define CRASH_ON 0
#endif
#ifdef DEADLINES
#define DEADLINE_ON 1
#else
#define DEADLINE_ON 0
#endif
#ifdef TIMED
#define TIMED_ON 1
#else
#define TIMED_ON 0
#endif
#define CRASH_CHOICE \
    if :: CRASH_ON && faults > 0 -> faults--; goto crash :: true -> skip fi

/* A live waiter queued ahead of x (x's number, 0: x not queued) */
#define AHEAD(y, x) (y != x && fq[y] > 0 && alive[y] && waiting[y] && (fq[x] == 0 || fq[y] < fq[x]))

/* A grant to x: FIFO among live waiters (none queued ahead of it still
 * waits), then mutual exclusion when it reads it. */
inline granted_to(x) {
    assert(!(AHEAD(1, x) || AHEAD(2, x) || AHEAD(3, x)));
    K = x; vt[x] = 1
}
inline believe(me) {
    holds[me] = 1; nholding++;
    assert(nholding <= 1)
}

/* h = the head of FQ (lowest arrival number), 0: empty */
inline head(h) {
    h = 0;
    if :: fq[1] > 0 -> h = 1 :: else -> skip fi;
    if :: fq[2] > 0 && (h == 0 || fq[2] < fq[h]) -> h = 2 :: else -> skip fi;
    if :: fq[3] > 0 && (h == 0 || fq[3] < fq[h]) -> h = 3 :: else -> skip fi
}

inline enqueue(me) {
    if :: fq[me] == 0 -> seq++; fq[me] = seq :: else -> skip fi;   /* ZADD NX */
    alive[me] = 1                                                   /* HSET FA */
}

/* DL_SCRIPT_FAIR_ACQUIRE */
inline fair_acquire(me, got, h) {
    if
    :: K == me ->                               /* handed over, found by this attempt */
#ifdef CLAIM
       vt[me] = 1;                              /* PEXPIRE K ttl (v == tok): valid from this attempt's send */
#endif
       fq[me] = 0; alive[me] = 0; mywake[me] = 0; got = 1
    :: K != 0 && K != me -> enqueue(me); got = 0
    :: K == 0 ->
       do                                       /* drop dead heads */
       :: head(h);
          if
          :: h == 0 -> break
          :: h != 0 && alive[h] -> break
          :: h != 0 && !alive[h] -> fq[h] = 0
          fi
       od;
#ifndef BROKEN_FAIR_NO_HEAD_CHECK
       if
       :: h == 0 || h == me -> granted_to(me); fq[me] = 0; alive[me] = 0; got = 1
       :: else -> enqueue(me); got = 0
       fi
#else
       /* breaks DL_SCRIPT_FAIR_ACQUIRE's "(not head or head == tok) and": takes any free name */
       granted_to(me); fq[me] = 0; alive[me] = 0; got = 1
#endif
    fi;
    h = 0
}

/* The hand-over half of DL_SCRIPT_FAIR_RELEASE: to the longest live waiter,
 * or the key deleted. */
inline hand_over(h) {
    do
    :: head(h);
       if
       :: h == 0 -> K = 0; break
       :: h != 0 && !alive[h] -> fq[h] = 0
       :: h != 0 && alive[h] ->
          granted_to(h);                        /* SET K head PX min(ttl, claim) */
          fq[h] = 0; alive[h] = 0;              /* ZREM FQ head, HDEL FA head */
          mywake[h] = 1;                        /* RPUSH its wake list */
          if :: blocked[h] -> blocked[h] = 0; mywake[h] = 0; popped[h] = 1 :: else -> skip fi;
          break
       fi
    od;
    h = 0
}

inline fair_release(me, h) {
    if
    :: K == me -> hand_over(h)
    :: else -> skip
    fi
}

/* The cancel form: leave the queue (and our wake list), then as the release. */
inline fair_cancel(me, h) {
    fq[me] = 0; alive[me] = 0; mywake[me] = 0;
#ifndef BROKEN_FAIR_CANCEL_NO_PASS
    fair_release(me, h)
#else
    /* breaks DL_SCRIPT_FAIR_RELEASE's cancel falling through to the hand-over */
    skip
#endif
}

/* The refresh carried behind the BLPOP (carried_step: prim->refresh, for the
 * mutex DL_SCRIPT_REFRESH): "if GET K == token then return PEXPIRE K ttl end
 * return 0"; one step. got = 1 extended, 0 not ours. */
inline fair_refresh(me, got) {
#ifndef BROKEN_FAIR_REFRESH_NO_OWNER
    if :: K == me -> got = 1 :: else -> got = 0 fi
#else
    /* breaks DL_SCRIPT_REFRESH's "if v == ARGV[1] then": PEXPIRE K ttl
     * whoever holds K */
    if :: K != 0 -> got = 1 :: else -> got = 0 fi
#endif
}

active proctype Env() {
end:
    do
    :: atomic { vt[1] -> vt[1] = 0; if :: holds[1] -> holds[1] = 0; nholding-- :: else -> skip fi }
    :: atomic { vt[2] -> vt[2] = 0; if :: holds[2] -> holds[2] = 0; nholding-- :: else -> skip fi }
    :: atomic { vt[3] -> vt[3] = 0; if :: holds[3] -> holds[3] = 0; nholding-- :: else -> skip fi }
#ifndef NOEXPIRE
    :: atomic { K != 0 && !vt[K] -> K = 0 }
#endif
    :: atomic { alive[1] && !waiting[1] -> alive[1] = 0 }
    :: atomic { alive[2] && !waiting[2] -> alive[2] = 0 }
    :: atomic { alive[3] && !waiting[3] -> alive[3] = 0 }
    od
}

proctype Client(byte me) {
    byte acq = 0, h = 0;
    bool got, at_deadline;

next_lock:
    atomic {
        if
        :: acq == ACQ -> goto done
        :: else -> acq++
        fi;
        waiting[me] = 1; got = 0
    }
attempt:
    atomic {
        CRASH_CHOICE;
        fair_acquire(me, got, h);
        if :: got -> goto granted :: else -> skip fi;
        if :: DEADLINE_ON -> goto give_up :: true -> skip fi
    }
    atomic {                                    /* BLPOP my wake list, the refresh behind it */
        CRASH_CHOICE;
        at_deadline = 0;
        if :: DEADLINE_ON -> at_deadline = 1 :: true -> skip fi;   /* a block the deadline may end */
        if
        :: mywake[me] -> mywake[me] = 0; popped[me] = 1
        :: else -> blocked[me] = 1
        fi
    }
    if
#ifndef CLAIM
    :: atomic { popped[me] -> popped[me] = 0;
                /* DL_SCRIPT_REFRESH, carried: extends a hand-over to our ttl */
                if :: K == me -> goto granted :: else -> goto attempt fi }
#else
    :: atomic { popped[me] -> popped[me] = 0;
                /* DL_SCRIPT_REFRESH, carried: it runs after the pop, any
                 * steps after the hand-over; the claim may have ended */
                fair_refresh(me, got);
                if
                :: got -> vt[me] = 1; got = 0; goto granted   /* take_handover: carried_extended == 1 */
                :: else -> goto attempt                       /* 0: the next attempt */
                fi }
#endif
    :: atomic { TIMED_ON && blocked[me] -> blocked[me] = 0; goto attempt }
    :: atomic { at_deadline && blocked[me] -> blocked[me] = 0; goto give_up }
    :: atomic { at_deadline && popped[me] -> popped[me] = 0; goto give_up }   /* served, never read */
    :: atomic { CRASH_ON && faults > 0 && (blocked[me] || popped[me]) -> faults--; blocked[me] = 0; popped[me] = 0; goto crash }
    fi;

give_up:
    atomic { CRASH_CHOICE; fair_cancel(me, h); waiting[me] = 0; goto next_lock }   /* DL_FAIR_CANCEL_SCRIPT */

granted:
    atomic { waiting[me] = 0; fq[me] = 0; alive[me] = 0; mywake[me] = 0; if :: vt[me] -> believe(me) :: else -> skip fi }
    atomic {
        CRASH_CHOICE;
        if :: holds[me] -> holds[me] = 0; nholding-- :: else -> skip fi; vt[me] = 0;
        fair_release(me, h);                    /* DL_SCRIPT_FAIR_RELEASE */
        goto next_lock
    }

crash:
    atomic {
        if :: holds[me] -> holds[me] = 0; nholding-- :: else -> skip fi;
        vt[me] = 0; waiting[me] = 0; blocked[me] = 0; popped[me] = 0
    }
done:
    ndone++
}

init {
    atomic { run Client(1); run Client(2); run Client(3) }
}
