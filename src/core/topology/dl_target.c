/* POSIX.1-2008, before any system header: the build passes no feature macro
 * (docs/decisions/0036-platform-calls-chosen-by-configure.md). */
#define _POSIX_C_SOURCE 200809L

#include "dl_target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/dl_clock.h"
#include "../base/dl_hashslot.h"
#include "../lease/dl_multi.h"
#include "../lease/dl_replicas.h"
#include "../lease/dl_rwlock.h"
#include "dl_cluster.h"
#include "../transport/dl_conn.h"
#include "../transport/dl_pending.h"
#include "dl_quorum.h"
#include "dl_sentinel.h"

struct dl_target {
    dl_target_config_t cfg;     /* a copy: the connections own theirs */
    size_t n;
    dl_conn_t **conn;           /* n */
    dl_quorum_t quorum;         /* Redlock: one node per connection */
    dl_transport_t single;      /* SINGLE, SENTINEL: the transport of conn[0] */
    dl_sentinel_t *sentinel;    /* SENTINEL: the resolver conn[0] asks (outlives it) */
    dl_cluster_t *cluster;      /* CLUSTER: the router (single is its transport) */
};

static void bound_begin(const dl_target_t *tg, int64_t wait_us, dl_call_bound_t *saved);
static void bound_begin_lease(const dl_target_t *tg, int64_t wait_us, const dl_lease_t *lease, dl_call_bound_t *saved);

/* ---- configurations ------------------------------------------------------ */

void dl_target_config_free(dl_target_config_t *cfg)
{
    size_t i;
    for (i = 0; cfg->servers && i < cfg->n; i++) dl_server_config_free(&cfg->servers[i]);
    free(cfg->servers);
    free(cfg->service);
    dl_server_config_free(&cfg->master);
    memset(cfg, 0, sizeof(*cfg));
}

dl_status_t dl_target_config_copy(dl_target_config_t *dst, const dl_target_config_t *src)
{
    size_t i;
    memset(dst, 0, sizeof(*dst));
    dst->kind = src->kind;
    dst->servers = calloc(src->n ? src->n : 1, sizeof(*dst->servers));
    if (!dst->servers) return DL_ERR_NOMEM;
    for (i = 0; i < src->n; i++) {
        if (dl_server_config_copy(&dst->servers[i], &src->servers[i]) != DL_OK) {
            dst->n = i;
            dl_target_config_free(dst);
            return DL_ERR_NOMEM;
        }
    }
    dst->n = src->n;
    if (src->service && !(dst->service = strdup(src->service))) {
        dl_target_config_free(dst);
        return DL_ERR_NOMEM;
    }
    if (src->kind == DL_TARGET_SENTINEL && dl_server_config_copy(&dst->master, &src->master) != DL_OK) {
        dl_target_config_free(dst);
        return DL_ERR_NOMEM;
    }
    return DL_OK;
}

int dl_target_config_same(const dl_target_config_t *a, const dl_target_config_t *b)
{
    size_t i;
    if (a->kind != b->kind || a->n != b->n) return 0;
    for (i = 0; i < a->n; i++) {
        if (!dl_server_config_same(&a->servers[i], &b->servers[i])) return 0;
    }
    if (a->kind == DL_TARGET_SENTINEL) {
        return strcmp(a->service, b->service) == 0 && dl_server_config_same(&a->master, &b->master);
    }
    return 1;
}

/* ---- life cycle -------------------------------------------------------------- */

/* SENTINEL: a resolver over the sentinels, and one connection to whichever node is the master. */
static dl_target_t *sentinel_new(dl_target_config_t *cfg, dl_error_t *err)
{
    dl_target_t *tg = calloc(1, sizeof(*tg));
    if (tg) tg->conn = calloc(1, sizeof(*tg->conn));
    if (!tg || !tg->conn || dl_target_config_copy(&tg->cfg, cfg) != DL_OK) {
        if (tg) free(tg->conn);
        free(tg);
        dl_target_config_free(cfg);
        dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        return NULL;
    }
    tg->sentinel = dl_sentinel_new(cfg->service, strlen(cfg->service), cfg->servers, cfg->n, err);
    if (tg->sentinel) tg->conn[0] = dl_sentinel_conn_new(tg->sentinel, &cfg->master, err);
    dl_target_config_free(cfg);
    if (!tg->conn[0]) {
        dl_target_free(tg);
        return NULL;
    }
    tg->n = 1;
    tg->single = dl_conn_transport(tg->conn[0]);
    return tg;
}

