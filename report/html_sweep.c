/* The HTML report's sweep section: the answer in one line, then time and TFLOP/s against n on
 * log-log axes (inline SVG, like html_charts.c), with the crossovers marked, and a table per size.
 * Written only for a run of several sizes (analysis.sweep). */
#include <math.h>
#include <stdio.h>
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
        char t[24];
        snprintf(t, sizeof t, "%g", pow(10, d));
        svg_line(b, SW_X0, y, SW_X1, y, "grid");
        svg_text(b, SW_X0 - 6, y + 4, "end", "tick", t);
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

/* A line through the measured points of one series (gaps where a size has none), a dot per point
 * with its value as a tip, and its label at the right of its last point. */
static void series_line(strbuf *b, const axes *a, const sweep_analysis *s, const int *n, const double *v,
                        const char *color, const char *label, const char *unit)
{
    bool open = false;
    double lastx = 0, lasty = 0;
    for (int k = 0; k < s->nsizes; k++) {
        if (!(v[k] > 0)) {
            if (open)
                sb_add(b, "\"/>");
            open = false;
            continue;
        }
        double x = ax(a, n[k]), y = ay(a, v[k]);
        if (!open)
            sb_printf(b, "<path class=\"ser\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"M%.1f %.1f", color, x, y);
        else
            sb_printf(b, " L%.1f %.1f", x, y);
        open = true;
        lastx = x, lasty = y;
    }
    if (open)
        sb_add(b, "\"/>");
    for (int k = 0; k < s->nsizes; k++) {
        if (!(v[k] > 0))
            continue;
        sb_printf(b, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>", ax(a, n[k]),
                  ay(a, v[k]), color);
        sb_html_printf(b, "%s at n = %d: %.4g %s", label, n[k], v[k], unit);
        sb_add(b, "</title></circle>");
    }
    if (lastx > 0) {
        sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\" class=\"small\" fill=\"%s\">", lastx + 8, lasty + 4, color);
        sb_html(b, label);
        sb_add(b, "</text>");
    }
}

/* A dashed line at a crossover, with what it is. */
static void crossover_mark(strbuf *b, const axes *a, const crossover *c, int row)
{
    if (c->kind != CROSS_AT)
        return;
    double x = ax(a, c->n.v);
    char t[96];
    snprintf(t, sizeof t, "%s %s: n = %.0f", c->mem == MEM_PINNED ? "pinned" : "pageable", c->e2e ? "e2e" : "kernel",
             c->n.v);
    sb_printf(b, "<g class=\"crossover\"><line class=\"ref\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, SW_Y0,
              x, SW_Y1);
    svg_text(b, x + 4, SW_Y0 + 12 + 14 * row, "start", "small", t);
    sb_add(b, "</g>");
}

