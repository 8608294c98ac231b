/*
 * cluster_smoke — the core against a real Redis Cluster (tests/cluster/run.sh).
 *
 *   cluster_smoke keys  HOST PORT     every companion key of hostile names is in
 *                                     the lock key's slot, by the server's CLUSTER KEYSLOT
 *   cluster_smoke locks HOST PORT     acquire/contend/wait/release on names of every master
 *   cluster_smoke loop  HOST PORT SECONDS TAG
 *                                     acquire/release in a loop (names "{TAG}:i" and plain
 *                                     ones) until SECONDS pass; prints the totals
 *
 * Each mode prints "PASS: ..." / "FAIL: ..." lines and exits non-zero on a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_clock.h"
#include "dl_cluster.h"
#include "dl_conn.h"
#include "dl_lock.h"
#include "dl_multi.h"
#include "dl_slots.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

static dl_cluster_t *open_cluster(const char *host, int port)
{
    dl_server_config_t cfg;
    dl_error_t err;
    dl_cluster_t *c;
    memset(&cfg, 0, sizeof(cfg));
    cfg.host = strdup(host);
    cfg.port = port;
    /* A TRYAGAIN is retried for one read timeout: the harness's migration of
     * a slot takes a second by design (ten batches, 0.1 s apart) and longer
     * on a loaded machine, and the loop must ride it out, not time out. */
    cfg.has_timeout = 1;
    cfg.timeout_us = 5000000;
    c = dl_cluster_new(&cfg, 1, &err);
    if (!c) {
        printf("FAIL: dl_cluster_new: %s\n", err.msg);
        exit(1);
    }
    return c;
}

/* CLUSTER KEYSLOT key, by the server (binary-safe). */
static long long server_keyslot(const dl_transport_t *t, const char *key, size_t len)
{
    const char *argv[3] = {"CLUSTER", "KEYSLOT", key};
    size_t lens[3] = {7, 7, len};
    dl_cmd_t cmd = {3, argv, lens};
    dl_reply_t r;
    dl_error_t err;
    long long slot = -1;
    if (t->call(t->impl, 1, &cmd, &r, 0, &err) == DL_OK && r.type == DL_REPLY_INTEGER) slot = r.integer;
    else printf("  KEYSLOT failed: %s %s\n", err.msg, r.str ? r.str : "");
    dl_reply_free(&r);
    return slot;
}

static int mode_keys(dl_cluster_t *c)
{
    static const char *const names[] = {
        "account:7", "{acct}:7", "a{b", "a{}b", "}", "{}", "}{", "{}{", "}x", "a}b", "{a", "a}b{c", "}{}", "{}}",
        "}}}", "{{{", "{{}}", "}{a", "{}{x}", "x{}{y}", "{a}", "a{b}c", "{}a}", "{\xff}", "\xff}\xfe{",
    };
    dl_transport_t t = dl_cluster_transport(c);
    size_t i, checked = 0;
    unsigned seed = 7;
    for (i = 0; i < sizeof(names) / sizeof(names[0]) + 200; i++) {
        char rnd[16];
        const char *name;
        size_t nlen, j, k;
        dl_error_t err;
        dl_lease_t *l;
        long long want;
        if (i < sizeof(names) / sizeof(names[0])) {
            name = names[i];
            nlen = strlen(name);
        } else {   /* random bytes, braces likely */
            nlen = 1 + i % 12;
            for (j = 0; j < nlen; j++) {
                seed = seed * 1103515245u + 12345u;
                rnd[j] = (seed >> 20) % 3 == 0 ? "{}"[(seed >> 8) & 1] : (char)(seed >> 8);
            }
            name = rnd;
        }
        l = dl_lease_new("lock:", 5, name, nlen, NULL, 0, 1000, &err);
        if (!l) {
            printf("FAIL: dl_lease_new: %s\n", err.msg);
            return 1;
        }
        want = server_keyslot(&t, l->key, l->key_len);
        CHECK(want == (long long)dl_slot_of(l->key, l->key_len), "dl_slot_of differs from the server for name #%zu", i);
        {
            const char *keys[11] = {l->fence_key, l->wake_key, l->waiters_key, l->queue_key, l->alive_key,
                                    l->permits_key, l->readers_key, l->rwaiters_key, l->rwake_key,
                                    l->wake_prefix, l->my_wake_key};
            size_t lens[11] = {l->fence_key_len, l->wake_key_len, l->waiters_key_len, l->queue_key_len,
                               l->alive_key_len, l->permits_key_len, l->readers_key_len, l->rwaiters_key_len,
                               l->rwake_key_len, l->wake_prefix_len, l->my_wake_key_len};
            for (k = 0; k < 11; k++) {
                long long got = server_keyslot(&t, keys[k], lens[k]);
                CHECK(got == want, "name #%zu (%zu bytes): companion %zu in slot %lld, lock key in %lld", i, nlen, k,
                      got, want);
                checked++;
            }
        }
        dl_lease_free(l);
    }
    if (failures == 0) printf("PASS: %zu companion keys of %zu names in their lock key's slot (CLUSTER KEYSLOT)\n",
                              checked, sizeof(names) / sizeof(names[0]) + 200);
    return failures != 0;
}

