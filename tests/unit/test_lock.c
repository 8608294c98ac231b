/*
 * test_lock — the lock logic (dl_lock) driven through a fake transport.
 *
 * The fake records every call (each command's argv, copied with its exact
 * lengths, and the time of the call) and answers from a queue of scripted
 * steps, or from a handler function that looks at the commands. A step is
 * either replies (DL_OK) or a transport failure (DL_ERR_TIMEOUT, ...).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dl_clock.h"
#include "dl_lock.h"
#include "dl_scripts.h"
#include "dl_token.h"

#define MAX_ARGS 8
#define MAX_CMDS 16
#define MAX_CALLS 1024
#define MAX_STEPS 64

typedef struct {
    int argc;
    char *argv[MAX_ARGS];
    size_t len[MAX_ARGS];
} rec_cmd_t;

typedef struct {
    size_t n;
    rec_cmd_t cmd[MAX_CMDS];
    int64_t extra_timeout_us;
    int64_t t_ns;   /* when the call was made */
} rec_call_t;

typedef struct {
    dl_reply_type_t type;
    long long integer;
    const char *str;
    size_t nelem;          /* DL_REPLY_ARRAY of integers */
    long long elem[2];
} rspec_t;

#define RP_OK ((rspec_t){.type = DL_REPLY_STATUS, .str = "OK"})
#define RP_NIL ((rspec_t){.type = DL_REPLY_NIL})
#define RP_INT(x) ((rspec_t){.type = DL_REPLY_INTEGER, .integer = (x)})
#define RP_ERR(s) ((rspec_t){.type = DL_REPLY_ERROR, .str = (s)})
#define RP_STR(s) ((rspec_t){.type = DL_REPLY_STRING, .str = (s)})
#define RP_ARR2(a, b) ((rspec_t){.type = DL_REPLY_ARRAY, .nelem = 2, .elem = {(a), (b)}})

#define NOSCRIPT_MSG "NOSCRIPT No matching script. Please use EVAL."

typedef struct {
    dl_status_t st;        /* DL_OK: replies; else a transport failure */
    const char *msg;       /* the failure's message */
    size_t n;              /* number of replies (must equal the commands sent when st == DL_OK) */
    rspec_t r[MAX_CMDS];
    int64_t delay_us;      /* the call takes this long */
} step_t;

typedef struct fake fake_t;
typedef step_t (*handler_t)(fake_t *f, const rec_call_t *call);

struct fake {
    step_t steps[MAX_STEPS];
    size_t nsteps, next;
    rec_call_t *calls;
    size_t ncalls;
    handler_t handler;
    int counter;       /* for handlers */
    int flag;          /* for handlers */
    dl_transport_t t;
};

static fake_t *F;  /* the current test's fake */

static dl_status_t fake_call(void *impl, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies,
                             int64_t extra_timeout_us, dl_error_t *err)
{
    fake_t *f = impl;
    rec_call_t *c;
    step_t s;
    size_t i;
    int j;

    if (f->ncalls >= MAX_CALLS) fail_msg("more than %d transport calls", MAX_CALLS);
    assert_true(n >= 1 && n <= MAX_CMDS);
    c = &f->calls[f->ncalls++];
    c->n = n;
    c->t_ns = dl_clock_now_ns();
    c->extra_timeout_us = extra_timeout_us;
    for (i = 0; i < n; i++) {
        assert_true(cmds[i].argc >= 1 && cmds[i].argc <= MAX_ARGS);
        c->cmd[i].argc = cmds[i].argc;
        for (j = 0; j < cmds[i].argc; j++) {
            size_t len = cmds[i].argvlen[j];
            char *copy = malloc(len + 1);
            assert_non_null(copy);
            memcpy(copy, cmds[i].argv[j], len);  /* ASan: the core's lengths must fit its buffers */
            copy[len] = '\0';
            c->cmd[i].argv[j] = copy;
            c->cmd[i].len[j] = len;
        }
    }
    for (i = 0; i < n; i++) memset(&replies[i], 0, sizeof(replies[i]));

    if (f->handler) {
        s = f->handler(f, c);
    } else {
        if (f->next >= f->nsteps) {
            fail_msg("unexpected transport call #%zu (%zu commands, first %s)", f->ncalls, n, c->cmd[0].argv[0]);
        }
        s = f->steps[f->next++];
    }
    if (s.delay_us > 0) dl_clock_sleep_us(s.delay_us);
    if (s.st == DL_OK && s.n != n) {
        fail_msg("call #%zu sent %zu command(s) (first %s), the script expected %zu", f->ncalls, n, c->cmd[0].argv[0],
                 s.n);
    }
    for (i = 0; i < s.n && i < n; i++) {
        replies[i].type = s.r[i].type;
        replies[i].integer = s.r[i].integer;
        if (s.r[i].str) {
            replies[i].len = strlen(s.r[i].str);
            replies[i].str = malloc(replies[i].len + 1);
            assert_non_null(replies[i].str);
            memcpy(replies[i].str, s.r[i].str, replies[i].len + 1);
        }
        if (s.r[i].type == DL_REPLY_ARRAY && s.r[i].nelem > 0) {
            size_t e;
            replies[i].elements = s.r[i].nelem;
            replies[i].element = calloc(s.r[i].nelem, sizeof(dl_reply_t));
            assert_non_null(replies[i].element);
            for (e = 0; e < s.r[i].nelem; e++) {
                replies[i].element[e].type = DL_REPLY_INTEGER;
                replies[i].element[e].integer = s.r[i].elem[e];
            }
        }
    }
    if (s.st != DL_OK) {
        dl_error_set(err, s.st, "%s", s.msg ? s.msg : "fake transport failure");
    }
    return s.st;
}

static int setup(void **state)
{
    fake_t *f = calloc(1, sizeof(*f));
    if (!f) return -1;
    f->calls = calloc(MAX_CALLS, sizeof(*f->calls));
    if (!f->calls) return -1;
    f->t.call = fake_call;
    f->t.impl = f;
    F = f;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fake_t *f = *state;
    size_t i, k;
    int j, rc = 0;
    if (!f->handler && f->next != f->nsteps) {
        print_error("%zu scripted transport step(s) were never used\n", f->nsteps - f->next);
        rc = -1;
    }
    for (i = 0; i < f->ncalls; i++) {
        for (k = 0; k < f->calls[i].n; k++) {
            for (j = 0; j < f->calls[i].cmd[k].argc; j++) free(f->calls[i].cmd[k].argv[j]);
        }
    }
    free(f->calls);
    free(f);
    F = NULL;
    return rc;
}

/* Queues a step: st, message, then n reply specs. */
static void push(fake_t *f, dl_status_t st, const char *msg, size_t n, ...)
{
    va_list ap;
    size_t i;
    step_t *s;
    assert_true(f->nsteps < MAX_STEPS);
    s = &f->steps[f->nsteps++];
    memset(s, 0, sizeof(*s));
    s->st = st;
    s->msg = msg;
    s->n = n;
    va_start(ap, n);
    for (i = 0; i < n; i++) s->r[i] = va_arg(ap, rspec_t);
    va_end(ap);
}

