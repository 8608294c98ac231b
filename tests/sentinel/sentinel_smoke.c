/*
 * sentinel_smoke — the Sentinel resolver, the ROLE check, READONLY and
 * min_replicas of the core against real redis-server processes (a master,
 * a replica and three sentinels started by tests/sentinel/run.sh through
 * start.sh, one fresh topology per scenario).
 *
 *   sentinel_smoke basic            resolution, its errors, ROLE, READONLY, min_replicas
 *   sentinel_smoke failover         kill -9 of the master: acquires resume after the promotion
 *   sentinel_smoke doublegrant N    the double grant a lost write causes, with min_replicas = N (0 or 1)
 *
 * Environment (start.sh): SENTINEL_NAME, SENTINEL_MASTER_PORT/_PID,
 * SENTINEL_REPLICA_PORT/_PID, SENTINEL_PORTS (comma-separated).
 * Prints PASS:/FAIL: lines and "N passed, N failed"; exits 1 when any failed.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dl_clock.h"
#include "dl_conn.h"
#include "dl_lock.h"
#include "dl_sentinel.h"

static int passed, failed;

static void check(int ok, const char *fmt, ...)
{
    va_list ap;
    printf("%s: ", ok ? "PASS" : "FAIL");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    if (ok) passed++;
    else failed++;
}

static int env_int(const char *name)
{
    const char *v = getenv(name);
    if (!v) {
        fprintf(stderr, "%s is not set (run tests/sentinel/run.sh)\n", name);
        exit(2);
    }
    return atoi(v);
}

static const char *master_name(void)
{
    const char *v = getenv("SENTINEL_NAME");
    return v ? v : "mymaster";
}

static double secs_since(int64_t t0_ns) { return (dl_clock_now_ns() - t0_ns) / 1e9; }

static void parse(const char *uri, dl_server_config_t *cfg)
{
    dl_error_t err;
    if (dl_uri_parse(uri, strlen(uri), cfg, &err) != DL_OK) {
        fprintf(stderr, "parse %s: %s\n", uri, err.msg);
        exit(2);
    }
}

/* A connection (not yet connected) made from uri; exits when it cannot be made. */
static dl_conn_t *conn_for_uri(const char *uri)
{
    dl_server_config_t cfg;
    dl_error_t err;
    dl_conn_t *c;
    parse(uri, &cfg);
    if (!(c = dl_conn_new(&cfg, &err))) {
        fprintf(stderr, "dl_conn_new %s: %s\n", uri, err.msg);
        exit(2);
    }
    return c;
}

static dl_conn_t *plain_conn(int port)
{
    char uri[128];
    snprintf(uri, sizeof(uri), "redis://127.0.0.1:%d?timeout=5&connect_timeout=2", port);
    return conn_for_uri(uri);
}

/* One admin command on a fresh plain connection; the reply in *r (caller frees). */
static dl_status_t admin(int port, dl_reply_t *r, int argc, ...)
{
    const char *argv[8];
    size_t len[8];
    dl_cmd_t cmd;
    dl_error_t err;
    dl_conn_t *c = plain_conn(port);
    dl_transport_t t = dl_conn_transport(c);
    dl_status_t st;
    va_list ap;
    int i;
    va_start(ap, argc);
    for (i = 0; i < argc; i++) {
        argv[i] = va_arg(ap, const char *);
        len[i] = strlen(argv[i]);
    }
    va_end(ap);
    cmd.argc = argc; cmd.argv = argv; cmd.argvlen = len;
    st = t.call(t.impl, 1, &cmd, r, 0, &err);
    dl_conn_free(c);
    return st;
}

static long long admin_int(int port, int argc, const char *a, const char *b)
{
    dl_reply_t r;
    long long v = -1;
    if (admin(port, &r, argc, a, b) == DL_OK && r.type == DL_REPLY_INTEGER) v = r.integer;
    dl_reply_free(&r);
    return v;
}

/* READONLY errors the server ever answered (INFO errorstats): a write that reached a replica. */
static long long readonly_errors(int port)
{
    dl_reply_t r;
    long long n = -1;
    if (admin(port, &r, 2, "INFO", "errorstats") == DL_OK && r.type == DL_REPLY_STRING) {
        const char *p = strstr(r.str, "errorstat_READONLY:count=");
        n = p ? atoll(p + strlen("errorstat_READONLY:count=")) : 0;
    }
    dl_reply_free(&r);
    return n;
}

