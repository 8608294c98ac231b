/*
 * The DistLock class: configuration, the held-lease table (reentrancy), the
 * request registry (release at request end), and the methods that act on
 * names. Lock handles live in lock.c, the __call helpers (DistLock::__call
 * itself included) in helpers.c, which calls in here and never the other way.
 */
#include "php_distlock_internal.h"

#include <stdarg.h>

#include "ext/spl/spl_exceptions.h"

#include "../core/base/dl_proc.h"
#include "../core/lease/dl_multi.h"

#include "zend_exceptions.h"
#include "zend_interfaces.h"
#include "zend_smart_str.h"

#include "../core/base/dl_clock.h"

zend_class_entry *distlock_ce_DistLock;
static zend_object_handlers client_handlers;

/* ---- object handlers ----------------------------------------------------- */

static zend_object *client_create(zend_class_entry *ce)
{
    php_distlock_client *c = zend_object_alloc(sizeof(php_distlock_client), ce);
    zend_object_std_init(&c->std, ce);
    object_properties_init(&c->std, ce);
    c->std.handlers = &client_handlers;
    php_distlock_registry_init(c);
    return &c->std;
}

static void clients_unlink(php_distlock_client *c)
{
    if (c->prev) c->prev->next = c->next;
    else if (DISTLOCK_G(clients) == c) DISTLOCK_G(clients) = c->next;
    if (c->next) c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

static void client_free(zend_object *obj)
{
    php_distlock_client *c = php_distlock_client_from(obj);
    if (c->target) {
        bool was = DISTLOCK_G(queue_only);
        DISTLOCK_G(queue_only) = true;   /* events of these releases: told at the next safe point */
        php_distlock_registry_release_all(c);   /* settles too: before the connection is pooled or closed */
        DISTLOCK_G(queue_only) = was;
        clients_unlink(c);
        if (c->pool_id) dl_pool_put(c->pool_id, c->target);
        else dl_target_free(c->target);
        c->target = NULL;
    }
    free(c->pool_id);
    c->pool_id = NULL;
    c->closed = true;
    zend_hash_destroy(&c->held);
    if (c->prefix) zend_string_release(c->prefix);
    if (c->display) zend_string_release(c->display);
    if (c->resources) {
        zend_hash_destroy(c->resources);
        FREE_HASHTABLE(c->resources);
    }
    zend_object_std_dtor(obj);
}

/* var_dump()/print_r(): the server without credentials, prefix and defaults. */
static HashTable *client_debug_info(zend_object *obj, int *is_temp)
{
    php_distlock_client *c = php_distlock_client_from(obj);
    HashTable *ht = zend_new_array(5);
    zval v;
    *is_temp = 1;
    if (!c->target) return ht;
    ZVAL_STR_COPY(&v, c->display);
    zend_hash_str_update(ht, "server", sizeof("server") - 1, &v);
    ZVAL_STR_COPY(&v, c->prefix);
    zend_hash_str_update(ht, "prefix", sizeof("prefix") - 1, &v);
    ZVAL_DOUBLE(&v, c->ttl_ms / 1e3);
    zend_hash_str_update(ht, "ttl", sizeof("ttl") - 1, &v);
    ZVAL_DOUBLE(&v, c->wait_us / 1e6);
    zend_hash_str_update(ht, "wait", sizeof("wait") - 1, &v);
    ZVAL_LONG(&v, zend_hash_num_elements(&c->held));
    zend_hash_str_update(ht, "held", sizeof("held") - 1, &v);
    {
        /* How releases go on this connection: learned by its first call. */
        ZVAL_STRING(&v, dl_target_release_path(c->target));
        zend_hash_str_update(ht, "release_path", sizeof("release_path") - 1, &v);
    }
    return ht;
}

void php_distlock_client_minit(zend_class_entry *ce)
{
    distlock_ce_DistLock = ce;
    ce->create_object = client_create;
    memcpy(&client_handlers, zend_get_std_object_handlers(), sizeof(client_handlers));
    client_handlers.offset = offsetof(php_distlock_client, std);
    client_handlers.free_obj = client_free;
    client_handlers.clone_obj = NULL;
    client_handlers.get_debug_info = client_debug_info;
}

/* The URI as shown in debug output: credentials replaced by "***". */
static zend_string *display_uri(const dl_server_config_t *s)
{
    char ep[160];
    dl_server_config_endpoint(s, ep, sizeof(ep));
    if (s->unix_path) {
        return strpprintf(0, "unix://%s%s?db=%d", s->password ? "***@" : "", ep, s->has_db ? s->db : 0);
    }
    return strpprintf(0, "redis://%s%s/%d", s->password ? "***@" : "", ep, s->has_db ? s->db : 0);
}

/* Every server as display_uri shows it; a Redlock's masters separated by ", ". */
static zend_string *display_target(const dl_target_config_t *t)
{
    smart_str out = {0};
    size_t i;
    if (t->kind == DL_TARGET_CLUSTER) smart_str_appends(&out, "cluster via ");
    if (t->kind == DL_TARGET_SENTINEL) {
        zend_string *m = display_uri(&t->master);
        smart_str_append_printf(&out, "sentinel service %s (master: %s) via ", t->service, ZSTR_VAL(m));
        zend_string_release(m);
    }
    for (i = 0; i < t->n; i++) {
        zend_string *one = display_uri(&t->servers[i]);
        if (i) smart_str_appends(&out, ", ");
        smart_str_append(&out, one);
        zend_string_release(one);
    }
    smart_str_0(&out);
    return out.s;
}

/* ---- shared operations ----------------------------------------------------- */

php_distlock_client *php_distlock_this_client(zval *this_ptr)
{
    php_distlock_client *c = php_distlock_client_from(Z_OBJ_P(this_ptr));
    /* Events of the watchdog and of deferred releases not told yet: told first. */
    if (UNEXPECTED(DISTLOCK_G(observing))) php_distlock_obs_sweep();
    if (UNEXPECTED(DISTLOCK_G(queued) != NULL)) php_distlock_obs_flush_safe();
    if (!c->target) {
        zend_throw_error(NULL, "DistLock object is not initialized");
        return NULL;
    }
    return c;
}

/* Ends a wait early when max_execution_time fired (the VM raises it next). */
static int wait_interrupted(void *arg)
{
    (void)arg;
    return zend_atomic_bool_load_ex(&EG(timed_out));   /* PHP >= 8.2, the supported range */
}

/* Another handle on h, a lease this instance holds: one round trip extends
 * it (never shortens it). Returns true when it handled the call (a new handle
 * or an exception), false when the lease was found lost (acquire anew). */
static bool reenter(php_distlock_client *c, php_distlock_held *h, int64_t ttl_ms, bool exclusive, zval *return_value)
{
    dl_error_t err;
    dl_status_t st;
    int extended;

    /* Never shorten the lease an outer handle relies on. */
    if (ttl_ms < h->lease->ttl_ms) ttl_ms = h->lease->ttl_ms;
    st = dl_target_refresh(c->target, h->lease, ttl_ms, &extended, &err);
    /* After the command, whatever its reply (dl_renew_set_ttl; tests/model/watchdog.pml). */
    if (h->wd) dl_watchdog_set_ttl(h->wd, ttl_ms);
    if (st != DL_OK) {
        php_distlock_throw(&err);
        return true;
    }
    if (!extended) {
        DISTLOCK_G(stats).lost++;
        php_distlock_registry_forget(c, h);
        return false;
    }
    DISTLOCK_G(stats).acquired++;
    php_distlock_lock_create_view(return_value, c, h, exclusive);
    return true;
}

/* The reentrant path of the mutex: the instance already holds name (under
 * token, when the caller gave one). Returns true when it handled the call (a
 * new handle or an exception), false to acquire anew. */
static bool acquire_reentrant(php_distlock_client *c, zend_string *name, dl_lease_kind_t kind, int64_t ttl_ms,
                              const zend_string *token, zval *return_value)
{
    php_distlock_held *h = php_distlock_registry_find(c, name);

    if (!h) return false;
    /* Held here under another kind: the server refuses it (LockKindException),
     * in the step that would grant it (docs/primitives.md, "One name, one kind"). */
    if (h->lease->kind != kind) return false;
    /* Another token is another owner: it contends like any other (the entry stays). */
    if (token && !(h->lease->token_len == ZSTR_LEN(token) &&
                   memcmp(h->lease->token, ZSTR_VAL(token), ZSTR_LEN(token)) == 0)) {
        return false;
    }
    if (h->done || h->lease->pid != dl_proc_pid() || php_distlock_held_lost(c, h)) {
        /* Another process's lease (fork): not ours to share; drop our copy of it. */
        php_distlock_registry_forget(c, h);
        return false;
    }
    return reenter(c, h, ttl_ms, kind == DL_LEASE_WRITE, return_value);
}

/*
 * A shared or exclusive lease asked for by an instance that holds the name
 * shared or exclusively already (under token, when the caller gave one; another
 * token is another owner and contends). Never a wait for a lease only this
 * instance can release
 * (docs/decisions/0007-an-instance-never-waits-for-its-own-lease.md): shared →
 * another handle on its lease, whatever its kind now (a shared view);
 * exclusive on an exclusive lease → another handle; exclusive on
 * its sole shared lease → the upgrade: promoted at once through the promote
 * script, or a LogicException when other holders share it. Returns true when
 * it handled the call (a handle or an exception), false to acquire anew.
 */
static bool acquire_rw_own(php_distlock_client *c, const char *func, zend_string *name, dl_lease_kind_t kind,
                           int64_t ttl_ms, const zend_string *token, zval *return_value)
{
    uint32_t n;
    php_distlock_held *h = php_distlock_registry_find_rw(c, name, token, &n);
    int r;

    if (!h) return false;
    if (kind == DL_LEASE_SHARED) return reenter(c, h, ttl_ms, false, return_value);
    if (h->lease->kind == DL_LEASE_WRITE) return reenter(c, h, ttl_ms, true, return_value);
    if (n > 1) {
        zend_throw_exception_ex(spl_ce_LogicException, 0,
                                "%s(): this instance holds \"%s\" shared under %u leases (tokens); an exclusive lease "
                                "would wait for shared leases only this instance can release: release all but one "
                                "first", func, ZSTR_VAL(name), n);
        return true;
    }
    if (ttl_ms < h->lease->ttl_ms) ttl_ms = h->lease->ttl_ms;
    r = php_distlock_change_kind(c, h, true, ttl_ms, false);
    if (r == -2) return true;          /* thrown */
    if (r == -1) return false;         /* it had ended: acquire anew */
    if (r == 0) {
        zend_throw_exception_ex(spl_ce_LogicException, 0,
                                "%s(): this instance holds \"%s\" shared and other holders do too; an exclusive "
                                "lease would wait for a shared lease only this instance can release: release its "
                                "shared handles first, then wait for the exclusive lease", func, ZSTR_VAL(name));
        return true;
    }
    DISTLOCK_G(stats).acquired++;
    php_distlock_lock_create_view(return_value, c, h, true);
    return true;
}

/* A semaphore's permits asked for by an instance that holds some of them
 * already: a request the limit can only meet once this instance releases its
 * own (or under a token it holds permits with) fails at once. False after throwing. */
static bool permits_own_check(php_distlock_client *c, const char *func, zend_string *name, const zend_string *token,
                              long long permits, long long limit)
{
    php_distlock_held *same;
    long long own = php_distlock_registry_own_permits(c, name, token, &same);

    if (same) {
        zend_throw_exception_ex(spl_ce_LogicException, 0,
                                "%s(): this instance already holds permits of \"%s\" under this token; take more "
                                "under another token, or restorePermits() for another handle", func, ZSTR_VAL(name));
        return false;
    }
    if (own > 0 && own + permits > limit) {
        zend_throw_exception_ex(spl_ce_LogicException, 0,
                                "%s(): this instance holds %lld of the %lld permits of \"%s\"; %lld more could only "
                                "be granted once it releases its own (it would wait for itself)",
                                func, own, limit, ZSTR_VAL(name), permits);
        return false;
    }
    return true;
}

/* What a lease takes from its client's options: fair mode is the mutex's own,
 * fencing tokens guard exclusive holders (docs/primitives.md). */
static void lease_apply_client(const php_distlock_client *c, dl_lease_t *lease)
{
    lease->fencing = c->fencing && (lease->kind == DL_LEASE_EXCLUSIVE || lease->kind == DL_LEASE_WRITE);
    lease->fair = c->fair && lease->kind == DL_LEASE_EXCLUSIVE;
    lease->min_replicas = c->min_replicas;
    lease->replica_timeout_ms = c->replica_timeout_ms;
}

static dl_lease_t *new_lease(php_distlock_client *c, zend_string *name, const zend_string *token, int64_t ttl_ms,
                             dl_lease_kind_t kind)
{
    dl_error_t err;
    dl_lease_t *lease = dl_lease_new(ZSTR_VAL(c->prefix), ZSTR_LEN(c->prefix), ZSTR_VAL(name), ZSTR_LEN(name),
                                     token ? ZSTR_VAL(token) : NULL, token ? ZSTR_LEN(token) : 0, ttl_ms, &err);
    if (!lease) {
        php_distlock_throw(&err);
        return NULL;
    }
    lease->kind = kind;
    lease_apply_client(c, lease);
    return lease;
}

static dl_acquire_opts_t acquire_opts(const php_distlock_client *c, int64_t wait_us)
{
    dl_acquire_opts_t opts;
    opts.wait_us = wait_us;
    opts.backoff = c->backoff;
    opts.interrupted = wait_interrupted;
    opts.interrupt_arg = NULL;
    opts.deadlock = NULL;   /* set by acquire_lease for the waits it checks */
    return opts;
}

static void count_wait(const dl_acquire_result_t *res, int64_t wait_us, php_distlock_obs_op *op)
{
    DISTLOCK_G(stats).contended += res->contended;
    if (res->contended && wait_us > 0) {
        DISTLOCK_G(stats).wait_time_us += res->waited_us;
        if (op->on) op->wait_ns = res->waited_us * 1000;
    }
}

/* The acquire's event: its outcome from return_value (a handle, a list of
 * handles, NULL) and the pending exception. */
static void obs_acquire(php_distlock_obs_op *op, const char *kind, zend_string *name, zend_string **names,
                        uint32_t n_names, int64_t ttl_ms, long long permits, int64_t wait_us, zval *return_value)
{
    php_distlock_event ev;
    bool acquired = !EG(exception) && (Z_TYPE_P(return_value) == IS_OBJECT || Z_TYPE_P(return_value) == IS_ARRAY);
    php_distlock_event_init(&ev, "acquire", kind, name);
    ev.names = names;
    ev.n_names = n_names;
    ev.outcome = php_distlock_obs_outcome(acquired, wait_us);
    ev.ttl_ms = ttl_ms;
    ev.permits = permits;
    if (acquired && Z_TYPE_P(return_value) == IS_OBJECT) {
        const dl_lease_t *lease = php_distlock_lock_from(Z_OBJ_P(return_value))->held->lease;
        if (lease->fencing) ev.fence = lease->fence;
    }
    php_distlock_obs_end(op, &ev);
}

/* The registry entry and watch for a granted lease (taken over). NULL after
 * throwing (the lease was released). */
static php_distlock_held *hold(php_distlock_client *c, zend_string *name, dl_lease_t *lease)
{
    php_distlock_held *h = php_distlock_held_new(lease, name);
    h->granted_ns = lease->valid_until_ns - lease->ttl_ms * 1000000;   /* the grant's send time (no clock read) */
    if (!php_distlock_watch(c, h)) {
        php_distlock_held_release_ref(h);
        return NULL;
    }
    php_distlock_registry_add(c, h);
    DISTLOCK_G(stats).acquired++;
    return h;
}

/*
 * The LockTimeoutException of a wait that ran out (message from fmt). When
 * the wait ended with the server silent (res->silent_us > 0, issue 45.2),
 * the failure that showed it is thrown first (a ConnectionException, counted
 * in connection_errors) and becomes the timeout's previous exception, and the
 * message says which server was silent and for how long: a catch of
 * LockTimeoutException still catches it.
 */
static void throw_wait_timeout(const dl_acquire_result_t *res, const dl_error_t *err, const char *fmt, ...)
{
    zend_string *msg;
    va_list ap;
    va_start(ap, fmt);
    msg = zend_vstrpprintf(0, fmt, ap);   /* a name can be DL_NAME_MAX bytes */
    va_end(ap);
    DISTLOCK_G(stats).timeouts++;
    if (res->silent_us > 0) {
        php_distlock_throw(err);
        zend_throw_exception_ex(distlock_ce_LockTimeoutException, 0,
                                "%s; Redis at %s answered nothing for the last %.3f s, since %.3f s into the wait (%s "
                                "within %.3f s)",
                                ZSTR_VAL(msg), res->silent_server, res->silent_us / 1e6,
                                res->waited_us > res->silent_us ? (res->waited_us - res->silent_us) / 1e6 : 0.0,
                                res->silent_how, res->silent_probe_us / 1e6);
    } else {
        zend_throw_exception(distlock_ce_LockTimeoutException, ZSTR_VAL(msg), 0);
    }
    zend_string_release(msg);
}

/* Acquires lease (taken over) for name; a new handle in return_value, NULL
 * (not acquired, !throw_on_timeout), or throws. */
static void acquire_lease(php_distlock_client *c, zend_string *name, dl_lease_t *lease, int64_t wait_us,
                          bool throw_on_timeout, zval *return_value, php_distlock_obs_op *op)
{
    dl_acquire_opts_t opts = acquire_opts(c, wait_us);
    dl_acquire_result_t res;
    dl_error_t err;
    php_distlock_held *h;
    php_distlock_deadlock_buf dbuf;
    dl_status_t st;

    if (wait_us > 0) opts.deadlock = php_distlock_deadlock_opts(c, &dbuf);
    st = dl_target_acquire(c->target, lease, &opts, &res, &err);

    count_wait(&res, wait_us, op);
    if (st != DL_OK || !res.acquired) {
        if (st != DL_OK) {
            php_distlock_throw(&err);
        } else if (throw_on_timeout) {
            if (lease->kind == DL_LEASE_PERMITS) {
                throw_wait_timeout(&res, &err, "Could not acquire %lld of the %lld permits of \"%s\" within %.3f seconds",
                                   lease->permits, lease->limit, ZSTR_VAL(name), wait_us / 1e6);
            } else {
                throw_wait_timeout(&res, &err, "Could not acquire %s \"%s\" within %.3f seconds",
                                   lease->kind == DL_LEASE_SHARED ? "a shared lock on" : "the lock", ZSTR_VAL(name),
                                   wait_us / 1e6);
            }
        } else {
            RETVAL_NULL();
        }
        dl_lease_free(lease);
        return;
    }
    if ((h = hold(c, name, lease))) php_distlock_lock_create(return_value, c, h);
}

void php_distlock_client_acquire(php_distlock_client *c, zend_string *name, int64_t ttl_ms, int64_t wait_us,
                                 const zend_string *token, bool throw_on_timeout, zval *return_value)
{
    dl_lease_t *lease;
    php_distlock_obs_op op;
    PHP_DISTLOCK_OBS_BEGIN(&op);
    if (!acquire_reentrant(c, name, DL_LEASE_EXCLUSIVE, ttl_ms, token, return_value) &&
        (lease = new_lease(c, name, token, ttl_ms, DL_LEASE_EXCLUSIVE))) {
        acquire_lease(c, name, lease, wait_us, throw_on_timeout, return_value, &op);
    }
    if (op.on) obs_acquire(&op, "mutex", name, NULL, 0, ttl_ms, -1, wait_us, return_value);
}

void php_distlock_client_acquire_kind(php_distlock_client *c, const char *func, zend_string *name,
                                      dl_lease_kind_t kind, const zend_string *token, long long permits,
                                      long long limit, int64_t ttl_ms, int64_t wait_us, bool throw_on_timeout,
                                      zval *return_value)
{
    dl_lease_t *lease;
    php_distlock_obs_op op;
    bool handled = false;
    PHP_DISTLOCK_OBS_BEGIN(&op);
    /* What this instance holds on the name already: never waited for. */
    if (kind == DL_LEASE_PERMITS) handled = !permits_own_check(c, func, name, token, permits, limit);
    else handled = acquire_rw_own(c, func, name, kind, ttl_ms, token, return_value);
    if (!handled && (lease = new_lease(c, name, token, ttl_ms, kind))) {
        lease->permits = permits;
        lease->limit = limit;
        acquire_lease(c, name, lease, wait_us, throw_on_timeout, return_value, &op);
    }
    if (op.on) {
        obs_acquire(&op, php_distlock_kind_name(kind), name, NULL, 0, ttl_ms, kind == DL_LEASE_PERMITS ? permits : -1,
                    wait_us, return_value);
    }
}

static void acquire_all(php_distlock_client *c, const char *func, zend_string **names, uint32_t n, int64_t ttl_ms,
                        int64_t wait_us, bool throw_on_timeout, zval *return_value, php_distlock_obs_op *op)
{
    dl_lease_t *leases[DL_MULTI_MAX] = {0};
    dl_acquire_opts_t opts = acquire_opts(c, wait_us);
    dl_acquire_result_t res;
    dl_error_t err;
    php_distlock_deadlock_buf dbuf;
    dl_status_t st;
    uint32_t i, made = 0;

    for (i = 0; i < n; i++) {
        php_distlock_held *held = php_distlock_registry_find(c, names[i]);
        if (held && !held->done && held->lease->pid == dl_proc_pid()) {
            /* It would wait for itself: a multi-lock takes all names or none, anew. */
            zend_throw_exception_ex(spl_ce_LogicException, 0,
                                    "%s(): this instance already holds \"%s\"; release it first, or take it in the "
                                    "same call", func, ZSTR_VAL(names[i]));
            return;
        }
    }
    for (; made < n; made++) {
        if (!(leases[made] = new_lease(c, names[made], NULL, ttl_ms, DL_LEASE_EXCLUSIVE))) break;
        leases[made]->fair = 0;   /* no queue spans several names */
    }
    if (made < n) {
        for (i = 0; i < made; i++) dl_lease_free(leases[i]);
        return;
    }
    if (wait_us > 0) opts.deadlock = php_distlock_deadlock_opts(c, &dbuf);
    st = dl_target_multi_acquire(c->target, n, leases, &opts, &res, &err);
    count_wait(&res, wait_us, op);
    if (st != DL_OK || !res.acquired) {
        for (i = 0; i < n; i++) dl_lease_free(leases[i]);
        if (st != DL_OK) {
            php_distlock_throw(&err);
        } else if (throw_on_timeout) {
            throw_wait_timeout(&res, &err, "Could not acquire all %u locks (\"%s\", ...) within %.3f seconds", n,
                               ZSTR_VAL(names[0]), wait_us / 1e6);
        } else {
            RETVAL_NULL();
        }
        return;
    }
    array_init_size(return_value, n);
    for (i = 0; i < n; i++) {
        zval handle;
        php_distlock_held *h = hold(c, names[i], leases[i]);
        if (!h) {
            /* The watchdog refused one: give every name back, all or none. */
            uint32_t j;
            int released;
            for (j = i + 1; j < n; j++) {
                dl_target_release(c->target, leases[j], &released, NULL);
                dl_lease_free(leases[j]);
            }
            return;   /* the handles made so far release theirs as return_value is freed */
        }
        php_distlock_lock_create(&handle, c, h);
        zend_hash_next_index_insert_new(Z_ARRVAL_P(return_value), &handle);
    }
}

void php_distlock_client_acquire_all(php_distlock_client *c, const char *func, zend_string **names, uint32_t n,
                                     int64_t ttl_ms, int64_t wait_us, bool throw_on_timeout, zval *return_value)
{
    php_distlock_obs_op op;
    PHP_DISTLOCK_OBS_BEGIN(&op);
    acquire_all(c, func, names, n, ttl_ms, wait_us, throw_on_timeout, return_value, &op);
    if (op.on) obs_acquire(&op, "multi", names[0], names, n, ttl_ms, -1, wait_us, return_value);
}

static int release_token(php_distlock_client *c, zend_string *name, const char *token, size_t token_len,
                         int64_t *held_ns);

int php_distlock_client_release_token(php_distlock_client *c, zend_string *name, const char *token, size_t token_len)
{
    php_distlock_obs_op op;
    php_distlock_event ev;
    int64_t held_ns = -1;
    int released;
    PHP_DISTLOCK_OBS_BEGIN(&op);
    released = release_token(c, name, token, token_len, op.on ? &held_ns : NULL);
    if (op.on) {
        php_distlock_event_init(&ev, "release", "mutex", name);
        ev.outcome = released < 0 ? "error" : released ? "released" : "lost";
        ev.held_ns = held_ns;
        php_distlock_obs_end(&op, &ev);
    }
    return released;
}

/* Releases name if token holds it; *held_ns (when not NULL): ns since the
 * grant when this instance holds that lease, else left alone. */
static int release_token(php_distlock_client *c, zend_string *name, const char *token, size_t token_len,
                         int64_t *held_ns)
{
    dl_error_t err;
    dl_lease_t *lease;
    int released;

    lease = dl_lease_new(ZSTR_VAL(c->prefix), ZSTR_LEN(c->prefix), ZSTR_VAL(name), ZSTR_LEN(name), token, token_len, 0, &err);
    if (!lease) {
        php_distlock_throw(&err);
        return -1;
    }
    lease->fair = c->fair;  /* a fair release hands over to the next waiter */
    if (dl_target_release(c->target, lease, &released, &err) != DL_OK) {
        dl_lease_free(lease);
        php_distlock_throw_release(&err);
        return -1;
    }
    php_distlock_deadlock_forget_detached(c, lease->key, lease->key_len, token, token_len);
    dl_lease_free(lease);
    if (released) {
        DISTLOCK_G(stats).released++;
        /* Our own handles on that lease now see it as gone. */
        php_distlock_held *h = php_distlock_registry_find(c, name);
        if (h && h->lease->token_len == token_len && memcmp(h->lease->token, token, token_len) == 0) {
            if (held_ns && h->granted_ns) *held_ns = dl_clock_now_ns() - h->granted_ns;
            php_distlock_registry_forget(c, h);
        }
    }
    return released;
}

/* "Argument #N ($param)" in buf (room for 32 bytes), N being 1 to 9. Not
 * snprintf: that took about 400 instructions a call, on every lock call
 * (callgrind, issue 46), for a label only an error message reads. */
static const char *arg_label(char *buf, uint32_t n, const char *param)
{
    static const char head[] = "Argument #";
    size_t len = strlen(param);
    char *p = buf;
    ZEND_ASSERT(n >= 1 && n <= 9 && len <= 8);
    memcpy(p, head, sizeof(head) - 1);
    p += sizeof(head) - 1;
    *p++ = (char)('0' + n % 10);
    *p++ = ' '; *p++ = '('; *p++ = '$';
    memcpy(p, param, len);
    p += len;
    *p++ = ')';
    *p = '\0';
    return buf;
}

/* Resolves the optional ttl/wait arguments of a method against the defaults. */
bool php_distlock_resolve_ttl_wait(php_distlock_client *c, const char *func, uint32_t ttl_arg, double ttl, bool ttl_null,
                             double wait, bool wait_null, int64_t *ttl_ms, int64_t *wait_us)
{
    char what[32];
    *ttl_ms = c->ttl_ms;
    if (wait_us) *wait_us = c->wait_us;
    if (!ttl_null && !php_distlock_ttl_ms(func, arg_label(what, ttl_arg, "ttl"), ttl, ttl_ms)) return false;
    if (wait_us && !wait_null && !php_distlock_wait_us(func, arg_label(what, ttl_arg + 1, "wait"), wait, wait_us)) {
        return false;
    }
    return true;
}

/* ---- methods ----------------------------------------------------------- */

ZEND_METHOD(DistLock, __construct)
{
    php_distlock_client *c = php_distlock_client_from(Z_OBJ_P(ZEND_THIS));
    zval *servers = NULL;
    HashTable *options = NULL;
    php_distlock_config cfg;
    dl_error_t err;
    zval default_uri;

    ZEND_PARSE_PARAMETERS_START(0, 2)
        Z_PARAM_OPTIONAL
        Z_PARAM_ZVAL(servers)
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();

    if (c->target) {
        zend_throw_error(NULL, "DistLock object is already constructed");
        RETURN_THROWS();
    }
    ZVAL_UNDEF(&default_uri);
    if (!servers) {
        ZVAL_STRINGL(&default_uri, "redis://127.0.0.1:6379", sizeof("redis://127.0.0.1:6379") - 1);
        servers = &default_uri;
    } else if (Z_TYPE_P(servers) != IS_STRING && Z_TYPE_P(servers) != IS_ARRAY) {
        zend_argument_type_error(1, "must be of type array|string, %s given", zend_zval_type_name(servers));
        RETURN_THROWS();
    }
    if (php_distlock_config_parse(servers, options, &cfg) != SUCCESS) {
        zval_ptr_dtor(&default_uri);
        RETURN_THROWS();
    }
    zval_ptr_dtor(&default_uri);
    c->display = display_target(&cfg.target);
    c->target = cfg.pool_id ? dl_pool_take(cfg.pool_id, &cfg.target, &err) : dl_target_new(&cfg.target, &err);
    if (!c->target) {
        php_distlock_config_free(&cfg);
        zend_string_release(c->display);
        c->display = NULL;
        php_distlock_throw(&err);
        RETURN_THROWS();
    }
    c->prefix = cfg.prefix;
    c->ttl_ms = cfg.ttl_ms;
    c->wait_us = cfg.wait_us;
    c->backoff = cfg.backoff;
    c->fencing = cfg.fencing;
    c->fair = cfg.fair;
    c->deadlock_detection = cfg.deadlock_detection;
    c->defer_release = cfg.defer_release;
    c->min_replicas = cfg.min_replicas;
    c->replica_timeout_ms = cfg.replica_timeout_ms;
    c->watchdog = cfg.watchdog;
    c->on_lost_throw = cfg.on_lost_throw;
    c->max_hold_us = cfg.max_hold_us;
    c->resources = cfg.resources;
    c->pool_id = cfg.pool_id;
    cfg.pool_id = NULL;
    cfg.prefix = NULL;
    cfg.resources = NULL;
    php_distlock_config_free(&cfg);

    c->next = DISTLOCK_G(clients);
    if (c->next) c->next->prev = c;
    DISTLOCK_G(clients) = c;
}

ZEND_METHOD(DistLock, lock)
{
    php_distlock_client *c;
    zend_string *name;
    zend_string *token = NULL;
    double ttl = 0, wait = 0;
    bool ttl_null = true, wait_null = true;
    int64_t ttl_ms, wait_us;

    ZEND_PARSE_PARAMETERS_START(1, 4)
        Z_PARAM_STR(name)
        Z_PARAM_OPTIONAL
        Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_null)
        Z_PARAM_DOUBLE_OR_NULL(wait, wait_null)
        Z_PARAM_STR_OR_NULL(token)
    ZEND_PARSE_PARAMETERS_END();

    if (!(c = php_distlock_this_client(ZEND_THIS))) RETURN_THROWS();
    if (!php_distlock_check_name("DistLock::lock", "Argument #1 ($name)", name) ||
        !php_distlock_resolve_ttl_wait(c, "DistLock::lock", 2, ttl, ttl_null, wait, wait_null, &ttl_ms, &wait_us) ||
        (token && !php_distlock_check_token("DistLock::lock", "Argument #4 ($token)", token))) {
        RETURN_THROWS();
    }
    php_distlock_client_acquire(c, name, ttl_ms, wait_us, token, true, return_value);
}

