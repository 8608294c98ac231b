#include "dl_script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/dl_clock.h"
#include "../transport/dl_pending.h"
#include "dl_scripts.h"

const dl_script_t DL_ACQUIRE_SCRIPT = {DL_SCRIPT_ACQUIRE, DL_SCRIPT_ACQUIRE_SHA, "the acquire script", DL_SHAPE_ACQUIRE};
const dl_script_t DL_RELEASE_SCRIPT = {DL_SCRIPT_RELEASE, DL_SCRIPT_RELEASE_SHA, "the release script", DL_SHAPE_RELEASE};
const dl_script_t DL_CANCEL_SCRIPT = {DL_SCRIPT_CANCEL, DL_SCRIPT_CANCEL_SHA, "the cancel script", DL_SHAPE_CANCEL};
const dl_script_t DL_FAIR_ACQUIRE_SCRIPT = {DL_SCRIPT_FAIR_ACQUIRE, DL_SCRIPT_FAIR_ACQUIRE_SHA, "the fair acquire script",
                                            DL_SHAPE_FAIR_ACQUIRE};
const dl_script_t DL_FAIR_RELEASE_SCRIPT = {DL_SCRIPT_FAIR_RELEASE, DL_SCRIPT_FAIR_RELEASE_SHA, "the fair release script",
                                            DL_SHAPE_FAIR_RELEASE};
const dl_script_t DL_FAIR_CANCEL_SCRIPT = {DL_SCRIPT_FAIR_RELEASE, DL_SCRIPT_FAIR_RELEASE_SHA, "the fair cancel script",
                                           DL_SHAPE_FAIR_CANCEL};
const dl_script_t DL_REFRESH_SCRIPT = {DL_SCRIPT_REFRESH, DL_SCRIPT_REFRESH_SHA, "the refresh script", DL_SHAPE_REFRESH};
const dl_script_t DL_STATUS_SCRIPT = {DL_SCRIPT_STATUS, DL_SCRIPT_STATUS_SHA, "the status script", DL_SHAPE_STATUS};
const dl_script_t DL_UNDO_SCRIPT = {DL_SCRIPT_UNDO, DL_SCRIPT_UNDO_SHA, "the undo script", DL_SHAPE_STATUS};
const dl_script_t DL_WAKE_SCRIPT = {DL_SCRIPT_WAKE, DL_SCRIPT_WAKE_SHA, "the wake script", DL_SHAPE_WAKE};

static const dl_script_t SEM_ACQUIRE = {DL_SCRIPT_SEM_ACQUIRE, DL_SCRIPT_SEM_ACQUIRE_SHA, "the semaphore acquire script",
                                        DL_SHAPE_SEM_ACQUIRE};
static const dl_script_t SEM_RELEASE = {DL_SCRIPT_SEM_RELEASE, DL_SCRIPT_SEM_RELEASE_SHA, "the semaphore release script",
                                        DL_SHAPE_SEM_RELEASE};
static const dl_script_t SEM_CANCEL = {DL_SCRIPT_SEM_CANCEL, DL_SCRIPT_SEM_CANCEL_SHA, "the semaphore cancel script",
                                       DL_SHAPE_CANCEL};
static const dl_script_t SEM_REFRESH = {DL_SCRIPT_SEM_REFRESH, DL_SCRIPT_SEM_REFRESH_SHA, "the semaphore refresh script",
                                        DL_SHAPE_SEM_REFRESH};
static const dl_script_t SEM_STATUS = {DL_SCRIPT_SEM_STATUS, DL_SCRIPT_SEM_STATUS_SHA, "the semaphore status script",
                                       DL_SHAPE_STATUS};
const dl_script_t DL_SEM_USAGE_SCRIPT = {DL_SCRIPT_SEM_USAGE, DL_SCRIPT_SEM_USAGE_SHA, "the semaphore usage script",
                                         DL_SHAPE_SEM_USAGE};
const dl_script_t DL_INSPECT_SCRIPT = {DL_SCRIPT_INSPECT, DL_SCRIPT_INSPECT_SHA, "the inspect script", DL_SHAPE_INSPECT};

