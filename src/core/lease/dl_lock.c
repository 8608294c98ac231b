#include "dl_lock.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/dl_clock.h"
#include "dl_key.h"
#include "../transport/dl_pending.h"
#include "../base/dl_proc.h"
#include "dl_replicas.h"
#include "dl_script.h"
#include "../base/dl_token.h"

/* ---- release, refresh, status ---------------------------------------- */

static pthread_mutex_t fallbacks_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long fallbacks;

/* Releases done by a native command that ran (dl_lock_native_releases):
 * counted where the command was answered, whatever path sent it. */
static unsigned long long native_releases;

static void count_native_release(void)
{
    __atomic_fetch_add(&native_releases, 1, __ATOMIC_RELAXED);
}

unsigned long long dl_lock_native_releases(void)
{
    return __atomic_load_n(&native_releases, __ATOMIC_RELAXED);
}

unsigned long long dl_lock_native_fallbacks(void)
{
    unsigned long long n;
    pthread_mutex_lock(&fallbacks_mu);
    n = fallbacks;
    pthread_mutex_unlock(&fallbacks_mu);
    return n;
}

/* A native command the server refused (r: dl_is_refused): the connection
 * forgets the capability, and the process counts it (stats()['native_fallbacks']). */
static void forget_native(const dl_transport_t *t, unsigned bit)
{
    if (t->caps_clear) t->caps_clear(t->impl, bit);
    pthread_mutex_lock(&fallbacks_mu);
    fallbacks++;
    pthread_mutex_unlock(&fallbacks_mu);
}

static unsigned caps_of(const dl_transport_t *t)
{
    return t->caps ? t->caps(t->impl) : 0;
}

int dl_lock_native(const dl_transport_t *t, const dl_lease_t *lease)
{
    return dl_primitive_of(lease)->plain && (caps_of(t) & DL_CAP_NATIVE_CAD);
}

int dl_lock_release_native(const dl_transport_t *t, const dl_lease_t *lease)
{
    return dl_lock_native(t, lease) && (!lease->contended || dl_scripting_denied(t));
}

int dl_lock_native_set(const dl_transport_t *t, const dl_lease_t *lease)
{
    return dl_primitive_of(lease)->plain && (caps_of(t) & DL_CAP_SET_IFEQ);
}

const char *dl_lock_native_name(unsigned caps)
{
    return (caps & DL_CAP_DELEX) ? "DELEX" : (caps & DL_CAP_DELIFEQ) ? "DELIFEQ" : NULL;
}

/* K is not a string (a semaphore's or a foreign ZSET): WRONGTYPE (DELIFEQ, SET
 * IFEQ), or Redis 8.4's DELEX "ERR Key should be of string type if conditions
 * are specified". Not ours: the caller asks the script why. */
static int not_a_string(const dl_reply_t *r)
{
    return r->type == DL_REPLY_ERROR && r->str &&
           ((r->len >= 9 && memcmp(r->str, "WRONGTYPE", 9) == 0) || strstr(r->str, "should be of string type"));
}

/* The native compare-and-delete of lease: DELEX K IFEQ token, or DELIFEQ K
 * token (Valkey 9.0, 9.1). *cmd's vectors point into argv/len and lease. */
static unsigned native_del_cmd(const dl_transport_t *t, const dl_lease_t *lease, const char **argv, size_t *len,
                               dl_cmd_t *cmd)
{
    unsigned bit = (caps_of(t) & DL_CAP_DELEX) ? DL_CAP_DELEX : DL_CAP_DELIFEQ;
    argv[1] = lease->key; len[1] = lease->key_len;
    if (bit == DL_CAP_DELEX) {
        argv[0] = "DELEX"; len[0] = 5;
        argv[2] = "IFEQ"; len[2] = 4;
        argv[3] = lease->token; len[3] = lease->token_len;
        cmd->argc = 4;
    } else {
        argv[0] = "DELIFEQ"; len[0] = 7;
        argv[2] = lease->token; len[2] = lease->token_len;
        cmd->argc = 3;
    }
    cmd->argv = argv;
    cmd->argvlen = len;
    return bit;
}

/* The wake after a native release found waiters: the wake script (it skips
 * entries that expired), or where scripting is denied the plain wake: one
 * token in W (RPUSH, LTRIM to one, PEXPIRE). Best effort: a wake lost here is
 * made up by the waiter's block ending (at most DL_WAIT_BLOCK_CAP_US). */
void dl_lock_wake(const dl_transport_t *t, const dl_lease_t *lease)
{
    dl_error_t ignored;
    dl_reply_t r[5];
    size_t i;
    if (!dl_scripting_denied(t)) {
        dl_script_run(t, &DL_WAKE_SCRIPT, lease, 0, 0, 0, DL_RETRY_ANY, &r[0], &ignored);
        dl_reply_free(&r[0]);
        return;
    } else {
        char ttl[24];
        const char *multi[1] = {"MULTI"}, *exec[1] = {"EXEC"};
        size_t multi_len[1] = {5}, exec_len[1] = {4};
        const char *push[3] = {"RPUSH", lease->wake_key, "1"};
        size_t push_len[3] = {5, lease->wake_key_len, 1};
        const char *trim[4] = {"LTRIM", lease->wake_key, "0", "0"};
        size_t trim_len[4] = {5, lease->wake_key_len, 1, 1};
        const char *exp[3] = {"PEXPIRE", lease->wake_key, ttl};
        size_t exp_len[3] = {7, lease->wake_key_len, 0};
        /* In MULTI/EXEC (not scripting): W never holds a token without its TTL,
         * whatever cuts the connection (tests/model/mutex.pml, PIPE_CUT); a
         * waiter blocked on W is served once EXEC has run, the one token left. */
        dl_cmd_t cmds[5] = {{1, multi, multi_len}, {3, push, push_len}, {4, trim, trim_len}, {3, exp, exp_len},
                            {1, exec, exec_len}};
        exp_len[2] = dl_cmd_int(ttl, DL_WAKE_TTL_MS);
        dl_call(t, 5, cmds, r, DL_RETRY_ANY, &ignored);
        for (i = 0; i < 5; i++) dl_reply_free(&r[i]);
    }
}

