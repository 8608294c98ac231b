/* POSIX.1-2008, before any system header: the build passes no feature macro
 * (docs/decisions/0036-platform-calls-chosen-by-configure.md). */
#define _POSIX_C_SOURCE 200809L

#include "dl_cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/dl_clock.h"
#include "../base/dl_obs.h"

/* One node connection (a master, a seed, or a node an ASK named). */
typedef struct cl_node {
    char host[DL_SLOT_HOST_MAX];
    int port;
    void *handle;
    dl_transport_t t;
} cl_node_t;

struct dl_cluster {
    dl_cluster_node_ops_t ops;
    int tls;
    dl_slot_node_t *seeds;
    size_t nseeds;
    cl_node_t **conns;          /* every connection made, in order (pointers stay put) */
    size_t nconns;
    dl_slot_map_t map;
    int *conn_of;               /* map node index -> conns index, or -1 (opened on first use) */
    size_t conn_of_len;
    unsigned char *serves;      /* map node index -> serves a slot (for caps); NULL: to compute */
    int loaded;                 /* a map was loaded once */
    int stale;                  /* reload the map before the next call */
    dl_cluster_stats_t stats;
    char endpoint[DL_SLOT_HOST_MAX + 64];
};

/* ---- nodes ----------------------------------------------------------- */

/* Index in c->conns of the connection to host:port, made when missing; -1 with err set. */
static int conn_get(dl_cluster_t *c, const char *host, int port, dl_error_t *err)
{
    size_t i, hlen = strlen(host);
    cl_node_t *n, **grown;
    for (i = 0; i < c->nconns; i++) {
        if (c->conns[i]->port == port && strcmp(c->conns[i]->host, host) == 0) return (int)i;
    }
    if (hlen >= DL_SLOT_HOST_MAX) {
        dl_error_set(err, DL_ERR_ARG, "Redis Cluster: host name too long");
        return -1;
    }
    n = calloc(1, sizeof(*n));
    grown = n ? realloc(c->conns, (c->nconns + 1) * sizeof(*grown)) : NULL;
    if (!grown) {
        free(n);
        dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        return -1;
    }
    c->conns = grown;
    memcpy(n->host, host, hlen + 1);
    n->port = port;
    n->handle = c->ops.open(c->ops.arg, host, port, &n->t, err);
    if (!n->handle) {
        free(n);
        return -1;
    }
    c->conns[c->nconns] = n;
    return (int)c->nconns++;
}

/* The connection serving map node idx; -1 with err set. */
static int conn_of_node(dl_cluster_t *c, size_t idx, dl_error_t *err)
{
    int k;
    if (c->conn_of[idx] >= 0) return c->conn_of[idx];
    k = conn_get(c, c->map.nodes[idx].host, c->map.nodes[idx].port, err);
    if (k >= 0) c->conn_of[idx] = k;
    return k;
}

/* Sizes conn_of to the map's node list, new entries -1. 0 when out of memory. */
static int conn_of_grow(dl_cluster_t *c)
{
    int *grown;
    size_t i;
    if (c->conn_of_len >= c->map.nnodes) return 1;
    grown = realloc(c->conn_of, c->map.nnodes * sizeof(*grown));
    if (!grown) return 0;
    for (i = c->conn_of_len; i < c->map.nnodes; i++) grown[i] = -1;
    c->conn_of = grown;
    c->conn_of_len = c->map.nnodes;
    return 1;
}

/* ---- the slot map ---------------------------------------------------- */

static void update_endpoint(dl_cluster_t *c, const char *host, int port)
{
    char ep[DL_SLOT_HOST_MAX + 8];
    dl_endpoint_format(ep, sizeof(ep), host, port);
    if (c->loaded) {
        size_t m = dl_slot_map_masters(&c->map);
        snprintf(c->endpoint, sizeof(c->endpoint), "cluster of %zu master%s via %s", m, m == 1 ? "" : "s", ep);
    } else {
        snprintf(c->endpoint, sizeof(c->endpoint), "cluster via %s", ep);
    }
}

