#include "dl_slots.h"

#include <stdlib.h>
#include <string.h>

/* ---- CRC16 and slots ------------------------------------------------- */

/* The XMODEM CRC of every byte value (poly 0x1021), as in the spec's
 * Appendix A (crc16tab); test_slots checks it against the bitwise definition. */
static const uint16_t crc_table[256] = {
    0x0000, 0x1021, 0x2042, 0x3063, 0x4084, 0x50a5, 0x60c6, 0x70e7,
    0x8108, 0x9129, 0xa14a, 0xb16b, 0xc18c, 0xd1ad, 0xe1ce, 0xf1ef,
    0x1231, 0x0210, 0x3273, 0x2252, 0x52b5, 0x4294, 0x72f7, 0x62d6,
    0x9339, 0x8318, 0xb37b, 0xa35a, 0xd3bd, 0xc39c, 0xf3ff, 0xe3de,
    0x2462, 0x3443, 0x0420, 0x1401, 0x64e6, 0x74c7, 0x44a4, 0x5485,
    0xa56a, 0xb54b, 0x8528, 0x9509, 0xe5ee, 0xf5cf, 0xc5ac, 0xd58d,
    0x3653, 0x2672, 0x1611, 0x0630, 0x76d7, 0x66f6, 0x5695, 0x46b4,
    0xb75b, 0xa77a, 0x9719, 0x8738, 0xf7df, 0xe7fe, 0xd79d, 0xc7bc,
    0x48c4, 0x58e5, 0x6886, 0x78a7, 0x0840, 0x1861, 0x2802, 0x3823,
    0xc9cc, 0xd9ed, 0xe98e, 0xf9af, 0x8948, 0x9969, 0xa90a, 0xb92b,
    0x5af5, 0x4ad4, 0x7ab7, 0x6a96, 0x1a71, 0x0a50, 0x3a33, 0x2a12,
    0xdbfd, 0xcbdc, 0xfbbf, 0xeb9e, 0x9b79, 0x8b58, 0xbb3b, 0xab1a,
    0x6ca6, 0x7c87, 0x4ce4, 0x5cc5, 0x2c22, 0x3c03, 0x0c60, 0x1c41,
    0xedae, 0xfd8f, 0xcdec, 0xddcd, 0xad2a, 0xbd0b, 0x8d68, 0x9d49,
    0x7e97, 0x6eb6, 0x5ed5, 0x4ef4, 0x3e13, 0x2e32, 0x1e51, 0x0e70,
    0xff9f, 0xefbe, 0xdfdd, 0xcffc, 0xbf1b, 0xaf3a, 0x9f59, 0x8f78,
    0x9188, 0x81a9, 0xb1ca, 0xa1eb, 0xd10c, 0xc12d, 0xf14e, 0xe16f,
    0x1080, 0x00a1, 0x30c2, 0x20e3, 0x5004, 0x4025, 0x7046, 0x6067,
    0x83b9, 0x9398, 0xa3fb, 0xb3da, 0xc33d, 0xd31c, 0xe37f, 0xf35e,
    0x02b1, 0x1290, 0x22f3, 0x32d2, 0x4235, 0x5214, 0x6277, 0x7256,
    0xb5ea, 0xa5cb, 0x95a8, 0x8589, 0xf56e, 0xe54f, 0xd52c, 0xc50d,
    0x34e2, 0x24c3, 0x14a0, 0x0481, 0x7466, 0x6447, 0x5424, 0x4405,
    0xa7db, 0xb7fa, 0x8799, 0x97b8, 0xe75f, 0xf77e, 0xc71d, 0xd73c,
    0x26d3, 0x36f2, 0x0691, 0x16b0, 0x6657, 0x7676, 0x4615, 0x5634,
    0xd94c, 0xc96d, 0xf90e, 0xe92f, 0x99c8, 0x89e9, 0xb98a, 0xa9ab,
    0x5844, 0x4865, 0x7806, 0x6827, 0x18c0, 0x08e1, 0x3882, 0x28a3,
    0xcb7d, 0xdb5c, 0xeb3f, 0xfb1e, 0x8bf9, 0x9bd8, 0xabbb, 0xbb9a,
    0x4a75, 0x5a54, 0x6a37, 0x7a16, 0x0af1, 0x1ad0, 0x2ab3, 0x3a92,
    0xfd2e, 0xed0f, 0xdd6c, 0xcd4d, 0xbdaa, 0xad8b, 0x9de8, 0x8dc9,
    0x7c26, 0x6c07, 0x5c64, 0x4c45, 0x3ca2, 0x2c83, 0x1ce0, 0x0cc1,
    0xef1f, 0xff3e, 0xcf5d, 0xdf7c, 0xaf9b, 0xbfba, 0x8fd9, 0x9ff8,
    0x6e17, 0x7e36, 0x4e55, 0x5e74, 0x2e93, 0x3eb2, 0x0ed1, 0x1ef0,
};

uint16_t dl_crc16_update(uint16_t crc, const char *buf, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++) {
        crc = (uint16_t)((crc << 8) ^ crc_table[((crc >> 8) ^ (unsigned char)buf[i]) & 0xFF]);
    }
    return crc;
}

uint16_t dl_crc16(const char *buf, size_t len)
{
    return dl_crc16_update(0, buf, len);
}

unsigned dl_slot_of(const char *key, size_t len)
{
    const char *open = len ? memchr(key, '{', len) : NULL;
    if (open) {
        const char *close = memchr(open + 1, '}', len - (size_t)(open + 1 - key));
        if (close && close > open + 1) return dl_crc16(open + 1, (size_t)(close - open - 1)) & (DL_SLOTS - 1);
    }
    return dl_crc16(key, len) & (DL_SLOTS - 1);
}

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
