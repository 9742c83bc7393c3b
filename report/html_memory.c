/* The HTML report's Memory section (memory.h): a failed allocation first, with the request and
 * what was live; per process and device the peak, reserved and device-wide memory and the time in
 * allocation calls; what was live at each peak, by call site; what was never freed, with its growth
 * per step; each range's peak and growth. Every figure the registry's, marked with its place in
 * the JSON (figure_path.h). The bands over time are under the timeline (html_events.c). */
#include <stdio.h>

#include "html_parts.h"
#include "memory.h"

#define HTML_MEMORY_ROWS 50 /* rows of a list; the JSON has every one */

static void headings(html_ctx *x, const metric_table *t, const char *const *cols, int n)
{
    for (int c = 0; c < n; c++)
        html_fig_heading(x, t, cols[c]);
    sb_add(x->b, "</tr></thead>\n<tbody>\n");
}

static void cells(html_ctx *x, const metric_table *t, const void *row, const char *const *cols, int n, const char *path)
{
    for (int c = 0; c < n; c++)
        html_fig_cell(x, t, row, cols[c], path, true);
}

/* Holders first..first+n under the JSON row at path (its "holders" or "allocators", key). */
static void holders(html_ctx *x, int first, int n, const char *path, const char *key, const char *what)
{
    const memory_analysis *m = x->a->memory;
    static const char *const cols[] = {"bytes", "count", "share_pct"};
    sb_printf(x->b, "<div class=\"scroll\"><table class=\"memory-table sortable\">\n<thead><tr><th data-sort=\"text\">%s"
                    "</th>", what);
    headings(x, &memory_holder_table, cols, 3);
    for (int i = 0; i < n; i++) {
        char p[FIG_PATH];
        snprintf(p, sizeof p, "%.60s.%s[%d]", path, key, i);
        sb_add(x->b, "<tr><td class=\"host\"><code>");
        sb_html(x->b, m->holders[first + i].at);
        sb_add(x->b, "</code></td>");
        cells(x, &memory_holder_table, &m->holders[first + i], cols, 3, p);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

static void failures(html_ctx *x)
{
    const memory_analysis *m = x->a->memory;
    for (int i = 0; i < m->nfailures && i < HTML_MEMORY_ROWS; i++) {
        const mem_failure_row *f = &m->failures[i];
        char path[FIG_PATH];
        snprintf(path, sizeof path, "analysis.memory.failures[%d]", i);
        sb_printf(x->b, "<p class=\"tl-window\"><b>%s</b>: process %u, thread %u, GPU %u: <code>",
                  f->out_of_memory ? "Out of memory" : "A failed allocation", f->pid, f->tid, f->device);
        sb_html(x->b, f->api);
        sb_add(x->b, "</code> (");
        sb_html(x->b, f->error);
        sb_add(x->b, ") asked ");
        html_fig(x, &memory_failure_table, f, "requested_bytes", path, true);
        if (f->at[0]) {
            sb_add(x->b, " at <code>");
            sb_html(x->b, f->at);
            sb_add(x->b, "</code>");
        }
        if (f->in[0]) {
            sb_add(x->b, " in ");
            sb_html(x->b, f->in);
        }
        sb_add(x->b, ", ");
        html_fig(x, &memory_failure_table, f, "t_ms", path, true);
        sb_add(x->b, " from the start. Live then: ");
        html_fig_why(x, &memory_failure_table, f, "live_bytes", path, true);
        sb_add(x->b, " in ");
        html_fig(x, &memory_failure_table, f, "live_count", path, false);
        sb_add(x->b, " allocations (");
        html_fig(x, &memory_failure_table, f, "untracked", path, false);
        sb_add(x->b, " not held by the library's table); on the device ");
        html_fig_why(x, &memory_failure_table, f, "device_used_bytes", path, true);
        sb_add(x->b, " of ");
        html_fig(x, &memory_failure_table, f, "device_total_bytes", path, true);
        sb_add(x->b, " in use (NVML).</p>\n");
        if (f->nholders)
            holders(x, f->first_holder, f->nholders, path, "holders", "live then, by call site");
    }
}

static void series(html_ctx *x)
{
    const memory_analysis *m = x->a->memory;
    static const char *const cols[] = {"peak_bytes", "peak_ms", "reserved_peak_bytes", "device_used_peak_bytes",
                                       "device_total_bytes", "pinned_peak_bytes", "managed_peak_bytes",
                                       "never_freed_bytes", "allocations", "frees", "alloc_calls", "alloc_call_ms",
                                       "failed"};
    enum { NCOLS = sizeof cols / sizeof cols[0] };
    sb_add(x->b, "<div class=\"scroll\"><table class=\"memory-table sortable\">\n<thead><tr><th data-sort=\"text\">process"
                 "</th><th data-sort=\"text\">GPU</th><th data-sort=\"text\">peak in</th>");
    headings(x, &memory_series_table, cols, NCOLS);
    for (int i = 0; i < m->nseries; i++) {
        const mem_series *s = &m->series[i];
        char path[FIG_PATH];
        snprintf(path, sizeof path, "analysis.memory.series[%d]", i);
        if (s->device_only)
            sb_printf(x->b, "<tr><td>(the device)</td><td>%u</td><td></td>", s->device);
        else
            sb_printf(x->b, "<tr><td>%u</td><td>%u</td><td>", s->pid, s->device);
        if (!s->device_only) {
            sb_html(x->b, s->peak_in);
            sb_add(x->b, "</td>");
        }
        cells(x, &memory_series_table, s, cols, NCOLS, path);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
    for (int i = 0; i < m->nseries; i++) {
        const mem_series *s = &m->series[i];
        char path[FIG_PATH], what[96];
        snprintf(path, sizeof path, "analysis.memory.series[%d]", i);
        if (s->nholders) {
            snprintf(what, sizeof what, "live at the peak of process %u on GPU %u, by call site", s->pid, s->device);
            holders(x, s->first_holder, s->nholders, path, "holders", what);
        }
        if (s->nlibs > 1)
            holders(x, s->first_lib, s->nlibs, path, "allocators", "by the library that asked");
    }
}

static void leaks(html_ctx *x)
{
    const memory_analysis *m = x->a->memory;
    if (!m->nleaks)
        return;
    static const char *const cols[] = {"bytes", "count", "per_step_bytes", "steps_pct"};
    sb_add(x->b, "<h3>Never freed</h3>\n<p>Allocations of the record still live at its end, by call site; per step: the "
                 "bytes of it one instance of the process's repeated range allocated and never freed (the median), and "
                 "how many instances left some: in most of them, a leak per step.</p>\n<div class=\"scroll\"><table "
                 "class=\"memory-table sortable\">\n<thead><tr><th data-sort=\"text\">call site</th><th "
                 "data-sort=\"text\">step</th>");
    headings(x, &memory_leak_table, cols, 4);
    for (int i = 0; i < m->nleaks && i < HTML_MEMORY_ROWS; i++) {
        const mem_leak *l = &m->leaks[i];
        char path[FIG_PATH];
        snprintf(path, sizeof path, "analysis.memory.never_freed[%d]", i);
        sb_add(x->b, "<tr><td class=\"host\"><code>");
        sb_html(x->b, l->at);
        sb_add(x->b, "</code></td><td>");
        sb_html(x->b, l->step);
        if (l->per_step)
            sb_add(x->b, " <b>leak per step</b>");
        sb_add(x->b, "</td>");
        cells(x, &memory_leak_table, l, cols, 4, path);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

static void ranges(html_ctx *x)
{
    const memory_analysis *m = x->a->memory;
    if (!m->nranges)
        return;
    static const char *const cols[] = {"instances", "peak_bytes", "growth_bytes", "growth_total_bytes", "growing_pct"};
    sb_add(x->b, "<h3>Per range and step</h3>\n<div class=\"scroll\"><table class=\"memory-table sortable\">\n<thead><tr>"
                 "<th data-sort=\"text\">range</th>");
    headings(x, &memory_range_table, cols, 5);
    for (int i = 0; i < m->nranges && i < HTML_MEMORY_ROWS; i++) {
        char path[FIG_PATH];
        snprintf(path, sizeof path, "analysis.memory.ranges[%d]", i);
        sb_add(x->b, "<tr><td>");
        sb_html(x->b, m->ranges[i].name);
        sb_add(x->b, "</td>");
        cells(x, &memory_range_table, &m->ranges[i], cols, 5, path);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

void html_memory(html_ctx *x)
{
    failures(x);
    series(x);
    leaks(x);
    ranges(x);
}
