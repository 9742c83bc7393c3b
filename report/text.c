/* The terminal report. Reads only the analysis (and through it the model).
 *
 * Layout, top to bottom: the header (run, GPU, host, BLAS, timing source); the sections the run
 * has data for (sections.h), in the order of builtin_parts or timeline_parts below (summary,
 * workloads, copy versus compute, verification and verdicts, kernels, ladder, counters, the
 * timeline's regions, where mmprof's own time went); the figures that could not be had (each
 * reason once); the warnings. */
#include "text.h"

#include "text_parts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_idle.h"
#include "sections.h"
#include "source.h"
#include "strbuf.h"
#include "thresholds.h"

/* Table columns for a workload: its name (the longest registered, cuda-blocktile-1d, is 17) and
 * its host memory. */
#define NAME_W "17"
#define LABEL_W "26"

/* The short workload label used in tables: name and host memory in fixed columns. */
static void row_label(const workload_run *w, char *buf, size_t len)
{
    snprintf(buf, len, "%-" NAME_W "." NAME_W "s %-8s", w->name,
             w->needs_gpu ? (w->host_memory == MEM_PINNED ? "pinned" : "pageable") : "host");
}

/* A CUDA version as CUDA encodes it (13000 = 13.0). */
static void version_str(int v, char *buf, size_t len)
{
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* Prints a header line of facts joined in b (nothing when none was known), then frees b. */
static void fact_line(ctx *x, const char *lead, strbuf *b)
{
    char *s = sb_finish(b);
    if (s && s[0]) {
        fputs(lead, x->out);
        wrapped(x, 8, s);
    }
    free(s);
}

/* What the run's record knows of a GPU, each fact only where it is known: an import may lack the
 * clock or the versions, a profiled program the runtime's, an AMD GPU has no compute capability. */
static void device_facts(const device_info *d, strbuf *b)
{
    sb_add(b, d->name);
    if (d->cc_major > 0)
        sb_printf(b, ", sm_%d%d", d->cc_major, d->cc_minor);
    if (d->sm_count > 0)
        sb_printf(b, ", %d SMs", d->sm_count);
    if (d->clock_khz > 0)
        sb_printf(b, "%s %d MHz", d->sm_count > 0 ? " at" : ", SM clock", d->clock_khz / 1000);
    if (d->total_mem > 0)
        sb_printf(b, ", %s", value_text(&report_value_table, "device_memory_gib",
                                       (double)d->total_mem / (1024.0 * 1024 * 1024), true).s);
    char v[16];
    if (d->driver_version > 0) {
        version_str(d->driver_version, v, sizeof v);
        sb_printf(b, ", driver %s", v);
    }
    if (d->runtime_version > 0) {
        version_str(d->runtime_version, v, sizeof v);
        sb_printf(b, ", runtime %s", v);
    }
}

/* Whether a device ran a kernel, copy or memset: one of its streams is in the analysis's. */
static bool device_worked(const analysis *a, int index)
{
    for (int s = 0; s < a->nstreams; s++)
        if ((int)a->streams[s].device == index)
            return true;
    return false;
}

/* The GPUs that did work, each with its facts; those the run or trace declares without any work
 * (a trace lists every GPU of its machine) are counted on one line, so that the summary is not
 * pushed below eight GPUs' facts. Where no GPU did work, every one is listed. */
static void device_lines(ctx *x, const analysis *a)
{
    const run_model *m = a->m;
    strbuf idle;
    sb_init(&idle);
    int nidle = 0;
    for (int i = 0; i < m->ndevices; i++) {
        const device_info *d = &m->devices[i];
        if (a->nstreams > 0 && !device_worked(a, d->index)) {
            sb_printf(&idle, "%s%d", nidle++ ? ", " : "", d->index);
            continue;
        }
        const device_peaks *p = &a->peaks[i];
        char lead[16], b1[32], b2[32], b3[32];
        strbuf b;
        sb_init(&b);
        device_facts(d, &b);
        /* Wrapped: some GPUs' names alone take half the width. */
        snprintf(lead, sizeof lead, "GPU %-3d ", d->index);
        fact_line(x, lead, &b);
        fprintf(x->out, "        peaks: FP32 %s, memory %s, link %s",
                fig(x, b1, sizeof b1, &device_peaks_table, p, "fp32_tflops", true),
                fig(x, b2, sizeof b2, &device_peaks_table, p, "memory_gbps", true),
                fig(x, b3, sizeof b3, &device_peaks_table, p, "link_gbps", true));
        if (p->link_gbps.ok)
            fputs(" per direction", x->out);
        if (d->pcie_gen > 0)
            fprintf(x->out, " (PCIe %d x%d)", d->pcie_gen, d->pcie_width);
        fputc('\n', x->out);
    }
    if (nidle > 0)
        fprintf(x->out, "        +%d GPU%s without work (GPU %s; the JSON report has %s facts)\n", nidle,
                nidle == 1 ? "" : "s", idle.s, nidle == 1 ? "its" : "their");
    sb_free(&idle);
}

/* The machine, where the source knows it (the built-in run and mmprof profile read it; a trace
 * does not name it). */
static void host_line(ctx *x, const host_info *h)
{
    if (!h->known)
        return;
    strbuf b;
    sb_init(&b);
    sb_add(&b, h->cpu_model);
    if (h->logical_cores > 0)
        sb_printf(&b, "%s%d logical cores", b.len ? ", " : "", h->logical_cores);
    if (h->has_avx512f || h->has_avx2)
        sb_printf(&b, "%s%s", b.len ? ", " : "", h->has_avx512f ? "AVX-512" : "AVX2");
    if (h->os[0])
        sb_printf(&b, "%s%s", b.len ? ", " : "", h->os);
    fact_line(x, "Host    ", &b);
}

/* The built-in CPU workload's library, each fact where it was read. */
static void blas_lines(ctx *x, const blas_info *l)
{
    strbuf b;
    sb_init(&b);
    bool facts = l->version[0] || l->core[0] || l->threads > 0;
    if (facts) {
        sb_add(&b, "OpenBLAS");
        if (l->version[0])
            sb_printf(&b, " %s", l->version);
        if (l->core[0])
            sb_printf(&b, ", core %s", l->core);
        if (l->threads > 0)
            sb_printf(&b, ", %d thread%s", l->threads, l->threads == 1 ? "" : "s");
    }
    fact_line(x, "BLAS    ", &b);
    /* The library's path on a line of its own: wrapped after "threads," it left a dangling comma. */
    if (l->library[0]) {
        fputs(facts ? "        " : "BLAS    ", x->out);
        wrapped(x, 8, l->library);
    }
}

static void header(ctx *x, const analysis *a)
{
    const run_model *m = a->m;
    char line[640];
    const source_desc *src = source_of(m->source);
    bool workloads = source_has(m->source, HAS_WORKLOADS);
    if (workloads) {
        char sizes[64] = "";
        int lo = m->builtin.n, hi = m->builtin.n;
        for (int i = 0; i < m->builtin.nsizes; i++) {
            lo = m->builtin.sizes[i] < lo ? m->builtin.sizes[i] : lo;
            hi = m->builtin.sizes[i] > hi ? m->builtin.sizes[i] : hi;
        }
        if (m->builtin.nsizes > 0)
            snprintf(sizes, sizeof sizes, " to %d (a sweep of %d sizes)", hi, m->builtin.nsizes);
        char size[96] = "";
        if (lo > 0)
            snprintf(size, sizeof size, ", n = %d%s", lo, sizes);
        snprintf(line, sizeof line, "C = A x B%s, FP32 row-major, seed %llu, %s", size,
                 (unsigned long long)m->builtin.seed, m->started_at);
    } else {
        snprintf(line, sizeof line, "%s %s%s%s", src->name, m->source_file,
                 m->started_at[0] ? ", recorded " : "", m->started_at);
    }
    fprintf(x->out, "%smmprof %s%s  ", c(x, BOLD), m->tool_version, c(x, RESET));
    wrapped(x, 9 + (int)strlen(m->tool_version), line);
    if (workloads) {
        if (m->builtin.max_noise_pct > 0)
            fprintf(x->out, "Sampling until noise <= %s or %s per workload and size%s\n",
                    value_text(&report_value_table, "max_noise_pct", m->builtin.max_noise_pct, true).s,
                    value_text(&report_value_table, "max_time_s", m->builtin.max_time_s, true).s,
                    m->builtin.cold_l2 ? "; L2 flushed before each timed launch" : "");
        else if (m->builtin.cold_l2)
            fprintf(x->out, "Sampling: L2 flushed before each timed launch\n");
    }
    device_lines(x, a);
    host_line(x, &m->host);
    if (workloads)
        blas_lines(x, &m->builtin.blas);
    const collection_info *ci = &m->collection;
    if (!source_has(m->source, HAS_TIMELINE))
        snprintf(line, sizeof line, "GPU: none: %s (timing figures n/a)", ci->reason);
    else if (!workloads)
        snprintf(line, sizeof line, "GPU: kernel, copy, memset and API records as the %s recorded them; "
                                    "%d process%s, %d thread%s", src->recorder,
                 m->nprocesses, m->nprocesses == 1 ? "" : "es", m->nthreads, m->nthreads == 1 ? "" : "s");
    else if (ci->source == TIMING_CUPTI)
        snprintf(line, sizeof line, "GPU: CUPTI activity records (CUPTI API %d; %llu records, %llu dropped; "
                                    "flush %s). CPU: host clock", ci->cupti_version,
                 (unsigned long long)ci->records, (unsigned long long)ci->dropped,
                 value_text(&report_value_table, "flush_ms", ci->flush_ms, true).s);
    else if (ci->source == TIMING_CUDA_EVENT)
        snprintf(line, sizeof line, "GPU: cudaEvents around each copy and launch (%s). CPU: host clock", ci->reason);
    else
        snprintf(line, sizeof line, "CPU: host clock. GPU: none (%s)", ci->reason[0] ? ci->reason : "no GPU work");
    fputs("Timing  ", x->out);
    wrapped(x, 8, line);
    /* How the host was seen (host_idle.h), where the run carries host activity. */
    const host_activity *h = &m->host_activity;
    if (!host_activity_present(h) || !a->host)
        return;
    const host_collection *hc = &a->host->collection;
    const metric_table *t = &host_collection_table;
    char f1[32], f2[32], f3[32];
    if (h->nsamples > 0)
        snprintf(line, sizeof line, "samples: %s Python wall-clock, %s CPU (%.60s, %s)%s%.200s",
                 fig(x, f1, sizeof f1, t, hc, "py_samples", false), fig(x, f2, sizeof f2, t, hc, "cpu_samples", false),
                 h->mechanism[0] ? h->mechanism : "sampler not named", fig(x, f3, sizeof f3, t, hc, "rate_hz", true),
                 h->why_not[0] ? "; " : "", h->why_not);
    else if (h->why_not[0])
        snprintf(line, sizeof line, "no samples: sampling off (%.200s)", h->why_not);
    else
        snprintf(line, sizeof line, "no samples");
    size_t n = strlen(line);
    if (hc->nogil_pct.ok)
        snprintf(line + n, sizeof line - n, "; Python looks %s without the GIL, %s samples left out, %s torn",
                 fig(x, f1, sizeof f1, t, hc, "nogil_pct", true), fig(x, f2, sizeof f2, t, hc, "left_out", false),
                 fig(x, f3, sizeof f3, t, hc, "torn", false));
    n = strlen(line);
    if (h->nspans > 0)
        snprintf(line + n, sizeof line - n, "; %zu CPU spans", h->nspans);
    n = strlen(line);
    snprintf(line + n, sizeof line - n, "; %s launch call sites", fig(x, f1, sizeof f1, t, hc, "sites", false));
    n = strlen(line);
    /* Sites held to their cost are a sample of the calls: the shares of "Launched from" are of it. */
    if (hc->sites_pct.ok && hc->sites_pct.v < SITES_ALL_PCT)
        snprintf(line + n, sizeof line - n, " (for %s of the GPU work%s)", fig(x, f2, sizeof f2, t, hc, "sites_pct", true),
                 host_sites_held(hc) ? ": the rest left without one to hold their cost to 1% of the program's time" : "");
    fputs("Host    ", x->out);
    wrapped(x, 8, line);
}

/* In a sweep, a line naming the size before the first row of each size. */
static void size_heading(ctx *x, const analysis *a, const workload_run *w, int *last_n)
{
    if (a->m->builtin.nsizes > 0 && w->n != *last_n)
        fprintf(x->out, "%sn = %d%s\n", c(x, BOLD), w->n, c(x, RESET));
    *last_n = w->n;
}

/* In a --devices run, a line naming the GPU and the pass before the first row of each. */
static void pass_heading(ctx *x, const workload_run *w, int *last)
{
    int key = w->pass == PASS_ALONE ? -1 : w->device * 4 + (int)w->pass;
    if (key >= 0 && key != *last)
        fprintf(x->out, "%sGPU %d, %s%s\n", c(x, BOLD), w->device,
                w->pass == PASS_SEQUENTIAL ? "alone (one GPU after another)" : "together (every GPU at once)",
                c(x, RESET));
    *last = key;
}

/* Why sampling stopped, as one mark after the noise: blank when the noise fell under the limit. */
static char stop_mark(const workload_run *w)
{
    switch (w->stopped_by) {
    case STOP_TIME: return 't';
    case STOP_MAX_SAMPLES: return 'c';
    case STOP_REPEAT: return 'r';
    default: return ' ';
    }
}

/* The workload table's figures after R, in order; %peak and busy are the GPU's ("-" on the
 * CPU), and the noise is followed by the mark of what ended sampling. */
static const text_col workload_cols[] = {
    {"kernel_ms", 9, false}, {"noise_pct", 6, true}, {"tflops", 7, false}, {"peak_pct", 6, false},
    {"tflops_e2e", 8, false}, {"speedup_vs_cpu", 8, true}, {"busy_pct", 6, false}, {"speedup_vs_cpu_e2e", 8, true},
};

static void workload_table(ctx *x, const analysis *a)
{
    fprintf(x->out, "\n%sWorkloads%s  one product: kernel = median of the R timed launches; "
                    "e2e adds copying A, B in and C out\n", c(x, BOLD), c(x, RESET));
    fprintf(x->out, "noise = stdev / mean of the R samples; t: --max-time ended sampling, c: the cap, "
                    "r: --repeat\n");
    fprintf(x->out, "%%peak = of the FP32 lanes' peak; a tf32 workload's, of the TF32 tensor-core peak\n");
    fprintf(x->out, "%s%-" LABEL_W "s %4s %9s %7s %7s %6s %8s %8s %6s %8s%s\n", c(x, DIM), "workload", "R",
            "kernel ms", "noise", "TFLOP/s", "%peak", "e2e TF/s", "vs CPU", "busy%", "e2e/CPU", c(x, RESET));
    int last_n = 0, last_pass = -1;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        const workload_run *w = r->w;
        char label[40];
        row_label(w, label, sizeof label);
        size_heading(x, a, w, &last_n);
        pass_heading(x, w, &last_pass);
        if (w->status == WL_SKIPPED) {
            /* One line per skipped workload, whatever its memory kinds; the reason is a warning. */
            bool listed = false;
            for (int j = 0; j < i; j++)
                listed |= a->wl[j].w->status == WL_SKIPPED && strcmp(a->wl[j].w->name, w->name) == 0;
            if (!listed)
                fprintf(x->out, "%-" NAME_W "s %-8s %sskipped%s (see Warnings)\n", w->name, "-", c(x, YELLOW), c(x, RESET));
            continue;
        }
        if (w->status == WL_ERROR) {
            fprintf(x->out, "%-" LABEL_W "s %serror%s (see Verification)\n", label, c(x, RED), c(x, RESET));
            continue;
        }
        fprintf(x->out, "%-" LABEL_W "s %4d", label, w->repeat);
        for (size_t k = 0; k < sizeof workload_cols / sizeof workload_cols[0]; k++) {
            const text_col *col = &workload_cols[k];
            bool gpu_only = strcmp(col->key, "peak_pct") == 0 || strcmp(col->key, "busy_pct") == 0;
            if (gpu_only && !w->needs_gpu)
                fprintf(x->out, " %*s", col->width, "-");
            else
                fig_cell(x, &workload_metric_table, r, col);
            if (strcmp(col->key, "noise_pct") == 0)
                fputc(stop_mark(w), x->out);
        }
        fputc('\n', x->out);
    }
}

