#include "dl_slots.h"

#include <stdlib.h>
#include <string.h>

/* ---- the map --------------------------------------------------------- */

void dl_slot_map_init(dl_slot_map_t *m)
{
    size_t i;
    m->nodes = NULL;
    m->nnodes = 0;
    for (i = 0; i < DL_SLOTS; i++) m->owner[i] = DL_SLOT_NONE;
}

void dl_slot_map_free(dl_slot_map_t *m)
{
    free(m->nodes);
    dl_slot_map_init(m);
}

int dl_slot_map_node(dl_slot_map_t *m, const char *host, size_t host_len, int port)
{
    size_t i;
    dl_slot_node_t *grown;
    if (host_len >= DL_SLOT_HOST_MAX || memchr(host, '\0', host_len)) return -1;
    for (i = 0; i < m->nnodes; i++) {
        if (m->nodes[i].port == port && strlen(m->nodes[i].host) == host_len &&
            memcmp(m->nodes[i].host, host, host_len) == 0) {
            return (int)i;
        }
    }
    if (m->nnodes >= DL_SLOT_NONE) return -1;
    grown = realloc(m->nodes, (m->nnodes + 1) * sizeof(*grown));
    if (!grown) return -1;
    m->nodes = grown;
    memcpy(grown[m->nnodes].host, host, host_len);
    grown[m->nnodes].host[host_len] = '\0';
    grown[m->nnodes].port = port;
    return (int)m->nnodes++;
}

size_t dl_slot_map_covered(const dl_slot_map_t *m)
{
    size_t i, n = 0;
    for (i = 0; i < DL_SLOTS; i++) n += m->owner[i] != DL_SLOT_NONE;
    return n;
}

size_t dl_slot_map_masters(const dl_slot_map_t *m)
{
    size_t i, n = 0;
    unsigned char *seen;
    if (m->nnodes == 0) return 0;
    seen = calloc(m->nnodes, 1);
    if (!seen) return 0;
    for (i = 0; i < DL_SLOTS; i++) {
        if (m->owner[i] != DL_SLOT_NONE && !seen[m->owner[i]]) {
            seen[m->owner[i]] = 1;
            n++;
        }
    }
    free(seen);
    return n;
}

/* ---- parsing the topology -------------------------------------------- */

static int is_str(const dl_reply_t *r)
{
    return r->type == DL_REPLY_STRING || r->type == DL_REPLY_STATUS;
}

static int str_eq(const dl_reply_t *r, const char *s)
{
    return is_str(r) && r->len == strlen(s) && memcmp(r->str, s, r->len) == 0;
}

/* A field of a RESP2 flat map (alternating names and values), or NULL. */
static const dl_reply_t *field(const dl_reply_t *map, const char *name)
{
    size_t i;
    if (map->type != DL_REPLY_ARRAY) return NULL;
    for (i = 0; i + 1 < map->elements; i += 2) {
        if (str_eq(&map->element[i], name)) return &map->element[i + 1];
    }
    return NULL;
}

/* An integer that may come as a RESP integer or a string ("port" differs between versions). */
static int as_int(const dl_reply_t *r, long long *out)
{
    char buf[24], *end;
    if (!r) return 0;
    if (r->type == DL_REPLY_INTEGER) {
        *out = r->integer;
        return 1;
    }
    if (!is_str(r) || r->len == 0 || r->len >= sizeof(buf)) return 0;
    memcpy(buf, r->str, r->len);
    buf[r->len] = '\0';
    *out = strtoll(buf, &end, 10);
    return *end == '\0';
}

/* A usable endpoint string: present, not empty, not "?". */
static int usable_host(const dl_reply_t *r)
{
    return r && is_str(r) && r->len > 0 && !(r->len == 1 && r->str[0] == '?');
}

/* Assigns slots [lo, hi] to node idx; 0 when the range is not valid. */
static int assign(dl_slot_map_t *m, long long lo, long long hi, int idx)
{
    long long s;
    if (lo < 0 || hi >= DL_SLOTS || lo > hi || idx < 0) return 0;
    for (s = lo; s <= hi; s++) m->owner[s] = (uint16_t)idx;
    return 1;
}

