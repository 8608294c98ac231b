/* dl_key: companion keys hash to the lock key's Redis Cluster slot, for every key, and keep its prefix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dl_key.h"
#include "dl_slots.h"

/* CRC16-CCITT (XMODEM) bit by bit, as in the Redis Cluster specification: an
 * independent check of the table-driven dl_crc16. */
static uint16_t crc16_ref(const char *buf, size_t len)
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

/* The slot by the specification's own algorithm (keyHashSlot), independent of dl_slot_of. */
static unsigned slot_ref(const char *key, size_t len)
{
    size_t s, e;
    for (s = 0; s < len; s++) if (key[s] == '{') break;
    if (s == len) return crc16_ref(key, len) & 16383;
    for (e = s + 1; e < len; e++) if (key[e] == '}') break;
    if (e == len || e == s + 1) return crc16_ref(key, len) & 16383;
    return crc16_ref(key + s + 1, e - s - 1) & 16383;
}

static const struct { const char *s; size_t len; } suffixes[] = {
    {":fence", 6}, {":wake", 5}, {":waiters", 8}, {":queue", 6}, {":alive", 6}, {":wake:", 6},
};

/* Every companion of key (and the fair waiter's wake key, ":wake:" + a token) is in key's slot. */
static void check_same_slot(const char *key, size_t len)
{
    char out[4096];
    size_t i, n;
    unsigned want = slot_ref(key, len);
    assert_true(len + 64 < sizeof(out) / 2);
    assert_int_equal(dl_slot_of(key, len), want);
    for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        n = dl_key_derive(key, len, suffixes[i].s, suffixes[i].len, out);
        assert_true(n <= DL_KEY_DERIVED_MAX(len, suffixes[i].len));
        assert_memory_equal(out + n - suffixes[i].len, suffixes[i].s, suffixes[i].len);
        if (slot_ref(out, n) != want) {
            fail_msg("key of %zu bytes, suffix %s: slot %u, derived slot %u", len, suffixes[i].s, want, slot_ref(out, n));
        }
        /* dl_lease_new appends the token to the ":wake:" key. */
        memcpy(out + n, "0123456789abcdef0123456789abcdef", 32);
        assert_int_equal(slot_ref(out, n + 32), want);
    }
}

static void test_crc16_reference(void **state)
{
    char buf[256];
    int i;
    (void)state;
    /* The specification's test vector (Appendix A). */
    assert_int_equal(dl_crc16("123456789", 9), 0x31C3);
    assert_int_equal(crc16_ref("123456789", 9), 0x31C3);
    for (i = 0; i < 256; i++) buf[i] = (char)i;
    for (i = 0; i <= 256; i++) assert_int_equal(dl_crc16(buf, (size_t)i), crc16_ref(buf, (size_t)i));
    /* Continuing a CRC equals computing it over the concatenation. */
    assert_int_equal(dl_crc16_update(dl_crc16("12345", 5), "6789", 4), 0x31C3);
}

/* Golden values of the scheme before the fix: keys that already worked keep their names. */
static void test_golden_names_unchanged(void **state)
{
    static const struct { const char *key, *suffix, *want; size_t klen; } g[] = {
        {"lock:account:7", ":fence", "lock:account:7{lock:account:7}:fence", 14},
        {"lock:account:7", ":wake:", "lock:account:7{lock:account:7}:wake:", 14},
        {"lock:{acct}:7", ":wake", "lock:{acct}:7:wake", 13},
        {"lock:{acct}:7", ":waiters", "lock:{acct}:7:waiters", 13},
        {"lock:a{b", ":fence", "{lock:a{b}:fence", 8},
        {"lock:a{b", ":queue", "{lock:a{b}:queue", 8},
        {"a{b}", ":alive", "a{b}:alive", 4},
        {"}{x}", ":fence", "}{x}:fence", 4},
        {"{", ":wake", "{{}:wake", 1},
        {"x", ":wake", "x{x}:wake", 1},
    };
    char out[256];
    size_t i, n;
    (void)state;
    for (i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
        n = dl_key_derive(g[i].key, g[i].klen, g[i].suffix, strlen(g[i].suffix), out);
        assert_int_equal(n, strlen(g[i].want));
        assert_memory_equal(out, g[i].want, n);
    }
    /* A NUL byte in a plain key: the key twice around it. */
    n = dl_key_derive("lock:\0nul", 9, ":fence", 6, out);
    assert_int_equal(n, 9 + 1 + 9 + 1 + 6);
    assert_memory_equal(out, "lock:\0nul{lock:\0nul}:fence", n);
}

