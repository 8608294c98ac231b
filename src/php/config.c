/*
 * Validation of the constructor's $servers and $options, of INI defaults,
 * and of per-call arguments (names, ttl, wait). Every rule of
 * docs/decisions/0003-values-and-limits.md is enforced here, in one place.
 */
#include "php_distlock_internal.h"

#include <math.h>

#include "../core/lease/dl_key.h"
#include "../core/topology/dl_quorum.h"
#include "../core/topology/dl_sentinel.h"

#include "zend_exceptions.h"

#define CTOR "DistLock::__construct"

bool php_distlock_check_name(const char *func, const char *what, const zend_string *name)
{
    if (ZSTR_LEN(name) == 0) {
        zend_value_error("%s(): %s must not be empty", func, what);
        return false;
    }
    if (ZSTR_LEN(name) > DL_NAME_MAX) {
        zend_value_error("%s(): %s must be at most %d bytes long", func, what, DL_NAME_MAX);
        return false;
    }
    /* The fencing counters' keys are the prefix + this mark (dl_key.h): a name that began so
     * could hold, delete or reset the counter of a whole hash slot. */
    if (ZSTR_LEN(name) >= DL_KEY_FENCE_MARK_LEN && memcmp(ZSTR_VAL(name), DL_KEY_FENCE_MARK, DL_KEY_FENCE_MARK_LEN) == 0) {
        zend_value_error("%s(): %s must not begin with \"" DL_KEY_FENCE_MARK "\" (the fencing counters' keys)", func, what);
        return false;
    }
    return true;
}

bool php_distlock_check_token(const char *func, const char *what, const zend_string *token)
{
    if (ZSTR_LEN(token) == 0 || ZSTR_LEN(token) > DL_TOKEN_MAX) {
        zend_value_error("%s(): %s must be between 1 and %d bytes long", func, what, DL_TOKEN_MAX);
        return false;
    }
    /* A NUL first byte is how the readers-writer lock and the semaphore mark
     * their key (docs/primitives.md, "One name, one kind"): a mutex's value
     * must never look like one. */
    if (ZSTR_VAL(token)[0] == '\0') {
        zend_value_error("%s(): %s must not begin with a NUL byte", func, what);
        return false;
    }
    return true;
}

/* A finite number of seconds in (0, max] (or [0, max] when zero_ok), in µs. */
static bool seconds_us(const char *func, const char *what, double s, double max, bool zero_ok, int64_t *out_us)
{
    if (!isfinite(s) || s > max || (zero_ok ? s < 0 : s <= 0)) {
        zend_value_error("%s(): %s must be a finite number of seconds %s 0 and at most %.0f", func, what,
                         zero_ok ? "greater than or equal to" : "greater than", max);
        return false;
    }
    /* Nearest µs first: 2.007 * 1e6 is 2006999.9999999998 in binary, not 2007000. */
    *out_us = (int64_t)llround(s * 1e6);
    if (*out_us == 0 && s > 0) *out_us = 1;
    return true;
}

bool php_distlock_ttl_ms(const char *func, const char *what, double seconds, int64_t *out_ms)
{
    int64_t us;
    if (!seconds_us(func, what, seconds, PHP_DISTLOCK_MAX_SECONDS, false, &us)) {
        return false;
    }
    *out_ms = (us + 999) / 1000;  /* PX takes whole milliseconds: round up */
    return true;
}

bool php_distlock_wait_us(const char *func, const char *what, double seconds, int64_t *out_us)
{
    return seconds_us(func, what, seconds, PHP_DISTLOCK_MAX_SECONDS, true, out_us);
}

/* ---- options --------------------------------------------------------- */

/* An int or float option as double; TypeError otherwise. */
static bool option_number(const char *key, zval *v, double *out)
{
    ZVAL_DEREF(v);
    if (Z_TYPE_P(v) == IS_LONG) {
        *out = (double)Z_LVAL_P(v);
        return true;
    }
    if (Z_TYPE_P(v) == IS_DOUBLE) {
        *out = Z_DVAL_P(v);
        return true;
    }
    zend_type_error(CTOR "(): Argument #2 ($options) option \"%s\" must be of type float, %s given", key,
                    zend_zval_type_name(v));
    return false;
}

