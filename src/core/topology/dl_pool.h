/*
 * dl_pool — persistent connections, reused across requests of one process
 * (PHP-FPM, long-running workers).
 *
 * Idle connections are kept per pool id and server configuration (host,
 * port or socket, credentials, database, timeouts, TLS settings: a rediss://
 * and a redis:// connection to the same host:port are different entries, as
 * are two TLS connections with different CA, certificate or name settings). A connection taken from
 * the pool is checked first (dl_conn_check_idle): one of another process
 * (inherited through fork()) is closed without a byte written, one the
 * server closed is dropped, and the next call reconnects. A connection that
 * failed is never pooled: dl_conn drops its context on any error, so a pooled
 * connection either has a clean context or none. The pool is guarded by a
 * mutex (ZTS builds share it between threads).
 */
#ifndef DL_POOL_H
#define DL_POOL_H

#include "dl_target.h"

#define DL_POOL_MAX_IDLE 16   /* idle targets kept per pool id and target configuration */

/*
 * The connections of a target (one server, or every master of a Redlock) for
 * pool_id and cfg: an idle pooled one (checked), or a new one. cfg is taken
 * over as by dl_target_new. NULL with err set on failure.
 */
dl_target_t *dl_pool_take(const char *pool_id, dl_target_config_t *cfg, dl_error_t *err);

/* Gives c back to pool_id's idle list (or frees it when the list is full). */
void dl_pool_put(const char *pool_id, dl_target_t *c);

/* Number of idle connections held, all pools (for tests). */
size_t dl_pool_idle_count(void);

/* Frees every idle connection (module shutdown). */
void dl_pool_shutdown(void);

#endif
