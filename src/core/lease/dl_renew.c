#include "dl_renew.h"

#include <stdlib.h>
#include <string.h>

int64_t dl_renew_period_ns(int64_t ttl_ms)
{
    int64_t p = ttl_ms * 1000000 / 3;
    return p < 1000000 ? 1000000 : p;
}

int dl_renew_add(dl_renew_sched_t *s, dl_renew_entry_t *e, int64_t granted_ns, int64_t max_hold_ns)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        dl_renew_entry_t **grown = realloc(s->entries, cap * sizeof(*grown));
        if (!grown) return -1;
        s->entries = grown;
        s->cap = cap;
    }
    e->next_ns = granted_ns + dl_renew_period_ns(e->lease->ttl_ms);
    e->expires_ns = granted_ns + e->lease->ttl_ms * 1000000;
    e->hold_until_ns = max_hold_ns > 0 ? granted_ns + max_hold_ns : DL_RENEW_NO_CEILING;
    e->state = DL_RENEW_ACTIVE;
    e->in_flight = 0;
    s->entries[s->n++] = e;
    return 0;
}

int dl_renew_remove(dl_renew_sched_t *s, dl_renew_entry_t *e)
{
    size_t i;
    for (i = 0; i < s->n; i++) {
        if (s->entries[i] == e) {
            s->entries[i] = s->entries[--s->n];
            return 1;
        }
    }
    return 0;
}

size_t dl_renew_collect(dl_renew_sched_t *s, int64_t now_ns, dl_renew_entry_t **out, size_t max)
{
    size_t i, n = 0;
    for (i = 0; i < s->n && n < max; i++) {
        dl_renew_entry_t *e = s->entries[i];
        if (e->state != DL_RENEW_ACTIVE || e->in_flight) continue;
        if (now_ns >= e->hold_until_ns) {
            e->state = DL_RENEW_CEILING;
            continue;
        }
        if (e->next_ns - dl_renew_period_ns(e->lease->ttl_ms) / 2 <= now_ns) {
            e->in_flight = 1;
            out[n++] = e;
        }
    }
    return n;
}

void dl_renew_set_ttl(dl_renew_entry_t *e, int64_t ttl_ms, int64_t now_ns)
{
    if (e->in_flight) {
        /* The same ttl owes no second renewal. */
        if (ttl_ms != e->lease->ttl_ms || e->pending_ttl_ms) e->pending_ttl_ms = ttl_ms;
        return;
    }
    e->lease->ttl_ms = ttl_ms;
    /* Only ever sooner: a renewal of the old ttl may have landed behind the
     * holder's command (dl_renew.h); a shorter ttl brings both forward. */
    if (now_ns + dl_renew_period_ns(ttl_ms) < e->next_ns) e->next_ns = now_ns + dl_renew_period_ns(ttl_ms);
    if (now_ns + ttl_ms * 1000000 < e->expires_ns) e->expires_ns = now_ns + ttl_ms * 1000000;
}

void dl_renew_result(dl_renew_entry_t *e, int64_t sent_ns, int64_t now_ns, int renewed)
{
    int64_t period = dl_renew_period_ns(e->lease->ttl_ms);
    int64_t pending = e->pending_ttl_ms;
    dl_renew_report_t *r;
    e->in_flight = 0;
    e->pending_ttl_ms = 0;
    if (e->state != DL_RENEW_ACTIVE) return;
    /* Kept for an observer (dl_renew_report_t); a full log drops its oldest. */
    if (e->nreports == DL_RENEW_REPORTS_MAX) {
        memmove(e->reports, e->reports + 1, (DL_RENEW_REPORTS_MAX - 1) * sizeof(e->reports[0]));
        e->nreports--;
    }
    r = &e->reports[e->nreports++];
    r->sent_ns = sent_ns;
    r->done_ns = now_ns;
    r->ttl_ms = e->lease->ttl_ms;
    r->result = renewed;
    r->lost = 0;
    if (pending > 0 && renewed != 0) {
        /* Renewed (or not reached) with the old ttl after the holder set a new
         * one: renew again right away with the new ttl. */
        if (renewed == 1) e->expires_ns = sent_ns + e->lease->ttl_ms * 1000000;  /* the old ttl: conservative */
        e->lease->ttl_ms = pending;
        e->next_ns = now_ns;
        return;
    }
    if (renewed == 1) {
        e->next_ns = sent_ns + period;
        e->expires_ns = sent_ns + e->lease->ttl_ms * 1000000;
    } else if (renewed == 0 || now_ns >= e->expires_ns) {
        /* Not ours any more, or unreachable until it may have expired. */
        e->state = DL_RENEW_LOST;
        r->lost = 1;
    } else {
        e->next_ns = now_ns + (period < DL_RENEW_RETRY_NS ? period : DL_RENEW_RETRY_NS);
    }
}

int64_t dl_renew_next_wakeup(const dl_renew_sched_t *s)
{
    int64_t best = INT64_MAX;
    size_t i;
    for (i = 0; i < s->n; i++) {
        const dl_renew_entry_t *e = s->entries[i];
        int64_t at;
        if (e->state != DL_RENEW_ACTIVE || e->in_flight) continue;
        at = e->next_ns;
        if (e->hold_until_ns < at) at = e->hold_until_ns;
        if (at < best) best = at;
    }
    return best;
}

void dl_renew_sched_free(dl_renew_sched_t *s)
{
    free(s->entries);
    s->entries = NULL;
    s->n = s->cap = 0;
}