/* CLUSTER: a router over the seeds; it learns the masters from them (lazily). */
static dl_target_t *cluster_new(dl_target_config_t *cfg, dl_error_t *err)
{
    dl_target_t *tg = calloc(1, sizeof(*tg));
    if (!tg || dl_target_config_copy(&tg->cfg, cfg) != DL_OK) {
        free(tg);
        dl_target_config_free(cfg);
        dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        return NULL;
    }
    tg->cluster = dl_cluster_new(cfg->servers, cfg->n, err);   /* takes the seeds over */
    dl_target_config_free(cfg);
    if (!tg->cluster) {
        dl_target_free(tg);
        return NULL;
    }
    tg->single = dl_cluster_transport(tg->cluster);
    return tg;
}

dl_target_t *dl_target_new(dl_target_config_t *cfg, dl_error_t *err)
{
    dl_target_t *tg;
    size_t i;

    if (cfg->kind == DL_TARGET_SENTINEL) return sentinel_new(cfg, err);
    if (cfg->kind == DL_TARGET_CLUSTER) return cluster_new(cfg, err);

    if (cfg->n == 0 || (cfg->kind == DL_TARGET_SINGLE && cfg->n != 1) ||
        (cfg->kind == DL_TARGET_REDLOCK && (cfg->n < DL_QUORUM_MIN_NODES || cfg->n > DL_QUORUM_MAX_NODES))) {
        dl_error_set(err, DL_ERR_ARG, cfg->kind == DL_TARGET_REDLOCK ? "Redlock needs between %d and %d masters, %zu given"
                                                                     : "one server (%d..%d masters are Redlock), %zu given",
                     DL_QUORUM_MIN_NODES,
                     DL_QUORUM_MAX_NODES, cfg->n);
        dl_target_config_free(cfg);
        return NULL;
    }
    tg = calloc(1, sizeof(*tg));
    if (tg) tg->conn = calloc(cfg->n, sizeof(*tg->conn));
    if (tg && cfg->kind == DL_TARGET_REDLOCK) tg->quorum.node = calloc(cfg->n, sizeof(*tg->quorum.node));
    if (!tg || !tg->conn || (cfg->kind == DL_TARGET_REDLOCK && !tg->quorum.node) ||
        dl_target_config_copy(&tg->cfg, cfg) != DL_OK) {
        if (tg) {
            free(tg->conn);
            free(tg->quorum.node);
            free(tg);
        }
        dl_target_config_free(cfg);
        dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (i = 0; i < cfg->n; i++) {
        tg->conn[i] = dl_conn_new(&cfg->servers[i], err);   /* takes servers[i] over */
        if (!tg->conn[i]) {
            dl_target_config_free(cfg);
            dl_target_free(tg);
            return NULL;
        }
        tg->n++;
    }
    dl_target_config_free(cfg);
    if (tg->cfg.kind == DL_TARGET_REDLOCK) {
        tg->quorum.n = tg->n;
        for (i = 0; i < tg->n; i++) {
            int64_t t = dl_conn_timeout_us(tg->conn[i]);
            tg->quorum.node[i].t = dl_conn_transport(tg->conn[i]);
            if (tg->quorum.timeout_us == 0 || t < tg->quorum.timeout_us) tg->quorum.timeout_us = t;
        }
    } else {
        tg->single = dl_conn_transport(tg->conn[0]);
    }
    return tg;
}

void dl_target_free(dl_target_t *tg)
{
    size_t i;
    if (!tg) return;
    for (i = 0; i < tg->n; i++) dl_conn_free(tg->conn[i]);
    dl_sentinel_free(tg->sentinel);   /* after the connection that asks it */
    dl_cluster_free(tg->cluster);
    free(tg->conn);
    free(tg->quorum.node);
    dl_target_config_free(&tg->cfg);
    free(tg);
}

void dl_target_abandon(dl_target_t *tg)
{
    size_t i;
    for (i = 0; tg && i < tg->n; i++) dl_conn_abandon(tg->conn[i]);
    if (tg && tg->cluster) dl_cluster_abandon(tg->cluster);
}

void dl_target_check_idle(dl_target_t *tg)
{
    size_t i;
    for (i = 0; i < tg->n; i++) dl_conn_check_idle(tg->conn[i]);
    if (tg->cluster) dl_cluster_check_idle(tg->cluster);
}

void dl_target_settle(dl_target_t *tg)
{
    size_t i;
    dl_call_bound_t saved;
    bound_begin(tg, 0, &saved);   /* every owed reply within one timeout, not one each */
    for (i = 0; i < tg->n; i++) {
        dl_transport_t t = dl_conn_transport(tg->conn[i]);
        dl_pending_settle(&t);
    }
    dl_call_bound_end(&saved);
}

dl_status_t dl_target_end_request(dl_target_t *tg, size_t n, dl_lease_t *const *leases, int *released,
                                  dl_error_t *err)
{
    dl_call_bound_t saved;
    dl_status_t st = DL_OK;
    /* One bound for both steps: the release's own bound and the settle's
     * (each a `timeout`) nest inside it and never outlast it. Before, a stalled
     * server cost one timeout for the release, then another for the settle,
     * which read the reply of the release's deferred second attempt. */
    bound_begin(tg, 0, &saved);
    if (n > 0) st = dl_target_release_many(tg, n, leases, released, err);
    dl_target_settle(tg);
    dl_call_bound_end(&saved);
    return st;
}

const dl_target_config_t *dl_target_config(const dl_target_t *tg) { return &tg->cfg; }

const char *dl_target_release_path(dl_target_t *tg)
{
    unsigned caps;
    if (tg->cfg.kind == DL_TARGET_REDLOCK) return "script";
    caps = tg->single.caps ? tg->single.caps(tg->single.impl) : 0;
    if (!(caps & DL_CAP_KNOWN)) return "not known yet";
    if (caps & DL_CAP_DELEX) return "native (DELEX)";
    return (caps & DL_CAP_DELIFEQ) ? "native (DELIFEQ)" : "script";
}

/* ---- operations ----------------------------------------------------------------- */

#define REDLOCK(tg) ((tg)->cfg.kind == DL_TARGET_REDLOCK)

/*
 * One bound per call (issue 27.3; dl_clock.h): every operation below runs
 * within the `timeout` option (the servers', or the Sentinel master's), a
 * waiting acquire within max(wait, timeout), whatever round trips, reconnects
 * and retries it owes; what cannot fit goes on without the caller
 * (dl_pending_defer). BOUNDED(tg, wait_us, expr) returns expr run so.
 */
static int64_t call_timeout_us(const dl_target_t *tg)
{
    const dl_server_config_t *c = tg->cfg.kind == DL_TARGET_SENTINEL ? &tg->cfg.master : &tg->cfg.servers[0];
    return c->has_timeout ? c->timeout_us : DL_TIMEOUT_DEFAULT_US;
}

static void bound_begin(const dl_target_t *tg, int64_t wait_us, dl_call_bound_t *saved)
{
    bound_begin_lease(tg, wait_us, NULL, saved);
}

/* With min_replicas, the WAIT that goes with a grant or a refresh may block
 * replica_timeout more than a round trip (dl_replicas_extra_us): the bound is
 * timeout + replica_timeout then, so that a slow replica reads as a
 * ReplicationException, not a timeout. */
static void bound_begin_lease(const dl_target_t *tg, int64_t wait_us, const dl_lease_t *lease, dl_call_bound_t *saved)
{
    int64_t timeout_us = call_timeout_us(tg) + (lease ? dl_replicas_extra_us(lease) : 0);
    if (wait_us > timeout_us) dl_call_bound_begin(saved, wait_us, "max(wait, timeout)");
    else dl_call_bound_begin(saved, timeout_us, lease && dl_replicas_wanted(lease) ? "timeout + replica_timeout" : "timeout");
}

#define BOUNDED_LEASE(tg, wait_us, lease, expr) do {    \
        dl_call_bound_t saved_;                         \
        dl_status_t st_;                                \
        bound_begin_lease((tg), (wait_us), (lease), &saved_); \
        st_ = (expr);                                   \
        dl_call_bound_end(&saved_);                     \
        return st_;                                     \
    } while (0)

