/*
 * dl_tls — the OpenSSL side of rediss:// connections (built only where
 * hiredis has TLS: DL_HAVE_TLS, set by config.m4 when it finds hiredis >= 1.0
 * with hiredis_ssl). dl_conn hands the SSL object made here to hiredis
 * (redisInitiateSSL), which runs the handshake and then reads and writes
 * through it; this file holds no hiredis.
 *
 * What is checked (unless the configuration turns verification off with
 * tls_no_verify): the server's certificate chain against tls_ca / tls_ca_path
 * or, when neither is set, the system's trust store; and the server's name:
 * tls_server_name, else the URI's host, matched against the certificate's
 * subjectAltName (DNS names, or IP addresses for an IP host) by OpenSSL's
 * own X509_VERIFY_PARAM host/IP check. SNI carries the name (never an IP
 * address, per RFC 6066).
 *
 * Messages name the option and the file, never the contents of a key file,
 * and never a password (encrypted keys are refused, not prompted for).
 */
#ifndef DL_TLS_H
#define DL_TLS_H

#include <stddef.h>
#include <stdint.h>

#include "../base/dl_err.h"
#include "../base/dl_uri.h"

#ifdef DL_HAVE_TLS

typedef struct dl_tls dl_tls_t;

/*
 * Makes the TLS context for cfg (a rediss:// configuration): loads the CA
 * bundle or directory (or the system's trust store), the client certificate
 * and key, and sets the verification mode. endpoint is "host:port", for
 * messages. Returns the context (owned by the caller, dl_tls_free), or NULL
 * with err set: DL_ERR_CONNECT "TLS: cannot use tls_ca file /x: ..." and the
 * like, or DL_ERR_NOMEM.
 */
dl_tls_t *dl_tls_new(const dl_server_config_t *cfg, const char *endpoint, dl_error_t *err);

/* Frees the context (NULL is allowed). Open connections keep their own reference. */
void dl_tls_free(dl_tls_t *t);

/*
 * A new SSL object (returned as void *: an SSL *) for one connection on fd,
 * with SNI and the name check set. While the handshake runs, each of its
 * reads and writes on fd waits at most until deadline_ns (CLOCK_MONOTONIC,
 * dl_clock_now_ns): the socket timeouts are shortened as it goes, so a server
 * that never answers the handshake costs the connect timeout, not more.
 * Returns NULL with err set (DL_ERR_NOMEM) on failure. The caller owns the
 * object until hiredis takes it (redisInitiateSSL succeeded); it frees it with
 * dl_tls_ssl_free otherwise.
 */
void *dl_tls_ssl_new(dl_tls_t *t, int fd, int64_t deadline_ns, dl_error_t *err);

/* Frees an SSL object that hiredis did not take. */
void dl_tls_ssl_free(void *ssl);

/* Ends the handshake phase of ssl: later reads and writes keep the socket timeouts dl_conn sets. */
void dl_tls_handshake_done(void *ssl);

/*
 * Explains why the handshake on ssl failed, into buf: the certificate check's
 * verdict ("the server's certificate was not accepted: certificate has
 * expired", "...: hostname mismatch") when it failed, else OpenSSL's reason
 * ("wrong version number", ...), else hiredis's message `fallback`. Clears
 * OpenSSL's error queue of this thread. Returns 1 when the certificate check
 * failed, 0 otherwise.
 */
int dl_tls_explain(void *ssl, const char *fallback, char *buf, size_t size);

/*
 * OpenSSL's reason for the last failure on this thread (e.g. an alert the
 * server sent after the handshake: "tlsv13 alert certificate required"),
 * or NULL when there is none. Clears the error queue.
 */
const char *dl_tls_last_reason(void);

/* "OpenSSL 3.0.19 ..." — the OpenSSL version in use, for phpinfo(). */
const char *dl_tls_library_version(void);

#endif /* DL_HAVE_TLS */

#endif