static bool option_string(const char *key, zval *v, zend_string **out)
{
    ZVAL_DEREF(v);
    if (Z_TYPE_P(v) != IS_STRING) {
        zend_type_error(CTOR "(): Argument #2 ($options) option \"%s\" must be of type string, %s given", key,
                        zend_zval_type_name(v));
        return false;
    }
    *out = Z_STR_P(v);
    return true;
}

static bool option_bool(const char *key, zval *v, bool *out)
{
    ZVAL_DEREF(v);
    if (Z_TYPE_P(v) != IS_TRUE && Z_TYPE_P(v) != IS_FALSE) {
        zend_type_error(CTOR "(): Argument #2 ($options) option \"%s\" must be of type bool, %s given", key,
                        zend_zval_type_name(v));
        return false;
    }
    *out = Z_TYPE_P(v) == IS_TRUE;
    return true;
}

/* An int option from 0 to max. */
static bool option_int_range(const char *key, zval *v, zend_long max, zend_long *out)
{
    ZVAL_DEREF(v);
    if (Z_TYPE_P(v) != IS_LONG) {
        zend_type_error(CTOR "(): Argument #2 ($options) option \"%s\" must be of type int, %s given", key, zend_zval_type_name(v));
        return false;
    }
    if (Z_LVAL_P(v) < 0 || Z_LVAL_P(v) > max) {
        zend_value_error(CTOR "(): Argument #2 ($options) option \"%s\" must be between 0 and " ZEND_LONG_FMT, key, max);
        return false;
    }
    *out = Z_LVAL_P(v);
    return true;
}

/* A C string copy of an option that must not hold NUL bytes (credentials). */
static bool option_cstring(const char *key, zval *v, char **out)
{
    zend_string *s;
    if (!option_string(key, v, &s)) return false;
    if (ZSTR_LEN(s) == 0 || memchr(ZSTR_VAL(s), '\0', ZSTR_LEN(s)) || ZSTR_LEN(s) > 512) {
        zend_value_error(CTOR "(): Argument #2 ($options) option \"%s\" must be a non-empty string of at most 512 bytes without NUL bytes", key);
        return false;
    }
    free(*out);
    *out = strndup(ZSTR_VAL(s), ZSTR_LEN(s));
    return *out != NULL;
}

/* A TLS option: only with a rediss:// URI (a TLS setting on a plain
 * connection would be silently ignored, so it is refused). */
static bool option_tls_allowed(const char *key, const php_distlock_config *out)
{
    if (!out->server.tls) {
        zend_value_error(CTOR "(): Argument #2 ($options) option \"%s\" needs a rediss:// server URI", key);
        return false;
    }
    return true;
}

/* A file or directory path option (tls_ca, tls_ca_path, tls_cert, tls_key).
 * Whether the file can be read is found out when connecting (see
 * docs/decisions/0044-tls.md): a ConnectionException naming the option and the path. */
static bool option_path(const char *key, zval *v, char **out)
{
    zend_string *s;
    if (!option_string(key, v, &s)) return false;
    if (ZSTR_LEN(s) == 0 || memchr(ZSTR_VAL(s), '\0', ZSTR_LEN(s)) || ZSTR_LEN(s) > DL_TLS_PATH_MAX) {
        zend_value_error(CTOR "(): Argument #2 ($options) option \"%s\" must be a non-empty path of at most %d bytes without NUL bytes",
                         key, DL_TLS_PATH_MAX);
        return false;
    }
    free(*out);
    *out = strndup(ZSTR_VAL(s), ZSTR_LEN(s));
    return *out != NULL;
}

/* tls_server_name: a DNS name or an IP address, as the certificate names it. */
static bool option_server_name(const char *key, zval *v, char **out)
{
    zend_string *s;
    size_t i;
    if (!option_string(key, v, &s)) return false;
    for (i = 0; i < ZSTR_LEN(s); i++) {
        char ch = ZSTR_VAL(s)[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '-' || ch == '_' || ch == ':')) {
            break;
        }
    }
    if (ZSTR_LEN(s) == 0 || ZSTR_LEN(s) > 253 || i != ZSTR_LEN(s)) {
        zend_value_error(CTOR "(): Argument #2 ($options) option \"%s\" must be a host name or IP address of at most 253 bytes", key);
        return false;
    }
    free(*out);
    *out = strndup(ZSTR_VAL(s), ZSTR_LEN(s));
    return *out != NULL;
}

