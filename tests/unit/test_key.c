/* dl_key: companion keys hash to the lock key's Redis Cluster slot and keep its prefix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dl_key.h"

/* CRC16-CCITT (XMODEM), as in the Redis Cluster specification. */
static uint16_t crc16(const char *buf, size_t len)
{
    uint16_t crc = 0;
    size_t i;
    int j;
    for (i = 0; i < len; i++) {
        crc ^= (uint16_t)((unsigned char)buf[i] << 8);
        for (j = 0; j < 8; j++) crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc;
}

/* The slot of a key: the CRC of its hash tag when it has a non-empty one, else of the whole key. */
static unsigned slot(const char *key, size_t len)
{
    const char *open = memchr(key, '{', len);
    if (open) {
        const char *close = memchr(open + 1, '}', len - (size_t)(open + 1 - key));
        if (close && close > open + 1) return crc16(open + 1, (size_t)(close - open - 1)) % 16384;
    }
    return crc16(key, len) % 16384;
}

static void check_same_slot(const char *key, size_t len)
{
    char out[256];
    size_t n = dl_key_derive(key, len, ":fence", 6, out);
    assert_true(n <= DL_KEY_DERIVED_MAX(len, 6));
    assert_int_equal(slot(key, len), slot(out, n));
    assert_memory_equal(out + n - 6, ":fence", 6);
}

static void test_crc16_reference(void **state)
{
    (void)state;
    /* The specification's test vector. */
    assert_int_equal(crc16("123456789", 9), 0x31C3);
}

static void test_plain_key_same_slot_and_prefix(void **state)
{
    char out[128];
    size_t n;
    (void)state;
    check_same_slot("lock:account:7", 14);
    n = dl_key_derive("lock:account:7", 14, ":fence", 6, out);
    assert_int_equal(n, 36);
    assert_memory_equal(out, "lock:account:7{lock:account:7}:fence", 36);
}

static void test_tagged_key_gets_suffix_only(void **state)
{
    char out[128];
    size_t n;
    (void)state;
    n = dl_key_derive("lock:{acct}:7", 13, ":wake", 5, out);
    assert_int_equal(n, 18);
    assert_memory_equal(out, "lock:{acct}:7:wake", 18);
    assert_int_equal(slot("lock:{acct}:7", 13), slot(out, n));
}

static void test_unclosed_brace_is_wrapped(void **state)
{
    char out[128];
    size_t n;
    (void)state;
    check_same_slot("lock:a{b", 8);
    n = dl_key_derive("lock:a{b", 8, ":fence", 6, out);
    assert_memory_equal(out, "{lock:a{b}:fence", n);
}

static void test_binary_keys(void **state)
{
    (void)state;
    check_same_slot("lock:\0nul", 9);
    check_same_slot("lock:\"]]'", 9);
}

static void test_has_tag(void **state)
{
    (void)state;
    assert_true(dl_key_has_tag("a{b}c", 5));
    assert_false(dl_key_has_tag("a{}c", 4));
    assert_false(dl_key_has_tag("a{bc", 4));
    assert_false(dl_key_has_tag("abc", 3));
    assert_true(dl_key_has_tag("}{x}", 4));
}

/* Documented limit: '}' without a valid tag cannot be kept in one slot. */
static void test_closing_brace_without_tag_keeps_plain_suffix(void **state)
{
    char out[64];
    size_t n;
    (void)state;
    n = dl_key_derive("lock:a}b", 8, ":fence", 6, out);
    assert_memory_equal(out, "lock:a}b:fence", n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc16_reference),
        cmocka_unit_test(test_plain_key_same_slot_and_prefix),
        cmocka_unit_test(test_tagged_key_gets_suffix_only),
        cmocka_unit_test(test_unclosed_brace_is_wrapped),
        cmocka_unit_test(test_binary_keys),
        cmocka_unit_test(test_has_tag),
        cmocka_unit_test(test_closing_brace_without_tag_keeps_plain_suffix),
    };
    return cmocka_run_group_tests_name("dl_key", tests, NULL, NULL);
}
