/*
 * dl_err — error codes and messages of the distlock core.
 *
 * Every core function that can fail returns a dl_status_t and, on failure,
 * fills a dl_error_t with a human-readable message. Messages name what failed
 * and where (host:port or socket path) and never contain a password or token:
 * the PHP glue copies them verbatim into exception messages.
 */
#ifndef DL_ERR_H
#define DL_ERR_H

#include <stddef.h>

typedef enum {
    DL_OK = 0,
    DL_ERR_ARG,         /* invalid argument (the glue validates first; defensive) */
    DL_ERR_URI,         /* malformed server URI */
    DL_ERR_NOTLS,       /* rediss:// but this build has no TLS */
    DL_ERR_CONNECT,     /* could not connect (refused, unreachable, connect timeout) */
    DL_ERR_AUTH,        /* AUTH refused */
    DL_ERR_SELECT,      /* SELECT refused */
    DL_ERR_IO,          /* read/write failed or the server closed the connection */
    DL_ERR_TIMEOUT,     /* read/write timed out: the outcome of the command is unknown */
    DL_ERR_PROTOCOL,    /* unexpected reply type or shape */
    DL_ERR_SERVER,      /* the server answered with an error reply (-ERR ...) */
    DL_ERR_NOMEM,
    DL_ERR_RANDOM,      /* the kernel refused random bytes (dl_platform_random) */
    DL_ERR_INTERRUPTED, /* a wait was cut short by the caller's interrupt hook */
    DL_ERR_QUORUM,      /* Redlock: fewer than a quorum of the masters answered (a network failure) */
    DL_ERR_REPLICATION, /* min_replicas: WAIT counted fewer acknowledgements than asked */
    DL_ERR_KIND,        /* the name is held under another kind (mutex, readers-writer, semaphore):
                         * the caller's mistake, told by the server atomically with the grant;
                         * the connection is fine (docs/primitives.md, "One name, one kind") */
    DL_ERR_DEADLOCK,    /* the wait closed a wait-for cycle (issue 47, dl_deadlock.h): not waited, the
                         * cycle named in the message; the waiter's registration was cancelled */
    DL_ERR_DENIED       /* what was asked needs a command this user may not run, or the server lacks
                         * (scripting denied by an ACL, and no native compare-and-delete): nothing was
                         * done; the connection is fine
                         * (docs/decisions/0047-mutex-without-scripting.md) */
} dl_status_t;

#define DL_ERR_MSG_MAX 512   /* room for a Redlock QuorumException naming each master's failure */

typedef struct dl_error {
    dl_status_t code;
    char msg[DL_ERR_MSG_MAX];
} dl_error_t;

/* Sets err->code and formats err->msg (truncated to DL_ERR_MSG_MAX - 1 bytes).
 * err may be NULL. Returns code, so callers can write `return dl_error_set(...)`. */
dl_status_t dl_error_set(dl_error_t *err, dl_status_t code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Resets err to DL_OK with an empty message. err may be NULL. */
void dl_error_clear(dl_error_t *err);

/* A short fixed name for a code ("connect", "timeout", ...), for logs and tests. */
const char *dl_status_name(dl_status_t code);

/* True for the codes that mean "the connection failed after it was set up":
 * the command's effect on the server is unknown and the connection is gone. */
int dl_status_is_transport_failure(dl_status_t code);

/* True when the server gave no answer: a transport failure, or no connection
 * (DL_ERR_CONNECT). What a silent server at the end of a wait is told by
 * (docs/decisions/0062-a-silent-server-at-the-end-of-a-wait.md). */
int dl_status_is_no_answer(dl_status_t code);

#endif
