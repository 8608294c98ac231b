/*
 * dl_multi — multi-locks (dl_multi.h).
 */
#include "dl_multi.h"

#include <stdlib.h>
#include <string.h>

#include "../base/dl_clock.h"
#include "../base/dl_proc.h"
#include "../base/dl_token.h"
#include "dl_deadlock.h"
#include "dl_replicas.h"
#include "dl_script.h"
#include "dl_scripts.h"

static int key_cmp(const dl_lease_t *a, const dl_lease_t *b)
{
    size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int c = memcmp(a->key, b->key, n);
    return c ? c : (a->key_len > b->key_len) - (a->key_len < b->key_len);
}

static dl_status_t check_args(size_t n, dl_lease_t *const *leases, dl_error_t *err)
{
    size_t i, j;
    if (n < 1 || n > DL_MULTI_MAX) return dl_error_set(err, DL_ERR_ARG, "a multi-lock takes 1 to %d names, %zu given",
                                                       DL_MULTI_MAX, n);
    for (i = 0; i < n; i++) {
        if (leases[i]->kind != DL_LEASE_EXCLUSIVE || leases[i]->fair) {
            return dl_error_set(err, DL_ERR_ARG, "a multi-lock takes exclusive leases without fair mode");
        }
        for (j = 0; j < i; j++) {
            if (key_cmp(leases[i], leases[j]) == 0) return dl_error_set(err, DL_ERR_ARG, "a multi-lock names a key twice");
        }
    }
    return DL_OK;
}

/* One attempt: the multi-acquire script (EVALSHA, then EVAL on NOSCRIPT). */
typedef struct attempt {
    int granted;
    int64_t hint_ms;              /* the least PTTL among the taken names (-1: none) */
    size_t ntaken;
    size_t taken[DL_MULTI_MAX];   /* 0-based */
} attempt_t;

/*
 * dd (NULL: none): the deadlock check (dl_deadlock.h) written behind a
 * re-registration, in the same round trip; judged when not granted, and a
 * registration that closes a cycle returns DL_ERR_DEADLOCK, still
 * registered: the caller cancels.
 */
