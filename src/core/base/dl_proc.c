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
