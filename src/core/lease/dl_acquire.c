/*
 * dl_acquire — acquiring a lease: the attempts, and waiting without polling
 * (see dl_lock_acquire in dl_lock.h for the contract).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/dl_clock.h"
#include "dl_deadlock.h"
#include "dl_lock.h"
#include "../transport/dl_pending.h"
#include "../base/dl_proc.h"
#include "dl_replicas.h"
#include "dl_script.h"
#include "../base/dl_token.h"

/* The most commands a waiter writes behind its BLPOP (carried_step). */
#define DL_CARRIED_MAX 2

/*
 * min_replicas: judges the WAIT that went with a grant. Fewer acknowledgements
 * than asked (or WAIT refused): the grant is released with the same token (a
 * failover now could hand the name to someone else while we believed we held
 * it) and the error returned, *acquired = 0.
 */
static dl_status_t check_replicated(const dl_transport_t *t, dl_lease_t *lease, const dl_reply_t *wait_r,
                                    int *acquired, dl_error_t *err)
{
    dl_status_t st = dl_replicas_check(t, lease, wait_r, "the grant; it was released", err);
    if (st != DL_OK) {
        dl_error_t ignored;
        int released;
        dl_lock_release(t, lease, &released, &ignored);   /* native where the server has it */
        *acquired = 0;
    }
    return st;
}

/*
 * A SET ... NX GET that did not take K answered K's value, or WRONGTYPE when
 * K is not a string: tells whether another kind holds the name (docs/
 * primitives.md, "One name, one kind"). A ZSET K costs one probe for the
 * semaphore's marker; one without it is a foreign holder (symfony's
 * RedisStore): held, no error.
 */
static dl_status_t held_by(const dl_transport_t *t, const dl_lease_t *lease, const dl_reply_t *r, dl_error_t *err)
{
    if (r->type == DL_REPLY_STRING) {
        if (r->len >= 2 && r->str[0] == '\0' && r->str[1] == 'S') return dl_kind_error("semaphore", 9, lease, err);
        if (r->len >= 2 && r->str[0] == '\0' && (r->str[1] == 'W' || r->str[1] == 'R')) {
            return dl_kind_error("readers-writer", 14, lease, err);
        }
        return DL_OK;   /* another mutex holder (or a foreign string) */
    }
    if (r->type == DL_REPLY_ERROR && r->len >= 9 && memcmp(r->str, "WRONGTYPE", 9) == 0) {
        const char *argv[3] = {"ZSCORE", lease->key, "\0S"};
        size_t argvlen[3] = {6, lease->key_len, 2};
        dl_cmd_t cmd = {3, argv, argvlen};
        dl_reply_t z;
        dl_status_t st = dl_call(t, 1, &cmd, &z, DL_RETRY_ON_DROP, err);
        if (st == DL_OK && z.type == DL_REPLY_STRING) st = dl_kind_error("semaphore", 9, lease, err);
        dl_reply_free(&z);   /* nil, or an error (K is no ZSET either): a foreign holder */
        return st;
    }
    return r->type == DL_REPLY_ERROR ? dl_server_error(t, r, "SET", err) : dl_unexpected(t, "SET", err);
}

/*
 * The reply of one SET key token NX PX ttl [GET] attempt: with GET (the
 * server takes NX and GET together, DL_CAP_SET_GET) nil means granted and a
 * value tells who holds the name (held_by); without GET, OK means granted and
 * nil not. Anything else is the server's error or an unexpected reply.
 */
static dl_status_t read_set_reply(const dl_transport_t *t, const dl_lease_t *lease, const dl_reply_t *r,
                                  int with_get, int *acquired, dl_error_t *err)
{
    if (with_get) {
        *acquired = r->type == DL_REPLY_NIL;
        return *acquired ? DL_OK : held_by(t, lease, r, err);
    }
    *acquired = r->type == DL_REPLY_STATUS;
    if (*acquired || r->type == DL_REPLY_NIL) return DL_OK;
    return r->type == DL_REPLY_ERROR ? dl_server_error(t, r, "SET", err) : dl_unexpected(t, "SET", err);
}

/*
 * One attempt by SET key token NX PX ttl: the uncontended fast path (tryLock).
 * With min_replicas, WAIT goes in the same round trip. Where the server takes
 * NX and GET together (DL_CAP_SET_GET), GET rides along: nil means granted,
 * and a failed attempt learns the holder's kind from the same reply, at no
 * cost to the granted one. Elsewhere a failed try (not waiting: a waiting
 * caller's next attempt is the script, which tells it) asks the status
 * script, which answers DLKIND for another kind.
 */
static dl_status_t try_set(const dl_transport_t *t, dl_lease_t *lease, int waiting, int *acquired, dl_error_t *err)
{
    char ttlbuf[24];
    const char *argv[7] = {"SET", lease->key, lease->token, "NX", "PX", ttlbuf, "GET"};
    size_t argvlen[7] = {3, lease->key_len, lease->token_len, 2, 2, 0, 3};
    int with_get = t->caps && (t->caps(t->impl) & DL_CAP_SET_GET);
    dl_replicas_wait_t w;
    dl_cmd_t cmds[2];
    dl_reply_t r[2];
    size_t n = 1;
    dl_status_t st;

    argvlen[5] = dl_cmd_int(ttlbuf, lease->ttl_ms);
    cmds[0].argc = with_get ? 7 : 6; cmds[0].argv = argv; cmds[0].argvlen = argvlen;
    if (dl_replicas_wanted(lease)) cmds[n++] = dl_replicas_wait_cmd(&w, lease);
    memset(r, 0, sizeof(r));
    st = dl_call_timed(t, n, cmds, r, DL_RETRY_NEVER, dl_replicas_extra_us(lease), err);
    if (st == DL_OK) st = read_set_reply(t, lease, &r[0], with_get, acquired, err);
    if (st == DL_OK && !with_get && !*acquired && !waiting && !dl_scripting_denied(t)) {
        long long ignored;
        st = dl_script_run_int(t, &DL_STATUS_SCRIPT, lease, 0, DL_RETRY_ON_DROP, &ignored, err);
    }
    if (st == DL_OK && *acquired && n == 2) st = check_replicated(t, lease, &r[1], acquired, err);
    dl_reply_free(&r[0]);
    dl_reply_free(&r[1]);
    return st;
}

/*
 * Where scripting is denied (docs/decisions/0047-mutex-without-scripting.md):
 * one registration attempt of a waiter with plain commands, in one pipeline
 * and in this order: ZADD Q <now + window> token, PEXPIRE Q window, SET K
 * token NX PX ttl [GET], PTTL K. The entry goes in before the SET looks at K
 * (the no-lost-wake-up argument); the score is the client's clock (it only
 * orders entries: nothing prunes them by time without a script, and Q
 * expires a window after the last registration). Granted: ZREM Q token
 * follows (a second round trip, on this contended path only).
 */