/*
 * The native release: DELEX K IFEQ token (or DELIFEQ K token) and EXISTS Q in
 * one round trip, in that order. A waiter registers (ZADD Q) before its
 * attempt finds the key taken (atomically in the acquire script, or ZADD then
 * SET NX in one pipeline where scripting is denied), and registers again
 * before it blocks whenever a plain SET behind its BLPOP found the key taken
 * (dl_acquire.c, carried_step), so a waiter that can need waking is in Q
 * before the delete runs: EXISTS after it cannot miss one (one that comes
 * after the delete finds the key free and takes it). *v = the delete's 1 or 0;
 * *waiters = EXISTS Q. *refused = the capability bit when the server refused
 * the command (unknown command, NOPERM: the caller forgets it and uses the
 * script); K not a string (WRONGTYPE: a semaphore's or a foreign ZSET) is
 * *v = 0, and the caller asks the script why.
 */
static dl_status_t release_native(const dl_transport_t *t, const dl_lease_t *lease, long long *v, int *waiters,
                                  int *retried, unsigned *refused, dl_error_t *err)
{
    const char *del[4];
    size_t del_len[4];
    const char *ex[2] = {"EXISTS", lease->waiters_key};
    size_t ex_len[2] = {6, lease->waiters_key_len};
    dl_cmd_t cmds[2] = {{0, NULL, NULL}, {2, ex, ex_len}};
    dl_reply_t r[2];
    unsigned bit = native_del_cmd(t, lease, del, del_len, &cmds[0]);
    dl_status_t st = dl_call_retried(t, 2, cmds, r, DL_RETRY_ANY, retried, err);
    if (st == DL_OK) {
        if (dl_is_refused(&r[0])) *refused = bit;
        else if (not_a_string(&r[0])) *v = 0;
        else if (r[0].type == DL_REPLY_ERROR) st = dl_server_error(t, &r[0], del[0], err);
        else if (r[0].type != DL_REPLY_INTEGER || r[1].type != DL_REPLY_INTEGER) st = dl_unexpected(t, del[0], err);
        else {
            *v = r[0].integer;
            *waiters = r[1].integer > 0;
        }
    }
    dl_reply_free(&r[0]);
    dl_reply_free(&r[1]);
    return st;
}

dl_status_t dl_lock_release(const dl_transport_t *t, const dl_lease_t *lease, int *released, dl_error_t *err)
{
    const dl_script_t *s = dl_script_release_for(lease);
    int retried = 0, waiters = 0, native = dl_lock_release_native(t, lease);
    long long v = 0;
    dl_reply_t r;
    dl_status_t st = DL_OK;

    while (native) {
        unsigned refused = 0;
        st = release_native(t, lease, &v, &waiters, &retried, &refused, err);
        if (refused) {
            /* Not this server's, or not this user's (unknown command, NOPERM):
             * the other native command if the server has it, else the script,
             * on this connection from now on. */
            forget_native(t, refused);
            native = dl_lock_release_native(t, lease);
            retried = 0;
            continue;
        }
        /* Not ours (rare): the script tells another owner or nothing from
         * another kind (DLKIND), which the native delete cannot. It deletes
         * nothing that the delete did not, so the lost-reply rule below still
         * holds. Where scripting is denied, "not ours" is the answer. */
        if (st == DL_OK && v != 1 && !dl_scripting_denied(t)) native = 0;
        break;
    }
    if (native && st == DL_OK) count_native_release();   /* its answer stands: this release went natively */
    if (!native) {
        st = dl_script_run_retried(t, s, lease, 0, 0, 0, DL_RETRY_ANY, &r, &retried, err);
        if (st == DL_OK) {
            if (r.type == DL_REPLY_INTEGER) v = r.integer;
            else st = dl_unexpected(t, s->what, err);
        }
        dl_reply_free(&r);
        if (v == 1) waiters = 0;   /* the script deleted, and woke them; else a lost native reply's EXISTS stands */
    }
    /* The first reply was lost and the release sent again (it is idempotent).
     * If the lease is still valid now that the second one has answered, the key
     * cannot have expired, and nobody else could have taken or removed it:
     * finding it gone (or, in fair mode, handed to the next waiter) means the
     * first attempt did it. Past the validity nothing can be told apart: lost. */
    if (st == DL_OK && retried && v != 1 && dl_clock_now_ns() < lease->valid_until_ns) v = 1;
    *released = st == DL_OK && v == 1;
    /* Native, contended: wake the longest waiter. The release is done whatever it returns. */
    if (*released && waiters) dl_lock_wake(t, lease);
    return st;
}

/* The outcome of an undo nobody waits for (dl_pending_fn): a lease it would end ends at its TTL. */
static void undo_outcome_ignored(void *arg, const dl_transport_t *t, dl_pending_outcome_t outcome, dl_reply_t *reply)
{
    (void)arg; (void)t; (void)outcome; (void)reply;
}

