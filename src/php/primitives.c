/*
 * The DistLock methods of the primitives beyond the mutex (docs/primitives.md):
 * shared and exclusive locking of one name, counting semaphores, multi-locks.
 * Each returns DistLock\Lock handles, with the life of any other: scoped and
 * request-end release, detach(), refresh(), the watchdog, fork safety.
 */
#include "php_distlock_internal.h"

#include "../core/lease/dl_multi.h"

#define WHY_COUNTED "its quorum argument (redis.io) covers one exclusive key per name, and permits or shared " \
                    "holders counted on independent masters can disagree; use one server, Sentinel or Cluster"
#define WHY_MULTI "all-or-none is one script on one server; with Redlock take the names with lock() one by one, " \
                  "in a fixed order"

/* Redlock runs the mutex only (dl_target.h): a ValueError that says why. */
static bool offered(php_distlock_client *c, const char *func, const char *what, const char *why)
{
    if (dl_target_config(c->target)->kind != DL_TARGET_REDLOCK) return true;
    zend_value_error("%s(): %s not offered on Redlock (a list of masters): %s", func, what, why);
    return false;
}

/* name, ttl, wait for the shared/exclusive methods; false after throwing. */
static php_distlock_client *rw_args(zval *this_ptr, const char *func, zend_string *name, double ttl, bool ttl_null,
                                    double wait, bool wait_null, int64_t *ttl_ms, int64_t *wait_us)
{
    php_distlock_client *c = php_distlock_this_client(this_ptr);
    if (!c || !php_distlock_check_name(func, "Argument #1 ($name)", name) ||
        !php_distlock_resolve_ttl_wait(c, func, 2, ttl, ttl_null, wait, wait_null, ttl_ms, wait_us) ||
        !offered(c, func, "shared locks are", WHY_COUNTED)) {
        return NULL;
    }
    return c;
}

static void rw_method(INTERNAL_FUNCTION_PARAMETERS, const char *func, dl_lease_kind_t kind, bool waits)
{
    php_distlock_client *c;
    zend_string *name, *token = NULL;
    double ttl = 0, wait = 0;
    bool ttl_null = true, wait_null = true;
    int64_t ttl_ms, wait_us = 0;

    if (waits) {
        ZEND_PARSE_PARAMETERS_START(1, 4)
            Z_PARAM_STR(name)
            Z_PARAM_OPTIONAL
            Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_null)
            Z_PARAM_DOUBLE_OR_NULL(wait, wait_null)
            Z_PARAM_STR_OR_NULL(token)
        ZEND_PARSE_PARAMETERS_END();
    } else {
        ZEND_PARSE_PARAMETERS_START(1, 3)
            Z_PARAM_STR(name)
            Z_PARAM_OPTIONAL
            Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_null)
            Z_PARAM_STR_OR_NULL(token)
        ZEND_PARSE_PARAMETERS_END();
    }

    if (!(c = rw_args(ZEND_THIS, func, name, ttl, ttl_null, wait, wait_null, &ttl_ms, waits ? &wait_us : NULL)) ||
        (token && !php_distlock_check_token(func, waits ? "Argument #4 ($token)" : "Argument #3 ($token)", token))) {
        RETURN_THROWS();
    }
    php_distlock_client_acquire_kind(c, func, name, kind, token, 0, 0, ttl_ms, waits ? wait_us : 0, waits, return_value);
}

ZEND_METHOD(DistLock, lockShared)
{
    rw_method(INTERNAL_FUNCTION_PARAM_PASSTHRU, "DistLock::lockShared", DL_LEASE_SHARED, true);
}

ZEND_METHOD(DistLock, tryLockShared)
{
    rw_method(INTERNAL_FUNCTION_PARAM_PASSTHRU, "DistLock::tryLockShared", DL_LEASE_SHARED, false);
}

ZEND_METHOD(DistLock, lockExclusive)
{
    rw_method(INTERNAL_FUNCTION_PARAM_PASSTHRU, "DistLock::lockExclusive", DL_LEASE_WRITE, true);
}

ZEND_METHOD(DistLock, tryLockExclusive)
{
    rw_method(INTERNAL_FUNCTION_PARAM_PASSTHRU, "DistLock::tryLockExclusive", DL_LEASE_WRITE, false);
}

static void kind_restore(INTERNAL_FUNCTION_PARAMETERS, const char *func, dl_lease_kind_t kind)
{
    php_distlock_client *c;
    zend_string *name, *token;

    ZEND_PARSE_PARAMETERS_START(2, 2)
        Z_PARAM_STR(name)
        Z_PARAM_STR(token)
    ZEND_PARSE_PARAMETERS_END();

    if (!(c = php_distlock_name_token_args(ZEND_THIS, func, name, token)) ||
        !offered(c, func, kind == DL_LEASE_PERMITS ? "semaphores are" : "shared locks are", WHY_COUNTED)) {
        RETURN_THROWS();
    }
    php_distlock_client_restore(c, name, token, kind, return_value);
}

