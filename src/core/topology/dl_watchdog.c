/* POSIX.1-2008, before any system header: the build passes no feature macro
 * (docs/decisions/0036-platform-calls-chosen-by-configure.md). */
#define _POSIX_C_SOURCE 200809L

#include "dl_watchdog.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/dl_clock.h"
#include "../base/dl_platform.h"
#include "dl_target.h"
#include "../base/dl_proc.h"

/* One target the thread renews on (a server, or a Redlock's masters): its configuration and its own target. */
typedef struct wd_server {
    dl_target_config_t cfg;   /* copy, for matching */
    dl_target_t *conn;        /* the thread's own connections to the target */
    int busy;                 /* the thread is in a round trip on conn (set under the lock) */
} wd_server_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static dl_waker_t waker;     /* wakes the thread (dl_platform: a monotonic condition variable or a self-pipe) */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_t thread;
static int running;           /* a thread runs in this process */
static int stopping;
static dl_renew_sched_t sched;
static wd_server_t **servers;
static size_t nservers;
static dl_watchdog_stats_t stats;
static void (*lost_hook)(void *);
/* The thread's tick buffers: module state, not the thread's stack, so that a
 * forked child (which has no thread) can free its copy. */
static dl_renew_entry_t **due;
static int *results;
static size_t due_cap;

static void entry_unref_n(dl_renew_entry_t *e, int n)
{
    e->refs -= n;
    if (e->refs == 0) {
        dl_lease_free(e->lease);
        free(e);
    }
}

/* Drops all state without touching the network: used in a forked child, whose
 * copy of the schedule holds the parent's leases and connections. */
static void entry_unref(dl_renew_entry_t *e)
{
    entry_unref_n(e, 1);
}

static void drop_all(void)
{
    size_t i;
    for (i = 0; i < sched.n; i++) {
        sched.entries[i]->state = DL_RENEW_STOPPED;
        entry_unref(sched.entries[i]);
    }
    dl_renew_sched_free(&sched);
    for (i = 0; i < nservers; i++) {
        /* close() only: nothing is written. A connection the parent's thread
         * was using at fork() may be half-updated: only its socket is closed. */
        if (servers[i]->busy) dl_target_abandon(servers[i]->conn);
        else dl_target_free(servers[i]->conn);
        dl_target_config_free(&servers[i]->cfg);
        free(servers[i]);
    }
    free(servers);
    servers = NULL;
    nservers = 0;
    free(due);
    free(results);
    due = NULL;
    results = NULL;
    due_cap = 0;
    memset(&stats, 0, sizeof(stats));
}

static void atfork_prepare(void) { pthread_mutex_lock(&mu); }
static void atfork_parent(void) { pthread_mutex_unlock(&mu); }
static void atfork_child(void)
{
    /* The lock was taken by prepare, in the thread that forked: the only thread
     * here, so it may release it. The waker is made anew: its waiter (the
     * watchdog thread) does not exist in the child. */
    dl_waker_reset(&waker);
    running = 0;
    stopping = 0;
    drop_all();
    pthread_mutex_unlock(&mu);
}

