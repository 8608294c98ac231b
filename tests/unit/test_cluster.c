/*
 * test_cluster — the cluster router (dl_cluster) over fake nodes.
 *
 * A small model of a cluster answers for every node: slot owners, a slot
 * being migrated (keys already moved answer ASK at the source; the target
 * serves them only after ASKING), and per-node queues of forced error
 * replies or a connection failure. Each node records what it received, one
 * line per call: "ARGV0 key,ARGV0 key;...".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dl_clock.h"
#include "dl_cluster.h"
#include "reply_build.h"

#define NNODES 4
#define MAXERR 64

typedef struct {
    const char *host;
    int port;
    int calls;
    char log[4096];
    const char *errs[MAXERR];   /* forced error replies, for the next keyed commands */
    int nerrs, nexterr;
    int fail_next;              /* the next call fails (DL_ERR_IO) */
    unsigned caps;
    int freed;
} fnode_t;

static struct {
    fnode_t n[NNODES];
    int owner[DL_SLOTS];        /* the truth: node index per slot */
    int shards_refused;         /* CLUSTER SHARDS is an unknown subcommand (Redis < 7.0) */
    int mig_slot, mig_from, mig_to;
    const char *moved_key;      /* in the migrating slot, already at mig_to */
    int64_t timeout_us;
} W;

static void world_reset(void)
{
    int s;
    memset(&W, 0, sizeof(W));
    W.n[0].host = "10.0.0.1"; W.n[0].port = 7001;
    W.n[1].host = "10.0.0.2"; W.n[1].port = 7002;
    W.n[2].host = "fe80::3";  W.n[2].port = 7003;   /* IPv6: MOVED's last ':' */
    W.n[3].host = "10.0.0.4"; W.n[3].port = 7004;   /* a spare master, no slots at first */
    for (s = 0; s < DL_SLOTS; s++) W.owner[s] = s < 5461 ? 0 : s < 10923 ? 1 : 2;
    W.mig_slot = -1;
    W.timeout_us = 1000000;
}

static int node_index(const fnode_t *f)
{
    return (int)(f - W.n);
}

/* argv[i] of c equals s. */
static int arg_is(const dl_cmd_t *c, int i, const char *s)
{
    return c->argc > i && c->argvlen[i] == strlen(s) && memcmp(c->argv[i], s, c->argvlen[i]) == 0;
}

static const char *key_of(const dl_cmd_t *c)
{
    static char buf[256];
    size_t i = 1;
    if (arg_is(c, 0, "EVALSHA")) {
        if (arg_is(c, 2, "0")) return NULL;
        i = 3;
    }
    if (c->argc <= (int)i || arg_is(c, 0, "WAIT") || arg_is(c, 0, "PING") || arg_is(c, 0, "CLUSTER")) return NULL;
    snprintf(buf, sizeof(buf), "%.*s", (int)c->argvlen[i], c->argv[i]);
    return buf;
}

static dl_reply_t shards(void)
{
    dl_reply_t all = rb_arr(0);
    int i, s;
    for (i = 0; i < NNODES; i++) {
        dl_reply_t slots = rb_arr(0);
        for (s = 0; s < DL_SLOTS; s++) {
            if (W.owner[s] != i || (s > 0 && W.owner[s - 1] == i)) continue;
            {
                int e = s;
                while (e + 1 < DL_SLOTS && W.owner[e + 1] == i) e++;
                rb_push(&slots, rb_int(s));
                rb_push(&slots, rb_int(e));
            }
        }
        rb_push(&all, rb_arr(4, rb_str("slots"), slots, rb_str("nodes"),
                             rb_arr(1, rb_arr(8, rb_str("ip"), rb_str(W.n[i].host), rb_str("port"), rb_int(W.n[i].port),
                                              rb_str("role"), rb_str("master"), rb_str("health"), rb_str("online")))));
    }
    return all;
}

