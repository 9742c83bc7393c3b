/* cpu-openblas: the product on the CPU through the system's OpenBLAS. */
#ifndef MMPROF_CPU_WORKLOAD_H
#define MMPROF_CPU_WORKLOAD_H

#include "model.h"

/* C = A x B, row-major n x n, through cblas_sgemm. */
void cpu_sgemm(int n, const float *A, const float *B, float *C);

/* Runs the workload's phases (allocate, warm-up, compute, verify) into w. repeat 0 chooses a
 * count from the warm-up so the compute phase lasts about target_ms. */
void cpu_run(int n, const float *A, const float *B, const double *ref, int repeat, double target_ms,
             workload_run *w);

#endif