#define BOUNDED(tg, wait_us, expr) do {                 \
        dl_call_bound_t saved_;                         \
        dl_status_t st_;                                \
        bound_begin((tg), (wait_us), &saved_);          \
        st_ = (expr);                                   \
        dl_call_bound_end(&saved_);                     \
        return st_;                                     \
    } while (0)

/* Redlock runs the mutex only: its quorum argument is about one exclusive key. */
static dl_status_t redlock_refuses(const char *what, dl_error_t *err)
{
    return dl_error_set(err, DL_ERR_ARG, "%s not offered on Redlock: its quorum argument covers one exclusive key "
                                         "per name (permits or shared holders counted on independent masters can "
                                         "disagree); use one server, Sentinel or Cluster", what);
}

static const char *kind_name(const dl_lease_t *lease)
{
    return lease->kind == DL_LEASE_PERMITS ? "semaphores are" : "shared locks are";
}

dl_status_t dl_target_acquire(dl_target_t *tg, dl_lease_t *lease, const dl_acquire_opts_t *opts,
                              dl_acquire_result_t *res, dl_error_t *err)
{
    if (REDLOCK(tg) && lease->kind != DL_LEASE_EXCLUSIVE) {
        memset(res, 0, sizeof(*res));
        return redlock_refuses(kind_name(lease), err);
    }
    BOUNDED_LEASE(tg, opts->wait_us, lease, REDLOCK(tg) ? dl_quorum_acquire(&tg->quorum, lease, opts, res, err)
                       : dl_lock_acquire(&tg->single, lease, opts, res, err));
}