/* The sentinels of SENTINEL_PORTS, preceded by `dead` refused ports (1, 2, ...). */
static dl_sentinel_t *sentinels(const char *name, int dead, const char *password, dl_error_t *err)
{
    dl_server_config_t cfgs[DL_SENTINEL_MAX];
    char ports[256], uri[256], *save = NULL, *p;
    size_t n = 0;
    int i;
    for (i = 0; i < dead; i++) {
        /* Ports nobody listens on (below 1024 and unused here): refused at once. */
        snprintf(uri, sizeof(uri), "redis://%s%s%s127.0.0.1:%d", password ? ":" : "", password ? password : "",
                 password ? "@" : "", 1 + i);
        parse(uri, &cfgs[n++]);
    }
    snprintf(ports, sizeof(ports), "%s", getenv("SENTINEL_PORTS") ? getenv("SENTINEL_PORTS") : "");
    for (p = strtok_r(ports, ",", &save); p && dead >= 0; p = strtok_r(NULL, ",", &save)) {
        snprintf(uri, sizeof(uri), "redis://127.0.0.1:%s", p);
        parse(uri, &cfgs[n++]);
    }
    return dl_sentinel_new(name, strlen(name), cfgs, n, err);
}

static dl_sentinel_t *only_dead_sentinels(int dead, const char *password, dl_error_t *err)
{
    dl_server_config_t cfgs[DL_SENTINEL_MAX];
    char uri[256];
    int i;
    for (i = 0; i < dead; i++) {
        snprintf(uri, sizeof(uri), "redis://:%s@127.0.0.1:%d", password, 1 + i);
        parse(uri, &cfgs[i]);
    }
    return dl_sentinel_new(master_name(), strlen(master_name()), cfgs, (size_t)dead, err);
}

static dl_conn_t *master_conn(dl_sentinel_t *s, const char *params)
{
    char uri[256];
    dl_server_config_t cfg;
    dl_error_t err;
    dl_conn_t *c;
    snprintf(uri, sizeof(uri), "redis://%s?%s", master_name(), params);
    parse(uri, &cfg);
    if (!(c = dl_sentinel_conn_new(s, &cfg, &err))) {
        fprintf(stderr, "dl_sentinel_conn_new: %s\n", err.msg);
        exit(2);
    }
    return c;
}

/* One tryLock of name; returns the status, *lease the lease (caller frees). */
static dl_status_t try_lock(dl_conn_t *c, const char *name, int min_replicas, int64_t replica_timeout_ms,
                            dl_lease_t **lease, int *acquired, dl_error_t *err)
{
    dl_transport_t t = dl_conn_transport(c);
    dl_acquire_opts_t o;
    dl_acquire_result_t res;
    dl_status_t st;
    dl_lease_t *l = dl_lease_new("lock:", 5, name, strlen(name), NULL, 0, 30000, err);
    if (!l) exit(2);
    l->min_replicas = min_replicas;
    l->replica_timeout_ms = replica_timeout_ms;
    memset(&o, 0, sizeof(o));
    st = dl_lock_acquire(&t, l, &o, &res, err);
    *acquired = st == DL_OK && res.acquired;
    *lease = l;
    return st;
}

static int release(dl_conn_t *c, dl_lease_t *l)
{
    dl_transport_t t = dl_conn_transport(c);
    dl_error_t err;
    int released = 0;
    dl_lock_release(&t, l, &released, &err);
    return released;
}

/* Tries name every 50 ms until granted or limit_s passed; returns the seconds it took, < 0 when never. */
static double lock_until_granted(dl_conn_t *c, const char *name, int min_replicas, double limit_s, dl_lease_t **out,
                                 int *errors)
{
    int64_t t0 = dl_clock_now_ns();
    *errors = 0;
    while (secs_since(t0) < limit_s) {
        dl_lease_t *l;
        dl_error_t err;
        int acquired = 0;
        dl_status_t st = try_lock(c, name, min_replicas, 1000, &l, &acquired, &err);
        if (acquired) {
            *out = l;
            return secs_since(t0);
        }
        if (st != DL_OK) {
            if (*errors < 3 || *errors % 20 == 0) printf("  (while failing over: %s: %s)\n", dl_status_name(st), err.msg);
            (*errors)++;
        }
        dl_lease_free(l);
        dl_clock_sleep_us(50000);
    }
    *out = NULL;
    return -1;
}

/* A resolver for the ROLE and READONLY checks: answers ports[i] on its i-th call (the last one from then on). */
typedef struct scripted { int ports[4]; int n, calls; } scripted_t;