/*
 * The native undo of an acquire that may have happened (a lost reply, a grant
 * that must not stand): compare-and-delete, no wake (as DL_SCRIPT_UNDO). One
 * attempt within the call's bound, errors ignored. Returns 0 when no native
 * command could be sent (the caller runs the undo script).
 */
int dl_lock_undo_native(const dl_transport_t *t, const dl_lease_t *lease)
{
    if (dl_lock_native(t, lease) && dl_call_bound_closed()) {
        /* A round trip's timeout ended the call (issue 37.2): the undo is written,
         * not awaited, as dl_script_run_or_defer does with the script. A refusal
         * then goes unseen: the lease ends at its TTL. */
        const char *del[4];
        size_t del_len[4];
        dl_cmd_t cmd;
        native_del_cmd(t, lease, del, del_len, &cmd);
        dl_pending_defer(t, &cmd, undo_outcome_ignored, NULL, lease->valid_until_ns > 0 ? lease->valid_until_ns : 0);
        return 1;
    }
    while (dl_lock_native(t, lease)) {
        const char *del[4];
        size_t del_len[4];
        dl_cmd_t cmd;
        dl_reply_t r;
        dl_error_t ignored;
        dl_call_bound_t saved;
        unsigned bit = native_del_cmd(t, lease, del, del_len, &cmd);
        int refused;
        dl_call_bound_grace(&saved, DL_PENDING_GRACE_US);
        dl_call(t, 1, &cmd, &r, DL_RETRY_NEVER, &ignored);
        dl_call_bound_end(&saved);
        refused = dl_is_refused(&r);
        dl_reply_free(&r);
        if (!refused) return 1;
        forget_native(t, bit);
    }
    return 0;
}

/* A release in flight: its own copy of the lease, and whom to tell. */
typedef struct deferred_release {
    dl_lease_t *lease;
    dl_release_done_fn done;       /* one of done and done_ex */
    dl_release_done_ex_fn done_ex;
    void *arg;
} deferred_release_t;

static void tell(dl_release_done_fn done, dl_release_done_ex_fn done_ex, void *arg, int released, dl_status_t st,
                 const char *endpoint)
{
    if (done_ex) done_ex(arg, released, st, endpoint);
    else if (released >= 0) done(released, st);
}

static void finish(deferred_release_t *d, int released, dl_status_t st, const char *endpoint)
{
    tell(d->done, d->done_ex, d->arg, released, st, endpoint);
    dl_lease_free(d->lease);
    free(d);
}

/* The outcome of a deferred release (dl_pending_fn). */
static void deferred_release_outcome(void *arg, const dl_transport_t *t, dl_pending_outcome_t outcome, dl_reply_t *r)
{
    deferred_release_t *d = arg;
    const dl_script_t *s = dl_script_release_for(d->lease);
    dl_error_t err;
    dl_reply_t again;
    int released = 0;
    dl_status_t st;

    if (outcome == DL_PENDING_ABANDONED) {   /* another process's: not ours to count or redo */
        finish(d, -1, DL_OK, NULL);
        return;
    }
    if (outcome == DL_PENDING_REPLY && r->type == DL_REPLY_INTEGER) {
        /* gone while valid after an earlier release that failed on the network: that one ran (dl_lease.h) */
        finish(d, r->integer == 1 || dl_lease_gone_by_our_release(d->lease), DL_OK, t->endpoint);
        return;
    }
    if (outcome == DL_PENDING_REPLY && dl_is_kind_error(r)) {
        finish(d, 0, DL_ERR_KIND, t->endpoint);   /* another kind holds the name now: this lease is gone */
        return;
    }
    if (outcome == DL_PENDING_REPLY && !dl_is_noscript(r)) {
        /* An error reply (or a wrong type): the release did not run; as dl_lock_release reports it. */
        finish(d, 0, r->type == DL_REPLY_ERROR ? DL_ERR_SERVER : DL_ERR_PROTOCOL, t->endpoint);
        return;
    }
    /* NOSCRIPT (the script cache is empty): the release did not run; send it by
     * EVAL. LOST: it may or may not have run; send it again (compare-and-delete
     * is idempotent), as EVAL too, since the cache of a new connection's server
     * may be empty. */
    st = dl_script_run(t, s, d->lease, 0, 0, 1, DL_RETRY_ANY, &again, &err);
    if (st == DL_OK) {
        if (again.type == DL_REPLY_INTEGER) released = again.integer == 1;
        else st = dl_unexpected(t, s->what, &err);
    }
    dl_reply_free(&again);
    /* Lost reply, lease still valid now that the second has answered: the key
     * cannot have expired and nobody else could have removed it, so finding it
     * gone means the first did it (as in dl_lock_release). */
    if (st == DL_OK && outcome == DL_PENDING_LOST && !released && dl_clock_now_ns() < d->lease->valid_until_ns) {
        released = 1;
    }
    if (st == DL_OK && !released && dl_lease_gone_by_our_release(d->lease)) released = 1;
    finish(d, released, st, st == DL_OK ? t->endpoint : NULL);
}