/* Per product, for each GPU workload that ran. */
static const text_col copy_cols[] = {
    {"h2d_ms", 7, false}, {"h2d_gbps", 6, false}, {"h2d_link_pct", 5, false}, {"d2h_ms", 7, false},
    {"d2h_gbps", 6, false}, {"d2h_link_pct", 5, false}, {"kernel_ms", 9, false},
    {"copy_compute_ratio_per_product", 9, false}, {"e2e_ms", 8, false},
};

static void copy_table(ctx *x, const analysis *a)
{
    fprintf(x->out, "\n%sCopy versus compute%s  per product; %%link is GB/s over the link's ceiling\n",
            c(x, BOLD), c(x, RESET));
    fprintf(x->out, "%s%-" LABEL_W "s %7s %6s %5s %7s %6s %5s %9s %9s %8s%s\n", c(x, DIM), "workload", "H2D ms",
            "GB/s", "%link", "D2H ms", "GB/s", "%link", "kernel ms", "copy:kern", "e2e ms", c(x, RESET));
    int last_n = 0;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        const workload_run *w = r->w;
        if (!w->needs_gpu || w->status == WL_SKIPPED || w->status == WL_ERROR)
            continue;
        char label[40];
        row_label(w, label, sizeof label);
        size_heading(x, a, w, &last_n);
        fprintf(x->out, "%-" LABEL_W "s", label);
        fig_cells(x, &workload_metric_table, r, copy_cols, (int)(sizeof copy_cols / sizeof copy_cols[0]));
        fputc('\n', x->out);
    }
    char b1[24], b2[24];
    fprintf(x->out, "fastest measured: H2D %s, D2H %s\n",
            fig(x, b1, sizeof b1, &run_metric_table, a, "fastest_h2d_gbps", true),
            fig(x, b2, sizeof b2, &run_metric_table, a, "fastest_d2h_gbps", true));
}