static void resource_dtor(zval *zv)
{
    efree(Z_PTR_P(zv));
}

static bool parse_resources(zval *v, php_distlock_config *out)
{
    zend_string *rname;
    zval *rdef;

    ZVAL_DEREF(v);
    if (Z_TYPE_P(v) != IS_ARRAY) {
        zend_type_error(CTOR "(): Argument #2 ($options) option \"resources\" must be of type array, %s given",
                        zend_zval_type_name(v));
        return false;
    }
    ALLOC_HASHTABLE(out->resources);
    zend_hash_init(out->resources, zend_hash_num_elements(Z_ARRVAL_P(v)), NULL, resource_dtor, 0);
    ZEND_HASH_FOREACH_STR_KEY_VAL(Z_ARRVAL_P(v), rname, rdef) {
        php_distlock_resource res = {0, -1};
        zend_string *k;
        zval *kv, entry;
        ZVAL_DEREF(rdef);
        if (!rname || ZSTR_LEN(rname) == 0) {
            zend_value_error(CTOR "(): Argument #2 ($options) option \"resources\" must be keyed by resource name");
            return false;
        }
        if (Z_TYPE_P(rdef) != IS_ARRAY) {
            zend_type_error(CTOR "(): Argument #2 ($options) option \"resources\" entry \"%s\" must be of type array, %s given",
                            ZSTR_VAL(rname), zend_zval_type_name(rdef));
            return false;
        }
        ZEND_HASH_FOREACH_STR_KEY_VAL(Z_ARRVAL_P(rdef), k, kv) {
            double d;
            char what[160], label[96];
            if (k && zend_string_equals_literal(k, "ttl")) {
                snprintf(what, sizeof(what), "Argument #2 ($options) option \"resources\" entry \"%s\" ttl", ZSTR_VAL(rname));
                snprintf(label, sizeof(label), "resources\" entry \"%.40s\" \"ttl", ZSTR_VAL(rname));
                if (!option_number(label, kv, &d) || !php_distlock_ttl_ms(CTOR, what, d, &res.ttl_ms)) return false;
            } else if (k && zend_string_equals_literal(k, "wait")) {
                snprintf(what, sizeof(what), "Argument #2 ($options) option \"resources\" entry \"%s\" wait", ZSTR_VAL(rname));
                snprintf(label, sizeof(label), "resources\" entry \"%.40s\" \"wait", ZSTR_VAL(rname));
                if (!option_number(label, kv, &d) || !php_distlock_wait_us(CTOR, what, d, &res.wait_us)) return false;
            } else {
                zend_value_error(CTOR "(): Argument #2 ($options) option \"resources\" entry \"%s\" has an unknown key (known: ttl, wait)",
                                 ZSTR_VAL(rname));
                return false;
            }
        } ZEND_HASH_FOREACH_END();
        ZVAL_PTR(&entry, emalloc(sizeof(res)));
        memcpy(Z_PTR(entry), &res, sizeof(res));
        zend_hash_update(out->resources, rname, &entry);
    } ZEND_HASH_FOREACH_END();
    return true;
}

