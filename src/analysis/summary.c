/* The summary (summary.h): findings read off the analysis, each with its deciding figure.
 *
 * A built-in run is judged across its workloads (how many copies bound, what pinning buys, how
 * close the best kernels come to cuBLAS, where copies start to dominate, the best speedup); any
 * timeline (an import, a profiled program, and the built-in run as a whole) by its run region:
 * verdict and advice, where the GPU time went, the top kernel, busy %, and the regions whose
 * verdict differs from the run's. */
#include "summary.h"
#include "strbuf.h"
#include "sweep.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "host_idle.h"
#include "memory.h"
#include "source.h"

/* Regions named in the summary besides the run: the longest ones with a verdict of their own. */
#define MAX_REGION_FINDINGS 3

const char *finding_kind_name(finding_kind k)
{
    static const char *const names[] = {"failed", "no_gpu", "copy_bound", "pinned_vs_pageable", "best_kernel",
                                        "crossover", "speedup", "gpu_busy", "verdict", "gpu_time", "top_kernel",
                                        "region", "sweep", "counters", "launched_from", "steps", "before_steps",
                                        "out_of_memory", "memory_leak", "memory_peak"};
    return (k >= 0 && (size_t)k < sizeof names / sizeof names[0]) ? names[k] : "finding";
}

const metric_table *finding_table(const finding *f)
{
    static const metric_table *const tables[] = {&finding_ms_table,   &finding_pct_table,    &finding_x_table,
                                                 &finding_runs_table, &finding_events_table, &finding_n_table,
                                                 &finding_mb_table};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (strcmp(tables[i]->defs[0].unit, f->unit) == 0)
            return tables[i];
    return NULL;
}

typedef struct {
    struct analysis *a;
    bool oom;
} builder;

