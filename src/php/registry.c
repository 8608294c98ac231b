/*
 * The held-lease registry: the leases each DistLock instance holds, and what
 * happens to them at the end of their life (release at request end or with
 * the instance, the watchdog's renewals, loss, detach). The instance (client.c),
 * its handles (lock.c), the helpers and the lost-lease watch all ask the
 * registry; none of them calls another for this. The arrows point into the
 * registry (client.c, lock.c, lostwatch.c -> registry.c), which calls none of
 * them back, only observer.c (so the watchdog's start, php_distlock_watch, is
 * lostwatch.c's; tests/packaging/glue-graph.sh keeps the graph free of cycles).
 *
 * An entry is keyed by the lock name for exclusive leases (reentrancy: the
 * same instance locking a name it holds gets another handle on the same
 * lease), and by name, kind and owner token for shared leases and permits,
 * which one instance may hold several of on one name.
 */
#include "php_distlock_internal.h"

#include "../core/base/dl_clock.h"
#include "../core/base/dl_proc.h"

php_distlock_held *php_distlock_held_new(dl_lease_t *lease, zend_string *name)
{
    php_distlock_held *h = ecalloc(1, sizeof(*h));
    h->lease = lease;
    h->refcount = 1;   /* the caller's, handed to the registry by php_distlock_registry_add */
    h->name = zend_string_copy(name);
    if (lease->kind == DL_LEASE_SHARED || lease->kind == DL_LEASE_PERMITS) {
        h->key = zend_string_concat3(ZSTR_VAL(name), ZSTR_LEN(name), lease->kind == DL_LEASE_SHARED ? "\0s" : "\0p", 2,
                                     lease->token, lease->token_len);
    } else {
        h->key = zend_string_copy(name);
    }
    return h;
}

void php_distlock_held_release_ref(php_distlock_held *h)
{
    if (--h->refcount == 0) {
        if (h->wd) {
            php_distlock_obs_harvest(h);
            dl_watchdog_remove(h->wd);
        }
        dl_lease_free(h->lease);
        zend_string_release(h->name);
        zend_string_release(h->key);
        efree(h);
    }
}

void php_distlock_held_done(php_distlock_held *h)
{
    h->done = true;
    if (h->wd) {
        php_distlock_obs_harvest(h);   /* what the watchdog did before: told after the fact */
        dl_watchdog_remove(h->wd);
        h->wd = NULL;
    }
}

static void held_table_dtor(zval *zv)
{
    php_distlock_held_release_ref(Z_PTR_P(zv));
}

void php_distlock_registry_init(php_distlock_client *c)
{
    zend_hash_init(&c->held, 4, NULL, held_table_dtor, 0);
}

void php_distlock_registry_add(php_distlock_client *c, php_distlock_held *h)
{
    zend_hash_update_ptr(&c->held, h->key, h);
}

php_distlock_held *php_distlock_registry_find(php_distlock_client *c, zend_string *name)
{
    return zend_hash_find_ptr(&c->held, name);
}

/* Whether h is a live lease of this process on name (the registry lists it). */
static bool own_live(php_distlock_held *h, zend_string *name)
{
    return !h->done && h->lease->pid == dl_proc_pid() && zend_string_equals(h->name, name) &&
           !(h->wd && dl_watchdog_state(h->wd) == DL_RENEW_LOST);
}

static bool token_is(const php_distlock_held *h, const zend_string *token)
{
    return h->lease->token_len == ZSTR_LEN(token) && memcmp(h->lease->token, ZSTR_VAL(token), ZSTR_LEN(token)) == 0;
}

/* A shared lease is listed under name, kind and token, an exclusive one under
 * its name, and promote()/demote() keep the key: every entry is looked at
 * (an instance holds few). */
php_distlock_held *php_distlock_registry_find_rw(php_distlock_client *c, zend_string *name, const zend_string *token,
                                                 uint32_t *n)
{
    php_distlock_held *h, *found = NULL;
    *n = 0;
    ZEND_HASH_FOREACH_PTR(&c->held, h) {
        if ((h->lease->kind != DL_LEASE_SHARED && h->lease->kind != DL_LEASE_WRITE) || !own_live(h, name)) continue;
        (*n)++;
        if (!found && (!token || token_is(h, token))) found = h;
    } ZEND_HASH_FOREACH_END();
    return found;
}

long long php_distlock_registry_own_permits(php_distlock_client *c, zend_string *name, const zend_string *token,
                                            php_distlock_held **same)
{
    php_distlock_held *h;
    long long n = 0;
    *same = NULL;
    ZEND_HASH_FOREACH_PTR(&c->held, h) {
        if (h->lease->kind != DL_LEASE_PERMITS || !own_live(h, name)) continue;
        n += h->lease->permits;
        if (token && token_is(h, token)) *same = h;
    } ZEND_HASH_FOREACH_END();
    return n;
}

