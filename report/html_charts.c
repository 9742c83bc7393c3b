/* The HTML report's charts of a built-in run, drawn as inline SVG from the analysis: the ladder
 * against cuBLAS, copy versus compute, and the speedup over the CPU (html_timeline.c draws the
 * timelines). Each chart is a fixed 1180-unit-wide drawing that the page's CSS scales to its
 * column; every string in it goes through svg.c's escaping. A label that shows a figure is the
 * registry's, marked with its place in the JSON (svg_fig), and so is a figure in a mark's tip. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html_parts.h"
#include "svg.h"

#define CHART_W HTML_CHART_W
#define LABEL_W 200.0 /* the workload names on the left */

static bool ran(const workload_run *w)
{
    return w->status != WL_SKIPPED && w->status != WL_ERROR;
}

/* A workload these charts draw: one that ran, at the size the page details (a sweep's largest). */
static bool shown(const analysis *a, const workload_metrics *r)
{
    return ran(r->w) && workload_in_detail(a, r);
}

/* "n/a (reason)" in a chart, with the reason also listed under Not available. */
static void na_text(html_ctx *x, double at, double y, const char *cls, const char *what, const char *why)
{
    char t[160];
    snprintf(t, sizeof t, "n/a (%s)", why);
    html_note(x, what, why);
    svg_text(x->b, at, y, "start", cls, t);
}

/* "cuda-naive  pageable" as two SVG texts: the name, and the memory kind in a quieter tone. */
static void row_label(strbuf *b, const workload_run *w, double y)
{
    svg_text(b, 0, y, "start", "lbl", w->name);
    svg_text(b, LABEL_W - 10, y, "end", "mem", w->needs_gpu ? (w->host_memory == MEM_PINNED ? "pinned" : "pageable") : "host");
}

/* ---------- the ladder: % of cuBLAS ---------- */

#define LAD_ROW 22.0
#define LAD_X0 LABEL_W
#define LAD_X1 560.0
#define LAD_KN 660.0   /* kernel name */
#define LAD_OCC 885.0  /* its occupancy meter, percentage and limiter */

static int ladder_lines(const workload_metrics *r)
{
    int k = r->nkernels < 1 ? 1 : (r->nkernels > 3 ? 3 : r->nkernels);
    return k;
}

/* The rung's bar: its kernel time as a percentage of the library's, with its figure at the end. */
static void rung(html_ctx *x, const workload_metrics *r, double top, double cy)
{
    const analysis *a = x->a;
    const workload_run *w = r->w;
    const workload_metrics *lib = r->library >= 0 ? &a->wl[r->library] : NULL;
    bool is_lib = lib == r;
    if (!r->vs_cublas_pct.ok) {
        na_text(x, LAD_X0 + 6, cy + 4, "na", "% of cuBLAS", metric_why(&r->vs_cublas_pct));
        return;
    }
    const metric_table *t = &workload_metric_table;
    char path[FIG_PATH], tip[256], pct[32], ms[32], lib_ms[32];
    path_workload(path, (int)(r - a->wl));
    if (is_lib || !lib)
        snprintf(tip, sizeof tip, "%s (%s) is the reference: 100%%", w->name, html_memory_word(w));
    else
        snprintf(tip, sizeof tip, "%s (%s): %s of %s\nkernel %s vs %s", w->name, html_memory_word(w),
                 html_fig_text(t, r, "vs_cublas_pct", true, pct, sizeof pct), lib->w->name,
                 html_fig_text(t, r, "kernel_ms", true, ms, sizeof ms),
                 html_fig_text(t, lib, "kernel_ms", true, lib_ms, sizeof lib_ms));
    double bw = svg_scale(r->vs_cublas_pct.v, 0, top, LAD_X0, LAD_X1) - LAD_X0;
    svg_rect(x->b, LAD_X0, cy - 7, bw, 14, 1, is_lib ? "bar lib" : "bar rung", NULL, tip);
    svg_fig(x->b, LAD_X0 + bw + 6, cy + 4, "start", "val", NULL, t, r, "vs_cublas_pct", path, true);
    if (is_lib)
        svg_text(x->b, LAD_X0 + 6, cy + 4, "start", "in", "the library itself");
}

