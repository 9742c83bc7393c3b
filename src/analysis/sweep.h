/* A sweep: the same workloads at several sizes (mmprof --sizes). Per workload and host-memory kind,
 * a series over n of kernel and end-to-end time and TFLOP/s; and where the GPU starts to beat
 * cpu-openblas, with the copies counted (end to end) and without them (kernels only), for pageable
 * and for pinned host memory.
 *
 * The GPU side of a crossover is, at each size, the fastest FP32 GPU workload of that memory kind
 * (cuBLAS or one of the kernels, whichever was faster there): the CPU runs FP32 sgemm, so TF32
 * workloads, which trade precision for speed, are left out. Pure functions of the analysis. */
#ifndef MMPROF_SWEEP_H
#define MMPROF_SWEEP_H

#include <stdbool.h>

#include "metric.h"
#include "model.h"

struct analysis;

/* One workload at one size: figures taken from its workload_metrics. */
typedef struct {
    int n;
    int wl; /* index into analysis.wl; -1 when the workload did not run at this size */
    metric kernel_ms, e2e_ms, tflops, tflops_e2e, noise_pct, speedup_e2e;
} sweep_point;

typedef struct {
    const char *name; /* points into the model */
    mem_kind mem;     /* MEM_UNKNOWN for the CPU */
    precision prec;
    bool gpu;
    sweep_point pts[MAX_SWEEP_SIZES]; /* one per sweep size, in sweep.sizes order */
} sweep_series;

typedef enum {
    CROSS_UNKNOWN = 0, /* not enough measured: why says what */
    CROSS_AT,          /* between two measured sizes (or at one), interpolated: n */
    CROSS_BELOW_RANGE, /* the GPU was faster already at the smallest size */
    CROSS_BEYOND_RANGE, /* the GPU was not faster at the largest size */
} cross_kind;

typedef struct {
    mem_kind mem;
    bool e2e;           /* copies counted; false: kernel time only */
    cross_kind kind;
    metric n;           /* the crossing, when kind is CROSS_AT */
    int below, above;   /* the measured sizes around it (CROSS_AT) */
    char workload[32];  /* the best GPU workload at the first size where the GPU stays ahead */
    char why[96];       /* CROSS_UNKNOWN */
} crossover;

/* A crossover kind's name in the outputs ("at", "below_range"...), by cross_kind. */
extern const char *const cross_kind_names[];

#define SWEEP_MAX_SERIES 64

typedef struct {
    int sizes[MAX_SWEEP_SIZES]; /* distinct, ascending */
    int nsizes;
    int detail_n; /* the size whose workloads the per-workload sections show: the largest, the one
                   * the summary speaks of (every size is in the sweep's charts, JSON, CSV and text) */
    sweep_series *series; /* the CPU first, then GPU workloads in run order */
    int nseries;
    /* At each size, the fastest FP32 GPU series by memory kind [0 pageable, 1 pinned]: by
     * end-to-end time and by kernel time; -1 where none ran. */
    int best_e2e[2][MAX_SWEEP_SIZES];
    int best_kernel[2][MAX_SWEEP_SIZES];
    int cpu; /* the cpu-openblas series, -1 when it did not run */
    crossover cross[4]; /* pinned e2e, pageable e2e, pinned kernel, pageable kernel */
    int ncross;
} sweep_analysis;

/* Builds a->sweep when the run holds two or more sizes (NULL otherwise); false when memory ran
 * out. */
bool sweep_analyze(struct analysis *a);
void sweep_free(sweep_analysis *s);

/* Where gpu_ms[i] / cpu_ms[i] falls below 1 for good, over sizes n[0 .. count-1] (ascending, all
 * measured): the crossing after the last size at which the GPU was not faster, interpolated
 * linearly in log n and log (gpu / cpu) between the two sizes around it; CROSS_BELOW_RANGE when
 * the GPU was faster at every size, CROSS_BEYOND_RANGE when not at the largest, CROSS_UNKNOWN
 * with no size. *at gets the crossing for CROSS_AT, *k the index of the size below it. */
cross_kind crossover_of(const int *n, const double *gpu_ms, const double *cpu_ms, int count, double *at, int *k);

/* The answer in one line: "with pinned copies the GPU pays off from n = 1234 (...); with pageable
 * copies from ...". */
void sweep_headline(const sweep_analysis *s, char *buf, size_t len);
/* One crossover in words: "n = 1234 (between 1024 and 2048; cublas-sgemm)", "below the range
 * (ahead already at n = 64; ...)", "beyond the range (behind up to n = 8192)", "not known (...)". */
void crossover_words(const crossover *c, char *buf, size_t len);

#endif
