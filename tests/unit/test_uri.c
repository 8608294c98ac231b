/*
 * test_uri — dl_uri_parse, dl_parse_seconds and the dl_server_config helpers.
 */
#define _POSIX_C_SOURCE 200809L   /* strdup, kill, sigaction...: -std=c99 shows only ISO C */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_uri.h"

#define SECRET "hunter2XYZ"

/* Parses s[0..len) from an exactly sized heap copy (no NUL after it), so that
 * ASan reports any read past the length the parser was given. */
static dl_status_t parse_n(const char *s, size_t len, dl_server_config_t *cfg, dl_error_t *err)
{
    char *copy = malloc(len ? len : 1);
    dl_status_t st;
    assert_non_null(copy);
    memcpy(copy, s, len);
    dl_error_clear(err);
    st = dl_uri_parse(copy, len, cfg, err);
    free(copy);
    return st;
}

static dl_status_t parse(const char *s, dl_server_config_t *cfg, dl_error_t *err)
{
    return parse_n(s, strlen(s), cfg, err);
}

static void assert_zeroed(const dl_server_config_t *cfg)
{
    assert_null(cfg->host);
    assert_null(cfg->unix_path);
    assert_null(cfg->username);
    assert_null(cfg->password);
    assert_int_equal(cfg->port, 0);
    assert_int_equal(cfg->has_db, 0);
    assert_int_equal(cfg->has_timeout, 0);
    assert_int_equal(cfg->has_connect_timeout, 0);
}

static void ok(const char *uri, dl_server_config_t *cfg)
{
    dl_error_t err;
    dl_status_t st = parse(uri, cfg, &err);
    if (st != DL_OK) {
        fail_msg("expected %s to parse, got %s: %s", uri, dl_status_name(st), err.msg);
    }
}

static void assert_str_or_null(const char *got, const char *want)
{
    if (want == NULL) {
        assert_null(got);
    } else {
        assert_non_null(got);
        assert_string_equal(got, want);
    }
}

/* Checks every field of a TCP configuration. */
static void check_tcp(const dl_server_config_t *c, const char *host, int port, const char *user, const char *pass,
                      int has_db, int db, int tls)
{
    assert_str_or_null(c->host, host);
    assert_int_equal(c->port, port);
    assert_null(c->unix_path);
    assert_str_or_null(c->username, user);
    assert_str_or_null(c->password, pass);
    assert_int_equal(c->has_db, has_db);
    if (has_db) assert_int_equal(c->db, db);
    assert_int_equal(c->tls, tls);
}

/* ---- valid URIs ------------------------------------------------------ */

static void test_host_only(void **state)
{
    dl_server_config_t c;
    (void)state;
    ok("redis://localhost", &c);
    check_tcp(&c, "localhost", 6379, NULL, NULL, 0, 0, 0);
    assert_int_equal(c.has_timeout, 0);
    assert_int_equal(c.has_connect_timeout, 0);
    dl_server_config_free(&c);

    ok("redis://127.0.0.1", &c);
    check_tcp(&c, "127.0.0.1", 6379, NULL, NULL, 0, 0, 0);
    dl_server_config_free(&c);

    /* tcp:// (phpredis's spelling) is redis:// */
    ok("tcp://127.0.0.1:6380/2", &c);
    check_tcp(&c, "127.0.0.1", 6380, NULL, NULL, 1, 2, 0);
    dl_server_config_free(&c);
}

static void test_port_and_db(void **state)
{
    dl_server_config_t c;
    (void)state;
    ok("redis://redis.example.com:6380", &c);
    check_tcp(&c, "redis.example.com", 6380, NULL, NULL, 0, 0, 0);
    dl_server_config_free(&c);

    ok("redis://h:1/3", &c);
    check_tcp(&c, "h", 1, NULL, NULL, 1, 3, 0);
    dl_server_config_free(&c);

    ok("redis://h:65535/2147483647", &c);
    check_tcp(&c, "h", 65535, NULL, NULL, 1, 2147483647, 0);
    dl_server_config_free(&c);

    ok("redis://h/0", &c);
    check_tcp(&c, "h", 6379, NULL, NULL, 1, 0, 0);
    dl_server_config_free(&c);

    /* A bare trailing slash names no database. */
    ok("redis://h:7000/", &c);
    check_tcp(&c, "h", 7000, NULL, NULL, 0, 0, 0);
    dl_server_config_free(&c);
}

