/* The HTML report's charts, drawn as inline SVG from the model and the analysis: the ladder
 * against cuBLAS, the timelines, copy versus compute, and the speedup over the CPU. Each chart
 * is a fixed 1180-unit-wide drawing that the page's CSS scales to its column; every string in it
 * goes through svg.c's escaping. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "event_view.h"
#include "html_parts.h"
#include "svg.h"

#define CHART_W 1180.0
#define LABEL_W 200.0 /* the workload names on the left */

static bool ran(const workload_run *w)
{
    return w->status != WL_SKIPPED && w->status != WL_ERROR;
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

void html_ladder(html_ctx *x)
{
    if (html_builtin_only(x))
        return;
    const analysis *a = x->a;
    strbuf *b = x->b;
    double top = 100;
    int rows = 0, groups = 0;
    for (int p = PREC_FP32; p <= PREC_TF32; p++) {
        bool any = false;
        for (int i = 0; i < a->nwl; i++) {
            const workload_metrics *r = &a->wl[i];
            if (!r->w->needs_gpu || !ran(r->w) || (int)r->w->prec != p)
                continue;
            any = true;
            rows += ladder_lines(r);
            if (r->vs_cublas_pct.ok && r->vs_cublas_pct.v > top)
                top = r->vs_cublas_pct.v;
        }
        groups += any;
    }
    if (rows == 0) {
        sb_add(b, "<p class=\"quiet\">No GPU workload ran, so there is no ladder to climb.</p>\n");
        return;
    }
    top = ceil(top / 10) * 10;
    double h = 26 + groups * 30 + rows * LAD_ROW + 8;
    svg_open(b, CHART_W, h, "ladder", "Kernel time of each GPU workload as a percentage of cuBLAS's");
    /* Axis: 0, 25, 50, 75, 100 (and on, when a kernel beats the library). */
    double step = top > 100 ? svg_nice_step(top, 5) : 25;
    for (double v = 0; v <= top + 1e-9; v += step) {
        double gx = svg_scale(v, 0, top, LAD_X0, LAD_X1);
        svg_line(b, gx, 18, gx, h - 4, fabs(v - 100) < 1e-9 ? "ref" : "grid");
        char t[16];
        snprintf(t, sizeof t, "%.0f%%", v);
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
            if (!w->needs_gpu || !ran(w) || (int)w->prec != p)
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
            const workload_metrics *lib = r->library >= 0 ? &a->wl[r->library] : NULL;
            bool is_lib = lib == r;
            if (r->vs_cublas_pct.ok) {
                char tip[256], val[32];
                if (is_lib)
                    snprintf(tip, sizeof tip, "%s (%s) is the reference: 100%%", w->name,
                             w->host_memory == MEM_PINNED ? "pinned" : "pageable");
                else
                    snprintf(tip, sizeof tip, "%s (%s): %.1f%% of %s\nkernel %.3f ms vs %.3f ms", w->name,
                             w->host_memory == MEM_PINNED ? "pinned" : "pageable", r->vs_cublas_pct.v,
                             lib ? lib->w->name : "cuBLAS", r->kernel_ms.v, lib ? lib->kernel_ms.v : 0.0);
                double bw = svg_scale(r->vs_cublas_pct.v, 0, top, LAD_X0, LAD_X1) - LAD_X0;
                svg_rect(b, LAD_X0, cy - 7, bw, 14, 1, is_lib ? "bar lib" : "bar rung", NULL, tip);
                snprintf(val, sizeof val, "%.1f%%", r->vs_cublas_pct.v);
                svg_text(b, LAD_X0 + bw + 6, cy + 4, "start", "val", val);
                if (is_lib)
                    svg_text(b, LAD_X0 + 6, cy + 4, "start", "in", "the library itself");
            } else {
                na_text(x, LAD_X0 + 6, cy + 4, "na", "% of cuBLAS", r->vs_cublas_pct.why);
            }
            /* Each kernel beside the bar, with its occupancy: a small meter and the limiter. */
            for (int k = 0; k < lines; k++) {
                double ky = y + k * LAD_ROW + LAD_ROW / 2;
                if (r->nkernels == 0) {
                    svg_text(b, LAD_KN, ky + 4, "start", "na", "no kernels recorded");
                    continue;
                }
                const kernel_summary *s = &r->kernels[k];
                char name[160], t[256];
                kernel_display_name(s->name, name, sizeof name);
                if (strlen(name) > 33)
                    strcpy(name + 30, "...");
                svg_text(b, LAD_KN, ky + 4, "start", "kn", name);
                if (s->occupancy_pct.ok) {
                    snprintf(t, sizeof t, "%s\ntheoretical occupancy %.0f%% (%d blocks/SM), limited by %s", name,
                             s->occupancy_pct.v, s->active_blocks, s->limiter[0] ? s->limiter : "none");
                    svg_rect(b, LAD_OCC, ky - 4, 60, 8, 0, "meter", NULL, NULL);
                    svg_rect(b, LAD_OCC, ky - 4, 60 * s->occupancy_pct.v / 100, 8, 0, "meter-fill", NULL, t);
                    snprintf(t, sizeof t, "%.0f%%", s->occupancy_pct.v);
                    svg_text(b, LAD_OCC + 98, ky + 4, "end", "val", t);
                    bool limited = s->limiter[0] && strcmp(s->limiter, "none") != 0;
                    svg_text(b, LAD_OCC + 106, ky + 4, "start", limited ? "lim" : "quiet", limited ? s->limiter : "none");
                } else {
                    na_text(x, LAD_OCC, ky + 4, "na", "occupancy", s->occupancy_pct.why);
                }
            }
            y += lines * LAD_ROW;
        }
    }
    svg_close(b);
}

