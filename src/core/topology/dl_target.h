/*
 * dl_target — the servers one DistLock instance locks on, and the lock
 * operations dispatched on their topology:
 *
 *   DL_TARGET_SINGLE   one server (dl_conn; the operations of dl_lock)
 *   DL_TARGET_REDLOCK  N >= 3 independent masters (one dl_conn each; dl_quorum)
 *   DL_TARGET_SENTINEL the master of a Sentinel service (dl_sentinel finds it,
 *                      and again on every reconnect; the operations of dl_lock)
 *   DL_TARGET_CLUSTER  a Redis Cluster (dl_cluster routes each command to the
 *                      master of its key's slot; the operations of dl_lock)
 *
 * The PHP glue, the persistent pool and the watchdog hold a dl_target_t and
 * never a topology's pieces, so a topology is added here and in its own core
 * files, without touching them. The operations keep the contracts of
 * dl_lock.h (single server) and dl_quorum.h (Redlock); where they differ,
 * the difference is said below.
 */
#ifndef DL_TARGET_H
#define DL_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "../base/dl_err.h"
#include "../lease/dl_lock.h"
#include "../base/dl_uri.h"

typedef enum {
    DL_TARGET_SINGLE = 0,
    DL_TARGET_REDLOCK,
    DL_TARGET_SENTINEL,
    DL_TARGET_CLUSTER
} dl_target_kind_t;

typedef struct dl_target_config {
    dl_target_kind_t kind;
    size_t n;                       /* servers: 1 (single), the Redlock masters, the sentinels, or the Cluster's seeds */
    dl_server_config_t *servers;    /* malloc'd array of n */
    char *service;                  /* SENTINEL: the master's name (malloc'd) */
    dl_server_config_t master;      /* SENTINEL: the master's credentials, database, timeouts and TLS
                                     * (host and port: a placeholder, replaced by each resolution) */
} dl_target_config_t;

typedef struct dl_target dl_target_t;

/*
 * Creates the target for cfg, which it takes over (cfg is zeroed), without
 * connecting (each server connects on first use). Returns NULL with err set:
 * DL_ERR_NOMEM; DL_ERR_NOTLS for rediss:// on a build without TLS; DL_ERR_ARG
 * for a Redlock of fewer than DL_QUORUM_MIN_NODES or more than
 * DL_QUORUM_MAX_NODES masters, or a Sentinel or Cluster setup that
 * dl_sentinel_new or dl_cluster_new refuses.
 */
dl_target_t *dl_target_new(dl_target_config_t *cfg, dl_error_t *err);

/* Closes every connection (without writing in another process) and frees the target. */
void dl_target_free(dl_target_t *tg);

/* In a forked child, for a target another thread was using at fork(): only the sockets are closed (dl_conn_abandon). */
void dl_target_abandon(dl_target_t *tg);

/* Prepares an idle (pooled) target for reuse: dl_conn_check_idle on each connection. */
void dl_target_check_idle(dl_target_t *tg);

/* Reads every reply still owed on the target's connections (deferred releases, late Redlock replies). */
void dl_target_settle(dl_target_t *tg);

/*
 * The end of a request (RSHUTDOWN, DistLock::endRequest(), the instance freed):
 * releases leases[0..n) as dl_target_release_many does (n may be 0), then reads
 * every reply owed on the target (dl_target_settle), all within ONE `timeout`
 * (issue 37.2), however many leases: every release is written before any reply
 * is awaited, and a release whose reply the bound cannot wait for is still
 * written (its second attempt deferred), never dropped. Returns as
 * dl_target_release_many (DL_OK when n is 0).
 */
dl_status_t dl_target_end_request(dl_target_t *tg, size_t n, dl_lease_t *const *leases, int *released,
                                  dl_error_t *err);

const dl_target_config_t *dl_target_config(const dl_target_t *tg);

/* 1 when a and b are the same topology of the same servers (dl_server_config_same for each, in order). */
int dl_target_config_same(const dl_target_config_t *a, const dl_target_config_t *b);
/* Deep copy. DL_OK or DL_ERR_NOMEM (dst then holds nothing). */
dl_status_t dl_target_config_copy(dl_target_config_t *dst, const dl_target_config_t *src);
/* Frees the servers (wiping passwords) and zeroes cfg. */
void dl_target_config_free(dl_target_config_t *cfg);

/* ---- lock operations (dl_lock.h; Redlock: dl_quorum.h) ------------------ */

dl_status_t dl_target_acquire(dl_target_t *tg, dl_lease_t *lease, const dl_acquire_opts_t *opts,
                              dl_acquire_result_t *res, dl_error_t *err);
/* Releases lease (dl_lock_release; Redlock: dl_quorum_release): *released 1 when
 * it was ours, 0 when lost. A transport failure returned here marks the lease
 * release_unsure, and a later release of it that finds the key gone while the
 * lease is still valid sets *released 1 (the failed call's attempt removed it;
 * dl_target.c). The same for dl_target_release_many, per lease. */
