/* make bench (on a GPU machine): runs the real binary and reports, from the runs it records,
 *
 *  1. TFLOP/s per workload at each size, with median, spread, % of FP32 peak and % of cuBLAS
 *     (cuBLAS timed in the same process as the kernels it is compared with);
 *  2. the cost of collection: a cuBLAS product at 4096 with CUPTI on and off, in alternating
 *     runs, compared on cudaEvent times (recorded the same way in both modes); the target is at
 *     most 1% change in kernel time;
 *  3. the run-to-run spread of the cuBLAS 4096 kernel median under sampling by noise
 *     (--max-noise 0.5): 5 separate runs, (max - min) / median of their medians; the target is
 *     below 1%; then the same with --cold-l2;
 *  4. the wall time of `mmprof --size 2048` with every workload, and where it goes;
 *  5. the cost of the hardware-counter pass (--counters) at each size: its phases' time per
 *     workload and the run's added wall time, beside the same run without it.
 *
 * Prints tables; exits 1 when collection changes kernel time by more than 1% or the run-to-run
 * spread is 1% or more. BENCH_SIZES (default "2048 4096"), BENCH_PAIRS (default 5) and BENCH_RUNS
 * (default 5) change the work done; BENCH_PARTS (default all) picks parts by name: throughput,
 * collection, spread, wall, counters. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze.h"
#include "model_json.h"
#include "test_support.h"

static char *tmp;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Runs mmprof with args (NULL-terminated) plus --quiet --json into tmp/name; loads the run. */
static bool run(run_model *m, const char *name, double *wall_s, const char *const *args)
{
    const char *argv[40];
    char json[512];
    snprintf(json, sizeof json, "%s/%s", tmp, name);
    int n = 0;
    argv[n++] = mmprof_bin();
    for (int i = 0; args[i] && n < 36; i++)
        argv[n++] = args[i];
    argv[n++] = "--quiet";
    argv[n++] = "--json";
    argv[n++] = json;
    argv[n] = NULL;
    double t0 = now_s();
    cmd_result r = run_argv(argv, NULL);
    if (wall_s)
        *wall_s = now_s() - t0;
    if (r.status != 0 && r.status != 1)
        fprintf(stderr, "bench: mmprof exited %d: %s\n", r.status, r.err);
    cmd_free(&r);
    char err[512];
    if (!model_read_file(json, m, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        return false;
    }
    return true;
}

static const workload_metrics *find(const analysis *a, const char *name)
{
    for (int i = 0; i < a->nwl; i++)
        if (strcmp(a->wl[i].w->name, name) == 0 && a->wl[i].kernel_ms.ok)
            return &a->wl[i];
    return NULL;
}

static void throughput(const char *size)
{
    run_model m;
    const char *args[] = {"--size", size, "--host-memory", "pinned", "--seed", "5", NULL};
    if (!run(&m, "tput.json", NULL, args))
        return;
    analysis a;
    if (!analyze(&m, &a)) {
        model_free(&m);
        return;
    }
    const workload_metrics *cub = find(&a, "cublas-sgemm"), *cub32 = find(&a, "cublas-tf32");
    printf("\nn = %s (pinned; kernel time = median of R launches, spread = (max-min)/median, noise = "
           "stdev/mean)\n", size);
    printf("%-20s %5s %10s %7s %7s %8s %6s %8s %7s\n", "workload", "R", "median ms", "spread", "noise", "TFLOP/s",
           "%peak", "%cuBLAS", "status");
    for (int i = 0; i < a.nwl; i++) {
        const workload_metrics *r = &a.wl[i];
        const workload_run *w = r->w;
        const workload_metrics *ref = w->prec == PREC_TF32 ? cub32 : cub;
        char peak[16] = "-", vs[16] = "-";
        if (r->peak_pct.ok)
            snprintf(peak, sizeof peak, "%.1f", r->peak_pct.v);
        if (ref && w->needs_gpu && r->kernel_ms.ok)
            snprintf(vs, sizeof vs, "%.1f", 100.0 * ref->kernel_ms.v / r->kernel_ms.v);
        printf("%-20s %5d %10.4f %6.1f%% %6.2f%% %8.2f %6s %8s %7s\n", w->name, w->repeat, r->kernel_ms.v,
               r->kernel_spread_pct.v, r->noise_pct.v, r->tflops.v, peak, vs, status_name(w->status));
    }
    analysis_free(&a);
    model_free(&m);
}

static double median_product_ms(const run_model *m)
{
    for (int i = 0; i < m->builtin.nworkloads; i++)
        if (m->builtin.workloads[i].needs_gpu && m->builtin.workloads[i].nproduct_ms > 0)
            return median_of(m->builtin.workloads[i].product_ms, m->builtin.workloads[i].nproduct_ms);
    return NAN;
}

/* Alternating runs with CUPTI on and off; cudaEvent medians in both. */
static int collection_cost(int pairs)
{
    double on[32], off[32], cupti_kernel[32];
    int n = 0;
    for (int i = 0; i < pairs && i < 32; i++) {
        run_model a, b;
        const char *with[] = {"--size", "4096", "--workloads", "cublas-sgemm", "--host-memory", "pinned",
                              "--repeat", "30", "--seed", "3", NULL};
        const char *without[] = {"--size", "4096", "--workloads", "cublas-sgemm", "--host-memory", "pinned",
                                 "--repeat", "30", "--seed", "3", "--no-cupti", NULL};
        if (!run(&a, "on.json", NULL, with))
            return 1;
        if (!run(&b, "off.json", NULL, without)) {
            model_free(&a);
            return 1;
        }
        on[n] = median_product_ms(&a);
        off[n] = median_product_ms(&b);
        analysis an;
        cupti_kernel[n] = NAN;
        if (analyze(&a, &an)) {
            const workload_metrics *r = find(&an, "cublas-sgemm");
            if (r)
                cupti_kernel[n] = r->kernel_ms.v;
            analysis_free(&an);
        }
        n++;
        model_free(&a);
        model_free(&b);
    }
    if (n == 0)
        return 1;
    double mon = median_of(on, n), moff = median_of(off, n), mk = median_of(cupti_kernel, n);
    double lo_on = on[0], hi_on = on[0], lo_off = off[0], hi_off = off[0];
    for (int i = 1; i < n; i++) {
        lo_on = fmin(lo_on, on[i]), hi_on = fmax(hi_on, on[i]);
        lo_off = fmin(lo_off, off[i]), hi_off = fmax(hi_off, off[i]);
    }
    double delta = 100.0 * (mon - moff) / moff;
    printf("\nCost of collection: cublas-sgemm, n = 4096, %d alternating runs each, 30 products per run\n", n);
    printf("  CUPTI on : median %.4f ms per product (cudaEvents; runs %.4f..%.4f); CUPTI's own kernel "
           "median %.4f ms\n", mon, lo_on, hi_on, mk);
    printf("  CUPTI off: median %.4f ms per product (cudaEvents; runs %.4f..%.4f)\n", moff, lo_off, hi_off);
    printf("  collection changes kernel time by %+.2f%% (target: at most 1%%)\n", delta);
    return fabs(delta) <= 1.0 ? 0 : 1;
}

/* Separate runs of cuBLAS at 4096, each sampled until its noise is at most 0.5%: how far apart
 * their medians land. */
static int run_to_run(int runs, bool cold)
{
    double med[32];
    int n = 0;
    printf("\nRun to run: cublas-sgemm, n = 4096, pinned, --max-noise 0.5%s, %d separate runs\n",
           cold ? " --cold-l2" : "", runs);
    for (int i = 0; i < runs && i < 32; i++) {
        run_model m;
        const char *args[] = {"--size", "4096", "--workloads", "cublas-sgemm", "--host-memory", "pinned",
                              "--max-noise", "0.5", "--seed", "3", cold ? "--cold-l2" : NULL, NULL};
        if (!run(&m, "noise.json", NULL, args))
            return 1;
        analysis an;
        if (analyze(&m, &an)) {
            const workload_metrics *r = find(&an, "cublas-sgemm");
            if (r) {
                med[n++] = r->kernel_ms.v;
                printf("  run %d: median %.4f ms, %d samples, noise %.3f%%, stopped by %s\n", i + 1, r->kernel_ms.v,
                       r->w->samples, r->noise_pct.ok ? r->noise_pct.v : NAN, sample_stop_name(r->w->stopped_by));
            }
            analysis_free(&an);
        }
        model_free(&m);
    }
    if (n < 2)
        return 1;
    double lo = med[0], hi = med[0];
    for (int i = 1; i < n; i++)
        lo = fmin(lo, med[i]), hi = fmax(hi, med[i]);
    double mid = median_of(med, n), spread = 100.0 * (hi - lo) / mid;
    printf("  medians %.4f..%.4f ms: run-to-run spread %.2f%% of %.4f ms (target: below 1%%)\n", lo, hi, spread, mid);
    return spread < 1.0 ? 0 : 1;
}

static void wall_time(void)
{
    double walls[3];
    run_model m;
    bool have = false;
    for (int i = 0; i < 3; i++) {
        if (have)
            model_free(&m);
        const char *args[] = {"--size", "2048", NULL};
        have = run(&m, "wall.json", &walls[i], args);
        if (!have)
            return;
    }
    double lo = fmin(walls[0], fmin(walls[1], walls[2])), hi = fmax(walls[0], fmax(walls[1], walls[2]));
    printf("\nWall time of `mmprof --size 2048` (every workload, both memory kinds, JSON written): "
           "median %.2f s (%.2f..%.2f, 3 runs; target 3 s)\n", median_of(walls, 3), lo, hi);
    printf("  where the last run's time went:");
    for (int i = 0; i < m.builtin.ntool_phases; i++)
        printf(" %s %.0f ms,", m.builtin.tool_phases[i].name,
               (double)(m.builtin.tool_phases[i].end_ns - m.builtin.tool_phases[i].start_ns) / 1e6);
    double wl = 0;
    for (int i = 0; i < m.builtin.nworkloads; i++) {
        const workload_run *w = &m.builtin.workloads[i];
        if (w->nphases > 0)
            wl += (double)(w->phases[w->nphases - 1].end_ns - w->phases[0].start_ns) / 1e6;
    }
    printf(" workloads %.0f ms\n", wl);
    model_free(&m);
}

/* Milliseconds the counter pass took in m: each workload's "counters" phase and the tool's
 * "counters-init". */
static double counter_ms(const run_model *m, double *init_ms)
{
    double total = 0;
    *init_ms = 0;
    for (int i = 0; i < m->builtin.ntool_phases; i++)
        if (strcmp(m->builtin.tool_phases[i].name, "counters-init") == 0)
            *init_ms = (double)(m->builtin.tool_phases[i].end_ns - m->builtin.tool_phases[i].start_ns) / 1e6;
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        const phase *p = workload_find_phase(&m->builtin.workloads[i], "counters");
        if (p)
            total += (double)(p->end_ns - p->start_ns) / 1e6;
    }
    return total;
}

