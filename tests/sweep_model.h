/* A synthetic sweep whose times the tests set: cpu-openblas, cublas-sgemm and cuda-naive (pageable
 * and pinned) and cuda-tf32-mma (pinned) at n = 256, 512, 1024 and 2048, each GPU workload with one
 * timed launch, two host-to-device copies and one device-to-host copy inside its phases. The
 * crossovers follow from the tables below, so a test can work out where they must fall.
 * Header-only, like hostile_model.h. */
#ifndef MMPROF_TEST_SWEEP_MODEL_H
#define MMPROF_TEST_SWEEP_MODEL_H

#include <stdlib.h>
#include <string.h>

#include "model.h"

#define SWEEP_SIZES 4
static const int sweep_n[SWEEP_SIZES] = {256, 512, 1024, 2048};
/* Milliseconds per product. */
static const double sweep_cpu_ms[SWEEP_SIZES] = {0.1, 0.8, 6.4, 51.2};
static const double sweep_cublas_ms[SWEEP_SIZES] = {0.05, 0.1, 0.5, 3.0};
static const double sweep_naive_ms[SWEEP_SIZES] = {0.2, 1.0, 5.0, 30.0};
static const double sweep_tf32_ms[SWEEP_SIZES] = {0.01, 0.01, 0.01, 0.01}; /* fast, but TF32 */
/* Copies per product (H2D of A and B, D2H of C, in total). */
static const double sweep_pinned_copy_ms[SWEEP_SIZES] = {0.1, 0.3, 1.2, 4.8};
static const double sweep_pageable_copy_ms[SWEEP_SIZES] = {0.6, 2.0, 8.0, 30.0};

static inline void sweep_phase(workload_run *w, const char *name, int64_t start, int64_t end)
{
    phase *p = workload_add_phase(w, name);
    p->start_ns = start;
    p->end_ns = end;
}

static inline int64_t sweep_ns(double ms)
{
    return (int64_t)(ms * 1e6 + 0.5);
}

/* One GPU workload at size n: copy-in, compute (one launch of kernel_ms), copy-out, from *t on. */
static inline void sweep_gpu(run_model *m, const char *name, mem_kind mem, precision prec, int n, double kernel_ms,
                             double copy_ms, int64_t *t)
{
    workload_run *w = model_add_workload(m);
    copy_str(w->name, sizeof w->name, name);
    w->n = n;
    w->needs_gpu = true;
    w->host_memory = mem;
    w->prec = prec;
    w->device = 0;
    w->repeat = w->samples = 1;
    w->launched = 1;
    w->noise_pct = 0.2;
    w->stopped_by = STOP_NOISE;
    w->timing = TIMING_CUPTI;
    w->verified = true;
    w->rel_error = 1e-7;
    w->error_bound = prec == PREC_TF32 ? 1e-2 : 1e-5;
    uint64_t bytes = (uint64_t)n * (uint64_t)n * 4;
    int64_t s = *t, q = sweep_ns(copy_ms / 3); /* each of the three copies a third */
    sweep_phase(w, "copy-in", s, s + 2 * q);
    copy_event a = {.dir = COPY_H2D, .src = mem, .dst = MEM_DEVICE, .bytes = bytes, .start_ns = s, .end_ns = s + q};
    copy_event b = a;
    b.start_ns = s + q, b.end_ns = s + 2 * q;
    workload_add_copy(w, &a);
    workload_add_copy(w, &b);
    s += 2 * q;
    int64_t k = sweep_ns(kernel_ms);
    sweep_phase(w, "compute", s, s + k);
    kernel_event ke = {.name = (char *)name, .start_ns = s, .end_ns = s + k, .grid = {8, 8, 1}, .block = {256, 1, 1}};
    workload_add_kernel(w, &ke);
    workload_add_product_ms(w, kernel_ms);
    s += k;
    sweep_phase(w, "copy-out", s, s + q);
    copy_event c = {.dir = COPY_D2H, .src = MEM_DEVICE, .dst = mem, .bytes = bytes, .start_ns = s, .end_ns = s + q};
    workload_add_copy(w, &c);
    *t = s + q + 1000;
}

static inline void sweep_model(run_model *m)
{
    model_init(m);
    const int64_t t0 = 1000000000000LL;
    int64_t t = t0 + 1000;
    m->epoch_ns = t0;
    m->builtin.n = sweep_n[0];
    for (int k = 0; k < SWEEP_SIZES; k++)
        m->builtin.sizes[k] = sweep_n[k];
    m->builtin.nsizes = SWEEP_SIZES;
    m->builtin.max_noise_pct = 0.5;
    m->builtin.max_time_s = 0.5;
    m->command_line = strdup("mmprof --sizes 256,512,1024,2048");
    copy_str(m->started_at, sizeof m->started_at, "2026-01-02T03:04:05Z");
    m->collection.source = TIMING_CUPTI;
    m->devices = calloc(1, sizeof *m->devices);
    m->ndevices = 1;
    copy_str(m->devices[0].name, sizeof m->devices[0].name, "Test GPU");
    m->devices[0].cc_major = 9;
    m->devices[0].sm_count = 132;
    m->devices[0].clock_khz = 1980000;
    for (int k = 0; k < SWEEP_SIZES; k++) {
        workload_run *cpu = model_add_workload(m);
        copy_str(cpu->name, sizeof cpu->name, "cpu-openblas");
        cpu->n = sweep_n[k];
        cpu->repeat = cpu->samples = 1;
        cpu->noise_pct = k == 3 ? 2.5 : 0.1; /* the largest ran out of time, noisy */
        cpu->stopped_by = k == 3 ? STOP_TIME : STOP_NOISE;
        cpu->timing = TIMING_HOST_CLOCK;
        cpu->verified = true;
        cpu->rel_error = 1e-7;
        cpu->error_bound = 1e-5;
        sweep_phase(cpu, "compute", t, t + sweep_ns(sweep_cpu_ms[k]));
        workload_add_product_ms(cpu, sweep_cpu_ms[k]);
        t += sweep_ns(sweep_cpu_ms[k]) + 1000;
        for (int p = 0; p < 2; p++) {
            mem_kind mem = p ? MEM_PINNED : MEM_PAGEABLE;
            double copy = p ? sweep_pinned_copy_ms[k] : sweep_pageable_copy_ms[k];
            sweep_gpu(m, "cuda-naive", mem, PREC_FP32, sweep_n[k], sweep_naive_ms[k], copy, &t);
            sweep_gpu(m, "cublas-sgemm", mem, PREC_FP32, sweep_n[k], sweep_cublas_ms[k], copy, &t);
        }
        sweep_gpu(m, "cuda-tf32-mma", MEM_PINNED, PREC_TF32, sweep_n[k], sweep_tf32_ms[k], sweep_pinned_copy_ms[k], &t);
    }
    model_finish_regions(m, "mmprof run");
}

#endif
