/* The HTML report's sweep section: the answer in one line, then time and TFLOP/s against n on
 * log-log axes (inline SVG, like html_charts.c), with the crossovers marked, and a table per size.
 * Written only for a run of several sizes (analysis.sweep; sections.h). Every figure, in the table,
 * a crossover's label or a point's tip, is the registry's (sweep_point_table, crossover_table). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_parts.h"
#include "svg.h"

#define SW_W 1180.0
#define SW_H 360.0
#define SW_X0 70.0
#define SW_X1 960.0 /* the plot; labels of the lines to its right */
#define SW_Y0 20.0
#define SW_Y1 320.0

/* Line colours, one per line of a chart (cycled). */
static const char *const palette[] = {"#5d6b7a", "#2f6fb0", "#3f8f6c", "#e0a85a", "#a0522d",
                                      "#a58ad6", "#c0392b", "#6f9fd0", "#b0a08f", "#2c3e50"};
#define NPALETTE (int)(sizeof palette / sizeof palette[0])

typedef struct {
    double lx0, lx1, ly0, ly1; /* log10 ranges */
} axes;

static double ax(const axes *a, double n)
{
    return svg_scale(log10(n), a->lx0, a->lx1, SW_X0, SW_X1);
}

static double ay(const axes *a, double v)
{
    return svg_scale(log10(v), a->ly0, a->ly1, SW_Y1, SW_Y0);
}

/* x ticks at the sweep's sizes; y ticks at each decade. */
static void frame(strbuf *b, const sweep_analysis *s, const axes *a, const char *unit)
{
    for (int k = 0; k < s->nsizes; k++) {
        double x = ax(a, s->sizes[k]);
        char t[16];
        snprintf(t, sizeof t, "%d", s->sizes[k]);
        svg_line(b, x, SW_Y0, x, SW_Y1, "grid");
        svg_text(b, x, SW_Y1 + 16, "middle", "tick", t);
    }
    for (double d = ceil(a->ly0 - 1e-9); d <= a->ly1 + 1e-9; d++) {
        double y = svg_scale(d, a->ly0, a->ly1, SW_Y1, SW_Y0);
        svg_line(b, SW_X0, y, SW_X1, y, "grid");
        svg_text(b, SW_X0 - 6, y + 4, "end", "tick", svg_tick(pow(10, d)).s);
    }
    svg_text(b, SW_X0 - 6, SW_Y0 - 8, "end", "colhead", unit);
    svg_text(b, SW_X1, SW_Y1 + 32, "end", "colhead", "n (log)");
}

/* The decades around every value the chart will draw. */
static void range_of(axes *a, const double *v, int count)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < count; i++)
        if (v[i] > 0) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
        }
    if (!(lo <= hi))
        lo = 1, hi = 10;
    a->ly0 = floor(log10(lo));
    a->ly1 = ceil(log10(hi));
    if (a->ly1 <= a->ly0)
        a->ly1 = a->ly0 + 1;
}

/* A line through the measured points of one series (figure key of each size's point, NULL where
 * the series has none), broken where a size has no figure; a dot per point with its figure as a
 * tip, and its label at the right of its last point. */
/* A series' name at the right of its last point; end_labels moves names apart where their lines
 * end close together (the fastest kernels of a ladder end within a pixel of each other). */
typedef struct {
    double x, y, want; /* want: the last point's y, where a leader line starts when y moved */
    const char *color, *text;
} end_label;

static int by_want(const void *p, const void *q)
{
    const end_label *a = p, *b = q;
    return (a->want > b->want) - (a->want < b->want);
}

#define LABEL_GAP 11.0 /* px between the baselines of two names: their text is 11 px */

static void end_labels(strbuf *b, end_label *l, int n)
{
    qsort(l, (size_t)n, sizeof *l, by_want);
    for (int i = 0; i < n; i++)
        l[i].y = i > 0 && l[i].want < l[i - 1].y + LABEL_GAP ? l[i - 1].y + LABEL_GAP : l[i].want;
    /* Pushed past the bottom of the plot: back up from there, keeping the gaps. */
    for (int i = n - 1; i >= 0 && l[i].y > SW_Y1 + 4; i--) {
        double limit = i == n - 1 ? SW_Y1 + 4 : l[i + 1].y - LABEL_GAP;
        if (l[i].y > limit)
            l[i].y = limit;
    }
    for (int i = 0; i < n; i++) {
        if (fabs(l[i].y - l[i].want) > 1)
            svg_line(b, l[i].x + 1, l[i].want, l[i].x + 6, l[i].y - 4, "leader");
        svg_text_in(b, l[i].x + 8, l[i].y, "small", l[i].color, l[i].text);
    }
}