static dl_status_t release_deferred(const dl_transport_t *t, const dl_lease_t *lease, dl_release_done_fn done,
                                   dl_release_done_ex_fn done_ex, void *arg)
{
    deferred_release_t *d = malloc(sizeof(*d));
    dl_error_t err;
    int released = 0;
    dl_status_t st;

    if (d) {
        d->lease = dl_lease_dup(lease);
        d->done = done;
        d->done_ex = done_ex;
        d->arg = arg;
        if (d->lease && dl_script_send(t, dl_script_release_for(lease), d->lease, deferred_release_outcome, d,
                                       &err) == DL_OK) {
            return DL_OK;
        }
        if (d->lease) dl_lease_free(d->lease);
        free(d);
    }
    /* Not deferred: done now, synchronously (it retries on a fresh connection). */
    st = dl_lock_release(t, lease, &released, &err);
    tell(done, done_ex, arg, released, st, st == DL_OK ? t->endpoint : NULL);
    return DL_OK;
}

dl_status_t dl_lock_release_deferred(const dl_transport_t *t, const dl_lease_t *lease, dl_release_done_fn done)
{
    return release_deferred(t, lease, done, NULL, NULL);
}

dl_status_t dl_lock_release_deferred_ex(const dl_transport_t *t, const dl_lease_t *lease, dl_release_done_ex_fn done,
                                        void *arg)
{
    return release_deferred(t, lease, NULL, done, arg);
}

/*
 * Request end, natively: one pipeline of every lease's compare-and-delete and
 * EXISTS Q, then the wakes that are needed (contended only). A refused native
 * command: that lease by dl_lock_release (which falls back).
 */
static dl_status_t release_many_native(const dl_transport_t *t, size_t n, dl_lease_t *const *leases,
                                       int *released, dl_error_t *err)
{
    const char *(*del)[4] = calloc(n, sizeof(*del)), *(*ex)[2] = calloc(n, sizeof(*ex));
    size_t (*del_len)[4] = calloc(n, sizeof(*del_len)), (*ex_len)[2] = calloc(n, sizeof(*ex_len));
    unsigned *bit = calloc(n, sizeof(*bit));
    dl_cmd_t *cmds = calloc(2 * n, sizeof(*cmds));
    dl_reply_t *r = calloc(2 * n, sizeof(*r));
    dl_status_t st = DL_OK;
    size_t i;

    if (!del || !ex || !del_len || !ex_len || !bit || !cmds || !r) {
        st = dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < n; i++) {
        bit[i] = native_del_cmd(t, leases[i], del[i], del_len[i], &cmds[2 * i]);
        ex[i][0] = "EXISTS"; ex_len[i][0] = 6;
        ex[i][1] = leases[i]->waiters_key; ex_len[i][1] = leases[i]->waiters_key_len;
        cmds[2 * i + 1].argc = 2; cmds[2 * i + 1].argv = ex[i]; cmds[2 * i + 1].argvlen = ex_len[i];
        released[i] = 0;
    }
    st = dl_call(t, 2 * n, cmds, r, DL_RETRY_ANY, err);
    for (i = 0; st == DL_OK && i < n; i++) {
        const dl_reply_t *d = &r[2 * i];
        if (dl_is_refused(d)) {
            forget_native(t, bit[i]);
            st = dl_lock_release(t, leases[i], &released[i], err);
        } else if (d->type == DL_REPLY_INTEGER) {
            count_native_release();
            released[i] = d->integer == 1;
            if (released[i] && r[2 * i + 1].type == DL_REPLY_INTEGER && r[2 * i + 1].integer > 0) {
                dl_lock_wake(t, leases[i]);
            }
        } else if (!not_a_string(d)) {
            st = d->type == DL_REPLY_ERROR ? dl_server_error(t, d, del[i][0], err) : dl_unexpected(t, del[i][0], err);
        }
    }
    for (i = 0; i < 2 * n && r; i++) dl_reply_free(&r[i]);
done:
    free(del); free(ex); free(del_len); free(ex_len); free(bit); free(cmds); free(r);
    return st;
}

dl_status_t dl_lock_release_many(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, int *released,
                                 dl_error_t *err)
{
    size_t i;
    for (i = 0; i < n && dl_lock_native(t, leases[i]); i++) {}
    if (n > 0 && i == n) return release_many_native(t, n, leases, released, err);
    return dl_script_run_many(t, dl_script_release_for, n, leases, released, err);
}

static const dl_script_t *refresh_for(const dl_lease_t *lease)
{
    return dl_primitive_of(lease)->refresh;
}

/* SET K token IFEQ token PX ttl: the native compare-and-refresh (OK, or nil when not ours). */
typedef struct native_refresh {
    const char *argv[7];
    size_t argvlen[7];
    char ttl[24];
} native_refresh_t;

static dl_cmd_t native_refresh_cmd(native_refresh_t *n, const dl_lease_t *lease, int64_t ttl_ms)
{
    dl_cmd_t cmd;
    n->argv[0] = "SET"; n->argvlen[0] = 3;
    n->argv[1] = lease->key; n->argvlen[1] = lease->key_len;
    n->argv[2] = lease->token; n->argvlen[2] = lease->token_len;
    n->argv[3] = "IFEQ"; n->argvlen[3] = 4;
    n->argv[4] = lease->token; n->argvlen[4] = lease->token_len;
    n->argv[5] = "PX"; n->argvlen[5] = 2;
    n->argv[6] = n->ttl; n->argvlen[6] = dl_cmd_int(n->ttl, ttl_ms);
    cmd.argc = 7; cmd.argv = n->argv; cmd.argvlen = n->argvlen;
    return cmd;
}

/* Reads a native refresh reply into *extended; error replies and wrong types are errors,
 * except WRONGTYPE (K is another kind's or a foreign ZSET): not ours. A refused
 * SET IFEQ (dl_is_refused): *refused = 1, DL_OK, and nothing ran. */
