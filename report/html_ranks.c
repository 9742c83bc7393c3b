/* The HTML report's Ranks section (a job of several ranks or GPU processes, ranks.h): per rank and
 * per GPU the shares of compute, NCCL communication, copies and idle, and the stragglers, each
 * figure the registry's (rank_share_table, straggler_table) marked with its place in the JSON. */
#include <stdio.h>

#include "html_parts.h"
#include "tables.h"

/* A rank or GPU row's name, with @host across hosts. */
static void share_name(html_ctx *x, const rank_analysis *ra, const rank_share *r, bool gpu)
{
    char name[160];
    rank_share_label(r, gpu, ra->nhosts > 1, name, sizeof name);
    sb_html(x->b, name);
}

/* The shares per rank (or process), or per GPU when gpu: rows n of them at JSON's rows or gpus. */
static void share_rows(html_ctx *x, const rank_analysis *ra, const rank_share *rows, int n, bool gpu)
{
    static const char *const cols[] = {"busy_pct", "compute_pct", "comm_pct", "copy_pct", "idle_pct",
                                       "compute_ms", "comm_ms", "overlap_pct", "coll_skew_us"};
    int ncols = (int)(sizeof cols / sizeof cols[0]) - (gpu ? 1 : 0);
    sb_printf(x->b, "<div class=\"scroll\"><table class=\"ranks sortable\">\n<thead><tr><th data-sort=\"text\">%s</th>"
                    "<th data-sort=\"num\" class=\"r\">kernels</th><th data-sort=\"num\" class=\"r\">NCCL</th>",
              gpu ? "GPU" : ra->by_rank ? "rank" : "process");
    for (int c = 0; c < ncols; c++)
        html_fig_heading(x, &rank_share_table, cols[c]);
    sb_add(x->b, "</tr></thead>\n<tbody>\n");
    for (int i = 0; i < n; i++) {
        char path[FIG_PATH];
        if (gpu)
            path_rank_gpu(path, i);
        else
            path_rank_row(path, i);
        sb_add(x->b, "<tr><td>");
        share_name(x, ra, &rows[i], gpu);
        sb_printf(x->b, "</td><td class=\"r\" data-v=\"%d\">%d</td><td class=\"r\" data-v=\"%d\">%d</td>",
                  rows[i].kernels, rows[i].kernels, rows[i].comm_kernels, rows[i].comm_kernels);
        for (int c = 0; c < ncols; c++)
            html_fig_cell(x, &rank_share_table, &rows[i], cols[c], path, false);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

/* A job of several ranks (ranks.h): shares per rank and GPU, then the stragglers. */
void html_ranks(html_ctx *x)
{
    const rank_analysis *ra = x->a->ranks;
    sb_printf(x->b, "<p class=\"lede\">Where each %s's GPU time went: %d %s on %d host%s; shares of the job's GPU "
                    "window (first to last GPU event of any rank); comm is NCCL time not hidden under compute; hidden "
                    "is the share of NCCL time a compute kernel of the same rank ran beside.</p>\n",
              ra->by_rank ? "rank" : "process", ra->nrows, ra->by_rank ? "ranks" : "processes", ra->nhosts,
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
    for (int c = 0; c < 3; c++)
        html_fig_heading(x, &straggler_table, cols[c]);
    sb_add(x->b, "</tr></thead>\n<tbody>\n");
    int shown = table_shown(&table_straggler, ra->nstragglers, true);
    for (int i = 0; i < shown; i++) {
        const straggler *s = &ra->stragglers[i];
        char path[FIG_PATH];
        path_straggler(path, i);
        sb_add(x->b, "<tr><td><code>");
        sb_html(x->b, s->name);
        sb_printf(x->b, "</code></td><td class=\"r\" data-v=\"%d\">%d</td><td>", s->matched, s->matched);
        if (s->straggler >= 0) {
            share_name(x, ra, &ra->rows[s->straggler], false);
            sb_printf(x->b, " (%d of %d)", s->straggler_times, s->matched);
        }
        sb_add(x->b, "</td>");
        for (int c = 0; c < 3; c++)
            html_fig_cell(x, &straggler_table, s, cols[c], path, false);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}
