/* POSIX.1-2008, before any system header: the build passes no feature macro
 * (docs/decisions/0036-platform-calls-chosen-by-configure.md). */
#define _POSIX_C_SOURCE 200809L

#include "dl_conn.h"
#include "dl_pending.h"
#include "../base/dl_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "../base/dl_clock.h"
#include "../base/dl_obs.h"
#include "../base/dl_platform.h"

/* TLS: hiredis >= 1.0 built with SSL (config.m4 defines DL_HAVE_TLS when it
 * finds hiredis_ssl). hiredis 0.14 has no TLS: rediss:// is refused. */
#ifdef DL_HAVE_TLS
# include <hiredis/hiredis_ssl.h>
# include "dl_tls.h"
#endif

#define DL_STR2(x) #x
#define DL_STR(x) DL_STR2(x)

struct dl_conn {
    dl_server_config_t cfg;
    redisContext *ctx;
    pid_t pid;             /* the process that opened ctx */
    unsigned long calls;   /* calls completed on ctx (0: fresh) */
    dl_pending_t pending;  /* replies of deferred commands not read yet (dl_pending.h) */
    unsigned caps;         /* DL_CAP_* of the server of ctx; 0: not asked yet */
    unsigned hint;         /* caps_hint(), read once per connection (hint_read): one answer in a call */
    int hint_read;
    unsigned caps_kept;    /* caps of a connection we dropped ourselves at a wait's deadline
                            * (poll_input): the server did not go away, so the reconnect to
                            * the same address takes them instead of asking HELLO again; 0: none */
#ifdef DL_HAVE_TLS
    dl_tls_t *tls;         /* rediss://: the TLS context, made at the first connect, kept for reconnects */
#endif
    char endpoint[128];
    dl_conn_resolve_fn resolve;  /* NULL: the configured address; else asked before each connect (Sentinel) */
    void *resolve_arg;
    int connecting;              /* ctx is a non-blocking TCP connect in progress (conn_connect_start) */
    int64_t connect_deadline_ns; /* ... which has until then (monotonic) */
    int64_t read_timeout_us;     /* the read timeout of the call under way (for messages) */
    int bounded;                 /* the call's bound (dl_call_bound_t) cut the read timeout short */
    int sock_timeout_changed;    /* the call set SO_RCVTIMEO/SO_SNDTIMEO: put the configured one back */
};

/*
 * The part of a wait of us microseconds that the open call bound allows
 * (dl_clock.h): us itself, or what is left of the bound (>= 0), with
 * *clipped = 1. A wait of 0 means "spent": nothing may block.
 */
static int64_t clip_to_bound(int64_t us, int *clipped)
{
    int64_t left;
    if (dl_call_bound_fresh()) return us;   /* the call's first connect: its own timeouts (dl_clock.h) */
    left = dl_call_bound_left_us();
    if (left >= us) return us;
    if (clipped) *clipped = 1;
    return left > 0 ? left : 0;
}

/*
 * What a timeout message names: the bound that ended the call, worded the
 * same for every operation (issue 37.2): "this call's 1.000 s bound (timeout)",
 * "(max(wait, timeout))" when a waiting acquire's bound was cut short. A round
 * trip's own `timeout` inside a longer bound (a waiting acquire's attempt) ends
 * the call too (the caller closes the bound: dl_call_bound_close): `timeout`
 * is then the bound that applied. A longer read (a blocking command's extra
 * time) names its own length.
 */
static const char *timeout_words(const dl_conn_t *c, int64_t read_us, char *buf, size_t size)
{
    const dl_call_bound_t *b = dl_call_bound_current();
    if (b && c->bounded) snprintf(buf, size, "this call's %.3f s bound (%s)", b->bound_us / 1e6, b->what);
    else if (read_us == c->cfg.timeout_us) snprintf(buf, size, "this call's %.3f s bound (timeout)", read_us / 1e6);
    else snprintf(buf, size, "the %.3f s timeout", read_us / 1e6);
    return buf;
}

static struct timeval us_to_tv(int64_t us)
{
    struct timeval tv;
    tv.tv_sec = (time_t)(us / 1000000);
    tv.tv_usec = (suseconds_t)(us % 1000000);
    return tv;
}

