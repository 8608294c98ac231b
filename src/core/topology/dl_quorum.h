/*
 * dl_quorum — Redlock: one lease over N independent Redis masters.
 *
 * The algorithm of redis.io ("Distributed Locks with Redis", the Redlock
 * section), with its safety arguments:
 *   - acquire: SET key token NX PX ttl on every master at once (dl_fanout),
 *     under a per-node timeout much smaller than the ttl; granted when a
 *     quorum (N/2 + 1) said OK and the validity time is still positive:
 *         validity = ttl - elapsed - drift,  drift = ttl * 0.01 + 2 ms
 *     (the elapsed time of the round, and the clock drift allowance of the
 *     Redlock page). The lease's valid_until is set from the validity.
 *   - a failed attempt is undone on every master that may hold the key
 *     (those that said OK and those whose reply was lost), with the same
 *     token, so that the name is free at once rather than at the ttl;
 *   - the same token on every node and every retry; a random delay between
 *     attempts (retry_delay + jitter), so that contenders desynchronise;
 *   - release and refresh fan out the same way; a refresh extends only when
 *     a quorum extended and the new validity is positive.
 * A node that times out or refuses the connection is marked down for
 * DL_QUORUM_DOWN_BACKOFF_US: rounds do not wait on it again until then (it
 * counts as not answering). Fewer than a quorum answering at all is a network
 * failure (DL_ERR_QUORUM, naming each node's failure), never "not acquired".
 *
 * Not offered over Redlock (the glue refuses them with a ValueError): fencing
 * tokens (there is no single counter whose order all masters share; see
 * Kleppmann's "How to do distributed locking" and the redis.io page's answer)
 * and fair FIFO hand-over (no single queue). A waiter retries after a random
 * delay (redis.io's procedure), spent blocked on one master's wake list
 * (dl_quorum_acquire), so that a release ends it at once.
 */
#ifndef DL_QUORUM_H
#define DL_QUORUM_H

#include <stddef.h>
#include <stdint.h>

#include "../base/dl_err.h"
#include "../lease/dl_lock.h"
#include "../transport/dl_transport.h"

#define DL_QUORUM_MIN_NODES 3                 /* Redlock needs N >= 3 to survive a node loss */
#define DL_QUORUM_MAX_NODES 64
#define DL_QUORUM_DOWN_BACKOFF_US 1000000     /* a node that timed out is not waited on for 1 s */
#define DL_QUORUM_MIN_NODE_TIMEOUT_US 5000    /* floor of the per-node timeout */
#define DL_QUORUM_FAILED_ATTEMPTS 3           /* attempts without a quorum answering before giving up */

typedef struct dl_quorum_node {
    dl_transport_t t;
    int64_t down_until_ns;    /* monotonic; 0: up */
} dl_quorum_node_t;

typedef struct dl_quorum {
    size_t n;                 /* masters, DL_QUORUM_MIN_NODES..DL_QUORUM_MAX_NODES */
    dl_quorum_node_t *node;
    int64_t timeout_us;       /* per-node timeout ceiling (the servers' read timeout) */
} dl_quorum_t;

/* N/2 + 1. */
size_t dl_quorum_size(size_t n);

/* The Redlock clock drift allowance for a ttl, µs: ttl * 0.01 + 2 ms. */
int64_t dl_quorum_drift_us(int64_t ttl_ms);

/* Validity left after a round that took elapsed_us, µs: ttl - elapsed - drift (may be <= 0). */
int64_t dl_quorum_validity_us(int64_t ttl_ms, int64_t elapsed_us);

/*
 * The per-node timeout of a round for a lease of ttl_ms, µs:
 * min(q->timeout_us, max(ttl / 10, DL_QUORUM_MIN_NODE_TIMEOUT_US)): a node
 * may not eat a large part of the lease (redis.io: "5-50 ms for a 10 s ttl").
 * ttl_ms <= 0 (not known: a release by name and token) gives q->timeout_us.
 */
int64_t dl_quorum_node_timeout_us(const dl_quorum_t *q, int64_t ttl_ms);

