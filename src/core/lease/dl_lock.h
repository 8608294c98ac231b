/*
 * dl_lock — lock operations on one Redis server.
 *
 *   acquire   (dl_acquire.c) SET key token NX PX ttl in one round trip
 *             (tryLock's fast path), or the acquire script when waiting or
 *             fencing; a waiter blocks on the lock's wake list (BLPOP) until a
 *             release wakes it. Fair mode: a FIFO queue with direct hand-over.
 *   release   compare-and-delete that wakes one waiter (fair: hands over)
 *   refresh   compare-and-PEXPIRE
 *   status    is it still ours, and its PTTL
 *   exists / delete   EXISTS / DEL for isLocked() and forceRelease()
 *
 * Every function works through a dl_transport_t and returns a dl_status_t:
 * DL_OK means Redis answered; whether the lock was ours is an out value.
 * A network failure is never folded into "not acquired" / "not ours".
 * Retries (dl_script.h): release and refresh once more after any network
 * failure, reads only after a broken connection, acquire and delete never.
 *
 * The Lua scripts and the keys they touch are in dl_scripts.h.
 */
#ifndef DL_LOCK_H
#define DL_LOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../base/dl_err.h"
#include "../transport/dl_transport.h"
#include "../base/dl_wait.h"
#include "dl_lease.h"

struct dl_deadlock_opts;

#define DL_WAKE_TTL_MS 2000           /* a wake token outlives the race it covers (one round trip) */
#define DL_WAIT_BLOCK_CAP_US 2000000  /* longest single BLPOP: bounds the cost of a lost wake-up */
#define DL_BLOCK_REPLY_GRACE_US 1000000 /* a BLPOP's reply is awaited this long after its own timeout: a
                                           server times blocked commands out at its timer ticks, at least
                                           once a second (hz >= 1); never past the wait's deadline */
#define DL_WAITERS_TTL_MS 3000        /* a default-mode waiter's entry outlives one BLPOP (cap + 1 s) */
#define DL_FAIR_ALIVE_MS 3000         /* a fair waiter that showed no sign of life for this long is skipped */
#define DL_FAIR_CLAIM_MS 3000         /* a hand-over grants this much (or the ttl, if shorter) until
                                       * the woken waiter extends it: a dead waiter blocks no longer */

typedef struct dl_acquire_opts {
    int64_t wait_us;          /* 0: one attempt; else retry until this much time has passed */
    dl_backoff_t backoff;     /* polling, used only when the server refuses BLPOP */
    /* Checked before each block or sleep; non-zero ends the wait with DL_ERR_INTERRUPTED. May be NULL. */
    int (*interrupted)(void *arg);
    void *interrupt_arg;
    /* The waiting thread and what it holds, for the deadlock check (dl_deadlock.h); NULL: no check. */
    const struct dl_deadlock_opts *deadlock;
} dl_acquire_opts_t;

/* How long the cancel of a wait whose blocking pop its deadline cut may take
 * before the server is called silent (microseconds; dl_acquire_result_t.silent_us). */
#define DL_SILENCE_GRACE_US 250000

typedef struct dl_acquire_result {
    int acquired;             /* 1: the lease is ours (lease->valid_until_ns set) */
    unsigned attempts;        /* acquire commands sent */
    unsigned contended;       /* attempts that found another owner */
    int64_t waited_us;        /* time spent between the first attempt and the outcome */
    int64_t silent_us;        /* > 0 when a wait that ended at its deadline ended with the server
                               * silent (issue 45.2): nothing answered for that long (microseconds,
                               * since its last reply); the call's err is the failure that showed
                               * it (the glue throws it as the LockTimeoutException's previous
                               * exception); 0 otherwise */
    const char *silent_server; /* ... and which (in silent_list): the endpoint the wait was on
                                * ("host:port"; Cluster's "cluster of N masters via host:port"),
                                * or the silent Redlock masters' list */
    const char *silent_how;    /* ... and what showed it (a static string) */
    int64_t silent_probe_us;   /* ... how long the cancel after the wait went unanswered (µs) */
    char silent_list[128];     /* the storage of silent_server */
} dl_acquire_result_t;

