/*
 * dl_lease — one lease's memory: its key, owner token and companion keys in
 * one block (dl_lease.h).
 */
#include "dl_lease.h"

#include <stdlib.h>
#include <string.h>

#include "../base/dl_clock.h"
#include "../base/dl_hashslot.h"
#include "../base/dl_proc.h"
#include "../base/dl_token.h"
#include "dl_key.h"

/* Suffixes of the companion keys (dl_scripts.h), in block order. */
static const struct { const char *s; size_t len; } suffixes[] = {
    {":fence", 6}, {":wake", 5}, {":waiters", 8}, {":queue", 6}, {":alive", 6}, {":permits", 8},
    {":readers", 8}, {":rwaiters", 9}, {":rwake", 6},
    {":wake:", 6},   /* last: a fair waiter's own wake key is this + its token */
};
#define NSUFFIXES (sizeof(suffixes) / sizeof(suffixes[0]))

dl_lease_t *dl_lease_new(const char *prefix, size_t prefix_len, const char *name, size_t name_len,
                         const char *token, size_t token_len, int64_t ttl_ms, dl_error_t *err)
{
    /* One block: the struct, the key, the token, the companion keys and the
     * waiter's own wake key, each NUL-terminated. */
    size_t tlen = token ? token_len : DL_TOKEN_HEX_LEN, klen = prefix_len + name_len, size, i, base_len;
    char **slots[NSUFFIXES];
    size_t *lens[NSUFFIXES];
    dl_lease_t *l;
    char *p;

    size = sizeof(*l) + klen + 1 + tlen + 1;
    for (i = 0; i < NSUFFIXES; i++) size += DL_KEY_DERIVED_MAX(klen, suffixes[i].len) + 1;
    size += DL_KEY_DERIVED_MAX(klen, suffixes[NSUFFIXES - 1].len) + tlen + 1;
    size += DL_KEY_COUNTER_MAX(prefix_len) + 1;
    l = malloc(size);
    if (!l) {
        dl_error_set(err, DL_ERR_NOMEM, "out of memory");
        return NULL;
    }
    memset(l, 0, sizeof(*l));
    p = (char *)(l + 1);
    l->key = p;
    if (prefix_len) memcpy(p, prefix, prefix_len);
    if (name_len) memcpy(p + prefix_len, name, name_len);
    p[klen] = '\0';
    l->key_len = klen;
    l->name_off = prefix_len;
    p += klen + 1;
    l->token = p;
    l->token_len = tlen;
    if (token) {
        memcpy(p, token, token_len);
        p[token_len] = '\0';
    } else if (dl_token_generate(p, err) != DL_OK) {
        free(l);
        return NULL;
    }
    p += tlen + 1;
    slots[0] = &l->name_fence_key; lens[0] = &l->name_fence_key_len;
    slots[1] = &l->wake_key; lens[1] = &l->wake_key_len;
    slots[2] = &l->waiters_key; lens[2] = &l->waiters_key_len;
    slots[3] = &l->queue_key; lens[3] = &l->queue_key_len;
    slots[4] = &l->alive_key; lens[4] = &l->alive_key_len;
    slots[5] = &l->permits_key; lens[5] = &l->permits_key_len;
    slots[6] = &l->readers_key; lens[6] = &l->readers_key_len;
    slots[7] = &l->rwaiters_key; lens[7] = &l->rwaiters_key_len;
    slots[8] = &l->rwake_key; lens[8] = &l->rwake_key_len;
    slots[9] = &l->wake_prefix; lens[9] = &l->wake_prefix_len;
    /* Every derived key is one base (the key with its hash tag) followed by
     * its suffix: the base is derived once and copied (deriving it can cost a
     * tag search, dl_key.h). */
    *slots[0] = p;
    *lens[0] = dl_key_derive(l->key, klen, suffixes[0].s, suffixes[0].len, p);
    base_len = *lens[0] - suffixes[0].len;
    p[*lens[0]] = '\0';
    p += *lens[0] + 1;
    for (i = 1; i < NSUFFIXES; i++) {
        *slots[i] = p;
        memcpy(p, *slots[0], base_len);
        memcpy(p + base_len, suffixes[i].s, suffixes[i].len);
        *lens[i] = base_len + suffixes[i].len;
        p[*lens[i]] = '\0';
        p += *lens[i] + 1;
    }
    l->my_wake_key = p;
    memcpy(p, l->wake_prefix, l->wake_prefix_len);
    memcpy(p + l->wake_prefix_len, l->token, tlen);
    l->my_wake_key_len = l->wake_prefix_len + tlen;
    p[l->my_wake_key_len] = '\0';
    p += l->my_wake_key_len + 1;
    /* The slot's fencing counter; a prefix it cannot serve keeps the name's own. */
    l->fence_key = p;
    l->fence_key_len = dl_key_fence_counter(prefix, prefix_len, dl_slot_of(l->key, klen), p);
    if (l->fence_key_len == 0) {
        l->fence_key = l->name_fence_key;
        l->fence_key_len = l->name_fence_key_len;
    } else {
        p[l->fence_key_len] = '\0';
    }
    l->ttl_ms = ttl_ms;
    l->pid = dl_proc_pid();
    return l;
}

void dl_lease_free(dl_lease_t *lease)
{
    free(lease);
}

int64_t dl_lease_validity_us(const dl_lease_t *lease)
{
    int64_t left = lease->valid_until_ns - dl_clock_now_ns();
    return left > 0 ? left / 1000 : 0;
}

int dl_lease_gone_by_our_release(const dl_lease_t *lease)
{
    return lease->release_unsure && dl_clock_now_ns() < lease->valid_until_ns;
}

dl_lease_t *dl_lease_dup(const dl_lease_t *lease)
{
    dl_error_t err;
    dl_lease_t *l = dl_lease_new(lease->key, lease->name_off, lease->key + lease->name_off,
                                 lease->key_len - lease->name_off, lease->token, lease->token_len, lease->ttl_ms, &err);
    if (!l) return NULL;
    l->kind = lease->kind;
    l->permits = lease->permits;
    l->limit = lease->limit;
    l->fencing = lease->fencing;
    l->fair = lease->fair;
    l->min_replicas = lease->min_replicas;
    l->replica_timeout_ms = lease->replica_timeout_ms;
    l->fence = lease->fence;
    l->valid_until_ns = lease->valid_until_ns;
    l->pid = lease->pid;
    l->release_unsure = lease->release_unsure;
    return l;
}
