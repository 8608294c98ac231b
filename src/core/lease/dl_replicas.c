#include "dl_replicas.h"


#include "dl_script.h"

int dl_replicas_wanted(const dl_lease_t *lease)
{
    return lease->min_replicas > 0;
}

int64_t dl_replicas_timeout_ms(const dl_lease_t *lease)
{
    return lease->replica_timeout_ms > 0 ? lease->replica_timeout_ms : 1;
}

int64_t dl_replicas_extra_us(const dl_lease_t *lease)
{
    return dl_replicas_wanted(lease) ? dl_replicas_timeout_ms(lease) * 1000 : 0;
}

dl_cmd_t dl_replicas_wait_cmd(dl_replicas_wait_t *w, const dl_lease_t *lease)
{
    dl_cmd_t cmd;
    w->argv[0] = "WAIT"; w->argvlen[0] = 4;
    w->argv[1] = w->num; w->argvlen[1] = dl_cmd_int(w->num, lease->min_replicas);
    w->argv[2] = w->ms; w->argvlen[2] = dl_cmd_int(w->ms, dl_replicas_timeout_ms(lease));
    cmd.argc = 3; cmd.argv = w->argv; cmd.argvlen = w->argvlen;
    return cmd;
}

dl_status_t dl_replicas_check(const dl_transport_t *t, const dl_lease_t *lease, const dl_reply_t *r, const char *what,
                              dl_error_t *err)
{
    if (r->type == DL_REPLY_ERROR) return dl_server_error(t, r, "WAIT", err);
    if (r->type != DL_REPLY_INTEGER) return dl_unexpected(t, "WAIT", err);
    if (r->integer >= lease->min_replicas) return DL_OK;
    return dl_error_set(err, DL_ERR_REPLICATION, "Redis at %s: %lld of %d replicas acknowledged within %lld ms (%s)",
                        t->endpoint ? t->endpoint : "?", r->integer, lease->min_replicas,
                        (long long)dl_replicas_timeout_ms(lease), what);
}