dl_status_t dl_target_release(dl_target_t *tg, dl_lease_t *lease, int *released, dl_error_t *err);
/* Redlock: done synchronously (a round over N masters is not deferred); errors count as lost. */
dl_status_t dl_target_release_deferred(dl_target_t *tg, const dl_lease_t *lease, dl_release_done_fn done);
/* The same, telling done(arg, ...) exactly once (dl_lock_release_deferred_ex; Redlock: endpoint NULL). */
dl_status_t dl_target_release_deferred_ex(dl_target_t *tg, const dl_lease_t *lease, dl_release_done_ex_fn done,
                                          void *arg);
/* Releases n leases in one round trip: mutex leases (not fair) on one node (one
 * server, Sentinel, one Cluster slot) with one script (dl_multi_release), others
 * as a pipeline of their release scripts (dl_lock_release_many). */
dl_status_t dl_target_release_many(dl_target_t *tg, size_t n, dl_lease_t *const *leases, int *released,
                                   dl_error_t *err);
dl_status_t dl_target_refresh(dl_target_t *tg, dl_lease_t *lease, int64_t ttl_ms, int *extended, dl_error_t *err);
dl_status_t dl_target_refresh_many(dl_target_t *tg, size_t n, dl_lease_t *const *leases, int *extended,
                                   dl_error_t *err);
dl_status_t dl_target_status(dl_target_t *tg, const dl_lease_t *lease, int64_t *pttl_ms, dl_error_t *err);
dl_status_t dl_target_owner(dl_target_t *tg, const char *key, size_t key_len, char **token, size_t *token_len,
                            dl_error_t *err);
/* dl_lock_inspect: what holds the name, of any kind. Redlock: dl_quorum_inspect (the mutex only). */
dl_status_t dl_target_inspect(dl_target_t *tg, const dl_lease_t *lease, dl_lock_info_t *info, dl_error_t *err);
/* *locked = 1 while anyone holds lease's name, of any kind (dl_lock_inspect's kind is not
 * DL_HELD_NONE); Redlock: a quorum of masters hold the mutex's key (dl_quorum_exists). */
dl_status_t dl_target_is_locked(dl_target_t *tg, const dl_lease_t *lease, int *locked, dl_error_t *err);
dl_status_t dl_target_exists(dl_target_t *tg, const char *key, size_t key_len, int *exists, dl_error_t *err);
/* forceRelease(): dl_lock_delete_holders (every kind's holders); Redlock: DEL of the mutex's key on every master. */
dl_status_t dl_target_delete(dl_target_t *tg, const dl_lease_t *lease, int *deleted, dl_error_t *err);

/*
 * The lease's kind (dl_lease.h) picks the primitive: the mutex on every
 * topology; the semaphore (DL_LEASE_PERMITS) and shared/exclusive leases
 * (DL_LEASE_SHARED, DL_LEASE_WRITE) on one server, Sentinel and Cluster (their
 * keys share the name's slot). On Redlock, dl_target_acquire of another kind
 * than DL_LEASE_EXCLUSIVE returns DL_ERR_ARG, saying why.
 */

/*
 * All of n names or none (dl_multi.h): one script in one round trip on one
 * server, on Sentinel, and on Cluster when every key is in one hash slot;
 * across slots, one name at a time in canonical order, with undo. Redlock:
 * DL_ERR_ARG.
 */
dl_status_t dl_target_multi_acquire(dl_target_t *tg, size_t n, dl_lease_t *const *leases,
                                    const dl_acquire_opts_t *opts, dl_acquire_result_t *res, dl_error_t *err);

/* dl_lock_permits_used (a semaphore's holders and permits in use). Redlock: DL_ERR_ARG. */
dl_status_t dl_target_permits_used(dl_target_t *tg, const dl_lease_t *lease, long long *holders, long long *used,
                                   dl_error_t *err);

/* Promotion and demotion of readers-writer leases (dl_rwlock.h). Redlock: DL_ERR_ARG. */
dl_status_t dl_target_promote(dl_target_t *tg, dl_lease_t *lease, int64_t ttl_ms, int *result, dl_error_t *err);
dl_status_t dl_target_demote(dl_target_t *tg, dl_lease_t *lease, int64_t ttl_ms, int *result, dl_error_t *err);


/* How releases go, for var_dump(): "not known yet" (before the first call),
 * "native (DELEX)", "native (DELIFEQ)" or "script" (a single server); "script" (Redlock). */
const char *dl_target_release_path(dl_target_t *tg);

/*
 * The node a lease's keys live on, for an event that names the server of one
 * lease among several sent in one call (a release batch across Cluster slots):
 * on Cluster the master serving its slot in the current map, written to buf
 * as the transport names it ("host:port"), and 1; 0 on the other topologies
 * (one server answers all, or a quorum: the call's own server applies) and
 * when no master serves the slot. No I/O.
 */
int dl_target_node_of(const dl_target_t *tg, const dl_lease_t *lease, char *buf, size_t size);

#endif
