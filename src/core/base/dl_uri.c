/* POSIX.1-2008, before any system header: the build passes no feature macro
 * (docs/decisions/0036-platform-calls-chosen-by-configure.md). */
#define _POSIX_C_SOURCE 200809L

#include "dl_uri.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Percent-decodes s[0..len) into a new NUL-terminated string. NULL on a bad
 * escape, an encoded NUL, or no memory (*nomem tells which). */
static char *pct_decode(const char *s, size_t len, int *nomem)
{
    char *out = malloc(len + 1);
    size_t i, j = 0;
    *nomem = out == NULL;
    if (!out) return NULL;
    for (i = 0; i < len; i++) {
        if (s[i] == '%') {
            int hi, lo;
            if (i + 2 >= len) { free(out); return NULL; }
            hi = hexval(s[i + 1]);
            lo = hexval(s[i + 2]);
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) { free(out); return NULL; }
            out[j++] = (char)(hi * 16 + lo);
            i += 2;
        } else if (s[i] == '\0') {
            free(out);
            return NULL;
        } else {
            out[j++] = s[i];
        }
    }
    out[j] = '\0';
    return out;
}

static char *dup_range(const char *s, size_t len)
{
    char *out = malloc(len + 1);
    if (out) {
        memcpy(out, s, len);
        out[len] = '\0';
    }
    return out;
}

/* strtod in the "C" locale: a PHP script's setlocale(LC_NUMERIC, "de_DE")
 * must not turn "0.5" into an error. uselocale() (POSIX.1-2008) switches this
 * thread only, for the one call; strtod_l() would do it in one call but is not
 * POSIX (macOS and FreeBSD declare it in <xlocale.h>, glibc under _GNU_SOURCE). */
static double strtod_c(const char *s, char **end)
{
    static locale_t c_locale;
    locale_t old;
    double v;
    if (!c_locale) c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (!c_locale || (old = uselocale(c_locale)) == (locale_t)0) return strtod(s, end);
    v = strtod(s, end);
    uselocale(old);
    return v;
}

int dl_parse_seconds(const char *s, size_t len, int64_t max_us, int64_t *out_us)
{
    char buf[64], *end;
    double v;
    size_t i;
    if (len == 0 || len >= sizeof(buf)) return -1;
    for (i = 0; i < len; i++) {
        /* strtod also takes "inf", "nan" and hex floats; allow plain decimals only. */
        if (!strchr("0123456789.eE+-", s[i]) || s[i] == '\0') return -1;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    v = strtod_c(buf, &end);
    if (*end != '\0' || errno != 0 || !isfinite(v) || v <= 0 || v * 1e6 > (double)max_us) {
        return -1;
    }
    *out_us = (int64_t)ceil(v * 1e6);
    return 0;
}

/* Parses a decimal integer in [0, max]. Returns 0 on success. */
static int parse_uint(const char *s, size_t len, long long max, long long *out)
{
    long long v = 0;
    size_t i;
    if (len == 0 || len > 10) return -1;
    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v > max) return -1;
    *out = v;
    return 0;
}

static int valid_hostname(const char *s, size_t len)
{
    size_t i;
    if (len == 0 || len > 253) return 0;
    for (i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_')) {
            return 0;
        }
    }
    return 1;
}

static int valid_ipv6(const char *s, size_t len)
{
    size_t i;
    if (len < 2 || len > 45) return 0;
    for (i = 0; i < len; i++) {
        if (!(hexval(s[i]) >= 0 || s[i] == ':' || s[i] == '.')) return 0;
    }
    return 1;
}

static dl_status_t fail(dl_server_config_t *out, dl_error_t *err, const char *what)
{
    dl_server_config_free(out);
    return dl_error_set(err, DL_ERR_URI, "%s", what);
}

static dl_status_t nomem(dl_server_config_t *out, dl_error_t *err)
{
    dl_server_config_free(out);
    return dl_error_set(err, DL_ERR_NOMEM, "out of memory while parsing the server URI");
}

