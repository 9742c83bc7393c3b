/* cpu-openblas, timed on the host clock, product by product. */
#include "cpu_workload.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "ranges.h"
#include "verify.h"

void cpu_sgemm(int n, const float *A, const float *B, float *C)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);
}

void cpu_run(int n, const float *A, const float *B, const double *ref, int repeat, double target_ms,
             workload_run *w)
{
    size_t count = (size_t)n * (size_t)n;
    copy_str(w->name, sizeof w->name, "cpu-openblas");
    w->needs_gpu = false;
    w->prec = PREC_FP32;
    w->timing = TIMING_HOST_CLOCK;
    w->error_bound = error_bound(PREC_FP32);
    range_push_workload(w, n);

    phase *p = phase_begin(w, "allocate", n);
    float *C = malloc(count * sizeof *C);
    if (C) /* poison: an element never written fails verification */
        memset(C, 0xFF, count * sizeof *C);
    phase_end(p);
    if (!C) {
        w->status = WL_ERROR;
        copy_str(w->status_reason, sizeof w->status_reason, "out of host memory for C");
        range_pop();
        return;
    }

    p = phase_begin(w, "warm-up", n);
    cpu_sgemm(n, A, B, C);
    phase_end(p);
    double warm_ms = p ? (double)(p->end_ns - p->start_ns) / 1e6 : 0;
    w->launched = 1;
    if (repeat <= 0) {
        repeat = warm_ms > 0 ? (int)ceil(target_ms / warm_ms) : 5;
        repeat = repeat < 5 ? 5 : (repeat > 50 ? 50 : repeat);
    }
    w->repeat = repeat;

    memset(C, 0xFF, count * sizeof *C);
    p = phase_begin(w, "compute", n);
    for (int i = 0; i < repeat; i++) {
        int64_t t0 = collector_now();
        cpu_sgemm(n, A, B, C);
        workload_add_product_ms(w, (double)(collector_now() - t0) / 1e6);
    }
    phase_end(p);
    w->launched += repeat;

    p = phase_begin(w, "verify", n);
    verify_into(w, C, ref, count);
    phase_end(p);
    free(C);
    range_pop();
}
