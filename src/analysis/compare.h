/* Two runs compared figure by figure (mmprof compare BASE NEW), judged as nvbench's compare
 * script judges benchmarks: a change counts only when it exceeds the noise of the measurements.
 *
 * What is matched: every region (by kind and its path of names from the run down, the n-th
 * occurrence of a path with the n-th), and for built-in runs every workload (by label, e.g.
 * "cuda-naive (pinned)"; when either run is a sweep, by label and size: "cuda-naive (pinned),
 * n = 1024"). Each registry figure (metrics.c) that both sides measured gives a row.
 *
 * Noise, in % (stdev / mean of the timed samples):
 *  - a workload's kernel-time figures (kernel, kernel total, TFLOP/s, %peak): the noise sampling
 *    recorded (workload_run.noise_pct), else that of the per-product times of its compute phase
 *    (workload_run.product_ms; runs from before sampling by noise);
 *  - a region's kernel figures (kernel, kernel median, TFLOP/s): its longest kernel's launches
 *    (stddev / mean duration);
 *  - anything else: n/a.
 *
 * The rule, per figure: change = (new - base) / base. When |change| <= max(noise of base, noise of
 * new), "same within noise". Otherwise the direction the registry gives the figure (metric.h's
 * better) decides: faster (or better) when it moved the good way, slower (or worse) the other; a
 * figure without a direction "changed". With no noise on either side the verdict stands on the
 * change alone and is marked as such (noise_known false); such a figure never counts against a
 * threshold, since nothing shows its change is beyond the noise. */
#ifndef MMPROF_COMPARE_H
#define MMPROF_COMPARE_H

#include <stdbool.h>

#include "analysis.h"

typedef enum {
    CMP_SAME = 0, /* within noise (or no change at all) */
    CMP_BETTER,   /* "faster" for times and throughputs */
    CMP_WORSE,    /* "slower" */
    CMP_CHANGED,  /* beyond noise, for a figure with no better direction */
    CMP_NO_BASE,  /* the base is 0: no relative change */
} cmp_verdict;

typedef struct {
    bool is_region;        /* a region of the timeline, or a built-in workload's figures */
    char entity_kind[16];  /* "workload" or a region kind ("run", "workload", "phase", "nvtx", ...) */
    char entity[200];      /* the workload's label or the region's path */
    const metric_def *def;
    double base, new_value;
    metric change_pct;            /* (new - base) / base in %; n/a when the base is 0 */
    metric noise_base, noise_new; /* in %, or n/a with the reason */
    bool noise_known;      /* either side had a noise figure */
    cmp_verdict verdict;
    bool regression;       /* worse, beyond a known noise and beyond the threshold */
} cmp_row;

typedef struct {
    char side[8];          /* "base" or "new": where it exists */
    bool is_region;
    char kind[16];
    char name[200];
} cmp_unmatched;

typedef struct {
    cmp_row *rows;
    int nrows;
    cmp_unmatched *unmatched;
    int nunmatched;
    int entities;          /* matched workloads and regions */
    int counts[5];         /* rows per verdict */
    int regressions;
    double threshold_pct;  /* < 0: none given */
} comparison;

/* The verdict for one figure (the rule above); noise in %, NAN where unknown. */
cmp_verdict cmp_judge(double base, double new_value, double noise_base_pct, double noise_new_pct,
                      metric_better better, double *change_pct);

/* "faster", "slower", "better", "worse", "changed", "same within noise", "n/a (base is 0)": the
 * words depend on the figure's unit (times and throughputs are faster or slower). */
const char *cmp_verdict_text(cmp_verdict v, const metric_def *d);

/* Sample stdev / mean in %, n/a below two samples or at a mean of 0. */
void noise_pct_of(const double *v, int n, metric *out);

/* Compares every matched workload and region; threshold_pct < 0 for none. False when memory ran
 * out. */
bool compare_runs(const analysis *base, const analysis *new_run, double threshold_pct, comparison *out);
void comparison_free(comparison *c);

#endif
