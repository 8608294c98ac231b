/*
 * test_wait — backoff arithmetic, sleep capping, and the monotonic clock.
 */
#define _POSIX_C_SOURCE 200809L   /* strdup, kill, sigaction...: -std=c99 shows only ISO C */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include "dl_clock.h"
#include "dl_wait.h"

/* ---- dl_backoff_delay_us --------------------------------------------- */

static void test_backoff_growth_and_cap(void **state)
{
    dl_backoff_t b = {1000, 0, DL_WAIT_BACKOFF_CAP_US};
    (void)state;
    assert_int_equal(dl_backoff_delay_us(&b, 0), 1000);
    assert_int_equal(dl_backoff_delay_us(&b, 1), 2000);
    assert_int_equal(dl_backoff_delay_us(&b, 2), 4000);
    assert_int_equal(dl_backoff_delay_us(&b, 5), 32000);
    assert_int_equal(dl_backoff_delay_us(&b, 6), 64000);
    /* 128000 is over the cap. */
    assert_int_equal(dl_backoff_delay_us(&b, 7), DL_WAIT_BACKOFF_CAP_US);
    assert_int_equal(dl_backoff_delay_us(&b, 8), DL_WAIT_BACKOFF_CAP_US);
    assert_int_equal(dl_backoff_delay_us(&b, 100), DL_WAIT_BACKOFF_CAP_US);

    /* Not a power of two: min(base * 2^n, cap). */
    b.base_us = 3000;
    b.cap_us = 50000;
    assert_int_equal(dl_backoff_delay_us(&b, 0), 3000);
    assert_int_equal(dl_backoff_delay_us(&b, 3), 24000);
    assert_int_equal(dl_backoff_delay_us(&b, 4), 48000);
    assert_int_equal(dl_backoff_delay_us(&b, 5), 50000);

    /* A base above the cap is capped from the first attempt. */
    b.base_us = 200000;
    b.cap_us = 100000;
    assert_int_equal(dl_backoff_delay_us(&b, 0), 100000);
    assert_int_equal(dl_backoff_delay_us(&b, 9), 100000);

    /* The glue's configuration: cap raised to a large base (retry_delay <= 60 s). */
    b.base_us = 60000000;
    b.cap_us = 60000000;
    assert_int_equal(dl_backoff_delay_us(&b, 0), 60000000);
    assert_int_equal(dl_backoff_delay_us(&b, 1000), 60000000);
}

static void test_backoff_base_zero(void **state)
{
    dl_backoff_t b = {0, 5000, DL_WAIT_BACKOFF_CAP_US};
    (void)state;
    assert_int_equal(dl_backoff_delay_us(&b, 0), 0);
    assert_int_equal(dl_backoff_delay_us(&b, 10), 0);
    assert_int_equal(dl_backoff_delay_us(&b, UINT_MAX), 0);
    b.base_us = -5;
    assert_int_equal(dl_backoff_delay_us(&b, 3), 0);
}

static void test_backoff_huge_attempts(void **state)
{
    dl_backoff_t b = {1, 0, DL_WAIT_BACKOFF_CAP_US};
    int64_t t0;
    (void)state;
    t0 = dl_clock_now_ns();
    assert_int_equal(dl_backoff_delay_us(&b, UINT_MAX), DL_WAIT_BACKOFF_CAP_US);
    assert_int_equal(dl_backoff_delay_us(&b, UINT_MAX - 1), DL_WAIT_BACKOFF_CAP_US);
    assert_int_equal(dl_backoff_delay_us(&b, 64), DL_WAIT_BACKOFF_CAP_US);
    assert_int_equal(dl_backoff_delay_us(&b, 1u << 31), DL_WAIT_BACKOFF_CAP_US);
    /* Bounded work, not a loop over 4 billion attempts. */
    assert_true(dl_clock_now_ns() - t0 < 100000000);

    /* Large caps: doubling must stop at the cap (UBSan flags signed overflow). */
    b.base_us = 1;
    b.cap_us = INT64_MAX / 2;
    assert_int_equal(dl_backoff_delay_us(&b, 61), (int64_t)1 << 61);
    assert_int_equal(dl_backoff_delay_us(&b, 62), INT64_MAX / 2);
    assert_int_equal(dl_backoff_delay_us(&b, 63), INT64_MAX / 2);
    assert_int_equal(dl_backoff_delay_us(&b, UINT_MAX), INT64_MAX / 2);
}

/* ---- dl_wait_sleep_us ------------------------------------------------ */

static void test_sleep_plain(void **state)
{
    (void)state;
    /* delay + jitter when nothing caps it. */
    assert_int_equal(dl_wait_sleep_us(1000, 500, 1000000, 0), 1500);
    assert_int_equal(dl_wait_sleep_us(20000, 0, 1000000, 0), 20000);
    /* Unknown holder PTTL (<= 0: -1 no TTL, -2 no key) does not cap. */
    assert_int_equal(dl_wait_sleep_us(50000, 0, 1000000, -1), 50000);
    assert_int_equal(dl_wait_sleep_us(50000, 0, 1000000, -2), 50000);
}

