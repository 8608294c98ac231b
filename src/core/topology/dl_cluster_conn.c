/* POSIX.1-2008, before any system header: the build passes no feature macro
 * (docs/decisions/0036-platform-calls-chosen-by-configure.md). */
#define _POSIX_C_SOURCE 200809L

/*
 * dl_cluster_conn — dl_cluster's node connections made with dl_conn.
 *
 * Kept apart from dl_cluster.c so that the router itself links without
 * hiredis (its unit tests pass fake nodes to dl_cluster_new_with).
 */
#include "dl_cluster.h"

#include <stdlib.h>
#include <string.h>

#include "../transport/dl_conn.h"

/* The seed's configuration, the template of every node (host and port replaced). */
typedef struct {
    dl_server_config_t tmpl;
} conn_factory_t;

static void *node_open(void *arg, const char *host, int port, dl_transport_t *t, dl_error_t *err)
{
    conn_factory_t *f = arg;
    dl_server_config_t cfg;
    dl_conn_t *conn;
    char *h;
    if (dl_server_config_copy(&cfg, &f->tmpl) != DL_OK || !(h = strdup(host))) {
        dl_server_config_free(&cfg);
        dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        return NULL;
    }
    free(cfg.host);
    cfg.host = h;
    cfg.port = port;
    conn = dl_conn_new(&cfg, err);   /* takes cfg over, also on failure */
    if (!conn) return NULL;
    *t = dl_conn_transport(conn);
    return conn;
}

static void node_free(void *arg, void *node)
{
    (void)arg;
    dl_conn_free(node);
}

static void node_abandon(void *arg, void *node)
{
    (void)arg;
    dl_conn_abandon(node);
}

static void node_check_idle(void *arg, void *node)
{
    (void)arg;
    dl_conn_check_idle(node);
}

static int64_t node_timeout_us(void *arg, void *node)
{
    (void)arg;
    return dl_conn_timeout_us(node);
}

static void factory_free(void *arg)
{
    conn_factory_t *f = arg;
    if (!f) return;
    dl_server_config_free(&f->tmpl);
    free(f);
}

dl_cluster_t *dl_cluster_new(dl_server_config_t *seeds, size_t nseeds, dl_error_t *err)
{
    dl_cluster_node_ops_t ops = {node_open, node_free, node_abandon, node_check_idle, node_timeout_us,
                                 factory_free, NULL};
    dl_slot_node_t *nodes = NULL;
    conn_factory_t *f = NULL;
    dl_cluster_t *c = NULL;
    size_t i;

    if (nseeds == 0) {
        dl_error_set(err, DL_ERR_ARG, "Redis Cluster: no seed node");
        goto out;
    }
    for (i = 0; i < nseeds; i++) {
        if (seeds[i].unix_path || !seeds[i].host) {
            dl_error_set(err, DL_ERR_ARG, "Redis Cluster: a seed must be a host and port, not a unix socket");
            goto out;
        }
        if (seeds[i].has_db && seeds[i].db != 0) {
            dl_error_set(err, DL_ERR_ARG, "Redis Cluster: only database 0 exists in a cluster (got %d)", seeds[i].db);
            goto out;
        }
        if (strlen(seeds[i].host) >= DL_SLOT_HOST_MAX) {
            dl_error_set(err, DL_ERR_ARG, "Redis Cluster: seed host name too long");
            goto out;
        }
    }
    nodes = calloc(nseeds, sizeof(*nodes));
    f = calloc(1, sizeof(*f));
    if (!nodes || !f || dl_server_config_copy(&f->tmpl, &seeds[0]) != DL_OK) {
        dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (i = 0; i < nseeds; i++) {
        memcpy(nodes[i].host, seeds[i].host, strlen(seeds[i].host) + 1);
        nodes[i].port = seeds[i].port;
    }
    ops.arg = f;
    f = NULL;   /* the router owns it now, also when dl_cluster_new_with fails */
    c = dl_cluster_new_with(&ops, nodes, nseeds, seeds[0].tls, err);
out:
    factory_free(f);
    free(nodes);
    for (i = 0; i < nseeds; i++) dl_server_config_free(&seeds[i]);
    return c;
}