/* Asks node n for the map (SHARDS, then SLOTS when refused); fills *m. */
static dl_status_t ask_map(dl_cluster_t *c, cl_node_t *n, dl_slot_map_t *m, dl_error_t *err)
{
    static const char *const shards[2] = {"CLUSTER", "SHARDS"}, *const slots[2] = {"CLUSTER", "SLOTS"};
    static const size_t lens[2] = {7, 6}, slens[2] = {7, 5};
    dl_cmd_t cmd = {2, shards, lens};
    dl_reply_t r;
    dl_status_t st;
    int was = dl_obs_discovery(1);   /* an observer's event names the node that holds the key */

    st = n->t.call(n->t.impl, 1, &cmd, &r, 0, err);
    if (st == DL_OK) st = dl_slot_map_from_shards(m, &r, n->host, c->tls, err);
    dl_reply_free(&r);
    if (st == DL_ERR_SERVER) {
        cmd.argv = slots;
        cmd.argvlen = slens;
        st = n->t.call(n->t.impl, 1, &cmd, &r, 0, err);
        if (st == DL_OK) st = dl_slot_map_from_slots(m, &r, n->host, err);
        dl_reply_free(&r);
    }
    dl_obs_discovery(was);
    return st;
}

dl_status_t dl_cluster_refresh(dl_cluster_t *c, dl_error_t *err)
{
    dl_status_t st = dl_error_set(err, DL_ERR_CONNECT, "Redis Cluster: no node to ask for the slot map");
    size_t i, ncand = c->map.nnodes + c->nseeds;
    int *tried;

    /* The masters of the current map first (after a failover the seed may be
     * the one that died), then the seeds. Each connection is asked once. */
    tried = calloc(ncand + c->nconns + 1, sizeof(*tried));
    if (!tried) return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
    for (i = 0; i < ncand; i++) {
        const char *host = i < c->map.nnodes ? c->map.nodes[i].host : c->seeds[i - c->map.nnodes].host;
        int port = i < c->map.nnodes ? c->map.nodes[i].port : c->seeds[i - c->map.nnodes].port;
        dl_slot_map_t m;
        dl_error_t e;
        int k = conn_get(c, host, port, &e);
        if (k < 0) {
            if (e.code == DL_ERR_NOMEM) {
                st = dl_error_set(err, e.code, "%s", e.msg);
                break;
            }
            continue;
        }
        if (tried[k]) continue;
        tried[k] = 1;
        dl_slot_map_init(&m);
        st = ask_map(c, c->conns[k], &m, err);
        if (st != DL_OK) continue;
        dl_slot_map_free(&c->map);
        c->map = m;
        free(c->serves);
        c->serves = NULL;
        for (i = 0; i < c->conn_of_len; i++) c->conn_of[i] = -1;
        if (!conn_of_grow(c)) {
            st = dl_error_set(err, DL_ERR_NOMEM, "out of memory");
            break;
        }
        c->loaded = 1;
        c->stale = 0;
        c->stats.map_loads++;
        update_endpoint(c, c->conns[k]->host, c->conns[k]->port);
        free(tried);
        dl_error_clear(err);
        return DL_OK;
    }
    free(tried);
    return st;
}

/* ---- routing --------------------------------------------------------- */

static int cmd_is(const dl_cmd_t *cmd, const char *name)
{
    size_t n = strlen(name);
    return cmd->argvlen[0] == n && strncasecmp(cmd->argv[0], name, n) == 0;
}