static void add(builder *b, finding_kind kind, double weight, double value, const char *unit, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void add(builder *b, finding_kind kind, double weight, double value, const char *unit, const char *fmt, ...)
{
    if (b->oom)
        return;
    finding *grown = realloc(b->a->summary, (size_t)(b->a->nsummary + 1) * sizeof *grown);
    if (!grown) {
        b->oom = true;
        return;
    }
    b->a->summary = grown;
    finding *f = &grown[b->a->nsummary++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->weight = weight;
    metric_set(&f->figure, value);
    f->unit = unit;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
}

static bool is_library(const analysis *a, const workload_metrics *r)
{
    return r->library >= 0 && &a->wl[r->library] == r;
}

/* The size a built-in run's findings speak of: a sweep's largest (its smallest sizes would
 * otherwise crown a kernel that wins only where nothing is measurable); 0 for a one-size run. */
int summary_size(const analysis *a)
{
    const run_model *m = a->m;
    int n = 0;
    for (int i = 0; m->builtin.nsizes > 1 && i < m->builtin.nsizes; i++)
        n = m->builtin.sizes[i] > n ? m->builtin.sizes[i] : n;
    return n;
}

bool summary_workload(const analysis *a, const workload_metrics *r)
{
    int n = summary_size(a);
    return r->w->needs_gpu && r->w->status == WL_OK && (n == 0 || r->w->n == n);
}

static bool gpu_ok(const analysis *a, const workload_metrics *r)
{
    return summary_workload(a, r);
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void failures(builder *b)
{
    const analysis *a = b->a;
    int failed = 0, total = 0;
    char names[160] = "";
    for (int i = 0; i < a->nwl; i++) {
        const workload_run *w = a->wl[i].w;
        total += w->status != WL_SKIPPED;
        if (w->status != WL_FAILED && w->status != WL_ERROR)
            continue;
        char label[64];
        workload_label(w, label, sizeof label);
        size_t used = strlen(names);
        if (used + strlen(label) + 8 < sizeof names)
            snprintf(names + used, sizeof names - used, "%s%s", failed ? ", " : "", label);
        else if (!strstr(names, "..."))
            snprintf(names + used, sizeof names - used, ", ...");
        failed++;
    }
    if (failed > 0)
        add(b, FIND_FAILED, 100, failed, "runs",
            "%d of %d workload runs failed (%s): their figures are not to be trusted; see Warnings", failed, total,
            names);
}

static void no_gpu(builder *b)
{
    const analysis *a = b->a;
    int gpu = 0, skipped = 0;
    for (int i = 0; i < a->nwl; i++) {
        gpu += a->wl[i].w->needs_gpu;
        skipped += a->wl[i].w->needs_gpu && a->wl[i].w->status == WL_SKIPPED;
    }
    if (gpu > 0 && skipped == gpu)
        add(b, FIND_NO_GPU, 95, skipped, "runs", "No GPU workload ran (%d skipped): %s; only the CPU was measured",
            skipped, a->m->builtin.gpu_skip_reason[0] ? a->m->builtin.gpu_skip_reason : "no usable GPU");
}

static void copy_bound(builder *b)
{
    const analysis *a = b->a;
    int judged = 0, bound = 0, pageable = 0, pageable_bound = 0;
    double worst = 0;
    const workload_metrics *worst_r = NULL;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        if (!gpu_ok(a, r) || r->verdict == VERDICT_NONE)
            continue;
        judged++;
        pageable += r->w->host_memory == MEM_PAGEABLE;
        if (r->verdict != VERDICT_COPY_BOUND)
            continue;
        bound++;
        pageable_bound += r->w->host_memory == MEM_PAGEABLE;
        if (r->copy_compute_ratio.ok && r->copy_compute_ratio.v > worst) {
            worst = r->copy_compute_ratio.v;
            worst_r = r;
        }
    }
    if (judged == 0)
        return;
    double share = (double)bound / judged;
    if (bound == 0) {
        add(b, FIND_COPY_BOUND, 40, 0, "runs",
            "No GPU run is copy-bound: in all %d the kernel outlasts copying A and B in and C out", judged);
        return;
    }
    char label[64];
    workload_label(worst_r ? worst_r->w : a->wl[0].w, label, sizeof label);
    char why[160] = "";
    if (pageable > 0 && pageable_bound == pageable && bound > pageable_bound)
        snprintf(why, sizeof why, "every pageable run, and %d of %d pinned ones", bound - pageable_bound,
                 judged - pageable);
    else if (pageable > 0 && pageable_bound == pageable)
        snprintf(why, sizeof why, "every pageable run");
    else
        snprintf(why, sizeof why, "%d pageable, %d pinned", pageable_bound, bound - pageable_bound);
    add(b, FIND_COPY_BOUND, 50 + 50 * share, bound, "runs",
        "%d of %d GPU runs are copy-bound (%s): copying A and B in and C out takes longer than the multiply; "
        "worst %s, copies %.1fx its kernel time",
        bound, judged, why, label, worst);
}

/* The comparison copy_bests.c made once, in the figures every output prints. */
static void pinned_vs_pageable(builder *b)
{
    const analysis *a = b->a;
    if (!a->pinned_copy_x.ok)
        return;
    double x = a->pinned_copy_x.v, pinned = a->med_copy_pinned_ms.v, pageable = a->med_copy_pageable_ms.v;
    if (x >= 1 && a->pinned_h2d_x.ok && a->pinned_d2h_x.ok)
        add(b, FIND_PINNED, 45, x, "x",
            "Pinned host memory makes copies %.1fx faster: %.3f ms against %.3f ms per product (medians of %d pinned "
            "and %d pageable runs); H2D %.1f against %.1f GB/s (%.1fx), D2H %.1f against %.1f GB/s (%.1fx)",
            x, pinned, pageable, a->pinned_runs, a->pageable_runs, a->med_h2d_pinned_gbps.v,
            a->med_h2d_pageable_gbps.v, a->pinned_h2d_x.v, a->med_d2h_pinned_gbps.v, a->med_d2h_pageable_gbps.v,
            a->pinned_d2h_x.v);
    else
        add(b, FIND_PINNED, 45, x, "x",
            "Pinned host memory did not help: copies took %.3f ms pinned against %.3f ms pageable per product",
            pinned, pageable);
}

/* The best own kernel of each precision against its library, and the library's own figure. */
static void best_kernels(builder *b)
{
    const analysis *a = b->a;
    for (int p = PREC_FP32; p <= PREC_TF32; p++) {
        const workload_metrics *best = NULL;
        for (int i = 0; i < a->nwl; i++) {
            const workload_metrics *r = &a->wl[i];
            if (!gpu_ok(a, r) || (int)r->w->prec != p || !r->ladder_row || is_library(a, r) || !r->vs_cublas_pct.ok)
                continue;
            if (!best || r->vs_cublas_pct.v > best->vs_cublas_pct.v)
                best = r;
        }
        if (!best)
            continue;
        const workload_metrics *lib = &a->wl[best->library];
        add(b, FIND_BEST_KERNEL, 40 - p, best->vs_cublas_pct.v, "%",
            "Best %s kernel: %s at %.1f%% of %s (%.1f against %.1f TFLOP/s, %.3f against %.3f ms)",
            p == PREC_TF32 ? "TF32" : "FP32", best->w->name, best->vs_cublas_pct.v, lib->w->name, best->tflops.v,
            lib->tflops.v, best->kernel_ms.v, lib->kernel_ms.v);
    }
}

/* The counters' finding: what bounds the kernel a reader cares about most, with the figure that
 * decided it. In a built-in run, the fastest own kernel of each precision (the best rung of the
 * ladder: the one to improve next); in a profile, the longest profiled launch. */
static void counters(builder *b, bool builtin)
{
    const analysis *a = b->a;
    if (builtin) {
        const workload_metrics *best = NULL;
        for (int i = 0; i < a->nwl; i++) {
            const workload_metrics *r = &a->wl[i];
            if (!gpu_ok(a, r) || !r->ladder_row || is_library(a, r) || !r->bound_pct.ok || !r->tflops.ok)
                continue;
            if (!best || r->tflops.v > best->tflops.v)
                best = r;
        }
        if (!best)
            return;
        char occ[48] = "";
        if (best->achieved_occupancy_pct.ok)
            snprintf(occ, sizeof occ, "; achieved occupancy %.1f%%", best->achieved_occupancy_pct.v);
        add(b, FIND_COUNTERS, 38, best->bound_pct.v, "%", "Counters: the fastest own kernel, %s (%.1f TFLOP/s), is bound by %s%s",
            best->w->name, best->tflops.v, best->bound_text, occ);
        return;
    }
    const launch_metrics *longest = NULL;
    for (int i = 0; i < a->m->nlaunch_counters; i++) {
        const launch_metrics *r = &a->launches[i];
        if (r->bound_pct.ok && r->duration_us.ok && (!longest || r->duration_us.v > longest->duration_us.v))
            longest = r;
    }
    if (longest) {
        char name[96];
        kernel_display_name(longest->k->name, name, sizeof name);
        add(b, FIND_COUNTERS, 38, longest->bound_pct.v, "%",
            "Counters: the longest profiled launch, %s (%.1f us under replay), is bound by %s", name,
            longest->duration_us.v, longest->bound_text);
    }
}

/* With pinned copies (the fastest a program gets), a kernel faster than the copies leaves the
 * product copy-bound: the first ladder rung below that line. */
static void copy_crossover(builder *b)
{
    const analysis *a = b->a;
    if (!a->med_copy_pinned_ms.ok || a->med_copy_pinned_ms.v <= 0)
        return;
    double copy = a->med_copy_pinned_ms.v;
    const workload_metrics *slowest_bound = NULL;
    int below = 0, rungs = 0;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        if (!gpu_ok(a, r) || r->w->host_memory != MEM_PINNED || !r->kernel_ms.ok)
            continue;
        rungs++;
        if (r->kernel_ms.v < copy) {
            below++;
            if (!slowest_bound || r->kernel_ms.v > slowest_bound->kernel_ms.v)
                slowest_bound = r;
        }
    }
    if (rungs == 0)
        return;
    if (!slowest_bound) {
        add(b, FIND_CROSSOVER, 30, copy, "ms",
            "Pinned copies take %.3f ms per product: every kernel here is slower than that, so none is copy-bound "
            "when pinned", copy);
        return;
    }
    add(b, FIND_CROSSOVER, 30, copy, "ms",
        "Crossover: pinned copies take %.3f ms per product, so a kernel faster than that is copy-bound even when "
        "pinned: %d of %d pinned runs, from %s (%.3f ms) down; faster kernels then buy little end to end",
        copy, below, rungs, slowest_bound->w->name, slowest_bound->kernel_ms.v);
}

static void speedup(builder *b)
{
    const analysis *a = b->a;
    const workload_metrics *best = NULL, *best_k = NULL;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        if (!gpu_ok(a, r))
            continue;
        if (r->speedup_e2e.ok && (!best || r->speedup_e2e.v > best->speedup_e2e.v))
            best = r;
        if (r->speedup.ok && (!best_k || r->speedup.v > best_k->speedup.v))
            best_k = r;
    }
    if (!best || !best_k)
        return;
    char label[64], kernel[96];
    workload_label(best->w, label, sizeof label);
    if (strcmp(best->w->name, best_k->w->name) == 0)
        snprintf(kernel, sizeof kernel, "its kernel alone is");
    else
        snprintf(kernel, sizeof kernel, "the fastest kernel alone (%s) is", best_k->w->name);
    add(b, FIND_SPEEDUP, 20, best->speedup_e2e.v, "x",
        "Fastest end to end: %s, %.3f ms per product with copies, %.1fx the CPU (OpenBLAS); %s %.0fx", label,
        best->e2e_ms.v, best->speedup_e2e.v, kernel, best_k->speedup.v);
}

