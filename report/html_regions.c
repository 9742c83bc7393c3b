/* The HTML report's regions section: the listed regions (the run, workloads or the longest NVTX
 * ranges and annotations) with the registry's figures, verdict and advice; then the run's kernels
 * by total time, copies by direction and memory kind and CUDA API calls, as `nsys stats` tables
 * them. Every figure's heading, unit and format come from the metric registry, and each is marked
 * with its place in the JSON (html_fig). */
#include <stdio.h>
#include <string.h>

#include "host_idle.h"
#include "html_parts.h"
#include "source.h"
#include "tables.h"

static void heading_cells(html_ctx *x, const metric_table *t, const char *const *keys, int n)
{
    for (int i = 0; i < n; i++)
        html_fig_heading(x, t, keys[i]);
}

/* kernel time, GPU span and busy side by side, as the text's Timeline table has them
 * (REGION_ATTRIBUTION, in the section's lede, says what each is) */
static const char *const region_cols[] = {"wall_ms", "kernel_ms", "memcpy_ms", "gpu_span_ms", "copy_compute_ratio",
                                          "busy_pct", "largest_gap_ms", "launch_us", "sync_ms"};
#define NREGION_COLS ((int)(sizeof region_cols / sizeof region_cols[0]))

/* A range's name after its NVTX domain, where it has one. */
static void domain_name(html_ctx *x, const char *domain, const char *name)
{
    if (domain) {
        sb_add(x->b, "<span class=\"domain\">");
        sb_html(x->b, domain);
        sb_add(x->b, "@</span>");
    }
    sb_html(x->b, name);
}

static void region_head(html_ctx *x)
{
    sb_add(x->b, "<div class=\"scroll\"><table class=\"regions sortable\">\n<thead><tr>"
                 "<th data-sort=\"text\">region</th><th data-sort=\"text\">kind</th>");
    heading_cells(x, &region_metric_table, region_cols, NREGION_COLS);
    sb_add(x->b, "<th data-sort=\"text\">verdict</th></tr></thead>\n<tbody>\n");
}

/* One region's row: listed region li. */
static void region_row(html_ctx *x, int li)
{
    const analysis *a = x->a;
    const region_metrics *r = &a->rg[a->listed[li]];
    const region *rg = &a->m->regions[r->region];
    char path[FIG_PATH];
    path_region(path, a->listed[li]);
    sb_add(x->b, "<tr><td class=\"rname\" data-v=\"");
    sb_html(x->b, rg->name);
    sb_add(x->b, "\">");
    domain_name(x, rg->domain, rg->name);
    sb_printf(x->b, "</td><td>%s</td>", region_kind_name(rg->kind));
    for (int c = 0; c < NREGION_COLS; c++)
        html_fig_cell(x, &region_metric_table, r, region_cols[c], path, false);
    sb_printf(x->b, "<td><span class=\"verdict %s\">%s</span></td></tr>\n", verdict_name(r->verdict),
              verdict_name(r->verdict));
}

/* A repeated range as one line that opens to its listed instances (a figure n/a says why in place:
 * a note's link inside the summary would nest a control in a control): how many, the median
 * instance's wall, the shortest and the longest (which one), the median busy, and the median
 * instance's verdict with the longest's where it differs. */
static void group_details(html_ctx *x, int li)
{
    const analysis *a = x->a;
    int gi = 0;
    const range_group *g = range_group_shown(a, a->listed[li], &gi);
    char path[FIG_PATH], which[RANGE_GROUP_NAME];
    path_range_group(path, gi);
    sb_add(x->b, "<details class=\"rgroup\"><summary><span class=\"rg-name\">");
    domain_name(x, g->domain, g->name);
    sb_printf(x->b, "</span> <span class=\"rg-fig\">&times;%d</span> <span class=\"rg-fig\">median ", g->count);
    html_fig_why(x, &range_group_table, g, "median_ms", path, true);
    sb_add(x->b, "</span> <span class=\"rg-fig\">min..max ");
    html_fig_why(x, &range_group_table, g, "min_ms", path, false);
    sb_add(x->b, "..");
    html_fig_why(x, &range_group_table, g, "max_ms", path, true);
    range_instance_label(a->m, g, g->longest, which, sizeof which);
    sb_add(x->b, "</span> <span class=\"rg-fig\">longest ");
    sb_html(x->b, which);
    sb_add(x->b, "</span> <span class=\"rg-fig\">median busy ");
    html_fig_why(x, &range_group_table, g, "median_busy_pct", path, true);
    verdict_kind mv = a->rg[g->median].verdict, lv = a->rg[g->longest].verdict;
    sb_printf(x->b, "</span> <span class=\"verdict %s\">%s</span>", verdict_name(mv), verdict_name(mv));
    if (lv != mv)
        sb_printf(x->b, " <span class=\"rg-pair\"><span class=\"quiet\">longest</span> <span class=\"verdict %s\">%s</span></span>",
                  verdict_name(lv), verdict_name(lv));
    sb_add(x->b, "</summary>\n");
    region_head(x);
    for (int lj = li; lj < a->nlisted; lj++)
        if (range_group_shown(a, a->listed[lj], NULL) == g)
            region_row(x, lj);
    sb_add(x->b, "</tbody></table></div>\n");
    if (g->listed < g->count)
        sb_printf(x->b, "<p class=\"quiet\">%d more instances are not listed; the JSON and CSV reports have every one.</p>\n",
                  g->count - g->listed);
    sb_add(x->b, "</details>\n");
}