static bool parse_option(zend_string *key, zval *v, php_distlock_config *out)
{
    double d;
    int64_t us;
    const char *k = ZSTR_VAL(key);

    if (zend_string_equals_literal(key, "prefix")) {
        zend_string *s;
        if (!option_string(k, v, &s)) return false;
        if (ZSTR_LEN(s) > DL_PREFIX_MAX) {
            zend_value_error(CTOR "(): Argument #2 ($options) option \"prefix\" must be at most %d bytes long", DL_PREFIX_MAX);
            return false;
        }
        zend_string_release(out->prefix);
        out->prefix = zend_string_copy(s);
        return true;
    }
    if (zend_string_equals_literal(key, "ttl")) {
        return option_number(k, v, &d) && php_distlock_ttl_ms(CTOR, "Argument #2 ($options) option \"ttl\"", d, &out->ttl_ms);
    }
    if (zend_string_equals_literal(key, "wait")) {
        return option_number(k, v, &d) && php_distlock_wait_us(CTOR, "Argument #2 ($options) option \"wait\"", d, &out->wait_us);
    }
    if (zend_string_equals_literal(key, "retry_delay") || zend_string_equals_literal(key, "retry_jitter")) {
        char what[64];
        snprintf(what, sizeof(what), "Argument #2 ($options) option \"%s\"", k);
        if (!option_number(k, v, &d) || !seconds_us(CTOR, what, d, PHP_DISTLOCK_MAX_RETRY_SECONDS, true, &us)) return false;
        if (k[6] == 'd') out->backoff.base_us = us; else out->backoff.jitter_us = us;
        return true;
    }
    if (zend_string_equals_literal(key, "connect_timeout") || zend_string_equals_literal(key, "timeout")) {
        char what[64];
        bool connect = k[0] == 'c';
        snprintf(what, sizeof(what), "Argument #2 ($options) option \"%s\"", k);
        if (!option_number(k, v, &d) || !seconds_us(CTOR, what, d, PHP_DISTLOCK_MAX_TIMEOUT_SECONDS, false, &us)) return false;
        /* The URI's own value wins: only fill what it left unset. */
        if (connect && !out->server.has_connect_timeout) { out->server.connect_timeout_us = us; out->server.has_connect_timeout = 1; }
        if (!connect && !out->server.has_timeout) { out->server.timeout_us = us; out->server.has_timeout = 1; }
        return true;
    }
    if (zend_string_equals_literal(key, "username") || zend_string_equals_literal(key, "password")) {
        /* Credentials in the URI win; the option is still type-checked. */
        char **slot = k[0] == 'u' ? &out->server.username : &out->server.password;
        char *value = NULL;
        if (!option_cstring(k, v, &value)) return false;
        if (out->uri_credentials) { free(value); } else { *slot = value; }
        return true;
    }
    if (zend_string_equals_literal(key, "database")) {
        zend_long db;
        if (!option_int_range(k, v, DL_DB_MAX, &db)) return false;
        if (!out->server.has_db) { out->server.db = (int)db; out->server.has_db = 1; }
        return true;
    }
    if (zend_string_equals_literal(key, "persistent")) {
        ZVAL_DEREF(v);
        if (Z_TYPE_P(v) == IS_TRUE || Z_TYPE_P(v) == IS_FALSE) {
            free(out->pool_id);
            out->pool_id = Z_TYPE_P(v) == IS_TRUE ? strdup("default") : NULL;
            return true;
        }
        if (Z_TYPE_P(v) != IS_STRING) {
            zend_type_error(CTOR "(): Argument #2 ($options) option \"persistent\" must be of type string|bool, %s given",
                            zend_zval_type_name(v));
            return false;
        }
        return option_cstring(k, v, &out->pool_id);
    }
    if (zend_string_equals_literal(key, "watchdog")) {
        return option_bool(k, v, &out->watchdog);
    }
    if (zend_string_equals_literal(key, "max_hold")) {
        return option_number(k, v, &d) &&
               seconds_us(CTOR, "Argument #2 ($options) option \"max_hold\"", d, PHP_DISTLOCK_MAX_SECONDS, false, &out->max_hold_us);
    }
    if (zend_string_equals_literal(key, "on_lost")) {
        zend_string *mode;
        if (!option_string(k, v, &mode)) return false;
        if (zend_string_equals_literal(mode, "throw")) out->on_lost_throw = true;
        else if (zend_string_equals_literal(mode, "ignore")) out->on_lost_throw = false;
        else {
            zend_value_error(CTOR "(): Argument #2 ($options) option \"on_lost\" must be \"ignore\" or \"throw\"");
            return false;
        }
        return true;
    }
    if (zend_string_equals_literal(key, "deadlock_detection")) {
        return option_bool(k, v, &out->deadlock_detection);
    }
    if (zend_string_equals_literal(key, "fair")) {
        return option_bool(k, v, &out->fair);
    }
    if (zend_string_equals_literal(key, "fencing")) {
        return option_bool(k, v, &out->fencing);
    }
    if (zend_string_equals_literal(key, "defer_release")) {
        return option_bool(k, v, &out->defer_release);
    }
    if (zend_string_equals_literal(key, "cluster")) {
        return option_bool(k, v, &out->cluster);
    }
    if (zend_string_equals_literal(key, "sentinel")) {
        char *name = NULL;
        if (!option_cstring(k, v, &name)) return false;   /* not empty */
        if (strlen(name) > DL_SENTINEL_NAME_MAX) {
            free(name);
            zend_value_error(CTOR "(): Argument #2 ($options) option \"sentinel\" must be a master name of 1 to %d bytes",
                             DL_SENTINEL_NAME_MAX);
            return false;
        }
        free(out->sentinel);
        out->sentinel = name;
        return true;
    }
    if (zend_string_equals_literal(key, "sentinel_username") || zend_string_equals_literal(key, "sentinel_password")) {
        return option_cstring(k, v, k[9] == 'u' ? &out->sentinel_username : &out->sentinel_password);
    }
    if (zend_string_equals_literal(key, "min_replicas")) {
        zend_long n;
        if (!option_int_range(k, v, PHP_DISTLOCK_MAX_REPLICAS, &n)) return false;
        out->min_replicas = (int)n;
        return true;
    }
    if (zend_string_equals_literal(key, "replica_timeout")) {
        if (!option_number(k, v, &d) || !seconds_us(CTOR, "Argument #2 ($options) option \"replica_timeout\"", d,
                                                    PHP_DISTLOCK_MAX_TIMEOUT_SECONDS, false, &us)) return false;
        out->replica_timeout_ms = (us + 999) / 1000;
        return true;
    }
    if (zend_string_equals_literal(key, "resources")) {
        return parse_resources(v, out);
    }
    if (zend_string_equals_literal(key, "tls_ca")) {
        return option_path(k, v, &out->server.tls_ca) && option_tls_allowed(k, out);
    }
    if (zend_string_equals_literal(key, "tls_ca_path")) {
        return option_path(k, v, &out->server.tls_ca_path) && option_tls_allowed(k, out);
    }
    if (zend_string_equals_literal(key, "tls_cert")) {
        return option_path(k, v, &out->server.tls_cert) && option_tls_allowed(k, out);
    }
    if (zend_string_equals_literal(key, "tls_key")) {
        return option_path(k, v, &out->server.tls_key) && option_tls_allowed(k, out);
    }
    if (zend_string_equals_literal(key, "tls_server_name")) {
        return option_server_name(k, v, &out->server.tls_server_name) && option_tls_allowed(k, out);
    }
    if (zend_string_equals_literal(key, "tls_verify_peer")) {
        bool verify;
        if (!option_bool(k, v, &verify) || !option_tls_allowed(k, out)) return false;
        out->server.tls_no_verify = !verify;
        return true;
    }
    zend_value_error(CTOR "(): Argument #2 ($options) contains an unknown option \"%s\"", k);
    return false;
}

