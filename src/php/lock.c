/*
 * The DistLock\Lock class: a handle on a lease held by a DistLock instance.
 *
 * A handle keeps its DistLock (and so the connection) alive. Several handles
 * may share one lease (reentrancy); the key is deleted with the last one.
 * Only the process that acquired the lease ever releases or refreshes it:
 * after fork() the child's copies of the handles are inert.
 */
#include "php_distlock_internal.h"

#include "../core/base/dl_clock.h"
#include "../core/base/dl_proc.h"

#include "ext/spl/spl_exceptions.h"
#include "zend_exceptions.h"

zend_class_entry *distlock_ce_Lock;
static zend_object_handlers lock_handlers;

void php_distlock_lock_create_view(zval *out, php_distlock_client *c, php_distlock_held *held, bool exclusive)
{
    php_distlock_lock *l;
    object_init_ex(out, distlock_ce_Lock);
    l = php_distlock_lock_from(Z_OBJ_P(out));
    l->owner = c;
    GC_ADDREF(&c->std);
    l->held = held;
    l->active = true;
    l->exclusive = exclusive;
    held->refcount++;
    held->handles++;
    if (exclusive) held->writers++;
}

void php_distlock_lock_create(zval *out, php_distlock_client *c, php_distlock_held *held)
{
    php_distlock_lock_create_view(out, c, held, held->lease->kind == DL_LEASE_WRITE);
}

/* Ends this handle's share of the lease (it keeps its reference for token()). */
static void end_share(php_distlock_lock *l)
{
    l->active = false;
    l->held->handles--;
    if (l->exclusive) l->held->writers--;
}

/* The last exclusive view of a readers-writer lease that shared views still
 * hold: its release demotes the lease instead of ending it
 * (docs/decisions/0007-an-instance-never-waits-for-its-own-lease.md). */
static bool release_demotes(const php_distlock_lock *l)
{
    const php_distlock_held *h = l->held;
    return l->exclusive && h->writers == 1 && h->handles > 1 && !h->detached && h->lease->kind == DL_LEASE_WRITE;
}

/* True when this handle may act on its lease: held, not known lost, this process. */
static bool usable(php_distlock_lock *l)
{
    return l->active && !l->held->done && !l->owner->closed && l->held->lease->pid == dl_proc_pid() &&
           !php_distlock_held_lost(l->owner, l->held);
}

/* The outcome of a deferred release, counted when its reply is read. */
static void deferred_release_done(int released, dl_status_t st)
{
    if (st != DL_OK && st != DL_ERR_KIND) DISTLOCK_G(stats).connection_errors++;   /* another kind: lost, below */
    else if (released) DISTLOCK_G(stats).released++;
    else DISTLOCK_G(stats).lost++;
}

/* What an observer is told of a deferred release, when its reply is read. */
typedef struct deferred_obs {
    int64_t sent_ns;      /* monotonic: when the release was written */
    int64_t granted_ns;   /* 0: not known */
    dl_lease_kind_t kind;
    long long permits;
    char node[DL_OBS_SERVER_MAX];   /* on Cluster, the node of the lease's slot when it was sent; "" elsewhere */
    size_t name_len;
    char name[];          /* the lock name (no prefix), NUL-terminated */
} deferred_obs_t;

