#include "dl_pending.h"

#include <stdlib.h>
#include <string.h>

#include "../base/dl_proc.h"

size_t dl_pending_count(const dl_pending_t *p)
{
    return p ? p->n : 0;
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

    if (t->pending && t->pending->n > 0 && t->pending->entries[0].pid != dl_proc_pid()) dl_pending_settle(t);
    if (!t->pending || t->pending->n == 0 || extra_timeout_us != 0 || !t->has_input || t->has_input(t->impl)) {
        dl_pending_settle(t);
        return t->call(t->impl, n, cmds, replies, extra_timeout_us, err);
    }
    for (i = 0; i < n; i++) memset(&replies[i], 0, sizeof(replies[i]));
    st = t->send(t->impl, n, cmds, err);
    detach(t->pending, &entries, &owed);
    if (st == DL_OK) {
        /* A failure reading an owed reply keeps its own code and message (a
         * timeout stays a timeout: the caller's retry policy depends on it). */
        while (nread < owed && (st = t->recv(t->impl, &entries[nread].reply, err)) == DL_OK) nread++;
        for (i = 0; st == DL_OK && i < n; i++) st = t->recv(t->impl, &replies[i], err);
    }
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

    if (!p || p->n == 0) {
        if (p) { free(p->entries); p->entries = NULL; p->cap = 0; }
        return;
    }
    memset(&none, 0, sizeof(none));
    detach(p, &entries, &n);
    hand_out(entries, n, 0, &none, DL_PENDING_ABANDONED);
}
