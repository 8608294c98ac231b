/*
 * Observers of lock operations (DistLock::addObserver, DistLock\Event;
 * docs/decisions/0054-process-wide-observers.md).
 *
 * An operation brackets itself with php_distlock_obs_begin/_end; with no
 * observer registered begin is one test of a per-thread flag and nothing
 * else happens. With observers, begin notes the monotonic start and arms a
 * dl_obs_facts_t record, which the core fills (round trips, the node that
 * answered); _end builds the Event and calls every observer.
 *
 * Events that arise where user code must not run (a deferred release's reply
 * read inside another operation's round trip) are queued and reported at the
 * end of that operation, at endRequest() or at request end.
 */
#include "php_distlock_internal.h"

#include "zend_exceptions.h"

#include "../core/base/dl_clock.h"

zend_class_entry *distlock_ce_Event;

/* One registration. */
typedef struct php_distlock_observer {
    zval callable;                 /* UNDEF: removed while observers were being called */
    zend_fcall_info_cache fcc;
} php_distlock_observer;

/* The properties of DistLock\Event, in the stub's order (the slots are checked at MINIT). */
enum {
    EV_OPERATION, EV_KIND, EV_NAME, EV_NAMES, EV_OUTCOME, EV_START_NS, EV_CALL_NS, EV_WAIT_NS, EV_ROUND_TRIPS,
    EV_SERVER, EV_FENCING_TOKEN, EV_TTL, EV_PERMITS, EV_HELD_NS, EV_IMPLICIT, EV_ERROR, EV_COUNT
};
static const char *const event_props[EV_COUNT] = {
    "operation", "kind", "name", "names", "outcome", "startNs", "callNs", "waitNs", "roundTrips",
    "server", "fencingToken", "ttl", "permits", "heldNs", "implicit", "error"
};

/* ---- registration ------------------------------------------------------------ */

static void update_observing(void)
{
    DISTLOCK_G(observing) = DISTLOCK_G(n_observers) > 0 && !DISTLOCK_G(dispatching);
}

/* The same callable, as spl_autoload_unregister() compares them: the same
 * function (a closure: the same object), object and scope; trampolines
 * (__call, __callStatic) by method name. */
static bool same_callable(const zend_fcall_info_cache *a, const zend_fcall_info_cache *b)
{
    if (a->object != b->object || a->called_scope != b->called_scope) return false;
    if (a->function_handler == b->function_handler) return true;
    if (a->function_handler && b->function_handler &&
        (a->function_handler->common.fn_flags & ZEND_ACC_CALL_VIA_TRAMPOLINE) &&
        (b->function_handler->common.fn_flags & ZEND_ACC_CALL_VIA_TRAMPOLINE)) {
        return zend_string_equals_ci(a->function_handler->common.function_name, b->function_handler->common.function_name);
    }
    return false;
}

ZEND_METHOD(DistLock, addObserver)
{
    zend_fcall_info fci;
    zend_fcall_info_cache fcc;
    php_distlock_observer *o;

    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_FUNC(fci, fcc)
    ZEND_PARSE_PARAMETERS_END();
    (void)return_value;   /* void */

    if (DISTLOCK_G(n_observers) == DISTLOCK_G(cap_observers)) {
        DISTLOCK_G(cap_observers) = DISTLOCK_G(cap_observers) ? DISTLOCK_G(cap_observers) * 2 : 4;
        DISTLOCK_G(observers) = safe_erealloc(DISTLOCK_G(observers), DISTLOCK_G(cap_observers),
                                              sizeof(php_distlock_observer), 0);
    }
    o = &DISTLOCK_G(observers)[DISTLOCK_G(n_observers)++];
    ZVAL_COPY(&o->callable, &fci.function_name);
    o->fcc = fcc;
    /* A trampoline is made for this resolution only: resolved again at each call. */
    if (fcc.function_handler && (fcc.function_handler->common.fn_flags & ZEND_ACC_CALL_VIA_TRAMPOLINE)) {
        zend_release_fcall_info_cache(&fcc);
        o->fcc.function_handler = NULL;
    }
    update_observing();
}

static void observer_free(php_distlock_observer *o)
{
    zval_ptr_dtor(&o->callable);
    ZVAL_UNDEF(&o->callable);
}