static dl_reply_t slots_reply(void)
{
    dl_reply_t all = rb_arr(0);
    int s, e;
    for (s = 0; s < DL_SLOTS; s = e + 1) {
        e = s;
        while (e + 1 < DL_SLOTS && W.owner[e + 1] == W.owner[s]) e++;
        rb_push(&all, rb_arr(3, rb_int(s), rb_int(e), rb_arr(2, rb_str(W.n[W.owner[s]].host), rb_int(W.n[W.owner[s]].port))));
    }
    return all;
}

static dl_reply_t redirect(const char *kind, int slot, int to)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "%s %d %s:%d", kind, slot, W.n[to].host, W.n[to].port);
    return rb_err(buf);
}

static dl_status_t fake_call(void *impl, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies, int64_t extra_timeout_us,
                             dl_error_t *err)
{
    fnode_t *f = impl;
    int me = node_index(f), asking = 0;
    size_t i;
    char out[64];
    (void)extra_timeout_us;
    for (i = 0; i < n; i++) memset(&replies[i], 0, sizeof(replies[i]));
    f->calls++;
    if (f->fail_next) {
        f->fail_next = 0;
        return dl_error_set(err, DL_ERR_IO, "Redis at %s:%d: connection lost", f->host, f->port);
    }
    if (f->log[0]) strcat(f->log, ";");
    for (i = 0; i < n; i++) {
        const dl_cmd_t *c = &cmds[i];
        const char *key = arg_is(c, 0, "CLUSTER") && c->argc == 2 ? (arg_is(c, 1, "SHARDS") ? "SHARDS" : "SLOTS") : key_of(c);
        size_t l = strlen(f->log);
        snprintf(f->log + l, sizeof(f->log) - l, "%s%.*s%s%s", i ? "," : "", (int)c->argvlen[0], c->argv[0],
                 key ? " " : "", key ? key : "");
        if (arg_is(c, 0, "CLUSTER")) {
            if (arg_is(c, 1, "SHARDS")) {
                replies[i] = W.shards_refused ? rb_err("ERR unknown subcommand 'SHARDS'. Try CLUSTER HELP.") : shards();
            } else {
                replies[i] = slots_reply();
            }
            continue;
        }
        if (arg_is(c, 0, "ASKING")) {
            replies[i] = rb_str("OK");
            replies[i].type = DL_REPLY_STATUS;
            asking = 1;
            continue;
        }
        if (key && !arg_is(c, 0, "CLUSTER")) {
            int slot = (int)dl_slot_of(key, strlen(key));
            if (f->nexterr < f->nerrs) {
                replies[i] = rb_err(f->errs[f->nexterr++]);
                asking = 0;
                continue;
            }
            if (slot == W.mig_slot && me == W.mig_from && W.moved_key && strcmp(key, W.moved_key) == 0) {
                replies[i] = redirect("ASK", slot, W.mig_to);
                asking = 0;
                continue;
            }
            if (W.owner[slot] != me && !(slot == W.mig_slot && me == W.mig_to && asking)) {
                replies[i] = redirect("MOVED", slot, W.owner[slot]);
                asking = 0;
                continue;
            }
        }
        asking = 0;
        snprintf(out, sizeof(out), "%d:%.*s", f->port, (int)c->argvlen[0], c->argv[0]);
        replies[i] = rb_str(out);
    }
    return DL_OK;
}

static unsigned fake_caps(void *impl)
{
    return ((fnode_t *)impl)->caps;
}

static void *fake_open(void *arg, const char *host, int port, dl_transport_t *t, dl_error_t *err)
{
    int i;
    (void)arg;
    for (i = 0; i < NNODES; i++) {
        if (strcmp(W.n[i].host, host) == 0 && W.n[i].port == port) {
            memset(t, 0, sizeof(*t));
            t->call = fake_call;
            t->caps = fake_caps;
            t->impl = &W.n[i];
            t->endpoint = W.n[i].host;
            return &W.n[i];
        }
    }
    dl_error_set(err, DL_ERR_CONNECT, "no such fake node %s:%d", host, port);
    return NULL;
}