static void test_credentials(void **state)
{
    dl_server_config_t c;
    (void)state;
    ok("redis://alice:" SECRET "@h:6390/5", &c);
    check_tcp(&c, "h", 6390, "alice", SECRET, 1, 5, 0);
    dl_server_config_free(&c);

    ok("redis://:" SECRET "@h", &c);
    check_tcp(&c, "h", 6379, NULL, SECRET, 0, 0, 0);
    dl_server_config_free(&c);

    /* Userinfo without ':' is a password. */
    ok("redis://" SECRET "@h", &c);
    check_tcp(&c, "h", 6379, NULL, SECRET, 0, 0, 0);
    dl_server_config_free(&c);

    /* The password runs to the last '@': raw '/', '@' and ':' stay in it. */
    ok("redis://bob:pa/ss@w:rd@h:1", &c);
    check_tcp(&c, "h", 1, "bob", "pa/ss@w:rd", 0, 0, 0);
    dl_server_config_free(&c);

    /* Empty userinfo: no credentials. */
    ok("redis://@h", &c);
    check_tcp(&c, "h", 6379, NULL, NULL, 0, 0, 0);
    dl_server_config_free(&c);
}

static void test_percent_encoded_credentials(void **state)
{
    dl_server_config_t c;
    (void)state;
    ok("redis://al%69c%65:p%40ss%2Fw%3ard%25%C3%A9@h", &c);
    check_tcp(&c, "h", 6379, "alice", "p@ss/w:rd%\xc3\xa9", 0, 0, 0);
    dl_server_config_free(&c);

    ok("redis://%3a%3A@h", &c); /* password only, decoded to "::" */
    check_tcp(&c, "h", 6379, NULL, "::", 0, 0, 0);
    dl_server_config_free(&c);
}

static void test_ipv6(void **state)
{
    dl_server_config_t c;
    (void)state;
    ok("redis://[::1]:6380", &c);
    check_tcp(&c, "::1", 6380, NULL, NULL, 0, 0, 0);
    dl_server_config_free(&c);

    ok("redis://u:" SECRET "@[fe80::1:2]/4", &c);
    check_tcp(&c, "fe80::1:2", 6379, "u", SECRET, 1, 4, 0);
    dl_server_config_free(&c);

    ok("redis://[::ffff:127.0.0.1]", &c);
    check_tcp(&c, "::ffff:127.0.0.1", 6379, NULL, NULL, 0, 0, 0);
    dl_server_config_free(&c);
}

static void test_query(void **state)
{
    dl_server_config_t c;
    (void)state;
    ok("redis://h?timeout=0.5&connect_timeout=2&db=4", &c);
    check_tcp(&c, "h", 6379, NULL, NULL, 1, 4, 0);
    assert_int_equal(c.has_timeout, 1);
    assert_int_equal(c.timeout_us, 500000);
    assert_int_equal(c.has_connect_timeout, 1);
    assert_int_equal(c.connect_timeout_us, 2000000);
    dl_server_config_free(&c);

    ok("redis://:" SECRET "@h:6380/1?timeout=1e-3", &c);
    check_tcp(&c, "h", 6380, NULL, SECRET, 1, 1, 0);
    assert_int_equal(c.has_timeout, 1);
    assert_int_equal(c.timeout_us, 1000);
    assert_int_equal(c.has_connect_timeout, 0);
    dl_server_config_free(&c);

    ok("redis://h?connect_timeout=3600", &c);
    assert_int_equal(c.has_connect_timeout, 1);
    assert_int_equal(c.connect_timeout_us, 3600LL * 1000000);
    assert_int_equal(c.has_timeout, 0);
    dl_server_config_free(&c);

    /* An empty query is allowed and sets nothing. */
    ok("redis://h?", &c);
    check_tcp(&c, "h", 6379, NULL, NULL, 0, 0, 0);
    assert_int_equal(c.has_timeout, 0);
    dl_server_config_free(&c);
}

