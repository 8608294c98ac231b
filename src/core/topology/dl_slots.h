/*
 * dl_slots — Redis Cluster key slots, the slot map, and redirection replies.
 *
 * Sources (redis.io, "Redis cluster specification"; the hash slot of a key
 * is base/dl_hashslot's):
 *   - redirection: "-MOVED <slot> <host>:<port>" (the slot now lives there:
 *     update the map), "-ASK <slot> <host>:<port>" (this one query goes
 *     there, preceded by ASKING; the map is not updated);
 *   - "-TRYAGAIN" (a multi-key command during resharding), "-CLUSTERDOWN"
 *     (the cluster or the slot is not served): retry later;
 *   - "-UNBLOCKED" (a blocked client released because the node changed role,
 *     Redis >= 7.0) and "-READONLY" (a write reached a replica).
 *   - CLUSTER SHARDS (Redis >= 7.0) and CLUSTER SLOTS (older servers) for the
 *     map; an empty or "?" endpoint means "the address you asked" / "unknown".
 * Nothing here does I/O: dl_cluster feeds it replies.
 */
#ifndef DL_SLOTS_H
#define DL_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "../base/dl_err.h"
#include "../base/dl_hashslot.h"
#include "../transport/dl_transport.h"

#define DL_SLOT_NONE 0xFFFFu          /* dl_slot_map_t.owner of a slot no master serves */
#define DL_SLOT_HOST_MAX 256          /* bytes of a host name or address, NUL included */

/* One master of the map. */
typedef struct dl_slot_node {
    char host[DL_SLOT_HOST_MAX];  /* address without brackets (IPv6 as is) */
    int port;
} dl_slot_node_t;

/*
 * Slot -> master. owner[slot] indexes nodes[], or is DL_SLOT_NONE. The map
 * keeps nodes in the order they were first seen; a node that lost all its
 * slots stays listed (its connection may still be in use).
 */
typedef struct dl_slot_map {
    uint16_t owner[DL_SLOTS];
    dl_slot_node_t *nodes;        /* malloc'd */
    size_t nnodes;
} dl_slot_map_t;

/* An empty map: no node, every slot DL_SLOT_NONE. */
void dl_slot_map_init(dl_slot_map_t *m);

/* Frees the node list and empties the map. */
void dl_slot_map_free(dl_slot_map_t *m);

/* Index of host:port in m->nodes, added when missing. Returns -1 when out of memory
 * or when host does not fit DL_SLOT_HOST_MAX, or the map is full (65535 nodes). */
int dl_slot_map_node(dl_slot_map_t *m, const char *host, size_t host_len, int port);

/* Slots served by a master (not DL_SLOT_NONE). */
size_t dl_slot_map_covered(const dl_slot_map_t *m);

/* Masters that serve at least one slot. */
size_t dl_slot_map_masters(const dl_slot_map_t *m);

/*
 * Fills m (emptied first) from the reply to CLUSTER SHARDS, in the RESP2
 * shape: an array of shards, each a flat map with "slots" (an array of
 * integers, start/end pairs, inclusive) and "nodes" (an array of flat maps
 * with "ip", "endpoint", "port", "tls-port", "role", "health"). The shard's
 * node with role "master" serves its slots, at its endpoint (its ip when the
 * endpoint is empty or "?"; asked_host when both are), on "tls-port" when tls
 * is set and the node has one, else "port". Unknown fields are skipped.
 * Returns DL_OK; DL_ERR_SERVER when r is an error reply (an older server: use
 * CLUSTER SLOTS), DL_ERR_PROTOCOL when the shape is wrong or no slot is
 * served, DL_ERR_NOMEM. On failure m is left empty.
 */
dl_status_t dl_slot_map_from_shards(dl_slot_map_t *m, const dl_reply_t *r, const char *asked_host, int tls,
                                    dl_error_t *err);

/*
 * Fills m (emptied first) from the reply to CLUSTER SLOTS: an array of
 * [start, end, [host, port, id, ...], replicas...]. The first node entry is
 * the master. A NIL, empty or "?" host means asked_host. Returns as
 * dl_slot_map_from_shards.
 */
dl_status_t dl_slot_map_from_slots(dl_slot_map_t *m, const dl_reply_t *r, const char *asked_host, dl_error_t *err);

/* What an error reply means to a cluster client. */
typedef enum {
    DL_REDIR_NONE = 0,     /* not a cluster error (or not an error): the command's own answer */
    DL_REDIR_MOVED,        /* the slot moved for good: update the map, resend there */
    DL_REDIR_ASK,          /* this query only: resend there after ASKING */
    DL_REDIR_TRYAGAIN,     /* keys of a slot being migrated are split: retry after a pause */
    DL_REDIR_CLUSTERDOWN,  /* the cluster (or the slot) is not served now: retry after a pause */
    DL_REDIR_UNBLOCKED,    /* a blocked command was released because the node changed role */
    DL_REDIR_READONLY      /* a write reached a replica: the map is stale */
} dl_redir_kind_t;

typedef struct dl_redirect {
    dl_redir_kind_t kind;
    unsigned slot;                /* MOVED, ASK */
    char host[DL_SLOT_HOST_MAX];  /* MOVED, ASK: without brackets */
    int port;                     /* MOVED, ASK */
} dl_redirect_t;

/*
 * Classifies reply r. For "MOVED <slot> <host>:<port>" and "ASK ..." the
 * port is what follows the LAST ':' (so IPv6 addresses, bracketed or not,
 * parse); an empty host (a node that does not know its own address) is
 * reported as empty and the caller substitutes the node it asked. A MOVED or
 * ASK that does not parse (slot >= 16384, port outside 1..65535, host too
 * long) is DL_REDIR_NONE: the caller sees the error reply as it came.
 * Returns out->kind (out is always written).
 */
dl_redir_kind_t dl_redirect_parse(const dl_reply_t *r, dl_redirect_t *out);

#endif