#define push_ok(f, ...) push((f), DL_OK, NULL, sizeof((rspec_t[]){__VA_ARGS__}) / sizeof(rspec_t), __VA_ARGS__)
#define push_fail(f, st, msg) push((f), (st), (msg), 0)

static step_t step_replies(size_t n, const rspec_t *r)
{
    step_t s;
    memset(&s, 0, sizeof(s));
    s.st = DL_OK;
    s.n = n;
    memcpy(s.r, r, n * sizeof(*r));
    return s;
}

/* Asserts that cmd has exactly the given arguments: pairs (const char *, size_t len). */
static void expect_cmd(const rec_cmd_t *cmd, int argc, ...)
{
    va_list ap;
    int i;
    if (cmd->argc != argc) {
        fail_msg("command %s has %d arguments, expected %d", cmd->argv[0], cmd->argc, argc);
    }
    va_start(ap, argc);
    for (i = 0; i < argc; i++) {
        const char *want = va_arg(ap, const char *);
        size_t wlen = va_arg(ap, size_t);
        if (cmd->len[i] != wlen || memcmp(cmd->argv[i], want, wlen) != 0) {
            va_end(ap);
            fail_msg("argument %d of %s is \"%.*s\" (%zu bytes), expected \"%.*s\" (%zu bytes)", i, cmd->argv[0],
                     (int)cmd->len[i], cmd->argv[i], cmd->len[i], (int)wlen, want, wlen);
        }
    }
    va_end(ap);
}

#define S(x) (x), strlen(x)
#define B(x) (x), (sizeof(x) - 1)

static dl_lease_t *mk_lease(const char *prefix, const char *name, const char *token, int64_t ttl_ms)
{
    dl_error_t err;
    dl_lease_t *l = dl_lease_new(prefix, strlen(prefix), name, strlen(name), token, token ? strlen(token) : 0, ttl_ms,
                                 &err);
    assert_non_null(l);
    return l;
}

static dl_acquire_opts_t opts_wait(int64_t wait_us, int64_t base_us, int64_t jitter_us)
{
    dl_acquire_opts_t o;
    memset(&o, 0, sizeof(o));
    o.wait_us = wait_us;
    o.backoff.base_us = base_us;
    o.backoff.jitter_us = jitter_us;
    o.backoff.cap_us = DL_WAIT_BACKOFF_CAP_US;
    return o;
}

static int is_cmd(const rec_cmd_t *c, const char *name)
{
    return c->len[0] == strlen(name) && memcmp(c->argv[0], name, c->len[0]) == 0;
}

/* ---- leases ---------------------------------------------------------- */

static void test_lease_new_random_token(void **state)
{
    dl_error_t err;
    dl_lease_t *a = dl_lease_new("lock:", 5, "acct:7", 6, NULL, 0, 4000, &err);
    dl_lease_t *b = dl_lease_new("lock:", 5, "acct:7", 6, NULL, 0, 4000, &err);
    int i;
    (void)state;
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->key_len, 11);
    assert_memory_equal(a->key, "lock:acct:7", 11);
    assert_int_equal(a->key[11], '\0');
    assert_int_equal(a->token_len, DL_TOKEN_HEX_LEN);
    assert_int_equal(strlen(a->token), DL_TOKEN_HEX_LEN);
    for (i = 0; i < DL_TOKEN_HEX_LEN; i++) {
        char c = a->token[i];
        assert_true((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    }
    assert_string_not_equal(a->token, b->token);
    assert_int_equal(a->ttl_ms, 4000);
    assert_int_equal(a->pid, getpid());
    assert_int_equal(a->valid_until_ns, 0);
    assert_int_equal(dl_lease_validity_us(a), 0);
    dl_lease_free(a);
    dl_lease_free(b);
    dl_lease_free(NULL);
}

static void test_lease_new_given_token(void **state)
{
    static const char prefix[] = "p\0x";
    static const char name[] = "n\0'\"]]";
    static const char token[] = "t\0\"]]\\'";
    char longtok[DL_TOKEN_MAX];
    dl_error_t err;
    dl_lease_t *l;
    (void)state;
    l = dl_lease_new(prefix, sizeof(prefix) - 1, name, sizeof(name) - 1, token, sizeof(token) - 1, 1500, &err);
    assert_non_null(l);
    assert_int_equal(l->key_len, sizeof(prefix) - 1 + sizeof(name) - 1);
    assert_memory_equal(l->key, "p\0xn\0'\"]]", l->key_len);
    assert_int_equal(l->key[l->key_len], '\0');
    assert_int_equal(l->token_len, sizeof(token) - 1);
    assert_memory_equal(l->token, token, l->token_len);
    assert_int_equal(l->token[l->token_len], '\0');
    assert_int_equal(l->ttl_ms, 1500);
    dl_lease_free(l);

    memset(longtok, 'k', sizeof(longtok));
    l = dl_lease_new("", 0, "x", 1, longtok, sizeof(longtok), 1, &err);
    assert_non_null(l);
    assert_int_equal(l->token_len, DL_TOKEN_MAX);
    assert_memory_equal(l->token, longtok, DL_TOKEN_MAX);
    assert_int_equal(l->token[DL_TOKEN_MAX], '\0');
    assert_int_equal(l->key_len, 1);
    dl_lease_free(l);
}

static void test_lease_validity(void **state)
{
    dl_lease_t *l = mk_lease("lock:", "v", "t", 1000);
    int64_t v;
    (void)state;
    l->valid_until_ns = dl_clock_now_ns() + 50000000;
    v = dl_lease_validity_us(l);
    assert_true(v > 40000 && v <= 50000);
    l->valid_until_ns = dl_clock_now_ns() - 1;
    assert_int_equal(dl_lease_validity_us(l), 0);
    l->valid_until_ns = dl_clock_now_ns() - 1000000000;
    assert_int_equal(dl_lease_validity_us(l), 0);
    dl_lease_free(l);
}

/* ---- acquire --------------------------------------------------------- */

static void test_acquire_no_wait_sends_one_set(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "a", "tok123", 1500);
    dl_acquire_opts_t o = opts_wait(0, 1000, 1000);
    dl_acquire_result_t res;
    dl_error_t err;
    int64_t before, after;

    push_ok(f, RP_OK);
    before = dl_clock_now_ns();
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    after = dl_clock_now_ns();
    assert_int_equal(res.acquired, 1);
    assert_int_equal(res.attempts, 1);
    assert_int_equal(res.contended, 0);
    assert_int_equal(f->ncalls, 1);
    assert_int_equal(f->calls[0].n, 1);
    assert_int_equal(f->calls[0].extra_timeout_us, 0);
    expect_cmd(&f->calls[0].cmd[0], 6, S("SET"), S("lock:a"), S("tok123"), S("NX"), S("PX"), S("1500"));
    /* Validity counts from the send time. */
    assert_true(l->valid_until_ns >= before + 1500LL * 1000000);
    assert_true(l->valid_until_ns <= after + 1500LL * 1000000);
    assert_true(dl_lease_validity_us(l) > 1400000);
    assert_true(dl_lease_validity_us(l) <= 1500000);
    assert_int_equal(l->pid, getpid());
    dl_lease_free(l);
}