static void verdicts(ctx *x, const analysis *a)
{
    fprintf(x->out, "\n%sVerification and verdicts%s  relative Frobenius error against an FP64 "
                    "OpenBLAS product\n", c(x, BOLD), c(x, RESET));
    int last_n = 0;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        const workload_run *w = r->w;
        char label[40], err[2 * sizeof(num_text) + 8] = "-";
        if (w->status == WL_SKIPPED)
            continue;
        row_label(w, label, sizeof label);
        size_heading(x, a, w, &last_n);
        if (w->verified)
            snprintf(err, sizeof err, "%s %s %s", value_text(&report_value_table, "rel_error", w->rel_error, false).s,
                     w->status == WL_FAILED ? ">" : "<=",
                     value_text(&report_value_table, "error_bound", w->error_bound, false).s);
        const char *col = w->status == WL_OK ? GREEN : (w->status == WL_SKIPPED ? YELLOW : RED);
        fprintf(x->out, "%-" LABEL_W "s %s%-7s%s %-18s %s%s%s\n", label, c(x, col), status_name(w->status), c(x, RESET),
                err, c(x, BOLD), verdict_name(r->verdict), c(x, RESET));
        if (w->needs_gpu && w->status != WL_SKIPPED) {
            fputs("    ", x->out);
            wrapped(x, 4, w->status == WL_OK ? r->verdict_text : w->status_reason);
        }
    }
}