static dl_status_t try_register_plain(const dl_transport_t *t, dl_lease_t *lease, int *acquired,
                                      int64_t *holder_pttl_ms, dl_error_t *err)
{
    char score[24], win[24], ttl[24];
    int with_get = (t->caps ? t->caps(t->impl) : 0) & DL_CAP_SET_GET ? 1 : 0;
    const char *multi[1] = {"MULTI"}, *exec[1] = {"EXEC"};
    size_t multi_len[1] = {5}, exec_len[1] = {4};
    const char *zadd[4] = {"ZADD", lease->waiters_key, score, lease->token};
    size_t zadd_len[4] = {4, lease->waiters_key_len, 0, lease->token_len};
    const char *pexp[3] = {"PEXPIRE", lease->waiters_key, win};
    size_t pexp_len[3] = {7, lease->waiters_key_len, 0};
    const char *set[7] = {"SET", lease->key, lease->token, "NX", "PX", ttl, "GET"};
    size_t set_len[7] = {3, lease->key_len, lease->token_len, 2, 2, 0, 3};
    const char *pttl[2] = {"PTTL", lease->key};
    size_t pttl_len[2] = {4, lease->key_len};
    /* ZADD and PEXPIRE in MULTI/EXEC (a transaction, not a script): the server
     * runs both or neither, so a connection cut between them cannot leave Q
     * without a TTL (the model found it: tests/model/mutex.pml, PIPE_CUT). */
    dl_cmd_t cmds[6] = {{1, multi, multi_len}, {4, zadd, zadd_len}, {3, pexp, pexp_len}, {1, exec, exec_len},
                        {with_get ? 7 : 6, set, set_len}, {2, pttl, pttl_len}};
    dl_reply_t r[6];
    dl_status_t st;
    size_t i;

    zadd_len[2] = dl_cmd_int(score, dl_clock_wall_ms() + DL_WAITERS_TTL_MS);
    pexp_len[2] = dl_cmd_int(win, DL_WAITERS_TTL_MS);
    set_len[5] = dl_cmd_int(ttl, lease->ttl_ms);
    memset(r, 0, sizeof(r));
    st = dl_call(t, 6, cmds, r, DL_RETRY_NEVER, err);
    if (st == DL_OK) {
        for (i = 0; i < 4 && st == DL_OK; i++) {
            if (r[i].type == DL_REPLY_ERROR) st = dl_server_error(t, &r[i], cmds[i].argv[0], err);
        }
        for (i = 0; st == DL_OK && r[3].type == DL_REPLY_ARRAY && i < r[3].elements; i++) {
            if (r[3].element[i].type == DL_REPLY_ERROR) st = dl_server_error(t, &r[3].element[i], cmds[1 + i].argv[0], err);
        }
        if (st == DL_OK && r[3].type != DL_REPLY_ARRAY) st = dl_unexpected(t, "EXEC", err);
        if (st == DL_OK) st = read_set_reply(t, lease, &r[4], with_get, acquired, err);
        if (st == DL_OK && !*acquired) *holder_pttl_ms = r[5].type == DL_REPLY_INTEGER ? r[5].integer : -1;
    }
    for (i = 0; i < 6; i++) dl_reply_free(&r[i]);
    if (st == DL_OK && *acquired) {
        const char *zrem[3] = {"ZREM", lease->waiters_key, lease->token};
        size_t zrem_len[3] = {4, lease->waiters_key_len, lease->token_len};
        dl_cmd_t c = {3, zrem, zrem_len};
        dl_error_t ignored;
        dl_call(t, 1, &c, &r[0], DL_RETRY_NEVER, &ignored);   /* best effort: a stale entry costs a spurious wake */
        dl_reply_free(&r[0]);
        lease->fence = 0;
    }
    return st;
}

/*
 * A waiter gives up, where scripting is denied: ZREM Q token, EXISTS K,
 * EXISTS Q; when the name is free and others wait, the plain wake (it passes
 * on a wake token our dropped BLPOP may have taken, as DL_SCRIPT_CANCEL does).
 * Best effort, within the call's bound and a grace.
 */
static dl_status_t cancel_plain(const dl_transport_t *t, const dl_lease_t *lease, int64_t grace_us, dl_error_t *err)
{
    const char *zrem[3] = {"ZREM", lease->waiters_key, lease->token};
    size_t zrem_len[3] = {4, lease->waiters_key_len, lease->token_len};
    const char *exk[2] = {"EXISTS", lease->key};
    size_t exk_len[2] = {6, lease->key_len};
    const char *exq[2] = {"EXISTS", lease->waiters_key};
    size_t exq_len[2] = {6, lease->waiters_key_len};
    dl_cmd_t cmds[3] = {{3, zrem, zrem_len}, {2, exk, exk_len}, {2, exq, exq_len}};
    dl_reply_t r[3];
    dl_call_bound_t saved;
    dl_status_t st;
    size_t i;

    memset(r, 0, sizeof(r));
    dl_call_bound_grace(&saved, grace_us);
    st = dl_call(t, 3, cmds, r, DL_RETRY_NEVER, err);
    if (st == DL_OK && r[1].type == DL_REPLY_INTEGER && r[1].integer == 0 && r[2].type == DL_REPLY_INTEGER &&
        r[2].integer > 0) {
        dl_lock_wake(t, lease);
    }
    dl_call_bound_end(&saved);
    for (i = 0; i < 3; i++) dl_reply_free(&r[i]);
    return st;
}

/* A waiter leaves: the primitive's cancel script, or the plain cancel where scripting is denied. */
static void cancel_quietly(const dl_transport_t *t, const dl_primitive_t *prim, const dl_lease_t *lease,
                           int force_eval)
{
    dl_error_t ignored;
    if (dl_scripting_denied(t) && prim->plain) cancel_plain(t, lease, DL_PENDING_GRACE_US, &ignored);
    else dl_script_run_or_defer(t, prim->cancel, lease, force_eval);
}

/*
 * The cancel of a wait whose blocking pop its deadline cut (issue 45.2). A
 * pop that runs to the deadline unanswered is what contention looks like,
 * and what a server that stopped answering looks like: the cancel after it
 * tells them apart (docs/decisions/0062-a-silent-server-at-the-end-of-a-wait.md).
 * It is given DL_SILENCE_GRACE_US (a healthy server
 * answers a fresh connection and the cancel in well under it, even under
 * valgrind); unanswered, the server is reported silent since last_answer_ns
 * (res->silent_us, res->silent_server), and err is the cancel's failure.
 */