#define RW_SCRIPT(name, what) {DL_SCRIPT_RW_##name, DL_SCRIPT_RW_##name##_SHA, what, DL_SHAPE_RW}
static const dl_script_t RW_WRITE_ACQUIRE = RW_SCRIPT(WRITE_ACQUIRE, "the exclusive acquire script");
static const dl_script_t RW_WRITE_RELEASE = RW_SCRIPT(WRITE_RELEASE, "the exclusive release script");
static const dl_script_t RW_WRITE_CANCEL = RW_SCRIPT(WRITE_CANCEL, "the exclusive cancel script");
static const dl_script_t RW_WRITE_REFRESH = {DL_SCRIPT_RW_WRITE_REFRESH, DL_SCRIPT_RW_WRITE_REFRESH_SHA,
                                             "the exclusive refresh script", DL_SHAPE_REFRESH};
static const dl_script_t RW_WRITE_STATUS = {DL_SCRIPT_RW_WRITE_STATUS, DL_SCRIPT_RW_WRITE_STATUS_SHA,
                                            "the exclusive status script", DL_SHAPE_STATUS};
static const dl_script_t RW_SHARED_ACQUIRE = RW_SCRIPT(SHARED_ACQUIRE, "the shared acquire script");
static const dl_script_t RW_SHARED_RELEASE = RW_SCRIPT(SHARED_RELEASE, "the shared release script");
static const dl_script_t RW_SHARED_CANCEL = RW_SCRIPT(SHARED_CANCEL, "the shared cancel script");
static const dl_script_t RW_SHARED_REFRESH = RW_SCRIPT(SHARED_REFRESH, "the shared refresh script");
static const dl_script_t RW_SHARED_STATUS = RW_SCRIPT(SHARED_STATUS, "the shared status script");
const dl_script_t DL_RW_PROMOTE_SCRIPT = RW_SCRIPT(PROMOTE, "the promotion script");
const dl_script_t DL_RW_DEMOTE_SCRIPT = RW_SCRIPT(DEMOTE, "the demotion script");

static const dl_primitive_t EXCLUSIVE = {"exclusive", &DL_ACQUIRE_SCRIPT, &DL_RELEASE_SCRIPT, &DL_CANCEL_SCRIPT,
                                         &DL_RELEASE_SCRIPT, &DL_REFRESH_SCRIPT, &DL_STATUS_SCRIPT, DL_WAKE_COMMON, 1};
static const dl_primitive_t FAIR = {"fair", &DL_FAIR_ACQUIRE_SCRIPT, &DL_FAIR_RELEASE_SCRIPT, &DL_FAIR_CANCEL_SCRIPT,
                                    &DL_FAIR_CANCEL_SCRIPT, &DL_REFRESH_SCRIPT, &DL_STATUS_SCRIPT, DL_WAKE_OWN, 0};
static const dl_primitive_t PERMITS = {"permits", &SEM_ACQUIRE, &SEM_RELEASE, &SEM_CANCEL, &SEM_RELEASE, &SEM_REFRESH,
                                       &SEM_STATUS, DL_WAKE_COMMON, 0};
static const dl_primitive_t SHARED = {"shared", &RW_SHARED_ACQUIRE, &RW_SHARED_RELEASE, &RW_SHARED_CANCEL,
                                      &RW_SHARED_RELEASE, &RW_SHARED_REFRESH, &RW_SHARED_STATUS, DL_WAKE_SHARED, 0};
static const dl_primitive_t WRITE = {"write", &RW_WRITE_ACQUIRE, &RW_WRITE_RELEASE, &RW_WRITE_CANCEL, &RW_WRITE_RELEASE,
                                     &RW_WRITE_REFRESH, &RW_WRITE_STATUS, DL_WAKE_COMMON, 0};

const dl_primitive_t *dl_primitive_of(const dl_lease_t *lease)
{
    switch (lease->kind) {
    case DL_LEASE_PERMITS: return &PERMITS;
    case DL_LEASE_SHARED: return &SHARED;
    case DL_LEASE_WRITE: return &WRITE;
    case DL_LEASE_EXCLUSIVE: break;
    }
    return lease->fair ? &FAIR : &EXCLUSIVE;
}

const char *dl_primitive_wake_key(const dl_lease_t *lease, size_t *len)
{
    switch (dl_primitive_of(lease)->wake) {
    case DL_WAKE_OWN: *len = lease->my_wake_key_len; return lease->my_wake_key;
    case DL_WAKE_SHARED: *len = lease->rwake_key_len; return lease->rwake_key;
    case DL_WAKE_COMMON: break;
    }
    *len = lease->wake_key_len;
    return lease->wake_key;
}