/*
 * Acquires lease over a quorum, retrying until opts->wait_us has passed
 * (0: one attempt). fencing and fair must be off (DL_ERR_ARG otherwise).
 * The first attempt is SET NX PX on every master; after a contended one, the
 * acquire script (by EVAL), which registers the waiter where the name is
 * taken; each random delay (opts->backoff) is then spent in BLPOP on the wake
 * list of one master that answered (a sleep where BLPOP is refused). A wait
 * that ends without the lock leaves the waiters sets (cancel, not waited for).
 * Returns DL_OK with res->acquired 0/1 (lease->valid_until_ns and ttl_ms set
 * from the validity when 1); DL_ERR_QUORUM when fewer than a quorum answered
 * in DL_QUORUM_FAILED_ATTEMPTS attempts (or in the only one, without a wait),
 * with a message "k of N masters answered ...: host:port why; ..."; or
 * DL_ERR_INTERRUPTED.
 */
dl_status_t dl_quorum_acquire(dl_quorum_t *q, dl_lease_t *lease, const dl_acquire_opts_t *opts,
                              dl_acquire_result_t *res, dl_error_t *err);

/*
 * Compare-and-delete on every master. *released = 1 when some master removed
 * our key and either a quorum did or the lease was still valid when the round
 * began (then nobody else can hold it); 0: not ours any more. DL_ERR_QUORUM
 * when fewer than a quorum answered (the key then expires at its ttl where
 * the release did not reach).
 */
dl_status_t dl_quorum_release(dl_quorum_t *q, const dl_lease_t *lease, int *released, dl_error_t *err);

/* n leases in one round (request end). released[i] as for dl_quorum_release. */
dl_status_t dl_quorum_release_many(dl_quorum_t *q, size_t n, dl_lease_t *const *leases, int *released,
                                   dl_error_t *err);

/*
 * Compare-and-PEXPIRE to ttl_ms on every master. *extended = 1 when a quorum
 * extended and ttl - elapsed - drift > 0 (lease ttl_ms and valid_until_ns then
 * updated); 0 otherwise. DL_ERR_QUORUM when fewer than a quorum answered.
 */
dl_status_t dl_quorum_refresh(dl_quorum_t *q, dl_lease_t *lease, int64_t ttl_ms, int *extended, dl_error_t *err);

/* n leases, each to its own ttl_ms, in one round (the watchdog); extended[i] as above; leases untouched. */
dl_status_t dl_quorum_refresh_many(dl_quorum_t *q, size_t n, dl_lease_t *const *leases, int *extended,
                                   dl_error_t *err);

/*
 * *pttl_ms = the validity left in ms when a quorum of masters still holds our
 * token: the quorum-th longest PTTL less the drift allowance of the lease's
 * ttl (0 at least); -1 when not ours. Read from the masters, so that it holds
 * for a lease the watchdog renews and for a restored one. DL_ERR_QUORUM as above.
 */
dl_status_t dl_quorum_status(dl_quorum_t *q, const dl_lease_t *lease, int64_t *pttl_ms, dl_error_t *err);

/* The token a quorum of masters holds for key (malloc'd copy), or NULL. DL_ERR_QUORUM as above. */
dl_status_t dl_quorum_owner(dl_quorum_t *q, const char *key, size_t key_len, char **token, size_t *token_len,
                            dl_error_t *err);

/* PTTL: the quorum-th longest PTTL (-2: fewer than a quorum hold the key); waiters 0 (Redlock registers none). */
dl_status_t dl_quorum_inspect(dl_quorum_t *q, const dl_lease_t *lease, dl_lock_info_t *info, dl_error_t *err);

/* *exists = 1 when a quorum of masters hold key. */
dl_status_t dl_quorum_exists(dl_quorum_t *q, const char *key, size_t key_len, int *exists, dl_error_t *err);

/* DEL key on every master regardless of owner: *deleted = 1 when any master deleted it. */
dl_status_t dl_quorum_delete(dl_quorum_t *q, const char *key, size_t key_len, int *deleted, dl_error_t *err);

#endif