/* One row per kernel name per workload; the pageable and pinned runs of a workload launch the
 * same kernels, so only the first run of each workload name is listed. */
static void kernel_table(ctx *x, const analysis *a)
{
    bool any = false;
    for (int i = 0; i < a->nwl; i++)
        any |= a->wl[i].nkernels > 0;
    if (!any)
        return;
    fprintf(x->out, "\n%sKernels%s  median over the compute phase; theoretical occupancy "
                    "(cuda_occupancy.h); smem per block\n", c(x, BOLD), c(x, RESET));
    fprintf(x->out, "%s%-33s %5s %9s %9s %7s %4s %7s %5s %s%s\n", c(x, DIM), "kernel", "runs", "median ms",
            "grid", "block", "regs", "smem", "occ%", "limited by", c(x, RESET));
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen |= strcmp(a->wl[j].w->name, r->w->name) == 0 && a->wl[j].nkernels > 0;
        if (seen || r->nkernels == 0)
            continue;
        fprintf(x->out, "%s\n", r->w->name);
        for (int k = 0; k < r->nkernels; k++) {
            const kernel_summary *s = &r->kernels[k];
            char name[256], grid[24], block[24], regs[8] = "n/a", smem[16] = "n/a", occ[16], med[24], lim[32];
            const metric_table *t = &kernel_summary_table;
            kernel_display_name(s->name, name, sizeof name);
            dims(s->grid, grid, sizeof grid);
            dims(s->block, block, sizeof block);
            if (s->has_resources) {
                snprintf(regs, sizeof regs, "%d", s->registers);
                smem_str(s->static_smem + s->dynamic_smem, smem, sizeof smem);
            }
            fig(x, occ, sizeof occ, t, s, "occupancy_pct", false);
            fig(x, med, sizeof med, t, s, "median_ms", false);
            /* A name longer than its column gets a line of its own, cut with a mark past it. */
            if (strlen(name) > 31) {
                char line[128];
                clipped(name, TEXT_WIDTH - 2, line, sizeof line);
                fprintf(x->out, "  %s\n", line);
                name[0] = '\0';
            }
            fprintf(x->out, "  %-31.31s %5d %9s %9s %7s %4s %7s %5s %s\n", name, s->launches, med, grid, block,
                    regs, smem, occ, s->occupancy_pct.ok ? short_limiter(s->limiter, lim, sizeof lim) : "-");
        }
    }
}