/* ---------- any timeline: the run region ---------- */

static const region_metrics *run_region(const analysis *a)
{
    return a->nlisted > 0 ? &a->rg[a->listed[0]] : NULL;
}

static void busy(builder *b, bool builtin)
{
    const region_metrics *r = run_region(b->a);
    if (!r || !r->busy_pct.ok)
        return;
    char inside[320] = "";
    if (builtin) {
        int n = 0;
        double *v = malloc((size_t)(b->a->nwl ? b->a->nwl : 1) * sizeof *v);
        for (int i = 0; v && i < b->a->nwl; i++)
            if (gpu_ok(b->a, &b->a->wl[i]) && b->a->wl[i].busy_pct.ok)
                v[n++] = b->a->wl[i].busy_pct.v;
        if (n > 0) {
            qsort(v, (size_t)n, sizeof *v, cmp_dbl);
            snprintf(inside, sizeof inside, "; inside the workloads' copy and compute phases %.1f%% (median of %d)",
                     (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), n);
        }
        free(v);
        if (!v)
            b->oom = true;
    }
    /* Several GPUs: the run's busy is their union (any GPU busy), and its kernel and copy times
     * are summed over them; each row's own busy is said beside it. */
    const rank_analysis *ra = b->a->ranks;
    char gpus[64] = "", rows[240] = "";
    if (ra && ra->ngpus > 1)
        snprintf(gpus, sizeof gpus, " (any of %d GPUs: their union; times summed over them)", ra->ngpus);
    for (int i = 0; ra && ra->ngpus > 1 && i < ra->nrows; i++) {
        char who[96];
        rank_share_label(&ra->rows[i], false, false, who, sizeof who);
        size_t n = strlen(rows);
        if (ra->rows[i].busy_pct.ok && n + 40 < sizeof rows)
            snprintf(rows + n, sizeof rows - n, "%s%s %.1f%%", i ? ", " : "; each over the job's GPU window: ", who,
                     ra->rows[i].busy_pct.v);
    }
    char lead[96] = "";
    if (r->lead_idle_ms.ok && r->lead_idle_ms.v > 0)
        snprintf(lead, sizeof lead, "; %.1f ms before the first GPU work, %.1f ms after the last", r->lead_idle_ms.v,
                 r->tail_idle_ms.ok ? r->tail_idle_ms.v : 0);
    add(b, FIND_BUSY, builtin ? 15 : 35, r->busy_pct.v, "%",
        "GPU busy %.1f%% of the run's %.1f ms%s (kernels %.1f ms, copies %.1f ms)%s%s; largest idle stretch between "
        "GPU work %.1f ms%s",
        r->busy_pct.v, r->wall_ms.v, gpus, r->kernel_ms.v, r->memcpy_ms.v, rows, lead,
        r->largest_gap_ms.ok ? r->largest_gap_ms.v : 0, inside);
}

