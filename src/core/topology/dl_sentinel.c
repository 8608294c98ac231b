/*
 * dl_sentinel — the master's address from the sentinels (see dl_sentinel.h
 * for the procedure and its source).
 */
#include "dl_sentinel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/dl_obs.h"

struct dl_sentinel {
    char name[DL_SENTINEL_NAME_MAX + 1];
    size_t name_len;
    size_t n;
    dl_conn_t *conns[DL_SENTINEL_MAX];   /* in the order they are asked */
};

dl_sentinel_t *dl_sentinel_new(const char *name, size_t name_len, dl_server_config_t *cfgs, size_t n,
                               dl_error_t *err)
{
    dl_sentinel_t *s = NULL;
    size_t i;

    if (n < 1 || n > DL_SENTINEL_MAX) {
        dl_error_set(err, DL_ERR_ARG, "Sentinel: between 1 and %d sentinels are needed, %zu given", DL_SENTINEL_MAX, n);
        goto fail;
    }
    if (name_len < 1 || name_len > DL_SENTINEL_NAME_MAX || memchr(name, '\0', name_len)) {
        dl_error_set(err, DL_ERR_ARG, "Sentinel: the master name must be 1 to %d bytes without NUL", DL_SENTINEL_NAME_MAX);
        goto fail;
    }
    if (!(s = calloc(1, sizeof(*s)))) {
        dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        goto fail;
    }
    memcpy(s->name, name, name_len);
    s->name_len = name_len;
    for (i = 0; i < n; i++) {
        /* Short timeouts unless the URI says otherwise: a sentinel that hangs
         * must not hold up the next one (guidelines, step 1). */
        if (!cfgs[i].has_connect_timeout) {
            cfgs[i].connect_timeout_us = DL_SENTINEL_TIMEOUT_DEFAULT_US;
            cfgs[i].has_connect_timeout = 1;
        }
        if (!cfgs[i].has_timeout) {
            cfgs[i].timeout_us = DL_SENTINEL_TIMEOUT_DEFAULT_US;
            cfgs[i].has_timeout = 1;
        }
        /* A sentinel has no databases. */
        cfgs[i].has_db = 0;
        if (!(s->conns[i] = dl_conn_new(&cfgs[i], err))) goto fail;   /* cfgs[i] freed by it */
        s->n++;
    }
    return s;
fail:
    for (i = s ? s->n : 0; i < n; i++) dl_server_config_free(&cfgs[i]);
    dl_sentinel_free(s);
    return NULL;
}

void dl_sentinel_free(dl_sentinel_t *s)
{
    size_t i;
    if (!s) return;
    for (i = 0; i < s->n; i++) dl_conn_free(s->conns[i]);
    free(s);
}

const char *dl_sentinel_endpoint(const dl_sentinel_t *s, size_t i)
{
    return i < s->n ? dl_conn_endpoint(s->conns[i]) : NULL;
}

/* What one sentinel said. */
typedef enum { ASK_ADDRESS, ASK_UNKNOWN, ASK_FAILED } ask_t;

/* A short reason for the summary: the code's name and the last part of the message. */
static void short_reason(const dl_error_t *e, char *buf, size_t size)
{
    const char *tail = strrchr(e->msg, ':');
    tail = tail ? tail + 1 : e->msg;
    while (*tail == ' ') tail++;
    snprintf(buf, size, "%s: %.40s", dl_status_name(e->code), tail);
}