ZEND_METHOD(DistLock, tryLock)
{
    php_distlock_client *c;
    zend_string *name;
    zend_string *token = NULL;
    double ttl = 0;
    bool ttl_null = true;
    int64_t ttl_ms;

    ZEND_PARSE_PARAMETERS_START(1, 3)
        Z_PARAM_STR(name)
        Z_PARAM_OPTIONAL
        Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_null)
        Z_PARAM_STR_OR_NULL(token)
    ZEND_PARSE_PARAMETERS_END();

    if (!(c = php_distlock_this_client(ZEND_THIS))) RETURN_THROWS();
    if (!php_distlock_check_name("DistLock::tryLock", "Argument #1 ($name)", name) ||
        !php_distlock_resolve_ttl_wait(c, "DistLock::tryLock", 2, ttl, ttl_null, 0, true, &ttl_ms, NULL) ||
        (token && !php_distlock_check_token("DistLock::tryLock", "Argument #3 ($token)", token))) {
        RETURN_THROWS();
    }
    php_distlock_client_acquire(c, name, ttl_ms, 0, token, false, return_value);
}

ZEND_METHOD(DistLock, synchronized)
{
    php_distlock_client *c;
    zend_string *name;
    zend_fcall_info fci;
    zend_fcall_info_cache fcc;
    double ttl = 0, wait = 0;
    bool ttl_null = true, wait_null = true;
    int64_t ttl_ms, wait_us;
    zval lock, retval;

    ZEND_PARSE_PARAMETERS_START(2, 4)
        Z_PARAM_STR(name)
        Z_PARAM_FUNC(fci, fcc)
        Z_PARAM_OPTIONAL
        Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_null)
        Z_PARAM_DOUBLE_OR_NULL(wait, wait_null)
    ZEND_PARSE_PARAMETERS_END();

    if (!(c = php_distlock_this_client(ZEND_THIS))) RETURN_THROWS();
    if (!php_distlock_check_name("DistLock::synchronized", "Argument #1 ($name)", name) ||
        !php_distlock_resolve_ttl_wait(c, "DistLock::synchronized", 3, ttl, ttl_null, wait, wait_null, &ttl_ms, &wait_us)) {
        RETURN_THROWS();
    }
    ZVAL_UNDEF(&lock);
    php_distlock_client_acquire(c, name, ttl_ms, wait_us, NULL, true, &lock);
    if (EG(exception)) {
        zval_ptr_dtor(&lock);
        RETURN_THROWS();
    }
    ZVAL_UNDEF(&retval);
    fci.retval = &retval;
    fci.params = &lock;
    fci.param_count = 1;
    zend_call_function(&fci, &fcc);
    /* Release in all cases; with the callback's exception pending, quietly. */
    php_distlock_lock_release(php_distlock_lock_from(Z_OBJ(lock)), EG(exception) != NULL, true);
    zval_ptr_dtor(&lock);
    if (EG(exception)) {
        zval_ptr_dtor(&retval);
        RETURN_THROWS();
    }
    if (Z_TYPE(retval) != IS_UNDEF) {
        RETURN_COPY_VALUE(&retval);
    }
}

