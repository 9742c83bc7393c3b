/* The HTML report's text sections: the summary's findings, the built-in workloads' cards, their
 * kernel table, and the warnings. Every figure goes through html_fig (the registry's format, marked
 * with its place in the JSON); the model's own facts (launch counts, grid and block shapes,
 * registers, shared memory, a verification's error) are printed as recorded. */
#include <stdio.h>
#include <string.h>

#include "html_parts.h"

/* The unit of a finding's figure after the figure: "&times;" and "%" tight, others small. */
static void finding_unit(html_ctx *x, const char *unit)
{
    if (strcmp(unit, "x") == 0)
        sb_add(x->b, "&times;");
    else if (strcmp(unit, "%") == 0)
        sb_add(x->b, "%");
    else {
        sb_add(x->b, "<small> ");
        sb_html(x->b, unit);
        sb_add(x->b, "</small>");
    }
}

/* The answer first: the analysis's findings, heaviest first, each led by its deciding figure. */
void html_findings(html_ctx *x)
{
    const analysis *a = x->a;
    /* the run's verdict is the answer's first line: not said again below it */
    bool answered = html_answer(x);
    sb_add(x->b, "<ol class=\"findings\">\n");
    for (int i = 0; i < a->nsummary; i++) {
        const finding *f = &a->summary[i];
        if (answered && f->kind == FIND_VERDICT && run_account(a) && strstr(f->text, run_account(a)->verdict_text))
            continue;
        const metric_table *t = finding_table(f);
        sb_printf(x->b, "<li class=\"f-%s\"><span class=\"fig\">", finding_kind_name(f->kind));
        if (t && f->figure.ok) {
            char path[FIG_PATH];
            path_finding(path, i);
            html_fig(x, t, f, "value", path, false);
            finding_unit(x, f->unit);
        }
        sb_add(x->b, "</span><span class=\"ftext\">");
        sb_html(x->b, f->text);
        sb_add(x->b, "</span></li>\n");
    }
    sb_add(x->b, "</ol>\n");
}

void html_warnings(html_ctx *x)
{
    const analysis *a = x->a;
    sb_add(x->b, "<ul class=\"warnings\">\n");
    for (int i = 0; i < a->nwarnings; i++) {
        sb_add(x->b, "<li>");
        sb_html(x->b, a->warnings[i]);
        sb_add(x->b, "</li>\n");
    }
    sb_add(x->b, "</ul>\n");
}

/* The verification as the run recorded it: the relative error and its bound (facts of the run,
 * in the exponent notation such errors read in). */
static void verification(html_ctx *x, const workload_run *w)
{
    if (w->verified) {
        bool ok = w->status == WL_OK;
        sb_printf(x->b, "<span class=\"%s\">%s %s %s %s</span>", ok ? "pass" : "fail", ok ? "&#10003;" : "&#10007;",
                  value_text(&report_value_table, "rel_error", w->rel_error, false).s, ok ? "&le;" : "&gt;",
                  value_text(&report_value_table, "error_bound", w->error_bound, false).s);
    } else {
        sb_printf(x->b, "<span class=\"%s\">not verified</span>", w->status == WL_OK ? "quiet" : "fail");
    }
}

/* A bar for a percentage (clamped to 0..100 for drawing; the figure beside it says the truth). */
static void pct_bar(html_ctx *x, const metric *pct)
{
    if (!pct->ok)
        return;
    double w = pct->v < 0 ? 0 : (pct->v > 100 ? 100 : pct->v);
    sb_printf(x->b, "<span class=\"pbar\"><span style=\"width:%s\"></span></span>", css_pct(w, 1).s);
}