/* The steps' steady state and their longest, and the time before the first of them, from their
 * wall-time accounts (accounts.h): a loop that starts slowly is judged on its median step. */
static void step_findings(builder *b)
{
    const analysis *a = b->a;
    const wall_account *sum = steps_account(a, ACC_GROUP), *median = steps_account(a, ACC_GROUP_MEDIAN),
                       *worst = steps_account(a, ACC_GROUP_WORST), *before = steps_account(a, ACC_BEFORE_STEPS);
    const wall_account *run = run_account(a);
    if (sum && median && worst) {
        /* The longest in short: its verdict and its largest state (its account has the rest). */
        char longest[320] = "";
        if (worst->region != median->region && worst->nrows > 0) {
            const account_row *r = &worst->rows[0];
            snprintf(longest, sizeof longest, "; the longest, %.60s (%.3f ms), is %s (%.100s %.1f%%%s%.100s)",
                     worst->name, worst->wall_ms.v, verdict_name(worst->verdict),
                     r->why[0] && !wall_state_gpu(r->state) ? r->why : wall_states[r->state].brief, r->share_pct.v,
                     r->at[0] ? " at " : "", r->at);
        }
        add(b, FIND_STEPS, 84, median->verdict_pct.ok ? median->verdict_pct.v : 0, "%",
            "Steps (%.60s, %d instances, %.3f ms in all): the median, %.60s (%.3f ms), is %s%s%s%s", sum->name,
            sum->instances, sum->wall_ms.v, median->name, median->wall_ms.v, median->verdict_text, longest,
            median->advice[0] ? ". Try: " : "", median->advice);
    }
    /* The time before the first step, where it is a part of the run worth a line of its own. */
    if (before && run && run->wall_ms.ok && run->wall_ms.v > 0 && before->wall_ms.v >= 0.05 * run->wall_ms.v)
        add(b, FIND_BEFORE_STEPS, 83, 100.0 * before->wall_ms.v / run->wall_ms.v, "%",
            "Before the first step: %.3f ms, %.1f%% of the run: %s%s%s", before->wall_ms.v,
            100.0 * before->wall_ms.v / run->wall_ms.v, before->verdict_text, before->advice[0] ? ". Try: " : "",
            before->advice);
}