/* Removes h from the registry if it is listed there (the registry's reference goes). */
static void unlist(php_distlock_client *c, php_distlock_held *h)
{
    if (!c->closed && zend_hash_find_ptr(&c->held, h->key) == h) zend_hash_del(&c->held, h->key);
}

void php_distlock_registry_forget(php_distlock_client *c, php_distlock_held *h)
{
    php_distlock_held_done(h);
    unlist(c, h);
}

void php_distlock_registry_detach(php_distlock_client *c, php_distlock_held *h)
{
    if (h->done || h->detached) return;
    h->detached = true;
    php_distlock_deadlock_note_detached(c, h);
    if (h->wd) {
        php_distlock_obs_harvest(h);
        dl_watchdog_remove(h->wd);
        h->wd = NULL;
    }
    unlist(c, h);
}

bool php_distlock_held_lost(php_distlock_client *c, php_distlock_held *h)
{
    if (h->done || !h->wd || dl_watchdog_state(h->wd) != DL_RENEW_LOST) return false;
    php_distlock_registry_forget(c, h);  /* counted by the watchdog's stats */
    return true;
}

/* The events of a batch of implicit releases (queued: this runs in free
 * handlers and at request end). The batch's round trips go on its first event. */
static void obs_release_all(php_distlock_obs_op *op, php_distlock_client *c, php_distlock_held **held, size_t n,
                            const int *released, const dl_error_t *err)
{
    php_distlock_event ev;
    zend_string *error = err ? zend_string_init(err->msg, strlen(err->msg), 0) : NULL;
    char node[DL_OBS_SERVER_MAX];
    size_t i;
    for (i = 0; i < n; i++) {
        php_distlock_held *h = held[i];
        php_distlock_event_init(&ev, "release", php_distlock_kind_name(h->lease->kind), h->name);
        php_distlock_obs_fill(op, &ev);
        if (i > 0) ev.round_trips = 0;
        /* each names the server that answered it: on Cluster the node of its slot */
        if (!err && dl_target_node_of(c->target, h->lease, node, sizeof(node))) ev.server = node;
        ev.outcome = err ? "error" : released[i] ? "released" : "lost";
        ev.error = error;
        ev.implicit = true;
        if (h->lease->kind == DL_LEASE_PERMITS) ev.permits = h->lease->permits;
        if (h->granted_ns && !err && released[i]) ev.held_ns = op->start_ns - h->granted_ns;
        if (DISTLOCK_G(n_observers) > 0) php_distlock_obs_queue(&ev);
    }
    if (error) zend_string_release(error);
}

zend_long php_distlock_registry_release_all(php_distlock_client *c)
{
    zend_long ours = 0;
    php_distlock_held *h, **held;
    dl_lease_t **leases;
    int *released;
    size_t n = 0, i;
    pid_t pid = dl_proc_pid();
    php_distlock_obs_op op;

    if (zend_hash_num_elements(&c->held) == 0) {
        dl_target_settle(c->target);   /* deferred replies (a Lock destroyed) are owed all the same */
        return 0;
    }
    leases = safe_emalloc(zend_hash_num_elements(&c->held), sizeof(*leases), 0);
    held = safe_emalloc(zend_hash_num_elements(&c->held), sizeof(*held), 0);
    released = safe_emalloc(zend_hash_num_elements(&c->held), sizeof(*released), 0);
    ZEND_HASH_FOREACH_PTR(&c->held, h) {
        if (!h->done && h->lease->pid == pid) {
            held[n] = h;
            leases[n++] = h->lease;
        }
        php_distlock_held_done(h);
    } ZEND_HASH_FOREACH_END();
    if (n == 0) {
        dl_target_settle(c->target);
    } else {
        dl_error_t err;
        dl_status_t st;
        PHP_DISTLOCK_OBS_BEGIN(&op);
        /* The releases and the owed replies within one `timeout` (issue 37.2). */
        st = dl_target_end_request(c->target, n, leases, released, &err);
        if (st == DL_OK) {
            for (i = 0; i < n; i++) {
                if (released[i]) DISTLOCK_G(stats).released++;
                else DISTLOCK_G(stats).lost++;
                ours += released[i] != 0;
            }
        } else {
            DISTLOCK_G(stats).connection_errors++;
        }
        if (op.on) obs_release_all(&op, c, held, n, released, st == DL_OK ? NULL : &err);
    }
    efree(leases);
    efree(held);
    efree(released);
    zend_hash_clean(&c->held);
    return ours;
}

zend_long php_distlock_release_all(void)
{
    php_distlock_client *c;
    zend_long n = 0;
    for (c = DISTLOCK_G(clients); c; c = c->next) {
        n += php_distlock_registry_release_all(c);   /* and every deferred reply read, in the same bound */
    }
    return n;
}