/* A name whose lock key "lock:<name>" is served by map node `node`. */
static void name_on(const dl_cluster_t *c, int node, int nth, char *out, size_t size)
{
    const dl_slot_map_t *m = dl_cluster_map(c);
    int k, found = 0;
    for (k = 0;; k++) {
        char key[96];
        snprintf(out, size, "smoke:%d", k);
        snprintf(key, sizeof(key), "lock:%s", out);
        if (m->owner[dl_slot_of(key, strlen(key))] == node && found++ == nth) return;
    }
}

static int mode_locks(dl_cluster_t *c)
{
    dl_transport_t t = dl_cluster_transport(c);
    dl_error_t err;
    const dl_slot_map_t *m;
    size_t node;
    int masters_seen = 0;
    if (dl_cluster_refresh(c, &err) != DL_OK) {
        printf("FAIL: loading the slot map: %s\n", err.msg);
        return 1;
    }
    m = dl_cluster_map(c);
    printf("  %s\n", dl_cluster_endpoint(c));
    CHECK(dl_cluster_masters(c) == 3, "%zu masters, expected 3", dl_cluster_masters(c));
    for (node = 0; node < m->nnodes; node++) {
        char name[64];
        dl_lease_t *a, *b;
        dl_acquire_opts_t opts;
        dl_acquire_result_t res;
        int released = 0, ok = 1;
        dl_status_t st;
        int64_t t0;
        size_t s;
        int serves = 0;
        for (s = 0; s < DL_SLOTS; s++) serves |= m->owner[s] == node;
        if (!serves) continue;
        masters_seen++;
        name_on(c, (int)node, 0, name, sizeof(name));
        a = dl_lease_new("lock:", 5, name, strlen(name), NULL, 0, 5000, &err);
        b = dl_lease_new("lock:", 5, name, strlen(name), NULL, 0, 5000, &err);
        memset(&opts, 0, sizeof(opts));
        st = dl_lock_acquire(&t, a, &opts, &res, &err);
        CHECK(st == DL_OK && res.acquired, "%s:%d: acquire %s: %s", m->nodes[node].host, m->nodes[node].port, name,
              st == DL_OK ? "not acquired" : err.msg);
        ok &= st == DL_OK && res.acquired;
        st = dl_lock_acquire(&t, b, &opts, &res, &err);
        CHECK(st == DL_OK && !res.acquired, "%s: a second owner got the lock (st %d)", name, st);
        ok &= st == DL_OK && !res.acquired;
        /* After the release, a fenced acquire (the 3-key acquire script) is granted at once;
         * waiting on a cluster is covered by 02-hostile-names.phpt. */
        st = dl_lock_release(&t, a, &released, &err);
        CHECK(st == DL_OK && released, "%s: release: %s", name, st == DL_OK ? "not ours" : err.msg);
        ok &= st == DL_OK && released;
        b->fencing = 1;
        opts.wait_us = 2000000;
        t0 = dl_clock_now_ns();
        st = dl_lock_acquire(&t, b, &opts, &res, &err);
        CHECK(st == DL_OK && res.acquired && b->fence > 0, "%s: fenced acquire after release: %s", name,
              st == DL_OK ? "not acquired" : err.msg);
        ok &= st == DL_OK && res.acquired;
        st = dl_lock_release(&t, b, &released, &err);
        ok &= st == DL_OK && released;
        CHECK(st == DL_OK && released, "%s: release of the fenced lease", name);
        if (ok) printf("PASS: locks on master %s:%d (%s) in %.1f ms\n", m->nodes[node].host, m->nodes[node].port,
                       name, (double)(dl_clock_now_ns() - t0) / 1e6);
        dl_lease_free(a);
        dl_lease_free(b);
    }
    CHECK(masters_seen == 3, "names on %d masters, expected 3", masters_seen);
    return failures != 0;
}