/*
 * A release that failed on the network (the caller was told so) may still have
 * run: its reply was lost, or its second attempt went on without the caller
 * (dl_script.h, DL_RETRY_ANY) and runs before the next command on that
 * connection. The lease remembers it (release_unsure), and a later release of
 * it that finds the key gone, or handed on, while the lease is still valid
 * counts it as released: the key cannot have expired, and nobody else could
 * have removed it, so the earlier attempt did. This is dl_lock_release's rule
 * for its own second attempt
 * (docs/decisions/0010-key-gone-while-valid-counts-as-released.md), carried
 * across calls: without it, a release() retried after a ConnectionException
 * reported the lease lost when the first one's deferred attempt had ended it.
 */
static void release_outcome(dl_lease_t *lease, dl_status_t st, int *released)
{
    if (st == DL_OK) {
        if (!*released && dl_lease_gone_by_our_release(lease)) *released = 1;
    } else if (dl_status_is_transport_failure(st) || st == DL_ERR_QUORUM) {
        /* written, outcome unknown (a refused connect wrote nothing: DL_ERR_CONNECT);
         * Redlock: the masters that answered may have released (flagged even when
         * none was reached: a key found gone then went by a forced release or a
         * server's data loss, which the rule cannot tell from ours) */
        lease->release_unsure = 1;
    }
}