/* Parses "k=v&k=v" (timeout, connect_timeout, db). */
static dl_status_t parse_query(const char *q, size_t len, dl_server_config_t *out, dl_error_t *err)
{
    const char *p = q, *end = q + len;
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *stop = amp ? amp : end;
        const char *eq = memchr(p, '=', (size_t)(stop - p));
        size_t klen, vlen;
        const char *v;
        if (!eq) return fail(out, err, "query parameter without a value in the server URI");
        klen = (size_t)(eq - p);
        v = eq + 1;
        vlen = (size_t)(stop - v);
        if (klen == 7 && memcmp(p, "timeout", 7) == 0) {
            if (dl_parse_seconds(v, vlen, DL_TIMEOUT_MAX_US, &out->timeout_us) != 0)
                return fail(out, err, "timeout in the server URI must be a number of seconds greater than 0 and at most 3600");
            out->has_timeout = 1;
        } else if (klen == 15 && memcmp(p, "connect_timeout", 15) == 0) {
            if (dl_parse_seconds(v, vlen, DL_TIMEOUT_MAX_US, &out->connect_timeout_us) != 0)
                return fail(out, err, "connect_timeout in the server URI must be a number of seconds greater than 0 and at most 3600");
            out->has_connect_timeout = 1;
        } else if (klen == 2 && memcmp(p, "db", 2) == 0) {
            long long db;
            if (parse_uint(v, vlen, DL_DB_MAX, &db) != 0)
                return fail(out, err, "db in the server URI must be an integer from 0 to 2147483647");
            out->db = (int)db;
            out->has_db = 1;
        } else {
            return fail(out, err, "unknown query parameter in the server URI (known: timeout, connect_timeout, db)");
        }
        p = amp ? amp + 1 : end;
    }
    return DL_OK;
}

/* Parses userinfo "user:password", ":password" or "password". */
static dl_status_t parse_userinfo(const char *u, size_t len, dl_server_config_t *out, dl_error_t *err)
{
    const char *colon = memchr(u, ':', len);
    int oom = 0;
    if (!colon) {
        if (len == 0) return DL_OK;
        out->password = pct_decode(u, len, &oom);
        if (!out->password) return oom ? nomem(out, err) : fail(out, err, "bad percent-encoding in the server URI credentials");
        return DL_OK;
    }
    if (colon > u) {
        out->username = pct_decode(u, (size_t)(colon - u), &oom);
        if (!out->username) return oom ? nomem(out, err) : fail(out, err, "bad percent-encoding in the server URI credentials");
    }
    if ((size_t)(colon - u) + 1 == len) {
        return fail(out, err, "the server URI has a user but an empty password");
    }
    out->password = pct_decode(colon + 1, len - (size_t)(colon - u) - 1, &oom);
    if (!out->password) return oom ? nomem(out, err) : fail(out, err, "bad percent-encoding in the server URI credentials");
    return DL_OK;
}

static dl_status_t parse_unix(const char *s, size_t len, dl_server_config_t *out, dl_error_t *err)
{
    const char *q = memchr(s, '?', len);
    size_t plen = q ? (size_t)(q - s) : len;
    if (plen < 2 || s[0] != '/') {
        return fail(out, err, "unix:// URI needs an absolute socket path, e.g. unix:///run/redis.sock");
    }
    if (memchr(s, '\0', plen)) return fail(out, err, "NUL byte in the socket path");
    if (plen >= 108) return fail(out, err, "socket path in the server URI is too long (max 107 bytes)");
    out->unix_path = dup_range(s, plen);
    if (!out->unix_path) return nomem(out, err);
    if (q) return parse_query(q + 1, len - plen - 1, out, err);
    return DL_OK;
}

static dl_status_t parse_tcp(const char *s, size_t len, dl_server_config_t *out, dl_error_t *err)
{
    const char *end = s + len, *at = NULL, *p, *host_end, *hp;
    const char *q = memchr(s, '?', len);
    const char *auth_end = q ? q : end;
    dl_status_t st;

    /* Userinfo runs to the last '@' before the query: passwords may hold '/'. */
    for (p = s; p < auth_end; p++) {
        if (*p == '@') at = p;
    }
    if (at) {
        st = parse_userinfo(s, (size_t)(at - s), out, err);
        if (st != DL_OK) return st;
        hp = at + 1;
    } else {
        hp = s;
    }
    if (hp < auth_end && *hp == '[') {
        const char *rb = memchr(hp, ']', (size_t)(auth_end - hp));
        if (!rb || !valid_ipv6(hp + 1, (size_t)(rb - hp - 1))) return fail(out, err, "bad IPv6 host in the server URI");
        out->host = dup_range(hp + 1, (size_t)(rb - hp - 1));
        host_end = rb + 1;
    } else {
        host_end = hp;
        while (host_end < auth_end && *host_end != ':' && *host_end != '/') host_end++;
        if (!valid_hostname(hp, (size_t)(host_end - hp))) return fail(out, err, "missing or invalid host in the server URI");
        out->host = dup_range(hp, (size_t)(host_end - hp));
    }
    if (!out->host) return nomem(out, err);

    out->port = 6379;
    p = host_end;
    if (p < auth_end && *p == ':') {
        const char *ps = ++p;
        long long port;
        while (p < auth_end && *p != '/') p++;
        if (parse_uint(ps, (size_t)(p - ps), 65535, &port) != 0 || port == 0) {
            return fail(out, err, "port in the server URI must be an integer from 1 to 65535");
        }
        out->port = (int)port;
    }
    if (p < auth_end && *p == '/') {
        const char *ds = ++p;
        if (auth_end > ds) {
            long long db;
            if (parse_uint(ds, (size_t)(auth_end - ds), DL_DB_MAX, &db) != 0) {
                return fail(out, err, "database in the server URI path must be an integer from 0 to 2147483647");
            }
            out->db = (int)db;
            out->has_db = 1;
        }
        p = auth_end;
    }
    if (p != auth_end) return fail(out, err, "unexpected characters after the host in the server URI");
    if (q) return parse_query(q + 1, (size_t)(end - q - 1), out, err);
    return DL_OK;
}

