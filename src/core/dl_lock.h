/*
 * dl_lock — lock operations on one Redis server.
 *
 *   acquire   SET key token NX PX ttl (one round trip), with optional waiting;
 *             with fencing, one script: SET NX PX + INCR of the name's counter
 *   release   compare-and-delete script (EVALSHA, EVAL on NOSCRIPT)
 *   refresh   compare-and-PEXPIRE script
 *   status    is it still ours, and its PTTL
 *   exists / delete   EXISTS / DEL for isLocked() and forceRelease()
 *
 * Every function works through a dl_transport_t and returns a dl_status_t:
 * DL_OK means Redis answered; whether the lock was ours is an out value.
 * A network failure is never folded into "not acquired" / "not ours".
 *
 * Retries (the transport drops a failed connection, so a retry runs on a
 * fresh one): release and refresh are sent once more after any transport
 * failure, timeouts included (idempotent; a lost release reply would keep the
 * lock until its TTL: RELIABILITY.md item 3); status and exists only after the
 * connection broke, not after a timeout; acquire and delete never (a repeat
 * could act twice: see dl_lock_acquire).
 */
#ifndef DL_LOCK_H
#define DL_LOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dl_err.h"
#include "dl_transport.h"
#include "dl_wait.h"

#define DL_NAME_MAX 1024        /* bytes of a lock name */
#define DL_PREFIX_MAX 256       /* bytes of a key prefix */
#define DL_TOKEN_MAX 128        /* bytes of a token given to restore() */
#define DL_TTL_MAX_MS 1000000000000LL  /* 1e9 s: far below Redis's PX limit */
#define DL_FENCE_SUFFIX ":fence"
#define DL_FENCE_SUFFIX_LEN 6

/* One lease: a key held (or wanted) under a token. */
typedef struct dl_lease {
    char *key;                /* prefix + name, binary-safe (in the lease's own block) */
    size_t key_len;
    char *token;              /* NUL-terminated (in the lease's own block) */
    size_t token_len;
    char *fence_key;          /* the name's fencing counter, same Cluster slot (dl_key) */
    size_t fence_key_len;
    int fencing;              /* set by the caller before acquiring: grant a fencing token */
    long long fence;          /* the fencing token of this grant (0: none) */
    int64_t ttl_ms;           /* lease length of the last grant or refresh */
    int64_t valid_until_ns;   /* monotonic: send time of the grant/refresh + ttl */
    pid_t pid;                /* process that acquired (or restored) it */
} dl_lease_t;

/*
 * Allocates a lease (one malloc block, freed by dl_lease_free) for key prefix+name. token NULL: a fresh random token
 * (dl_token_generate); otherwise a copy of token[0..token_len). The pid is
 * the caller's. Returns NULL with err set (DL_ERR_NOMEM or DL_ERR_RANDOM).
 */
dl_lease_t *dl_lease_new(const char *prefix, size_t prefix_len, const char *name, size_t name_len,
                         const char *token, size_t token_len, int64_t ttl_ms, dl_error_t *err);
void dl_lease_free(dl_lease_t *lease);

/* Microseconds of client-side validity left (0 when past), by the monotonic clock. */
int64_t dl_lease_validity_us(const dl_lease_t *lease);

typedef struct dl_acquire_opts {
    int64_t wait_us;          /* 0: one attempt; else retry until this much time has passed */
    dl_backoff_t backoff;
    /* Checked before each sleep; non-zero ends the wait with DL_ERR_INTERRUPTED. May be NULL. */
    int (*interrupted)(void *arg);
    void *interrupt_arg;
} dl_acquire_opts_t;

typedef struct dl_acquire_result {
    int acquired;             /* 1: the lease is ours (lease->valid_until_ns set) */
    unsigned attempts;        /* SET attempts sent */
    unsigned contended;       /* attempts that found another owner */
    int64_t waited_us;        /* time spent between the first attempt and the outcome */
} dl_acquire_result_t;

/*
 * Acquires lease->key for lease->token with PX lease->ttl_ms, waiting up to
 * opts->wait_us with backoff (dl_wait). While waiting, each attempt also reads
 * the holder's PTTL in the same round trip to cap the sleep.
 *
 * Returns DL_OK with res->acquired 0 or 1; DL_ERR_INTERRUPTED; or a
 * transport/server error. An attempt whose reply was lost (timeout, I/O or
 * protocol error) is ambiguous: the SET may have run. Before returning that
 * error, the lease is released with the same token (compare-and-delete) so
 * no orphan is left when the server answers; if that cleanup fails too, the
 * key still expires after ttl_ms. Success is reported only when seen.
 */
dl_status_t dl_lock_acquire(const dl_transport_t *t, dl_lease_t *lease, const dl_acquire_opts_t *opts,
                            dl_acquire_result_t *res, dl_error_t *err);

/* Compare-and-delete. *released = 1 when the key held our token and is gone, 0 when not ours. */
dl_status_t dl_lock_release(const dl_transport_t *t, const dl_lease_t *lease, int *released, dl_error_t *err);

/*
 * Releases n leases in one pipelined round trip (request end). released[i]
 * as for dl_lock_release. NOSCRIPT replies are re-sent with EVAL.
 */
dl_status_t dl_lock_release_many(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, int *released,
                                 dl_error_t *err);

/*
 * Refreshes n leases, each to its own ttl_ms, in one pipelined round trip (the
 * watchdog's tick). extended[i] as for dl_lock_refresh; lease fields are not
 * touched (the caller owns the schedule).
 */
dl_status_t dl_lock_refresh_many(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, int *extended,
                                 dl_error_t *err);

/* Compare-and-PEXPIRE to ttl_ms. *extended = 1 (lease ttl/validity updated) or 0 when not ours. */
dl_status_t dl_lock_refresh(const dl_transport_t *t, dl_lease_t *lease, int64_t ttl_ms, int *extended,
                            dl_error_t *err);

/* *pttl_ms = the key's PTTL in ms when it holds our token, -1 when not ours. */
dl_status_t dl_lock_status(const dl_transport_t *t, const dl_lease_t *lease, int64_t *pttl_ms, dl_error_t *err);

/* EXISTS key: *exists 0/1. */
dl_status_t dl_lock_exists(const dl_transport_t *t, const char *key, size_t key_len, int *exists, dl_error_t *err);

/* DEL key regardless of owner: *deleted 0/1. Not retried (a retry could delete a new owner's key). */
dl_status_t dl_lock_delete(const dl_transport_t *t, const char *key, size_t key_len, int *deleted, dl_error_t *err);

#endif
