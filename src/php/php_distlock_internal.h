/*
 * Declarations shared by the Zend glue files (src/php/). Nothing here is
 * visible to PHP code or to the core.
 */
#ifndef PHP_DISTLOCK_INTERNAL_H
#define PHP_DISTLOCK_INTERNAL_H

#include "php.h"   /* first: php_config.h sets the feature macros the libc headers read */

/* The libc headers the glue uses, named here: since PHP 8.3 Zend's headers no
 * longer promise them (UPGRADING.INTERNALS 8.3). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "php_distlock.h"

/* The core as the glue sees it: the target (topology and every lock
 * operation, with the lease and URI types it takes), the persistent pool and
 * the watchdog. Everything below them stays behind dl_target. */
#include "../core/topology/dl_target.h"
#include "../core/topology/dl_pool.h"
#include "../core/topology/dl_watchdog.h"
#include "../core/base/dl_obs.h"
#include "../core/lease/dl_deadlock.h"   /* the deadlock check's options (deadlock.c) */

extern zend_class_entry *distlock_ce_DistLock;
extern zend_class_entry *distlock_ce_Lock;
extern zend_class_entry *distlock_ce_Exception;
extern zend_class_entry *distlock_ce_ConnectionException;
extern zend_class_entry *distlock_ce_LockTimeoutException;
extern zend_class_entry *distlock_ce_LockLostException;
extern zend_class_entry *distlock_ce_QuorumException;
extern zend_class_entry *distlock_ce_ReplicationException;
extern zend_class_entry *distlock_ce_LockKindException;
extern zend_class_entry *distlock_ce_DeadlockException;
extern zend_class_entry *distlock_ce_PermissionException;
extern zend_class_entry *distlock_ce_Event;

#define PHP_DISTLOCK_MAX_SECONDS 1e9          /* ttl and wait */
#define PHP_DISTLOCK_MAX_RETRY_SECONDS 60.0   /* retry_delay, retry_jitter */
#define PHP_DISTLOCK_MAX_TIMEOUT_SECONDS 3600.0
#define DL_TLS_PATH_MAX 4096                  /* tls_ca, tls_ca_path, tls_cert, tls_key */
#define PHP_DISTLOCK_DEFAULT_MAX_HOLD_US (300LL * 1000000)  /* watchdog ceiling: 5 minutes */
#define PHP_DISTLOCK_MAX_CLUSTER_SEEDS 64                     /* cluster seed URIs */
#define PHP_DISTLOCK_MAX_REPLICAS 1000                        /* min_replicas */
#define PHP_DISTLOCK_DEFAULT_REPLICA_TIMEOUT_MS 1000          /* replica_timeout when min_replicas is set */

/* Defaults of one resource helper (options['resources']). */
typedef struct php_distlock_resource {
    int64_t ttl_ms;   /* 0: the instance default */
    int64_t wait_us;  /* -1: the instance default */
} php_distlock_resource;

/*
 * A lease held by one DistLock instance, shared by all its Lock handles
 * (reentrancy). Reference-counted: one reference from the instance's
 * `held` table while it is in there, one from each Lock handle.
 */
typedef struct php_distlock_held {
    dl_lease_t *lease;
    zend_string *name;  /* the lock name (without the prefix) */
    zend_string *key;   /* its key in the registry (registry.c) */
    uint32_t refcount;
    uint32_t handles;   /* handles that have not released yet */
    uint32_t writers;   /* of them, the exclusive views of a readers-writer lease (php_distlock_lock.exclusive) */
    bool done;          /* released by us, or found lost: no longer ours */
    bool done_released; /* done, and released by us: a release that failed on the network had run
                         * (isAcquired() found the key gone while the lease was valid) */
    bool detached;      /* Lock::detach(): released only explicitly, never by scope or request end */
    bool restored;      /* adopted by restore*(): another thread's grant, never published as ours
                         * for deadlock detection (src/php/deadlock.c) */
    dl_renew_entry_t *wd;  /* the watchdog's entry while it renews this lease */
    int64_t granted_ns;    /* monotonic: when the grant was sent (DistLock\Event::$heldNs); 0: not known */
    struct php_distlock_client *owner;  /* set with wd: the instance whose server the watchdog renews on */
} php_distlock_held;