/* Which line launched the kernel with most of the run's kernel time (call_sites.h). */
static void launched_from(builder *b)
{
    const region_metrics *r = run_region(b->a);
    if (!r || r->nkstats == 0 || !b->a->host || !r->kernels[0].share_pct.ok)
        return;
    char name[128];
    kernel_display_name(r->kernels[0].name, name, sizeof name);
    for (int i = 0; i < b->a->host->nsites; i++) {
        const call_site_row *s = &b->a->host->sites[i];
        if (strcmp(s->kind, "kernel") != 0 || strcmp(s->name, name) != 0 || s->nsites == 0)
            continue;
        char also[200] = "", of[64] = "";
        if (s->nsites > 1)
            snprintf(also, sizeof also, "; then %.150s %.0f%%", s->sites[1].at, s->sites[1].share_pct.v);
        /* Sites are taken for a share of the launches (their cost held to 1%): the share is of
         * those, and the kernel's own count says how many that was. */
        if (r->kernels[0].count > s->calls)
            snprintf(of, sizeof of, " (of its %d)", r->kernels[0].count);
        char cut[104];
        clipped(name, 100, cut, sizeof cut); /* cut with a mark: "...alignc4_ex" read as a name of its own */
        add(b, FIND_LAUNCHED_FROM, 12, s->sites[0].share_pct.v, "%",
            "The top kernel %s (%.0f%% of kernel time) was launched from %.150s in %.0f%% of %d launches "
            "with a call site%s%s",
            cut, r->kernels[0].share_pct.v, s->sites[0].at, s->sites[0].share_pct.v,
            s->calls, of, also);
        return;
    }
}

