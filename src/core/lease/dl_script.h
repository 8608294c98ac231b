/*
 * dl_script — running the lock's Lua scripts (internal to the core).
 *
 * One place knows each script's argument vector (its "shape": which keys of
 * the lease go into KEYS, which values into ARGV), sends it with EVALSHA,
 * falls back to EVAL on NOSCRIPT, and applies the retry policy of the
 * operation. dl_lock, dl_acquire and dl_quorum build on it.
 */
#ifndef DL_SCRIPT_H
#define DL_SCRIPT_H

#include "dl_lock.h"
#include "../transport/dl_pending.h"
#include "../transport/dl_transport.h"

/*
 * When a failed call is sent again on a fresh connection (when the call's
 * bound (dl_clock.h) is spent, a DL_RETRY_ANY second attempt is deferred,
 * dl_script_defer-style, and the first attempt's failure returned):
 *   DL_RETRY_NEVER    acquire, DEL, cancel, the undo of an ambiguous acquire
 *                     (a repeat could act twice, or is best-effort anyway);
 *   DL_RETRY_ON_DROP  reads: only when the connection broke (I/O or protocol
 *                     error), not after a timeout (a slow server stays slow);
 *   DL_RETRY_ANY      release and refresh: also after a timeout, because a
 *                     lost reply would otherwise keep the lock until its TTL
 *                     (RELIABILITY.md item 3); both are idempotent.
 */
typedef enum { DL_RETRY_NEVER = 0, DL_RETRY_ON_DROP, DL_RETRY_ANY } dl_retry_t;

/* Argument shapes (see dl_scripts.h for what each script takes). */
typedef enum {
    DL_SHAPE_STATUS,        /* K; token (also the exclusive lease's status) */
    DL_SHAPE_REFRESH,       /* K; token, ttl */
    DL_SHAPE_RELEASE,       /* K W Q; token, wake TTL */
    DL_SHAPE_CANCEL,        /* K Q W; token, wake TTL */
    DL_SHAPE_ACQUIRE,       /* K F Q; token, ttl, fence, waiter window */
    DL_SHAPE_FAIR_ACQUIRE,  /* K F FQ FA MYWAKE; token, ttl, fence, liveness window */
    DL_SHAPE_FAIR_RELEASE,  /* K F FQ FA; token, wake prefix, wake TTL, claim, mode */
    DL_SHAPE_FAIR_CANCEL,   /* the fair release script in "cancel" mode */
    DL_SHAPE_WAKE,          /* Q W; wake TTL */
    DL_SHAPE_SEM_ACQUIRE,   /* K P Q W; token, ttl, permits, limit, waiter window */
    DL_SHAPE_SEM_RELEASE,   /* K W Q P; token, wake TTL */
    DL_SHAPE_SEM_REFRESH,   /* K P; token, ttl */
    DL_SHAPE_SEM_USAGE,     /* K P */
    DL_SHAPE_RW,            /* K F W Q R RQ RW; token, ttl, fence, waiter window, wake TTL */
    DL_SHAPE_INSPECT        /* K Q FQ R RQ P */
} dl_shape_t;

typedef struct dl_script {
    const char *text;
    const char *sha;
    const char *what;   /* for messages: "the release script" */
    dl_shape_t shape;
} dl_script_t;

extern const dl_script_t DL_ACQUIRE_SCRIPT, DL_RELEASE_SCRIPT, DL_CANCEL_SCRIPT, DL_FAIR_ACQUIRE_SCRIPT,
    DL_FAIR_RELEASE_SCRIPT, DL_FAIR_CANCEL_SCRIPT, DL_REFRESH_SCRIPT, DL_STATUS_SCRIPT, DL_WAKE_SCRIPT, DL_UNDO_SCRIPT,
    DL_SEM_USAGE_SCRIPT, DL_RW_PROMOTE_SCRIPT, DL_RW_DEMOTE_SCRIPT, DL_INSPECT_SCRIPT;