static void deferred_release_done_obs(void *arg, int released, dl_status_t st, const char *endpoint)
{
    deferred_obs_t *d = arg;
    php_distlock_event ev;
    zend_string *name;

    if (released < 0) {   /* another process's (fork): nothing was done */
        free(d);
        return;
    }
    deferred_release_done(released, st);
    if (DISTLOCK_G(n_observers) > 0) {
        name = zend_string_init(d->name, d->name_len, 0);
        php_distlock_event_init(&ev, "release", php_distlock_kind_name(d->kind), name);
        ev.outcome = st != DL_OK && st != DL_ERR_KIND ? "error" : released ? "released" : "lost";
        if (st != DL_OK && st != DL_ERR_KIND) {
            ev.error = zend_string_init("the deferred release failed: its reply could not be read and the release "
                                        "could not be sent again", sizeof("the deferred release failed: its reply "
                                        "could not be read and the release could not be sent again") - 1, 0);
        }
        ev.start_ns = d->sent_ns;
        ev.call_ns = dl_clock_now_ns() - d->sent_ns;
        /* The transport that answered names itself; on Cluster that is the
         * router ("cluster of N masters via ..."): the event names the node. */
        ev.server = endpoint && d->node[0] ? d->node : endpoint;
        ev.implicit = true;
        if (d->kind == DL_LEASE_PERMITS) ev.permits = d->permits;
        if (d->granted_ns && released && st == DL_OK) ev.held_ns = d->sent_ns - d->granted_ns;
        /* Read inside another call's round trip, maybe: told when user code may run. */
        php_distlock_obs_queue(&ev);
        if (ev.error) zend_string_release(ev.error);
        zend_string_release(name);
    }
    free(d);
}

/* The release event of held (not deferred). */
static void obs_release(php_distlock_obs_op *op, php_distlock_held *h, const char *outcome, bool implicit)
{
    php_distlock_event ev;
    php_distlock_event_init(&ev, "release", php_distlock_kind_name(h->lease->kind), h->name);
    ev.outcome = outcome;
    ev.implicit = implicit;
    if (h->lease->kind == DL_LEASE_PERMITS) ev.permits = h->lease->permits;
    if (h->granted_ns && strcmp(outcome, "released") == 0) ev.held_ns = op->start_ns - h->granted_ns;
    php_distlock_obs_end(op, &ev);
}

/* The part of a release that needs no server: a handle not acting (inactive,
 * lost, another process: 0), a detached lease at scope end (0), or an outer
 * handle still sharing the lease (1). Returns 1 when settled so, *result set;
 * 0 when the lease must be released on the server. */
static int release_settled_here(php_distlock_lock *l, bool implicit, int *result)
{
    php_distlock_held *h = l->held;
    *result = 0;
    if (!l->active) return 1;
    /* A detached lease is released only explicitly (release()), never by scope or synchronized(). */
    if ((implicit && h->detached) || !usable(l)) {
        /* released by an earlier attempt of ours (lease_status); never in another process */
        *result = h->done && h->done_released && h->lease->pid == dl_proc_pid();
        end_share(l);
        return 1;
    }
    if (release_demotes(l)) return 0;   /* the server turns it shared */
    /* A detached lease belongs to its token: any handle's release() releases it. */
    if (h->handles > 1 && !h->detached) {
        end_share(l);  /* an outer handle still holds the lease */
        *result = 1;
        return 1;
    }
    return 0;
}

/* Counts a server release's outcome and ends the handle's share. */
static void release_done(php_distlock_lock *l, int released)
{
    if (released) DISTLOCK_G(stats).released++;
    else DISTLOCK_G(stats).lost++;
    php_distlock_registry_forget(l->owner, l->held);
    end_share(l);
}

static int lock_release(php_distlock_lock *l, bool quiet, bool implicit, php_distlock_obs_op *op);

/* The release of the last exclusive view while shared views hold the lease:
 * the lease turns shared (the demote script, as demote()); 1 done, 0 lost,
 * -1 after throwing (the handle kept, as a failed release keeps it). */
static int release_demote(php_distlock_lock *l, bool quiet)
{
    int r = php_distlock_change_kind(l->owner, l->held, false, l->held->lease->ttl_ms, quiet);
    if (r == -2) {
        if (!quiet) return -1;
        end_share(l);   /* quiet: counted; the lease stays exclusive for the shared views, until its TTL */
        return 0;
    }
    end_share(l);
    return r == 1;
}