static dl_status_t scripted_resolve(void *arg, char *host, size_t size, int *port, dl_error_t *err)
{
    scripted_t *s = arg;
    (void)err;
    snprintf(host, size, "127.0.0.1");
    *port = s->ports[s->calls < s->n ? s->calls : s->n - 1];
    s->calls++;
    return DL_OK;
}

static dl_conn_t *scripted_conn(scripted_t *s, const char *params)
{
    char uri[256];
    dl_conn_t *c;
    snprintf(uri, sizeof(uri), "redis://scripted?%s", params);
    c = conn_for_uri(uri);
    dl_conn_set_resolver(c, scripted_resolve, s);
    return c;
}

static void basic(void)
{
    int mport = env_int("SENTINEL_MASTER_PORT"), rport = env_int("SENTINEL_REPLICA_PORT");
    pid_t rpid = (pid_t)env_int("SENTINEL_REPLICA_PID");
    dl_error_t err;
    dl_sentinel_t *s;
    dl_conn_t *c;
    dl_lease_t *l;
    char host[256];
    int port = 0, acquired;
    dl_status_t st;
    int64_t t0;
    double el;

    /* Resolution, and the sentinel that answered moves to the front. */
    s = sentinels(master_name(), 2, NULL, &err);
    if (!s) { check(0, "dl_sentinel_new: %s", err.msg); return; }
    st = dl_sentinel_resolve(s, host, sizeof(host), &port, &err);
    check(st == DL_OK && port == mport && strcmp(host, "127.0.0.1") == 0,
          "the sentinels name the master 127.0.0.1:%d (got %s %s:%d)", mport, dl_status_name(st), host, port);
    check(strcmp(dl_sentinel_endpoint(s, 0), "127.0.0.1:1") != 0 && strcmp(dl_sentinel_endpoint(s, 2), "127.0.0.1:2") == 0,
          "the sentinel that answered is asked first next time (order: %s, %s, %s)", dl_sentinel_endpoint(s, 0),
          dl_sentinel_endpoint(s, 1), dl_sentinel_endpoint(s, 2));
    dl_sentinel_free(s);

    /* A name no sentinel knows. */
    s = sentinels("nosuchmaster", 0, NULL, &err);
    st = dl_sentinel_resolve(s, host, sizeof(host), &port, &err);
    check(st == DL_ERR_CONNECT && strstr(err.msg, "does not know master 'nosuchmaster'"), "unknown name: %s", err.msg);
    dl_sentinel_free(s);

    /* No sentinel answers: how many were tried and why, never the password. */
    s = only_dead_sentinels(3, "sekrit-PW", &err);
    t0 = dl_clock_now_ns();
    st = dl_sentinel_resolve(s, host, sizeof(host), &port, &err);
    check(st == DL_ERR_CONNECT && strstr(err.msg, "no sentinel answered") && strstr(err.msg, "3 tried") &&
              strstr(err.msg, "127.0.0.1:3") && !strstr(err.msg, "sekrit"),
          "no sentinel answered (%.3f s): %s", secs_since(t0), err.msg);
    dl_sentinel_free(s);

    /* Locking through the resolved connection. */
    s = sentinels(master_name(), 0, NULL, &err);
    c = master_conn(s, "timeout=2&connect_timeout=2");
    st = try_lock(c, "basic", 0, 0, &l, &acquired, &err);
    check(acquired && admin_int(mport, 2, "EXISTS", "lock:basic") == 1 && strcmp(dl_conn_endpoint(c), "") != 0,
          "acquired through the sentinels, the key is on the master (%s, endpoint %s)", st ? err.msg : "ok",
          dl_conn_endpoint(c));
    check(release(c, l) == 1 && admin_int(mport, 2, "EXISTS", "lock:basic") == 0, "released on the master");
    dl_lease_free(l);

    /* min_replicas = 1 with the replica running: granted. */
    st = try_lock(c, "repl", 1, 2000, &l, &acquired, &err);
    check(acquired, "min_replicas=1 with the replica running: granted (%s)", st ? err.msg : "ok");
    if (acquired) release(c, l);
    dl_lease_free(l);

    /* The replica stopped: DL_ERR_REPLICATION within the timeout, no key left. */
    kill(rpid, SIGSTOP);
    t0 = dl_clock_now_ns();
    st = try_lock(c, "repl", 1, 500, &l, &acquired, &err);
    el = secs_since(t0);
    check(st == DL_ERR_REPLICATION && !acquired && strstr(err.msg, "0 of 1 replicas acknowledged within 500 ms"),
          "min_replicas=1 with the replica stopped: %s: %s", dl_status_name(st), err.msg);
    check(el >= 0.45 && el < 2.5, "... after %.3f s (WAIT's 0.5 s, and the undo)", el);
    check(admin_int(mport, 2, "EXISTS", "lock:repl") == 0, "... and no key is left on the master");
    dl_lease_free(l);
    kill(rpid, SIGCONT);
    st = try_lock(c, "repl", 1, 3000, &l, &acquired, &err);
    check(acquired, "min_replicas=1 after the replica resumed: granted (%s)", st ? err.msg : "ok");
    if (acquired) release(c, l);
    dl_lease_free(l);
    dl_conn_free(c);
    dl_sentinel_free(s);

    /* ROLE: a resolver that first names the replica: closed unwritten, asked again 100 ms later. */
    {
        scripted_t sc = {{rport, mport}, 2, 0};
        c = scripted_conn(&sc, "timeout=2&connect_timeout=2");
        t0 = dl_clock_now_ns();
        st = try_lock(c, "role", 0, 0, &l, &acquired, &err);
        el = secs_since(t0);
        check(acquired && sc.calls == 2 && el >= 0.09, "a replica named first: asked again, granted on the master "
              "(%d resolutions, %.3f s; %s)", sc.calls, el, st ? err.msg : "ok");
        if (acquired) release(c, l);
        dl_lease_free(l);
        dl_conn_free(c);
    }
    {
        scripted_t sc = {{rport}, 1, 0};
        c = scripted_conn(&sc, "timeout=2&connect_timeout=0.6");
        t0 = dl_clock_now_ns();
        st = try_lock(c, "role", 0, 0, &l, &acquired, &err);
        el = secs_since(t0);
        check(st == DL_ERR_CONNECT && strstr(err.msg, "is not a master") && el >= 0.45 && el < 2.0 && sc.calls >= 4,
              "only a replica named: %s after %.3f s, %d resolutions: %s", dl_status_name(st), el, sc.calls, err.msg);
        dl_lease_free(l);
        dl_conn_free(c);
    }
    check(readonly_errors(rport) == 0, "nothing was ever written to the replica (INFO errorstats: %lld READONLY)",
          readonly_errors(rport));

    /* READONLY: the master is demoted under an open connection. */
    {
        scripted_t sc = {{mport}, 1, 0};
        dl_reply_t r;
        c = scripted_conn(&sc, "timeout=2&connect_timeout=0.5");
        st = try_lock(c, "ro", 0, 0, &l, &acquired, &err);
        if (acquired) release(c, l);
        dl_lease_free(l);
        check(acquired && dl_conn_is_connected(c), "before the demotion: granted on the master");
        {
            char p[16];
            snprintf(p, sizeof(p), "%d", rport);
            if (admin(mport, &r, 3, "REPLICAOF", "127.0.0.1", p) != DL_OK) check(0, "REPLICAOF failed");
            dl_reply_free(&r);
        }
        st = try_lock(c, "ro", 0, 0, &l, &acquired, &err);
        check(st == DL_ERR_IO && strstr(err.msg, "READONLY") && !acquired,
              "after the demotion: the READONLY reply is a transport failure: %s: %s", dl_status_name(st), err.msg);
        dl_lease_free(l);
        st = try_lock(c, "ro", 0, 0, &l, &acquired, &err);
        check(st == DL_ERR_CONNECT && strstr(err.msg, "is not a master") && sc.calls >= 2,
              "the next call resolves again and finds no master: %s", err.msg);
        dl_lease_free(l);
        dl_conn_free(c);
    }
}