/* The figure a region verdict rests on. */
static void verdict_figure(const region_metrics *r, double *v, const char **unit)
{
    switch (r->verdict) {
    case VERDICT_COPY_BOUND:
        *v = r->copy_compute_ratio.ok ? r->copy_compute_ratio.v : r->memcpy_ms.v;
        *unit = r->copy_compute_ratio.ok ? "x" : "ms";
        break;
    case VERDICT_LAUNCH_BOUND:
        *v = r->short_kernel_pct.v;
        *unit = "%";
        break;
    case VERDICT_SYNC_BOUND:
        *v = r->sync_ms.v;
        *unit = "ms";
        break;
    default: /* busy share, else (not known: a capture's start) the kernel time the verdict names */
        *v = r->busy_pct.ok ? r->busy_pct.v : r->kernel_ms.v;
        *unit = r->busy_pct.ok ? "%" : "ms";
    }
}

static void timeline_findings(builder *b)
{
    const analysis *a = b->a;
    const region_metrics *r = run_region(a);
    if (!r)
        return;
    const char *name = a->m->regions[r->region].name;
    if (r->verdict == VERDICT_NO_GPU) {
        add(b, FIND_VERDICT, 90, 0, "events", "No GPU activity in %s: no kernel, copy or memset was recorded", name);
        return;
    }
    double v;
    const char *unit;
    verdict_figure(r, &v, &unit);
    const wall_account *acc = run_account(a);
    if (acc && acc->verdict_pct.ok) { /* the run's account decided it: its share of the wall */
        v = acc->verdict_pct.v;
        unit = "%";
    }
    add(b, FIND_VERDICT, 85, v, unit, "%s is %s%s%s", name, r->verdict_text, r->advice[0] ? ". Try: " : "", r->advice);
    double gpu = r->kernel_ms.v + r->memcpy_ms.v + r->memset_ms.v;
    if (gpu > 0) {
        char memsets[96] = "";
        if (r->nmemsets > 0)
            snprintf(memsets, sizeof memsets, ", memsets %.1f%% (%.3f ms in %d)", 100 * r->memset_ms.v / gpu,
                     r->memset_ms.v, r->nmemsets);
        add(b, FIND_GPU_TIME, 55, 100 * r->kernel_ms.v / gpu, "%",
            "GPU time: kernels %.1f%% (%.3f ms in %d launch%s), copies %.1f%% (%.3f ms in %d cop%s)%s",
            100 * r->kernel_ms.v / gpu, r->kernel_ms.v, r->nkernels, r->nkernels == 1 ? "" : "es",
            100 * r->memcpy_ms.v / gpu, r->memcpy_ms.v, r->ncopies, r->ncopies == 1 ? "y" : "ies", memsets);
    }
    if (r->nkstats > 0 && r->kernels[0].share_pct.ok) {
        const kernel_stat *k = &r->kernels[0];
        char kn[160];
        kernel_display_name(k->name, kn, sizeof kn);
        add(b, FIND_TOP_KERNEL, 50, k->share_pct.v, "%",
            "Top kernel: %s takes %.1f%% of kernel time (%d launch%s, median %.3f ms)%s", kn, k->share_pct.v, k->count,
            k->count == 1 ? "" : "es",
            k->median_ms.v, r->nkstats > 1 ? "" : "; it is the only one");
    }
}