/* Kernel k of a rung beside its bar, with its theoretical occupancy: a small meter, the figure and
 * what limits it. */
static void rung_kernel(html_ctx *x, const workload_metrics *r, int k, double ky)
{
    strbuf *b = x->b;
    if (r->nkernels == 0) {
        svg_text(b, LAD_KN, ky + 4, "start", "na", "no kernels recorded");
        return;
    }
    const kernel_summary *s = &r->kernels[k];
    char name[160], t[256], occ[32], path[FIG_PATH];
    kernel_display_name(s->name, name, sizeof name);
    if (strlen(name) > 33)
        strcpy(name + 30, "...");
    svg_text(b, LAD_KN, ky + 4, "start", "kn", name);
    if (!s->occupancy_pct.ok) {
        na_text(x, LAD_OCC, ky + 4, "na", "occupancy", metric_why(&s->occupancy_pct));
        return;
    }
    path_kernel_summary(path, (int)(r - x->a->wl), k);
    snprintf(t, sizeof t, "%s\ntheoretical occupancy %s (%d blocks/SM), limited by %s", name,
             html_fig_text(&kernel_summary_table, s, "occupancy_pct", true, occ, sizeof occ), s->active_blocks,
             s->limiter[0] ? s->limiter : "none");
    svg_rect(b, LAD_OCC, ky - 4, 60, 8, 0, "meter", NULL, NULL);
    svg_rect(b, LAD_OCC, ky - 4, 60 * s->occupancy_pct.v / 100, 8, 0, "meter-fill", NULL, t);
    svg_fig(b, LAD_OCC + 98, ky + 4, "end", "val", NULL, &kernel_summary_table, s, "occupancy_pct", path, true);
    bool limited = s->limiter[0] && strcmp(s->limiter, "none") != 0;
    svg_text(b, LAD_OCC + 106, ky + 4, "start", limited ? "lim" : "quiet", limited ? s->limiter : "none");
}

void html_ladder(html_ctx *x)
{
    const analysis *a = x->a;
    strbuf *b = x->b;
    double top = 100;
    int rows = 0, groups = 0;
    for (int p = PREC_FP32; p <= PREC_TF32; p++) {
        bool any = false;
        for (int i = 0; i < a->nwl; i++) {
            const workload_metrics *r = &a->wl[i];
            if (!r->w->needs_gpu || !shown(a, r) || (int)r->w->prec != p)
                continue;
            any = true;
            rows += ladder_lines(r);
            if (r->vs_cublas_pct.ok && r->vs_cublas_pct.v > top)
                top = r->vs_cublas_pct.v;
        }
        groups += any;
    }
    if (rows == 0)
        return; /* sections.h shows the ladder only where a GPU workload ran */
    top = ceil(top / 10) * 10;
    double h = 26 + groups * 30 + rows * LAD_ROW + 8;
    svg_open(b, CHART_W, h, "ladder", "Kernel time of each GPU workload as a percentage of cuBLAS's");
    /* Axis: 0, 25, 50, 75, 100 (and on, when a kernel beats the library). */
    double step = top > 100 ? svg_nice_step(top, 5) : 25;
    for (double v = 0; v <= top + 1e-9; v += step) {
        double gx = svg_scale(v, 0, top, LAD_X0, LAD_X1);
        svg_line(b, gx, 18, gx, h - 4, fabs(v - 100) < 1e-9 ? "ref" : "grid");
        char t[sizeof(num_text) + 1];
        snprintf(t, sizeof t, "%s%%", svg_tick(v).s); /* a multiple of 25 or a 1, 2 or 5 step */
        svg_text(b, gx, 12, "middle", "tick", t);
    }
    svg_text(b, LAD_KN, 12, "start", "colhead", "kernel");
    svg_text(b, LAD_OCC, 12, "start", "colhead", "occupancy, limited by");
    double y = 26;
    for (int p = PREC_FP32; p <= PREC_TF32; p++) {
        bool heading = false;
        for (int i = 0; i < a->nwl; i++) {
            const workload_metrics *r = &a->wl[i];
            const workload_run *w = r->w;
            if (!w->needs_gpu || !shown(a, r) || (int)w->prec != p)
                continue;
            if (!heading) {
                char head[96];
                snprintf(head, sizeof head, "%s against %s, same host memory", p == PREC_TF32 ? "TF32" : "FP32",
                         p == PREC_TF32 ? "cublas-tf32" : "cublas-sgemm");
                svg_text(b, 0, y + 16, "start", "group", head);
                y += 30;
                heading = true;
            }
            int lines = ladder_lines(r);
            double cy = y + LAD_ROW / 2;
            row_label(b, w, cy + 4);
            rung(x, r, top, cy);
            for (int k = 0; k < lines; k++)
                rung_kernel(x, r, k, y + k * LAD_ROW + LAD_ROW / 2);
            y += lines * LAD_ROW;
        }
    }
    svg_close(b);
}