static void time_chart(html_ctx *x, const sweep_analysis *s)
{
    strbuf *b = x->b;
    /* CPU, the fastest FP32 GPU kernel, and the fastest end to end with pinned and pageable copies. */
    double v[4][MAX_SWEEP_SIZES], all[4 * MAX_SWEEP_SIZES];
    const char *labels[4] = {"cpu-openblas", "GPU kernel only", "GPU e2e, pinned", "GPU e2e, pageable"};
    int count = 0;
    for (int k = 0; k < s->nsizes; k++) {
        int best[4] = {s->cpu, s->best_kernel[1][k] >= 0 ? s->best_kernel[1][k] : s->best_kernel[0][k],
                       s->best_e2e[1][k], s->best_e2e[0][k]};
        for (int l = 0; l < 4; l++) {
            const metric *m = best[l] < 0 ? NULL : (l >= 2 ? &s->series[best[l]].pts[k].e2e_ms : &s->series[best[l]].pts[k].kernel_ms);
            v[l][k] = m && m->ok ? m->v : 0;
            all[count++] = v[l][k];
        }
    }
    axes a = {log10(s->sizes[0]), log10(s->sizes[s->nsizes - 1]), 0, 1};
    range_of(&a, all, count);
    sb_add(b, "<figure><figcaption>Time of one product against n: the CPU, the fastest FP32 GPU workload's kernel, "
              "and the fastest end to end with pinned and with pageable copies (log-log; dashed: crossovers)"
              "</figcaption>\n");
    svg_open(b, SW_W, SW_H, "sweep-time", "Time per product against n, with the crossovers");
    frame(b, s, &a, "ms");
    for (int l = 0; l < 4; l++)
        series_line(b, &a, s, s->sizes, v[l], palette[l], labels[l], "ms");
    int row = 0;
    for (int i = 0; i < s->ncross; i++)
        if (s->cross[i].e2e || i == 2) /* the kernel crossover once: pinned and pageable kernels are the same */
            crossover_mark(b, &a, &s->cross[i], s->cross[i].kind == CROSS_AT ? row++ : row);
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
    int c = 0;
    for (int i = 0; i < s->nseries; i++) {
        const sweep_series *r = &s->series[i];
        if (r->gpu && r->mem != MEM_PINNED) /* the kernels run the same; one line each */
            continue;
        double v[MAX_SWEEP_SIZES];
        for (int k = 0; k < s->nsizes; k++)
            v[k] = r->pts[k].tflops.ok ? r->pts[k].tflops.v : 0;
        series_line(b, &a, s, s->sizes, v, palette[c++ % NPALETTE], r->name, "TFLOP/s");
    }
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
    for (int k = 0; k < s->nsizes; k++) {
        sb_printf(b, "<tr><td class=\"r\">%d</td><td class=\"r\">", s->sizes[k]);
        const sweep_point *cpu = s->cpu >= 0 ? &s->series[s->cpu].pts[k] : NULL;
        if (cpu) {
            html_metric(x, &cpu->kernel_ms, "%.3f", "", "cpu-openblas time");
            sb_add(b, "</td><td class=\"r\">");
            html_metric(x, &cpu->noise_pct, "%.2f", "%", "cpu-openblas noise");
        } else {
            sb_add(b, "-</td><td class=\"r\">-");
        }
        int kb = s->best_kernel[1][k] >= 0 ? s->best_kernel[1][k] : s->best_kernel[0][k];
        sb_add(b, "</td><td class=\"r\">");
        if (kb >= 0)
            html_metric(x, &s->series[kb].pts[k].kernel_ms, "%.3f", "", "GPU kernel time");
        else
            sb_add(b, "-");
        for (int slot = 1; slot >= 0; slot--) {
            int e = s->best_e2e[slot][k];
            sb_add(b, "</td><td class=\"r\">");
            if (e < 0) {
                sb_add(b, "-</td><td>-</td><td class=\"r\">-");
                continue;
            }
            html_metric(x, &s->series[e].pts[k].e2e_ms, "%.3f", "", "end-to-end time");
            sb_add(b, "</td><td>");
            sb_html(b, s->series[e].name);
            sb_add(b, "</td><td class=\"r\">");
            html_metric(x, &s->series[e].pts[k].noise_pct, "%.2f", "%", "noise");
        }
        sb_add(b, "</td></tr>\n");
    }
    sb_add(b, "</tbody></table></div>\n");
}

void html_sweep(html_ctx *x)
{
    const sweep_analysis *s = x->a->sweep;
    if (!s)
        return;
    strbuf *b = x->b;
    char line[1024];
    sweep_headline(s, line, sizeof line);
    sb_add(b, "<section id=\"sweep\">\n<h2>Sweep: where the GPU pays off</h2>\n<p class=\"answer\"><strong>");
    sb_html(b, line);
    sb_add(b, "</strong></p>\n<p class=\"lede\">Crossovers are interpolated between the two measured sizes around "
              "them, linearly in log n and log (GPU time / CPU time). Noise is the relative standard deviation of "
              "the timed samples.</p>\n");
    time_chart(x, s);
    tflops_chart(x, s);
    size_table(x, s);
    sb_add(b, "</section>\n");
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