static void counter_cost(const char *size)
{
    run_model with, without;
    double wall_with = 0, wall_without = 0;
    const char *off[] = {"--size", size, "--host-memory", "pinned", NULL};
    const char *on[] = {"--size", size, "--host-memory", "pinned", "--counters", NULL};
    if (!run(&without, "nocounters.json", &wall_without, off))
        return;
    if (!run(&with, "counters.json", &wall_with, on)) {
        model_free(&without);
        return;
    }
    double init_ms = 0, pass_ms = counter_ms(&with, &init_ms);
    printf("\nCounter pass at n = %s (--counters, pinned, every workload): %s%s\n", size,
           with.counters.why[0] ? "n/a: " : "", with.counters.why);
    printf("  wall %.2f s with, %.2f s without: +%.2f s; counter phases %.0f ms + set-up %.0f ms; %d passes per kernel\n",
           wall_with, wall_without, wall_with - wall_without, pass_ms, init_ms, with.counters.passes);
    printf("  %-18s %10s %12s %12s\n", "workload", "pass ms", "kernel ms", "without");
    analysis a, b;
    bool have_a = analyze(&with, &a), have_b = have_a && analyze(&without, &b);
    if (have_a && !have_b)
        analysis_free(&a);
    if (have_b) {
        for (int i = 0; i < with.builtin.nworkloads; i++) {
            const workload_run *w = &with.builtin.workloads[i];
            const phase *p = workload_find_phase(w, "counters");
            const workload_metrics *o = find(&b, w->name);
            if (!w->needs_gpu)
                continue;
            printf("  %-18s %10.1f %12.4f %12.4f\n", w->name, p ? (double)(p->end_ns - p->start_ns) / 1e6 : 0.0,
                   a.wl[i].kernel_ms.ok ? a.wl[i].kernel_ms.v : NAN, o && o->kernel_ms.ok ? o->kernel_ms.v : NAN);
        }
        analysis_free(&a);
        analysis_free(&b);
    }
    model_free(&with);
    model_free(&without);
}

