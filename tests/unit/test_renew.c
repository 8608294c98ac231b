/* dl_renew: the watchdog's schedule on a fake clock (ttl/3, batching, ceiling, retry, loss). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dl_renew.h"

#define MS 1000000LL

static dl_renew_entry_t *entry(int64_t ttl_ms)
{
    dl_renew_entry_t *e = calloc(1, sizeof(*e));
    e->lease = dl_lease_new("p:", 2, "n", 1, "tok", 3, ttl_ms, NULL);
    return e;
}

static void entry_free(dl_renew_entry_t *e)
{
    dl_lease_free(e->lease);
    free(e);
}

static void test_period_is_a_third_of_ttl(void **state)
{
    (void)state;
    assert_int_equal(dl_renew_period_ns(3000), 1000 * MS);
    assert_int_equal(dl_renew_period_ns(600), 200 * MS);
    assert_int_equal(dl_renew_period_ns(1), 1 * MS);  /* floor: never a busy loop */
}

static void test_due_at_ttl_third_not_before(void **state)
{
    dl_renew_sched_t s = {0};
    dl_renew_entry_t *e = entry(3000), *out[4];
    (void)state;
    assert_int_equal(dl_renew_add(&s, e, 0, 0), 0);
    assert_int_equal(dl_renew_next_wakeup(&s), 1000 * MS);
    assert_int_equal(dl_renew_collect(&s, 999 * MS - 500 * MS, out, 4), 0);  /* before the window */
    assert_int_equal(dl_renew_collect(&s, 1000 * MS, out, 4), 1);
    assert_ptr_equal(out[0], e);
    assert_true(e->in_flight);
    /* In flight: neither collected again nor a wake-up reason. */
    assert_int_equal(dl_renew_collect(&s, 1100 * MS, out, 4), 0);
    assert_int_equal(dl_renew_next_wakeup(&s), INT64_MAX);
    /* Renewed (sent at 1000 ms): next due one period later. */
    dl_renew_result(e, 1000 * MS, 1001 * MS, 1);
    assert_false(e->in_flight);
    assert_int_equal(e->next_ns, 2000 * MS);
    assert_int_equal(e->expires_ns, 4000 * MS);
    assert_int_equal(e->state, DL_RENEW_ACTIVE);
    dl_renew_sched_free(&s);
    entry_free(e);
}

static void test_batching_takes_leases_due_within_half_a_period(void **state)
{
    dl_renew_sched_t s = {0};
    dl_renew_entry_t *a = entry(3000), *b = entry(3000), *c = entry(3000), *out[4];
    (void)state;
    dl_renew_add(&s, a, 0, 0);          /* due 1000 ms */
    dl_renew_add(&s, b, 400 * MS, 0);   /* due 1400 ms: within 500 ms of the tick */
    dl_renew_add(&s, c, 600 * MS, 0);   /* due 1600 ms: outside */
    assert_int_equal(dl_renew_next_wakeup(&s), 1000 * MS);
    assert_int_equal(dl_renew_collect(&s, 1000 * MS, out, 4), 2);
    assert_true(a->in_flight && b->in_flight && !c->in_flight);
    dl_renew_sched_free(&s);
    entry_free(a);
    entry_free(b);
    entry_free(c);
}

static void test_ceiling_stops_renewals(void **state)
{
    dl_renew_sched_t s = {0};
    dl_renew_entry_t *e = entry(600), *out[2];
    int64_t now = 0;
    int renewals = 0;
    (void)state;
    dl_renew_add(&s, e, 0, 1000 * MS);  /* max_hold 1 s */
    while (now < 3000 * MS) {
        int64_t at = dl_renew_next_wakeup(&s);
        if (at == INT64_MAX) break;
        now = at;
        if (dl_renew_collect(&s, now, out, 2) == 1) {
            renewals++;
            dl_renew_result(e, now, now, 1);
        }
    }
    /* Renewals at 200, 400, 600, 800 ms; at 1000 ms the ceiling: no more. */
    assert_int_equal(renewals, 4);
    assert_int_equal(e->state, DL_RENEW_CEILING);
    assert_int_equal(dl_renew_next_wakeup(&s), INT64_MAX);
    dl_renew_sched_free(&s);
    entry_free(e);
}

