/* The HTML report's roofline (mmprof --counters): each GPU workload a point at its arithmetic
 * intensity (FLOPs per DRAM byte) and achieved FLOP/s, under the device's ceilings: the FP32 and
 * TF32 roofs from its properties, the HBM bandwidth from its memory clock and bus, the L2's from
 * the counters, the L1's from its SMs and clock; a legend says what each mark and line is. Log-log, whole decades. Below the chart, the counters and the bound per workload. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html_parts.h"
#include "source.h"
#include "svg.h"

#define RF_W 1180.0
#define RF_H 420.0
#define RF_X0 70.0
#define RF_X1 900.0
#define RF_Y0 20.0  /* top */
#define RF_Y1 380.0 /* bottom */
#define RF_LEGEND 920.0

typedef struct {
    double xlo, xhi, ylo, yhi; /* decades: log10 of FLOP/B and of TFLOP/s */
} axes;

static double px(const axes *g, double intensity) { return svg_scale(log10(intensity), g->xlo, g->xhi, RF_X0, RF_X1); }
static double py(const axes *g, double tflops) { return svg_scale(log10(tflops), g->ylo, g->yhi, RF_Y1, RF_Y0); }

/* The point of a workload: achieved FP32 FLOP/s, or the product's rate on the tensor pipe. */
static bool point_of(const workload_metrics *r, double *x, double *y)
{
    const metric *rate = r->achieved_tflops.ok ? &r->achieved_tflops : &r->tflops;
    if (!r->intensity.ok || !rate->ok || r->intensity.v <= 0 || rate->v <= 0)
        return false;
    *x = r->intensity.v;
    *y = rate->v;
    return true;
}

/* One point per workload at the size the page details (a sweep's largest): its ladder row. */
static bool plotted(const analysis *a, const workload_metrics *r)
{
    return r->w->needs_gpu && r->ladder_row && r->w->ncounters > 0 && workload_in_detail(a, r);
}

/* A ceiling's label: lead, then the device's peak (key of device_peaks_table), a figure marked with
 * its place in the JSON. */
typedef struct {
    const char *lead, *key, *path;
    const device_peaks *pk;
} roof_label;

static void label_at(strbuf *b, double x, double y, const char *anchor, const roof_label *l)
{
    svg_fig(b, x, y, anchor, "roof-label", l->lead, &device_peaks_table, l->pk, l->key, l->path, true);
}

/* A bandwidth ceiling, TFLOP/s = GB/s x FLOP/B / 1000, from the left edge to where it meets the
 * highest roof. Its label is in the legend: the diagonals run parallel and close, where a label
 * along one crosses the next. */
static void diagonal(strbuf *b, const axes *g, double gbps, double roof, const char *cls)
{
    double x0 = pow(10, g->xlo), x1 = roof * 1000 / gbps;
    if (x1 > pow(10, g->xhi))
        x1 = pow(10, g->xhi);
    double y0 = gbps * x0 / 1000;
    if (y0 < pow(10, g->ylo)) { /* start where the line enters the chart */
        x0 = pow(10, g->ylo) * 1000 / gbps;
        y0 = pow(10, g->ylo);
    }
    if (x1 <= x0)
        return;
    svg_line(b, px(g, x0), py(g, y0), px(g, x1), py(g, gbps * x1 / 1000), cls);
}

/* A compute roof, from where the HBM ceiling reaches it to the right edge. */
static void roof_line(strbuf *b, const axes *g, double tflops, double hbm_gbps, const char *cls, const roof_label *label)
{
    double x0 = hbm_gbps > 0 ? tflops * 1000 / hbm_gbps : pow(10, g->xlo);
    if (x0 < pow(10, g->xlo))
        x0 = pow(10, g->xlo);
    svg_line(b, px(g, x0), py(g, tflops), RF_X1, py(g, tflops), cls);
    label_at(b, RF_X1 - 4, py(g, tflops) - 6, "end", label);
}

/* Where a point's number goes: the first of eight spots around the point (right, then above,
 * below, left, farther out) whose box overlaps no number placed before. */
static void label_spot(const double (*placed)[2], int n, double cx, double cy, double *lx, double *ly)
{
    static const double spots[][2] = {{7, -5}, {7, 12}, {-16, -5}, {-16, 12}, {-4, -9}, {-4, 20}, {16, 4}, {-26, 4}};
    const int nspots = (int)(sizeof spots / sizeof spots[0]);
    for (int s = 0; s < nspots; s++) {
        double x = cx + spots[s][0], y = cy + spots[s][1];
        bool clear = true;
        for (int i = 0; i < n && clear; i++) /* a number is at most two digits: 14 x 12 px */
            clear = fabs(placed[i][0] - x) >= 14 || fabs(placed[i][1] - y) >= 12;
        if (clear) {
            *lx = x, *ly = y;
            return;
        }
    }
    *lx = cx + spots[0][0], *ly = cy + spots[0][1];
}