const dl_script_t *dl_script_release_for(const dl_lease_t *lease)
{
    return dl_primitive_of(lease)->release;
}

int dl_is_noperm(const dl_reply_t *r)
{
    return r->type == DL_REPLY_ERROR && r->len >= 6 && memcmp(r->str, "NOPERM", 6) == 0;
}

int dl_is_refused(const dl_reply_t *r)
{
    return dl_is_noperm(r) ||
           (r->type == DL_REPLY_ERROR &&
            ((r->len >= 19 && memcmp(r->str, "ERR unknown command", 19) == 0) ||
             (r->len >= 16 && memcmp(r->str, "ERR syntax error", 16) == 0)));
}

int dl_scripting_denied(const dl_transport_t *t)
{
    unsigned caps = t->caps ? t->caps(t->impl) : 0;
    return (caps & DL_CAP_KNOWN) && !(caps & DL_CAP_SCRIPTING);
}

dl_status_t dl_denied(const dl_transport_t *t, const char *what, dl_error_t *err)
{
    return dl_error_set(err, DL_ERR_DENIED,
                        "Redis at %s does not let this user run scripts (NOPERM for EVALSHA, or no Lua), and %s needs "
                        "them: grant +@scripting (or +evalsha +eval); without scripting only a mutex without fair "
                        "mode or fencing works, on a server with DELEX or DELIFEQ (Redis >= 8.4, Valkey >= 9.0)",
                        t->endpoint ? t->endpoint : "?", what);
}

/* 1 when r refuses a script call to this user: NOPERM for EVAL/EVALSHA. */
static int is_script_noperm(const dl_reply_t *r)
{
    return dl_is_noperm(r) && r->str && strstr(r->str, "'eval") != NULL;
}

dl_status_t dl_server_error(const dl_transport_t *t, const dl_reply_t *r, const char *what, dl_error_t *err)
{
    if (is_script_noperm(r)) {
        /* Scripting denied (an ACL changed under a connection whose probe passed,
         * or a path that sends its own script call): never a connection error. */
        if (t->caps_clear) t->caps_clear(t->impl, DL_CAP_SCRIPTING);
        return dl_denied(t, what, err);
    }
    return dl_error_set(err, DL_ERR_SERVER, "Redis at %s refused %s: %.*s", t->endpoint ? t->endpoint : "?", what,
                        (int)(r->len > 160 ? 160 : r->len), r->str ? r->str : "");
}

int dl_is_kind_error(const dl_reply_t *r)
{
    return r->type == DL_REPLY_ERROR && r->len >= 7 && memcmp(r->str, "DLKIND ", 7) == 0;
}

const char *dl_kind_label(dl_lease_kind_t kind)
{
    switch (kind) {
    case DL_LEASE_PERMITS: return "a semaphore";
    case DL_LEASE_SHARED:
    case DL_LEASE_WRITE: return "a readers-writer lock";
    case DL_LEASE_EXCLUSIVE: break;
    }
    return "a mutex";
}

dl_status_t dl_kind_error(const char *w, size_t rest, const dl_lease_t *lease, dl_error_t *err)
{
    /* The words the scripts write after "DLKIND " (dl_scripts.h). */
    const char *holder = "another kind";
    size_t name_len = lease->key_len - lease->name_off;
    if (rest >= 5 && memcmp(w, "mutex", 5) == 0) holder = "a mutex";
    else if (rest >= 9 && memcmp(w, "semaphore", 9) == 0) holder = "a semaphore";
    else if (rest >= 14 && memcmp(w, "readers-writer", 14) == 0) holder = "a readers-writer lock";
    return dl_error_set(err, DL_ERR_KIND, "\"%.*s%s\" is held as %s; it was asked for as %s (one name, one kind)",
                        (int)(name_len > 200 ? 200 : name_len), lease->key + lease->name_off,
                        name_len > 200 ? "..." : "", holder, dl_kind_label(lease->kind));
}

dl_status_t dl_unexpected(const dl_transport_t *t, const char *what, dl_error_t *err)
{
    return dl_error_set(err, DL_ERR_PROTOCOL, "unexpected reply from Redis at %s to %s", t->endpoint ? t->endpoint : "?",
                        what);
}