static void test_unix(void **state)
{
    dl_server_config_t c;
    char uri[200], path[108];
    (void)state;
    ok("unix:///var/run/redis.sock?db=2", &c);
    assert_null(c.host);
    assert_int_equal(c.port, 0);
    assert_non_null(c.unix_path);
    assert_string_equal(c.unix_path, "/var/run/redis.sock");
    assert_null(c.username);
    assert_null(c.password);
    assert_int_equal(c.has_db, 1);
    assert_int_equal(c.db, 2);
    assert_int_equal(c.tls, 0);
    dl_server_config_free(&c);

    ok("unix:///tmp/r.sock?timeout=0.25&connect_timeout=0.75", &c);
    assert_string_equal(c.unix_path, "/tmp/r.sock");
    assert_int_equal(c.has_db, 0);
    assert_int_equal(c.timeout_us, 250000);
    assert_int_equal(c.connect_timeout_us, 750000);
    dl_server_config_free(&c);

    /* 107 bytes is the longest path that fits sockaddr_un.sun_path. */
    memset(path, 'p', 107);
    path[0] = '/';
    path[107] = '\0';
    snprintf(uri, sizeof(uri), "unix://%s", path);
    ok(uri, &c);
    assert_string_equal(c.unix_path, path);
    dl_server_config_free(&c);
}

static void test_rediss_sets_tls(void **state)
{
    dl_server_config_t c;
    (void)state;
    ok("rediss://u:" SECRET "@secure.example:6390/7?timeout=2", &c);
    check_tcp(&c, "secure.example", 6390, "u", SECRET, 1, 7, 1);
    assert_int_equal(c.timeout_us, 2000000);
    dl_server_config_free(&c);

    ok("redis://secure.example", &c);
    assert_int_equal(c.tls, 0);
    dl_server_config_free(&c);
}

static void test_max_length_accepted(void **state)
{
    /* Exactly DL_URI_MAX_LEN bytes: "redis://:" + password + "@h". */
    char *uri = malloc(DL_URI_MAX_LEN);
    size_t pwlen = DL_URI_MAX_LEN - strlen("redis://:") - strlen("@h");
    dl_server_config_t c;
    dl_error_t err;
    (void)state;
    assert_non_null(uri);
    memcpy(uri, "redis://:", 9);
    memset(uri + 9, 'x', pwlen);
    memcpy(uri + 9 + pwlen, "@h", 2);
    assert_int_equal(parse_n(uri, DL_URI_MAX_LEN, &c, &err), DL_OK);
    assert_int_equal(strlen(c.password), pwlen);
    assert_string_equal(c.host, "h");
    dl_server_config_free(&c);
    free(uri);
}

static void test_parse_zeroes_output_first(void **state)
{
    dl_server_config_t c;
    dl_error_t err;
    (void)state;
    memset(&c, 0xA5, sizeof(c));
    assert_int_equal(parse("redis://h", &c, &err), DL_OK);
    assert_null(c.username);
    assert_null(c.password);
    assert_null(c.unix_path);
    assert_int_equal(c.has_db, 0);
    assert_int_equal(c.has_timeout, 0);
    assert_int_equal(c.tls, 0);
    dl_server_config_free(&c);

    memset(&c, 0xA5, sizeof(c));
    assert_int_equal(parse("redis://h:0", &c, &err), DL_ERR_URI);
    assert_zeroed(&c);
}

/* ---- hostile inputs -------------------------------------------------- */

static void expect_uri_error_n(const char *uri, size_t len)
{
    dl_server_config_t c;
    dl_error_t err;
    dl_status_t st = parse_n(uri, len, &c, &err);
    if (st != DL_ERR_URI) {
        fail_msg("expected DL_ERR_URI for \"%.*s\" (len %zu), got %s", (int)(len > 200 ? 200 : len), uri, len,
                 dl_status_name(st));
    }
    assert_int_equal(err.code, DL_ERR_URI);
    assert_true(strlen(err.msg) > 0);
    if (strstr(err.msg, SECRET) || strstr(err.msg, "hunter")) {
        fail_msg("error message leaks the password: %s", err.msg);
    }
    /* Nothing left to free (LeakSanitizer would also notice). */
    assert_zeroed(&c);
}

static void expect_uri_error(const char *uri)
{
    expect_uri_error_n(uri, strlen(uri));
}

static void test_empty_and_scheme(void **state)
{
    (void)state;
    expect_uri_error_n("", 0);
    expect_uri_error("localhost:6379");
    expect_uri_error("http://h");
    expect_uri_error("REDIS://h");
    expect_uri_error("redis:/h");
    expect_uri_error("redis://");
    expect_uri_error("rediss://");
    expect_uri_error("unix://");
    expect_uri_error("redis://:" SECRET "@");
}