/* ---------- timelines ---------- */

#define TL_X0 110.0
#define TL_X1 (CHART_W - 6)
#define TL_PHASE_H 18.0
#define TL_LANE_H 14.0
#define TL_GAP 5.0
#define TL_MAX_STREAMS 8

/* The events the workload timelines draw: the workloads' own kernels, copies and API calls. */
size_t html_timeline_events(const run_model *m)
{
    const event_list *e = &m->events;
    size_t n = 0;
    for (size_t i = 0; i < e->nkernels; i++)
        n += e->kernels[i].region != 0;
    for (size_t i = 0; i < e->ncopies; i++)
        n += e->copies[i].region != 0;
    for (size_t i = 0; i < e->napis; i++)
        n += e->apis[i].region != 0;
    return n;
}

typedef struct {
    int64_t lo, hi; /* the drawing's time span, ns */
    double x0, x1;
} tscale;

static double tx(const tscale *s, int64_t t)
{
    return s->x0 + (double)(t - s->lo) / (double)(s->hi - s->lo) * (s->x1 - s->x0);
}

static double twidth(const tscale *s, int64_t a, int64_t b)
{
    return (double)(b - a) / (double)(s->hi - s->lo) * (s->x1 - s->x0);
}

/* Millisecond ticks along the top, with faint lines down through the lanes. */
static void time_axis(strbuf *b, const tscale *s, double y_lines_end)
{
    double span_ms = (double)(s->hi - s->lo) / 1e6;
    double step = svg_nice_step(span_ms, 10);
    for (double v = 0; v <= span_ms + 1e-9; v += step) {
        double gx = s->x0 + v / span_ms * (s->x1 - s->x0);
        svg_line(b, gx, 14, gx, y_lines_end, "grid");
        char t[24];
        snprintf(t, sizeof t, step < 0.1 ? "%.2f ms" : (step < 1 ? "%.1f ms" : "%.0f ms"), v);
        svg_text(b, gx, 10, gx > s->x1 - 30 ? "end" : "middle", "tick", t);
    }
}

/* A timeline's drawing: its SVG, named "what name" for screen readers, and its time axis. */
static void timeline_open(strbuf *b, const tscale *s, double h, const char *what, const char *name)
{
    char aria[96];
    snprintf(aria, sizeof aria, "%s %s", what, name);
    svg_open(b, CHART_W, h, "timeline", aria);
    time_axis(b, s, h - 2);
}

/* A labelled interval: a phase or a workload's span; the name is written inside when it fits. */
static void labelled(strbuf *b, const tscale *s, int64_t start, int64_t end, double y, double h, const char *cls,
                     const char *name, const char *tip_extra)
{
    double x = tx(s, start), w = twidth(s, start, end);
    char tip[256];
    snprintf(tip, sizeof tip, "%s\n%.3f ms%s%s", name, (double)(end - start) / 1e6, tip_extra ? "\n" : "",
             tip_extra ? tip_extra : "");
    svg_rect(b, x, y, w, h, 1, cls, NULL, tip);
    if (w > 7.0 * (double)strlen(name) + 8)
        svg_text(b, x + 4, y + h - 5, "start", "in", name);
}

/* A phase's colour: the standard phases keep theirs in every workload (copy-in in the copies'
 * blue, compute in the kernels' green, ...); any other phase takes one by position. */
static int phase_color(const char *name, int index)
{
    static const char *const known[] = {"allocate", "copy-in", "warm-up", "compute", "copy-out", "verify"};
    for (int i = 0; i < 6; i++)
        if (strcmp(name, known[i]) == 0)
            return i;
    return index % 6;
}

static void lane_label(strbuf *b, double y, double h, const char *name)
{
    svg_text(b, TL_X0 - 8, y + h - 3, "end", "lane", name);
    svg_line(b, TL_X0, y + h + TL_GAP / 2, TL_X1, y + h + TL_GAP / 2, "laneline");
}

static const char *dir_word(copy_dir d)
{
    return d == COPY_H2D ? "H2D" : d == COPY_D2H ? "D2H" : d == COPY_D2D ? "D2D" : "copy";
}

/* Marks of the whole-span timelines are "ev", those of the one-product view "ev1": each recorded
 * event is one "ev" mark (or part of one), and "ev1" marks repeat a few of them. */
static void copy_mark(strbuf *b, const tscale *s, const copy_event *c, double y, bool again)
{
    char tip[256];
    double ms = (double)(c->end_ns - c->start_ns) / 1e6;
    int n = snprintf(tip, sizeof tip, "%s copy, %s to %s\n%.1f MiB in %.3f ms", dir_word(c->dir), mem_kind_name(c->src),
                     mem_kind_name(c->dst), (double)c->bytes / (1024.0 * 1024), ms);
    if (ms > 0 && n > 0 && (size_t)n < sizeof tip)
        snprintf(tip + n, sizeof tip - (size_t)n, " = %.1f GB/s", (double)c->bytes / (ms * 1e6));
    n = (int)strlen(tip);
    snprintf(tip + n, sizeof tip - (size_t)n, "\nstream %u, correlation %u", c->stream, c->correlation);
    const char *cls = c->dir == COPY_H2D ? "ev h2d" : c->dir == COPY_D2H ? "ev d2h" : "ev oc";
    if (again)
        cls = c->dir == COPY_H2D ? "ev1 h2d" : c->dir == COPY_D2H ? "ev1 d2h" : "ev1 oc";
    svg_rect(b, tx(s, c->start_ns), y, twidth(s, c->start_ns, c->end_ns), TL_LANE_H, 1, cls, NULL, tip);
}

