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

#define CPU_MAX_SAMPLES 1000

void cpu_sgemm(int n, const float *A, const float *B, float *C)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);
}

sample_rule cpu_sample_rule(int repeat, double max_noise_pct, double max_time_ms)
{
    return (sample_rule){.fixed = repeat, .min_samples = 3, .max_samples = CPU_MAX_SAMPLES,
                         .max_noise_pct = max_noise_pct, .max_time_ms = max_time_ms};
}

/* One product per sample, on the host clock. */
typedef struct {
    int n;
    const float *A, *B;
    float *C;
} cpu_job;

static int take_products(void *ctx, int first, int count, double *ms)
{
    (void)first;
    cpu_job *j = ctx;
    for (int i = 0; i < count; i++) {
        int64_t t0 = collector_now();
        cpu_sgemm(j->n, j->A, j->B, j->C);
        ms[i] = (double)(collector_now() - t0) / 1e6;
    }
    return 0;
}

static double host_ms(void *ctx)
{
    (void)ctx;
    return (double)collector_now() / 1e6;
}

void cpu_run(int n, const float *A, const float *B, const double *ref, const sample_rule *rule, workload_run *w)
{
    size_t count = (size_t)n * (size_t)n;
    copy_str(w->name, sizeof w->name, "cpu-openblas");
    w->n = n;
    w->needs_gpu = false;
    w->prec = PREC_FP32;
    w->timing = TIMING_HOST_CLOCK;
    w->error_bound = error_bound(PREC_FP32);
    range_push_workload(w, n);

    phase *p = phase_begin(w, "allocate", n);
    float *C = malloc(count * sizeof *C);
    int cap = rule->fixed > 0 ? rule->fixed : rule->max_samples;
    double *ms = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *ms);
    if (C) /* poison: an element never written fails verification */
        memset(C, 0xFF, count * sizeof *C);
    phase_end(p);
    if (!C || !ms) {
        free(C);
        free(ms);
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

    memset(C, 0xFF, count * sizeof *C);
    cpu_job job = {n, A, B, C};
    sample_result got;
    p = phase_begin(w, "compute", n);
    sample_until(rule, warm_ms, take_products, host_ms, &job, ms, &got); /* cannot fail */
    phase_end(p);
    for (int i = 0; i < got.samples; i++)
        workload_add_product_ms(w, ms[i]);
    w->repeat = w->samples = got.samples;
    w->noise_pct = got.noise_pct;
    w->stopped_by = got.stopped_by;
    w->launched += got.samples;
    free(ms);

    p = phase_begin(w, "verify", n);
    verify_into(w, C, ref, count);
    phase_end(p);
    free(C);
    range_pop();
}