/* The kernel ladder: every GPU workload's throughput beside cuBLAS's in the same precision, with
 * the theoretical occupancy of its main kernel and what limits it, so a reader sees what each
 * step bought and why. One row per workload: its pinned run, or its pageable one when it has no
 * pinned run. The bar is % of cuBLAS, one mark per 5%. */
static void ladder_table(ctx *x, const analysis *a)
{
    int rows = 0;
    for (int i = 0; i < a->nwl; i++)
        rows += a->wl[i].w->needs_gpu && a->wl[i].w->status != WL_SKIPPED;
    if (rows < 2)
        return;
    fprintf(x->out, "\n%sLadder%s  %%cuBLAS = cuBLAS's kernel time over this one's, same precision; "
                    "occupancy of the main kernel\n", c(x, BOLD), c(x, RESET));
    /* With counters, the achieved occupancy and the bound follow (the theoretical figures stay). */
    bool ctr = a->m->counters.asked && !a->m->counters.why[0];
    fprintf(x->out, "%s%-17s %-4s %8s %6s %8s %-21s %5s %6s %s%s%s\n", c(x, DIM), "workload", "prec", "TFLOP/s",
            "%peak", "%cuBLAS", "", "occ%", "blk/SM", "limited by", ctr ? "  ach.occ% bound" : "", c(x, RESET));
    int last_n = 0;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        const workload_run *w = r->w;
        if (!w->needs_gpu || w->status == WL_SKIPPED)
            continue;
        if (!r->ladder_row)
            continue;
        size_heading(x, a, w, &last_n);
        if (w->status != WL_OK) {
            fprintf(x->out, "%-17.17s %-4s %s%s%s\n", w->name, precision_name(w->prec), c(x, RED),
                    status_name(w->status), c(x, RESET));
            continue;
        }
        const kernel_summary *k = r->main_kernel >= 0 ? &r->kernels[r->main_kernel] : NULL;
        char b[4][24], bar[24] = "", blocks[16] = "-", lim[32] = "-";
        if (r->vs_cublas_pct.ok) {
            int marks = (int)lround(r->vs_cublas_pct.v / 5.0);
            marks = marks < 0 ? 0 : (marks > 20 ? 20 : marks);
            memset(bar, '#', (size_t)marks);
            bar[marks] = '\0';
            if (r->vs_cublas_pct.v > 100.0 + LIBRARY_TIE_PCT) /* faster than the library */
                strcat(bar, "+");
        }
        if (k && k->occupancy_pct.ok) {
            snprintf(blocks, sizeof blocks, "%d", k->active_blocks);
            short_limiter(k->limiter, lim, sizeof lim);
        }
        char ach[24] = "", bound[40] = "";
        if (ctr && r->bound != BOUND_NONE) {
            fig(x, ach, sizeof ach, &workload_metric_table, r, "achieved_occupancy_pct", false);
            snprintf(bound, sizeof bound, "%s", bound_name(r->bound));
        }
        fprintf(x->out, "%-17.17s %-4s %8s %6s %8s %-21s %5s %6s %s", w->name, precision_name(w->prec),
                fig(x, b[0], 24, &workload_metric_table, r, "tflops", false),
                fig(x, b[1], 24, &workload_metric_table, r, "peak_pct", false),
                fig(x, b[2], 24, &workload_metric_table, r, "vs_cublas_pct", false), bar,
                k ? fig(x, b[3], 24, &kernel_summary_table, k, "occupancy_pct", false) : "-", blocks, lim);
        if (ctr)
            fprintf(x->out, "%*s %8s %s", 10 - (int)strlen(lim), "", ach, bound);
        fputc('\n', x->out);
    }
}

