/* Analysis, the orchestrator: every figure of a run model, computed by the files it calls in
 * turn (see analyze.h; the results' types are analysis.h's). Helpers those files share live below
 * them (intervals.c, spread.c, peaks.c, display_names.c), so none of them calls back up here. */
#include "analyze.h"
#include "wall_account.h"
#include "memory.h"
#include "host_idle.h"
#include "device_check.h"
#include "devices.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_view.h"
#include "stage_times.h"
#include "incomplete.h"
#include "thresholds.h"
#include "stats.h"
#include "key_sort.h"
#include "spill.h"
#include "strbuf.h"


/* Short names for the metric helpers (metric.h), used on nearly every line here. */
#define set metric_set
#define na metric_na
#define ratio metric_ratio

static bool in_phase(const phase *p, int64_t t)
{
    return p && t >= p->start_ns && t <= p->end_ns;
}

/* cpu-openblas at the same size (a sweep runs it at every size). */
static const workload_run *cpu_baseline(const run_model *m, int n)
{
    for (int i = 0; i < m->builtin.nworkloads; i++)
        if (!m->builtin.workloads[i].needs_gpu && m->builtin.workloads[i].status == WL_OK && m->builtin.workloads[i].n == n &&
            m->builtin.workloads[i].nproduct_ms > 0)
            return &m->builtin.workloads[i];
    return NULL;
}

/* Per-product kernel times of the compute phase: consecutive groups of kernels_per_product
 * kernels (cuBLAS may launch more than one kernel per product). */
static void kernel_times(const workload_run *w, const event_view *ev, workload_metrics *r)
{
    const phase *compute = workload_find_phase(w, "compute");
    size_t count = 0;
    for (size_t i = 0; i < ev->nkernels; i++)
        if (in_phase(compute, ev->kernels[i]->start_ns))
            count++;
    if (!compute || count == 0) {
        na(&r->kernel_ms, "no kernel records in the compute phase");
        na(&r->kernel_total_ms, "%s", metric_why(&r->kernel_ms));
        na(&r->kernel_spread_pct, "%s", metric_why(&r->kernel_ms));
        return;
    }
    if (w->repeat <= 0 || count % (size_t)w->repeat != 0) {
        na(&r->kernel_ms, "%zu kernels for %d products: cannot group them", count, w->repeat);
        na(&r->kernel_spread_pct, "%s", metric_why(&r->kernel_ms));
    }
    double total = 0;
    int kpp = w->repeat > 0 ? (int)(count / (size_t)w->repeat) : 0;
    double *per = calloc((size_t)(w->repeat > 0 ? w->repeat : 1), sizeof *per);
    size_t *first = calloc((size_t)(w->repeat > 0 ? w->repeat : 1), sizeof *first); /* each product's first kernel */
    size_t seen = 0;
    for (size_t i = 0; i < ev->nkernels; i++) {
        const kernel_event *k = ev->kernels[i];
        if (!in_phase(compute, k->start_ns))
            continue;
        double ms = (double)(k->end_ns - k->start_ns) / 1e6;
        total += ms;
        if (per && first && kpp > 0 && seen / (size_t)kpp < (size_t)w->repeat) {
            if (seen % (size_t)kpp == 0)
                first[seen / (size_t)kpp] = i;
            per[seen / (size_t)kpp] += ms;
        }
        seen++;
    }
    set(&r->kernel_total_ms, total);
    if (kpp > 0 && count % (size_t)w->repeat == 0 && per && first) {
        r->kernels_per_product = kpp;
        double med = median_of(per, w->repeat);
        set(&r->kernel_ms, med);
        /* The product a one-product timeline shows: the first whose time is nearest the median. */
        int best = 0;
        for (int i = 1; i < w->repeat; i++)
            if (fabs(per[i] - med) < fabs(per[best] - med))
                best = i;
        r->product_kernel = (int)first[best];
        double lo = per[0], hi = per[0];
        for (int i = 1; i < w->repeat; i++) {
            lo = per[i] < lo ? per[i] : lo;
            hi = per[i] > hi ? per[i] : hi;
        }
        if (med > 0)
            set(&r->kernel_spread_pct, 100.0 * (hi - lo) / med);
        else
            na(&r->kernel_spread_pct, "zero kernel time");
    }
    free(per);
    free(first);
}

static void copy_times(const event_view *ev, copy_dir dir, metric *ms, metric *bytes, metric *gbps)
{
    double t = 0, b = 0;
    int count = 0;
    for (size_t i = 0; i < ev->ncopies; i++) {
        const copy_event *c = ev->copies[i];
        if (c->dir != dir)
            continue;
        t += (double)(c->end_ns - c->start_ns) / 1e6;
        b += (double)c->bytes;
        count++;
    }
    if (count == 0) {
        const char *d = dir == COPY_H2D ? "host-to-device" : "device-to-host";
        na(ms, "no %s copy records", d);
        na(bytes, "%s", metric_why(ms));
        na(gbps, "%s", metric_why(ms));
        return;
    }
    set(ms, t);
    set(bytes, b);
    if (t > 0)
        set(gbps, b / (t * 1e6)); /* bytes per ns = GB/s */
    else
        na(gbps, "copy took no measurable time");
}

/* The phases in which the workload asks the GPU for work. Busy % is measured inside them only:
 * the warm-up (where libraries load their kernels) and the host's own work between phases
 * (poisoning buffers, reading events) are the tool's doing, not the workload's. */