/* The rest of a counters row, after its name cells: figures keys of row (registry table t, at
 * path; bytes with their unit, the rest as their heading says), then what bounds the kernel. */
static void row_end(html_ctx *x, const metric_table *t, const void *row, const char *path, const char *const *keys,
                    size_t n, const char *bound_text)
{
    for (size_t c = 0; c < n; c++) {
        const metric_def *d = metric_find(t, keys[c]);
        html_fig_cell(x, t, row, keys[c], path, d && strcmp(d->unit, "B") == 0);
    }
    sb_add(x->b, "<td class=\"bound\">");
    sb_html(x->b, bound_text);
    sb_add(x->b, "</td></tr>\n");
}

static void counter_table(html_ctx *x)
{
    const analysis *a = x->a;
    sb_add(x->b, "<div class=\"scroll\"><table class=\"counters sortable\">\n<thead><tr>"
                 "<th data-sort=\"text\">workload</th><th data-sort=\"num\" class=\"r\">achieved occ. %</th>"
                 "<th data-sort=\"num\" class=\"r\">SM %</th><th data-sort=\"num\" class=\"r\">memory %</th>"
                 "<th data-sort=\"num\" class=\"r\">DRAM read</th><th data-sort=\"num\" class=\"r\">DRAM written</th>"
                 "<th data-sort=\"num\" class=\"r\">L1 hit %</th><th data-sort=\"num\" class=\"r\">L2 hit %</th>"
                 "<th data-sort=\"num\" class=\"r\">tensor %</th><th data-sort=\"num\" class=\"r\">FLOP/B</th>"
                 "<th data-sort=\"num\" class=\"r\">TFLOP/s</th><th data-sort=\"text\">bound by</th></tr></thead>\n<tbody>\n");
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        const workload_run *w = r->w;
        if (!w->needs_gpu || (w->ncounters == 0 && !w->counters_why[0]) || !workload_in_detail(a, r))
            continue;
        char path[FIG_PATH];
        path_workload(path, i);
        sb_add(x->b, "<tr><td>");
        html_workload_label(x, w);
        sb_add(x->b, "</td>");
        const char *const keys[] = {"achieved_occupancy_pct", "sm_throughput_pct", "memory_throughput_pct",
                                    "dram_read_bytes", "dram_write_bytes", "l1_hit_pct", "l2_hit_pct", "tensor_pct",
                                    "intensity", r->achieved_tflops.ok ? "achieved_tflops" : "tflops"};
        row_end(x, &workload_metric_table, r, path, keys, sizeof keys / sizeof keys[0], r->bound_text);
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

/* profile --counters: a row per profiled launch, no chart (no DRAM bytes written under kernel
 * replay, so no intensity to place a point at). */
static void launch_table(html_ctx *x)
{
    const run_model *m = x->a->m;
    strbuf *b = x->b;
    if (m->nlaunch_counters == 0) {
        sb_add(b, "<p class=\"quiet\">Hardware counters: n/a (");
        sb_html(b, m->counters.why[0] ? m->counters.why : "no launch was profiled");
        sb_add(b, ").</p>\n");
        return;
    }
    sb_printf(b, "<p class=\"legend\">%d profiled launch%s", m->nlaunch_counters, m->nlaunch_counters == 1 ? "" : "es");
    if (m->counters.kernels[0]) {
        sb_add(b, " of kernels matching <code>");
        sb_html(b, m->counters.kernels);
        sb_add(b, "</code>");
    }
    if (m->counters.max > 0)
        sb_printf(b, " (at most %ld)", m->counters.max);
    if (m->counters.from[0]) { /* --ncu, or an import of the CSV alone */
        sb_add(b, " from Nsight Compute's CSV export <code>");
        sb_html(b, m->counters.from);
        sb_add(b, !source_has(m->source, HAS_TIMELINE) ? "</code> (ncu's own run, no timeline). "
                                         : "</code> (ncu's own run), matched to this run's kernels by name and launch order. ");
        sb_add(b, "<span class=\"quiet\">Durations are ncu's.</span></p>\n");
    } else
        sb_add(b, ", each replayed within its launch once per counter pass (kernel replay), with Nsight Compute's metrics. "
                  "<span class=\"quiet\">No roofline: DRAM bytes written are n/a under kernel replay (its memory restore is "
                  "counted in them), so no arithmetic intensity. Durations are the counter pass's.</span></p>\n");
    sb_add(b, "<div class=\"scroll\"><table class=\"counters sortable\">\n<thead><tr>"
              "<th data-sort=\"text\">kernel</th><th data-sort=\"num\" class=\"r\">pid</th>"
              "<th data-sort=\"num\" class=\"r\">duration us</th><th data-sort=\"num\" class=\"r\">achieved occ. %</th>"
              "<th data-sort=\"num\" class=\"r\">SM %</th><th data-sort=\"num\" class=\"r\">memory %</th>"
              "<th data-sort=\"num\" class=\"r\">DRAM read</th><th data-sort=\"num\" class=\"r\">L1 hit %</th>"
              "<th data-sort=\"num\" class=\"r\">L2 hit %</th><th data-sort=\"num\" class=\"r\">tensor %</th>"
              "<th data-sort=\"num\" class=\"r\">FP32 TFLOP/s</th><th data-sort=\"text\">bound by</th></tr></thead>\n<tbody>\n");
    for (int i = 0; i < m->nlaunch_counters; i++) {
        const launch_metrics *r = &x->a->launches[i];
        char name[160], path[FIG_PATH];
        path_launch(path, i);
        kernel_display_name(r->k->name, name, sizeof name);
        sb_add(b, "<tr><td title=\"");
        sb_html(b, r->k->name);
        sb_add(b, "\">");
        sb_html(b, name);
        sb_printf(b, "</td><td class=\"r\">%u</td>", r->k->pid);
        static const char *const keys[] = {"duration_us", "achieved_occupancy_pct", "sm_throughput_pct",
                                           "memory_throughput_pct", "dram_read_bytes", "l1_hit_pct", "l2_hit_pct",
                                           "tensor_pct", "achieved_tflops"};
        row_end(x, &launch_counter_table, r, path, keys, sizeof keys / sizeof keys[0], r->bound_text);
    }
    sb_add(b, "</tbody></table></div>\n");
}

void html_roofline(html_ctx *x)
{
    if (!source_has(x->a->m->source, HAS_WORKLOADS)) { /* its counters are per launch */
        launch_table(x);
        return;
    }
    const analysis *a = x->a;
    const run_model *m = a->m;
    strbuf *b = x->b;
    if (m->counters.why[0]) {
        sb_add(b, "<p class=\"quiet\">Hardware counters: n/a (");
        sb_html(b, m->counters.why);
        sb_add(b, ").</p>\n");
        return;
    }
    const workload_run *first = NULL;
    double xmin = 1e9, xmax = 0, ymin = 1e9, ymax = 0;
    for (int i = 0; i < a->nwl; i++) {
        double px_, py_;
        if (plotted(a, &a->wl[i]) && point_of(&a->wl[i], &px_, &py_)) {
            first = first ? first : a->wl[i].w;
            xmin = fmin(xmin, px_), xmax = fmax(xmax, px_), ymin = fmin(ymin, py_), ymax = fmax(ymax, py_);
        }
    }
    if (!first) {
        sb_add(b, "<p class=\"quiet\">No workload has both its DRAM bytes and its FLOP/s, so there is no point to plot.</p>\n");
        counter_table(x);
        return;
    }
    const device_peaks *pk = first->device >= 0 && first->device < m->ndevices ? &a->peaks[first->device] : NULL;
    double top = ymax;
    if (pk && pk->fp32_tflops.ok)
        top = fmax(top, pk->fp32_tflops.v);
    if (pk && pk->tf32_tflops.ok)
        top = fmax(top, pk->tf32_tflops.v);
    axes g = {floor(log10(xmin)) - 1, ceil(log10(xmax)) + 1, floor(log10(ymin)), ceil(log10(top * 1.3))};
    sb_add(b, "<p class=\"legend\">Each point one GPU workload: its main kernel's FLOPs per DRAM byte against its FLOP/s "
              "(executed FP32 FLOPs, or the product's on the tensor pipe). <span class=\"quiet\">Logarithmic axes; "
              "ceilings from the device's properties, the L2's from the counters.</span></p>\n");
    svg_open(b, RF_W, RF_H, "roofline", "Roofline: achieved TFLOP/s against arithmetic intensity per workload");
    for (double d = g.xlo; d <= g.xhi + 1e-9; d++) {
        double gx = svg_scale(d, g.xlo, g.xhi, RF_X0, RF_X1);
        svg_line(b, gx, RF_Y0, gx, RF_Y1, "grid");
        svg_text(b, gx, RF_Y1 + 16, "middle", "tick", svg_tick(pow(10, d)).s);
    }
    for (double d = g.ylo; d <= g.yhi + 1e-9; d++) {
        double gy = svg_scale(d, g.ylo, g.yhi, RF_Y1, RF_Y0);
        svg_line(b, RF_X0, gy, RF_X1, gy, "grid");
        svg_text(b, RF_X0 - 6, gy + 4, "end", "tick", svg_tick(pow(10, d)).s);
    }
    svg_text(b, (RF_X0 + RF_X1) / 2, RF_Y1 + 34, "middle", "colhead", "FLOP per DRAM byte");
    svg_text(b, 0, RF_Y0 - 6, "start", "colhead", "TFLOP/s");
    double roof = top, hbm = pk && pk->hbm_gbps.ok ? pk->hbm_gbps.v : 0;
    char path[FIG_PATH];
    path_device_peaks(path, first->device);
    if (pk && pk->tf32_tflops.ok) {
        roof_label l = {"TF32 tensor ", "tf32_tflops", path, pk};
        roof_line(b, &g, pk->tf32_tflops.v, hbm, "roof", &l);
    } else if (pk) {
        html_note(x, "TF32 roof", metric_why(&pk->tf32_tflops));
    }
    if (pk && pk->fp32_tflops.ok) {
        roof_label l = {"FP32 ", "fp32_tflops", path, pk};
        roof_line(b, &g, pk->fp32_tflops.v, hbm, "roof", &l);
    }
    /* The bandwidth ceilings, each drawn and then named in the legend with its figure. */
    static const struct {
        const char *key, *lead, *cls, *note;
    } bw[] = {{"memory_gbps", "HBM ", "roof hbm", "HBM ceiling"},
              {"l2_gbps", "L2 ", "roof l2", "L2 ceiling"},
              {"l1_gbps", "L1/shared ", "roof l1", "L1 ceiling"}};
    bool drawn[3] = {false, false, false};
    for (int i = 0; pk && i < 3; i++) {
        const metric *v = metric_of(pk, metric_find(&device_peaks_table, bw[i].key));
        if (v->ok && v->v > 0) {
            diagonal(b, &g, v->v, roof, bw[i].cls);
            drawn[i] = true;
        } else {
            html_note(x, bw[i].note, metric_why(v));
        }
    }
    /* The points, and their names in the legend column, numbered to match; a number goes where
     * it overlaps no other (points of one kernel family sit close together). */
    int num = 0;
    double placed[64][2];
    int nplaced = 0;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        double ix, iy;
        if (!plotted(a, r) || !point_of(r, &ix, &iy))
            continue;
        num++;
        char tip[320], n[16], fpb[32], rate[32];
        snprintf(tip, sizeof tip, "%s: %s, %s\nbound by %s", r->w->name,
                 html_fig_text(&workload_metric_table, r, "intensity", true, fpb, sizeof fpb),
                 html_fig_text(&workload_metric_table, r, r->achieved_tflops.ok ? "achieved_tflops" : "tflops", true,
                               rate, sizeof rate),
                 r->bound_text);
        double cx = px(&g, ix), cy = py(&g, iy);
        svg_circle(b, cx, cy, 5, r->w->prec == PREC_TF32 ? "pt tf32" : "pt", tip);
        snprintf(n, sizeof n, "%d", num);
        double lx, ly;
        label_spot(placed, nplaced, cx, cy, &lx, &ly);
        if (nplaced < 64) {
            placed[nplaced][0] = lx;
            placed[nplaced++][1] = ly;
        }
        svg_text(b, lx, ly, "start", "small", n);
        snprintf(tip, sizeof tip, "%d %s", num, r->w->name);
        svg_text(b, RF_LEGEND, RF_Y0 + 4 + num * 17, "start", "small", tip);
    }
    /* What the marks mean, below the names. */
    double ky = RF_Y0 + 4 + (num + 2) * 17;
    svg_circle(b, RF_LEGEND + 5, ky - 4, 5, "pt", "an FP32 workload");
    svg_text(b, RF_LEGEND + 16, ky, "start", "small", "FP32 workload (executed FLOPs)");
    svg_circle(b, RF_LEGEND + 5, ky + 13, 5, "pt tf32", "a TF32 workload");
    svg_text(b, RF_LEGEND + 16, ky + 17, "start", "small", "TF32 workload (tensor cores)");
    double y = ky + 34;
    svg_line(b, RF_LEGEND, y - 4, RF_LEGEND + 12, y - 4, "roof");
    svg_text(b, RF_LEGEND + 16, y, "start", "small", "compute roofs (labelled)");
    for (int i = 0; i < 3; i++) {
        if (!drawn[i])
            continue;
        y += 17;
        svg_line(b, RF_LEGEND, y - 4, RF_LEGEND + 12, y - 4, bw[i].cls);
        roof_label l = {bw[i].lead, bw[i].key, path, pk};
        label_at(b, RF_LEGEND + 16, y, "start", &l);
    }
    svg_close(b);
    counter_table(x);
}
