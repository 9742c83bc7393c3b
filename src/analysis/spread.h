/* The spread of a set of durations (count, mean, min, median, max, deviation) and a median. */
#ifndef MMPROF_SPREAD_H
#define MMPROF_SPREAD_H

#include "metric.h"

double median_of(const double *v, int n); /* n > 0; does not reorder v */
/* Mean, min, median, max and sample standard deviation of durations d[0..c) (c > 0; sorts d);
 * one: why the deviation is n/a for a single value ("one launch"). The one spread every
 * count/total/average/min/median/max/stddev table (kernels, copies, ranges) uses. */
void duration_spread(double *d, int c, metric *mean, metric *min, metric *median, metric *max, metric *stddev,
                     const char *one);

#endif