static void test_acquire_large_ttl(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "a", "t", DL_TTL_MAX_MS);
    dl_acquire_opts_t o = opts_wait(0, 0, 0);
    dl_acquire_result_t res;
    dl_error_t err;

    push_ok(f, RP_OK);
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    expect_cmd(&f->calls[0].cmd[0], 6, S("SET"), S("lock:a"), S("t"), S("NX"), S("PX"), S("1000000000000"));
    assert_true(dl_lease_validity_us(l) > (DL_TTL_MAX_MS - 1000) * 1000);
    dl_lease_free(l);
}

static void test_acquire_not_acquired_on_nil(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "a", "tok", 1500);
    dl_acquire_opts_t o = opts_wait(0, 1000, 0);
    dl_acquire_result_t res;
    dl_error_t err;

    push_ok(f, RP_NIL);
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 0);
    assert_int_equal(res.attempts, 1);
    assert_int_equal(res.contended, 1);
    assert_int_equal(f->ncalls, 1);
    assert_int_equal(f->calls[0].n, 1);
    assert_int_equal(l->valid_until_ns, 0);
    assert_int_equal(dl_lease_validity_us(l), 0);
    dl_lease_free(l);
}

/* Always taken, holder PTTL 10 s (never caps the sleeps here). */
static step_t h_always_taken(fake_t *f, const rec_call_t *c)
{
    const rspec_t r[2] = {RP_NIL, RP_INT(10000)};
    (void)f;
    return step_replies(c->n, r);
}

static void test_acquire_wait_pipelines_set_and_pttl_until_deadline(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "w", "tok", 1500);
    dl_acquire_opts_t o = opts_wait(30000, 2000, 0);
    dl_acquire_result_t res;
    dl_error_t err;
    int64_t t0, el;
    size_t i;

    f->handler = h_always_taken;
    t0 = dl_clock_now_ns();
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    el = dl_clock_now_ns() - t0;
    assert_int_equal(res.acquired, 0);
    assert_int_equal(res.attempts, f->ncalls);
    assert_int_equal(res.contended, f->ncalls);
    /* Backoff 2, 4, 8, 16 ms against a 30 ms wait: a handful of attempts, no spinning. */
    assert_true(f->ncalls >= 3);
    assert_true(f->ncalls <= 10);
    for (i = 0; i < f->ncalls; i++) {
        assert_int_equal(f->calls[i].n, 2);
        expect_cmd(&f->calls[i].cmd[0], 6, S("SET"), S("lock:w"), S("tok"), S("NX"), S("PX"), S("1500"));
        expect_cmd(&f->calls[i].cmd[1], 2, S("PTTL"), S("lock:w"));
        if (i > 0) assert_true(f->calls[i].t_ns - f->calls[i - 1].t_ns >= 1900000);
    }
    /* It kept trying until the deadline, and stopped soon after. */
    assert_true(f->calls[f->ncalls - 1].t_ns - t0 >= 29000000);
    assert_true(el >= 30000000);
    assert_true(el < 30000000 + 150000000);
    assert_true(res.waited_us >= 30000);
    assert_true(res.waited_us <= el / 1000 + 1);
    assert_int_equal(l->valid_until_ns, 0);
    dl_lease_free(l);
}

static void test_acquire_wait_then_ok(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "w", "tok", 1500);
    dl_acquire_opts_t o = opts_wait(1000000, 1000, 0);
    dl_acquire_result_t res;
    dl_error_t err;

    push_ok(f, RP_NIL, RP_INT(10000));
    push_ok(f, RP_NIL, RP_INT(10000));
    push_ok(f, RP_OK, RP_INT(1500));
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    assert_int_equal(res.attempts, 3);
    assert_int_equal(res.contended, 2);
    assert_int_equal(f->ncalls, 3);
    /* Validity counts from the send time of the successful attempt. */
    assert_true(l->valid_until_ns <= f->calls[2].t_ns + 1500LL * 1000000);
    assert_true(l->valid_until_ns >= f->calls[1].t_ns + 1500LL * 1000000);
    assert_true(res.waited_us < 500000);
    dl_lease_free(l);
}

static void test_acquire_sleep_capped_by_holder_pttl(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "p", "tok", 1500);
    /* Backoff 200 ms: without the PTTL cap the second attempt would come 200 ms later. */
    dl_acquire_opts_t o = opts_wait(1000000, 200000, 0);
    dl_acquire_result_t res;
    dl_error_t err;
    int64_t gap;

    push_ok(f, RP_NIL, RP_INT(5));
    push_ok(f, RP_OK, RP_INT(1500));
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    assert_int_equal(f->ncalls, 2);
    gap = f->calls[1].t_ns - f->calls[0].t_ns;
    assert_true(gap >= 4500000);
    assert_true(gap < 100000000);
    dl_lease_free(l);
}

static void test_acquire_unknown_pttl_does_not_cap(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "p", "tok", 1500);
    dl_acquire_opts_t o = opts_wait(1000000, 30000, 0);
    dl_acquire_result_t res;
    dl_error_t err;
    int64_t gap;

    /* -2: the key vanished between SET and PTTL; the delay is the backoff's. */
    push_ok(f, RP_NIL, RP_INT(-2));
    push_ok(f, RP_OK, RP_INT(1500));
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    gap = f->calls[1].t_ns - f->calls[0].t_ns;
    assert_true(gap >= 29000000);
    assert_true(gap < 200000000);
    dl_lease_free(l);
}

static void expect_release_cmd(const rec_cmd_t *c, const dl_lease_t *l)
{
    expect_cmd(c, 5, S("EVALSHA"), S(DL_SCRIPT_RELEASE_SHA), S("1"), l->key, l->key_len, l->token, l->token_len);
}

static void test_acquire_ambiguous_releases_by_token(void **state)
{
    static const dl_status_t codes[] = {DL_ERR_TIMEOUT, DL_ERR_IO, DL_ERR_PROTOCOL};
    fake_t *f = *state;
    size_t k;
    for (k = 0; k < sizeof(codes) / sizeof(codes[0]); k++) {
        dl_lease_t *l = mk_lease("lock:", "amb", "tok-amb", 1500);
        dl_acquire_opts_t o = opts_wait(0, 1000, 0);
        dl_acquire_result_t res;
        dl_error_t err;
        size_t base = f->ncalls;

        f->next = f->nsteps = 0;
        push_fail(f, codes[k], "first failure: SET reply lost");
        push_ok(f, RP_INT(1));
        assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), codes[k]);
        assert_int_equal(err.code, codes[k]);
        assert_string_equal(err.msg, "first failure: SET reply lost");
        assert_int_equal(res.acquired, 0);
        assert_int_equal(res.attempts, 1);
        assert_int_equal(l->valid_until_ns, 0);
        assert_int_equal(f->ncalls - base, 2);
        expect_cmd(&f->calls[base].cmd[0], 6, S("SET"), S("lock:amb"), S("tok-amb"), S("NX"), S("PX"), S("1500"));
        assert_int_equal(f->calls[base + 1].n, 1);
        expect_release_cmd(&f->calls[base + 1].cmd[0], l);
        dl_lease_free(l);
    }
}