/* Whether BENCH_PARTS (a comma-separated list; unset or empty: every part) names part. */
static bool part(const char *name)
{
    const char *parts = getenv("BENCH_PARTS");
    if (!parts || !parts[0])
        return true;
    size_t n = strlen(name);
    for (const char *p = parts; (p = strstr(p, name)); p += n)
        if ((p == parts || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return true;
    return false;
}

int main(void)
{
    tmp = make_temp_dir();
    if (!tmp)
        return 2;
    const char *sizes = getenv("BENCH_SIZES");
    char list[256];
    snprintf(list, sizeof list, "%s", sizes && sizes[0] ? sizes : "2048 4096");
    for (char *save = NULL, *s = strtok_r(list, " ,", &save); s && part("throughput"); s = strtok_r(NULL, " ,", &save))
        throughput(s);
    const char *p = getenv("BENCH_PAIRS");
    int rc = part("collection") ? collection_cost(p ? atoi(p) : 5) : 0;
    const char *runs = getenv("BENCH_RUNS");
    if (part("spread")) {
        rc |= run_to_run(runs ? atoi(runs) : 5, false);
        run_to_run(runs ? atoi(runs) : 5, true); /* told, not judged: a cold L2 is another measurement */
    }
    if (part("wall"))
        wall_time();
    snprintf(list, sizeof list, "%s", sizes && sizes[0] ? sizes : "2048 4096");
    for (char *save = NULL, *s = strtok_r(list, " ,", &save); s && part("counters"); s = strtok_r(NULL, " ,", &save))
        counter_cost(s);
    rm_rf(tmp);
    free(tmp);
    return rc;
}
