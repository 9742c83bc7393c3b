/* The text report's timeline sections: the listed regions with their figures and verdicts, and,
 * for timelines that are not built-in runs (imports, profiles), where the GPU time went: kernels
 * by total time and copies by direction and memory kind, as `nsys stats` tables them. */
#include <string.h>

#include "sections.h"
#include "source.h"
#include "tables.h"
#include "text_parts.h"

static int depth_of(const run_model *m, int i)
{
    int d = 0;
    for (int p = m->regions[i].parent; p >= 0 && d < 8; p = m->regions[p].parent)
        d++;
    return d;
}

/* Repeated ranges, one row per name where its first instance is listed: how many, the median
 * instance's wall, the shortest and the longest (which one), the median busy and the median
 * instance's verdict, with the longest's where it differs. Nested groups are indented as their
 * instances are in the regions table. */
static void group_table(ctx *x, const analysis *a, int instances)
{
    const run_model *m = a->m;
    static const text_col cols[] = {{"median_ms", 10, false}, {"min_ms", 9, false}, {"max_ms", 10, false}};
    static const text_col busy = {"median_busy_pct", 12, false};
    int ngroups = 0;
    for (int li = 0; li < a->nlisted; li++)
        ngroups += range_group_first_listed(a, li);
    char lede[200];
    snprintf(lede, sizeof lede, "one row per name: %d listed instances in %d row%s; the JSON and CSV reports list every "
             "instance", instances, ngroups, ngroups == 1 ? "" : "s");
    fprintf(x->out, "\n%sRepeated ranges%s  ", c(x, BOLD), c(x, RESET));
    wrapped(x, 17, lede);
    fprintf(x->out, "%s%-24s %5s", c(x, DIM), "range", "count");
    for (int i = 0; i < 4; i++) {
        const text_col *col = i < 3 ? &cols[i] : &busy;
        const metric_def *d = metric_find(&range_group_table, col->key);
        char head[32];
        snprintf(head, sizeof head, strcmp(d->unit, "%") == 0 ? "%s%s" : "%s %s", d->label, d->unit);
        fprintf(x->out, " %*.*s", col->width, col->width, head);
        if (i == 2)
            fprintf(x->out, " %-10s", "longest");
    }
    fprintf(x->out, " %s%s\n", "verdict", c(x, RESET));
    for (int li = 0; li < a->nlisted; li++) {
        if (!range_group_first_listed(a, li))
            continue;
        const range_group *g = range_group_shown(a, a->listed[li], NULL);
        char label[160], name[160], which[64], longest[16];
        int depth = depth_of(m, a->listed[li]);
        depth = depth > 0 ? depth - 1 : 0;
        if (g->domain)
            snprintf(label, sizeof label, "%*s%s@%s", 2 * depth, "", g->domain, g->name);
        else
            snprintf(label, sizeof label, "%*s%s", 2 * depth, "", g->name);
        clipped(label, 24, name, sizeof name);
        fprintf(x->out, "%-24s %5d", name, g->count);
        fig_cells(x, &range_group_table, g, cols, 3);
        range_instance_label(m, g, g->longest, which, sizeof which);
        clipped(which, 10, longest, sizeof longest);
        fprintf(x->out, " %-10s", longest);
        fig_cell(x, &range_group_table, g, &busy);
        verdict_kind mv = a->rg[g->median].verdict, lv = a->rg[g->longest].verdict;
        fprintf(x->out, " %s\n", verdict_name(mv));
        if (lv != mv)
            fprintf(x->out, "%*s(its verdict: %s)\n", 24 + 6 + 11 + 10 + 11 + 1, "", verdict_name(lv)); /* under "longest" */
    }
}