/*
 * A call on a connection whose HELLO had not answered yet (a fresh one: its
 * HELLO and the scripting probe ride in front of the call) chose its
 * commands blind, and took the script where the plain commands would do.
 * Where the server denies this user scripts, the probe tells, and the
 * script is refused having run nothing (DL_ERR_DENIED): the call is made
 * once more, now choosing what the server allows (issue 45.1). Where
 * scripting is allowed nothing is redone, so no call gains a round trip.
 * One server and Sentinel. On Cluster the caps are known once every master's
 * connection has answered (dl_cluster.c, cl_caps), so a first call there is
 * not redone; Redlock's fan-out does not offer the plain mutex
 * (docs/decisions/0061-the-first-call-chooses-before-hello.md).
 */
static int chosen_blind(const dl_transport_t *t)
{
    return !((t->caps ? t->caps(t->impl) : 0) & DL_CAP_KNOWN);
}

#define REDONE_IF_BLIND(t, call)                                        \
    do {                                                                \
        int blind_ = chosen_blind(t);                                   \
        dl_status_t st_ = (call);                                       \
        if (st_ == DL_ERR_DENIED && blind_ && !chosen_blind(t)) st_ = (call); \
        return st_;                                                     \
    } while (0)

static dl_status_t release_single(dl_target_t *tg, dl_lease_t *lease, int *released, dl_error_t *err)
{
    REDONE_IF_BLIND(&tg->single, dl_lock_release(&tg->single, lease, released, err));
}

static dl_status_t refresh_single(dl_target_t *tg, dl_lease_t *lease, int64_t ttl_ms, int *extended, dl_error_t *err)
{
    REDONE_IF_BLIND(&tg->single, dl_lock_refresh(&tg->single, lease, ttl_ms, extended, err));
}

static dl_status_t status_single(dl_target_t *tg, const dl_lease_t *lease, int64_t *pttl_ms, dl_error_t *err)
{
    REDONE_IF_BLIND(&tg->single, dl_lock_status(&tg->single, lease, pttl_ms, err));
}

static dl_status_t inspect_single(dl_target_t *tg, const dl_lease_t *lease, dl_lock_info_t *info, dl_error_t *err)
{
    REDONE_IF_BLIND(&tg->single, dl_lock_inspect(&tg->single, lease, info, err));
}

static dl_status_t release_one(dl_target_t *tg, dl_lease_t *lease, int *released, dl_error_t *err)
{
    BOUNDED(tg, 0, REDLOCK(tg) ? dl_quorum_release(&tg->quorum, lease, released, err)
                       : release_single(tg, lease, released, err));
}

dl_status_t dl_target_release(dl_target_t *tg, dl_lease_t *lease, int *released, dl_error_t *err)
{
    dl_status_t st = release_one(tg, lease, released, err);
    release_outcome(lease, st, released);
    return st;
}

dl_status_t dl_target_release_deferred(dl_target_t *tg, const dl_lease_t *lease, dl_release_done_fn done)
{
    if (REDLOCK(tg)) {
        dl_error_t err;
        int released = 0;
        dl_call_bound_t saved;
        dl_status_t st;
        bound_begin(tg, 0, &saved);
        st = dl_quorum_release(&tg->quorum, lease, &released, &err);
        dl_call_bound_end(&saved);
        if (st == DL_OK && !released && dl_lease_gone_by_our_release(lease)) released = 1;
        done(st == DL_OK && released, st);
        return DL_OK;
    }
    BOUNDED(tg, 0, dl_lock_release_deferred(&tg->single, lease, done));
}

dl_status_t dl_target_release_deferred_ex(dl_target_t *tg, const dl_lease_t *lease, dl_release_done_ex_fn done,
                                          void *arg)
{
    if (REDLOCK(tg)) {
        dl_error_t err;
        int released = 0;
        dl_call_bound_t saved;
        dl_status_t st;
        bound_begin(tg, 0, &saved);
        st = dl_quorum_release(&tg->quorum, lease, &released, &err);
        dl_call_bound_end(&saved);
        if (st == DL_OK && !released && dl_lease_gone_by_our_release(lease)) released = 1;
        done(arg, st == DL_OK && released, st, NULL);
        return DL_OK;
    }
    BOUNDED(tg, 0, dl_lock_release_deferred_ex(&tg->single, lease, done, arg));
}