static void test_nul_byte(void **state)
{
    static const char a[] = "redis://:" SECRET "@h\0st:6379";
    static const char b[] = "redis://:" SECRET "\0x@host";
    static const char u[] = "unix:///tmp/a\0b.sock";
    (void)state;
    expect_uri_error_n(a, sizeof(a) - 1);
    expect_uri_error_n(b, sizeof(b) - 1);
    expect_uri_error_n(u, sizeof(u) - 1);
}

static void test_too_long(void **state)
{
    char *uri = malloc(DL_URI_MAX_LEN + 1);
    (void)state;
    assert_non_null(uri);
    memcpy(uri, "redis://:" SECRET "@", 20);
    memset(uri + 20, 'a', DL_URI_MAX_LEN + 1 - 20);
    expect_uri_error_n(uri, DL_URI_MAX_LEN + 1);
    free(uri);
}

static void test_bad_port(void **state)
{
    (void)state;
    expect_uri_error("redis://:" SECRET "@h:0");
    expect_uri_error("redis://:" SECRET "@h:65536");
    expect_uri_error("redis://:" SECRET "@h:99999999999");
    expect_uri_error("redis://:" SECRET "@h:abc");
    expect_uri_error("redis://:" SECRET "@h:");
    expect_uri_error("redis://:" SECRET "@h:-1");
    expect_uri_error("redis://:" SECRET "@h:+80");
    expect_uri_error("redis://:" SECRET "@h:80x");
    expect_uri_error("redis://:" SECRET "@[::1]:0");
    expect_uri_error("redis://:" SECRET "@[::1]x");
}

static void test_bad_db(void **state)
{
    (void)state;
    expect_uri_error("redis://:" SECRET "@h/-1");
    expect_uri_error("redis://:" SECRET "@h/2147483648");
    expect_uri_error("redis://:" SECRET "@h/99999999999");
    expect_uri_error("redis://:" SECRET "@h/abc");
    expect_uri_error("redis://:" SECRET "@h:6379/1/2");
    expect_uri_error("redis://:" SECRET "@h?db=-1");
    expect_uri_error("redis://:" SECRET "@h?db=2147483648");
    expect_uri_error("redis://:" SECRET "@h?db=abc");
    expect_uri_error("redis://:" SECRET "@h?db=");
    expect_uri_error("unix:///tmp/r.sock?db=x");
}

static void test_bad_query(void **state)
{
    (void)state;
    expect_uri_error("redis://:" SECRET "@h?password=" SECRET);
    expect_uri_error("redis://:" SECRET "@h?timeout");
    expect_uri_error("redis://:" SECRET "@h?&timeout=1");
    expect_uri_error("redis://:" SECRET "@h?Timeout=1");
    expect_uri_error("redis://:" SECRET "@h?timeout=1&db");
    expect_uri_error("unix:///tmp/r.sock?foo=1");
}

static void test_bad_percent_escapes(void **state)
{
    (void)state;
    expect_uri_error("redis://:" SECRET "%zz@h");
    expect_uri_error("redis://:" SECRET "%0 @h");
    expect_uri_error("redis://:" SECRET "%00@h");
    expect_uri_error("redis://:" SECRET "%0@h");
    expect_uri_error("redis://:" SECRET "%@h");
    expect_uri_error("redis://us%zzer:" SECRET "@h");
    expect_uri_error("redis://" SECRET "%g1@h");
}

static void test_bad_host(void **state)
{
    (void)state;
    expect_uri_error("redis://:" SECRET "@[::1");
    expect_uri_error("redis://:" SECRET "@[::1:6379");
    expect_uri_error("redis://:" SECRET "@[]:6379");
    expect_uri_error("redis://:" SECRET "@[zz::1]");
    expect_uri_error("redis://:" SECRET "@[::1]]");
    expect_uri_error("redis://:" SECRET "@my host");
    expect_uri_error("redis://:" SECRET "@my%20host");
    expect_uri_error("redis://:" SECRET "@ho/st");
    expect_uri_error("redis://:" SECRET "@ho\\st");
    expect_uri_error("redis://:" SECRET "@:6379");
    expect_uri_error("redis://:" SECRET "@/0");
    expect_uri_error("redis://:" SECRET "@h#frag");
    {
        /* 254-byte host name: over the DNS limit of 253. */
        char uri[300];
        int n = snprintf(uri, sizeof(uri), "redis://:" SECRET "@");
        memset(uri + n, 'a', 254);
        uri[n + 254] = '\0';
        expect_uri_error(uri);
    }
}

