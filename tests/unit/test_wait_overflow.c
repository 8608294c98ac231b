/*
 * test_wait_overflow — regression tests for two signed-integer overflows once
 * found in dl_wait.c (UBSan aborts on them):
 *
 *  1. dl_wait_sleep_us(): the holder's PTTL comes from the server, and any
 *     client may `SET lock:x v PX 9000000000000000000` (Redis 7 accepts it);
 *     `holder_pttl_ms * 1000` overflowed and the sleep could collapse to the
 *     200 µs minimum (polling Redis for the whole wait).
 *  2. dl_backoff_delay_us(): `d *= 2` overflowed with caps above 2^62.
 *
 * Each case runs in a forked child so a UBSan abort fails only that test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl_wait.h"

/* Runs fn in a child; the child exits 0 when fn's result is right. */
static void in_child(int (*fn)(void), const char *what)
{
    int status;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(fn() ? 0 : 1);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fail_msg("KNOWN BUG (src/core/base/dl_wait.c): %s (child %s %d)", what,
                 WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
}

static int huge_holder_pttl(void)
{
    /* A PTTL longer than the delay does not cap it: the sleep is the delay. */
    return dl_wait_sleep_us(50000, 0, 1000000, 9000000000000000000LL) == 50000 &&
           dl_wait_sleep_us(50000, 0, 1000000, INT64_MAX) == 50000;
}

static void test_KNOWN_BUG_wait_sleep_huge_holder_pttl_overflows(void **state)
{
    (void)state;
    in_child(huge_holder_pttl, "dl_wait_sleep_us: holder_pttl_ms * 1000 overflows for a server PTTL > INT64_MAX/1000");
}

static int backoff_large_cap(void)
{
    dl_backoff_t b = {1, 0, INT64_MAX};
    return dl_backoff_delay_us(&b, 62) == ((int64_t)1 << 62) && dl_backoff_delay_us(&b, 63) == INT64_MAX &&
           dl_backoff_delay_us(&b, 1000) == INT64_MAX;
}

static void test_KNOWN_BUG_backoff_cap_above_2p62_overflows(void **state)
{
    (void)state;
    in_child(backoff_large_cap, "dl_backoff_delay_us: d *= 2 overflows when cap_us > 2^62");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_KNOWN_BUG_wait_sleep_huge_holder_pttl_overflows),
        cmocka_unit_test(test_KNOWN_BUG_backoff_cap_above_2p62_overflows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