/* The key of a command, or NULL for a command without one. */
static const char *cmd_key(const dl_cmd_t *cmd, size_t *len)
{
    static const char *const keyless[] = {"SCRIPT", "PING", "WAIT", "WAITAOF", "ECHO", "INFO", "CLUSTER", "CLIENT",
                                          "CONFIG", "COMMAND", "HELLO", "AUTH", "SELECT", "TIME", "FUNCTION",
                                          "ASKING", "READONLY", "READWRITE", "DEBUG", "MULTI", "EXEC", "DISCARD"};
    size_t i;
    if (cmd->argc < 1) return NULL;
    for (i = 0; i < sizeof(keyless) / sizeof(keyless[0]); i++) {
        if (cmd_is(cmd, keyless[i])) return NULL;
    }
    if (cmd_is(cmd, "EVAL") || cmd_is(cmd, "EVALSHA") || cmd_is(cmd, "EVAL_RO") || cmd_is(cmd, "EVALSHA_RO") ||
        cmd_is(cmd, "FCALL") || cmd_is(cmd, "FCALL_RO")) {
        char buf[12];
        size_t nl = cmd->argc >= 3 ? cmd->argvlen[2] : 0;
        if (cmd->argc < 4 || nl == 0 || nl >= sizeof(buf)) return NULL;
        memcpy(buf, cmd->argv[2], nl);
        buf[nl] = '\0';
        if (atoi(buf) <= 0) return NULL;
        *len = cmd->argvlen[3];
        return cmd->argv[3];
    }
    if (cmd->argc < 2) return NULL;
    *len = cmd->argvlen[1];
    return cmd->argv[1];
}

/* Per-command routing state of one call. */
typedef struct {
    int target;        /* conns index */
    int slot;          /* -1: keyless */
    int leader;        /* keyless: the command it follows (-1: none) */
    unsigned char asking, done;
    unsigned redirects;
} route_t;

/* The connection of a slot by the map (an unserved slot: the first master; it will redirect). */
static int target_of_slot(dl_cluster_t *c, int slot, dl_error_t *err)
{
    size_t i;
    if (slot >= 0 && c->map.owner[slot] != DL_SLOT_NONE) return conn_of_node(c, c->map.owner[slot], err);
    for (i = 0; i < DL_SLOTS; i++) {
        if (c->map.owner[i] != DL_SLOT_NONE) return conn_of_node(c, c->map.owner[i], err);
    }
    return dl_error_set(err, DL_ERR_PROTOCOL, "Redis Cluster: the slot map is empty"), -1;
}

/* Targets every command not done by the map (keyless ones follow their leader). */
static dl_status_t route_all(dl_cluster_t *c, size_t n, route_t *rt, dl_error_t *err)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (rt[i].done || rt[i].asking) continue;
        if (rt[i].slot >= 0 || rt[i].leader < 0) {
            rt[i].target = target_of_slot(c, rt[i].slot, err);
            if (rt[i].target < 0) return err ? err->code : DL_ERR_NOMEM;
        }
    }
    for (i = 0; i < n; i++) {
        if (!rt[i].done && rt[i].slot < 0 && rt[i].leader >= 0) rt[i].target = rt[rt[i].leader].target;
    }
    return DL_OK;
}

/* Sends the pending commands of connection k as one pipeline and stores their replies. */
static dl_status_t send_group(dl_cluster_t *c, int k, size_t n, const dl_cmd_t *cmds, route_t *rt,
                              dl_reply_t *replies, int64_t extra_timeout_us, dl_error_t *err)
{
    static const char *const asking_argv[1] = {"ASKING"};
    static const size_t asking_len[1] = {6};
    size_t i, w = 0, nw = 0;
    dl_cmd_t *wire;
    dl_reply_t *wr;
    dl_status_t st;
    cl_node_t *node = c->conns[k];

    for (i = 0; i < n; i++) {
        if (!rt[i].done && rt[i].target == k) nw += 1 + rt[i].asking;
    }
    wire = malloc(nw * sizeof(*wire));
    wr = calloc(nw, sizeof(*wr));
    if (!wire || !wr) {
        free(wire);
        free(wr);
        return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
    }
    for (i = 0; i < n; i++) {
        if (rt[i].done || rt[i].target != k) continue;
        if (rt[i].asking) {
            wire[w].argc = 1;
            wire[w].argv = asking_argv;
            wire[w++].argvlen = asking_len;
        }
        wire[w++] = cmds[i];
    }
    st = node->t.call(node->t.impl, nw, wire, wr, extra_timeout_us, err);
    if (st == DL_OK) {
        w = 0;
        for (i = 0; i < n; i++) {
            if (rt[i].done || rt[i].target != k) continue;
            if (rt[i].asking) dl_reply_free(&wr[w++]);   /* +OK of ASKING */
            dl_reply_free(&replies[i]);
            replies[i] = wr[w];
            memset(&wr[w++], 0, sizeof(wr[0]));
            rt[i].asking = 0;
            rt[i].done = 2;   /* answered this round; classified by the caller */
        }
    } else {
        c->stale = 1;   /* a failover may be under way */
    }
    for (i = 0; i < nw; i++) dl_reply_free(&wr[i]);
    free(wr);
    free(wire);
    return st;
}