static void test_bad_unix(void **state)
{
    char uri[300];
    (void)state;
    expect_uri_error("unix://relative/path.sock");
    expect_uri_error("unix:///");
    expect_uri_error("unix://?db=1");
    expect_uri_error("unix://:" SECRET "@/tmp/r.sock");
    /* 200-byte path: longer than sun_path. */
    memcpy(uri, "unix://", 7);
    memset(uri + 7, 'p', 200);
    uri[7] = '/';
    uri[207] = '\0';
    expect_uri_error(uri);
    /* 108 bytes: one too many. */
    uri[7 + 108] = '\0';
    expect_uri_error(uri);
}

static void test_empty_password(void **state)
{
    (void)state;
    expect_uri_error("redis://user:@h");
    expect_uri_error("redis://:@h");
}

static void test_bad_timeouts(void **state)
{
    static const char *const bad[] = {
        "0", "-1", "inf", "INF", "nan", "NaN", "1e400", "0x10", "", "3601", "3600.000001",
        "1e-400", " 1", "1 ", "1s", ".", "e5", "1e", "--1", "0.0", "-0", "infinity",
    };
    size_t i;
    char uri[128];
    (void)state;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(uri, sizeof(uri), "redis://:" SECRET "@h?timeout=%s", bad[i]);
        expect_uri_error(uri);
        snprintf(uri, sizeof(uri), "redis://:" SECRET "@h?connect_timeout=%s", bad[i]);
        expect_uri_error(uri);
        snprintf(uri, sizeof(uri), "unix:///tmp/r.sock?timeout=%s", bad[i]);
        expect_uri_error(uri);
    }
}

/* ---- dl_parse_seconds ------------------------------------------------ */

static int64_t secs(const char *s, int64_t max_us, int *rc)
{
    int64_t out = -12345;
    size_t len = strlen(s);
    char *copy = malloc(len ? len : 1);  /* no NUL after the digits */
    assert_non_null(copy);
    memcpy(copy, s, len);
    *rc = dl_parse_seconds(copy, len, max_us, &out);
    free(copy);
    return out;
}

