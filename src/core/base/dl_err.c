#include "dl_err.h"

#include <stdarg.h>
#include <stdio.h>

dl_status_t dl_error_set(dl_error_t *err, dl_status_t code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return code;
}

void dl_error_clear(dl_error_t *err)
{
    if (err) {
        err->code = DL_OK;
        err->msg[0] = '\0';
    }
}

const char *dl_status_name(dl_status_t code)
{
    switch (code) {
    case DL_OK: return "ok";
    case DL_ERR_ARG: return "argument";
    case DL_ERR_URI: return "uri";
    case DL_ERR_NOTLS: return "notls";
    case DL_ERR_CONNECT: return "connect";
    case DL_ERR_AUTH: return "auth";
    case DL_ERR_SELECT: return "select";
    case DL_ERR_IO: return "io";
    case DL_ERR_TIMEOUT: return "timeout";
    case DL_ERR_PROTOCOL: return "protocol";
    case DL_ERR_SERVER: return "server";
    case DL_ERR_NOMEM: return "nomem";
    case DL_ERR_RANDOM: return "random";
    case DL_ERR_INTERRUPTED: return "interrupted";
    case DL_ERR_QUORUM: return "quorum";
    case DL_ERR_REPLICATION: return "replication";
    case DL_ERR_KIND: return "kind";
    case DL_ERR_DEADLOCK: return "deadlock";
    case DL_ERR_DENIED: return "denied";
    }
    return "unknown";
}

int dl_status_is_transport_failure(dl_status_t code)
{
    return code == DL_ERR_IO || code == DL_ERR_TIMEOUT || code == DL_ERR_PROTOCOL;
}

int dl_status_is_no_answer(dl_status_t code)
{
    return dl_status_is_transport_failure(code) || code == DL_ERR_CONNECT;
}