/* Drops the entries removed while observers were being called. */
static void compact(void)
{
    uint32_t i, m = 0;
    for (i = 0; i < DISTLOCK_G(n_observers); i++) {
        if (Z_TYPE(DISTLOCK_G(observers)[i].callable) != IS_UNDEF) DISTLOCK_G(observers)[m++] = DISTLOCK_G(observers)[i];
    }
    DISTLOCK_G(n_observers) = m;
}

ZEND_METHOD(DistLock, removeObserver)
{
    zend_fcall_info fci;
    zend_fcall_info_cache fcc;
    uint32_t i;
    bool found = false;

    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_FUNC(fci, fcc)
    ZEND_PARSE_PARAMETERS_END();

    /* ZPP drops a trampoline (__call) from fcc: resolved again to compare. */
    if (!fcc.function_handler && !zend_is_callable_ex(&fci.function_name, NULL, 0, NULL, &fcc, NULL)) RETURN_FALSE;
    for (i = 0; i < DISTLOCK_G(n_observers); i++) {
        php_distlock_observer *o = &DISTLOCK_G(observers)[i];
        zend_fcall_info_cache ofcc;
        bool same;
        if (Z_TYPE(o->callable) == IS_UNDEF) continue;
        if (o->fcc.function_handler) {
            same = same_callable(&o->fcc, &fcc);
        } else if (zend_is_callable_ex(&o->callable, NULL, 0, NULL, &ofcc, NULL)) {
            same = same_callable(&ofcc, &fcc);
            zend_release_fcall_info_cache(&ofcc);
        } else {
            same = false;
        }
        if (same) {
            observer_free(o);
            found = true;
            break;
        }
    }
    zend_release_fcall_info_cache(&fcc);
    if (found && !DISTLOCK_G(dispatching)) compact();
    update_observing();
    RETURN_BOOL(found);
}

/* ---- events ------------------------------------------------------------------ */

/* The server the watchdog renews h on, as an event names it: the single
 * server's endpoint; NULL for other topologies (their node is not known here). */
static const char *watchdog_server(php_distlock_held *h, char *buf, size_t size)
{
    const dl_target_config_t *cfg;
    if (!h->owner || h->owner->closed || !h->owner->target) return NULL;
    cfg = dl_target_config(h->owner->target);
    if (cfg->kind != DL_TARGET_SINGLE || cfg->n != 1) return NULL;
    dl_server_config_endpoint(&cfg->servers[0], buf, size);
    return buf;
}

void php_distlock_obs_harvest(php_distlock_held *h)
{
    dl_renew_report_t r[DL_RENEW_REPORTS_MAX];
    php_distlock_event ev;
    char server[DL_OBS_SERVER_MAX];
    const char *srv;
    size_t n, i;

    if (!h->wd || DISTLOCK_G(n_observers) == 0) return;
    if (!(n = dl_watchdog_take_reports(h->wd, r))) return;
    srv = watchdog_server(h, server, sizeof(server));
    for (i = 0; i < n; i++) {
        php_distlock_event_init(&ev, "renewal", php_distlock_kind_name(h->lease->kind), h->name);
        ev.outcome = r[i].result == 1 ? "refreshed" : r[i].result == 0 || r[i].lost ? "lost" : "error";
        ev.start_ns = r[i].sent_ns;
        ev.call_ns = r[i].done_ns - r[i].sent_ns;
        ev.round_trips = 1;
        ev.server = r[i].result >= 0 ? srv : NULL;
        ev.ttl_ms = r[i].ttl_ms;
        if (h->lease->kind == DL_LEASE_PERMITS) ev.permits = h->lease->permits;
        if (r[i].result < 0) {
            ev.error = zend_string_init("the watchdog could not reach the server to renew the lease",
                                        sizeof("the watchdog could not reach the server to renew the lease") - 1, 0);
        }
        php_distlock_obs_queue(&ev);
        if (ev.error) zend_string_release(ev.error);
        if (r[i].lost) {
            php_distlock_event_init(&ev, "lost", php_distlock_kind_name(h->lease->kind), h->name);
            ev.outcome = "lost";
            ev.start_ns = r[i].done_ns;
            ev.server = r[i].result >= 0 ? srv : NULL;
            if (h->lease->kind == DL_LEASE_PERMITS) ev.permits = h->lease->permits;
            if (h->granted_ns) ev.held_ns = r[i].done_ns - h->granted_ns;
            php_distlock_obs_queue(&ev);
        }
    }
}

