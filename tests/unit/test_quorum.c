/*
 * test_quorum — Redlock (dl_quorum) and the parallel fan-out (dl_fanout)
 * through fake masters.
 *
 * Each fake master is a socketpair: the fan-out polls our end, and the fake
 * "answers" a command by writing one byte to the other end, so readiness
 * works as with a real socket; recv() then returns the scripted reply. A
 * stopped master records what it is sent and never answers (the fan-out's
 * deadline ends the wait); a refused one fails the send like a connect that
 * is refused.
 */
#define _POSIX_C_SOURCE 200809L   /* strdup, kill, sigaction...: -std=c99 shows only ISO C */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dl_clock.h"
#include "dl_fanout.h"
#include "dl_pending.h"
#include "dl_quorum.h"

typedef enum { UP_FREE, UP_TAKEN, STOPPED, REFUSED } behaviour_t;

#define MAXN 7
#define MAXREC 64

typedef struct fake_node {
    behaviour_t b;
    int sv[2];                 /* sv[0]: ours (polled); sv[1]: the "server" side */
    char endpoint[48];
    char sent[MAXREC][16];     /* argv[0] of each command sent */
    char tokens[MAXREC][64];   /* the token argument (SET: argv[2]; scripts: first ARGV) */
    size_t nsent;
    size_t queued;             /* replies written and not read yet */
    int queue[MAXREC];         /* 1 = "OK"/1, 0 = nil/0 */
    size_t qhead;
    dl_pending_t pending;
} fake_node_t;

static fake_node_t nodes[MAXN];
static dl_quorum_node_t qnodes[MAXN];
static dl_quorum_t Q;

static int reply_for(fake_node_t *f, const dl_cmd_t *c)
{
    (void)c;
    return f->b == UP_FREE;
}

static void record(fake_node_t *f, const dl_cmd_t *c)
{
    size_t tok = strncmp(c->argv[0], "SET", 3) == 0 ? 2 : (size_t)3 + (size_t)atoi(c->argv[2]);
    if (f->nsent >= MAXREC) return;
    snprintf(f->sent[f->nsent], sizeof(f->sent[0]), "%.*s", (int)c->argvlen[0], c->argv[0]);
    if ((int)tok < c->argc) snprintf(f->tokens[f->nsent], sizeof(f->tokens[0]), "%.*s", (int)c->argvlen[tok], c->argv[tok]);
    f->nsent++;
}

static dl_status_t fake_send(void *impl, size_t n, const dl_cmd_t *cmds, dl_error_t *err)
{
    fake_node_t *f = impl;
    size_t i;
    if (f->b == REFUSED) return dl_error_set(err, DL_ERR_CONNECT, "Cannot connect to Redis at %s: refused", f->endpoint);
    for (i = 0; i < n; i++) {
        record(f, &cmds[i]);
        if (f->b == STOPPED) continue;
        f->queue[(f->qhead + f->queued++) % MAXREC] = reply_for(f, &cmds[i]) | (strcmp(f->sent[f->nsent - 1], "SET") == 0) << 1;
        assert_int_equal(write(f->sv[1], "r", 1), 1);
    }
    return DL_OK;
}

static dl_status_t fake_recv(void *impl, dl_reply_t *reply, dl_error_t *err)
{
    fake_node_t *f = impl;
    char c;
    int v;
    memset(reply, 0, sizeof(*reply));
    if (f->queued == 0) return dl_error_set(err, DL_ERR_TIMEOUT, "Redis at %s: timed out", f->endpoint);
    assert_int_equal(read(f->sv[0], &c, 1), 1);
    v = f->queue[f->qhead];
    f->qhead = (f->qhead + 1) % MAXREC;
    f->queued--;
    /* SET answers +OK or nil; scripts answer 1 or 0 (bit 1: it was a SET). */
    if (v & 2) {
        if (v & 1) {
            reply->type = DL_REPLY_STATUS;
            reply->str = strdup("OK");
            reply->len = 2;
        }
    } else {
        reply->type = DL_REPLY_INTEGER;
        reply->integer = v & 1;
    }
    return DL_OK;
}

