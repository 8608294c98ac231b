/*
 * The module: entry, INI settings, globals, class registration, request-end
 * release and phpinfo(). The classes themselves live in client.c and lock.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "php_distlock_internal.h"
#include "../core/base/dl_platform.h"   /* phpinfo(): the platform paths configure chose */
#include "../core/base/dl_proc.h"
#include "../core/lease/dl_key.h"      /* dl_key_init(): the slot tags before any thread */
#include "../core/transport/dl_conn.h"   /* phpinfo(): the hiredis and TLS library versions */

#include "ext/spl/spl_exceptions.h"
#include "ext/standard/info.h"
#include "php_ini.h"
#include "zend_attributes.h"
#include "zend_exceptions.h"

#include "../../stubs/distlock_arginfo.h"

ZEND_DECLARE_MODULE_GLOBALS(distlock)

zend_class_entry *distlock_ce_Exception;
zend_class_entry *distlock_ce_ConnectionException;
zend_class_entry *distlock_ce_LockTimeoutException;
zend_class_entry *distlock_ce_LockLostException;
zend_class_entry *distlock_ce_QuorumException;
zend_class_entry *distlock_ce_ReplicationException;
zend_class_entry *distlock_ce_LockKindException;
zend_class_entry *distlock_ce_DeadlockException;
zend_class_entry *distlock_ce_PermissionException;

/*
 * INI durations are validated when set: a bad value is refused (ini_set()
 * returns false, the old value stays), so the constructor can trust the
 * defaults. mh_arg3 carries the bounds of the setting.
 */
enum { SECS_POSITIVE = 1, SECS_ZERO_OK, SECS_RETRY, SECS_TIMEOUT };

static ZEND_INI_MH(OnUpdateSeconds)
{
    const char *end = NULL;
    double v = zend_strtod(ZSTR_VAL(new_value), &end);
    uintptr_t kind = (uintptr_t)mh_arg3;
    double max = kind == SECS_RETRY ? PHP_DISTLOCK_MAX_RETRY_SECONDS
               : kind == SECS_TIMEOUT ? PHP_DISTLOCK_MAX_TIMEOUT_SECONDS : PHP_DISTLOCK_MAX_SECONDS;
    bool zero_ok = kind == SECS_ZERO_OK || kind == SECS_RETRY;

    (void)entry; (void)stage;
    if (ZSTR_LEN(new_value) == 0 || end != ZSTR_VAL(new_value) + ZSTR_LEN(new_value) || !isfinite(v) || v > max || (zero_ok ? v < 0 : v <= 0)) {
        return FAILURE;
    }
    *(double *)ZEND_INI_GET_ADDR() = v;
    return SUCCESS;
}

static ZEND_INI_MH(OnUpdatePrefix)
{
    if (ZSTR_LEN(new_value) > DL_PREFIX_MAX) return FAILURE;
    return OnUpdateString(entry, new_value, mh_arg1, mh_arg2, mh_arg3, stage);
}

#ifdef ZTS
# define DL_GLOBALS_PTR (void *)&distlock_globals_id
#else
# define DL_GLOBALS_PTR (void *)&distlock_globals
#endif
#define DL_INI_SECONDS(name, def, field, kind) \
    ZEND_INI_ENTRY3(name, def, PHP_INI_ALL, OnUpdateSeconds, (void *)offsetof(zend_distlock_globals, field), \
                    DL_GLOBALS_PTR, (void *)(uintptr_t)(kind))

PHP_INI_BEGIN()
    STD_PHP_INI_ENTRY("distlock.prefix", "lock:", PHP_INI_ALL, OnUpdatePrefix, prefix, zend_distlock_globals, distlock_globals)
    DL_INI_SECONDS("distlock.ttl", "30", ttl, SECS_POSITIVE)
    DL_INI_SECONDS("distlock.wait", "10", wait, SECS_ZERO_OK)
    DL_INI_SECONDS("distlock.retry_delay", "0.005", retry_delay, SECS_RETRY)
    DL_INI_SECONDS("distlock.retry_jitter", "0.005", retry_jitter, SECS_RETRY)
    DL_INI_SECONDS("distlock.connect_timeout", "1", connect_timeout, SECS_TIMEOUT)
    DL_INI_SECONDS("distlock.timeout", "1", timeout, SECS_TIMEOUT)
    STD_PHP_INI_BOOLEAN("distlock.defer_release", "1", PHP_INI_ALL, OnUpdateBool, defer_release, zend_distlock_globals,
                        distlock_globals)
PHP_INI_END()

static PHP_GINIT_FUNCTION(distlock)
{
#if defined(COMPILE_DL_DISTLOCK) && defined(ZTS)
    ZEND_TSRMLS_CACHE_UPDATE();
#endif
    memset(distlock_globals, 0, sizeof(*distlock_globals));
}