void php_distlock_obs_sweep(void)
{
    php_distlock_client *c;
    php_distlock_held *h;
    if (!DISTLOCK_G(watching) || DISTLOCK_G(n_observers) == 0) return;
    for (c = DISTLOCK_G(clients); c; c = c->next) {
        if (!c->watchdog) continue;
        ZEND_HASH_FOREACH_PTR(&c->held, h) {
            if (h->wd) php_distlock_obs_harvest(h);
        } ZEND_HASH_FOREACH_END();
    }
}

void php_distlock_obs_start(php_distlock_obs_op *op)
{
    php_distlock_obs_sweep();   /* the watchdog's work since the last call: told before this call's event */
    op->start_ns = dl_clock_now_ns();
    op->wait_ns = 0;
    memset(&op->facts, 0, sizeof(op->facts));
    op->prev = dl_obs_arm(&op->facts);
}

void php_distlock_event_init(php_distlock_event *ev, const char *operation, const char *kind, zend_string *name)
{
    memset(ev, 0, sizeof(*ev));
    ev->operation = operation;
    ev->kind = kind;
    ev->name = name;
    ev->ttl_ms = -1;
    ev->permits = -1;
    ev->held_ns = -1;
}

const char *php_distlock_kind_name(dl_lease_kind_t kind)
{
    switch (kind) {
    case DL_LEASE_SHARED: return "shared";
    case DL_LEASE_WRITE: return "exclusive";
    case DL_LEASE_PERMITS: return "permits";
    default: return "mutex";
    }
}

static void set_str(zend_object *obj, int slot, const char *s)
{
    zval *p = OBJ_PROP_NUM(obj, slot);
    if (s) ZVAL_STRING(p, s);
    else ZVAL_NULL(p);
}

zend_string *php_distlock_obs_pending_message(void)
{
    zval rv, *msg;
    if (!EG(exception)) return NULL;
    msg = zend_read_property_ex(zend_ce_exception, EG(exception), ZSTR_KNOWN(ZEND_STR_MESSAGE), 1, &rv);
    return Z_TYPE_P(msg) == IS_STRING ? zend_string_copy(Z_STR_P(msg)) : NULL;
}

/* Builds the DistLock\Event for ev in out. */
static void event_build(zval *out, const php_distlock_event *ev)
{
    zend_object *obj;
    zval *p;
    uint32_t i;

    object_init_ex(out, distlock_ce_Event);
    obj = Z_OBJ_P(out);
    set_str(obj, EV_OPERATION, ev->operation);
    set_str(obj, EV_KIND, ev->kind);
    ZVAL_STR_COPY(OBJ_PROP_NUM(obj, EV_NAME), ev->name);
    p = OBJ_PROP_NUM(obj, EV_NAMES);
    if (ev->names) {
        array_init_size(p, ev->n_names);
        for (i = 0; i < ev->n_names; i++) add_next_index_str(p, zend_string_copy(ev->names[i]));
    } else {
        array_init_size(p, 1);
        add_next_index_str(p, zend_string_copy(ev->name));
    }
    set_str(obj, EV_OUTCOME, ev->outcome);
    ZVAL_LONG(OBJ_PROP_NUM(obj, EV_START_NS), (zend_long)ev->start_ns);
    ZVAL_LONG(OBJ_PROP_NUM(obj, EV_CALL_NS), (zend_long)ev->call_ns);
    ZVAL_LONG(OBJ_PROP_NUM(obj, EV_WAIT_NS), (zend_long)ev->wait_ns);
    ZVAL_LONG(OBJ_PROP_NUM(obj, EV_ROUND_TRIPS), (zend_long)ev->round_trips);
    p = OBJ_PROP_NUM(obj, EV_SERVER);
    if (ev->server && ev->server[0] == '/') ZVAL_STR(p, zend_strpprintf(0, "unix:%s", ev->server));
    else set_str(obj, EV_SERVER, ev->server && ev->server[0] ? ev->server : NULL);
    p = OBJ_PROP_NUM(obj, EV_FENCING_TOKEN);
    if (ev->fence > 0) ZVAL_LONG(p, (zend_long)ev->fence);
    else ZVAL_NULL(p);
    p = OBJ_PROP_NUM(obj, EV_TTL);
    if (ev->ttl_ms >= 0) ZVAL_DOUBLE(p, ev->ttl_ms / 1e3);
    else ZVAL_NULL(p);
    p = OBJ_PROP_NUM(obj, EV_PERMITS);
    if (ev->permits >= 0) ZVAL_LONG(p, (zend_long)ev->permits);
    else ZVAL_NULL(p);
    p = OBJ_PROP_NUM(obj, EV_HELD_NS);
    if (ev->held_ns >= 0) ZVAL_LONG(p, (zend_long)ev->held_ns);
    else ZVAL_NULL(p);
    ZVAL_BOOL(OBJ_PROP_NUM(obj, EV_IMPLICIT), ev->implicit);
    p = OBJ_PROP_NUM(obj, EV_ERROR);
    if (ev->error) ZVAL_STR_COPY(p, ev->error);
    else ZVAL_NULL(p);
}