static void test_acquire_ambiguous_cleanup_fails_keeps_first_error(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "amb", "tok-amb", 1500);
    dl_acquire_opts_t o = opts_wait(1000000, 1000, 0);
    dl_acquire_result_t res;
    dl_error_t err;

    /* While waiting: one contended attempt, then the reply is lost. */
    push_ok(f, RP_NIL, RP_INT(1000));
    push_fail(f, DL_ERR_TIMEOUT, "first failure: timeout");
    push_fail(f, DL_ERR_IO, "cleanup failure");
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_ERR_TIMEOUT);
    assert_int_equal(err.code, DL_ERR_TIMEOUT);
    assert_string_equal(err.msg, "first failure: timeout");
    assert_int_equal(res.acquired, 0);
    assert_int_equal(res.attempts, 2);
    /* SET+PTTL, SET+PTTL (lost), one cleanup release (cleanups are not
     * retried: the key expires anyway), and no more waiting. */
    assert_int_equal(f->ncalls, 3);
    expect_release_cmd(&f->calls[2].cmd[0], l);
    dl_lease_free(l);
}

static void test_acquire_server_error_no_cleanup(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "oom", "tok", 1500);
    dl_acquire_opts_t o = opts_wait(0, 1000, 0);
    dl_acquire_result_t res;
    dl_error_t err;

    push_ok(f, RP_ERR("OOM command not allowed when used memory > 'maxmemory'."));
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_ERR_SERVER);
    assert_int_equal(err.code, DL_ERR_SERVER);
    assert_non_null(strstr(err.msg, "OOM command not allowed"));
    assert_null(strstr(err.msg, "tok"));
    assert_int_equal(res.acquired, 0);
    assert_int_equal(f->ncalls, 1);

    /* Same while waiting (SET+PTTL): no retry, no cleanup. */
    o = opts_wait(1000000, 1000, 0);
    push_ok(f, RP_ERR("READONLY You can't write against a read only replica."), RP_INT(-2));
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_ERR_SERVER);
    assert_non_null(strstr(err.msg, "READONLY"));
    assert_int_equal(res.acquired, 0);
    assert_int_equal(f->ncalls, 2);
    dl_lease_free(l);
}

static void test_acquire_long_server_error_truncated(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "e", "tok", 1500);
    dl_acquire_opts_t o = opts_wait(0, 1000, 0);
    dl_acquire_result_t res;
    dl_error_t err;
    char big[1000];

    memset(big, 'E', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    push_ok(f, RP_ERR(big));
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_ERR_SERVER);
    assert_true(strlen(err.msg) < DL_ERR_MSG_MAX);
    assert_non_null(strstr(err.msg, "EEEE"));
    dl_lease_free(l);
}

static void test_acquire_connect_failure_no_cleanup(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "c", "tok", 1500);
    dl_acquire_opts_t o = opts_wait(0, 1000, 0);
    dl_acquire_result_t res;
    dl_error_t err;

    /* Nothing was sent: not ambiguous, nothing to clean up. */
    push_fail(f, DL_ERR_CONNECT, "Cannot connect to Redis at 127.0.0.1:1: Connection refused");
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_ERR_CONNECT);
    assert_string_equal(err.msg, "Cannot connect to Redis at 127.0.0.1:1: Connection refused");
    assert_int_equal(res.acquired, 0);
    assert_int_equal(f->ncalls, 1);
    dl_lease_free(l);
}

static int interrupt_after_2(void *arg)
{
    int *n = arg;
    return ++*n >= 2;
}

static void test_acquire_interrupted(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "i", "tok", 1500);
    dl_acquire_opts_t o = opts_wait(1000000, 1000, 0);
    dl_acquire_result_t res;
    dl_error_t err;
    int checks = 0;
    int64_t t0;

    f->handler = h_always_taken;
    o.interrupted = interrupt_after_2;
    o.interrupt_arg = &checks;
    t0 = dl_clock_now_ns();
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_ERR_INTERRUPTED);
    assert_true(dl_clock_now_ns() - t0 < 500000000);
    assert_int_equal(err.code, DL_ERR_INTERRUPTED);
    assert_int_equal(checks, 2);
    assert_int_equal(res.acquired, 0);
    assert_int_equal(res.attempts, 2);
    assert_int_equal(f->ncalls, 2);
    dl_lease_free(l);
}

static int never_interrupted(void *arg)
{
    int *n = arg;
    ++*n;
    return 0;
}

static void test_acquire_interrupt_hook_not_called_without_sleep(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "i", "tok", 1500);
    dl_acquire_opts_t o = opts_wait(0, 1000, 0);
    dl_acquire_result_t res;
    dl_error_t err;
    int checks = 0;

    o.interrupted = never_interrupted;
    o.interrupt_arg = &checks;
    push_ok(f, RP_NIL);
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 0);
    push_ok(f, RP_OK);
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    assert_int_equal(checks, 0);
    dl_lease_free(l);
}

static void test_acquire_validity_from_send_time(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "slow", "tok", 100);
    dl_acquire_opts_t o = opts_wait(0, 1000, 0);
    dl_acquire_result_t res;
    dl_error_t err;

    /* The reply takes 30 ms: those 30 ms come off the client-side validity. */
    push_ok(f, RP_OK);
    f->steps[0].delay_us = 30000;
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    assert_true(l->valid_until_ns <= f->calls[0].t_ns + 100LL * 1000000);
    assert_true(dl_lease_validity_us(l) <= 70000);
    dl_lease_free(l);
}

static void test_acquire_unexpected_reply(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "u", "tok", 1500);
    dl_acquire_opts_t o = opts_wait(0, 1000, 0);
    dl_acquire_result_t res;
    dl_error_t err;

    /* An integer to SET: a protocol error, never reported as success; like a
     * lost reply it is ambiguous, so the lease is released by token. */
    push_ok(f, RP_INT(1));
    push_ok(f, RP_INT(0));
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_ERR_PROTOCOL);
    assert_int_equal(err.code, DL_ERR_PROTOCOL);
    assert_int_equal(res.acquired, 0);
    assert_int_equal(l->valid_until_ns, 0);
    assert_int_equal(f->ncalls, 2);
    expect_release_cmd(&f->calls[1].cmd[0], l);
    dl_lease_free(l);
}

/* ---- release --------------------------------------------------------- */

static void test_release(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "r", "tok-r", 1500);
    dl_error_t err;
    int released = -1;

    push_ok(f, RP_INT(1));
    assert_int_equal(dl_lock_release(&f->t, l, &released, &err), DL_OK);
    assert_int_equal(released, 1);
    assert_int_equal(f->ncalls, 1);
    assert_int_equal(f->calls[0].n, 1);
    expect_cmd(&f->calls[0].cmd[0], 5, S("EVALSHA"), S(DL_SCRIPT_RELEASE_SHA), S("1"), S("lock:r"), S("tok-r"));

    push_ok(f, RP_INT(0));
    released = -1;
    assert_int_equal(dl_lock_release(&f->t, l, &released, &err), DL_OK);
    assert_int_equal(released, 0);
    assert_int_equal(f->ncalls, 2);
    dl_lease_free(l);
}