static void failover(void)
{
    int mport = env_int("SENTINEL_MASTER_PORT"), rport = env_int("SENTINEL_REPLICA_PORT");
    pid_t mpid = (pid_t)env_int("SENTINEL_MASTER_PID");
    dl_error_t err;
    dl_sentinel_t *s = sentinels(master_name(), 0, NULL, &err);
    dl_conn_t *c = master_conn(s, "timeout=1&connect_timeout=1");
    dl_lease_t *l;
    int i, ok = 0, acquired, errors;
    double took;
    char host[256];
    int port = 0;

    for (i = 0; i < 20; i++) {
        try_lock(c, "fo", 0, 0, &l, &acquired, &err);
        if (acquired && release(c, l)) ok++;
        dl_lease_free(l);
    }
    check(ok == 20, "20 acquire/release cycles before the failover (%d ok)", ok);
    kill(mpid, SIGKILL);
    took = lock_until_granted(c, "fo-after", 0, 60, &l, &errors);
    check(took >= 0, "kill -9 of the master: acquires resumed after %.2f s (%d failed attempts meanwhile)", took, errors);
    if (l) {
        check(admin_int(rport, 2, "EXISTS", "lock:fo-after") == 1, "... on the promoted replica 127.0.0.1:%d", rport);
        release(c, l);
        dl_lease_free(l);
    }
    dl_sentinel_resolve(s, host, sizeof(host), &port, &err);
    check(port == rport && port != mport, "the sentinels name the promoted replica (%d)", port);
    for (ok = 0, i = 0; i < 20; i++) {
        try_lock(c, "fo", 0, 0, &l, &acquired, &err);
        if (acquired && release(c, l)) ok++;
        dl_lease_free(l);
    }
    check(ok == 20, "20 cycles after the failover (%d ok)", ok);
    check(readonly_errors(rport) == 0, "nothing was ever written to the replica while it was one (%lld READONLY)",
          readonly_errors(rport));
    dl_conn_free(c);
    dl_sentinel_free(s);
}

