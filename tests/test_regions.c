/* Region analysis on timelines built here, where every figure can be worked out by hand:
 * attribution by the launching call (a kernel that ends after its NVTX range still belongs to
 * it; a thread with no range of its own works for the ranges of its process, one with its own
 * keeps its work), attribution by time when no launching call is recorded, totals, busy % executed
 * during a range and the idle before, between and after its GPU work, the GPU projection, copy
 * flows per memory kind, and each verdict with its advice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze.h"
#include "json_report.h"
#include "test_support.h"

#define MS 1000000LL /* ns */
#define T0 1732981234000000000LL /* a realistic CLOCK_REALTIME start, beyond 2^53 ns */

static void api(run_model *m, const char *name, int64_t s, int64_t e, uint32_t tid, uint32_t corr)
{
    api_event a = {.name = (char *)name, .start_ns = T0 + s, .end_ns = T0 + e, .pid = 42, .thread = tid,
                   .correlation = corr};
    assert_true(events_add_api(&m->events, &a));
}

static void kernel(run_model *m, const char *name, int64_t s, int64_t e, uint32_t corr)
{
    kernel_event k = {.name = (char *)name, .start_ns = T0 + s, .end_ns = T0 + e, .pid = 42, .stream = 7,
                      .correlation = corr, .grid = {64, 1, 1}, .block = {256, 1, 1}};
    assert_true(events_add_kernel(&m->events, &k));
}

static void copy(run_model *m, copy_dir dir, mem_kind host, uint64_t bytes, int64_t s, int64_t e, uint32_t corr)
{
    copy_event c = {.dir = dir, .src = dir == COPY_H2D ? host : MEM_DEVICE, .dst = dir == COPY_H2D ? MEM_DEVICE : host,
                    .bytes = bytes, .start_ns = T0 + s, .end_ns = T0 + e, .pid = 42, .stream = 7, .correlation = corr};
    assert_true(events_add_copy(&m->events, &c));
}

static int nvtx(run_model *m, const char *name, int64_t s, int64_t e, uint32_t tid)
{
    int r = model_add_region(m, REGION_NVTX, name, "app", T0 + s, T0 + e, 42, tid, -1);
    assert_true(r >= 0);
    return r;
}

static const region_metrics *find(const analysis *a, const char *name)
{
    for (int i = 0; i < a->nrg; i++)
        if (strcmp(a->m->regions[a->rg[i].region].name, name) == 0)
            return &a->rg[i];
    fail_msg("no region %s", name);
    return NULL;
}

/* Thread 1 opens "step" at 0 ms and closes it at 2 ms; its launch at 1 ms starts a kernel that runs
 * from 3 to 8 ms, after the range closed. Thread 2, which has no range of its own (PyTorch's
 * autograd thread), launches a kernel at 1.5 ms, inside the range: the step's too, by the process
 * rule (and load's, open then too). Thread 3 has its own range "load" open when it launches at
 * 1.6 ms: its kernel is load's, not the step's. */
