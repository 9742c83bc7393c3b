/* Statistics that more than one stage computes the same way: the built-in run's sampling decides
 * when to stop by it, and analysis and `mmprof compare` judge figures by it, so the formula lives
 * once, below all of them. */
#ifndef MMPROF_STATS_H
#define MMPROF_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Relative noise of v[0 .. n-1] in %: sample standard deviation / mean x 100; -1 when n < 2 or
 * the mean is not positive. */
double relative_noise_pct(const double *v, int n);

#ifdef __cplusplus
}
#endif

#endif
