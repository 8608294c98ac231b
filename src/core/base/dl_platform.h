/*
 * dl_platform — the calls that differ between Linux, macOS and the BSDs.
 *
 * Each has a portable path, and config.m4 picks one per call by what the
 * system has (AC_CHECK_FUNCS writes HAVE_* into config.h; tests/unit's
 * platform-probe.sh does the same for the C unit tests). No other file calls
 * getrandom, getentropy, arc4random_buf, ppoll or pthread_condattr_setclock.
 * `--enable-distlock-fallbacks` hides the first choices so that Linux builds
 * and tests the paths macOS takes (tests/fallbacks).
 * docs/decisions/0036-platform-calls-chosen-by-configure.md and
 * docs/decisions/0037-watchdog-sleeps-on-the-monotonic-clock.md give the
 * choices and why.
 *
 *   random bytes   getrandom()  else getentropy()  else arc4random_buf()
 *                  (none of them: configure stops with an error)
 *   socket waits   ppoll()      else poll(), its millisecond timeout rounded
 *                  up and recomputed from the monotonic clock after each wake-up
 *   thread wakeup  a condition variable on CLOCK_MONOTONIC
 *                  (pthread_condattr_setclock) else a self-pipe waited on with
 *                  the poll() above: nothing then reads the wall clock, so a
 *                  wall-clock jump cannot stretch or cut a wait
 */
#ifndef DL_PLATFORM_H
#define DL_PLATFORM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct pollfd;

/*
 * Fills up to len bytes of buf from the kernel's CSPRNG. Returns the number
 * of bytes written (> 0; may be fewer than len: call again for the rest), or
 * -1 with errno set (EINTR: call again). Never blocks once the system's
 * random pool is seeded.
 */
long dl_platform_random(void *buf, size_t len);

/*
 * poll(2) until deadline_ns (dl_clock_now_ns time; INT64_MAX: no deadline).
 * Returns the number of ready descriptors (> 0), 0 once the deadline has
 * passed with none ready, or -1 with errno (EINTR: a signal handler ran; the
 * caller checks what it must and calls again with the same deadline).
 */
int dl_platform_poll(struct pollfd *pfd, size_t n, int64_t deadline_ns);

/*
 * One thread's sleep-until-woken-or-deadline, for the watchdog. The fields
 * are the implementation's: only one pair is used in a given build.
 */
typedef struct dl_waker {
    pthread_cond_t cv;   /* monotonic condition variable */
    int fd[2];           /* self-pipe: read end, write end */
    int ready;           /* initialised (dl_waker_init succeeded) */
} dl_waker_t;

/* Makes w ready (nothing if it already is). Returns 0, or -1 with errno
 * (EMFILE: no descriptor for the self-pipe). */
int dl_waker_init(dl_waker_t *w);

/* In a forked child (pthread_atfork): forgets the parent's state (closes the
 * inherited self-pipe, re-creates the condition variable) without waking
 * anyone; dl_waker_init makes it ready again. */
void dl_waker_reset(dl_waker_t *w);

/* Wakes the thread in dl_waker_wait (or makes its next wait return at once).
 * Called with the mutex that dl_waker_wait is given held. Nothing if not ready. */
void dl_waker_wake(dl_waker_t *w);

/* Called with mu held: releases it, sleeps until dl_waker_wake, deadline_ns
 * (dl_clock_now_ns time; INT64_MAX: none) or a spurious wake-up, and takes mu
 * again. The caller re-checks its state after every return. */
void dl_waker_wait(dl_waker_t *w, pthread_mutex_t *mu, int64_t deadline_ns);

/* The paths this build chose, e.g. "random=getrandom poll=ppoll wakeup=condvar-monotonic"
 * (static storage; shown by phpinfo()). */
const char *dl_platform_paths(void);

#endif