/* The DistLock object. */
typedef struct php_distlock_client {
    dl_target_t *target;        /* the server, or the Redlock masters */
    char *pool_id;              /* persistent: the pool the connection goes back to (malloc'd) */
    zend_string *prefix;
    int64_t ttl_ms;
    int64_t wait_us;
    dl_backoff_t backoff;
    bool fencing;               /* every grant gets a fencing token */
    bool fair;                  /* FIFO hand-over to the longest waiter */
    bool deadlock_detection;    /* waits that hold something carry the deadlock check (src/php/deadlock.c) */
    bool defer_release;         /* implicit releases (scope, synchronized()) don't wait for their reply */
    int min_replicas;           /* WAIT for this many replicas after each grant and refresh (0: off) */
    int64_t replica_timeout_ms;
    bool watchdog;              /* renew held leases in the background */
    bool on_lost_throw;         /* a lease lost under the watchdog raises LockLostException */
    int64_t max_hold_us;        /* the watchdog's ceiling */
    HashTable *resources;       /* snake_case name => php_distlock_resource* (or NULL) */
    HashTable held;             /* lock name => php_distlock_held* */
    zend_string *display;       /* the server URI without credentials, for debug output */
    struct php_distlock_client *prev, *next;  /* DISTLOCK_G(clients) registry */
    bool closed;                /* freed: handles must not touch target or held */
    zend_object std;
} php_distlock_client;

/* The DistLock\Lock object: one handle on a held lease. */
typedef struct php_distlock_lock {
    php_distlock_client *owner; /* holds a reference on owner->std */
    php_distlock_held *held;    /* the lease (one reference, kept until the handle is freed) */
    bool active;                /* false once this handle has released */
    bool exclusive;             /* a readers-writer lease seen as exclusive by this handle (lockExclusive(),
                                 * an upgrade, promote()); false: a shared view
                                 * (docs/decisions/0007-an-instance-never-waits-for-its-own-lease.md) */
    zend_object std;
} php_distlock_lock;

static inline php_distlock_client *php_distlock_client_from(zend_object *obj)
{
    return (php_distlock_client *)((char *)obj - offsetof(php_distlock_client, std));
}
static inline php_distlock_lock *php_distlock_lock_from(zend_object *obj)
{
    return (php_distlock_lock *)((char *)obj - offsetof(php_distlock_lock, std));
}

/* ---- config.c: validation of arguments, options and URIs ---------------- */

/* Parsed constructor arguments. */
typedef struct php_distlock_config {
    dl_server_config_t server;      /* while parsing: the first URI with the options applied */
    dl_target_config_t target;      /* the result: every server, and the topology */
    zend_string *prefix;
    int64_t ttl_ms;
    int64_t wait_us;
    dl_backoff_t backoff;
    HashTable *resources;
    bool fencing;
    bool fair;
    bool deadlock_detection;
    bool defer_release;
    bool watchdog;
    bool on_lost_throw;
    int64_t max_hold_us;
    char *pool_id;          /* persistent connection pool (malloc'd), NULL when not persistent */
    bool uri_credentials;   /* the URI had user/password: the options' are ignored */
    char *sentinel;         /* option sentinel: the master's name; the URIs are the sentinels' (malloc'd) */
    char *sentinel_username, *sentinel_password;   /* the sentinels' own credentials (malloc'd) */
    int min_replicas;       /* WAIT for this many replicas after each grant and refresh (0: off) */
    int64_t replica_timeout_ms;
    bool cluster;           /* option cluster: the URIs are seed nodes of a Redis Cluster */
} php_distlock_config;

/* Parses $servers and $options (INI for what neither sets). Throws and returns FAILURE on bad input. */
zend_result php_distlock_config_parse(zval *servers, HashTable *options, php_distlock_config *out);
void php_distlock_config_free(php_distlock_config *cfg);

/*
 * Validators. `func` is the PHP-visible function ("DistLock::lock"), `what`
 * the thing checked ("Argument #2 ($ttl)"). On bad input they throw
 * ValueError "<func>(): <what> must ..." and return false.
 */
bool php_distlock_check_name(const char *func, const char *what, const zend_string *name);
bool php_distlock_check_token(const char *func, const char *what, const zend_string *token);
bool php_distlock_ttl_ms(const char *func, const char *what, double seconds, int64_t *out_ms);
bool php_distlock_wait_us(const char *func, const char *what, double seconds, int64_t *out_us);

/* ---- deadlock.c: the deadlock check's view of this thread ------------------ */

/* Storage for what php_distlock_deadlock_opts returns (on the caller's stack for one acquire). */
typedef struct php_distlock_deadlock_buf {
    dl_deadlock_opts_t opts;
    const dl_lease_t *holds[DL_DEADLOCK_HOLDS_MAX];
} php_distlock_deadlock_buf;

