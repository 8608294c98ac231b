/*
 * dl_cluster — a dl_transport_t over a Redis Cluster: one connection per
 * master, commands routed by the slot of their key.
 *
 * The lock logic keeps talking to one transport; this router sends each
 * command of a call to the master that serves its key's slot (dl_slots.h),
 * one pipeline per master, and merges the replies back in order. Every key
 * of one lock is in one slot (dl_key.h), so a lock's round trip goes to one
 * master and stays one round trip.
 *
 * Routing (redis.io, "Redis cluster specification", client behaviour):
 *   - the key: EVAL/EVALSHA (and _RO, FCALL): argv[3] when numkeys > 0;
 *     commands without a key (SCRIPT, PING, WAIT, ..., EVAL with 0 keys)
 *     go where the previous keyed command of the call goes (else the next
 *     one, else any master): WAIT must count the writes of that connection;
 *     others: argv[1];
 *   - the slot map is loaded lazily, by the first call: CLUSTER SHARDS
 *     (Redis >= 7.0) to a known node, then the others in turn; CLUSTER SLOTS
 *     where SHARDS is refused. Writes go to masters only;
 *   - MOVED: the command did not run; the map is updated at once (and
 *     reloaded before the next call: a failover or resharding moves more
 *     than one slot) and the command is sent to the new owner;
 *   - ASK: sent once more to the named node as ASKING + command (one
 *     pipeline); the map is not changed;
 *   - TRYAGAIN, CLUSTERDOWN: the command did not run; retried after a pause
 *     (1 ms, doubling to 100 ms; CLUSTERDOWN reloads the map first) until
 *     the read timeout of a node has passed since the call began, then the
 *     error reply is returned as it came;
 *   - UNBLOCKED (a BLPOP released by a role change, Redis >= 7.0): a NIL
 *     reply, as if the block had timed out (the wait loop attempts again),
 *     and the map is reloaded before the next call;
 *   - READONLY (a write that reached a replica): as CLUSTERDOWN, the map is
 *     reloaded and the command sent again (it did not run) after a pause,
 *     bounded by the deadline;
 *   - a command redirected (MOVED/ASK) more than DL_CLUSTER_MAX_REDIRECTS
 *     times without a pause gets its last error reply (a cluster that cannot
 *     agree is not looped on); TRYAGAIN and the like are bounded by the
 *     deadline only: a script whose keys a migration splits (ASK at the
 *     source, TRYAGAIN at the target: our companion keys usually do not
 *     exist) runs once the migration of its slot ends, if that is within
 *     the read timeout;
 *   - a node's transport failure is returned as it came (the command's
 *     outcome is unknown; the caller's retry rules apply) and the map is
 *     reloaded before the next call (a failover may have moved the slots).
 * A keyless command that follows a redirected command is sent again behind
 * it. Pipelines to different masters are sent one after another (a lock's
 * commands are all in one slot; only request-end release and the watchdog's
 * renewals span masters).
 *
 * No deferred replies: send/recv/has_input and pending are NULL (the lock
 * core then releases synchronously). Not thread-safe: one owner at a time,
 * like dl_conn.
 */
#ifndef DL_CLUSTER_H
#define DL_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include "../base/dl_err.h"
#include "dl_slots.h"
#include "../transport/dl_transport.h"
#include "../base/dl_uri.h"

#define DL_CLUSTER_MAX_REDIRECTS 16
#define DL_CLUSTER_BACKOFF_MIN_US 1000
#define DL_CLUSTER_BACKOFF_MAX_US 100000

typedef struct dl_cluster dl_cluster_t;

/*
 * How the router makes its node connections: dl_cluster_new uses dl_conn;
 * the unit tests pass fake nodes.
 */
