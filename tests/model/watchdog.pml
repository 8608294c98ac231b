/*
 * watchdog.pml — the watchdog's renewals of one lease beside its holder's own
 * changes of the lease's ttl (refresh($ttl), a reentrant lock() with a longer
 * ttl): the schedule's dl_renew_collect, dl_renew_result and dl_renew_set_ttl
 * (src/core/lease/dl_renew.c), and the holder's order, its command and then
 * dl_watchdog_set_ttl (lock_refresh in src/php/lock.c, reenter and
 * refresh_token in src/php/client.c).
 *
 * Two ttls, SHORT and LONG, LONG's renewal period (LONG/3) longer than SHORT
 * (1 s and 5 s in phpt 216). Time is not a clock: what matters is which
 * period the watchdog waits once it is idle (wait: the ttl whose period it
 * waits, DUE for "renew at once"; a failed renewal's retry, min(period,
 * 200 ms), counts as DUE). A lease whose key holds SHORT while the idle
 * watchdog waits LONG's period ends before its next renewal: that state is
 * the violation (RENEWS_IN_TIME). The watchdog may renew at any time (its
 * batching takes leases early; RENEWALS bounds the run); the holder changes
 * the ttl CHANGES times, each to the other ttl, starting from either.
 *
 * Server: srv, the ttl of the last command that landed on the key (a renewal
 * or the holder's). The watchdog and the holder have a connection each, not
 * ordered with each other: a command lands at any step between its send and
 * its reply. A lost reply (FAULTS in a run): the command landed or never
 * will, and the caller reads an error (renewal: result -1; holder:
 * ConnectionException).
 *
 * Broken variants (each one step):
 *   BREAK_POSTPONE     dl_renew_set_ttl idle sets next_ns = now + period(new
 *                      ttl) (the code before phpt 216 failed in CI): a renewal
 *                      of the old SHORT ttl answered while the holder's
 *                      extension to LONG was under way left SHORT on the key,
 *                      and the watchdog waits LONG's period.
 *   BREAK_NO_PENDING   dl_renew_set_ttl applies a new ttl at once while a
 *                      renewal is in flight (no pending_ttl_ms): the result
 *                      schedules by the new ttl what landed with the old.
 *   BREAK_ERROR_KEEPS  the holder tells the watchdog only when its command
 *                      succeeded (lock_refresh's error path without
 *                      dl_watchdog_set_ttl): a shorter ttl that landed but
 *                      whose reply was lost leaves the watchdog on LONG.
 */
/* bounds: CHANGES RENEWALS FAULTS */
#ifndef CHANGES
#define CHANGES 2
#endif
#ifndef RENEWALS
#define RENEWALS 4
#endif
#ifndef FAULTS
#define FAULTS 1
#endif

#define DUE 0
#define SHORT 1
#define LONG 2
#define OTHER(t) (3 - (t))

byte srv;            /* the ttl on the key: the last command that landed */
byte ttl;            /* e->lease->ttl_ms: what the next renewal carries */
byte pending;        /* e->pending_ttl_ms (0: none) */
bool inflight;       /* e->in_flight */
byte wait;           /* next_ns: DUE, or the ttl whose period the watchdog waits */
byte sent;           /* the ttl the renewal in flight carries */
bool wlanded;        /* the renewal in flight has landed */
bool hbusy;          /* the holder's command sent, dl_watchdog_set_ttl not yet called */
byte nrenew, faults, ndone;

/* RENEWS_IN_TIME: idle, not between the holder's command and its
 * dl_watchdog_set_ttl, the watchdog never waits LONG's period while the key
 * holds SHORT. */
#define LATE (!inflight && !hbusy && wait == LONG && srv == SHORT)

/* dl_renew_set_ttl(e, t, now): the holder's change, after its reply */
inline set_ttl(t) {
    if
    :: inflight ->
#ifdef BREAK_NO_PENDING
        ttl = t
#else
        if :: t != ttl || pending != 0 -> pending = t :: else fi   /* the same ttl owes nothing */
#endif
    :: else ->
        ttl = t;
#ifdef BREAK_POSTPONE
        wait = t
#else
        if :: t < wait -> wait = t :: else fi                      /* only ever sooner (DUE < SHORT < LONG) */
#endif
    fi
}

/* dl_renew_result(e, sent, now, r) with r 1 (renewed) or -1 (not reached) */
inline result(r) {
    inflight = false;
    if
    :: pending != 0 -> ttl = pending; pending = 0; wait = DUE   /* renew again at once, with the new ttl */
    :: else ->
        if
        :: r == 1 -> wait = ttl                                 /* next = sent + period(e->lease->ttl_ms) */
        :: else -> wait = DUE                                   /* retry within min(period, 200 ms) */
        fi
    fi
}

proctype watchdog() {
end:
    do
    :: atomic { !inflight && nrenew < RENEWALS -> inflight = true; sent = ttl; wlanded = false; nrenew++ }   /* dl_renew_collect */
    :: atomic { inflight && !wlanded -> srv = sent; wlanded = true }                                       /* lands */
    :: atomic { inflight && wlanded -> result(1) }
    :: atomic { inflight && faults < FAULTS -> faults++; result(-1) }   /* reply lost: landed or never will */
    od
}

proctype holder(byte first) {
    byte cur = first, k = 0;
    bool lost;
    do
    :: k < CHANGES ->
        hbusy = true;
        lost = false;
        if
        :: srv = OTHER(cur)                                   /* dl_target_refresh lands */
        :: atomic { faults < FAULTS -> faults++; lost = true }  /* never lands: the reply is an error */
        fi;
        atomic {
            if
            :: !lost && faults < FAULTS -> faults++; lost = true  /* landed, its reply lost */
            :: else
            fi;
#ifdef BREAK_ERROR_KEEPS
            if :: !lost -> set_ttl(OTHER(cur)) :: else fi;
#else
            set_ttl(OTHER(cur));                            /* after the reply, whatever it was */
#endif
            hbusy = false
        }
        cur = OTHER(cur);
        k++
    :: else -> break
    od;
    ndone++
}

proctype monitor() {
    assert(!LATE)
}

init {
    byte first;
    if :: first = SHORT :: first = LONG fi;
    atomic { srv = first; ttl = first; wait = first; run watchdog(); run holder(first); run monitor() };
    ndone == 1
}