static void region_rows(html_ctx *x)
{
    const analysis *a = x->a;
    region_head(x);
    int grouped = 0, ngroups = 0;
    for (int li = 0; li < a->nlisted; li++) {
        if (range_group_shown(a, a->listed[li], NULL)) {
            grouped++; /* a repeated range: its group's line, below */
            ngroups += range_group_first_listed(a, li);
            continue;
        }
        region_row(x, li);
    }
    sb_add(x->b, "</tbody></table></div>\n");
    if (a->unlisted > 0)
        sb_printf(x->b, "<p class=\"quiet\">%d shorter regions are not listed; the JSON report has every region.</p>\n",
                  a->unlisted);
    if (ngroups == 0)
        return;
    sb_printf(x->b, "<h3>Repeated ranges</h3>\n<p class=\"quiet\">One line per name: %d listed instances in %d line%s; "
                    "open one for its instances. The JSON and CSV reports list every instance.</p>\n<div class=\"rgroups\">\n",
              grouped, ngroups, ngroups == 1 ? "" : "s");
    for (int li = 0; li < a->nlisted; li++)
        if (range_group_first_listed(a, li))
            group_details(x, li);
    sb_add(x->b, "</div>\n");
}

/* "the median, step 10 (1.697 ms): compute-bound: ..." for instance region of group g. */
static void instance_verdict(html_ctx *x, const range_group *g, const char *which, int region)
{
    char path[FIG_PATH], label[RANGE_GROUP_NAME];
    range_instance_label(x->a->m, g, region, label, sizeof label);
    sb_printf(x->b, "%s, ", which);
    sb_html(x->b, label);
    sb_add(x->b, " (");
    path_region(path, region);
    html_fig(x, &region_metric_table, &x->a->rg[region], "wall_ms", path, true);
    sb_add(x->b, "): ");
    sb_html(x->b, x->a->rg[region].verdict_text);
}

/* A repeated range's verdict and advice, once: the median instance's, the longest's where its
 * verdict differs, and each distinct advice once with how many instances got it. */
static void group_verdict(html_ctx *x, const range_group *g)
{
    const analysis *a = x->a;
    const region_metrics *med = &a->rg[g->median], *lon = &a->rg[g->longest];
    if (med->verdict == VERDICT_NO_GPU && lon->verdict == VERDICT_NO_GPU)
        return;
    sb_add(x->b, "<li><strong>");
    sb_html(x->b, g->name);
    sb_printf(x->b, "</strong> (%d instances): ", g->count);
    instance_verdict(x, g, "the median", g->median);
    if (lon->verdict != med->verdict) {
        sb_add(x->b, "<br>");
        instance_verdict(x, g, "the longest", g->longest);
    }
    for (int i = 0; i < g->nadvice; i++) {
        sb_add(x->b, "<br><span class=\"tip\">&rarr; ");
        sb_html(x->b, a->rg[g->advice[i].region].advice);
        sb_printf(x->b, "</span> <span class=\"quiet\">(%d of %d)</span>", g->advice[i].count, g->count);
    }
    if (g->advice_other > 0)
        sb_printf(x->b, "<br><span class=\"quiet\">%d more instances got other advice; the JSON report has each.</span>",
                  g->advice_other);
    if (g->by_time > 0)
        sb_printf(x->b, "<br><span class=\"quiet\">%d GPU events had no launching call in the timeline and "
                        "were attributed by time.</span>", g->by_time);
    sb_add(x->b, "</li>\n");
}