/* Checks (string $name, string $token) of release(), refresh() and the restores; NULL after throwing. */
php_distlock_client *php_distlock_name_token_args(zval *this_ptr, const char *func, zend_string *name, zend_string *token)
{
    php_distlock_client *c = php_distlock_this_client(this_ptr);
    if (!c || !php_distlock_check_name(func, "Argument #1 ($name)", name) ||
        !php_distlock_check_token(func, "Argument #2 ($token)", token)) {
        return NULL;
    }
    return c;
}

/* Adopts the lease of kind held on name under token: a handle in
 * return_value, or throws (LockLostException when not held). */
void php_distlock_client_restore(php_distlock_client *c, zend_string *name, zend_string *token, dl_lease_kind_t kind,
                                 zval *return_value)
{
    dl_lease_t *lease;
    dl_error_t err;
    int64_t pttl_ms;
    php_distlock_held *h;

    lease = dl_lease_new(ZSTR_VAL(c->prefix), ZSTR_LEN(c->prefix), ZSTR_VAL(name), ZSTR_LEN(name), ZSTR_VAL(token),
                         ZSTR_LEN(token), c->ttl_ms, &err);
    if (!lease) {
        php_distlock_throw(&err);
        return;
    }
    lease->kind = kind;
    lease_apply_client(c, lease);
    {
        int64_t sent_ns = dl_clock_now_ns();
        dl_status_t st = dl_target_status(c->target, lease, &pttl_ms, &err);
        PHP_DISTLOCK_OBS_TELL();
        if (st != DL_OK) {
            dl_lease_free(lease);
            php_distlock_throw(&err);
            return;
        }
        lease->valid_until_ns = sent_ns + pttl_ms * 1000000;
    }
    if (pttl_ms < 0) {
        dl_lease_free(lease);
        if (kind == DL_LEASE_PERMITS) {
            zend_throw_exception_ex(distlock_ce_LockLostException, 0,
                                    "No permits of the semaphore \"%s\" are held with the given token", ZSTR_VAL(name));
        } else {
            zend_throw_exception_ex(distlock_ce_LockLostException, 0, "The lock \"%s\" is not held %swith the given token",
                                    ZSTR_VAL(name),
                                    kind == DL_LEASE_SHARED ? "shared " : kind == DL_LEASE_WRITE ? "exclusively " : "");
        }
        return;
    }
    /* Already held by this instance under the same token: one more handle. */
    if (kind == DL_LEASE_SHARED || kind == DL_LEASE_WRITE) {
        uint32_t n;
        h = php_distlock_registry_find_rw(c, name, token, &n);
        if (h && h->lease->kind == kind) {
            dl_lease_free(lease);
            php_distlock_lock_create_view(return_value, c, h, kind == DL_LEASE_WRITE);
            return;
        }
        h = NULL;   /* restored beside it (a shared lease is listed under its token) */
    } else {
        h = php_distlock_registry_find(c, name);
    }
    if (kind == DL_LEASE_PERMITS) {
        php_distlock_held *same;
        php_distlock_registry_own_permits(c, name, token, &same);
        if (same) {
            dl_lease_free(lease);
            php_distlock_lock_create(return_value, c, same);
            return;
        }
    }
    if (h) {
        if (!h->done && h->lease->pid == dl_proc_pid() && h->lease->kind == kind &&
            h->lease->token_len == lease->token_len && memcmp(h->lease->token, lease->token, lease->token_len) == 0) {
            dl_lease_free(lease);
            php_distlock_lock_create(return_value, c, h);
            return;
        }
        php_distlock_registry_forget(c, h);
    }
    h = php_distlock_held_new(lease, name);
    h->restored = true;
    if (!php_distlock_watch(c, h)) {
        php_distlock_held_release_ref(h);
        return;
    }
    php_distlock_registry_add(c, h);
    php_distlock_lock_create(return_value, c, h);
}