static void kernel_after_its_range_belongs_to_it(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    m.source = SOURCE_PROFILE;
    nvtx(&m, "step", 0, 2 * MS, 1);
    nvtx(&m, "load", 1 * MS, 1 * MS + 800000, 3);
    api(&m, "cudaLaunchKernel", 1 * MS, 1 * MS + 5000, 1, 100);
    kernel(&m, "late_kernel", 3 * MS, 8 * MS, 100);
    api(&m, "cudaLaunchKernel", 1 * MS + 500000, 1 * MS + 505000, 2, 101);
    kernel(&m, "other_thread", 9 * MS, 10 * MS, 101);
    api(&m, "cudaLaunchKernel", 1 * MS + 600000, 1 * MS + 603000, 3, 102);
    kernel(&m, "loader_kernel", 11 * MS, 12 * MS, 102);
    assert_true(model_finish_regions(&m, "prog"));
    analysis a;
    assert_true(analyze(&m, &a));

    const region_metrics *step = find(&a, "step");
    assert_int_equal(step->nkernels, 2);
    assert_string_equal(step->kernels[0].name, "late_kernel");
    assert_string_equal(step->kernels[1].name, "other_thread");
    assert_int_equal(step->by_time, 0);
    assert_close(step->kernel_ms.v, 6.0, 1e-12);
    /* Its own span is 0 to 2 ms; its work ran from 3 to 10 ms (projected), 6 of those 7 ms busy. */
    assert_close(step->wall_ms.v, 2.0, 1e-12);
    assert_close(step->gpu_span_ms.v, 7.0, 1e-12);
    assert_close(step->projected_busy_pct.v, 100.0 * 6 / 7, 1e-12);
    /* Nothing ran during 0 to 2 ms: executed-during figures are n/a, and say why. */
    assert_false(step->busy_pct.ok);
    assert_non_null(strstr(metric_why(&step->busy_pct), "no GPU work ran during"));
    assert_int_equal(step->nlaunches, 2);
    assert_close(step->launch_us.v, 5.0, 1e-9); /* the median of 5 and 5 us */

    const region_metrics *load = find(&a, "load");
    assert_int_equal(load->nkernels, 2);
    assert_string_equal(load->kernels[0].name, "loader_kernel");
    assert_string_equal(load->kernels[1].name, "other_thread");

    const region_metrics *run = find(&a, "prog");
    assert_int_equal(run->nkernels, 3);
    assert_close(run->kernel_ms.v, 7.0, 1e-12);
    assert_int_equal(run->nlaunches, 3);
    /* The run: busy 3-8, 9-10, 11-12 of 0-12 ms; 3 ms before the first GPU work; gaps of 1 ms. */
    assert_close(run->busy_pct.v, 100.0 * 7 / 12, 1e-12);
    assert_close(run->lead_idle_ms.v, 3.0, 1e-12);
    assert_close(run->tail_idle_ms.v, 0.0, 1e-12);
    assert_close(run->largest_gap_ms.v, 1.0, 1e-12);
    analysis_free(&a);
    model_free(&m);
}

/* A training loop as PyTorch runs one: the main thread's "step" ranges are short (the host runs
 * ahead), its own thread launches the forward kernels, autograd's thread (no ranges) the
 * backward ones while the step is open, and the GPU runs everything back to back, falling behind
 * the host. Per step: every kernel launched during it, from either thread; executed during its
 * span, the GPU is busy all along but for the first step's start. The figures are worked out
 * here from the events, independently of regions.c. */
static void steps_count_every_thread_and_the_gpu_busy_during_them(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    m.source = SOURCE_PROFILE;
    enum { STEPS = 6, FWD = 3, BWD = 4 };
    const int64_t step_ms = 2, kernel_us = 900; /* the host: 2 ms a step; the GPU: 6.3 ms a step */
    int64_t gpu_at = 1 * MS; /* where the GPU's next kernel starts */
    uint32_t corr = 1;
    for (int k = 0; k < STEPS; k++) {
        int64_t s = k * step_ms * MS;
        char name[16];
        snprintf(name, sizeof name, "step");
        nvtx(&m, name, s, s + step_ms * MS, 1);
        for (int j = 0; j < FWD + BWD; j++) {
            uint32_t tid = j < FWD ? 1 : 2; /* forward on the main thread, backward on autograd's */
            int64_t at = s + 100000 + j * 200000;
            api(&m, "cudaLaunchKernel", at, at + 5000, tid, corr);
            int64_t ks = gpu_at > at + 10000 ? gpu_at : at + 10000;
            kernel(&m, j < FWD ? "forward" : "backward", ks, ks + kernel_us * 1000, corr);
            gpu_at = ks + kernel_us * 1000;
            corr++;
        }
    }
    assert_true(model_finish_regions(&m, "train"));
    analysis a;
    assert_true(analyze(&m, &a));
    int seen = 0;
    for (int i = 0; i < a.nrg; i++) {
        const region_metrics *r = &a.rg[i];
        const region *g = &m.regions[r->region];
        if (strcmp(g->name, "step") != 0)
            continue;
        /* Independently: kernels whose launch fell in [start, end] on either thread; GPU busy in
         * [start, end] from every kernel's interval. */
        int n = 0;
        double kms = 0, busy = 0;
        for (size_t e = 0; e < m.events.nkernels; e++) {
            const kernel_event *ke = &m.events.kernels[e];
            const api_event *call = &m.events.apis[e]; /* added pairwise: kernel e's launch */
            if (call->start_ns >= g->start_ns && call->start_ns <= g->end_ns) {
                n++;
                kms += (double)(ke->end_ns - ke->start_ns) / MS;
            }
            int64_t lo = ke->start_ns > g->start_ns ? ke->start_ns : g->start_ns;
            int64_t hi = ke->end_ns < g->end_ns ? ke->end_ns : g->end_ns;
            busy += hi > lo ? (double)(hi - lo) : 0; /* kernels do not overlap here */
        }
        assert_int_equal(r->nkernels, FWD + BWD);
        assert_int_equal(n, FWD + BWD);
        assert_close(r->kernel_ms.v, kms, 1e-12);
        assert_close(r->busy_pct.v, 100.0 * busy / (double)(g->end_ns - g->start_ns), 1e-9);
        if (seen > 0) { /* from the second step on the GPU is behind the host: busy throughout */
            assert_close(r->busy_pct.v, 100.0, 1e-9);
            assert_int_equal(r->verdict, VERDICT_COMPUTE_BOUND);
        }
        seen++;
    }
    assert_int_equal(seen, STEPS);
    analysis_free(&a);
    model_free(&m);
}

