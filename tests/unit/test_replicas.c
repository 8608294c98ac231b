/*
 * test_replicas — min_replicas (dl_replicas, in dl_acquire and dl_lock): WAIT
 * in the same round trip as each grant and refresh, and the undo of a grant
 * that too few replicas acknowledged.
 *
 * Reuses the fake transport of test_lock.c (its main() renamed away), so both
 * files assert the wire protocol the same way.
 */
#define main test_lock_main_unused
#include "test_lock.c"
#undef main

#include <string.h>

static void expect_wait(const rec_cmd_t *c, const char *n, const char *ms)
{
    expect_cmd(c, 3, S("WAIT"), S(n), S(ms));
}

static dl_lease_t *mk_replicated(const char *name, const char *token, int64_t ttl_ms, int min, int64_t timeout_ms)
{
    dl_lease_t *l = mk_lease("lock:", name, token, ttl_ms);
    l->min_replicas = min;
    l->replica_timeout_ms = timeout_ms;
    return l;
}

/* dl_lock_acquire without waiting (the opts of every acquire here). */
static dl_status_t acquire(fake_t *f, dl_lease_t *l, dl_acquire_result_t *res, dl_error_t *err)
{
    dl_acquire_opts_t o = opts_wait(0, 1000, 0);
    return dl_lock_acquire(&f->t, l, &o, res, err);
}

/* A grant undone: not acquired, the release sent right after (EVALSHA). */
static void expect_undone(const fake_t *f, const dl_acquire_result_t *res, const dl_lease_t *l)
{
    assert_int_equal(res->acquired, 0);
    assert_int_equal(f->ncalls, 2);
    expect_release(&f->calls[1].cmd[0], 0, l);
}