/* Acts on the reply of command i (rt[i].done == 2). Returns 1 when it must be sent again,
 * 2 when again after a pause, 3 after a pause and a map reload. */
static int classify(dl_cluster_t *c, size_t i, route_t *rt, dl_reply_t *reply)
{
    dl_redirect_t rd;
    dl_error_t e;
    int k, idx;

    rt[i].done = 1;
    switch (dl_redirect_parse(reply, &rd)) {
    case DL_REDIR_NONE:
        return 0;
    case DL_REDIR_UNBLOCKED:
        /* The node is no longer the master: the block ended without a value. */
        dl_reply_free(reply);
        c->stale = 1;
        c->stats.unblocked++;
        return 0;
    case DL_REDIR_MOVED:
    case DL_REDIR_ASK:
        if (rt[i].redirects >= DL_CLUSTER_MAX_REDIRECTS) return 0;
        if (rd.host[0] == '\0') {   /* the node does not know its address: the one we asked */
            memcpy(rd.host, c->conns[rt[i].target]->host, sizeof(rd.host));
        }
        k = conn_get(c, rd.host, rd.port, &e);
        if (k < 0) return 0;   /* the redirection cannot be followed: the caller sees it */
        rt[i].redirects++;
        rt[i].target = k;
        rt[i].done = 0;
        if (rd.kind == DL_REDIR_ASK) {
            rt[i].asking = 1;
            c->stats.asks++;
        } else {
            idx = dl_slot_map_node(&c->map, rd.host, strlen(rd.host), rd.port);
            if (idx >= 0 && conn_of_grow(c)) {
                c->conn_of[idx] = k;
                c->map.owner[rd.slot] = (uint16_t)idx;
                free(c->serves);
                c->serves = NULL;
            }
            c->stale = 1;
            c->stats.moved++;
        }
        dl_obs_redirected();   /* an observer's event names the node that answers next */
        return 1;
    case DL_REDIR_TRYAGAIN:
    case DL_REDIR_CLUSTERDOWN:
    case DL_REDIR_READONLY:
        /* Bounded by the call's deadline, not by a count: a script whose keys
         * are split by a migration gets TRYAGAIN until the migration ends. */
        rt[i].done = 0;
        c->stats.retries++;
        dl_obs_redirected();
        if (rd.kind == DL_REDIR_TRYAGAIN) return 2;
        c->stale = 1;
        return 3;
    }
    return 0;
}