/* The URIs of $servers (a string, or a list of strings), in uris[0..*n). Throws on a bad shape. */
static bool server_uris(zval *servers, zend_string ***uris, uint32_t *n)
{
    zval *item;
    uint32_t i = 0;
    if (Z_TYPE_P(servers) == IS_STRING) {
        *uris = emalloc(sizeof(zend_string *));
        (*uris)[0] = Z_STR_P(servers);
        *n = 1;
        return true;
    }
    if (zend_hash_num_elements(Z_ARRVAL_P(servers)) == 0) {
        zend_argument_value_error(1, "must not be empty");
        return false;
    }
    *uris = safe_emalloc(zend_hash_num_elements(Z_ARRVAL_P(servers)), sizeof(zend_string *), 0);
    ZEND_HASH_FOREACH_VAL(Z_ARRVAL_P(servers), item) {
        ZVAL_DEREF(item);
        if (Z_TYPE_P(item) != IS_STRING) {
            zend_argument_type_error(1, "must contain only strings, %s given", zend_zval_type_name(item));
            efree(*uris);
            return false;
        }
        (*uris)[i++] = Z_STR_P(item);
    } ZEND_HASH_FOREACH_END();
    *n = i;
    return true;
}

static int64_t ini_us(double seconds)
{
    return (int64_t)llround(seconds * 1e6);
}