static dl_status_t native_refresh_result(const dl_transport_t *t, const dl_reply_t *r, int *extended, int *refused,
                                         dl_error_t *err)
{
    if (dl_is_refused(r)) *refused = 1;
    else if (r->type == DL_REPLY_STATUS) *extended = 1;
    else if (r->type == DL_REPLY_NIL) *extended = 0;
    else if (not_a_string(r)) *extended = 0;
    else return r->type == DL_REPLY_ERROR ? dl_server_error(t, r, "SET IFEQ", err) : dl_unexpected(t, "SET IFEQ", err);
    return DL_OK;
}

/*
 * min_replicas for the watchdog's renewals: one WAIT behind the tick's
 * pipeline (a second round trip, on the watchdog's own thread), for the
 * strictest lease of the batch. WAIT counts every write this connection made
 * before it, so it covers the whole batch. Fewer acknowledgements: the tick
 * failed (DL_ERR_REPLICATION), so the watchdog tries again and, if the
 * replicas stay behind until the lease may have expired, reports it lost.
 */
static dl_status_t wait_for_replicas(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, dl_error_t *err)
{
    const dl_lease_t *want = NULL;
    dl_replicas_wait_t w;
    dl_cmd_t cmd;
    dl_reply_t r;
    dl_status_t st;
    size_t i;

    for (i = 0; i < n; i++) {
        if (dl_replicas_wanted(leases[i]) && (!want || leases[i]->min_replicas > want->min_replicas)) want = leases[i];
    }
    if (!want) return DL_OK;
    cmd = dl_replicas_wait_cmd(&w, want);
    st = dl_call_timed(t, 1, &cmd, &r, DL_RETRY_NEVER, dl_replicas_extra_us(want), err);
    if (st == DL_OK) st = dl_replicas_check(t, want, &r, "the renewals", err);
    dl_reply_free(&r);
    return st;
}

static dl_status_t refresh_many(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, int *extended,
                                dl_error_t *err);

dl_status_t dl_lock_refresh_many(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, int *extended,
                                 dl_error_t *err)
{
    dl_status_t st = refresh_many(t, n, leases, extended, err);
    return st == DL_OK ? wait_for_replicas(t, n, leases, err) : st;
}

static dl_status_t refresh_many(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, int *extended,
                                dl_error_t *err)
{
    native_refresh_t *nr;
    dl_cmd_t *cmds;
    dl_reply_t *r;
    dl_status_t st;
    size_t i;

    int refused = 0;

    /* The native command only when every lease is a plain mutex's: the watchdog's batch mixes kinds. */
    for (i = 0; i < n && dl_lock_native_set(t, leases[i]); i++) {}
    if (n == 0 || i < n) return dl_script_run_many(t, refresh_for, n, leases, extended, err);
    nr = calloc(n, sizeof(*nr));
    cmds = calloc(n, sizeof(*cmds));
    r = calloc(n, sizeof(*r));
    if (!nr || !cmds || !r) {
        st = dl_error_set(err, DL_ERR_NOMEM, "out of memory");
    } else {
        for (i = 0; i < n; i++) cmds[i] = native_refresh_cmd(&nr[i], leases[i], leases[i]->ttl_ms);
        st = dl_call(t, n, cmds, r, DL_RETRY_ANY, err);
        for (i = 0; i < n; i++) {
            extended[i] = 0;
            if (st == DL_OK) st = native_refresh_result(t, &r[i], &extended[i], &refused, err);
        }
        for (i = 0; i < n; i++) dl_reply_free(&r[i]);
    }
    free(nr);
    free(cmds);
    free(r);
    if (st == DL_OK && refused) {
        /* SET IFEQ refused (the server's version promised it): the whole batch by
         * script, which extends again what was extended (idempotent). */
        forget_native(t, DL_CAP_SET_IFEQ);
        return dl_script_run_many(t, refresh_for, n, leases, extended, err);
    }
    return st;
}

/* The refresh with WAIT behind it, in one round trip: *r as the refresh's
 * 1/0; fewer acknowledgements than asked (for an extension): DL_ERR_REPLICATION. */
static dl_status_t refresh_replicated(const dl_transport_t *t, dl_lease_t *lease, int64_t ttl_ms, long long *r,
                                      dl_error_t *err)
{
    dl_replicas_wait_t w;
    dl_cmd_t wait_cmd = dl_replicas_wait_cmd(&w, lease);
    dl_reply_t rep[2];
    dl_status_t st = DL_OK;
    int ext = 0, refused = 0, native = dl_lock_native_set(t, lease);

    memset(rep, 0, sizeof(rep));
    if (native) {
        native_refresh_t nr;
        dl_cmd_t cmds[2];
        cmds[0] = native_refresh_cmd(&nr, lease, ttl_ms);
        cmds[1] = wait_cmd;
        st = dl_call_timed(t, 2, cmds, rep, DL_RETRY_ANY, dl_replicas_extra_us(lease), err);
        if (st == DL_OK) st = native_refresh_result(t, &rep[0], &ext, &refused, err);
        if (st == DL_OK && refused) {
            forget_native(t, DL_CAP_SET_IFEQ);
            dl_reply_free(&rep[0]);
            dl_reply_free(&rep[1]);
            native = 0;
        }
    }
    if (!native) {
        st = dl_script_run_then(t, refresh_for(lease), lease, ttl_ms, 0, DL_RETRY_ANY, &wait_cmd,
                                dl_replicas_extra_us(lease), &rep[0], &rep[1], err);
        if (st == DL_OK) {
            if (rep[0].type == DL_REPLY_INTEGER) ext = rep[0].integer == 1;
            else st = dl_unexpected(t, refresh_for(lease)->what, err);
        }
    }
    /* Not ours any more: nothing was written, so what WAIT says does not matter. */
    if (st == DL_OK && ext) {
        st = dl_replicas_check(t, lease, &rep[1], "the refresh; on the master the lease was extended", err);
    }
    *r = ext;
    dl_reply_free(&rep[0]);
    dl_reply_free(&rep[1]);
    return st;
}