static void cancel_after_cut(const dl_transport_t *t, const dl_primitive_t *prim, const dl_lease_t *lease,
                             int64_t last_answer_ns, dl_acquire_result_t *res, dl_error_t *err)
{
    int64_t sent_ns, now_ns;
    dl_status_t st;
    /* The server the wait was on, as the transport names it now: on Cluster
     * the slot's master ("... via host:port"), which the cancel's failure may
     * move to another node as the router looks for a way round. */
    snprintf(res->silent_list, sizeof(res->silent_list), "%s", t->endpoint ? t->endpoint : "?");
    sent_ns = dl_clock_now_ns();
    st = dl_scripting_denied(t) && prim->plain
             ? cancel_plain(t, lease, DL_SILENCE_GRACE_US, err)
             : dl_script_run_or_defer_within(t, prim->cancel, lease, 0, DL_SILENCE_GRACE_US, err);
    if (st == DL_OK || !dl_status_is_no_answer(st)) return;
    now_ns = dl_clock_now_ns();
    res->silent_us = (now_ns - last_answer_ns) / 1000;
    res->silent_probe_us = (now_ns - sent_ns) / 1000;
    res->silent_server = res->silent_list;
    res->silent_how = "the blocking wait ran to its deadline unanswered, and the cancel after it had no answer";
}

/* The undo of a grant that may have happened: natively where the server has a
 * compare-and-delete (dl_lock_undo_native), else the primitive's undo script (by EVAL). */
static void undo_quietly(const dl_transport_t *t, const dl_primitive_t *prim, const dl_lease_t *lease)
{
    if (!dl_lock_undo_native(t, lease)) dl_script_run_or_defer(t, prim->undo, lease, 1);
}

/*
 * Where the server has no native compare-and-delete and scripting is denied
 * (Redis 7.0 with -@scripting), a mutex cannot be released safely: refused.
 * A grant made by a connection's first call, before its HELLO told us, is
 * ended by an optimistic compare-and-delete: WATCH K, GET K, then MULTI, DEL
 * K, EXEC only when K held our token (EXEC does nothing if K changed since
 * the WATCH). Best effort; else it ends at its TTL.
 */
static void undo_watched(const dl_transport_t *t, const dl_lease_t *lease)
{
    const char *watch[2] = {"WATCH", lease->key}, *get[2] = {"GET", lease->key};
    size_t watch_len[2] = {5, lease->key_len}, get_len[2] = {3, lease->key_len};
    const char *multi[1] = {"MULTI"}, *del[2] = {"DEL", lease->key}, *exec[1] = {"EXEC"};
    size_t multi_len[1] = {5}, del_len[2] = {3, lease->key_len}, exec_len[1] = {4};
    const char *unwatch[1] = {"UNWATCH"};
    size_t unwatch_len[1] = {7};
    dl_cmd_t first[2] = {{2, watch, watch_len}, {2, get, get_len}};
    dl_cmd_t tx[3] = {{1, multi, multi_len}, {2, del, del_len}, {1, exec, exec_len}};
    dl_cmd_t un = {1, unwatch, unwatch_len};
    dl_reply_t r[3];
    dl_error_t ignored;
    size_t i;
    int ours;

    memset(r, 0, sizeof(r));
    if (dl_call(t, 2, first, r, DL_RETRY_NEVER, &ignored) != DL_OK) goto done;
    ours = r[1].type == DL_REPLY_STRING && r[1].len == lease->token_len &&
           memcmp(r[1].str, lease->token, lease->token_len) == 0;
    for (i = 0; i < 2; i++) dl_reply_free(&r[i]);
    if (ours) dl_call(t, 3, tx, r, DL_RETRY_NEVER, &ignored);
    else dl_call(t, 1, &un, r, DL_RETRY_NEVER, &ignored);
done:
    for (i = 0; i < 3; i++) dl_reply_free(&r[i]);
}

static dl_status_t cannot_release(const dl_transport_t *t, dl_error_t *err)
{
    return dl_error_set(err, DL_ERR_DENIED,
                        "Redis at %s does not let this user run scripts (NOPERM for EVALSHA, or no Lua) and has no "
                        "native compare-and-delete (DELEX: Redis >= 8.4, Valkey >= 9.2; DELIFEQ: Valkey >= 9.0, or "
                        "an ACL without +delex/+delifeq): a lock could not be released safely; grant +@scripting "
                        "(or +evalsha +eval), or use a server with DELEX or DELIFEQ",
                        t->endpoint ? t->endpoint : "?");
}

/* 1 when the connection knows scripting is denied and the lease's release has no native way. */
static int cannot_release_safely(const dl_transport_t *t, const dl_lease_t *lease)
{
    return dl_scripting_denied(t) && !dl_lock_native(t, lease);
}

/* What a lease needs that scripting-denied mode cannot give: NULL when it can be had. */
static const char *needs_scripting(const dl_lease_t *lease, const dl_primitive_t *prim)
{
    if (lease->kind == DL_LEASE_PERMITS) return "a semaphore";
    if (lease->kind == DL_LEASE_SHARED || lease->kind == DL_LEASE_WRITE) return "a readers-writer lock";
    if (lease->fair) return "fair mode";
    if (lease->fencing) return "fencing";
    return prim->plain ? NULL : "this lock";
}

/* Reads the reply r of an acquire script s that ran (not NOSCRIPT, not an
 * error reply: dl_script_run has turned those into statuses): *acquired and
 * lease->fence, or the holder's PTTL. */
static dl_status_t judge_attempt(const dl_transport_t *t, dl_lease_t *lease, const dl_script_t *s,
                                 const dl_reply_t *r, int *acquired, int64_t *holder_pttl_ms, dl_error_t *err)
{
    if (lease->kind == DL_LEASE_PERMITS && r->type == DL_REPLY_INTEGER && r->integer == 1) {
        *acquired = 1;   /* the semaphore's grant: no fencing token, no table to build */
        lease->fence = 0;
    } else if (r->type == DL_REPLY_ARRAY && r->elements == 2 && r->element[0].type == DL_REPLY_INTEGER &&
               r->element[1].type == DL_REPLY_INTEGER) {
        *acquired = r->element[0].integer == 1;
        if (*acquired) lease->fence = r->element[1].integer;
        else *holder_pttl_ms = r->element[1].integer;
    } else {
        return dl_unexpected(t, s->what, err);
    }
    return DL_OK;
}

/* One attempt by the kind's acquire script: {1, fence} (the semaphore's: 1)
 * when granted, {0, holder's PTTL} when not; when waiting, the script also registers us as a
 * waiter (so the holder's release wakes or hands over to us). */