static dl_status_t cl_call(void *impl, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies, int64_t extra_timeout_us,
                           dl_error_t *err)
{
    dl_cluster_t *c = impl;
    route_t *rt;
    size_t i, j;
    int last = -1, pending;
    int64_t deadline_ns = 0, backoff_us = DL_CLUSTER_BACKOFF_MIN_US;
    dl_status_t st = DL_OK;

    for (i = 0; i < n; i++) memset(&replies[i], 0, sizeof(replies[i]));
    if (n == 0) return DL_OK;
    if (!c->loaded || c->stale) {
        st = dl_cluster_refresh(c, err);
        if (st != DL_OK && !c->loaded) return st;   /* with an old map: carry on, the nodes redirect */
    }
    rt = calloc(n, sizeof(*rt));
    if (!rt) return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
    for (i = 0; i < n; i++) {
        size_t klen = 0;
        const char *key = cmd_key(&cmds[i], &klen);
        rt[i].slot = key ? (int)dl_slot_of(key, klen) : -1;
        rt[i].leader = -1;
        if (key) last = (int)i;
        else rt[i].leader = last;
    }
    /* A keyless command before any keyed one follows the next keyed one. */
    for (i = n; i-- > 0;) {
        if (rt[i].slot >= 0) last = (int)i;
        else if (rt[i].leader < 0) rt[i].leader = last;
    }
    /* (A leader after it runs after it: fine for SCRIPT LOAD or PING, which
     * only need the right node.) */
    st = route_all(c, n, rt, err);
    if (st == DL_OK) {
        /* TRYAGAIN/CLUSTERDOWN are retried for one read timeout from here. */
        const cl_node_t *first = c->conns[rt[0].target];
        int64_t budget_us = c->ops.timeout_us ? c->ops.timeout_us(c->ops.arg, first->handle) : 1000000;
        deadline_ns = dl_clock_now_ns() + budget_us * 1000;
    }
    for (;;) {
        int again = 0;
        if (st != DL_OK) break;
        /* One pipeline per connection, in the order of first appearance. */
        for (i = 0; i < n && st == DL_OK; i++) {
            int k = rt[i].target, seen = 0;
            if (rt[i].done) continue;
            for (j = 0; j < i; j++) seen |= !rt[j].done && rt[j].target == k;
            if (seen) continue;
            st = send_group(c, k, n, cmds, rt, replies, extra_timeout_us, err);
        }
        if (st != DL_OK) break;
        for (i = 0; i < n; i++) {
            if (rt[i].done == 2) {
                int r = classify(c, i, rt, &replies[i]);
                if (r > again) again = r;
            }
        }
        /* A keyless command behind a command that must be sent again goes again behind it. */
        for (i = 0; i < n; i++) {
            int l = rt[i].leader;
            if (rt[i].slot < 0 && l >= 0 && (size_t)l < i && !rt[l].done && rt[i].done) {
                rt[i].done = 0;
                rt[i].asking = 0;
                rt[i].target = rt[l].target;
                if (!again) again = 1;
            }
        }
        pending = 0;
        for (i = 0; i < n; i++) pending |= !rt[i].done;
        if (!pending) break;
        if (again >= 2) {
            int64_t now = dl_clock_now_ns();
            if (now + backoff_us * 1000 > deadline_ns) {
                /* Out of time: the error replies go to the caller as they came. */
                for (i = 0; i < n; i++) rt[i].done = 1;
                break;
            }
            dl_clock_sleep_us(backoff_us);
            backoff_us = backoff_us * 2 > DL_CLUSTER_BACKOFF_MAX_US ? DL_CLUSTER_BACKOFF_MAX_US : backoff_us * 2;
            if (again == 3) {
                dl_error_t e;
                (void)dl_cluster_refresh(c, &e);   /* a failure keeps the old map: the nodes redirect */
            }
            /* After a pause, by the (maybe new) map: an ASK target may be stale by
             * now. The redirect count guards against loops without pauses: a
             * pause starts it again (ASK, then TRYAGAIN at the target, is how a
             * script on a slot being migrated waits for the end of it). */
            for (i = 0; i < n; i++) {
                if (!rt[i].done) rt[i].asking = 0;
                rt[i].redirects = 0;
            }
            st = route_all(c, n, rt, err);
        }
    }
    free(rt);
    return st;
}

/* ---- capabilities ---------------------------------------------------- */

/* The capabilities every master of the map has (none while any master's are not
 * known), and always DL_CAP_CLUSTER. */
static unsigned cl_caps(void *impl)
{
    dl_cluster_t *c = impl;
    unsigned all = ~0u;
    size_t i;
    int any = 0;
    if (!c->serves && c->map.nnodes) {
        c->serves = calloc(c->map.nnodes, 1);
        if (!c->serves) return DL_CAP_CLUSTER;
        for (i = 0; i < DL_SLOTS; i++) {
            if (c->map.owner[i] != DL_SLOT_NONE) c->serves[c->map.owner[i]] = 1;
        }
    }
    for (i = 0; i < c->map.nnodes; i++) {
        int k = i < c->conn_of_len ? c->conn_of[i] : -1;
        unsigned caps;
        if (!c->serves[i]) continue;
        if (k < 0 || !c->conns[k]->t.caps) return DL_CAP_CLUSTER;
        caps = c->conns[k]->t.caps(c->conns[k]->t.impl);
        if (!(caps & DL_CAP_KNOWN)) return DL_CAP_CLUSTER;
        all &= caps;
        any = 1;
    }
    return (any ? all : 0) | DL_CAP_CLUSTER;
}