static const char *const gpu_phases[] = {"copy-in", "compute", "copy-out"};

static void busy_and_gaps(const workload_run *w, const event_view *ev, workload_metrics *r)
{
    /* Memsets count as busy: --cold-l2's L2 flush runs between the timed launches, and the GPU is
     * no idler for it. */
    size_t n = ev->nkernels + ev->ncopies + ev->nmemsets;
    interval *iv = malloc((n ? n : 1) * sizeof *iv);
    if (!iv) {
        na(&r->busy_pct, "out of memory");
        na(&r->gap_ms, "out of memory");
        na(&r->busy_span_ms, "out of memory");
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < ev->nkernels; i++)
        iv[k++] = (interval){ev->kernels[i]->start_ns, ev->kernels[i]->end_ns};
    for (size_t i = 0; i < ev->ncopies; i++)
        iv[k++] = (interval){ev->copies[i]->start_ns, ev->copies[i]->end_ns};
    for (size_t i = 0; i < ev->nmemsets; i++)
        iv[k++] = (interval){ev->memsets[i]->start_ns, ev->memsets[i]->end_ns};
    int64_t busy_sum = 0, span = 0, gap_max = -1;
    r->gap_phase[0] = '\0';
    for (size_t p = 0; p < sizeof gpu_phases / sizeof gpu_phases[0]; p++) {
        const phase *ph = workload_find_phase(w, gpu_phases[p]);
        if (!ph) {
            free(iv);
            na(&r->busy_pct, "%s phase missing", gpu_phases[p]);
            na(&r->gap_ms, "%s", metric_why(&r->busy_pct));
            na(&r->busy_span_ms, "%s", metric_why(&r->busy_pct));
            return;
        }
        idle_gap largest;
        int ngaps;
        int64_t busy = interval_union(iv, k, ph->start_ns, ph->end_ns, &largest, 1, &ngaps);
        int64_t gap = ngaps > 0 ? largest.length_ns : 0;
        busy_sum += busy;
        span += ph->end_ns - ph->start_ns;
        if (gap > gap_max) {
            gap_max = gap;
            copy_str(r->gap_phase, sizeof r->gap_phase, ph->name);
        }
    }
    free(iv);
    if (span <= 0) {
        na(&r->busy_pct, "empty GPU phases");
        na(&r->gap_ms, "empty GPU phases");
        na(&r->busy_span_ms, "empty GPU phases");
        return;
    }
    set(&r->busy_pct, 100.0 * (double)busy_sum / (double)span);
    set(&r->busy_span_ms, (double)span / 1e6);
    set(&r->gap_ms, (double)gap_max / 1e6);
}

static int find_summary(const workload_metrics *r, const char *name)
{
    for (int i = 0; i < r->nkernels; i++)
        if (strcmp(r->kernels[i].name, name) == 0)
            return i;
    return -1;
}

/* One row per kernel name: launches over the whole workload, median over the compute phase
 * (over all launches when none ran there), launch shape and resources from the first record. */
static bool kernel_summaries(const run_model *m, const workload_run *w, const event_view *ev, workload_metrics *r)
{
    const phase *compute = workload_find_phase(w, "compute");
    for (size_t i = 0; i < ev->nkernels; i++) {
        const kernel_event *k = ev->kernels[i];
        if (find_summary(r, k->name) >= 0)
            continue;
        kernel_summary *grown = realloc(r->kernels, (size_t)(r->nkernels + 1) * sizeof *grown);
        if (!grown)
            return false;
        r->kernels = grown;
        kernel_summary *s = &r->kernels[r->nkernels++];
        memset(s, 0, sizeof *s);
        s->name = k->name;
        memcpy(s->grid, k->grid, sizeof s->grid);
        memcpy(s->block, k->block, sizeof s->block);
        s->has_resources = k->has_resources;
        s->registers = k->registers;
        s->static_smem = k->static_smem;
        s->dynamic_smem = k->dynamic_smem;
        s->local_mem = k->local_mem;

        int nd = 0, nc = 0;
        for (size_t j = 0; j < ev->nkernels; j++)
            if (strcmp(ev->kernels[j]->name, k->name) == 0) {
                nd++;
                nc += in_phase(compute, ev->kernels[j]->start_ns);
            }
        double *d = malloc((size_t)nd * sizeof *d);
        if (!d)
            return false;
        int c = 0;
        for (size_t j = 0; j < ev->nkernels; j++)
            if (strcmp(ev->kernels[j]->name, k->name) == 0 &&
                (nc == 0 || in_phase(compute, ev->kernels[j]->start_ns)))
                d[c++] = (double)(ev->kernels[j]->end_ns - ev->kernels[j]->start_ns) / 1e6;
        s->launches = nd;
        set(&s->median_ms, median_of(d, c));
        free(d);

        if (r->kernels_per_product == 1 && s->median_ms.v > 0)
            set(&s->tflops, product_flops(w->n) / s->median_ms.v / 1e9);
        else
            na(&s->tflops, "more than one kernel per product");

        kernel_occupancy(m, k, &s->occupancy_pct, &s->active_blocks, s->limiter, sizeof s->limiter);
    }
    return true;
}

/* The verdict (verdict.h) on one product's figures: its copies against its kernel time, how busy
 * the GPU was in the phases that ask it for work, and how short the compute phase's kernels are. */
