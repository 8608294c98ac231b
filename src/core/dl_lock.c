#include "dl_lock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_clock.h"
#include "dl_key.h"
#include "dl_proc.h"
#include "dl_scripts.h"
#include "dl_token.h"

/* ---- leases ---------------------------------------------------------- */

dl_lease_t *dl_lease_new(const char *prefix, size_t prefix_len, const char *name, size_t name_len,
                         const char *token, size_t token_len, int64_t ttl_ms, dl_error_t *err)
{
    /* One block: the struct, then key, token and fencing counter key (each NUL-terminated). */
    size_t tlen = token ? token_len : DL_TOKEN_HEX_LEN, klen = prefix_len + name_len;
    dl_lease_t *l = malloc(sizeof(*l) + klen + 1 + tlen + 1 + DL_KEY_DERIVED_MAX(klen, DL_FENCE_SUFFIX_LEN) + 1);
    if (!l) {
        dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        return NULL;
    }
    memset(l, 0, sizeof(*l));
    l->key = (char *)(l + 1);
    if (prefix_len) memcpy(l->key, prefix, prefix_len);
    if (name_len) memcpy(l->key + prefix_len, name, name_len);
    l->key[prefix_len + name_len] = '\0';
    l->key_len = prefix_len + name_len;
    l->token = l->key + l->key_len + 1;
    l->token_len = tlen;
    if (token) {
        memcpy(l->token, token, token_len);
        l->token[token_len] = '\0';
    } else if (dl_token_generate(l->token, err) != DL_OK) {
        free(l);
        return NULL;
    }
    l->fence_key = l->token + tlen + 1;
    l->fence_key_len = dl_key_derive(l->key, l->key_len, DL_FENCE_SUFFIX, DL_FENCE_SUFFIX_LEN, l->fence_key);
    l->fence_key[l->fence_key_len] = '\0';
    l->ttl_ms = ttl_ms;
    l->pid = dl_proc_pid();
    return l;
}

void dl_lease_free(dl_lease_t *lease)
{
    free(lease);
}

int64_t dl_lease_validity_us(const dl_lease_t *lease)
{
    int64_t left = lease->valid_until_ns - dl_clock_now_ns();
    return left > 0 ? left / 1000 : 0;
}

/* ---- calls and replies ----------------------------------------------- */

/* Wraps an error reply (-ERR ...) of a command that ran. */
static dl_status_t server_error(const dl_reply_t *r, const char *what, dl_error_t *err)
{
    return dl_error_set(err, DL_ERR_SERVER, "Redis refused %s: %.*s", what,
                        (int)(r->len > 160 ? 160 : r->len), r->str ? r->str : "");
}

static dl_status_t unexpected(const char *what, dl_error_t *err)
{
    return dl_error_set(err, DL_ERR_PROTOCOL, "unexpected reply to %s", what);
}

/*
 * When a failed call is sent again on a fresh connection:
 *   RETRY_NEVER      acquire and DEL (a repeat could act twice), cleanups;
 *   RETRY_ON_DROP    reads: only when the connection broke (I/O or protocol
 *                    error), not after a timeout (a slow server stays slow);
 *   RETRY_ANY        release and refresh: also after a timeout, because a
 *                    lost reply would otherwise keep the lock until its TTL
 *                    (RELIABILITY.md item 3); both are idempotent.
 */
enum { RETRY_NEVER = 0, RETRY_ON_DROP, RETRY_ANY };

static dl_status_t call(const dl_transport_t *t, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies,
                        int retry, dl_error_t *err)
{
    dl_status_t st = t->call(t->impl, n, cmds, replies, 0, err);
    if (st != DL_OK && dl_status_is_transport_failure(st) &&
        (retry == RETRY_ANY || (retry == RETRY_ON_DROP && st != DL_ERR_TIMEOUT))) {
        size_t i;
        for (i = 0; i < n; i++) dl_reply_free(&replies[i]);
        st = t->call(t->impl, n, cmds, replies, 0, err);
    }
    return st;
}