/* ---------- copy versus compute ---------- */

#define CC_ROW 24.0
#define CC_X0 LABEL_W
#define CC_X1 540.0
#define CC_RATIO 705.0 /* copy:compute, right-aligned */
#define CC_BW0 745.0   /* H2D GB/s column */
#define CC_BW1 975.0   /* D2H GB/s column */
#define CC_BW_W 120.0

/* One copy direction's figures: the workload's GB/s and its share of the run's fastest, the run's
 * fastest, and the fastest with each host-memory kind (registry keys). */
typedef struct {
    const char *dir, *words, *cls;
    const char *gbps, *fastest_pct;
    const char *best, *pinned, *pageable, *pinned_x; /* pinned, pageable: the medians the summary compares */
} copy_direction;

static const copy_direction directions[2] = {
    {"H2D", "host to device", "bar h2d", "h2d_gbps", "h2d_fastest_pct", "fastest_h2d_gbps", "median_h2d_pinned_gbps",
     "median_h2d_pageable_gbps", "pinned_h2d_speedup"},
    {"D2H", "device to host", "bar d2h", "d2h_gbps", "d2h_fastest_pct", "fastest_d2h_gbps", "median_d2h_pinned_gbps",
     "median_d2h_pageable_gbps", "pinned_d2h_speedup"},
};

/* A GB/s bar against the column's scale (x0), with its figure and its share of the fastest. */
static void gbps_cell(html_ctx *x, double x0, double cy, const workload_metrics *r, const copy_direction *d,
                      double top)
{
    strbuf *b = x->b;
    const metric_table *t = &workload_metric_table;
    const metric *g = metric_get(t, r, d->gbps, NULL);
    if (!g->ok) {
        na_text(x, x0, cy + 4, "na", d->dir, metric_why(g));
        return;
    }
    char path[FIG_PATH], tip[160], gbps[32], pct[32], best[32];
    path_workload(path, (int)(r - x->a->wl));
    html_fig_text(t, r, d->gbps, true, gbps, sizeof gbps);
    if (metric_get(t, r, d->fastest_pct, NULL)->ok)
        snprintf(tip, sizeof tip, "%s %s: %s of the fastest measured (%s)", d->dir, gbps,
                 html_fig_text(t, r, d->fastest_pct, true, pct, sizeof pct),
                 html_fig_text(&run_metric_table, x->a, d->best, true, best, sizeof best));
    else
        snprintf(tip, sizeof tip, "%s %s", d->dir, gbps);
    svg_rect(b, x0, cy - 6, svg_scale(g->v, 0, top, 0, CC_BW_W), 12, 1, d->cls, NULL, tip);
    svg_fig(b, x0 + CC_BW_W + 46, cy + 4, "end", "val", NULL, t, r, d->gbps, path, false);
    svg_fig(b, x0 + CC_BW_W + 86, cy + 4, "end", "quiet", NULL, t, r, d->fastest_pct, path, true);
}