static void tool_time(ctx *x, const analysis *a)
{
    const run_model *m = a->m;
    fprintf(x->out, "\n%smmprof's own time%s ", c(x, BOLD), c(x, RESET));
    int col = 18;
    for (int i = 0; i < m->builtin.ntool_phases; i++) {
        char item[64];
        snprintf(item, sizeof item, "%s %s", m->builtin.tool_phases[i].name,
                 value_text(&report_value_table, "tool_phase_ms",
                            (double)(m->builtin.tool_phases[i].end_ns - m->builtin.tool_phases[i].start_ns) / 1e6, true).s);
        if (i > 0) {
            fputs(",", x->out);
            col++;
            if (col + 1 + (int)strlen(item) > TEXT_WIDTH) {
                fputs("\n   ", x->out);
                col = 3;
            }
            fputc(' ', x->out);
            col++;
        }
        fputs(item, x->out);
        col += (int)strlen(item);
    }
    fputc('\n', x->out);
}

/* The answer first: the analysis's findings, heaviest first, one numbered paragraph each. */
static void summary(ctx *x, const analysis *a)
{
    fprintf(x->out, "\n%sSummary%s\n", c(x, BOLD), c(x, RESET));
    for (int i = 0; i < a->nsummary; i++) {
        fprintf(x->out, "%2d. ", i + 1);
        wrapped(x, 4, a->summary[i].text);
    }
}