/* The outcome of work nobody waits for (dl_pending_fn): an undo, a cancel, a
 * second attempt sent after the caller's bound. Whatever it was, a lease it
 * would have ended ends at its TTL. */
static void outcome_ignored(void *arg, const dl_transport_t *t, dl_pending_outcome_t outcome, dl_reply_t *reply)
{
    (void)arg; (void)t; (void)outcome; (void)reply;
}

/* Until when a command that acts on lease by its token may be kept to be
 * written later (dl_pending_defer): a granted lease's validity, the earliest
 * it can end. Without a validity (a waiter's cancel, harmless whenever it
 * runs; the undo of an attempt whose grant is unknown) and for commands of
 * several leases: no limit, as before the limit existed. */
static int64_t keep_until(const dl_lease_t *lease)
{
    return lease && lease->valid_until_ns > 0 ? lease->valid_until_ns : 0;
}

/* Defers cmd, sent by EVAL when it is s's EVALSHA (a deferred command must not
 * depend on the script cache: nobody is there to send it again). */
static void defer_cmd(const dl_transport_t *t, const dl_cmd_t *cmd, const dl_script_t *s, const dl_lease_t *lease)
{
    if (s && cmd->argc >= 2 && cmd->argc <= 16 && cmd->argvlen[0] == 7 && memcmp(cmd->argv[0], "EVALSHA", 7) == 0) {
        const char *argv[16];
        size_t argvlen[16];
        dl_cmd_t c;
        memcpy(argv, cmd->argv, (size_t)cmd->argc * sizeof(*argv));
        memcpy(argvlen, cmd->argvlen, (size_t)cmd->argc * sizeof(*argvlen));
        argv[0] = "EVAL"; argvlen[0] = 4;
        argv[1] = s->text; argvlen[1] = strlen(s->text);
        c.argc = cmd->argc; c.argv = argv; c.argvlen = argvlen;
        dl_pending_defer(t, &c, outcome_ignored, NULL, keep_until(lease));
        return;
    }
    dl_pending_defer(t, cmd, outcome_ignored, NULL, keep_until(lease));
}

static dl_status_t call_counting_timed(const dl_transport_t *t, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies,
                                       dl_retry_t retry, int64_t extra_timeout_us, int *retried,
                                       const dl_script_t *s, const dl_lease_t *lease, dl_error_t *err)
{
    /* Replies still owed (deferred releases) are read first, in the same round trip. */
    dl_status_t st = dl_pending_call(t, n, cmds, replies, extra_timeout_us, err);
    if (st != DL_OK && dl_status_is_transport_failure(st) &&
        (retry == DL_RETRY_ANY || (retry == DL_RETRY_ON_DROP && st != DL_ERR_TIMEOUT))) {
        size_t i;
        for (i = 0; i < n; i++) dl_reply_free(&replies[i]);
        if (retry == DL_RETRY_ANY && dl_call_bound_left_us() <= 0) {
            /* The call's bound is spent: the second attempt of a release or
             * refresh (idempotent) goes out without the caller waiting for it,
             * and the caller hears of the first one's failure (issue 27.3). */
            for (i = 0; i < n; i++) defer_cmd(t, &cmds[i], s, lease);
            return st;
        }
        if (retried) *retried = 1;
        st = t->call(t->impl, n, cmds, replies, extra_timeout_us, err);
    }
    return st;
}

static dl_status_t call_counting(const dl_transport_t *t, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies,
                                 dl_retry_t retry, int *retried, dl_error_t *err)
{
    return call_counting_timed(t, n, cmds, replies, retry, 0, retried, NULL, NULL, err);
}

dl_status_t dl_call_retried(const dl_transport_t *t, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies,
                            dl_retry_t retry, int *retried, dl_error_t *err)
{
    return call_counting(t, n, cmds, replies, retry, retried, err);
}

dl_status_t dl_call(const dl_transport_t *t, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies, dl_retry_t retry,
                    dl_error_t *err)
{
    return call_counting(t, n, cmds, replies, retry, NULL, err);
}

int dl_is_noscript(const dl_reply_t *r)
{
    return r->type == DL_REPLY_ERROR && r->len >= 8 && memcmp(r->str, "NOSCRIPT", 8) == 0;
}

typedef dl_script_call_t script_call_t;

static void add(script_call_t *sc, const char *s, size_t len)
{
    sc->argv[sc->argc] = s;
    sc->argvlen[sc->argc++] = len;
}

