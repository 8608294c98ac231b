/*
 * dl_wait — backoff arithmetic for lock waits that poll.
 *
 * A waiter normally blocks on the lock's wake list (dl_lock_acquire); it polls
 * with this backoff only when the server refuses BLPOP.
 *
 * A wait has a deadline on the monotonic clock. Between attempts the waiter
 * sleeps an exponentially growing delay (base * 2^attempt, capped) plus a
 * random jitter, and never longer than the time left before the deadline or
 * the holder's remaining lease (PTTL): once the lease ends the name is free,
 * so sleeping past it only adds hand-over latency. Never a busy loop: the
 * smallest sleep is DL_WAIT_MIN_SLEEP_US unless the deadline is closer.
 */
#ifndef DL_WAIT_H
#define DL_WAIT_H

#include <stdint.h>

/* Upper bound of the exponential part of a delay, in microseconds. */
#define DL_WAIT_BACKOFF_CAP_US 100000
/* Lower bound of one sleep, in microseconds (keeps a zero retry_delay from spinning). */
#define DL_WAIT_MIN_SLEEP_US 200

typedef struct dl_backoff {
    int64_t base_us;    /* retry_delay; delay of the first retry before jitter */
    int64_t jitter_us;  /* retry_jitter; uniform random extra in [0, jitter_us] */
    int64_t cap_us;     /* ceiling of the exponential part (DL_WAIT_BACKOFF_CAP_US by default) */
} dl_backoff_t;

/*
 * The exponential part of the delay before retry number `attempt` (0-based):
 * min(base_us * 2^attempt, cap_us), without overflow for any attempt.
 */
int64_t dl_backoff_delay_us(const dl_backoff_t *b, unsigned attempt);

/*
 * How long to sleep before the next attempt, in microseconds:
 *   min(delay_us + jitter_us_drawn, remaining_us, holder_pttl_ms * 1000 (when > 0)),
 * at least DL_WAIT_MIN_SLEEP_US unless remaining_us is smaller; 0 when
 * remaining_us <= 0. holder_pttl_ms <= 0 means "unknown".
 */
int64_t dl_wait_sleep_us(int64_t delay_us, int64_t jitter_us_drawn,
                         int64_t remaining_us, int64_t holder_pttl_ms);

#endif