ZEND_METHOD(DistLock, restoreShared)
{
    kind_restore(INTERNAL_FUNCTION_PARAM_PASSTHRU, "DistLock::restoreShared", DL_LEASE_SHARED);
}

ZEND_METHOD(DistLock, restoreExclusive)
{
    kind_restore(INTERNAL_FUNCTION_PARAM_PASSTHRU, "DistLock::restoreExclusive", DL_LEASE_WRITE);
}

/* ---- counting semaphores ---------------------------------------------------- */

static bool permits_args(const char *func, zend_long limit, zend_long permits)
{
    if (limit < 1 || limit > DL_PERMITS_MAX) {
        zend_argument_value_error(2, "must be between 1 and %lld", DL_PERMITS_MAX);
        return false;
    }
    if (permits < 1 || permits > limit) {
        zend_argument_value_error(3, "must be between 1 and $limit (%ld)", (long)limit);
        return false;
    }
    (void)func;
    return true;
}

static void permits_method(INTERNAL_FUNCTION_PARAMETERS, const char *func, bool waits)
{
    php_distlock_client *c;
    zend_string *name, *token = NULL;
    zend_long limit, permits = 1;
    double ttl = 0, wait = 0;
    bool ttl_null = true, wait_null = true;
    int64_t ttl_ms, wait_us = 0;

    if (waits) {
        ZEND_PARSE_PARAMETERS_START(2, 6)
            Z_PARAM_STR(name)
            Z_PARAM_LONG(limit)
            Z_PARAM_OPTIONAL
            Z_PARAM_LONG(permits)
            Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_null)
            Z_PARAM_DOUBLE_OR_NULL(wait, wait_null)
            Z_PARAM_STR_OR_NULL(token)
        ZEND_PARSE_PARAMETERS_END();
    } else {
        ZEND_PARSE_PARAMETERS_START(2, 5)
            Z_PARAM_STR(name)
            Z_PARAM_LONG(limit)
            Z_PARAM_OPTIONAL
            Z_PARAM_LONG(permits)
            Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_null)
            Z_PARAM_STR_OR_NULL(token)
        ZEND_PARSE_PARAMETERS_END();
    }

    if (!(c = php_distlock_this_client(ZEND_THIS)) || !php_distlock_check_name(func, "Argument #1 ($name)", name) ||
        !permits_args(func, limit, permits) ||
        !php_distlock_resolve_ttl_wait(c, func, 4, ttl, ttl_null, wait, wait_null, &ttl_ms, waits ? &wait_us : NULL) ||
        (token && !php_distlock_check_token(func, waits ? "Argument #6 ($token)" : "Argument #5 ($token)", token)) ||
        !offered(c, func, "semaphores are", WHY_COUNTED)) {
        RETURN_THROWS();
    }
    php_distlock_client_acquire_kind(c, func, name, DL_LEASE_PERMITS, token, permits, limit, ttl_ms, waits ? wait_us : 0, waits,
                                     return_value);
}

ZEND_METHOD(DistLock, acquirePermits)
{
    permits_method(INTERNAL_FUNCTION_PARAM_PASSTHRU, "DistLock::acquirePermits", true);
}

ZEND_METHOD(DistLock, tryAcquirePermits)
{
    permits_method(INTERNAL_FUNCTION_PARAM_PASSTHRU, "DistLock::tryAcquirePermits", false);
}

ZEND_METHOD(DistLock, permits)
{
    php_distlock_client *c;
    zend_string *name;
    dl_lease_t *lease;
    dl_error_t err;
    long long holders, used;

    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_STR(name)
    ZEND_PARSE_PARAMETERS_END();

    if (!(c = php_distlock_this_client(ZEND_THIS)) ||
        !php_distlock_check_name("DistLock::permits", "Argument #1 ($name)", name) ||
        !offered(c, "DistLock::permits", "semaphores are", WHY_COUNTED)) {
        RETURN_THROWS();
    }
    lease = dl_lease_new(ZSTR_VAL(c->prefix), ZSTR_LEN(c->prefix), ZSTR_VAL(name), ZSTR_LEN(name), "-", 1, 0, &err);
    if (!lease) {
        php_distlock_throw(&err);
        RETURN_THROWS();
    }
    lease->kind = DL_LEASE_PERMITS;
    dl_status_t st = dl_target_permits_used(c->target, lease, &holders, &used, &err);
    PHP_DISTLOCK_OBS_TELL();
    if (st != DL_OK) {
        dl_lease_free(lease);
        php_distlock_throw(&err);
        RETURN_THROWS();
    }
    dl_lease_free(lease);
    array_init_size(return_value, 2);
    add_assoc_long(return_value, "holders", (zend_long)holders);
    add_assoc_long(return_value, "used", (zend_long)used);
}