static int is_noscript(const dl_reply_t *r)
{
    return r->type == DL_REPLY_ERROR && r->len >= 8 && memcmp(r->str, "NOSCRIPT", 8) == 0;
}

/* The argument vector of EVALSHA sha numkeys key... arg... (EVAL text ... on NOSCRIPT). */
typedef struct script_call {
    const char *argv[10];
    size_t argvlen[10];
    int argc;
    int nums;
    char num[3][24];
} script_call_t;

static void sc_begin(script_call_t *sc, const char *sha, const char *numkeys)
{
    sc->argv[0] = "EVALSHA"; sc->argvlen[0] = 7;
    sc->argv[1] = sha; sc->argvlen[1] = 40;
    sc->argv[2] = numkeys; sc->argvlen[2] = 1;
    sc->argc = 3;
    sc->nums = 0;
}

static void sc_add(script_call_t *sc, const char *s, size_t len)
{
    sc->argv[sc->argc] = s;
    sc->argvlen[sc->argc++] = len;
}

static void sc_add_num(script_call_t *sc, long long v)
{
    char *buf = sc->num[sc->nums++];
    sc_add(sc, buf, (size_t)snprintf(buf, sizeof(sc->num[0]), "%lld", v));
}

static dl_cmd_t sc_cmd(script_call_t *sc)
{
    dl_cmd_t c;
    c.argc = sc->argc;
    c.argv = sc->argv;
    c.argvlen = sc->argvlen;
    return c;
}

/* The common shape: one key (the lock), the token, and an optional number (< 0: none). */
static void sc_lease(script_call_t *sc, const char *sha, const dl_lease_t *lease, long long num)
{
    sc_begin(sc, sha, "1");
    sc_add(sc, lease->key, lease->key_len);
    sc_add(sc, lease->token, lease->token_len);
    if (num >= 0) sc_add_num(sc, num);
}

/* Runs a prepared script call; NOSCRIPT: the same again with EVAL and the text. */
static dl_status_t eval(const dl_transport_t *t, const char *text, script_call_t *sc, int retry, dl_reply_t *r,
                        dl_error_t *err)
{
    dl_cmd_t cmd = sc_cmd(sc);
    dl_status_t st = call(t, 1, &cmd, r, retry, err);
    if (st == DL_OK && is_noscript(r)) {
        dl_reply_free(r);
        sc->argv[0] = "EVAL"; sc->argvlen[0] = 4;
        sc->argv[1] = text; sc->argvlen[1] = strlen(text);
        st = call(t, 1, &cmd, r, retry, err);
    }
    return st;
}

/* Runs a lease script (sc_lease shape) and returns its integer result. */
static dl_status_t run_script(const dl_transport_t *t, const char *text, const char *sha, const dl_lease_t *lease,
                              int64_t arg_ms, int retry, const char *what, long long *result, dl_error_t *err)
{
    script_call_t sc;
    dl_reply_t r;
    dl_status_t st;

    sc_lease(&sc, sha, lease, arg_ms);
    st = eval(t, text, &sc, retry, &r, err);
    if (st == DL_OK) {
        if (r.type == DL_REPLY_INTEGER) *result = r.integer;
        else st = r.type == DL_REPLY_ERROR ? server_error(&r, what, err) : unexpected(what, err);
    }
    dl_reply_free(&r);
    return st;
}

/* ---- acquire --------------------------------------------------------- */

/* One attempt with fencing: the acquire script sets the key and increments the
 * fencing counter atomically, or answers the holder's PTTL. */
