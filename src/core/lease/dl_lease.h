/*
 * dl_lease — a lease: a key held (or wanted) under an owner token for a TTL,
 * with the companion keys its scripts use (dl_scripts.h) and what its last
 * grant or refresh established (fencing token, validity time). The lock
 * operations (dl_lock.h on one server, dl_quorum.h on Redlock masters,
 * dl_target.h for any topology) act on leases; this file only makes, copies
 * and frees them.
 */
#ifndef DL_LEASE_H
#define DL_LEASE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../base/dl_err.h"

#define DL_NAME_MAX 1024        /* bytes of a lock name */
#define DL_PREFIX_MAX 256       /* bytes of a key prefix */
#define DL_TOKEN_MAX 128        /* bytes of a token given to restore() */
#define DL_TTL_MAX_MS 1000000000000LL  /* 1e9 s: far below Redis's PX limit */

/*
 * What a lease holds (the primitive; its scripts: dl_script.h, dl_primitive_of):
 *   DL_LEASE_EXCLUSIVE  the name itself: K is a string holding the owner token
 *                       (a mutex; fair mode and fencing are options of it)
 *   DL_LEASE_PERMITS    `permits` of the name's `limit` permits (a counting
 *                       semaphore): K is a ZSET owner token -> lease end (server
 *                       ms) and P a HASH owner token -> permits held (only
 *                       holders of more than one; "+" sums their extra), so every
 *                       holder has its own lease and a dead holder's permits
 *                       come back when its lease ends
 *   DL_LEASE_SHARED     a shared lease on a name with shared and exclusive
 *                       holders (a readers-writer lock): R is a ZSET of shared
 *                       holders' lease ends, each with its own lease
 *   DL_LEASE_WRITE      the exclusive lease on such a name: K as for the mutex,
 *                       granted only while R holds no live shared lease
 */
typedef enum { DL_LEASE_EXCLUSIVE = 0, DL_LEASE_PERMITS, DL_LEASE_SHARED, DL_LEASE_WRITE } dl_lease_kind_t;

#define DL_PERMITS_MAX 1000000000LL   /* a semaphore's limit, and the permits of one lease */

/*
 * One lease: a key held (or wanted) under a token, with the companion keys of
 * dl_scripts.h, all derived by dl_key in the lock key's Cluster slot.
 */
typedef struct dl_lease {
    char *key;                /* prefix + name, binary-safe */
    size_t key_len;
    size_t name_off;          /* the name is key + name_off (the prefix's length), for messages */
    char *token;              /* NUL-terminated */
    size_t token_len;
    char *fence_key;          /* F  <prefix>distlock:fence{<T>}  fencing counter of the key's slot (no TTL;
                               *    dl_key_fence_counter), or name_fence_key for a prefix it cannot serve */
    size_t fence_key_len;
    char *name_fence_key;     /* FN <key>{<key>}:fence      the name's own counter of earlier releases: a
                               *    fenced grant moves the slot's counter past it and deletes it */
    size_t name_fence_key_len;
    char *wake_key;           /* W  <key>{<key>}:wake       a release's wake token */
    size_t wake_key_len;
    char *waiters_key;        /* Q  <key>{<key>}:waiters    default-mode waiters */
    size_t waiters_key_len;
    char *queue_key;          /* FQ <key>{<key>}:queue      fair queue, by arrival */
    size_t queue_key_len;
    char *alive_key;          /* FA <key>{<key>}:alive      fair waiters' liveness */
    size_t alive_key_len;
    char *permits_key;        /* P  <key>{<key>}:permits    a semaphore's holders of more than one permit */
    size_t permits_key_len;
    char *readers_key;        /* R  <key>{<key>}:readers    shared holders (SHARED, WRITE) */
    size_t readers_key_len;
    char *rwaiters_key;       /* RQ <key>{<key>}:rwaiters   shared waiters */
    size_t rwaiters_key_len;
    char *rwake_key;          /* RW <key>{<key>}:rwake      shared waiters' wake list */
    size_t rwake_key_len;
    char *wake_prefix;        /*    <key>{<key>}:wake:      + token: a fair waiter's own wake list */
    size_t wake_prefix_len;
    char *my_wake_key;        /*    wake_prefix + token */
    size_t my_wake_key_len;
    dl_lease_kind_t kind;     /* set by the caller before acquiring (dl_lease_new: EXCLUSIVE) */
    long long permits;        /* PERMITS: permits this lease takes (1..limit) */
    long long limit;          /* PERMITS: the name's number of permits, as this caller sees it (1..DL_PERMITS_MAX) */
    int fencing;              /* set by the caller before acquiring: grant a fencing token (EXCLUSIVE, WRITE) */
    int fair;                 /* set by the caller before acquiring: FIFO hand-over (EXCLUSIVE only) */
    /* Set by the caller (0: off): after each grant and refresh, WAIT until this many
     * replicas acknowledged it, in the same round trip (dl_replicas.h); fewer: DL_ERR_REPLICATION. */
    int min_replicas;
    int64_t replica_timeout_ms;   /* WAIT's timeout, ms (>= 1; the call's read timeout grows by it) */
    long long fence;          /* the fencing token of this grant (0: none) */
    int64_t ttl_ms;           /* lease length of the last grant or refresh */
    int64_t valid_until_ns;   /* monotonic: send time of the grant/refresh + ttl (Redlock: less the drift, dl_quorum.h) */
    pid_t pid;                /* process that acquired (or restored) it */
    /* Set by dl_lock_acquire: granted after an attempt found the name taken, so
     * others likely wait for it still (dl_lock_release_native). */
    int contended;
    /* Set by dl_target_release(_many) when a release of it failed on the network:
     * it may have run (a lost reply, a deferred second attempt), so a later
     * release that finds the key gone while the lease is valid was ours. */
    int release_unsure;
} dl_lease_t;

/*
 * Allocates a lease (one malloc block, freed by dl_lease_free) for key
 * prefix+name. token NULL: a fresh random token (dl_token_generate);
 * otherwise a copy of token[0..token_len). The pid is the caller's. Returns
 * NULL with err set (DL_ERR_NOMEM or DL_ERR_RANDOM).
 */
dl_lease_t *dl_lease_new(const char *prefix, size_t prefix_len, const char *name, size_t name_len,
                         const char *token, size_t token_len, int64_t ttl_ms, dl_error_t *err);
void dl_lease_free(dl_lease_t *lease);

/* Microseconds of client-side validity left (0 when past), by the monotonic clock. */
int64_t dl_lease_validity_us(const dl_lease_t *lease);

/*
 * 1 when a release of lease failed on the network earlier (release_unsure: it
 * may have run) and the lease is still valid by the monotonic clock: a key
 * found gone, or another's, now was removed by that release, since it cannot
 * have expired and nobody else could have removed it (short of a forced
 * release). 0 otherwise: past the validity, expiry and our release cannot be
 * told apart (docs/decisions/0010-key-gone-while-valid-counts-as-released.md).
 */
int dl_lease_gone_by_our_release(const dl_lease_t *lease);

/* A copy of lease (one malloc block), or NULL when out of memory. */
dl_lease_t *dl_lease_dup(const dl_lease_t *lease);

#endif
