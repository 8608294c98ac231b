/*
 * dl_rwlock — shared and exclusive leases of one name (a readers-writer
 * lock): changing a held lease from one to the other.
 *
 * Acquire, release, refresh, status and waiting are the one-server
 * operations of dl_lock.h with a lease of kind DL_LEASE_SHARED or
 * DL_LEASE_WRITE (dl_lease.h); their scripts and the key layout are in
 * dl_scripts.h. Writer preference: a live exclusive waiter keeps new shared
 * holders out, so a steady stream of readers cannot starve a writer; shared
 * holders already in keep their leases (and may refresh them).
 */
#ifndef DL_RWLOCK_H
#define DL_RWLOCK_H

#include <stdint.h>

#include "../base/dl_err.h"
#include "../transport/dl_transport.h"
#include "dl_lease.h"

/*
 * Promotion: a shared lease (kind DL_LEASE_SHARED) becomes the exclusive one,
 * at once or not at all — only while it is the sole shared holder and no
 * exclusive holder exists. Waiting for the other shared holders to leave
 * would deadlock two holders promoting at once, so a promotion never waits.
 * *result: 1 promoted (lease->kind DL_LEASE_WRITE, ttl_ms, validity and, with
 * lease->fencing, a new fencing token set); 0 other shared holders (the shared
 * lease is kept as it was); -1 the lease holds nothing (expired or released).
 * Not retried: a lost reply is a transport error, after which the lease is
 * shared or exclusive, and expires after its ttl either way. DL_ERR_ARG for a
 * lease of another kind.
 */
dl_status_t dl_rw_promote(const dl_transport_t *t, dl_lease_t *lease, int64_t ttl_ms, int *result, dl_error_t *err);

/*
 * Demotion: the exclusive lease (kind DL_LEASE_WRITE) becomes a shared one of
 * ttl_ms, and the shared waiters may join it (unless an exclusive waiter
 * waits: writer preference). *result: 1 demoted (lease->kind
 * DL_LEASE_SHARED, ttl_ms and validity set); 0 another owner holds the name;
 * -1 the lease holds nothing. Not retried (as promotion). A transport error
 * (the demotion may have run: readers may share the name now) leaves the
 * lease DL_LEASE_SHARED all the same, its validity the lesser of the old one
 * and ttl_ms from the send. DL_ERR_ARG for a lease of another kind.
 */
dl_status_t dl_rw_demote(const dl_transport_t *t, dl_lease_t *lease, int64_t ttl_ms, int *result, dl_error_t *err);

#endif