static dl_status_t try_once_fenced(const dl_transport_t *t, dl_lease_t *lease, int *acquired, int64_t *holder_pttl_ms,
                                   dl_error_t *err)
{
    script_call_t sc;
    dl_reply_t r;
    dl_status_t st;

    sc_begin(&sc, DL_SCRIPT_ACQUIRE_SHA, "2");
    sc_add(&sc, lease->key, lease->key_len);
    sc_add(&sc, lease->fence_key, lease->fence_key_len);
    sc_add(&sc, lease->token, lease->token_len);
    sc_add_num(&sc, lease->ttl_ms);
    sc_add(&sc, "1", 1);
    /* Not idempotent: a retry after a lost reply could double the grant. */
    st = eval(t, DL_SCRIPT_ACQUIRE, &sc, RETRY_NEVER, &r, err);
    if (st == DL_OK) {
        if (r.type == DL_REPLY_ARRAY && r.elements == 2 && r.element[0].type == DL_REPLY_INTEGER &&
            r.element[1].type == DL_REPLY_INTEGER) {
            *acquired = r.element[0].integer == 1;
            if (*acquired) lease->fence = r.element[1].integer;
            else *holder_pttl_ms = r.element[1].integer;
        } else {
            st = r.type == DL_REPLY_ERROR ? server_error(&r, "the acquire script", err) : unexpected("the acquire script", err);
        }
    }
    dl_reply_free(&r);
    return st;
}

/* One attempt: SET NX PX, and when want_pttl the holder's PTTL in the same round trip. */
static dl_status_t try_once(const dl_transport_t *t, dl_lease_t *lease, int want_pttl, int *acquired,
                            int64_t *holder_pttl_ms, dl_error_t *err)
{
    char ttlbuf[24];
    const char *set_argv[6] = {"SET", lease->key, lease->token, "NX", "PX", ttlbuf};
    size_t set_len[6] = {3, lease->key_len, lease->token_len, 2, 2, 0};
    const char *pttl_argv[2] = {"PTTL", lease->key};
    size_t pttl_len[2] = {4, lease->key_len};
    dl_cmd_t cmds[2];
    dl_reply_t r[2];
    size_t n = want_pttl ? 2 : 1;
    dl_status_t st;

    *holder_pttl_ms = 0;
    if (lease->fencing) {
        return try_once_fenced(t, lease, acquired, holder_pttl_ms, err);
    }
    set_len[5] = (size_t)snprintf(ttlbuf, sizeof(ttlbuf), "%lld", (long long)lease->ttl_ms);
    cmds[0].argc = 6; cmds[0].argv = set_argv; cmds[0].argvlen = set_len;
    cmds[1].argc = 2; cmds[1].argv = pttl_argv; cmds[1].argvlen = pttl_len;

    st = t->call(t->impl, n, cmds, r, 0, err);
    if (st == DL_OK) {
        if (r[0].type == DL_REPLY_STATUS) {
            *acquired = 1;
        } else if (r[0].type == DL_REPLY_NIL) {
            *acquired = 0;
            if (want_pttl && r[1].type == DL_REPLY_INTEGER) *holder_pttl_ms = r[1].integer;
        } else if (r[0].type == DL_REPLY_ERROR) {
            st = server_error(&r[0], "SET", err);
        } else {
            st = unexpected("SET", err);
        }
    }
    dl_reply_free(&r[0]);
    if (n == 2) dl_reply_free(&r[1]);
    return st;
}