/* The deadlock check's options for a wait by c (in buf), or NULL: detection off
 * (option deadlock_detection), or this thread holds no lease on c's server. */
const dl_deadlock_opts_t *php_distlock_deadlock_opts(const php_distlock_client *c, php_distlock_deadlock_buf *buf);
/* h (held by c) was detached: it stays this thread's hold for the check until
 * released by token or the request's end. */
void php_distlock_deadlock_note_detached(const php_distlock_client *c, const php_distlock_held *h);
/* A release by token of key (prefix + name) on c's server: no longer a hold. */
void php_distlock_deadlock_forget_detached(const php_distlock_client *c, const char *key, size_t key_len,
                                           const char *token, size_t token_len);
/* Request end: the detached holds are forgotten. */
void php_distlock_deadlock_rshutdown(void);

/* ---- errors.c ------------------------------------------------------------ */

/* Throws the exception for err (ConnectionException for network codes) and counts it. */
void php_distlock_throw(const dl_error_t *err);
/* php_distlock_throw for a release: a timeout or a lost reply says the outcome is unknown. */
void php_distlock_throw_release(const dl_error_t *err);

/* ---- client.c: operations used by Lock and the helpers ------------------- */

/* Acquire with the instance's defaults overridden by ttl_ms (> 0) and wait_us (>= 0),
 * under token (the caller's owner token) or, when token is NULL, a fresh random one.
 * Returns a new Lock in return_value, NULL (tryLock, wait_us == 0 && !throw_on_timeout), or throws. */
void php_distlock_client_acquire(php_distlock_client *c, zend_string *name, int64_t ttl_ms, int64_t wait_us,
                                 const zend_string *token, bool throw_on_timeout, zval *return_value);

/* Acquires a lease of another kind than the mutex (docs/primitives.md):
 * DL_LEASE_SHARED or DL_LEASE_WRITE (shared/exclusive locking of one name),
 * DL_LEASE_PERMITS (permits of limit). The caller's token, else a fresh random one; as
 * php_distlock_client_acquire otherwise. What the instance holds on name
 * already is never waited for (LogicException when only its own release could
 * grant it, docs/decisions/0007-an-instance-never-waits-for-its-own-lease.md);
 * shared and exclusive are reentrant. */
void php_distlock_client_acquire_kind(php_distlock_client *c, const char *func, zend_string *name,
                                      dl_lease_kind_t kind, const zend_string *token, long long permits,
                                      long long limit, int64_t ttl_ms, int64_t wait_us, bool throw_on_timeout,
                                      zval *return_value);
/* The instance, with $name (Argument #1) and $token (Argument #2) checked for
 * func's messages; NULL after throwing. */
php_distlock_client *php_distlock_name_token_args(zval *this_ptr, const char *func, zend_string *name,
                                                  zend_string *token);
/* Adopts the lease of kind held on name under token (restore(), restoreShared(),
 * restoreExclusive()): a new handle in return_value, or throws
 * (LockLostException when it is not held, ConnectionException). */
void php_distlock_client_restore(php_distlock_client *c, zend_string *name, zend_string *token, dl_lease_kind_t kind,
                                 zval *return_value);

/* All of names[0..n) or none (a multi-lock, dl_multi.h): a list of n Lock
 * handles in return_value in the given order, NULL (not acquired,
 * !throw_on_timeout), or throws (LogicException for a name this instance
 * holds already). The names are valid and distinct, n <= DL_MULTI_MAX. */
void php_distlock_client_acquire_all(php_distlock_client *c, const char *func, zend_string **names, uint32_t n,
                                     int64_t ttl_ms, int64_t wait_us, bool throw_on_timeout, zval *return_value);

/* Resolves the optional ttl/wait arguments of a method (argument numbers
 * ttl_arg and ttl_arg + 1) against the instance's defaults; wait_us NULL: no
 * wait argument. Throws ValueError and returns false when out of range. */
bool php_distlock_resolve_ttl_wait(php_distlock_client *c, const char *func, uint32_t ttl_arg, double ttl,
                                   bool ttl_null, double wait, bool wait_null, int64_t *ttl_ms, int64_t *wait_us);

/* The DistLock behind $this; throws and returns NULL when it is not constructed. */
php_distlock_client *php_distlock_this_client(zval *this_ptr);

/* The counters of stats() (this thread's, and the process's watchdog's), also shown by phpinfo(). */
void php_distlock_stats_array(zval *out);

/* Releases name if it holds token; returns -1 after throwing, else 0/1. */
int php_distlock_client_release_token(php_distlock_client *c, zend_string *name, const char *token, size_t token_len);

