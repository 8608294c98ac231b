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
