/* POSIX.1-2008, before any system header: the build passes no feature macro
 * (docs/decisions/0036-platform-calls-chosen-by-configure.md). */
#define _POSIX_C_SOURCE 200809L

#include "dl_fanout.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/dl_clock.h"
#include "../base/dl_obs.h"
#include "../base/dl_platform.h"
#include "../transport/dl_pending.h"

/*
 * What one node's deferred replies land in. It outlives the round when the
 * round ends first (abandoned): the owed replies then free it when they are
 * finally read, or found lost, on a later use of the connection.
 */
typedef struct slot {
    size_t k, got, outstanding;
    int lost, abandoned;
    int connect_fd;           /* >= 0: connecting (nothing sent yet); wait for this socket to be writable */
    dl_reply_t replies[];
} slot_t;

static void slot_free(slot_t *s)
{
    size_t i;
    for (i = 0; i < s->got; i++) dl_reply_free(&s->replies[i]);
    free(s);
}

/* dl_pending_fn: one outcome per command sent. */
static void on_outcome(void *arg, const dl_transport_t *t, dl_pending_outcome_t outcome, dl_reply_t *reply)
{
    slot_t *s = arg;
    (void)t;
    if (outcome == DL_PENDING_REPLY && !s->lost && s->got < s->k) {
        s->replies[s->got++] = *reply;
        memset(reply, 0, sizeof(*reply));
    } else {
        dl_reply_free(reply);
        s->lost = 1;
    }
    if (--s->outstanding == 0 && s->abandoned) slot_free(s);
}

static void fail(dl_fanout_node_t *nd, dl_status_t st, const char *why)
{
    nd->done = 1;
    nd->st = st;
    snprintf(nd->why, sizeof(nd->why), "%s", why);
}

/* The node's replies are all in, or lost: hand them over. */
static void complete(dl_fanout_node_t *nd, slot_t *s)
{
    if (s->lost) {
        char why[DL_ERR_MSG_MAX];
        snprintf(why, sizeof(why), "the connection to Redis at %s failed before the reply was read",
                 nd->t->endpoint ? nd->t->endpoint : "?");
        fail(nd, DL_ERR_IO, why);
    } else {
        memcpy(nd->replies, s->replies, s->k * sizeof(dl_reply_t));
        s->got = 0;   /* moved out */
        nd->done = 1;
        nd->st = DL_OK;
        dl_obs_round_trip(nd->t->endpoint);   /* an observer's facts (dl_obs.h): no-op unless armed */
    }
    slot_free(s);
}

/* Writes the node's commands; returns its slot, or NULL when the node is done (failed). */
static slot_t *send_cmds(dl_fanout_node_t *nd, slot_t *s)
{
    dl_error_t err;
    size_t j;
    s->connect_fd = -1;
    for (j = 0; j < nd->k; j++) {
        if (dl_pending_send(nd->t, &nd->cmds[j], on_outcome, s, &err) != DL_OK) {
            /* The connection was dropped: what was recorded is lost with it. */
            fail(nd, err.code, err.msg);
            s->lost = 1;
            s->abandoned = 1;
            if (s->outstanding == 0) slot_free(s);
            return NULL;
        }
        s->outstanding++;
    }
    return s;
}

/*
 * Starts the node: a connect in progress (its slot waits for writability, so
 * that every server connects at once), or its commands written. Returns its
 * slot, or NULL when the node is done already.
 */
