#include "dl_quorum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/dl_clock.h"
#include "dl_fanout.h"
#include "../lease/dl_script.h"
#include "../base/dl_token.h"
#include "../base/dl_wait.h"

/* ---- arithmetic (redis.io, "Distributed Locks with Redis") -------------- */

size_t dl_quorum_size(size_t n)
{
    return n / 2 + 1;
}

int64_t dl_quorum_drift_us(int64_t ttl_ms)
{
    return ttl_ms * 10 + 2000;   /* ttl * 0.01, plus 2 ms for the small ttls */
}

int64_t dl_quorum_validity_us(int64_t ttl_ms, int64_t elapsed_us)
{
    return ttl_ms * 1000 - elapsed_us - dl_quorum_drift_us(ttl_ms);
}

/* The end of a grant or refresh sent at start_ns: start + ttl - drift (monotonic ns). */
static int64_t valid_until_ns(int64_t start_ns, int64_t ttl_ms)
{
    return start_ns + ttl_ms * 1000000 - dl_quorum_drift_us(ttl_ms) * 1000;
}

int64_t dl_quorum_node_timeout_us(const dl_quorum_t *q, int64_t ttl_ms)
{
    int64_t t = ttl_ms * 100;   /* ttl / 10, in µs */
    /* No ttl known (a release by name and token): no validity to protect, and
     * 5 ms would fail a connect on a loaded machine: the timeout bounds it. */
    if (ttl_ms <= 0 && q->timeout_us > 0) return q->timeout_us;
    if (t < DL_QUORUM_MIN_NODE_TIMEOUT_US) t = DL_QUORUM_MIN_NODE_TIMEOUT_US;
    return q->timeout_us > 0 && q->timeout_us < t ? q->timeout_us : t;
}

/* ---- one round over every master --------------------------------------- */

typedef struct round {
    size_t n, k;
    dl_fanout_node_t *nd;
    dl_reply_t *replies;      /* n * k */
    int64_t start_ns;
} round_t;

static void round_free(round_t *r)
{
    size_t i;
    if (r->replies) {
        for (i = 0; i < r->n * r->k; i++) dl_reply_free(&r->replies[i]);
    }
    free(r->replies);
    free(r->nd);
    memset(r, 0, sizeof(*r));
}

static dl_reply_t *reply_of(const round_t *r, size_t node, size_t j)
{
    return &r->replies[node * r->k + j];
}

/*
 * A master that answered a command with an error reply (other than NOSCRIPT,
 * which redo_noscript handles) failed: its answer is no vote against the
 * name, or a missing password would read as "held by someone else" (a try's
 * null, a wait's timeout, isLocked() false). An unauthenticated client is
 * told the way one server tells it (dl_conn: NOAUTH, or the "unauthenticated"
 * protocol error Redis sends before closing on a large command): the fan-out
 * sends no HELLO first, so the commands themselves meet it (issue 27.4).
 */
static void refused_is_failure(dl_fanout_node_t *nd, const dl_reply_t *replies, size_t k, const dl_cmd_t *cmds)
{
    size_t j;
    if (!nd->t || !nd->done || nd->st != DL_OK) return;
    for (j = 0; j < k; j++) {
        const dl_reply_t *rep = &replies[j];
        const char *endpoint = nd->t->endpoint ? nd->t->endpoint : "?";
        if (rep->type != DL_REPLY_ERROR || dl_is_noscript(rep)) continue;
        if ((rep->len >= 6 && memcmp(rep->str, "NOAUTH", 6) == 0) ||
            (rep->str && strstr(rep->str, "unauthenticated") != NULL)) {
            nd->st = DL_ERR_AUTH;
            snprintf(nd->why, sizeof(nd->why), "Authentication failed at Redis %s: NOAUTH Authentication required"
                     " (the server has a password and none was given)", endpoint);
        } else {
            nd->st = DL_ERR_SERVER;
            snprintf(nd->why, sizeof(nd->why), "Redis at %s refused %.*s: %.*s", endpoint, (int)cmds[j].argvlen[0],
                     cmds[j].argv[0], (int)(rep->len > 200 ? 200 : rep->len), rep->str);
        }
        return;
    }
}

/*
 * Sends the k commands to every master that is not marked down and reads the
 * replies until decided() or timeout_us. Nodes that timed out or refused the
 * connection are marked down for DL_QUORUM_DOWN_BACKOFF_US.
 */