static void decide_verdict(const event_view *ev, workload_metrics *r)
{
    const workload_run *w = r->w;
    verdict v;
    if (!w->needs_gpu || w->status != WL_OK)
        not_judged(&v, w->needs_gpu ? "the workload did not complete" : "runs on the CPU");
    else if (!r->kernel_ms.ok || !r->copy_ms.ok)
        not_judged(&v, !r->kernel_ms.ok ? metric_why(&r->kernel_ms) : metric_why(&r->copy_ms));
    else {
        const phase *compute = workload_find_phase(w, "compute");
        int nk = 0, nshort = 0;
        for (size_t i = 0; i < ev->nkernels; i++)
            if (in_phase(compute, ev->kernels[i]->start_ns)) {
                nk++;
                nshort += ev->kernels[i]->end_ns - ev->kernels[i]->start_ns < SHORT_KERNEL_NS;
            }
        verdict_input in = {.per = "per product", .gpu_events = (int)(ev->nkernels + ev->ncopies + ev->nmemsets),
                            .kernel_ms = r->kernel_ms, .copy_ms = r->copy_ms, .busy_pct = r->busy_pct,
                            .largest_gap_ms = r->gap_ms, .gap_where = r->gap_phase[0] ? r->gap_phase : NULL,
                            .nkernels = nk, .tflops = r->tflops, .peak_pct = r->peak_pct,
                            .peak_name = w->prec == PREC_TF32 ? "TF32" : "FP32"};
        in.wall_ms = r->busy_span_ms;
        if (nk > 0)
            set(&in.short_kernel_pct, 100.0 * nshort / nk);
        else
            na(&in.short_kernel_pct, "no kernels in the compute phase");
        na(&in.lead_idle_ms, "the phases are the product's own");
        na(&in.copy_hidden_pct, "a product's copies and kernel run one after the other");
        na(&in.launch_us, "launch calls are not timed per product");
        na(&in.kernel_us, "%s", metric_why(&in.launch_us));
        na(&in.sync_ms, "the workload's synchronization is the tool's own");
        /* The product's kernels: their share is the longest one's of the per-product time. */
        double top = 0;
        for (int i = 0; i < r->nkernels; i++)
            if (r->kernels[i].median_ms.ok && r->kernels[i].median_ms.v > top)
                top = r->kernels[i].median_ms.v;
        if (top > 0 && r->kernel_ms.v > 0)
            set(&in.top_kernel_share_pct, top > r->kernel_ms.v ? 100.0 : 100.0 * top / r->kernel_ms.v);
        else
            na(&in.top_kernel_share_pct, "no kernel time");
        judge(&in, &v);
    }
    r->verdict = v.kind;
    copy_str(r->verdict_text, sizeof r->verdict_text, v.text);
    copy_str(r->advice, sizeof r->advice, v.advice);
}

/* The library's run that a GPU workload is measured against: cuBLAS in the same precision with
 * the same host memory, from the same run. */
static const char *library_of(precision p)
{
    return p == PREC_TF32 ? "cublas-tf32" : "cublas-sgemm";
}

static void versus_library(const analysis *a, workload_metrics *r)
{
    const workload_run *w = r->w;
    if (!w->needs_gpu) {
        na(&r->vs_cublas_pct, "CPU workload");
        return;
    }
    const char *lib = library_of(w->prec);
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *o = &a->wl[i];
        /* In a --devices run, the library's run on the same GPU in the same pass. */
        if (strcmp(o->w->name, lib) == 0 && o->w->host_memory == w->host_memory && o->w->n == w->n &&
            o->w->device == w->device && o->w->pass == w->pass) {
            r->library = i;
            ratio(&r->vs_cublas_pct, &o->kernel_ms, &r->kernel_ms, 100.0);
            return;
        }
    }
    na(&r->vs_cublas_pct, "%s did not run", lib);
}

/* The noise sampling judged: as the runner recorded it, or from the products kept for a file that
 * predates it (the same formula: stats.h, shared so the two cannot differ). */
static void sample_noise(const workload_run *w, metric *out)
{
    double pct = w->noise_pct >= 0 ? w->noise_pct : relative_noise_pct(w->product_ms, w->nproduct_ms);
    if (pct >= 0)
        set(out, pct);
    else
        na(out, "%s", w->nproduct_ms < 2 ? "fewer than two timed samples" : "zero mean sample time");
}

