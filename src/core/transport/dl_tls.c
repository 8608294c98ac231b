/* POSIX.1-2008, before any system header: the build passes no feature macro
 * (docs/decisions/0036-platform-calls-chosen-by-configure.md). */
#define _POSIX_C_SOURCE 200809L

#include "dl_tls.h"

#ifdef DL_HAVE_TLS

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "../base/dl_clock.h"

#if OPENSSL_VERSION_NUMBER < 0x10100000L
# error "distlock's TLS support needs OpenSSL >= 1.1.0"
#endif

struct dl_tls {
    SSL_CTX *ctx;
    char *name;        /* SNI and the name checked; malloc'd */
    int name_is_ip;    /* name is an IPv4/IPv6 literal: checked against IP SANs, no SNI */
    int verify;
};

/* The handshake deadline of one SSL object (its ex_data slot). */
typedef struct {
    int64_t deadline_ns;
    int active;        /* 0 once the handshake is over */
} tls_deadline_t;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int deadline_index = -1;

static void deadline_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
    (void)parent; (void)ad; (void)idx; (void)argl; (void)argp;
    free(ptr);
}

static void tls_init(void)
{
    OPENSSL_init_ssl(0, NULL);
    deadline_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, deadline_free);
}

/* OpenSSL must never ask a terminal for a key's passphrase: refuse instead
 * (and note that one was wanted, for the message). */
static int no_passphrase(char *buf, int size, int rwflag, void *userdata)
{
    (void)buf; (void)size; (void)rwflag;
    if (userdata) *(int *)userdata = 1;
    return 0;
}

/* OpenSSL's reason for the failure being reported: the last error, unless
 * that is the generic "PEM lib", which the first one explains ("no start line"). */
static const char *last_reason(void)
{
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;
    if (r && strcmp(r, "PEM lib") == 0) {
        const char *first = ERR_reason_error_string(ERR_peek_error());
        if (first) r = first;
    }
    return r ? r : "unknown OpenSSL error";
}

/* Sets err for a file option that cannot be used, and returns NULL-able status. */
static void file_error(dl_error_t *err, const char *endpoint, const char *option, const char *path, const char *why)
{
    dl_error_set(err, DL_ERR_CONNECT, "TLS setup for Redis at %s failed: cannot use the %s %s: %s",
                 endpoint, option, path, why);
    ERR_clear_error();
}

/* 0 when path can be opened for reading (a file) or searched (a directory). */
static int check_readable(const char *path, int dir, const char **why)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        *why = strerror(errno);
        return -1;
    }
    if (dir ? !S_ISDIR(st.st_mode) : S_ISDIR(st.st_mode)) {
        *why = dir ? "not a directory" : "is a directory";
        return -1;
    }
    if (access(path, dir ? (R_OK | X_OK) : R_OK) != 0) {
        *why = strerror(errno);
        return -1;
    }
    return 0;
}

dl_tls_t *dl_tls_new(const dl_server_config_t *cfg, const char *endpoint, dl_error_t *err)
{
    dl_tls_t *t;
    const char *why;
    unsigned char ipbuf[16];
    int passphrase_wanted = 0;
    const char *name = cfg->tls_server_name ? cfg->tls_server_name : cfg->host;

    pthread_once(&once, tls_init);
    t = calloc(1, sizeof(*t));
    if (!t || !(t->name = strdup(name ? name : ""))) {
        free(t);
        dl_error_set(err, DL_ERR_NOMEM, "out of memory setting up TLS for Redis at %s", endpoint);
        return NULL;
    }
    t->verify = !cfg->tls_no_verify;
    t->name_is_ip = inet_pton(AF_INET, t->name, ipbuf) == 1 || inet_pton(AF_INET6, t->name, ipbuf) == 1;
    ERR_clear_error();
    t->ctx = SSL_CTX_new(TLS_client_method());
    if (!t->ctx) {
        dl_error_set(err, DL_ERR_CONNECT, "TLS setup for Redis at %s failed: %s", endpoint, last_reason());
        goto fail;
    }
    SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION);
    SSL_CTX_set_default_passwd_cb(t->ctx, no_passphrase);
    SSL_CTX_set_default_passwd_cb_userdata(t->ctx, &passphrase_wanted);
    if (t->verify) {
        if (cfg->tls_ca) {
            if (check_readable(cfg->tls_ca, 0, &why) != 0) { file_error(err, endpoint, "tls_ca file", cfg->tls_ca, why); goto fail; }
            if (SSL_CTX_load_verify_locations(t->ctx, cfg->tls_ca, NULL) != 1) {
                file_error(err, endpoint, "tls_ca file", cfg->tls_ca, last_reason());
                goto fail;
            }
        }
        if (cfg->tls_ca_path) {
            if (check_readable(cfg->tls_ca_path, 1, &why) != 0) { file_error(err, endpoint, "tls_ca_path directory", cfg->tls_ca_path, why); goto fail; }
            if (SSL_CTX_load_verify_locations(t->ctx, NULL, cfg->tls_ca_path) != 1) {
                file_error(err, endpoint, "tls_ca_path directory", cfg->tls_ca_path, last_reason());
                goto fail;
            }
        }
        if (!cfg->tls_ca && !cfg->tls_ca_path && SSL_CTX_set_default_verify_paths(t->ctx) != 1) {
            dl_error_set(err, DL_ERR_CONNECT, "TLS setup for Redis at %s failed: cannot load the system's trust store: %s",
                         endpoint, last_reason());
            goto fail;
        }
        SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
    } else {
        SSL_CTX_set_verify(t->ctx, SSL_VERIFY_NONE, NULL);
    }
    if (cfg->tls_cert) {
        if (check_readable(cfg->tls_cert, 0, &why) != 0) { file_error(err, endpoint, "tls_cert file", cfg->tls_cert, why); goto fail; }
        if (SSL_CTX_use_certificate_chain_file(t->ctx, cfg->tls_cert) != 1) {
            file_error(err, endpoint, "tls_cert file", cfg->tls_cert, last_reason());
            goto fail;
        }
    }
    if (cfg->tls_key) {
        if (check_readable(cfg->tls_key, 0, &why) != 0) { file_error(err, endpoint, "tls_key file", cfg->tls_key, why); goto fail; }
        if (SSL_CTX_use_PrivateKey_file(t->ctx, cfg->tls_key, SSL_FILETYPE_PEM) != 1) {
            if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
                why = "it is not the key of the tls_cert certificate";
            } else if (passphrase_wanted) {
                why = "it is protected by a passphrase, which is not supported";
            } else {
                why = last_reason();
            }
            file_error(err, endpoint, "tls_key file", cfg->tls_key, why);
            goto fail;
        }
    }
    if (cfg->tls_cert && cfg->tls_key && SSL_CTX_check_private_key(t->ctx) != 1) {
        dl_error_set(err, DL_ERR_CONNECT, "TLS setup for Redis at %s failed: the tls_key %s does not belong to the tls_cert %s",
                     endpoint, cfg->tls_key, cfg->tls_cert);
        ERR_clear_error();
        goto fail;
    }
    /* The callback's flag lives on this stack frame: unhook it. */
    SSL_CTX_set_default_passwd_cb_userdata(t->ctx, NULL);
    return t;