dl_conn_t *dl_conn_new(dl_server_config_t *cfg, dl_error_t *err)
{
    dl_conn_t *c;
#ifndef DL_HAVE_TLS
    if (cfg->tls) {
        dl_server_config_free(cfg);
        dl_error_set(err, DL_ERR_NOTLS, "TLS (rediss://) is not supported by this build (hiredis %s has no TLS)",
                     dl_conn_hiredis_version());
        return NULL;
    }
#endif
    c = calloc(1, sizeof(*c));
    if (!c) {
        dl_server_config_free(cfg);
        dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c->cfg = *cfg;
    memset(cfg, 0, sizeof(*cfg));
    if (!c->cfg.has_connect_timeout) c->cfg.connect_timeout_us = DL_CONNECT_TIMEOUT_DEFAULT_US;
    if (!c->cfg.has_timeout) c->cfg.timeout_us = DL_TIMEOUT_DEFAULT_US;
    dl_server_config_endpoint(&c->cfg, c->endpoint, sizeof(c->endpoint));
    return c;
}

void dl_conn_close(dl_conn_t *c)
{
    if (c->ctx) {
        /* redisFree only close()s the fd: nothing is written, so a child
         * dropping an inherited context leaves the parent's socket intact. */
        redisFree(c->ctx);
        c->ctx = NULL;
    }
    c->calls = 0;
    c->caps = 0;   /* a new connection may reach another server (failover, restart) */
    c->hint_read = 0;
    c->caps_kept = 0;
    c->connecting = 0;
    c->read_timeout_us = 0;   /* a new connection starts with the configured timeout */
    c->bounded = 0;
    c->sock_timeout_changed = 0;
}

void dl_conn_abandon(dl_conn_t *c)
{
    if (c && c->ctx) close(c->ctx->fd);
}

void dl_conn_free(dl_conn_t *c)
{
    if (!c) return;
    dl_pending_discard(&c->pending);  /* the owner settles first; this only frees */
    dl_conn_close(c);
#ifdef DL_HAVE_TLS
    dl_tls_free(c->tls);
#endif
    dl_server_config_free(&c->cfg);
    free(c);
}

const char *dl_conn_endpoint(const dl_conn_t *c) { return c->endpoint; }
const dl_server_config_t *dl_conn_config(const dl_conn_t *c) { return &c->cfg; }
int64_t dl_conn_timeout_us(const dl_conn_t *c) { return c->cfg.timeout_us; }

int dl_conn_is_connected(const dl_conn_t *c)
{
    return c->ctx != NULL && c->pid == dl_proc_pid();
}

void dl_conn_check_idle(dl_conn_t *c)
{
    struct pollfd p;
    if (!c->ctx) return;
    if (c->pid != dl_proc_pid()) {
        dl_conn_close(c);
        return;
    }
    p.fd = c->ctx->fd;
    p.events = POLLIN;
    p.revents = 0;
    if (poll(&p, 1, 0) != 0 || c->ctx->reader->len > c->ctx->reader->pos) {
        dl_conn_close(c);
    }
}

const char *dl_conn_hiredis_version(void)
{
    return DL_STR(HIREDIS_MAJOR) "." DL_STR(HIREDIS_MINOR) "." DL_STR(HIREDIS_PATCH);
}

#ifdef DL_HAVE_TLS
int dl_conn_has_tls(void) { return 1; }
const char *dl_conn_tls_library(void) { return dl_tls_library_version(); }
#else
int dl_conn_has_tls(void) { return 0; }
const char *dl_conn_tls_library(void) { return NULL; }
#endif

static dl_status_t fail_ctx(dl_conn_t *c, int saved_errno, const char *during, dl_error_t *err);
static dl_status_t flush_output(dl_conn_t *c, dl_error_t *err);

/* Bytes of cmd as RESP (an array of bulk strings, with room for the longest
 * decimal lengths); 0 when that does not fit a size_t. */
static size_t resp_size(const dl_cmd_t *cmd)
{
    size_t need = 1 + 21 + 2;
    int i;
    for (i = 0; i < cmd->argc; i++) {
        if (cmd->argvlen[i] > SIZE_MAX - need - (1 + 21 + 2 + 2)) return 0;
        need += 1 + 21 + 2 + cmd->argvlen[i] + 2;
    }
    return need;
}

/* Writes cmd as RESP at p (room: resp_size); returns the end. */
static char *resp_put(char *p, const dl_cmd_t *cmd)
{
    int i;
    *p++ = '*';
    p += dl_cmd_int(p, cmd->argc);
    *p++ = '\r'; *p++ = '\n';
    for (i = 0; i < cmd->argc; i++) {
        *p++ = '$';
        p += dl_cmd_int(p, (int64_t)cmd->argvlen[i]);
        *p++ = '\r'; *p++ = '\n';
        if (cmd->argvlen[i] > 0) memcpy(p, cmd->argv[i], cmd->argvlen[i]);
        p += cmd->argvlen[i];
        *p++ = '\r'; *p++ = '\n';
    }
    return p;
}

/* A write that an empty socket send buffer takes whole (Linux starts one at
 * 16 KiB): a call finds it empty, since the previous call read all its
 * replies or dropped its connection (docs/decisions/0022-no-socket-options-per-call.md). */
#define DL_SMALL_WRITE 8192

/*
 * Sends n commands, encoded here as RESP (hiredis still parses every reply).
 * hiredis's own encoders cost more than the rest of an uncontended acquire:
 * redisAppendCommandArgv grows an sds string argument by argument and
 * redisFormatCommandArgv runs sprintf per argument, about 3,700 instructions
 * for a SET on hiredis 0.14 (callgrind), where resp_put takes about 300.
 *
 * On a plain connection with nothing queued in hiredis's output buffer, a
 * call of at most 8 KiB (every lock call but a release of hundreds of leases)
 * is written from here by write(), as hiredis would write it (write() on
 * 0.14, send() without flags on 1.x: the same errors, SIGPIPE included).
 * Handing it to hiredis first copied it into that buffer, then freed and
 * allocated the buffer again once written: about 700 instructions a command
 * (callgrind, issue 46; docs/decisions/0064-the-uncontended-cycle-and-what-it-keeps.md).
 * A write that fails is reported as hiredis reports it (REDIS_ERR_IO and
 * the errno's text), once: handing it on would wait out a second SO_SNDTIMEO
 * and name the second write's errno. What write() did not take, a larger
 * call, a TLS connection's and a call behind the first call's probe go
 * through hiredis's buffer, written by flush_output when flush is set (by
 * redisGetReply otherwise). Returns DL_OK, or fail_ctx's status.
 */
static dl_status_t send_cmds(dl_conn_t *c, size_t n, const dl_cmd_t *cmds, int flush, dl_error_t *err)
{
    char stack[1024], *buf = stack, *p;
    size_t need = 0, off = 0, i, one;
    dl_status_t st = DL_OK;

    for (i = 0; i < n && buf; i++) {
        one = resp_size(&cmds[i]);
        if (one == 0 || one > SIZE_MAX - need) buf = NULL;   /* cannot be allocated */
        else need += one;
    }
    if (buf && need > sizeof(stack)) buf = malloc(need);
    if (!buf) {
        /* As hiredis's own encoder reports it: fail_ctx makes it DL_ERR_NOMEM. */
        c->ctx->err = REDIS_ERR_OOM;
        snprintf(c->ctx->errstr, sizeof(c->ctx->errstr), "%s", "Out of memory");
        return fail_ctx(c, ENOMEM, "while sending", err);
    }
    p = buf;
    for (i = 0; i < n; i++) p = resp_put(p, &cmds[i]);
    need = (size_t)(p - buf);
    if (!c->cfg.tls && need <= DL_SMALL_WRITE && sdslen(c->ctx->obuf) == 0) {
        while (off < need) {
            ssize_t w = write(c->ctx->fd, buf + off, need - off);
            if (w > 0) {
                off += (size_t)w;
            } else if (w < 0 && errno != EINTR) {
                int e = errno;
                c->ctx->err = REDIS_ERR_IO;
                snprintf(c->ctx->errstr, sizeof(c->ctx->errstr), "%s", strerror(e));
                st = fail_ctx(c, e, "while sending", err);
                goto done;
            } else if (w == 0) {
                break;   /* nothing taken, no error: hiredis's write below tries */
            }
        }
    }
    if (off < need && redisAppendFormattedCommand(c->ctx, buf + off, need - off) != REDIS_OK) {
        /* Out of memory. With part of the call written, some of its commands
         * may have run: that is a transport failure (ambiguous), not NOMEM. */
        if (off > 0) c->ctx->err = REDIS_ERR_IO;
        st = fail_ctx(c, off > 0 ? EIO : errno, "while sending", err);
        goto done;
    }
    /* Queued bytes (what write() left, or the first call's probe before a
     * call of no command): written now when the caller waits on a deadline. */
    if (flush && sdslen(c->ctx->obuf) > 0) st = flush_output(c, err);
done:
    if (buf != stack) free(buf);
    return st;
}

/* Classifies a failed hiredis context: a read/write timeout surfaces as
 * REDIS_ERR_IO with EAGAIN (SO_RCVTIMEO/SO_SNDTIMEO). */
static dl_status_t fail_ctx(dl_conn_t *c, int saved_errno, const char *during, dl_error_t *err)
{
    dl_status_t code;
    const char *what = c->ctx ? c->ctx->errstr : "unknown error";
    const char *hint = "";
#ifdef DL_HAVE_TLS
    /* hiredis says "Success" or nothing useful when OpenSSL failed (e.g. the
     * server's alert "certificate required" after the handshake): its reason. */
    if (c->cfg.tls) {
        const char *r = dl_tls_last_reason();
        if (r) what = r;
        if (r && strstr(r, "certificate required")) hint = " (the server wants a client certificate: options tls_cert and tls_key)";
    }
#endif
    /* A TLS server closes a plain connection at its first bytes. */
    if (!c->cfg.tls && !c->cfg.unix_path && c->calls == 0 && c->ctx &&
        (c->ctx->err == REDIS_ERR_EOF || saved_errno == ECONNRESET || c->ctx->err == REDIS_ERR_PROTOCOL)) {
        hint = " (if this port expects TLS, use rediss://)";
    }
    if (c->ctx && (c->ctx->err == REDIS_ERR_IO
#ifdef REDIS_ERR_TIMEOUT
                   || c->ctx->err == REDIS_ERR_TIMEOUT
#endif
                   ) && (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK)) {
        char words[80];
        dl_error_set(err, DL_ERR_TIMEOUT, "Redis at %s did not answer within %s %s; the connection was dropped",
                     c->endpoint, timeout_words(c, c->read_timeout_us ? c->read_timeout_us : c->cfg.timeout_us,
                                                words, sizeof(words)), during);
        dl_conn_close(c);
        return DL_ERR_TIMEOUT;
    }
    if (c->ctx && c->ctx->err == REDIS_ERR_PROTOCOL) {
        code = DL_ERR_PROTOCOL;
    } else if (c->ctx && c->ctx->err == REDIS_ERR_OOM) {
        code = DL_ERR_NOMEM;
    } else {
        code = DL_ERR_IO;
    }
    dl_error_set(err, code, "Redis at %s: connection error %s: %s%s; the connection was dropped", c->endpoint, during, what, hint);
    dl_conn_close(c);
    return code;
}

static dl_status_t convert_reply(const redisReply *r, dl_reply_t *out)
{
    memset(out, 0, sizeof(*out));
    switch (r->type) {
    case REDIS_REPLY_INTEGER:
        out->type = DL_REPLY_INTEGER;
        out->integer = r->integer;
        return DL_OK;
    case REDIS_REPLY_NIL:
        out->type = DL_REPLY_NIL;
        return DL_OK;
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_ERROR:
        out->type = r->type == REDIS_REPLY_STATUS ? DL_REPLY_STATUS
                  : r->type == REDIS_REPLY_STRING ? DL_REPLY_STRING : DL_REPLY_ERROR;
        out->str = malloc(r->len + 1);
        if (!out->str) return DL_ERR_NOMEM;
        memcpy(out->str, r->str, r->len);
        out->str[r->len] = '\0';
        out->len = r->len;
        return DL_OK;
    case REDIS_REPLY_ARRAY: {
        size_t i;
        out->type = DL_REPLY_ARRAY;
        if (r->elements == 0) return DL_OK;
        out->element = calloc(r->elements, sizeof(*out->element));
        if (!out->element) return DL_ERR_NOMEM;
        out->elements = r->elements;
        for (i = 0; i < r->elements; i++) {
            if (convert_reply(r->element[i], &out->element[i]) != DL_OK) return DL_ERR_NOMEM;
        }
        return DL_OK;
    }
    }
    return DL_ERR_PROTOCOL;
}

#ifdef DL_HAVE_TLS
/* Runs the TLS handshake on the freshly connected context, within what is
 * left of the connect timeout (deadline_ns). On failure the context is closed
 * and err says what failed: a file option, the certificate check, the name
 * check, or the handshake itself (a plain server on this port, a timeout). */
static dl_status_t tls_start(dl_conn_t *c, int64_t deadline_ns, dl_error_t *err)
{
    dl_error_t e;
    void *ssl;
    char why[200];
    int saved_errno, cert_failed;

    dl_error_clear(&e);
    if (!c->tls && !(c->tls = dl_tls_new(&c->cfg, c->endpoint, &e))) goto fail;
    if (!(ssl = dl_tls_ssl_new(c->tls, c->ctx->fd, deadline_ns, &e))) goto fail;
    errno = 0;
    if (redisInitiateSSL(c->ctx, ssl) == REDIS_OK) {
        dl_tls_handshake_done(ssl);   /* hiredis owns ssl now */
        return DL_OK;
    }
    saved_errno = errno;
    cert_failed = dl_tls_explain(ssl, c->ctx->errstr, why, sizeof(why));
    dl_tls_ssl_free(ssl);
    if (!cert_failed && (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK || dl_clock_now_ns() >= deadline_ns)) {
        dl_error_set(&e, DL_ERR_CONNECT, "TLS handshake with Redis at %s did not complete within the %.3f s connect timeout"
                     " (does the server speak TLS on this port?)", c->endpoint, c->cfg.connect_timeout_us / 1e6);
    } else {
        int plain = !cert_failed && (strstr(why, "wrong version number") || strstr(why, "packet length too long") ||
                                     strstr(why, "unexpected eof") || strstr(why, "record layer failure") ||
                                     saved_errno == ECONNRESET);
        dl_error_set(&e, DL_ERR_CONNECT, "TLS handshake with Redis at %s failed: %s%s", c->endpoint, why,
                     plain ? " (does the server speak TLS on this port?)" : "");
    }
fail:
    dl_conn_close(c);
    if (err) *err = e;
    return e.code;
}
#endif

/* The role a ROLE reply names ("master", "slave", "sentinel"), or NULL. */
static const char *role_of(const redisReply *r)
{
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 1 || r->element[0]->type != REDIS_REPLY_STRING) return NULL;
    return r->element[0]->str;
}