static dl_status_t try_script(const dl_transport_t *t, dl_lease_t *lease, int waiting, int *acquired,
                              int64_t *holder_pttl_ms, dl_error_t *err)
{
    const dl_script_t *s = dl_primitive_of(lease)->acquire;
    dl_reply_t r, wait_r;
    dl_status_t st;
    memset(&wait_r, 0, sizeof(wait_r));
    if (dl_replicas_wanted(lease)) {
        dl_replicas_wait_t w;
        dl_cmd_t wait_cmd = dl_replicas_wait_cmd(&w, lease);
        st = dl_script_run_then(t, s, lease, lease->ttl_ms, waiting, DL_RETRY_NEVER, &wait_cmd,
                                dl_replicas_extra_us(lease), &r, &wait_r, err);
    } else {
        st = dl_script_run(t, s, lease, lease->ttl_ms, waiting, 0, DL_RETRY_NEVER, &r, err);
    }
    if (st == DL_OK) st = judge_attempt(t, lease, s, &r, acquired, holder_pttl_ms, err);
    if (st == DL_OK && *acquired && dl_replicas_wanted(lease)) st = check_replicated(t, lease, &wait_r, acquired, err);
    dl_reply_free(&r);
    dl_reply_free(&wait_r);
    return st;
}

/*
 * The deadlock check alone, by EVAL, after it answered NOSCRIPT behind a
 * registration that ran (an empty script cache: one round trip more, once).
 * Its failure is not the wait's: *r is left nil then.
 */
static void check_by_eval(const dl_transport_t *t, const dl_lease_t *lease, const dl_deadlock_opts_t *dd,
                          dl_reply_t *r)
{
    dl_deadlock_call_t dc;
    dl_cmd_t cmd;
    dl_error_t ignored;
    memset(r, 0, sizeof(*r));
    if (dl_deadlock_command(&dc, lease, dd, 1, &cmd, &ignored) != DL_OK) return;
    if (dl_call(t, 1, &cmd, r, DL_RETRY_NEVER, &ignored) != DL_OK) {
        dl_reply_free(r);
        memset(r, 0, sizeof(*r));
    }
    dl_deadlock_call_free(&dc);
}

/*
 * try_script for a waiter with the deadlock check (dl_deadlock.h) written
 * behind its registration, in the same round trip. The check runs after the
 * acquire script on the server and judges what it left: granted (the check
 * deletes our record), registered (it walks, then publishes or names the
 * cycle). A registration that closes a cycle returns DL_ERR_DEADLOCK, still
 * registered: the caller cancels.
 */
static dl_status_t try_script_checked(const dl_transport_t *t, dl_lease_t *lease, const dl_deadlock_opts_t *dd,
                                      int *acquired, int64_t *holder_pttl_ms, dl_error_t *err)
{
    const dl_script_t *s = dl_primitive_of(lease)->acquire;
    dl_script_call_t sc;
    dl_deadlock_call_t dc;
    dl_cmd_t cmds[2];
    dl_reply_t r[2];
    dl_status_t st;

    if ((st = dl_deadlock_command(&dc, lease, dd, 0, &cmds[1], err)) != DL_OK) return st;
    cmds[0] = dl_script_command(&sc, s, lease, lease->ttl_ms, 1, 0);
    memset(r, 0, sizeof(r));
    st = dl_call(t, 2, cmds, r, DL_RETRY_NEVER, err);
    if (st == DL_OK && dl_is_noscript(&r[0])) {
        /* The registration did not run (an empty script cache): both again by
         * EVAL. A check that ran judged a wait about to be made: it runs again. */
        int check_eval = dl_is_noscript(&r[1]);
        dl_reply_free(&r[0]);
        dl_reply_free(&r[1]);
        cmds[0] = dl_script_command(&sc, s, lease, lease->ttl_ms, 1, 1);
        if (check_eval) {
            dl_deadlock_call_free(&dc);
            if ((st = dl_deadlock_command(&dc, lease, dd, 1, &cmds[1], err)) != DL_OK) return st;
        }
        st = dl_call(t, 2, cmds, r, DL_RETRY_NEVER, err);
    } else if (st == DL_OK && dl_is_noscript(&r[1])) {
        dl_reply_free(&r[1]);
        check_by_eval(t, lease, dd, &r[1]);
    }
    if (st == DL_OK && r[0].type == DL_REPLY_ERROR) {
        st = dl_is_kind_error(&r[0]) ? DL_KIND_ERROR_OF(&r[0], lease, err) : dl_server_error(t, &r[0], s->what, err);
    }
    if (st == DL_OK) st = judge_attempt(t, lease, s, &r[0], acquired, holder_pttl_ms, err);
    if (st == DL_OK && !*acquired) st = dl_deadlock_judge(&r[1], dd, err);
    dl_reply_free(&r[0]);
    dl_reply_free(&r[1]);
    dl_deadlock_call_free(&dc);
    return st;
}

/*
 * BLPOP on wake lists until a deadline of the client (dl_script.h); *value is
 * the fencing token of a fair hand-over. behind (or NULL): a command written
 * behind the BLPOP in the same round trip. Redis keeps a blocked client's
 * later commands in its input buffer and runs them the moment the BLPOP
 * returns, so behind runs on the server right after the wake-up (or the
 * timeout), with no client round trip between (issue 30, "Hand-over at the
 * floor"); behind is n_behind commands, of which only the first one's reply is
 * kept (the others are its bookkeeping: *behind_rest_err = 1 when one of them
 * answered an error). It is written only when the block ends before the wait's
 * deadline: a call that may be abandoned at the deadline (the connection
 * dropped with the BLPOP in flight) carries nothing, so nothing of ours can
 * run on the server after we left (and the wait then ends anyway: a last
 * attempt would change nothing). *behind_sent tells whether it was written.
 * Its reply goes to *behind_r (caller frees) and *behind_got = 1; *behind_got
 * = 0 when the call failed: then behind may or may not have run. check_r
 * (or NULL): the last of behind is the deadlock check, whose reply goes
 * there (caller frees; nil when not got) rather than counting as bookkeeping.
 */