static void test_parse_seconds(void **state)
{
    int rc;
    int64_t v;
    (void)state;
    v = secs("0.5", DL_TIMEOUT_MAX_US, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(v, 500000);
    v = secs("2", DL_TIMEOUT_MAX_US, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(v, 2000000);
    v = secs("1e-3", DL_TIMEOUT_MAX_US, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(v, 1000);
    v = secs("2.5E1", DL_TIMEOUT_MAX_US, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(v, 25000000);
    v = secs("0.000001", DL_TIMEOUT_MAX_US, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(v, 1);
    /* Sub-microsecond values round up, never down to 0. */
    v = secs("0.0000001", DL_TIMEOUT_MAX_US, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(v, 1);
    v = secs("3600", DL_TIMEOUT_MAX_US, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(v, DL_TIMEOUT_MAX_US);

    /* The maximum is inclusive and enforced. */
    v = secs("10", 10000000, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(v, 10000000);
    secs("10.5", 10000000, &rc);
    assert_int_equal(rc, -1);

    /* Failure leaves *out alone. */
    v = secs("abc", DL_TIMEOUT_MAX_US, &rc);
    assert_int_equal(rc, -1);
    assert_int_equal(v, -12345);

    /* Only len bytes are read. */
    {
        int64_t out = 0;
        assert_int_equal(dl_parse_seconds("0.25junk", 4, DL_TIMEOUT_MAX_US, &out), 0);
        assert_int_equal(out, 250000);
        assert_int_equal(dl_parse_seconds("7", 0, DL_TIMEOUT_MAX_US, &out), -1);
    }
    /* Too long to be a number of seconds. */
    {
        char buf[80];
        memset(buf, '1', sizeof(buf));
        buf[0] = '0';
        buf[1] = '.';
        assert_int_equal(dl_parse_seconds(buf, sizeof(buf), DL_TIMEOUT_MAX_US, &v), -1);
    }
    {
        static const char with_nul[] = "1\0";
        assert_int_equal(dl_parse_seconds(with_nul, 2, DL_TIMEOUT_MAX_US, &v), -1);
    }
}

/* ---- copy, free, endpoint -------------------------------------------- */

static void test_config_copy_free(void **state)
{
    dl_server_config_t src, dst;
    dl_error_t err;
    (void)state;
    assert_int_equal(parse("redis://alice:" SECRET "@h:6390/5?timeout=0.5&connect_timeout=2", &src, &err), DL_OK);
    assert_int_equal(dl_server_config_copy(&dst, &src), DL_OK);
    /* Deep: different pointers, same contents. */
    assert_ptr_not_equal(dst.host, src.host);
    assert_ptr_not_equal(dst.username, src.username);
    assert_ptr_not_equal(dst.password, src.password);
    dl_server_config_free(&src);
    assert_zeroed(&src);
    assert_int_equal(src.tls, 0);
    check_tcp(&dst, "h", 6390, "alice", SECRET, 1, 5, 0);
    assert_int_equal(dst.timeout_us, 500000);
    assert_int_equal(dst.connect_timeout_us, 2000000);
    assert_int_equal(dst.has_timeout, 1);
    assert_int_equal(dst.has_connect_timeout, 1);
    dl_server_config_free(&dst);
    assert_zeroed(&dst);
    /* Freeing a zeroed config is harmless. */
    dl_server_config_free(&dst);

    assert_int_equal(parse("unix:///tmp/r.sock?db=9", &src, &err), DL_OK);
    assert_int_equal(dl_server_config_copy(&dst, &src), DL_OK);
    dl_server_config_free(&src);
    assert_null(dst.host);
    assert_string_equal(dst.unix_path, "/tmp/r.sock");
    assert_null(dst.password);
    assert_int_equal(dst.db, 9);
    dl_server_config_free(&dst);

    assert_int_equal(parse("rediss://h", &src, &err), DL_OK);
    src.tls_ca = strdup("/etc/ca.pem");
    src.tls_cert = strdup("/etc/c.pem");
    src.tls_key = strdup("/etc/k.pem");
    src.tls_server_name = strdup("redis.example");
    src.tls_no_verify = 1;
    assert_int_equal(dl_server_config_copy(&dst, &src), DL_OK);
    assert_int_equal(dst.tls, 1);
    assert_string_equal(dst.tls_ca, "/etc/ca.pem");
    assert_ptr_not_equal(dst.tls_ca, src.tls_ca);
    assert_null(dst.tls_ca_path);
    assert_string_equal(dst.tls_key, "/etc/k.pem");
    assert_string_equal(dst.tls_server_name, "redis.example");
    assert_int_equal(dst.tls_no_verify, 1);
    assert_true(dl_server_config_same(&src, &dst));
    /* Any TLS setting makes another server configuration (pool and watchdog keys). */
    dst.tls_no_verify = 0;
    assert_false(dl_server_config_same(&src, &dst));
    dst.tls_no_verify = 1;
    free(dst.tls_ca);
    dst.tls_ca = strdup("/etc/other.pem");
    assert_false(dl_server_config_same(&src, &dst));
    dl_server_config_free(&src);
    dl_server_config_free(&dst);
    assert_null(dst.tls_ca);

    /* A rediss:// and a redis:// configuration of the same host:port differ. */
    assert_int_equal(parse("rediss://h:1", &src, &err), DL_OK);
    assert_int_equal(parse("redis://h:1", &dst, &err), DL_OK);
    assert_false(dl_server_config_same(&src, &dst));
    dl_server_config_free(&src);
    dl_server_config_free(&dst);
}

static void test_endpoint(void **state)
{
    dl_server_config_t c;
    char buf[128];
    (void)state;
    ok("redis://u:" SECRET "@db.example:6390/3", &c);
    dl_server_config_endpoint(&c, buf, sizeof(buf));
    assert_string_equal(buf, "db.example:6390");
    /* Truncated, still terminated. */
    dl_server_config_endpoint(&c, buf, 5);
    assert_string_equal(buf, "db.e");
    dl_server_config_free(&c);

    ok("redis://h", &c);
    dl_server_config_endpoint(&c, buf, sizeof(buf));
    assert_string_equal(buf, "h:6379");
    dl_server_config_free(&c);

    ok("redis://:" SECRET "@[::1]:6380", &c);
    dl_server_config_endpoint(&c, buf, sizeof(buf));
    assert_string_equal(buf, "[::1]:6380");
    dl_server_config_free(&c);

    ok("unix:///run/redis/redis.sock?db=1", &c);
    dl_server_config_endpoint(&c, buf, sizeof(buf));
    assert_string_equal(buf, "/run/redis/redis.sock");
    dl_server_config_free(&c);
}

/* ---- fuzz-ish -------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rng(void)
{
    /* xorshift64*: fixed seed, reproducible. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static void test_fuzz(void **state)
{
    static const char alphabet[] = "abcxyz019:@/?&=%[].-_ \\#+eE";
    static const char *const prefixes[] = {"redis://", "redis://", "redis://", "rediss://", "unix://"};
    static const char *const seeds[] = {
        "", "h", "h:6379", "u:p@h:1/2?timeout=0.5", "[::1]:6380/0", ":p%41@h?db=3&connect_timeout=1",
        "/tmp/r.sock?db=1",
    };
    unsigned long parsed = 0, rejected = 0;
    long i;
    (void)state;
    for (i = 0; i < 100000; i++) {
        char buf[160];
        const char *prefix = prefixes[rng() % 5];
        size_t plen = strlen(prefix), len = plen, body, j;
        dl_server_config_t c;
        dl_error_t err;
        dl_status_t st;

        memcpy(buf, prefix, plen);
        if (rng() % 2) {
            /* A mutated valid-looking body. */
            const char *s = seeds[rng() % (sizeof(seeds) / sizeof(seeds[0]))];
            size_t slen = strlen(s), k, muts = rng() % 4;
            memcpy(buf + len, s, slen);
            len += slen;
            for (k = 0; k < muts && len > plen; k++) {
                size_t at = plen + rng() % (len - plen);
                buf[at] = (rng() % 3) ? alphabet[rng() % (sizeof(alphabet) - 1)] : (char)(rng() & 0xff);
            }
        } else {
            body = rng() % 64;
            for (j = 0; j < body; j++) {
                buf[len++] = (rng() % 4) ? alphabet[rng() % (sizeof(alphabet) - 1)] : (char)(rng() & 0xff);
            }
        }
        st = parse_n(buf, len, &c, &err);
        if (st == DL_OK) {
            parsed++;
            if (c.unix_path) {
                assert_null(c.host);
                assert_int_equal(c.unix_path[0], '/');
                assert_true(strlen(c.unix_path) < 108);
            } else {
                assert_non_null(c.host);
                assert_true(c.port >= 1 && c.port <= 65535);
            }
            if (c.has_db) assert_true(c.db >= 0);
            if (c.has_timeout) assert_true(c.timeout_us > 0 && c.timeout_us <= DL_TIMEOUT_MAX_US);
            if (c.password) assert_true(strlen(c.password) > 0);
            dl_server_config_free(&c);
        } else {
            if (st != DL_ERR_URI) fail_msg("input %ld: got %s", i, dl_status_name(st));
            assert_zeroed(&c);
            rejected++;
        }
    }
    /* The generator must exercise both outcomes to mean anything. */
    print_message("fuzz: %lu parsed, %lu rejected\n", parsed, rejected);
    assert_true(parsed > 1000);
    assert_true(rejected > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_only),
        cmocka_unit_test(test_port_and_db),
        cmocka_unit_test(test_credentials),
        cmocka_unit_test(test_percent_encoded_credentials),
        cmocka_unit_test(test_ipv6),
        cmocka_unit_test(test_query),
        cmocka_unit_test(test_unix),
        cmocka_unit_test(test_rediss_sets_tls),
        cmocka_unit_test(test_max_length_accepted),
        cmocka_unit_test(test_parse_zeroes_output_first),
        cmocka_unit_test(test_empty_and_scheme),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_too_long),
        cmocka_unit_test(test_bad_port),
        cmocka_unit_test(test_bad_db),
        cmocka_unit_test(test_bad_query),
        cmocka_unit_test(test_bad_percent_escapes),
        cmocka_unit_test(test_bad_host),
        cmocka_unit_test(test_bad_unix),
        cmocka_unit_test(test_empty_password),
        cmocka_unit_test(test_bad_timeouts),
        cmocka_unit_test(test_parse_seconds),
        cmocka_unit_test(test_config_copy_free),
        cmocka_unit_test(test_endpoint),
        cmocka_unit_test(test_fuzz),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