static dl_status_t try_all(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, int waiting,
                           const dl_deadlock_opts_t *dd, attempt_t *a, dl_error_t *err)
{
    const char *argv[3 + 5 * DL_MULTI_MAX + 4 + DL_MULTI_MAX];
    size_t argvlen[3 + 5 * DL_MULTI_MAX + 4 + DL_MULTI_MAX];
    char nums[4][24];
    int argc = 0;
    size_t i;
    dl_cmd_t cmds[2];
    dl_reply_t rs[2], r;
    dl_replicas_wait_t w;
    dl_deadlock_call_t dc = {0};
    size_t ncmds = 1;
    dl_status_t st;
    int fenced = leases[0]->fencing;

#define ARG(s, len) do { argv[argc] = (s); argvlen[argc++] = (len); } while (0)
    ARG("EVALSHA", 7);
    ARG(DL_SCRIPT_MULTI_ACQUIRE_SHA, 40);
    /* Per name: K, F FN when fencing, Q W when waiting (a try sends the names only). */
    ARG(nums[0], dl_cmd_int(nums[0], (long long)((1 + (fenced ? 2 : 0) + (waiting ? 2 : 0)) * n)));
    for (i = 0; i < n; i++) {
        const dl_lease_t *l = leases[i];
        ARG(l->key, l->key_len);
        if (fenced) {
            ARG(l->fence_key, l->fence_key_len);
            ARG(l->name_fence_key, l->name_fence_key_len);
        }
        if (waiting) {
            ARG(l->waiters_key, l->waiters_key_len);
            ARG(l->wake_key, l->wake_key_len);
        }
    }
    ARG(nums[1], dl_cmd_int(nums[1], leases[0]->ttl_ms));
    ARG(nums[2], dl_cmd_int(nums[2], waiting ? DL_WAITERS_TTL_MS : 0));
    for (i = 0; i < n; i++) ARG(leases[i]->token, leases[i]->token_len);
#undef ARG
    cmds[0].argc = argc; cmds[0].argv = argv; cmds[0].argvlen = argvlen;
    /* min_replicas: WAIT behind the script, in the same round trip, as every other grant has it (dl_replicas.h). */
    if (dl_replicas_wanted(leases[0])) cmds[ncmds++] = dl_replicas_wait_cmd(&w, leases[0]);
    else if (dd && (st = dl_deadlock_command_multi(&dc, n, leases, dd, 0, &cmds[ncmds], err)) == DL_OK) ncmds++;
    else if (dd) return st;
    memset(rs, 0, sizeof(rs));
    st = dl_call_timed(t, ncmds, cmds, rs, DL_RETRY_NEVER, ncmds == 2 && !dd ? dl_replicas_extra_us(leases[0]) : 0,
                       err);
    if (st == DL_OK && dl_is_noscript(&rs[0])) {
        /* The registration did not run (an empty script cache): again by EVAL, with the check
         * (by EVAL too when it answered NOSCRIPT; a check that ran judged a wait about to be made). */
        int check_eval = dd && dl_is_noscript(&rs[1]);
        dl_reply_free(&rs[0]);
        dl_reply_free(&rs[1]);
        argv[0] = "EVAL"; argvlen[0] = 4;
        argv[1] = DL_SCRIPT_MULTI_ACQUIRE; argvlen[1] = strlen(DL_SCRIPT_MULTI_ACQUIRE);
        if (check_eval) {
            dl_deadlock_call_free(&dc);
            if ((st = dl_deadlock_command_multi(&dc, n, leases, dd, 1, &cmds[1], err)) != DL_OK) return st;
        }
        st = dl_call_timed(t, ncmds, cmds, rs, DL_RETRY_NEVER, ncmds == 2 && !dd ? dl_replicas_extra_us(leases[0]) : 0,
                           err);
    }
    r = rs[0];
    if (st == DL_OK && dl_is_kind_error(&r)) {
        /* "DLKIND <kind> <1-based index>": that name is held under another kind. */
        const char *sp = memchr(r.str + 7, ' ', r.len - 7);
        long idx = sp ? strtol(sp + 1, NULL, 10) : 1;
        if (idx < 1 || (size_t)idx > n) idx = 1;
        st = DL_KIND_ERROR_OF(&r, leases[idx - 1], err);
    } else if (st == DL_OK && r.type == DL_REPLY_ERROR) {
        st = dl_server_error(t, &r, "the multi-lock script", err);
    }
    if (st == DL_OK && !fenced && !waiting && r.type == DL_REPLY_INTEGER && r.integer == 1) {
        a->granted = 1;   /* a try without fencing: 1, no table to build */
        for (i = 0; i < n; i++) leases[i]->fence = 0;
    } else if (st == DL_OK) {
        int ok = r.type == DL_REPLY_ARRAY && r.elements >= 1;
        for (i = 0; ok && i < r.elements; i++) ok = r.element[i].type == DL_REPLY_INTEGER;
        if (ok && r.element[0].integer == 1 && r.elements == n + 1) {
            a->granted = 1;
            for (i = 0; i < n; i++) leases[i]->fence = r.element[1 + i].integer;
        } else if (ok && r.element[0].integer == 0 && r.elements >= 3 && r.elements <= n + 2) {
            a->granted = 0;
            a->hint_ms = r.element[1].integer;
            a->ntaken = 0;
            for (i = 2; i < r.elements; i++) {
                long long k = r.element[i].integer;
                if (k < 1 || (size_t)k > n) { ok = 0; break; }
                a->taken[a->ntaken++] = (size_t)(k - 1);
            }
        } else {
            ok = 0;
        }
        if (!ok) st = dl_unexpected(t, "the multi-lock script", err);
    }
    if (st == DL_OK && dd && !a->granted && dl_is_noscript(&rs[1])) {
        /* The registration ran, the check did not: the check alone, by EVAL (once, an empty cache). */
        dl_cmd_t cmd;
        dl_error_t ignored;
        dl_reply_free(&rs[1]);
        memset(&rs[1], 0, sizeof(rs[1]));
        dl_deadlock_call_free(&dc);
        if (dl_deadlock_command_multi(&dc, n, leases, dd, 1, &cmd, &ignored) == DL_OK &&
            dl_call(t, 1, &cmd, &rs[1], DL_RETRY_NEVER, &ignored) != DL_OK) {
            dl_reply_free(&rs[1]);
            memset(&rs[1], 0, sizeof(rs[1]));
        }
    }
    if (st == DL_OK && dd && !a->granted) st = dl_deadlock_judge(&rs[1], dd, err);
    if (dd) dl_deadlock_call_free(&dc);
    if (st == DL_OK && a->granted && ncmds == 2 && !dd) {
        /* Fewer replicas than asked acknowledged the grant: a failover now could hand the names to
         * someone else while we believed we held them. Released with the same tokens, then the error. */
        st = dl_replicas_check(t, leases[0], &rs[1], "the multi-lock's grant; it was released", err);
        if (st != DL_OK) {
            dl_error_t ignored;
            int released[DL_MULTI_MAX];
            (void)dl_multi_release(t, n, leases, released, &ignored);
            a->granted = 0;
        }
    }
    dl_reply_free(&rs[0]);
    dl_reply_free(&rs[1]);
    return st;
}