static dl_status_t block_on_then(const dl_transport_t *t, size_t n, const char *const *keys, const size_t *key_lens,
                                 int64_t block_us, int64_t deadline_ns, const dl_cmd_t *behind, size_t n_behind,
                                 int *behind_sent, dl_reply_t *behind_r, int *behind_got, int *behind_rest_err,
                                 dl_reply_t *check_r, int *popped, long long *value, int *abandoned, dl_error_t *err)
{
    char secs[32];
    const char *argv[2 + DL_BLOCK_KEYS_MAX];
    size_t argvlen[2 + DL_BLOCK_KEYS_MAX], i;
    dl_cmd_t cmds[1 + DL_CARRIED_MAX];
    dl_reply_t r[1 + DL_CARRIED_MAX];
    dl_status_t st;

    if (n < 1 || n > DL_BLOCK_KEYS_MAX) return dl_error_set(err, DL_ERR_ARG, "BLPOP on %zu keys", n);
    if (!behind || n_behind > DL_CARRIED_MAX) n_behind = 0;
    /* BLPOP takes decimal seconds (Redis >= 6); 0 would mean "forever". Rounded
     * up to whole ms, so a block meant to last to the deadline does. */
    {
        int64_t ms = (block_us + 999) / 1000;
        argv[0] = "BLPOP";
        argvlen[0] = 5;
        for (i = 0; i < n; i++) {
            argv[1 + i] = keys[i];
            argvlen[1 + i] = key_lens[i];
        }
        argv[1 + n] = secs;
        argvlen[1 + n] = (size_t)snprintf(secs, sizeof(secs), "%lld.%03lld", (long long)(ms / 1000),
                                          (long long)(ms % 1000));
    }
    cmds[0].argc = (int)(n + 2); cmds[0].argv = argv; cmds[0].argvlen = argvlen;
    memset(r, 0, sizeof(r));
    if (check_r) memset(check_r, 0, sizeof(*check_r));
    if (behind_got) *behind_got = 0;
    if (behind_rest_err) *behind_rest_err = 0;
    *popped = 0;
    *abandoned = 0;
    {
        int64_t to_deadline_us = (deadline_ns - dl_clock_now_ns()) / 1000;
        int64_t read_us = block_us + DL_BLOCK_REPLY_GRACE_US;
        int at_deadline = to_deadline_us <= read_us;
        if (at_deadline) {
            read_us = to_deadline_us > 0 ? to_deadline_us : 1;
            n_behind = 0;
        }
        for (i = 0; i < n_behind; i++) cmds[1 + i] = behind[i];
        if (behind_sent) *behind_sent = n_behind > 0;
        st = dl_pending_call(t, 1 + n_behind, cmds, r, DL_TIMEOUT_EXACT(read_us), err);
        if (st == DL_ERR_TIMEOUT && at_deadline) {
            *abandoned = 1;   /* the transport dropped the connection: the BLPOP ends with it */
            st = DL_OK;
        }
    }
    if (st == DL_OK && !*abandoned) {
        if (r[0].type == DL_REPLY_ARRAY && r[0].elements == 2 && r[0].element[1].type == DL_REPLY_STRING) {
            *popped = 1;
            *value = strtoll(r[0].element[1].str, NULL, 10);
        } else if (r[0].type == DL_REPLY_ERROR) {
            st = dl_server_error(t, &r[0], "BLPOP", err);
        } else if (r[0].type != DL_REPLY_NIL) {
            st = dl_unexpected(t, "BLPOP", err);
        }
        if (n_behind) {
            *behind_r = r[1];   /* ran after the BLPOP, whatever the BLPOP answered */
            *behind_got = 1;
            memset(&r[1], 0, sizeof(r[1]));
            if (check_r && n_behind >= 2) {
                *check_r = r[n_behind];
                memset(&r[n_behind], 0, sizeof(r[n_behind]));
            }
            for (i = 2; i <= n_behind; i++) {
                if (r[i].type == DL_REPLY_ERROR && behind_rest_err) *behind_rest_err = 1;
            }
        }
    }
    for (i = 0; i < 1 + DL_CARRIED_MAX; i++) dl_reply_free(&r[i]);
    return st;
}

dl_status_t dl_block_on_any(const dl_transport_t *t, size_t n, const char *const *keys, const size_t *key_lens,
                            int64_t block_us, int64_t deadline_ns, int *popped, long long *value, int *abandoned,
                            dl_error_t *err)
{
    return block_on_then(t, n, keys, key_lens, block_us, deadline_ns, NULL, 0, NULL, NULL, NULL, NULL, NULL, popped,
                         value, abandoned, err);
}

dl_status_t dl_block_on(const dl_transport_t *t, const char *key, size_t key_len, int64_t block_us,
                        int64_t deadline_ns, int *popped, long long *value, int *abandoned, dl_error_t *err)
{
    return dl_block_on_any(t, 1, &key, &key_len, block_us, deadline_ns, popped, value, abandoned, err);
}

/* How long to block after a failed attempt: until the holder's lease ends
 * (+1 ms, to wake after the expiry, not before), at most the time left and
 * DL_WAIT_BLOCK_CAP_US. A key without TTL (PTTL -1) is not ours to judge: the cap. */
int64_t dl_block_time_us(int64_t remaining_us, int64_t holder_pttl_ms)
{
    int64_t b = DL_WAIT_BLOCK_CAP_US;
    if (holder_pttl_ms >= 0 && holder_pttl_ms < DL_WAIT_BLOCK_CAP_US / 1000) b = holder_pttl_ms * 1000 + 1000;
    return b < remaining_us ? b : remaining_us;
}

/* Best effort, one attempt, errors ignored: entries left behind expire anyway.
 * Within the call's bound and at most a few ms past it; kept for the next
 * command when no connection can be had (issue 27.3: dl_script_run_or_defer). */
static void run_quietly(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease, int force_eval)
{
    dl_script_run_or_defer(t, s, lease, force_eval);
}

/*
 * A grant that came behind a BLPOP (a fair hand-over, or an attempt carried
 * behind the BLPOP) dates, for all the client knows, from when the BLPOP was
 * sent: the validity counts from then (since_ns), which is safe but loses up
 * to the time blocked. When that is more than a tenth of the TTL, one refresh
 * counts it from now (a short TTL after a long block would otherwise end
 * before the caller used it). Returns 0 when the refresh found the lease
 * gone; a refresh that fails keeps the conservative validity.
 */
static int tighten_validity(const dl_transport_t *t, dl_lease_t *lease, int64_t since_ns)
{
    dl_error_t ignored;
    int extended = 1;
    dl_status_t st;
    if (dl_clock_now_ns() - since_ns <= lease->ttl_ms * 100000) return 1;
    st = dl_lock_refresh(t, lease, lease->ttl_ms, &extended, &ignored);
    if (st == DL_OK) return extended;
    /* An answer that says "not ours" (another kind, a server error) is one; a refresh
     * lost on the way keeps the conservative validity while it lasts. */
    if (!dl_status_is_transport_failure(st)) return 0;
    return lease->valid_until_ns > dl_clock_now_ns();
}

