/*
 * What the core's deadlock check needs from PHP (src/core/lease/dl_deadlock.h;
 * docs/deadlocks.md): who waits, how to name it, and which leases it holds.
 *
 * The owner of a wait is the thread of execution: the process under NTS, the
 * PHP thread under ZTS (module globals are per thread), the same across every
 * DistLock instance it uses, and never a forked child's (made again when the
 * pid changes). The leases it holds are its own grants on the same server and
 * database: those its live instances hold, and those it detached in this
 * request (the framework stores detach every lease and release it by token),
 * until released by token or the request's end; restored ones are
 * another thread's grant and are left out (a cycle through them is not seen,
 * never invented). A lease published after it ended misleads nobody: a walk
 * reaches a holder key only through the token the name holds now. A thread
 * that holds nothing is not checked: it cannot be on a cycle, and its wait
 * costs nothing more.
 */
#include "php_distlock_internal.h"

#include <unistd.h>

#include "../core/base/dl_proc.h"
#include "../core/base/dl_token.h"

/* This thread's owner id and labels, made on first need and again after
 * fork(); 0 when the kernel refuses randomness. gethostname() runs then only. */
static int identity(void)
{
    zend_long pid = (zend_long)dl_proc_pid();
    char host[64];
    dl_error_t err;
    if (DISTLOCK_G(wait_owner)[0] != '\0' && DISTLOCK_G(wait_owner_pid) == pid) return 1;
    if (dl_token_generate(DISTLOCK_G(wait_owner), &err) != DL_OK) {
        DISTLOCK_G(wait_owner)[0] = '\0';
        return 0;
    }
    DISTLOCK_G(wait_owner_pid) = pid;
    if (gethostname(host, sizeof(host)) != 0) host[0] = '\0';
    host[sizeof(host) - 1] = '\0';
#ifdef ZTS
    snprintf(DISTLOCK_G(wait_label), sizeof(DISTLOCK_G(wait_label)), "pid %ld thread %lu%s%s", (long)pid,
             (unsigned long)tsrm_thread_id(), host[0] ? " on " : "", host);
    snprintf(DISTLOCK_G(wait_self), sizeof(DISTLOCK_G(wait_self)), "this thread (pid %ld thread %lu)", (long)pid,
             (unsigned long)tsrm_thread_id());
#else
    snprintf(DISTLOCK_G(wait_label), sizeof(DISTLOCK_G(wait_label)), "pid %ld%s%s", (long)pid, host[0] ? " on " : "",
             host);
    snprintf(DISTLOCK_G(wait_self), sizeof(DISTLOCK_G(wait_self)), "this process (pid %ld)", (long)pid);
#endif
    return 1;
}

/* A detached lease kept as a hold: a copy of its key and token, and the server it is on. */
typedef struct php_distlock_detached_hold {
    dl_lease_t *lease;
    zend_string *display;
} php_distlock_detached_hold;

#define DETACHED_MAX 32   /* the newest are kept: a detached lease's life is a request's */

static void detached_free(php_distlock_detached_hold *d)
{
    dl_lease_free(d->lease);
    zend_string_release(d->display);
}

/* Removes entry i, keeping the order (oldest first). */
static void detached_remove(uint32_t i)
{
    php_distlock_detached_hold *a = DISTLOCK_G(detached_holds);
    detached_free(&a[i]);
    memmove(&a[i], &a[i + 1], (DISTLOCK_G(n_detached_holds) - i - 1) * sizeof(*a));
    DISTLOCK_G(n_detached_holds)--;
}