fail:
    dl_tls_free(t);
    return NULL;
}

void dl_tls_free(dl_tls_t *t)
{
    if (!t) return;
    SSL_CTX_free(t->ctx);   /* SSL objects still open hold their own reference */
    free(t->name);
    free(t);
}

/* The socket timeouts for what is left until the deadline (at least 1 ms:
 * 0 would mean "wait forever"). */
static void shorten_timeouts(int fd, int64_t deadline_ns)
{
    int64_t left_us = (deadline_ns - dl_clock_now_ns()) / 1000;
    struct timeval tv;
    if (left_us < 1000) left_us = 1000;
    tv.tv_sec = (time_t)(left_us / 1000000);
    tv.tv_usec = (suseconds_t)(left_us % 1000000);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Called by OpenSSL at each step of the handshake. */
static void handshake_step(const SSL *ssl, int where, int ret)
{
    tls_deadline_t *d = SSL_get_ex_data(ssl, deadline_index);
    (void)ret;
    if (d && d->active && (where & (SSL_CB_LOOP | SSL_CB_HANDSHAKE_START))) {
        shorten_timeouts(SSL_get_fd(ssl), d->deadline_ns);
    }
}

void *dl_tls_ssl_new(dl_tls_t *t, int fd, int64_t deadline_ns, dl_error_t *err)
{
    SSL *ssl = SSL_new(t->ctx);
    tls_deadline_t *d = malloc(sizeof(*d));
    if (!ssl || !d || SSL_set_ex_data(ssl, deadline_index, d) != 1) {
        free(d);
        SSL_free(ssl);
        ERR_clear_error();
        dl_error_set(err, DL_ERR_NOMEM, "out of memory starting a TLS connection");
        return NULL;
    }
    d->deadline_ns = deadline_ns;
    d->active = 1;
    SSL_set_info_callback(ssl, handshake_step);
    shorten_timeouts(fd, deadline_ns);
    if (!t->name_is_ip && t->name[0]) SSL_set_tlsext_host_name(ssl, t->name);
    if (t->verify && t->name[0]) {
        X509_VERIFY_PARAM *p = SSL_get0_param(ssl);
        X509_VERIFY_PARAM_set_hostflags(p, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        if (t->name_is_ip) X509_VERIFY_PARAM_set1_ip_asc(p, t->name);
        else X509_VERIFY_PARAM_set1_host(p, t->name, 0);
    }
    return ssl;
}

void dl_tls_ssl_free(void *ssl)
{
    SSL_free(ssl);
}

void dl_tls_handshake_done(void *ssl)
{
    tls_deadline_t *d = SSL_get_ex_data(ssl, deadline_index);
    if (d) d->active = 0;
    SSL_set_info_callback(ssl, NULL);
}

int dl_tls_explain(void *ssl, const char *fallback, char *buf, size_t size)
{
    long v = ssl ? SSL_get_verify_result(ssl) : X509_V_OK;
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;
    if (v != X509_V_OK) {
        snprintf(buf, size, "the server's certificate was not accepted: %s", X509_verify_cert_error_string(v));
    } else if (r) {
        snprintf(buf, size, "%s", r);
    } else {
        snprintf(buf, size, "%s", fallback);
    }
    ERR_clear_error();
    return v != X509_V_OK;
}

const char *dl_tls_last_reason(void)
{
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;
    ERR_clear_error();
    return r;   /* a static string of OpenSSL's: valid after the clear */
}

const char *dl_tls_library_version(void)
{
    return OpenSSL_version(OPENSSL_VERSION);
}

#else
/* Built without TLS: nothing here (ISO C wants a declaration in every file). */
typedef int dl_tls_unused_t;
#endif