int php_distlock_lock_release(php_distlock_lock *l, bool quiet, bool implicit)
{
    php_distlock_obs_op op;
    php_distlock_held *h = l->held;
    bool was_usable;
    int r;

    if (!l->active || (implicit && h->detached)) return 0;   /* nothing happens: no event */
    PHP_DISTLOCK_OBS_BEGIN(&op);
    if (!op.on) return lock_release(l, quiet, implicit, &op);
    /* h stays alive: this handle keeps its reference until it is freed. */
    was_usable = usable(l);
    r = lock_release(l, quiet, implicit, &op);
    if (r == 2) {
        r = 1;   /* deferred: told when its reply is read */
        dl_obs_arm(op.prev);
        php_distlock_obs_flush_safe();   /* Redlock: done at once */
    } else if (was_usable || !implicit) {
        obs_release(&op, h, r < 0 ? "error" : r ? "released" : "lost", implicit);
    } else {
        dl_obs_arm(op.prev);
    }
    return r;
}

/* php_distlock_lock_release; returns 2 for a release deferred (1 to the caller). */
static int lock_release(php_distlock_lock *l, bool quiet, bool implicit, php_distlock_obs_op *op)
{
    php_distlock_held *h = l->held;
    dl_error_t err;
    dl_status_t st;
    int released = 0;

    if (release_settled_here(l, implicit, &released)) return released;
    if (release_demotes(l)) return release_demote(l, quiet);
    if (implicit && l->owner->defer_release) {
        /* The caller does not use the result: write it and go on; the reply is
         * read before the next command on this connection (dl_pending.h). */
        php_distlock_registry_forget(l->owner, h);   /* the watchdog stops before the write */
        if (op->on) {
            deferred_obs_t *d = malloc(sizeof(*d) + ZSTR_LEN(h->name) + 1);
            if (d) {
                d->sent_ns = dl_clock_now_ns();
                d->granted_ns = h->granted_ns;
                d->kind = h->lease->kind;
                d->permits = h->lease->permits;
                if (!dl_target_node_of(l->owner->target, h->lease, d->node, sizeof(d->node))) d->node[0] = '\0';
                d->name_len = ZSTR_LEN(h->name);
                memcpy(d->name, ZSTR_VAL(h->name), d->name_len + 1);
                dl_target_release_deferred_ex(l->owner->target, h->lease, deferred_release_done_obs, d);
                end_share(l);
                return 2;
            }
        }
        dl_target_release_deferred(l->owner->target, h->lease, deferred_release_done);
        end_share(l);
        return op->on ? 2 : 1;
    }
    st = dl_target_release(l->owner->target, h->lease, &released, &err);
    if (st == DL_ERR_KIND) {
        st = DL_OK;   /* another kind holds the name now: this lease ended before; lost */
        released = 0;
    }
    if (st != DL_OK) {
        if (!quiet) {
            /* Keep the handle: a later release(), the destructor or request end retries. */
            php_distlock_throw_release(&err);
            return -1;
        }
        DISTLOCK_G(stats).connection_errors++;
        released = 0;
        php_distlock_registry_forget(l->owner, h);
        end_share(l);
        return 0;
    }
    release_done(l, released);
    return released;
}

/* releaseAll()'s events, in the list's order: the batch's round trips go on
 * the first event that had the server; every release the server answered
 * names it (asked[i]; on Cluster the node of its slot), one settled without
 * it (an outer handle, a lost one) or failed names none; outcome[i] NULL:
 * nothing happened. */