static void add_num(script_call_t *sc, long long v)
{
    char *buf = sc->num[sc->nums++];
    add(sc, buf, dl_cmd_int(buf, v));
}

#define ADD_KEY(sc, lease, k) add((sc), (lease)->k, (lease)->k##_len)

static void build(script_call_t *sc, const dl_script_t *s, const dl_lease_t *l, long long ttl_ms, int waiting)
{
    static const char numkeys[][2] = {
        [DL_SHAPE_STATUS] = "1", [DL_SHAPE_REFRESH] = "1", [DL_SHAPE_RELEASE] = "3", [DL_SHAPE_CANCEL] = "3",
        [DL_SHAPE_ACQUIRE] = "3", [DL_SHAPE_FAIR_ACQUIRE] = "5", [DL_SHAPE_FAIR_RELEASE] = "5",
        [DL_SHAPE_FAIR_CANCEL] = "5", [DL_SHAPE_WAKE] = "2", [DL_SHAPE_SEM_ACQUIRE] = "4",
        [DL_SHAPE_SEM_RELEASE] = "4", [DL_SHAPE_SEM_REFRESH] = "2", [DL_SHAPE_SEM_USAGE] = "2", [DL_SHAPE_RW] = "7",
        [DL_SHAPE_INSPECT] = "6",
    };
    sc->argc = 0;
    sc->nums = 0;
    add(sc, "EVALSHA", 7);
    add(sc, s->sha, 40);
    add(sc, numkeys[s->shape], 1);
    switch (s->shape) {
    case DL_SHAPE_STATUS:
    case DL_SHAPE_REFRESH:
        ADD_KEY(sc, l, key);
        ADD_KEY(sc, l, token);
        if (s->shape == DL_SHAPE_REFRESH) add_num(sc, ttl_ms);
        break;
    case DL_SHAPE_RELEASE:
        ADD_KEY(sc, l, key); ADD_KEY(sc, l, wake_key); ADD_KEY(sc, l, waiters_key);
        ADD_KEY(sc, l, token);
        add_num(sc, DL_WAKE_TTL_MS);
        break;
    case DL_SHAPE_CANCEL:
        ADD_KEY(sc, l, key); ADD_KEY(sc, l, waiters_key); ADD_KEY(sc, l, wake_key);
        ADD_KEY(sc, l, token);
        add_num(sc, DL_WAKE_TTL_MS);
        break;
    case DL_SHAPE_WAKE:
        ADD_KEY(sc, l, waiters_key); ADD_KEY(sc, l, wake_key);
        add_num(sc, DL_WAKE_TTL_MS);
        break;
    case DL_SHAPE_ACQUIRE:
        /* FN only with fencing (each element costs the server a Lua string). */
        ADD_KEY(sc, l, key); ADD_KEY(sc, l, fence_key); ADD_KEY(sc, l, waiters_key);
        if (l->fencing) { ADD_KEY(sc, l, name_fence_key); sc->argv[2] = "4"; }
        ADD_KEY(sc, l, token);
        add_num(sc, ttl_ms);
        add(sc, l->fencing ? "1" : "0", 1);
        add_num(sc, waiting ? DL_WAITERS_TTL_MS : 0);
        break;
    case DL_SHAPE_FAIR_ACQUIRE:
        ADD_KEY(sc, l, key); ADD_KEY(sc, l, fence_key); ADD_KEY(sc, l, queue_key); ADD_KEY(sc, l, alive_key);
        ADD_KEY(sc, l, my_wake_key);
        if (l->fencing) { ADD_KEY(sc, l, name_fence_key); sc->argv[2] = "6"; }
        ADD_KEY(sc, l, token);
        add_num(sc, ttl_ms);
        add(sc, l->fencing ? "1" : "0", 1);
        add_num(sc, waiting ? DL_FAIR_ALIVE_MS : 0);
        break;
    case DL_SHAPE_SEM_ACQUIRE:
        /* A try sends K P only (each element costs the server a Lua string). */
        ADD_KEY(sc, l, key); ADD_KEY(sc, l, permits_key);
        if (waiting) { ADD_KEY(sc, l, waiters_key); ADD_KEY(sc, l, wake_key); }
        else sc->argv[2] = "2";
        ADD_KEY(sc, l, token);
        add_num(sc, ttl_ms);
        add_num(sc, l->permits);
        add_num(sc, l->limit);
        add_num(sc, ttl_ms + 1);
        if (waiting) add_num(sc, DL_WAITERS_TTL_MS);
        break;
    case DL_SHAPE_SEM_RELEASE:
        ADD_KEY(sc, l, key); ADD_KEY(sc, l, wake_key); ADD_KEY(sc, l, waiters_key); ADD_KEY(sc, l, permits_key);
        ADD_KEY(sc, l, token);
        add_num(sc, DL_WAKE_TTL_MS);
        break;
    case DL_SHAPE_SEM_REFRESH:
        ADD_KEY(sc, l, key); ADD_KEY(sc, l, permits_key);
        ADD_KEY(sc, l, token);
        add_num(sc, ttl_ms);
        break;
    case DL_SHAPE_SEM_USAGE:
        ADD_KEY(sc, l, key); ADD_KEY(sc, l, permits_key);
        break;
    case DL_SHAPE_INSPECT:
        ADD_KEY(sc, l, key); ADD_KEY(sc, l, waiters_key); ADD_KEY(sc, l, queue_key);
        ADD_KEY(sc, l, readers_key); ADD_KEY(sc, l, rwaiters_key); ADD_KEY(sc, l, permits_key);
        break;
    case DL_SHAPE_RW:
        ADD_KEY(sc, l, key); ADD_KEY(sc, l, fence_key); ADD_KEY(sc, l, wake_key); ADD_KEY(sc, l, waiters_key);
        ADD_KEY(sc, l, readers_key); ADD_KEY(sc, l, rwaiters_key); ADD_KEY(sc, l, rwake_key);
        if (l->fencing) { ADD_KEY(sc, l, name_fence_key); sc->argv[2] = "8"; }
        ADD_KEY(sc, l, token);
        add_num(sc, ttl_ms);
        add(sc, l->fencing ? "1" : "0", 1);
        add_num(sc, waiting ? DL_WAITERS_TTL_MS : 0);
        add_num(sc, DL_WAKE_TTL_MS);
        break;
    case DL_SHAPE_FAIR_RELEASE:
    case DL_SHAPE_FAIR_CANCEL:
        /* FN always: the hand-over fences when the waiter asked, whatever this lease does. */
        ADD_KEY(sc, l, key); ADD_KEY(sc, l, fence_key); ADD_KEY(sc, l, queue_key); ADD_KEY(sc, l, alive_key);
        ADD_KEY(sc, l, name_fence_key);
        ADD_KEY(sc, l, token);
        ADD_KEY(sc, l, wake_prefix);
        add_num(sc, DL_FAIR_CLAIM_MS);  /* the waiter's wake list lives as long as its claim */
        add_num(sc, DL_FAIR_CLAIM_MS);
        if (s->shape == DL_SHAPE_FAIR_CANCEL) add(sc, "cancel", 6);
        else add(sc, "release", 7);
        break;
    }
}