/* A kernel with no launching call in the timeline (a trace without API records) belongs to the
 * range its own start falls in, and is counted as attributed by time. */
static void no_launching_call_attributes_by_time(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    nvtx(&m, "a", 0, 10 * MS, 0);
    nvtx(&m, "b", 10 * MS, 20 * MS, 0);
    kernel(&m, "k", 12 * MS, 13 * MS, 0);
    assert_true(model_finish_regions(&m, "t"));
    analysis a;
    assert_true(analyze(&m, &a));
    assert_int_equal(find(&a, "a")->nkernels, 0);
    assert_int_equal(find(&a, "b")->nkernels, 1);
    assert_int_equal(find(&a, "b")->by_time, 1);
    assert_false(find(&a, "b")->launch_us.ok);
    analysis_free(&a);
    model_free(&m);
}

/* Copies: 100 MB pageable H2D in 10 ms (10 GB/s), 100 MB pinned H2D in 2 ms (50 GB/s), 20 MB
 * pinned D2H in 1 ms; one 1 ms kernel. Copy-bound, and the advice names both speeds. */
static void copy_bound_with_pageable_advice(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    nvtx(&m, "r", 0, 20 * MS, 1);
    api(&m, "cudaMemcpy", 0, 10 * MS, 1, 1);
    copy(&m, COPY_H2D, MEM_PAGEABLE, 100000000, 0, 10 * MS, 1);
    api(&m, "cudaMemcpyAsync", 10 * MS, 10 * MS + 1000, 1, 2);
    copy(&m, COPY_H2D, MEM_PINNED, 100000000, 10 * MS, 12 * MS, 2);
    api(&m, "cudaLaunchKernel", 12 * MS, 12 * MS + 1000, 1, 3);
    kernel(&m, "k", 12 * MS, 13 * MS, 3);
    api(&m, "cudaMemcpyAsync", 13 * MS, 13 * MS + 1000, 1, 4);
    copy(&m, COPY_D2H, MEM_PINNED, 20000000, 13 * MS, 14 * MS, 4);
    assert_true(model_finish_regions(&m, "t"));
    analysis a;
    assert_true(analyze(&m, &a));
    const region_metrics *r = find(&a, "r");
    assert_int_equal(r->ncopies, 3);
    assert_close(r->h2d_bytes.v, 2e8, 0);
    assert_close(r->h2d_ms.v, 12.0, 1e-12);
    assert_close(r->h2d_gbps.v, 2e8 / 12e6, 1e-12);
    assert_close(r->d2h_gbps.v, 20.0, 1e-12);
    assert_close(r->copy_compute_ratio.v, 13.0, 1e-12);
    assert_int_equal(r->nflows, 3);
    for (int i = 0; i < r->nflows; i++)
        if (r->flows[i].dir == COPY_H2D && r->flows[i].host == MEM_PAGEABLE)
            assert_close(r->flows[i].gbps.v, 10.0, 1e-12);
        else if (r->flows[i].dir == COPY_H2D)
            assert_close(r->flows[i].gbps.v, 50.0, 1e-12);
    assert_int_equal(r->verdict, VERDICT_COPY_BOUND);
    assert_non_null(strstr(r->advice, "pin host memory"));
    assert_non_null(strstr(r->advice, "pageable HtoD copies ran at 10.0 GB/s"));
    assert_non_null(strstr(r->advice, "50.0 GB/s"));
    analysis_free(&a);
    model_free(&m);
}