static void verdict_list(html_ctx *x)
{
    const analysis *a = x->a;
    sb_add(x->b, "<ul class=\"advice\">\n");
    for (int li = 0; li < a->nlisted; li++) {
        const region_metrics *r = &a->rg[a->listed[li]];
        const range_group *g = range_group_shown(a, r->region, NULL);
        if (g) {
            if (range_group_first_listed(a, li))
                group_verdict(x, g);
            continue;
        }
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

static void kernel_rows(html_ctx *x, int region, const region_metrics *r)
{
    static const char *const cols[] = {"total_ms", "share_pct", "min_ms", "median_ms", "max_ms", "stddev_ms",
                                       "occupancy_pct"};
    sb_printf(x->b, "<h3>Kernels by total time</h3>\n<div class=\"scroll\"><table class=\"kernels sortable\">\n"
                    "<thead><tr><th data-sort=\"text\">kernel</th><th data-sort=\"num\" class=\"r\">count</th>");
    heading_cells(x, &kernel_stat_table, cols, (int)(sizeof cols / sizeof cols[0]));
    sb_add(x->b, "<th data-sort=\"text\">limited by</th></tr></thead>\n<tbody>\n");
    int shown = table_shown(&table_kernel, r->nkstats, true);
    for (int i = 0; i < shown; i++) {
        const kernel_stat *k = &r->kernels[i];
        char path[FIG_PATH];
        path_kernel_stat(path, region, i);
        sb_add(x->b, "<tr>");
        html_kernel_cell(x, k->name);
        sb_printf(x->b, "<td class=\"r\" data-v=\"%d\">%d</td>", k->count, k->count);
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            html_fig_cell(x, &kernel_stat_table, k, cols[c], path, false);
        sb_add(x->b, "<td>");
        sb_html(x->b, k->occupancy_pct.ok ? (k->limiter[0] ? k->limiter : "none") : "-");
        sb_add(x->b, "</td></tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
    if (r->nkstats > shown)
        sb_printf(x->b, "<p class=\"quiet\">%d more kernel names in the JSON report.</p>\n", r->nkstats - shown);
}

static void flow_rows(html_ctx *x, int region, const region_metrics *r)
{
    static const char *const cols[] = {"bytes", "ms", "gbps", "mean_bytes"};
    sb_add(x->b, "<h3>Copies by direction and host memory, then memsets by the memory they set</h3>\n"
                 "<div class=\"scroll\"><table class=\"flows sortable\">\n"
                 "<thead><tr><th data-sort=\"text\">direction</th><th data-sort=\"text\">host memory</th>"
                 "<th data-sort=\"num\" class=\"r\">count</th>");
    heading_cells(x, &copy_flow_table, cols, (int)(sizeof cols / sizeof cols[0]));
    sb_add(x->b, "</tr></thead>\n<tbody>\n");
    for (int i = 0; i < r->nflows; i++) {
        const copy_flow *f = &r->flows[i];
        char path[FIG_PATH];
        path_copy_flow(path, region, i);
        /* a memset has no direction: its row says what it is, as the text's does */
        sb_printf(x->b, "<tr><td>%s</td><td><span class=\"chip %s\">%s</span></td><td class=\"r\" data-v=\"%d\">%d</td>",
                  f->memset ? "memset" : copy_dir_name(f->dir), mem_kind_name(f->host), mem_kind_name(f->host), f->count,
                  f->count);
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            html_fig_cell(x, &copy_flow_table, f, cols[c], path, false);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

static void api_rows(html_ctx *x, int region, const region_metrics *r)
{
    static const char *const cols[] = {"total_ms", "share_pct", "median_us", "min_us", "max_us"};
    sb_printf(x->b, "<h3>%s by total time</h3>\n<div class=\"scroll\"><table class=\"apis sortable\">\n"
                    "<thead><tr><th data-sort=\"text\">call</th><th data-sort=\"num\" class=\"r\">count</th>",
              source_of(x->a->m->source)->api_calls);
    heading_cells(x, &api_stat_table, cols, (int)(sizeof cols / sizeof cols[0]));
    sb_add(x->b, "</tr></thead>\n<tbody>\n");
    int shown = table_shown(&table_api, r->napistats, true);
    for (int i = 0; i < shown; i++) {
        const api_stat *k = &r->apis[i];
        char path[FIG_PATH];
        path_api_stat(path, region, i);
        sb_add(x->b, "<tr><td><code>");
        sb_html(x->b, k->name);
        sb_printf(x->b, "</code></td><td class=\"r\" data-v=\"%d\">%d</td>", k->count, k->count);
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            html_fig_cell(x, &api_stat_table, k, cols[c], path, false);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

#define HTML_IDLE_GAPS 20

/* The run's idle stretches with their causes, the calls in progress and the ranges open. */
static void idle_gap_rows(html_ctx *x)
{
    const analysis *a = x->a;
    static const char *const cols[] = {"start_ms", "ms", "cause_pct"};
    sb_add(x->b, "<h3>Idle stretches and their causes</h3>\n<div class=\"scroll\"><table class=\"idle sortable\">\n"
                 "<thead><tr><th data-sort=\"num\" class=\"r\">GPU</th><th data-sort=\"text\">where</th>");
    heading_cells(x, &idle_gap_table, cols, (int)(sizeof cols / sizeof cols[0]));
    sb_add(x->b, "<th data-sort=\"text\">cause</th><th data-sort=\"text\">then</th><th data-sort=\"text\">calls in "
                 "progress</th><th data-sort=\"text\">ranges open</th>");
    if (a->host && a->host->sampled)
        sb_add(x->b, "<th data-sort=\"text\">host (samples)</th>");
    sb_add(x->b, "</tr></thead>\n<tbody>\n");
    for (int i = 0; i < a->nidle_gaps && i < HTML_IDLE_GAPS; i++) {
        const idle_stretch *g = &a->idle_gaps[i];
        char path[FIG_PATH];
        path_idle_gap(path, i);
        sb_printf(x->b, "<tr><td class=\"r\" data-v=\"%u\">%u</td><td>%s</td>", g->device, g->device,
                  stretch_where_name(g->where));
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            html_fig_cell(x, &idle_gap_table, g, cols[c], path, false);
        sb_add(x->b, "<td>");
        /* its largest state in its process's wall-time account, in the account's words */
        const account_row *acc = a->idle_accounts && a->idle_accounts[i].state < WS_COUNT ? &a->idle_accounts[i] : NULL;
        if (acc) {
            char words[512], pct[24];
            account_row_words(acc, words, sizeof words);
            html_fig_text(&account_row_table, acc, "share_pct", true, pct, sizeof pct);
            sb_printf(x->b, "<span class=\"g-%s acct-chip\"></span>", wall_groups[wall_states[acc->state].group].key);
            sb_html(x->b, wall_states[acc->state].brief);
            sb_printf(x->b, " %s", pct);
            if (words[0]) {
                sb_add(x->b, ": ");
                sb_html(x->b, words);
            }
        } else {
            sb_html(x->b, idle_cause_label(g->cause));
        }
        /* What came next is often a kernel's long unbreakable name, and the calls a long list:
         * cells that wrap them, so they cannot push the host's column out of a 1280 px page. */
        sb_add(x->b, "</td><td class=\"calls\">");
        sb_html(x->b, g->next);
        sb_add(x->b, "</td><td class=\"calls\">");
        for (int k = 0; k < g->ncalls; k++) {
            sb_add(x->b, k ? ", <code>" : "<code>");
            sb_html(x->b, g->calls[k].name);
            sb_add(x->b, "</code>");
            if (g->calls[k].count > 1)
                sb_printf(x->b, " x%d", g->calls[k].count);
            sb_printf(x->b, " (%s)", idle_cause_key(g->calls[k].cause));
        }
        sb_add(x->b, "</td><td class=\"calls\">");
        for (int k = 0; k < g->nranges; k++) {
            if (k)
                sb_add(x->b, ", ");
            sb_html(x->b, a->m->regions[g->open_ranges[k]].name);
        }
        sb_add(x->b, "</td>");
        if (a->host && a->host->sampled)
            html_host_cell(x, &a->host->gaps[i * HOST_NFROM], path);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
    int more = a->nidle_gaps - HTML_IDLE_GAPS + a->idle_gaps_unlisted;
    if (more > 0)
        sb_printf(x->b, "<p class=\"quiet\">%d more stretches of 1 ms or more in the JSON report.</p>\n", more);
}

/* The run's idle time by cause (the first listed region: the run), as HTA's idle time breakdown. */
static void idle_breakdown_rows(html_ctx *x)
{
    const analysis *a = x->a;
    const region_metrics *r = &a->rg[a->listed[0]];
    static const char *const cols[] = {"ms", "share_pct"};
    sb_add(x->b, "<h3>Idle time by cause</h3>\n<div class=\"scroll\"><table class=\"idle-breakdown sortable\">\n"
                 "<thead><tr><th data-sort=\"text\">cause</th>");
    heading_cells(x, &idle_share_table, cols, (int)(sizeof cols / sizeof cols[0]));
    /* Where the run carries host activity, the host-busy row says which functions it was. */
    bool host = a->host && a->host->sampled && a->host->nregions > 0;
    if (host)
        sb_add(x->b, "<th data-sort=\"text\">host (samples)</th>");
    sb_add(x->b, "</tr></thead>\n<tbody>\n");
    for (int c = 0; c < IDLE_NCAUSES; c++) {
        if (!r->idle[c].ms.ok || r->idle[c].ms.v <= 0)
            continue;
        char path[FIG_PATH];
        path_idle_share(path, 0, c);
        sb_add(x->b, "<tr><td>");
        sb_html(x->b, idle_cause_label((idle_cause)c));
        sb_add(x->b, "</td>");
        for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
            html_fig_cell(x, &idle_share_table, &r->idle[c], cols[k], path, false);
        if (host && c == IDLE_HOST_BUSY)
            html_host_cell(x, &a->host->regions[0], path);
        else if (host)
            sb_add(x->b, "<td></td>");
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

/* Each other listed region's host-busy idle time with the functions sampled in it (host_idle.h:
 * the JSON's idle_breakdown rows carry the same), where any has some to show. */
#define HTML_HOST_REGIONS 20
static void host_busy_by_region(html_ctx *x)
{
    const analysis *a = x->a;
    int shown = 0;
    for (int li = 1; li < a->nlisted && shown < HTML_HOST_REGIONS; li++) {
        const host_view *v = host_region_busy_views(a, li);
        if (!v)
            continue;
        const region_metrics *r = &a->rg[a->listed[li]];
        const idle_share *busy = &r->idle[IDLE_HOST_BUSY];
        if (shown++ == 0) {
            static const char *const cols[] = {"ms", "share_pct"};
            sb_add(x->b, "<h3>Host busy outside CUDA, by region</h3>\n<p class=\"quiet\">Each region's idle time "
                         "with no CUDA call in progress, and the functions sampled in it.</p>\n<div class=\"scroll\">"
                         "<table class=\"idle-breakdown sortable\">\n<thead><tr><th data-sort=\"text\">region</th>");
            heading_cells(x, &idle_share_table, cols, (int)(sizeof cols / sizeof cols[0]));
            sb_add(x->b, "<th data-sort=\"text\">host (samples)</th></tr></thead>\n<tbody>\n");
        }
        char path[FIG_PATH];
        path_idle_share(path, li, IDLE_HOST_BUSY);
        sb_add(x->b, "<tr><td>");
        sb_html(x->b, a->m->regions[r->region].name);
        sb_add(x->b, "</td>");
        html_fig_cell(x, &idle_share_table, busy, "ms", path, false);
        html_fig_cell(x, &idle_share_table, busy, "share_pct", path, false);
        html_host_cell(x, v, path);
        sb_add(x->b, "</tr>\n");
    }
    if (shown > 0)
        sb_add(x->b, "</tbody></table></div>\n");
}

void html_regions(html_ctx *x)
{
    const analysis *a = x->a;
    if (a->nlisted == 0)
        return; /* sections.h shows Regions where the run has regions; each is listed */
    region_rows(x);
    verdict_list(x);
    /* The run's kernels, copies and API calls as nsys stats tables them, for every source (the
     * built-in run's Kernels section is per workload, with launch shapes; this is the whole run). */
    int run = a->listed[0];
    if (a->rg[run].nkstats > 0)
        kernel_rows(x, run, &a->rg[run]);
    if (a->rg[run].nflows > 0)
        flow_rows(x, run, &a->rg[run]);
    if (a->rg[run].napistats > 0)
        api_rows(x, run, &a->rg[run]);
    /* Where the GPU waited and why: shown where the run has host records to tell it by. */
    if (a->nidle_gaps > 0 && a->m->events.napis + a->m->events.nsyncs > 0) {
        idle_gap_rows(x);
        if (a->rg[run].idle_ms.ok && a->rg[run].idle_ms.v > 0)
            idle_breakdown_rows(x);
        host_busy_by_region(x);
    }
}