static void region_table(ctx *x, const analysis *a)
{
    const run_model *m = a->m;
    /* Five figures, so the table fits TEXT_WIDTH with 30-column names; the kind shows in the
     * indentation (workloads and ranges under the run), launch time in the verdicts that need it;
     * the copy:compute ratio is in the JSON and CSV. */
    static const text_col cols[] = {
        {"wall_ms", 9, false}, {"kernel_ms", 9, false}, {"memcpy_ms", 9, false}, {"gpu_span_ms", 11, false},
        {"busy_pct", 9, false},
    };
    enum { NCOLS = sizeof cols / sizeof cols[0] };
    /* Kernel time is the work a range launched, which may run long after it ends (a step of 1.4 ms
     * queues 15 ms of kernels); its GPU span says over how long, and busy is the GPU during the
     * range's own wall, whoever's work it ran: the three side by side, so none reads as wrong. */
    const char *note = REGION_ATTRIBUTION, *cut = strstr(note, " even when");
    fprintf(x->out, "\n%sTimeline%s  regions: %.*s\n         %s\n", c(x, BOLD), c(x, RESET), (int)(cut - note), note, cut);
    fprintf(x->out, "%s%-30s", c(x, DIM), "region");
    for (int i = 0; i < NCOLS; i++) {
        const metric_def *d = metric_find(&region_metric_table, cols[i].key);
        char head[32];
        snprintf(head, sizeof head, d->unit[0] && strcmp(d->unit, "%") != 0 ? "%s %s" : "%s%s", d->label,
                 strcmp(d->unit, "%") == 0 ? "%" : d->unit);
        fprintf(x->out, " %*.*s", cols[i].width, cols[i].width, head);
    }
    fprintf(x->out, " %s%s\n", "verdict", c(x, RESET));
    int grouped = 0;
    for (int li = 0; li < a->nlisted; li++) {
        const region_metrics *r = &a->rg[a->listed[li]];
        const region *rg = &m->regions[r->region];
        if (range_group_shown(a, r->region, NULL)) {
            grouped++; /* a repeated range: its group's row, below */
            continue;
        }
        char label[160], name[160];
        int depth = depth_of(m, r->region);
        if (rg->domain)
            snprintf(label, sizeof label, "%*s%s@%s", 2 * depth, "", rg->domain, rg->name);
        else
            snprintf(label, sizeof label, "%*s%s", 2 * depth, "", rg->name);
        clipped(label, 30, name, sizeof name);
        fprintf(x->out, "%-30s", name);
        fig_cells(x, &region_metric_table, r, cols, NCOLS);
        fprintf(x->out, " %s\n", verdict_name(r->verdict));
    }
    if (a->unlisted > 0)
        fprintf(x->out, "  (%d shorter regions not listed; every region is in the JSON report)\n", a->unlisted);
    if (grouped > 0)
        group_table(x, a, grouped);
}

/* A repeated range's verdict and advice, once: the median instance's verdict, the longest's where
 * it differs, and each distinct advice once with how many instances got it. */
static void group_verdict(ctx *x, const analysis *a, const range_group *g)
{
    const run_model *m = a->m;
    const region_metrics *med = &a->rg[g->median], *lon = &a->rg[g->longest];
    if (med->verdict == VERDICT_NO_GPU && lon->verdict == VERDICT_NO_GPU)
        return;
    char name[64], line[VERDICT_TEXT + 256], which[RANGE_GROUP_NAME], wall[32];
    clipped(g->name, 30, name, sizeof name);
    fprintf(x->out, "%-30s ", name);
    range_instance_label(m, g, g->median, which, sizeof which);
    snprintf(line, sizeof line, "%d instances; the median, %s (%s): %s", g->count, which,
             fig(x, wall, sizeof wall, &region_metric_table, med, "wall_ms", true), med->verdict_text);
    wrapped(x, 31, line);
    if (lon->verdict != med->verdict) {
        range_instance_label(m, g, g->longest, which, sizeof which);
        snprintf(line, sizeof line, "the longest, %s (%s): %s", which,
                 fig(x, wall, sizeof wall, &region_metric_table, lon, "wall_ms", true), lon->verdict_text);
        fprintf(x->out, "%-30s ", "");
        wrapped(x, 31, line);
    }
    for (int i = 0; i < g->nadvice; i++) {
        snprintf(line, sizeof line, "-> %s (%d of %d)", a->rg[g->advice[i].region].advice, g->advice[i].count, g->count);
        fprintf(x->out, "%-30s ", "");
        wrapped(x, 31, line);
    }
    if (g->advice_other > 0) {
        snprintf(line, sizeof line, "(%d more instances with other advice; the JSON report has each)", g->advice_other);
        fprintf(x->out, "%-30s ", "");
        wrapped(x, 31, line);
    }
    if (g->by_time > 0) {
        snprintf(line, sizeof line, "(%d GPU events had no launching call in the timeline: attributed by time)", g->by_time);
        fprintf(x->out, "%-30s ", "");
        wrapped(x, 31, line);
    }
}