/* Every figure that could not be had, each reason once: after the tables that noted them. */
static void not_available(ctx *x)
{
    if (x->nna == 0)
        return;
    fprintf(x->out, "\n%sNot available%s\n", c(x, BOLD), c(x, RESET));
    for (int i = 0; i < x->nna; i++) {
        fputs("  n/a ", x->out);
        wrapped(x, 6, x->na[i]);
    }
}

static void warnings(ctx *x, const analysis *a)
{
    fprintf(x->out, "\n%sWarnings%s\n", c(x, BOLD), c(x, RESET));
    for (int i = 0; i < a->nwarnings; i++) {
        fprintf(x->out, "  %s!%s ", c(x, YELLOW), c(x, RESET));
        wrapped(x, 4, a->warnings[i]);
    }
}

/* A part of the report and the section whose data it shows (sections.h decides whether the run
 * has it); a section may have more than one part (the workloads' table and their verification). */
typedef struct {
    section_id section;
    void (*render)(ctx *x, const analysis *a);
} text_part;

/* A built-in run leads with its workloads; the run as a timeline follows its GPU tables. */
static const text_part builtin_parts[] = {
    {SEC_FINDINGS, summary},       {SEC_SWEEP, text_sweep},       {SEC_WORKLOADS, workload_table},
    {SEC_DEVICES, text_devices},   {SEC_COPIES, copy_table},      {SEC_WORKLOADS, verdicts},
    {SEC_KERNELS, kernel_table},   {SEC_LADDER, ladder_table},    {SEC_COUNTERS, text_counters},
    {SEC_REGIONS, text_regions},   {SEC_RANKS, text_ranks},       {SEC_TOOL_TIME, tool_time},
    {SEC_ACCOUNT, text_account},
};

/* A timeline (a profiled program, an imported trace) leads with its regions and ranks. */
static const text_part timeline_parts[] = {
    {SEC_FINDINGS, summary},       {SEC_ACCOUNT, text_account},   {SEC_SWEEP, text_sweep},
    {SEC_REGIONS, text_regions},   {SEC_CALL_SITES, text_sites},  {SEC_MEMORY, text_memory},
    {SEC_RANKS, text_ranks},       {SEC_WORKLOADS, workload_table}, {SEC_DEVICES, text_devices},
    {SEC_COPIES, copy_table},      {SEC_WORKLOADS, verdicts},     {SEC_KERNELS, kernel_table},
    {SEC_LADDER, ladder_table},    {SEC_COUNTERS, text_counters}, {SEC_TOOL_TIME, tool_time},
};

void render_text(const analysis *a, FILE *out, bool color)
{
    ctx x;
    memset(&x, 0, sizeof x);
    x.out = out;
    x.color = color;
    header(&x, a);
    bool builtin = source_has(a->m->source, HAS_WORKLOADS);
    const text_part *parts = builtin ? builtin_parts : timeline_parts;
    size_t nparts = builtin ? sizeof builtin_parts / sizeof builtin_parts[0] : sizeof timeline_parts / sizeof timeline_parts[0];
    for (size_t i = 0; i < nparts; i++)
        if (section_shown(a, parts[i].section))
            parts[i].render(&x, a);
    not_available(&x);
    if (section_shown(a, SEC_WARNINGS))
        warnings(&x, a);
}
