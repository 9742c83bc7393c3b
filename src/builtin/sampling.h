/* How many timed samples a workload takes, as nvbench decides it: after the warm-up, samples until
 * their relative noise (relative_noise_pct, stats.h: sample standard deviation over mean, in %) is
 * at most max_noise_pct with at least min_samples taken, or until max_time_ms of wall time has
 * passed (once two samples give a noise to report), or until max_samples. --repeat asks for a
 * fixed count instead.
 *
 * Pure: the samples and the clock come through callbacks, so the rule is tested with a fake clock
 * and made-up samples; the CPU workload and the GPU workload (gpu_workload.c) pass their own. */
#ifndef MMPROF_SAMPLING_H
#define MMPROF_SAMPLING_H

#include <stdbool.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int fixed;            /* > 0: exactly this many (--repeat); the rest is ignored */
    int min_samples;      /* before the noise may stop sampling */
    int max_samples;      /* the cap: the size of the caller's buffer */
    double max_noise_pct;
    double max_time_ms;   /* wall time of the sampling, warm-up excluded */
} sample_rule;

/* Takes count samples into ms[0 .. count-1] (first is the index of the first, for callers that
 * keep per-sample state); 0 on success, -1 on failure (sampling stops and returns -1). Samples are
 * taken in batches, so a GPU runs a batch's launches back to back with one synchronization. */
typedef int (*sample_take_fn)(void *ctx, int first, int count, double *ms);
/* Milliseconds on a monotonic clock. */
typedef double (*sample_clock_fn)(void *ctx);

typedef struct {
    int samples;
    double noise_pct; /* < 0 with fewer than two samples or a zero mean */
    sample_stop stopped_by;
} sample_result;

/* Samples into ms (room for rule->max_samples, or rule->fixed) by the rule. est_ms is one sample's
 * expected time (from the warm-up; 0 when unknown): batches are sized to fit the time left.
 * Returns 0, or -1 when take failed (out->samples says how many were taken before). */
int sample_until(const sample_rule *rule, double est_ms, sample_take_fn take, sample_clock_fn now, void *ctx,
                 double *ms, sample_result *out);

#ifdef __cplusplus
}
#endif

#endif