static void test_release_noscript_falls_back_to_eval(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "r", "tok-r", 1500);
    dl_error_t err;
    int released = -1;

    push_ok(f, RP_ERR(NOSCRIPT_MSG));
    push_ok(f, RP_INT(1));
    assert_int_equal(dl_lock_release(&f->t, l, &released, &err), DL_OK);
    assert_int_equal(released, 1);
    assert_int_equal(f->ncalls, 2);
    expect_release_cmd(&f->calls[0].cmd[0], l);
    expect_cmd(&f->calls[1].cmd[0], 5, S("EVAL"), S(DL_SCRIPT_RELEASE), S("1"), S("lock:r"), S("tok-r"));
    dl_lease_free(l);
}

static void test_release_server_error(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "r", "tok-r", 1500);
    dl_error_t err;
    int released = -1;

    /* A non-NOSCRIPT error is reported, not retried, and is not "released". */
    push_ok(f, RP_ERR("NOPERM this user has no permissions to run the 'evalsha' command"));
    assert_int_equal(dl_lock_release(&f->t, l, &released, &err), DL_ERR_SERVER);
    assert_int_equal(released, 0);
    assert_non_null(strstr(err.msg, "NOPERM"));
    assert_int_equal(f->ncalls, 1);

    /* NOSCRIPT, then the EVAL fails. */
    push_ok(f, RP_ERR(NOSCRIPT_MSG));
    push_ok(f, RP_ERR("BUSY Redis is busy running a script."));
    assert_int_equal(dl_lock_release(&f->t, l, &released, &err), DL_ERR_SERVER);
    assert_int_equal(released, 0);
    assert_int_equal(f->ncalls, 3);

    /* Wrong reply type. */
    push_ok(f, RP_STR("1"));
    assert_int_equal(dl_lock_release(&f->t, l, &released, &err), DL_ERR_PROTOCOL);
    assert_int_equal(released, 0);
    dl_lease_free(l);
}

static void test_release_transport_failure_retried_once(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "r", "tok-r", 1500);
    dl_error_t err;
    int released = -1;

    push_fail(f, DL_ERR_IO, "connection reset");
    push_ok(f, RP_INT(1));
    assert_int_equal(dl_lock_release(&f->t, l, &released, &err), DL_OK);
    assert_int_equal(released, 1);
    assert_int_equal(f->ncalls, 2);
    expect_release_cmd(&f->calls[0].cmd[0], l);
    expect_release_cmd(&f->calls[1].cmd[0], l);

    /* Twice: the second failure is reported; no third call. */
    push_fail(f, DL_ERR_TIMEOUT, "timeout 1");
    push_fail(f, DL_ERR_TIMEOUT, "timeout 2");
    released = -1;
    assert_int_equal(dl_lock_release(&f->t, l, &released, &err), DL_ERR_TIMEOUT);
    assert_int_equal(err.code, DL_ERR_TIMEOUT);
    assert_int_equal(released, 0);
    assert_int_equal(f->ncalls, 4);

    /* A connect failure sent nothing: no retry. */
    push_fail(f, DL_ERR_CONNECT, "refused");
    assert_int_equal(dl_lock_release(&f->t, l, &released, &err), DL_ERR_CONNECT);
    assert_int_equal(f->ncalls, 5);

    /* NOSCRIPT, then the EVAL's transport fails once: retried. */
    push_ok(f, RP_ERR(NOSCRIPT_MSG));
    push_fail(f, DL_ERR_IO, "reset");
    push_ok(f, RP_INT(1));
    assert_int_equal(dl_lock_release(&f->t, l, &released, &err), DL_OK);
    assert_int_equal(released, 1);
    assert_int_equal(f->ncalls, 8);
    expect_cmd(&f->calls[7].cmd[0], 5, S("EVAL"), S(DL_SCRIPT_RELEASE), S("1"), S("lock:r"), S("tok-r"));
    dl_lease_free(l);
}

/* ---- release_many ---------------------------------------------------- */

static void test_release_many(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l[3];
    int released[3] = {-1, -1, -1};
    dl_error_t err;
    size_t i;

    l[0] = mk_lease("lock:", "m0", "t0", 1000);
    l[1] = mk_lease("lock:", "m1", "t1", 1000);
    l[2] = mk_lease("lock:", "m2", "t2", 1000);
    push_ok(f, RP_INT(1), RP_INT(0), RP_INT(1));
    assert_int_equal(dl_lock_release_many(&f->t, 3, l, released, &err), DL_OK);
    assert_int_equal(released[0], 1);
    assert_int_equal(released[1], 0);
    assert_int_equal(released[2], 1);
    assert_int_equal(f->ncalls, 1);
    assert_int_equal(f->calls[0].n, 3);
    for (i = 0; i < 3; i++) expect_release_cmd(&f->calls[0].cmd[i], l[i]);

    /* Nothing to release: no call. */
    assert_int_equal(dl_lock_release_many(&f->t, 0, l, released, &err), DL_OK);
    assert_int_equal(f->ncalls, 1);

    /* A transport failure is retried once, as a whole. */
    push_fail(f, DL_ERR_IO, "reset");
    push_ok(f, RP_INT(0), RP_INT(1), RP_INT(1));
    assert_int_equal(dl_lock_release_many(&f->t, 3, l, released, &err), DL_OK);
    assert_int_equal(released[0], 0);
    assert_int_equal(released[1], 1);
    assert_int_equal(released[2], 1);
    assert_int_equal(f->ncalls, 3);
    assert_int_equal(f->calls[2].n, 3);

    for (i = 0; i < 3; i++) dl_lease_free(l[i]);
}

/* The first pipeline gets a NOSCRIPT for lease 1 only (a SCRIPT FLUSH landed
 * between the commands); after that EVALSHA of lease 1 keeps failing with
 * NOSCRIPT and EVAL succeeds. Implementation-agnostic: a straight EVAL is fine. */
static step_t h_noscript_middle(fake_t *f, const rec_call_t *c)
{
    rspec_t r[MAX_CMDS];
    if (f->counter++ == 0) {
        assert_int_equal(c->n, 3);
        r[0] = RP_INT(1);
        r[1] = RP_ERR(NOSCRIPT_MSG);
        r[2] = RP_INT(0);
        return step_replies(3, r);
    }
    assert_int_equal(c->n, 1);
    if (c->cmd[0].len[3] != 7 || memcmp(c->cmd[0].argv[3], "lock:m1", 7) != 0) {
        fail_msg("lease %s was sent again after its reply", c->cmd[0].argv[3]);
    }
    if (is_cmd(&c->cmd[0], "EVAL")) {
        expect_cmd(&c->cmd[0], 5, S("EVAL"), S(DL_SCRIPT_RELEASE), S("1"), S("lock:m1"), S("t1"));
        f->flag++;
        r[0] = RP_INT(1);
    } else {
        r[0] = RP_ERR(NOSCRIPT_MSG);
    }
    return step_replies(1, r);
}

