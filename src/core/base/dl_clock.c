/* POSIX.1-2008, before any system header: the build passes no feature macro
 * (docs/decisions/0036-platform-calls-chosen-by-configure.md). */
#define _POSIX_C_SOURCE 200809L

#include "dl_clock.h"

#include <errno.h>
#include <time.h>

/* One per thread (dl_clock.h): a call runs on one thread. */
static __thread dl_call_bound_t bound;

int64_t dl_clock_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t dl_clock_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t dl_clock_sleep_us(int64_t us)
{
    struct timespec req, rem;
    if (us <= 0) {
        return 0;
    }
    req.tv_sec = (time_t)(us / 1000000);
    req.tv_nsec = (long)(us % 1000000) * 1000;
    if (nanosleep(&req, &rem) == 0) {
        return 0;
    }
    if (errno != EINTR) {
        return 0;
    }
    return (int64_t)rem.tv_sec * 1000000 + rem.tv_nsec / 1000;
}

void dl_call_bound_begin(dl_call_bound_t *saved, int64_t bound_us, const char *what)
{
    int64_t until = dl_clock_now_ns() + (bound_us > 0 ? bound_us : 1) * 1000;
    *saved = bound;
    if (bound.until_ns != 0 && bound.until_ns <= until) return;
    bound.until_ns = until;
    bound.bound_us = bound_us;
    bound.what = what;
    bound.fresh = 1;
    bound.closed = 0;
}

int dl_call_bound_fresh(void)
{
    return bound.until_ns != 0 && bound.fresh;
}

void dl_call_bound_started(int64_t took_ns)
{
    if (bound.until_ns == 0 || !bound.fresh) return;
    if (took_ns > 0) bound.until_ns += took_ns;
    bound.fresh = 0;
}

void dl_call_bound_end(const dl_call_bound_t *saved)
{
    bound = *saved;
}

void dl_call_bound_grace(dl_call_bound_t *saved, int64_t grace_us)
{
    int64_t until = dl_clock_now_ns() + grace_us * 1000;
    *saved = bound;
    if (bound.until_ns != 0 && bound.until_ns < until) bound.until_ns = until;
    bound.fresh = 0;
}

void dl_call_bound_close(void)
{
    int64_t now = dl_clock_now_ns();
    if (bound.until_ns == 0) return;
    if (bound.until_ns > now) bound.until_ns = now;
    bound.fresh = 0;
    bound.closed = 1;
}

int dl_call_bound_closed(void)
{
    return bound.until_ns != 0 && bound.closed;
}

int64_t dl_call_bound_left_us(void)
{
    if (bound.until_ns == 0) return INT64_MAX;
    return (bound.until_ns - dl_clock_now_ns()) / 1000;
}

const dl_call_bound_t *dl_call_bound_current(void)
{
    return bound.until_ns != 0 ? &bound : NULL;
}