static void fake_free(void *arg, void *node)
{
    (void)arg;
    ((fnode_t *)node)->freed++;
}

static int64_t fake_timeout(void *arg, void *node)
{
    (void)arg;
    (void)node;
    return W.timeout_us;
}

static dl_cluster_t *mk(void)
{
    dl_cluster_node_ops_t ops = {fake_open, fake_free, NULL, NULL, fake_timeout, NULL, NULL};
    dl_slot_node_t seeds[2];
    dl_error_t err;
    dl_cluster_t *c;
    memset(seeds, 0, sizeof(seeds));
    strcpy(seeds[0].host, "10.0.0.1");
    seeds[0].port = 7001;
    strcpy(seeds[1].host, "10.0.0.2");
    seeds[1].port = 7002;
    c = dl_cluster_new_with(&ops, seeds, 2, 0, &err);
    assert_non_null(c);
    return c;
}

/* A fresh world and a cluster over it, its transport in *t. */
static dl_cluster_t *start(dl_transport_t *t)
{
    dl_cluster_t *c;
    world_reset();
    c = mk();
    *t = dl_cluster_transport(c);
    return c;
}

/* A key whose slot is served by node i of the initial layout (found by trying names). */
static const char *key_on(int node, int nth)
{
    static char keys[8][32];
    int k, found = 0;
    for (k = 0;; k++) {
        char *b = keys[(node * 2 + nth) % 8];
        snprintf(b, 32, "lock:%d", k);
        if (W.owner[dl_slot_of(b, strlen(b))] == node && found++ == nth) return b;
    }
}

#define CMD(...) mkcmd((const char *[]){__VA_ARGS__, NULL})
static dl_cmd_t mkcmd(const char **argv)
{
    static size_t lens[64][8];
    static int next;
    dl_cmd_t c;
    int i;
    size_t *l = lens[next++ % 64];
    for (i = 0; argv[i]; i++) l[i] = strlen(argv[i]);
    c.argc = i;
    c.argv = (const char *const *)argv;
    c.argvlen = l;
    return c;
}

static void free_replies(dl_reply_t *r, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) dl_reply_free(&r[i]);
}

static void assert_reply(const dl_reply_t *r, const char *want)
{
    if (r->type != DL_REPLY_STRING || strcmp(r->str, want) != 0) {
        fail_msg("reply %d \"%s\", expected \"%s\"", r->type, r->str ? r->str : "", want);
    }
}

/* One command through t, answered DL_OK with the string want. */
static void call_ok(dl_transport_t *t, const dl_cmd_t *cmd, const char *want)
{
    dl_reply_t r;
    dl_error_t err;
    assert_int_equal(t->call(t->impl, 1, cmd, &r, 0, &err), DL_OK);
    assert_reply(&r, want);
    dl_reply_free(&r);
}

static void test_lazy_map_and_routing(void **state)
{
    dl_cluster_t *c;
    dl_transport_t t;
    dl_cmd_t cmd;
    dl_reply_t r;
    dl_error_t err;
    dl_cluster_stats_t st;
    (void)state;
    c = start(&t);
    assert_null(t.send);
    assert_null(t.recv);
    assert_null(t.has_input);
    assert_null(t.pending);
    assert_string_equal(t.endpoint, "cluster via 10.0.0.1:7001");
    assert_int_equal(W.n[0].calls + W.n[1].calls + W.n[2].calls, 0);   /* no I/O before the first call */
    cmd = CMD("SET", key_on(2, 0), "tok", "NX", "PX", "1000");
    call_ok(&t, &cmd, "7003:SET");
    assert_string_equal(W.n[0].log, "CLUSTER SHARDS");
    assert_int_equal(W.n[2].calls, 1);
    assert_string_equal(t.endpoint, "cluster of 3 masters via 10.0.0.1:7001");
    assert_int_equal(dl_cluster_masters(c), 3);
    /* The map stays: the next call goes straight to the owner. */
    assert_int_equal(t.call(t.impl, 1, &cmd, &r, 0, &err), DL_OK);
    dl_reply_free(&r);
    dl_cluster_get_stats(c, &st);
    assert_int_equal(st.map_loads, 1);
    assert_int_equal(W.n[0].calls, 1);
    assert_int_equal(W.n[2].calls, 2);
    dl_cluster_free(c);
    assert_int_equal(W.n[0].freed + W.n[2].freed, 2);
}