static dl_status_t round_run(dl_quorum_t *q, round_t *r, size_t k, const dl_cmd_t *cmds, int64_t timeout_us,
                             dl_fanout_decided_fn decided, void *arg, dl_error_t *err)
{
    size_t i;
    int64_t now = dl_clock_now_ns(), left_us = dl_call_bound_left_us();
    int clipped = 0;

    /* Never past the call's bound (dl_clock.h; issue 27.3). A node that did not
     * answer within a bound cut short is not marked down: it had less than its timeout. */
    if (timeout_us > 0 && left_us < timeout_us) {
        timeout_us = left_us > 0 ? left_us : 0;
        clipped = 1;
    }
    memset(r, 0, sizeof(*r));
    r->n = q->n;
    r->k = k;
    r->nd = calloc(q->n, sizeof(*r->nd));
    r->replies = calloc(q->n * k, sizeof(*r->replies));
    if (!r->nd || !r->replies) {
        round_free(r);
        return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
    }
    r->start_ns = now;
    for (i = 0; i < q->n; i++) {
        dl_fanout_node_t *nd = &r->nd[i];
        nd->k = k;
        nd->cmds = cmds;
        nd->replies = reply_of(r, i, 0);
        if (q->node[i].down_until_ns > now) {
            nd->done = 1;
            nd->st = DL_ERR_CONNECT;
            snprintf(nd->why, sizeof(nd->why), "Redis at %s: skipped, down since a failure less than %d ms ago",
                     q->node[i].t.endpoint ? q->node[i].t.endpoint : "?", DL_QUORUM_DOWN_BACKOFF_US / 1000);
        } else {
            nd->t = &q->node[i].t;
        }
    }
    {
        /* The bound a late node missed, in the words of every operation (issue 37.2):
         * the call's, when it cut the round short, else the round's own `timeout`. */
        const dl_call_bound_t *b = dl_call_bound_current();
        char late[80];
        if (clipped && b) snprintf(late, sizeof(late), "this call's %.3f s bound (%s)", b->bound_us / 1e6, b->what);
        else snprintf(late, sizeof(late), "this call's %.3f s bound (%s)", timeout_us / 1e6,
                      timeout_us == q->timeout_us ? "timeout" : "min(timeout, ttl / 10)");
        dl_fanout_run(r->nd, q->n, now + timeout_us * 1000, late, decided, arg);
    }
    for (i = 0; i < q->n; i++) refused_is_failure(&r->nd[i], reply_of(r, i, 0), k, cmds);
    now = dl_clock_now_ns();
    for (i = 0; i < q->n; i++) {
        dl_fanout_node_t *nd = &r->nd[i];
        if (nd->t && nd->done && (nd->st == DL_ERR_TIMEOUT || nd->st == DL_ERR_CONNECT) && !clipped) {
            q->node[i].down_until_ns = now + (int64_t)DL_QUORUM_DOWN_BACKOFF_US * 1000;
        }
    }
    return DL_OK;
}

/* Nodes that answered every command. */
static size_t answered(const round_t *r)
{
    size_t i, a = 0;
    for (i = 0; i < r->n; i++) a += r->nd[i].done && r->nd[i].st == DL_OK;
    return a;
}

/* Nodes known to have failed (down, refused, timed out, connection lost). */
static size_t failed(const round_t *r)
{
    size_t i, f = 0;
    for (i = 0; i < r->n; i++) f += r->nd[i].done && r->nd[i].st != DL_OK;
    return f;
}

/* Nodes that did not answer within the round's bound (a stall, not a refusal). */
static size_t timed_out(const round_t *r)
{
    size_t i, f = 0;
    for (i = 0; i < r->n; i++) f += r->nd[i].done && r->nd[i].st == DL_ERR_TIMEOUT;
    return f;
}

/*
 * DL_ERR_QUORUM: "Redlock <what>: k of N masters failed, more than the m a
 * quorum of Q survives: why; why". Masters not waited for (the round was
 * decided without them) are not counted or named: they did not fail.
 */
static dl_status_t quorum_error(const round_t *r, const char *what, dl_error_t *err)
{
    char msg[DL_ERR_MSG_MAX];
    size_t i, used, f = failed(r);
    used = (size_t)snprintf(msg, sizeof(msg), "Redlock %s: %zu of %zu masters failed, more than the %zu a quorum of %zu survives",
                            what, f, r->n, r->n - dl_quorum_size(r->n), dl_quorum_size(r->n));
    for (i = 0; i < r->n && used < sizeof(msg) - 1; i++) {
        if (r->nd[i].st == DL_OK || !r->nd[i].done) continue;
        used += (size_t)snprintf(msg + used, sizeof(msg) - used, "; %s", r->nd[i].why);
    }
    return dl_error_set(err, DL_ERR_QUORUM, "%s", msg);
}

