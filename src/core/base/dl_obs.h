/*
 * dl_obs — facts about the lock call under way, for an observer in the
 * embedding (the PHP glue builds DistLock\Event from them): how many round
 * trips the call made and which node answered first.
 *
 * Per thread (a call runs on one thread). Nothing is collected unless the
 * embedding armed a record with dl_obs_arm: the transport's cost with no
 * observer is one thread-local load per round trip.
 */
#ifndef DL_OBS_H
#define DL_OBS_H

#include <stddef.h>

#define DL_OBS_SERVER_MAX 128   /* "host:port", "[v6]:port" or a socket path, NUL included */

typedef struct dl_obs_facts {
    unsigned round_trips;            /* replies read for commands this call sent: one per node per round */
    char server[DL_OBS_SERVER_MAX];  /* endpoint of the first node that answered; "" when none did */
} dl_obs_facts_t;

/*
 * Collects into f from now on (owned by the caller, who zeroes it before its
 * first arm and keeps it alive until it re-arms the previous record; arming
 * adds to what f holds). f NULL: stop collecting.
 * Returns the record armed before (NULL: none), to be armed again when the
 * caller is done (nesting: an implicit release inside a call).
 */
dl_obs_facts_t *dl_obs_arm(dl_obs_facts_t *f);

/*
 * Marks the round trips from now on as the topology's discovery (a Sentinel
 * asked where the master is, a Cluster node asked for the slot map): they are
 * counted, but do not name the server that answered the operation. on: 1
 * begin, 0 end; returns the previous setting, to be restored (nesting).
 */
int dl_obs_discovery(int on);

/* Disarms this thread's record and discovery mode: at request start and end, so
 * that a call cut short by a bailout (memory limit, fatal error) leaves nothing
 * pointing into its gone stack frame. */
void dl_obs_reset(void);

/*
 * The last answer was a redirection (Cluster: MOVED, ASK, TRYAGAIN): the node
 * that answers next is the one the event names. No-op when nothing is armed.
 */
void dl_obs_redirected(void);

/*
 * Called by the transport and the fan-out when a node answered a round trip
 * (endpoint: its dl_conn endpoint, may be NULL). No-op when nothing is armed.
 */
void dl_obs_round_trip(const char *endpoint);

#endif