static dl_cmd_t as_cmd(script_call_t *sc)
{
    dl_cmd_t c;
    c.argc = sc->argc;
    c.argv = sc->argv;
    c.argvlen = sc->argvlen;
    return c;
}

static void use_eval(script_call_t *sc, const dl_script_t *s)
{
    sc->argv[0] = "EVAL"; sc->argvlen[0] = 4;
    sc->argv[1] = s->text; sc->argvlen[1] = strlen(s->text);
}

dl_cmd_t dl_script_command(dl_script_call_t *sc, const dl_script_t *s, const dl_lease_t *lease, int64_t ttl_ms,
                           int waiting, int eval)
{
    build(sc, s, lease, ttl_ms, waiting);
    if (eval) use_eval(sc, s);
    return as_cmd(sc);
}

dl_status_t dl_script_run(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease, int64_t ttl_ms,
                          int waiting, int force_eval, dl_retry_t retry, dl_reply_t *r, dl_error_t *err)
{
    return dl_script_run_retried(t, s, lease, ttl_ms, waiting, force_eval, retry, r, NULL, err);
}

dl_status_t dl_script_run_retried(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease,
                                  int64_t ttl_ms, int waiting, int force_eval, dl_retry_t retry, dl_reply_t *r,
                                  int *retried, dl_error_t *err)
{
    script_call_t sc;
    dl_cmd_t cmd;
    dl_status_t st;

    if (dl_scripting_denied(t)) {
        memset(r, 0, sizeof(*r));
        return dl_denied(t, s->what, err);   /* at once: nothing is sent */
    }
    build(&sc, s, lease, ttl_ms, waiting);
    if (force_eval) use_eval(&sc, s);
    cmd = as_cmd(&sc);
    st = call_counting_timed(t, 1, &cmd, r, retry, 0, retried, s, lease, err);
    if (st == DL_OK && dl_is_noscript(r)) {
        dl_reply_free(r);
        use_eval(&sc, s);
        st = call_counting_timed(t, 1, &cmd, r, retry, 0, retried, s, lease, err);
    }
    if (st == DL_OK && r->type == DL_REPLY_ERROR) {
        st = dl_is_kind_error(r) ? DL_KIND_ERROR_OF(r, lease, err) : dl_server_error(t, r, s->what, err);
    }
    return st;
}