static void test_pipeline_grouped_per_node_in_order(void **state)
{
    dl_cluster_t *c;
    dl_transport_t t;
    dl_cmd_t cmds[5];
    dl_reply_t r[5];
    dl_error_t err;
    const char *a0, *a1, *b0;
    (void)state;
    c = start(&t);
    a0 = key_on(1, 0);
    a1 = key_on(1, 1);
    b0 = key_on(2, 0);
    cmds[0] = CMD("SET", a0, "t");
    cmds[1] = CMD("EVALSHA", "abc", "3", b0, "x", "y", "tok");
    cmds[2] = CMD("GET", a1);
    cmds[3] = CMD("WAIT", "1", "100");            /* follows GET a1 */
    cmds[4] = CMD("EVALSHA", "abc", "0", "tok");   /* no key: follows too */
    assert_int_equal(t.call(t.impl, 5, cmds, r, 0, &err), DL_OK);
    assert_reply(&r[0], "7002:SET");
    assert_reply(&r[1], "7003:EVALSHA");
    assert_reply(&r[2], "7002:GET");
    assert_reply(&r[3], "7002:WAIT");
    assert_reply(&r[4], "7002:EVALSHA");
    free_replies(r, 5);
    /* One pipeline per node, order kept. */
    assert_int_equal(W.n[1].calls, 1);
    assert_int_equal(W.n[2].calls, 1);
    {
        char want[256];
        snprintf(want, sizeof(want), "SET %s,GET %s,WAIT,EVALSHA", a0, a1);
        assert_string_equal(W.n[1].log, want);
    }
    dl_cluster_free(c);
}

static void test_slots_fallback(void **state)
{
    dl_cluster_t *c;
    dl_transport_t t;
    dl_cmd_t cmd;
    (void)state;
    world_reset();
    W.shards_refused = 1;
    c = mk();
    t = dl_cluster_transport(c);
    cmd = CMD("GET", key_on(1, 0));
    call_ok(&t, &cmd, "7002:GET");
    assert_string_equal(W.n[0].log, "CLUSTER SHARDS;CLUSTER SLOTS");
    assert_int_equal(dl_cluster_masters(c), 3);
    dl_cluster_free(c);
}

static void test_seed_down_next_seed(void **state)
{
    dl_cluster_t *c;
    dl_transport_t t;
    dl_cmd_t cmd;
    dl_reply_t r;
    dl_error_t err;
    (void)state;
    world_reset();
    W.n[0].fail_next = 1;
    c = mk();
    t = dl_cluster_transport(c);
    cmd = CMD("GET", key_on(2, 0));
    call_ok(&t, &cmd, "7003:GET");
    assert_string_equal(W.n[1].log, "CLUSTER SHARDS");
    assert_string_equal(t.endpoint, "cluster of 3 masters via 10.0.0.2:7002");
    dl_cluster_free(c);
    /* Every node down: the error of the last one. */
    world_reset();
    W.n[0].fail_next = W.n[1].fail_next = 1;
    c = mk();
    t = dl_cluster_transport(c);
    assert_int_equal(t.call(t.impl, 1, &cmd, &r, 0, &err), DL_ERR_IO);
    assert_non_null(strstr(err.msg, "10.0.0.2:7002"));
    dl_reply_free(&r);
    dl_cluster_free(c);
}

