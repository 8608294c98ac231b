/*
 * dl_replicas — min_replicas: WAIT after each grant and each refresh
 * (internal to the core; dl_acquire and dl_lock use it).
 *
 * WAIT numreplicas timeout (https://redis.io/docs/latest/commands/wait/)
 * blocks until the replicas have acknowledged every write this connection
 * made before it, or the timeout (ms) passes, and answers how many did. It is
 * written behind the SET / the script in the same pipeline (one round trip),
 * so it covers exactly that write. It makes a lost grant after a failover
 * unlikely, not impossible: see docs/sentinel.md.
 */
#ifndef DL_REPLICAS_H
#define DL_REPLICAS_H

#include <stdint.h>

#include "../base/dl_err.h"
#include "dl_lock.h"
#include "../transport/dl_transport.h"

/* The argument vector of one WAIT. */
typedef struct dl_replicas_wait {
    const char *argv[3];
    size_t argvlen[3];
    char num[24];
    char ms[24];
} dl_replicas_wait_t;

/* 1 when lease asks for WAIT (min_replicas > 0). */
int dl_replicas_wanted(const dl_lease_t *lease);

/* WAIT's timeout for lease, ms: replica_timeout_ms, at least 1 (0 would make WAIT block forever). */
int64_t dl_replicas_timeout_ms(const dl_lease_t *lease);

/* How much longer the call that carries the WAIT may take to answer, µs (the WAIT's timeout). */
int64_t dl_replicas_extra_us(const dl_lease_t *lease);

/* Fills w with WAIT lease->min_replicas <timeout ms> and returns it as a command (vectors point into w). */
dl_cmd_t dl_replicas_wait_cmd(dl_replicas_wait_t *w, const dl_lease_t *lease);

/*
 * Judges WAIT's reply r for the write named by what ("the grant", "the
 * refresh"). Returns DL_OK when at least min_replicas acknowledged;
 * DL_ERR_REPLICATION with "Redis at <endpoint>: N of M replicas acknowledged
 * within T ms ..." when fewer did; DL_ERR_SERVER for an error reply (e.g. an
 * ACL without WAIT); DL_ERR_PROTOCOL for another reply type.
 */
dl_status_t dl_replicas_check(const dl_transport_t *t, const dl_lease_t *lease, const dl_reply_t *r, const char *what,
                              dl_error_t *err);

#endif
