/*
 * dl_clock — the monotonic clock and microsecond sleeps.
 *
 * Deadlines and lease validity use CLOCK_MONOTONIC, never wall time, so a
 * wall-clock jump on the client changes nothing (RELIABILITY.md item 7).
 */
#ifndef DL_CLOCK_H
#define DL_CLOCK_H

#include <stdint.h>

/* Monotonic time in nanoseconds since an arbitrary point. */
int64_t dl_clock_now_ns(void);

/* Sleeps for us microseconds (nothing when us <= 0). Returns early, with the
 * time not slept, when a signal handler ran (EINTR), so the caller can check
 * for interrupts; returns 0 when the whole time was slept. */
int64_t dl_clock_sleep_us(int64_t us);

#endif
