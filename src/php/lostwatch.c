/*
 * on_lost => 'throw': a lease that the watchdog finds lost raises
 * DistLock\LockLostException in the running PHP code at the next VM
 * interrupt, within one renewal period of the loss.
 *
 * The watchdog thread must not call Zend, so its lost hook only sets a flag
 * and asks the VM for an interrupt (the same mechanism as pcntl's async
 * signals and the execution timer). The interrupt hook, on the PHP thread,
 * finds the lost lease and throws. Any hook installed before ours (pcntl's)
 * keeps running.
 */
#include "php_distlock_internal.h"

#include "zend_exceptions.h"

static void (*previous_interrupt)(zend_execute_data *execute_data);

/* Runs on the watchdog thread: arg is &EG(vm_interrupt) of the PHP thread
 * that registered the lease, an atomic flag made to be set asynchronously. */
static void on_lost(void *arg)
{
    zend_atomic_bool_store_ex((zend_atomic_bool *)arg, true);   /* PHP >= 8.2, the supported range */
}

void *php_distlock_lostwatch_arg(void)
{
    return (void *)&EG(vm_interrupt);
}

/* Throws for the first lost lease of an on_lost=throw client of this request. */
static void raise_lost(void)
{
    php_distlock_client *c;
    for (c = DISTLOCK_G(clients); c; c = c->next) {
        php_distlock_held *h;
        if (!c->on_lost_throw) continue;
        ZEND_HASH_FOREACH_PTR(&c->held, h) {
            if (h->wd && !h->done && dl_watchdog_state(h->wd) == DL_RENEW_LOST) {
                zend_string *n = zend_string_copy(h->name);
                php_distlock_registry_forget(c, h);
                zend_throw_exception_ex(distlock_ce_LockLostException, 0,
                    "The lock \"%s\" was lost: its lease was taken over or expired while held", ZSTR_VAL(n));
                zend_string_release(n);
                return;
            }
        } ZEND_HASH_FOREACH_END();
    }
}

static void distlock_interrupt(zend_execute_data *execute_data)
{
    if (!EG(exception) && dl_watchdog_take_lost()) {
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