/*
 * A primitive: what a lease holds, as the scripts that act on it. The
 * one-server operations (dl_lock, dl_acquire) run whichever primitive the
 * lease names; a primitive adds its scripts here, not its own loop.
 *   exclusive   the mutex (default mode)
 *   fair        the mutex with a FIFO queue and direct hand-over
 *   permits     the counting semaphore (dl_lease.h: DL_LEASE_PERMITS)
 *   shared      a shared lease of a readers-writer name (DL_LEASE_SHARED)
 *   write       the exclusive lease of a readers-writer name (DL_LEASE_WRITE)
 */
typedef enum {
    DL_WAKE_COMMON = 0,   /* W: the name's wake list */
    DL_WAKE_OWN,          /* the waiter's own list (fair hand-over) */
    DL_WAKE_SHARED        /* RW: the shared waiters' list */
} dl_wake_list_t;

typedef struct dl_primitive {
    const char *name;
    const dl_script_t *acquire;   /* {1, fence} granted; {0, ms until a holder's lease ends} not */
    const dl_script_t *release;   /* 1 released, 0 another owner's, -1 nothing of ours (gone) */
    const dl_script_t *cancel;    /* a waiter leaves (passing on a wake-up it may have taken) */
    const dl_script_t *undo;      /* the undo of an ambiguous acquire (run by EVAL) */
    const dl_script_t *refresh;   /* 1 extended, 0 not ours */
    const dl_script_t *status;    /* ms left if ours, -3 if not */
    dl_wake_list_t wake;          /* the list its waiters block on */
    int plain;                    /* K is a plain string under the token, and nothing else needs doing:
                                   * a SET NX PX may take it, and the server's native compare-and-
                                   * delete and compare-and-refresh (dl_lock_native) act on it */
} dl_primitive_t;

/* The primitive of the lease: its kind and, for the mutex, fair mode. */
const dl_primitive_t *dl_primitive_of(const dl_lease_t *lease);

/* The key of the wake list a waiter for lease blocks on (its primitive's), and its length. */
const char *dl_primitive_wake_key(const dl_lease_t *lease, size_t *len);

/* The argument vector of one script call (EVALSHA sha numkeys key... arg...). */
typedef struct dl_script_call {
    const char *argv[20];
    size_t argvlen[20];
    int argc;
    int nums;
    char num[5][24];
} dl_script_call_t;

/*
 * Fills sc with the call of script s for lease (ttl_ms and waiting as for
 * dl_script_run) by EVALSHA, or by EVAL when eval is set, and returns it as a
 * command whose vectors point into sc and lease (valid while both are).
 * Used by the fan-out of dl_quorum, which sends one call to many servers.
 */
dl_cmd_t dl_script_command(dl_script_call_t *sc, const dl_script_t *s, const dl_lease_t *lease, int64_t ttl_ms,
                           int waiting, int eval);

/* The release script of the lease's primitive (dl_primitive_of(lease)->release). */
const dl_script_t *dl_script_release_for(const dl_lease_t *lease);

/* One transport call, sent once more on a fresh connection as retry allows. */
dl_status_t dl_call(const dl_transport_t *t, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies, dl_retry_t retry,
                    dl_error_t *err);

/* dl_call that also sets *retried when the call was sent a second time. */
dl_status_t dl_call_retried(const dl_transport_t *t, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies,
                            dl_retry_t retry, int *retried, dl_error_t *err);

/*
 * Runs script s for lease (ttl_ms for the shapes that take a ttl; waiting
 * selects the waiter/liveness window of the acquire shapes). force_eval sends
 * the text with EVAL at once (for the rare undo, which must not depend on the
 * script cache and gets no second chance). The reply goes to *r (caller frees).
 * An error reply other than NOSCRIPT is returned as DL_ERR_SERVER.
 */
dl_status_t dl_script_run(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease, int64_t ttl_ms,
                          int waiting, int force_eval, dl_retry_t retry, dl_reply_t *r, dl_error_t *err);

/* dl_script_run that also sets *retried (when not NULL) when a call was sent a second time. */
dl_status_t dl_script_run_retried(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease,
                                  int64_t ttl_ms, int waiting, int force_eval, dl_retry_t retry, dl_reply_t *r,
                                  int *retried, dl_error_t *err);

/*
 * Writes script s for lease by EVAL (never NOSCRIPT: see dl_script.c) without
 * waiting for its reply (dl_pending_send: fn(arg, ...) gets the outcome).
 * Errors as dl_pending_send's: then nothing is recorded and arg is the caller's.
 */