/* Too few nodes left to answer for a quorum. */
static int no_quorum(const round_t *r)
{
    return failed(r) > r->n - dl_quorum_size(r->n);
}

/* A node whose script cache is empty (restart, SCRIPT FLUSH) gets those calls again by EVAL, alone. */
static void redo_noscript(dl_quorum_t *q, round_t *r, dl_cmd_t *evalcmds)
{
    size_t i, j;
    for (i = 0; i < r->n; i++) {
        if (!r->nd[i].done || r->nd[i].st != DL_OK) continue;
        for (j = 0; j < r->k; j++) {
            dl_reply_t *rep = reply_of(r, i, j);
            dl_error_t e;
            if (!dl_is_noscript(rep)) continue;
            dl_reply_free(rep);
            if (dl_call(&q->node[i].t, 1, &evalcmds[j], rep, DL_RETRY_NEVER, &e) != DL_OK) {
                r->nd[i].st = e.code;
                snprintf(r->nd[i].why, sizeof(r->nd[i].why), "%s", e.msg);
                break;
            }
        }
    }
}

/* ---- acquire --------------------------------------------------------------- */

/* A grant: SET's +OK, or the acquire script's {1, fence}. */
static int is_grant(const dl_reply_t *r)
{
    if (r->type == DL_REPLY_STATUS) return r->len == 2 && memcmp(r->str, "OK", 2) == 0;
    return r->type == DL_REPLY_ARRAY && r->elements >= 1 && r->element[0].type == DL_REPLY_INTEGER &&
           r->element[0].integer == 1;
}

static size_t granted(const round_t *r)
{
    size_t i, g = 0;
    for (i = 0; i < r->n; i++) g += r->nd[i].done && r->nd[i].st == DL_OK && is_grant(reply_of(r, i, 0));
    return g;
}

/* The round's outcome is known: a quorum granted, or too few are left to grant. */
static int acquire_decided(void *arg, const dl_fanout_node_t *nd, size_t n)
{
    size_t i, ok = 0, open = 0, need = dl_quorum_size(n);
    (void)arg;
    for (i = 0; i < n; i++) {
        if (!nd[i].done) open++;
        else if (nd[i].st == DL_OK && is_grant(&nd[i].replies[0])) ok++;
    }
    return ok >= need || ok + open < need;
}

static int never(void *arg, const dl_fanout_node_t *nd, size_t n)
{
    (void)arg; (void)nd; (void)n;
    return 1;
}

/*
 * Runs script s for lease on every master that is up, by EVAL (no NOSCRIPT
 * can skip it), without waiting: each reply is read, and dropped, before the
 * next command on its connection, so it runs before our next attempt there.
 * Used for the undo of a failed attempt (DL_UNDO_SCRIPT, same token) and
 * for leaving the waiters sets when a wait ends without the lock (cancel).
 */
static void fire_and_forget(dl_quorum_t *q, const dl_script_t *s, const dl_lease_t *lease)
{
    dl_script_call_t sc;
    dl_cmd_t cmd = dl_script_command(&sc, s, lease, 0, 0, 1);
    round_t r;
    dl_error_t e;
    if (round_run(q, &r, 1, &cmd, 0, never, NULL, &e) == DL_OK) round_free(&r);
}

/*
 * Waits for a release on one master that answered the last round: BLPOP on
 * the lock's wake list for up to block_us. Our acquire script registered us
 * in the waiters set of every master where the name was taken, and a release
 * pushes a wake token on each of them, so one master's list is enough; the
 * tokens left on the others expire (DL_WAKE_TTL_MS) or cost one early
 * attempt. Returns 0 when the server refused BLPOP (an ACL without it): the
 * caller sleeps instead from then on.
 */
static int block_on_one(dl_quorum_t *q, const round_t *r, const dl_lease_t *lease, int64_t block_us,
                        int64_t deadline_ns)
{
    size_t i;
    for (i = 0; i < r->n; i++) {
        if (r->nd[i].done && r->nd[i].st == DL_OK) {
            int popped, abandoned;
            long long value;
            dl_error_t e;
            /* At the deadline the block is abandoned; give_up()'s cancel passes
             * on a wake-up that went with it. */
            dl_status_t st = dl_block_on(&q->node[i].t, lease->wake_key, lease->wake_key_len, block_us, deadline_ns,
                                         &popped, &value, &abandoned, &e);
            return st != DL_ERR_SERVER;
        }
    }
    dl_clock_sleep_us(block_us);   /* nobody answered: nothing to block on */
    return 1;
}