static void obs_release_many(php_distlock_obs_op *op, php_distlock_client *c, php_distlock_lock **locks, uint32_t n,
                             const char **outcome, const bool *asked)
{
    php_distlock_event ev;
    bool first = true;
    char node[DL_OBS_SERVER_MAX];
    uint32_t i;
    dl_obs_arm(op->prev);   /* done: the batch's facts are complete (each event is filled from them) */
    for (i = 0; i < n; i++) {
        php_distlock_held *h = locks[i]->held;
        bool error;
        if (!outcome[i]) continue;
        error = strcmp(outcome[i], "error") == 0;
        php_distlock_event_init(&ev, "release", php_distlock_kind_name(h->lease->kind), h->name);
        php_distlock_obs_fill(op, &ev);
        if (!first || error || !asked[i]) ev.round_trips = 0;
        if (ev.round_trips) first = false;
        if (error || !asked[i]) ev.server = NULL;
        else if (dl_target_node_of(c->target, h->lease, node, sizeof(node))) ev.server = node;
        ev.outcome = outcome[i];
        if (strcmp(outcome[i], "error") == 0) ev.error = php_distlock_obs_pending_message();
        if (h->lease->kind == DL_LEASE_PERMITS) ev.permits = h->lease->permits;
        if (h->granted_ns && strcmp(outcome[i], "released") == 0) ev.held_ns = op->start_ns - h->granted_ns;
        php_distlock_obs_queue(&ev);
        if (ev.error) zend_string_release(ev.error);
    }
    php_distlock_obs_flush_safe();
}

zend_long php_distlock_lock_release_many(php_distlock_client *c, php_distlock_lock **locks, uint32_t n)
{
    dl_lease_t **leases = safe_emalloc(n, sizeof(*leases), 0);
    php_distlock_lock **sent = safe_emalloc(n, sizeof(*sent), 0);
    int *released = safe_emalloc(n, sizeof(*released), 0);
    const char **outcome = NULL;
    bool *asked = NULL;
    uint32_t *sent_at = NULL;
    zend_long count = 0;
    uint32_t i, m = 0;
    dl_error_t err;
    int r;
    php_distlock_obs_op op;

    PHP_DISTLOCK_OBS_BEGIN(&op);
    if (op.on) {
        outcome = ecalloc(n, sizeof(*outcome));
        asked = ecalloc(n, sizeof(*asked));
        sent_at = safe_emalloc(n, sizeof(*sent_at), 0);
    }
    for (i = 0; i < n; i++) {
        bool acting = locks[i]->active;
        if (release_settled_here(locks[i], false, &r)) {
            count += r;
            if (outcome && acting) outcome[i] = r ? "released" : "lost";
            continue;
        }
        if (release_demotes(locks[i])) {
            /* a round trip of its own (the demote script), in the list's order */
            if ((r = release_demote(locks[i], false)) < 0) {
                /* thrown: this handle and those not sent yet are kept, as a failed batch keeps them */
                uint32_t j;
                for (j = 0; j < m; j++) sent[j]->active = true;
                if (outcome) outcome[i] = "error";
                m = 0;
                count = -1;
                break;
            }
            count += r;
            if (outcome) {
                outcome[i] = r ? "released" : "lost";
                asked[i] = true;
            }
            continue;
        }
        if (sent_at) {
            sent_at[m] = i;
            asked[i] = true;
        }
        /* Inactive until the reply: the same handle twice in the list is sent once. */
        locks[i]->active = false;
        sent[m] = locks[i];
        leases[m++] = locks[i]->held->lease;
    }
    if (m > 0 && dl_target_release_many(c->target, m, leases, released, &err) != DL_OK) {
        /* Keep the handles: a later release, the destructors or request end retry. */
        for (i = 0; i < m; i++) {
            sent[i]->active = true;
            if (outcome) outcome[sent_at[i]] = "error";
        }
        php_distlock_throw_release(&err);
        count = -1;
    } else {
        for (i = 0; i < m; i++) {
            sent[i]->active = true;
            release_done(sent[i], released[i]);
            count += released[i] != 0;
            if (outcome) outcome[sent_at[i]] = released[i] ? "released" : "lost";
        }
    }
    if (op.on) {
        obs_release_many(&op, c, locks, n, outcome, asked);
        efree(outcome);
        efree(asked);
        efree(sent_at);
    }
    efree(leases);
    efree(sent);
    efree(released);
    return count;
}

/* Reads ownership and PTTL; marks the lease lost when it is not ours.
 * Returns the PTTL in ms, -1 when not ours, -2 after throwing. */