/* "host to device: pinned 54.9 GB/s against pageable 6.4 GB/s (medians of 12 runs each), 8.6x
 * faster", when both kinds ran: the summary's comparison, in its figures. */
static void kind_contrast(html_ctx *x, const copy_direction *d)
{
    const analysis *a = x->a;
    const metric_table *t = &run_metric_table;
    if (!metric_get(t, a, d->pinned_x, NULL)->ok)
        return;
    char path[FIG_PATH];
    path_run(path);
    sb_printf(x->b, "<li><b>%s</b>: pinned ", d->words);
    html_fig(x, t, a, d->pinned, path, true);
    sb_add(x->b, " against pageable ");
    html_fig(x, t, a, d->pageable, path, true);
    int n = summary_size(a);
    sb_printf(x->b, " (medians of %d pinned and %d pageable runs", a->pinned_runs, a->pageable_runs);
    if (n > 0)
        sb_printf(x->b, " at n = %d", n);
    sb_add(x->b, "), ");
    html_fig(x, t, a, d->pinned_x, path, false);
    sb_add(x->b, "&times; faster</li>");
}

/* One product's bar: copy in, kernel, copy out, each a share of the run's own end-to-end time,
 * that time beside it, and the copy:compute ratio. */
static void product_bar(html_ctx *x, const workload_metrics *r, double cy)
{
    strbuf *b = x->b;
    if (!r->h2d_ms.ok || !r->kernel_ms.ok || !r->d2h_ms.ok || !r->e2e_ms.ok) {
        const metric *bad = !r->h2d_ms.ok ? &r->h2d_ms : (!r->kernel_ms.ok ? &r->kernel_ms : &r->d2h_ms);
        na_text(x, CC_X0 + 6, cy + 4, "na", "copy versus compute", bad->ok ? metric_why(&r->e2e_ms) : metric_why(bad));
        return;
    }
    const metric_table *t = &workload_metric_table;
    static const char *const keys[3] = {"h2d_ms", "kernel_ms", "d2h_ms"};
    static const char *const cls[3] = {"bar h2d", "bar k", "bar d2h"};
    static const char *const what[3] = {"copy A and B in", "one product on the GPU", "copy C out"};
    char path[FIG_PATH], e2e[32];
    path_workload(path, (int)(r - x->a->wl));
    html_fig_text(t, r, "e2e_ms", true, e2e, sizeof e2e);
    double at = CC_X0;
    for (int p = 0; p < 3; p++) {
        double w_px = svg_scale(metric_get(t, r, keys[p], NULL)->v, 0, r->e2e_ms.v, 0, CC_X1 - CC_X0);
        char tip[160], part[32];
        snprintf(tip, sizeof tip, "%s: %s of %s end to end", what[p], html_fig_text(t, r, keys[p], true, part, sizeof part),
                 e2e);
        svg_rect(b, at, cy - 7, w_px, 14, 0.5, cls[p], NULL, tip);
        at += w_px;
    }
    svg_fig(b, CC_X1 + 6, cy + 4, "start", "val", NULL, t, r, "e2e_ms", path, true);
    if (r->copy_compute_ratio.ok)
        svg_fig(b, CC_RATIO, cy + 4, "end", r->copy_compute_ratio.v > 1 ? "val lim" : "val", NULL, t, r,
                "copy_compute_ratio_per_product", path, false);
}