/*
 * The end of a wait that ran out (issue 45.2): the cancel on every master, as
 * give_up's, but each answer waited for up to DL_SILENCE_GRACE_US past the
 * call's bound. A master that answers neither it nor any round since
 * answered_ns[i] is silent: res->silent_server lists them, res->silent_us is
 * the longest time one of them answered nothing, and err is the first one's
 * failure. The others' answers decided the rounds (the name was taken): the
 * wait's end is still a timeout, which says who was silent.
 */
static void give_up_checked(dl_quorum_t *q, const dl_lease_t *lease, round_t *last, const int64_t *answered_ns,
                            dl_acquire_result_t *res, dl_error_t *err)
{
    dl_script_call_t sc;
    dl_cmd_t cmd = dl_script_command(&sc, &DL_CANCEL_SCRIPT, lease, 0, 0, 1);
    dl_call_bound_t saved;
    round_t r;
    dl_error_t e;
    size_t i, used = 0;
    int64_t sent_ns, now;
    dl_status_t st;

    round_free(last);
    /* Each master's own bound (a master slower than it is marked down, as in
     * any round), within what is left of the call's and the grace past it
     * (a round the call's bound cuts short marks nobody down). */
    dl_call_bound_grace(&saved, DL_SILENCE_GRACE_US);
    sent_ns = dl_clock_now_ns();
    st = round_run(q, &r, 1, &cmd, dl_quorum_node_timeout_us(q, lease->ttl_ms), NULL, NULL, &e);
    dl_call_bound_end(&saved);
    if (st != DL_OK) return;
    now = dl_clock_now_ns();
    for (i = 0; i < r.n && i < DL_QUORUM_MAX_NODES; i++) {
        const dl_fanout_node_t *nd = &r.nd[i];
        const char *ep = q->node[i].t.endpoint ? q->node[i].t.endpoint : "?";
        int64_t silent_us = (now - answered_ns[i]) / 1000;
        if (!dl_status_is_no_answer(nd->st)) continue;   /* as cancel_after_cut counts it */
        if (res->silent_us == 0) dl_error_set(err, nd->st, "%s", nd->why);
        if (silent_us > res->silent_us) res->silent_us = silent_us;
        if (used + strlen(ep) + 6 < sizeof(res->silent_list)) {   /* whole names only, then "..." */
            used += (size_t)snprintf(res->silent_list + used, sizeof(res->silent_list) - used, "%s%s", used ? ", " : "", ep);
        } else if (used + 4 < sizeof(res->silent_list) && !strstr(res->silent_list, "...")) {
            used += (size_t)snprintf(res->silent_list + used, sizeof(res->silent_list) - used, ", ...");
        }
    }
    if (res->silent_us > 0) {
        res->silent_server = res->silent_list;
        res->silent_probe_us = (now - sent_ns) / 1000;
        res->silent_how = "no answer to any round since, nor to the cancel after the wait";
    }
    round_free(&r);
}

/* The end of a wait without the lock: out of every waiters set we entered (cancel, not waited for). */
static void give_up(dl_quorum_t *q, const dl_lease_t *lease, round_t *r, int registered)
{
    round_free(r);
    if (registered) fire_and_forget(q, &DL_CANCEL_SCRIPT, lease);
}