/* Parses one URI into *server (zeroed first). Throws on failure. */
static bool parse_uri(zend_string *uri, uint32_t index, uint32_t n, dl_server_config_t *server)
{
    dl_error_t err;
    if (dl_uri_parse(ZSTR_VAL(uri), ZSTR_LEN(uri), server, &err) != DL_OK) {
        /* The parser's message never quotes the URI, so no credentials leak here. */
        if (n == 1) zend_argument_value_error(1, "must be a valid server URI: %s", err.msg);
        else zend_argument_value_error(1, "must hold valid server URIs: URI #%u: %s", index + 1, err.msg);
        return false;
    }
    return true;
}

/* What neither the URI nor the options set: the INI timeouts. */
static void server_defaults(dl_server_config_t *server)
{
    if (!server->has_connect_timeout) {
        server->connect_timeout_us = ini_us(DISTLOCK_G(connect_timeout));
        server->has_connect_timeout = 1;
    }
    if (!server->has_timeout) {
        server->timeout_us = ini_us(DISTLOCK_G(timeout));
        server->has_timeout = 1;
    }
}

/*
 * A further Redlock master: its URI, then the options that apply to servers
 * (credentials, database, timeouts, TLS), under the same rules as the first
 * one's (the URI wins). The options were checked on the first server already;
 * the rest of what they set is dropped with the scratch configuration.
 */
static bool parse_more_server(zend_string *uri, uint32_t index, uint32_t n, HashTable *options,
                              dl_server_config_t *server)
{
    php_distlock_config scratch;
    zend_string *key;
    zval *v;
    bool ok = true;

    memset(&scratch, 0, sizeof(scratch));
    if (!parse_uri(uri, index, n, &scratch.server)) return false;
    scratch.uri_credentials = scratch.server.password != NULL;
    scratch.prefix = ZSTR_EMPTY_ALLOC();
    if (options) {
        ZEND_HASH_FOREACH_STR_KEY_VAL(options, key, v) {
            if (!parse_option(key, v, &scratch)) {
                ok = false;
                break;
            }
        } ZEND_HASH_FOREACH_END();
    }
    if (ok && scratch.server.username && !scratch.server.password) {
        zend_argument_value_error(2, "option \"username\" needs a password too (URI #%u)", index + 1);
        ok = false;
    }
    if (ok) {
        server_defaults(&scratch.server);
        *server = scratch.server;
        memset(&scratch.server, 0, sizeof(scratch.server));
    }
    php_distlock_config_free(&scratch);
    return ok;
}

/*
 * One server, Redlock over the masters of the list, or (option cluster) a
 * Cluster's seed nodes: out->server is the first, parsed with the options;
 * the others get the same options.
 */
