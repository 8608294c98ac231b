/*
 * dl_fanout — one round of commands sent to N servers at once (Redlock).
 *
 * Every node's commands are written first (dl_pending_send: nothing is read
 * yet), then the replies are read as they come, with one poll() over the N
 * sockets, under one deadline. The round ends as soon as the caller's
 * decided() says the outcome is known (a quorum for, or too many against):
 * a slow node then costs nothing more. A node that has not answered by then
 * keeps its replies owed on its connection (dl_pending), where they are read
 * and dropped before anything else is read on it, so a late reply can never
 * answer a later command (RELIABILITY.md item 4).
 *
 * hiredis 0.14 has no poll adapter: the connections stay blocking hiredis
 * contexts; the fan-out only waits for readability before reading (dl_conn's
 * fd, send, recv). A transport that cannot be polled (fd NULL, as the C unit
 * tests' fake) is called in turn instead: the same outcome, sequentially.
 */
#ifndef DL_FANOUT_H
#define DL_FANOUT_H

#include <stddef.h>
#include <stdint.h>

#include "../base/dl_err.h"
#include "../transport/dl_transport.h"

typedef struct dl_fanout_node {
    /* in */
    const dl_transport_t *t;    /* NULL: not asked (marked down); give st and why */
    size_t k;                   /* commands to send (>= 1) */
    const dl_cmd_t *cmds;       /* k commands (copied as written) */
    dl_reply_t *replies;        /* k slots, filled when st is DL_OK (caller frees them) */
    /* out */
    int done;                   /* 1 once st is final */
    dl_status_t st;             /* DL_OK: every reply read (error replies included);
                                 * DL_ERR_TIMEOUT: no reply by the deadline; else the failure */
    char why[DL_ERR_MSG_MAX];   /* for st != DL_OK: what happened, naming the endpoint */
} dl_fanout_node_t;

/* Called after each node completes: return 1 when the round's outcome is decided. May be NULL. */
typedef int (*dl_fanout_decided_fn)(void *arg, const dl_fanout_node_t *nodes, size_t n);

/*
 * Sends each node's commands and reads replies until every node is done,
 * decided() returns 1, or deadline_ns (monotonic) passes. Nodes that did not
 * answer by the deadline get st DL_ERR_TIMEOUT and done 1; nodes not waited
 * for because decided() said so keep done 0 (st DL_ERR_TIMEOUT, "not waited
 * for"): they are not known to be slow. Either way their replies stay owed on
 * their connections. Nodes whose t is NULL must come
 * with done = 1 and st/why set by the caller. Never fails as a whole.
 * late: the bound a node that did not answer missed, as its message names it
 * ("this call's 0.500 s bound (timeout)": the words every operation uses,
 * issue 37.2).
 */
void dl_fanout_run(dl_fanout_node_t *nodes, size_t n, int64_t deadline_ns, const char *late,
                   dl_fanout_decided_fn decided, void *arg);

#endif