dl_status_t dl_quorum_acquire(dl_quorum_t *q, dl_lease_t *lease, const dl_acquire_opts_t *opts,
                              dl_acquire_result_t *res, dl_error_t *err)
{
    char ttlbuf[24];
    const char *argv[6];
    size_t argvlen[6];
    dl_cmd_t set = {6, argv, argvlen}, script;
    dl_script_call_t sc;
    int64_t first_ns = dl_clock_now_ns(), deadline_ns = first_ns + opts->wait_us * 1000;
    unsigned failed_attempts = 0, attempt = 0;
    int registered = 0, can_block = 1;
    int64_t answered_ns[DL_QUORUM_MAX_NODES];   /* each master's last answer (the wait's silence, issue 45.2) */
    size_t i;

    for (i = 0; i < DL_QUORUM_MAX_NODES; i++) answered_ns[i] = first_ns;

    memset(res, 0, sizeof(*res));
    if (lease->fencing || lease->fair) {
        return dl_error_set(err, DL_ERR_ARG, "fencing and fair mode are not available over Redlock");
    }
    argv[0] = "SET"; argvlen[0] = 3;
    argv[1] = lease->key; argvlen[1] = lease->key_len;
    argv[2] = lease->token; argvlen[2] = lease->token_len;
    argv[3] = "NX"; argvlen[3] = 2;
    argv[4] = "PX"; argvlen[4] = 2;
    argv[5] = ttlbuf; argvlen[5] = dl_cmd_int(ttlbuf, lease->ttl_ms);
    /* Attempts after a contended one: the acquire script, which also enters
     * us in each master's waiters set (atomically with finding the name
     * taken), so that a release wakes us. By EVAL: a NOSCRIPT would read as
     * "not granted" before the round could send it again. */
    script = dl_script_command(&sc, &DL_ACQUIRE_SCRIPT, lease, lease->ttl_ms, 1, 1);

    for (;;) {
        round_t r;
        dl_status_t st;
        int64_t validity_us, now, sleep_us;
        size_t ok;
        int by_script = registered;

        st = round_run(q, &r, 1, by_script ? &script : &set, dl_quorum_node_timeout_us(q, lease->ttl_ms),
                       acquire_decided, NULL, err);
        if (st != DL_OK) return st;
        res->attempts++;
        now = dl_clock_now_ns();
        for (i = 0; i < r.n && i < DL_QUORUM_MAX_NODES; i++) {
            if (r.nd[i].done && r.nd[i].st == DL_OK) answered_ns[i] = now;
        }
        ok = granted(&r);
        validity_us = dl_quorum_validity_us(lease->ttl_ms, (now - r.start_ns) / 1000);
        if (ok >= dl_quorum_size(q->n) && validity_us > 0) {
            lease->valid_until_ns = valid_until_ns(r.start_ns, lease->ttl_ms);
            res->acquired = 1;
            res->waited_us = (now - first_ns) / 1000;
            round_free(&r);
            return DL_OK;
        }
        /* Not granted: free the name at once wherever it may have been set
         * (granted, or the outcome unknown), not at the ttl. */
        if (ok > 0 || failed(&r) > 0 || answered(&r) < q->n) fire_and_forget(q, &DL_UNDO_SCRIPT, lease);
        res->waited_us = (now - first_ns) / 1000;
        if (no_quorum(&r)) {
            failed_attempts++;
            /* A round that lost its quorum to masters that did not answer within
             * its bound ends the call, as one server's timeout does (issue 37.2):
             * the message names that bound; a wait is not spent on masters that
             * are skipped as down meanwhile. Refused connections are retried. */
            if (opts->wait_us <= 0 || failed_attempts >= DL_QUORUM_FAILED_ATTEMPTS || now >= deadline_ns ||
                timed_out(&r) > 0) {
                st = quorum_error(&r, "acquire", err);
                give_up(q, lease, &r, registered);
                return st;
            }
        } else {
            res->contended++;
        }
        if (opts->wait_us <= 0 || now >= deadline_ns) {
            if (opts->wait_us > 0 && registered) {
                give_up_checked(q, lease, &r, answered_ns, res, err);
                res->waited_us = (dl_clock_now_ns() - first_ns) / 1000;   /* the cancel's wait included */
            } else {
                give_up(q, lease, &r, registered);
            }
            return DL_OK;
        }
        if (opts->interrupted && opts->interrupted(opts->interrupt_arg)) {
            give_up(q, lease, &r, registered);
            return dl_error_set(err, DL_ERR_INTERRUPTED, "the wait was interrupted");
        }
        /* A random delay (redis.io): contenders that collided split apart.
         * Registered as a waiter, we spend it blocked on a wake list, so a
         * release ends it at once; the first contended attempt only
         * registers (no delay before the script attempt). */
        if (ok > 0 && !no_quorum(&r)) {
            /* A split vote: the name is free again (every share was undone).
             * Retry after the jitter alone, not a grown backoff: no release
             * will come to wake us. */
            registered = 1;
            dl_clock_sleep_us(dl_wait_sleep_us(0, dl_random_upto(opts->backoff.jitter_us > 1000 ? opts->backoff.jitter_us : 1000),
                                               (deadline_ns - now) / 1000, 0));
        } else {
            sleep_us = dl_wait_sleep_us(dl_backoff_delay_us(&opts->backoff, attempt++),
                                        dl_random_upto(opts->backoff.jitter_us), (deadline_ns - now) / 1000, 0);
            if (!registered && can_block && !no_quorum(&r)) registered = 1;
            else if (registered && can_block && sleep_us >= 1000) can_block = block_on_one(q, &r, lease, sleep_us, deadline_ns);
            else dl_clock_sleep_us(sleep_us);
        }
        round_free(&r);
    }
}