/* 1 when every key of leases[0..n) is on one node: always, but on Cluster only in one slot. */
static int one_node(const dl_target_t *tg, size_t n, dl_lease_t *const *leases)
{
    size_t i;
    if (tg->cfg.kind != DL_TARGET_CLUSTER) return 1;
    for (i = 1; i < n; i++) {
        if (dl_slot_of(leases[i]->key, leases[i]->key_len) != dl_slot_of(leases[0]->key, leases[0]->key_len)) return 0;
    }
    return 1;
}

/* 1 when leases[0..n) can go in one multi-release script: 2 or more mutex leases (not fair) on one node,
 * and not all of them releasable natively (then dl_lock_release_many's one pipeline runs no script). */
static int multi_releasable(dl_target_t *tg, size_t n, dl_lease_t *const *leases)
{
    size_t i, native = 0;
    if (n < 2) return 0;
    for (i = 0; i < n; i++) {
        if (leases[i]->kind != DL_LEASE_EXCLUSIVE || leases[i]->fair) return 0;
        native += dl_lock_native(&tg->single, leases[i]) ? 1 : 0;
    }
    if (native == n) return 0;
    return one_node(tg, n, leases);
}

static dl_status_t release_batch(dl_target_t *tg, size_t n, dl_lease_t *const *leases, int *released,
                                 dl_error_t *err)
{
    if (REDLOCK(tg)) BOUNDED(tg, 0, dl_quorum_release_many(&tg->quorum, n, leases, released, err));
    /* A multi-lock's names (or the request end's mutexes) on one node: one script, not one each. */
    if (multi_releasable(tg, n, leases)) BOUNDED(tg, 0, dl_multi_release(&tg->single, n, leases, released, err));
    BOUNDED(tg, 0, dl_lock_release_many(&tg->single, n, leases, released, err));
}

dl_status_t dl_target_release_many(dl_target_t *tg, size_t n, dl_lease_t *const *leases, int *released,
                                   dl_error_t *err)
{
    dl_status_t st = release_batch(tg, n, leases, released, err);
    size_t i;
    for (i = 0; i < n; i++) release_outcome(leases[i], st, &released[i]);
    return st;
}

dl_status_t dl_target_refresh(dl_target_t *tg, dl_lease_t *lease, int64_t ttl_ms, int *extended, dl_error_t *err)
{
    BOUNDED_LEASE(tg, 0, lease, REDLOCK(tg) ? dl_quorum_refresh(&tg->quorum, lease, ttl_ms, extended, err)
                       : refresh_single(tg, lease, ttl_ms, extended, err));
}

dl_status_t dl_target_refresh_many(dl_target_t *tg, size_t n, dl_lease_t *const *leases, int *extended,
                                   dl_error_t *err)
{
    BOUNDED_LEASE(tg, 0, n > 0 ? leases[0] : NULL, REDLOCK(tg) ? dl_quorum_refresh_many(&tg->quorum, n, leases, extended, err)
                       : dl_lock_refresh_many(&tg->single, n, leases, extended, err));
}

dl_status_t dl_target_status(dl_target_t *tg, const dl_lease_t *lease, int64_t *pttl_ms, dl_error_t *err)
{
    BOUNDED(tg, 0, REDLOCK(tg) ? dl_quorum_status(&tg->quorum, lease, pttl_ms, err)
                       : status_single(tg, lease, pttl_ms, err));
}

dl_status_t dl_target_owner(dl_target_t *tg, const char *key, size_t key_len, char **token, size_t *token_len,
                            dl_error_t *err)
{
    BOUNDED(tg, 0, REDLOCK(tg) ? dl_quorum_owner(&tg->quorum, key, key_len, token, token_len, err)
                       : dl_lock_owner(&tg->single, key, key_len, token, token_len, err));
}