dl_status_t dl_uri_parse(const char *uri, size_t len, dl_server_config_t *out, dl_error_t *err)
{
    memset(out, 0, sizeof(*out));
    if (len == 0) return fail(out, err, "the server URI is empty");
    if (len > DL_URI_MAX_LEN) return fail(out, err, "the server URI is too long (max 4096 bytes)");
    if (memchr(uri, '\0', len)) return fail(out, err, "NUL byte in the server URI");
    if (len >= 8 && memcmp(uri, "redis://", 8) == 0) {
        return parse_tcp(uri + 8, len - 8, out, err);
    }
    if (len >= 6 && memcmp(uri, "tcp://", 6) == 0) {   /* phpredis's spelling of redis:// */
        return parse_tcp(uri + 6, len - 6, out, err);
    }
    if (len >= 9 && memcmp(uri, "rediss://", 9) == 0) {
        out->tls = 1;
        return parse_tcp(uri + 9, len - 9, out, err);
    }
    if (len >= 7 && memcmp(uri, "unix://", 7) == 0) {
        return parse_unix(uri + 7, len - 7, out, err);
    }
    return fail(out, err, "the server URI must start with redis:// (or tcp://), rediss:// or unix://");
}

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

int dl_server_config_same(const dl_server_config_t *a, const dl_server_config_t *b)
{
    return same_str(a->host, b->host) && a->port == b->port && same_str(a->unix_path, b->unix_path) &&
           same_str(a->username, b->username) && same_str(a->password, b->password) &&
           (a->has_db ? a->db : 0) == (b->has_db ? b->db : 0) && a->tls == b->tls &&
           a->connect_timeout_us == b->connect_timeout_us && a->timeout_us == b->timeout_us &&
           same_str(a->tls_ca, b->tls_ca) && same_str(a->tls_ca_path, b->tls_ca_path) &&
           same_str(a->tls_cert, b->tls_cert) && same_str(a->tls_key, b->tls_key) &&
           same_str(a->tls_server_name, b->tls_server_name) && a->tls_no_verify == b->tls_no_verify;
}

static char *dup_or_null(const char *s, int *oom)
{
    char *d;
    if (!s) return NULL;
    d = strdup(s);
    if (!d) *oom = 1;
    return d;
}

dl_status_t dl_server_config_copy(dl_server_config_t *dst, const dl_server_config_t *src)
{
    int oom = 0;
    *dst = *src;
    dst->host = dup_or_null(src->host, &oom);
    dst->unix_path = dup_or_null(src->unix_path, &oom);
    dst->username = dup_or_null(src->username, &oom);
    dst->password = dup_or_null(src->password, &oom);
    dst->tls_ca = dup_or_null(src->tls_ca, &oom);
    dst->tls_ca_path = dup_or_null(src->tls_ca_path, &oom);
    dst->tls_cert = dup_or_null(src->tls_cert, &oom);
    dst->tls_key = dup_or_null(src->tls_key, &oom);
    dst->tls_server_name = dup_or_null(src->tls_server_name, &oom);
    if (oom) {
        dl_server_config_free(dst);
        return DL_ERR_NOMEM;
    }
    return DL_OK;
}

void dl_secret_free(char *secret)
{
    if (secret) {
        /* volatile keeps the compiler from dropping the wipe of memory about to be freed. */
        volatile char *p = secret;
        while (*p) *p++ = 0;
    }
    free(secret);
}

void dl_server_config_free(dl_server_config_t *cfg)
{
    dl_secret_free(cfg->password);
    free(cfg->host);
    free(cfg->unix_path);
    free(cfg->username);
    free(cfg->tls_ca);
    free(cfg->tls_ca_path);
    free(cfg->tls_cert);
    free(cfg->tls_key);
    free(cfg->tls_server_name);
    memset(cfg, 0, sizeof(*cfg));
}

void dl_server_config_endpoint(const dl_server_config_t *cfg, char *buf, size_t size)
{
    if (cfg->unix_path) snprintf(buf, size, "%s", cfg->unix_path);
    else dl_endpoint_format(buf, size, cfg->host ? cfg->host : "?", cfg->port);
}

void dl_endpoint_format(char *buf, size_t size, const char *host, int port)
{
    snprintf(buf, size, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}