static void test_moved_updates_map_and_resends(void **state)
{
    dl_cluster_t *c;
    dl_transport_t t;
    dl_cmd_t cmd;
    dl_reply_t r;
    dl_error_t err;
    dl_cluster_stats_t st;
    const char *k;
    unsigned slot;
    (void)state;
    c = start(&t);
    k = key_on(0, 0);
    slot = dl_slot_of(k, strlen(k));
    cmd = CMD("SET", k, "t");
    assert_int_equal(t.call(t.impl, 1, &cmd, &r, 0, &err), DL_OK);
    dl_reply_free(&r);
    W.owner[slot] = 2;   /* resharded behind the client's back (to the IPv6 node) */
    call_ok(&t, &cmd, "7003:SET");
    assert_int_equal(dl_cluster_map(c)->owner[slot], 2);   /* updated at once */
    dl_cluster_get_stats(c, &st);
    assert_int_equal(st.moved, 1);
    /* The next call reloads the map first, then goes straight to the new owner. */
    call_ok(&t, &cmd, "7003:SET");
    dl_cluster_get_stats(c, &st);
    assert_int_equal(st.map_loads, 2);
    assert_int_equal(st.moved, 1);
    dl_cluster_free(c);
}

static void test_ask_sends_asking_once(void **state)
{
    dl_cluster_t *c;
    dl_transport_t t;
    dl_cmd_t cmd;
    dl_cluster_stats_t st;
    const char *k;
    char other[32];
    unsigned slot;
    (void)state;
    c = start(&t);
    k = key_on(0, 0);
    slot = dl_slot_of(k, strlen(k));
    W.mig_slot = (int)slot;
    W.mig_from = 0;
    W.mig_to = 3;
    W.moved_key = k;
    cmd = CMD("SET", k, "t");
    call_ok(&t, &cmd, "7004:SET");
    {
        char want[64];
        snprintf(want, sizeof(want), "ASKING,SET %s", k);
        assert_string_equal(W.n[3].log, want);   /* one pipeline */
    }
    dl_cluster_get_stats(c, &st);
    assert_int_equal(st.asks, 1);
    assert_int_equal(st.moved, 0);
    assert_int_equal(dl_cluster_map(c)->owner[slot], 0);   /* ASK does not change the map */
    /* A key of the same slot not moved yet is still served by the source. */
    snprintf(other, sizeof(other), "{%s}x", k);
    cmd = CMD("GET", other);
    call_ok(&t, &cmd, "7001:GET");
    dl_cluster_free(c);
}

static void test_tryagain_backs_off_then_succeeds(void **state)
{
    dl_cluster_t *c;
    dl_transport_t t;
    dl_cmd_t cmd;
    int64_t t0;
    (void)state;
    c = start(&t);
    W.n[1].errs[0] = W.n[1].errs[1] = W.n[1].errs[2] = "TRYAGAIN Multiple keys request during rehashing of slot";
    W.n[1].nerrs = 3;
    cmd = CMD("EVALSHA", "abc", "2", key_on(1, 0), "x");
    t0 = dl_clock_now_ns();
    call_ok(&t, &cmd, "7002:EVALSHA");
    assert_int_equal(W.n[1].calls, 4);
    assert_true(dl_clock_now_ns() - t0 >= (1 + 2 + 4) * 1000000LL);   /* 1, 2, 4 ms */
    dl_cluster_free(c);
}