/* Best effort, one round trip, errors ignored: what is left behind expires.
 * Within the call's bound (and a grace); when no connection can be had by
 * then, kept and written before the next command (dl_script_defer; issue 27.3). */
static void run_each_quietly(const dl_transport_t *t, const dl_script_t *(*pick)(const dl_lease_t *), size_t n,
                             dl_lease_t *const *leases)
{
    size_t i;
    dl_call_bound_t saved;
    dl_error_t ignored;
    int flags[DL_MULTI_MAX];
    dl_status_t st;
    /* As dl_script_run_or_defer: written, not waited for, when a timeout
     * ended the call; else at most DL_PENDING_GRACE_US past the call's bound. */
    if (dl_call_bound_closed()) {
        for (i = 0; i < n; i++) dl_script_defer(t, pick(leases[i]), leases[i]);
        return;
    }
    dl_call_bound_grace(&saved, DL_PENDING_GRACE_US);
    st = dl_script_run_many(t, pick, n, leases, flags, &ignored);
    dl_call_bound_end(&saved);
    if (st != DL_ERR_CONNECT) return;
    for (i = 0; i < n; i++) dl_script_defer(t, pick(leases[i]), leases[i]);
}

static const dl_script_t *cancel_of(const dl_lease_t *lease) { return dl_primitive_of(lease)->cancel; }

