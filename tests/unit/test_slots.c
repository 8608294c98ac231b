/* dl_slots: slots, the slot map from CLUSTER SHARDS / CLUSTER SLOTS, redirection replies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dl_slots.h"
#include "reply_build.h"

static void test_slot_of_spec_examples(void **state)
{
    (void)state;
    assert_int_equal(dl_crc16("123456789", 9), 0x31C3);
    /* Hash tags (spec: "{user1000}.following" and "{user1000}.followers" share a slot). */
    assert_int_equal(dl_slot_of("{user1000}.following", 20), dl_slot_of("{user1000}.followers", 20));
    assert_int_equal(dl_slot_of("{user1000}.following", 20), dl_slot_of("user1000", 8));
    assert_int_equal(dl_slot_of("foo{}{bar}", 10), dl_crc16("foo{}{bar}", 10) & 16383);   /* empty first tag: whole key */
    assert_int_equal(dl_slot_of("foo{{bar}}zap", 13), dl_slot_of("{bar", 4));              /* tag "{bar" */
    assert_int_equal(dl_slot_of("foo{bar}{zap}", 13), dl_slot_of("bar", 3));               /* first tag only */
    /* Known values (redis-cli CLUSTER KEYSLOT). */
    assert_int_equal(dl_slot_of("foo", 3), 12182);
    assert_int_equal(dl_slot_of("bar", 3), 5061);
    assert_int_equal(dl_slot_of("", 0), 0);
}

/* CLUSTER SHARDS of a 2-shard cluster, one replica each; the second master has no endpoint. */
static dl_reply_t shards_reply(void)
{
    dl_reply_t s1 = rb_arr(4,
        rb_str("slots"), rb_arr(4, rb_int(0), rb_int(5460), rb_int(10923), rb_int(16383)),
        rb_str("nodes"), rb_arr(2,
            rb_arr(10, rb_str("id"), rb_str("aaa"), rb_str("port"), rb_int(7001), rb_str("ip"), rb_str("10.0.0.1"),
                   rb_str("endpoint"), rb_str("10.0.0.1"), rb_str("role"), rb_str("master")),
            rb_arr(8, rb_str("port"), rb_int(7004), rb_str("ip"), rb_str("10.0.0.4"),
                   rb_str("endpoint"), rb_str("10.0.0.4"), rb_str("role"), rb_str("replica"))));
    dl_reply_t s2 = rb_arr(4,
        rb_str("nodes"), rb_arr(1,
            rb_arr(12, rb_str("port"), rb_int(7002), rb_str("tls-port"), rb_int(8002), rb_str("ip"), rb_str("10.0.0.2"),
                   rb_str("endpoint"), rb_str("?"), rb_str("role"), rb_str("master"), rb_str("health"), rb_str("online"))),
        rb_str("slots"), rb_arr(2, rb_int(5461), rb_int(10922)));
    return rb_arr(2, s1, s2);
}

static void test_map_from_shards(void **state)
{
    dl_slot_map_t m;
    dl_error_t err;
    dl_reply_t r = shards_reply();
    (void)state;
    dl_slot_map_init(&m);
    assert_int_equal(dl_slot_map_from_shards(&m, &r, "seed", 0, &err), DL_OK);
    assert_int_equal(m.nnodes, 2);
    assert_string_equal(m.nodes[0].host, "10.0.0.1");
    assert_int_equal(m.nodes[0].port, 7001);
    assert_string_equal(m.nodes[1].host, "10.0.0.2");   /* endpoint "?": the ip */
    assert_int_equal(m.nodes[1].port, 7002);
    assert_int_equal(m.owner[0], 0);
    assert_int_equal(m.owner[5460], 0);
    assert_int_equal(m.owner[5461], 1);
    assert_int_equal(m.owner[10922], 1);
    assert_int_equal(m.owner[10923], 0);
    assert_int_equal(m.owner[16383], 0);
    assert_int_equal(dl_slot_map_covered(&m), 16384);
    assert_int_equal(dl_slot_map_masters(&m), 2);
    /* With TLS: the tls-port where there is one. */
    assert_int_equal(dl_slot_map_from_shards(&m, &r, "seed", 1, &err), DL_OK);
    assert_int_equal(m.nodes[0].port, 7001);
    assert_int_equal(m.nodes[1].port, 8002);
    dl_slot_map_free(&m);
    dl_reply_free(&r);
}