/*
 * Acquires lease->key for lease->token with PX lease->ttl_ms, waiting up to
 * opts->wait_us.
 *
 * Default mode: the first attempt is one SET NX PX (without fencing), which
 * is all an uncontended acquire costs, waiting or not. When the name is taken
 * and we may wait, each further attempt is the acquire script: granted, or the
 * waiter enters the waiters set and gets the holder's PTTL; it then blocks on the wake list
 * with BLPOP for min(time left, PTTL + 1 ms, DL_WAIT_BLOCK_CAP_US). A release
 * wakes the longest waiter at once (about one round trip), a holder that died
 * is outwaited (its TTL), and a waiter sends about two commands per wait. A
 * waiter whose wait runs out leaves the waiters set (nothing is left behind).
 *
 * Fair mode (lease->fair): strict FIFO. The release hands the lock straight to
 * the longest live waiter, which wakes owning it (and extends the hand-over's
 * claim to its ttl); newcomers queue behind; waiters that gave up or died are
 * skipped; a waiter that gives up leaves the queue and passes on a lock handed
 * to it meanwhile.
 *
 * When the server refuses BLPOP (an ACL without it), the rest of the wait
 * polls with backoff and jitter (dl_wait), each sleep capped by the time left
 * and the PTTL.
 *
 * opts->deadlock (dl_deadlock.h): a waiter (of any kind: a mutex in default or
 * fair mode, a readers-writer name's lease, a semaphore's permits; a
 * multi-lock's in dl_multi_acquire) that holds other leases on this server writes the deadlock check behind each of its
 * registrations by script after the first attempt (the script after the plain
 * SET; under fencing, whose first attempt is the script, the ones carried
 * behind each BLPOP; in fair mode, each attempt after a block), in the same
 * round trip. A registration that closes a wait-for
 * cycle cancels its wait at once (no BLPOP) and returns DL_ERR_DEADLOCK, the
 * cycle named in err. The uncontended SET, a try, and a thread that holds
 * nothing send nothing more. Not with min_replicas (the grant's WAIT rides
 * where the check would).
 *
 * Returns DL_OK with res->acquired 0 or 1; DL_ERR_INTERRUPTED; DL_ERR_DEADLOCK; or a
 * transport/server error. An attempt whose reply was lost (timeout, I/O or
 * protocol error) is ambiguous: the grant may have happened. Before returning
 * that error the lease is undone with the same token (one EVAL on a fresh
 * connection: it must not depend on the script cache); if that fails too, the
 * key still expires after ttl_ms. Success is reported only when seen.
 *
 * lease->min_replicas > 0: every attempt carries WAIT in its round trip; a
 * grant that fewer replicas acknowledged is released (same token) and
 * DL_ERR_REPLICATION returned ("N of M replicas acknowledged within T ms"); a
 * WAIT refused (error reply) undoes the grant too, as DL_ERR_SERVER.
 */
dl_status_t dl_lock_acquire(const dl_transport_t *t, dl_lease_t *lease, const dl_acquire_opts_t *opts,
                            dl_acquire_result_t *res, dl_error_t *err);

/*
 * Compare-and-delete (fair: hand-over). *released = 1 when the key held our
 * token, 0 when not ours. Natively (dl_lock_native): DELEX ... IFEQ (or
 * DELIFEQ) and a look at the waiters set in one round trip, then, only when a
 * waiter is registered, the wake (dl_lock_wake: a second round trip, contended
 * releases only); a native command the server refuses falls back to the
 * script (counted: dl_lock_native_fallbacks); otherwise the
 * release script, which does both at once. When the reply is lost it is sent once more on a
 * fresh connection; if the key is then gone or held by another owner although
 * the lease is still valid after that second answer, the first attempt did it
 * (the key cannot have expired, and nobody else could have removed it), and 1
 * is reported. Past the lease's validity the two cannot be told apart: 0.
 */
dl_status_t dl_lock_release(const dl_transport_t *t, const dl_lease_t *lease, int *released, dl_error_t *err);

/* What became of a deferred release: released as for dl_lock_release; st DL_OK, or the
 * error of the re-sent release (counted by the caller as a connection error). */
typedef void (*dl_release_done_fn)(int released, dl_status_t st);

/*
 * The implicit release (a Lock destroyed, the end of synchronized()): writes
 * the release script (as dl_lock_release) without waiting for its reply, which
 * is read before the next command on t (dl_pending.h). done() is called then,
 * once: with the result; or, when the connection failed before the reply was
 * read, after the release was sent again on a fresh connection (it is
 * idempotent; a key then found gone while the lease is still valid counts as
 * released, as in dl_lock_release); nothing is called in another process (fork).
 * The lease is copied: the caller may free it at once. When the release cannot
 * be deferred (t has no deferral, out of memory, the write failed) it is done
 * synchronously before this returns, and done() called. Returns DL_OK.
 */
dl_status_t dl_lock_release_deferred(const dl_transport_t *t, const dl_lease_t *lease, dl_release_done_fn done);

/* What became of a deferred release, with context: arg as given to
 * dl_lock_release_deferred_ex; released and st as for dl_release_done_fn, or
 * released -1 when the release is another process's (fork: nothing was read or
 * done; free arg only); endpoint: the node whose reply was read (NULL when
 * none was, or not known). */
