/* cpu-openblas: the product on the CPU through the system's OpenBLAS. */
#ifndef MMPROF_CPU_WORKLOAD_H
#define MMPROF_CPU_WORKLOAD_H

#include "model.h"
#include "sampling.h"

/* C = A x B, row-major n x n, through cblas_sgemm. */
void cpu_sgemm(int n, const float *A, const float *B, float *C);

/* Runs the workload's phases (allocate, warm-up, compute, verify) into w; the compute phase
 * samples products by rule (sampling.h). */
void cpu_run(int n, const float *A, const float *B, const double *ref, const sample_rule *rule, workload_run *w);

/* The CPU's sampling rule: at least 3 products before the noise may stop it (a product at large n
 * takes seconds), at most 1000. */
sample_rule cpu_sample_rule(int repeat, double max_noise_pct, double max_time_ms);

#endif
