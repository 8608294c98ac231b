/*
 * The watchdog in the glue: a held lease starts renewing here
 * (php_distlock_watch, with this thread's lost flag as the lost hook's arg),
 * and on_lost => 'throw' is implemented here.
 *
 * The calls point one way: lostwatch.c -> registry.c (a lost lease is
 * forgotten there); the registry never calls in here
 * (tests/packaging/glue-graph.sh keeps the glue's call graph free of cycles).
 *
 * on_lost => 'throw': a lease that the watchdog finds lost raises
 * DistLock\LockLostException in the running PHP code at the next VM
 * interrupt, within one renewal period of the loss.
 *
 * The watchdog thread must not call Zend, so its lost hook only sets flags:
 * the lost flag of the PHP thread that registered the lease (module globals,
 * one per thread in ZTS builds) and that thread's VM interrupt (the same
 * mechanism as pcntl's async signals and the execution timer). The interrupt
 * hook, on that PHP thread, takes its own flag, finds the lost lease among its
 * own request's clients and throws: a lease lost in one thread's request never
 * raises in another's. Any hook installed before ours (pcntl's) keeps running.
 */
#include "php_distlock_internal.h"

#include "zend_exceptions.h"

static void (*previous_interrupt)(zend_execute_data *execute_data);

/* Runs on the watchdog thread: arg is the lost flag of the PHP thread that
 * registered the lease; both flags are atomics made to be set asynchronously. */
static void on_lost(void *arg)
{
    php_distlock_lostflag *f = arg;
    zend_atomic_bool_store_ex(&f->lost, true);   /* PHP >= 8.2, the supported range */
    zend_atomic_bool_store_ex(f->vm_interrupt, true);
}

/* The lost hook's arg for a lease this thread registers: its own lost flag. */
static void *lost_arg(void)
{
    DISTLOCK_G(lostflag).vm_interrupt = &EG(vm_interrupt);
    return &DISTLOCK_G(lostflag);
}

bool php_distlock_watch(php_distlock_client *c, php_distlock_held *h)
{
    dl_error_t err;
    int released;
    int64_t granted_ns = h->lease->valid_until_ns - h->lease->ttl_ms * 1000000;
    if (!c->watchdog) return true;
    if (dl_watchdog_add(dl_target_config(c->target), h->lease, granted_ns, c->max_hold_us,
                        c->on_lost_throw ? lost_arg() : NULL, &h->wd, &err) == DL_OK) {
        h->owner = c;
        DISTLOCK_G(watching) = true;
        return true;
    }
    dl_target_release(c->target, h->lease, &released, NULL);
    h->done = true;
    php_distlock_throw(&err);
    return false;
}

/* The first lease of an on_lost=throw client of this request that the watchdog found lost, or NULL. */
static php_distlock_held *first_lost(php_distlock_client **owner)
{
    php_distlock_client *c;
    php_distlock_held *h;
    for (c = DISTLOCK_G(clients); c; c = c->next) {
        if (!c->on_lost_throw) continue;
        ZEND_HASH_FOREACH_PTR(&c->held, h) {
            if (h->wd && !h->done && dl_watchdog_state(h->wd) == DL_RENEW_LOST) {
                *owner = c;
                return h;
            }
        } ZEND_HASH_FOREACH_END();
    }
    return NULL;
}

/* Throws for the first lost lease; when another is lost too, the next interrupt throws for it. */
static void raise_lost(void)
{
    php_distlock_client *c = NULL;
    php_distlock_held *h = first_lost(&c);
    zend_string *n;
    if (!h) return;
    n = zend_string_copy(h->name);
    php_distlock_registry_forget(c, h);
    php_distlock_obs_flush_safe();   /* its renewals and loss, before the exception */
    zend_throw_exception_ex(distlock_ce_LockLostException, 0,
        "The lock \"%s\" was lost: its lease was taken over or expired while held", ZSTR_VAL(n));
    zend_string_release(n);
    if (first_lost(&c)) on_lost(&DISTLOCK_G(lostflag));
}

static void distlock_interrupt(zend_execute_data *execute_data)
{
    if (!EG(exception) && zend_atomic_bool_exchange_ex(&DISTLOCK_G(lostflag).lost, false)) {
        raise_lost();
    }
    if (previous_interrupt) {
        previous_interrupt(execute_data);
    }
}

void php_distlock_lostwatch_minit(void)
{
    dl_watchdog_set_lost_hook(on_lost);
    previous_interrupt = zend_interrupt_function;
    zend_interrupt_function = distlock_interrupt;
}

void php_distlock_lostwatch_mshutdown(void)
{
    dl_watchdog_shutdown();
    dl_pool_shutdown();
    if (zend_interrupt_function == distlock_interrupt) {
        zend_interrupt_function = previous_interrupt;
    }
}
