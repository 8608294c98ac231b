/*
 * dl_transport — the seam between the lock logic and the network.
 *
 * The lock logic (dl_lock) speaks to Redis only through this table, so that
 * the C unit tests can drive it with a fake transport that scripts replies,
 * and the real one (dl_conn, over hiredis) stays the only code that knows
 * the wire protocol library.
 *
 * One call = one round trip: every command in `cmds` is written, then all
 * replies are read, in order (a pipeline).
 */
#ifndef DL_TRANSPORT_H
#define DL_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "../base/dl_err.h"

typedef enum {
    DL_REPLY_NIL = 0,
    DL_REPLY_INTEGER,
    DL_REPLY_STATUS,   /* +OK */
    DL_REPLY_STRING,   /* bulk string */
    DL_REPLY_ERROR,    /* -ERR ...: not a transport failure, the command ran and failed */
    DL_REPLY_ARRAY
} dl_reply_type_t;

/* A reply owned by whoever passed it to the transport; free with dl_reply_free. */
typedef struct dl_reply {
    dl_reply_type_t type;
    long long integer;          /* DL_REPLY_INTEGER */
    char *str;                  /* STATUS, STRING, ERROR: malloc'd, NUL-terminated */
    size_t len;
    size_t elements;            /* ARRAY */
    struct dl_reply *element;   /* ARRAY: malloc'd array of `elements` replies */
} dl_reply_t;

/* One command as an argument vector (binary-safe: lengths are explicit). */
typedef struct dl_cmd {
    int argc;
    const char *const *argv;
    const size_t *argvlen;
} dl_cmd_t;

/* Integer arguments of commands are decimal strings. Writes v into buf (room
 * for 21 bytes: sign, 19 digits, NUL) and returns its length. Not snprintf:
 * that costs about 700 instructions a call (callgrind), a tenth of an
 * uncontended acquire's own work. */
static inline size_t dl_cmd_int(char *buf, int64_t v)
{
    char tmp[20];
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    size_t k = 0, n = 0;

    /* Most are under 100 (RESP's counts and lengths): about 45 instructions
     * a number less (callgrind, issue 46). */
    if (v >= 0 && v < 100) {
        if (v >= 10) buf[n++] = (char)('0' + v / 10);
        buf[n++] = (char)('0' + v % 10);
        buf[n] = '\0';
        return n;
    }
    do tmp[k++] = (char)('0' + u % 10); while ((u /= 10) > 0);
    if (v < 0) buf[n++] = '-';
    while (k > 0) buf[n++] = tmp[--k];
    buf[n] = '\0';
    return n;
}

typedef struct dl_pending dl_pending_t;   /* dl_pending.h */

/* The extra_timeout_us of a call whose replies are awaited for exactly `us`
 * microseconds (> 0), not the connection's timeout (see dl_transport_t.call). */
#define DL_TIMEOUT_EXACT(us) (-(int64_t)(us))

/* Server capabilities a connection learned (dl_transport_t.caps). */
#define DL_CAP_KNOWN 1u        /* the server was asked (HELLO) */
#define DL_CAP_DELIFEQ 2u      /* DELIFEQ key token: a native compare-and-delete (Valkey >= 9.0) */
#define DL_CAP_SET_GET 4u      /* SET ... NX GET: the old value of a key SET NX did not take (Redis >= 7.0, Valkey) */
#define DL_CAP_CLUSTER 8u      /* not the server's: the transport is a Redis Cluster, which routes a
                                * pipeline's commands one by one, so while a slot migrates some may
                                * run where another was redirected from (ASK); set, known or not */
#define DL_CAP_DELEX 16u       /* DELEX key IFEQ token: a native compare-and-delete (Redis >= 8.4, Valkey >= 9.2) */
#define DL_CAP_SET_IFEQ 32u    /* SET key value IFEQ old PX ms: a native compare-and-refresh (Redis >= 8.4,
                                * Valkey >= 8.1) */
#define DL_CAP_SCRIPTING 64u   /* EVALSHA is allowed to this user (the connection's probe was not refused) */
/* Either native compare-and-delete. The version only says what to try: a
 * refused command (unknown, NOPERM) clears its bit for the connection (caps_clear). */
#define DL_CAP_NATIVE_CAD (DL_CAP_DELEX | DL_CAP_DELIFEQ)

typedef struct dl_transport {
    /*
     * Sends n commands and reads n replies into replies[0..n-1] (which the
     * caller frees with dl_reply_free, also on failure: unread slots are NIL).
     * extra_timeout_us > 0 extends the read timeout of this call (for
     * blocking commands, e.g. WAIT); extra_timeout_us < 0 (DL_TIMEOUT_EXACT)
     * makes it exactly -extra_timeout_us, whatever the configured timeout:
     * a blocking pop whose end the client enforces at its own deadline, since
     * the server times a blocked command out only at its next timer tick (hz).
     * Returns DL_OK when every reply was read (error
     * replies included); otherwise a transport failure code, after which the
     * transport has dropped its connection. err->msg then says what and where.
     * Never called while replies of `send` are unread: the core reads those
     * first (dl_pending_settle).
     */
    dl_status_t (*call)(void *impl, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies,
                        int64_t extra_timeout_us, dl_error_t *err);
    /*
     * Deferred replies (NULL, with pending NULL, in a transport that has none).
     * send: writes n commands and returns without reading their replies.
     * recv: reads the reply of the oldest command sent and not read yet.
     * A failure of either drops the connection, and with it every unread
     * reply. Used only through dl_pending, which keeps the books.
     */
    dl_status_t (*send)(void *impl, size_t n, const dl_cmd_t *cmds, dl_error_t *err);
    dl_status_t (*recv)(void *impl, dl_reply_t *reply, dl_error_t *err);
    /* 1 when input is waiting to be read (a reply, or the server's close), or the
     * connection is gone: read what is owed before writing more. No wait, no read. */
    int (*has_input)(void *impl);
    /* The socket to poll() for the replies of `send` (the parallel fan-out of
     * dl_fanout), or -1 while not connected. NULL: the transport cannot be
     * polled, and a fan-out calls it in turn instead. */
    int (*fd)(void *impl);
    /* Starts connecting without waiting, when there is no connection yet (the
     * fan-out connects to every server at once): returns the socket to poll
     * for writability, after which `send` completes the connect without a
     * wait; or -1 when there is nothing to wait for (connected already, a
     * unix socket, a server found through a resolver (Sentinel), a connect
     * that failed at once: `send` reports it). NULL:
     * connects happen in the calls. */
    int (*connect_start)(void *impl);
    dl_pending_t *pending;  /* the replies this connection still owes (owned by it) */
    /* DL_CAP_* of the server of the current connection; 0 while not known yet
     * (learned with the first call on each new connection). NULL: none. */
    unsigned (*caps)(void *impl);
    /* Forgets capabilities the server refused to this user (NOPERM), for the rest of the connection. */
    void (*caps_clear)(void *impl, unsigned bits);
    void *impl;
    const char *endpoint;   /* "host:port" or socket path, for messages */
} dl_transport_t;

/* Frees what r owns and resets it to NIL. Safe on a NIL reply. */
void dl_reply_free(dl_reply_t *r);

#endif