typedef void (*dl_release_done_ex_fn)(void *arg, int released, dl_status_t st, const char *endpoint);

/* dl_lock_release_deferred, telling done(arg, ...) exactly once, in every case
 * (an observer's event after the fact, src/php/lock.c). */
dl_status_t dl_lock_release_deferred_ex(const dl_transport_t *t, const dl_lease_t *lease, dl_release_done_ex_fn done,
                                        void *arg);

/*
 * 1 when releases (and undos) of lease on t use the server's native
 * compare-and-delete (DELEX ... IFEQ: Redis >= 8.4, Valkey >= 9.2; DELIFEQ:
 * Valkey >= 9.0), learned by the connection's first call (HELLO) and
 * forgotten when the server refuses it. Fair mode keeps its scripts (the
 * hand-over is part of the release), and so do the semaphore and the
 * readers-writer leases (dl_primitive_t.plain).
 */
int dl_lock_native(const dl_transport_t *t, const dl_lease_t *lease);

/*
 * 1 when dl_lock_release of lease on t runs the native pair: dl_lock_native,
 * unless the lease was granted after waiting (lease->contended) and scripting
 * is allowed. Under contention the pair finds waiters and the wake script
 * follows, a second round trip, where the release script deletes and wakes in
 * one (bench/results-native.md: 5 round trips per hand-over against 4).
 * tests/model/mutex.pml -DMIXED checks both releases meeting on one name.
 */
int dl_lock_release_native(const dl_transport_t *t, const dl_lease_t *lease);

/* 1 when refreshes of lease on t use SET ... IFEQ ... PX (Redis >= 8.4, Valkey >= 8.1). */
int dl_lock_native_set(const dl_transport_t *t, const dl_lease_t *lease);

/* "DELEX", "DELIFEQ" or NULL: the compare-and-delete a connection with these DL_CAP_* uses. */
const char *dl_lock_native_name(unsigned caps);

/* Releases whose outcome a native compare-and-delete (DELEX, DELIFEQ) gave,
 * on every path that releases on one server or Cluster: an explicit release,
 * by token, at destruction, at request end or endRequest() (one pipeline),
 * and a deferred release where it is made at once; process-wide, as the
 * fallbacks below (stats()['native_releases']). A deferred release is a
 * script, and Redlock releases by script: neither counts. */
unsigned long long dl_lock_native_releases(void);

/* Native commands refused by a server that was expected to have them (unknown
 * command, syntax error, NOPERM), each followed by the script: process-wide. */
unsigned long long dl_lock_native_fallbacks(void);

/* Wakes the longest waiter of lease's name after a native release found
 * waiters: the wake script, or the plain RPUSH/LTRIM/PEXPIRE of W where
 * scripting is denied. Best effort (a lost wake costs a waiter one block). */
void dl_lock_wake(const dl_transport_t *t, const dl_lease_t *lease);

/* The native undo (compare-and-delete, no wake) of a grant that may have
 * happened; one attempt, errors ignored. 0 when it could not be sent natively
 * (the caller runs the undo script). */
int dl_lock_undo_native(const dl_transport_t *t, const dl_lease_t *lease);

/* Releases n leases in one pipelined round trip (request end). released[i] as for dl_lock_release. */
dl_status_t dl_lock_release_many(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, int *released,
                                 dl_error_t *err);

/*
 * Refreshes n leases, each to its own ttl_ms, in one pipelined round trip (the
 * watchdog's tick). extended[i] as for dl_lock_refresh; lease fields are not
 * touched (the caller owns the schedule). When a lease has min_replicas, one
 * WAIT (the batch's largest min_replicas) follows in a second round trip; too
 * few acknowledgements: DL_ERR_REPLICATION for the whole tick.
 */
dl_status_t dl_lock_refresh_many(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, int *extended,
                                 dl_error_t *err);

/*
 * Compare-and-PEXPIRE to ttl_ms. *extended = 1 (lease ttl/validity updated) or 0 when not ours.
 * lease->min_replicas > 0: WAIT in the same round trip; fewer acknowledgements
 * than asked: DL_ERR_REPLICATION, *extended = 0 and the lease's fields kept (on
 * the master the key was extended: it is left so, still ours until it expires);
 * a WAIT the server refuses: DL_ERR_SERVER.
 */
dl_status_t dl_lock_refresh(const dl_transport_t *t, dl_lease_t *lease, int64_t ttl_ms, int *extended,
                            dl_error_t *err);

/* *pttl_ms = the key's PTTL in ms when it holds our token, -1 when not ours. */
dl_status_t dl_lock_status(const dl_transport_t *t, const dl_lease_t *lease, int64_t *pttl_ms, dl_error_t *err);