static dl_status_t bad_shape(dl_slot_map_t *m, const char *cmd, const char *what, dl_error_t *err)
{
    dl_slot_map_free(m);
    return dl_error_set(err, DL_ERR_PROTOCOL, "%s: unexpected reply (%s)", cmd, what);
}

static dl_status_t server_error(dl_slot_map_t *m, const char *cmd, const dl_reply_t *r, dl_error_t *err)
{
    dl_slot_map_free(m);
    return dl_error_set(err, DL_ERR_SERVER, "%s: %.*s", cmd, (int)(r->len > 200 ? 200 : r->len), r->str ? r->str : "");
}

dl_status_t dl_slot_map_from_shards(dl_slot_map_t *m, const dl_reply_t *r, const char *asked_host, int tls,
                                    dl_error_t *err)
{
    size_t s, i;
    dl_slot_map_free(m);
    if (r->type == DL_REPLY_ERROR) return server_error(m, "CLUSTER SHARDS", r, err);
    if (r->type != DL_REPLY_ARRAY) return bad_shape(m, "CLUSTER SHARDS", "not an array", err);
    for (s = 0; s < r->elements; s++) {
        const dl_reply_t *shard = &r->element[s], *slots = field(shard, "slots"), *nodes = field(shard, "nodes");
        const dl_reply_t *master = NULL;
        if (!slots || !nodes || slots->type != DL_REPLY_ARRAY || nodes->type != DL_REPLY_ARRAY) {
            return bad_shape(m, "CLUSTER SHARDS", "a shard without slots or nodes", err);
        }
        if (slots->elements == 0) continue;   /* a shard without slots (an empty master) */
        for (i = 0; i < nodes->elements && !master; i++) {
            const dl_reply_t *role = field(&nodes->element[i], "role");
            if (role && str_eq(role, "master")) master = &nodes->element[i];
        }
        if (!master) continue;   /* a shard whose master is unknown: its slots stay unserved */
        {
            const dl_reply_t *ep = field(master, "endpoint"), *ip = field(master, "ip"), *host;
            long long port = 0;
            int idx;
            host = usable_host(ep) ? ep : usable_host(ip) ? ip : NULL;
            if (!(tls && as_int(field(master, "tls-port"), &port) && port > 0) &&
                !as_int(field(master, "port"), &port)) {
                return bad_shape(m, "CLUSTER SHARDS", "a master without a port", err);
            }
            if (port < 1 || port > 65535) return bad_shape(m, "CLUSTER SHARDS", "a port out of range", err);
            idx = host ? dl_slot_map_node(m, host->str, host->len, (int)port)
                       : dl_slot_map_node(m, asked_host, strlen(asked_host), (int)port);
            if (idx < 0) {
                dl_slot_map_free(m);
                return dl_error_set(err, DL_ERR_NOMEM, "CLUSTER SHARDS: out of memory or host name too long");
            }
            if (slots->elements % 2) return bad_shape(m, "CLUSTER SHARDS", "an odd slot list", err);
            for (i = 0; i < slots->elements; i += 2) {
                long long lo, hi;
                if (!as_int(&slots->element[i], &lo) || !as_int(&slots->element[i + 1], &hi) || !assign(m, lo, hi, idx)) {
                    return bad_shape(m, "CLUSTER SHARDS", "a slot range out of 0..16383", err);
                }
            }
        }
    }
    if (dl_slot_map_covered(m) == 0) return bad_shape(m, "CLUSTER SHARDS", "no slot is served", err);
    return DL_OK;
}

