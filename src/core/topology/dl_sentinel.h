/*
 * dl_sentinel — finding the master of a Redis Sentinel setup.
 *
 * The client procedure of the redis.io "Sentinel clients" guidelines
 * (https://redis.io/docs/latest/develop/reference/sentinel-clients/):
 *   1. ask the sentinels in turn, each with a short timeout, and move the
 *      first one that answers to the front of the list;
 *   2. SENTINEL get-master-addr-by-name <name> gives the master's host and
 *      port (nil: that sentinel does not know the name; try the next);
 *   3. connect there and check with ROLE that it is a master (dl_conn does
 *      this: dl_conn_set_resolver), else ask again after a short sleep;
 *   4. ask again on every reconnect (a failover moves the master), and after
 *      a READONLY reply (dl_conn drops the connection then).
 * The list of sentinels is the one given: it is not refreshed from
 * SENTINEL sentinels (the guidelines make that optional).
 *
 * Sentinels are spoken to through dl_conn (hiredis stays behind it), each
 * with its own configuration: its credentials are the sentinel's, not the
 * master's. Not thread-safe: one dl_sentinel_t per thread (the watchdog
 * makes its own).
 */
#ifndef DL_SENTINEL_H
#define DL_SENTINEL_H

#include <stddef.h>

#include "../transport/dl_conn.h"
#include "../base/dl_err.h"
#include "../base/dl_uri.h"

/* Timeouts of a sentinel whose URI sets none: a sentinel that does not
 * answer at once is skipped for the next (guidelines, step 1). */
#define DL_SENTINEL_TIMEOUT_DEFAULT_US 250000
#define DL_SENTINEL_MAX 32
#define DL_SENTINEL_NAME_MAX 256

typedef struct dl_sentinel dl_sentinel_t;

/*
 * Makes a resolver for master `name` (1..DL_SENTINEL_NAME_MAX bytes, no NUL)
 * over the n (1..DL_SENTINEL_MAX) sentinel configurations cfgs[0..n), which
 * it takes over (each is zeroed, also on failure). Sentinels without their
 * own timeouts get DL_SENTINEL_TIMEOUT_DEFAULT_US for both. Returns NULL with
 * err set: DL_ERR_ARG (bad n or name), DL_ERR_NOTLS (a rediss:// sentinel on
 * a build without TLS), DL_ERR_NOMEM.
 */
dl_sentinel_t *dl_sentinel_new(const char *name, size_t name_len, dl_server_config_t *cfgs, size_t n,
                               dl_error_t *err);

/* Closes the sentinel connections and frees s. NULL is a no-op. */
void dl_sentinel_free(dl_sentinel_t *s);

/*
 * Asks the sentinels in turn (the last one that answered first) for the
 * master's address: host[0..host_size) (NUL-terminated) and *port. The first
 * that answers with an address is moved to the front. Returns DL_OK, or
 * DL_ERR_CONNECT when no sentinel gave an address: "... does not know master
 * <name>" when every one that answered said nil, else a message naming the
 * service, how many sentinels were tried, and why each failed (never a
 * password). DL_ERR_NOMEM. A dl_conn_resolve_fn: pass it with s to
 * dl_conn_set_resolver.
 */
dl_status_t dl_sentinel_resolve(void *s, char *host, size_t host_size, int *port, dl_error_t *err);

/* The endpoint of the i-th sentinel in the current order ("host:port", for
 * messages and tests); NULL past the last. */
const char *dl_sentinel_endpoint(const dl_sentinel_t *s, size_t i);

/*
 * A connection to the master of s: master_cfg (taken over, as by dl_conn_new)
 * holds the master's credentials, database, timeouts and TLS settings; its
 * host and port are replaced by each resolution (any placeholder will do, e.g.
 * the URI redis://user:pass@mymaster/2). s must outlive the connection.
 * Returns NULL with err set as dl_conn_new, or DL_ERR_ARG for a unix socket.
 */
dl_conn_t *dl_sentinel_conn_new(dl_sentinel_t *s, dl_server_config_t *master_cfg, dl_error_t *err);

#endif