static dl_lease_t *lease_of(const char *name, dl_lease_kind_t kind, long long permits, long long limit)
{
    dl_error_t err;
    dl_lease_t *l = dl_lease_new("lock:", 5, name, strlen(name), NULL, 0, 5000, &err);
    if (!l) {
        printf("FAIL: dl_lease_new: %s\n", err.msg);
        exit(1);
    }
    l->kind = kind;
    l->permits = permits;
    l->limit = limit;
    return l;
}

static int try_once(const dl_transport_t *t, dl_lease_t *l)
{
    dl_acquire_opts_t o;
    dl_acquire_result_t res;
    dl_error_t err;
    memset(&o, 0, sizeof(o));
    if (dl_lock_acquire(t, l, &o, &res, &err) != DL_OK) {
        printf("  acquire %s: %s\n", l->key, err.msg);
        return -1;
    }
    return res.acquired;
}

static int release_ok(const dl_transport_t *t, dl_lease_t *l)
{
    dl_error_t err;
    int released = 0;
    return dl_lock_release(t, l, &released, &err) == DL_OK && released;
}

/* The semaphore, shared locks and multi-locks through the Cluster router:
 * every key of a primitive in its name's slot; a multi-lock across slots by
 * canonical order, within one slot by one script. */
static int mode_primitives(dl_cluster_t *c)
{
    dl_transport_t t = dl_cluster_transport(c);
    dl_error_t err;
    char names[3][64];
    int node;
    if (dl_cluster_refresh(c, &err) != DL_OK) {
        printf("FAIL: loading the slot map: %s\n", err.msg);
        return 1;
    }
    for (node = 0; node < 3; node++) name_on(c, node, 1, names[node], sizeof(names[node]));
    {
        dl_lease_t *a = lease_of(names[0], DL_LEASE_PERMITS, 1, 2), *b = lease_of(names[0], DL_LEASE_PERMITS, 1, 2),
                   *x = lease_of(names[0], DL_LEASE_PERMITS, 1, 2);
        int ok = try_once(&t, a) == 1 && try_once(&t, b) == 1 && try_once(&t, x) == 0 && release_ok(&t, a) &&
                 try_once(&t, x) == 1 && release_ok(&t, b) && release_ok(&t, x);
        CHECK(ok, "semaphore of 2 permits on %s", names[0]);
        if (ok) printf("PASS: semaphore: 2 permits of %s granted, a third refused until a release\n", names[0]);
        dl_lease_free(a);
        dl_lease_free(b);
        dl_lease_free(x);
    }
    {
        dl_lease_t *r1 = lease_of(names[1], DL_LEASE_SHARED, 0, 0), *r2 = lease_of(names[1], DL_LEASE_SHARED, 0, 0),
                   *w = lease_of(names[1], DL_LEASE_WRITE, 0, 0);
        int ok = try_once(&t, r1) == 1 && try_once(&t, r2) == 1 && try_once(&t, w) == 0 && release_ok(&t, r1) &&
                 release_ok(&t, r2) && try_once(&t, w) == 1 && try_once(&t, r1) == 0 && release_ok(&t, w);
        CHECK(ok, "shared and exclusive leases on %s", names[1]);
        if (ok) printf("PASS: shared locks: 2 shared holders of %s at once, the exclusive one after them\n", names[1]);
        dl_lease_free(r1);
        dl_lease_free(r2);
        dl_lease_free(w);
    }
    {
        dl_lease_t *m[3], *m2[2], *s[2];
        dl_acquire_opts_t o;
        dl_acquire_result_t res;
        int released[3], i, ok;
        dl_status_t st;
        for (i = 0; i < 3; i++) m[i] = lease_of(names[2 - i], DL_LEASE_EXCLUSIVE, 0, 0);
        m2[0] = lease_of(names[0], DL_LEASE_EXCLUSIVE, 0, 0);
        m2[1] = lease_of(names[1], DL_LEASE_EXCLUSIVE, 0, 0);
        memset(&o, 0, sizeof(o));
        st = dl_multi_acquire_ordered(&t, 3, m, &o, &res, &err);
        ok = st == DL_OK && res.acquired;
        CHECK(ok, "multi-lock of names on 3 masters: %s", st == DL_OK ? "not acquired" : err.msg);
        st = dl_multi_acquire_ordered(&t, 2, m2, &o, &res, &err);
        CHECK(st == DL_OK && !res.acquired, "an overlapping multi-lock was granted (st %d)", st);
        ok &= st == DL_OK && !res.acquired;
        ok &= dl_lock_release_many(&t, 3, m, released, &err) == DL_OK && released[0] && released[1] && released[2];
        CHECK(ok, "multi-lock across slots");
        if (ok) printf("PASS: multi-lock across 3 masters' slots in canonical order; an overlapping one refused\n");
        s[0] = lease_of("{multi}:a", DL_LEASE_EXCLUSIVE, 0, 0);
        s[1] = lease_of("{multi}:b", DL_LEASE_EXCLUSIVE, 0, 0);
        st = dl_multi_acquire(&t, 2, s, &o, &res, &err);
        ok = st == DL_OK && res.acquired && res.attempts == 1;
        ok &= dl_lock_release_many(&t, 2, s, released, &err) == DL_OK && released[0] && released[1];
        CHECK(ok, "multi-lock in one slot: %s", st == DL_OK ? "not acquired in one attempt" : err.msg);
        if (ok) printf("PASS: multi-lock of 2 names in one slot by one script, one round trip\n");
        for (i = 0; i < 3; i++) dl_lease_free(m[i]);
        for (i = 0; i < 2; i++) {
            dl_lease_free(m2[i]);
            dl_lease_free(s[i]);
        }
    }
    return failures != 0;
}

