/*
 * dl_rwlock — promotion and demotion of readers-writer leases (dl_rwlock.h).
 */
#include "dl_rwlock.h"

#include <string.h>

#include "../base/dl_clock.h"
#include "dl_script.h"

/* Runs a change-of-kind script; *result is its first (or only) integer, *fence the second. */
static dl_status_t change(const dl_transport_t *t, const dl_script_t *s, dl_lease_t *lease, int64_t ttl_ms,
                          int64_t *sent_ns, long long *result, long long *fence, dl_error_t *err)
{
    dl_reply_t r;
    dl_status_t st;
    *sent_ns = dl_clock_now_ns();
    st = dl_script_run(t, s, lease, ttl_ms, 0, 0, DL_RETRY_NEVER, &r, err);
    if (st == DL_OK) {
        if (r.type == DL_REPLY_INTEGER) {
            *result = r.integer;
            *fence = 0;
        } else if (r.type == DL_REPLY_ARRAY && r.elements == 2 && r.element[0].type == DL_REPLY_INTEGER &&
                   r.element[1].type == DL_REPLY_INTEGER) {
            *result = r.element[0].integer;
            *fence = r.element[1].integer;
        } else {
            st = dl_unexpected(t, s->what, err);
        }
    }
    dl_reply_free(&r);
    return st;
}

static dl_status_t become(const dl_transport_t *t, dl_lease_t *lease, dl_lease_kind_t from, dl_lease_kind_t to,
                          const dl_script_t *s, int64_t ttl_ms, int *result, dl_error_t *err)
{
    int64_t sent_ns;
    long long r = -1, fence = 0;
    dl_status_t st;
    *result = -1;
    if (lease->kind != from) {
        return dl_error_set(err, DL_ERR_ARG, from == DL_LEASE_SHARED ? "only a shared lease can be promoted"
                                                                      : "only an exclusive lease can be demoted");
    }
    st = change(t, s, lease, ttl_ms, &sent_ns, &r, &fence, err);
    if (st != DL_OK) {
        /* A demotion whose reply was lost may have run, and shared waiters may
         * hold beside us now: the lease is no longer exclusive for all we know.
         * Shared is true either way (if it did not run, the exclusive key ends
         * at its TTL, and the shared refresh calls the lease lost). A lost
         * promotion leaves a shared lease, or an exclusive one we do not use:
         * kept as it was. tests/model/rwlock.pml, DEMOTE_KEEPS. */
        if (to == DL_LEASE_SHARED && dl_status_is_transport_failure(st)) {
            lease->kind = DL_LEASE_SHARED;
            if (lease->valid_until_ns > sent_ns + ttl_ms * 1000000) lease->valid_until_ns = sent_ns + ttl_ms * 1000000;
            lease->ttl_ms = ttl_ms;
        }
        return st;
    }
    *result = r > 0 ? 1 : (int)r;
    if (r > 0) {
        lease->kind = to;
        if (to == DL_LEASE_WRITE) lease->fence = fence;
        lease->ttl_ms = ttl_ms;
        lease->valid_until_ns = sent_ns + ttl_ms * 1000000;
    }
    return DL_OK;
}

dl_status_t dl_rw_promote(const dl_transport_t *t, dl_lease_t *lease, int64_t ttl_ms, int *result, dl_error_t *err)
{
    return become(t, lease, DL_LEASE_SHARED, DL_LEASE_WRITE, &DL_RW_PROMOTE_SCRIPT, ttl_ms, result, err);
}

dl_status_t dl_rw_demote(const dl_transport_t *t, dl_lease_t *lease, int64_t ttl_ms, int *result, dl_error_t *err)
{
    return become(t, lease, DL_LEASE_WRITE, DL_LEASE_SHARED, &DL_RW_DEMOTE_SCRIPT, ttl_ms, result, err);
}