static void series_line(strbuf *b, const axes *a, const sweep_analysis *s, const sweep_point *const *pts,
                        const char *key, const char *color, const char *label, end_label *name)
{
    double xs[MAX_SWEEP_SIZES], ys[MAX_SWEEP_SIZES], lastx = 0, lasty = 0;
    int n = 0;
    for (int k = 0; k <= s->nsizes; k++) {
        const metric *m = k < s->nsizes && pts[k] ? metric_get(&sweep_point_table, pts[k], key, NULL) : NULL;
        if (m && m->ok && m->v > 0) {
            xs[n] = ax(a, s->sizes[k]);
            ys[n++] = ay(a, m->v);
            continue;
        }
        if (n > 0) {
            svg_polyline(b, xs, ys, n, "ser", color);
            lastx = xs[n - 1], lasty = ys[n - 1];
        }
        n = 0;
    }
    for (int k = 0; k < s->nsizes; k++) {
        const metric *m = pts[k] ? metric_get(&sweep_point_table, pts[k], key, NULL) : NULL;
        if (!m || !m->ok || !(m->v > 0))
            continue;
        char tip[160], v[32];
        snprintf(tip, sizeof tip, "%s at n = %d: %s", label, s->sizes[k],
                 html_fig_text(&sweep_point_table, pts[k], key, true, v, sizeof v));
        svg_dot(b, ax(a, s->sizes[k]), ay(a, m->v), 3.5, "dot", color, tip);
    }
    *name = (end_label){lastx, lasty + 4, lasty + 4, color, label};
}

/* A dashed line at crossover c (index i), with what it is and its n. */
static void crossover_mark(strbuf *b, const axes *a, const sweep_analysis *s, int i, int row)
{
    const crossover *c = &s->cross[i];
    if (c->kind != CROSS_AT || !c->n.ok)
        return;
    double x = ax(a, c->n.v);
    char lead[64], path[FIG_PATH];
    snprintf(lead, sizeof lead, "%s %s: n = ", c->mem == MEM_PINNED ? "pinned" : "pageable", c->e2e ? "e2e" : "kernel");
    path_crossover(path, i);
    sb_add(b, "<g class=\"crossover\">");
    svg_line(b, x, SW_Y0, x, SW_Y1, "ref");
    svg_fig(b, x + 4, SW_Y0 + 12 + 14 * row, "start", "small", lead, &crossover_table, c, "n", path, false);
    sb_add(b, "</g>");
}

static void time_chart(html_ctx *x, const sweep_analysis *s)
{
    strbuf *b = x->b;
    /* CPU, the fastest FP32 GPU kernel, and the fastest end to end with pinned and pageable copies. */
    const sweep_point *pts[4][MAX_SWEEP_SIZES];
    double all[4 * MAX_SWEEP_SIZES];
    static const char *const labels[4] = {"cpu-openblas", "GPU kernel only", "GPU e2e, pinned", "GPU e2e, pageable"};
    static const char *const keys[4] = {"kernel_ms", "kernel_ms", "e2e_ms", "e2e_ms"};
    int count = 0;
    for (int k = 0; k < s->nsizes; k++) {
        int best[4] = {s->cpu, s->best_kernel[1][k] >= 0 ? s->best_kernel[1][k] : s->best_kernel[0][k],
                       s->best_e2e[1][k], s->best_e2e[0][k]};
        for (int l = 0; l < 4; l++) {
            pts[l][k] = best[l] < 0 ? NULL : &s->series[best[l]].pts[k];
            const metric *m = pts[l][k] ? metric_get(&sweep_point_table, pts[l][k], keys[l], NULL) : NULL;
            all[count++] = m && m->ok ? m->v : 0;
        }
    }
    axes a = {log10(s->sizes[0]), log10(s->sizes[s->nsizes - 1]), 0, 1};
    range_of(&a, all, count);
    sb_add(b, "<figure><figcaption>Time of one product against n: the CPU, the fastest FP32 GPU workload's kernel, "
              "and the fastest end to end with pinned and with pageable copies (log-log; dashed: crossovers)"
              "</figcaption>\n");
    svg_open(b, SW_W, SW_H, "sweep-time", "Time per product against n, with the crossovers");
    frame(b, s, &a, "ms");
    end_label names[4];
    int nnames = 0;
    for (int l = 0; l < 4; l++) {
        series_line(b, &a, s, pts[l], keys[l], palette[l], labels[l], &names[nnames]);
        nnames += names[nnames].x > 0;
    }
    end_labels(b, names, nnames);
    int row = 0;
    for (int i = 0; i < s->ncross; i++)
        if (s->cross[i].e2e || i == 2) /* the kernel crossover once: pinned and pageable kernels are the same */
            crossover_mark(b, &a, s, i, s->cross[i].kind == CROSS_AT ? row++ : row);
    svg_close(b);
    sb_add(b, "</figure>\n");
}