dl_status_t dl_script_send(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease,
                           dl_pending_fn fn, void *arg, dl_error_t *err);

/*
 * Runs script s for lease (by EVAL; ttl_ms: the lease's) without the caller
 * waiting for it: the undo of an ambiguous acquire, a wait's cancel (issue
 * 27.3: a call ends within its bound). Written at once when a connection can
 * be had (dl_pending_defer: DL_PENDING_GRACE_US past the bound), else kept
 * and written before the next command on t or when t is settled. Its reply is
 * read then and ignored; if it never runs, what it would have ended ends at
 * its TTL. Only for scripts that are idempotent (same token) and best effort.
 */
void dl_script_defer(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease);

/*
 * Best-effort cleanup (an undo, a cancel): run at once (one attempt, reply
 * read, errors ignored) within what is left of the call's bound and at most
 * DL_PENDING_GRACE_US past it, so that the caller returns with it done when
 * the server answers; a reply not in by then is dropped with its connection
 * (the command, written, still runs); deferred (dl_script_defer) when no
 * connection could be had in that time.
 */
void dl_script_run_or_defer(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease, int force_eval);

/*
 * dl_script_run_or_defer with grace_us (microseconds) past the call's bound
 * instead of DL_PENDING_GRACE_US, and its outcome: DL_OK when the server
 * answered (whatever the script returned), else the transport failure, with
 * err set (DL_ERR_CONNECT: not written, deferred). The cancel of a wait whose
 * blocking pop its deadline cut asks this way whether the server still
 * answers (dl_acquire.c, issue 45.2).
 */
dl_status_t dl_script_run_or_defer_within(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease,
                                          int force_eval, int64_t grace_us, dl_error_t *err);

/* dl_script_run for scripts answering an integer. */
dl_status_t dl_script_run_int(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease, int64_t ttl_ms,
                              dl_retry_t retry, long long *result, dl_error_t *err);

/*
 * Runs, for each lease i, the script pick(leases[i]) with its own ttl_ms, all
 * in one pipelined round trip (DL_RETRY_ANY); flags[i] = the reply == 1.
 * Entries answered NOSCRIPT are sent again as one pipeline of EVALs.
 */
dl_status_t dl_script_run_many(const dl_transport_t *t, const dl_script_t *(*pick)(const dl_lease_t *), size_t n,
                               dl_lease_t *const *leases, int *flags, dl_error_t *err);

/*
 * Blocks on a wake list (BLPOP key) for up to block_us (>= 1 ms; whole ms,
 * rounded up), never past deadline_ns (the wait's deadline, monotonic ns);
 * replies owed on t are read first. The server ends a blocked command only at
 * its next timer tick (hz 10: up to 100 ms late), so the client enforces the
 * deadline itself: the reply is awaited for exactly
 * min(block_us + DL_BLOCK_REPLY_GRACE_US, deadline_ns - now). When the
 * deadline comes first, the connection is dropped (which ends the BLPOP on the
 * server), and the call returns DL_OK with *popped = 0 and *abandoned = 1: a
 * wake token that the server popped for us as we left went with the
 * connection, and the caller's cancel script passes that wake-up on
 * (DL_SCRIPT_CANCEL; fair mode: DL_SCRIPT_FAIR_RELEASE in "cancel" mode).
 * *popped = 1 when a wake token came (*value: its number). Returns DL_OK,
 * DL_ERR_SERVER when the server refuses BLPOP (an ACL without it), or a
 * transport failure. Used by dl_acquire and dl_quorum.
 */
dl_status_t dl_block_on(const dl_transport_t *t, const char *key, size_t key_len, int64_t block_us,
                        int64_t deadline_ns, int *popped, long long *value, int *abandoned,
                        dl_error_t *err);   /* in dl_acquire.c */

/* dl_block_on on n (1..DL_BLOCK_KEYS_MAX) wake lists at once (BLPOP k1 .. kn):
 * woken by whichever gets a token first. In one Cluster slot only. */
