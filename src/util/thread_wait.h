/* Waiting with a bound. A profiler must not hang on a thread stuck in CUPTI, in a driver call or
 * behind a GPU that never goes idle: the injection library's exit flush, the runner's watchdog,
 * the collector's last flush after an abandoned workload and the device thread all wait this way. */
#ifndef MMPROF_THREAD_WAIT_H
#define MMPROF_THREAD_WAIT_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

/* CLOCK_MONOTONIC now, in seconds: for deadlines and durations that a clock step must not move. */
double monotonic_seconds(void);

/* CLOCK_REALTIME now plus ms milliseconds: the deadline pthread's timed waits take. */
struct timespec realtime_after_ms(long ms);

/* Joins t, waiting at most ms milliseconds (0: as long as it takes). True when it was joined;
 * false when it still runs (the caller decides whether to detach it). */
bool thread_join_within(pthread_t t, long ms);

/* Starts fn(arg) on a thread of the tool's own with every signal blocked in it, so that the
 * program's (or mmprof's) signals go to the threads that handle them, and names it (at most 15
 * characters) when it started. The injection library's flusher, sampler, capture timer and
 * signal thread, and the launcher's stream follower, start this way. Returns pthread_create's
 * result (0: started). */
int thread_start_quiet(pthread_t *t, void *(*fn)(void *), void *arg, const char *name);

#endif