static void tflops_chart(html_ctx *x, const sweep_analysis *s)
{
    strbuf *b = x->b;
    double all[SWEEP_MAX_SERIES * MAX_SWEEP_SIZES];
    int count = 0;
    for (int i = 0; i < s->nseries; i++)
        for (int k = 0; k < s->nsizes; k++)
            if (s->series[i].pts[k].tflops.ok)
                all[count++] = s->series[i].pts[k].tflops.v;
    axes a = {log10(s->sizes[0]), log10(s->sizes[s->nsizes - 1]), 0, 1};
    range_of(&a, all, count);
    sb_add(b, "<figure><figcaption>TFLOP/s (kernel time) against n: the CPU and each GPU workload, pinned runs "
              "(log-log)</figcaption>\n");
    svg_open(b, SW_W, SW_H, "sweep-tflops", "TFLOP/s against n per workload");
    frame(b, s, &a, "TFLOP/s");
    int c = 0, nnames = 0;
    end_label names[SWEEP_MAX_SERIES];
    for (int i = 0; i < s->nseries; i++) {
        const sweep_series *r = &s->series[i];
        if (r->gpu && r->mem != MEM_PINNED) /* the kernels run the same; one line each */
            continue;
        const sweep_point *pts[MAX_SWEEP_SIZES];
        for (int k = 0; k < s->nsizes; k++)
            pts[k] = &r->pts[k];
        series_line(b, &a, s, pts, "tflops", palette[c++ % NPALETTE], r->name, &names[nnames]);
        nnames += names[nnames].x > 0;
    }
    end_labels(b, names, nnames);
    svg_close(b);
    sb_add(b, "</figure>\n");
}

/* Per size: the CPU, its noise, and the fastest GPU workload end to end per memory kind. */
static void size_table(html_ctx *x, const sweep_analysis *s)
{
    strbuf *b = x->b;
    sb_add(b, "<div class=\"scroll\"><table><thead><tr><th class=\"r\">n</th><th class=\"r\">CPU ms</th>"
              "<th class=\"r\">CPU noise</th><th class=\"r\">GPU kernel ms</th><th class=\"r\">pinned e2e ms</th>"
              "<th>fastest, pinned</th><th class=\"r\">noise</th><th class=\"r\">pageable e2e ms</th>"
              "<th>fastest, pageable</th><th class=\"r\">noise</th></tr></thead><tbody>\n");
    const metric_table *t = &sweep_point_table;
    char path[FIG_PATH];
    for (int k = 0; k < s->nsizes; k++) {
        sb_printf(b, "<tr><td class=\"r\">%d</td><td class=\"r\">", s->sizes[k]);
        const sweep_point *cpu = s->cpu >= 0 ? &s->series[s->cpu].pts[k] : NULL;
        if (cpu) {
            path_sweep_point(path, s->cpu, k);
            html_fig(x, t, cpu, "kernel_ms", path, false);
            sb_add(b, "</td><td class=\"r\">");
            html_fig_apart(x, t, cpu, "noise_pct", path, false);
        } else {
            sb_add(b, "-</td><td class=\"r\">-");
        }
        int kb = s->best_kernel[1][k] >= 0 ? s->best_kernel[1][k] : s->best_kernel[0][k];
        sb_add(b, "</td><td class=\"r\">");
        if (kb >= 0) {
            path_sweep_point(path, kb, k);
            html_fig(x, t, &s->series[kb].pts[k], "kernel_ms", path, false);
        } else
            sb_add(b, "-");
        for (int slot = 1; slot >= 0; slot--) {
            int e = s->best_e2e[slot][k];
            sb_add(b, "</td><td class=\"r\">");
            if (e < 0) {
                sb_add(b, "-</td><td>-</td><td class=\"r\">-");
                continue;
            }
            path_sweep_point(path, e, k);
            html_fig(x, t, &s->series[e].pts[k], "e2e_ms", path, false);
            sb_add(b, "</td><td>");
            sb_html(b, s->series[e].name);
            sb_add(b, "</td><td class=\"r\">");
            html_fig_apart(x, t, &s->series[e].pts[k], "noise_pct", path, false);
        }
        sb_add(b, "</td></tr>\n");
    }
    sb_add(b, "</tbody></table></div>\n");
}

void html_sweep(html_ctx *x)
{
    const sweep_analysis *s = x->a->sweep;
    strbuf *b = x->b;
    char line[1024];
    sweep_headline(s, line, sizeof line);
    sb_add(b, "<p class=\"answer\"><strong>");
    sb_html(b, line);
    sb_add(b, "</strong></p>\n<p class=\"lede\">Crossovers are interpolated between the two measured sizes around "
              "them, linearly in log n and log (GPU time / CPU time). Noise is the relative standard deviation of "
              "the timed samples.</p>\n");
    time_chart(x, s);
    tflops_chart(x, s);
    size_table(x, s);
}

void html_run_sizes(strbuf *b, const run_model *m)
{
    int lo = m->builtin.n, hi = m->builtin.n;
    for (int i = 0; i < m->builtin.nsizes; i++) {
        lo = m->builtin.sizes[i] < lo ? m->builtin.sizes[i] : lo;
        hi = m->builtin.sizes[i] > hi ? m->builtin.sizes[i] : hi;
    }
    if (m->builtin.nsizes > 0)
        sb_printf(b, "n = %d to %d (%d sizes)", lo, hi, m->builtin.nsizes);
    else
        sb_printf(b, "n = %d", m->builtin.n);
}