dl_status_t dl_target_inspect(dl_target_t *tg, const dl_lease_t *lease, dl_lock_info_t *info, dl_error_t *err)
{
    BOUNDED(tg, 0, REDLOCK(tg) ? dl_quorum_inspect(&tg->quorum, lease, info, err)
                       : inspect_single(tg, lease, info, err));
}

static dl_status_t is_locked_one(dl_target_t *tg, const dl_lease_t *lease, int *locked, dl_error_t *err)
{
    dl_lock_info_t info;
    dl_status_t st = inspect_single(tg, lease, &info, err);
    *locked = st == DL_OK && info.kind != DL_HELD_NONE;
    return st;
}

dl_status_t dl_target_is_locked(dl_target_t *tg, const dl_lease_t *lease, int *locked, dl_error_t *err)
{
    BOUNDED(tg, 0, REDLOCK(tg) ? dl_quorum_exists(&tg->quorum, lease->key, lease->key_len, locked, err)
                       : is_locked_one(tg, lease, locked, err));
}

dl_status_t dl_target_exists(dl_target_t *tg, const char *key, size_t key_len, int *exists, dl_error_t *err)
{
    BOUNDED(tg, 0, REDLOCK(tg) ? dl_quorum_exists(&tg->quorum, key, key_len, exists, err)
                       : dl_lock_exists(&tg->single, key, key_len, exists, err));
}

dl_status_t dl_target_delete(dl_target_t *tg, const dl_lease_t *lease, int *deleted, dl_error_t *err)
{
    BOUNDED(tg, 0, REDLOCK(tg) ? dl_quorum_delete(&tg->quorum, lease->key, lease->key_len, deleted, err)
                       : dl_lock_delete_holders(&tg->single, lease, deleted, err));
}

dl_status_t dl_target_multi_acquire(dl_target_t *tg, size_t n, dl_lease_t *const *leases,
                                    const dl_acquire_opts_t *opts, dl_acquire_result_t *res, dl_error_t *err)
{
    if (REDLOCK(tg)) {
        memset(res, 0, sizeof(*res));
        return redlock_refuses("multi-locks are", err);
    }
    BOUNDED_LEASE(tg, opts->wait_us, n > 0 ? leases[0] : NULL, one_node(tg, n, leases) ? dl_multi_acquire(&tg->single, n, leases, opts, res, err)
                                   : dl_multi_acquire_ordered(&tg->single, n, leases, opts, res, err));
}

dl_status_t dl_target_permits_used(dl_target_t *tg, const dl_lease_t *lease, long long *holders, long long *used,
                                   dl_error_t *err)
{
    *holders = *used = 0;
    BOUNDED(tg, 0, REDLOCK(tg) ? redlock_refuses("semaphores are", err) : dl_lock_permits_used(&tg->single, lease, holders, used, err));
}

dl_status_t dl_target_promote(dl_target_t *tg, dl_lease_t *lease, int64_t ttl_ms, int *result, dl_error_t *err)
{
    *result = -1;
    BOUNDED(tg, 0, REDLOCK(tg) ? redlock_refuses("shared locks are", err) : dl_rw_promote(&tg->single, lease, ttl_ms, result, err));
}

dl_status_t dl_target_demote(dl_target_t *tg, dl_lease_t *lease, int64_t ttl_ms, int *result, dl_error_t *err)
{
    *result = -1;
    BOUNDED(tg, 0, REDLOCK(tg) ? redlock_refuses("shared locks are", err) : dl_rw_demote(&tg->single, lease, ttl_ms, result, err));
}

int dl_target_node_of(const dl_target_t *tg, const dl_lease_t *lease, char *buf, size_t size)
{
    const dl_slot_map_t *map;
    unsigned owner;
    if (tg->cfg.kind != DL_TARGET_CLUSTER || !tg->cluster) return 0;
    map = dl_cluster_map(tg->cluster);
    owner = map->owner[dl_slot_of(lease->key, lease->key_len)];
    if (owner == DL_SLOT_NONE || owner >= map->nnodes) return 0;
    dl_endpoint_format(buf, size, map->nodes[owner].host, map->nodes[owner].port);
    return 1;
}