dl_status_t dl_lock_acquire(const dl_transport_t *t, dl_lease_t *lease, const dl_acquire_opts_t *opts,
                            dl_acquire_result_t *res, dl_error_t *err)
{
    int64_t start_ns = dl_clock_now_ns();
    int64_t deadline_ns = start_ns + opts->wait_us * 1000;
    unsigned attempt = 0;

    memset(res, 0, sizeof(*res));
    for (;;) {
        int64_t sent_ns = dl_clock_now_ns(), holder_pttl_ms, remaining_us, delay_us, sleep_us;
        int acquired = 0;
        dl_status_t st = try_once(t, lease, opts->wait_us > 0, &acquired, &holder_pttl_ms, err);

        res->attempts++;
        if (st != DL_OK) {
            if (dl_status_is_transport_failure(st)) {
                /* Ambiguous: the SET may have run. Remove it if it did; keep the first error. */
                dl_error_t cleanup_err;
                long long ignored;
                run_script(t, DL_SCRIPT_RELEASE, DL_SCRIPT_RELEASE_SHA, lease, -1, RETRY_NEVER, "the release script",
                           &ignored, &cleanup_err);
            }
            res->waited_us = (dl_clock_now_ns() - start_ns) / 1000;
            return st;
        }
        if (acquired) {
            /* Validity counts from the send time: the lease may have started then. */
            lease->valid_until_ns = sent_ns + lease->ttl_ms * 1000000;
            lease->pid = dl_proc_pid();
            res->acquired = 1;
            res->waited_us = (dl_clock_now_ns() - start_ns) / 1000;
            return DL_OK;
        }
        res->contended++;
        remaining_us = (deadline_ns - dl_clock_now_ns()) / 1000;
        if (remaining_us <= 0) {
            res->waited_us = (dl_clock_now_ns() - start_ns) / 1000;
            return DL_OK;
        }
        if (opts->interrupted && opts->interrupted(opts->interrupt_arg)) {
            res->waited_us = (dl_clock_now_ns() - start_ns) / 1000;
            return dl_error_set(err, DL_ERR_INTERRUPTED, "the wait was interrupted");
        }
        delay_us = dl_backoff_delay_us(&opts->backoff, attempt++);
        sleep_us = dl_wait_sleep_us(delay_us, dl_random_upto(opts->backoff.jitter_us), remaining_us, holder_pttl_ms);
        dl_clock_sleep_us(sleep_us);
    }
}

/* ---- release, refresh, status ---------------------------------------- */

dl_status_t dl_lock_release(const dl_transport_t *t, const dl_lease_t *lease, int *released, dl_error_t *err)
{
    long long r = 0;
    dl_status_t st = run_script(t, DL_SCRIPT_RELEASE, DL_SCRIPT_RELEASE_SHA, lease, -1, RETRY_ANY, "the release script",
                                &r, err);
    *released = st == DL_OK && r == 1;
    return st;
}

/*
 * Runs one lease script for n leases in one pipelined round trip; with_ttl
 * passes each lease's ttl_ms. results[i] gets the integer reply. NOSCRIPT
 * replies are re-run one by one with EVAL (which caches the script again).
 */
static dl_status_t run_script_many(const dl_transport_t *t, const char *text, const char *sha, size_t n,
                                   dl_lease_t *const *leases, int with_ttl, const char *what, long long *results,
                                   dl_error_t *err)
{
    script_call_t *sc;
    dl_cmd_t *cmds;
    dl_reply_t *r;
    dl_status_t st = DL_OK;
    size_t i;

    if (n == 0) return DL_OK;
    sc = calloc(n, sizeof(*sc));
    cmds = calloc(n, sizeof(*cmds));
    r = calloc(n, sizeof(*r));
    if (!sc || !cmds || !r) {
        st = dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < n; i++) {
        sc_lease(&sc[i], sha, leases[i], with_ttl ? leases[i]->ttl_ms : -1);
        cmds[i] = sc_cmd(&sc[i]);
        results[i] = 0;
    }
    st = call(t, n, cmds, r, RETRY_ANY, err);
    for (i = 0; st == DL_OK && i < n; i++) {
        if (is_noscript(&r[i])) {
            st = run_script(t, text, sha, leases[i], with_ttl ? leases[i]->ttl_ms : -1, RETRY_ANY, what, &results[i],
                            err);
        } else if (r[i].type == DL_REPLY_INTEGER) {
            results[i] = r[i].integer;
        } else {
            st = r[i].type == DL_REPLY_ERROR ? server_error(&r[i], what, err) : unexpected(what, err);
        }
    }
    for (i = 0; i < n; i++) dl_reply_free(&r[i]);
done:
    free(sc);
    free(cmds);
    free(r);
    return st;
}

