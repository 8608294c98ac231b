/*
 * test_platform — the platform calls (dl_platform) on whichever paths this
 * build took: the first choices on Linux, the portable ones under
 * tests/fallbacks (PLATFORM_HIDE). Each test holds for every path.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "dl_clock.h"
#include "dl_platform.h"
#include "dl_token.h"

#define MS 1000000LL

/* The paths named are the ones config.h chose: a fallback that did not run
 * would show here. */
static void test_paths_follow_config(void **state)
{
    const char *p = dl_platform_paths();
    (void)state;
    printf("platform paths: %s\n", p);
#if defined(HAVE_GETRANDOM)
    assert_non_null(strstr(p, "random=getrandom"));
#elif defined(HAVE_GETENTROPY)
    assert_non_null(strstr(p, "random=getentropy"));
#else
    assert_non_null(strstr(p, "random=arc4random_buf"));
#endif
#ifdef HAVE_PPOLL
    assert_non_null(strstr(p, "poll=ppoll"));
#else
    assert_non_null(strstr(p, "poll=poll"));
#endif
#ifdef HAVE_PTHREAD_CONDATTR_SETCLOCK
    assert_non_null(strstr(p, "wakeup=condvar-monotonic"));
#else
    assert_non_null(strstr(p, "wakeup=self-pipe"));
#endif
}

/* More than one call's worth (getentropy gives 256 bytes a call): every
 * chunk is filled, and two draws differ. */
static void test_random_long_buffers(void **state)
{
    unsigned char a[1000], b[1000];
    size_t i, zero_tail = 0;
    (void)state;
    memset(a, 0, sizeof(a));
    memset(b, 0, sizeof(b));
    assert_int_equal(dl_random_bytes(a, sizeof(a), NULL), DL_OK);
    assert_int_equal(dl_random_bytes(b, sizeof(b), NULL), DL_OK);
    assert_memory_not_equal(a, b, sizeof(a));
    /* The last chunk is written too: 8 zero bytes in a row at the end would be
     * a 2^-64 event. */
    for (i = sizeof(a) - 8; i < sizeof(a); i++) zero_tail += a[i] == 0;
    assert_true(zero_tail < 8);
}

/* Never returns 0 before the deadline (poll's milliseconds are rounded up and
 * re-timed), and not much after it. */
static void test_poll_deadline(void **state)
{
    int fd[2];
    struct pollfd pfd;
    int64_t t0, deadline, now;
    int rc, i;
    (void)state;
    assert_int_equal(pipe(fd), 0);
    pfd.fd = fd[0];
    pfd.events = POLLIN;
    for (i = 0; i < 5; i++) {
        int64_t wait_ns = (i * 7 + 3) * MS + 300000;   /* 3.3, 10.3, ... ms: not whole milliseconds */
        t0 = dl_clock_now_ns();
        deadline = t0 + wait_ns;
        do {
            pfd.revents = 0;
            rc = dl_platform_poll(&pfd, 1, deadline);
        } while (rc < 0 && errno == EINTR);
        now = dl_clock_now_ns();
        assert_int_equal(rc, 0);
        if (now < deadline) fail_msg("returned %lld ns before the deadline", (long long)(deadline - now));
        assert_true(now - deadline < 500 * MS);   /* generous: a loaded machine */
    }
    /* A deadline already passed: at once. */
    t0 = dl_clock_now_ns();
    assert_int_equal(dl_platform_poll(&pfd, 1, t0 - MS), 0);
    assert_true(dl_clock_now_ns() - t0 < 500 * MS);
    /* Input: reported before the deadline. */
    assert_int_equal(write(fd[1], "x", 1), 1);
    t0 = dl_clock_now_ns();
    pfd.revents = 0;
    assert_int_equal(dl_platform_poll(&pfd, 1, t0 + 5000 * MS), 1);
    assert_true(pfd.revents & POLLIN);
    assert_true(dl_clock_now_ns() - t0 < 2000 * MS);
    close(fd[0]);
    close(fd[1]);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static dl_waker_t waker;
static int flag;

static void *waker_thread(void *arg)
{
    (void)arg;
    dl_clock_sleep_us(20000);
    pthread_mutex_lock(&mu);
    flag = 1;
    dl_waker_wake(&waker);
    pthread_mutex_unlock(&mu);
    return NULL;
}

/* A timed wait ends at its deadline (re-checked, as the watchdog does), and a
 * wake from another thread ends a long one early. */
static void test_waker(void **state)
{
    pthread_t t;
    int64_t t0, deadline;
    int rounds = 0;
    (void)state;
    assert_int_equal(dl_waker_init(&waker), 0);
    assert_int_equal(dl_waker_init(&waker), 0);   /* again: nothing */

    pthread_mutex_lock(&mu);
    t0 = dl_clock_now_ns();
    deadline = t0 + 50 * MS;
    while (dl_clock_now_ns() < deadline) {
        dl_waker_wait(&waker, &mu, deadline);
        rounds++;
    }
    assert_true(rounds < 20);                            /* no busy loop */
    assert_true(dl_clock_now_ns() - deadline < 500 * MS);

    flag = 0;
    assert_int_equal(pthread_create(&t, NULL, waker_thread, NULL), 0);
    t0 = dl_clock_now_ns();
    deadline = t0 + 10000 * MS;
    while (!flag && dl_clock_now_ns() < deadline) dl_waker_wait(&waker, &mu, deadline);
    assert_int_equal(flag, 1);
    assert_true(dl_clock_now_ns() - t0 < 5000 * MS);
    pthread_mutex_unlock(&mu);
    assert_int_equal(pthread_join(t, NULL), 0);
    dl_waker_reset(&waker);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_follow_config),
        cmocka_unit_test(test_random_long_buffers),
        cmocka_unit_test(test_poll_deadline),
        cmocka_unit_test(test_waker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
