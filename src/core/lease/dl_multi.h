/*
 * dl_multi — a multi-lock: all of n names or none, each name with its own
 * lease (its key, owner token, TTL and fencing token), so that each can be
 * refreshed and released on its own (dl_lock_refresh_many and
 * dl_lock_release_many release them in one round trip).
 *
 * Two ways, picked by the topology (dl_target):
 *   dl_multi_acquire          one script takes every name at once, or none,
 *                             in one round trip (one server, Sentinel, or
 *                             Cluster with every name in one hash slot); a
 *                             waiter blocks on the wake lists of the names it
 *                             found taken (one BLPOP on all of them) and is
 *                             woken by the release of any.
 *   dl_multi_acquire_ordered  one name after the other in a canonical order
 *                             (by key bytes), each waiting on its own, and the
 *                             ones taken released again when a later one
 *                             cannot be had (Cluster across slots). Two
 *                             callers wanting overlapping sets take the shared
 *                             names in the same order, so neither can hold
 *                             one that the other holds while waiting for one
 *                             the other holds: no deadlock (Coffman's
 *                             circular wait is ruled out by a total order).
 */
#ifndef DL_MULTI_H
#define DL_MULTI_H

#include <stddef.h>

#include "dl_lock.h"

#define DL_MULTI_MAX 64   /* names of one multi-lock */

/*
 * Acquires every lease of leases[0..n) (1 <= n <= DL_MULTI_MAX; exclusive
 * leases of distinct keys, each with its own token; the ttl and the fencing
 * flag of leases[0] apply to all), waiting up to opts->wait_us, or none of
 * them. res as for dl_lock_acquire (res->acquired: all were taken; each
 * lease's fence and validity are set). A reply lost on the way (ambiguous: the
 * names may have been taken) is undone with each name's release script before
 * the error is returned; a waiter that gives up leaves the waiters sets it
 * entered. Returns DL_OK, DL_ERR_ARG (bad n, a lease not exclusive or fair, a
 * key twice), DL_ERR_INTERRUPTED, or a transport/server error (on Cluster,
 * CROSSSLOT when the names are in different slots: use the ordered way).
 */
dl_status_t dl_multi_acquire(const dl_transport_t *t, size_t n, dl_lease_t *const *leases,
                             const dl_acquire_opts_t *opts, dl_acquire_result_t *res, dl_error_t *err);

/*
 * The same contract, one name at a time by dl_lock_acquire in the order of
 * their keys (memcmp, then length), all within one deadline of
 * opts->wait_us; when one cannot be had in time, or fails, those already
 * taken are released (dl_lock_release_many) before returning.
 */
dl_status_t dl_multi_acquire_ordered(const dl_transport_t *t, size_t n, dl_lease_t *const *leases,
                                     const dl_acquire_opts_t *opts, dl_acquire_result_t *res, dl_error_t *err);

/*
 * Releases n exclusive, not fair leases (2 <= n; their keys on one node: one
 * server, Sentinel, or one Cluster slot) with one script in one round trip
 * (DL_SCRIPT_MULTI_RELEASE: each name compare-and-deleted and its waiters
 * woken, as dl_lock_release does one). released[i] = 1 when lease i was ours
 * and is deleted now, else 0 (as dl_lock_release_many). Retried once when the
 * connection fails (a release may be repeated). Returns DL_OK, DL_ERR_ARG (a
 * lease of another kind, fair, or n < 2), DL_ERR_NOMEM, or a transport/server
 * error.
 */
dl_status_t dl_multi_release(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, int *released,
                             dl_error_t *err);

#endif
