/* Analysis on the recorded H200 runs: each figure is computed again here from the raw events, by
 * a different route where one exists (sorting and merging instead of the analysis's own code),
 * and the two must agree. Then small synthetic cases for the pieces (interval_union, median_of,
 * kernel_display_name) and for each warning analysis raises. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze.h"
#include "test_support.h"
#include "verify.h"

/* Figures derived from nanosecond sums agree with the analysis's own to rounding. */
#define REL 1e-12

/* ---------- computed here, from the raw events ---------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double *s = malloc((size_t)n * sizeof *s);
    assert_non_null(s);
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    free(s);
    return m;
}

static const phase *find_phase(const workload_run *w, const char *name)
{
    for (int i = 0; i < w->nphases; i++)
        if (strcmp(w->phases[i].name, name) == 0)
            return &w->phases[i];
    fail_msg("%s has no %s phase", w->name, name);
    return NULL;
}

static int cmp_kernel_start(const void *a, const void *b)
{
    const kernel_event *x = a, *y = b;
    return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* The compute phase's kernels, in time order. */
static kernel_event *compute_kernels(const run_model *m, const workload_run *w, int *count)
{
    const phase *c = find_phase(w, "compute");
    event_list ev = owned_events(m, w);
    kernel_event *k = malloc((ev.nkernels + 1) * sizeof *k);
    assert_non_null(k);
    int n = 0;
    for (size_t i = 0; i < ev.nkernels; i++)
        if (ev.kernels[i].start_ns >= c->start_ns && ev.kernels[i].start_ns <= c->end_ns) {
            k[n] = ev.kernels[i];
            k[n++].name = NULL; /* the copy's name goes with ev */
        }
    events_clear(&ev);
    qsort(k, (size_t)n, sizeof *k, cmp_kernel_start);
    *count = n;
    return k;
}

/* One product's kernel time: the median over products of the summed kernel durations, a
 * product being repeat-th of the compute phase's kernels. */
static double product_kernel_ms(const run_model *m, const workload_run *w, int *per_product)
{
    int n;
    kernel_event *k = compute_kernels(m, w, &n);
    assert_true(w->repeat > 0 && n % w->repeat == 0);
    int kpp = n / w->repeat;
    double *sums = calloc((size_t)w->repeat, sizeof *sums);
    assert_non_null(sums);
    for (int i = 0; i < n; i++)
        sums[i / kpp] += (double)(k[i].end_ns - k[i].start_ns) / 1e6;
    double med = median(sums, w->repeat);
    free(sums);
    free(k);
    *per_product = kpp;
    return med;
}

typedef struct { double ms, bytes; int count; } copy_sum;

static copy_sum copies_of(const run_model *m, const workload_run *w, copy_dir dir)
{
    copy_sum s = {0, 0, 0};
    event_list ev = owned_events(m, w);
    for (size_t i = 0; i < ev.ncopies; i++)
        if (ev.copies[i].dir == dir) {
            s.ms += (double)(ev.copies[i].end_ns - ev.copies[i].start_ns) / 1e6;
            s.bytes += (double)ev.copies[i].bytes;
            s.count++;
        }
    events_clear(&ev);
    return s;
}