ZEND_METHOD(DistLock, restore)
{
    php_distlock_client *c;
    zend_string *name, *token;

    ZEND_PARSE_PARAMETERS_START(2, 2)
        Z_PARAM_STR(name)
        Z_PARAM_STR(token)
    ZEND_PARSE_PARAMETERS_END();

    if (!(c = php_distlock_name_token_args(ZEND_THIS, "DistLock::restore", name, token))) RETURN_THROWS();
    php_distlock_client_restore(c, name, token, DL_LEASE_EXCLUSIVE, return_value);
}

/*
 * A lease for the keys of $name only (no token is needed, or generated), for
 * isLocked(), status() and forceRelease(). NULL with the exception thrown (bad name, no memory).
 */
static dl_lease_t *name_lease(zval *this_ptr, zend_string *name, const char *func, php_distlock_client **client)
{
    php_distlock_client *c = php_distlock_this_client(this_ptr);
    dl_lease_t *lease;
    dl_error_t err;

    if (!c || !php_distlock_check_name(func, "Argument #1 ($name)", name)) return NULL;
    lease = dl_lease_new(ZSTR_VAL(c->prefix), ZSTR_LEN(c->prefix), ZSTR_VAL(name), ZSTR_LEN(name), "", 0, 0, &err);
    if (!lease) {
        php_distlock_throw(&err);
        return NULL;
    }
    *client = c;
    return lease;
}