/* SENTINEL get-master-addr-by-name on one sentinel. */
static ask_t ask(dl_sentinel_t *s, dl_conn_t *c, char *host, size_t host_size, int *port, dl_error_t *e)
{
    const char *argv[3] = {"SENTINEL", "get-master-addr-by-name", s->name};
    size_t argvlen[3] = {8, 23, s->name_len};
    dl_cmd_t cmd = {3, argv, argvlen};
    dl_transport_t t = dl_conn_transport(c);
    dl_reply_t r;
    ask_t out = ASK_FAILED;
    int was = dl_obs_discovery(1);   /* an observer's event names the master, not the Sentinel */
    dl_status_t st = t.call(t.impl, 1, &cmd, &r, 0, e);

    dl_obs_discovery(was);
    if (st != DL_OK) {
        dl_reply_free(&r);
        return ASK_FAILED;
    }
    if (r.type == DL_REPLY_NIL || (r.type == DL_REPLY_ARRAY && r.elements == 0)) {
        out = ASK_UNKNOWN;
    } else if (r.type == DL_REPLY_ARRAY && r.elements == 2 && r.element[0].type == DL_REPLY_STRING &&
               r.element[1].type == DL_REPLY_STRING) {
        char *end = NULL;
        long p = strtol(r.element[1].str, &end, 10);
        if (r.element[0].len == 0 || r.element[0].len >= host_size || !end || *end || p < 1 || p > 65535) {
            dl_error_set(e, DL_ERR_PROTOCOL, "Sentinel at %s: an unusable address for the master",
                         dl_conn_endpoint(c));
        } else {
            memcpy(host, r.element[0].str, r.element[0].len + 1);
            *port = (int)p;
            out = ASK_ADDRESS;
        }
    } else if (r.type == DL_REPLY_ERROR) {
        /* E.g. NOPERM, or not a sentinel at all ("unknown command"). */
        dl_error_set(e, DL_ERR_SERVER, "Sentinel at %s refused: %.60s", dl_conn_endpoint(c), r.str);
    } else {
        dl_error_set(e, DL_ERR_PROTOCOL, "Sentinel at %s: unexpected reply", dl_conn_endpoint(c));
    }
    dl_reply_free(&r);
    return out;
}

dl_status_t dl_sentinel_resolve(void *arg, char *host, size_t host_size, int *port, dl_error_t *err)
{
    dl_sentinel_t *s = arg;
    char why[DL_ERR_MSG_MAX];
    size_t i, used = 0, failed = 0, unknown = 0;

    why[0] = '\0';
    for (i = 0; i < s->n; i++) {
        dl_conn_t *c = s->conns[i];
        dl_error_t e;
        ask_t a;
        dl_error_clear(&e);
        a = ask(s, c, host, host_size, port, &e);
        if (a == ASK_ADDRESS) {
            /* The one that answered is asked first next time (guidelines, step 1). */
            if (i > 0) {
                memmove(&s->conns[1], &s->conns[0], i * sizeof(s->conns[0]));
                s->conns[0] = c;
            }
            return DL_OK;
        }
        if (a == ASK_UNKNOWN) {
            unknown++;
            continue;
        }
        if (e.code == DL_ERR_NOMEM) return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        failed++;
        if (used < sizeof(why)) {
            char reason[96];
            int w;
            short_reason(&e, reason, sizeof(reason));
            w = snprintf(why + used, sizeof(why) - used, "%s%s %s", used ? "; " : "", dl_conn_endpoint(c), reason);
            if (w > 0) used += (size_t)w;
        }
    }
    if (unknown > 0) {
        /* The name is wrong, or not monitored by these sentinels: asking again will not help. */
        return dl_error_set(err, DL_ERR_CONNECT, "Sentinel: each sentinel that answered (%zu of %zu) does not know master"
                            " '%.60s'%s%s%s", unknown, s->n, s->name, failed ? "; the others failed (" : "", why,
                            failed ? ")" : "");
    }
    return dl_error_set(err, DL_ERR_CONNECT, "Sentinel: no sentinel answered for master '%.60s' (%zu tried: %s)",
                        s->name, s->n, why);
}

dl_conn_t *dl_sentinel_conn_new(dl_sentinel_t *s, dl_server_config_t *master_cfg, dl_error_t *err)
{
    dl_conn_t *c;
    if (master_cfg->unix_path) {
        dl_server_config_free(master_cfg);
        dl_error_set(err, DL_ERR_ARG, "Sentinel: the master is found by host and port, not a unix socket");
        return NULL;
    }
    if (!(c = dl_conn_new(master_cfg, err))) return NULL;
    dl_conn_set_resolver(c, dl_sentinel_resolve, s);
    return c;
}