static void cl_caps_clear(void *impl, unsigned bits)
{
    dl_cluster_t *c = impl;
    size_t i;
    for (i = 0; i < c->nconns; i++) {
        if (c->conns[i]->t.caps_clear) c->conns[i]->t.caps_clear(c->conns[i]->t.impl, bits);
    }
}

/* ---- lifecycle ------------------------------------------------------- */

dl_cluster_t *dl_cluster_new_with(const dl_cluster_node_ops_t *ops, const dl_slot_node_t *seeds, size_t nseeds,
                                  int tls, dl_error_t *err)
{
    dl_cluster_t *c;
    size_t i;
    if (nseeds == 0) {
        if (ops->free_arg) ops->free_arg(ops->arg);
        dl_error_set(err, DL_ERR_ARG, "Redis Cluster: no seed node");
        return NULL;
    }
    for (i = 0; i < nseeds; i++) {
        if (strnlen(seeds[i].host, DL_SLOT_HOST_MAX) >= DL_SLOT_HOST_MAX) {
            if (ops->free_arg) ops->free_arg(ops->arg);
            dl_error_set(err, DL_ERR_ARG, "Redis Cluster: seed host name too long");
            return NULL;
        }
    }
    c = calloc(1, sizeof(*c));
    if (c) c->seeds = malloc(nseeds * sizeof(*seeds));
    if (!c || !c->seeds) {
        free(c);
        if (ops->free_arg) ops->free_arg(ops->arg);
        dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        return NULL;
    }
    memcpy(c->seeds, seeds, nseeds * sizeof(*seeds));
    c->nseeds = nseeds;
    c->ops = *ops;
    c->tls = tls;
    dl_slot_map_init(&c->map);
    update_endpoint(c, seeds[0].host, seeds[0].port);   /* not loaded yet: "cluster via host:port" */
    return c;
}

void dl_cluster_free(dl_cluster_t *c)
{
    size_t i;
    if (!c) return;
    for (i = 0; i < c->nconns; i++) {
        c->ops.free(c->ops.arg, c->conns[i]->handle);
        free(c->conns[i]);
    }
    if (c->ops.free_arg) c->ops.free_arg(c->ops.arg);
    free(c->conns);
    free(c->conn_of);
    free(c->serves);
    free(c->seeds);
    dl_slot_map_free(&c->map);
    free(c);
}

void dl_cluster_abandon(dl_cluster_t *c)
{
    size_t i;
    if (!c) return;
    for (i = 0; i < c->nconns; i++) {
        if (c->ops.abandon) c->ops.abandon(c->ops.arg, c->conns[i]->handle);
    }
}

void dl_cluster_check_idle(dl_cluster_t *c)
{
    size_t i;
    for (i = 0; i < c->nconns; i++) {
        if (c->ops.check_idle) c->ops.check_idle(c->ops.arg, c->conns[i]->handle);
    }
}

dl_transport_t dl_cluster_transport(dl_cluster_t *c)
{
    dl_transport_t t;
    memset(&t, 0, sizeof(t));
    t.call = cl_call;
    t.caps = cl_caps;
    t.caps_clear = cl_caps_clear;
    t.impl = c;
    t.endpoint = c->endpoint;
    return t;
}

const char *dl_cluster_endpoint(const dl_cluster_t *c)
{
    return c->endpoint;
}

size_t dl_cluster_masters(const dl_cluster_t *c)
{
    return dl_slot_map_masters(&c->map);
}

const dl_slot_map_t *dl_cluster_map(const dl_cluster_t *c)
{
    return &c->map;
}

void dl_cluster_get_stats(const dl_cluster_t *c, dl_cluster_stats_t *out)
{
    *out = c->stats;
}