/* Runs a yes/no operation on the keys of $name (isLocked(), forceRelease()).
 * Returns its 0/1 result, or -1 after throwing. */
static int name_flag_op(zval *this_ptr, zend_string *name, const char *func,
                        dl_status_t (*op)(dl_target_t *, const dl_lease_t *, int *, dl_error_t *),
                        php_distlock_client **client)
{
    dl_lease_t *lease = name_lease(this_ptr, name, func, client);
    dl_error_t err;
    dl_status_t st;
    int result = 0;

    if (!lease) return -1;
    st = op((*client)->target, lease, &result, &err);
    dl_lease_free(lease);
    PHP_DISTLOCK_OBS_TELL();
    if (st != DL_OK) {
        php_distlock_throw(&err);
        return -1;
    }
    return result;
}

ZEND_METHOD(DistLock, isLocked)
{
    php_distlock_client *c;
    zend_string *name;
    int locked;

    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_STR(name)
    ZEND_PARSE_PARAMETERS_END();

    if ((locked = name_flag_op(ZEND_THIS, name, "DistLock::isLocked", dl_target_is_locked, &c)) < 0) RETURN_THROWS();
    RETURN_BOOL(locked);
}

ZEND_METHOD(DistLock, forceRelease)
{
    php_distlock_client *c;
    zend_string *name;
    php_distlock_held *h;
    int deleted;

    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_STR(name)
    ZEND_PARSE_PARAMETERS_END();

    if ((deleted = name_flag_op(ZEND_THIS, name, "DistLock::forceRelease", dl_target_delete, &c)) < 0) RETURN_THROWS();
    /* Our own lease on it (if any) is gone. */
    if ((h = php_distlock_registry_find(c, name))) php_distlock_registry_forget(c, h);
    RETURN_BOOL(deleted);
}