static const kernel_summary *summary_of(const workload_metrics *r, const char *name)
{
    for (int i = 0; i < r->nkernels; i++)
        if (strcmp(r->kernels[i].name, name) == 0)
            return &r->kernels[i];
    return NULL;
}

static void kernel_mark(strbuf *b, const tscale *s, const workload_metrics *r, const kernel_event *k, double y,
                        bool again)
{
    char name[256], tip[640];
    kernel_display_name(k->name, name, sizeof name);
    int n = snprintf(tip, sizeof tip, "%s\n%.3f ms\ngrid %dx%dx%d, block %dx%dx%d", name,
                     (double)(k->end_ns - k->start_ns) / 1e6, k->grid[0], k->grid[1], k->grid[2], k->block[0],
                     k->block[1], k->block[2]);
    if (k->has_resources && n > 0 && (size_t)n < sizeof tip)
        n += snprintf(tip + n, sizeof tip - (size_t)n, "\n%d registers, %d B shared memory", k->registers,
                      k->static_smem + k->dynamic_smem);
    const kernel_summary *ks = summary_of(r, k->name);
    if (ks && ks->occupancy_pct.ok && n > 0 && (size_t)n < sizeof tip)
        n += snprintf(tip + n, sizeof tip - (size_t)n, "\noccupancy %.0f%%, limited by %s", ks->occupancy_pct.v,
                      ks->limiter[0] ? ks->limiter : "none");
    if (n > 0 && (size_t)n < sizeof tip)
        snprintf(tip + n, sizeof tip - (size_t)n, "\nstream %u, correlation %u", k->stream, k->correlation);
    svg_rect(b, tx(s, k->start_ns), y, twidth(s, k->start_ns, k->end_ns), TL_LANE_H, 1, again ? "ev1 k" : "ev k", NULL,
             tip);
}

/* Launches of one kernel closer together than a chart unit (a compute phase of 200 launches of
 * 46 us each) are drawn as one mark, as a pixel can show them; its tip counts them and gives their
 * total and range. data-launches says how many launches a mark stands for. */
typedef struct {
    const kernel_event *first;
    size_t n;
    int64_t end;
    double sum_ms, min_ms, max_ms;
} kernel_run;

static void kernel_run_flush(strbuf *b, const tscale *s, const workload_metrics *r, kernel_run *run, double y)
{
    if (run->n == 1)
        kernel_mark(b, s, r, run->first, y, false);
    else if (run->n > 1) {
        char name[256], tip[512], attr[40];
        kernel_display_name(run->first->name, name, sizeof name);
        snprintf(tip, sizeof tip, "%s\n%zu launches over %.3f ms: %.3f ms of kernel time\neach %.3f to %.3f ms",
                 name, run->n, (double)(run->end - run->first->start_ns) / 1e6, run->sum_ms, run->min_ms,
                 run->max_ms);
        snprintf(attr, sizeof attr, "data-launches=\"%zu\"", run->n);
        svg_rect(b, tx(s, run->first->start_ns), y, twidth(s, run->first->start_ns, run->end), TL_LANE_H, 1,
                 "ev k", attr, tip);
    }
    run->n = 0;
}

static void kernel_run_add(strbuf *b, const tscale *s, const workload_metrics *r, kernel_run *run,
                           const kernel_event *k, double y)
{
    double ms = (double)(k->end_ns - k->start_ns) / 1e6;
    if (run->n > 0 && strcmp(run->first->name, k->name) == 0 && tx(s, k->start_ns) - tx(s, run->end) < 1.0) {
        run->n++;
        run->end = k->end_ns > run->end ? k->end_ns : run->end;
        run->sum_ms += ms;
        run->min_ms = ms < run->min_ms ? ms : run->min_ms;
        run->max_ms = ms > run->max_ms ? ms : run->max_ms;
        return;
    }
    kernel_run_flush(b, s, r, run, y);
    *run = (kernel_run){k, 1, k->end_ns, ms, ms, ms};
}

static void span_of(const workload_run *w, const event_view *ev, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
#define WIDEN(a, b) do { if ((a) < *lo) *lo = (a); if ((b) > *hi) *hi = (b); } while (0)
    for (int i = 0; i < w->nphases; i++)
        WIDEN(w->phases[i].start_ns, w->phases[i].end_ns);
    for (size_t i = 0; i < ev->nkernels; i++)
        WIDEN(ev->kernels[i]->start_ns, ev->kernels[i]->end_ns);
    for (size_t i = 0; i < ev->ncopies; i++)
        WIDEN(ev->copies[i]->start_ns, ev->copies[i]->end_ns);
    for (size_t i = 0; i < ev->napis; i++)
        WIDEN(ev->apis[i]->start_ns, ev->apis[i]->end_ns);
#undef WIDEN
}

static bool busy_lane(strbuf *b, const tscale *s, const analysis *a, double y);