dl_status_t dl_script_send(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease,
                           dl_pending_fn fn, void *arg, dl_error_t *err)
{
    script_call_t sc;
    dl_cmd_t cmd;
    if (dl_scripting_denied(t)) return dl_denied(t, s->what, err);
    build(&sc, s, lease, lease->ttl_ms, 0);
    /* By EVAL: a command written behind it runs after it on the server, so it
     * must not fail with NOSCRIPT (empty cache after a failover or SCRIPT FLUSH)
     * and leave the later command to run first. EVAL finds the cached script by
     * its SHA1 all the same; the cost is the script's bytes on the wire. */
    use_eval(&sc, s);
    cmd = as_cmd(&sc);
    return dl_pending_send(t, &cmd, fn, arg, err);   /* the arguments are copied as they are written */
}

void dl_script_defer(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease)
{
    script_call_t sc;
    dl_cmd_t cmd;
    if (dl_scripting_denied(t)) return;   /* would be refused: what it would end ends at its TTL */
    build(&sc, s, lease, lease->ttl_ms, 0);
    use_eval(&sc, s);   /* no second chance after NOSCRIPT: nobody waits for the reply */
    cmd = as_cmd(&sc);
    dl_pending_defer(t, &cmd, outcome_ignored, NULL, keep_until(lease));   /* copied as it is written or kept */
}

void dl_script_run_or_defer(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease, int force_eval)
{
    dl_error_t ignored;
    dl_script_run_or_defer_within(t, s, lease, force_eval, DL_PENDING_GRACE_US, &ignored);
}

dl_status_t dl_script_run_or_defer_within(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease,
                                          int force_eval, int64_t grace_us, dl_error_t *err)
{
    dl_call_bound_t saved;
    dl_reply_t r;
    dl_status_t st;

    /* A round trip's timeout ended the call (dl_call_bound_close): its cleanup
     * is written, not waited for (issue 37.2). */
    if (dl_call_bound_closed()) {
        dl_script_defer(t, s, lease);
        return DL_OK;
    }
    /* A healthy server answers in well under the grace: the caller returns with
     * it done. A stalled one costs the grace, and the command, written, runs
     * when the server does (the connection is dropped: its reply is never misread). */
    dl_call_bound_grace(&saved, grace_us);
    st = dl_script_run(t, s, lease, 0, 0, force_eval, DL_RETRY_NEVER, &r, err);
    dl_call_bound_end(&saved);
    dl_reply_free(&r);
    /* Not written (no connection within the grace): kept for the next command. */
    if (st == DL_ERR_CONNECT) dl_script_defer(t, s, lease);
    return dl_status_is_no_answer(st) ? st : DL_OK;
}

dl_status_t dl_script_run_int(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease, int64_t ttl_ms,
                              dl_retry_t retry, long long *result, dl_error_t *err)
{
    dl_reply_t r;
    dl_status_t st = dl_script_run(t, s, lease, ttl_ms, 0, 0, retry, &r, err);
    if (st == DL_OK) {
        if (r.type == DL_REPLY_INTEGER) *result = r.integer;
        else st = dl_unexpected(t, s->what, err);
    }
    dl_reply_free(&r);
    return st;
}