/* The keys the old scheme put in another slot, with the shape of each rule. */
static void test_hostile_keys_same_slot(void **state)
{
    static const char *const keys[] = {
        "}", "{}", "}{", "{}{", "a{}b", "}x", "a}b", "lock:a}b", "{a", "a{b", "a}b{c", "}{}", "{}}",
        "}}}", "{{{", "{{}}", "}{a", "lock:}", "lock:{}", "lock:{}{x}", "{a}", "a{b}c", "{}a}",
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) check_same_slot(keys[i], strlen(keys[i]));
    check_same_slot("lock:\0}", 7);
    check_same_slot("\0{\0}", 4);     /* a tag of one NUL byte */
    check_same_slot("{\0", 2);
}

/* The new rules: the names start with the key where they can, and are stable. */
static void test_new_rules_shapes(void **state)
{
    char out[128], again[128];
    size_t n, m;
    (void)state;
    /* 4: K{T}S */
    n = dl_key_derive("lock:a}b", 8, ":fence", 6, out);
    assert_int_equal(n, 8 + 2 + DL_KEY_TAG_LEN + 6);
    assert_memory_equal(out, "lock:a}b{", 9);
    assert_int_equal(out[9 + DL_KEY_TAG_LEN], '}');
    m = dl_key_derive("lock:a}b", 8, ":fence", 6, again);
    assert_int_equal(m, n);
    assert_memory_equal(out, again, n);   /* deterministic: every process derives the same name */
    /* 5: K T } S, closing the key's own '{' */
    n = dl_key_derive("x}y{z", 5, ":wake", 5, out);
    assert_int_equal(n, 5 + DL_KEY_TAG_LEN + 1 + 5);
    assert_memory_equal(out, "x}y{z", 5);
    assert_int_equal(out[5 + DL_KEY_TAG_LEN], '}');
    /* 5 with nothing after '{' */
    n = dl_key_derive("}{", 2, ":wake", 5, out);
    assert_memory_equal(out, "}{", 2);
    assert_int_equal(n, 2 + DL_KEY_TAG_LEN + 1 + 5);
    /* 6: {T}K S */
    n = dl_key_derive("a{}b", 4, ":queue", 6, out);
    assert_int_equal(n, 2 + DL_KEY_TAG_LEN + 4 + 6);
    assert_int_equal(out[0], '{');
    assert_int_equal(out[1 + DL_KEY_TAG_LEN], '}');
    assert_memory_equal(out + 2 + DL_KEY_TAG_LEN, "a{}b:queue", 10);
}

/* Random binary keys, biased towards braces. */
static void test_random_keys_same_slot(void **state)
{
    static const char pool[] = "{}{}{}ab:\0\xff";
    char key[64];
    unsigned seed = 20240609;
    int i;
    size_t len, j;
    (void)state;
    for (i = 0; i < 5000; i++) {
        seed = seed * 1103515245u + 12345u;
        len = 1 + (seed >> 16) % 24;
        for (j = 0; j < len; j++) {
            seed = seed * 1103515245u + 12345u;
            key[j] = (seed >> 24) & 1 ? pool[(seed >> 16) % (sizeof(pool) - 1)] : (char)(seed >> 8);
        }
        check_same_slot(key, len);
    }
}

/*
 * The proof that the tag search never fails: for a fixed CRC state before
 * the tag, the CRC after a 3-byte tag is crc0(tag) XOR a constant (the CRC is
 * linear over GF(2), with a fixed length), and slot = crc & 16383, so the
 * slots reachable from any state are those reachable from state 0, XORed
 * with one 14-bit constant. Checking that the 3-letter tags reach every slot
 * from state 0 therefore proves it for every key.
 */