/* ---- lostwatch.c: the watchdog's start, and the VM interrupt hook for on_lost=throw ---- */

/* Starts renewing held under the watchdog when the client has it on. Throws and
 * returns false on failure (the lease is then released). */
bool php_distlock_watch(php_distlock_client *c, php_distlock_held *h);

void php_distlock_lostwatch_minit(void);
void php_distlock_lostwatch_mshutdown(void);

/* ---- registry.c: the leases each instance holds ----------------------------- */

/* A new entry for lease (taken over) held as name, with one reference (the
 * caller's, handed over by php_distlock_registry_add). */
php_distlock_held *php_distlock_held_new(dl_lease_t *lease, zend_string *name);

/* Drops one reference on held (freeing it at zero). */
void php_distlock_held_release_ref(php_distlock_held *h);

/* Marks held as no longer ours (and stops its renewals) without touching Redis. */
void php_distlock_held_done(php_distlock_held *h);

/* True when the watchdog found held lost; marks it done and forgets it. */
bool php_distlock_held_lost(php_distlock_client *c, php_distlock_held *h);

void php_distlock_registry_init(php_distlock_client *c);
/* Lists held (the registry takes over the caller's reference). */
void php_distlock_registry_add(php_distlock_client *c, php_distlock_held *h);
/* The exclusive lease the instance holds on name, or NULL. */
php_distlock_held *php_distlock_registry_find(php_distlock_client *c, zend_string *name);

/* The readers-writer lease (shared or exclusive) this process's instance c
 * holds on name under token (NULL: under any token), or NULL; *n: how many
 * such leases c holds on name under any token. Leases known lost are not counted. */
php_distlock_held *php_distlock_registry_find_rw(php_distlock_client *c, zend_string *name, const zend_string *token,
                                                 uint32_t *n);
/* The permits c holds on name (every lease of this process); *same: the lease held under token, or NULL. */
long long php_distlock_registry_own_permits(php_distlock_client *c, zend_string *name, const zend_string *token,
                                            php_distlock_held **same);

/* Marks held as no longer ours and removes it from the registry. */
void php_distlock_registry_forget(php_distlock_client *c, php_distlock_held *h);

/* Lock::detach(): held is released only explicitly from now on (not by scope,
 * request end or the instance's reentrancy) and no longer renewed. */
void php_distlock_registry_detach(php_distlock_client *c, php_distlock_held *h);

/* Releases every lease c still holds (detached ones are not listed), in one
 * pipelined round trip; leases of another process (fork()) are dropped
 * untouched. Errors are counted, never thrown: this runs from destructors,
 * RSHUTDOWN and DistLock::endRequest(). Then reads every deferred reply c's
 * connections owe; both within one `timeout` (dl_target_end_request). Returns
 * how many it released. */
zend_long php_distlock_registry_release_all(php_distlock_client *c);

/* php_distlock_registry_release_all for every live client of this request
 * (RSHUTDOWN, DistLock::endRequest()). */
zend_long php_distlock_release_all(void);

/* ---- lock.c ---------------------------------------------------------------- */

/* Releases the handle (see Lock::release). quiet: count errors instead of throwing.
 * implicit: a release nobody waits for the result of (destruction, synchronized()):
 * deferred when the client has defer_release (then counted when its reply is read).
 * Returns 1 released (or deferred), 0 not ours / already released, -1 after throwing. */
int php_distlock_lock_release(php_distlock_lock *l, bool quiet, bool implicit);

/* Releases the handles locks[0..n) of c as release() does one, the leases that
 * need the server in one pipelined round trip (dl_target_release_many).
 * Returns how many were released (release() true), or -1 after throwing (a
 * transport error: every handle is kept, as release() keeps its own). */
zend_long php_distlock_lock_release_many(php_distlock_client *c, php_distlock_lock **locks, uint32_t n);

/* Creates a Lock handle on held (taking one reference on held and one on c);
 * exclusive: the handle is an exclusive view of a readers-writer lease. */
void php_distlock_lock_create(zval *out, php_distlock_client *c, php_distlock_held *held);
void php_distlock_lock_create_view(zval *out, php_distlock_client *c, php_distlock_held *held, bool exclusive);

/* Turns the readers-writer lease held into an exclusive one (promote) or a
 * shared one, of ttl_ms, on the server, the watchdog's copy taken out and put
 * back around it. Returns 1 done; 0 not possible (promote: other shared
 * holders, the lease kept; demote: another owner holds the name, forgotten);
 * -1 the lease had ended (forgotten, counted lost); -2 after throwing (quiet: a
 * connection error counted, not thrown). */