static void init_once(void)
{
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

void dl_watchdog_set_lost_hook(void (*hook)(void *arg))
{
    lost_hook = hook;
}

/* Index of server in servers[], added when new. -1 when out of memory. Under mu. */
static long server_index(const dl_target_config_t *cfg, dl_error_t *err)
{
    size_t i;
    wd_server_t *s, **grown;
    dl_target_config_t conn_cfg;
    for (i = 0; i < nservers; i++) {
        if (dl_target_config_same(&servers[i]->cfg, cfg)) return (long)i;
    }
    grown = realloc(servers, (nservers + 1) * sizeof(*servers));
    if (!grown) return -1;
    servers = grown;
    s = calloc(1, sizeof(*s));
    if (!s) return -1;
    if (dl_target_config_copy(&s->cfg, cfg) != DL_OK || dl_target_config_copy(&conn_cfg, cfg) != DL_OK) {
        dl_target_config_free(&s->cfg);
        free(s);
        return -1;
    }
    s->conn = dl_target_new(&conn_cfg, err);
    if (!s->conn) {
        dl_target_config_free(&s->cfg);
        free(s);
        return -1;
    }
    servers[nservers] = s;
    return (long)nservers++;
}

/* Renews the due entries of one server in one pipeline. Called without mu. */
static void renew_on(wd_server_t *srv, dl_renew_entry_t **due, size_t n, int *results)
{
    dl_lease_t *stackbuf[64] = {0}, **leases = n <= 64 ? stackbuf : malloc(n * sizeof(*leases));
    dl_error_t err;
    size_t i;
    if (!leases) {
        for (i = 0; i < n; i++) results[i] = -1;
        return;
    }
    for (i = 0; i < n; i++) leases[i] = due[i]->lease;
    if (dl_target_refresh_many(srv->conn, n, leases, results, &err) != DL_OK) {
        for (i = 0; i < n; i++) results[i] = -1;
    }
    if (leases != stackbuf) free(leases);
}

static void *wd_main(void *arg)
{
    (void)arg;

    pthread_mutex_lock(&mu);
    while (!stopping) {
        int64_t now = dl_clock_now_ns(), wake, sent;
        size_t n, i, s;

        if (due_cap < sched.n) {
            dl_renew_entry_t **d = realloc(due, sched.n * sizeof(*due));
            int *r = d ? realloc(results, sched.n * sizeof(*results)) : NULL;
            if (d) due = d;
            if (r) results = r;
            if (d && r) due_cap = sched.n;
        }
        n = dl_renew_collect(&sched, now, due, due_cap);
        if (n == 0) {
            wake = dl_renew_next_wakeup(&sched);
            dl_waker_wait(&waker, &mu, wake);   /* INT64_MAX: until woken */
            continue;
        }
        stats.ticks++;
        /* One pipeline per server: sort the due entries by server in place. */
        for (s = 0; s < nservers; s++) {
            wd_server_t *srv = servers[s];
            size_t start = 0, k;
            for (k = 0; k < n; k++) {
                if (due[k]->server == s) {
                    dl_renew_entry_t *tmp = due[start];
                    due[start++] = due[k];
                    due[k] = tmp;
                }
            }
            if (start == 0) continue;
            srv->busy = 1;
            pthread_mutex_unlock(&mu);
            sent = dl_clock_now_ns();
            renew_on(srv, due, start, results);
            now = dl_clock_now_ns();
            pthread_mutex_lock(&mu);
            srv->busy = 0;
            stats.round_trips++;
            if (results[0] == -1) stats.errors++;
            for (i = 0; i < start; i++) {
                dl_renew_entry_t *e = due[i];
                int was_active = e->state == DL_RENEW_ACTIVE;
                dl_renew_result(e, sent, now, results[i]);
                if (results[i] == 1) stats.renewals++;
                if (was_active && e->state == DL_RENEW_LOST) {
                    stats.lost++;
                    if (lost_hook && e->lost_arg) {
                        lost_hook(e->lost_arg);
                    }
                }
                if (e->state == DL_RENEW_STOPPED) {
                    dl_renew_remove(&sched, e);
                    entry_unref(e);
                }
            }
            /* The rest of due[] moves to the front for the next server. */
            memmove(due, due + start, (n - start) * sizeof(*due));
            n -= start;
        }
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

dl_status_t dl_watchdog_add(const dl_target_config_t *server, const dl_lease_t *lease, int64_t granted_ns,
                            int64_t max_hold_us, void *lost_arg, dl_renew_entry_t **entry, dl_error_t *err)
{
    dl_renew_entry_t *e;
    long idx;

    pthread_once(&once, init_once);
    e = calloc(1, sizeof(*e));
    if (!e) return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
    /* A whole copy: the renewal runs the lease's own kind's refresh (a writer's, a shared
     * holder's, a semaphore's), with its min_replicas, not the mutex's. */
    e->lease = dl_lease_dup(lease);
    if (!e->lease) {
        free(e);
        return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
    }
    e->lost_arg = lost_arg;
    e->refs = 2;  /* the schedule's and the caller's */

    pthread_mutex_lock(&mu);
    idx = server_index(server, err);
    if (idx < 0 || dl_renew_add(&sched, e, granted_ns, max_hold_us * 1000) != 0) {
        pthread_mutex_unlock(&mu);
        dl_lease_free(e->lease);
        free(e);
        return dl_error_set(err, DL_ERR_NOMEM, "out of memory starting the watchdog");
    }
    e->server = (size_t)idx;
    if (!running) {
        stopping = 0;
        if (dl_waker_init(&waker) != 0 || pthread_create(&thread, NULL, wd_main, NULL) != 0) {
            dl_renew_remove(&sched, e);
            pthread_mutex_unlock(&mu);
            dl_lease_free(e->lease);
            free(e);
            return dl_error_set(err, DL_ERR_ARG, "cannot start the watchdog thread");
        }
        running = 1;
    }
    dl_waker_wake(&waker);
    pthread_mutex_unlock(&mu);
    *entry = e;
    return DL_OK;
}

void dl_watchdog_set_ttl(dl_renew_entry_t *e, int64_t ttl_ms)
{
    pthread_mutex_lock(&mu);
    dl_renew_set_ttl(e, ttl_ms, dl_clock_now_ns());
    dl_waker_wake(&waker);
    pthread_mutex_unlock(&mu);
}

void dl_watchdog_remove(dl_renew_entry_t *e)
{
    pthread_mutex_lock(&mu);
    int drop = 1;  /* the caller's reference */
    if (e->state != DL_RENEW_STOPPED) {
        e->state = DL_RENEW_STOPPED;
        /* In flight: the thread unlinks it when the replies are in. */
        if (!e->in_flight && dl_renew_remove(&sched, e)) drop++;  /* and the schedule's */
    }
    entry_unref_n(e, drop);
    pthread_mutex_unlock(&mu);
}

int dl_watchdog_state(dl_renew_entry_t *e)
{
    int st;
    pthread_mutex_lock(&mu);
    st = e->state;
    pthread_mutex_unlock(&mu);
    return st;
}

size_t dl_watchdog_take_reports(dl_renew_entry_t *e, dl_renew_report_t *out)
{
    size_t n;
    pthread_mutex_lock(&mu);
    n = e->nreports;
    memcpy(out, e->reports, n * sizeof(*out));
    e->nreports = 0;
    pthread_mutex_unlock(&mu);
    return n;
}

void dl_watchdog_get_stats(dl_watchdog_stats_t *out)
{
    pthread_mutex_lock(&mu);
    *out = stats;
    pthread_mutex_unlock(&mu);
}

void dl_watchdog_shutdown(void)
{
    int was_running;
    pthread_mutex_lock(&mu);
    was_running = running;
    stopping = 1;
    dl_waker_wake(&waker);
    pthread_mutex_unlock(&mu);
    if (was_running) pthread_join(thread, NULL);
    pthread_mutex_lock(&mu);
    running = 0;
    drop_all();
    pthread_mutex_unlock(&mu);
}