/*
 * The owner token the name is held under exclusively now (GET key), for
 * Laravel's getCurrentOwner() and symfony/lock's exists(): a mutex's token
 * (K's value), or a readers-writer name's exclusive holder's (K = "\0W" +
 * token). *token = a malloc'd NUL-terminated copy (the caller frees it) and
 * *token_len its length (binary-safe), or NULL when nobody holds the name
 * exclusively: free, shared holders only (K = "\0R"), a semaphore (K = "\0S"
 * + token, or a ZSET: WRONGTYPE), or another library's key of another type
 * (WRONGTYPE). Read: sent once more only when the connection broke. Returns
 * DL_OK or a transport/server error (then *token is NULL).
 */
dl_status_t dl_lock_owner(const dl_transport_t *t, const char *key, size_t key_len, char **token, size_t *token_len,
                          dl_error_t *err);

/* What holds a name (DistLock::status()): the kinds the status script answers, by number. */
typedef enum {
    DL_HELD_NONE = 0,     /* free */
    DL_HELD_MUTEX,        /* a mutex: default or fair mode, or a multi-lock member */
    DL_HELD_EXCLUSIVE,    /* the exclusive lease of a readers-writer name (lockExclusive()) */
    DL_HELD_SHARED,       /* shared leases of a readers-writer name (lockShared()) */
    DL_HELD_SEMAPHORE,    /* permits of a counting semaphore (acquirePermits()) */
    DL_HELD_FOREIGN       /* a key distlock did not write (another library's lock, e.g. symfony's RedisStore) */
} dl_held_kind_t;

/* "mutex", "exclusive", "shared", "semaphore", "foreign"; NULL for DL_HELD_NONE (static strings). */
const char *dl_held_kind_name(dl_held_kind_t kind);

/* What an administrator sees of one lock (DistLock::status()). */
typedef struct dl_lock_info {
    dl_held_kind_t kind;      /* who holds it (DL_HELD_NONE: free) */
    long long holders;        /* live leases: 1 for a mutex or an exclusive lease, the shared leases,
                               * the semaphore's holders; a foreign ZSET's members, another foreign
                               * key 1; 0 when free */
    long long permits;        /* permits in use (a semaphore), else 0 */
    int64_t pttl_ms;          /* ms until the last live lease ends; -2: free; -1: a key without a TTL
                               * (not distlock's) */
    long long waiters;        /* live entries of the waiters set (mutex, exclusive and semaphore
                               * waiters) and of the shared waiters set, and the fair queue's entries
                               * (a dead fair waiter's lingers until the next attempt drops it) */
} dl_lock_info_t;

/*
 * What holds lease's name, of any kind, in one round trip of one read-only
 * script (DL_SCRIPT_INSPECT in dl_scripts.h; it calls TIME, TYPE, GET, PTTL,
 * ZCOUNT, ZCARD, ZSCORE, ZRANGE, HGET). Only the keys of the lease are used
 * (its token is not). Read: sent once more only when the connection broke.
 * Returns DL_OK, or a transport/server/protocol error and *info says "free".
 */
dl_status_t dl_lock_inspect(const dl_transport_t *t, const dl_lease_t *lease, dl_lock_info_t *info, dl_error_t *err);

/*
 * A semaphore's use now (lease: any DL_LEASE_PERMITS lease of the name; only
 * its keys are used): *holders live holders, *used the permits they hold.
 * One read-only script; sent once more only when the connection broke.
 */
dl_status_t dl_lock_permits_used(const dl_transport_t *t, const dl_lease_t *lease, long long *holders, long long *used,
                                 dl_error_t *err);

/* EXISTS key: *exists 0/1. */
dl_status_t dl_lock_exists(const dl_transport_t *t, const char *key, size_t key_len, int *exists, dl_error_t *err);

/* DEL key regardless of owner: *deleted 0/1. Not retried (a retry could delete a new owner's key). */
dl_status_t dl_lock_delete(const dl_transport_t *t, const char *key, size_t key_len, int *deleted, dl_error_t *err);

/*
 * forceRelease(): deletes whatever holds lease's name, of any kind, regardless
 * of owner, in one command: K (a mutex's or a writer's key, "\0R", a
 * semaphore's holders), R (shared holders) and P (a semaphore's permits). A K
 * deleted alone would leave shared holders in R beside a new mutex holder
 * (one name, one kind). Waiting queues are left: their waiters wake by their
 * block time and try again. *deleted = 1 when any key was there. Not retried.
 */
dl_status_t dl_lock_delete_holders(const dl_transport_t *t, const dl_lease_t *lease, int *deleted, dl_error_t *err);

#endif
