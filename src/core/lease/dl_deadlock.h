/*
 * dl_deadlock — deadlocks detected at the wait that closes them (issue 47;
 * docs/deadlocks.md, docs/decisions/0065-deadlocks-detected-at-the-wait-that-closes-them.md).
 *
 * A waiter (of any kind: a mutex, a readers-writer name's lease, a semaphore's
 * permits, a multi-lock) that holds other leases on the same server writes the
 * deadlock check (DL_SCRIPT_DEADLOCK) right behind its registration, in the
 * same round trip. The check walks the wait-for chain from the name waited
 * for, through the wait records other waiting threads published, and either
 * finds that this wait can never end because of a lease of ours (a cycle, or
 * for a semaphore's OR-wait a knot: this wait is the victim, nothing is
 * published) or publishes our own record for the waiter window.
 * Nothing is sent by a thread that holds nothing (it cannot be on a cycle),
 * by a try, or on the uncontended path. Internal to the core (dl_acquire,
 * dl_multi).
 */
#ifndef DL_DEADLOCK_H
#define DL_DEADLOCK_H

#include <stddef.h>

#include "dl_lease.h"
#include "../transport/dl_transport.h"

#define DL_DEADLOCK_HOLDS_MAX 16   /* held leases published per wait; more are left out (a cycle through
                                    * them is missed, never invented) */
#define DL_DEADLOCK_OWNER_MAX 64   /* bytes of an owner id */
#define DL_DEADLOCK_LABEL_MAX 128  /* bytes of a label */

/*
 * What the glue tells the core about the waiting thread (dl_acquire_opts_t.deadlock):
 *   owner    its owner id: the same for every wait of this thread of execution, on
 *            any instance (a process under NTS, a thread under ZTS), never shared with
 *            another thread or a forked child; 1..DL_DEADLOCK_OWNER_MAX bytes, no NUL
 *   label    how other threads' messages name it ("pid 4242 on web-3"), <= DL_DEADLOCK_LABEL_MAX
 *   self     how its own message names it ("this process (pid 4242)")
 *   holds    the leases it holds on this server and database (mutex, shared,
 *            exclusive and permits; its own grants, not restored ones), at most
 *            DL_DEADLOCK_HOLDS_MAX are used; n_holds 0: nothing is checked or published
 */
typedef struct dl_deadlock_opts {
    const char *owner;
    size_t owner_len;
    const char *label;
    const char *self;
    const dl_lease_t *const *holds;
    size_t n_holds;
} dl_deadlock_opts_t;

#define DL_DEADLOCK_NAMES_MAX 64   /* names of one multi-lock's wait (DL_MULTI_MAX) */

/* One deadlock check call: its argument vector and the keys it built (dl_deadlock_call_free). */
typedef struct dl_deadlock_call {
    const char *argv[15 + 3 * DL_DEADLOCK_NAMES_MAX + 2 * DL_DEADLOCK_HOLDS_MAX];
    size_t argvlen[15 + 3 * DL_DEADLOCK_NAMES_MAX + 2 * DL_DEADLOCK_HOLDS_MAX];
    int argc;
    char *buf;          /* R (malloc'd) */
    char window[24], off[24], limit[24], permits[24], nx[24];
} dl_deadlock_call_t;

/*
 * 1 when a wait for lease is checked: d is set and holds something, and the
 * connection runs scripts and is not a Cluster's (the walk reads keys of
 * other slots). Every kind is checked: a mutex (default or fair mode, with or
 * without fencing), a readers-writer name's shared or exclusive lease, a
 * semaphore's permits (an OR-wait), and a multi-lock (dl_multi_acquire).
 */
int dl_deadlock_applies(const dl_transport_t *t, const dl_lease_t *lease, const dl_deadlock_opts_t *d);

/*
 * Builds the check for a waiter on lease into dc: EVALSHA, or EVAL when eval
 * is set. *cmd points into dc and lease (valid while both are). Returns
 * DL_OK, or DL_ERR_NOMEM (nothing to free).
 */
dl_status_t dl_deadlock_command(dl_deadlock_call_t *dc, const dl_lease_t *lease, const dl_deadlock_opts_t *d,
                                int eval, dl_cmd_t *cmd, dl_error_t *err);

/*
 * The same for a multi-lock's waiter on leases[0..n) (1 <= n <=
 * DL_DEADLOCK_NAMES_MAX; exclusive, not fair, as dl_multi_acquire takes them):
 * it waits for the holders of all of its names. The check finds it live by
 * the first of its names whose Q holds its token, and its record counts
 * while that entry is live.
 */
dl_status_t dl_deadlock_command_multi(dl_deadlock_call_t *dc, size_t n, dl_lease_t *const *leases,
                                      const dl_deadlock_opts_t *d, int eval, dl_cmd_t *cmd, dl_error_t *err);
void dl_deadlock_call_free(dl_deadlock_call_t *dc);

/*
 * Judges the check's reply r. DL_ERR_DEADLOCK with err naming the cycle, for
 * {2, ...}: each name (the key less its prefix), who holds it, what that
 * holder waits for, ending with d->self. DL_OK for anything else: {0}, {1},
 * and an error reply (an ACL that denies the check's writes, a server without
 * the commands): the check is a help, never a reason for a wait to fail.
 */
dl_status_t dl_deadlock_judge(const dl_reply_t *r, const dl_deadlock_opts_t *d, dl_error_t *err);

/* The check's text and SHA1 (for the unit tests and the model's ties). */
extern const char *const DL_DEADLOCK_TEXT;
extern const char *const DL_DEADLOCK_SHA;

#endif