/* Like run_script_many, with results as 0/1 flags. */
static dl_status_t run_script_many_flags(const dl_transport_t *t, const char *text, const char *sha, size_t n,
                                         dl_lease_t *const *leases, int with_ttl, const char *what, int *flags,
                                         dl_error_t *err)
{
    long long stackbuf[64], *results = n <= 64 ? stackbuf : malloc(n * sizeof(*results));
    dl_status_t st;
    size_t i;
    if (!results) return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
    st = run_script_many(t, text, sha, n, leases, with_ttl, what, results, err);
    for (i = 0; i < n; i++) flags[i] = st == DL_OK && results[i] == 1;
    if (results != stackbuf) free(results);
    return st;
}

dl_status_t dl_lock_release_many(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, int *released,
                                 dl_error_t *err)
{
    return run_script_many_flags(t, DL_SCRIPT_RELEASE, DL_SCRIPT_RELEASE_SHA, n, leases, 0, "the release script",
                                 released, err);
}

dl_status_t dl_lock_refresh_many(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, int *extended,
                                 dl_error_t *err)
{
    return run_script_many_flags(t, DL_SCRIPT_REFRESH, DL_SCRIPT_REFRESH_SHA, n, leases, 1, "the refresh script",
                                 extended, err);
}

dl_status_t dl_lock_refresh(const dl_transport_t *t, dl_lease_t *lease, int64_t ttl_ms, int *extended,
                            dl_error_t *err)
{
    long long r = 0;
    int64_t sent_ns = dl_clock_now_ns();
    dl_status_t st = run_script(t, DL_SCRIPT_REFRESH, DL_SCRIPT_REFRESH_SHA, lease, ttl_ms, RETRY_ANY,
                                "the refresh script", &r, err);
    *extended = st == DL_OK && r == 1;
    if (*extended) {
        lease->ttl_ms = ttl_ms;
        lease->valid_until_ns = sent_ns + ttl_ms * 1000000;
    }
    return st;
}

dl_status_t dl_lock_status(const dl_transport_t *t, const dl_lease_t *lease, int64_t *pttl_ms, dl_error_t *err)
{
    long long r = -3;
    dl_status_t st = run_script(t, DL_SCRIPT_STATUS, DL_SCRIPT_STATUS_SHA, lease, -1, RETRY_ON_DROP,
                                "the status script", &r, err);
    *pttl_ms = (st == DL_OK && r >= 0) ? r : -1;
    return st;
}

/* Runs a one-key command that answers an integer. */
static dl_status_t key_command(const dl_transport_t *t, const char *cmdname, const char *key, size_t key_len,
                               int retry, long long *result, dl_error_t *err)
{
    const char *argv[2] = {cmdname, key};
    size_t argvlen[2] = {strlen(cmdname), key_len};
    dl_cmd_t cmd;
    dl_reply_t r;
    dl_status_t st;

    cmd.argc = 2; cmd.argv = argv; cmd.argvlen = argvlen;
    st = call(t, 1, &cmd, &r, retry, err);
    if (st == DL_OK) {
        if (r.type == DL_REPLY_INTEGER) *result = r.integer;
        else st = r.type == DL_REPLY_ERROR ? server_error(&r, cmdname, err) : unexpected(cmdname, err);
    }
    dl_reply_free(&r);
    return st;
}

dl_status_t dl_lock_exists(const dl_transport_t *t, const char *key, size_t key_len, int *exists, dl_error_t *err)
{
    long long r = 0;
    dl_status_t st = key_command(t, "EXISTS", key, key_len, RETRY_ON_DROP, &r, err);
    *exists = r > 0;
    return st;
}

dl_status_t dl_lock_delete(const dl_transport_t *t, const char *key, size_t key_len, int *deleted, dl_error_t *err)
{
    long long r = 0;
    dl_status_t st = key_command(t, "DEL", key, key_len, RETRY_NEVER, &r, err);
    *deleted = r > 0;
    return st;
}