void php_distlock_deadlock_note_detached(const php_distlock_client *c, const php_distlock_held *h)
{
    const dl_lease_t *l = h->lease;
    php_distlock_detached_hold *d;
    dl_lease_t *copy;
    dl_error_t err;

    if (!c->deadlock_detection || !c->display || h->restored || l->pid != dl_proc_pid()) {
        return;
    }
    copy = dl_lease_new(l->key, l->name_off, l->key + l->name_off, l->key_len - l->name_off, l->token, l->token_len,
                        l->ttl_ms, &err);
    if (!copy) return;   /* out of memory: a cycle through it is missed, never invented */
    if (!DISTLOCK_G(detached_holds)) {
        DISTLOCK_G(detached_holds) = emalloc(DETACHED_MAX * sizeof(*d));
    }
    if (DISTLOCK_G(n_detached_holds) == DETACHED_MAX) detached_remove(0);
    d = &DISTLOCK_G(detached_holds)[DISTLOCK_G(n_detached_holds)++];
    d->lease = copy;
    d->display = zend_string_copy(c->display);
}

void php_distlock_deadlock_forget_detached(const php_distlock_client *c, const char *key, size_t key_len,
                                           const char *token, size_t token_len)
{
    uint32_t i;
    for (i = 0; i < DISTLOCK_G(n_detached_holds); i++) {
        const php_distlock_detached_hold *d = &DISTLOCK_G(detached_holds)[i];
        if (d->lease->key_len == key_len && d->lease->token_len == token_len &&
            memcmp(d->lease->key, key, key_len) == 0 && memcmp(d->lease->token, token, token_len) == 0 &&
            c->display && zend_string_equals(d->display, c->display)) {
            detached_remove(i);
            return;
        }
    }
}

void php_distlock_deadlock_rshutdown(void)
{
    while (DISTLOCK_G(n_detached_holds) > 0) detached_remove(DISTLOCK_G(n_detached_holds) - 1);
    if (DISTLOCK_G(detached_holds)) {
        efree(DISTLOCK_G(detached_holds));
        DISTLOCK_G(detached_holds) = NULL;
    }
}

/* The holds: c's server's own leases (permits too), over every live instance on the same server and
 * database, and the leases this thread detached there. */
static size_t collect_holds(const php_distlock_client *c, const dl_lease_t **out, size_t max)
{
    pid_t pid = dl_proc_pid();
    const php_distlock_client *o;
    size_t n = 0;
    uint32_t i;

    for (o = DISTLOCK_G(clients); o && n < max; o = o->next) {
        php_distlock_held *h;
        if (o->closed || !o->display || !zend_string_equals(o->display, c->display)) continue;
        ZEND_HASH_FOREACH_PTR((HashTable *)&o->held, h) {
            if (n == max) break;
            /* Not by validity: the watchdog renews its own copy of a lease, so a
             * held one may have outlived its first TTL; a hold published after
             * it ended misleads nobody (see the top of this file). */
            if (h->done || h->restored || h->lease->pid != pid) continue;
            out[n++] = h->lease;
        } ZEND_HASH_FOREACH_END();
    }
    for (i = DISTLOCK_G(n_detached_holds); i > 0 && n < max; i--) {   /* the newest first */
        const php_distlock_detached_hold *d = &DISTLOCK_G(detached_holds)[i - 1];
        if (d->lease->pid == pid && zend_string_equals(d->display, c->display)) out[n++] = d->lease;
    }
    return n;
}

const dl_deadlock_opts_t *php_distlock_deadlock_opts(const php_distlock_client *c, php_distlock_deadlock_buf *buf)
{
    if (!c->deadlock_detection || !c->display) return NULL;
    buf->opts.n_holds = collect_holds(c, buf->holds, DL_DEADLOCK_HOLDS_MAX);
    if (buf->opts.n_holds == 0 || !identity()) return NULL;
    buf->opts.owner = DISTLOCK_G(wait_owner);
    buf->opts.owner_len = DL_TOKEN_HEX_LEN;
    buf->opts.holds = buf->holds;
    buf->opts.label = DISTLOCK_G(wait_label);
    buf->opts.self = DISTLOCK_G(wait_self);
    return &buf->opts;
}
