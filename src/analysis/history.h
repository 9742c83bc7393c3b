/* mmprof history: one figure across stored runs in time order, its noise band, and the runs
 * that changed it.
 *
 * The band of run i: the median of the runs before it since the last change (at most
 * HISTORY_WINDOW of them, at least HISTORY_MIN_RUNS), plus or minus the largest of
 * HISTORY_SIGMAS robust standard deviations of those runs (1.4826 x their MAD), HISTORY_SIGMAS x
 * the run's own noise (a range's: the standard error of its median instance, 1.2533 x 1.4826 x
 * MAD / sqrt(instances)) and HISTORY_FLOOR_PCT of the
 * median. A run outside its band changed the figure; it starts a new stretch, so a step change
 * flags the run that made it, not every run after it, and one stray run is flagged alone. */
#ifndef MMPROF_HISTORY_H
#define MMPROF_HISTORY_H

#include <stdbool.h>

#define HISTORY_WINDOW 20
#define HISTORY_MIN_RUNS 3
#define HISTORY_SIGMAS 3.0
#define HISTORY_FLOOR_PCT 2.0

typedef struct {
    long long id;
    char started_at[32];
    char key[16];       /* the start of the run's key */
    double value;
    double own_noise;   /* the run's own noise (a range's median's standard error), NAN where none */
    double baseline, band; /* NAN where not judged (too few runs before it) */
    int changed;        /* 0, +1 (up), -1 (down) */
} history_point;

/* Sets baseline, band and changed of every point, in order. */
void history_judge(history_point *p, int n);

#endif