static void card(html_ctx *x, int i)
{
    const workload_metrics *r = &x->a->wl[i];
    const workload_run *w = r->w;
    const metric_table *t = &workload_metric_table;
    char path[FIG_PATH];
    path_workload(path, i);
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
    html_fig_apart(x, t, r, "e2e_ms", path, true);
    sb_printf(x->b, "<span class=\"lbl\">%s</span></div>\n<dl class=\"kv\">",
              gpu ? "end to end per product" : "per product on the CPU");
    if (gpu) {
        sb_add(x->b, "<dt>kernel</dt><dd>");
        html_fig_apart(x, t, r, "kernel_ms", path, true);
        sb_printf(x->b, " <span class=\"quiet\">median of %d, spread</span> ", w->repeat);
        html_fig_apart(x, t, r, "kernel_spread_pct", path, false);
        sb_add(x->b, "</dd>");
    }
    sb_add(x->b, "<dt>noise</dt><dd>");
    html_fig_apart(x, t, r, "noise_pct", path, true);
    if (w->stopped_by != STOP_UNKNOWN)
        sb_printf(x->b, " <span class=\"quiet\">&middot; %d sample%s, stopped by %s</span>", w->repeat,
                  w->repeat == 1 ? "" : "s", sample_stop_name(w->stopped_by));
    sb_add(x->b, "</dd><dt>TFLOP/s</dt><dd>");
    html_fig_why(x, t, r, "tflops", path, false);
    if (gpu && r->tflops.ok && r->tflops_e2e.ok) {
        sb_add(x->b, " <span class=\"quiet\">&middot; ");
        html_fig(x, t, r, "tflops_e2e", path, false);
        sb_add(x->b, " end to end</span>");
    }
    sb_add(x->b, "</dd>");
    if (gpu) {
        sb_printf(x->b, "<dt>%s peak</dt><dd>", w->prec == PREC_TF32 ? "TF32" : "FP32");
        pct_bar(x, &r->peak_pct);
        html_fig_apart(x, t, r, "peak_pct", path, true);
        sb_add(x->b, "</dd><dt>copies</dt><dd>");
        html_fig_apart(x, t, r, "copy_ms", path, true);
        sb_add(x->b, " <span class=\"quiet\">&middot; copy:compute</span> ");
        html_fig(x, t, r, "copy_compute_ratio_per_product", path, false);
        sb_add(x->b, "</dd><dt>link</dt><dd>H2D ");
        html_fig_apart(x, t, r, "h2d_link_pct", path, false);
        sb_add(x->b, " <span class=\"quiet\">&middot;</span> D2H ");
        html_fig_apart(x, t, r, "d2h_link_pct", path, false);
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

/* Skipped runs (no GPU) share one reason: one line for all of them, not a card each. */
static void skipped_line(html_ctx *x)
{
    const analysis *a = x->a;
    int skipped = 0;
    for (int i = 0; i < a->nwl; i++)
        skipped += a->wl[i].w->status == WL_SKIPPED;
    if (skipped == 0)
        return;
    sb_printf(x->b, "<p class=\"status quiet\">%d workload run%s skipped: ", skipped, skipped == 1 ? "" : "s");
    bool first = true;
    for (int i = 0; i < a->nwl; i++) {
        const workload_run *w = a->wl[i].w;
        bool dup = false;
        for (int j = 0; j < i; j++)
            dup |= a->wl[j].w->status == WL_SKIPPED && strcmp(a->wl[j].w->name, w->name) == 0;
        if (w->status != WL_SKIPPED || dup)
            continue;
        sb_add(x->b, first ? "" : ", ");
        sb_html(x->b, w->name);
        first = false;
    }
    sb_add(x->b, ". ");
    sb_html(x->b, a->m->builtin.gpu_skip_reason[0] ? a->m->builtin.gpu_skip_reason : a->wl[0].w->status_reason);
    sb_add(x->b, "</p>\n");
}

void html_workloads(html_ctx *x)
{
    skipped_line(x);
    sb_add(x->b, "<div class=\"cards\">\n");
    for (int i = 0; i < x->a->nwl; i++)
        if (x->a->wl[i].w->status != WL_SKIPPED && workload_in_detail(x->a, &x->a->wl[i]))
            card(x, i);
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

/* A cell of one of the model's own facts (a count, a shape, a size), sortable by v. */
static void fact_cell(html_ctx *x, double v, const char *html)
{
    html_sort_cell(x, v);
    sb_add(x->b, html);
    sb_add(x->b, "</td>");
}

/* Registers and shared memory per block, as the kernel's record gave them, or n/a and why. */
static void resource_cells(html_ctx *x, const workload_run *w, const kernel_summary *s)
{
    char cell[64];
    if (!s->has_resources) {
        char why[96];
        snprintf(why, sizeof why, "registers and shared memory not recorded (%s timing)", timing_source_name(w->timing));
        for (int c = 0; c < 2; c++) {
            html_sort_cell(x, -1);
            html_na(x, c == 0 ? "registers" : "shared memory", why);
            sb_add(x->b, "</td>");
        }
        return;
    }
    snprintf(cell, sizeof cell, "%d", s->registers);
    fact_cell(x, s->registers, cell);
    int smem = s->static_smem + s->dynamic_smem;
    if (smem >= 1024) /* a size, in KiB as the launch shapes read */
        snprintf(cell, sizeof cell, "%s", value_text(&report_value_table, "smem_kib", smem / 1024.0, true).s);
    else
        snprintf(cell, sizeof cell, "%d B", smem);
    fact_cell(x, smem, cell);
}

static void kernel_row(html_ctx *x, int i, int k)
{
    const workload_metrics *r = &x->a->wl[i];
    const kernel_summary *s = &r->kernels[k];
    const metric_table *t = &kernel_summary_table;
    char path[FIG_PATH], cell[128];
    path_kernel_summary(path, i, k);
    sb_add(x->b, "<tr>");
    html_kernel_cell(x, s->name);
    sb_add(x->b, "<td data-v=\"");
    sb_html_printf(x->b, "%s %s", r->w->name, html_memory_word(r->w));
    sb_add(x->b, "\">");
    html_workload_label(x, r->w);
    sb_add(x->b, "</td>");
    snprintf(cell, sizeof cell, "%d", s->launches);
    fact_cell(x, s->launches, cell);
    html_fig_cell(x, t, s, "median_ms", path, false);
    dims(s->grid, cell, sizeof cell);
    fact_cell(x, (double)s->grid[0] * s->grid[1] * s->grid[2], cell);
    dims(s->block, cell, sizeof cell);
    fact_cell(x, (double)s->block[0] * s->block[1] * s->block[2], cell);
    resource_cells(x, r->w, s);
    sb_add(x->b, "<td");
    html_data_v(x, s->occupancy_pct.ok ? s->occupancy_pct.v : -1);
    sb_add(x->b, ">");
    if (s->occupancy_pct.ok) {
        pct_bar(x, &s->occupancy_pct);
        sb_printf(x->b, "<span title=\"%d blocks per SM\">", s->active_blocks);
        html_fig(x, t, s, "occupancy_pct", path, true);
        sb_add(x->b, "</span>");
    } else {
        html_fig(x, t, s, "occupancy_pct", path, true);
    }
    sb_add(x->b, "</td><td class=\"lim\">");
    if (s->occupancy_pct.ok)
        sb_html(x->b, s->limiter[0] ? s->limiter : "none");
    else
        sb_add(x->b, "&ndash;");
    sb_add(x->b, "</td>");
    html_fig_cell(x, t, s, "tflops", path, false);
    sb_add(x->b, "</tr>\n");
}

void html_kernels(html_ctx *x)
{
    const analysis *a = x->a;
    sb_add(x->b, "<div class=\"scroll\"><table class=\"kernels sortable\">\n<thead><tr>"
                 "<th data-sort=\"text\">kernel</th><th data-sort=\"text\">workload</th>"
                 "<th data-sort=\"num\" class=\"r\">launches</th><th data-sort=\"num\" class=\"r\">median ms</th>"
                 "<th data-sort=\"num\" class=\"r\">grid</th><th data-sort=\"num\" class=\"r\">block</th>"
                 "<th data-sort=\"num\" class=\"r\">regs</th><th data-sort=\"num\" class=\"r\">smem/block</th>"
                 "<th data-sort=\"num\">occupancy</th><th data-sort=\"text\">limited by</th>"
                 "<th data-sort=\"num\" class=\"r\">TFLOP/s</th></tr></thead>\n<tbody>\n");
    for (int i = 0; i < a->nwl; i++)
        for (int k = 0; workload_in_detail(a, &a->wl[i]) && k < a->wl[i].nkernels; k++)
            kernel_row(x, i, k);
    sb_add(x->b, "</tbody></table></div>\n");
}
