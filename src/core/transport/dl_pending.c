#include "dl_pending.h"

#include <stdlib.h>
#include <string.h>

#include "../base/dl_proc.h"

#include "../base/dl_clock.h"
#include "../base/dl_obs.h"

size_t dl_pending_count(const dl_pending_t *p)
{
    return p ? p->n + p->nq : 0;
}

static void queued_free(dl_pending_queued_t *q)
{
    free(q->block);
    q->block = NULL;
}

/* Takes the kept commands out of p and hands each the outcome `how` (LOST, ABANDONED). */
static void queued_drop(dl_pending_t *p, const dl_transport_t *t, dl_pending_outcome_t how)
{
    dl_pending_queued_t *q = p->queued;
    size_t n = p->nq, i;
    p->queued = NULL;
    p->nq = p->qcap = 0;
    for (i = 0; i < n; i++) {
        dl_reply_t none;
        memset(&none, 0, sizeof(none));
        q[i].fn(q[i].arg, t, how, &none);
        queued_free(&q[i]);
    }
    free(q);
}

void dl_pending_write_queued(const dl_transport_t *t)
{
    dl_pending_t *p = t->pending;
    dl_pending_queued_t *q;
    size_t n, i;

    if (!p || p->nq == 0) return;
    if (p->queued[0].pid != dl_proc_pid()) {
        queued_drop(p, t, DL_PENDING_ABANDONED);
        return;
    }
    q = p->queued;
    n = p->nq;
    p->queued = NULL;
    p->nq = p->qcap = 0;
    for (i = 0; i < n; i++) {
        dl_error_t err;
        if (q[i].keep_until_ns != 0 && dl_clock_now_ns() > q[i].keep_until_ns) {
            /* Past the end of the lease it was to end: written now, a release by
             * token could end a later lease under the same token. */
            dl_reply_t none;
            memset(&none, 0, sizeof(none));
            q[i].fn(q[i].arg, t, DL_PENDING_LOST, &none);
            continue;
        }
        /* Once one cannot be written, the connection is gone: the rest are given up too
         * (a lease they would end ends at its TTL). */
        if (dl_pending_send(t, &q[i].cmd, q[i].fn, q[i].arg, &err) != DL_OK) {
            size_t j;
            for (j = i; j < n; j++) {
                dl_reply_t none;
                memset(&none, 0, sizeof(none));
                q[j].fn(q[j].arg, t, DL_PENDING_LOST, &none);
            }
            break;
        }
    }
    for (i = 0; i < n; i++) queued_free(&q[i]);
    free(q);
}

/* Keeps a copy of cmd in p->queued. DL_OK, or DL_ERR_NOMEM (nothing kept). */
static dl_status_t queue_copy(dl_pending_t *p, const dl_cmd_t *cmd, dl_pending_fn fn, void *arg, int64_t keep_until_ns)
{
    size_t bytes = 0, i, argc = (size_t)cmd->argc;
    char *block, *data;
    const char **argv;
    size_t *argvlen;

    for (i = 0; i < argc; i++) bytes += cmd->argvlen[i];
    if (p->nq == p->qcap) {
        size_t cap = p->qcap ? p->qcap * 2 : 4;
        dl_pending_queued_t *q = realloc(p->queued, cap * sizeof(*q));
        if (!q) return DL_ERR_NOMEM;
        p->queued = q;
        p->qcap = cap;
    }
    block = malloc(argc * (sizeof(char *) + sizeof(size_t)) + bytes + 1);
    if (!block) return DL_ERR_NOMEM;
    argv = (const char **)(void *)block;
    argvlen = (size_t *)(void *)(block + argc * sizeof(char *));
    data = block + argc * (sizeof(char *) + sizeof(size_t));
    for (i = 0; i < argc; i++) {
        if (cmd->argvlen[i] > 0) memcpy(data, cmd->argv[i], cmd->argvlen[i]);
        argv[i] = data;
        argvlen[i] = cmd->argvlen[i];
        data += cmd->argvlen[i];
    }
    p->queued[p->nq].cmd.argc = cmd->argc;
    p->queued[p->nq].cmd.argv = argv;
    p->queued[p->nq].cmd.argvlen = argvlen;
    p->queued[p->nq].block = block;
    p->queued[p->nq].fn = fn;
    p->queued[p->nq].arg = arg;
    p->queued[p->nq].pid = dl_proc_pid();
    p->queued[p->nq].keep_until_ns = keep_until_ns;
    p->nq++;
    return DL_OK;
}