void html_copies(html_ctx *x)
{
    const analysis *a = x->a;
    strbuf *b = x->b;
    int rows = 0;
    double top_gbps = 0;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        if (!r->w->needs_gpu || !shown(a, r))
            continue;
        rows++;
        if (r->w->device >= 0 && r->w->device < a->m->ndevices && a->peaks[r->w->device].link_gbps.ok &&
            a->peaks[r->w->device].link_gbps.v > top_gbps)
            top_gbps = a->peaks[r->w->device].link_gbps.v;
    }
    if (rows == 0)
        return; /* sections.h shows the copies only where a GPU workload ran */
    if (a->best_h2d_gbps.ok && a->best_h2d_gbps.v > top_gbps)
        top_gbps = a->best_h2d_gbps.v;
    if (a->best_d2h_gbps.ok && a->best_d2h_gbps.v > top_gbps)
        top_gbps = a->best_d2h_gbps.v;
    if (top_gbps <= 0)
        top_gbps = 1;

    char path[FIG_PATH];
    path_run(path);
    sb_add(b, "<ul class=\"facts-inline\">");
    kind_contrast(x, &directions[0]);
    kind_contrast(x, &directions[1]);
    sb_add(b, "<li>fastest measured: H2D ");
    html_fig_apart(x, &run_metric_table, a, "fastest_h2d_gbps", path, false);
    sb_add(b, ", D2H ");
    html_fig_apart(x, &run_metric_table, a, "fastest_d2h_gbps", path, false);
    sb_add(b, "</li></ul>\n");
    sb_add(b, "<p class=\"legend\"><span class=\"sw h2d\"></span>copy A and B in <span class=\"sw k\"></span>one "
              "product (median kernel time) <span class=\"sw d2h\"></span>copy C out <span class=\"quiet\">&middot; each bar is "
              "its own run's end-to-end time, written beside it</span></p>\n");

    double h = 30 + rows * CC_ROW + 4;
    svg_open(b, CHART_W, h, "copies", "Per-product time split into copies and compute, and copy bandwidth");
    svg_text(b, CC_X0, 12, "start", "colhead", "one product: share of its end-to-end time");
    svg_text(b, CC_RATIO, 12, "end", "colhead", "copy:compute");
    svg_text(b, CC_BW0, 12, "start", "colhead", "H2D GB/s, % of fastest");
    svg_text(b, CC_BW1, 12, "start", "colhead", "D2H GB/s, % of fastest");
    /* Each row on its own scale: the bar is that run's end-to-end time, split into its parts (one
     * scale for all was set by the slowest run, 40 ms, and left a fast run's kernel a pixel wide);
     * the time itself is written beside the bar. */
    for (int v = 0; v <= 100; v += 25) {
        double gx = svg_scale(v, 0, 100, CC_X0, CC_X1);
        svg_line(b, gx, 20, gx, h - 2, "grid");
        char t[16];
        snprintf(t, sizeof t, "%d%%", v);
        svg_text(b, gx, 28, "middle", "tick small", t);
    }
    /* The fastest measured copy in each direction, as a reference line in its column. */
    const metric *bests[2] = {&a->best_h2d_gbps, &a->best_d2h_gbps};
    double cols[2] = {CC_BW0, CC_BW1};
    for (int c = 0; c < 2; c++)
        if (bests[c]->ok)
            svg_line(b, cols[c] + svg_scale(bests[c]->v, 0, top_gbps, 0, CC_BW_W), 20,
                     cols[c] + svg_scale(bests[c]->v, 0, top_gbps, 0, CC_BW_W), h - 2, "ref");
    double y = 32;
    const char *prev = NULL;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        const workload_run *w = r->w;
        if (!w->needs_gpu || !shown(a, r))
            continue;
        if (prev && strcmp(prev, w->name) != 0)
            svg_line(b, 0, y - 1, CHART_W, y - 1, "sep");
        prev = w->name;
        double cy = y + CC_ROW / 2;
        row_label(b, w, cy + 4);
        product_bar(x, r, cy);
        gbps_cell(x, CC_BW0, cy, r, &directions[0], top_gbps);
        gbps_cell(x, CC_BW1, cy, r, &directions[1], top_gbps);
        y += CC_ROW;
    }
    svg_close(b);
}