ZEND_METHOD(DistLock, release)
{
    php_distlock_client *c;
    zend_string *name, *token;
    int released;

    ZEND_PARSE_PARAMETERS_START(2, 2)
        Z_PARAM_STR(name)
        Z_PARAM_STR(token)
    ZEND_PARSE_PARAMETERS_END();

    if (!(c = php_distlock_name_token_args(ZEND_THIS, "DistLock::release", name, token))) RETURN_THROWS();
    released = php_distlock_client_release_token(c, name, ZSTR_VAL(token), ZSTR_LEN(token));
    if (released < 0) RETURN_THROWS();
    RETURN_BOOL(released);
}

static void refresh_token(php_distlock_client *c, zend_string *name, zend_string *token, int64_t ttl_ms,
                          zval *return_value);

ZEND_METHOD(DistLock, refresh)
{
    php_distlock_client *c;
    zend_string *name, *token;
    double ttl = 0;
    bool ttl_null = true;
    int64_t ttl_ms;
    php_distlock_obs_op op;

    ZEND_PARSE_PARAMETERS_START(2, 3)
        Z_PARAM_STR(name)
        Z_PARAM_STR(token)
        Z_PARAM_OPTIONAL
        Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_null)
    ZEND_PARSE_PARAMETERS_END();

    if (!(c = php_distlock_name_token_args(ZEND_THIS, "DistLock::refresh", name, token)) ||
        !php_distlock_resolve_ttl_wait(c, "DistLock::refresh", 3, ttl, ttl_null, 0, true, &ttl_ms, NULL)) {
        RETURN_THROWS();
    }
    PHP_DISTLOCK_OBS_BEGIN(&op);
    refresh_token(c, name, token, ttl_ms, return_value);
    if (op.on) {
        php_distlock_event ev;
        php_distlock_event_init(&ev, "refresh", "mutex", name);
        ev.outcome = EG(exception) ? "error" : Z_TYPE_P(return_value) == IS_TRUE ? "refreshed" : "lost";
        ev.ttl_ms = ttl_ms;
        php_distlock_obs_end(&op, &ev);
    }
}

