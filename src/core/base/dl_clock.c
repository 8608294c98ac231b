/* POSIX.1-2008, before any system header: the build passes no feature macro (docs/decisions.md, Platforms). */
#define _POSIX_C_SOURCE 200809L

#include "dl_clock.h"

#include <errno.h>
#include <time.h>

int64_t dl_clock_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
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
