/*
 * dl_watchdog — one background thread per process that renews held leases.
 *
 * While a PHP process sleeps, waits on a database or is blocked in any C
 * call, its leases are renewed every ttl/3 (dl_renew) by this thread, over its
 * own connections (one dl_target per server or topology; never the PHP side's), with no Zend calls.
 * Renewals due in the same tick on one server go out as one pipeline.
 *
 * The thread starts with the first lease added. After fork() the child's
 * copy of the schedule is dropped without a byte written (its leases are the
 * parent's), and the child starts its own thread when it first adds a lease
 * (pthread_atfork). A SIGKILLed process renews nothing: its leases expire
 * within their TTL. dl_watchdog_shutdown stops and joins the thread.
 *
 * Entries are shared by the thread and the holder (reference counted); the
 * holder reads an entry's state with dl_watchdog_state (under the lock).
 */
#ifndef DL_WATCHDOG_H
#define DL_WATCHDOG_H

#include <stdint.h>

#include "../base/dl_err.h"
#include "../lease/dl_renew.h"
#include "dl_target.h"

typedef struct dl_watchdog_stats {
    uint64_t ticks;        /* rounds that sent renewals */
    uint64_t round_trips;  /* pipelines sent (one per server per tick) */
    uint64_t renewals;     /* leases renewed */
    uint64_t lost;         /* leases found lost by a renewal */
    uint64_t errors;       /* pipelines that failed on the network */
} dl_watchdog_stats_t;

/*
 * Called on the watchdog thread, under its lock, when a renewal finds a lease
 * with a lost_arg lost; arg is that lost_arg (the holder's own: with several
 * threads, each thread's flag; see
 * docs/decisions/0030-threads-zts-state-scope.md). Must only set flags (it is
 * how the holder's thread is asked to look). Set once, before the first
 * dl_watchdog_add.
 */
void dl_watchdog_set_lost_hook(void (*hook)(void *arg));

/*
 * Starts renewing a copy of lease (key, token, ttl_ms) granted at granted_ns
 * (monotonic) on server, until removed or max_hold_us (<= 0: no ceiling) has
 * passed since the grant. lost_arg goes to the lost hook. Returns DL_OK and
 * *entry (one reference for the caller), DL_ERR_NOMEM, or DL_ERR_ARG when the
 * thread cannot be started.
 */
dl_status_t dl_watchdog_add(const dl_target_config_t *server, const dl_lease_t *lease, int64_t granted_ns,
                            int64_t max_hold_us, void *lost_arg, dl_renew_entry_t **entry, dl_error_t *err);

/* Sets the ttl (ms) of the entry's next renewals: called after the holder's
 * command that changes the lease's ttl on the server, whatever its reply
 * (dl_renew_set_ttl: the rule). */
void dl_watchdog_set_ttl(dl_renew_entry_t *entry, int64_t ttl_ms);

/* Stops renewing entry and drops the caller's reference. */
void dl_watchdog_remove(dl_renew_entry_t *entry);

/* The entry's dl_renew_state_t. */
int dl_watchdog_state(dl_renew_entry_t *entry);

/* Counters since the thread started in this process. */
void dl_watchdog_get_stats(dl_watchdog_stats_t *out);

/*
 * Moves the renewal outcomes recorded for entry since the last call (oldest
 * first, at most DL_RENEW_REPORTS_MAX: older ones were dropped) into out[]
 * (room for DL_RENEW_REPORTS_MAX); returns how many. For the holder's thread,
 * which tells its observers (src/php/observer.c); entry must still be the
 * holder's (before dl_watchdog_remove).
 */
size_t dl_watchdog_take_reports(dl_renew_entry_t *entry, dl_renew_report_t *out);

/* Stops and joins the thread and frees everything (module shutdown). */
void dl_watchdog_shutdown(void);

#endif