static PHP_MINIT_FUNCTION(distlock)
{
    (void)type;
    /* The pid cache is filled here, on the thread that starts PHP, before any
     * request thread exists (ZTS): every thread then only reads it. */
    (void)dl_proc_pid();
    /* Likewise the slots' fencing tags: built once here, read by every thread after. */
    dl_key_init();
    REGISTER_INI_ENTRIES();
    php_distlock_client_minit(register_class_DistLock());
    php_distlock_lock_minit(register_class_DistLock_Lock());
    php_distlock_event_minit(register_class_DistLock_Event());
    distlock_ce_Exception = register_class_DistLock_Exception(spl_ce_RuntimeException);
    distlock_ce_ConnectionException = register_class_DistLock_ConnectionException(distlock_ce_Exception);
    distlock_ce_LockTimeoutException = register_class_DistLock_LockTimeoutException(distlock_ce_Exception);
    distlock_ce_DeadlockException = register_class_DistLock_DeadlockException(distlock_ce_LockTimeoutException);
    distlock_ce_LockLostException = register_class_DistLock_LockLostException(distlock_ce_Exception);
    distlock_ce_QuorumException = register_class_DistLock_QuorumException(distlock_ce_ConnectionException);
    distlock_ce_ReplicationException = register_class_DistLock_ReplicationException(distlock_ce_ConnectionException);
    distlock_ce_LockKindException = register_class_DistLock_LockKindException(spl_ce_LogicException);
    distlock_ce_PermissionException = register_class_DistLock_PermissionException(distlock_ce_Exception);
    php_distlock_lostwatch_minit();
    return SUCCESS;
}

static PHP_MSHUTDOWN_FUNCTION(distlock)
{
    (void)type;
    php_distlock_lostwatch_mshutdown();
    UNREGISTER_INI_ENTRIES();
    return SUCCESS;
}

static PHP_RINIT_FUNCTION(distlock)
{
    (void)type; (void)module_number;
#if defined(COMPILE_DL_DISTLOCK) && defined(ZTS)
    ZEND_TSRMLS_CACHE_UPDATE();
#endif
    DISTLOCK_G(clients) = NULL;
    DISTLOCK_G(watching) = false;
    dl_obs_reset();   /* a bailout last request may have left a record armed */
    return SUCCESS;
}

/*
 * Request end: release every lease the request still holds. Destructors have
 * run by now unless the request died (fatal error, exit() in a destructor,
 * max_execution_time), which is exactly when this matters. Leases of another
 * process (inherited through fork()) are left alone.
 */
static PHP_RSHUTDOWN_FUNCTION(distlock)
{
    (void)type; (void)module_number;
    dl_obs_reset();   /* a call cut short by a bailout may have left its record armed */
    php_distlock_release_all();
    php_distlock_obs_rshutdown();
    php_distlock_deadlock_rshutdown();
    return SUCCESS;
}

static PHP_MINFO_FUNCTION(distlock)
{
    zval counters, *v;
    zend_string *key;

    php_info_print_table_start();
    php_info_print_table_row(2, "distlock support", "enabled");
    php_info_print_table_row(2, "Version", PHP_DISTLOCK_VERSION);
    php_info_print_table_row(2, "hiredis version", dl_conn_hiredis_version());
    php_info_print_table_row(2, "TLS support", dl_conn_has_tls() ? "yes" : "no (rediss:// needs hiredis >= 1.0 with hiredis_ssl)");
    if (dl_conn_tls_library()) php_info_print_table_row(2, "TLS library", dl_conn_tls_library());
    php_info_print_table_row(2, "Platform paths", dl_platform_paths());
    php_info_print_table_end();

    /* The same counters as DistLock::stats(), from the same place. */
    php_info_print_table_start();
    php_info_print_table_header(2, "Counters (this process)", "Value");
    php_distlock_stats_array(&counters);
    ZEND_HASH_FOREACH_STR_KEY_VAL(Z_ARRVAL(counters), key, v) {
        char buf[32];
        snprintf(buf, sizeof(buf), ZEND_LONG_FMT, Z_LVAL_P(v));
        php_info_print_table_row(2, ZSTR_VAL(key), buf);
    } ZEND_HASH_FOREACH_END();
    zval_ptr_dtor(&counters);
    php_info_print_table_end();

    DISPLAY_INI_ENTRIES();
}

zend_module_entry distlock_module_entry = {
    STANDARD_MODULE_HEADER,
    "distlock",
    NULL,
    PHP_MINIT(distlock),
    PHP_MSHUTDOWN(distlock),
    PHP_RINIT(distlock),
    PHP_RSHUTDOWN(distlock),
    PHP_MINFO(distlock),
    PHP_DISTLOCK_VERSION,
    PHP_MODULE_GLOBALS(distlock),
    PHP_GINIT(distlock),
    NULL,
    NULL,
    STANDARD_MODULE_PROPERTIES_EX
};

#ifdef COMPILE_DL_DISTLOCK
# ifdef ZTS
ZEND_TSRMLS_CACHE_DEFINE()
# endif
ZEND_GET_MODULE(distlock)
#endif