dl_status_t dl_lock_refresh(const dl_transport_t *t, dl_lease_t *lease, int64_t ttl_ms, int *extended,
                            dl_error_t *err)
{
    long long r = 0;
    int64_t sent_ns = dl_clock_now_ns();
    dl_status_t st;
    int native = dl_lock_native_set(t, lease);
    if (dl_replicas_wanted(lease)) {
        st = refresh_replicated(t, lease, ttl_ms, &r, err);
        native = 1;
    } else if (native) {
        native_refresh_t nr;
        dl_cmd_t cmd = native_refresh_cmd(&nr, lease, ttl_ms);
        dl_reply_t rep;
        int ext = 0, refused = 0;
        st = dl_call(t, 1, &cmd, &rep, DL_RETRY_ANY, err);
        if (st == DL_OK) st = native_refresh_result(t, &rep, &ext, &refused, err);
        dl_reply_free(&rep);
        r = ext;
        if (st == DL_OK && refused) {
            forget_native(t, DL_CAP_SET_IFEQ);   /* SET IFEQ refused: the script, from now on */
            native = 0;
        } else if (st == DL_OK && !ext && !dl_scripting_denied(t)) {
            /* Not ours (rare): the script tells another kind (DLKIND) from another owner. */
            st = dl_script_run_int(t, refresh_for(lease), lease, ttl_ms, DL_RETRY_ANY, &r, err);
        }
    }
    if (!native) st = dl_script_run_int(t, refresh_for(lease), lease, ttl_ms, DL_RETRY_ANY, &r, err);
    *extended = st == DL_OK && r == 1;
    if (*extended) {
        lease->ttl_ms = ttl_ms;
        lease->valid_until_ns = sent_ns + ttl_ms * 1000000;
    } else if (dl_status_is_transport_failure(st) && sent_ns + ttl_ms * 1000000 < lease->valid_until_ns) {
        /* A shorter ttl may have landed: the lease is valid only as long as that
         * (a key found gone after it must not count as removed by our release). */
        lease->valid_until_ns = sent_ns + ttl_ms * 1000000;
    }
    return st;
}

/* MULTI, the commands, EXEC: *out = EXEC's reply (an array of the commands'
 * replies, an element an error reply when that command failed). Read-only
 * here: sent again only when the connection broke. */
static dl_status_t transaction(const dl_transport_t *t, size_t n, const dl_cmd_t *cmds, dl_reply_t *out,
                               dl_error_t *err)
{
    const char *multi[1] = {"MULTI"}, *exec[1] = {"EXEC"};
    size_t multi_len[1] = {5}, exec_len[1] = {4};
    dl_cmd_t all[8];
    dl_reply_t r[8];
    dl_status_t st;
    size_t i;

    all[0].argc = 1; all[0].argv = multi; all[0].argvlen = multi_len;
    for (i = 0; i < n; i++) all[1 + i] = cmds[i];
    all[1 + n].argc = 1; all[1 + n].argv = exec; all[1 + n].argvlen = exec_len;
    memset(r, 0, sizeof(r));
    memset(out, 0, sizeof(*out));
    st = dl_call(t, n + 2, all, r, DL_RETRY_ON_DROP, err);
    for (i = 0; st == DL_OK && i <= n; i++) {
        if (r[i].type == DL_REPLY_ERROR) st = dl_server_error(t, &r[i], all[i].argv[0], err);
    }
    if (st == DL_OK && (r[n + 1].type != DL_REPLY_ARRAY || r[n + 1].elements != n)) st = dl_unexpected(t, "EXEC", err);
    if (st == DL_OK) {
        *out = r[n + 1];
        memset(&r[n + 1], 0, sizeof(r[n + 1]));
    }
    for (i = 0; i < n + 2; i++) dl_reply_free(&r[i]);
    return st;
}

/* Where scripting is denied: GET K and PTTL K in one transaction. */
static dl_status_t status_plain(const dl_transport_t *t, const dl_lease_t *lease, long long *r, dl_error_t *err)
{
    const char *get[2] = {"GET", lease->key}, *pttl[2] = {"PTTL", lease->key};
    size_t get_len[2] = {3, lease->key_len}, pttl_len[2] = {4, lease->key_len};
    dl_cmd_t cmds[2] = {{2, get, get_len}, {2, pttl, pttl_len}};
    dl_reply_t x;
    dl_status_t st = transaction(t, 2, cmds, &x, err);
    if (st == DL_OK) {
        const dl_reply_t *v = &x.element[0];
        int ours = v->type == DL_REPLY_STRING && v->len == lease->token_len &&
                   memcmp(v->str, lease->token, v->len) == 0;
        *r = ours && x.element[1].type == DL_REPLY_INTEGER ? x.element[1].integer : -3;
    }
    dl_reply_free(&x);
    return st;
}

