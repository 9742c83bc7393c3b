/* The HTML report: fills templates/report.html's {{slots}} from the analysis. The template sets
 * the page's layout and headings; this file writes the header, warnings, summary cards and kernel
 * table, html_charts.c the SVG charts. See html.h.
 *
 * Every string that came from outside the program (kernel names, paths, the command line, device
 * and CPU names, warnings) goes through sb_html, so a kernel named "<script>" shows as text. */
#include "html.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html_parts.h"
#include "templates.h" /* generated from templates/ by templates/embed.sh */

static void version_str(int v, char *buf, size_t len)
{
    if (v > 0)
        snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
    else
        snprintf(buf, len, "unknown");
}

/* One fact of the header: a term and its already-built HTML. */
static void fact_open(html_ctx *x, const char *term, const char *cls)
{
    sb_printf(x->b, "<div%s%s%s><dt>%s</dt><dd>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "", term);
}

static void fact_close(html_ctx *x)
{
    sb_add(x->b, "</dd></div>\n");
}

/* "2026-11-29T15:46:18Z" reads as "2026-11-29 15:46:18 UTC". */
static void readable_date(const char *iso, char *buf, size_t len)
{
    snprintf(buf, len, "%s", iso);
    char *t = strchr(buf, 'T');
    if (t)
        *t = ' ';
    size_t n = strlen(buf);
    if (n > 0 && buf[n - 1] == 'Z') {
        buf[n - 1] = '\0';
        strncat(buf, " UTC", len - strlen(buf) - 1);
    }
}

static void sec_header(html_ctx *x)
{
    const run_model *m = x->a->m;
    char date[48];
    readable_date(m->started_at, date, sizeof date);
    sb_add(x->b, "<div class=\"title\"><h1>mmprof <span class=\"what\">");
    if (m->source == SOURCE_BUILTIN) {
        sb_add(x->b, "C = A &times; B, ");
        html_run_sizes(x->b, m);
        sb_add(x->b, ", FP32</span></h1><p class=\"sub\">");
    } else {
        sb_printf(x->b, "%s ", html_source_words(m));
        sb_html(x->b, m->source_file);
        sb_add(x->b, "</span></h1><p class=\"sub\">");
    }
    if (m->ndevices > 0)
        sb_html(x->b, m->devices[0].name);
    else
        sb_add(x->b, "no GPU");
    sb_add(x->b, " &middot; ");
    sb_html(x->b, date);
    sb_add(x->b, " &middot; mmprof ");
    sb_html(x->b, m->tool_version);
    sb_add(x->b, "</p></div>\n");
    if (x->a->nwarnings > 0)
        sb_printf(x->b, "<p class=\"alert\">%d warning%s about this run: <a href=\"#warnings\">see Warnings</a></p>\n",
                  x->a->nwarnings, x->a->nwarnings == 1 ? "" : "s");
    /* The run's facts matter less than its findings: folded, one click away (open in print). */
    sb_add(x->b, "<details class=\"runfacts\"><summary>Run details: GPU, host, BLAS, timing, command</summary>\n"
                 "<dl class=\"facts\">\n");

    for (int i = 0; i < m->ndevices; i++) {
        const device_info *d = &m->devices[i];
        char drv[16], rt[16];
        version_str(d->driver_version, drv, sizeof drv);
        version_str(d->runtime_version, rt, sizeof rt);
        char term[24];
        snprintf(term, sizeof term, "GPU %d", d->index);
        fact_open(x, term, NULL);
        sb_html_printf(x->b, "%s, sm_%d%d, %d SMs at %d MHz, %.1f GiB", d->name, d->cc_major,
                       d->cc_minor, d->sm_count, d->clock_khz / 1000,
                       (double)d->total_mem / (1024.0 * 1024 * 1024));
        if (d->pcie_gen > 0)
            sb_printf(x->b, ", PCIe %d x%d", d->pcie_gen, d->pcie_width);
        fact_close(x);
        fact_open(x, "Driver / CUDA", NULL);
        sb_printf(x->b, "driver %s, CUDA runtime %s", drv, rt);
        fact_close(x);
        const device_peaks *p = &x->a->peaks[i];
        fact_open(x, "Peaks", NULL);
        sb_add(x->b, "FP32 ");
        html_metric(x, &p->fp32_tflops, "%.1f", " TFLOP/s", "FP32 peak");
        sb_add(x->b, " &middot; memory ");
        html_metric(x, &p->hbm_gbps, "%.0f", " GB/s", "memory peak");
        sb_add(x->b, " &middot; link ");
        html_metric(x, &p->link_gbps, "%.1f", " GB/s", "link peak");
        sb_add(x->b, " per direction");
        fact_close(x);
    }
    if (m->ndevices == 0) {
        fact_open(x, "GPU", NULL);
        sb_add(x->b, "none");
        if (m->builtin.gpu_skip_reason[0]) {
            sb_add(x->b, " (");
            sb_html(x->b, m->builtin.gpu_skip_reason);
            sb_add(x->b, ")");
        }
        fact_close(x);
    }

    const host_info *h = &m->host;
    const blas_info *l = &m->builtin.blas;
    fact_open(x, "Host CPU", NULL);
    sb_html_printf(x->b, "%s, %d logical cores%s", h->cpu_model[0] ? h->cpu_model : "unknown CPU", h->logical_cores,
                   h->has_avx512f ? ", AVX-512" : (h->has_avx2 ? ", AVX2" : ""));
    if (h->os[0]) {
        sb_add(x->b, " &middot; ");
        sb_html(x->b, h->os);
    }
    fact_close(x);
    fact_open(x, "BLAS", NULL);
    sb_html_printf(x->b, "OpenBLAS %s, core %s, %d threads", l->version[0] ? l->version : "?",
                   l->core[0] ? l->core : "?", l->threads);
    if (l->library[0]) {
        sb_add(x->b, " <code class=\"path\">");
        sb_html(x->b, l->library);
        sb_add(x->b, "</code>");
    }
    fact_close(x);

    fact_open(x, "Matrix", NULL);
    html_run_sizes(x->b, m);
    sb_printf(x->b, ", FP32 row-major, seed %llu; repeats ", (unsigned long long)m->builtin.seed);
    if (m->builtin.repeat_requested > 0)
        sb_printf(x->b, "%d", m->builtin.repeat_requested);
    else if (m->builtin.max_noise_pct > 0)
        sb_printf(x->b, "sampled until the noise is at most %.2f%% or %.2f s passed", m->builtin.max_noise_pct, m->builtin.max_time_s);
    else
        sb_add(x->b, "chosen per workload");
    if (m->builtin.cold_l2)
        sb_add(x->b, "; L2 flushed before each timed launch");
    if (m->builtin.host_memory_requested[0]) {
        sb_add(x->b, "; host memory ");
        sb_html(x->b, m->builtin.host_memory_requested);
    }
    fact_close(x);

    const collection_info *ci = &m->collection;
    fact_open(x, "Timing", NULL);
    if (ci->source == TIMING_CUPTI)
        sb_printf(x->b, "CUPTI activity records (API %d): %llu records, %llu dropped, flush %.1f ms",
                  ci->cupti_version, (unsigned long long)ci->records, (unsigned long long)ci->dropped, ci->flush_ms);
    else if (ci->source == TIMING_CUDA_EVENT)
        sb_html_printf(x->b, "cudaEvents around each copy and launch (%s)", ci->reason);
    else
        sb_html_printf(x->b, "host clock only (%s)", ci->reason[0] ? ci->reason : "no GPU work");
    fact_close(x);

    fact_open(x, "Date", NULL);
    sb_html(x->b, date);
    fact_close(x);
    fact_open(x, "Tool", NULL);
    sb_add(x->b, "mmprof ");
    sb_html(x->b, m->tool_version);
    sb_printf(x->b, ", run file schema %d", m->schema_version);
    fact_close(x);
    fact_open(x, "Command", "wide");
    sb_add(x->b, "<code>");
    sb_html(x->b, m->command_line ? m->command_line : "(not recorded)");
    sb_add(x->b, "</code>");
    fact_close(x);
    sb_add(x->b, "</dl></details>\n");
}

/* The deciding figure of a finding, in its unit. */
static void finding_figure(html_ctx *x, const finding *f)
{
    const char *u = f->unit;
    if (strcmp(u, "x") == 0)
        sb_printf(x->b, "%.1f&times;", f->figure.v);
    else if (strcmp(u, "%") == 0)
        sb_printf(x->b, "%.1f%%", f->figure.v);
    else if (strcmp(u, "ms") == 0)
        sb_printf(x->b, "%.3f<small> ms</small>", f->figure.v);
    else {
        sb_printf(x->b, "%.0f<small> ", f->figure.v);
        sb_html(x->b, u);
        sb_add(x->b, "</small>");
    }
}

/* The answer first: the analysis's findings, heaviest first, each led by its deciding figure. */
static void sec_findings(html_ctx *x)
{
    const analysis *a = x->a;
    if (a->nsummary == 0) {
        sb_add(x->b, "<p class=\"quiet\">Nothing to summarise: the run recorded no work.</p>\n");
        return;
    }
    sb_add(x->b, "<ol class=\"findings\">\n");
    for (int i = 0; i < a->nsummary; i++) {
        const finding *f = &a->summary[i];
        sb_printf(x->b, "<li class=\"f-%s\"><span class=\"fig\">", finding_kind_name(f->kind));
        finding_figure(x, f);
        sb_add(x->b, "</span><span class=\"ftext\">");
        sb_html(x->b, f->text);
        sb_add(x->b, "</span></li>\n");
    }
    sb_add(x->b, "</ol>\n");
}

static void sec_warnings(html_ctx *x)
{
    const analysis *a = x->a;
    if (a->nwarnings == 0) {
        sb_add(x->b, "<p class=\"quiet\">None: no dropped records, no timing fallback, no failed verification.</p>\n");
        return;
    }
    sb_add(x->b, "<ul class=\"warnings\">\n");
    for (int i = 0; i < a->nwarnings; i++) {
        sb_add(x->b, "<li>");
        sb_html(x->b, a->warnings[i]);
        sb_add(x->b, "</li>\n");
    }
    sb_add(x->b, "</ul>\n");
}

static void verification(html_ctx *x, const workload_run *w)
{
    if (w->verified) {
        bool ok = w->status == WL_OK;
        sb_printf(x->b, "<span class=\"%s\">%s %.1e %s %.0e</span>", ok ? "pass" : "fail", ok ? "&#10003;" : "&#10007;",
                  w->rel_error, ok ? "&le;" : "&gt;", w->error_bound);
    } else {
        sb_printf(x->b, "<span class=\"%s\">not verified</span>", w->status == WL_OK ? "quiet" : "fail");
    }
}

/* A bar for a percentage (clamped to 0..100 for drawing; the number says the truth). */
static void pct_bar(html_ctx *x, double pct)
{
    double w = pct < 0 ? 0 : (pct > 100 ? 100 : pct);
    sb_printf(x->b, "<span class=\"pbar\"><span style=\"width:%.1f%%\"></span></span>", w);
}

static void card(html_ctx *x, const workload_metrics *r)
{
    const workload_run *w = r->w;
    bool gpu = w->needs_gpu;
    sb_printf(x->b, "<article class=\"card v-%s%s\" data-status=\"%s\">\n<header>", verdict_name(r->verdict),
              gpu ? "" : " wide", status_name(w->status));
    html_workload_label(x, w);
    if (x->a->m->builtin.nsizes > 0)
        sb_printf(x->b, " <span class=\"quiet\">n = %d</span>", w->n);
    if (gpu && r->verdict != VERDICT_NONE)
        sb_printf(x->b, "<span class=\"verdict %s\">%s</span>", verdict_name(r->verdict), verdict_name(r->verdict));
    else if (!gpu && w->status == WL_OK)
        sb_add(x->b, "<span class=\"verdict none\">CPU baseline</span>");
    sb_add(x->b, "</header>\n");
    if (w->status == WL_SKIPPED || w->status == WL_ERROR) {
        sb_printf(x->b, "<p class=\"status %s\">%s: ", w->status == WL_SKIPPED ? "quiet" : "fail",
                  w->status == WL_SKIPPED ? "skipped" : "error");
        sb_html(x->b, w->status_reason);
        sb_add(x->b, "</p>\n</article>\n");
        return;
    }
    /* Left: the one number a reader wants first. Right: how it splits and whether it is right. */
    sb_add(x->b, "<div class=\"body\"><div class=\"big\">");
    html_metric_inline(x, &r->e2e_ms, "%.3f", " ms", "end-to-end time");
    sb_printf(x->b, "<span class=\"lbl\">%s</span></div>\n<dl class=\"kv\">",
              gpu ? "end to end per product" : "per product on the CPU");
    char gf[32];
    if (gpu) {
        sb_add(x->b, "<dt>kernel</dt><dd>");
        html_metric_inline(x, &r->kernel_ms, "%.3f", " ms", "kernel time");
        sb_printf(x->b, " <span class=\"quiet\">median of %d, spread</span> ", w->repeat);
        html_metric(x, &r->kernel_spread_pct, "%.1f", "%", "kernel spread");
        sb_add(x->b, "</dd>");
    }
    sb_add(x->b, "<dt>noise</dt><dd>");
    html_metric_inline(x, &r->noise_pct, "%.2f", "%", "noise (stdev / mean)");
    if (w->stopped_by != STOP_UNKNOWN)
        sb_printf(x->b, " <span class=\"quiet\">&middot; %d sample%s, stopped by %s</span>", w->repeat,
                  w->repeat == 1 ? "" : "s", sample_stop_name(w->stopped_by));
    sb_add(x->b, "</dd><dt>GFLOP/s</dt><dd>");
    if (r->tflops.ok) {
        html_thousands(r->tflops.v * 1000, gf, sizeof gf);
        sb_printf(x->b, "<span class=\"num\">%s</span>", gf);
        if (gpu && r->tflops_e2e.ok) {
            html_thousands(r->tflops_e2e.v * 1000, gf, sizeof gf);
            sb_printf(x->b, " <span class=\"quiet\">&middot; %s end to end</span>", gf);
        }
    } else {
        html_metric_inline(x, &r->tflops, "%.0f", "", "GFLOP/s");
    }
    sb_add(x->b, "</dd>");
    if (gpu) {
        sb_add(x->b, "<dt>FP32 peak</dt><dd>");
        if (r->peak_pct.ok)
            pct_bar(x, r->peak_pct.v);
        html_metric_inline(x, &r->peak_pct, "%.1f", "%", "% of FP32 peak");
        sb_add(x->b, "</dd><dt>copies</dt><dd>");
        html_metric_inline(x, &r->copy_ms, "%.3f", " ms", "copy time");
        sb_add(x->b, " <span class=\"quiet\">&middot; copy:compute</span> ");
        html_metric(x, &r->copy_compute_ratio, "%.2f", "", "copy:compute");
        sb_add(x->b, "</dd><dt>link</dt><dd>H2D ");
        html_metric(x, &r->h2d_link_pct, "%.0f", "%", "H2D %link");
        sb_add(x->b, " <span class=\"quiet\">&middot;</span> D2H ");
        html_metric(x, &r->d2h_link_pct, "%.0f", "%", "D2H %link");
        sb_add(x->b, " <span class=\"quiet\">of the PCIe ceiling</span></dd>");
    }
    sb_add(x->b, "<dt>verified</dt><dd>");
    verification(x, w);
    sb_add(x->b, "</dd></dl></div>\n");
    if (gpu) {
        sb_add(x->b, "<p class=\"why\">");
        sb_html(x->b, w->status == WL_OK ? r->verdict_text : w->status_reason);
        sb_add(x->b, "</p>\n");
    } else if (w->status == WL_OK) {
        sb_add(x->b, "<p class=\"why\">The baseline every speedup on this page is measured against.</p>\n");
    }
    sb_add(x->b, "</article>\n");
}

static void sec_summary(html_ctx *x)
{
    if (html_builtin_only(x))
        return;
    if (x->a->nwl == 0) {
        sb_add(x->b, "<p class=\"quiet\">The run holds no workloads.</p>\n");
        return;
    }
    /* Skipped runs (no GPU) share one reason: one line for all of them, not a card each. */
    int skipped = 0;
    for (int i = 0; i < x->a->nwl; i++)
        skipped += x->a->wl[i].w->status == WL_SKIPPED;
    if (skipped > 0) {
        sb_printf(x->b, "<p class=\"status quiet\">%d workload run%s skipped: ", skipped, skipped == 1 ? "" : "s");
        bool first = true;
        for (int i = 0; i < x->a->nwl; i++) {
            const workload_run *w = x->a->wl[i].w;
            bool dup = false;
            for (int j = 0; j < i; j++)
                dup |= x->a->wl[j].w->status == WL_SKIPPED && strcmp(x->a->wl[j].w->name, w->name) == 0;
            if (w->status != WL_SKIPPED || dup)
                continue;
            sb_add(x->b, first ? "" : ", ");
            sb_html(x->b, w->name);
            first = false;
        }
        sb_add(x->b, ". ");
        sb_html(x->b, x->a->m->builtin.gpu_skip_reason[0] ? x->a->m->builtin.gpu_skip_reason : x->a->wl[0].w->status_reason);
        sb_add(x->b, "</p>\n");
    }
    sb_add(x->b, "<div class=\"cards\">\n");
    for (int i = 0; i < x->a->nwl; i++)
        if (x->a->wl[i].w->status != WL_SKIPPED)
            card(x, &x->a->wl[i]);
    sb_add(x->b, "</div>\n");
}

static void dims(const int d[3], char *buf, size_t len)
{
    if (d[2] > 1)
        snprintf(buf, len, "%d&times;%d&times;%d", d[0], d[1], d[2]);
    else if (d[1] > 1)
        snprintf(buf, len, "%d&times;%d", d[0], d[1]);
    else
        snprintf(buf, len, "%d", d[0]);
}

/* A numeric cell: data-v carries the value the table's script sorts on. */
static void num_cell(html_ctx *x, double sort_value, const char *html)
{
    sb_printf(x->b, "<td class=\"r\" data-v=\"%.6g\">%s</td>", sort_value, html);
}

static void sec_kernels(html_ctx *x)
{
    if (html_builtin_only(x))
        return;
    const analysis *a = x->a;
    int rows = 0;
    for (int i = 0; i < a->nwl; i++)
        rows += a->wl[i].nkernels;
    if (rows == 0) {
        sb_add(x->b, "<p class=\"quiet\">No kernels were recorded.</p>\n");
        return;
    }
    sb_add(x->b, "<div class=\"scroll\"><table class=\"kernels sortable\">\n<thead><tr>"
                 "<th data-sort=\"text\">kernel</th><th data-sort=\"text\">workload</th>"
                 "<th data-sort=\"num\" class=\"r\">launches</th><th data-sort=\"num\" class=\"r\">median ms</th>"
                 "<th data-sort=\"num\" class=\"r\">grid</th><th data-sort=\"num\" class=\"r\">block</th>"
                 "<th data-sort=\"num\" class=\"r\">regs</th><th data-sort=\"num\" class=\"r\">smem/block</th>"
                 "<th data-sort=\"num\">occupancy</th><th data-sort=\"text\">limited by</th>"
                 "<th data-sort=\"num\" class=\"r\">GFLOP/s</th></tr></thead>\n<tbody>\n");
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        for (int k = 0; k < r->nkernels; k++) {
            const kernel_summary *s = &r->kernels[k];
            char name[512], cell[128], g[48], bl[48];
            kernel_display_name(s->name, name, sizeof name);
            sb_add(x->b, "<tr><td class=\"kname\" data-v=\"");
            sb_html(x->b, name);
            sb_add(x->b, "\" title=\"");
            sb_html(x->b, s->name);
            sb_add(x->b, "\"><code>");
            sb_html(x->b, name);
            sb_add(x->b, "</code></td><td data-v=\"");
            sb_html_printf(x->b, "%s %s", r->w->name, html_memory_word(r->w));
            sb_add(x->b, "\">");
            html_workload_label(x, r->w);
            sb_add(x->b, "</td>");
            snprintf(cell, sizeof cell, "%d", s->launches);
            num_cell(x, s->launches, cell);

            sb_printf(x->b, "<td class=\"r\" data-v=\"%.6g\">", s->median_ms.ok ? s->median_ms.v : -1);
            html_metric(x, &s->median_ms, "%.3f", "", "kernel median");
            sb_add(x->b, "</td>");
            dims(s->grid, g, sizeof g);
            dims(s->block, bl, sizeof bl);
            num_cell(x, (double)s->grid[0] * s->grid[1] * s->grid[2], g);
            num_cell(x, (double)s->block[0] * s->block[1] * s->block[2], bl);
            if (s->has_resources) {
                snprintf(cell, sizeof cell, "%d", s->registers);
                num_cell(x, s->registers, cell);
                int smem = s->static_smem + s->dynamic_smem;
                if (smem >= 1024)
                    snprintf(cell, sizeof cell, "%.1f KiB", smem / 1024.0);
                else
                    snprintf(cell, sizeof cell, "%d B", smem);
                num_cell(x, smem, cell);
            } else {
                metric none = {.ok = false};
                snprintf(none.why, sizeof none.why, "registers and shared memory not recorded (%s timing)",
                         timing_source_name(r->w->timing));
                for (int c = 0; c < 2; c++) {
                    sb_add(x->b, "<td class=\"r\" data-v=\"-1\">");
                    html_metric(x, &none, "%.0f", "", c == 0 ? "registers" : "shared memory");
                    sb_add(x->b, "</td>");
                }
            }
            sb_printf(x->b, "<td data-v=\"%.6g\">", s->occupancy_pct.ok ? s->occupancy_pct.v : -1);
            if (s->occupancy_pct.ok) {
                pct_bar(x, s->occupancy_pct.v);
                sb_printf(x->b, "<span class=\"num\" title=\"%d blocks per SM\">%.0f%%</span>", s->active_blocks,
                          s->occupancy_pct.v);
            } else {
                html_metric(x, &s->occupancy_pct, "%.0f", "", "occupancy");
            }
            sb_add(x->b, "</td><td class=\"lim\">");
            if (s->occupancy_pct.ok)
                sb_html(x->b, s->limiter[0] ? s->limiter : "none");
            else
                sb_add(x->b, "&ndash;");
            sb_add(x->b, "</td>");
            sb_printf(x->b, "<td class=\"r\" data-v=\"%.6g\">", s->tflops.ok ? s->tflops.v * 1000 : -1);
            if (s->tflops.ok) {
                html_thousands(s->tflops.v * 1000, cell, sizeof cell);
                sb_printf(x->b, "<span class=\"num\">%s</span>", cell);
            } else {
                html_metric(x, &s->tflops, "%.0f", "", "kernel GFLOP/s");
            }
            sb_add(x->b, "</td></tr>\n");
        }
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

static void sec_notes(html_ctx *x)
{
    if (x->nnotes == 0) {
        sb_add(x->b, "<p class=\"quiet\">Every figure on this page was measured.</p>\n");
        return;
    }
    sb_add(x->b, "<ol class=\"notes\">\n");
    for (int i = 0; i < x->nnotes; i++) {
        sb_printf(x->b, "<li id=\"na-%d\">n/a ", i + 1);
        sb_html(x->b, x->notes[i]);
        sb_add(x->b, "</li>\n");
    }
    sb_add(x->b, "</ol>\n");
}

static void sec_footer(html_ctx *x)
{
    const run_model *m = x->a->m;
    sb_add(x->b, "Made by mmprof ");
    sb_html(x->b, m->tool_version);
    sb_add(x->b, " from the run of ");
    char date[48];
    readable_date(m->started_at, date, sizeof date);
    sb_html(x->b, date);
    sb_add(x->b, ". Self-contained: nothing on this page is loaded from elsewhere. "
                 "<code>mmprof report RUN.json --trace FILE</code> writes the same run as a trace "
                 "for Perfetto or chrome://tracing.");
}

static void sec_title(html_ctx *x)
{
    const run_model *m = x->a->m;
    if (m->source != SOURCE_BUILTIN) {
        sb_printf(x->b, "mmprof: %s ", html_source_words(m));
        sb_html(x->b, m->source_file);
        return;
    }
    sb_add(x->b, "mmprof: ");
    html_run_sizes(x->b, m);
    sb_add(x->b, " on ");
    sb_html(x->b, m->ndevices > 0 ? m->devices[0].name : "the CPU");
}

static void sec_version(html_ctx *x)
{
    sb_add(x->b, "mmprof ");
    sb_html(x->b, x->a->m->tool_version);
}

/* What timed the timeline's marks, in the words its source deserves. */
static void sec_timeline_lede(html_ctx *x)
{
    const run_model *m = x->a->m;
    const char *what;
    if (m->source == SOURCE_NSYS)
        what = "copies, kernels and API calls as the Nsight Systems export recorded them";
    else if (m->source == SOURCE_KINETO)
        what = "copies, kernels and API calls as the PyTorch profiler recorded them";
    else if (m->source == SOURCE_PROFILE)
        what = "copies, kernels and API calls of the profiled program, as CUPTI recorded them";
    else if (m->collection.source == TIMING_CUPTI)
        what = "copies and kernels as CUPTI recorded them, under the NVTX phases that bracket them";
    else if (m->collection.source == TIMING_CUDA_EVENT)
        what = "copies and kernels timed by cudaEvents around each call (another profiler held CUPTI), under the "
               "NVTX phases that bracket them";
    else
        what = "no GPU work: the CPU workload's phases on the host clock";
    sb_add(x->b, what);
}

/* "builtin" or "timeline": a timeline's page puts its Regions right under the summary. */
static void sec_body_class(html_ctx *x)
{
    sb_add(x->b, x->a->m->source == SOURCE_BUILTIN ? "builtin" : "timeline");
}

static void sec_events(html_ctx *x)
{
    sb_printf(x->b, "%zu", html_timeline_events(x->a->m));
}

static void sec_css(html_ctx *x)
{
    sb_add(x->b, tpl_report_css);
}

static void sec_script(html_ctx *x)
{
    sb_add(x->b, tpl_report_js);
}

/* The template's slots. "notes" lists the reasons every other slot noted, so it is filled last. */
typedef struct {
    const char *name;
    void (*fill)(html_ctx *x);
} slot;

static const slot slots[] = {
    {"title", sec_title},       {"version", sec_version},   {"css", sec_css},
    {"header", sec_header},     {"findings", sec_findings}, {"warnings", sec_warnings},
    {"summary", sec_summary},
    {"ladder", html_ladder},    {"roofline", html_roofline}, {"timeline", html_timeline}, {"events", sec_events},
    {"timeline_lede", sec_timeline_lede}, {"body_class", sec_body_class},
    {"regions", html_regions},  {"sweep", html_sweep},     {"devices", html_devices},
    {"copies", html_copies},    {"speedup", html_speedup},  {"kernels", sec_kernels},
    {"footer", sec_footer},     {"script", sec_script},     {"notes", sec_notes},
};
#define NSLOTS (sizeof slots / sizeof slots[0])

static int find_slot(const char *name, size_t len)
{
    for (size_t i = 0; i < NSLOTS; i++)
        if (strlen(slots[i].name) == len && strncmp(slots[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

char *render_html(const analysis *a)
{
    html_ctx x;
    memset(&x, 0, sizeof x);
    x.a = a;
    strbuf parts[NSLOTS];
    for (size_t i = 0; i < NSLOTS; i++)
        sb_init(&parts[i]);
    bool oom = false;

    /* Fill the slots in the order the template uses them, so notes are numbered as read, and
     * the notes themselves on a second pass; a slot used twice is filled once. */
    const char *tpl = tpl_report_html;
    bool filled[NSLOTS] = {false};
    for (int pass = 0; pass < 2; pass++) {
        for (const char *p = strstr(tpl, "{{"); p; p = strstr(p + 2, "{{")) {
            const char *end = strstr(p + 2, "}}");
            int s = end ? find_slot(p + 2, (size_t)(end - p - 2)) : -1;
            if (s < 0 || filled[s])
                continue;
            bool last = slots[s].fill == sec_notes;
            if (last != (pass == 1))
                continue;
            x.b = &parts[s];
            slots[s].fill(&x);
            filled[s] = true;
        }
    }

    strbuf page;
    sb_init(&page);
    const char *p = tpl;
    for (const char *open; (open = strstr(p, "{{"));) {
        const char *end = strstr(open + 2, "}}");
        if (!end)
            break;
        int s = find_slot(open + 2, (size_t)(end - open - 2));
        sb_addn(&page, p, (size_t)(open - p));
        if (s >= 0) {
            if (parts[s].oom)
                oom = true;
            else if (parts[s].s)
                sb_add(&page, parts[s].s);
        } else {
            sb_addn(&page, open, (size_t)(end + 2 - open)); /* not ours: left as written */
        }
        p = end + 2;
    }
    sb_add(&page, p);
    for (size_t i = 0; i < NSLOTS; i++)
        sb_free(&parts[i]);
    if (oom) {
        sb_free(&page);
        return NULL;
    }
    return sb_finish(&page);
}