static void test_tag_search_covers_every_slot(void **state)
{
    static unsigned char seen[DL_SLOTS];
    static const char alpha[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    size_t a, b, c, covered = 0;
    char t[3], found[DL_KEY_TAG_LEN];
    unsigned s;
    (void)state;
    assert_int_equal(DL_KEY_TAG_LEN, 3);
    for (a = 0; a < 62; a++)
        for (b = 0; b < 62; b++)
            for (c = 0; c < 62; c++) {
                t[0] = alpha[a]; t[1] = alpha[b]; t[2] = alpha[c];
                s = dl_crc16(t, 3) & (DL_SLOTS - 1);
                if (!seen[s]) { seen[s] = 1; covered++; }
            }
    assert_int_equal(covered, DL_SLOTS);
    /* Linearity, checked on samples: the same holds from other states. */
    for (s = 0; s < DL_SLOTS; s += 97) {
        assert_true(dl_key_find_tag(0x1234, s, found));
        assert_int_equal(dl_crc16_update(0x1234, found, 3) & (DL_SLOTS - 1), s);
        assert_true(dl_key_find_tag(0xFFFF, s, found));
        assert_int_equal(dl_crc16_update(0xFFFF, found, 3) & (DL_SLOTS - 1), s);
        assert_null(memchr(found, '}', 3));
    }
}

/* The fencing counter of a slot: every slot has a tag (the same one dl_key_find_tag finds from CRC 0),
 * the counter key hashes to the slot, starts with the prefix, and a prefix with braces is served
 * only when it has a tag (then one counter for all its keys). */
static void test_fence_counter_per_slot(void **state)
{
    char tag[DL_KEY_TAG_LEN], want[DL_KEY_TAG_LEN], out[64];
    unsigned slot;
    size_t n;
    (void)state;
    for (slot = 0; slot < DL_SLOTS; slot++) {
        dl_key_slot_tag(slot, tag);
        assert_int_equal(dl_key_find_tag(0, slot, want), 1);
        assert_memory_equal(tag, want, DL_KEY_TAG_LEN);
        assert_int_equal(dl_crc16(tag, DL_KEY_TAG_LEN) & (DL_SLOTS - 1), slot);
        n = dl_key_fence_counter("lock:", 5, slot, out);
        assert_int_equal(n, 5 + 14 + 2 + DL_KEY_TAG_LEN);
        assert_memory_equal(out, "lock:distlock:fence{", 20);
        assert_int_equal(dl_slot_of(out, n), slot);
    }
    n = dl_key_fence_counter("", 0, 42, out);
    assert_int_equal(dl_slot_of(out, n), 42);
    /* A prefix with a tag: one counter, in the tag's slot (where every key under the prefix is). */
    n = dl_key_fence_counter("app{1}:", 7, dl_slot_of("app{1}:x", 8), out);
    assert_int_equal(n, 7 + 14);
    assert_memory_equal(out, "app{1}:distlock:fence", n);
    assert_int_equal(dl_slot_of(out, n), dl_slot_of("app{1}:anything", 15));
    /* Braces without a tag: the slot depends on the name; the caller keeps per-name counters. */
    assert_int_equal(dl_key_fence_counter("a{", 2, 0, out), 0);
    assert_int_equal(dl_key_fence_counter("a}", 2, 0, out), 0);
    assert_int_equal(dl_key_fence_counter("a{}b", 4, 0, out), 0);
}

static void test_has_tag(void **state)
{
    (void)state;
    assert_true(dl_key_has_tag("a{b}c", 5));
    assert_false(dl_key_has_tag("a{}c", 4));
    assert_false(dl_key_has_tag("a{bc", 4));
    assert_false(dl_key_has_tag("abc", 3));
    assert_true(dl_key_has_tag("}{x}", 4));
    assert_false(dl_key_has_tag("{}{x}", 5));   /* only the first '{' counts */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc16_reference),
        cmocka_unit_test(test_golden_names_unchanged),
        cmocka_unit_test(test_hostile_keys_same_slot),
        cmocka_unit_test(test_new_rules_shapes),
        cmocka_unit_test(test_random_keys_same_slot),
        cmocka_unit_test(test_tag_search_covers_every_slot),
        cmocka_unit_test(test_has_tag),
        cmocka_unit_test(test_fence_counter_per_slot),
    };
    return cmocka_run_group_tests_name("dl_key", tests, NULL, NULL);
}