/* DistLock::refresh() once its arguments are checked: true/false in return_value, or throws. */
static void refresh_token(php_distlock_client *c, zend_string *name, zend_string *token, int64_t ttl_ms,
                          zval *return_value)
{
    dl_lease_t *lease;
    dl_error_t err;
    dl_status_t st;
    int extended;
    php_distlock_held *h;

    lease = dl_lease_new(ZSTR_VAL(c->prefix), ZSTR_LEN(c->prefix), ZSTR_VAL(name), ZSTR_LEN(name), ZSTR_VAL(token),
                         ZSTR_LEN(token), ttl_ms, &err);
    if (!lease) {
        php_distlock_throw(&err);
        RETURN_THROWS();
    }
    st = dl_target_refresh(c->target, lease, ttl_ms, &extended, &err);
    /* This instance's own lease under that token follows: the watchdog's ttl
     * whatever the reply (dl_renew_set_ttl; tests/model/watchdog.pml), the
     * validity when extended. */
    h = php_distlock_registry_find(c, name);
    if (h && (h->done || h->lease->token_len != lease->token_len ||
              memcmp(h->lease->token, lease->token, lease->token_len) != 0)) {
        h = NULL;
    }
    if (h && h->wd) dl_watchdog_set_ttl(h->wd, ttl_ms);
    if (st != DL_OK) {
        dl_lease_free(lease);
        php_distlock_throw(&err);
        RETURN_THROWS();
    }
    if (extended) {
        DISTLOCK_G(stats).refreshed++;
        if (h) {
            h->lease->ttl_ms = lease->ttl_ms;
            h->lease->valid_until_ns = lease->valid_until_ns;
        }
    }
    dl_lease_free(lease);
    RETURN_BOOL(extended);
}