/* ---- multi-locks -------------------------------------------------------------- */

static void all_method(INTERNAL_FUNCTION_PARAMETERS, const char *func, bool waits)
{
    php_distlock_client *c;
    HashTable *list;
    zend_string *names[DL_MULTI_MAX];
    double ttl = 0, wait = 0;
    bool ttl_null = true, wait_null = true;
    int64_t ttl_ms, wait_us = 0;
    uint32_t n = 0, i;
    zval *v;

    ZEND_PARSE_PARAMETERS_START(1, waits ? 3 : 2)
        Z_PARAM_ARRAY_HT(list)
        Z_PARAM_OPTIONAL
        Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_null)
        Z_PARAM_DOUBLE_OR_NULL(wait, wait_null)
    ZEND_PARSE_PARAMETERS_END();

    if (!(c = php_distlock_this_client(ZEND_THIS))) RETURN_THROWS();
    if (zend_hash_num_elements(list) < 1 || zend_hash_num_elements(list) > DL_MULTI_MAX) {
        zend_argument_value_error(1, "must hold 1 to %d lock names, %u given", DL_MULTI_MAX,
                                  zend_hash_num_elements(list));
        RETURN_THROWS();
    }
    ZEND_HASH_FOREACH_VAL(list, v) {
        ZVAL_DEREF(v);
        if (Z_TYPE_P(v) != IS_STRING) {
            zend_argument_type_error(1, "must contain only strings, %s given", zend_zval_type_name(v));
            RETURN_THROWS();
        }
        if (!php_distlock_check_name(func, "Argument #1 ($names)", Z_STR_P(v))) RETURN_THROWS();
        for (i = 0; i < n; i++) {
            if (zend_string_equals(names[i], Z_STR_P(v))) {
                zend_argument_value_error(1, "must not name \"%s\" twice", Z_STRVAL_P(v));
                RETURN_THROWS();
            }
        }
        names[n++] = Z_STR_P(v);
    } ZEND_HASH_FOREACH_END();
    if (!php_distlock_resolve_ttl_wait(c, func, 2, ttl, ttl_null, wait, wait_null, &ttl_ms, waits ? &wait_us : NULL) ||
        !offered(c, func, "multi-locks are", WHY_MULTI)) {
        RETURN_THROWS();
    }
    php_distlock_client_acquire_all(c, func, names, n, ttl_ms, waits ? wait_us : 0, waits, return_value);
}

ZEND_METHOD(DistLock, lockAll)
{
    all_method(INTERNAL_FUNCTION_PARAM_PASSTHRU, "DistLock::lockAll", true);
}

ZEND_METHOD(DistLock, tryLockAll)
{
    all_method(INTERNAL_FUNCTION_PARAM_PASSTHRU, "DistLock::tryLockAll", false);
}

ZEND_METHOD(DistLock, releaseAll)
{
    php_distlock_client *c;
    php_distlock_lock **locks;
    HashTable *list;
    zend_long released;
    uint32_t n = 0;
    zval *v;

    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_ARRAY_HT(list)
    ZEND_PARSE_PARAMETERS_END();

    if (!(c = php_distlock_this_client(ZEND_THIS))) RETURN_THROWS();
    ZEND_HASH_FOREACH_VAL(list, v) {
        ZVAL_DEREF(v);
        if (Z_TYPE_P(v) != IS_OBJECT || !instanceof_function(Z_OBJCE_P(v), distlock_ce_Lock)) {
            zend_argument_type_error(1, "must contain only DistLock\\Lock handles, %s given", zend_zval_type_name(v));
            RETURN_THROWS();
        }
        if (php_distlock_lock_from(Z_OBJ_P(v))->owner != c) {
            zend_argument_value_error(1, "must contain only handles acquired through this DistLock instance");
            RETURN_THROWS();
        }
    } ZEND_HASH_FOREACH_END();
    if (zend_hash_num_elements(list) == 0) RETURN_LONG(0);
    locks = safe_emalloc(zend_hash_num_elements(list), sizeof(*locks), 0);
    ZEND_HASH_FOREACH_VAL(list, v) {
        ZVAL_DEREF(v);
        locks[n++] = php_distlock_lock_from(Z_OBJ_P(v));
    } ZEND_HASH_FOREACH_END();
    released = php_distlock_lock_release_many(c, locks, n);
    efree(locks);
    if (released < 0) RETURN_THROWS();
    RETURN_LONG(released);
}

ZEND_METHOD(DistLock, restorePermits)
{
    kind_restore(INTERNAL_FUNCTION_PARAM_PASSTHRU, "DistLock::restorePermits", DL_LEASE_PERMITS);
}