static void test_release_many_noscript_in_the_middle(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l[3];
    int released[3] = {-1, -1, -1};
    dl_error_t err;
    size_t i;

    l[0] = mk_lease("lock:", "m0", "t0", 1000);
    l[1] = mk_lease("lock:", "m1", "t1", 1000);
    l[2] = mk_lease("lock:", "m2", "t2", 1000);
    f->handler = h_noscript_middle;
    assert_int_equal(dl_lock_release_many(&f->t, 3, l, released, &err), DL_OK);
    assert_int_equal(released[0], 1);
    assert_int_equal(released[1], 1);
    assert_int_equal(released[2], 0);
    assert_int_equal(f->flag, 1);       /* exactly one EVAL */
    assert_true(f->ncalls <= 3);
    for (i = 0; i < 3; i++) dl_lease_free(l[i]);
}

/* A server whose script cache was flushed: EVALSHA fails until an EVAL loads the script. */
static step_t h_flushed_cache(fake_t *f, const rec_call_t *c)
{
    rspec_t r[MAX_CMDS];
    size_t i;
    for (i = 0; i < c->n; i++) {
        const rec_cmd_t *cmd = &c->cmd[i];
        if (is_cmd(cmd, "EVAL")) {
            assert_int_equal(cmd->len[1], strlen(DL_SCRIPT_RELEASE));
            f->flag = 1;  /* loaded */
            f->counter++;
            r[i] = RP_INT(1);
        } else if (is_cmd(cmd, "EVALSHA")) {
            if (f->flag) {
                f->counter++;
                r[i] = RP_INT(1);
            } else {
                r[i] = RP_ERR(NOSCRIPT_MSG);
            }
        } else {
            fail_msg("unexpected command %s", cmd->argv[0]);
        }
    }
    return step_replies(c->n, r);
}

static void test_release_many_all_noscript(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l[4];
    int released[4];
    dl_error_t err;
    char name[8];
    size_t i;

    for (i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "n%zu", i);
        l[i] = mk_lease("lock:", name, "t", 1000);
    }
    f->handler = h_flushed_cache;
    assert_int_equal(dl_lock_release_many(&f->t, 4, l, released, &err), DL_OK);
    for (i = 0; i < 4; i++) assert_int_equal(released[i], 1);
    assert_int_equal(f->counter, 4);  /* each lease deleted exactly once */
    for (i = 0; i < 4; i++) dl_lease_free(l[i]);
}

/* ---- refresh, status, exists, delete --------------------------------- */

static void test_refresh(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "f", "tok-f", 1500);
    dl_error_t err;
    int extended = -1;
    int64_t before, after, old_until;

    l->valid_until_ns = old_until = dl_clock_now_ns() + 1000000;
    push_ok(f, RP_INT(1));
    before = dl_clock_now_ns();
    assert_int_equal(dl_lock_refresh(&f->t, l, 4000, &extended, &err), DL_OK);
    after = dl_clock_now_ns();
    assert_int_equal(extended, 1);
    expect_cmd(&f->calls[0].cmd[0], 6, S("EVALSHA"), S(DL_SCRIPT_REFRESH_SHA), S("1"), S("lock:f"), S("tok-f"),
               S("4000"));
    assert_int_equal(l->ttl_ms, 4000);
    assert_true(l->valid_until_ns >= before + 4000LL * 1000000);
    assert_true(l->valid_until_ns <= after + 4000LL * 1000000);

    /* Not ours: nothing changes. */
    old_until = l->valid_until_ns;
    push_ok(f, RP_INT(0));
    assert_int_equal(dl_lock_refresh(&f->t, l, 9000, &extended, &err), DL_OK);
    assert_int_equal(extended, 0);
    assert_int_equal(l->ttl_ms, 4000);
    assert_int_equal(l->valid_until_ns, old_until);
    expect_cmd(&f->calls[1].cmd[0], 6, S("EVALSHA"), S(DL_SCRIPT_REFRESH_SHA), S("1"), S("lock:f"), S("tok-f"),
               S("9000"));

    /* Failures: nothing changes either. */
    push_fail(f, DL_ERR_TIMEOUT, "t1");
    push_fail(f, DL_ERR_TIMEOUT, "t2");
    assert_int_equal(dl_lock_refresh(&f->t, l, 9000, &extended, &err), DL_ERR_TIMEOUT);
    assert_int_equal(extended, 0);
    assert_int_equal(l->ttl_ms, 4000);
    assert_int_equal(l->valid_until_ns, old_until);
    assert_int_equal(f->ncalls, 4);

    push_ok(f, RP_ERR("ERR invalid expire time"));
    assert_int_equal(dl_lock_refresh(&f->t, l, 9000, &extended, &err), DL_ERR_SERVER);
    assert_int_equal(extended, 0);
    assert_int_equal(l->ttl_ms, 4000);
    assert_int_equal(l->valid_until_ns, old_until);
    dl_lease_free(l);
}

static void test_refresh_noscript(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "f", "tok-f", 1500);
    dl_error_t err;
    int extended = -1;

    push_ok(f, RP_ERR(NOSCRIPT_MSG));
    push_ok(f, RP_INT(1));
    assert_int_equal(dl_lock_refresh(&f->t, l, 2500, &extended, &err), DL_OK);
    assert_int_equal(extended, 1);
    assert_int_equal(l->ttl_ms, 2500);
    expect_cmd(&f->calls[1].cmd[0], 6, S("EVAL"), S(DL_SCRIPT_REFRESH), S("1"), S("lock:f"), S("tok-f"), S("2500"));
    dl_lease_free(l);
}

static void test_status(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "s", "tok-s", 1500);
    dl_error_t err;
    int64_t pttl = 0;

    push_ok(f, RP_INT(1234));
    assert_int_equal(dl_lock_status(&f->t, l, &pttl, &err), DL_OK);
    assert_int_equal(pttl, 1234);
    expect_cmd(&f->calls[0].cmd[0], 5, S("EVALSHA"), S(DL_SCRIPT_STATUS_SHA), S("1"), S("lock:s"), S("tok-s"));

    push_ok(f, RP_INT(-3));
    assert_int_equal(dl_lock_status(&f->t, l, &pttl, &err), DL_OK);
    assert_int_equal(pttl, -1);

    push_ok(f, RP_INT(0));
    assert_int_equal(dl_lock_status(&f->t, l, &pttl, &err), DL_OK);
    assert_int_equal(pttl, 0);

    push_ok(f, RP_ERR(NOSCRIPT_MSG));
    push_ok(f, RP_INT(77));
    assert_int_equal(dl_lock_status(&f->t, l, &pttl, &err), DL_OK);
    assert_int_equal(pttl, 77);
    expect_cmd(&f->calls[4].cmd[0], 5, S("EVAL"), S(DL_SCRIPT_STATUS), S("1"), S("lock:s"), S("tok-s"));

    push_fail(f, DL_ERR_IO, "reset");
    push_ok(f, RP_INT(500));
    assert_int_equal(dl_lock_status(&f->t, l, &pttl, &err), DL_OK);
    assert_int_equal(pttl, 500);

    /* A read is not retried after a timeout (a slow server stays slow). */
    push_fail(f, DL_ERR_TIMEOUT, "slow");
    pttl = 99;
    assert_int_equal(dl_lock_status(&f->t, l, &pttl, &err), DL_ERR_TIMEOUT);
    assert_int_equal(pttl, -1);
    assert_int_equal(f->ncalls, 8);

    push_ok(f, RP_ERR("ERR something"));
    pttl = 99;
    assert_int_equal(dl_lock_status(&f->t, l, &pttl, &err), DL_ERR_SERVER);
    assert_int_equal(pttl, -1);
    dl_lease_free(l);
}

