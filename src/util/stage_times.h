/* Where the time from a program's exit to its report goes: with MMPROF_TIMINGS set in mmprof's
 * environment, each stage of profile and report (reading the records, naming native frames, the
 * analysis, each output) prints its wall time and the process's peak RSS so far on stderr. The
 * long-run benchmarks read these lines; they are a maintainer's instrument, not part of the report. */
#ifndef MMPROF_STAGE_TIMES_H
#define MMPROF_STAGE_TIMES_H

#include <pthread.h>
#include <stdbool.h>

/* Ends the stage now: "mmprof: stage WHAT: S s (T s in all), peak RSS N MB" when enabled. The
 * first call starts the clock. Safe to call from one thread at a time. */
void stage_mark(const char *what);
/* A detail of the stage under way ("mmprof: stage   ..."), when enabled; from any thread. */
void stage_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A step of the stage under way, timed from *since (0: not started, so only the clock starts),
 * which it moves to now: "mmprof: stage   WHAT: S s, peak RSS N MB" when enabled; from any thread. */
void stage_lap(double *since, const char *what);
/* Whether MMPROF_TIMINGS is set (a caller measures what it notes only then). */
bool stage_times_on(void);

/* A step run beside the caller's: fn(arg) on a thread of its own, timed as a step named what
 * (stage_lap); where no thread can be started, fn runs in stage_beside_wait. The analysis builds
 * a long run's host causes and its wall-time timeline so, each while other work goes on. */
typedef struct {
    void (*fn)(void *arg);
    void *arg;
    const char *what;
    pthread_t thread;
    bool apart; /* on its thread */
} stage_beside;
void stage_beside_start(stage_beside *s, void (*fn)(void *arg), void *arg, const char *what);
/* Returns once fn has run. */
void stage_beside_wait(stage_beside *s);

#endif