static dl_status_t fake_call(void *impl, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies, int64_t extra,
                             dl_error_t *err)
{
    size_t i;
    dl_status_t st;
    fake_node_t *f = impl;
    (void)extra;
    if (f->b == STOPPED) {
        for (i = 0; i < n; i++) record(f, &cmds[i]);
        return dl_error_set(err, DL_ERR_TIMEOUT, "Redis at %s: timed out", f->endpoint);
    }
    if ((st = fake_send(impl, n, cmds, err)) != DL_OK) return st;
    for (i = 0; i < n; i++) fake_recv(impl, &replies[i], err);
    return DL_OK;
}

static int fake_has_input(void *impl)
{
    fake_node_t *f = impl;
    struct pollfd p = {f->sv[0], POLLIN, 0};
    return poll(&p, 1, 0) > 0;
}

static int fake_fd(void *impl)
{
    return ((fake_node_t *)impl)->sv[0];
}

static void make_masters(size_t n, const behaviour_t *b)
{
    size_t i;
    memset(&Q, 0, sizeof(Q));
    for (i = 0; i < n; i++) {
        fake_node_t *f = &nodes[i];
        memset(f, 0, sizeof(*f));
        f->b = b[i];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, f->sv), 0);
        snprintf(f->endpoint, sizeof(f->endpoint), "master-%zu:6379", i);
        memset(&qnodes[i], 0, sizeof(qnodes[i]));
        qnodes[i].t.call = fake_call;
        qnodes[i].t.send = fake_send;
        qnodes[i].t.recv = fake_recv;
        qnodes[i].t.has_input = fake_has_input;
        qnodes[i].t.fd = fake_fd;
        qnodes[i].t.pending = &f->pending;
        qnodes[i].t.impl = f;
        qnodes[i].t.endpoint = f->endpoint;
    }
    Q.n = n;
    Q.node = qnodes;
    Q.timeout_us = 50000;   /* 50 ms per node: the stopped ones cost this once */
}

static int teardown(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < Q.n; i++) {
        dl_pending_discard(&nodes[i].pending);
        close(nodes[i].sv[0]);
        close(nodes[i].sv[1]);
    }
    memset(&Q, 0, sizeof(Q));
    return 0;
}

static dl_lease_t *lease(int64_t ttl_ms)
{
    dl_error_t err;
    dl_lease_t *l = dl_lease_new("lock:", 5, "x", 1, "tok", 3, ttl_ms, &err);
    assert_non_null(l);
    return l;
}

static dl_acquire_opts_t no_wait(void)
{
    dl_acquire_opts_t o;
    memset(&o, 0, sizeof(o));
    return o;
}

/* ---- arithmetic ------------------------------------------------------------ */

static void test_quorum_arithmetic(void **state)
{
    dl_quorum_t q;
    (void)state;
    assert_int_equal(dl_quorum_size(3), 2);
    assert_int_equal(dl_quorum_size(4), 3);
    assert_int_equal(dl_quorum_size(5), 3);
    assert_int_equal(dl_quorum_size(6), 4);
    assert_int_equal(dl_quorum_size(7), 4);
    /* drift = ttl * 0.01 + 2 ms (redis.io) */
    assert_int_equal(dl_quorum_drift_us(10000), 102000);
    assert_int_equal(dl_quorum_drift_us(100), 3000);
    /* validity = ttl - elapsed - drift */
    assert_int_equal(dl_quorum_validity_us(10000, 5000), 10000000 - 5000 - 102000);
    assert_true(dl_quorum_validity_us(100, 98000) <= 0);
    /* per-node timeout: min(server timeout, max(ttl / 10, 5 ms)) */
    memset(&q, 0, sizeof(q));
    q.timeout_us = 1000000;
    assert_int_equal(dl_quorum_node_timeout_us(&q, 30000), 1000000);
    assert_int_equal(dl_quorum_node_timeout_us(&q, 1000), 100000);
    assert_int_equal(dl_quorum_node_timeout_us(&q, 10), DL_QUORUM_MIN_NODE_TIMEOUT_US);
    /* no ttl known (a release by name and token): the server timeout, not 5 ms */
    assert_int_equal(dl_quorum_node_timeout_us(&q, 0), 1000000);
}

