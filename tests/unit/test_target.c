/*
 * dl_target: which primitives each topology runs. Redlock refuses the
 * semaphore, shared locks and multi-locks with DL_ERR_ARG, saying why,
 * before any connection is made (the servers here do not exist). A release
 * that fails on the network marks its lease release_unsure, and a key found
 * gone afterwards is ours only while the lease is valid (dl_lease.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_target.h"
#include "dl_clock.h"

static dl_target_t *redlock_of_three(void)
{
    dl_target_config_t cfg;
    dl_error_t err;
    dl_target_t *tg;
    size_t i;
    memset(&cfg, 0, sizeof(cfg));
    cfg.kind = DL_TARGET_REDLOCK;
    cfg.n = 3;
    cfg.servers = calloc(3, sizeof(*cfg.servers));
    assert_non_null(cfg.servers);
    for (i = 0; i < 3; i++) {
        char uri[64];
        int len = snprintf(uri, sizeof(uri), "redis://127.0.0.1:%zu", i + 1);
        assert_int_equal(dl_uri_parse(uri, (size_t)len, &cfg.servers[i], &err), DL_OK);
    }
    tg = dl_target_new(&cfg, &err);
    if (!tg) fail_msg("dl_target_new: %s", err.msg);
    return tg;
}

static void test_redlock_refuses_other_primitives(void **state)
{
    dl_target_t *tg = redlock_of_three();
    dl_error_t err;
    dl_acquire_opts_t o;
    dl_acquire_result_t res;
    dl_lease_t *l = dl_lease_new("p:", 2, "n", 1, NULL, 0, 1000, &err);
    dl_lease_t *two[2];
    int result;
    (void)state;
    assert_non_null(l);
    memset(&o, 0, sizeof(o));
    l->kind = DL_LEASE_PERMITS;
    l->permits = 1;
    l->limit = 2;
    assert_int_equal(dl_target_acquire(tg, l, &o, &res, &err), DL_ERR_ARG);
    assert_non_null(strstr(err.msg, "semaphores are not offered on Redlock"));
    assert_int_equal(res.acquired, 0);
    l->kind = DL_LEASE_SHARED;
    assert_int_equal(dl_target_acquire(tg, l, &o, &res, &err), DL_ERR_ARG);
    assert_non_null(strstr(err.msg, "shared locks are not offered on Redlock"));
    l->kind = DL_LEASE_WRITE;
    assert_int_equal(dl_target_acquire(tg, l, &o, &res, &err), DL_ERR_ARG);
    assert_int_equal(dl_target_promote(tg, l, 1000, &result, &err), DL_ERR_ARG);
    assert_int_equal(dl_target_demote(tg, l, 1000, &result, &err), DL_ERR_ARG);
    l->kind = DL_LEASE_EXCLUSIVE;
    two[0] = l;
    two[1] = l;
    assert_int_equal(dl_target_multi_acquire(tg, 2, two, &o, &res, &err), DL_ERR_ARG);
    assert_non_null(strstr(err.msg, "multi-locks are not offered on Redlock"));
    dl_lease_free(l);
    dl_target_free(tg);
}

static void test_failed_release_marks_the_lease(void **state)
{
    dl_target_t *tg = redlock_of_three();
    dl_error_t err;
    dl_lease_t *l = dl_lease_new("p:", 2, "n", 1, NULL, 0, 1000, &err);
    dl_lease_t *one[1];
    int released = 1;
    (void)state;
    assert_non_null(l);
    l->valid_until_ns = dl_clock_now_ns() + 60 * 1000000000LL;
    /* never failed: a key found gone is not ours */
    assert_int_equal(l->release_unsure, 0);
    assert_int_equal(dl_lease_gone_by_our_release(l), 0);
    /* no quorum of masters answered (DL_ERR_QUORUM: those that did may have released), the lease marked */
    assert_int_equal(dl_target_release(tg, l, &released, &err), DL_ERR_QUORUM);
    assert_int_equal(released, 0);
    assert_int_equal(l->release_unsure, 1);
    assert_int_equal(dl_lease_gone_by_our_release(l), 1);
    /* past the validity, expiry and our release cannot be told apart */
    l->valid_until_ns = dl_clock_now_ns() - 1;
    assert_int_equal(dl_lease_gone_by_our_release(l), 0);
    /* the batch form marks each lease it could not release */
    l->release_unsure = 0;
    one[0] = l;
    assert_int_equal(dl_target_release_many(tg, 1, one, &released, &err), DL_ERR_QUORUM);
    assert_int_equal(l->release_unsure, 1);
    dl_lease_free(l);
    dl_target_free(tg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redlock_refuses_other_primitives),
        cmocka_unit_test(test_failed_release_marks_the_lease),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