/*
 * A fair hand-over granted min(ttl, claim): extend to the ttl when longer.
 * carried_extended: the reply of the refresh written behind the BLPOP (1
 * extended, 0 not), or -1 when none ran: then the refresh is made here.
 * anchor_ns: when our last attempt was sent. The releaser may have handed
 * over any time after that attempt ran, even before we sent the BLPOP, so
 * the claim counts from then; a refresh behind the BLPOP ran after the pop,
 * so its TTL counts from the BLPOP's send time (blocked_ns).
 */
static dl_status_t take_handover(const dl_transport_t *t, dl_lease_t *lease, int64_t anchor_ns, int64_t blocked_ns,
                                 long long fence, int carried_extended, int *acquired, dl_error_t *err)
{
    int64_t claim_ms = lease->ttl_ms < DL_FAIR_CLAIM_MS ? lease->ttl_ms : DL_FAIR_CLAIM_MS;
    int extended = 1;
    lease->fence = fence;
    lease->valid_until_ns = anchor_ns + claim_ms * 1000000;
    if (lease->ttl_ms > claim_ms && carried_extended == 1) {
        lease->valid_until_ns = blocked_ns + lease->ttl_ms * 1000000;   /* extended on the server after the pop */
    } else if (lease->ttl_ms > claim_ms) {
        dl_status_t st = dl_lock_refresh(t, lease, lease->ttl_ms, &extended, err);
        if (st != DL_OK) {
            run_quietly(t, &DL_FAIR_CANCEL_SCRIPT, lease, 1);  /* pass it on rather than sit on it */
            return st;
        }
        *acquired = extended;
        return DL_OK;   /* the refresh counted the validity from its own send time */
    }
    *acquired = tighten_validity(t, lease, lease->ttl_ms > claim_ms ? blocked_ns : anchor_ns);
    if (!*acquired) {
        run_quietly(t, &DL_FAIR_CANCEL_SCRIPT, lease, 1);   /* pass on what may be left of it */
        lease->valid_until_ns = 0;
        lease->fence = 0;
    }
    return DL_OK;
}

/*
 * What a waiter writes behind its BLPOP (block_on_then), into *c: default
 * mode, the attempt that follows every wake-up; fair mode, the refresh to the
 * ttl that a hand-over (granted for the claim) needs when the ttl is longer.
 * The mutex without fencing attempts with plain commands, SET K token NX PX
 * ttl and ZREM Q token (leaving the waiters, as the acquire script does when
 * it grants), not the script: a script call costs the server several times
 * what the two commands do, on the path of every hand-over
 * (docs/decisions/0021-plain-commands-and-a-slimmer-release-on-the-hand-over.md).
 * A SET that does not take the name has unregistered us all the same: the
 * script attempt follows at once (c->plain), with its deadlock check. Not on a Cluster: while the
 * name's slot migrates, the source node answers the BLPOP with ASK (its wake
 * list is absent) but runs the SET
 * and the ZREM (its K and Q are there), and the BLPOP, sent again to the
 * target, would block with us out of the waiters; the script is refused
 * there (TRYAGAIN: some of its keys are missing) and leaves us in. Returns
 * the number of commands, 0 for none (min_replicas, whose WAIT belongs to a
 * grant's own round trip; a fair ttl within the claim).
 */
typedef struct dl_carried {
    dl_script_call_t sc;
    dl_deadlock_call_t dc;   /* the deadlock check behind a registration by script (checked) */
    int checked;
    const char *set_argv[6], *zrem_argv[3];
    size_t set_len[6], zrem_len[3];
    char ttl[24];
    dl_cmd_t cmds[DL_CARRIED_MAX];
    int plain;
} dl_carried_t;

static size_t carried_step(dl_carried_t *c, const dl_transport_t *t, const dl_primitive_t *prim,
                           const dl_lease_t *lease, const dl_deadlock_opts_t *dd)
{
    dl_error_t ignored;
    c->plain = 0;
    c->checked = 0;
    if (dl_replicas_wanted(lease)) return 0;
    if (prim->plain && !lease->fencing && !(t->caps && (t->caps(t->impl) & DL_CAP_CLUSTER))) {
        c->set_argv[0] = "SET"; c->set_len[0] = 3;
        c->set_argv[1] = lease->key; c->set_len[1] = lease->key_len;
        c->set_argv[2] = lease->token; c->set_len[2] = lease->token_len;
        c->set_argv[3] = "NX"; c->set_len[3] = 2;
        c->set_argv[4] = "PX"; c->set_len[4] = 2;
        c->set_argv[5] = c->ttl; c->set_len[5] = dl_cmd_int(c->ttl, lease->ttl_ms);
        c->zrem_argv[0] = "ZREM"; c->zrem_len[0] = 4;
        c->zrem_argv[1] = lease->waiters_key; c->zrem_len[1] = lease->waiters_key_len;
        c->zrem_argv[2] = lease->token; c->zrem_len[2] = lease->token_len;
        c->cmds[0].argc = 6; c->cmds[0].argv = c->set_argv; c->cmds[0].argvlen = c->set_len;
        c->cmds[1].argc = 3; c->cmds[1].argv = c->zrem_argv; c->cmds[1].argvlen = c->zrem_len;
        c->plain = 1;
        return 2;
    }
    if (dl_scripting_denied(t)) return 0;   /* the next attempt, after the block, is the plain registration */
    if (prim->wake != DL_WAKE_OWN) {
        c->cmds[0] = dl_script_command(&c->sc, prim->acquire, lease, lease->ttl_ms, 1, 0);
        /* A re-registration by script (fencing) carries its deadlock check: a
         * record not published again would expire under a live wait. */
        if (dd && dl_deadlock_command(&c->dc, lease, dd, 0, &c->cmds[1], &ignored) == DL_OK) {
            c->checked = 1;
            return 2;
        }
    } else if (lease->ttl_ms > DL_FAIR_CLAIM_MS) c->cmds[0] = dl_script_command(&c->sc, prim->refresh, lease, lease->ttl_ms, 0, 0);
    else return 0;
    return 1;
}

/* The reply of a carried SET NX PX: granted (OK) or not (nil). */
static dl_status_t judge_carried_set(const dl_transport_t *t, const dl_reply_t *r, int *acquired, dl_error_t *err)
{
    if (r->type == DL_REPLY_STATUS) *acquired = 1;
    else if (r->type == DL_REPLY_NIL) *acquired = 0;
    else return r->type == DL_REPLY_ERROR ? dl_server_error(t, r, "SET", err) : dl_unexpected(t, "SET", err);
    return DL_OK;
}