void dl_pending_defer(const dl_transport_t *t, const dl_cmd_t *cmd, dl_pending_fn fn, void *arg,
                      int64_t keep_until_ns)
{
    dl_call_bound_t saved;
    dl_error_t err;
    dl_status_t st;
    dl_reply_t none;

    memset(&none, 0, sizeof(none));
    dl_call_bound_grace(&saved, DL_PENDING_GRACE_US);
    if (!t->pending || !t->send) {
        /* A transport without deferred replies (Cluster's router): one call
         * within the grace, so that the command is at least written; a reply
         * not in by then is dropped with its connection. */
        st = t->call(t->impl, 1, cmd, &none, 0, &err);
        dl_call_bound_end(&saved);
        fn(arg, t, st == DL_OK ? DL_PENDING_REPLY : DL_PENDING_LOST, &none);
        dl_reply_free(&none);
        return;
    }
    st = dl_pending_send(t, cmd, fn, arg, &err);
    dl_call_bound_end(&saved);
    if (st == DL_OK) return;
    if (queue_copy(t->pending, cmd, fn, arg, keep_until_ns) != DL_OK) fn(arg, t, DL_PENDING_LOST, &none);
}

/* Takes the entries out of p (so that handlers may defer again) and hands each
 * its outcome. The reply slots were filled by the caller where read. */
static void hand_out(dl_pending_entry_t *entries, size_t n, size_t nread, const dl_transport_t *t,
                     dl_pending_outcome_t unread)
{
    size_t i;
    for (i = 0; i < n; i++) {
        dl_pending_entry_t *e = &entries[i];
        e->fn(e->arg, t, i < nread ? DL_PENDING_REPLY : unread, &e->reply);
        dl_reply_free(&e->reply);
    }
    free(entries);
}

static void detach(dl_pending_t *p, dl_pending_entry_t **entries, size_t *n)
{
    *entries = p->entries;
    *n = p->n;
    p->entries = NULL;
    p->n = p->cap = 0;
}

void dl_pending_settle(const dl_transport_t *t)
{
    dl_pending_entry_t *entries;
    size_t n, nread = 0;
    dl_error_t err;

    dl_pending_write_queued(t);
    if (!t->pending || t->pending->n == 0) return;
    detach(t->pending, &entries, &n);
    if (entries[0].pid != dl_proc_pid()) {
        hand_out(entries, n, 0, t, DL_PENDING_ABANDONED);
        return;
    }
    while (nread < n && t->recv(t->impl, &entries[nread].reply, &err) == DL_OK) nread++;
    hand_out(entries, n, nread, t, DL_PENDING_LOST);
}

void dl_pending_take_ready(const dl_transport_t *t)
{
    dl_pending_t *p = t->pending;
    if (!p || p->n == 0) return;
    if (p->entries[0].pid != dl_proc_pid() || !t->has_input) {
        dl_pending_settle(t);
        return;
    }
    while (p->n > 0 && t->has_input(t->impl)) {
        dl_pending_entry_t e = p->entries[0];
        dl_error_t err;
        dl_status_t st = t->recv(t->impl, &e.reply, &err);
        memmove(p->entries, p->entries + 1, (p->n - 1) * sizeof(*p->entries));
        p->n--;
        e.fn(e.arg, t, st == DL_OK ? DL_PENDING_REPLY : DL_PENDING_LOST, &e.reply);
        dl_reply_free(&e.reply);
        if (st != DL_OK) {
            dl_pending_settle(t);   /* the connection is gone: the rest are lost too */
            return;
        }
    }
}