static bool servers_target(zend_string **uris, uint32_t n, HashTable *options, php_distlock_config *out)
{
    uint32_t i, j;
    if (out->cluster && n > PHP_DISTLOCK_MAX_CLUSTER_SEEDS) {
        zend_argument_value_error(1, "must hold between 1 and %d cluster seed URIs", PHP_DISTLOCK_MAX_CLUSTER_SEEDS);
        return false;
    }
    if (!out->cluster && (n == 2 || n > DL_QUORUM_MAX_NODES)) {
        zend_argument_value_error(1, "must hold one URI, or between %d and %d for Redlock (two masters survive no failure: "
                                     "a quorum of 2 needs both)", DL_QUORUM_MIN_NODES, DL_QUORUM_MAX_NODES);
        return false;
    }
    out->target.servers = calloc(n, sizeof(*out->target.servers));
    if (!out->target.servers) {
        zend_throw_error(NULL, "out of memory");
        return false;
    }
    out->target.kind = out->cluster ? DL_TARGET_CLUSTER : n == 1 ? DL_TARGET_SINGLE : DL_TARGET_REDLOCK;
    out->target.servers[0] = out->server;
    memset(&out->server, 0, sizeof(out->server));
    out->target.n = 1;
    for (i = 1; i < n; i++) {
        char a[160], b[160];
        if (!parse_more_server(uris[i], i, n, options, &out->target.servers[i])) return false;
        out->target.n++;
        dl_server_config_endpoint(&out->target.servers[i], a, sizeof(a));
        for (j = 0; j < i; j++) {
            dl_server_config_endpoint(&out->target.servers[j], b, sizeof(b));
            if (strcmp(a, b) == 0 && !out->cluster) {
                /* One server twice would count twice towards the quorum. */
                zend_argument_value_error(1, "must not name a server twice: URIs #%u and #%u are both %s", j + 1, i + 1, a);
                return false;
            }
        }
    }
    for (i = 0; out->cluster && i < n; i++) {
        const dl_server_config_t *seed = &out->target.servers[i];
        if (seed->unix_path) {
            zend_argument_value_error(1, "must hold TCP URIs with option \"cluster\": a Cluster's nodes announce host:port");
            return false;
        }
        if (seed->has_db && seed->db != 0) {
            zend_argument_value_error(2, "must not select database %d with option \"cluster\": a Cluster has database 0 only",
                                      seed->db);
            return false;
        }
    }
    return true;
}

static bool dup_into(char **dst, const char *src)
{
    if (!src || *dst) return true;
    *dst = strdup(src);
    return *dst != NULL;
}

/*
 * Sentinel: the URIs name the sentinels (their own credentials in the URI, or
 * sentinel_username/sentinel_password); the master's credentials, database,
 * timeouts and TLS settings come from the options, applied to a placeholder
 * address that each resolution replaces.
 */
static bool sentinel_target(zend_string **uris, uint32_t n, HashTable *options, php_distlock_config *out)
{
    dl_server_config_t *master = &out->target.master;
    zend_string *placeholder;
    uint32_t i;
    bool tls;

    if (n > DL_SENTINEL_MAX) {
        zend_argument_value_error(1, "must hold between 1 and %d sentinel URIs", DL_SENTINEL_MAX);
        return false;
    }
    tls = out->server.tls;
    dl_server_config_free(&out->server);   /* the first sentinel, with the master's options: parsed again below */
    placeholder = zend_string_init(tls ? "rediss://sentinel-master" : "redis://sentinel-master",
                                   tls ? sizeof("rediss://sentinel-master") - 1 : sizeof("redis://sentinel-master") - 1, 0);
    if (!parse_more_server(placeholder, 0, 1, options, master)) {
        zend_string_release(placeholder);
        return false;
    }
    zend_string_release(placeholder);
    out->target.kind = DL_TARGET_SENTINEL;
    out->target.service = strdup(out->sentinel);
    out->target.servers = calloc(n, sizeof(*out->target.servers));
    if (!out->target.service || !out->target.servers) {
        zend_throw_error(NULL, "out of memory");
        return false;
    }
    for (i = 0; i < n; i++) {
        dl_server_config_t *s = &out->target.servers[i];
        if (!parse_uri(uris[i], i, n, s)) return false;
        out->target.n++;
        if (s->tls != master->tls) {
            zend_argument_value_error(1, "must be all redis:// or all rediss:// sentinel URIs");
            return false;
        }
        if (!s->password && (!dup_into(&s->username, out->sentinel_username) || !dup_into(&s->password, out->sentinel_password))) {
            zend_throw_error(NULL, "out of memory");
            return false;
        }
        if (s->username && !s->password) {
            zend_argument_value_error(2, "option \"sentinel_username\" needs \"sentinel_password\" too");
            return false;
        }
        /* TLS to the sentinels is the master's (one CA, one client certificate). */
        if (s->tls && (!dup_into(&s->tls_ca, master->tls_ca) || !dup_into(&s->tls_ca_path, master->tls_ca_path) ||
                       !dup_into(&s->tls_cert, master->tls_cert) || !dup_into(&s->tls_key, master->tls_key))) {
            zend_throw_error(NULL, "out of memory");
            return false;
        }
        s->tls_no_verify = master->tls_no_verify;
    }
    return true;
}

