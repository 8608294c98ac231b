/*
 * dl_pending — the replies a connection still owes: commands written without
 * waiting for their answer (the implicit releases: a Lock destroyed, the end
 * of synchronized()), read later.
 *
 * Rules (issue 11; RELIABILITY.md item 4):
 *   - a deferred reply is read before the reply of any later command on that
 *     connection (dl_pending_call writes the next command behind the owed ones
 *     and reads them all in order: one round trip), so it never becomes the
 *     answer to another command, and the server runs them in the order written;
 *   - every deferred command gets exactly one outcome: its reply; LOST, when
 *     the connection failed before the reply was read (the command may or may
 *     not have run: the owner re-sends it if it is idempotent); or ABANDONED,
 *     in a process other than the one that wrote it (after fork() the child
 *     never reads or writes the parent's connection);
 *   - replies are all read before any outcome is handled, so a handler may
 *     send commands of its own (a NOSCRIPT fallback, a re-send).
 */
#ifndef DL_PENDING_H
#define DL_PENDING_H

#include <stddef.h>
#include <sys/types.h>

#include "../base/dl_err.h"
#include "dl_transport.h"

typedef enum {
    DL_PENDING_REPLY = 0,   /* *reply is the command's reply (the handler may keep its strings; it frees it) */
    DL_PENDING_LOST,        /* the connection failed before the reply was read; reply is NIL */
    DL_PENDING_ABANDONED    /* another process: touch nothing but arg; reply is NIL */
} dl_pending_outcome_t;

/* Handles one outcome and frees arg. t is the transport to send anything else on. */
typedef void (*dl_pending_fn)(void *arg, const dl_transport_t *t, dl_pending_outcome_t outcome, dl_reply_t *reply);

typedef struct dl_pending_entry {
    dl_pending_fn fn;
    void *arg;
    pid_t pid;              /* the process that wrote the command */
    dl_reply_t reply;       /* filled when read (dl_pending_settle, dl_pending_call, dl_pending_take_ready) */
} dl_pending_entry_t;

/* A command owed but not written yet (dl_pending_defer): its own copy. */
typedef struct dl_pending_queued {
    dl_cmd_t cmd;           /* argv and argvlen point into block */
    void *block;            /* malloc'd: the vectors and the argument bytes */
    dl_pending_fn fn;
    void *arg;
    pid_t pid;
    int64_t keep_until_ns;  /* monotonic ns after which it is dropped, not written (0: no limit) */
} dl_pending_queued_t;

struct dl_pending {
    dl_pending_entry_t *entries;
    size_t n, cap;
    dl_pending_queued_t *queued;   /* written before anything else on the connection */
    size_t nq, qcap;
};

/* How long a deferred write may take past a call's bound (dl_clock.h) to get
 * a connection (connect, AUTH): on loopback or a LAN a connect to a stalled
 * server completes in the kernel, in microseconds. */
#define DL_PENDING_GRACE_US 5000

/*
 * Writes cmd on t without reading its reply; fn(arg, ...) gets the outcome
 * later. Entries another process left (fork) are abandoned first. Returns
 * DL_OK (fn now owns arg), DL_ERR_ARG when t cannot defer, DL_ERR_NOMEM, or
 * the send's transport failure; on any error nothing is recorded and arg is
 * still the caller's (the command may have been partly written: the
 * connection was dropped, so its reply can never be misread).
 */
dl_status_t dl_pending_send(const dl_transport_t *t, const dl_cmd_t *cmd, dl_pending_fn fn, void *arg,
                            dl_error_t *err);

/*
 * Reads every reply t still owes, then hands each entry its outcome, in the
 * order written. A read failure makes that entry and the later ones LOST
 * (the connection is dropped by then). In another process, every entry is
 * ABANDONED without a read. No-op when nothing is owed.
 */
void dl_pending_settle(const dl_transport_t *t);

/*
 * Reads the owed replies that are ready (t->has_input: buffered, or a readable
 * socket), one at a time, handing each its outcome at once; stops at the
 * first that is not there yet, so it waits at most for the rest of a reply
 * already arriving. A failed read makes that entry and the later ones LOST.
 * For entries whose handlers do not send on t (the fan-out's, dl_fanout.c):
 * a handler runs while later replies are still owed.
 */
void dl_pending_take_ready(const dl_transport_t *t);

/*
 * A call on t that first takes the replies t still owes. While they are still
 * in flight (nothing to read yet), the n commands are written behind them and
 * the owed replies and the n replies are read in order: one round trip for
 * both. When input is already waiting (the replies came, or the server closed
 * the connection: a Redis idle timeout), the owed replies are settled first,
 * without waiting, so that a dead connection is found and replaced before
 * the n commands are written. The owed entries get their outcomes after every
 * reply is read. With nothing owed (or another process's entries, abandoned
 * first), or with extra_timeout_us != 0 (a blocking command), settle, then t->call.
 * Returns as t->call: replies[] filled on DL_OK; on a failure the connection
 * is dropped, the owed entries are LOST (their owners send them again first),
 * and the n commands may or may not have run.
 */
dl_status_t dl_pending_call(const dl_transport_t *t, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies,
                            int64_t extra_timeout_us, dl_error_t *err);

/*
 * Work that goes on without the caller waiting for it (the undo of an
 * ambiguous acquire, a wait's cancel, a release's second attempt: issue 27.3).
 * Writes cmd on t as dl_pending_send does, allowing the connect
 * DL_PENDING_GRACE_US past the call's bound; when that fails (the server is
 * unreachable, or AUTH is not answered in time) a copy of cmd is kept and
 * written before the next command on t, or at dl_pending_settle (request end,
 * the connection given back or freed). fn(arg, ...) gets the outcome in every
 * case (LOST when it could not be kept or written; ABANDONED in another
 * process, or when the connection is freed first): the command must be
 * idempotent and harmless if it never runs (a lease it would end ends at its TTL).
 * A transport that cannot defer (no send: Cluster's router) makes one call
 * within the grace instead, so that the command is at least written.
 * keep_until_ns (monotonic ns; 0: no limit): a kept copy not written by then
 * is dropped (its outcome LOST), never written late. A release or undo by
 * token kept past its lease's end could otherwise delete a later lease that
 * reuses the same caller-chosen token.
 */
void dl_pending_defer(const dl_transport_t *t, const dl_cmd_t *cmd, dl_pending_fn fn, void *arg,
                      int64_t keep_until_ns);

/* Writes the commands dl_pending_defer kept (their replies are then owed).
 * Called first by dl_pending_call, dl_pending_settle and dl_pending_send. */
void dl_pending_write_queued(const dl_transport_t *t);

/* Number of replies owed (and commands kept to be written). */
size_t dl_pending_count(const dl_pending_t *p);

/* For a connection being freed without a settle: every entry is ABANDONED (args freed), the memory released. */
void dl_pending_discard(dl_pending_t *p);

#endif
