/*
 * dl_conn — one connection to one Redis server, over hiredis.
 *
 * This is the only file that includes hiredis. It connects lazily (on the
 * first call), authenticates (AUTH [user] password) and selects the database
 * in the same round trip, applies the connect and read/write timeouts, and
 * turns hiredis replies into dl_reply_t.
 *
 * Safety rules (RELIABILITY.md items 4 and 11):
 *   - after any I/O error, timeout or protocol error the hiredis context is
 *     freed: a late reply can never be read as the answer to a later command;
 *   - a context created by another process (inherited through fork()) is
 *     closed without a single byte written to it, and a new one is made.
 */
#ifndef DL_CONN_H
#define DL_CONN_H

#include <stdint.h>
#include <sys/types.h>

#include "../base/dl_err.h"
#include "dl_transport.h"
#include "../base/dl_uri.h"

#define DL_CONNECT_TIMEOUT_DEFAULT_US 1000000
#define DL_TIMEOUT_DEFAULT_US 1000000

typedef struct dl_conn dl_conn_t;

/*
 * Creates an unconnected connection for cfg, which it takes over (cfg is
 * zeroed). Timeouts not set in cfg use the defaults above. Returns NULL when
 * out of memory (cfg is then freed). For rediss:// configurations on a build
 * without TLS (hiredis 0.14, or no hiredis_ssl) it returns NULL with
 * DL_ERR_NOTLS in err. With TLS, the TLS context (CA, client certificate and
 * key files) is made at the first connect, so a file that cannot be used is
 * a DL_ERR_CONNECT of that connect, naming the option and the file.
 *
 * TLS connections (rediss://): the handshake runs inside conn_open, within
 * the connect timeout; the server's certificate and name are checked unless
 * cfg->tls_no_verify (dl_tls.h). Failures are DL_ERR_CONNECT.
 */
dl_conn_t *dl_conn_new(dl_server_config_t *cfg, dl_error_t *err);

/* Closes the connection (without writing if it belongs to another pid) and frees it. */
void dl_conn_free(dl_conn_t *c);

/*
 * In a forked child, for a connection another thread of the parent was using
 * at the moment of fork(): its hiredis structures may be half-updated, so they
 * are left alone (leaked); only the socket is closed. Nothing is written.
 */
void dl_conn_abandon(dl_conn_t *c);

/* Drops the current context, if any; the next call reconnects. */
void dl_conn_close(dl_conn_t *c);

/* A transport whose calls go to c (see dl_transport.h for the contract). */
dl_transport_t dl_conn_transport(dl_conn_t *c);

/* The configuration the connection was made with (owned by c). */
const dl_server_config_t *dl_conn_config(const dl_conn_t *c);

/* "host:port" or the socket path, for messages. Never includes credentials. */
const char *dl_conn_endpoint(const dl_conn_t *c);

/*
 * Prepares a connection kept idle (a persistent one) for reuse: a context of
 * another process is closed without writing; an open context with anything
 * to read (the server closed it, or a stray reply) is closed. Costs one
 * zero-timeout poll(), no round trip. The next call reconnects if needed.
 */
void dl_conn_check_idle(dl_conn_t *c);

/* 1 when a context is open and belongs to this process. */
int dl_conn_is_connected(const dl_conn_t *c);

/* The effective read/write timeout, µs. */
int64_t dl_conn_timeout_us(const dl_conn_t *c);

/*
 * Where the server of a connection is now: fills host[0..host_size) with a
 * NUL-terminated host name or address and *port (1..65535). Returns DL_OK, or
 * an error code with err set (e.g. DL_ERR_CONNECT: no sentinel answered),
 * which the connect then reports as its own.
 */
typedef dl_status_t (*dl_conn_resolve_fn)(void *arg, char *host, size_t host_size, int *port, dl_error_t *err);

#define DL_CONN_ROLE_RETRY_US 100000   /* pause before asking again when the node found is not a master */

/*
 * Makes c find its server through fn(arg) (dl_sentinel_resolve, for Sentinel)
 * before every connect and reconnect, so that each new connection asks again
 * and follows a failover. c must be a TCP configuration: its host and port are
 * replaced by each answer; credentials, database, timeouts and TLS settings
 * stay (with TLS and no tls_server_name, the name checked is each answer's
 * host). fn NULL turns resolution off (the last address stays).
 *
 * Each connect then also sends ROLE, in the round trip of AUTH and SELECT,
 * and writes nothing else until it answered "master": a node that is not one
 * (a sentinel's stale answer during a failover, a demoted master) is closed,
 * and after DL_CONN_ROLE_RETRY_US the resolver is asked again, until the
 * connect timeout is spent: then DL_ERR_CONNECT "... is not a master". A
 * ROLE refused (an ACL without +role) is DL_ERR_CONNECT too: the role cannot
 * be checked, so nothing is written. Source: the "Sentinel clients" guidelines
 * of redis.io (steps 2 and 3: ask a sentinel, then verify with ROLE).
 *
 * A -READONLY reply on such a connection (the node became a replica after we
 * connected: a failover) drops the connection and makes the call fail with
 * DL_ERR_IO, a transport failure: the lock core's retry rules apply
 * (release and refresh are sent once more, on a new, re-resolved connection;
 * an acquire is undone there and reported as the error). Without a resolver,
 * READONLY stays an error reply (DL_ERR_SERVER in the core), as before.
 * fn and arg must outlive c (or be replaced first).
 */
void dl_conn_set_resolver(dl_conn_t *c, dl_conn_resolve_fn fn, void *arg);

/* "0.14.1": the hiredis version this build was compiled against. */
const char *dl_conn_hiredis_version(void);

/* 1 when this build can connect with TLS (hiredis >= 1.0 with hiredis_ssl; never with 0.14). */
int dl_conn_has_tls(void);

/* "OpenSSL 3.0.19 27 Jan 2026" where the build has TLS, else NULL. Static string. */
const char *dl_conn_tls_library(void);

#endif