/* 100 kernels of 2 us, each launched by a 20 us call: launch-bound, advice names CUDA graphs. */
static void many_short_kernels_are_launch_bound(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    nvtx(&m, "loop", 0, 3 * MS, 1);
    for (int i = 0; i < 100; i++) {
        int64_t t = (int64_t)i * 25000;
        api(&m, "cudaLaunchKernel", t, t + 20000, 1, 10 + (uint32_t)i);
        kernel(&m, "tiny", t + 21000, t + 23000, 10 + (uint32_t)i);
    }
    assert_true(model_finish_regions(&m, "t"));
    analysis a;
    assert_true(analyze(&m, &a));
    const region_metrics *r = find(&a, "loop");
    assert_int_equal(r->nkernels, 100);
    assert_close(r->short_kernel_pct.v, 100.0, 0);
    assert_close(r->launch_us.v, 20.0, 1e-9);
    assert_close(r->kernel_us.v, 2.0, 1e-9);
    assert_int_equal(r->verdict, VERDICT_LAUNCH_BOUND);
    assert_non_null(strstr(r->advice, "CUDA graph"));
    assert_int_equal(r->nkstats, 1);
    assert_int_equal(r->kernels[0].count, 100);
    assert_true(r->kernels[0].stddev_ms.v < 1e-12);
    analysis_free(&a);
    model_free(&m);
}