static int mode_loop(dl_cluster_t *c, double seconds, const char *tag)
{
    dl_transport_t t = dl_cluster_transport(c);
    int64_t end = dl_clock_now_ns() + (int64_t)(seconds * 1e9);
    unsigned long ops = 0, errors = 0, i = 0;
    dl_cluster_stats_t st;
    while (dl_clock_now_ns() < end) {
        char name[64];
        dl_lease_t *l;
        dl_error_t err;
        dl_acquire_opts_t opts;
        dl_acquire_result_t res;
        dl_status_t s;
        int released = 0;
        if (i % 4 == 3) snprintf(name, sizeof(name), "loop:%lu", i % 64);
        else snprintf(name, sizeof(name), "{%s}:%lu", tag, i % 64);
        l = dl_lease_new("lock:", 5, name, strlen(name), NULL, 0, 10000, &err);
        if (!l) break;
        l->fencing = (i % 2) == 1;   /* the script with 3 keys (TRYAGAIN while they are split) */
        memset(&opts, 0, sizeof(opts));
        s = dl_lock_acquire(&t, l, &opts, &res, &err);
        if (s != DL_OK || !res.acquired) {
            errors++;
            printf("  error: acquire %s: %s\n", name, s == DL_OK ? "not acquired" : err.msg);
        } else {
            s = dl_lock_release(&t, l, &released, &err);
            if (s != DL_OK || !released) {
                errors++;
                printf("  error: release %s: %s\n", name, s == DL_OK ? "not ours" : err.msg);
            }
        }
        ops++;
        i++;
        dl_lease_free(l);
    }
    dl_cluster_get_stats(c, &st);
    printf("loop: ops=%lu errors=%lu moved=%lu asks=%lu retries=%lu map_loads=%lu\n", ops, errors, st.moved, st.asks,
           st.retries, st.map_loads);
    return errors != 0 || ops == 0;
}

int main(int argc, char **argv)
{
    dl_cluster_t *c;
    int rc = 2;
    if (argc < 4) {
        fprintf(stderr, "usage: %s keys|locks|primitives|loop HOST PORT [SECONDS TAG]\n", argv[0]);
        return 2;
    }
    c = open_cluster(argv[2], atoi(argv[3]));
    if (strcmp(argv[1], "keys") == 0) rc = mode_keys(c);
    else if (strcmp(argv[1], "locks") == 0) rc = mode_locks(c);
    else if (strcmp(argv[1], "primitives") == 0) rc = mode_primitives(c);
    else if (strcmp(argv[1], "loop") == 0 && argc >= 6) rc = mode_loop(c, atof(argv[4]), argv[5]);
    dl_cluster_free(c);
    return rc;
}