/* The whole run on one axis: mmprof's own phases, each workload's span, and the GPU's busy time. */
static void run_overview(html_ctx *x)
{
    const run_model *m = x->a->m;
    strbuf *b = x->b;
    tscale s = {.lo = 0, .hi = 0, .x0 = TL_X0, .x1 = TL_X1};
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < m->builtin.ntool_phases; i++) {
        lo = m->builtin.tool_phases[i].start_ns < lo ? m->builtin.tool_phases[i].start_ns : lo;
        hi = m->builtin.tool_phases[i].end_ns > hi ? m->builtin.tool_phases[i].end_ns : hi;
    }
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        int64_t a, z;
        span_of(&m->builtin.workloads[i], workload_events(x->a, &m->builtin.workloads[i]), &a, &z);
        lo = a < lo ? a : lo;
        hi = z > hi ? z : hi;
    }
    if (lo >= hi)
        return;
    s.lo = lo < m->epoch_ns ? lo : m->epoch_ns;
    s.hi = hi;
    sb_printf(b, "<figure class=\"tl overview\"><figcaption><b>The whole run</b> <span class=\"quiet\">%.0f ms "
                 "from start; where mmprof's own time went, and each workload</span></figcaption>\n",
              (double)(s.hi - s.lo) / 1e6);
    double y = 18, h = y + 2 * (TL_PHASE_H + TL_GAP) + TL_LANE_H + TL_GAP + 2;
    svg_open(b, CHART_W, h, "timeline", "The whole run: mmprof's phases, each workload and when the GPU was busy");
    time_axis(b, &s, h - 2);
    lane_label(b, y, TL_PHASE_H, "mmprof");
    for (int i = 0; i < m->builtin.ntool_phases; i++)
        labelled(b, &s, m->builtin.tool_phases[i].start_ns, m->builtin.tool_phases[i].end_ns, y, TL_PHASE_H, "ph tool",
                 m->builtin.tool_phases[i].name, NULL);
    y += TL_PHASE_H + TL_GAP;
    lane_label(b, y, TL_PHASE_H, "workloads");
    int number = 0;
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        const workload_run *w = &m->builtin.workloads[i];
        int64_t a, z;
        span_of(w, workload_events(x->a, w), &a, &z);
        if (a >= z)
            continue;
        number++;
        char label[64];
        workload_label(w, label, sizeof label);
        char tip[96];
        snprintf(tip, sizeof tip, "%d. %s\n%.1f ms", number, label, (double)(z - a) / 1e6);
        svg_rect(b, tx(&s, a), y, twidth(&s, a, z), TL_PHASE_H, 1,
                 !w->needs_gpu ? "span cpu" : (w->host_memory == MEM_PINNED ? "span gpu pinned" : "span gpu"), NULL, tip);
        /* Every span is labelled: its name inside when it fits, else its number in the key below. */
        char num[12];
        snprintf(num, sizeof num, "%d", number);
        if (twidth(&s, a, z) > 7.0 * (double)strlen(w->name) + 8)
            svg_text(b, tx(&s, a) + 4, y + TL_PHASE_H - 5, "start", "in", w->name);
        else
            svg_text(b, tx(&s, a) + twidth(&s, a, z) / 2, y + TL_PHASE_H - 5, "middle", "in", num);
    }
    y += TL_PHASE_H + TL_GAP;
    lane_label(b, y, TL_LANE_H, "GPU busy");
    if (!busy_lane(b, &s, x->a, y))
        b->oom = true;
    svg_close(b);
    /* The key: every workload by its number, and what the lanes' colours mean. */
    sb_add(b, "<figcaption class=\"key\"><span class=\"sw tool\"></span>mmprof's own phases "
              "<span class=\"sw cpu\"></span>CPU workload <span class=\"sw gpu\"></span>GPU, pageable "
              "<span class=\"sw gpupin\"></span>GPU, pinned <span class=\"sw busy\"></span>GPU busy "
              "(kernels, copies, memsets)<ol class=\"spankey\">");
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        const workload_run *w = &m->builtin.workloads[i];
        int64_t a, z;
        span_of(w, workload_events(x->a, w), &a, &z);
        if (a >= z)
            continue;
        char label[64];
        workload_label(w, label, sizeof label);
        sb_add(b, "<li>");
        sb_html(b, label);
        sb_add(b, "</li>");
    }
    sb_add(b, "</ol></figcaption>\n</figure>\n");
}

/* When the GPU ran anything, as analysis joined it into stretches (analysis.busy); each mark's
 * tip says how busy the GPU was inside. */
static bool busy_lane(strbuf *b, const tscale *s, const analysis *a, double y)
{
    for (int i = 0; i < a->nbusy; i++) {
        const busy_span *p = &a->busy[i];
        char tip[128];
        snprintf(tip, sizeof tip, "GPU busy %.3f ms of %.3f ms (%.0f%%)", p->busy_ms.v, p->length_ms.v,
                 p->busy_pct.ok ? p->busy_pct.v : 100.0);
        svg_rect(b, tx(s, p->start_ns), y, twidth(s, p->start_ns, p->end_ns), TL_LANE_H, 1, "busy", NULL, tip);
    }
    return true;
}

/* CUDA API calls, as many as a pixel can show: calls closer than one chart unit to the previous
 * mark join it, and the mark's tip counts them by name (a workload makes thousands of calls a few
 * microseconds long: drawn one by one they were most of the page's bytes and one grey bar to the
 * eye). data-calls says how many calls a mark stands for. */
#define API_NAMES 4

typedef struct {
    const char *name;
    int count;
} name_count;

static int cmp_api_start(const void *pa, const void *pb)
{
    const api_event *a = *(const api_event *const *)pa, *b = *(const api_event *const *)pb;
    return (a->start_ns > b->start_ns) - (a->start_ns < b->start_ns);
}