static bool analyze_workload(const run_model *m, const analysis *a, const workload_run *w,
                             workload_metrics *r)
{
    const event_view *ev = workload_events(a, w);
    memset(r, 0, sizeof *r);
    r->w = w;
    r->product_kernel = -1;
    double flops = product_flops(w->n);
    const char *not_run = w->status == WL_SKIPPED ? "skipped" : "did not complete";
    sample_noise(w, &r->noise_pct);

    if (!w->needs_gpu) {
        if (w->nproduct_ms > 0) {
            set(&r->kernel_ms, median_of(w->product_ms, w->nproduct_ms));
            double lo = w->product_ms[0], hi = w->product_ms[0], sum = 0;
            for (int i = 0; i < w->nproduct_ms; i++) {
                lo = w->product_ms[i] < lo ? w->product_ms[i] : lo;
                hi = w->product_ms[i] > hi ? w->product_ms[i] : hi;
                sum += w->product_ms[i];
            }
            set(&r->kernel_total_ms, sum);
            set(&r->kernel_spread_pct, r->kernel_ms.v > 0 ? 100.0 * (hi - lo) / r->kernel_ms.v : 0);
            r->e2e_ms = r->kernel_ms;
        } else {
            na(&r->kernel_ms, "%s", not_run);
            na(&r->kernel_total_ms, "%s", not_run);
            na(&r->kernel_spread_pct, "%s", not_run);
            na(&r->e2e_ms, "%s", not_run);
        }
        const char *why = "host memory: no copies";
        na(&r->h2d_ms, "%s", why), na(&r->h2d_bytes, "%s", why), na(&r->h2d_gbps, "%s", why);
        na(&r->d2h_ms, "%s", why), na(&r->d2h_bytes, "%s", why), na(&r->d2h_gbps, "%s", why);
        na(&r->h2d_link_pct, "%s", why), na(&r->d2h_link_pct, "%s", why);
        na(&r->copy_ms, "%s", why), na(&r->copy_compute_ratio, "%s", why);
        na(&r->peak_pct, "peak is the GPU's"), na(&r->busy_pct, "CPU workload");
        na(&r->gap_ms, "CPU workload"), na(&r->event_agreement_pct, "CPU workload");
        na(&r->busy_span_ms, "CPU workload");
    } else {
        kernel_times(w, ev, r);
        copy_times(ev, COPY_H2D, &r->h2d_ms, &r->h2d_bytes, &r->h2d_gbps);
        copy_times(ev, COPY_D2H, &r->d2h_ms, &r->d2h_bytes, &r->d2h_gbps);
        const device_peaks *pk = (w->device >= 0 && w->device < m->ndevices) ? &a->peaks[w->device] : NULL;
        metric none;
        na(&none, "device not recorded");
        const metric *link = pk ? &pk->link_gbps : &none;
        ratio(&r->h2d_link_pct, &r->h2d_gbps, link, 100.0);
        ratio(&r->d2h_link_pct, &r->d2h_gbps, link, 100.0);
        if (r->h2d_ms.ok && r->d2h_ms.ok)
            set(&r->copy_ms, r->h2d_ms.v + r->d2h_ms.v);
        else
            na(&r->copy_ms, "%s", r->h2d_ms.ok ? metric_why(&r->d2h_ms) : metric_why(&r->h2d_ms));
        copy_compute(&r->copy_compute_ratio, &r->copy_ms, &r->kernel_ms);
        if (r->copy_ms.ok && r->kernel_ms.ok)
            set(&r->e2e_ms, r->copy_ms.v + r->kernel_ms.v);
        else
            na(&r->e2e_ms, "%s", r->kernel_ms.ok ? metric_why(&r->copy_ms) : metric_why(&r->kernel_ms));
        busy_and_gaps(w, ev, r);

        if (w->timing == TIMING_CUPTI && r->kernel_ms.ok && w->nproduct_ms > 0) {
            double ev = median_of(w->product_ms, w->nproduct_ms);
            if (ev > 0)
                set(&r->event_agreement_pct, 100.0 * (r->kernel_ms.v - ev) / ev);
            else
                na(&r->event_agreement_pct, "cudaEvent time is zero");
        } else {
            na(&r->event_agreement_pct, "needs CUPTI records and cudaEvent times");
        }
        if (!kernel_summaries(m, w, ev, r))
            return false;
        /* The peak of the unit the product runs on: a TF32 product runs on the tensor cores,
         * which the FP32 lanes' peak does not bound, so it is measured against theirs. */
        metric peak_tf;
        if (pk)
            peak_tf = w->prec == PREC_TF32 ? pk->tf32_tflops : pk->fp32_tflops;
        else
            na(&peak_tf, "device not recorded");
        if (r->kernel_ms.ok && r->kernel_ms.v > 0)
            set(&r->tflops, flops / r->kernel_ms.v / 1e9);
        else
            na(&r->tflops, "%s", r->kernel_ms.ok ? "zero kernel time" : metric_why(&r->kernel_ms));
        ratio(&r->peak_pct, &r->tflops, &peak_tf, 100.0);
    }
    if (!w->needs_gpu) {
        if (r->kernel_ms.ok && r->kernel_ms.v > 0)
            set(&r->tflops, flops / r->kernel_ms.v / 1e9);
        else
            na(&r->tflops, "%s", metric_why(&r->kernel_ms));
    }
    if (r->e2e_ms.ok && r->e2e_ms.v > 0)
        set(&r->tflops_e2e, flops / r->e2e_ms.v / 1e9);
    else
        na(&r->tflops_e2e, "%s", r->e2e_ms.ok ? "zero time" : metric_why(&r->e2e_ms));

    const workload_run *cpu = cpu_baseline(m, w->n);
    metric cpu_ms;
    if (cpu)
        set(&cpu_ms, median_of(cpu->product_ms, cpu->nproduct_ms));
    else
        na(&cpu_ms, "cpu-openblas did not run");
    ratio(&r->speedup, &cpu_ms, &r->kernel_ms, 1.0);
    ratio(&r->speedup_e2e, &cpu_ms, &r->e2e_ms, 1.0);
    decide_verdict(ev, r);
    counter_figures(m, r);
    return true;
}

