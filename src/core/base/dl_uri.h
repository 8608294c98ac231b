/*
 * dl_uri — parsing of server URIs into a connection configuration.
 *
 *   redis://[[user]:password@]host[:port][/db][?timeout=S&connect_timeout=S&db=N]
 *   tcp://...                            (the same as redis://: phpredis users write it)
 *   rediss://...                         (TLS; refused by dl_conn where the build has none)
 *   unix:///path/to/redis.sock[?db=N&timeout=S&connect_timeout=S]
 *
 * Userinfo without ':' is a password (as in Lettuce and older Redis URIs).
 * User and password are percent-decoded. IPv6 hosts go in brackets.
 * Timeouts are seconds (decimal), stored as microseconds.
 * Error messages never contain the userinfo.
 */
#ifndef DL_URI_H
#define DL_URI_H

#include <stddef.h>
#include <stdint.h>

#include "dl_err.h"

#define DL_URI_MAX_LEN 4096
#define DL_TIMEOUT_MAX_US (3600LL * 1000000)  /* one hour */
#define DL_DB_MAX 2147483647

typedef struct dl_server_config {
    char *host;              /* malloc'd; NULL for unix sockets */
    int port;                /* 1..65535; 0 for unix sockets */
    char *unix_path;         /* malloc'd; NULL for TCP */
    char *username;          /* malloc'd or NULL */
    char *password;          /* malloc'd or NULL; wiped before it is freed */
    int db;                  /* valid when has_db */
    int64_t connect_timeout_us;  /* valid when has_connect_timeout */
    int64_t timeout_us;          /* valid when has_timeout */
    /* TLS settings (rediss:// only; set from the constructor's options, not the URI). */
    char *tls_ca;            /* malloc'd or NULL: CA bundle file (PEM); NULL and no tls_ca_path: the system's trust store */
    char *tls_ca_path;       /* malloc'd or NULL: directory of hashed CA certificates */
    char *tls_cert;          /* malloc'd or NULL: client certificate chain (PEM), for mutual TLS */
    char *tls_key;           /* malloc'd or NULL: its private key (PEM, not encrypted) */
    char *tls_server_name;   /* malloc'd or NULL: SNI and the name the certificate must match; NULL: host */
    unsigned has_db : 1;
    unsigned has_connect_timeout : 1;
    unsigned has_timeout : 1;
    unsigned tls : 1;
    unsigned tls_no_verify : 1;  /* tls_verify_peer => false: no certificate or host name check */
} dl_server_config_t;

/*
 * Parses uri[0..len) into *out (zeroed first). Returns DL_OK, DL_ERR_URI
 * with a message saying what is wrong (never quoting credentials), or
 * DL_ERR_NOMEM. On failure *out holds nothing that needs freeing.
 */
dl_status_t dl_uri_parse(const char *uri, size_t len, dl_server_config_t *out, dl_error_t *err);

/*
 * Parses a duration in decimal seconds ("0.5", "2", "1e-3") into
 * microseconds: finite, > 0, at most max_us. Returns 0 on success, -1 otherwise.
 */
int dl_parse_seconds(const char *s, size_t len, int64_t max_us, int64_t *out_us);

/* 1 when a and b name the same server with the same credentials, database,
 * timeouts and TLS settings (a TLS and a plain connection are never the same). */
int dl_server_config_same(const dl_server_config_t *a, const dl_server_config_t *b);

/* Deep copy (strings duplicated). Returns DL_OK or DL_ERR_NOMEM. */
dl_status_t dl_server_config_copy(dl_server_config_t *dst, const dl_server_config_t *src);

/* Frees the strings of cfg (wiping the password) and zeroes it. */
void dl_server_config_free(dl_server_config_t *cfg);

/* Writes "host:port", "[v6]:port" or the socket path into buf, for messages. */
void dl_server_config_endpoint(const dl_server_config_t *cfg, char *buf, size_t size);

/* Writes "host:port", or "[host]:port" when host holds a ':' (IPv6), into buf. */
void dl_endpoint_format(char *buf, size_t size, const char *host, int port);

/* Overwrites a secret (a password) with zeros, in a way the compiler keeps,
 * then frees it. NULL is ignored. */
void dl_secret_free(char *secret);

#endif