static void api_mark(strbuf *b, const tscale *s, const api_event *const *calls, size_t n, int64_t end, double y)
{
    name_count names[API_NAMES];
    int nn = 0, other = 0;
    double busy_ms = 0;
    for (size_t i = 0; i < n; i++) {
        busy_ms += (double)(calls[i]->end_ns - calls[i]->start_ns) / 1e6;
        int k = 0;
        while (k < nn && strcmp(names[k].name, calls[i]->name) != 0)
            k++;
        if (k < nn)
            names[k].count++;
        else if (nn < API_NAMES)
            names[nn++] = (name_count){calls[i]->name, 1};
        else
            other++;
    }
    char tip[512], attr[32];
    int len;
    if (n == 1) {
        char nm[128];
        api_display_name(calls[0]->name, nm, sizeof nm);
        len = snprintf(tip, sizeof tip, "%s\n%.3f ms\nthread %u, correlation %u", nm, busy_ms, calls[0]->thread,
                       calls[0]->correlation);
    } else {
        len = snprintf(tip, sizeof tip, "%zu CUDA API calls\n%.3f ms in calls over %.3f ms", n, busy_ms,
                       (double)(end - calls[0]->start_ns) / 1e6);
        for (int k = 0; k < nn && len > 0 && (size_t)len < sizeof tip; k++) {
            char nm[128];
            api_display_name(names[k].name, nm, sizeof nm);
            len += snprintf(tip + len, sizeof tip - (size_t)len, "\n%s \xc3\x97%d", nm, names[k].count);
        }
        if (other > 0 && len > 0 && (size_t)len < sizeof tip)
            snprintf(tip + len, sizeof tip - (size_t)len, "\nother calls \xc3\x97%d", other);
    }
    snprintf(attr, sizeof attr, "data-calls=\"%zu\"", n);
    svg_rect(b, tx(s, calls[0]->start_ns), y, twidth(s, calls[0]->start_ns, end), TL_LANE_H, 1, "ev api", attr, tip);
}

static bool api_lane(strbuf *b, const tscale *s, const api_event *const *apis, size_t n, double y)
{
    const api_event **calls = malloc(n * sizeof *calls);
    if (!calls)
        return false;
    for (size_t i = 0; i < n; i++)
        calls[i] = apis[i];
    qsort(calls, n, sizeof *calls, cmp_api_start);
    size_t first = 0;
    int64_t end = calls[0]->end_ns;
    for (size_t i = 1; i <= n; i++) {
        if (i < n && tx(s, calls[i]->start_ns) - tx(s, end) < 1.0) {
            if (calls[i]->end_ns > end)
                end = calls[i]->end_ns;
            continue;
        }
        api_mark(b, s, calls + first, i - first, end, y);
        if (i < n) {
            first = i;
            end = calls[i]->end_ns;
        }
    }
    free(calls);
    return true;
}

/* One product as a program would run it once: copy A and B in, the product's kernels (the one of
 * the timed products closest to the median), copy C out, back to back on one axis with the host's
 * gaps between phases left out. Beside a whole span of warm-up, hundreds of repeats and
 * verification, this is what the verdict is about. */
static void one_product(html_ctx *x, const workload_metrics *r)
{
    const workload_run *w = r->w;
    const event_view *ev = workload_events(x->a, w);
    strbuf *b = x->b;
    const phase *in = workload_find_phase(w, "copy-in"), *comp = workload_find_phase(w, "compute"),
                *out = workload_find_phase(w, "copy-out");
    int kpp = r->kernels_per_product;
    if (!in || !comp || !out || kpp <= 0 || r->product_kernel < 0)
        return;
    size_t best = (size_t)r->product_kernel; /* analysis chose it (nearest the median) */
    /* Offsets: H2D from the first copy-in copy; kernels after the last H2D; D2H after the product. */
    int64_t h2d0 = INT64_MAX, h2d1 = 0, d2h0 = INT64_MAX;
    for (size_t i = 0; i < ev->ncopies; i++) {
        const copy_event *c = ev->copies[i];
        if (c->dir == COPY_H2D && c->start_ns >= in->start_ns && c->start_ns <= in->end_ns) {
            h2d0 = c->start_ns < h2d0 ? c->start_ns : h2d0;
            h2d1 = c->end_ns > h2d1 ? c->end_ns : h2d1;
        }
        if (c->dir == COPY_D2H && c->start_ns >= out->start_ns && c->start_ns <= out->end_ns)
            d2h0 = c->start_ns < d2h0 ? c->start_ns : d2h0;
    }
    if (h2d0 == INT64_MAX || d2h0 == INT64_MAX)
        return;
    int64_t kshift = (h2d1 - h2d0) - (ev->kernels[best]->start_ns), kend = 0;
    size_t seen_k = 0;
    for (size_t i = best; i < ev->nkernels && seen_k < (size_t)kpp; i++)
        if (ev->kernels[i]->start_ns >= comp->start_ns && ev->kernels[i]->start_ns <= comp->end_ns) {
            seen_k++;
            kend = ev->kernels[i]->end_ns + kshift > kend ? ev->kernels[i]->end_ns + kshift : kend;
        }
    int64_t dshift = kend - d2h0, total = kend;
    for (size_t i = 0; i < ev->ncopies; i++) {
        const copy_event *c = ev->copies[i];
        if (c->dir == COPY_D2H && c->start_ns >= out->start_ns && c->start_ns <= out->end_ns)
            total = c->end_ns + dshift > total ? c->end_ns + dshift : total;
    }
    tscale s = {.lo = 0, .hi = total, .x0 = TL_X0, .x1 = TL_X1};
    if (total <= 0)
        return;
    double h = 18 + 3 * (TL_LANE_H + TL_GAP) + 2;
    sb_printf(b, "<figure class=\"tl one\"><figcaption>One product <span class=\"quiet\">%.3f ms: copies in, the "
                 "product nearest the median, copies out, back to back</span></figcaption>\n",
              (double)total / 1e6);
    timeline_open(b, &s, h, "One product of", w->name);
    double y = 18;
    lane_label(b, y, TL_LANE_H, "H2D");
    for (size_t i = 0; i < ev->ncopies; i++) {
        copy_event c = *ev->copies[i];
        if (c.dir != COPY_H2D || c.start_ns < in->start_ns || c.start_ns > in->end_ns)
            continue;
        c.start_ns -= h2d0;
        c.end_ns -= h2d0;
        copy_mark(b, &s, &c, y, true);
    }
    y += TL_LANE_H + TL_GAP;
    lane_label(b, y, TL_LANE_H, "kernels");
    seen_k = 0;
    for (size_t i = best; i < ev->nkernels && seen_k < (size_t)kpp; i++) {
        kernel_event k = *ev->kernels[i];
        if (k.start_ns < comp->start_ns || k.start_ns > comp->end_ns)
            continue;
        seen_k++;
        k.start_ns += kshift;
        k.end_ns += kshift;
        kernel_mark(b, &s, r, &k, y, true);
    }
    y += TL_LANE_H + TL_GAP;
    lane_label(b, y, TL_LANE_H, "D2H");
    for (size_t i = 0; i < ev->ncopies; i++) {
        copy_event c = *ev->copies[i];
        if (c.dir != COPY_D2H || c.start_ns < out->start_ns || c.start_ns > out->end_ns)
            continue;
        c.start_ns += dshift;
        c.end_ns += dshift;
        copy_mark(b, &s, &c, y, true);
    }
    svg_close(b);
    sb_add(b, "</figure>\n");
}