static int64_t lease_status(php_distlock_lock *l)
{
    php_distlock_held *h = l->held;
    dl_error_t err;
    dl_status_t st;
    int64_t pttl_ms;

    if (!l->active || h->done || l->owner->closed || php_distlock_held_lost(l->owner, h)) return -1;
    st = dl_target_status(l->owner->target, h->lease, &pttl_ms, &err);
    PHP_DISTLOCK_OBS_TELL();
    switch (st) {
    case DL_OK: break;
    case DL_ERR_KIND: pttl_ms = -3; break;   /* another kind holds the name now: our lease is gone */
    default:
        php_distlock_throw(&err);
        return -2;
    }
    if (pttl_ms < 0 && h->lease->pid == dl_proc_pid()) {
        /* Gone while valid after a release that failed on the network: that release ran (dl_lease.h). */
        h->done_released = dl_lease_gone_by_our_release(h->lease);
        if (h->done_released) DISTLOCK_G(stats).released++;
        else DISTLOCK_G(stats).lost++;
        php_distlock_registry_forget(l->owner, h);
    }
    return pttl_ms;
}

/* ---- handlers -------------------------------------------------------------- */

static zend_object *lock_create_object(zend_class_entry *ce)
{
    php_distlock_lock *l = zend_object_alloc(sizeof(php_distlock_lock), ce);
    zend_object_std_init(&l->std, ce);
    object_properties_init(&l->std, ce);
    l->std.handlers = &lock_handlers;
    return &l->std;
}

static void lock_free(zend_object *obj)
{
    php_distlock_lock *l = php_distlock_lock_from(obj);
    if (l->held) {
        if (!l->held->detached) {
            /* scoped release; its event is told at the next safe point (no user code in a free handler) */
            bool was = DISTLOCK_G(queue_only);
            DISTLOCK_G(queue_only) = true;
            php_distlock_lock_release(l, true, true);
            DISTLOCK_G(queue_only) = was;
        }
        php_distlock_held_release_ref(l->held);
    }
    if (l->owner) OBJ_RELEASE(&l->owner->std);
    zend_object_std_dtor(obj);
}

static zend_function *lock_get_constructor(zend_object *obj)
{
    (void)obj;
    zend_throw_error(NULL, "Cannot directly construct DistLock\\Lock, use DistLock::lock(), tryLock() or restore()");
    return NULL;
}

/* var_dump()/print_r(): no token (it is a credential for release). */
static HashTable *lock_debug_info(zend_object *obj, int *is_temp)
{
    php_distlock_lock *l = php_distlock_lock_from(obj);
    HashTable *ht = zend_new_array(3);
    zval v;
    *is_temp = 1;
    if (!l->held) return ht;
    ZVAL_STR_COPY(&v, l->held->name);
    zend_hash_str_update(ht, "name", sizeof("name") - 1, &v);
    ZVAL_BOOL(&v, l->active && !l->held->done);
    zend_hash_str_update(ht, "held", sizeof("held") - 1, &v);
    ZVAL_DOUBLE(&v, l->held->lease->ttl_ms / 1e3);
    zend_hash_str_update(ht, "ttl", sizeof("ttl") - 1, &v);
    return ht;
}

void php_distlock_lock_minit(zend_class_entry *ce)
{
    distlock_ce_Lock = ce;
    ce->create_object = lock_create_object;
    memcpy(&lock_handlers, zend_get_std_object_handlers(), sizeof(lock_handlers));
    lock_handlers.offset = offsetof(php_distlock_lock, std);
    lock_handlers.free_obj = lock_free;
    lock_handlers.clone_obj = NULL;
    lock_handlers.get_constructor = lock_get_constructor;
    lock_handlers.get_debug_info = lock_debug_info;
}

#define THIS_LOCK() php_distlock_lock_from(Z_OBJ_P(ZEND_THIS))

/* ---- methods ----------------------------------------------------------------- */

ZEND_METHOD(DistLock_Lock, name)
{
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_STR_COPY(THIS_LOCK()->held->name);
}

