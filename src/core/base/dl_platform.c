/* Feature macros, before any system header, for this file only: the calls
 * below are extensions on every system that has them (glibc and musl:
 * _GNU_SOURCE for ppoll, getentropy, arc4random_buf; macOS: _DARWIN_C_SOURCE;
 * NetBSD: _NETBSD_SOURCE; OpenBSD and FreeBSD show them unless a
 * _POSIX_C_SOURCE is defined, which this file does not). The "1" matches the
 * -D_GNU_SOURCE that phpize puts on Linux command lines. */
#define _GNU_SOURCE 1
#define _DARWIN_C_SOURCE 1
#define _NETBSD_SOURCE 1

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "dl_platform.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_SYS_RANDOM_H
#include <sys/random.h>
#endif

#include "dl_clock.h"

#if defined(HAVE_GETRANDOM)
#define DL_PATH_RANDOM "getrandom"
#elif defined(HAVE_GETENTROPY)
#define DL_PATH_RANDOM "getentropy"
#elif defined(HAVE_ARC4RANDOM_BUF)
#define DL_PATH_RANDOM "arc4random_buf"
#else
#error "distlock needs getrandom(), getentropy() or arc4random_buf() for its tokens (config.m4 checks for them)"
#endif

#ifdef HAVE_PPOLL
#define DL_PATH_POLL "ppoll"
#else
#define DL_PATH_POLL "poll"
#endif

#ifdef HAVE_PTHREAD_CONDATTR_SETCLOCK
#define DL_PATH_WAKEUP "condvar-monotonic"
#else
#define DL_PATH_WAKEUP "self-pipe"
#endif

const char *dl_platform_paths(void)
{
    return "random=" DL_PATH_RANDOM " poll=" DL_PATH_POLL " wakeup=" DL_PATH_WAKEUP;
}

long dl_platform_random(void *buf, size_t len)
{
#if defined(HAVE_GETRANDOM)
    return (long)getrandom(buf, len, 0);
#elif defined(HAVE_GETENTROPY)
    /* At most 256 bytes per call (POSIX.1-2024); the caller loops for more. */
    if (len > 256) len = 256;
    return getentropy(buf, len) == 0 ? (long)len : -1;
#else
    /* Cannot fail: it aborts the process rather than return weak bytes. */
    arc4random_buf(buf, len);
    return (long)len;
#endif
}

int dl_platform_poll(struct pollfd *pfd, size_t n, int64_t deadline_ns)
{
#ifdef HAVE_PPOLL
    struct timespec ts;
    int64_t left_ns;
    if (deadline_ns == INT64_MAX) return ppoll(pfd, (nfds_t)n, NULL, NULL);
    left_ns = deadline_ns - dl_clock_now_ns();
    if (left_ns < 0) left_ns = 0;
    ts.tv_sec = (time_t)(left_ns / 1000000000);
    ts.tv_nsec = (long)(left_ns % 1000000000);
    return ppoll(pfd, (nfds_t)n, &ts, NULL);
#else
    /* poll() counts whole milliseconds: rounded up, so it never ends early by
     * rounding; and the time left is recomputed from the monotonic clock after
     * every wake-up, so an early timeout (a coarse or slewed timer) only loops. */
    for (;;) {
        int ms, rc;
        if (deadline_ns == INT64_MAX) {
            ms = -1;
        } else {
            int64_t left_ns = deadline_ns - dl_clock_now_ns();
            if (left_ns < 0) left_ns = 0;
            ms = left_ns / 1000000 >= INT_MAX ? INT_MAX : (int)((left_ns + 999999) / 1000000);
        }
        rc = poll(pfd, (nfds_t)n, ms);
        if (rc != 0 || ms == 0 || dl_clock_now_ns() >= deadline_ns) return rc;
    }
#endif
}

#ifdef HAVE_PTHREAD_CONDATTR_SETCLOCK

int dl_waker_init(dl_waker_t *w)
{
    pthread_condattr_t attr;
    int rc;
    if (w->ready) return 0;
    if ((rc = pthread_condattr_init(&attr)) != 0) {
        errno = rc;
        return -1;
    }
    /* Timed waits on the monotonic clock: a wall-clock jump cannot move them. */
    rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0) rc = pthread_cond_init(&w->cv, &attr);
    pthread_condattr_destroy(&attr);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    w->ready = 1;
    return 0;
}

void dl_waker_reset(dl_waker_t *w)
{
    /* The parent's waiter does not exist in the child: the variable is made anew. */
    w->ready = 0;
    dl_waker_init(w);
}

void dl_waker_wake(dl_waker_t *w)
{
    if (w->ready) pthread_cond_signal(&w->cv);
}

void dl_waker_wait(dl_waker_t *w, pthread_mutex_t *mu, int64_t deadline_ns)
{
    struct timespec ts;
    if (deadline_ns == INT64_MAX) {
        pthread_cond_wait(&w->cv, mu);
        return;
    }
    ts.tv_sec = (time_t)(deadline_ns / 1000000000);
    ts.tv_nsec = (long)(deadline_ns % 1000000000);
    pthread_cond_timedwait(&w->cv, mu, &ts);
}

#else /* no pthread_condattr_setclock (macOS): a self-pipe and poll() */

/* pipe2 is not everywhere (macOS): pipe() and fcntl(). A fork() in another
 * thread between the two may leak the descriptors into an exec'd program. */
static int set_flags(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ? -1 : 0;
}

int dl_waker_init(dl_waker_t *w)
{
    int saved;
    if (w->ready) return 0;
    if (pipe(w->fd) != 0) return -1;
    if (set_flags(w->fd[0]) != 0 || set_flags(w->fd[1]) != 0) {
        saved = errno;
        close(w->fd[0]);
        close(w->fd[1]);
        errno = saved;
        return -1;
    }
    w->ready = 1;
    return 0;
}

void dl_waker_reset(dl_waker_t *w)
{
    /* The pipe is shared with the parent: the child's wakes must not reach it. */
    if (w->ready) {
        close(w->fd[0]);
        close(w->fd[1]);
    }
    w->ready = 0;
}

void dl_waker_wake(dl_waker_t *w)
{
    char c = 1;
    ssize_t n;
    if (!w->ready) return;
    /* A full pipe (EAGAIN) already holds a wake-up: nothing is lost. */
    do n = write(w->fd[1], &c, 1); while (n < 0 && errno == EINTR);
}

void dl_waker_wait(dl_waker_t *w, pthread_mutex_t *mu, int64_t deadline_ns)
{
    struct pollfd pfd;
    char buf[64];
    /* A wake between the unlock and the poll leaves its byte in the pipe, so
     * the poll returns at once: none is lost. */
    pfd.fd = w->fd[0];
    pfd.events = POLLIN;
    pfd.revents = 0;
    pthread_mutex_unlock(mu);
    if (dl_platform_poll(&pfd, 1, deadline_ns) > 0) {
        while (read(w->fd[0], buf, sizeof(buf)) > 0) {
        }
    }
    pthread_mutex_lock(mu);
}

#endif