/*
 * Calls every observer with event. Runs with the operation's exception (if
 * any) set aside: it is restored, untouched, after the observers. An
 * observer's own exception is swallowed and counted. Outside any PHP frame
 * (request end, destructors at shutdown) a frame is lent so that an
 * observer's exception stays an exception and does not become a fatal error.
 */
static void dispatch(zval *event)
{
    zend_object *old_exception = EG(exception);
    const zend_op *old_opline_before = EG(opline_before_exception);
    zend_execute_data *ex = EG(current_execute_data);
    const zend_op *old_opline = ex ? ex->opline : NULL;
    zend_execute_data dummy;
    uint32_t i, n = DISTLOCK_G(n_observers);   /* one added by an observer sees the next event */

    if (!ex) {
        memset(&dummy, 0, sizeof(dummy));
        EG(current_execute_data) = &dummy;
    }
    EG(exception) = NULL;
    DISTLOCK_G(dispatching) = true;
    update_observing();
    for (i = 0; i < n; i++) {
        php_distlock_observer *o = &DISTLOCK_G(observers)[i];
        zval retval, callable;
        zend_fcall_info fci;
        if (Z_TYPE(o->callable) == IS_UNDEF) continue;
        ZVAL_COPY(&callable, &o->callable);   /* an observer may remove itself */
        fci.size = sizeof(fci);
        ZVAL_COPY_VALUE(&fci.function_name, &callable);
        fci.object = NULL;
        fci.retval = &retval;
        fci.params = event;
        fci.param_count = 1;
        fci.named_params = NULL;
        ZVAL_UNDEF(&retval);
        zend_call_function(&fci, o->fcc.function_handler ? &o->fcc : NULL);
        zval_ptr_dtor(&retval);
        zval_ptr_dtor(&callable);
        if (EG(exception)) {
            DISTLOCK_G(stats).observer_errors++;
            zend_clear_exception();
        }
    }
    DISTLOCK_G(dispatching) = false;
    compact();
    update_observing();
    if (ex) ex->opline = old_opline;
    else EG(current_execute_data) = NULL;
    EG(opline_before_exception) = old_opline_before;
    EG(exception) = old_exception;
}

/* An event waiting to be told: a copy of its description (no PHP object is
 * made where it is queued, which may be a free handler or the GC). Queued
 * events are single-name (releases, renewals, losses). */
typedef struct php_distlock_queued {
    struct php_distlock_queued *next;
    php_distlock_event ev;      /* name and error: own references; server: points at server[] */
    char server[DL_OBS_SERVER_MAX];
} php_distlock_queued;

static void queued_free(php_distlock_queued *q)
{
    zend_string_release(q->ev.name);
    if (q->ev.error) zend_string_release(q->ev.error);
    efree(q);
}

/* Reports the events queued (deferred releases read inside an operation). */
void php_distlock_obs_flush(void)
{
    php_distlock_queued *q;
    zval event;
    if (DISTLOCK_G(dispatching)) return;   /* told at the next safe point */
    while ((q = DISTLOCK_G(queued))) {
        DISTLOCK_G(queued) = q->next;
        if (!q->next) DISTLOCK_G(queued_tail) = NULL;
        if (DISTLOCK_G(n_observers) > 0) {
            event_build(&event, &q->ev);
            dispatch(&event);
            zval_ptr_dtor(&event);
        }
        queued_free(q);
    }
}