ZEND_METHOD(DistLock_Lock, token)
{
    php_distlock_lock *l = THIS_LOCK();
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_STRINGL(l->held->lease->token, l->held->lease->token_len);
}

ZEND_METHOD(DistLock_Lock, release)
{
    int r;
    ZEND_PARSE_PARAMETERS_NONE();
    r = php_distlock_lock_release(THIS_LOCK(), false, false);
    if (r < 0) RETURN_THROWS();
    RETURN_BOOL(r);
}

ZEND_METHOD(DistLock_Lock, detach)
{
    php_distlock_lock *l = THIS_LOCK();
    ZEND_PARSE_PARAMETERS_NONE();
    php_distlock_registry_detach(l->owner, l->held);
    RETURN_STRINGL(l->held->lease->token, l->held->lease->token_len);
}

/* Lock::refresh() once its argument is checked: true/false in return_value, or throws. */
static void lock_refresh(php_distlock_lock *l, int64_t ttl_ms, zval *return_value)
{
    dl_error_t err;
    int extended;
    dl_status_t st = dl_target_refresh(l->owner->target, l->held->lease, ttl_ms, &extended, &err);

    /* After the command, whatever its reply: a lost reply may hide a shorter
     * ttl that landed (dl_renew_set_ttl; tests/model/watchdog.pml). */
    if (l->held->wd) dl_watchdog_set_ttl(l->held->wd, ttl_ms);
    switch (st) {
    case DL_OK: break;
    case DL_ERR_KIND: extended = 0; break;   /* another kind holds the name now: our lease is gone */
    default:
        php_distlock_throw(&err);
        RETURN_THROWS();
    }
    if (extended) {
        DISTLOCK_G(stats).refreshed++;
        RETURN_TRUE;
    }
    DISTLOCK_G(stats).lost++;
    php_distlock_registry_forget(l->owner, l->held);
    RETURN_FALSE;
}

ZEND_METHOD(DistLock_Lock, refresh)
{
    php_distlock_lock *l = THIS_LOCK();
    double ttl = 0;
    bool ttl_null = true;
    int64_t ttl_ms;
    php_distlock_obs_op op;

    ZEND_PARSE_PARAMETERS_START(0, 1)
        Z_PARAM_OPTIONAL
        Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_null)
    ZEND_PARSE_PARAMETERS_END();

    if (!ttl_null && !php_distlock_ttl_ms("DistLock\\Lock::refresh", "Argument #1 ($ttl)", ttl, &ttl_ms)) {
        RETURN_THROWS();
    }
    if (ttl_null) ttl_ms = l->held->lease->ttl_ms;
    PHP_DISTLOCK_OBS_BEGIN(&op);
    if (usable(l)) lock_refresh(l, ttl_ms, return_value);
    else RETVAL_FALSE;
    if (op.on) {
        php_distlock_event ev;
        php_distlock_event_init(&ev, "refresh", php_distlock_kind_name(l->held->lease->kind), l->held->name);
        ev.outcome = EG(exception) ? "error" : Z_TYPE_P(return_value) == IS_TRUE ? "refreshed" : "lost";
        ev.ttl_ms = ttl_ms;
        if (l->held->lease->kind == DL_LEASE_PERMITS) ev.permits = l->held->lease->permits;
        php_distlock_obs_end(&op, &ev);
    }
}

ZEND_METHOD(DistLock_Lock, isAcquired)
{
    int64_t pttl;
    ZEND_PARSE_PARAMETERS_NONE();
    pttl = lease_status(THIS_LOCK());
    if (pttl == -2) RETURN_THROWS();
    RETURN_BOOL(pttl >= 0);
}

ZEND_METHOD(DistLock_Lock, remainingLifetime)
{
    int64_t pttl;
    ZEND_PARSE_PARAMETERS_NONE();
    pttl = lease_status(THIS_LOCK());
    if (pttl == -2) RETURN_THROWS();
    RETURN_DOUBLE(pttl > 0 ? pttl / 1e3 : 0.0);
}