zend_result php_distlock_config_parse(zval *servers, HashTable *options, php_distlock_config *out)
{
    zend_string **uris = NULL, *key;
    uint32_t n = 0;
    zval *v;

    memset(out, 0, sizeof(*out));
    if (!server_uris(servers, &uris, &n)) return FAILURE;
    if (!parse_uri(uris[0], 0, n, &out->server)) {
        efree(uris);
        return FAILURE;
    }
    out->uri_credentials = out->server.password != NULL;
    out->prefix = zend_string_init(DISTLOCK_G(prefix), strlen(DISTLOCK_G(prefix)), 0);
    /* INI values were range-checked when set (distlock.c). */
    out->ttl_ms = (ini_us(DISTLOCK_G(ttl)) + 999) / 1000;
    out->wait_us = ini_us(DISTLOCK_G(wait));
    out->backoff.base_us = ini_us(DISTLOCK_G(retry_delay));
    out->backoff.jitter_us = ini_us(DISTLOCK_G(retry_jitter));
    out->backoff.cap_us = DL_WAIT_BACKOFF_CAP_US;
    out->max_hold_us = PHP_DISTLOCK_DEFAULT_MAX_HOLD_US;
    out->defer_release = DISTLOCK_G(defer_release);
    out->deadlock_detection = true;
    if (options) {
        ZEND_HASH_FOREACH_STR_KEY_VAL(options, key, v) {
            if (!key) {
                zend_argument_value_error(2, "must be an array keyed by option name");
                goto fail;
            }
            if (!parse_option(key, v, out)) goto fail;
        } ZEND_HASH_FOREACH_END();
    }
    if (out->server.username && !out->server.password) {
        zend_argument_value_error(2, "option \"username\" needs a password too");
        goto fail;
    }
    if (!out->server.tls_cert != !out->server.tls_key) {
        zend_argument_value_error(2, "options \"tls_cert\" and \"tls_key\" must be given together");
        goto fail;
    }
    if (out->backoff.cap_us < out->backoff.base_us) out->backoff.cap_us = out->backoff.base_us;
    server_defaults(&out->server);

    if (out->sentinel && out->cluster) {
        zend_argument_value_error(2, "options \"sentinel\" and \"cluster\" exclude each other: a Cluster fails over by itself");
        goto fail;
    }
    if (out->sentinel) {
        if (!sentinel_target(uris, n, options, out)) goto fail;
    } else if (!servers_target(uris, n, options, out)) {
        goto fail;
    }
    if (out->target.kind == DL_TARGET_REDLOCK && (out->fencing || out->fair || out->min_replicas)) {
        const char *opt = out->fencing ? "fencing" : out->fair ? "fair" : "min_replicas";
        zend_argument_value_error(2, "option \"%s\" is not available with Redlock (several servers): %s", opt,
                                  out->fencing ? "independent masters share no counter, so their grants have no single order"
                                  : out->fair ? "independent masters share no queue to hand the lock over in"
                                              : "Redlock's masters are independent: it is their number that survives failures, not replicas");
        goto fail;
    }
    if (out->min_replicas && !out->replica_timeout_ms) out->replica_timeout_ms = PHP_DISTLOCK_DEFAULT_REPLICA_TIMEOUT_MS;
    efree(uris);
    return SUCCESS;
fail:
    efree(uris);
    php_distlock_config_free(out);
    return FAILURE;
}

void php_distlock_config_free(php_distlock_config *cfg)
{
    dl_server_config_free(&cfg->server);
    dl_target_config_free(&cfg->target);
    free(cfg->sentinel);
    free(cfg->sentinel_username);
    dl_secret_free(cfg->sentinel_password);
    free(cfg->pool_id);
    if (cfg->prefix) zend_string_release(cfg->prefix);
    if (cfg->resources) {
        zend_hash_destroy(cfg->resources);
        FREE_HASHTABLE(cfg->resources);
    }
    memset(cfg, 0, sizeof(*cfg));
}