dl_status_t dl_script_run_many(const dl_transport_t *t, const dl_script_t *(*pick)(const dl_lease_t *), size_t n,
                               dl_lease_t *const *leases, int *flags, dl_error_t *err)
{
    script_call_t *sc;
    dl_cmd_t *cmds;
    dl_reply_t *r, *again;
    size_t *idx;
    dl_status_t st = DL_OK;
    size_t i;

    if (n == 0) return DL_OK;
    if (dl_scripting_denied(t)) return dl_denied(t, pick(leases[0])->what, err);
    sc = calloc(n, sizeof(*sc));
    cmds = calloc(n, sizeof(*cmds));
    r = calloc(n, sizeof(*r));
    again = calloc(n, sizeof(*again));
    idx = calloc(n, sizeof(*idx));
    if (!sc || !cmds || !r || !again || !idx) {
        st = dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < n; i++) {
        build(&sc[i], pick(leases[i]), leases[i], leases[i]->ttl_ms, 0);
        cmds[i] = as_cmd(&sc[i]);
        flags[i] = 0;
    }
    st = dl_call(t, n, cmds, r, DL_RETRY_ANY, err);
    if (st == DL_OK) {
        /* The script cache was empty (restart, failover, SCRIPT FLUSH): send the
         * entries that got NOSCRIPT again as one pipeline of EVALs (the first
         * caches the script): two round trips in all, whatever n. */
        size_t m = 0;
        for (i = 0; i < n; i++) {
            if (dl_is_noscript(&r[i])) {
                dl_reply_free(&r[i]);
                use_eval(&sc[i], pick(leases[i]));
                cmds[m] = as_cmd(&sc[i]);
                idx[m++] = i;
            }
        }
        if (m > 0) {
            st = dl_call(t, m, cmds, again, DL_RETRY_ANY, err);
            for (i = 0; i < m; i++) {
                r[idx[i]] = again[i];
                memset(&again[i], 0, sizeof(again[i]));
            }
        }
    }
    for (i = 0; st == DL_OK && i < n; i++) {
        if (r[i].type == DL_REPLY_INTEGER) {
            flags[i] = r[i].integer == 1;
        } else if (dl_is_kind_error(&r[i])) {
            flags[i] = 0;   /* a handle's lease that another kind holds now: lost, not an error of the batch */
        } else {
            st = r[i].type == DL_REPLY_ERROR ? dl_server_error(t, &r[i], pick(leases[i])->what, err)
                                             : dl_unexpected(t, pick(leases[i])->what, err);
        }
    }
    for (i = 0; i < n; i++) {
        dl_reply_free(&r[i]);
        dl_reply_free(&again[i]);
    }
done:
    free(sc);
    free(cmds);
    free(r);
    free(again);
    free(idx);
    return st;
}

dl_status_t dl_call_timed(const dl_transport_t *t, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies,
                          dl_retry_t retry, int64_t extra_timeout_us, dl_error_t *err)
{
    return call_counting_timed(t, n, cmds, replies, retry, extra_timeout_us, NULL, NULL, NULL, err);
}

dl_status_t dl_script_run_then(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease, int64_t ttl_ms,
                               int waiting, dl_retry_t retry, const dl_cmd_t *then, int64_t extra_timeout_us,
                               dl_reply_t *r, dl_reply_t *then_r, dl_error_t *err)
{
    script_call_t sc;
    dl_cmd_t cmds[2];
    dl_reply_t replies[2];
    dl_status_t st;

    if (dl_scripting_denied(t)) {
        memset(r, 0, sizeof(*r));
        memset(then_r, 0, sizeof(*then_r));
        return dl_denied(t, s->what, err);
    }
    build(&sc, s, lease, ttl_ms, waiting);
    cmds[0] = as_cmd(&sc);
    cmds[1] = *then;
    st = call_counting_timed(t, 2, cmds, replies, retry, extra_timeout_us, NULL, s, lease, err);
    if (st == DL_OK && dl_is_noscript(&replies[0])) {
        /* The script did not run; `then` did, harmlessly (a WAIT): both again, the script by EVAL. */
        dl_reply_free(&replies[0]);
        dl_reply_free(&replies[1]);
        use_eval(&sc, s);
        cmds[0] = as_cmd(&sc);
        st = call_counting_timed(t, 2, cmds, replies, retry, extra_timeout_us, NULL, s, lease, err);
    }
    *r = replies[0];
    *then_r = replies[1];
    if (st == DL_OK && r->type == DL_REPLY_ERROR) {
        st = dl_is_kind_error(r) ? DL_KIND_ERROR_OF(r, lease, err) : dl_server_error(t, r, s->what, err);
    }
    return st;
}