static void test_clusterdown_until_timeout(void **state)
{
    dl_cluster_t *c;
    dl_transport_t t;
    dl_cmd_t cmd;
    dl_reply_t r;
    dl_error_t err;
    int64_t t0, el;
    int i;
    (void)state;
    world_reset();
    W.timeout_us = 60000;
    c = mk();
    t = dl_cluster_transport(c);
    for (i = 0; i < MAXERR; i++) W.n[1].errs[i] = "CLUSTERDOWN The cluster is down";
    W.n[1].nerrs = MAXERR;
    cmd = CMD("SET", key_on(1, 0), "t");
    t0 = dl_clock_now_ns();
    assert_int_equal(t.call(t.impl, 1, &cmd, &r, 0, &err), DL_OK);
    el = dl_clock_now_ns() - t0;
    /* The error reply comes back as it came, once the read timeout is spent. */
    assert_int_equal(r.type, DL_REPLY_ERROR);
    assert_non_null(strstr(r.str, "CLUSTERDOWN"));
    dl_reply_free(&r);
    assert_true(el >= 25 * 1000000LL);
    assert_true(el < 2000 * 1000000LL);
    assert_true(W.n[1].calls >= 4);
    dl_cluster_free(c);
}

static void test_unblocked_is_nil(void **state)
{
    dl_cluster_t *c;
    dl_transport_t t;
    dl_cmd_t cmd;
    dl_reply_t r;
    dl_error_t err;
    dl_cluster_stats_t st;
    (void)state;
    c = start(&t);
    W.n[1].errs[0] = "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)";
    W.n[1].nerrs = 1;
    cmd = CMD("BLPOP", key_on(1, 0), "0.5");
    assert_int_equal(t.call(t.impl, 1, &cmd, &r, 600000, &err), DL_OK);
    assert_int_equal(r.type, DL_REPLY_NIL);
    dl_reply_free(&r);
    dl_cluster_get_stats(c, &st);
    assert_int_equal(st.unblocked, 1);
    assert_int_equal(W.n[1].calls, 1);   /* not re-sent: the wait loop decides */
    /* The map is reloaded before the next call (a failover). */
    assert_int_equal(t.call(t.impl, 1, &cmd, &r, 0, &err), DL_OK);
    dl_reply_free(&r);
    dl_cluster_get_stats(c, &st);
    assert_int_equal(st.map_loads, 2);
    dl_cluster_free(c);
}

static void test_transport_failure_returned_map_reloaded(void **state)
{
    dl_cluster_t *c;
    dl_transport_t t;
    dl_cmd_t cmd;
    dl_reply_t r;
    dl_error_t err;
    dl_cluster_stats_t st;
    (void)state;
    c = start(&t);
    cmd = CMD("SET", key_on(2, 0), "t");
    assert_int_equal(t.call(t.impl, 1, &cmd, &r, 0, &err), DL_OK);
    dl_reply_free(&r);
    W.n[2].fail_next = 1;
    assert_int_equal(t.call(t.impl, 1, &cmd, &r, 0, &err), DL_ERR_IO);   /* as it came, not retried */
    assert_int_equal(r.type, DL_REPLY_NIL);
    assert_non_null(strstr(err.msg, "fe80::3"));
    assert_int_equal(W.n[2].calls, 2);
    call_ok(&t, &cmd, "7003:SET");
    dl_cluster_get_stats(c, &st);
    assert_int_equal(st.map_loads, 2);
    dl_cluster_free(c);
}

static void test_keyless_follows_redirected_leader(void **state)
{
    dl_cluster_t *c;
    dl_transport_t t;
    dl_cmd_t cmds[2];
    dl_reply_t r[2];
    dl_error_t err;
    const char *k;
    char want[64];
    (void)state;
    c = start(&t);
    k = key_on(0, 0);
    cmds[0] = CMD("SET", k, "t");
    cmds[1] = CMD("WAIT", "1", "100");
    assert_int_equal(t.call(t.impl, 2, cmds, r, 0, &err), DL_OK);
    free_replies(r, 2);
    W.owner[dl_slot_of(k, strlen(k))] = 3;   /* moved to the spare master */
    assert_int_equal(t.call(t.impl, 2, cmds, r, 0, &err), DL_OK);
    assert_reply(&r[0], "7004:SET");
    assert_reply(&r[1], "7004:WAIT");   /* WAIT counts the write where it happened */
    free_replies(r, 2);
    snprintf(want, sizeof(want), "SET %s,WAIT", k);
    assert_string_equal(W.n[3].log, want);
    dl_cluster_free(c);
}