dl_status_t dl_multi_acquire(const dl_transport_t *t, size_t n, dl_lease_t *const *leases,
                             const dl_acquire_opts_t *opts, dl_acquire_result_t *res, dl_error_t *err)
{
    int64_t start_ns = dl_clock_now_ns(), deadline_ns = start_ns + opts->wait_us * 1000;
    int waiting = opts->wait_us > 0, can_block = 1;
    unsigned backoff_attempt = 0;
    size_t i;
    dl_status_t st;

    /* The deadlock check rides on re-registrations (never the first attempt, which an
     * uncontended lockAll() sends), as on a single name's (dl_lock_acquire). */
    const dl_deadlock_opts_t *dd = waiting && opts->deadlock && !dl_replicas_wanted(leases[0]) &&
                                           dl_deadlock_applies(t, leases[0], opts->deadlock)
                                       ? opts->deadlock
                                       : NULL;

    memset(res, 0, sizeof(*res));
    if ((st = check_args(n, leases, err)) != DL_OK) return st;
    for (;;) {
        int64_t sent_ns = dl_clock_now_ns(), remaining_us;
        attempt_t a;
        memset(&a, 0, sizeof(a));
        st = try_all(t, n, leases, waiting, res->attempts > 0 ? dd : NULL, &a, err);
        res->attempts++;
        if (st != DL_OK) {
            /* Ambiguous: the names may have been taken. Each name's release
             * (same token) undoes what was, and wakes its waiters. */
            if (st == DL_ERR_TIMEOUT) dl_call_bound_close();   /* the call ends here: the undo is not waited for */
            if (dl_status_is_transport_failure(st)) run_each_quietly(t, dl_script_release_for, n, leases);
            else if ((st == DL_ERR_KIND || st == DL_ERR_DEADLOCK) && waiting) {
                run_each_quietly(t, cancel_of, n, leases);   /* earlier attempts' entries; a victim's */
            }
            break;
        }
        if (a.granted) {
            for (i = 0; i < n; i++) {
                leases[i]->valid_until_ns = sent_ns + leases[0]->ttl_ms * 1000000;
                leases[i]->ttl_ms = leases[0]->ttl_ms;
                leases[i]->pid = dl_proc_pid();
            }
            res->acquired = 1;
            break;
        }
        res->contended++;
        remaining_us = (deadline_ns - dl_clock_now_ns()) / 1000;
        if (remaining_us <= 0 || (opts->interrupted && opts->interrupted(opts->interrupt_arg))) {
            if (waiting) run_each_quietly(t, cancel_of, n, leases);   /* leave nothing behind */
            if (remaining_us > 0) st = dl_error_set(err, DL_ERR_INTERRUPTED, "the wait was interrupted");
            break;
        }
        if (can_block) {
            const char *keys[DL_MULTI_MAX];
            size_t lens[DL_MULTI_MAX];
            int64_t block_us = dl_block_time_us(remaining_us, a.hint_ms);
            int popped = 0, abandoned = 0;
            long long value = 0;
            if (block_us < 1000) {
                dl_clock_sleep_us(block_us);   /* BLPOP counts whole milliseconds */
                continue;
            }
            for (i = 0; i < a.ntaken; i++) {
                keys[i] = leases[a.taken[i]]->wake_key;
                lens[i] = leases[a.taken[i]]->wake_key_len;
            }
            st = dl_block_on_any(t, a.ntaken, keys, lens, block_us, deadline_ns, &popped, &value, &abandoned, err);
            if (st == DL_OK) {
                if (!popped && (abandoned || block_us >= remaining_us)) {
                    run_each_quietly(t, cancel_of, n, leases);   /* passes on a wake-up taken as we left */
                    break;
                }
                continue;
            }
            if (st != DL_ERR_SERVER) {
                run_each_quietly(t, cancel_of, n, leases);       /* the connection broke while blocked */
                break;
            }
            can_block = 0;   /* BLPOP refused: poll with backoff for the rest of this wait */
            st = DL_OK;
        }
        dl_clock_sleep_us(dl_wait_sleep_us(dl_backoff_delay_us(&opts->backoff, backoff_attempt++),
                                           dl_random_upto(opts->backoff.jitter_us), remaining_us, a.hint_ms));
    }
    res->waited_us = (dl_clock_now_ns() - start_ns) / 1000;
    return st;
}

static int lease_ptr_cmp(const void *a, const void *b)
{
    return key_cmp(*(dl_lease_t *const *)a, *(dl_lease_t *const *)b);
}

dl_status_t dl_multi_acquire_ordered(const dl_transport_t *t, size_t n, dl_lease_t *const *leases,
                                     const dl_acquire_opts_t *opts, dl_acquire_result_t *res, dl_error_t *err)
{
    int64_t start_ns = dl_clock_now_ns(), deadline_ns = start_ns + opts->wait_us * 1000;
    dl_lease_t *order[DL_MULTI_MAX];
    size_t i, held = 0;
    dl_status_t st;

    memset(res, 0, sizeof(*res));
    if ((st = check_args(n, leases, err)) != DL_OK) return st;
    memcpy(order, leases, n * sizeof(*order));
    qsort(order, n, sizeof(*order), lease_ptr_cmp);
    for (i = 0; i < n; i++) {
        dl_acquire_opts_t o = *opts;
        dl_acquire_result_t r;
        int64_t left_us = (deadline_ns - dl_clock_now_ns()) / 1000;
        o.wait_us = opts->wait_us > 0 ? (left_us > 0 ? left_us : 0) : 0;
        order[i]->ttl_ms = leases[0]->ttl_ms;
        order[i]->fencing = leases[0]->fencing;
        st = dl_lock_acquire(t, order[i], &o, &r, err);
        res->attempts += r.attempts;
        res->contended += r.contended;
        if (st != DL_OK || !r.acquired) break;
        held++;
    }
    if (held == n) {
        res->acquired = 1;
    } else if (held > 0) {
        dl_error_t ignored;
        if (st == DL_ERR_TIMEOUT) dl_call_bound_close();   /* the call ends here: the undo is not waited for */
        int released[DL_MULTI_MAX];
        (void)dl_lock_release_many(t, held, order, released, &ignored);   /* undo: all or none */
    }
    res->waited_us = (dl_clock_now_ns() - start_ns) / 1000;
    return st;
}