/* ---- acquire ------------------------------------------------------------- */

static void test_acquire_with_a_quorum(void **state)
{
    behaviour_t b[5] = {UP_FREE, UP_TAKEN, UP_FREE, UP_TAKEN, UP_FREE};
    dl_acquire_opts_t o = no_wait();
    dl_acquire_result_t res;
    dl_error_t err;
    dl_lease_t *l = lease(10000);
    int64_t before = dl_clock_now_ns();
    size_t i;
    (void)state;
    make_masters(5, b);
    assert_int_equal(dl_quorum_acquire(&Q, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    /* valid until: start + ttl - drift */
    assert_true(l->valid_until_ns <= dl_clock_now_ns() + (10000 - 102) * 1000000LL);
    assert_true(l->valid_until_ns >= before + (10000 - 102) * 1000000LL);
    for (i = 0; i < 5; i++) {   /* the same token on every master */
        assert_string_equal(nodes[i].sent[0], "SET");
        assert_string_equal(nodes[i].tokens[0], "tok");
    }
    dl_lease_free(l);
}

static void test_acquire_without_a_quorum_is_undone(void **state)
{
    behaviour_t b[5] = {UP_FREE, UP_TAKEN, UP_FREE, UP_TAKEN, UP_TAKEN};
    dl_acquire_opts_t o = no_wait();
    dl_acquire_result_t res;
    dl_error_t err;
    dl_lease_t *l = lease(10000);
    size_t i;
    (void)state;
    make_masters(5, b);
    assert_int_equal(dl_quorum_acquire(&Q, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 0);
    assert_int_equal(res.contended, 1);
    /* Every master gets the compare-and-delete with our token (EVAL: no NOSCRIPT can skip it). */
    for (i = 0; i < 5; i++) {
        assert_int_equal(nodes[i].nsent, 2);
        assert_string_equal(nodes[i].sent[1], "EVAL");
        assert_string_equal(nodes[i].tokens[1], "tok");
    }
    dl_lease_free(l);
}

static void test_acquire_two_stopped_succeeds_once_marked_down(void **state)
{
    behaviour_t b[5] = {UP_FREE, STOPPED, UP_FREE, STOPPED, UP_FREE};
    dl_acquire_opts_t o = no_wait();
    dl_acquire_result_t res;
    dl_error_t err;
    dl_lease_t *l = lease(10000);
    int64_t t0;
    (void)state;
    make_masters(5, b);
    /* Decided by the three live masters: the stopped ones are not waited for. */
    t0 = dl_clock_now_ns();
    assert_int_equal(dl_quorum_acquire(&Q, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    assert_true(dl_clock_now_ns() - t0 < 40000000LL);
    assert_int_equal(nodes[1].nsent, 1);   /* asked all the same */
    dl_lease_free(l);
}

static void test_acquire_three_stopped_is_a_quorum_error(void **state)
{
    behaviour_t b[5] = {UP_FREE, STOPPED, STOPPED, STOPPED, UP_FREE};
    dl_acquire_opts_t o = no_wait();
    dl_acquire_result_t res;
    dl_error_t err;
    dl_lease_t *l = lease(10000);
    int64_t t0 = dl_clock_now_ns(), took;
    (void)state;
    make_masters(5, b);
    assert_int_equal(dl_quorum_acquire(&Q, l, &o, &res, &err), DL_ERR_QUORUM);
    took = dl_clock_now_ns() - t0;
    assert_true(took >= 50000000LL);               /* one node timeout ... */
    assert_true(took < 1000000000LL);              /* ... not more (generous) */
    assert_non_null(strstr(err.msg, "Redlock acquire: 3 of 5 masters failed, more than the 2 a quorum of 3 survives"));
    /* the bound it missed, in the words of every operation (issue 37.2): no call bound open here */
    assert_non_null(strstr(err.msg, "Redis at master-1:6379 did not answer within this call's 0.050 s bound (timeout)"));
    assert_true(Q.node[1].down_until_ns > dl_clock_now_ns());
    assert_int_equal(Q.node[0].down_until_ns, 0);
    /* The granted masters got the undo. */
    assert_string_equal(nodes[0].sent[1], "EVAL");
    /* The next attempt does not wait on the stopped masters again. */
    nodes[0].nsent = nodes[4].nsent = 0;
    t0 = dl_clock_now_ns();
    assert_int_equal(dl_quorum_acquire(&Q, l, &o, &res, &err), DL_ERR_QUORUM);
    assert_true(dl_clock_now_ns() - t0 < 40000000LL);
    assert_non_null(strstr(err.msg, "skipped, down since a failure"));
    assert_int_equal(nodes[1].nsent, 1);   /* nothing more sent to it */
    dl_lease_free(l);
}

static void test_acquire_refused_fails_fast(void **state)
{
    behaviour_t b[3] = {UP_FREE, REFUSED, REFUSED};
    dl_acquire_opts_t o = no_wait();
    dl_acquire_result_t res;
    dl_error_t err;
    dl_lease_t *l = lease(10000);
    int64_t t0 = dl_clock_now_ns();
    (void)state;
    make_masters(3, b);
    assert_int_equal(dl_quorum_acquire(&Q, l, &o, &res, &err), DL_ERR_QUORUM);
    assert_true(dl_clock_now_ns() - t0 < 40000000LL);
    assert_non_null(strstr(err.msg, "Redlock acquire: 2 of 3 masters failed, more than the 1 a quorum of 2 survives"));
    dl_lease_free(l);
}

static void test_fencing_and_fair_refused(void **state)
{
    behaviour_t b[3] = {UP_FREE, UP_FREE, UP_FREE};
    dl_acquire_opts_t o = no_wait();
    dl_acquire_result_t res;
    dl_error_t err;
    dl_lease_t *l = lease(1000);
    (void)state;
    make_masters(3, b);
    l->fencing = 1;
    assert_int_equal(dl_quorum_acquire(&Q, l, &o, &res, &err), DL_ERR_ARG);
    assert_int_equal(nodes[0].nsent, 0);
    dl_lease_free(l);
}

/* ---- release, refresh ------------------------------------------------------ */

static void test_release_and_refresh_count_a_quorum(void **state)
{
    behaviour_t b[5] = {UP_FREE, UP_FREE, UP_FREE, UP_TAKEN, STOPPED};
    dl_error_t err;
    dl_lease_t *l = lease(10000);
    int released = -1, extended = -1;
    int64_t t0 = dl_clock_now_ns();
    (void)state;
    make_masters(5, b);
    l->valid_until_ns = dl_clock_now_ns() + 5000000000LL;
    assert_int_equal(dl_quorum_refresh(&Q, l, 20000, &extended, &err), DL_OK);
    assert_int_equal(extended, 1);
    assert_int_equal(l->ttl_ms, 20000);
    assert_true(l->valid_until_ns >= t0 + (20000 - 202) * 1000000LL);
    assert_int_equal(dl_quorum_release(&Q, l, &released, &err), DL_OK);
    assert_int_equal(released, 1);
    /* Two of five still hold it: not a quorum, and the lease had run out. */
    nodes[2].b = UP_TAKEN;
    l->valid_until_ns = dl_clock_now_ns() - 1;
    assert_int_equal(dl_quorum_refresh(&Q, l, 20000, &extended, &err), DL_OK);
    assert_int_equal(extended, 0);
    assert_int_equal(dl_quorum_release(&Q, l, &released, &err), DL_OK);
    assert_int_equal(released, 0);
    /* Still valid: any master that removed our key proves it was ours. */
    l->valid_until_ns = dl_clock_now_ns() + 5000000000LL;
    assert_int_equal(dl_quorum_release(&Q, l, &released, &err), DL_OK);
    assert_int_equal(released, 1);
    dl_lease_free(l);
}

static void test_release_without_a_quorum_answering(void **state)
{
    behaviour_t b[5] = {UP_FREE, UP_FREE, STOPPED, STOPPED, STOPPED};
    dl_error_t err;
    dl_lease_t *l = lease(10000);
    int released = -1;
    (void)state;
    make_masters(5, b);
    assert_int_equal(dl_quorum_release(&Q, l, &released, &err), DL_ERR_QUORUM);
    assert_non_null(strstr(err.msg, "Redlock release: 3 of 5 masters failed"));
    dl_lease_free(l);
}

/* ---- the fan-out itself ----------------------------------------------------- */

/* A late reply is read (and dropped) before the next command's on that connection. */
static void test_fanout_late_replies_are_read_first(void **state)
{
    behaviour_t b[3] = {UP_FREE, UP_FREE, STOPPED};
    dl_acquire_opts_t o = no_wait();
    dl_acquire_result_t res;
    dl_error_t err;
    dl_lease_t *l = lease(10000);
    int released = 0;
    (void)state;
    make_masters(3, b);
    assert_int_equal(dl_quorum_acquire(&Q, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    /* Master 2 "resumes": its +OK to the SET arrives late, and is owed. */
    nodes[2].b = UP_FREE;
    nodes[2].queue[(nodes[2].qhead + nodes[2].queued++) % MAXREC] = 3;
    assert_int_equal(write(nodes[2].sv[1], "r", 1), 1);
    Q.node[2].down_until_ns = 0;
    assert_int_equal(dl_pending_count(&nodes[2].pending), 1);
    /* Masters 0 and 1 lost the key: only master 2's 1 can say the release
     * removed it. Had the late +OK been taken as the release's reply, the
     * release would count nothing. */
    nodes[0].b = nodes[1].b = UP_TAKEN;
    assert_int_equal(dl_quorum_release(&Q, l, &released, &err), DL_OK);
    assert_int_equal(released, 1);
    assert_int_equal(dl_pending_count(&nodes[2].pending), 0);
    assert_int_equal(nodes[2].queued, 0);
    dl_lease_free(l);
}

/* A round decided without a master leaves its replies owed; they are read later, and nothing leaks. */
static void test_fanout_not_waited_for(void **state)
{
    behaviour_t b[5] = {UP_FREE, UP_FREE, UP_FREE, UP_FREE, UP_FREE};
    dl_acquire_opts_t o = no_wait();
    dl_acquire_result_t res;
    dl_error_t err;
    dl_lease_t *l = lease(10000);
    size_t i;
    (void)state;
    make_masters(5, b);
    assert_int_equal(dl_quorum_acquire(&Q, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    for (i = 0; i < 5; i++) {
        assert_int_equal(Q.node[i].down_until_ns, 0);   /* not waited for is not "down" */
    }
    for (i = 0; i < 5; i++) dl_pending_settle(&Q.node[i].t);
    for (i = 0; i < 5; i++) assert_int_equal(dl_pending_count(&nodes[i].pending), 0);
    dl_lease_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quorum_arithmetic),
        cmocka_unit_test_teardown(test_acquire_with_a_quorum, teardown),
        cmocka_unit_test_teardown(test_acquire_without_a_quorum_is_undone, teardown),
        cmocka_unit_test_teardown(test_acquire_two_stopped_succeeds_once_marked_down, teardown),
        cmocka_unit_test_teardown(test_acquire_three_stopped_is_a_quorum_error, teardown),
        cmocka_unit_test_teardown(test_acquire_refused_fails_fast, teardown),
        cmocka_unit_test_teardown(test_fencing_and_fair_refused, teardown),
        cmocka_unit_test_teardown(test_release_and_refresh_count_a_quorum, teardown),
        cmocka_unit_test_teardown(test_release_without_a_quorum_answering, teardown),
        cmocka_unit_test_teardown(test_fanout_late_replies_are_read_first, teardown),
        cmocka_unit_test_teardown(test_fanout_not_waited_for, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