/* Kernels by total time: names grouped, sorted longest first, with min/median/max/stddev. */
static void kernel_table_statistics(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    int64_t t = 0;
    const int64_t durs_a[] = {1 * MS, 2 * MS, 6 * MS}; /* median 2, mean 3, stddev sqrt(7) */
    for (int i = 0; i < 3; i++, t += 10 * MS)
        kernel(&m, "a", t, t + durs_a[i], 0);
    kernel(&m, "b", t, t + 20 * MS, 0);
    assert_true(model_finish_regions(&m, "t"));
    analysis a;
    assert_true(analyze(&m, &a));
    const region_metrics *r = &a.rg[0];
    assert_int_equal(r->nkstats, 2);
    assert_string_equal(r->kernels[0].name, "b");
    assert_false(r->kernels[0].stddev_ms.ok);
    const kernel_stat *k = &r->kernels[1];
    assert_int_equal(k->count, 3);
    assert_close(k->total_ms.v, 9.0, 1e-12);
    assert_close(k->min_ms.v, 1.0, 1e-12);
    assert_close(k->median_ms.v, 2.0, 1e-12);
    assert_close(k->max_ms.v, 6.0, 1e-12);
    assert_close(k->stddev_ms.v, 2.6457513110645907, 1e-12);
    assert_close(k->share_pct.v, 100.0 * 9 / 29, 1e-12);
    analysis_free(&a);
    model_free(&m);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Microseconds of ns, as the report makes them (milliseconds first). */
static double us_of(int64_t ns)
{
    return 1e3 * ((double)ns / 1e6);
}

/* One display name's expected row from its calls' durations (sorted here). */
static void expect_api_row(const api_stat *s, const char *name, int64_t *d, int n)
{
    qsort(d, (size_t)n, sizeof *d, cmp_i64);
    int64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += d[i];
    assert_string_equal(s->name, name);
    assert_int_equal(s->count, n);
    assert_true(s->total_ms.v == (double)sum / 1e6); /* summed in whole ns: exact */
    assert_true(s->min_us.v == us_of(d[0]));
    assert_true(s->max_us.v == us_of(d[n - 1]));
    double mid = n % 2 ? us_of(d[n / 2]) : 0.5 * (us_of(d[n / 2 - 1]) + us_of(d[n / 2]));
    assert_true(s->median_us.v == mid);
}

/* The API table's medians, selected in a region of many calls (memory per name, not per call)
 * and sorted in a smaller one (regions.c, API_SORTED_CALLS_MAX): 70,001 calls of one name with
 * durations from 100 ns to 8.6 s and many equal, and one display name made of two stored ones
 * ("cudaMalloc", "cudaMalloc_v3020") with an even count, in the run and in a range holding a
 * third of them; each figure equals what the durations sorted here give. Two names of equal
 * total come in name order. */
static void api_medians_are_exact_on_many_calls(void **state)
{
    (void)state;
    enum { N = 70001, M = 400 };
    run_model m;
    model_init(&m);
    m.source = SOURCE_PROFILE;
    nvtx(&m, "third", 0, (int64_t)N / 3 * 20 * MS, 1);
    int64_t *get = malloc(N * sizeof *get), *get_in = malloc(N * sizeof *get_in), mall[M], mall_in[M];
    assert_non_null(get);
    assert_non_null(get_in);
    int nget_in = 0, nmall_in = 0;
    uint64_t seed = 99;
    int64_t t = 0;
    for (int i = 0; i < N; i++, t += 20 * MS) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        int64_t d = (seed & 3) ? 100 + (int64_t)(seed >> 60) : (int64_t)(seed >> 31) % (19 * MS);
        if (i % 1000 == 0)
            d = (int64_t)(seed >> 31); /* up to 8.6 s: the range the selection narrows */
        api(&m, "cudaGetDevice", t, t + d, 1, 0);
        get[i] = d;
        if (t <= (int64_t)N / 3 * 20 * MS)
            get_in[nget_in++] = d;
        if (i < M) {
            int64_t e = 1000 + (int64_t)((seed >> 20) % 5000) * 1000 + i; /* distinct: two middles */
            api(&m, i % 3 ? "cudaMalloc" : "cudaMalloc_v3020", t + d + 1, t + d + 1 + e, 1, 0);
            mall[i] = e;
            mall_in[nmall_in++] = e;
        }
    }
    api(&m, "cuB", t, t + 777, 1, 0);
    api(&m, "cuA", t + 1000, t + 1777, 1, 0);
    assert_true(model_finish_regions(&m, "prog"));
    analysis a;
    assert_true(analyze(&m, &a));
    const region_metrics *run = &a.rg[0], *third = find(&a, "third");
    assert_int_equal(run->napistats, 4);
    expect_api_row(&run->apis[0], "cudaGetDevice", get, N);
    expect_api_row(&run->apis[1], "cudaMalloc", mall, M);
    assert_string_equal(run->apis[2].name, "cuA");
    assert_string_equal(run->apis[3].name, "cuB");
    assert_int_equal(third->napistats, 2);
    expect_api_row(&third->apis[0], "cudaGetDevice", get_in, nget_in);
    expect_api_row(&third->apis[1], "cudaMalloc", mall_in, nmall_in);
    analysis_free(&a);
    model_free(&m);
    free(get);
    free(get_in);
}

/* A run past the calls a report can index (REGIONS_HOST_CALLS_MAX) is refused in words that say
 * what to do, before any analysis; one at the limit is taken. Only the counts are read. */
static void a_run_past_the_calls_indexed_is_refused(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    char why[256] = "";
    m.events.napis = REGIONS_HOST_CALLS_MAX - 1;
    m.events.nsyncs = 1;
    assert_true(analysis_fits(&m, why, sizeof why));
    m.events.nsyncs = 2;
    assert_false(analysis_fits(&m, why, sizeof why));
    assert_non_null(strstr(why, "1073741825 CUDA API calls"));
    assert_non_null(strstr(why, "--capture-range"));
    m.events.napis = m.events.nsyncs = 0;
    model_free(&m);
}

/* API calls by total time, names without their version suffix: the profiled program's one 30 ms
 * cudaMemcpy_v3020, then its 11 cudaLaunchKernel_v7000 of 10 us each. */
static void api_calls_by_total_time(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    const region_metrics *r = &a.rg[0];
    assert_int_equal(r->napistats, 2);
    assert_string_equal(r->apis[0].name, "cudaMemcpy");
    assert_int_equal(r->apis[0].count, 1);
    assert_close(r->apis[0].total_ms.v, 30.0, 1e-9);
    assert_string_equal(r->apis[1].name, "cudaLaunchKernel");
    assert_int_equal(r->apis[1].count, 11);
    assert_close(r->apis[1].total_ms.v, 0.11, 1e-6);
    assert_close(r->apis[1].median_us.v, 10.0, 1e-6);
    assert_close(r->apis[1].min_us.v, 10.0, 1e-6);
    assert_close(r->apis[1].max_us.v, 10.0, 1e-6);
    assert_close(r->apis[0].share_pct.v + r->apis[1].share_pct.v, 100.0, 1e-9);
    analysis_free(&a);
    model_free(&m);
}