dl_status_t dl_lock_status(const dl_transport_t *t, const dl_lease_t *lease, int64_t *pttl_ms, dl_error_t *err)
{
    long long r = -3;
    dl_status_t st = dl_scripting_denied(t) && dl_primitive_of(lease)->plain ? status_plain(t, lease, &r, err) :
        dl_script_run_int(t, dl_primitive_of(lease)->status, lease, 0, DL_RETRY_ON_DROP, &r, err);
    *pttl_ms = (st == DL_OK && r >= 0) ? r : -1;
    return st;
}

dl_status_t dl_lock_permits_used(const dl_transport_t *t, const dl_lease_t *lease, long long *holders, long long *used,
                                 dl_error_t *err)
{
    dl_reply_t r;
    dl_status_t st = dl_script_run(t, &DL_SEM_USAGE_SCRIPT, lease, 0, 0, 0, DL_RETRY_ON_DROP, &r, err);
    *holders = *used = 0;
    if (st == DL_OK) {
        if (r.type == DL_REPLY_ARRAY && r.elements == 2 && r.element[0].type == DL_REPLY_INTEGER &&
            r.element[1].type == DL_REPLY_INTEGER) {
            *holders = r.element[0].integer;
            *used = r.element[1].integer;
        } else {
            st = dl_unexpected(t, DL_SEM_USAGE_SCRIPT.what, err);
        }
    }
    dl_reply_free(&r);
    return st;
}

/* Runs a one-key command that answers an integer. */
static dl_status_t key_command(const dl_transport_t *t, const char *cmdname, const char *key, size_t key_len,
                               dl_retry_t retry, long long *result, dl_error_t *err)
{
    const char *argv[2] = {cmdname, key};
    size_t argvlen[2] = {strlen(cmdname), key_len};
    dl_cmd_t cmd;
    dl_reply_t r;
    dl_status_t st;

    cmd.argc = 2; cmd.argv = argv; cmd.argvlen = argvlen;
    st = dl_call(t, 1, &cmd, &r, retry, err);
    if (st == DL_OK) {
        if (r.type == DL_REPLY_INTEGER) *result = r.integer;
        else st = r.type == DL_REPLY_ERROR ? dl_server_error(t, &r, cmdname, err) : dl_unexpected(t, cmdname, err);
    }
    dl_reply_free(&r);
    return st;
}

dl_status_t dl_lock_exists(const dl_transport_t *t, const char *key, size_t key_len, int *exists, dl_error_t *err)
{
    long long r = 0;
    dl_status_t st = key_command(t, "EXISTS", key, key_len, DL_RETRY_ON_DROP, &r, err);
    *exists = r > 0;
    return st;
}

dl_status_t dl_lock_delete(const dl_transport_t *t, const char *key, size_t key_len, int *deleted, dl_error_t *err)
{
    long long r = 0;
    dl_status_t st = key_command(t, "DEL", key, key_len, DL_RETRY_NEVER, &r, err);
    *deleted = r > 0;
    return st;
}

/* DEL K R P: a mutex's or writer's key, the shared holders, a semaphore's permits (one slot). */
dl_status_t dl_lock_delete_holders(const dl_transport_t *t, const dl_lease_t *lease, int *deleted, dl_error_t *err)
{
    const char *argv[4] = {"DEL", lease->key, lease->readers_key, lease->permits_key};
    size_t argvlen[4] = {3, lease->key_len, lease->readers_key_len, lease->permits_key_len};
    dl_cmd_t cmd = {4, argv, argvlen};
    dl_reply_t r;
    dl_status_t st = dl_call(t, 1, &cmd, &r, DL_RETRY_NEVER, err);

    *deleted = 0;
    if (st == DL_OK) {
        if (r.type == DL_REPLY_INTEGER) *deleted = r.integer > 0;
        else st = r.type == DL_REPLY_ERROR ? dl_server_error(t, &r, "DEL", err) : dl_unexpected(t, "DEL", err);
    }
    dl_reply_free(&r);
    return st;
}

dl_status_t dl_lock_owner(const dl_transport_t *t, const char *key, size_t key_len, char **token, size_t *token_len,
                          dl_error_t *err)
{
    const char *argv[2] = {"GET", key};
    size_t argvlen[2] = {3, key_len};
    dl_cmd_t cmd = {2, argv, argvlen};
    dl_reply_t r;
    dl_status_t st = dl_call(t, 1, &cmd, &r, DL_RETRY_ON_DROP, err);

    *token = NULL;
    *token_len = 0;
    if (st == DL_OK) {
        if (r.type == DL_REPLY_STRING) {
            /* A kind's tag (dl_scripts.h): "\0W" + the exclusive holder's token; "\0R" (shared
             * holders only) and "\0S" + token (a semaphore's one holder) have no exclusive owner.
             * Any other value is a mutex's token (none starts with NUL), or a value distlock did not
             * write (status()'s "foreign"), returned as it is. */
            size_t skip = r.len >= 2 && r.str[0] == '\0' && r.str[1] == 'W' ? 2 : 0;
            if (!(r.len >= 2 && r.str[0] == '\0' && (r.str[1] == 'R' || r.str[1] == 'S'))) {
                memmove(r.str, r.str + skip, r.len - skip + 1);   /* with its NUL */
                *token = r.str;   /* take the reply's malloc'd copy */
                *token_len = r.len - skip;
                r.str = NULL;
                r.type = DL_REPLY_NIL;
            }
        } else if (r.type == DL_REPLY_ERROR && r.len >= 9 && memcmp(r.str, "WRONGTYPE", 9) == 0) {
            /* A ZSET (a semaphore's holders, or another library's lock) or another type: no exclusive owner. */
        } else if (r.type != DL_REPLY_NIL) {
            st = r.type == DL_REPLY_ERROR ? dl_server_error(t, &r, "GET", err) : dl_unexpected(t, "GET", err);
        }
    }
    dl_reply_free(&r);
    return st;
}