static void test_sleep_capped_by_remaining(void **state)
{
    (void)state;
    assert_int_equal(dl_wait_sleep_us(50000, 0, 3000, 0), 3000);
    assert_int_equal(dl_wait_sleep_us(50000, 9000, 50001, 0), 50001);
    assert_int_equal(dl_wait_sleep_us(50000, 0, 3000, 100), 3000);
    /* The remaining time wins over the minimum sleep too. */
    assert_int_equal(dl_wait_sleep_us(0, 0, 100, 0), 100);
    assert_int_equal(dl_wait_sleep_us(10, 0, 1, 0), 1);
}

static void test_sleep_capped_by_holder_pttl(void **state)
{
    (void)state;
    assert_int_equal(dl_wait_sleep_us(50000, 0, 1000000, 5), 5000);
    assert_int_equal(dl_wait_sleep_us(50000, 20000, 1000000, 30), 30000);
    /* Only a cap: a long PTTL does not lengthen a short delay. */
    assert_int_equal(dl_wait_sleep_us(2000, 0, 1000000, 10000), 2000);
    /* PTTL and remaining: the smaller wins. */
    assert_int_equal(dl_wait_sleep_us(50000, 0, 4000, 5), 4000);
    assert_int_equal(dl_wait_sleep_us(50000, 0, 6000, 5), 5000);
}

static void test_sleep_minimum(void **state)
{
    (void)state;
    assert_int_equal(dl_wait_sleep_us(0, 0, 1000000, 0), DL_WAIT_MIN_SLEEP_US);
    assert_int_equal(dl_wait_sleep_us(10, 5, 1000000, 0), DL_WAIT_MIN_SLEEP_US);
    assert_int_equal(dl_wait_sleep_us(DL_WAIT_MIN_SLEEP_US + 1, 0, 1000000, 0), DL_WAIT_MIN_SLEEP_US + 1);
}

static void test_sleep_nothing_left(void **state)
{
    (void)state;
    assert_int_equal(dl_wait_sleep_us(50000, 100, 0, 0), 0);
    assert_int_equal(dl_wait_sleep_us(50000, 100, -1, 5), 0);
    assert_int_equal(dl_wait_sleep_us(0, 0, -1000000, 0), 0);
    assert_int_equal(dl_wait_sleep_us(0, 0, INT64_MIN, 0), 0);
}

/* ---- dl_clock -------------------------------------------------------- */

static void test_clock_monotonic(void **state)
{
    int64_t prev = dl_clock_now_ns(), first = prev;
    int i;
    (void)state;
    assert_true(prev > 0);
    for (i = 0; i < 200000; i++) {
        int64_t now = dl_clock_now_ns();
        if (now < prev) fail_msg("clock went back: %lld after %lld", (long long)now, (long long)prev);
        prev = now;
    }
    assert_true(prev > first);
}

static void test_clock_sleep(void **state)
{
    int64_t t0, el;
    (void)state;
    t0 = dl_clock_now_ns();
    assert_int_equal(dl_clock_sleep_us(20000), 0);
    el = dl_clock_now_ns() - t0;
    assert_true(el >= 20000000);
    assert_true(el < 20000000 + 200000000);

    t0 = dl_clock_now_ns();
    assert_int_equal(dl_clock_sleep_us(1500), 0);
    el = dl_clock_now_ns() - t0;
    assert_true(el >= 1500000);
    assert_true(el < 100000000);

    /* Nothing to sleep: immediate. */
    t0 = dl_clock_now_ns();
    assert_int_equal(dl_clock_sleep_us(0), 0);
    assert_int_equal(dl_clock_sleep_us(-5), 0);
    assert_int_equal(dl_clock_sleep_us(INT64_MIN), 0);
    assert_true(dl_clock_now_ns() - t0 < 5000000);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
}

static void test_clock_sleep_eintr(void **state)
{
    struct sigaction sa, old;
    struct itimerval it;
    int64_t t0, left, el;
    (void)state;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm;  /* no SA_RESTART: nanosleep returns EINTR */
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
    memset(&it, 0, sizeof(it));
    it.it_value.tv_usec = 20000;
    alarms = 0;
    assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);

    t0 = dl_clock_now_ns();
    left = dl_clock_sleep_us(2000000);
    el = dl_clock_now_ns() - t0;
    sigaction(SIGALRM, &old, NULL);

    assert_int_equal(alarms, 1);
    /* Returned early with the time not slept. */
    assert_true(el < 1500000000);
    assert_true(left > 0);
    assert_true(left <= 2000000 - 15000);
    assert_true(left >= 2000000 - el / 1000 - 100000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backoff_growth_and_cap),
        cmocka_unit_test(test_backoff_base_zero),
        cmocka_unit_test(test_backoff_huge_attempts),
        cmocka_unit_test(test_sleep_plain),
        cmocka_unit_test(test_sleep_capped_by_remaining),
        cmocka_unit_test(test_sleep_capped_by_holder_pttl),
        cmocka_unit_test(test_sleep_minimum),
        cmocka_unit_test(test_sleep_nothing_left),
        cmocka_unit_test(test_clock_monotonic),
        cmocka_unit_test(test_clock_sleep),
        cmocka_unit_test(test_clock_sleep_eintr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