void php_distlock_obs_queue(const php_distlock_event *ev)
{
    php_distlock_queued *q = emalloc(sizeof(*q));
    q->next = NULL;
    q->ev = *ev;
    q->ev.name = zend_string_copy(ev->name);
    q->ev.names = NULL;
    q->ev.n_names = 0;
    if (ev->error) zend_string_addref(ev->error);
    q->server[0] = '\0';
    if (ev->server) snprintf(q->server, sizeof(q->server), "%s", ev->server);
    q->ev.server = q->server;
    if (DISTLOCK_G(queued_tail)) *DISTLOCK_G(queued_tail) = q;
    else DISTLOCK_G(queued) = q;
    DISTLOCK_G(queued_tail) = &q->next;
}

void php_distlock_obs_fill(php_distlock_obs_op *op, php_distlock_event *ev)
{
    dl_obs_arm(op->prev);
    ev->start_ns = op->start_ns;
    ev->call_ns = dl_clock_now_ns() - op->start_ns;
    ev->round_trips = op->facts.round_trips;
    ev->server = op->facts.server;
    if (!ev->wait_ns) ev->wait_ns = op->wait_ns;
}

void php_distlock_obs_end(php_distlock_obs_op *op, php_distlock_event *ev)
{
    zval event;
    zend_string *error = NULL;
    php_distlock_obs_fill(op, ev);
    if (ev->outcome && strcmp(ev->outcome, "error") == 0 && !ev->error) ev->error = error = php_distlock_obs_pending_message();
    if (DISTLOCK_G(queue_only)) {
        /* Inside a free handler: no user code here; told at the next safe point. */
        php_distlock_obs_queue(ev);
    } else if (DISTLOCK_G(n_observers) > 0 && !DISTLOCK_G(dispatching)) {
        if (DISTLOCK_G(queued)) php_distlock_obs_flush();   /* what happened first is told first */
        event_build(&event, ev);
        dispatch(&event);
        zval_ptr_dtor(&event);
    }
    if (error) zend_string_release(error);
}

void php_distlock_obs_flush_safe(void)
{
    if (DISTLOCK_G(queued) && !DISTLOCK_G(queue_only)) php_distlock_obs_flush();
}

const char *php_distlock_obs_outcome(bool acquired, int64_t wait_us)
{
    zend_object *ex = EG(exception);
    if (acquired) return "acquired";
    if (!ex) return wait_us > 0 ? "timeout" : "conflict";
    if (instanceof_function(ex->ce, distlock_ce_LockKindException)) return "wrong_kind";
    if (instanceof_function(ex->ce, distlock_ce_DeadlockException)) return "deadlock";
    if (instanceof_function(ex->ce, distlock_ce_LockTimeoutException)) return wait_us > 0 ? "timeout" : "conflict";
    return "error";
}

/* ---- request end ------------------------------------------------------------- */

void php_distlock_obs_rshutdown(void)
{
    uint32_t i;
    php_distlock_obs_flush();
    for (i = 0; i < DISTLOCK_G(n_observers); i++) {
        if (Z_TYPE(DISTLOCK_G(observers)[i].callable) != IS_UNDEF) observer_free(&DISTLOCK_G(observers)[i]);
    }
    if (DISTLOCK_G(observers)) efree(DISTLOCK_G(observers));
    DISTLOCK_G(observers) = NULL;
    DISTLOCK_G(n_observers) = DISTLOCK_G(cap_observers) = 0;
    DISTLOCK_G(dispatching) = false;
    update_observing();
}

/* ---- the class ------------------------------------------------------------------ */

ZEND_METHOD(DistLock_Event, __construct)
{
    ZEND_PARSE_PARAMETERS_NONE();
    (void)return_value;
    zend_throw_error(NULL, "Cannot directly construct DistLock\\Event: events are made by the extension");
}

void php_distlock_event_minit(zend_class_entry *ce)
{
    int i;
    distlock_ce_Event = ce;
    /* event_build writes the slots by number: they must be the stub's order. */
    for (i = 0; i < EV_COUNT; i++) {
        zend_property_info *pi = zend_hash_str_find_ptr(&ce->properties_info, event_props[i], strlen(event_props[i]));
        ZEND_ASSERT(pi && pi->offset == OBJ_PROP_TO_OFFSET(i));
        if (!pi || pi->offset != OBJ_PROP_TO_OFFSET(i)) {
            zend_error_noreturn(E_CORE_ERROR, "distlock: DistLock\\Event::$%s is not in slot %d", event_props[i], i);
        }
    }
}