/* ---- scripts over many leases: release, refresh, status ----------------------- */

typedef struct script_round {
    dl_script_call_t *sc, *esc;
    dl_cmd_t *cmds, *evalcmds;
} script_round_t;

static void script_round_free(script_round_t *s)
{
    free(s->sc);
    free(s->esc);
    free(s->cmds);
    free(s->evalcmds);
}

static dl_status_t script_round_build(script_round_t *s, const dl_script_t *script, size_t n, dl_lease_t *const *leases,
                                      const int64_t *ttl_ms, dl_error_t *err)
{
    size_t i;
    memset(s, 0, sizeof(*s));
    s->sc = calloc(n, sizeof(*s->sc));
    s->esc = calloc(n, sizeof(*s->esc));
    s->cmds = calloc(n, sizeof(*s->cmds));
    s->evalcmds = calloc(n, sizeof(*s->evalcmds));
    if (!s->sc || !s->esc || !s->cmds || !s->evalcmds) {
        script_round_free(s);
        return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
    }
    for (i = 0; i < n; i++) {
        int64_t ttl = ttl_ms ? ttl_ms[i] : leases[i]->ttl_ms;
        s->cmds[i] = dl_script_command(&s->sc[i], script, leases[i], ttl, 0, 0);
        s->evalcmds[i] = dl_script_command(&s->esc[i], script, leases[i], ttl, 0, 1);
    }
    return DL_OK;
}

/* Masters that answered 1 to command j. */
static size_t ones(const round_t *r, size_t j)
{
    size_t i, c = 0;
    for (i = 0; i < r->n; i++) {
        const dl_reply_t *rep;
        if (!r->nd[i].done || r->nd[i].st != DL_OK) continue;
        rep = reply_of(r, i, j);
        c += rep->type == DL_REPLY_INTEGER && rep->integer == 1;
    }
    return c;
}

/* Every command has its quorum of 1s: the slower masters are not waited for. */
static int all_have_quorum(void *arg, const dl_fanout_node_t *nd, size_t n)
{
    size_t k = *(const size_t *)arg, i, j, need = dl_quorum_size(n);
    for (j = 0; j < k; j++) {
        size_t c = 0;
        for (i = 0; i < n; i++) {
            c += nd[i].done && nd[i].st == DL_OK && nd[i].replies[j].type == DL_REPLY_INTEGER &&
                 nd[i].replies[j].integer == 1;
        }
        if (c < need) return 0;
    }
    return 1;
}

static dl_status_t script_many(dl_quorum_t *q, const dl_script_t *script, size_t n, dl_lease_t *const *leases,
                               const int64_t *ttl_ms, int64_t timeout_us, round_t *r, dl_error_t *err)
{
    script_round_t s;
    size_t k = n;
    dl_status_t st = script_round_build(&s, script, n, leases, ttl_ms, err);
    if (st != DL_OK) return st;
    st = round_run(q, r, n, s.cmds, timeout_us, all_have_quorum, &k, err);
    if (st == DL_OK) redo_noscript(q, r, s.evalcmds);
    script_round_free(&s);
    return st;
}

static int64_t max_ttl(size_t n, dl_lease_t *const *leases, const int64_t *ttl_ms)
{
    int64_t m = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        int64_t t = ttl_ms ? ttl_ms[i] : leases[i]->ttl_ms;
        if (t > m) m = t;
    }
    return m;
}

dl_status_t dl_quorum_release_many(dl_quorum_t *q, size_t n, dl_lease_t *const *leases, int *released,
                                   dl_error_t *err)
{
    round_t r;
    size_t i;
    dl_status_t st;
    int64_t now = dl_clock_now_ns();

    if (n == 0) return DL_OK;
    st = script_many(q, &DL_RELEASE_SCRIPT, n, leases, NULL, dl_quorum_node_timeout_us(q, max_ttl(n, leases, NULL)),
                     &r, err);
    if (st != DL_OK) return st;
    for (i = 0; i < n; i++) {
        size_t c = ones(&r, i);
        /* Valid when the round began: nobody else can hold the name, so any
         * master that removed our key proves it was ours. */
        released[i] = c > 0 && (c >= dl_quorum_size(q->n) || now < leases[i]->valid_until_ns);
    }
    st = no_quorum(&r) ? quorum_error(&r, "release", err) : DL_OK;
    round_free(&r);
    return st;
}

