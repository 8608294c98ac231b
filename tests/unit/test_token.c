/*
 * test_token — owner tokens and bounded random numbers from the kernel CSPRNG (dl_platform).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "dl_token.h"

#define NTOKENS 100000

static void assert_token_format(const char *t)
{
    int i;
    for (i = 0; i < DL_TOKEN_HEX_LEN; i++) {
        char c = t[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            fail_msg("token %.32s: byte %d is 0x%02x, not lowercase hex", t, i, (unsigned char)c);
        }
    }
    assert_int_equal(t[DL_TOKEN_HEX_LEN], '\0');
}

static void test_token_format(void **state)
{
    char t[DL_TOKEN_HEX_LEN + 1];
    dl_error_t err;
    (void)state;
    assert_int_equal(DL_TOKEN_HEX_LEN, 32);
    assert_true(DL_TOKEN_BYTES * 8 >= 128);
    memset(t, 'X', sizeof(t));
    dl_error_clear(&err);
    assert_int_equal(dl_token_generate(t, &err), DL_OK);
    assert_int_equal(strlen(t), 32);
    assert_token_format(t);
    assert_int_equal(err.code, DL_OK);
}

static int cmp_token(const void *a, const void *b)
{
    return memcmp(a, b, DL_TOKEN_HEX_LEN);
}

static void test_tokens_unique_and_balanced(void **state)
{
    char (*toks)[DL_TOKEN_HEX_LEN + 1] = malloc((size_t)NTOKENS * sizeof(*toks));
    unsigned long ones = 0, total;
    unsigned long digit_count[16] = {0};
    size_t i;
    int j;
    (void)state;
    assert_non_null(toks);
    for (i = 0; i < NTOKENS; i++) {
        assert_int_equal(dl_token_generate(toks[i], NULL), DL_OK);
        assert_token_format(toks[i]);
        for (j = 0; j < DL_TOKEN_HEX_LEN; j++) {
            int v = toks[i][j] <= '9' ? toks[i][j] - '0' : toks[i][j] - 'a' + 10;
            digit_count[v]++;
            ones += (unsigned long)__builtin_popcount((unsigned)v);
        }
    }
    qsort(toks, NTOKENS, sizeof(*toks), cmp_token);
    for (i = 1; i < NTOKENS; i++) {
        if (memcmp(toks[i - 1], toks[i], DL_TOKEN_HEX_LEN) == 0) {
            fail_msg("duplicate token %.32s", toks[i]);
        }
    }
    /* Every bit of every byte is used: ~50% ones, every hex digit ~1/16. */
    total = (unsigned long)NTOKENS * DL_TOKEN_BYTES * 8;
    assert_true(ones > total / 2 - total / 200);
    assert_true(ones < total / 2 + total / 200);
    for (j = 0; j < 16; j++) {
        unsigned long expect = (unsigned long)NTOKENS * DL_TOKEN_HEX_LEN / 16;
        assert_true(digit_count[j] > expect - expect / 20);
        assert_true(digit_count[j] < expect + expect / 20);
    }
    free(toks);
}

static void test_random_bytes(void **state)
{
    size_t len = 1 << 20, i, zero = 0;
    unsigned char *buf = calloc(1, len);
    (void)state;
    assert_non_null(buf);
    assert_int_equal(dl_random_bytes(buf, 0, NULL), DL_OK);
    assert_int_equal(dl_random_bytes(buf, len, NULL), DL_OK);
    for (i = 0; i < len; i++) zero += buf[i] == 0;
    /* About len/256 zero bytes, certainly not a zero-filled tail (short reads). */
    assert_true(zero < len / 128);
    for (i = len - 64; i < len; i++) {
        if (buf[i] != 0) break;
    }
    assert_true(i < len);
    free(buf);
}

static void test_random_upto_range(void **state)
{
    int i;
    (void)state;
    assert_int_equal(dl_random_upto(0), 0);
    assert_int_equal(dl_random_upto(-1), 0);
    assert_int_equal(dl_random_upto(INT64_MIN), 0);
    for (i = 0; i < 100000; i++) {
        int64_t v = dl_random_upto(1000);
        if (v < 0 || v > 1000) fail_msg("dl_random_upto(1000) gave %lld", (long long)v);
    }
    for (i = 0; i < 1000; i++) {
        int64_t v = dl_random_upto(INT64_MAX);
        assert_true(v >= 0);
    }
}

static void test_random_upto_hits_both_ends(void **state)
{
    int seen1[2] = {0, 0}, seen3[4] = {0, 0, 0, 0}, i;
    long buckets[10] = {0};
    (void)state;
    for (i = 0; i < 2000; i++) {
        int64_t v = dl_random_upto(1);
        assert_true(v == 0 || v == 1);
        seen1[v]++;
    }
    assert_true(seen1[0] > 0);
    assert_true(seen1[1] > 0);
    for (i = 0; i < 2000; i++) {
        int64_t v = dl_random_upto(3);
        assert_true(v >= 0 && v <= 3);
        seen3[v]++;
    }
    for (i = 0; i < 4; i++) assert_true(seen3[i] > 0);
    /* Roughly uniform over [0, 9]: each bucket within 10% of 10000. */
    for (i = 0; i < 100000; i++) {
        int64_t v = dl_random_upto(9);
        assert_true(v >= 0 && v <= 9);
        buckets[v]++;
    }
    for (i = 0; i < 10; i++) {
        assert_true(buckets[i] > 9000);
        assert_true(buckets[i] < 11000);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_token_format),
        cmocka_unit_test(test_tokens_unique_and_balanced),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_random_upto_range),
        cmocka_unit_test(test_random_upto_hits_both_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