typedef struct dl_cluster_node_ops {
    /* Makes a connection to host:port (no I/O needed: connecting may be lazy)
     * and fills *t with its transport (t->call at least). Returns the node's
     * handle, or NULL with err set. */
    void *(*open)(void *arg, const char *host, int port, dl_transport_t *t, dl_error_t *err);
    void (*free)(void *arg, void *node);          /* closes and frees a node */
    void (*abandon)(void *arg, void *node);       /* after fork(): close without writing (may be NULL) */
    void (*check_idle)(void *arg, void *node);    /* as dl_conn_check_idle (may be NULL) */
    int64_t (*timeout_us)(void *arg, void *node); /* the node's read timeout, µs */
    void (*free_arg)(void *arg);                  /* frees arg in dl_cluster_free (may be NULL) */
    void *arg;
} dl_cluster_node_ops_t;

/* What the router did, for stats and tests. */
typedef struct dl_cluster_stats {
    unsigned long map_loads;      /* slot maps loaded */
    unsigned long moved;          /* MOVED replies followed */
    unsigned long asks;           /* ASK replies followed */
    unsigned long retries;        /* TRYAGAIN/CLUSTERDOWN/READONLY retries */
    unsigned long unblocked;      /* UNBLOCKED replies turned into NIL */
} dl_cluster_stats_t;

/*
 * A router over the cluster that seeds[0..nseeds) belong to (host/port of
 * any nodes, masters or replicas; nseeds >= 1), making node connections with
 * *ops (copied; ops->arg is owned by the router from here on, also when this
 * fails: free_arg is called). tls: use the "tls-port" of CLUSTER SHARDS.
 * No I/O: the map is loaded by the first call (or dl_cluster_refresh).
 * Returns NULL with err set: DL_ERR_ARG (no seed, a host too long),
 * DL_ERR_NOMEM.
 */
dl_cluster_t *dl_cluster_new_with(const dl_cluster_node_ops_t *ops, const dl_slot_node_t *seeds, size_t nseeds,
                                  int tls, dl_error_t *err);

/*
 * A router whose node connections are dl_conn (dl_cluster_conn.c): each node
 * gets a copy of seeds[0] with host and port replaced (same credentials,
 * timeouts and TLS settings). Takes over seeds[0..nseeds) (freed, also on
 * failure). Unix sockets cannot be cluster seeds (DL_ERR_ARG); a database
 * other than 0 is refused too (a cluster has only database 0: DL_ERR_ARG).
 */
dl_cluster_t *dl_cluster_new(dl_server_config_t *seeds, size_t nseeds, dl_error_t *err);

/* Closes every node connection and frees the router. NULL is a no-op. */
void dl_cluster_free(dl_cluster_t *c);

/*
 * In a forked child, for a router another thread of the parent may have been
 * using: each node is abandoned (closed without a byte written, see
 * dl_conn_abandon) and the router's own memory is left alone (leaked), as it
 * may be half-updated.
 */
void dl_cluster_abandon(dl_cluster_t *c);

/* For a router kept idle (persistent): dl_conn_check_idle on every node. No round trip. */
void dl_cluster_check_idle(dl_cluster_t *c);

/* A transport whose calls go through c (dl_transport.h; no deferred replies). */
dl_transport_t dl_cluster_transport(dl_cluster_t *c);

/*
 * Loads the slot map now (CLUSTER SHARDS, CLUSTER SLOTS fallback), from the
 * nodes of the current map first, then the seeds. Returns DL_OK, or the error
 * of the last node tried (a transport failure, DL_ERR_SERVER, DL_ERR_PROTOCOL)
 * when none gave a map; the previous map, if any, is then kept.
 */
dl_status_t dl_cluster_refresh(dl_cluster_t *c, dl_error_t *err);

/* "cluster of 3 masters via 127.0.0.1:7000" (the node that gave the map), or
 * "cluster via 127.0.0.1:7000" before a map is loaded. Owned by c; the same
 * pointer as the transport's endpoint, its text updated on each load. */
const char *dl_cluster_endpoint(const dl_cluster_t *c);

/* Masters serving slots in the current map (0 before the first load). */
size_t dl_cluster_masters(const dl_cluster_t *c);

/* The current map (owner[] and nodes[]), read-only; empty before the first load. */
const dl_slot_map_t *dl_cluster_map(const dl_cluster_t *c);

/* Counters since dl_cluster_new. */
void dl_cluster_get_stats(const dl_cluster_t *c, dl_cluster_stats_t *out);

#endif