static void test_map_from_shards_errors(void **state)
{
    dl_slot_map_t m;
    dl_error_t err;
    dl_reply_t r = rb_err("ERR unknown subcommand 'SHARDS'. Try CLUSTER HELP.");
    (void)state;
    dl_slot_map_init(&m);
    assert_int_equal(dl_slot_map_from_shards(&m, &r, "seed", 0, &err), DL_ERR_SERVER);
    assert_non_null(strstr(err.msg, "unknown subcommand"));
    dl_reply_free(&r);
    r = rb_arr(1, rb_arr(4, rb_str("slots"), rb_arr(2, rb_int(0), rb_int(16384)), rb_str("nodes"),
                         rb_arr(1, rb_arr(4, rb_str("port"), rb_int(1), rb_str("role"), rb_str("master")))));
    assert_int_equal(dl_slot_map_from_shards(&m, &r, "seed", 0, &err), DL_ERR_PROTOCOL);   /* slot 16384 */
    assert_int_equal(m.nnodes, 0);
    assert_int_equal(dl_slot_map_covered(&m), 0);
    dl_reply_free(&r);
    r = rb_arr(0);
    assert_int_equal(dl_slot_map_from_shards(&m, &r, "seed", 0, &err), DL_ERR_PROTOCOL);   /* nothing served */
    dl_reply_free(&r);
    r = rb_int(3);
    assert_int_equal(dl_slot_map_from_shards(&m, &r, "seed", 0, &err), DL_ERR_PROTOCOL);
    dl_reply_free(&r);
    dl_slot_map_free(&m);
}

static void test_map_from_slots(void **state)
{
    dl_slot_map_t m;
    dl_error_t err;
    dl_reply_t r = rb_arr(3,
        rb_arr(4, rb_int(0), rb_int(99), rb_arr(3, rb_str("10.0.0.1"), rb_int(7001), rb_str("id1")),
               rb_arr(3, rb_str("10.0.0.4"), rb_int(7004), rb_str("id4"))),
        rb_arr(3, rb_int(100), rb_int(16000), rb_arr(2, rb_str(""), rb_int(7002))),   /* "": the node asked */
        rb_arr(3, rb_int(16001), rb_int(16383), rb_arr(2, rb_str("::1"), rb_int(7003))));
    (void)state;
    dl_slot_map_init(&m);
    assert_int_equal(dl_slot_map_from_slots(&m, &r, "seed.example", &err), DL_OK);
    assert_int_equal(m.nnodes, 3);
    assert_string_equal(m.nodes[1].host, "seed.example");
    assert_string_equal(m.nodes[2].host, "::1");
    assert_int_equal(m.owner[99], 0);
    assert_int_equal(m.owner[100], 1);
    assert_int_equal(m.owner[16383], 2);
    assert_int_equal(dl_slot_map_covered(&m), 16384);
    dl_reply_free(&r);
    r = rb_arr(1, rb_arr(3, rb_int(5), rb_int(4), rb_arr(2, rb_str("h"), rb_int(1))));   /* start > end */
    assert_int_equal(dl_slot_map_from_slots(&m, &r, "seed", &err), DL_ERR_PROTOCOL);
    dl_reply_free(&r);
    r = rb_arr(1, rb_arr(3, rb_int(0), rb_int(4), rb_arr(2, rb_str("h"), rb_int(70000))));
    assert_int_equal(dl_slot_map_from_slots(&m, &r, "seed", &err), DL_ERR_PROTOCOL);
    dl_reply_free(&r);
    dl_slot_map_free(&m);
}

static dl_redir_kind_t parse(const char *s, dl_redirect_t *rd)
{
    dl_reply_t r = rb_err(s);
    dl_redir_kind_t k = dl_redirect_parse(&r, rd);
    dl_reply_free(&r);
    return k;
}