ZEND_METHOD(DistLock_Lock, fencingToken)
{
    const dl_lease_t *lease = THIS_LOCK()->held->lease;
    ZEND_PARSE_PARAMETERS_NONE();
    if (!lease->fencing || lease->fence <= 0) {
        RETURN_NULL();
    }
    RETURN_LONG((zend_long)lease->fence);
}

int php_distlock_change_kind(php_distlock_client *c, php_distlock_held *h, bool promote, int64_t ttl_ms, bool quiet)
{
    bool watched = h->wd != NULL;
    int result = -1;
    dl_error_t err;
    dl_status_t st;

    if (promote) h->lease->fencing = c->fencing;   /* the exclusive lease is fenced as lockExclusive()'s */
    /* The watchdog's copy is taken out first (a renewal by the old kind's
     * script in between would find it gone and call it lost) and put back after. */
    if (watched) {
        php_distlock_obs_harvest(h);
        dl_watchdog_remove(h->wd);
        h->wd = NULL;
    }
    st = promote ? dl_target_promote(c->target, h->lease, ttl_ms, &result, &err)
                 : dl_target_demote(c->target, h->lease, ttl_ms, &result, &err);
    PHP_DISTLOCK_OBS_TELL();
    if (st == DL_OK && (result < 0 || (!promote && result == 0))) {
        DISTLOCK_G(stats).lost++;   /* its lease had ended (or, demoting, another owner holds the name) */
        php_distlock_registry_forget(c, h);
        return result < 0 ? -1 : 0;
    }
    if (watched && !php_distlock_watch(c, h)) return -2;   /* released, and thrown */
    if (st != DL_OK) {
        if (quiet) DISTLOCK_G(stats).connection_errors++;
        else php_distlock_throw(&err);
        return -2;
    }
    return result == 1 ? 1 : 0;
}

/* promote() and demote(): the lease changes kind on the server, for every
 * handle on it; this handle becomes an exclusive (promote) or shared view. */
static void change_kind(INTERNAL_FUNCTION_PARAMETERS, bool promote)
{
    const char *func = promote ? "DistLock\\Lock::promote" : "DistLock\\Lock::demote";
    php_distlock_lock *l = THIS_LOCK();
    php_distlock_held *h = l->held;
    double ttl = 0;
    bool ttl_null = true;
    int64_t ttl_ms;
    int r;

    ZEND_PARSE_PARAMETERS_START(0, 1)
        Z_PARAM_OPTIONAL
        Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_null)
    ZEND_PARSE_PARAMETERS_END();

    if (h->lease->kind != (promote ? DL_LEASE_SHARED : DL_LEASE_WRITE)) {
        zend_throw_exception_ex(spl_ce_LogicException, 0, "%s(): only %s can be %s", func,
                                promote ? "a shared lease (lockShared())" : "an exclusive lease (lockExclusive())",
                                promote ? "promoted" : "demoted");
        RETURN_THROWS();
    }
    ttl_ms = h->lease->ttl_ms;
    if (!ttl_null && !php_distlock_ttl_ms(func, "Argument #1 ($ttl)", ttl, &ttl_ms)) RETURN_THROWS();
    if (!usable(l)) RETURN_FALSE;
    r = php_distlock_change_kind(l->owner, h, promote, ttl_ms, false);
    if (r == -2) RETURN_THROWS();
    if (r == 1 && l->exclusive != promote) {
        l->exclusive = promote;
        if (promote) h->writers++;
        else h->writers--;
    }
    RETURN_BOOL(r == 1);
}

ZEND_METHOD(DistLock_Lock, promote)
{
    change_kind(INTERNAL_FUNCTION_PARAM_PASSTHRU, true);
}

ZEND_METHOD(DistLock_Lock, demote)
{
    change_kind(INTERNAL_FUNCTION_PARAM_PASSTHRU, false);
}