dl_status_t dl_slot_map_from_slots(dl_slot_map_t *m, const dl_reply_t *r, const char *asked_host, dl_error_t *err)
{
    size_t s;
    dl_slot_map_free(m);
    if (r->type == DL_REPLY_ERROR) return server_error(m, "CLUSTER SLOTS", r, err);
    if (r->type != DL_REPLY_ARRAY) return bad_shape(m, "CLUSTER SLOTS", "not an array", err);
    for (s = 0; s < r->elements; s++) {
        const dl_reply_t *e = &r->element[s], *node;
        long long lo, hi, port;
        int idx;
        if (e->type != DL_REPLY_ARRAY || e->elements < 3 || !as_int(&e->element[0], &lo) ||
            !as_int(&e->element[1], &hi)) {
            return bad_shape(m, "CLUSTER SLOTS", "an entry without a range", err);
        }
        node = &e->element[2];
        if (node->type != DL_REPLY_ARRAY || node->elements < 2 || !as_int(&node->element[1], &port) || port < 1 ||
            port > 65535) {
            return bad_shape(m, "CLUSTER SLOTS", "a master without an address", err);
        }
        idx = usable_host(&node->element[0]) ? dl_slot_map_node(m, node->element[0].str, node->element[0].len, (int)port)
                                             : dl_slot_map_node(m, asked_host, strlen(asked_host), (int)port);
        if (idx < 0) {
            dl_slot_map_free(m);
            return dl_error_set(err, DL_ERR_NOMEM, "CLUSTER SLOTS: out of memory or host name too long");
        }
        if (!assign(m, lo, hi, idx)) return bad_shape(m, "CLUSTER SLOTS", "a slot range out of 0..16383", err);
    }
    if (dl_slot_map_covered(m) == 0) return bad_shape(m, "CLUSTER SLOTS", "no slot is served", err);
    return DL_OK;
}

/* ---- redirections ---------------------------------------------------- */

static int starts(const dl_reply_t *r, const char *word)
{
    size_t n = strlen(word);
    return r->len >= n && memcmp(r->str, word, n) == 0 && (r->len == n || r->str[n] == ' ');
}

/* "<slot> <host>:<port>" after MOVED/ASK; 1 when it parses. */
static int parse_target(const char *p, size_t len, dl_redirect_t *out)
{
    const char *end = p + len, *sp, *colon, *h;
    unsigned long slot = 0;
    long port = 0;
    size_t hlen;
    sp = memchr(p, ' ', len);
    if (!sp || sp == p) return 0;
    for (; p < sp; p++) {
        if (*p < '0' || *p > '9') return 0;
        slot = slot * 10 + (unsigned long)(*p - '0');
        if (slot >= DL_SLOTS) return 0;
    }
    h = sp + 1;
    for (colon = end; colon > h && colon[-1] != ':'; colon--) {}
    if (colon == h || colon == end) return 0;   /* no ':' or no port */
    for (p = colon; p < end; p++) {
        if (*p < '0' || *p > '9') return 0;
        port = port * 10 + (*p - '0');
        if (port > 65535) return 0;
    }
    if (port < 1) return 0;
    hlen = (size_t)(colon - 1 - h);
    if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {   /* "[::1]:7000" */
        h++;
        hlen -= 2;
    }
    if (hlen >= DL_SLOT_HOST_MAX || memchr(h, '\0', hlen)) return 0;
    memcpy(out->host, h, hlen);
    out->host[hlen] = '\0';
    out->slot = (unsigned)slot;
    out->port = (int)port;
    return 1;
}

dl_redir_kind_t dl_redirect_parse(const dl_reply_t *r, dl_redirect_t *out)
{
    memset(out, 0, sizeof(*out));
    if (!r || r->type != DL_REPLY_ERROR || !r->str) return DL_REDIR_NONE;
    if (starts(r, "MOVED")) {
        if (r->len > 6 && parse_target(r->str + 6, r->len - 6, out)) out->kind = DL_REDIR_MOVED;
    } else if (starts(r, "ASK")) {
        if (r->len > 4 && parse_target(r->str + 4, r->len - 4, out)) out->kind = DL_REDIR_ASK;
    } else if (starts(r, "TRYAGAIN")) {
        out->kind = DL_REDIR_TRYAGAIN;
    } else if (starts(r, "CLUSTERDOWN")) {
        out->kind = DL_REDIR_CLUSTERDOWN;
    } else if (starts(r, "UNBLOCKED")) {
        out->kind = DL_REDIR_UNBLOCKED;
    } else if (starts(r, "READONLY")) {
        out->kind = DL_REDIR_READONLY;
    }
    if (out->kind == DL_REDIR_NONE) memset(out, 0, sizeof(*out));
    return out->kind;
}
