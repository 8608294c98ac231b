/*
 * dl_renew — the watchdog's renewal schedule: which leases are due, when the
 * next one is, and what a renewal's outcome does. Pure logic on a caller's
 * clock (no threads, no I/O), so it is unit-tested with a fake clock.
 *
 * Rules (Redisson's watchdog: renew every ttl/3):
 *   - a lease is due period = ttl/3 after its grant or last renewal;
 *   - a tick happens when the earliest lease is due, and also takes the
 *     leases due within half their period (renewing a little early is
 *     harmless), so leases granted close together fall into the same tick and
 *     go out in one pipeline per server;
 *   - past its ceiling (max_hold after the grant) a lease is no longer renewed
 *     and lets its TTL run out: a stuck worker cannot hold a lock forever;
 *   - a renewal that finds another owner or no key marks the lease lost;
 *   - a renewal that failed on the network is retried after
 *     min(period, DL_RENEW_RETRY_NS), until the lease could have expired.
 */
#ifndef DL_RENEW_H
#define DL_RENEW_H

#include <stddef.h>
#include <stdint.h>

#include "dl_lock.h"

#define DL_RENEW_RETRY_NS 200000000LL   /* 200 ms */
#define DL_RENEW_NO_CEILING INT64_MAX

typedef enum {
    DL_RENEW_ACTIVE = 0,   /* renewed on schedule */
    DL_RENEW_LOST,         /* a renewal found another owner or no key */
    DL_RENEW_CEILING,      /* max_hold reached: no longer renewed */
    DL_RENEW_STOPPED       /* removed, or dropped in a forked child */
} dl_renew_state_t;

/* One renewal's outcome, kept for an observer of the holder's thread
 * (dl_watchdog_take_reports; DistLock\Event 'renewal' and 'lost'). */
typedef struct dl_renew_report {
    int64_t sent_ns, done_ns;  /* monotonic: the renewal's round trip */
    int64_t ttl_ms;            /* the TTL the renewal asked for */
    int result;                /* 1 renewed, 0 found lost, -1 not reached (network) */
    int lost;                  /* this outcome made the lease lost (DL_RENEW_LOST) */
} dl_renew_report_t;

#define DL_RENEW_REPORTS_MAX 8   /* kept per lease until taken; the oldest make room */

typedef struct dl_renew_entry {
    dl_lease_t *lease;        /* owned copy: key, token, ttl_ms */
    size_t server;            /* which connection renews it (the caller's index) */
    int64_t next_ns;          /* when the next renewal is due */
    int64_t hold_until_ns;    /* the ceiling; DL_RENEW_NO_CEILING for none */
    int64_t expires_ns;       /* end of the lease as last confirmed (grant or renewal + ttl) */
    int state;                /* dl_renew_state_t; under the watchdog's lock (holders use dl_watchdog_state) */
    int in_flight;            /* part of a tick whose replies are pending */
    int64_t pending_ttl_ms;   /* a ttl set while in flight (0: none), applied by dl_renew_result */
    int refs;                 /* the schedule's and the holder's */
    void *lost_arg;           /* passed to the watchdog's lost hook */
    dl_renew_report_t reports[DL_RENEW_REPORTS_MAX];   /* outcomes not taken yet, oldest first */
    unsigned nreports;
} dl_renew_entry_t;

typedef struct dl_renew_sched {
    dl_renew_entry_t **entries;
    size_t n;
    size_t cap;
} dl_renew_sched_t;

/* Renewal period of a lease: ttl/3, in ns (at least 1 ms). */
int64_t dl_renew_period_ns(int64_t ttl_ms);

/* Adds e (granted at granted_ns) to the schedule; sets next_ns, expires_ns,
 * hold_until_ns from max_hold_ns (<= 0: no ceiling). Returns 0, or -1 when out of memory. */
int dl_renew_add(dl_renew_sched_t *s, dl_renew_entry_t *e, int64_t granted_ns, int64_t max_hold_ns);

/* Removes e from the schedule (not freeing it). Returns 1 if it was there. */
int dl_renew_remove(dl_renew_sched_t *s, dl_renew_entry_t *e);

/*
 * Collects into out[] (room for max) the active entries that are not in flight
 * and are due by now + period/2, marking them in flight. Entries past their
 * ceiling become DL_RENEW_CEILING and are not collected. Returns the count.
 */
size_t dl_renew_collect(dl_renew_sched_t *s, int64_t now_ns, dl_renew_entry_t **out, size_t max);

/*
 * Applies a renewal's outcome: renewed 1 (next due sent + period), 0 (lost),
 * or -1 (network error: retry soon, or lost once the lease may have expired).
 * Clears in_flight.
 */
void dl_renew_result(dl_renew_entry_t *e, int64_t sent_ns, int64_t now_ns, int renewed);

/*
 * The holder changed the lease's ttl to ttl_ms (refresh with a new ttl, a
 * reentrant lock with a longer one; called at now_ns, after its command,
 * whatever the reply: a reply lost may hide a shorter ttl that landed).
 * Idle: the next renewals carry the new ttl; the next one and the end the
 * watchdog assumes (expires_ns) move only sooner (a shorter ttl), never
 * later: a renewal of the old ttl sent and answered while the holder's
 * command was under way may have landed behind it, leaving the old ttl on
 * the key, so the next renewal stays within the old ttl's period too. In
 * flight: kept pending, because the renewal under way carries the old ttl and
 * may land after the holder's command; dl_renew_result then applies it and
 * makes the entry due at once, to renew with the new ttl. The same ttl owes
 * nothing. Postponing the next renewal to the new ttl's period lost 1 s
 * leases lengthened to 5 s (phpt 216); tests/model/watchdog.pml checks the
 * rule and shows each part of it failing when left out.
 */
void dl_renew_set_ttl(dl_renew_entry_t *e, int64_t ttl_ms, int64_t now_ns);

/* When the earliest active, idle entry is due (or reaches its ceiling);
 * INT64_MAX when none. */
int64_t dl_renew_next_wakeup(const dl_renew_sched_t *s);

/* Frees the array (not the entries). */
void dl_renew_sched_free(dl_renew_sched_t *s);

#endif
