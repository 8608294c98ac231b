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

/* Wall-clock time in ms since the epoch: only where a value is compared with
 * the server's clock (a waiter entry's expiry written without a script, which
 * the release script compares with TIME), never for a deadline. */
int64_t dl_clock_wall_ms(void);

/* Sleeps for us microseconds (nothing when us <= 0). Returns early, with the
 * time not slept, when a signal handler ran (EINTR), so the caller can check
 * for interrupts; returns 0 when the whole time was slept. */
int64_t dl_clock_sleep_us(int64_t us);

/*
 * The bound of one public call (issue 27.3;
 * docs/decisions/0025-one-bound-per-call.md): the `timeout` option bounds a
 * whole operation, not each round trip, and a waiting one max(wait, timeout).
 * The topology layer (dl_target) opens a bound around each operation; every
 * blocking step below it (connect, AUTH, each read, a Redlock round) waits at
 * most for what is left of it. Kept per
 * thread: a call runs on one thread from start to end, and the watchdog's
 * thread has bounds of its own. No bound open: nothing is clipped.
 */
typedef struct dl_call_bound {
    int64_t until_ns;   /* monotonic; 0: no bound open */
    int64_t bound_us;   /* the whole bound, for messages */
    const char *what;   /* which option set it: "timeout" or "max(wait, timeout)" (static string) */
    int fresh;          /* nothing sent yet: a connect made now is the call's first step */
    int closed;         /* a round trip's timeout ended the call (dl_call_bound_close) */
} dl_call_bound_t;

/* Opens a bound of bound_us (> 0) from now, named what; *saved receives the
 * bound open before, for dl_call_bound_end. An inner bound never outlasts an
 * outer one: when one is open and ends sooner, it stays. */
void dl_call_bound_begin(dl_call_bound_t *saved, int64_t bound_us, const char *what);

/* Restores the bound saved by the matching begin (or grace). */
void dl_call_bound_end(const dl_call_bound_t *saved);

/* Lets work that must not be cut short at once (a write that is not waited
 * for: the undo of an ambiguous acquire, a wait's cancel) run until now +
 * grace_us when the open bound ends sooner; *saved as for begin. */
void dl_call_bound_grace(dl_call_bound_t *saved, int64_t grace_us);

/*
 * The connect a call starts with has its own option (connect_timeout): while
 * the open bound is fresh (nothing sent yet), dl_call_bound_fresh() is 1 and
 * the connect is not clipped; dl_call_bound_started(took_ns) then moves the
 * bound's end by what the connect took (0 when none was made) and marks it
 * started. A reconnect later in the call (a retry, an undo) is clipped.
 */
int dl_call_bound_fresh(void);
void dl_call_bound_started(int64_t took_ns);

/* Ends the open bound now (when it ends later): a round trip's own `timeout`
 * ended the call (a waiting acquire's attempt), so what the call still owes
 * (an undo, a cancel) gets no more than work past a spent bound does: written
 * within DL_PENDING_GRACE_US, never its reply awaited (issue 37.2). Undone by
 * the matching dl_call_bound_end. dl_call_bound_closed() is 1 after it. */
void dl_call_bound_close(void);
int dl_call_bound_closed(void);

/* Microseconds left of the open bound (<= 0: spent), or INT64_MAX when none is open. */
int64_t dl_call_bound_left_us(void);

/* The open bound, or NULL. Points to per-thread storage: read it at once. */
const dl_call_bound_t *dl_call_bound_current(void);

#endif
