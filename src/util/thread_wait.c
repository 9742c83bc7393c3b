/* Bounded waits for threads: see thread_wait.h. */
#include "thread_wait.h"

#include <signal.h>

#include <errno.h>

double monotonic_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

struct timespec realtime_after_ms(long ms)
{
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_sec += ms / 1000;
    at.tv_nsec += (ms % 1000) * 1000000;
    if (at.tv_nsec >= 1000000000) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000;
    }
    return at;
}

bool thread_join_within(pthread_t t, long ms)
{
    if (ms == 0)
        return pthread_join(t, NULL) == 0;
    struct timespec at = realtime_after_ms(ms);
    int rc;
    while ((rc = pthread_timedjoin_np(t, NULL, &at)) == EINTR)
        ;
    return rc == 0;
}

int thread_start_quiet(pthread_t *t, void *(*fn)(void *), void *arg, const char *name)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0 && name)
        pthread_setname_np(*t, name);
    return rc;
}