const char *dl_held_kind_name(dl_held_kind_t kind)
{
    switch (kind) {
    case DL_HELD_MUTEX: return "mutex";
    case DL_HELD_EXCLUSIVE: return "exclusive";
    case DL_HELD_SHARED: return "shared";
    case DL_HELD_SEMAPHORE: return "semaphore";
    case DL_HELD_FOREIGN: return "foreign";
    case DL_HELD_NONE: break;
    }
    return NULL;
}

/*
 * status() where scripting is denied: GET K, PTTL K, ZSCORE K "\0S", ZCARD Q
 * in one transaction. The kind from K's value as DL_SCRIPT_INSPECT tells it
 * (a ZSET K: a semaphore when its marker is there, else foreign); holders 1
 * (a semaphore's ZSET: its members but the marker); waiters: Q's entries,
 * live or not (nothing prunes them by time without a script).
 */
static dl_status_t inspect_plain(const dl_transport_t *t, const dl_lease_t *lease, dl_lock_info_t *info,
                                 dl_error_t *err)
{
    const char *get[2] = {"GET", lease->key}, *pttl[2] = {"PTTL", lease->key};
    const char *zs[3] = {"ZSCORE", lease->key, "\0S"}, *zc[2] = {"ZCARD", lease->waiters_key};
    const char *kc[2] = {"ZCARD", lease->key};
    size_t get_len[2] = {3, lease->key_len}, pttl_len[2] = {4, lease->key_len};
    size_t zs_len[3] = {6, lease->key_len, 2}, zc_len[2] = {5, lease->waiters_key_len}, kc_len[2] = {5, lease->key_len};
    dl_cmd_t cmds[5] = {{2, get, get_len}, {2, pttl, pttl_len}, {3, zs, zs_len}, {2, zc, zc_len}, {2, kc, kc_len}};
    dl_reply_t x;
    dl_status_t st = transaction(t, 5, cmds, &x, err);
    const dl_reply_t *v;

    if (st != DL_OK) {
        dl_reply_free(&x);
        return st;
    }
    v = &x.element[0];
    info->holders = 1;
    if (v->type == DL_REPLY_NIL) {
        info->kind = DL_HELD_NONE;
        info->holders = 0;
    } else if (v->type == DL_REPLY_STRING) {
        if (v->len >= 2 && v->str[0] == '\0') {
            info->kind = v->str[1] == 'W' ? DL_HELD_EXCLUSIVE : v->str[1] == 'R' ? DL_HELD_SHARED :
                         v->str[1] == 'S' ? DL_HELD_SEMAPHORE : DL_HELD_FOREIGN;
        } else {
            info->kind = v->len >= 1 && v->str[0] == '\0' ? DL_HELD_FOREIGN : DL_HELD_MUTEX;
        }
    } else if (x.element[2].type == DL_REPLY_STRING) {
        info->kind = DL_HELD_SEMAPHORE;
        info->holders = x.element[4].type == DL_REPLY_INTEGER ? x.element[4].integer - 1 : 0;
    } else {
        info->kind = DL_HELD_FOREIGN;
        if (x.element[4].type == DL_REPLY_INTEGER) info->holders = x.element[4].integer;
    }
    if (info->kind != DL_HELD_NONE && x.element[1].type == DL_REPLY_INTEGER) info->pttl_ms = x.element[1].integer;
    if (x.element[3].type == DL_REPLY_INTEGER) info->waiters = x.element[3].integer;
    dl_reply_free(&x);
    return DL_OK;
}

dl_status_t dl_lock_inspect(const dl_transport_t *t, const dl_lease_t *lease, dl_lock_info_t *info, dl_error_t *err)
{
    dl_reply_t r;
    size_t i;
    dl_status_t st;

    memset(info, 0, sizeof(*info));
    info->pttl_ms = -2;
    if (dl_scripting_denied(t)) return inspect_plain(t, lease, info, err);
    st = dl_script_run(t, &DL_INSPECT_SCRIPT, lease, 0, 0, 0, DL_RETRY_ON_DROP, &r, err);
    if (st != DL_OK) {
        dl_reply_free(&r);
        return st;
    }
    /* {kind, holders, permits, longest lease ms, waiters}: all integers, the kind one of dl_held_kind_t. */
    for (i = 0; r.type == DL_REPLY_ARRAY && r.elements == 5 && i < 5; i++) {
        if (r.element[i].type != DL_REPLY_INTEGER) break;
    }
    if (i < 5 || r.element[0].integer < DL_HELD_NONE || r.element[0].integer > DL_HELD_FOREIGN) {
        dl_reply_free(&r);
        return dl_unexpected(t, DL_INSPECT_SCRIPT.what, err);
    }
    info->kind = (dl_held_kind_t)r.element[0].integer;
    if (info->kind != DL_HELD_NONE) {
        info->holders = r.element[1].integer;
        info->permits = r.element[2].integer;
        info->pttl_ms = r.element[3].integer;
    }
    info->waiters = r.element[4].integer;
    dl_reply_free(&r);
    return DL_OK;
}
