/* Progress on a terminal during a run: which step (workload and size) and how far, on one line
 * that each step overwrites and the end clears. Off (nothing written) unless the caller turns it
 * on: mmprof does when stderr is a terminal and -q was not given. */
#ifndef MMPROF_PROGRESS_H
#define MMPROF_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    FILE *out;
    bool on;
    int step, steps;
    int n;
    int64_t t0_ns;
} progress;

void progress_init(progress *p, FILE *out, bool on, int steps, int n);
/* The next step begins: "mmprof: [3/27] cuda-naive (pinned), n = 2048 (12 s so far)". */
void progress_step(progress *p, const char *what);
/* Clears the line. */
void progress_done(progress *p);

#endif