dl_status_t dl_quorum_release(dl_quorum_t *q, const dl_lease_t *lease, int *released, dl_error_t *err)
{
    dl_lease_t *l = (dl_lease_t *)lease;
    return dl_quorum_release_many(q, 1, &l, released, err);
}

/*
 * Refreshes n leases to ttls[i] (NULL: each lease's own ttl) in one round: extended[i] when a quorum
 * extended it and its new validity is positive; *start_ns is when the round
 * began. More masters failing than a quorum survives is DL_ERR_QUORUM (then
 * no lease can have a quorum of extensions).
 */
static dl_status_t refresh_round(dl_quorum_t *q, size_t n, dl_lease_t *const *leases, const int64_t *ttls,
                                 int *extended, int64_t *start_ns, dl_error_t *err)
{
    round_t r;
    size_t i;
    int64_t elapsed_us;
    dl_status_t st = script_many(q, &DL_REFRESH_SCRIPT, n, leases, ttls, dl_quorum_node_timeout_us(q, max_ttl(n, leases, ttls)),
                                 &r, err);
    if (st != DL_OK) return st;
    *start_ns = r.start_ns;
    elapsed_us = (dl_clock_now_ns() - r.start_ns) / 1000;
    for (i = 0; i < n; i++) {
        int64_t ttl = ttls ? ttls[i] : leases[i]->ttl_ms;
        extended[i] = ones(&r, i) >= dl_quorum_size(q->n) && dl_quorum_validity_us(ttl, elapsed_us) > 0;
    }
    if (no_quorum(&r)) st = quorum_error(&r, "refresh", err);
    round_free(&r);
    return st;
}

dl_status_t dl_quorum_refresh_many(dl_quorum_t *q, size_t n, dl_lease_t *const *leases, int *extended,
                                   dl_error_t *err)
{
    int64_t start_ns;

    if (n == 0) return DL_OK;
    return refresh_round(q, n, leases, NULL, extended, &start_ns, err);   /* each lease's own ttl */
}

dl_status_t dl_quorum_refresh(dl_quorum_t *q, dl_lease_t *lease, int64_t ttl_ms, int *extended, dl_error_t *err)
{
    int64_t start_ns;
    dl_status_t st = refresh_round(q, 1, &lease, &ttl_ms, extended, &start_ns, err);
    if (st == DL_OK && *extended) {
        lease->ttl_ms = ttl_ms;
        lease->valid_until_ns = valid_until_ns(start_ns, ttl_ms);
    }
    return st;
}

/* ---- reads and DEL ----------------------------------------------------------- */

/* One plain command on every master, waiting for all (or the timeout). */
static dl_status_t plain_round(dl_quorum_t *q, const dl_cmd_t *cmd, round_t *r, const char *what, dl_error_t *err)
{
    dl_status_t st = round_run(q, r, 1, cmd, q->timeout_us > 0 ? q->timeout_us : 1000000, NULL, NULL, err);
    if (st != DL_OK) return st;
    if (answered(r) < dl_quorum_size(q->n)) {
        st = quorum_error(r, what, err);
        round_free(r);
    }
    return st;
}

static int cmp_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The quorum-th largest of the masters' integer replies that are >= 0, or -1. */
static int64_t quorum_th(const round_t *r)
{
    int64_t v[DL_QUORUM_MAX_NODES];
    size_t i, m = 0, need = dl_quorum_size(r->n);
    for (i = 0; i < r->n && m < DL_QUORUM_MAX_NODES; i++) {
        const dl_reply_t *rep = reply_of(r, i, 0);
        if (r->nd[i].done && r->nd[i].st == DL_OK && rep->type == DL_REPLY_INTEGER && rep->integer >= 0) {
            v[m++] = rep->integer;
        }
    }
    if (m < need) return -1;
    qsort(v, m, sizeof(v[0]), cmp_desc);
    return v[need - 1];
}