static void test_not_ours_is_lost(void **state)
{
    dl_renew_sched_t s = {0};
    dl_renew_entry_t *e = entry(600), *out[1];
    (void)state;
    dl_renew_add(&s, e, 0, 0);
    assert_int_equal(dl_renew_collect(&s, 200 * MS, out, 1), 1);
    dl_renew_result(e, 200 * MS, 201 * MS, 0);
    assert_int_equal(e->state, DL_RENEW_LOST);
    assert_int_equal(dl_renew_collect(&s, 10000 * MS, out, 1), 0);
    dl_renew_sched_free(&s);
    entry_free(e);
}

static void test_network_error_retries_until_the_lease_may_have_expired(void **state)
{
    dl_renew_sched_t s = {0};
    dl_renew_entry_t *e = entry(3000), *out[1];
    (void)state;
    dl_renew_add(&s, e, 0, 0);                       /* expires 3000 ms unless renewed */
    assert_int_equal(dl_renew_collect(&s, 1000 * MS, out, 1), 1);
    dl_renew_result(e, 1000 * MS, 1100 * MS, -1);
    assert_int_equal(e->state, DL_RENEW_ACTIVE);
    assert_int_equal(e->next_ns, 1100 * MS + DL_RENEW_RETRY_NS);  /* retry soon, not a period later */
    assert_int_equal(dl_renew_collect(&s, 1300 * MS, out, 1), 1);
    dl_renew_result(e, 1300 * MS, 3000 * MS, -1);   /* still failing when the lease ran out */
    assert_int_equal(e->state, DL_RENEW_LOST);
    dl_renew_sched_free(&s);
    entry_free(e);
}

static void test_remove_and_many_entries(void **state)
{
    dl_renew_sched_t s = {0};
    dl_renew_entry_t *e[100], *out[100];
    int i;
    (void)state;
    for (i = 0; i < 100; i++) {
        e[i] = entry(3000);
        assert_int_equal(dl_renew_add(&s, e[i], 0, 0), 0);
    }
    assert_int_equal(s.n, 100);
    assert_int_equal(dl_renew_remove(&s, e[42]), 1);
    assert_int_equal(dl_renew_remove(&s, e[42]), 0);
    /* 1000 leases granted together make one tick: here 99 in one collect. */
    assert_int_equal(dl_renew_collect(&s, 1000 * MS, out, 100), 99);
    dl_renew_sched_free(&s);
    for (i = 0; i < 100; i++) entry_free(e[i]);
}

static void test_ttl_changed_while_in_flight_is_applied_after(void **state)
{
    dl_renew_sched_t s = {0};
    dl_renew_entry_t *e = entry(300), *out[1];
    (void)state;
    dl_renew_add(&s, e, 0, 0);
    assert_int_equal(dl_renew_collect(&s, 100 * MS, out, 1), 1);   /* renewal with ttl 300 under way */
    dl_renew_set_ttl(e, 5000, 101 * MS);                           /* the holder refreshes to 5 s */
    assert_int_equal(e->lease->ttl_ms, 300);                        /* not yet: the renewal in flight reads it */
    dl_renew_result(e, 100 * MS, 103 * MS, 1);
    assert_int_equal(e->lease->ttl_ms, 5000);
    assert_int_equal(e->next_ns, 103 * MS);                         /* due at once, to renew with 5 s */
    assert_int_equal(dl_renew_collect(&s, 103 * MS, out, 1), 1);
    dl_renew_result(e, 103 * MS, 104 * MS, 1);
    assert_int_equal(e->next_ns, 103 * MS + dl_renew_period_ns(5000));
    /* Idle: applied at once; a shorter ttl brings the next renewal and the
     * assumed end forward (the holder's command is about to shorten it)... */
    dl_renew_set_ttl(e, 900, 200 * MS);
    assert_int_equal(e->lease->ttl_ms, 900);
    assert_int_equal(e->next_ns, 200 * MS + 300 * MS);
    assert_int_equal(e->expires_ns, 200 * MS + 900 * MS);
    /* ...a longer one never moves them later: a renewal of the old ttl may
     * have landed behind the holder's extension (phpt 216). */
    dl_renew_set_ttl(e, 9000, 300 * MS);
    assert_int_equal(e->lease->ttl_ms, 9000);
    assert_int_equal(e->next_ns, 500 * MS);
    assert_int_equal(e->expires_ns, 1100 * MS);
    assert_int_equal(dl_renew_collect(&s, 500 * MS, out, 1), 1);
    dl_renew_result(e, 500 * MS, 501 * MS, 1);
    assert_int_equal(e->next_ns, 500 * MS + dl_renew_period_ns(9000));   /* renewed with the new ttl */
    assert_int_equal(e->expires_ns, 500 * MS + 9000 * MS);
    /* The same ttl while in flight owes no second renewal. */
    assert_int_equal(dl_renew_collect(&s, e->next_ns, out, 1), 1);
    dl_renew_set_ttl(e, 9000, e->next_ns);
    assert_int_equal(e->pending_ttl_ms, 0);
    dl_renew_sched_free(&s);
    entry_free(e);
}