static void test_exists_and_delete(void **state)
{
    fake_t *f = *state;
    static const char key[] = "lock:\0x";
    dl_error_t err;
    int out = -1;

    push_ok(f, RP_INT(1));
    assert_int_equal(dl_lock_exists(&f->t, key, sizeof(key) - 1, &out, &err), DL_OK);
    assert_int_equal(out, 1);
    expect_cmd(&f->calls[0].cmd[0], 2, S("EXISTS"), B(key));
    push_ok(f, RP_INT(0));
    assert_int_equal(dl_lock_exists(&f->t, key, sizeof(key) - 1, &out, &err), DL_OK);
    assert_int_equal(out, 0);

    /* exists is a read: retried once when the connection broke... */
    push_fail(f, DL_ERR_IO, "reset");
    push_ok(f, RP_INT(1));
    assert_int_equal(dl_lock_exists(&f->t, key, sizeof(key) - 1, &out, &err), DL_OK);
    assert_int_equal(out, 1);
    assert_int_equal(f->ncalls, 4);
    /* ...but not after a timeout. */
    push_fail(f, DL_ERR_TIMEOUT, "slow");
    assert_int_equal(dl_lock_exists(&f->t, key, sizeof(key) - 1, &out, &err), DL_ERR_TIMEOUT);
    assert_int_equal(f->ncalls, 5);

    push_ok(f, RP_INT(1));
    assert_int_equal(dl_lock_delete(&f->t, key, sizeof(key) - 1, &out, &err), DL_OK);
    assert_int_equal(out, 1);
    expect_cmd(&f->calls[5].cmd[0], 2, S("DEL"), B(key));
    push_ok(f, RP_INT(0));
    assert_int_equal(dl_lock_delete(&f->t, key, sizeof(key) - 1, &out, &err), DL_OK);
    assert_int_equal(out, 0);
    assert_int_equal(f->ncalls, 7);
}

static void test_delete_never_retried(void **state)
{
    fake_t *f = *state;
    dl_error_t err;
    int out = -1;
    static const dl_status_t codes[] = {DL_ERR_TIMEOUT, DL_ERR_IO, DL_ERR_PROTOCOL};
    size_t k;

    for (k = 0; k < 3; k++) {
        size_t before = f->ncalls;
        push_fail(f, codes[k], "lost");
        /* A second step is queued: a retry would consume it and succeed. */
        push_ok(f, RP_INT(1));
        assert_int_equal(dl_lock_delete(&f->t, "lock:d", 6, &out, &err), codes[k]);
        assert_int_equal(out, 0);
        assert_int_equal(f->ncalls - before, 1);
        f->nsteps = f->next = 0;
    }
}

/* ---- fencing and refresh_many ---------------------------------------- */

static void expect_fenced_acquire(const rec_cmd_t *c, const char *head, const char *script, const dl_lease_t *l,
                                  const char *ttl)
{
    expect_cmd(c, 8, S(head), S(script), S("2"), l->key, l->key_len, l->fence_key, l->fence_key_len, l->token,
               l->token_len, S(ttl), S("1"));
}

static void test_lease_fence_key_same_slot(void **state)
{
    dl_lease_t *a = mk_lease("lock:", "acct:7", "t", 1000);
    dl_lease_t *b = mk_lease("lock:", "{acct}:7", "t", 1000);
    (void)state;
    /* Same Cluster slot: the key followed by itself as the hash tag, or a plain
     * suffix when the key has a tag; it starts with the lock key (ACL ~prefix*). */
    assert_int_equal(a->fence_key_len, strlen("lock:acct:7{lock:acct:7}:fence"));
    assert_memory_equal(a->fence_key, "lock:acct:7{lock:acct:7}:fence", a->fence_key_len);
    assert_int_equal(a->fence_key[a->fence_key_len], '\0');
    assert_int_equal(b->fence_key_len, strlen("lock:{acct}:7:fence"));
    assert_memory_equal(b->fence_key, "lock:{acct}:7:fence", b->fence_key_len);
    assert_int_equal(a->fencing, 0);
    assert_int_equal(a->fence, 0);
    dl_lease_free(a);
    dl_lease_free(b);
}

static void test_acquire_fenced(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_lease("lock:", "fz", "tok", 1500);
    dl_acquire_opts_t o = opts_wait(0, 1000, 0);
    dl_acquire_result_t res;
    dl_error_t err;
    int64_t gap;

    l->fencing = 1;
    /* Granted: {1, fence}. One call, one command, both keys through KEYS. */
    push_ok(f, RP_ARR2(1, 7));
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    assert_int_equal(l->fence, 7);
    assert_true(dl_lease_validity_us(l) > 1400000);
    assert_int_equal(f->ncalls, 1);
    assert_int_equal(f->calls[0].n, 1);
    expect_fenced_acquire(&f->calls[0].cmd[0], "EVALSHA", DL_SCRIPT_ACQUIRE_SHA, l, "1500");

    /* Taken: {0, holder PTTL}, which caps the sleep while waiting; NOSCRIPT falls back to EVAL. */
    l->fence = 0;
    o = opts_wait(1000000, 200000, 0);
    push_ok(f, RP_ARR2(0, 5));
    push_ok(f, RP_ERR(NOSCRIPT_MSG));
    push_ok(f, RP_ARR2(1, 8));
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    assert_int_equal(res.contended, 1);
    assert_int_equal(l->fence, 8);
    assert_int_equal(f->ncalls, 4);
    assert_int_equal(f->calls[1].n, 1);  /* no separate PTTL: the script answers it */
    expect_fenced_acquire(&f->calls[3].cmd[0], "EVAL", DL_SCRIPT_ACQUIRE, l, "1500");
    gap = f->calls[2].t_ns - f->calls[1].t_ns;
    assert_true(gap >= 4500000 && gap < 100000000);

    /* A lost reply: not retried (it could double the grant); released by token. */
    push_fail(f, DL_ERR_TIMEOUT, "lost");
    push_ok(f, RP_INT(1));
    o.wait_us = 0;
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_ERR_TIMEOUT);
    assert_int_equal(res.acquired, 0);
    assert_int_equal(f->ncalls, 6);
    expect_release_cmd(&f->calls[5].cmd[0], l);

    /* A malformed reply is never success. */
    push_ok(f, RP_INT(1));
    push_ok(f, RP_INT(0));
    assert_int_not_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 0);
    dl_lease_free(l);
}