static void workload_timeline(html_ctx *x, const workload_metrics *r)
{
    const workload_run *w = r->w;
    const event_view *ev = workload_events(x->a, w);
    strbuf *b = x->b;
    tscale s = {.x0 = TL_X0, .x1 = TL_X1};
    span_of(w, ev, &s.lo, &s.hi);
    if (s.lo >= s.hi)
        return;
    uint32_t streams[TL_MAX_STREAMS];
    int nstreams = 0;
    bool other_copies = false;
    for (size_t i = 0; i < ev->nkernels; i++) {
        bool seen = false;
        for (int j = 0; j < nstreams; j++)
            seen |= streams[j] == ev->kernels[i]->stream;
        if (!seen && nstreams < TL_MAX_STREAMS)
            streams[nstreams++] = ev->kernels[i]->stream;
    }
    for (size_t i = 0; i < ev->ncopies; i++)
        other_copies |= ev->copies[i]->dir != COPY_H2D && ev->copies[i]->dir != COPY_D2H;
    bool gpu = w->needs_gpu;
    int lanes = gpu ? 2 + (nstreams > 0 ? nstreams : 1) + other_copies : 0;
    lanes += ev->napis > 0;
    double h = 18 + TL_PHASE_H + TL_GAP + lanes * (TL_LANE_H + TL_GAP) + 2;

    sb_add(b, "<figure class=\"tl\"><figcaption>");
    html_workload_label(x, w);
    sb_printf(b, " <span class=\"quiet\">%.1f ms span", (double)(s.hi - s.lo) / 1e6);
    if (gpu)
        sb_printf(b, " &middot; %zu kernels &middot; %zu copies", ev->nkernels, ev->ncopies);
    if (ev->napis)
        sb_printf(b, " &middot; %zu API calls", ev->napis);
    if (gpu && r->busy_pct.ok)
        sb_printf(b, " &middot; GPU busy %.1f%% of copy-in, compute and copy-out", r->busy_pct.v);
    sb_printf(b, " &middot; timed by %s</span></figcaption>\n", timing_source_name(w->timing));

    timeline_open(b, &s, h, "Timeline of", w->name);
    double y = 18;
    lane_label(b, y, TL_PHASE_H, "NVTX");
    for (int i = 0; i < w->nphases; i++) {
        char cls[16];
        snprintf(cls, sizeof cls, "ph p%d", phase_color(w->phases[i].name, i));
        labelled(b, &s, w->phases[i].start_ns, w->phases[i].end_ns, y, TL_PHASE_H, cls, w->phases[i].name, NULL);
    }
    y += TL_PHASE_H + TL_GAP;
    if (gpu) {
        lane_label(b, y, TL_LANE_H, "H2D");
        for (size_t i = 0; i < ev->ncopies; i++)
            if (ev->copies[i]->dir == COPY_H2D)
                copy_mark(b, &s, ev->copies[i], y, false);
        y += TL_LANE_H + TL_GAP;
        int klanes = nstreams > 0 ? nstreams : 1;
        for (int l = 0; l < klanes; l++) {
            char name[32];
            if (nstreams > 1)
                snprintf(name, sizeof name, "stream %u", streams[l]);
            else
                snprintf(name, sizeof name, "kernels");
            lane_label(b, y, TL_LANE_H, name);
            kernel_run run = {0};
            for (size_t i = 0; i < ev->nkernels; i++) {
                int lane = klanes - 1; /* streams past the last lane share it */
                for (int j = 0; j < nstreams; j++)
                    if (streams[j] == ev->kernels[i]->stream) {
                        lane = j;
                        break;
                    }
                if (lane == l)
                    kernel_run_add(b, &s, r, &run, ev->kernels[i], y);
            }
            kernel_run_flush(b, &s, r, &run, y);
            y += TL_LANE_H + TL_GAP;
        }
        lane_label(b, y, TL_LANE_H, "D2H");
        for (size_t i = 0; i < ev->ncopies; i++)
            if (ev->copies[i]->dir == COPY_D2H)
                copy_mark(b, &s, ev->copies[i], y, false);
        y += TL_LANE_H + TL_GAP;
        if (other_copies) {
            lane_label(b, y, TL_LANE_H, "other copies");
            for (size_t i = 0; i < ev->ncopies; i++)
                if (ev->copies[i]->dir != COPY_H2D && ev->copies[i]->dir != COPY_D2H)
                    copy_mark(b, &s, ev->copies[i], y, false);
            y += TL_LANE_H + TL_GAP;
        }
    }
    if (ev->napis > 0) {
        lane_label(b, y, TL_LANE_H, "CUDA API");
        if (!api_lane(b, &s, ev->apis, ev->napis, y))
            b->oom = true;
    }
    svg_close(b);
    sb_add(b, "</figure>\n");
}