/* The reply of an acquire attempt carried behind a BLPOP (not NOSCRIPT). */
static dl_status_t judge_carried(const dl_transport_t *t, dl_lease_t *lease, const dl_script_t *s,
                                 const dl_reply_t *r, int *acquired, int64_t *holder_pttl_ms, dl_error_t *err)
{
    if (r->type == DL_REPLY_ERROR) {
        return dl_is_kind_error(r) ? DL_KIND_ERROR_OF(r, lease, err) : dl_server_error(t, r, s->what, err);
    }
    return judge_attempt(t, lease, s, r, acquired, holder_pttl_ms, err);
}

dl_status_t dl_lock_acquire(const dl_transport_t *t, dl_lease_t *lease, const dl_acquire_opts_t *opts,
                            dl_acquire_result_t *res, dl_error_t *err)
{
    int64_t start_ns = dl_clock_now_ns();
    int64_t deadline_ns = start_ns + opts->wait_us * 1000;
    int waiting = opts->wait_us > 0;
    /* The first attempt is a plain SET NX PX (no script), as cheap as tryLock():
     * most locks are free. Only a name found taken needs the script, which also
     * registers the waiter. Fencing needs the script's INCR, and fair mode its
     * queue (a newcomer never passes queued waiters), from the first attempt. */
    const dl_primitive_t *prim = dl_primitive_of(lease);
    int by_script = lease->fencing || !prim->plain;
    int registered = 0;   /* a script attempt entered us as a waiter: cancel when giving up */
    int can_block = 1;
    int carried = 0;            /* the attempt after the last BLPOP ran behind it: carried_r is its reply */
    int carried_plain = 0;      /* ... and it was the plain SET (carried_step) */
    int script_now = 0;         /* a carried SET did not take the name: the script next, at once */
    int reconnected = 0;        /* a connection that broke under a carried BLPOP was replaced once */
    dl_reply_t carried_r;
    dl_reply_t carried_check;   /* ... and the deadlock check's reply behind it (carried_checked) */
    int carried_checked = 0;
    int64_t carried_since_ns = 0;
    int64_t last_sent_ns = 0;    /* when the last attempt was sent (a carried one: its BLPOP) */
    int64_t last_answer_ns = start_ns;   /* when the server last answered (a wait only: cancel_after_cut) */
    unsigned backoff_attempt = 0;
    dl_status_t st = DL_OK;

    /* The deadlock check rides on a waiter's registrations by script (dl_deadlock.h). */
    const dl_deadlock_opts_t *dd = waiting && opts->deadlock && !dl_replicas_wanted(lease) &&
                                           dl_deadlock_applies(t, lease, opts->deadlock)
                                       ? opts->deadlock
                                       : NULL;

    memset(res, 0, sizeof(*res));
    if (lease->kind == DL_LEASE_PERMITS &&
        (lease->fair || lease->fencing || lease->limit < 1 || lease->limit > DL_PERMITS_MAX || lease->permits < 1 ||
         lease->permits > lease->limit)) {
        return dl_error_set(err, DL_ERR_ARG, "a semaphore lease takes 1..limit permits of a limit of 1..%lld, "
                                             "without fair mode or fencing", DL_PERMITS_MAX);
    }
    if ((lease->kind == DL_LEASE_SHARED && (lease->fair || lease->fencing)) ||
        (lease->kind == DL_LEASE_WRITE && lease->fair)) {
        return dl_error_set(err, DL_ERR_ARG, "shared locking has no fair mode, and no fencing for shared leases");
    }
    if (dl_scripting_denied(t)) {
        /* Known before anything is sent (docs/decisions/0047-mutex-without-scripting.md). */
        const char *what = needs_scripting(lease, prim);
        if (what) return dl_denied(t, what, err);
        if (cannot_release_safely(t, lease)) return cannot_release(t, err);
    }
    for (;;) {
        int64_t sent_ns = dl_clock_now_ns(), holder_pttl_ms = -1, remaining_us;
        int acquired = 0, was_carried = carried;

        if (carried) {
            /* Its grant may date from the BLPOP's send time, for all we know. */
            sent_ns = carried_since_ns;
            st = carried_plain ? judge_carried_set(t, &carried_r, &acquired, err)
                               : judge_carried(t, lease, prim->acquire, &carried_r, &acquired, &holder_pttl_ms, err);
            script_now = carried_plain && st == DL_OK && !acquired;
            if (carried_checked && st == DL_OK && !acquired) {
                if (dl_is_noscript(&carried_check)) {
                    dl_reply_free(&carried_check);
                    check_by_eval(t, lease, dd, &carried_check);
                }
                st = dl_deadlock_judge(&carried_check, dd, err);
            }
            if (carried_checked) dl_reply_free(&carried_check);
            carried_checked = 0;
            dl_reply_free(&carried_r);
            carried = 0;
        } else if (by_script && dl_scripting_denied(t) && prim->plain && !lease->fencing) {
            st = try_register_plain(t, lease, &acquired, &holder_pttl_ms, err);
        } else {
            /* The check rides on registrations, never on a first attempt: under
             * fencing that is the script, which an uncontended lock() sends. */
            st = by_script && dd && res->attempts > 0
                     ? try_script_checked(t, lease, dd, &acquired, &holder_pttl_ms, err)
                 : by_script     ? try_script(t, lease, waiting, &acquired, &holder_pttl_ms, err)
                                 : try_set(t, lease, waiting, &acquired, err);
            /* The first call on a connection learned only now (its HELLO rode
             * with the SET) that this lock could not be released: end the grant. */
            if (st == DL_OK && acquired && cannot_release_safely(t, lease)) {
                undo_watched(t, lease);
                acquired = 0;
                st = cannot_release(t, err);
            }
        }
        res->attempts++;
        if (st == DL_OK && waiting) last_answer_ns = dl_clock_now_ns();
        last_sent_ns = sent_ns;
        registered |= by_script && waiting;
        if (st != DL_OK) {
            if (dl_status_is_transport_failure(st)) {
                /* Ambiguous: the grant may have happened. Undo it with the same token:
                 * natively, or by EVAL (the script cache may be empty after a restart
                 * or failover). After a timeout the call ends here, within the bound its
                 * message names: the undo is written, not waited for (issue 37.2). */
                if (st == DL_ERR_TIMEOUT) dl_call_bound_close();
                undo_quietly(t, prim, lease);
            } else if ((st == DL_ERR_KIND || st == DL_ERR_DEADLOCK) && registered) {
                /* Another kind took the name while we waited; or our wait closed a
                 * cycle of waits, which only leaving breaks (the victim waits for nothing). */
                cancel_quietly(t, prim, lease, 0);
            }
            break;
        }
        if (acquired) {
            /* Validity counts from the send time: the lease may have started then. */
            lease->valid_until_ns = sent_ns + lease->ttl_ms * 1000000;
            if (!was_carried || tighten_validity(t, lease, sent_ns)) {
                res->acquired = 1;
                break;
            }
            /* Gone before the refresh could extend it, or its validity spent with the
             * refresh lost: end what may be left of it (by token), attempt again at once. */
            undo_quietly(t, prim, lease);
            lease->valid_until_ns = 0;
            lease->fence = 0;
            continue;
        }
        res->contended++;
        remaining_us = (deadline_ns - dl_clock_now_ns()) / 1000;
        if (remaining_us <= 0 || (opts->interrupted && opts->interrupted(opts->interrupt_arg))) {
            if (registered) cancel_quietly(t, prim, lease, 0);  /* leave nothing behind */
            if (remaining_us > 0) st = dl_error_set(err, DL_ERR_INTERRUPTED, "the wait was interrupted");
            break;
        }
        if (!by_script || script_now) {
            by_script = 1;   /* the SET found it taken: the script next, at once (it registers us) */
            script_now = 0;
            continue;
        }
        if (can_block) {
            int64_t block_us = dl_block_time_us(remaining_us, holder_pttl_ms), blocked_ns = dl_clock_now_ns();
            int popped = 0, abandoned = 0, behind_sent = 0, behind_got = 0, behind_rest_err = 0, carried_extended = -1;
            long long value = 0;
            size_t wake_len;
            const char *wake = dl_primitive_wake_key(lease, &wake_len);
            dl_carried_t behind;
            size_t n_behind;
            dl_reply_t behind_r, check_r;
            if (block_us < 1000) {
                dl_clock_sleep_us(block_us);  /* BLPOP counts whole milliseconds */
                continue;
            }
            n_behind = carried_step(&behind, t, prim, lease, dd);
            st = block_on_then(t, 1, &wake, &wake_len, block_us, deadline_ns, behind.cmds, n_behind, &behind_sent,
                               &behind_r, &behind_got, &behind_rest_err, behind.checked ? &check_r : NULL, &popped,
                               &value, &abandoned, err);
            if (behind.checked) dl_deadlock_call_free(&behind.dc);
            /* The ZREM behind a carried SET refused (nothing known can cause it):
             * leave the waiters by the cancel, so our entry wakes nobody for us. */
            if (behind_rest_err) cancel_quietly(t, prim, lease, 0);
            if (behind_got && prim->wake == DL_WAKE_OWN) {
                if (behind_r.type == DL_REPLY_INTEGER) carried_extended = behind_r.integer == 1;
                dl_reply_free(&behind_r);   /* not popped: a 0, or a hand-over the next attempt finds */
            } else if (behind_got && dl_is_noscript(&behind_r)) {
                dl_reply_free(&behind_r);   /* not run (empty script cache): the next attempt sends the text */
            } else if (behind_got) {
                carried = 1;
                carried_plain = behind.plain;
                carried_r = behind_r;
                carried_since_ns = blocked_ns;
                if (behind.checked) {
                    carried_check = check_r;   /* judged with the attempt it followed */
                    carried_checked = 1;
                    memset(&check_r, 0, sizeof(check_r));
                }
            }
            if (behind.checked) dl_reply_free(&check_r);
            if (st == DL_OK && prim->wake == DL_WAKE_OWN && popped) {
                st = take_handover(t, lease, last_sent_ns, blocked_ns, value, carried_extended, &res->acquired, err);
                if (st != DL_OK || res->acquired) break;
                continue;
            }
            if (st == DL_OK && !abandoned) last_answer_ns = dl_clock_now_ns();
            if (st == DL_OK) {
                /* Woken, or the carried attempt to judge: at once. Not woken, nothing
                 * carried, and the block covered the rest of the wait (or the
                 * deadline ended it, the connection dropped: nothing was carried
                 * then): nothing changed that another attempt could see; give up.
                 * The cancel passes on a wake-up or a hand-over that came as we left.
                 * Woken with nothing carried (a block that ran to the deadline
                 * carries nothing) and the deadline passed: the call's bound is
                 * spent, so no attempt can be asked any more; leave, passing the
                 * wake-up on, and the wait ends as timed out (tests/deadlock found
                 * a ConnectionException "was not asked" here). */
                if (!carried && !popped && (abandoned || block_us >= remaining_us)) {
                    if (abandoned) cancel_after_cut(t, prim, lease, last_answer_ns, res, err);
                    else cancel_quietly(t, prim, lease, 0);
                    break;
                }
                if (!carried && popped && dl_clock_now_ns() >= deadline_ns) {
                    cancel_quietly(t, prim, lease, 0);
                    break;
                }
                continue;
            }
            if (st != DL_ERR_SERVER) {
                /* The connection broke while blocked: a wake-up or a fair hand-over
                 * may have been lost with it, or a grant by the carried attempt;
                 * the undo ends that, the cancel passes the rest on. */
                if (carried) {   /* a reply came with a BLPOP reply the call could not take: not judged */
                    dl_reply_free(&carried_r);
                    carried = 0;
                }
                if (carried_checked) {
                    dl_reply_free(&carried_check);
                    carried_checked = 0;
                }
                if (behind_sent && prim->wake != DL_WAKE_OWN) undo_quietly(t, prim, lease);
                cancel_quietly(t, prim, lease, 1);
                if (behind_sent && !reconnected) {
                    /* A master demoted to a replica (failover) answers its blocked
                     * clients UNBLOCKED and closes them before it reads what follows
                     * (Redis: disconnectAllBlockedClients), so the step behind the
                     * BLPOP never ran and the connection is gone. The BLPOP alone read
                     * that error and went on; so does this wait, once: a fresh attempt
                     * on a new connection, which finds the new master. */
                    reconnected = 1;
                    st = DL_OK;
                    continue;
                }
                break;
            }
            can_block = 0;  /* BLPOP refused: poll with backoff for the rest of this wait */
            st = DL_OK;
            if (carried) continue;   /* the attempt behind the refused BLPOP ran: judge it first */
        }
        {
            int64_t sleep_us = dl_wait_sleep_us(dl_backoff_delay_us(&opts->backoff, backoff_attempt++),
                                                dl_random_upto(opts->backoff.jitter_us), remaining_us, holder_pttl_ms);
            /* A fair waiter must show a sign of life (its next attempt) within the
             * liveness window, or it is skipped and loses its place. */
            if (lease->fair && sleep_us > DL_FAIR_ALIVE_MS * 1000 / 3) sleep_us = DL_FAIR_ALIVE_MS * 1000 / 3;
            dl_clock_sleep_us(sleep_us);
        }
    }
    if (res->acquired) {
        lease->pid = dl_proc_pid();
        lease->contended = res->contended > 0;
    }
    res->waited_us = (dl_clock_now_ns() - start_ns) / 1000;
    return st;
}