static void test_refresh_many(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l[2];
    int extended[2] = {-1, -1};
    dl_error_t err;
    int64_t until0;

    l[0] = mk_lease("lock:", "r0", "t0", 1000);
    l[1] = mk_lease("lock:", "r1", "t1", 2500);
    l[0]->valid_until_ns = until0 = 12345;
    push_ok(f, RP_INT(1), RP_INT(0));
    assert_int_equal(dl_lock_refresh_many(&f->t, 2, l, extended, &err), DL_OK);
    assert_int_equal(extended[0], 1);
    assert_int_equal(extended[1], 0);
    assert_int_equal(f->ncalls, 1);
    assert_int_equal(f->calls[0].n, 2);
    expect_cmd(&f->calls[0].cmd[0], 6, S("EVALSHA"), S(DL_SCRIPT_REFRESH_SHA), S("1"), S("lock:r0"), S("t0"), S("1000"));
    expect_cmd(&f->calls[0].cmd[1], 6, S("EVALSHA"), S(DL_SCRIPT_REFRESH_SHA), S("1"), S("lock:r1"), S("t1"), S("2500"));
    /* The caller owns the schedule: lease fields untouched. */
    assert_int_equal(l[0]->valid_until_ns, until0);
    assert_int_equal(l[0]->ttl_ms, 1000);

    push_ok(f, RP_ERR(NOSCRIPT_MSG), RP_INT(1));
    push_ok(f, RP_INT(1));
    assert_int_equal(dl_lock_refresh_many(&f->t, 2, l, extended, &err), DL_OK);
    assert_int_equal(extended[0], 1);
    assert_int_equal(extended[1], 1);
    assert_int_equal(f->ncalls, 3);
    assert_int_equal(f->calls[2].n, 1);
    dl_lease_free(l[0]);
    dl_lease_free(l[1]);
}

/* ---- binary safety --------------------------------------------------- */

static void test_binary_keys_and_tokens(void **state)
{
    static const char prefix[] = "pre\0";
    static const char name[] = "na\0me \"quoted\" ]]";
    static const char token[] = "to\0k'\"]]\\\n";
    static const char key[] = "pre\0na\0me \"quoted\" ]]";
    fake_t *f = *state;
    dl_error_t err;
    dl_lease_t *l = dl_lease_new(prefix, sizeof(prefix) - 1, name, sizeof(name) - 1, token, sizeof(token) - 1, 2000,
                                 &err);
    dl_acquire_opts_t o = opts_wait(10000, 1000, 0);
    dl_acquire_result_t res;
    int released, extended;
    int64_t pttl;
    dl_lease_t *many[1];

    assert_non_null(l);
    push_ok(f, RP_OK, RP_INT(2000));
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    expect_cmd(&f->calls[0].cmd[0], 6, S("SET"), B(key), B(token), S("NX"), S("PX"), S("2000"));
    expect_cmd(&f->calls[0].cmd[1], 2, S("PTTL"), B(key));

    push_ok(f, RP_INT(1));
    assert_int_equal(dl_lock_refresh(&f->t, l, 3000, &extended, &err), DL_OK);
    expect_cmd(&f->calls[1].cmd[0], 6, S("EVALSHA"), S(DL_SCRIPT_REFRESH_SHA), S("1"), B(key), B(token), S("3000"));

    push_ok(f, RP_INT(100));
    assert_int_equal(dl_lock_status(&f->t, l, &pttl, &err), DL_OK);
    expect_cmd(&f->calls[2].cmd[0], 5, S("EVALSHA"), S(DL_SCRIPT_STATUS_SHA), S("1"), B(key), B(token));

    push_ok(f, RP_ERR(NOSCRIPT_MSG));
    push_ok(f, RP_INT(1));
    assert_int_equal(dl_lock_release(&f->t, l, &released, &err), DL_OK);
    expect_cmd(&f->calls[3].cmd[0], 5, S("EVALSHA"), S(DL_SCRIPT_RELEASE_SHA), S("1"), B(key), B(token));
    expect_cmd(&f->calls[4].cmd[0], 5, S("EVAL"), S(DL_SCRIPT_RELEASE), S("1"), B(key), B(token));

    many[0] = l;
    push_ok(f, RP_INT(0));
    assert_int_equal(dl_lock_release_many(&f->t, 1, many, &released, &err), DL_OK);
    expect_cmd(&f->calls[5].cmd[0], 5, S("EVALSHA"), S(DL_SCRIPT_RELEASE_SHA), S("1"), B(key), B(token));

    /* Ambiguous acquire: the cleanup carries the same binary key and token. */
    push_fail(f, DL_ERR_TIMEOUT, "lost");
    push_ok(f, RP_INT(1));
    o.wait_us = 0;
    assert_int_equal(dl_lock_acquire(&f->t, l, &o, &res, &err), DL_ERR_TIMEOUT);
    expect_cmd(&f->calls[7].cmd[0], 5, S("EVALSHA"), S(DL_SCRIPT_RELEASE_SHA), S("1"), B(key), B(token));
    dl_lease_free(l);
}

static void test_scripts_use_keys_and_argv_only(void **state)
{
    (void)state;
    /* The scripts reference KEYS[1]/ARGV[n]; nothing is spliced in. */
    assert_non_null(strstr(DL_SCRIPT_RELEASE, "KEYS[1]"));
    assert_non_null(strstr(DL_SCRIPT_RELEASE, "ARGV[1]"));
    assert_non_null(strstr(DL_SCRIPT_REFRESH, "ARGV[2]"));
    assert_non_null(strstr(DL_SCRIPT_STATUS, "ARGV[1]"));
    assert_int_equal(strlen(DL_SCRIPT_RELEASE_SHA), 40);
    assert_int_equal(strlen(DL_SCRIPT_REFRESH_SHA), 40);
    assert_int_equal(strlen(DL_SCRIPT_STATUS_SHA), 40);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_lease_new_random_token),
        T(test_lease_new_given_token),
        T(test_lease_validity),
        T(test_acquire_no_wait_sends_one_set),
        T(test_acquire_large_ttl),
        T(test_acquire_not_acquired_on_nil),
        T(test_acquire_wait_pipelines_set_and_pttl_until_deadline),
        T(test_acquire_wait_then_ok),
        T(test_acquire_sleep_capped_by_holder_pttl),
        T(test_acquire_unknown_pttl_does_not_cap),
        T(test_acquire_ambiguous_releases_by_token),
        T(test_acquire_ambiguous_cleanup_fails_keeps_first_error),
        T(test_acquire_server_error_no_cleanup),
        T(test_acquire_long_server_error_truncated),
        T(test_acquire_connect_failure_no_cleanup),
        T(test_acquire_interrupted),
        T(test_acquire_interrupt_hook_not_called_without_sleep),
        T(test_acquire_validity_from_send_time),
        T(test_acquire_unexpected_reply),
        T(test_release),
        T(test_release_noscript_falls_back_to_eval),
        T(test_release_server_error),
        T(test_release_transport_failure_retried_once),
        T(test_release_many),
        T(test_release_many_noscript_in_the_middle),
        T(test_release_many_all_noscript),
        T(test_refresh),
        T(test_refresh_noscript),
        T(test_status),
        T(test_exists_and_delete),
        T(test_delete_never_retried),
        T(test_lease_fence_key_same_slot),
        T(test_acquire_fenced),
        T(test_refresh_many),
        T(test_binary_keys_and_tokens),
        T(test_scripts_use_keys_and_argv_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
