/*
 * php_distlock.h — the module's public header: version, module entry and
 * per-process globals (INI defaults, counters, the request's live clients).
 */
#ifndef PHP_DISTLOCK_H
#define PHP_DISTLOCK_H

#include "php.h"

#define PHP_DISTLOCK_VERSION "1.0.0"

extern zend_module_entry distlock_module_entry;
#define phpext_distlock_ptr &distlock_module_entry

/* Per-process counters reported by DistLock::stats() and phpinfo(). */
typedef struct php_distlock_stats {
    zend_long acquired;           /* grants, reentrant ones included */
    zend_long contended;          /* attempts that found the name held by another owner */
    zend_long timeouts;           /* lock() calls whose wait ran out */
    zend_long deadlocks;          /* waits not waited out: each closed a cycle or knot (DeadlockException) */
    zend_long released;           /* leases deleted by their owner */
    zend_long lost;               /* release/refresh/status found the lease gone */
    zend_long refreshed;          /* successful refreshes */
    zend_long wait_time_us;       /* total time spent waiting in lock() */
    zend_long connection_errors;  /* connect/auth/I-O/timeout/protocol errors */
    zend_long observer_errors;    /* exceptions thrown by observers (swallowed; src/php/observer.c) */
} php_distlock_stats;

struct php_distlock_observer;

struct php_distlock_client;

/*
 * on_lost => 'throw' (src/php/lostwatch.c): the watchdog thread sets `lost`
 * and the VM interrupt of the PHP thread whose lease it found lost, so that
 * thread, and no other, looks and throws. One per PHP thread (module globals
 * are per thread in ZTS builds).
 */
typedef struct php_distlock_lostflag {
    zend_atomic_bool lost;
    zend_atomic_bool *vm_interrupt;   /* &EG(vm_interrupt) of the thread */
} php_distlock_lostflag;

ZEND_BEGIN_MODULE_GLOBALS(distlock)
    /* INI defaults (seconds), validated when set. */
    char *prefix;
    double ttl;
    double wait;
    double retry_delay;
    double retry_jitter;
    double connect_timeout;
    double timeout;
    bool defer_release;           /* implicit releases don't wait for their reply */
    php_distlock_stats stats;
    /* Every live DistLock of this request, for release at request end. */
    struct php_distlock_client *clients;
    php_distlock_lostflag lostflag;
    /* DistLock::addObserver() (src/php/observer.c): the request's observers. */
    struct php_distlock_observer *observers;
    uint32_t n_observers, cap_observers;
    bool observing;     /* observers registered and none running: operations build events */
    bool dispatching;   /* observers are being called (removals are compacted after) */
    bool queue_only;    /* in a free handler: events are queued, never told there */
    bool watching;      /* a lease of this request was given to the watchdog: sweep its renewals */
    /* Events of other threads' doing (the watchdog's renewals and losses) and of
     * deferred releases read outside any operation: reported at the next chance. */
    struct php_distlock_queued *queued;         /* oldest first; NULL: none (src/php/observer.c) */
    struct php_distlock_queued **queued_tail;   /* where the next one is linked */
    /* This thread's owner id for deadlock detection (src/php/deadlock.c): made at
     * its first wait that holds something, made again in a forked child. */
    char wait_owner[33];
    zend_long wait_owner_pid;
    char wait_label[128];   /* how other threads' messages name this one ("pid 4242 on web-3") */
    /* Leases this thread acquired and detached (framework stores detach every lease): still
     * its holds for deadlock detection until released by token or the request ends. */
    struct php_distlock_detached_hold *detached_holds;
    uint32_t n_detached_holds;
    char wait_self[128];    /* how its own message names it ("this process (pid 4242)") */
ZEND_END_MODULE_GLOBALS(distlock)

ZEND_EXTERN_MODULE_GLOBALS(distlock)
#define DISTLOCK_G(v) ZEND_MODULE_GLOBALS_ACCESSOR(distlock, v)

#if defined(ZTS) && defined(COMPILE_DL_DISTLOCK)
ZEND_TSRMLS_CACHE_EXTERN()
#endif

#endif
