/*
 * The one place where core error codes become PHP exceptions.
 */
#include "php_distlock_internal.h"

#include "zend_exceptions.h"

void php_distlock_throw(const dl_error_t *err)
{
    zend_class_entry *ce;
    switch (err->code) {
    case DL_ERR_NOTLS:
    case DL_ERR_CONNECT:
    case DL_ERR_AUTH:
    case DL_ERR_SELECT:
    case DL_ERR_IO:
    case DL_ERR_TIMEOUT:
    case DL_ERR_PROTOCOL:
    case DL_ERR_SERVER:
        ce = distlock_ce_ConnectionException;
        DISTLOCK_G(stats).connection_errors++;
        break;
    case DL_ERR_QUORUM:
        ce = distlock_ce_QuorumException;
        DISTLOCK_G(stats).connection_errors++;
        break;
    case DL_ERR_REPLICATION:
        ce = distlock_ce_ReplicationException;
        DISTLOCK_G(stats).connection_errors++;
        break;
    case DL_ERR_INTERRUPTED:
        ce = distlock_ce_LockTimeoutException;
        break;
    case DL_ERR_DEADLOCK:
        ce = distlock_ce_DeadlockException;   /* not a timeout, not the network's */
        DISTLOCK_G(stats).deadlocks++;
        break;
    case DL_ERR_KIND:
        ce = distlock_ce_LockKindException;   /* the caller's mistake: no connection error */
        break;
    case DL_ERR_DENIED:
        ce = distlock_ce_PermissionException;   /* the user's permissions or the server's commands: no connection error */
        break;
    default:
        ce = distlock_ce_Exception;
        break;
    }
    zend_throw_exception(ce, err->msg, (zend_long)err->code);
}

/* A release whose answer never came (a timeout, a connection lost or a reply
 * garbled after it was written): the server may have run it or not. Says so,
 * and what the caller can do (README "When a release is confirmed"). */
void php_distlock_throw_release(const dl_error_t *err)
{
    dl_error_t e = *err;
    if (err->code == DL_ERR_TIMEOUT || err->code == DL_ERR_IO || err->code == DL_ERR_PROTOCOL) {
        size_t len = strlen(e.msg);
        snprintf(e.msg + len, sizeof(e.msg) - len,
                 "; the release's outcome is unknown: the server may have released the lease or not. It ends by "
                 "its TTL at the latest; isAcquired() or status() tells whether it is still held, and a release() "
                 "again ends it if it is");
    }
    php_distlock_throw(&e);
}