static void test_redirect_parse(void **state)
{
    dl_redirect_t rd;
    dl_reply_t ok = rb_str("MOVED 1 a:1");
    (void)state;
    assert_int_equal(parse("MOVED 3999 127.0.0.1:6381", &rd), DL_REDIR_MOVED);
    assert_int_equal(rd.slot, 3999);
    assert_string_equal(rd.host, "127.0.0.1");
    assert_int_equal(rd.port, 6381);
    assert_int_equal(parse("ASK 16383 redis-2.example:7000", &rd), DL_REDIR_ASK);
    assert_int_equal(rd.slot, 16383);
    assert_string_equal(rd.host, "redis-2.example");
    assert_int_equal(rd.port, 7000);
    /* IPv6: the last ':' separates the port, with or without brackets. */
    assert_int_equal(parse("MOVED 7 fe80::1:2:7001", &rd), DL_REDIR_MOVED);
    assert_string_equal(rd.host, "fe80::1:2");
    assert_int_equal(rd.port, 7001);
    assert_int_equal(parse("MOVED 7 [::1]:7001", &rd), DL_REDIR_MOVED);
    assert_string_equal(rd.host, "::1");
    /* A node that does not know its address. */
    assert_int_equal(parse("MOVED 0 :6380", &rd), DL_REDIR_MOVED);
    assert_string_equal(rd.host, "");
    assert_int_equal(rd.port, 6380);
    /* Malformed: the caller gets the reply as it came. */
    assert_int_equal(parse("MOVED 16384 h:1", &rd), DL_REDIR_NONE);
    assert_int_equal(parse("MOVED 1 h:0", &rd), DL_REDIR_NONE);
    assert_int_equal(parse("MOVED 1 h:65536", &rd), DL_REDIR_NONE);
    assert_int_equal(parse("MOVED 1 h", &rd), DL_REDIR_NONE);
    assert_int_equal(parse("MOVED x h:1", &rd), DL_REDIR_NONE);
    assert_int_equal(parse("MOVED", &rd), DL_REDIR_NONE);
    assert_int_equal(parse("MOVEDX 1 h:1", &rd), DL_REDIR_NONE);
    assert_int_equal(parse("ASKING 1 h:1", &rd), DL_REDIR_NONE);
    assert_int_equal(parse("TRYAGAIN Multiple keys request during rehashing of slot", &rd), DL_REDIR_TRYAGAIN);
    assert_int_equal(parse("CLUSTERDOWN The cluster is down", &rd), DL_REDIR_CLUSTERDOWN);
    assert_int_equal(parse("CLUSTERDOWN Hash slot not served", &rd), DL_REDIR_CLUSTERDOWN);
    assert_int_equal(parse("UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)", &rd),
                     DL_REDIR_UNBLOCKED);
    assert_int_equal(parse("READONLY You can't write against a read only replica.", &rd), DL_REDIR_READONLY);
    assert_int_equal(parse("ERR wrong number of arguments", &rd), DL_REDIR_NONE);
    assert_int_equal(parse("NOSCRIPT No matching script", &rd), DL_REDIR_NONE);
    /* Not an error reply: never a redirection. */
    assert_int_equal(dl_redirect_parse(&ok, &rd), DL_REDIR_NONE);
    dl_reply_free(&ok);
}

static void test_map_node_dedup(void **state)
{
    dl_slot_map_t m;
    (void)state;
    dl_slot_map_init(&m);
    assert_int_equal(dl_slot_map_node(&m, "a", 1, 1), 0);
    assert_int_equal(dl_slot_map_node(&m, "a", 1, 2), 1);
    assert_int_equal(dl_slot_map_node(&m, "a", 1, 1), 0);
    assert_int_equal(dl_slot_map_node(&m, "a\0b", 3, 1), -1);   /* no NUL in a host */
    assert_int_equal(m.nnodes, 2);
    dl_slot_map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slot_of_spec_examples),
        cmocka_unit_test(test_map_from_shards),
        cmocka_unit_test(test_map_from_shards_errors),
        cmocka_unit_test(test_map_from_slots),
        cmocka_unit_test(test_redirect_parse),
        cmocka_unit_test(test_map_node_dedup),
    };
    return cmocka_run_group_tests_name("dl_slots", tests, NULL, NULL);
}