/* The tryLock path: SET NX PX and WAIT in one call, the read timeout extended by WAIT's. */
static void test_set_with_wait_granted(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_replicated("a", "tok-a", 1500, 1, 200);
    dl_acquire_result_t res;
    dl_error_t err;

    push_ok(f, RP_OK, RP_INT(1));
    assert_int_equal(acquire(f, l, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    assert_int_equal(f->ncalls, 1);
    assert_int_equal(f->calls[0].n, 2);
    assert_int_equal(f->calls[0].extra_timeout_us, 200000);
    expect_cmd(&f->calls[0].cmd[0], 6, S("SET"), S("lock:a"), S("tok-a"), S("NX"), S("PX"), S("1500"));
    expect_wait(&f->calls[0].cmd[1], "1", "200");
    assert_true(dl_lease_validity_us(l) > 0);
    dl_lease_free(l);
}

/* More acknowledgements than asked is fine too (WAIT answers all it counted). */
static void test_set_with_wait_more_acks(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_replicated("a", "tok-a", 1500, 2, 50);
    dl_acquire_result_t res;
    dl_error_t err;

    push_ok(f, RP_OK, RP_INT(3));
    assert_int_equal(acquire(f, l, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    expect_wait(&f->calls[0].cmd[1], "2", "50");
    dl_lease_free(l);
}

/* Too few acknowledgements: the grant is released with the same token, DL_ERR_REPLICATION. */
static void test_set_with_wait_too_few_undone(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_replicated("a", "tok-a", 1500, 1, 200);
    dl_acquire_result_t res;
    dl_error_t err;

    push_ok(f, RP_OK, RP_INT(0));
    push_ok(f, RP_INT(1));   /* the release */
    assert_int_equal(acquire(f, l, &res, &err), DL_ERR_REPLICATION);
    assert_int_equal(err.code, DL_ERR_REPLICATION);
    assert_non_null(strstr(err.msg, "0 of 1 replicas acknowledged within 200 ms"));
    assert_non_null(strstr(err.msg, ENDPOINT));
    assert_int_equal(res.acquired, 0);
    assert_int_equal(l->valid_until_ns, 0);
    assert_int_equal(f->ncalls, 2);
    assert_int_equal(f->calls[1].n, 1);
    expect_release(&f->calls[1].cmd[0], 0, l);
    dl_lease_free(l);
}

/* The undo survives an empty script cache (NOSCRIPT -> EVAL) and is the last thing sent. */
static void test_undo_noscript(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_replicated("a", "tok-a", 1500, 1, 10);
    dl_acquire_result_t res;
    dl_error_t err;

    push_ok(f, RP_OK, RP_INT(0));
    push_ok(f, RP_ERR(NOSCRIPT_MSG));
    push_ok(f, RP_INT(1));
    assert_int_equal(acquire(f, l, &res, &err), DL_ERR_REPLICATION);
    assert_non_null(strstr(err.msg, "0 of 1 replicas acknowledged within 10 ms"));
    assert_int_equal(f->ncalls, 3);
    expect_release(&f->calls[1].cmd[0], 0, l);
    expect_release(&f->calls[2].cmd[0], 1, l);
    dl_lease_free(l);
}

/* Not granted: nothing was written, WAIT's count does not matter, nothing is undone. */
static void test_set_not_granted_ignores_wait(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_replicated("a", "tok-a", 1500, 1, 200);
    dl_acquire_result_t res;
    dl_error_t err;

    push_ok(f, RP_NIL, RP_INT(0));
    push_ok(f, RP_INT(-3));   /* the kind probe of a failed try (a server without SET ... NX GET) */
    assert_int_equal(acquire(f, l, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 0);
    assert_int_equal(res.contended, 1);
    assert_int_equal(f->ncalls, 2);
    dl_lease_free(l);
}

/* WAIT refused (an ACL without it): the grant is undone all the same, DL_ERR_SERVER. */
static void test_wait_refused_undone(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_replicated("a", "tok-a", 1500, 1, 200);
    dl_acquire_result_t res;
    dl_error_t err;

    push_ok(f, RP_OK, RP_ERR("NOPERM User dl has no permissions to run the 'wait' command"));
    push_ok(f, RP_INT(1));
    assert_int_equal(acquire(f, l, &res, &err), DL_ERR_SERVER);
    assert_non_null(strstr(err.msg, "WAIT"));
    expect_undone(f, &res, l);
    dl_lease_free(l);
}

/* A lost reply of the pair: the ambiguous-acquire undo as without WAIT (EVAL, never retried). */
static void test_set_with_wait_lost_reply(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_replicated("a", "tok-a", 1500, 1, 200);
    dl_acquire_result_t res;
    dl_error_t err;

    push_fail(f, DL_ERR_TIMEOUT, "lost");
    push_ok(f, RP_INT(1));
    assert_int_equal(acquire(f, l, &res, &err), DL_ERR_TIMEOUT);
    assert_int_equal(f->ncalls, 2);
    assert_int_equal(f->calls[0].n, 2);
    assert_int_equal(f->calls[0].extra_timeout_us, 200000);
    expect_release(&f->calls[1].cmd[0], 1, l);
    dl_lease_free(l);
}

/* The script path (fencing): EVALSHA acquire + WAIT; NOSCRIPT sends both again, the script by EVAL. */
static void test_script_with_wait_noscript(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_replicated("a", "tok-a", 1500, 2, 300);
    dl_acquire_result_t res;
    dl_error_t err;

    l->fencing = 1;
    push_ok(f, RP_ERR(NOSCRIPT_MSG), RP_INT(2));
    push_ok(f, RP_ARR2(1, 7), RP_INT(2));
    assert_int_equal(acquire(f, l, &res, &err), DL_OK);
    assert_int_equal(res.acquired, 1);
    assert_int_equal(l->fence, 7);
    assert_int_equal(f->ncalls, 2);
    assert_int_equal(f->calls[0].n, 2);
    assert_int_equal(f->calls[0].extra_timeout_us, 300000);
    assert_true(IS_ACQUIRE(&f->calls[0].cmd[0]));
    assert_true(is_cmd(&f->calls[0].cmd[0], "EVALSHA"));
    expect_wait(&f->calls[0].cmd[1], "2", "300");
    assert_int_equal(f->calls[1].n, 2);
    assert_true(is_cmd(&f->calls[1].cmd[0], "EVAL"));
    assert_true(IS_ACQUIRE(&f->calls[1].cmd[0]));
    expect_wait(&f->calls[1].cmd[1], "2", "300");
    assert_int_equal(f->calls[1].extra_timeout_us, 300000);
    dl_lease_free(l);
}

/* The script path granted with too few acknowledgements: undone. */
static void test_script_with_wait_too_few(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_replicated("a", "tok-a", 1500, 2, 300);
    dl_acquire_result_t res;
    dl_error_t err;

    l->fencing = 1;
    push_ok(f, RP_ARR2(1, 9), RP_INT(1));
    push_ok(f, RP_INT(1));
    assert_int_equal(acquire(f, l, &res, &err), DL_ERR_REPLICATION);
    assert_non_null(strstr(err.msg, "1 of 2 replicas acknowledged within 300 ms"));
    expect_undone(f, &res, l);
    dl_lease_free(l);
}

/* A timeout of 0 would make WAIT block forever: at least 1 ms is sent. */
static void test_wait_timeout_never_zero(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_replicated("a", "tok-a", 1500, 1, 0);
    dl_acquire_result_t res;
    dl_error_t err;

    push_ok(f, RP_OK, RP_INT(1));
    assert_int_equal(acquire(f, l, &res, &err), DL_OK);
    expect_wait(&f->calls[0].cmd[1], "1", "1");
    assert_int_equal(f->calls[0].extra_timeout_us, 1000);
    dl_lease_free(l);
}

/* Refresh: the script and WAIT in one round trip; too few: DL_ERR_REPLICATION, the lease's fields kept. */
static void test_refresh_with_wait(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_replicated("f", "tok-f", 1500, 1, 100);
    dl_error_t err;
    int extended = -1;
    int64_t old_until;

    l->valid_until_ns = old_until = dl_clock_now_ns() + 1000000;
    push_ok(f, RP_INT(1), RP_INT(1));
    assert_int_equal(dl_lock_refresh(&f->t, l, 4000, &extended, &err), DL_OK);
    assert_int_equal(extended, 1);
    assert_int_equal(l->ttl_ms, 4000);
    assert_true(l->valid_until_ns > old_until);
    assert_int_equal(f->calls[0].n, 2);
    assert_int_equal(f->calls[0].extra_timeout_us, 100000);
    expect_cmd(&f->calls[0].cmd[0], 6, S("EVALSHA"), S(DL_SCRIPT_REFRESH_SHA), S("1"), S("lock:f"), S("tok-f"),
               S("4000"));
    expect_wait(&f->calls[0].cmd[1], "1", "100");

    old_until = l->valid_until_ns;
    push_ok(f, RP_INT(1), RP_INT(0));
    assert_int_equal(dl_lock_refresh(&f->t, l, 9000, &extended, &err), DL_ERR_REPLICATION);
    assert_non_null(strstr(err.msg, "0 of 1 replicas acknowledged within 100 ms"));
    assert_int_equal(extended, 0);
    assert_int_equal(l->ttl_ms, 4000);
    assert_int_equal(l->valid_until_ns, old_until);
    assert_int_equal(f->ncalls, 2);   /* no undo of a refresh: the lease stays as it is on the master */

    /* Not ours: nothing written, WAIT not judged. */
    push_ok(f, RP_INT(0), RP_INT(0));
    assert_int_equal(dl_lock_refresh(&f->t, l, 9000, &extended, &err), DL_OK);
    assert_int_equal(extended, 0);

    /* NOSCRIPT: both again, the script by EVAL. */
    push_ok(f, RP_ERR(NOSCRIPT_MSG), RP_INT(1));
    push_ok(f, RP_INT(1), RP_INT(1));
    assert_int_equal(dl_lock_refresh(&f->t, l, 5000, &extended, &err), DL_OK);
    assert_int_equal(extended, 1);
    assert_true(is_cmd(&f->calls[4].cmd[0], "EVAL"));
    expect_wait(&f->calls[4].cmd[1], "1", "100");

    /* A lost reply is sent again (refresh retries), WAIT with it, the timeout extended both times. */
    push_fail(f, DL_ERR_TIMEOUT, "t1");
    push_ok(f, RP_INT(1), RP_INT(1));
    assert_int_equal(dl_lock_refresh(&f->t, l, 5000, &extended, &err), DL_OK);
    assert_int_equal(extended, 1);
    assert_int_equal(f->calls[5].extra_timeout_us, 100000);
    assert_int_equal(f->calls[6].extra_timeout_us, 100000);
    assert_int_equal(f->calls[6].n, 2);
    dl_lease_free(l);
}

/* The watchdog's batch: the refreshes, then one WAIT for the strictest lease; too few: the tick fails. */
static void test_refresh_many_waits(void **state)
{
    fake_t *f = *state;
    dl_lease_t *a = mk_replicated("a", "ta", 1500, 1, 100), *b = mk_replicated("b", "tb", 1500, 2, 300);
    dl_lease_t *both[2];
    dl_error_t err;
    int ext[2] = {-1, -1};

    both[0] = a;
    both[1] = b;
    push_ok(f, RP_INT(1), RP_INT(1));
    push_ok(f, RP_INT(2));
    assert_int_equal(dl_lock_refresh_many(&f->t, 2, both, ext, &err), DL_OK);
    assert_int_equal(ext[0], 1);
    assert_int_equal(ext[1], 1);
    assert_int_equal(f->calls[0].n, 2);
    assert_int_equal(f->calls[1].n, 1);
    expect_wait(&f->calls[1].cmd[0], "2", "300");
    assert_int_equal(f->calls[1].extra_timeout_us, 300000);

    push_ok(f, RP_INT(1), RP_INT(1));
    push_ok(f, RP_INT(1));
    assert_int_equal(dl_lock_refresh_many(&f->t, 2, both, ext, &err), DL_ERR_REPLICATION);
    assert_non_null(strstr(err.msg, "1 of 2 replicas acknowledged within 300 ms"));

    /* No lease asks for replicas: no WAIT. */
    a->min_replicas = b->min_replicas = 0;
    push_ok(f, RP_INT(1), RP_INT(1));
    assert_int_equal(dl_lock_refresh_many(&f->t, 2, both, ext, &err), DL_OK);
    assert_int_equal(f->ncalls, 5);
    dl_lease_free(a);
    dl_lease_free(b);
}

/* The native refresh (SET IFEQ) carries WAIT too. */
static void test_native_refresh_with_wait(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_replicated("a", "ta", 1500, 1, 100);
    dl_error_t err;
    int extended = -1;

    f->caps = DL_CAP_KNOWN | DL_CAP_DELIFEQ | DL_CAP_SET_IFEQ | DL_CAP_SCRIPTING;
    push_ok(f, RP_OK, RP_INT(0));
    assert_int_equal(dl_lock_refresh(&f->t, l, 3000, &extended, &err), DL_ERR_REPLICATION);
    assert_int_equal(extended, 0);
    assert_int_equal(l->ttl_ms, 1500);
    expect_cmd(&f->calls[0].cmd[0], 7, S("SET"), S("lock:a"), S("ta"), S("IFEQ"), S("ta"), S("PX"), S("3000"));
    expect_wait(&f->calls[0].cmd[1], "1", "100");
    push_ok(f, RP_OK, RP_INT(1));
    assert_int_equal(dl_lock_refresh(&f->t, l, 3000, &extended, &err), DL_OK);
    assert_int_equal(extended, 1);
    assert_int_equal(l->ttl_ms, 3000);
    dl_lease_free(l);
}

/* min_replicas 0: no WAIT anywhere (the single-command shapes of test_lock). */
static void test_off_sends_no_wait(void **state)
{
    fake_t *f = *state;
    dl_lease_t *l = mk_replicated("a", "tok-a", 1500, 0, 500);
    dl_acquire_result_t res;
    dl_error_t err;
    int extended = -1;

    push_ok(f, RP_OK);
    push_ok(f, RP_INT(1));
    assert_int_equal(acquire(f, l, &res, &err), DL_OK);
    assert_int_equal(dl_lock_refresh(&f->t, l, 2000, &extended, &err), DL_OK);
    assert_int_equal(f->calls[0].n, 1);
    assert_int_equal(f->calls[0].extra_timeout_us, 0);
    assert_int_equal(f->calls[1].n, 1);
    assert_int_equal(f->calls[1].extra_timeout_us, 0);
    dl_lease_free(l);
}

/* dl_lease_dup keeps the settings (a deferred release's copy, the watchdog's). */
static void test_dup_keeps_settings(void **state)
{
    dl_lease_t *l = mk_replicated("a", "tok-a", 1500, 3, 250), *d;
    (void)state;
    d = dl_lease_dup(l);
    assert_non_null(d);
    assert_int_equal(d->min_replicas, 3);
    assert_int_equal(d->replica_timeout_ms, 250);
    dl_lease_free(d);
    dl_lease_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_set_with_wait_granted),
        T(test_set_with_wait_more_acks),
        T(test_set_with_wait_too_few_undone),
        T(test_undo_noscript),
        T(test_set_not_granted_ignores_wait),
        T(test_wait_refused_undone),
        T(test_set_with_wait_lost_reply),
        T(test_script_with_wait_noscript),
        T(test_script_with_wait_too_few),
        T(test_wait_timeout_never_zero),
        T(test_refresh_with_wait),
        T(test_refresh_many_waits),
        T(test_native_refresh_with_wait),
        T(test_off_sends_no_wait),
        T(test_dup_keeps_settings),
    };
    (void)test_lock_main_unused;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