dl_status_t dl_pending_call(const dl_transport_t *t, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies,
                            int64_t extra_timeout_us, dl_error_t *err)
{
    dl_pending_entry_t *entries;
    size_t owed, nread = 0, i;
    dl_status_t st;

    dl_pending_write_queued(t);
    if (t->pending && t->pending->n > 0 && t->pending->entries[0].pid != dl_proc_pid()) dl_pending_settle(t);
    if (!t->pending || t->pending->n == 0 || extra_timeout_us != 0 || !t->has_input || t->has_input(t->impl)) {
        dl_pending_settle(t);
        st = t->call(t->impl, n, cmds, replies, extra_timeout_us, err);
        if (st == DL_ERR_TIMEOUT && extra_timeout_us >= 0) dl_call_bound_close();   /* as below */
        return st;
    }
    for (i = 0; i < n; i++) memset(&replies[i], 0, sizeof(replies[i]));
    st = t->send(t->impl, n, cmds, err);
    detach(t->pending, &entries, &owed);
    if (st == DL_OK) {
        /* A failure reading an owed reply keeps its own code and message (a
         * timeout stays a timeout: the caller's retry policy depends on it). */
        while (nread < owed && (st = t->recv(t->impl, &entries[nread].reply, err)) == DL_OK) nread++;
        for (i = 0; st == DL_OK && i < n; i++) st = t->recv(t->impl, &replies[i], err);
        if (st == DL_OK) dl_obs_round_trip(t->endpoint);   /* an observer's facts (dl_obs.h) */
    }
    /* A round trip not answered within its `timeout` ends the call (issue
     * 37.2): what it still owes (a LOST release's second attempt, the caller's
     * undo or retry) finds the bound spent, so it is written, not waited for. */
    if (st == DL_ERR_TIMEOUT) dl_call_bound_close();   /* (extra_timeout_us is 0 here) */
    /* Every reply is read (or the connection is gone): now the owners may act,
     * and send (a LOST release goes out again before the caller retries). */
    hand_out(entries, owed, nread, t, DL_PENDING_LOST);
    return st;
}

dl_status_t dl_pending_send(const dl_transport_t *t, const dl_cmd_t *cmd, dl_pending_fn fn, void *arg,
                            dl_error_t *err)
{
    dl_pending_t *p = t->pending;
    dl_status_t st;

    if (!p || !t->send) return dl_error_set(err, DL_ERR_ARG, "this transport cannot defer replies");
    if (p->n > 0 && p->entries[0].pid != dl_proc_pid()) dl_pending_settle(t);  /* a parent's: abandoned */
    dl_pending_write_queued(t);   /* kept commands go first: the server runs them in the order written */
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 4;
        dl_pending_entry_t *e = realloc(p->entries, cap * sizeof(*e));
        if (!e) return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        p->entries = e;
        p->cap = cap;
    }
    st = t->send(t->impl, 1, cmd, err);
    if (st != DL_OK) {
        /* The connection is gone, and with it the replies owed before: they are LOST. */
        dl_pending_settle(t);
        return st;
    }
    p->entries[p->n].fn = fn;
    p->entries[p->n].arg = arg;
    p->entries[p->n].pid = dl_proc_pid();
    memset(&p->entries[p->n].reply, 0, sizeof(dl_reply_t));
    p->n++;
    return DL_OK;
}

void dl_pending_discard(dl_pending_t *p)
{
    dl_pending_entry_t *entries;
    size_t n;
    dl_transport_t none;

    memset(&none, 0, sizeof(none));
    if (p && p->nq > 0) queued_drop(p, &none, DL_PENDING_ABANDONED);
    if (!p || p->n == 0) {
        if (p) { free(p->entries); p->entries = NULL; p->cap = 0; }
        return;
    }
    detach(p, &entries, &n);
    hand_out(entries, n, 0, &none, DL_PENDING_ABANDONED);
}
