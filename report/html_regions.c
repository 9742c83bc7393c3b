/* The HTML report's regions section: the listed regions (the run, workloads or the longest NVTX
 * ranges and annotations) with the registry's figures, verdict and advice; for timelines that are
 * not built-in runs also the run's kernels by total time and copies by direction and memory
 * kind, as `nsys stats` tables them. Every figure's heading, unit and format come from the
 * metric registry. */
#include <stdio.h>
#include <string.h>

#include "html_parts.h"

/* A registry figure in a table cell, sortable by its value; n/a with its numbered note. */
static void metric_cell(html_ctx *x, const metric_table *t, const void *row, const char *key)
{
    const metric_def *d = metric_find(t, key);
    const metric *m = metric_of(row, d);
    sb_printf(x->b, "<td class=\"r\" data-v=\"%.9g\">", m->ok ? m->v : -1);
    html_metric(x, m, d->fmt, "", d->label);
    sb_add(x->b, "</td>");
}

static void heading_cells(html_ctx *x, const metric_table *t, const char *const *keys, int n)
{
    for (int i = 0; i < n; i++) {
        const metric_def *d = metric_find(t, keys[i]);
        sb_add(x->b, "<th data-sort=\"num\" class=\"r\" title=\"");
        sb_html(x->b, d->what);
        sb_add(x->b, "\">");
        sb_html(x->b, d->label);
        if (d->unit[0])
            sb_html_printf(x->b, " %s", d->unit);
        sb_add(x->b, "</th>");
    }
}

static const char *const region_cols[] = {"wall_ms", "kernel_ms", "memcpy_ms", "copy_compute_ratio",
                                          "busy_pct", "largest_gap_ms", "launch_us", "sync_ms"};
#define NREGION_COLS ((int)(sizeof region_cols / sizeof region_cols[0]))

static void region_rows(html_ctx *x)
{
    const analysis *a = x->a;
    const run_model *m = a->m;
    sb_add(x->b, "<div class=\"scroll\"><table class=\"regions sortable\">\n<thead><tr>"
                 "<th data-sort=\"text\">region</th><th data-sort=\"text\">kind</th>");
    heading_cells(x, &region_metric_table, region_cols, NREGION_COLS);
    sb_add(x->b, "<th data-sort=\"text\">verdict</th></tr></thead>\n<tbody>\n");
    for (int li = 0; li < a->nlisted; li++) {
        const region_metrics *r = &a->rg[a->listed[li]];
        const region *rg = &m->regions[r->region];
        sb_add(x->b, "<tr><td class=\"rname\" data-v=\"");
        sb_html(x->b, rg->name);
        sb_add(x->b, "\">");
        if (rg->domain) {
            sb_add(x->b, "<span class=\"domain\">");
            sb_html(x->b, rg->domain);
            sb_add(x->b, "@</span>");
        }
        sb_html(x->b, rg->name);
        sb_printf(x->b, "</td><td>%s</td>", region_kind_name(rg->kind));
        for (int c = 0; c < NREGION_COLS; c++)
            metric_cell(x, &region_metric_table, r, region_cols[c]);
        sb_printf(x->b, "<td><span class=\"verdict %s\">%s</span></td></tr>\n", verdict_name(r->verdict),
                  verdict_name(r->verdict));
    }
    sb_add(x->b, "</tbody></table></div>\n");
    if (a->unlisted > 0)
        sb_printf(x->b, "<p class=\"quiet\">%d shorter regions are not listed; the JSON report has every region.</p>\n",
                  a->unlisted);
}

static void verdict_list(html_ctx *x)
{
    const analysis *a = x->a;
    sb_add(x->b, "<ul class=\"advice\">\n");
    for (int li = 0; li < a->nlisted; li++) {
        const region_metrics *r = &a->rg[a->listed[li]];
        if (r->verdict == VERDICT_NO_GPU && li > 0)
            continue;
        sb_add(x->b, "<li><strong>");
        sb_html(x->b, a->m->regions[r->region].name);
        sb_add(x->b, "</strong>: ");
        sb_html(x->b, r->verdict_text);
        if (r->advice[0]) {
            sb_add(x->b, "<br><span class=\"tip\">&rarr; ");
            sb_html(x->b, r->advice);
            sb_add(x->b, "</span>");
        }
        if (r->by_time > 0)
            sb_printf(x->b, "<br><span class=\"quiet\">%d GPU events had no launching call in the timeline and "
                            "were attributed by time.</span>", r->by_time);
        sb_add(x->b, "</li>\n");
    }
    sb_add(x->b, "</ul>\n");
}

