/*
 * Resource helpers through DistLock::__call, for code written in the style of
 * lockAccount($uid) / unLockAccount($uid, $identifier):
 *
 *   lock<Resource>($id, ?float $ttl = null, ?float $wait = null): Lock
 *   tryLock<Resource>($id, ?float $ttl = null): ?Lock
 *   unlock<Resource>($id, string $token): bool
 *
 * The prefixes match case-insensitively (PHP method names do), so
 * unLockAccount works. <Resource> becomes snake_case: "_" before every
 * uppercase letter after the first, then lowercase (CourseSeat -> course_seat).
 *
 * DistLock::__call is defined here, not in client.c, so the calls go one way:
 * helpers.c -> client.c (acquire, release by token), never back
 * (tests/packaging/glue-graph.sh keeps the glue's call graph free of cycles).
 */
#include "php_distlock_internal.h"

#include <ctype.h>   /* PHP 8.3's header clean-up: Zend headers no longer promise libc headers */

#include "zend_exceptions.h"
#include "zend_smart_str.h"

typedef enum { HELPER_LOCK, HELPER_TRY_LOCK, HELPER_UNLOCK } helper_kind;

/* Splits method into kind and snake_case resource. Returns NULL when it is no helper. */
static zend_string *parse_method(const zend_string *method, helper_kind *kind)
{
    static const struct { const char *prefix; size_t len; helper_kind kind; } shapes[] = {
        {"trylock", 7, HELPER_TRY_LOCK},
        {"unlock", 6, HELPER_UNLOCK},
        {"lock", 4, HELPER_LOCK},
    };
    const char *m = ZSTR_VAL(method);
    size_t len = ZSTR_LEN(method), i, start = 0;
    smart_str out = {0};

    for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        if (len > shapes[i].len && zend_binary_strncasecmp(m, len, shapes[i].prefix, shapes[i].len, shapes[i].len) == 0) {
            *kind = shapes[i].kind;
            start = shapes[i].len;
            break;
        }
    }
    if (start == 0 || !isalpha((unsigned char)m[start])) return NULL;
    for (i = start; i < len; i++) {
        unsigned char ch = (unsigned char)m[i];
        if (!isalnum(ch) && ch != '_') {
            smart_str_free(&out);
            return NULL;
        }
        if (isupper(ch) && i > start) smart_str_appendc(&out, '_');
        smart_str_appendc(&out, (char)tolower(ch));
    }
    return smart_str_extract(&out);
}

/* An optional float argument (null, int or float). Returns false after throwing. */
static bool opt_seconds(const char *func, uint32_t num, const char *argname, zval *arg, double *out, bool *is_null)
{
    *is_null = true;
    if (!arg) return true;
    ZVAL_DEREF(arg);
    switch (Z_TYPE_P(arg)) {
    case IS_NULL: return true;
    case IS_LONG: *out = (double)Z_LVAL_P(arg); *is_null = false; return true;
    case IS_DOUBLE: *out = Z_DVAL_P(arg); *is_null = false; return true;
    default:
        zend_type_error("%s(): Argument #%u ($%s) must be of type ?float, %s given", func, num, argname,
                        zend_zval_type_name(arg));
        return false;
    }
}

static void call_helper(php_distlock_client *c, zend_string *method, HashTable *args, zval *return_value)
{
    helper_kind kind;
    zend_string *resource = parse_method(method, &kind), *name = NULL;
    uint32_t argc = zend_hash_num_elements(args), min_args, max_args;
    zval *argv[3] = {NULL, NULL, NULL}, *a;
    char func[160];
    const php_distlock_resource *defaults = NULL;
    uint32_t i = 0;

    if (!resource) {
        zend_throw_error(NULL, "Call to undefined method DistLock::%s()", ZSTR_VAL(method));
        return;
    }
    snprintf(func, sizeof(func), "DistLock::%s", ZSTR_VAL(method));
    min_args = kind == HELPER_UNLOCK ? 2 : 1;
    max_args = kind == HELPER_LOCK ? 3 : 2;
    if (argc < min_args || argc > max_args) {
        zend_argument_count_error("%s() expects %s %u argument%s, %u given", func,
                                  min_args == max_args ? "exactly" : argc < min_args ? "at least" : "at most",
                                  argc < min_args ? min_args : max_args,
                                  (argc < min_args ? min_args : max_args) == 1 ? "" : "s", argc);
        goto done;
    }
    ZEND_HASH_FOREACH_VAL(args, a) {
        argv[i++] = a;
    } ZEND_HASH_FOREACH_END();

    ZVAL_DEREF(argv[0]);
    if (Z_TYPE_P(argv[0]) == IS_LONG) {
        name = zend_strpprintf(0, "%s:" ZEND_LONG_FMT, ZSTR_VAL(resource), Z_LVAL_P(argv[0]));
    } else if (Z_TYPE_P(argv[0]) == IS_STRING) {
        name = zend_string_concat3(ZSTR_VAL(resource), ZSTR_LEN(resource), ":", 1, Z_STRVAL_P(argv[0]), Z_STRLEN_P(argv[0]));
    } else {
        zend_type_error("%s(): Argument #1 ($id) must be of type string|int, %s given", func, zend_zval_type_name(argv[0]));
        goto done;
    }
    if (!php_distlock_check_name(func, "Argument #1 ($id) with the resource name", name)) goto done;

    if (kind == HELPER_UNLOCK) {
        int r;
        ZVAL_DEREF(argv[1]);
        if (Z_TYPE_P(argv[1]) != IS_STRING) {
            zend_type_error("%s(): Argument #2 ($token) must be of type string, %s given", func, zend_zval_type_name(argv[1]));
            goto done;
        }
        if (!php_distlock_check_token(func, "Argument #2 ($token)", Z_STR_P(argv[1]))) goto done;
        r = php_distlock_client_release_token(c, name, Z_STRVAL_P(argv[1]), Z_STRLEN_P(argv[1]));
        if (r >= 0) RETVAL_BOOL(r);
        goto done;
    }

    if (c->resources) {
        defaults = zend_hash_find_ptr(c->resources, resource);
    }
    {
        double ttl = 0, wait = 0;
        bool ttl_null, wait_null;
        int64_t ttl_ms = defaults && defaults->ttl_ms > 0 ? defaults->ttl_ms : c->ttl_ms;
        int64_t wait_us = defaults && defaults->wait_us >= 0 ? defaults->wait_us : c->wait_us;
        if (!opt_seconds(func, 2, "ttl", argv[1], &ttl, &ttl_null) ||
            !opt_seconds(func, 3, "wait", argv[2], &wait, &wait_null)) {
            goto done;
        }
        if (!ttl_null && !php_distlock_ttl_ms(func, "Argument #2 ($ttl)", ttl, &ttl_ms)) goto done;
        if (!wait_null && !php_distlock_wait_us(func, "Argument #3 ($wait)", wait, &wait_us)) goto done;
        php_distlock_client_acquire(c, name, ttl_ms, kind == HELPER_LOCK ? wait_us : 0, NULL, kind == HELPER_LOCK,
                                    return_value);
    }
done:
    if (name) zend_string_release(name);
    zend_string_release(resource);
}

ZEND_METHOD(DistLock, __call)
{
    php_distlock_client *c;
    zend_string *method;
    HashTable *args;

    ZEND_PARSE_PARAMETERS_START(2, 2)
        Z_PARAM_STR(method)
        Z_PARAM_ARRAY_HT(args)
    ZEND_PARSE_PARAMETERS_END();

    if (!(c = php_distlock_this_client(ZEND_THIS))) RETURN_THROWS();
    call_helper(c, method, args, return_value);
}