/* NVTX ranges and annotations whose verdict differs from the run's, one line per name (range
 * groups, longest in all first): a loop of 40 steps is one finding, with how many of its
 * instances got the verdict and the least busy one's figures. */
static void region_findings(builder *b)
{
    const analysis *a = b->a;
    const region_metrics *run = run_region(a);
    if (!run)
        return;
    int n = 0;
    for (int i = 0; i < a->ngroups && n < MAX_REGION_FINDINGS; i++) {
        const range_group *g = &a->groups[i];
        const wall_account *steps = steps_account(a, ACC_GROUP);
        if (g->verdict == VERDICT_NONE || g->verdict == VERDICT_NO_GPU || g->verdict == run->verdict ||
            (steps && steps->group == i))
            continue; /* the steps have a finding of their own */
        const region_metrics *w = &a->rg[g->worst];
        double v;
        const char *unit;
        verdict_figure(w, &v, &unit);
        if (g->count == 1)
            add(b, FIND_REGION, 25 - n, v, unit, "Region %s (%.3f ms) is %s", g->name, g->total_ms.v, w->verdict_text);
        else
            add(b, FIND_REGION, 25 - n, v, unit,
                "Range %s: %d instances, %.3f ms in all (average %.3f ms), %d %s; the least busy, at %.3f ms, is %s",
                g->name, g->count, g->total_ms.v, g->mean_ms.v, g->verdicts[g->verdict], verdict_name(g->verdict),
                (double)(a->m->regions[g->worst].start_ns - a->m->regions[0].start_ns) / 1e6, w->verdict_text);
        n++;
    }
}

/* GPU memory's findings, made with its analysis (memory.c): an out-of-memory error first of all.
 * Their figures in MB (10^6 bytes), as a figure beside a sentence reads best. */
static void memory_findings(builder *b)
{
    const memory_analysis *x = b->a->memory;
    for (int i = 0; x && i < x->nfindings; i++)
        add(b, x->findings[i].kind, x->findings[i].weight, x->findings[i].value / 1e6, "MB", "%s", x->findings[i].text);
}

static int by_weight(const void *x, const void *y)
{
    const finding *p = x, *q = y;
    if (p->weight != q->weight)
        return p->weight < q->weight ? 1 : -1;
    return (int)p->kind - (int)q->kind;
}

bool summarize(struct analysis *a)
{
    builder b = {a, false};
    a->summary = NULL;
    a->nsummary = 0;
    bool builtin = source_has(a->m->source, HAS_WORKLOADS) && a->nwl > 0;
    failures(&b);
    if (builtin && a->sweep) {
        /* A sweep's question comes first: from which size the GPU pays off (the other findings
         * speak of its largest size). The figure is the pinned end-to-end crossover's n. */
        char line[FINDING_TEXT];
        sweep_headline(a->sweep, line, sizeof line);
        const crossover *pinned = &a->sweep->cross[0];
        add(&b, FIND_SWEEP, 99, pinned->kind == CROSS_AT && pinned->n.ok ? pinned->n.v : 0, "n", "Sweep: %s", line);
    }
    if (builtin) {
        no_gpu(&b);
        copy_bound(&b);
        pinned_vs_pageable(&b);
        best_kernels(&b);
        copy_crossover(&b);
        speedup(&b);
    } else if (source_has(a->m->source, HAS_TIMELINE)) {
        timeline_findings(&b);
        step_findings(&b);
        region_findings(&b);
    }
    counters(&b, builtin);
    busy(&b, builtin);
    launched_from(&b);
    memory_findings(&b);
    if (b.oom)
        return false;
    if (a->nsummary > 1)
        qsort(a->summary, (size_t)a->nsummary, sizeof *a->summary, by_weight);
    return true;
}