/*
 * Completes a connect that conn_connect_start began: waits for the socket
 * to be writable for what is left of the connect timeout, checks that the
 * connect succeeded (SO_ERROR), and makes the context blocking again, as the
 * rest of dl_conn expects (hiredis 0.14 has no call for that: the socket's
 * O_NONBLOCK and the context's REDIS_BLOCK flag are what redisConnect sets).
 */
static dl_status_t connect_finish(dl_conn_t *c, dl_error_t *err)
{
    struct pollfd p;
    int64_t left_ms = (c->connect_deadline_ns - dl_clock_now_ns() + 999999) / 1000000;
    int soerr = 0, flags, rc, clipped = 0;
    socklen_t len = sizeof(soerr);

    c->connecting = 0;
    left_ms = (clip_to_bound(left_ms * 1000, &clipped) + 999) / 1000;
    p.fd = c->ctx->fd;
    p.events = POLLOUT;
    p.revents = 0;
    do {
        rc = poll(&p, 1, left_ms > 0 ? (int)left_ms : 0);
    } while (rc < 0 && errno == EINTR);
    if (rc != 1) {
        const dl_call_bound_t *b = dl_call_bound_current();
        if (clipped && b) {
            dl_error_set(err, DL_ERR_CONNECT, "Cannot connect to Redis at %s within this call's %.3f s bound (%s)",
                         c->endpoint, b->bound_us / 1e6, b->what);
        } else {
            dl_error_set(err, DL_ERR_CONNECT, "Cannot connect to Redis at %s: Connection timed out", c->endpoint);
        }
        dl_conn_close(c);
        return DL_ERR_CONNECT;
    }
    if (getsockopt(c->ctx->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr != 0) {
        dl_error_set(err, DL_ERR_CONNECT, "Cannot connect to Redis at %s: %s", c->endpoint,
                     strerror(soerr ? soerr : errno));
        dl_conn_close(c);
        return DL_ERR_CONNECT;
    }
    flags = fcntl(c->ctx->fd, F_GETFL);
    if (flags < 0 || fcntl(c->ctx->fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
        dl_error_set(err, DL_ERR_CONNECT, "Cannot connect to Redis at %s: %s", c->endpoint, strerror(errno));
        dl_conn_close(c);
        return DL_ERR_CONNECT;
    }
    c->ctx->flags |= REDIS_BLOCK;
    return DL_OK;
}

static int conn_connect_start(void *impl)
{
    dl_conn_t *c = impl;
    if (c->ctx && c->pid != dl_proc_pid()) dl_conn_close(c);
    /* A connect that outlived its connect timeout is given up and begun again. */
    if (c->ctx && c->connecting && dl_clock_now_ns() >= c->connect_deadline_ns) dl_conn_close(c);
    if (c->ctx) return c->connecting ? c->ctx->fd : -1;
    /* A unix socket connects at once; Sentinel asks where first: both connect
     * in the call, as before. A connect refused at once is left to the call too,
     * which reports it with its own message. */
    if (c->cfg.unix_path || c->resolve) return -1;
    c->ctx = redisConnectNonBlock(c->cfg.host, c->cfg.port);
    if (!c->ctx || c->ctx->err) {
        if (c->ctx) redisFree(c->ctx);
        c->ctx = NULL;
        return -1;
    }
    c->pid = dl_proc_pid();
    c->calls = 0;
    c->caps = c->caps_kept;
    c->caps_kept = 0;
    c->connecting = 1;
    c->connect_deadline_ns = dl_clock_now_ns() + c->cfg.connect_timeout_us * 1000;
    return c->ctx->fd;
}

/* Opens the context, runs the TLS handshake (rediss://), and runs AUTH and
 * SELECT (pipelined: one round trip). With a resolver, ROLE goes in the same
 * round trip, and a node that is not a master is closed: *not_master = 1, with
 * its role in err's message. */
static dl_status_t conn_open_once(dl_conn_t *c, int *not_master, dl_error_t *err)
{
    int clipped = 0;
    int64_t connect_us = clip_to_bound(c->cfg.connect_timeout_us, &clipped);
    struct timeval ctv = us_to_tv(connect_us);
#ifdef DL_HAVE_TLS
    int64_t deadline_ns = dl_clock_now_ns() + connect_us * 1000;   /* the handshake too, within the bound */
#endif
    const char *argv[3];
    size_t argvlen[3];
    int pending = 0, i, saved_errno;
    char dbbuf[16];

    if (c->ctx && c->connecting) {
        dl_status_t st = connect_finish(c, err);
        if (st != DL_OK) return st;
    } else if (connect_us <= 0) {
        /* The call's bound is spent (hiredis would take a zero timeout as "none"). */
        const dl_call_bound_t *b = dl_call_bound_current();
        return dl_error_set(err, DL_ERR_CONNECT, "Cannot connect to Redis at %s within this call's %.3f s bound (%s)",
                            c->endpoint, b ? b->bound_us / 1e6 : 0.0, b ? b->what : "timeout");
    } else {
        c->ctx = c->cfg.unix_path ? redisConnectUnixWithTimeout(c->cfg.unix_path, ctv)
                                  : redisConnectWithTimeout(c->cfg.host, c->cfg.port, ctv);
    }
    if (!c->ctx) {
        return dl_error_set(err, DL_ERR_NOMEM, "out of memory connecting to Redis at %s", c->endpoint);
    }
    if (c->ctx->err) {
        const dl_call_bound_t *b = dl_call_bound_current();
        if (clipped && b && (errno == EINPROGRESS || errno == ETIMEDOUT || strstr(c->ctx->errstr, "timed out"))) {
            dl_error_set(err, DL_ERR_CONNECT, "Cannot connect to Redis at %s within this call's %.3f s bound (%s)",
                         c->endpoint, b->bound_us / 1e6, b->what);
        } else {
            dl_error_set(err, DL_ERR_CONNECT, "Cannot connect to Redis at %s: %s", c->endpoint, c->ctx->errstr);
        }
        dl_conn_close(c);
        return DL_ERR_CONNECT;
    }
    c->pid = dl_proc_pid();
    c->calls = 0;
#ifdef DL_HAVE_TLS
    if (c->cfg.tls) {
        dl_status_t st = tls_start(c, deadline_ns, err);
        if (st != DL_OK) return st;
    }
#endif
    /* AUTH, SELECT and ROLE wait for no longer than the call's bound allows. */
    c->bounded = 0;
    c->read_timeout_us = clip_to_bound(c->cfg.timeout_us, &c->bounded);
    if (c->read_timeout_us <= 0) c->read_timeout_us = 1000;
    if (redisSetTimeout(c->ctx, us_to_tv(c->read_timeout_us)) != REDIS_OK) {
        dl_error_set(err, DL_ERR_CONNECT, "Cannot set timeouts on the connection to Redis at %s", c->endpoint);
        dl_conn_close(c);
        return DL_ERR_CONNECT;
    }
    if (c->cfg.password) {
        int n = 0;
        argv[n] = "AUTH"; argvlen[n++] = 4;
        if (c->cfg.username) { argv[n] = c->cfg.username; argvlen[n] = strlen(c->cfg.username); n++; }
        argv[n] = c->cfg.password; argvlen[n] = strlen(c->cfg.password); n++;
        redisAppendCommandArgv(c->ctx, n, argv, argvlen);
        pending++;
    }
    if (c->cfg.has_db && c->cfg.db != 0) {
        snprintf(dbbuf, sizeof(dbbuf), "%d", c->cfg.db);
        argv[0] = "SELECT"; argvlen[0] = 6;
        argv[1] = dbbuf; argvlen[1] = strlen(dbbuf);
        redisAppendCommandArgv(c->ctx, 2, argv, argvlen);
        pending++;
    }
    if (c->resolve) {
        /* Read last: nothing but AUTH and SELECT reaches the node before its role is known. */
        redisAppendCommand(c->ctx, "ROLE");
        pending++;
    }
    for (i = 0; i < pending; i++) {
        redisReply *r = NULL;
        int is_auth = c->cfg.password && i == 0;
        int is_role = c->resolve && i == pending - 1;
        errno = 0;
        if (redisGetReply(c->ctx, (void **)&r) != REDIS_OK) {
            saved_errno = errno;
            fail_ctx(c, saved_errno, is_role ? "during ROLE" : is_auth ? "during AUTH" : "during SELECT", err);
            /* The command never completed: a connect failure, in code and message alike. */
            if (err) err->code = DL_ERR_CONNECT;
            return DL_ERR_CONNECT;
        }
        if (is_role) {
            const char *role = role_of(r);
            if (!role || strcmp(role, "master") != 0) {
                if (r->type == REDIS_REPLY_ERROR) {
                    dl_error_set(err, DL_ERR_CONNECT, "Cannot check the role of Redis at %s (nothing is written to a node"
                                 " that may be a replica): ROLE: %.*s", c->endpoint, (int)(r->len > 120 ? 120 : r->len), r->str);
                } else {
                    dl_error_set(err, DL_ERR_CONNECT, "Redis at %s is not a master (ROLE: %.20s)", c->endpoint,
                                 role ? role : "unexpected reply");
                    if (not_master) *not_master = 1;
                }
                freeReplyObject(r);
                dl_conn_close(c);
                return DL_ERR_CONNECT;
            }
            freeReplyObject(r);
            continue;
        }
        if (r->type == REDIS_REPLY_ERROR) {
            /* The server's message (e.g. WRONGPASS ...) never quotes the password. */
            dl_status_t code = is_auth ? DL_ERR_AUTH : DL_ERR_SELECT;
            dl_error_set(err, code, "%s at Redis %s: %.*s", is_auth ? "Authentication failed" : "Cannot select the database",
                         c->endpoint, (int)(r->len > 160 ? 160 : r->len), r->str);
            freeReplyObject(r);
            dl_conn_close(c);
            return code;
        }
        freeReplyObject(r);
    }
    /* The calls set their own read timeout; deferred reads (conn_recv) use the configured one. */
    if (c->bounded || c->read_timeout_us != c->cfg.timeout_us) redisSetTimeout(c->ctx, us_to_tv(c->cfg.timeout_us));
    c->read_timeout_us = 0;
    c->bounded = 0;
    return DL_OK;
}

void dl_conn_set_resolver(dl_conn_t *c, dl_conn_resolve_fn fn, void *arg)
{
    c->resolve = fn;
    c->resolve_arg = arg;
}

/* Points c at host:port (a resolver's answer) for the next connect. */
static dl_status_t conn_set_address(dl_conn_t *c, const char *host, int port, dl_error_t *err)
{
    if (!c->cfg.host || strcmp(c->cfg.host, host) != 0) {
        char *h = strdup(host);
        if (!h) return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        free(c->cfg.host);
        c->cfg.host = h;
#ifdef DL_HAVE_TLS
        /* The TLS context checks the name it was made for: a new host needs a new one. */
        if (!c->cfg.tls_server_name) {
            dl_tls_free(c->tls);
            c->tls = NULL;
        }
#endif
    }
    c->cfg.port = port;
    dl_server_config_endpoint(&c->cfg, c->endpoint, sizeof(c->endpoint));
    return DL_OK;
}

/*
 * Connects: to the configured address; or, with a resolver, to the address
 * it answers now, asking again (after DL_CONN_ROLE_RETRY_US) while the node
 * found is not a master, until the connect timeout is spent.
 */
static dl_status_t conn_open(dl_conn_t *c, dl_error_t *err)
{
    int64_t deadline_ns;
    if (!c->resolve) {
        unsigned kept = c->caps_kept;
        dl_status_t st = conn_open_once(c, NULL, err);
        if (st == DL_OK) c->caps = kept;
        c->caps_kept = 0;
        return st;
    }
    deadline_ns = dl_clock_now_ns() + c->cfg.connect_timeout_us * 1000;
    for (;;) {
        char host[256];
        int port = 0, not_master = 0;
        dl_status_t st = c->resolve(c->resolve_arg, host, sizeof(host), &port, err);
        if (st != DL_OK) return st;
        if (port < 1 || port > 65535 || !host[0]) {
            return dl_error_set(err, DL_ERR_CONNECT, "the resolver of %s answered no usable address", c->endpoint);
        }
        if ((st = conn_set_address(c, host, port, err)) != DL_OK) return st;
        st = conn_open_once(c, &not_master, err);
        if (st == DL_OK || !not_master) return st;
        if (dl_clock_now_ns() + (int64_t)DL_CONN_ROLE_RETRY_US * 1000 >= deadline_ns) {
            char why[DL_ERR_MSG_MAX];
            snprintf(why, sizeof(why), "%s", err ? err->msg : "");
            return dl_error_set(err, DL_ERR_CONNECT, "%s, and no master was found within the %.3f s connect timeout",
                                why, c->cfg.connect_timeout_us / 1e6);
        }
        dl_clock_sleep_us(DL_CONN_ROLE_RETRY_US);
    }
}

/* READONLY: the node we write to became a replica (a failover). */
static int is_readonly(const redisReply *r)
{
    return r->type == REDIS_REPLY_ERROR && r->len >= 8 && memcmp(r->str, "READONLY", 8) == 0;
}

/* With a resolver, a READONLY reply drops the connection (the next one asks
 * where the master is now) and fails the call as a transport failure, so the
 * core's retry rules apply (dl_conn_set_resolver). */
static dl_status_t fail_readonly(dl_conn_t *c, dl_error_t *err)
{
    dl_error_set(err, DL_ERR_IO, "Redis at %s answered READONLY: it is a replica now (a failover); the connection was"
                 " dropped and the next one asks where the master is", c->endpoint);
    dl_conn_close(c);
    return DL_ERR_IO;
}

dl_transport_t dl_conn_transport(dl_conn_t *c);

/*
 * For a call with a deadline (DL_TIMEOUT_EXACT, a wait's deadline, or the
 * call's bound): waits with dl_platform_poll until input is there or
 * deadline_ns (monotonic) passes; next_reply calls it before every read() that
 * hiredis's buffer cannot answer. SO_RCVTIMEO alone counts in the kernel's
 * timer ticks (4 ms at HZ 250, seen here as 5-6 ms late); ppoll's timer is
 * precise to tens of µs (poll's, where there is no ppoll, to the millisecond,
 * rounded up). TLS connections keep SO_RCVTIMEO alone: OpenSSL may hold
 * decrypted bytes that the socket does not show. Returns DL_OK, or
 * DL_ERR_TIMEOUT after dropping the connection.
 */
static dl_status_t poll_input(dl_conn_t *c, int64_t deadline_ns, const char *during, dl_error_t *err)
{
    struct pollfd pfd;
    int rc;
    unsigned caps;
    pfd.fd = c->ctx->fd;
    pfd.events = POLLIN;
    do {
        pfd.revents = 0;
        rc = dl_platform_poll(&pfd, 1, deadline_ns);
    } while (rc < 0 && errno == EINTR);
    if (rc > 0) return DL_OK;   /* readable, or an error/close that the read reports */
    {
        char words[80];
        dl_error_set(err, DL_ERR_TIMEOUT, "Redis at %s did not answer within %s %s; the connection was dropped",
                     c->endpoint, timeout_words(c, c->read_timeout_us, words, sizeof(words)), during);
    }
    caps = c->caps;
    dl_conn_close(c);
    /* A wait that ends at its deadline (the usual end of a wait) drops a healthy
     * connection: the reconnect for its cancel reaches the same server, which
     * need not be asked again what it is (one request less). With a resolver
     * the next connect may reach another node: it asks. */
    if (!c->resolve) c->caps_kept = caps;
    return DL_ERR_TIMEOUT;
}

/* Writes what the context has buffered (hiredis writes it in redisGetReply
 * otherwise, after which no wait can come before the read). */
static dl_status_t flush_output(dl_conn_t *c, dl_error_t *err)
{
    int done = 0;
    while (!done) {
        errno = 0;
        if (redisBufferWrite(c->ctx, &done) != REDIS_OK) return fail_ctx(c, errno, "while sending", err);
    }
    return DL_OK;
}

/*
 * The next reply, as hiredis builds it. With a deadline on a plain (not TLS)
 * connection, every read() waits in poll_input first, a reply cut short
 * included: the socket's SO_RCVTIMEO is never what bounds the wait, so a call
 * need not set it (two setsockopt() before and two after each call, on the
 * path of every hand-over: docs/decisions/0022-no-socket-options-per-call.md).
 * Without one (or on TLS, where OpenSSL may hold bytes the socket does not
 * show), redisGetReply and the socket's timeouts, as set by the call.
 */
static dl_status_t next_reply(dl_conn_t *c, int64_t deadline_ns, redisReply **r, const char *during, dl_error_t *err)
{
    dl_status_t st;
    *r = NULL;
    if (!deadline_ns || c->cfg.tls) {
        errno = 0;
        if (redisGetReply(c->ctx, (void **)r) != REDIS_OK) return fail_ctx(c, errno, during, err);
        return DL_OK;
    }
    for (;;) {
        errno = 0;
        if (redisGetReplyFromReader(c->ctx, (void **)r) != REDIS_OK) return fail_ctx(c, errno, during, err);
        if (*r) return DL_OK;
        if ((st = poll_input(c, deadline_ns, during, err)) != DL_OK) return st;
        errno = 0;
        if (redisBufferRead(c->ctx) != REDIS_OK) return fail_ctx(c, errno, during, err);
    }
}

/* Reads the next reply into out (deadline_ns: as next_reply). A transport
 * failure (fail_ctx), READONLY on a resolved (Sentinel) connection, and a
 * reply that cannot be converted each drop the connection. */
static dl_status_t read_reply(dl_conn_t *c, dl_reply_t *out, int64_t deadline_ns, const char *during, dl_error_t *err)
{
    redisReply *r = NULL;
    dl_status_t st;

    if ((st = next_reply(c, deadline_ns, &r, during, err)) != DL_OK) return st;
    if (c->resolve && is_readonly(r)) {
        freeReplyObject(r);
        return fail_readonly(c, err);
    }
    st = convert_reply(r, out);
    freeReplyObject(r);
    if (st != DL_OK) {
        dl_error_set(err, st, "Redis at %s: cannot convert the reply", c->endpoint);
        dl_conn_close(c);
    }
    return st;
}

/* "8.6.3" -> 806 (major * 100 + minor); 0 when it does not start with a number. */
static int version_code(const char *v)
{
    char *end;
    long major = strtol(v, &end, 10), minor = 0;
    if (end == v) return 0;
    if (*end == '.') minor = strtol(end + 1, NULL, 10);
    return (int)(major * 100 + (minor < 100 ? minor : 99));
}

/*
 * What HELLO (no arguments: the protocol stays RESP2) says of the server
 * (docs/decisions/0045-server-capabilities-from-hello.md):
 * DL_CAP_SET_GET for Redis >= 7.0 and Valkey (NX and GET together came with
 * 7.0; Valkey forked from 7.2); DL_CAP_DELEX and DL_CAP_SET_IFEQ for Redis >=
 * 8.4; on Valkey, DL_CAP_SET_IFEQ from 8.1, DL_CAP_DELIFEQ from 9.0,
 * DL_CAP_DELEX from 9.2. The version only says what to try: a command the
 * server then refuses (a managed Redis without it, an ACL) clears its bit
 * (dl_lock.c). HELLO is allowed to every ACL user; an error reply (a server
 * before 6.0) just means "nothing native".
 */
static unsigned caps_from_hello(const redisReply *r)
{
    const char *server = NULL, *version = NULL;
    size_t i;
    int v;
    if (r->type != REDIS_REPLY_ARRAY) return DL_CAP_KNOWN;
    for (i = 0; i + 1 < r->elements; i += 2) {
        const redisReply *k = r->element[i], *val = r->element[i + 1];
        if (k->type != REDIS_REPLY_STRING || val->type != REDIS_REPLY_STRING) continue;
        if (strcmp(k->str, "server") == 0) server = val->str;
        else if (strcmp(k->str, "version") == 0) version = val->str;
    }
    v = version ? version_code(version) : 0;
    if (server && strcmp(server, "valkey") == 0) {
        return DL_CAP_KNOWN | DL_CAP_SET_GET | (v >= 801 ? DL_CAP_SET_IFEQ : 0) | (v >= 900 ? DL_CAP_DELIFEQ : 0) |
               (v >= 902 ? DL_CAP_DELEX : 0);
    }
    if (v >= 804) return DL_CAP_KNOWN | DL_CAP_SET_GET | DL_CAP_DELEX | DL_CAP_SET_IFEQ;
    if (v >= 700) return DL_CAP_KNOWN | DL_CAP_SET_GET;
    return DL_CAP_KNOWN;
}

/*
 * The probe behind HELLO: EVALSHA of a digest no script has, with no keys.
 * It runs nothing: NOSCRIPT where this user may run scripts; NOPERM where an
 * ACL denies EVALSHA; "unknown command" where a service removed Lua. Only
 * those two refusals mean "no scripting" (docs/decisions/0047-mutex-without-scripting.md).
 */
#define DL_SCRIPT_PROBE_SHA "0000000000000000000000000000000000000000"

static unsigned caps_from_probe(const redisReply *r)
{
    if (r->type == REDIS_REPLY_ERROR && r->len >= 6 && memcmp(r->str, "NOPERM", 6) == 0) return 0;
    if (r->type == REDIS_REPLY_ERROR && r->len >= 19 && memcmp(r->str, "ERR unknown command", 19) == 0) return 0;
    return DL_CAP_SCRIPTING;
}

/* NOAUTH: the server wants a password and none was given. Redis answers a
 * HELLO without one so, before it reads anything else; a large command of an
 * unauthenticated client is cut off instead ("Protocol error: unauthenticated
 * multibulk length"), so the HELLO that goes first on every new connection is
 * where a missing password is told, whatever the call sends (issue 27.4). */
static int is_noauth(const redisReply *r)
{
    return r->type == REDIS_REPLY_ERROR && r->len >= 6 && memcmp(r->str, "NOAUTH", 6) == 0;
}

/*
 * The caps hint (issue 45.1; docs/decisions/0061-the-first-call-chooses-before-hello.md):
 * the native commands this process last learned
 * a server has for a user, kept per address and user so that a fresh
 * connection's first call (a new instance, a persistent connection just
 * made) can choose them before its own HELLO answers, which rides in front
 * of that very call. Without it, a new instance's release by token went out
 * as the script where DELEX was there. Only the native bits are hinted, each
 * with its fallback where the server then refuses the command (a failover
 * to an older server, an ACL without it: the refusal clears the bit here
 * too); whether scripting is allowed is never hinted, so nothing is refused
 * without asking this connection's server. Sentinel's connections, whose
 * address moves, take no hint. The table's lock is only tried, never waited
 * for (a hint is worth less than a stall), and a forked child starts with it
 * free (pthread_atfork). A connection reads the hint once (hint_of).
 */
#define DL_CAPS_HINTED (DL_CAP_NATIVE_CAD | DL_CAP_SET_IFEQ)
#define DL_CAPS_HINTS 16

static struct {
    char endpoint[128];
    char user[64];
    unsigned caps;
} caps_hints[DL_CAPS_HINTS];
static unsigned caps_hints_next;
static pthread_mutex_t caps_hints_mu = PTHREAD_MUTEX_INITIALIZER;

/* A child forked while another thread held the table's lock starts with it free. */
static void caps_hints_child(void) { pthread_mutex_init(&caps_hints_mu, NULL); }
static pthread_once_t caps_hints_once = PTHREAD_ONCE_INIT;
static void caps_hints_init(void) { pthread_atfork(NULL, NULL, caps_hints_child); }

static int hint_matches(size_t i, const dl_conn_t *c)
{
    const char *user = c->cfg.username ? c->cfg.username : "";
    return strcmp(caps_hints[i].endpoint, c->endpoint) == 0 && strcmp(caps_hints[i].user, user) == 0;
}

/* What a connection to c's server and user learned last (its DL_CAPS_HINTED bits), or 0. */
static unsigned caps_hint(const dl_conn_t *c)
{
    unsigned caps = 0;
    size_t i;
    if (c->resolve || (c->cfg.username && strlen(c->cfg.username) >= sizeof(caps_hints[0].user))) return 0;
    pthread_once(&caps_hints_once, caps_hints_init);
    if (pthread_mutex_trylock(&caps_hints_mu) != 0) return 0;
    for (i = 0; i < DL_CAPS_HINTS; i++) {
        if (hint_matches(i, c)) {
            caps = caps_hints[i].caps;
            break;
        }
    }
    pthread_mutex_unlock(&caps_hints_mu);
    return caps;
}

/* Keeps what c's connection knows now (after its probe, or a refusal) for the next fresh one. */
static void caps_hint_keep(const dl_conn_t *c)
{
    size_t i;
    if (c->resolve || !(c->caps & DL_CAP_KNOWN) ||
        (c->cfg.username && strlen(c->cfg.username) >= sizeof(caps_hints[0].user))) {
        return;
    }
    pthread_once(&caps_hints_once, caps_hints_init);
    if (pthread_mutex_trylock(&caps_hints_mu) != 0) return;
    for (i = 0; i < DL_CAPS_HINTS && !hint_matches(i, c); i++) {
    }
    if (i == DL_CAPS_HINTS) {
        i = caps_hints_next++ % DL_CAPS_HINTS;   /* the oldest entry makes room */
        snprintf(caps_hints[i].endpoint, sizeof(caps_hints[i].endpoint), "%s", c->endpoint);
        snprintf(caps_hints[i].user, sizeof(caps_hints[i].user), "%s", c->cfg.username ? c->cfg.username : "");
    }
    caps_hints[i].caps = c->caps & DL_CAPS_HINTED;
    pthread_mutex_unlock(&caps_hints_mu);
}

/* About what n commands take on the wire (RESP: the arguments and their headers). */
static size_t cmds_bytes(size_t n, const dl_cmd_t *cmds)
{
    size_t i, bytes = 0;
    int j;
    for (i = 0; i < n; i++) {
        for (j = 0; j < cmds[i].argc; j++) bytes += cmds[i].argvlen[j] + 16;
    }
    return bytes;
}

static dl_status_t conn_call(void *impl, size_t n, const dl_cmd_t *cmds, dl_reply_t *replies,
                             int64_t extra_timeout_us, dl_error_t *err)
{
    dl_conn_t *c = impl;
    size_t i;
    dl_status_t st;
    int probe, bounded = 0;
    int64_t read_us, deadline_ns = 0;

    for (i = 0; i < n; i++) memset(&replies[i], 0, sizeof(replies[i]));
    /* Replies still owed are read first (the core settles before calling; this
     * keeps the rule for any caller): they never answer this call. */
    if (c->pending.n > 0) {
        dl_transport_t self = dl_conn_transport(c);
        dl_pending_settle(&self);
    }
    /* Inherited through fork(): closed without a byte written. Closed by the
     * server while idle (restart, timeout): noticed here by one poll(), so the
     * command goes out on a fresh connection instead of failing ambiguously. */
    dl_conn_check_idle(c);
    if (!c->ctx || c->connecting) {
        int64_t t0 = dl_clock_now_ns();
        st = conn_open(c, err);
        if (st != DL_OK) return st;
        dl_call_bound_started(dl_clock_now_ns() - t0);
    }
    dl_call_bound_started(0);
    /* The read timeout: the configured one (extended for a blocking command), or
     * exactly -extra_timeout_us; never past the call's bound (dl_clock.h), which
     * is then enforced like an exact one, by dl_platform's wait (next_reply). */
    read_us = extra_timeout_us < 0 ? -extra_timeout_us : c->cfg.timeout_us + extra_timeout_us;
    read_us = clip_to_bound(read_us, &bounded);
    if (read_us <= 0) {
        const dl_call_bound_t *b = dl_call_bound_current();
        /* Nothing is written: not ambiguous, so not a timeout (which would call for an undo). */
        return dl_error_set(err, DL_ERR_CONNECT, "Redis at %s was not asked: this call's %.3f s bound (%s) was spent",
                            c->endpoint, b ? b->bound_us / 1e6 : 0.0, b ? b->what : "timeout");
    }
    if (extra_timeout_us < 0 || bounded) deadline_ns = dl_clock_now_ns() + read_us * 1000;
    c->bounded = bounded;
    c->read_timeout_us = read_us;
    /* With a deadline every read waits in poll_input (next_reply); the socket's
     * timeouts matter only without one, on TLS, or for a write that may not fit
     * the socket's send buffer (which a call finds empty: the previous call
     * read all its replies, or its connection was dropped; Linux starts it at
     * 16 KiB): the write of a large call (a release of hundreds of leases) may
     * block on a stalled server, and SO_SNDTIMEO bounds it by what is left. */
    if (read_us != c->cfg.timeout_us && (!deadline_ns || c->cfg.tls || cmds_bytes(n, cmds) > DL_SMALL_WRITE)) {
        redisSetTimeout(c->ctx, us_to_tv(read_us));
        c->sock_timeout_changed = 1;
    }
    /* The first call on a connection asks what the server is, in the same
     * round trip: HELLO goes first and its reply is read first. */
    probe = c->caps == 0;
    /* ... and the scripting probe, behind it (caps_from_probe). */
    if (probe && (redisAppendCommand(c->ctx, "HELLO") != REDIS_OK ||
                  redisAppendCommand(c->ctx, "EVALSHA " DL_SCRIPT_PROBE_SHA " 0") != REDIS_OK)) {
        return fail_ctx(c, errno, "while sending", err);
    }
    if ((st = send_cmds(c, n, cmds, deadline_ns != 0, err)) != DL_OK) return st;
    if (probe) {
        redisReply *h = NULL;
        errno = 0;
        if ((st = next_reply(c, deadline_ns, &h, "while reading the reply", err)) != DL_OK) return st;
        if (is_noauth(h)) {
            /* Nothing of the call ran: the server refuses an unauthenticated client. */
            freeReplyObject(h);
            dl_error_set(err, DL_ERR_AUTH, "Authentication failed at Redis %s: NOAUTH Authentication required"
                         " (the server has a password and none was given)", c->endpoint);
            dl_conn_close(c);
            return DL_ERR_AUTH;
        }
        c->caps = caps_from_hello(h);
        freeReplyObject(h);
        if ((st = next_reply(c, deadline_ns, &h, "while reading the reply", err)) != DL_OK) return st;
        c->caps |= caps_from_probe(h);
        freeReplyObject(h);
        caps_hint_keep(c);
    }
    for (i = 0; i < n; i++) {
        st = read_reply(c, &replies[i], deadline_ns, "while reading the reply", err);
        if (st != DL_OK) return st;
    }
    if (c->sock_timeout_changed) {
        redisSetTimeout(c->ctx, us_to_tv(c->cfg.timeout_us));
        c->sock_timeout_changed = 0;
    }
    c->read_timeout_us = 0;
    c->bounded = 0;
    c->calls++;
    dl_obs_round_trip(c->endpoint);   /* an observer's facts (dl_obs.h): no-op unless armed */
    return DL_OK;
}

/* Writes every command and flushes; the replies stay unread (dl_pending). */
static dl_status_t conn_send(void *impl, size_t n, const dl_cmd_t *cmds, dl_error_t *err)
{
    dl_conn_t *c = impl;
    dl_status_t st;

    /* A parent's context is never written to. With replies owed, the socket is
     * readable by design: the idle check (which drops a readable connection)
     * applies only to a connection that owes nothing. */
    if (c->ctx && c->pid != dl_proc_pid()) dl_conn_close(c);
    else if (c->pending.n == 0) dl_conn_check_idle(c);
    if (!c->ctx || c->connecting) {
        int64_t t0 = dl_clock_now_ns();
        st = conn_open(c, err);
        if (st != DL_OK) return st;
        dl_call_bound_started(dl_clock_now_ns() - t0);
    }
    dl_call_bound_started(0);
    return send_cmds(c, n, cmds, 1, err);
}

/* Reads the oldest reply owed by a conn_send. */
static dl_status_t conn_recv(void *impl, dl_reply_t *reply, dl_error_t *err)
{
    dl_conn_t *c = impl;

    memset(reply, 0, sizeof(*reply));
    if (!c->ctx || c->pid != dl_proc_pid()) {
        return dl_error_set(err, DL_ERR_IO, "Redis at %s: the connection was dropped before the reply was read",
                            c->endpoint);
    }
    /* Owed replies read at the start of a call count against its bound, and
     * are the same round trip as the call's command: like it, each waits at
     * most `timeout` (a waiting acquire's bound is longer: issue 37.2). */
    if (dl_call_bound_current()) {
        int64_t left = dl_call_bound_left_us(), deadline_ns;
        dl_status_t st;
        if (left <= 0) left = 0;
        c->bounded = left < c->cfg.timeout_us;
        c->read_timeout_us = c->bounded ? left : c->cfg.timeout_us;
        deadline_ns = dl_clock_now_ns() + c->read_timeout_us * 1000;
        st = read_reply(c, reply, deadline_ns, "while reading a deferred reply", err);
        c->bounded = 0;
        c->read_timeout_us = 0;
        return st;
    }
    return read_reply(c, reply, 0, "while reading a deferred reply", err);
}

/* Input waiting: bytes hiredis has buffered, or a readable socket (data or
 * EOF). A connection that is gone (or another process's) answers 1 too: what
 * it owes must be settled (as lost) before anything is written on a new one. */
static int conn_has_input(void *impl)
{
    dl_conn_t *c = impl;
    struct pollfd p;
    if (!c->ctx || c->pid != dl_proc_pid()) return 1;
    if (c->ctx->reader->len > c->ctx->reader->pos) return 1;
    p.fd = c->ctx->fd;
    p.events = POLLIN;
    p.revents = 0;
    return poll(&p, 1, 0) != 0;
}

static int conn_fd(void *impl)
{
    dl_conn_t *c = impl;
    return (c->ctx && c->pid == dl_proc_pid()) ? c->ctx->fd : -1;
}

static void conn_caps_clear(void *impl, unsigned bits)
{
    dl_conn_t *c = impl;
    c->caps &= ~bits;
    caps_hint_keep(c);   /* a refused native command is not hinted to the next connection */
}

/* Without a connection: the caps a reconnect will take back (caps_kept: we
 * dropped it ourselves at a wait's deadline, the server is the same), so
 * that the wait's cancel or undo picks the commands this server and user
 * allow (a cancel by script where scripting is denied would be refused).
 * Not asked yet and nothing kept: the process's hint (caps_hint). */
/* The hint of c's server and user, read once until c is closed: every
 * question of one call gets the same answer (caps_hint only tries its lock). */
static unsigned hint_of(dl_conn_t *c)
{
    if (!c->hint_read) {
        c->hint = caps_hint(c);
        c->hint_read = 1;
    }
    return c->hint;
}

static unsigned conn_caps(void *impl)
{
    dl_conn_t *c = impl;
    if (!c->ctx) return c->caps_kept ? c->caps_kept : hint_of(c);
    if (c->pid != dl_proc_pid()) return hint_of(c);   /* a parent's: the next command reconnects */
    return c->caps ? c->caps : hint_of(c);            /* not asked yet: the hint (caps_hint) */
}

dl_transport_t dl_conn_transport(dl_conn_t *c)
{
    dl_transport_t t;
    t.call = conn_call;
    t.send = conn_send;
    t.recv = conn_recv;
    t.has_input = conn_has_input;
    t.fd = conn_fd;
    t.connect_start = conn_connect_start;
    t.caps = conn_caps;
    t.caps_clear = conn_caps_clear;
    t.pending = &c->pending;
    t.impl = c;
    t.endpoint = c->endpoint;
    return t;
}