/*
 * A grant the replica never got, then a failover: the promoted replica grants
 * the same name again while the first holder still believes it holds it. With
 * min_replicas = 1 the first grant fails instead (WAIT counts 0), so the name
 * has one holder at most.
 */
static void doublegrant(int min_replicas)
{
    int mport = env_int("SENTINEL_MASTER_PORT"), rport = env_int("SENTINEL_REPLICA_PORT");
    pid_t mpid = (pid_t)env_int("SENTINEL_MASTER_PID"), rpid = (pid_t)env_int("SENTINEL_REPLICA_PID");
    dl_error_t err, err_a;
    dl_sentinel_t *s = sentinels(master_name(), 0, NULL, &err);
    dl_conn_t *a = master_conn(s, "timeout=2&connect_timeout=1"), *b;
    dl_lease_t *la, *lb;
    dl_reply_t r;
    int acquired_a, acquired_b, errors;
    dl_status_t st_a;
    double took;

    /* Replication stops: the replica is frozen and its link cut, so no write reaches it (not even
     * from a socket buffer); SIGSTOP keeps it from reconnecting before the master dies. */
    kill(rpid, SIGSTOP);
    admin(mport, &r, 4, "CLIENT", "KILL", "TYPE", "replica");
    check(r.type == DL_REPLY_INTEGER && r.integer == 1, "the replica's link was cut (%lld)", r.integer);
    dl_reply_free(&r);
    st_a = try_lock(a, "dg", min_replicas, 500, &la, &acquired_a, &err_a);
    if (min_replicas == 0) check(acquired_a, "client A acquired 'dg' on the master (no replica got it)");
    else check(st_a == DL_ERR_REPLICATION && !acquired_a, "min_replicas=1: client A's acquire failed: %s", err_a.msg);
    kill(mpid, SIGKILL);
    kill(rpid, SIGCONT);
    b = master_conn(s, "timeout=2&connect_timeout=1");
    took = lock_until_granted(b, "dg", 0, 60, &lb, &errors);
    acquired_b = took >= 0 && admin_int(rport, 2, "EXISTS", "lock:dg") == 1;
    check(acquired_b, "after the promotion (%.2f s) client B acquired 'dg' on 127.0.0.1:%d", took, rport);
    if (min_replicas == 0) {
        check(acquired_a && acquired_b && dl_lease_validity_us(la) > 0,
              "DOUBLE GRANT: A still holds 'dg' by its lease (%.1f s left) and B was granted it too",
              dl_lease_validity_us(la) / 1e6);
    } else {
        check(!acquired_a && acquired_b, "no double grant: only B holds 'dg'");
    }
    if (lb) dl_lease_free(lb);
    dl_lease_free(la);
    dl_conn_free(a);
    dl_conn_free(b);
    dl_sentinel_free(s);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 2 && strcmp(argv[1], "basic") == 0) basic();
    else if (argc >= 2 && strcmp(argv[1], "failover") == 0) failover();
    else if (argc >= 3 && strcmp(argv[1], "doublegrant") == 0) doublegrant(atoi(argv[2]));
    else {
        fprintf(stderr, "usage: %s basic | failover | doublegrant 0|1\n", argv[0]);
        return 2;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
