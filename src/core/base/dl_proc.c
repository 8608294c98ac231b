/* POSIX.1-2008, before any system header: the build passes no feature macro
 * (docs/decisions/0036-platform-calls-chosen-by-configure.md). */
#define _POSIX_C_SOURCE 200809L

#include "dl_proc.h"

#include <pthread.h>
#include <unistd.h>

static pid_t cached_pid;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void refresh_in_child(void)
{
    cached_pid = getpid();
}

static void init(void)
{
    cached_pid = getpid();
    pthread_atfork(NULL, NULL, refresh_in_child);
}

pid_t dl_proc_pid(void)
{
    pthread_once(&once, init);
    return cached_pid;
}