/* ---------- speedup over the CPU ---------- */

#define SP_ROW 30.0
#define SP_X0 LABEL_W
#define SP_X1 1080.0

void html_speedup(html_ctx *x)
{
    const analysis *a = x->a;
    strbuf *b = x->b;
    int rows = 0;
    double lo = 1, hi = 1;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        if (!r->w->needs_gpu || !shown(a, r))
            continue;
        rows++;
        const metric *v[2] = {&r->speedup, &r->speedup_e2e};
        for (int k = 0; k < 2; k++)
            if (v[k]->ok && v[k]->v > 0) {
                lo = v[k]->v < lo ? v[k]->v : lo;
                hi = v[k]->v > hi ? v[k]->v : hi;
            }
    }
    if (rows == 0)
        return; /* sections.h shows the speedups only where the CPU and a GPU workload ran */
    /* Speedups span orders of magnitude (a copy-bound run near 2x, tensor cores near 400x), so
     * the axis is logarithmic, in whole decades. */
    double dlo = floor(log10(lo)), dhi = ceil(log10(hi));
    if (dhi <= dlo)
        dhi = dlo + 1;
    sb_add(b, "<p class=\"legend\"><span class=\"sw k\"></span>kernel only <span class=\"sw e2e\"></span>with "
              "copies (end to end) <span class=\"quiet\">&middot; against cpu-openblas's product time; "
              "logarithmic axis</span></p>\n");
    double h = 22 + rows * SP_ROW + 4;
    svg_open(b, CHART_W, h, "speedup", "Speedup over the CPU, kernel only and with copies");
    for (double d = dlo; d <= dhi + 1e-9; d++) {
        for (int m = 1; m < 10; m++) {
            double v = log10(m) + d;
            if (v > dhi + 1e-9)
                break;
            double gx = svg_scale(v, dlo, dhi, SP_X0, SP_X1);
            svg_line(b, gx, 16, gx, h - 2, m == 1 ? (fabs(d) < 1e-9 ? "ref" : "grid") : "grid minor");
            if (m == 1) {
                char t[sizeof(num_text) + 2];
                snprintf(t, sizeof t, "%s\xc3\x97", svg_tick(pow(10, d)).s);
                svg_text(b, gx, 11, "middle", "tick", t);
            }
        }
    }
    double y = 22;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        const workload_run *w = r->w;
        if (!w->needs_gpu || !shown(a, r))
            continue;
        row_label(b, w, y + SP_ROW / 2 + 4);
        const metric *v[2] = {&r->speedup, &r->speedup_e2e};
        static const char *const keys[2] = {"speedup_vs_cpu", "speedup_vs_cpu_e2e"};
        static const char *const cls[2] = {"bar k", "bar e2e"};
        static const char *const what[2] = {"kernel only", "with copies"};
        char path[FIG_PATH];
        path_workload(path, i);
        for (int k = 0; k < 2; k++) {
            double by = y + 4 + k * 11;
            if (!v[k]->ok) {
                na_text(x, SP_X0 + 6, by + 9, "na small", "speedup", metric_why(v[k]));
                continue;
            }
            double x0 = SP_X0, x1 = svg_scale(log10(v[k]->v), dlo, dhi, SP_X0, SP_X1);
            char tip[128], val[24];
            snprintf(tip, sizeof tip, "%s (%s), %s: %s the CPU", w->name, html_memory_word(w), what[k],
                     html_fig_text(&workload_metric_table, r, keys[k], true, val, sizeof val));
            svg_rect(b, x0, by, x1 - x0, 10, 1, cls[k], NULL, tip);
            svg_fig(b, (x1 > x0 ? x1 : x0) + 5, by + 9, "start", "val small", NULL, &workload_metric_table, r, keys[k],
                    path, true);
        }
        y += SP_ROW;
    }
    svg_close(b);
}