ZEND_METHOD(DistLock, owner)
{
    php_distlock_client *c;
    zend_string *name, *key;
    dl_error_t err;
    dl_status_t st;
    char *token;
    size_t token_len;

    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_STR(name)
    ZEND_PARSE_PARAMETERS_END();

    if (!(c = php_distlock_this_client(ZEND_THIS)) || !php_distlock_check_name("DistLock::owner", "Argument #1 ($name)", name)) {
        RETURN_THROWS();
    }
    key = zend_string_concat2(ZSTR_VAL(c->prefix), ZSTR_LEN(c->prefix), ZSTR_VAL(name), ZSTR_LEN(name));
    st = dl_target_owner(c->target, ZSTR_VAL(key), ZSTR_LEN(key), &token, &token_len, &err);
    zend_string_release(key);
    PHP_DISTLOCK_OBS_TELL();
    if (st != DL_OK) {
        php_distlock_throw(&err);
        RETURN_THROWS();
    }
    if (!token) RETURN_NULL();
    RETVAL_STRINGL(token, token_len);
    free(token);
}

ZEND_METHOD(DistLock, status)
{
    php_distlock_client *c;
    zend_string *name;
    dl_lease_t *lease;
    dl_lock_info_t info;
    dl_error_t err;
    dl_status_t st;
    const char *kind;

    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_STR(name)
    ZEND_PARSE_PARAMETERS_END();

    if (!(lease = name_lease(ZEND_THIS, name, "DistLock::status", &c))) RETURN_THROWS();
    st = dl_target_inspect(c->target, lease, &info, &err);
    dl_lease_free(lease);
    PHP_DISTLOCK_OBS_TELL();
    if (st != DL_OK) {
        php_distlock_throw(&err);
        RETURN_THROWS();
    }
    /* The first three keys as before (callers index them); the kind's figures after them. */
    array_init_size(return_value, 6);
    add_assoc_bool(return_value, "locked", info.kind != DL_HELD_NONE);
    /* A key without a TTL (not written by distlock) never expires: INF. */
    add_assoc_double(return_value, "ttl", info.pttl_ms == -1 ? ZEND_INFINITY : info.pttl_ms > 0 ? info.pttl_ms / 1e3 : 0.0);
    add_assoc_long(return_value, "waiters", (zend_long)info.waiters);
    kind = dl_held_kind_name(info.kind);
    if (kind) add_assoc_string(return_value, "kind", kind);
    else add_assoc_null(return_value, "kind");
    add_assoc_long(return_value, "holders", (zend_long)info.holders);
    add_assoc_long(return_value, "permits", (zend_long)info.permits);
}

void php_distlock_stats_array(zval *out)
{
    php_distlock_stats *s = &DISTLOCK_G(stats);
    dl_watchdog_stats_t wd;
    dl_watchdog_get_stats(&wd);
    array_init_size(out, 14);
    add_assoc_long(out, "acquired", s->acquired);
    add_assoc_long(out, "contended", s->contended);
    add_assoc_long(out, "timeouts", s->timeouts);
    add_assoc_long(out, "released", s->released);
    add_assoc_long(out, "lost", s->lost + (zend_long)wd.lost);
    add_assoc_long(out, "refreshed", s->refreshed);
    add_assoc_long(out, "wait_time_us", s->wait_time_us);
    add_assoc_long(out, "connection_errors", s->connection_errors);
    add_assoc_long(out, "native_releases", (zend_long)dl_lock_native_releases());
    add_assoc_long(out, "native_fallbacks", (zend_long)dl_lock_native_fallbacks());
    add_assoc_long(out, "observer_errors", s->observer_errors);
    add_assoc_long(out, "renewals", (zend_long)wd.renewals);
    add_assoc_long(out, "renewal_round_trips", (zend_long)wd.round_trips);
    add_assoc_long(out, "deadlocks", s->deadlocks);
}

ZEND_METHOD(DistLock, stats)
{
    ZEND_PARSE_PARAMETERS_NONE();
    php_distlock_stats_array(return_value);
}

/* The end of a logical request in a long-running worker: what RSHUTDOWN does for leases. */
ZEND_METHOD(DistLock, endRequest)
{
    zend_long n;
    ZEND_PARSE_PARAMETERS_NONE();
    n = php_distlock_release_all();
    php_distlock_obs_flush();
    RETURN_LONG(n);
}