int php_distlock_change_kind(php_distlock_client *c, php_distlock_held *h, bool promote, int64_t ttl_ms, bool quiet);

/* ---- helpers.c: DistLock::__call (lock<Resource>/tryLock<Resource>/unlock<Resource>) ---- */

/* ---- observer.c: DistLock::addObserver() and DistLock\Event ------------------ */

/* An event as the glue describes it; php_distlock_obs_end makes the DistLock\Event.
 * Strings are borrowed (static, or alive until the event is built). */
typedef struct php_distlock_event {
    const char *operation;      /* "acquire", "release", "refresh", "renewal", "lost" */
    const char *kind;           /* "mutex", "shared", "exclusive", "permits", "multi" */
    zend_string *name;
    zend_string **names;        /* multi: n_names names; NULL: [name] */
    uint32_t n_names;
    const char *outcome;
    int64_t start_ns, call_ns;  /* monotonic ns (set by php_distlock_obs_end) */
    int64_t wait_ns;            /* 0: no wait */
    unsigned round_trips;
    const char *server;         /* the endpoint that answered; NULL or "": none */
    long long fence;            /* > 0: the fencing token */
    int64_t ttl_ms;             /* < 0: null */
    long long permits;          /* < 0: null */
    int64_t held_ns;            /* < 0: null */
    bool implicit;
    zend_string *error;         /* NULL: the pending exception's message when outcome is "error" */
} php_distlock_event;

/* One observed operation under way. */
typedef struct php_distlock_obs_op {
    bool on;                    /* observers were registered at its start */
    int64_t start_ns;
    int64_t wait_ns;            /* set by the acquire paths */
    dl_obs_facts_t facts;       /* filled by the core while armed */
    dl_obs_facts_t *prev;
} php_distlock_obs_op;

/* Begins an operation: with no observer, one flag test and nothing else. */
#define PHP_DISTLOCK_OBS_BEGIN(op) \
    do { \
        (op)->on = DISTLOCK_G(observing); \
        if ((op)->on) php_distlock_obs_start(op); \
    } while (0)
void php_distlock_obs_start(php_distlock_obs_op *op);
/* Fills ev's timings and facts from op (op->on must be true), reports the
 * queued events, then ev, to every observer; the pending exception (the
 * operation's) is kept. */
void php_distlock_obs_end(php_distlock_obs_op *op, php_distlock_event *ev);
/* The first half of php_distlock_obs_end: disarms op and fills ev's timings and facts. */
void php_distlock_obs_fill(php_distlock_obs_op *op, php_distlock_event *ev);
/* php_distlock_obs_flush unless in a free handler (DISTLOCK_G(queue_only)). */
void php_distlock_obs_flush_safe(void);
/* After a call that may have read a deferred release's reply: tells what was
 * queued (one pointer test when nothing was). */
#define PHP_DISTLOCK_OBS_TELL() \
    do { \
        if (UNEXPECTED(DISTLOCK_G(queued) != NULL)) php_distlock_obs_flush_safe(); \
    } while (0)
/* The message of the pending exception (ours: no secrets; a new reference), or NULL. */
zend_string *php_distlock_obs_pending_message(void);
/* Builds ev now and queues it for the next php_distlock_obs_flush (a place where user code may run). */
void php_distlock_obs_queue(const php_distlock_event *ev);
void php_distlock_obs_flush(void);
void php_distlock_event_init(php_distlock_event *ev, const char *operation, const char *kind, zend_string *name);
const char *php_distlock_kind_name(dl_lease_kind_t kind);
/* An acquire's outcome from its result and the pending exception (wait_us: the wait it had). */
const char *php_distlock_obs_outcome(bool acquired, int64_t wait_us);
/* RSHUTDOWN, after the request-end releases: reports what is queued, drops the observers. */
void php_distlock_obs_rshutdown(void);
/* Queues the watchdog's renewals (and the loss) of h not told yet; call before dl_watchdog_remove(h->wd). */
void php_distlock_obs_harvest(php_distlock_held *h);
/* php_distlock_obs_harvest for every watched lease of this request (at the next call, or the lost-lease watch). */
void php_distlock_obs_sweep(void);
void php_distlock_event_minit(zend_class_entry *ce);

/* ---- MINIT parts ------------------------------------------------------------- */
/* Install create/free/debug handlers on the class entries registered from the arginfo. */
void php_distlock_client_minit(zend_class_entry *ce);
void php_distlock_lock_minit(zend_class_entry *ce);

#endif