static void test_redirect_loop_capped(void **state)
{
    dl_cluster_t *c;
    dl_transport_t t;
    dl_cmd_t cmd;
    dl_reply_t r;
    dl_error_t err;
    const char *k;
    char moved[64];
    int i;
    (void)state;
    c = start(&t);
    k = key_on(1, 0);
    snprintf(moved, sizeof(moved), "MOVED %u 10.0.0.2:7002", dl_slot_of(k, strlen(k)));   /* to itself, forever */
    for (i = 0; i < MAXERR; i++) W.n[1].errs[i] = moved;
    W.n[1].nerrs = MAXERR;
    cmd = CMD("GET", k);
    assert_int_equal(t.call(t.impl, 1, &cmd, &r, 0, &err), DL_OK);
    assert_int_equal(r.type, DL_REPLY_ERROR);
    assert_memory_equal(r.str, "MOVED", 5);
    dl_reply_free(&r);
    assert_int_equal(W.n[1].calls, DL_CLUSTER_MAX_REDIRECTS + 1);
    dl_cluster_free(c);
}

static void test_caps_agreed_by_all_masters(void **state)
{
    dl_cluster_t *c;
    dl_transport_t t;
    dl_cmd_t cmds[3];
    dl_reply_t r[3];
    dl_error_t err;
    (void)state;
    c = start(&t);
    assert_int_equal(t.caps(t.impl), DL_CAP_CLUSTER);   /* nothing known before the map; a Cluster */
    W.n[0].caps = W.n[1].caps = W.n[2].caps = DL_CAP_KNOWN | DL_CAP_DELIFEQ | DL_CAP_SET_IFEQ | DL_CAP_SCRIPTING;
    cmds[0] = CMD("GET", key_on(0, 0));
    assert_int_equal(t.call(t.impl, 1, cmds, r, 0, &err), DL_OK);
    free_replies(r, 1);
    assert_int_equal(t.caps(t.impl), DL_CAP_CLUSTER);   /* masters 2 and 3 not connected yet */
    cmds[1] = CMD("GET", key_on(1, 0));
    cmds[2] = CMD("GET", key_on(2, 0));
    assert_int_equal(t.call(t.impl, 3, cmds, r, 0, &err), DL_OK);
    free_replies(r, 3);
    assert_int_equal(t.caps(t.impl), DL_CAP_KNOWN | DL_CAP_DELIFEQ | DL_CAP_SET_IFEQ | DL_CAP_SCRIPTING | DL_CAP_CLUSTER);
    W.n[1].caps = DL_CAP_KNOWN | DL_CAP_SCRIPTING;   /* one master without: nobody uses it */
    assert_int_equal(t.caps(t.impl), DL_CAP_KNOWN | DL_CAP_SCRIPTING | DL_CAP_CLUSTER);
    dl_cluster_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lazy_map_and_routing),
        cmocka_unit_test(test_pipeline_grouped_per_node_in_order),
        cmocka_unit_test(test_slots_fallback),
        cmocka_unit_test(test_seed_down_next_seed),
        cmocka_unit_test(test_moved_updates_map_and_resends),
        cmocka_unit_test(test_ask_sends_asking_once),
        cmocka_unit_test(test_tryagain_backs_off_then_succeeds),
        cmocka_unit_test(test_clusterdown_until_timeout),
        cmocka_unit_test(test_unblocked_is_nil),
        cmocka_unit_test(test_transport_failure_returned_map_reloaded),
        cmocka_unit_test(test_keyless_follows_redirected_leader),
        cmocka_unit_test(test_redirect_loop_capped),
        cmocka_unit_test(test_caps_agreed_by_all_masters),
    };
    return cmocka_run_group_tests_name("dl_cluster", tests, NULL, NULL);
}