#define DL_BLOCK_KEYS_MAX 64
dl_status_t dl_block_on_any(const dl_transport_t *t, size_t n, const char *const *keys, const size_t *key_lens,
                            int64_t block_us, int64_t deadline_ns, int *popped, long long *value, int *abandoned,
                            dl_error_t *err);

/* How long a waiter blocks after a failed attempt: until the lease it waits
 * for ends (+1 ms: to wake after the expiry, not before), at most
 * remaining_us and DL_WAIT_BLOCK_CAP_US; a key without TTL (-1): the cap. */
int64_t dl_block_time_us(int64_t remaining_us, int64_t holder_pttl_ms);   /* in dl_acquire.c */

/* 1 when r is the NOSCRIPT error (the server's script cache lacks the script). */
int dl_is_noscript(const dl_reply_t *r);

/* 1 when r is a script's "DLKIND <holder's kind>[ <index>]" error reply: the
 * name is held under another kind (dl_scripts.h, top). */
int dl_is_kind_error(const dl_reply_t *r);

/* "a mutex", "a readers-writer lock" or "a semaphore": the kind of a lease, for messages. */
const char *dl_kind_label(dl_lease_kind_t kind);

/*
 * Sets err to DL_ERR_KIND for lease, held under the kind named by word[0..len)
 * ("mutex", "readers-writer" or "semaphore", as the scripts write it; the
 * rest of word is ignored): the message names the lease's name (without the
 * prefix) and both kinds, never a token. Returns DL_ERR_KIND.
 */
dl_status_t dl_kind_error(const char *word, size_t len, const dl_lease_t *lease, dl_error_t *err);

/* dl_kind_error for a DLKIND reply r. */
#define DL_KIND_ERROR_OF(r, lease, err) dl_kind_error((r)->str + 7, (r)->len - 7, (lease), (err))

/* 1 when r is a NOPERM error reply (an ACL refused the command to this user). */
int dl_is_noperm(const dl_reply_t *r);

/* 1 when r says a command did not run because this server or user does not
 * have it: NOPERM, "ERR unknown command", "ERR syntax error" (a SET that does
 * not know IFEQ). A native command so answered falls back to the script. */
int dl_is_refused(const dl_reply_t *r);

/* 1 when the connection knows (DL_CAP_KNOWN) that scripting is denied to this
 * user (its probe, or a later script call, was refused: no DL_CAP_SCRIPTING).
 * The script runners then refuse at once with DL_ERR_DENIED, sending nothing. */
int dl_scripting_denied(const dl_transport_t *t);

/* Sets err to DL_ERR_DENIED: `what` needs scripting, which this user may not run. */
dl_status_t dl_denied(const dl_transport_t *t, const char *what, dl_error_t *err);

/* Error helpers with the endpoint in the message. dl_server_error turns a
 * NOPERM for EVAL/EVALSHA into DL_ERR_DENIED (and forgets DL_CAP_SCRIPTING). */
dl_status_t dl_server_error(const dl_transport_t *t, const dl_reply_t *r, const char *what, dl_error_t *err);
dl_status_t dl_unexpected(const dl_transport_t *t, const char *what, dl_error_t *err);

/*
 * dl_call with the read timeout of the call (and of its retry) extended by
 * extra_timeout_us (for a blocking command in the pipeline, e.g. WAIT).
 */
dl_status_t dl_call_timed(const dl_transport_t *t, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies,
                          dl_retry_t retry, int64_t extra_timeout_us, dl_error_t *err);

/*
 * dl_script_run (never forced to EVAL) with the command `then` written behind
 * the script in the same round trip (min_replicas: WAIT), the read timeout
 * extended by extra_timeout_us. *r is the script's reply, *then_r that of
 * `then` (the caller frees both, also on failure). On NOSCRIPT both are sent
 * again, the script by EVAL: `then` must be harmless to repeat. An error reply
 * of the script is DL_ERR_SERVER; one of `then` is left to the caller.
 */
dl_status_t dl_script_run_then(const dl_transport_t *t, const dl_script_t *s, const dl_lease_t *lease, int64_t ttl_ms,
                               int waiting, dl_retry_t retry, const dl_cmd_t *then, int64_t extra_timeout_us,
                               dl_reply_t *r, dl_reply_t *then_r, dl_error_t *err);

#endif