void html_timeline(html_ctx *x)
{
    if (html_builtin_only(x))
        return;
    const analysis *a = x->a;
    run_overview(x);
    sb_add(x->b, "<p class=\"legend\"><b>Each workload:</b> <span class=\"sw h2d\"></span>host to device "
                 "<span class=\"sw k\"></span>kernel <span class=\"sw d2h\"></span>device to host "
                 "<span class=\"sw api\"></span>CUDA API calls <span class=\"quiet\">&middot; its whole span on its own "
                 "axis, NVTX phases on top; then one product on its own</span></p>\n");
    int drawn = 0;
    for (int i = 0; i < a->nwl; i++) {
        if (a->wl[i].w->status == WL_SKIPPED)
            continue;
        workload_timeline(x, &a->wl[i]);
        if (a->wl[i].w->needs_gpu && a->wl[i].w->status == WL_OK)
            one_product(x, &a->wl[i]);
        drawn++;
    }
    if (drawn == 0)
        sb_add(x->b, "<p class=\"quiet\">No workload ran.</p>\n");
}

/* ---------- copy versus compute ---------- */

#define CC_ROW 24.0
#define CC_X0 LABEL_W
#define CC_X1 540.0
#define CC_RATIO 705.0 /* copy:compute, right-aligned */
#define CC_BW0 745.0   /* H2D GB/s column */
#define CC_BW1 975.0   /* D2H GB/s column */
#define CC_BW_W 120.0

/* A GB/s bar against the column's scale, with the fastest measured marked. */
static void gbps_cell(html_ctx *x, double x0, double cy, const metric *g, const metric *best, double top, const char *dir)
{
    strbuf *b = x->b;
    if (!g->ok) {
        na_text(x, x0, cy + 4, "na", dir, g->why);
        return;
    }
    double w = svg_scale(g->v, 0, top, 0, CC_BW_W);
    char tip[160], val[32];
    if (best->ok && best->v > 0)
        snprintf(tip, sizeof tip, "%s %.1f GB/s: %.0f%% of the fastest measured (%.1f GB/s)", dir, g->v,
                 100 * g->v / best->v, best->v);
    else
        snprintf(tip, sizeof tip, "%s %.1f GB/s", dir, g->v);
    svg_rect(b, x0, cy - 6, w, 12, 1, strcmp(dir, "H2D") == 0 ? "bar h2d" : "bar d2h", NULL, tip);
    snprintf(val, sizeof val, "%.1f", g->v);
    svg_text(b, x0 + CC_BW_W + 46, cy + 4, "end", "val", val);
    if (best->ok && best->v > 0) {
        snprintf(val, sizeof val, "%.0f%%", 100 * g->v / best->v);
        svg_text(b, x0 + CC_BW_W + 86, cy + 4, "end", "quiet", val);
    }
}

/* "pinned 54.9 GB/s vs pageable 6.4 GB/s (8.6x)" for one direction, when both kinds ran. */
static void kind_contrast(html_ctx *x, bool h2d)
{
    double best[3] = {0, 0, 0};
    for (int i = 0; i < x->a->nwl; i++) {
        const workload_metrics *r = &x->a->wl[i];
        const metric *g = h2d ? &r->h2d_gbps : &r->d2h_gbps;
        int k = r->w->host_memory == MEM_PINNED ? 2 : (r->w->host_memory == MEM_PAGEABLE ? 1 : 0);
        if (k && g->ok && g->v > best[k])
            best[k] = g->v;
    }
    if (best[1] > 0 && best[2] > 0)
        sb_printf(x->b, "<li><b>%s</b>: pinned %.1f GB/s against pageable %.1f GB/s, %.1f&times; faster</li>",
                  h2d ? "host to device" : "device to host", best[2], best[1], best[2] / best[1]);
}