static void verdict_lines(ctx *x, const analysis *a)
{
    const run_model *m = a->m;
    fprintf(x->out, "\n%sVerdicts and advice%s\n", c(x, BOLD), c(x, RESET));
    for (int li = 0; li < a->nlisted; li++) {
        const region_metrics *r = &a->rg[a->listed[li]];
        if (range_group_shown(a, r->region, NULL)) {
            if (range_group_first_listed(a, li))
                group_verdict(x, a, range_group_shown(a, r->region, NULL));
            continue;
        }
        if (r->verdict == VERDICT_NO_GPU && li > 0)
            continue;
        char name[64];
        clipped(m->regions[r->region].name, 30, name, sizeof name);
        fprintf(x->out, "%-30s ", name);
        wrapped(x, 31, r->verdict_text);
        if (r->advice[0]) {
            fprintf(x->out, "%-30s ", "");
            char line[VERDICT_TEXT + 4];
            snprintf(line, sizeof line, "-> %s", r->advice);
            wrapped(x, 31, line);
        }
        if (r->by_time > 0) {
            char line[160];
            snprintf(line, sizeof line, "(%d GPU events had no launching call in the timeline: attributed by time)",
                     r->by_time);
            fprintf(x->out, "%-30s ", "");
            wrapped(x, 31, line);
        }
    }
}

static void kernels_by_time(ctx *x, const region_metrics *r)
{
    if (r->nkstats == 0)
        return;
    fprintf(x->out, "\n%sKernels by total time%s  (%d names, %d launches; occupancy is theoretical)\n", c(x, BOLD),
            c(x, RESET), r->nkstats, r->nkernels);
    fprintf(x->out, "%s%-30s %6s %10s %6s %8s %8s %8s %8s %5s%s\n", c(x, DIM), "kernel", "count", "total ms",
            "share", "min ms", "median", "max ms", "stddev", "occ%", c(x, RESET));
    static const text_col cols[] = {
        {"total_ms", 10, false}, {"share_pct", 6, false}, {"min_ms", 8, false}, {"median_ms", 8, false},
        {"max_ms", 8, false},    {"stddev_ms", 8, false}, {"occupancy_pct", 5, false},
    };
    int shown = table_shown(&table_kernel, r->nkstats, false);
    for (int i = 0; i < shown; i++) {
        const kernel_stat *k = &r->kernels[i];
        char full[512], name[64];
        kernel_display_name(k->name, full, sizeof full);
        clipped(full, 30, name, sizeof name);
        fprintf(x->out, "%-30s %6d", name, k->count);
        fig_cells(x, &kernel_stat_table, k, cols, (int)(sizeof cols / sizeof cols[0]));
        fputc('\n', x->out);
        /* A name cut to its column is written whole under its row: five ResNet kernels cut to
         * one "sm80_xmma_fprop_implicit_ge..." said nothing apart. */
        if (strcmp(name, full) != 0) {
            fprintf(x->out, "%s  = ", c(x, DIM));
            wrapped(x, 4, full);
            fputs(c(x, RESET), x->out);
        }
    }
    if (r->nkstats > shown)
        fprintf(x->out, "  (%d more kernel names in the JSON report)\n", r->nkstats - shown);
}

static void copies_by_kind(ctx *x, const region_metrics *r)
{
    if (r->nflows == 0)
        return;
    fprintf(x->out, "\n%sCopies%s  by direction and host memory kind, then memsets by the memory they set\n", c(x, BOLD),
            c(x, RESET));
    fprintf(x->out, "%s%-6s %-9s %7s %12s %10s %8s %12s%s\n", c(x, DIM), "dir", "memory", "count", "bytes", "ms",
            "GB/s", "per copy", c(x, RESET));
    static const text_col cols[] = {{"bytes", 12, true}, {"ms", 10, false}, {"gbps", 8, false}, {"mean_bytes", 12, true}};
    for (int i = 0; i < r->nflows; i++) {
        const copy_flow *f = &r->flows[i];
        /* A memset has no direction; its row says what it is. */
        fprintf(x->out, "%-6s %-9s %7d", f->memset ? "memset" : copy_dir_name(f->dir), mem_kind_name(f->host), f->count);
        fig_cells(x, &copy_flow_table, f, cols, (int)(sizeof cols / sizeof cols[0]));
        fputc('\n', x->out);
    }
}