static int cmp_interval(const void *a, const void *b)
{
    const interval *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* Busy time of kernels and copies inside the copy-in, compute and copy-out phases, by merging
 * sorted intervals clipped to each phase, and the largest idle stretch in any of them. */
static void busy_of(const run_model *m, const workload_run *w, double *busy_pct, double *gap_ms)
{
    event_list ev = owned_events(m, w);
    size_t n = ev.nkernels + ev.ncopies;
    interval *iv = malloc(n * sizeof *iv);
    assert_non_null(iv);
    size_t k = 0;
    for (size_t i = 0; i < ev.nkernels; i++)
        iv[k++] = (interval){ev.kernels[i].start_ns, ev.kernels[i].end_ns};
    for (size_t i = 0; i < ev.ncopies; i++)
        iv[k++] = (interval){ev.copies[i].start_ns, ev.copies[i].end_ns};
    events_clear(&ev);
    qsort(iv, n, sizeof *iv, cmp_interval);
    static const char *const phases[] = {"copy-in", "compute", "copy-out"};
    int64_t busy = 0, gap = 0, span = 0;
    for (int p = 0; p < 3; p++) {
        int64_t lo = find_phase(w, phases[p])->start_ns, hi = find_phase(w, phases[p])->end_ns;
        int64_t run_start = 0, run_end = lo;
        bool open = false;
        span += hi - lo;
        for (size_t i = 0; i < n; i++) {
            int64_t s = iv[i].start < lo ? lo : iv[i].start, e = iv[i].end > hi ? hi : iv[i].end;
            if (e <= s)
                continue;
            if (open && s <= run_end) {
                run_end = e > run_end ? e : run_end;
                continue;
            }
            if (open)
                busy += run_end - run_start;
            gap = s - run_end > gap ? s - run_end : gap;
            run_start = s;
            run_end = e;
            open = true;
        }
        if (open)
            busy += run_end - run_start;
        gap = hi - run_end > gap ? hi - run_end : gap;
    }
    free(iv);
    *busy_pct = 100.0 * (double)busy / (double)span;
    *gap_ms = (double)gap / 1e6;
}

static const workload_run *find_workload(const run_model *m, const char *name, mem_kind mem)
{
    for (int i = 0; i < m->builtin.nworkloads; i++)
        if (strcmp(m->builtin.workloads[i].name, name) == 0 && (!m->builtin.workloads[i].needs_gpu || m->builtin.workloads[i].host_memory == mem))
            return &m->builtin.workloads[i];
    return NULL;
}

static double cpu_median_ms(const run_model *m)
{
    const workload_run *c = find_workload(m, "cpu-openblas", MEM_UNKNOWN);
    return c && c->nproduct_ms > 0 ? median(c->product_ms, c->nproduct_ms) : NAN;
}

/* ---------- every metric ---------- */

static const struct { const char *name; size_t off; } workload_metric_fields[] = {
#define F(f) {#f, offsetof(workload_metrics, f)}
    F(kernel_ms), F(kernel_total_ms), F(kernel_spread_pct), F(h2d_ms), F(h2d_bytes), F(h2d_gbps),
    F(h2d_link_pct), F(d2h_ms), F(d2h_bytes), F(d2h_gbps), F(d2h_link_pct), F(copy_ms),
    F(copy_compute_ratio), F(e2e_ms), F(tflops), F(tflops_e2e), F(peak_pct), F(busy_pct), F(gap_ms),
    F(vs_cublas_pct), F(speedup), F(speedup_e2e), F(event_agreement_pct),
#undef F
};

/* A figure is either a finite number or n/a with a reason, and an n/a is never a silent 0
 * somebody could print. */
static void assert_metric_sane(const metric *m, const char *where, const char *name)
{
    if (m->ok && !isfinite(m->v))
        fail_msg("%s %s is %g", where, name, m->v);
    if (!m->ok && (metric_why(m)[0] == '\0' || m->v != 0))
        fail_msg("%s %s is n/a without a reason (why '%s', v %g)", where, name, metric_why(m), m->v);
}

static void assert_all_metrics_sane(const analysis *a)
{
    for (int i = 0; i < a->m->ndevices; i++) {
        assert_metric_sane(&a->peaks[i].fp32_tflops, "device", "fp32_tflops");
        assert_metric_sane(&a->peaks[i].hbm_gbps, "device", "hbm_gbps");
        assert_metric_sane(&a->peaks[i].link_gbps, "device", "link_gbps");
    }
    assert_metric_sane(&a->best_h2d_gbps, "run", "best_h2d_gbps");
    assert_metric_sane(&a->best_d2h_gbps, "run", "best_d2h_gbps");
    for (int i = 0; i < a->nwl; i++) {
        char label[64];
        workload_label(a->wl[i].w, label, sizeof label);
        for (size_t f = 0; f < sizeof workload_metric_fields / sizeof workload_metric_fields[0]; f++)
            assert_metric_sane((const metric *)((const char *)&a->wl[i] + workload_metric_fields[f].off), label,
                               workload_metric_fields[f].name);
        for (int k = 0; k < a->wl[i].nkernels; k++) {
            assert_metric_sane(&a->wl[i].kernels[k].median_ms, label, "kernel median_ms");
            assert_metric_sane(&a->wl[i].kernels[k].occupancy_pct, label, "kernel occupancy_pct");
            assert_metric_sane(&a->wl[i].kernels[k].tflops, label, "kernel tflops");
        }
    }
}

static bool has_warning(const analysis *a, const char *part1, const char *part2)
{
    for (int i = 0; i < a->nwarnings; i++)
        if (strstr(a->warnings[i], part1) && (!part2 || strstr(a->warnings[i], part2)))
            return true;
    return false;
}

static void print_warnings(const analysis *a)
{
    for (int i = 0; i < a->nwarnings; i++)
        print_message("warning: %s\n", a->warnings[i]);
}

/* ---------- the recorded runs ---------- */

static void h200_peaks(void **state)
{
    (void)state;
    run_model m;
    load_sample(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_string_equal(m.devices[0].name, "NVIDIA H200");
    assert_int_equal(a.peaks[0].fp32_lanes_per_sm, 128);
    /* 132 SMs x 128 FP32 lanes x 2 flops per FMA x 1.98 GHz. */
    assert_true(a.peaks[0].fp32_tflops.ok);
    assert_close(a.peaks[0].fp32_tflops.v, 132.0 * 128 * 2 * 1.98e9 / 1e12, REL);
    assert_in_range((long)(a.peaks[0].fp32_tflops.v * 10 + 0.5), 669, 669); /* 66.9 */
    /* HBM3e: 2 transfers per clock x 3.201 GHz x 6016 bits / 8. */
    assert_close(a.peaks[0].hbm_gbps.v, 2 * 3.201e9 * 6016 / 8 / 1e9, REL);
    /* PCIe 5 x16: 32 GT/s per lane, 128b/130b encoding. */
    assert_close(a.peaks[0].link_gbps.v, 32.0 * 128 / 130 * 16 / 8, REL);
    analysis_free(&a);
    model_free(&m);
}

/* The checks each GPU workload of a recorded run must pass; returns the verdict it got. */
static verdict_kind check_gpu_workload(const run_model *m, const analysis *a, const workload_metrics *r)
{
    const workload_run *w = r->w;
    char label[64];
    workload_label(w, label, sizeof label);
    print_message("%s\n", label);

    int kpp;
    double kernel = product_kernel_ms(m, w, &kpp);
    assert_true(r->kernel_ms.ok);
    assert_close(r->kernel_ms.v, kernel, REL);
    assert_int_equal(r->kernels_per_product, kpp);

    copy_sum h2d = copies_of(m, w, COPY_H2D), d2h = copies_of(m, w, COPY_D2H);
    assert_true(h2d.count > 0 && d2h.count > 0);
    assert_close(r->h2d_ms.v, h2d.ms, REL);
    assert_close(r->h2d_bytes.v, h2d.bytes, REL);
    assert_close(r->h2d_gbps.v, h2d.bytes / (h2d.ms * 1e-3) / 1e9, REL);
    assert_close(r->d2h_gbps.v, d2h.bytes / (d2h.ms * 1e-3) / 1e9, REL);
    /* Two n x n float inputs in, one out. */
    assert_close(h2d.bytes, 2.0 * m->builtin.n * m->builtin.n * sizeof(float), 0);
    assert_close(d2h.bytes, 1.0 * m->builtin.n * m->builtin.n * sizeof(float), 0);
    assert_close(r->h2d_link_pct.v, 100 * r->h2d_gbps.v / a->peaks[w->device].link_gbps.v, REL);

    double copy = h2d.ms + d2h.ms;
    assert_close(r->copy_ms.v, copy, REL);
    assert_close(r->copy_compute_ratio.v, copy / kernel, REL);
    assert_close(r->e2e_ms.v, copy + kernel, REL);

    double flops = 2.0 * m->builtin.n * m->builtin.n * m->builtin.n;
    assert_close(r->tflops.v, flops / (kernel * 1e-3) / 1e12, REL);
    assert_close(r->tflops_e2e.v, flops / ((copy + kernel) * 1e-3) / 1e12, REL);
    /* Tensor cores are not bounded by the FP32 lanes' peak: a TF32 product is measured against
     * the TF32 tensor peak, known for the H200 (sm_90). */
    const metric *peak = w->prec == PREC_TF32 ? &a->peaks[w->device].tf32_tflops : &a->peaks[w->device].fp32_tflops;
    assert_true(peak->ok);
    assert_true(r->peak_pct.ok);
    assert_close(r->peak_pct.v, 100 * r->tflops.v / peak->v, REL);

    double busy, gap;
    busy_of(m, w, &busy, &gap);
    assert_true(r->busy_pct.ok);
    assert_true(r->busy_pct.v > 0 && r->busy_pct.v <= 100);
    assert_close(r->busy_pct.v, busy, REL);
    assert_close(r->gap_ms.v, gap, REL);

    double cpu = cpu_median_ms(m);
    if (isnan(cpu)) {
        assert_false(r->speedup.ok);
        assert_non_null(strstr(metric_why(&r->speedup), "cpu-openblas"));
    } else {
        assert_close(r->speedup.v, cpu / kernel, REL);
        assert_close(r->speedup_e2e.v, cpu / (copy + kernel), REL);
    }

    if (w->timing == TIMING_CUPTI) {
        double ev = median(w->product_ms, w->nproduct_ms);
        assert_close(r->event_agreement_pct.v, 100 * (kernel - ev) / ev, REL);
    } else {
        assert_false(r->event_agreement_pct.ok);
    }

    const workload_run *lib = find_workload(m, w->prec == PREC_TF32 ? "cublas-tf32" : "cublas-sgemm", w->host_memory);
    if (lib) {
        int lib_kpp;
        assert_close(r->vs_cublas_pct.v, 100 * product_kernel_ms(m, lib, &lib_kpp) / kernel, REL);
    } else {
        assert_false(r->vs_cublas_pct.ok);
        assert_non_null(strstr(metric_why(&r->vs_cublas_pct), "did not run"));
    }

    /* Copy-bound exactly when the copies take longer than the product; below 60% busy, launch-bound
     * when at least 3 kernels of the compute phase and half of them run under 10 us, else idle. */
    int nk, nshort = 0;
    kernel_event *ck = compute_kernels(m, w, &nk);
    for (int i = 0; i < nk; i++)
        nshort += ck[i].end_ns - ck[i].start_ns < 10000;
    free(ck);
    if (copy > kernel)
        assert_int_equal(r->verdict, VERDICT_COPY_BOUND);
    else if (busy >= 60)
        assert_int_equal(r->verdict, VERDICT_COMPUTE_BOUND);
    else
        assert_int_equal(r->verdict, nk >= 3 && 2 * nshort >= nk ? VERDICT_LAUNCH_BOUND : VERDICT_IDLE);
    assert_true(r->verdict_text[0] != '\0');

    /* One summary per kernel name, launches counting warm-up too. */
    int launches = 0;
    for (int k = 0; k < r->nkernels; k++)
        launches += r->kernels[k].launches;
    event_list ev = owned_events(m, w);
    assert_int_equal(launches, ev.nkernels);
    events_clear(&ev);
    return r->verdict;
}

/* Checks every workload of a recorded run; verdicts[v] counts the GPU workloads judged v. */
static void check_recorded_run(const char *path, int verdicts[8])
{
    run_model m;
    load_run(path, &m);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_int_equal(a.nwl, m.builtin.nworkloads);
    double best_h2d = 0;
    for (int i = 0; i < a.nwl; i++) {
        const workload_metrics *r = &a.wl[i];
        assert_ptr_equal(r->w, &m.builtin.workloads[i]);
        assert_int_equal(r->w->status, WL_OK);
        if (r->w->needs_gpu) {
            verdicts[check_gpu_workload(&m, &a, r)]++;
            best_h2d = r->h2d_gbps.v > best_h2d ? r->h2d_gbps.v : best_h2d;
            continue;
        }
        /* The CPU workload: its own clock's products, no copies and no GPU figures. */
        double cpu = median(r->w->product_ms, r->w->nproduct_ms);
        assert_close(r->kernel_ms.v, cpu, REL);
        assert_close(r->tflops.v, 2.0 * m.builtin.n * m.builtin.n * m.builtin.n / (cpu * 1e-3) / 1e12, REL);
        assert_close(r->speedup.v, 1.0, REL);
        assert_false(r->h2d_gbps.ok);
        assert_false(r->copy_compute_ratio.ok);
        assert_false(r->busy_pct.ok);
        assert_int_equal(r->verdict, VERDICT_NONE);
    }
    if (best_h2d > 0)
        assert_close(a.best_h2d_gbps.v, best_h2d, 0);
    assert_all_metrics_sane(&a);
    print_warnings(&a);
    analysis_free(&a);
    model_free(&m);
}

static void sample_figures_from_events(void **state)
{
    (void)state;
    int verdicts[8] = {0};
    check_recorded_run(sample_path(), verdicts);
    /* Both verdicts occur, so "copy-bound iff copies take longer" was tested both ways. */
    assert_true(verdicts[VERDICT_COPY_BOUND] > 0);
    assert_true(verdicts[VERDICT_COMPUTE_BOUND] > 0);
}

static void ncu_sample_figures_from_events(void **state)
{
    (void)state;
    int verdicts[8] = {0};
    check_recorded_run(NCU_SAMPLE, verdicts);
    assert_true(verdicts[VERDICT_COPY_BOUND] > 0);
}

/* A clean run raises nothing; the one timed by cudaEvents says so, and that it has no CPU
 * baseline to compare against. */
static void warnings_of_the_recorded_runs(void **state)
{
    (void)state;
    run_model m;
    analysis a;
    load_sample(&m);
    assert_true(analyze(&m, &a));
    print_warnings(&a);
    assert_int_equal(a.nwarnings, 0);
    analysis_free(&a);
    model_free(&m);

    load_run(NCU_SAMPLE, &m);
    assert_true(analyze(&m, &a));
    assert_true(has_warning(&a, "cudaEvents, not CUPTI", m.collection.reason));
    assert_int_equal(a.nwarnings, 1);
    /* Speedups exist exactly when the CPU baseline ran. */
    bool cpu_ran = false;
    for (int i = 0; i < m.builtin.nworkloads; i++)
        cpu_ran |= strcmp(m.builtin.workloads[i].name, "cpu-openblas") == 0 && m.builtin.workloads[i].status == WL_OK;
    for (int i = 0; i < a.nwl; i++) {
        assert_int_equal(a.wl[i].speedup.ok, cpu_ran && a.wl[i].kernel_ms.ok);
        if (!cpu_ran)
            assert_string_equal(metric_why(&a.wl[i].speedup), "cpu-openblas did not run");
    }
    analysis_free(&a);
    model_free(&m);
}

/* The cuBLAS kernels of the sample: summary from the records, occupancy from the calculator. */
static void sample_kernel_summaries(void **state)
{
    (void)state;
    run_model m;
    load_sample(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    bool seen_sgemm = false, seen_tf32 = false;
    for (int i = 0; i < a.nwl; i++) {
        const workload_metrics *r = &a.wl[i];
        if (strcmp(r->w->name, "cublas-sgemm") != 0 && strcmp(r->w->name, "cublas-tf32") != 0)
            continue;
        assert_int_equal(r->nkernels, 1);
        const kernel_summary *s = &r->kernels[0];
        int n;
        kernel_event *k = compute_kernels(&m, r->w, &n);
        double *d = malloc((size_t)n * sizeof *d);
        for (int j = 0; j < n; j++)
            d[j] = (double)(k[j].end_ns - k[j].start_ns) / 1e6;
        assert_close(s->median_ms.v, median(d, n), REL);
        assert_close(s->tflops.v, 2.0 * m.builtin.n * m.builtin.n * m.builtin.n / (s->median_ms.v * 1e-3) / 1e12, REL);
        free(d);
        free(k);
        assert_true(s->occupancy_pct.ok);
        if (r->w->prec == PREC_FP32) {
            /* 202 registers x 256 threads: one block of 8 warps out of 64. */
            assert_int_equal(s->registers, 202);
            assert_int_equal(s->active_blocks, 1);
            assert_close(s->occupancy_pct.v, 12.5, REL);
            assert_string_equal(s->limiter, "registers");
            seen_sgemm = true;
        } else {
            /* 168 registers x 384 threads and 226 KB of opt-in shared memory: one block of 12
             * warps, and neither registers nor shared memory leave room for a second. */
            assert_int_equal(s->active_blocks, 1);
            assert_close(s->occupancy_pct.v, 100.0 * 12 / 64, REL);
            assert_string_equal(s->limiter, "registers+shared memory");
            seen_tf32 = true;
        }
    }
    assert_true(seen_sgemm && seen_tf32);
    analysis_free(&a);
    model_free(&m);
}

/* ---------- the pieces ---------- */

/* The busy time and the largest gap (none when gap is 0). */
static void union_case(interval *iv, size_t n, int64_t lo, int64_t hi, int64_t busy, int64_t gap, int64_t gap_at)
{
    idle_gap g = {-1, -1};
    int ng = -1;
    assert_int_equal(interval_union(iv, n, lo, hi, &g, 1, &ng), busy);
    assert_int_equal(ng, gap > 0);
    if (gap > 0) {
        assert_int_equal(g.length_ns, gap);
        assert_int_equal(g.start_ns, gap_at);
    }
}

static void interval_union_cases(void **state)
{
    (void)state;
    /* Overlapping, given out of order: [0,15) busy, idle [15,20). */
    interval overlap[] = {{5, 15}, {0, 10}};
    union_case(overlap, 2, 0, 20, 15, 5, 15);
    /* Gaps: busy 4; the largest gap is the tail [12,20). */
    interval gaps[] = {{10, 12}, {2, 4}};
    union_case(gaps, 2, 0, 20, 4, 8, 12);
    /* Largest gap in the middle, and one at the start. */
    interval middle[] = {{1, 2}, {9, 20}};
    union_case(middle, 2, 0, 20, 12, 7, 2);
    /* Clipped to the window at both ends. */
    interval clip[] = {{-5, 5}, {15, 30}};
    union_case(clip, 2, 0, 20, 10, 10, 5);
    /* Nested and touching intervals count once. */
    interval nested[] = {{0, 20}, {5, 6}, {20, 25}};
    union_case(nested, 3, 0, 25, 25, 0, 0);
    interval touching[] = {{0, 5}, {5, 10}};
    union_case(touching, 2, 0, 10, 10, 0, 0);
    /* Empty and outside intervals do not count. */
    interval outside[] = {{-10, -5}, {30, 40}, {7, 7}};
    union_case(outside, 3, 0, 20, 0, 20, 0);
    union_case(NULL, 0, 100, 150, 0, 50, 100);
    /* The longest three of four gaps, longest first; equal ones in time order. */
    interval four[] = {{1, 2}, {4, 5}, {9, 10}, {12, 20}};
    idle_gap g[3];
    int ng = 0;
    assert_int_equal(interval_union(four, 4, 0, 20, g, 3, &ng), 11);
    assert_int_equal(ng, 3);
    assert_int_equal(g[0].start_ns, 5);  /* [5, 9) */
    assert_int_equal(g[1].start_ns, 2);  /* [2, 4) */
    assert_int_equal(g[2].start_ns, 10); /* [10, 12), as long as [2, 4): after it */
}

static void median_cases(void **state)
{
    (void)state;
    double odd[] = {5, 1, 3};
    assert_close(median_of(odd, 3), 3, 0);
    double even[] = {4, 1, 3, 2};
    assert_close(median_of(even, 4), 2.5, 0);
    assert_close(even[0], 4, 0); /* not reordered */
    assert_close(even[3], 2, 0);
    double one[] = {7.25};
    assert_close(median_of(one, 1), 7.25, 0);
    double dup[] = {2, 2, 9, 2, -1};
    assert_close(median_of(dup, 5), 2, 0);
}

static void display_names(void **state)
{
    (void)state;
    run_model m;
    load_sample(&m);
    const workload_run *w = find_workload(&m, "cublas-sgemm", MEM_PINNED);
    assert_non_null(w);
    event_list ev = owned_events(&m, w);
    const char *mangled = ev.kernels[0].name;
    assert_true(strncmp(mangled, "_Z", 2) == 0);
    char buf[256];
    /* _ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nn_align1EEvNT_6ParamsE reads
     * void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(T::Params). */
    kernel_display_name(mangled, buf, sizeof buf);
    assert_string_equal(buf, "cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>");
    char small[8];
    kernel_display_name(mangled, small, sizeof small);
    assert_string_equal(small, "cutlass");
    events_clear(&ev);
    model_free(&m);

    /* A template function with pointer parameters: arguments go, template arguments stay. */
    kernel_display_name("_Z6kernelIfLi16EEvPKT_S2_PS0_i", buf, sizeof buf);
    assert_string_equal(buf, "kernel<float, 16>");
    /* Unmangled names are kept; a parameter list on them goes too. */
    kernel_display_name("mmprof_naive", buf, sizeof buf);
    assert_string_equal(buf, "mmprof_naive");
    kernel_display_name("legacy_kernel(float*, int)", buf, sizeof buf);
    assert_string_equal(buf, "legacy_kernel");
    /* numba's ABI tags (a hash of the argument types, as samples/h200-profile-numba.json recorded
     * it) fold away. */
    kernel_display_name("_ZN8__main__5saxpyB2v1B104cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3Cw6igA9duC0hkwnNGiHEkYkrqQBFBTDEwCyQe21e"
                        "qwcFW3UoDGjzpQEsgzrtUEAA_3d_3dEf5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5Arr"
                        "ayIfLi1E1C7mutable7alignedE",
                        buf, sizeof buf);
    assert_string_equal(buf, "__main__::saxpy");
    /* Not valid mangling: shown as recorded rather than lost. */
    kernel_display_name("_Z!!", buf, sizeof buf);
    assert_string_equal(buf, "_Z!!");
    kernel_display_name(NULL, buf, sizeof buf);
    assert_string_equal(buf, "");
}

/* ---------- warnings and n/a on spoilt runs ---------- */

static void analyze_sample_with(void (*spoil)(run_model *), analysis *a, run_model *m)
{
    load_sample(m);
    spoil(m);
    assert_true(analyze(m, a));
    print_warnings(a);
    assert_all_metrics_sane(a);
}

static void set_core(run_model *m, const char *core) { copy_str(m->builtin.blas.core, sizeof m->builtin.blas.core, core); }
static void core_prescott(run_model *m) { set_core(m, "Prescott"); }
static void core_cooperlake(run_model *m) { set_core(m, "Cooperlake"); }
static void core_core2_avx2(run_model *m)
{
    set_core(m, "CORE2");
    m->host.has_avx512f = false;
}
static void core_prescott_no_avx(run_model *m)
{
    core_prescott(m);
    m->host.has_avx2 = m->host.has_avx512f = false;
}

static void generic_blas_core_warns(void **state)
{
    (void)state;
    run_model m;
    analysis a;
    analyze_sample_with(core_prescott, &a, &m);
    assert_true(m.host.has_avx512f);
    assert_true(has_warning(&a, "'Prescott'", "AVX-512"));
    analysis_free(&a);
    model_free(&m);

    analyze_sample_with(core_cooperlake, &a, &m);
    assert_false(has_warning(&a, "OpenBLAS", NULL));
    analysis_free(&a);
    model_free(&m);

    /* Case does not matter to the check; AVX2 is named when that is what the CPU has. */
    analyze_sample_with(core_core2_avx2, &a, &m);
    assert_true(has_warning(&a, "'CORE2'", "AVX2"));
    analysis_free(&a);
    model_free(&m);

    /* A CPU without AVX is what the generic core is for. */
    analyze_sample_with(core_prescott_no_avx, &a, &m);
    assert_false(has_warning(&a, "OpenBLAS", NULL));
    analysis_free(&a);
    model_free(&m);
}

/* The run the synthetic cases change: cuda-naive from pageable memory, wherever it sits. */
static workload_run *second(run_model *m)
{
    for (int i = 0; i < m->builtin.nworkloads; i++)
        if (strcmp(m->builtin.workloads[i].name, "cuda-naive") == 0 && m->builtin.workloads[i].host_memory == MEM_PAGEABLE)
            return &m->builtin.workloads[i];
    fail_msg("the sample has no cuda-naive (pageable) run");
    return NULL;
}

static void fail_with_error(run_model *m)
{
    workload_run *w = second(m);
    w->status = WL_FAILED;
    w->rel_error = 3e-3;
    copy_str(w->status_reason, sizeof w->status_reason, "relative error 0.003 above the bound 1e-05");
}

/* What verify_into makes of a result that holds a NaN: no error could be computed. */
static void fail_with_nan(run_model *m)
{
    workload_run *w = second(m);
    float c[4] = {1, 2, NAN, 4};
    double ref[4] = {1, 2, 3, 4};
    verify_into(w, c, ref, 4);
}

static void error_status(run_model *m)
{
    workload_run *w = second(m);
    w->status = WL_ERROR;
    copy_str(w->status_reason, sizeof w->status_reason, "cudaMalloc: out of memory");
}

static void failed_verification_warns(void **state)
{
    (void)state;
    run_model m;
    analysis a;
    analyze_sample_with(fail_with_error, &a, &m);
    char label[64];
    workload_label(second(&m), label, sizeof label);
    assert_string_equal(label, "cuda-naive (pageable)");
    assert_true(has_warning(&a, "cuda-naive (pageable) failed verification", "0.003"));
    /* A result that did not verify gets no verdict. */
    assert_int_equal(a.wl[second(&m) - m.builtin.workloads].verdict, VERDICT_NONE);
    analysis_free(&a);
    model_free(&m);

    analyze_sample_with(fail_with_nan, &a, &m);
    assert_int_equal(second(&m)->status, WL_FAILED);
    assert_false(second(&m)->verified);
    assert_true(has_warning(&a, "cuda-naive (pageable) failed verification", "NaN"));
    /* No error was computed, so none may be quoted. */
    assert_false(has_warning(&a, "relative error 0 ", NULL));
    analysis_free(&a);
    model_free(&m);

    analyze_sample_with(error_status, &a, &m);
    assert_true(has_warning(&a, "cuda-naive (pageable) did not complete", "cudaMalloc: out of memory"));
    assert_int_equal(a.wl[second(&m) - m.builtin.workloads].verdict, VERDICT_NONE);
    analysis_free(&a);
    model_free(&m);
}

static void runtime_disagrees(run_model *m) { second(m)->occ[0].runtime_blocks_per_sm = 7; }
static void collection_trouble(run_model *m)
{
    m->collection.dropped = 12;
    m->collection.lost_timestamps = 3;
    copy_str(m->builtin.gpu_skip_reason, sizeof m->builtin.gpu_skip_reason, "no GPU here");
}

static void other_warnings(void **state)
{
    (void)state;
    run_model m;
    analysis a;
    analyze_sample_with(runtime_disagrees, &a, &m);
    assert_true(has_warning(&a, "mmprof_naive", "runtime said 7"));
    analysis_free(&a);
    model_free(&m);

    analyze_sample_with(collection_trouble, &a, &m);
    assert_true(has_warning(&a, "dropped 12", NULL));
    assert_true(has_warning(&a, "3 kernel or copy records", NULL));
    assert_true(has_warning(&a, "GPU workloads skipped", "no GPU here"));
    analysis_free(&a);
    model_free(&m);
}

/* One compute-phase kernel of the second workload moved past the phase: the rest no longer
 * divide into products. */
static void lose_a_kernel(run_model *m)
{
    workload_run *w = second(m);
    const phase *c = find_phase(w, "compute");
    for (size_t i = 0; i < m->events.nkernels; i++) {
        kernel_event *k = &m->events.kernels[i];
        if (k->region == w->region && k->start_ns >= c->start_ns && k->start_ns <= c->end_ns) {
            k->start_ns = c->end_ns + 1;
            k->end_ns = c->end_ns + 2;
            break;
        }
    }
}

static void ungroupable_kernels_are_na(void **state)
{
    (void)state;
    run_model m;
    analysis a;
    analyze_sample_with(lose_a_kernel, &a, &m);
    const workload_metrics *r = &a.wl[second(&m) - m.builtin.workloads];
    assert_false(r->kernel_ms.ok);
    assert_non_null(strstr(metric_why(&r->kernel_ms), "cannot group"));
    /* Everything built on it is n/a with the same reason, and no verdict is given. */
    assert_false(r->tflops.ok);
    assert_string_equal(metric_why(&r->tflops), metric_why(&r->kernel_ms));
    assert_false(r->copy_compute_ratio.ok);
    assert_false(r->speedup.ok);
    assert_int_equal(r->verdict, VERDICT_NONE);
    assert_true(r->kernel_total_ms.ok);
    analysis_free(&a);
    model_free(&m);
}

/* A long idle stretch after the copies, with copies shorter than the product. */
static void idle_tail(run_model *m)
{
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        workload_run *w = &m->builtin.workloads[i];
        if (strcmp(w->name, "cuda-naive") != 0 || w->host_memory != MEM_PINNED)
            continue;
        for (int p = 0; p < w->nphases; p++)
            if (strcmp(w->phases[p].name, "copy-out") == 0)
                w->phases[p].end_ns += 200000000; /* 200 ms */
    }
}

static void idle_bound_verdict(void **state)
{
    (void)state;
    run_model m;
    analysis a;
    analyze_sample_with(idle_tail, &a, &m);
    const workload_run *w = find_workload(&m, "cuda-naive", MEM_PINNED);
    const workload_metrics *r = &a.wl[w - m.builtin.workloads];
    double busy, gap;
    busy_of(&m, w, &busy, &gap);
    assert_true(busy < 60);
    assert_true(r->copy_ms.v < r->kernel_ms.v);
    assert_int_equal(r->verdict, VERDICT_IDLE);
    assert_non_null(strstr(r->verdict_text, "largest gap"));
    assert_non_null(strstr(r->verdict_text, "in copy-out"));
    assert_close(r->gap_ms.v, gap, REL);
    assert_true(gap >= 200);
    assert_string_equal(r->gap_phase, "copy-out");
    analysis_free(&a);
    model_free(&m);
}

static void unknown_gpu(run_model *m)
{
    m->devices[0].cc_major = 3;
    m->devices[0].cc_minor = 5;
    m->devices[0].pcie_gen = 0;
    m->devices[0].pcie_width = 0;
    copy_str(m->devices[0].pcie_why, sizeof m->devices[0].pcie_why, "link not reported by the driver");
}

static void unknown_device_peaks_are_na(void **state)
{
    (void)state;
    run_model m;
    analysis a;
    analyze_sample_with(unknown_gpu, &a, &m);
    assert_false(a.peaks[0].fp32_tflops.ok);
    assert_non_null(strstr(metric_why(&a.peaks[0].fp32_tflops), "3.5"));
    assert_false(a.peaks[0].link_gbps.ok);
    assert_string_equal(metric_why(&a.peaks[0].link_gbps), "link not reported by the driver");
    assert_false(a.wl[1].peak_pct.ok);
    assert_false(a.wl[1].h2d_link_pct.ok);
    assert_true(a.wl[1].tflops.ok); /* what was measured is still there */
    analysis_free(&a);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(h200_peaks),
        cmocka_unit_test(sample_figures_from_events),
        cmocka_unit_test(ncu_sample_figures_from_events),
        cmocka_unit_test(warnings_of_the_recorded_runs),
        cmocka_unit_test(sample_kernel_summaries),
        cmocka_unit_test(interval_union_cases),
        cmocka_unit_test(median_cases),
        cmocka_unit_test(display_names),
        cmocka_unit_test(generic_blas_core_warns),
        cmocka_unit_test(failed_verification_warns),
        cmocka_unit_test(other_warnings),
        cmocka_unit_test(ungroupable_kernels_are_na),
        cmocka_unit_test(idle_bound_verdict),
        cmocka_unit_test(unknown_device_peaks_are_na),
    };
    return cmocka_run_group_tests_name("analysis", tests, NULL, NULL);
}