#define HTML_TOP_KERNELS 50

static void kernel_rows(html_ctx *x, const region_metrics *r)
{
    static const char *const cols[] = {"total_ms", "share_pct", "min_ms", "median_ms", "max_ms", "stddev_ms",
                                       "occupancy_pct"};
    sb_printf(x->b, "<h3>Kernels by total time</h3>\n<div class=\"scroll\"><table class=\"kernels sortable\">\n"
                    "<thead><tr><th data-sort=\"text\">kernel</th><th data-sort=\"num\" class=\"r\">count</th>");
    heading_cells(x, &kernel_stat_table, cols, (int)(sizeof cols / sizeof cols[0]));
    sb_add(x->b, "<th data-sort=\"text\">limited by</th></tr></thead>\n<tbody>\n");
    for (int i = 0; i < r->nkstats && i < HTML_TOP_KERNELS; i++) {
        const kernel_stat *k = &r->kernels[i];
        char name[512];
        kernel_display_name(k->name, name, sizeof name);
        sb_add(x->b, "<tr><td class=\"kname\" data-v=\"");
        sb_html(x->b, name);
        sb_add(x->b, "\" title=\"");
        sb_html(x->b, k->name);
        sb_add(x->b, "\"><code>");
        sb_html(x->b, name);
        sb_printf(x->b, "</code></td><td class=\"r\" data-v=\"%d\">%d</td>", k->count, k->count);
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            metric_cell(x, &kernel_stat_table, k, cols[c]);
        sb_add(x->b, "<td>");
        sb_html(x->b, k->occupancy_pct.ok ? (k->limiter[0] ? k->limiter : "none") : "-");
        sb_add(x->b, "</td></tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
    if (r->nkstats > HTML_TOP_KERNELS)
        sb_printf(x->b, "<p class=\"quiet\">%d more kernel names in the JSON report.</p>\n",
                  r->nkstats - HTML_TOP_KERNELS);
}

static void flow_rows(html_ctx *x, const region_metrics *r)
{
    static const char *const cols[] = {"bytes", "ms", "gbps", "mean_bytes"};
    sb_add(x->b, "<h3>Copies by direction and host memory</h3>\n<div class=\"scroll\"><table class=\"flows sortable\">\n"
                 "<thead><tr><th data-sort=\"text\">direction</th><th data-sort=\"text\">host memory</th>"
                 "<th data-sort=\"num\" class=\"r\">count</th>");
    heading_cells(x, &copy_flow_table, cols, (int)(sizeof cols / sizeof cols[0]));
    sb_add(x->b, "</tr></thead>\n<tbody>\n");
    for (int i = 0; i < r->nflows; i++) {
        const copy_flow *f = &r->flows[i];
        sb_printf(x->b, "<tr><td>%s</td><td><span class=\"chip %s\">%s</span></td><td class=\"r\" data-v=\"%d\">%d</td>",
                  copy_dir_name(f->dir), mem_kind_name(f->host), mem_kind_name(f->host), f->count, f->count);
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            metric_cell(x, &copy_flow_table, f, cols[c]);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

#define HTML_TOP_APIS 25

static void api_rows(html_ctx *x, const region_metrics *r)
{
    static const char *const cols[] = {"total_ms", "share_pct", "median_us", "min_us", "max_us"};
    sb_add(x->b, "<h3>CUDA API calls by total time</h3>\n<div class=\"scroll\"><table class=\"apis sortable\">\n"
                 "<thead><tr><th data-sort=\"text\">call</th><th data-sort=\"num\" class=\"r\">count</th>");
    heading_cells(x, &api_stat_table, cols, (int)(sizeof cols / sizeof cols[0]));
    sb_add(x->b, "</tr></thead>\n<tbody>\n");
    for (int i = 0; i < r->napistats && i < HTML_TOP_APIS; i++) {
        const api_stat *k = &r->apis[i];
        sb_add(x->b, "<tr><td><code>");
        sb_html(x->b, k->name);
        sb_printf(x->b, "</code></td><td class=\"r\" data-v=\"%d\">%d</td>", k->count, k->count);
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            metric_cell(x, &api_stat_table, k, cols[c]);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

/* A rank or GPU row's name, with @host across hosts. */
static void share_name(html_ctx *x, const rank_analysis *ra, const rank_share *r, bool gpu)
{
    char name[160];
    rank_share_label(r, gpu, ra->nhosts > 1, name, sizeof name);
    sb_html(x->b, name);
}

static void share_rows(html_ctx *x, const rank_analysis *ra, const rank_share *rows, int n, bool gpu)
{
    static const char *const cols[] = {"busy_pct", "compute_pct", "comm_pct", "copy_pct", "idle_pct",
                                       "compute_ms", "comm_ms", "overlap_pct", "coll_skew_us"};
    int ncols = (int)(sizeof cols / sizeof cols[0]) - (gpu ? 1 : 0);
    sb_printf(x->b, "<div class=\"scroll\"><table class=\"ranks sortable\">\n<thead><tr><th data-sort=\"text\">%s</th>"
                    "<th data-sort=\"num\" class=\"r\">kernels</th><th data-sort=\"num\" class=\"r\">NCCL</th>",
              gpu ? "GPU" : ra->by_rank ? "rank" : "process");
    heading_cells(x, &rank_share_table, cols, ncols);
    sb_add(x->b, "</tr></thead>\n<tbody>\n");
    for (int i = 0; i < n; i++) {
        sb_add(x->b, "<tr><td>");
        share_name(x, ra, &rows[i], gpu);
        sb_printf(x->b, "</td><td class=\"r\" data-v=\"%d\">%d</td><td class=\"r\" data-v=\"%d\">%d</td>",
                  rows[i].kernels, rows[i].kernels, rows[i].comm_kernels, rows[i].comm_kernels);
        for (int c = 0; c < ncols; c++)
            metric_cell(x, &rank_share_table, &rows[i], cols[c]);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

#define HTML_TOP_STRAGGLERS 40

/* A job of several ranks (ranks.h): shares per rank and GPU, then the stragglers. */
static void rank_section(html_ctx *x, const rank_analysis *ra)
{
    sb_printf(x->b, "<h3>%s: where each one's GPU time went</h3>\n<p class=\"quiet\">%d %s on %d host%s; shares of "
                    "the job's GPU window (first to last GPU event of any rank); comm is NCCL time not hidden under "
                    "compute; hidden is the share of NCCL time a compute kernel of the same rank ran beside.</p>\n",
              ra->by_rank ? "Ranks" : "Processes", ra->nrows, ra->by_rank ? "ranks" : "processes", ra->nhosts,
              ra->nhosts == 1 ? "" : "s");
    share_rows(x, ra, ra->rows, ra->nrows, false);
    if (ra->ngpus > 0 && (ra->ngpus != ra->nrows || ra->nhosts > 1))
        share_rows(x, ra, ra->gpus, ra->ngpus, true);
    if (ra->nstragglers == 0)
        return;
    static const char *const cols[] = {"median_lag_ms", "max_lag_ms", "mean_ms"};
    sb_add(x->b, "<h3>Stragglers: who ends each NVTX range last</h3>\n<div class=\"scroll\"><table class=\"stragglers "
                 "sortable\">\n<thead><tr><th data-sort=\"text\">range</th><th data-sort=\"num\" class=\"r\">matched</th>"
                 "<th data-sort=\"text\">last most often</th>");
    heading_cells(x, &straggler_table, cols, 3);
    sb_add(x->b, "</tr></thead>\n<tbody>\n");
    for (int i = 0; i < ra->nstragglers && i < HTML_TOP_STRAGGLERS; i++) {
        const straggler *s = &ra->stragglers[i];
        sb_add(x->b, "<tr><td><code>");
        sb_html(x->b, s->name);
        sb_printf(x->b, "</code></td><td class=\"r\" data-v=\"%d\">%d</td><td>", s->matched, s->matched);
        if (s->straggler >= 0) {
            share_name(x, ra, &ra->rows[s->straggler], false);
            sb_printf(x->b, " (%d of %d)", s->straggler_times, s->matched);
        }
        sb_add(x->b, "</td>");
        for (int c = 0; c < 3; c++)
            metric_cell(x, &straggler_table, s, cols[c]);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

void html_regions(html_ctx *x)
{
    const analysis *a = x->a;
    if (a->nlisted == 0) {
        sb_add(x->b, "<p class=\"quiet\">No regions: nothing was recorded.</p>\n");
        return;
    }
    region_rows(x);
    verdict_list(x);
    /* The run's kernels, copies and API calls as nsys stats tables them, for every source (the
     * built-in run's Kernels section is per workload, with launch shapes; this is the whole run). */
    const region_metrics *run = &a->rg[a->listed[0]];
    if (run->nkstats > 0)
        kernel_rows(x, run);
    if (run->nflows > 0)
        flow_rows(x, run);
    if (run->napistats > 0)
        api_rows(x, run);
    if (a->ranks)
        rank_section(x, a->ranks);
}