/* The API calls by total time, as nsys stats lists them, named as the run's source names them. */
static void apis_by_time(ctx *x, const run_model *m, const region_metrics *r)
{
    if (r->napistats == 0)
        return;
    fprintf(x->out, "\n%s%s by total time%s  (%d names, %d calls)\n", c(x, BOLD), source_of(m->source)->api_calls,
            c(x, RESET), r->napistats, r->napis);
    fprintf(x->out, "%s%-32s %8s %10s %6s %10s %10s %10s%s\n", c(x, DIM), "call", "count", "total ms", "share",
            "median us", "min us", "max us", c(x, RESET));
    static const text_col cols[] = {
        {"total_ms", 10, false}, {"share_pct", 6, false}, {"median_us", 10, false}, {"min_us", 10, false},
        {"max_us", 10, false},
    };
    int shown = table_shown(&table_api, r->napistats, false);
    for (int i = 0; i < shown; i++) {
        const api_stat *k = &r->apis[i];
        char name[40];
        clipped(k->name, 32, name, sizeof name);
        fprintf(x->out, "%-32s %8d", name, k->count);
        fig_cells(x, &api_stat_table, k, cols, (int)(sizeof cols / sizeof cols[0]));
        fputc('\n', x->out);
    }
    if (r->napistats > shown)
        fprintf(x->out, "  (%d more call names in the JSON and CSV reports)\n", r->napistats - shown);
}

/* profile --delay/--duration/--capture-range: what was asked, then each window with why it opened
 * and closed and what went unrecorded around it; its own figures are its region's, in the
 * timeline below. */
static void capture_windows(ctx *x, const analysis *a)
{
    const capture_info *ci = &a->m->capture;
    if (!ci->asked[0] && a->ncapture == 0)
        return;
    fprintf(x->out, "\n%sCapture%s  ", c(x, BOLD), c(x, RESET));
    char what[800];
    snprintf(what, sizeof what, "recorded %s: %d window%s", ci->asked[0] ? ci->asked : "in windows", a->ncapture,
             a->ncapture == 1 ? "" : "s");
    wrapped(x, 9, what);
    if (a->ncapture == 0)
        return;
    static const text_col cols[] = {
        {"wall_ms", 10, false}, {"kernels", 8, false}, {"before_ms", 10, false},
        {"calls_before", 12, false}, {"after_ms", 10, false}, {"calls_after", 11, false},
    };
    enum { NCOLS = sizeof cols / sizeof cols[0] };
    fprintf(x->out, "%s%-12s", c(x, DIM), "");
    for (int i = 0; i < NCOLS; i++) {
        const metric_def *d = metric_find(&capture_table, cols[i].key);
        char head[32];
        snprintf(head, sizeof head, d->unit[0] ? "%s %s" : "%s", d->label, d->unit);
        fprintf(x->out, " %*.*s", cols[i].width, cols[i].width, head);
    }
    fprintf(x->out, "%s\n", c(x, RESET));
    for (int i = 0; i < a->ncapture; i++) {
        const capture_window *w = &ci->windows[a->capture[i].window];
        char label[32];
        if (a->m->nprocesses > 1)
            snprintf(label, sizeof label, "%u #%d", w->pid, w->number);
        else
            snprintf(label, sizeof label, "capture %d", w->number);
        fprintf(x->out, "%-12s", label);
        fig_cells(x, &capture_table, &a->capture[i], cols, NCOLS);
        fprintf(x->out, "\n");
        char why[700];
        snprintf(why, sizeof why, "from %s to %s", w->began_detail, w->ended_detail);
        fprintf(x->out, "  ");
        wrapped(x, 2, why);
    }
}

void text_regions(ctx *x, const analysis *a)
{
    if (a->nlisted == 0) /* the run is always listed where there are regions; this guards the index */
        return;
    capture_windows(x, a);
    region_table(x, a);
    verdict_lines(x, a);
    /* The whole run as nsys stats tables it, for every source. */
    kernels_by_time(x, &a->rg[a->listed[0]]);
    copies_by_kind(x, &a->rg[a->listed[0]]);
    apis_by_time(x, a->m, &a->rg[a->listed[0]]);
    text_idle(x, a);
}