static slot_t *start(dl_fanout_node_t *nd)
{
    dl_error_t err;
    slot_t *s;
    size_t j;

    if (nd->done) return NULL;
    if (!nd->t->fd || !nd->t->send || !nd->t->recv) {
        /* Not pollable: one call, in turn. */
        dl_status_t st = nd->t->call(nd->t->impl, nd->k, nd->cmds, nd->replies, 0, &err);
        if (st == DL_OK) {
            nd->done = 1;
            nd->st = DL_OK;
        } else {
            for (j = 0; j < nd->k; j++) dl_reply_free(&nd->replies[j]);
            fail(nd, st, err.msg);
        }
        return NULL;
    }
    s = calloc(1, sizeof(*s) + nd->k * sizeof(dl_reply_t));
    if (!s) {
        fail(nd, DL_ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->k = nd->k;
    s->connect_fd = nd->t->connect_start ? nd->t->connect_start(nd->t->impl) : -1;
    return s->connect_fd >= 0 ? s : send_cmds(nd, s);
}

/* Reads node i's replies that are there; returns decided()'s verdict once it is complete. */
static int settle(dl_fanout_node_t *nodes, size_t n, slot_t **slots, size_t i, dl_fanout_decided_fn decided, void *arg)
{
    /* Only what has arrived: a master stopped after answering an earlier
     * round has its old replies readable and our new ones missing; waiting
     * for those here would stall every other master's reading. */
    dl_pending_take_ready(nodes[i].t);
    if (slots[i]->got == slots[i]->k || slots[i]->lost) {
        complete(&nodes[i], slots[i]);
        slots[i] = NULL;
        return decided ? decided(arg, nodes, n) : 0;
    }
    return 0;
}

/*
 * A node the round ended without: DL_ERR_TIMEOUT with why_fmt (one %s: the
 * endpoint). done only when the deadline passed; when the round was decided
 * without it, done stays 0, so that it is not taken for a node that is down.
 */
static void unfinished(dl_fanout_node_t *nd, int decided, const char *why_fmt, const char *late)
{
    char why[DL_ERR_MSG_MAX];
    snprintf(why, sizeof(why), why_fmt, nd->t->endpoint ? nd->t->endpoint : "?", late);
    if (decided) {
        nd->st = DL_ERR_TIMEOUT;
        snprintf(nd->why, sizeof(nd->why), "%s", why);
    } else {
        fail(nd, DL_ERR_TIMEOUT, why);
    }
}

void dl_fanout_run(dl_fanout_node_t *nodes, size_t n, int64_t deadline_ns, const char *late,
                   dl_fanout_decided_fn decided, void *arg)
{
    slot_t **slots = calloc(n ? n : 1, sizeof(*slots));
    struct pollfd *pfd = calloc(n ? n : 1, sizeof(*pfd));
    size_t *idx = calloc(n ? n : 1, sizeof(*idx));
    size_t i, m;
    int is_decided = 0;

    if (!slots || !pfd || !idx) {
        for (i = 0; i < n; i++) {
            if (!nodes[i].done) fail(&nodes[i], DL_ERR_NOMEM, "out of memory");
        }
        free(slots);
        free(pfd);
        free(idx);
        return;
    }
    /* Every node is asked, even when early ones decide the round: a grant must
     * be tried everywhere (and undone everywhere), and writes cost no wait. */
    for (i = 0; i < n; i++) slots[i] = start(&nodes[i]);
    if (decided) is_decided = decided(arg, nodes, n);
    /* No look at hiredis's buffers first: a node's buffer holds nothing once
     * its owed replies are read (dl_pending_take_ready reads all that came), so
     * readiness is the socket's alone. */
    while (!is_decided) {
        int rc;
        size_t r;

        for (i = 0, m = 0; i < n && !is_decided; i++) {
            if (!slots[i]) continue;
            if (slots[i]->connect_fd >= 0) {   /* connecting: writable once connected (or failed) */
                pfd[m].fd = slots[i]->connect_fd;
                pfd[m].events = POLLOUT;
                pfd[m].revents = 0;
                idx[m++] = i;
                continue;
            }
            pfd[m].fd = nodes[i].t->fd(nodes[i].t->impl);
            if (pfd[m].fd < 0) {   /* the connection is gone: its replies are lost */
                is_decided = settle(nodes, n, slots, i, decided, arg);
                continue;
            }
            pfd[m].events = POLLIN;
            pfd[m].revents = 0;
            idx[m++] = i;
        }
        if (m == 0 || is_decided) break;
        if (deadline_ns - dl_clock_now_ns() <= 0) break;
        rc = dl_platform_poll(pfd, m, deadline_ns);
        if (rc < 0 && errno != EINTR) break;
        for (r = 0; rc > 0 && r < m && !is_decided; r++) {
            if (!pfd[r].revents) continue;
            i = idx[r];
            if (slots[i]->connect_fd >= 0) {
                /* Connected (or refused: the send completes the connect, and reports that). */
                slots[i] = send_cmds(&nodes[i], slots[i]);
                if (!slots[i] && decided) is_decided = decided(arg, nodes, n);
                continue;
            }
            /* Readable: the replies that came (dl_pending_take_ready), or EOF,
             * which settles them as lost. */
            is_decided = settle(nodes, n, slots, i, decided, arg);
        }
    }
    /* At the deadline: what has arrived meanwhile still counts. */
    for (i = 0; i < n && !is_decided; i++) {
        if (slots[i] && slots[i]->connect_fd < 0 && nodes[i].t->has_input(nodes[i].t->impl)) {
            is_decided = settle(nodes, n, slots, i, decided, arg);
        }
    }
    for (i = 0; i < n; i++) {
        if (!slots[i]) continue;
        if (slots[i]->connect_fd >= 0) {
            /* Still connecting: nothing was sent. The connect goes on: the next
             * round polls it again, or a call completes it. */
            unfinished(&nodes[i], is_decided, "Redis at %s: not connected within %s", late);
            slot_free(slots[i]);
        } else {
            /* Not waited for (decided) is not "down": the node may well answer. */
            unfinished(&nodes[i], is_decided, is_decided ? "Redis at %s: not waited for (the round was decided)%.0s"
                                                         : "Redis at %s did not answer within %s", late);
            slots[i]->abandoned = 1;   /* freed by its last outcome, on a later use of the connection */
        }
        slots[i] = NULL;
    }
    free(slots);
    free(pfd);
    free(idx);
}