dl_status_t dl_quorum_status(dl_quorum_t *q, const dl_lease_t *lease, int64_t *pttl_ms, dl_error_t *err)
{
    dl_script_call_t sc, esc;
    dl_cmd_t cmd = dl_script_command(&sc, &DL_STATUS_SCRIPT, lease, 0, 0, 0);
    dl_cmd_t ecmd = dl_script_command(&esc, &DL_STATUS_SCRIPT, lease, 0, 0, 1);
    round_t r;
    int64_t held;
    dl_status_t st = plain_round(q, &cmd, &r, "status", err);
    if (st != DL_OK) return st;
    redo_noscript(q, &r, &ecmd);
    held = quorum_th(&r);
    /* From the masters, not from this process's books: the watchdog renews a
     * copy of the lease, and restore() has none. The quorum-th longest PTTL
     * is how long a quorum still holds it; less the drift allowance, it is
     * the validity left (redis.io). */
    if (held < 0) {
        *pttl_ms = -1;
    } else {
        held -= dl_quorum_drift_us(lease->ttl_ms) / 1000;
        *pttl_ms = held > 0 ? held : 0;
    }
    round_free(&r);
    return DL_OK;
}

dl_status_t dl_quorum_owner(dl_quorum_t *q, const char *key, size_t key_len, char **token, size_t *token_len,
                            dl_error_t *err)
{
    const char *argv[2] = {"GET", key};
    size_t argvlen[2] = {3, key_len}, i, j, need = dl_quorum_size(q->n);
    dl_cmd_t cmd = {2, argv, argvlen};
    round_t r;
    dl_status_t st = plain_round(q, &cmd, &r, "owner", err);

    *token = NULL;
    *token_len = 0;
    if (st != DL_OK) return st;
    for (i = 0; i < r.n && !*token; i++) {
        const dl_reply_t *a = reply_of(&r, i, 0);
        size_t same = 0;
        if (r.nd[i].st != DL_OK || a->type != DL_REPLY_STRING) continue;
        for (j = 0; j < r.n; j++) {
            const dl_reply_t *b = reply_of(&r, j, 0);
            same += r.nd[j].st == DL_OK && b->type == DL_REPLY_STRING && b->len == a->len &&
                    memcmp(a->str, b->str, a->len) == 0;
        }
        if (same >= need) {
            *token = malloc(a->len + 1);
            if (!*token) {
                round_free(&r);
                return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
            }
            memcpy(*token, a->str, a->len);
            (*token)[a->len] = '\0';
            *token_len = a->len;
        }
    }
    round_free(&r);
    return DL_OK;
}

dl_status_t dl_quorum_inspect(dl_quorum_t *q, const dl_lease_t *lease, dl_lock_info_t *info, dl_error_t *err)
{
    const char *argv[2] = {"PTTL", lease->key};
    size_t argvlen[2] = {4, lease->key_len};
    dl_cmd_t cmd = {2, argv, argvlen};
    round_t r;
    int64_t held;
    dl_status_t st = plain_round(q, &cmd, &r, "status", err);
    if (st != DL_OK) return st;
    held = quorum_th(&r);
    memset(info, 0, sizeof(*info));
    /* Redlock runs the mutex only: held on a quorum is a mutex's one holder. */
    info->kind = held < 0 ? DL_HELD_NONE : DL_HELD_MUTEX;
    info->holders = held < 0 ? 0 : 1;
    info->pttl_ms = held < 0 ? -2 : held;
    round_free(&r);
    return DL_OK;
}

static dl_status_t count_ones(dl_quorum_t *q, const char *cmdname, const char *key, size_t key_len, size_t *count,
                              const char *what, dl_error_t *err)
{
    const char *argv[2] = {cmdname, key};
    size_t argvlen[2] = {strlen(cmdname), key_len};
    dl_cmd_t cmd = {2, argv, argvlen};
    round_t r;
    dl_status_t st = plain_round(q, &cmd, &r, what, err);
    if (st != DL_OK) return st;
    *count = ones(&r, 0);
    round_free(&r);
    return DL_OK;
}

dl_status_t dl_quorum_exists(dl_quorum_t *q, const char *key, size_t key_len, int *exists, dl_error_t *err)
{
    size_t c = 0;
    dl_status_t st = count_ones(q, "EXISTS", key, key_len, &c, "isLocked", err);
    *exists = st == DL_OK && c >= dl_quorum_size(q->n);
    return st;
}

dl_status_t dl_quorum_delete(dl_quorum_t *q, const char *key, size_t key_len, int *deleted, dl_error_t *err)
{
    size_t c = 0;
    dl_status_t st = count_ones(q, "DEL", key, key_len, &c, "forceRelease", err);
    *deleted = st == DL_OK && c > 0;
    return st;
}