static bool add_warning(analysis *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool add_warning(analysis *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = str_list_vaddf(&a->warnings, &a->nwarnings, fmt, ap);
    va_end(ap);
    return ok;
}

static bool add_warning_text(void *a, const char *text) { return add_warning(a, "%s", text); }

/* Generic OpenBLAS cores: what a build falls back to when it does not know the CPU. */
static bool generic_blas_core(const char *core)
{
    static const char *const generic[] = {"prescott", "core2", "katmai", "coppermine", "northwood",
                                          "banias", "atom", "generic", "nehalem", "penryn",
                                          "dunnington", "opteron", "barcelona", "bobcat"};
    char low[64];
    size_t i;
    for (i = 0; core[i] && i + 1 < sizeof low; i++)
        low[i] = (char)((core[i] >= 'A' && core[i] <= 'Z') ? core[i] + 32 : core[i]);
    low[i] = '\0';
    for (size_t j = 0; j < sizeof generic / sizeof generic[0]; j++)
        if (strcmp(low, generic[j]) == 0)
            return true;
    return false;
}

static bool collect_warnings(const run_model *m, analysis *a)
{
    for (int i = 0; i < m->nwarnings; i++)
        if (!add_warning(a, "%s", m->warnings[i]))
            return false;
    for (int i = 0; i < a->nincomplete; i++) {
        const incomplete_process *p = &a->incomplete[i];
        if (!add_warning(a, "process %u (%s) was killed before its last records were flushed; records incomplete: "
                            "%lld of %lld kernel launches recorded, %lld of %lld copies and %lld of %lld memsets have "
                            "their GPU records (calls made after the last flush are missing from both counts)%s",
                         p->pid, p->name, (long long)p->kernels, (long long)p->launches, (long long)p->copies,
                         (long long)p->copy_calls, (long long)p->memsets, (long long)p->memset_calls,
                         p->kernels < p->launches || p->copies < p->copy_calls || p->memsets < p->memset_calls
                             ? "; the verdicts of its regions and of the run are withheld"
                             : ""))
            return false;
    }
    const host_info *h = &m->host;
    const char *core = m->builtin.blas.core;
    if (core[0] && (h->has_avx2 || h->has_avx512f) && generic_blas_core(core))
        if (!add_warning(a, "OpenBLAS picked the generic '%s' core on a CPU with %s: sgemm runs "
                            "several times slower than it could (link the system's libopenblas.so.0)",
                         core, h->has_avx512f ? "AVX-512" : "AVX2"))
            return false;
    const collection_info *c = &m->collection;
    if (c->dropped > 0 && !add_warning(a, "CUPTI dropped %llu activity records: figures built "
                                          "from them are incomplete", (unsigned long long)c->dropped))
        return false;
    if (c->lost_timestamps > 0 &&
        !add_warning(a, "%llu kernel or copy records came without timestamps (CUPTI's device "
                        "buffer was full, or a forced flush, MMPROF_FLUSH_FORCED, cut records of kernels "
                        "still running): figures built from them are incomplete",
                     (unsigned long long)c->lost_timestamps))
        return false;
    if (c->replayed_kernels > 0 &&
        !add_warning(a, "%llu profiled launch%s (--counters) %s no place on the timeline: CUPTI gives a kernel replayed "
                        "under the counters no timestamps; %s figures are in the counters table",
                     (unsigned long long)c->replayed_kernels, c->replayed_kernels == 1 ? "" : "es",
                     c->replayed_kernels == 1 ? "has" : "have", c->replayed_kernels == 1 ? "its" : "their"))
        return false;
    if (c->source == TIMING_CUDA_EVENT &&
        !add_warning(a, "GPU times come from cudaEvents, not CUPTI: %s", c->reason))
        return false;
    if (m->builtin.gpu_skip_reason[0] && !add_warning(a, "GPU workloads skipped: %s", m->builtin.gpu_skip_reason))
        return false;
    if (!device_state_warnings(m, add_warning_text, a))
        return false;
    for (int i = 0; i < a->nwl; i++) {
        const workload_run *w = a->wl[i].w;
        char label[64];
        workload_label(w, label, sizeof label);
        /* Unverified (a NaN or infinity in the result) means no error was computed to quote. */
        if (w->status == WL_FAILED && w->verified &&
            !add_warning(a, "%s failed verification: relative error %.3g above the bound %.1g",
                         label, w->rel_error, w->error_bound))
            return false;
        if (w->status == WL_FAILED && !w->verified &&
            !add_warning(a, "%s failed verification: %s", label,
                         w->status_reason[0] ? w->status_reason : "no relative error could be computed"))
            return false;
        if (w->status == WL_ERROR && !add_warning(a, "%s did not complete: %s", label, w->status_reason))
            return false;
        for (int k = 0; k < w->nocc; k++) {
            const occupancy_check *o = &w->occ[k];
            if (w->device < 0 || w->device >= m->ndevices)
                continue;
            int blocks;
            double pct;
            char lim[32], why[96];
            if (occupancy_of(&m->devices[w->device], o->block_size, o->registers, o->static_smem,
                             o->dynamic_smem, false, &blocks, &pct, lim, sizeof lim, why, sizeof why) &&
                blocks != o->runtime_blocks_per_sm &&
                !add_warning(a, "occupancy calculator says %d blocks/SM for %s, the CUDA runtime "
                                "said %d", blocks, o->kernel, o->runtime_blocks_per_sm))
                return false;
        }
    }
    return true;
}

/* The main kernel: the one with the most time in the run (median x launches). */
static void choose_main_kernel(workload_metrics *r)
{
    r->main_kernel = -1;
    for (int j = 0; j < r->nkernels; j++) {
        const kernel_summary *s = &r->kernels[j], *k = r->main_kernel >= 0 ? &r->kernels[r->main_kernel] : NULL;
        if (s->median_ms.ok && (!k || s->median_ms.v * s->launches > k->median_ms.v * k->launches))
            r->main_kernel = j;
    }
}

/* One ladder row per GPU workload that ran: a pageable run gives way to a pinned run of the same
 * workload, or to an earlier pageable one. */
static bool ladder_row(const analysis *a, int i)
{
    const workload_run *w = a->wl[i].w;
    if (!w->needs_gpu || w->status == WL_SKIPPED)
        return false;
    for (int j = 0; j < a->nwl && w->host_memory != MEM_PINNED; j++) {
        const workload_run *o = a->wl[j].w;
        if (j != i && o->status != WL_SKIPPED && strcmp(o->name, w->name) == 0 && o->n == w->n &&
            (o->host_memory == MEM_PINNED || j < i))
            return false;
    }
    return true;
}

typedef struct {
    int index;
    double wall; /* the figure ranked by */
} ranked;

static int by_wall_desc(const void *x, const void *y)
{
    const ranked *a = x, *b = y;
    if (a->wall != b->wall)
        return a->wall < b->wall ? 1 : -1;
    return a->index - b->index;
}

static int by_index(const void *x, const void *y)
{
    return ((const ranked *)x)->index - ((const ranked *)y)->index;
}

static double gpu_time(const region_metrics *r)
{
    double launched = (r->kernel_ms.ok ? r->kernel_ms.v : 0) + (r->memcpy_ms.ok ? r->memcpy_ms.v : 0) +
                      (r->memset_ms.ok ? r->memset_ms.v : 0);
    double during = r->gpu_busy_ms.ok ? r->gpu_busy_ms.v : 0;
    return launched > during ? launched : during;
}

/* The regions summaries list: the whole run first, then the NVTX ranges, annotations and profile's
 * capture windows with GPU work (launched from them or run during them), in timeline order; when more than
 * MAX_LISTED_REGIONS have some, those with the most GPU time, most first. Ranges without GPU work
 * are counted, not listed, unless they last REGION_LIST_NO_GPU_PCT of the run: a torch.compile
 * trace opens with dozens of compiler annotations that say nothing about the GPU, but a long range
 * the GPU idled through is where the time went. A built-in run lists the run alone: its workloads have their own
 * per-product tables and verdicts, which a whole-workload region (warm-up and every repeat
 * included) would only contradict. */
/* The range groups (range_groups.h), each region's group, and each group's instances listed. */
static bool group_listed_ranges(const run_model *m, analysis *a)
{
    a->group_of = malloc((size_t)(m->nregions > 0 ? m->nregions : 1) * sizeof *a->group_of);
    if (!a->group_of || !group_ranges(m, a->rg, &a->groups, &a->ngroups, &a->group_members, a->group_of))
        return false;
    range_groups_count_listed(a->groups, a->ngroups, a->group_of, a->listed, a->nlisted);
    return true;
}

static bool choose_listed(analysis *a)
{
    const run_model *m = a->m;
    a->nlisted = 0;
    a->unlisted = 0;
    a->no_gpu_regions = 0;
    a->listed_by_gpu = false;
    if (a->nrg == 0)
        return true;
    ranked *cand = malloc((size_t)a->nrg * sizeof *cand);
    a->listed = malloc((size_t)(MAX_LISTED_REGIONS + 1) * sizeof *a->listed);
    if (!cand || !a->listed) {
        free(cand);
        return false;
    }
    int nc = 0;
    int64_t run_ns = m->regions[0].end_ns - m->regions[0].start_ns;
    for (int i = 1; i < a->nrg; i++) {
        region_kind k = m->regions[i].kind;
        if (k != REGION_NVTX && k != REGION_ANNOTATION && k != REGION_CAPTURE)
            continue;
        const region_metrics *r = &a->rg[i];
        const region *g = &m->regions[i];
        bool long_range = run_ns > 0 && 100.0 * (double)(g->end_ns - g->start_ns) >= REGION_LIST_NO_GPU_PCT * (double)run_ns;
        if (r->nkernels + r->ncopies + r->nmemsets == 0 && !r->gpu_busy_ms.ok && !long_range)
            a->no_gpu_regions++;
        else
            cand[nc++] = (ranked){i, gpu_time(r)};
    }
    int keep = nc < MAX_LISTED_REGIONS ? nc : MAX_LISTED_REGIONS;
    a->unlisted = nc - keep;
    a->listed_by_gpu = nc > MAX_LISTED_REGIONS;
    if (nc > 0)
        qsort(cand, (size_t)nc, sizeof *cand, a->listed_by_gpu ? by_wall_desc : by_index);
    a->listed[a->nlisted++] = 0;
    for (int i = 0; i < keep; i++)
        a->listed[a->nlisted++] = cand[i].index;
    free(cand);
    return true;
}

/* Each GPU's activity over time (analysis.busy): its kernels, copies and memsets, stretches
 * closer than the run's span / BUSY_SERIES_STEPS joined, each with how busy the GPU was inside. */
typedef struct {
    int64_t start, end;
    uint32_t device;
} device_interval;

static bool busy_series(analysis *a)
{
    const run_model *m = a->m;
    const event_list *e = &m->events;
    size_t n = e->nkernels + e->ncopies + e->nmemsets;
    if (n == 0 || m->nregions == 0)
        return true;
    /* As long as the run's GPU work: spill.h's */
    device_interval *dv = spill_alloc(n * sizeof *dv);
    interval *iv = spill_alloc(n * sizeof *iv);
    if (!dv || !iv) {
        spill_free(dv);
        spill_free(iv);
        return false;
    }
    size_t k = 0;
    for (size_t i = 0; i < e->nkernels; i++)
        dv[k++] = (device_interval){e->kernels[i].start_ns, e->kernels[i].end_ns, e->kernels[i].device};
    for (size_t i = 0; i < e->ncopies; i++)
        dv[k++] = (device_interval){e->copies[i].start_ns, e->copies[i].end_ns, e->copies[i].device};
    for (size_t i = 0; i < e->nmemsets; i++)
        dv[k++] = (device_interval){e->memsets[i].start_ns, e->memsets[i].end_ns, e->memsets[i].device};
    /* By device, then start (key_sort.h; qsort would copy the array) */
    const sort_field by[] = {SORT_FIELD(device_interval, device, FIELD_U32), SORT_FIELD(device_interval, start, FIELD_I64)};
    if (!key_sort_fields(dv, n, sizeof *dv, by, 2)) {
        spill_free(dv);
        spill_free(iv);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        iv[i] = (interval){dv[i].start, dv[i].end};
    const region *run = &m->regions[0];
    int64_t lo = run->start_ns, hi = run->end_ns;
    for (size_t i = 0; i < n; i++) {
        lo = dv[i].start < lo ? dv[i].start : lo;
        hi = dv[i].end > hi ? dv[i].end : hi;
    }
    int64_t step = (hi - lo) / BUSY_SERIES_STEPS + 1;
    bool ok = true;
    for (size_t i = 0; i < n && ok;) {
        /* A stretch: one device's intervals closer than a step, joined. */
        size_t j = i + 1;
        int64_t end = dv[i].end;
        while (j < n && dv[j].device == dv[i].device && dv[j].start - end < step) {
            end = dv[j].end > end ? dv[j].end : end;
            j++;
        }
        busy_span *grown = realloc(a->busy, (size_t)(a->nbusy + 1) * sizeof *grown);
        if (!grown) {
            ok = false;
            break;
        }
        a->busy = grown;
        busy_span *b = &a->busy[a->nbusy++];
        memset(b, 0, sizeof *b);
        b->device = (int)dv[i].device;
        b->start_ns = dv[i].start;
        b->end_ns = end;
        int64_t busy = interval_union(iv + i, j - i, b->start_ns, b->end_ns, NULL, 0, NULL);
        set(&b->busy_ms, (double)busy / 1e6);
        set(&b->start_ms, (double)(b->start_ns - run->start_ns) / 1e6);
        set(&b->length_ms, (double)(b->end_ns - b->start_ns) / 1e6);
        if (b->end_ns > b->start_ns)
            set(&b->busy_pct, 100.0 * (double)busy / (double)(b->end_ns - b->start_ns));
        else
            na(&b->busy_pct, "an instant");
        i = j;
    }
    spill_free(dv);
    spill_free(iv);
    return ok;
}

/* profile --counters: each profiled launch's figures. */
static bool launch_figures(analysis *a)
{
    const run_model *m = a->m;
    if (m->nlaunch_counters == 0)
        return true;
    a->launches = calloc((size_t)m->nlaunch_counters, sizeof *a->launches);
    if (!a->launches)
        return false;
    for (int i = 0; i < m->nlaunch_counters; i++)
        launch_counter_figures(&m->launch_counters[i], &a->launches[i]);
    a->nlaunches = m->nlaunch_counters;
    return true;
}

/* A --devices run's per-GPU figures. */
static bool device_figures(analysis *a)
{
    if (a->m->builtin.multi.ndevices == 0)
        return true;
    a->devices = calloc(1, sizeof *a->devices);
    return a->devices && devices_analyze(a, a->devices);
}

/* The run's idle stretches with their causes (idle_causes.h). */
static bool idle_gaps(analysis *a, const host_causes *h)
{
    return idle_stretches(a->m, h, &a->idle_gaps, &a->nidle_gaps, &a->idle_gaps_unlisted) && host_analyze(a, h);
}

/* A killed process's regions, and the run, are not judged where its GPU records are missing
 * (incomplete.h): the verdict says why instead of drawing one from what happened to arrive. */
static bool withhold_cut_verdicts(const run_model *m, analysis *a)
{
    if (!analyze_incomplete(m, &a->incomplete, &a->nincomplete))
        return false;
    for (int i = 0; a->nincomplete > 0 && i < a->nrg; i++) {
        region_metrics *r = &a->rg[i];
        const region *g = &m->regions[r->region];
        char why[VERDICT_TEXT];
        if (!incomplete_reason(a->incomplete, a->nincomplete, g->kind == REGION_RUN ? 0 : g->pid, why, sizeof why))
            continue;
        verdict v;
        not_judged(&v, why);
        r->verdict = v.kind;
        copy_str(r->verdict_text, sizeof r->verdict_text, v.text);
        copy_str(r->advice, sizeof r->advice, v.advice);
    }
    return true;
}

bool analysis_fits(const run_model *m, char *why, size_t len)
{
    size_t calls = m->events.napis + m->events.nsyncs;
    if (calls <= REGIONS_HOST_CALLS_MAX)
        return true;
    snprintf(why, len, "the run has %zu CUDA API calls and synchronizations, more than the %zu a report can take: "
             "record a part of it (mmprof profile --duration, --capture-range)", calls, (size_t)REGIONS_HOST_CALLS_MAX);
    return false;
}

/* The wall-time timeline, built on a thread of its own while the regions are. */
typedef struct {
    const run_model *m;
    const size_t *calls_by_start;
    wall_timeline *wt; /* out: NULL when memory ran out */
} wall_job;

static void build_wall(void *p)
{
    wall_job *job = p;
    job->wt = wall_timeline_build(job->m, job->calls_by_start);
}

bool analyze(const run_model *m, analysis *a)
{
    memset(a, 0, sizeof *a);
    a->m = m;
    a->peaks = calloc((size_t)(m->ndevices > 0 ? m->ndevices : 1), sizeof *a->peaks);
    a->wl = calloc((size_t)(m->builtin.nworkloads > 0 ? m->builtin.nworkloads : 1), sizeof *a->wl);
    if (!a->peaks || !a->wl) {
        analysis_free(a);
        return false;
    }
    for (int i = 0; i < m->ndevices; i++)
        a->peaks[i] = device_peaks_of(&m->devices[i]);
    counter_ceilings(m, a->peaks);
    if (m->nregions > 0 && !(a->owned = event_views(m, REGION_WORKLOAD))) {
        analysis_free(a);
        return false;
    }
    a->nwl = m->builtin.nworkloads;
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        if (!analyze_workload(m, a, &m->builtin.workloads[i], &a->wl[i])) {
            analysis_free(a);
            return false;
        }
    }
    /* Needs every workload's copies and kernel time, so after the loop above. */
    copy_bests(a);
    for (int i = 0; i < a->nwl; i++) {
        a->wl[i].library = -1;
        versus_library(a, &a->wl[i]);
        choose_main_kernel(&a->wl[i]);
        a->wl[i].ladder_row = ladder_row(a, i);
    }
    /* What the host did at each instant, built once: the regions, the idle stretches and the
     * host views all read it (a long run's millions of calls, sorted and painted). */
    host_causes *causes = NULL;
    double lap = 0;
    stage_lap(&lap, "");
    /* The run's calls in order of start, sorted once: the regions, their causes and the wall-time
     * timeline walk them. The timeline (where the wall time went: every region's verdict comes
     * from its account) needs nothing of the regions: built on a thread of its own meanwhile. */
    size_t *calls_by_start = host_calls_by_start(&m->events);
    stage_lap(&lap, "analysis: host calls by start");
    wall_job wj = {m, calls_by_start, NULL};
    stage_beside wall_step;
    if (calls_by_start)
        stage_beside_start(&wall_step, build_wall, &wj, "analysis: wall-time timeline, on its thread");
    bool ok = calls_by_start && analyze_regions_and_causes(m, &causes, &a->rg, &a->nrg, calls_by_start);
    stage_lap(&lap, "analysis: regions and host causes");
    if (calls_by_start)
        stage_beside_wait(&wall_step);
    wall_timeline *wt = wj.wt;
    spill_free(calls_by_start);
    stage_lap(&lap, "analysis: waiting for the wall-time timeline");
    ok = ok && wt && account_regions(a, wt);
    stage_lap(&lap, "analysis: wall-time accounts of the regions");
    ok = ok && withhold_cut_verdicts(m, a) && choose_listed(a) && group_listed_ranges(m, a) &&
         analyze_capture(m, a->rg, &a->capture, &a->ncapture) && account_spans(a, wt);
    ok = ok && collect_warnings(m, a) && sweep_analyze(a) && analyze_ranks(m, &a->ranks) && device_figures(a) &&
         launch_figures(a);
    stage_lap(&lap, "analysis: groups, capture, warnings");
    ok = ok && busy_series(a) && analyze_streams(m, &a->streams, &a->nstreams);
    stage_lap(&lap, "analysis: busy series and streams");
    ok = ok && idle_gaps(a, causes);
    stage_lap(&lap, "analysis: idle stretches and host views");
    ok = ok && (!wt || account_stretches(a, wt));
    wall_timeline_free(wt);
    stage_lap(&lap, "analysis: idle stretches' and the timeline's states");
    ok = ok && analyze_memory(a);
    stage_lap(&lap, "analysis: GPU memory");
    ok = ok && summarize(a);
    host_causes_free(causes);
    host_names_wait(&m->host_activity); /* the outputs read names too */
    stage_lap(&lap, "analysis: summary");
    if (!ok)
        analysis_free(a);
    return ok;
}

void analysis_free(analysis *a)
{
    if (a->wl)
        for (int i = 0; i < a->nwl; i++)
            free(a->wl[i].kernels);
    for (int i = 0; i < a->nwarnings; i++)
        free(a->warnings[i]);
    free(a->warnings);
    free(a->wl);
    free(a->peaks);
    event_views_free(a->owned, a->m ? a->m->nregions : 0);
    region_metrics_free(a->rg, a->nrg);
    free(a->listed);
    free(a->groups);
    free(a->group_members);
    free(a->group_of);
    free(a->capture);
    free(a->incomplete);
    sweep_free(a->sweep);
    rank_analysis_free(a->ranks);
    free(a->summary);
    if (a->devices)
        devices_free(a->devices);
    free(a->devices);
    free(a->launches);
    free(a->busy);
    free(a->streams);
    free(a->idle_gaps);
    host_analysis_free(a->host);
    accounts_free(a->accounts, a->naccounts);
    free(a->idle_accounts);
    free(a->bands);
    memory_analysis_free(a->memory);
    memset(a, 0, sizeof *a);
}