/* The multi-lock scripts write the wake list's TTL as a literal. */
typedef char dl_multi_wake_ttl_is_2000[DL_WAKE_TTL_MS == 2000 ? 1 : -1];
/* The deadlock check's argument vector has room for a multi-lock's every name. */
typedef char dl_multi_names_fit_the_deadlock_check[DL_DEADLOCK_NAMES_MAX >= DL_MULTI_MAX ? 1 : -1];

dl_status_t dl_multi_release(const dl_transport_t *t, size_t n, dl_lease_t *const *leases, int *released,
                             dl_error_t *err)
{
    size_t argc = 0, i, cap = 3 + 3 * n;
    const char **argv;
    size_t *argvlen;
    char nums[1][24];
    dl_cmd_t cmd;
    dl_reply_t r;
    dl_status_t st;

    if (n < 2) return dl_error_set(err, DL_ERR_ARG, "a multi-release takes 2 leases or more");
    for (i = 0; i < n; i++) {
        if (leases[i]->kind != DL_LEASE_EXCLUSIVE || leases[i]->fair) {
            return dl_error_set(err, DL_ERR_ARG, "a multi-release takes exclusive, not fair leases");
        }
        released[i] = 0;
    }
    argv = malloc(cap * sizeof(*argv));
    argvlen = malloc(cap * sizeof(*argvlen));
    if (!argv || !argvlen) {
        free(argv);
        free(argvlen);
        return dl_error_set(err, DL_ERR_NOMEM, "out of memory");
    }
#define ARG(s, len) do { argv[argc] = (s); argvlen[argc++] = (len); } while (0)
    ARG("EVALSHA", 7);
    ARG(DL_SCRIPT_MULTI_RELEASE_SHA, 40);
    ARG(nums[0], dl_cmd_int(nums[0], (long long)(2 * n)));
    for (i = 0; i < n; i++) {
        ARG(leases[i]->key, leases[i]->key_len);
        ARG(leases[i]->waiters_key, leases[i]->waiters_key_len);
    }
    for (i = 0; i < n; i++) ARG(leases[i]->token, leases[i]->token_len);
#undef ARG
    cmd.argc = (int)argc; cmd.argv = argv; cmd.argvlen = argvlen;
    st = dl_call(t, 1, &cmd, &r, DL_RETRY_ANY, err);
    if (st == DL_OK && dl_is_noscript(&r)) {
        dl_reply_free(&r);
        argv[0] = "EVAL"; argvlen[0] = 4;
        argv[1] = DL_SCRIPT_MULTI_RELEASE; argvlen[1] = strlen(DL_SCRIPT_MULTI_RELEASE);
        st = dl_call(t, 1, &cmd, &r, DL_RETRY_ANY, err);
    }
    if (st == DL_OK && r.type == DL_REPLY_ERROR) st = dl_server_error(t, &r, "the multi-release script", err);
    if (st == DL_OK) {
        int ok = r.type == DL_REPLY_STRING && r.len == n;
        for (i = 0; ok && i < n; i++) {
            ok = r.str[i] == '0' || r.str[i] == '1';
            if (ok) released[i] = r.str[i] == '1';
        }
        if (!ok) {
            for (i = 0; i < n; i++) released[i] = 0;
            st = dl_unexpected(t, "the multi-release script", err);
        }
    }
    dl_reply_free(&r);
    free(argv);
    free(argvlen);
    return st;
}
