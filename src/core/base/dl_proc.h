/*
 * dl_proc — the current process id, cached.
 *
 * Fork safety compares a connection's or lease's pid with the caller's on
 * every call; getpid() is a system call, so the pid is cached and refreshed
 * in the child by a pthread_atfork() handler. A child made by a raw clone()
 * without fork handlers is not supported (PHP's pcntl_fork uses fork()).
 */
#ifndef DL_PROC_H
#define DL_PROC_H

#include <sys/types.h>

/* The caller's process id (cached; exact after fork()). */
pid_t dl_proc_pid(void);

#endif