/* On the recorded H200 run: the run region holds every event of every workload plus the run's
 * own, and each workload's region holds exactly its own kernels and copies. */
static void builtin_sample_regions(void **state)
{
    (void)state;
    run_model m;
    load_sample(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_true(a.nrg > m.builtin.nworkloads);
    size_t owned_kernels = 0;
    for (int i = 0; i < a.nrg; i++) {
        const region *rg = &m.regions[a.rg[i].region];
        if (rg->kind != REGION_WORKLOAD)
            continue;
        event_list ev = owned_events(&m, &m.builtin.workloads[rg->workload]);
        assert_int_equal(a.rg[i].nkernels, (int)ev.nkernels);
        assert_int_equal(a.rg[i].ncopies, (int)ev.ncopies);
        owned_kernels += ev.nkernels;
        events_clear(&ev);
    }
    assert_true(owned_kernels > 0 && owned_kernels <= m.events.nkernels);
    assert_int_equal(a.rg[0].nkernels, (int)m.events.nkernels);
    assert_int_equal(a.rg[0].ncopies, (int)m.events.ncopies);
    analysis_free(&a);
    model_free(&m);
}

/* The JSON of m's analysis with its regions shared among at most `threads` threads. */
static char *json_with_threads(const run_model *m, int threads)
{
    region_threads = threads;
    analysis a;
    assert_true(analyze(m, &a));
    char *text = render_json(&a);
    analysis_free(&a);
    region_threads = REGION_THREADS;
    assert_non_null(text);
    return text;
}

/* A long run's regions are shared among threads (regions.h): 600 steps of two launches each, two
 * threads calling, a copy now and then, analysed on one thread and on four (however many the
 * machine has), give the same figures, byte for byte in the run file. */
static void regions_on_threads_as_on_one(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    m.source = SOURCE_PROFILE;
    uint32_t corr = 1;
    char name[32];
    for (int i = 0; i < 600; i++) {
        int64_t t = (int64_t)i * 3 * MS;
        snprintf(name, sizeof name, "step %d", i);
        nvtx(&m, name, t, t + 2 * MS, 1);
        api(&m, "cudaLaunchKernel_v7000", t + 10000, t + 20000 + i % 7 * 1000, 1, corr);
        kernel(&m, i % 3 ? "k_a" : "k_b", t + 30000, t + 400000 + i % 11 * 5000, corr++);
        api(&m, "cudaLaunchKernel_v7000", t + 50000, t + 52000, 2, corr);
        kernel(&m, "k_c", t + 500000, t + 900000, corr++);
        if (i % 5 == 0) {
            api(&m, "cudaMemcpyAsync_v3020", t + 60000, t + 70000, 1, corr);
            copy(&m, COPY_H2D, MEM_PAGEABLE, 1 << 20, t + 1000000, t + 1100000, corr++);
        }
    }
    assert_true(model_finish_regions(&m, "steps"));
    char *one = json_with_threads(&m, 1), *four = json_with_threads(&m, 4);
    assert_true(strlen(one) > 600 * 1000); /* every region's figures are there */
    assert_string_equal(one, four);
    free(one);
    free(four);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_after_its_range_belongs_to_it),
        cmocka_unit_test(steps_count_every_thread_and_the_gpu_busy_during_them),
        cmocka_unit_test(no_launching_call_attributes_by_time),
        cmocka_unit_test(copy_bound_with_pageable_advice),
        cmocka_unit_test(many_short_kernels_are_launch_bound),
        cmocka_unit_test(kernel_table_statistics),
        cmocka_unit_test(api_calls_by_total_time),
        cmocka_unit_test(api_medians_are_exact_on_many_calls),
        cmocka_unit_test(a_run_past_the_calls_indexed_is_refused),
        cmocka_unit_test(builtin_sample_regions),
        cmocka_unit_test(regions_on_threads_as_on_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