/* Each outcome is kept for an observer (oldest first; a full log drops its oldest),
 * the one that made the lease lost marked so; nothing once the lease is no longer active. */
static void test_outcomes_are_reported(void **state)
{
    dl_renew_sched_t s = {0};
    dl_renew_entry_t *e = entry(3000), *out[2];
    int i;
    (void)state;
    dl_renew_add(&s, e, 0, 0);
    assert_int_equal(dl_renew_collect(&s, 1000 * MS, out, 2), 1);
    dl_renew_result(e, 1000 * MS, 1002 * MS, 1);
    assert_int_equal(e->nreports, 1);
    assert_int_equal(e->reports[0].sent_ns, 1000 * MS);
    assert_int_equal(e->reports[0].done_ns, 1002 * MS);
    assert_int_equal(e->reports[0].ttl_ms, 3000);
    assert_int_equal(e->reports[0].result, 1);
    assert_int_equal(e->reports[0].lost, 0);
    dl_renew_result(e, 2000 * MS, 2001 * MS, -1);   /* not reached: retried, not lost yet */
    assert_int_equal(e->nreports, 2);
    assert_int_equal(e->reports[1].result, -1);
    assert_int_equal(e->reports[1].lost, 0);
    for (i = 0; i < DL_RENEW_REPORTS_MAX; i++) dl_renew_result(e, (3000 + i) * MS, (3000 + i) * MS, 1);
    assert_int_equal(e->nreports, DL_RENEW_REPORTS_MAX);
    assert_int_equal(e->reports[0].sent_ns, 3000 * MS);   /* the two oldest made room */
    e->nreports = 0;                                      /* taken (dl_watchdog_take_reports) */
    dl_renew_result(e, 4000 * MS, 4001 * MS, 0);
    assert_int_equal(e->state, DL_RENEW_LOST);
    assert_int_equal(e->nreports, 1);
    assert_int_equal(e->reports[0].result, 0);
    assert_int_equal(e->reports[0].lost, 1);
    dl_renew_result(e, 5000 * MS, 5001 * MS, 1);          /* lost: no longer recorded */
    assert_int_equal(e->nreports, 1);
    dl_renew_sched_free(&s);
    entry_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_period_is_a_third_of_ttl),
        cmocka_unit_test(test_due_at_ttl_third_not_before),
        cmocka_unit_test(test_batching_takes_leases_due_within_half_a_period),
        cmocka_unit_test(test_ceiling_stops_renewals),
        cmocka_unit_test(test_not_ours_is_lost),
        cmocka_unit_test(test_network_error_retries_until_the_lease_may_have_expired),
        cmocka_unit_test(test_remove_and_many_entries),
        cmocka_unit_test(test_ttl_changed_while_in_flight_is_applied_after),
        cmocka_unit_test(test_outcomes_are_reported),
    };
    return cmocka_run_group_tests_name("dl_renew", tests, NULL, NULL);
}