void html_copies(html_ctx *x)
{
    if (html_builtin_only(x))
        return;
    const analysis *a = x->a;
    strbuf *b = x->b;
    int rows = 0;
    double top_gbps = 0;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        if (!r->w->needs_gpu || !ran(r->w))
            continue;
        rows++;
        if (r->w->device >= 0 && r->w->device < a->m->ndevices && a->peaks[r->w->device].link_gbps.ok &&
            a->peaks[r->w->device].link_gbps.v > top_gbps)
            top_gbps = a->peaks[r->w->device].link_gbps.v;
    }
    if (rows == 0) {
        sb_add(b, "<p class=\"quiet\">No GPU workload ran, so nothing was copied.</p>\n");
        return;
    }
    if (a->best_h2d_gbps.ok && a->best_h2d_gbps.v > top_gbps)
        top_gbps = a->best_h2d_gbps.v;
    if (a->best_d2h_gbps.ok && a->best_d2h_gbps.v > top_gbps)
        top_gbps = a->best_d2h_gbps.v;
    if (top_gbps <= 0)
        top_gbps = 1;

    sb_add(b, "<ul class=\"facts-inline\">");
    kind_contrast(x, true);
    kind_contrast(x, false);
    sb_add(b, "<li>fastest measured: H2D ");
    html_metric(x, &a->best_h2d_gbps, "%.1f", " GB/s", "fastest H2D");
    sb_add(b, ", D2H ");
    html_metric(x, &a->best_d2h_gbps, "%.1f", " GB/s", "fastest D2H");
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
        if (!w->needs_gpu || !ran(w))
            continue;
        if (prev && strcmp(prev, w->name) != 0)
            svg_line(b, 0, y - 1, CHART_W, y - 1, "sep");
        prev = w->name;
        double cy = y + CC_ROW / 2;
        row_label(b, w, cy + 4);
        if (r->h2d_ms.ok && r->kernel_ms.ok && r->d2h_ms.ok) {
            double parts[3] = {r->h2d_ms.v, r->kernel_ms.v, r->d2h_ms.v};
            const char *cls[3] = {"bar h2d", "bar k", "bar d2h"};
            const char *what[3] = {"copy A and B in", "one product on the GPU", "copy C out"};
            double at = CC_X0;
            for (int p = 0; p < 3; p++) {
                double w_px = svg_scale(parts[p], 0, r->e2e_ms.v, 0, CC_X1 - CC_X0);
                char tip[160];
                snprintf(tip, sizeof tip, "%s: %.3f ms (%.0f%% of %.3f ms end to end)", what[p], parts[p],
                         100 * parts[p] / r->e2e_ms.v, r->e2e_ms.v);
                svg_rect(b, at, cy - 7, w_px, 14, 0.5, cls[p], NULL, tip);
                at += w_px;
            }
            char val[48];
            snprintf(val, sizeof val, "%.3f ms", r->e2e_ms.v);
            svg_text(b, CC_X1 + 6, cy + 4, "start", "val", val);
            if (r->copy_compute_ratio.ok) {
                snprintf(val, sizeof val, "%.2f", r->copy_compute_ratio.v);
                svg_text(b, CC_RATIO, cy + 4, "end", r->copy_compute_ratio.v > 1 ? "val lim" : "val", val);
            }
        } else {
            const metric *bad = !r->h2d_ms.ok ? &r->h2d_ms : (!r->kernel_ms.ok ? &r->kernel_ms : &r->d2h_ms);
            na_text(x, CC_X0 + 6, cy + 4, "na", "copy versus compute", bad->why);
        }
        gbps_cell(x, CC_BW0, cy, &r->h2d_gbps, &a->best_h2d_gbps, top_gbps, "H2D");
        gbps_cell(x, CC_BW1, cy, &r->d2h_gbps, &a->best_d2h_gbps, top_gbps, "D2H");
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
    if (html_builtin_only(x))
        return;
    const analysis *a = x->a;
    strbuf *b = x->b;
    int rows = 0;
    double lo = 1, hi = 1;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        if (!r->w->needs_gpu || !ran(r->w))
            continue;
        rows++;
        const metric *v[2] = {&r->speedup, &r->speedup_e2e};
        for (int k = 0; k < 2; k++)
            if (v[k]->ok && v[k]->v > 0) {
                lo = v[k]->v < lo ? v[k]->v : lo;
                hi = v[k]->v > hi ? v[k]->v : hi;
            }
    }
    if (rows == 0) {
        sb_add(b, "<p class=\"quiet\">No GPU workload ran.</p>\n");
        return;
    }
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
                char t[24];
                snprintf(t, sizeof t, "%g\xc3\x97", pow(10, d));
                svg_text(b, gx, 11, "middle", "tick", t);
            }
        }
    }
    double y = 22;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        const workload_run *w = r->w;
        if (!w->needs_gpu || !ran(w))
            continue;
        row_label(b, w, y + SP_ROW / 2 + 4);
        const metric *v[2] = {&r->speedup, &r->speedup_e2e};
        const char *cls[2] = {"bar k", "bar e2e"};
        const char *what[2] = {"kernel only", "with copies"};
        for (int k = 0; k < 2; k++) {
            double by = y + 4 + k * 11;
            if (!v[k]->ok) {
                na_text(x, SP_X0 + 6, by + 9, "na small", "speedup", v[k]->why);
                continue;
            }
            double x0 = SP_X0, x1 = svg_scale(log10(v[k]->v), dlo, dhi, SP_X0, SP_X1);
            char tip[128], val[24];
            snprintf(tip, sizeof tip, "%s (%s), %s: %.2f\xc3\x97 the CPU", w->name,
                     w->host_memory == MEM_PINNED ? "pinned" : "pageable", what[k], v[k]->v);
            svg_rect(b, x0, by, x1 - x0, 10, 1, cls[k], NULL, tip);
            snprintf(val, sizeof val, v[k]->v < 10 ? "%.2f\xc3\x97" : (v[k]->v < 100 ? "%.1f\xc3\x97" : "%.0f\xc3\x97"),
                     v[k]->v);
            svg_text(b, (x1 > x0 ? x1 : x0) + 5, by + 9, "start", "val small", val);
        }
        y += SP_ROW;
    }
    svg_close(b);
}
