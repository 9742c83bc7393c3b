/* The HTML report's timelines (a built-in run's): the whole run on one axis (mmprof's own phases,
 * each workload's span, when the GPU was busy), each workload's span with its NVTX phases, copies,
 * kernels and API calls, and one product as a program would run it once. Marks are drawn from the
 * model's events; the figures beside them (spans, busy %, end-to-end time) are the analysis's,
 * through html_fig. A mark's tip describes the mark: its event's own duration, bytes and launch
 * shape, or for a mark that joins events too close to tell apart, how many and their times. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_view.h"
#include "html_parts.h"
#include "svg.h"

#define CHART_W HTML_CHART_W
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

/* "0.342 ms": an event's or a mark's own duration in its tip (the model's times, not a figure of
 * the analysis: report_value's event_ms). */
static num_text dur(int64_t ns)
{
    return value_text(&report_value_table, "event_ms", (double)ns / 1e6, true);
}

/* Millisecond ticks along the top, with faint lines down through the lanes. */
static void time_axis(strbuf *b, const tscale *s, double y_lines_end)
{
    double span_ms = (double)(s->hi - s->lo) / 1e6;
    double step = svg_nice_step(span_ms, 10), xs[64];
    int n = 0;
    for (double v = 0; v <= span_ms + 1e-9 && n < 64; v += step)
        xs[n++] = s->x0 + v / span_ms * (s->x1 - s->x0);
    svg_vlines(b, xs, n, 14, y_lines_end, "grid");
    for (double v = 0; v <= span_ms + 1e-9; v += step) {
        double gx = s->x0 + v / span_ms * (s->x1 - s->x0);
        char t[sizeof(num_text) + 3];
        snprintf(t, sizeof t, "%s ms", svg_tick(v).s); /* a multiple of a 1, 2 or 5 step */
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
    snprintf(tip, sizeof tip, "%s\n%s%s%s", name, dur(end - start).s, tip_extra ? "\n" : "",
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
    /* The copy's bytes in MiB: its size as the record gave it. */
    snprintf(tip, sizeof tip, "%s copy, %s to %s\n%s in %s\nstream %u, correlation %u", dir_word(c->dir),
             mem_kind_name(c->src), mem_kind_name(c->dst),
             value_text(&report_value_table, "copy_mib", (double)c->bytes / (1024.0 * 1024), true).s,
             dur(c->end_ns - c->start_ns).s, c->stream, c->correlation);
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
    int n = snprintf(tip, sizeof tip, "%s\n%s\ngrid %dx%dx%d, block %dx%dx%d", name, dur(k->end_ns - k->start_ns).s,
                     k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2]);
    if (k->has_resources && n > 0 && (size_t)n < sizeof tip)
        n += snprintf(tip + n, sizeof tip - (size_t)n, "\n%d registers, %d B shared memory", k->registers,
                      k->static_smem + k->dynamic_smem);
    const kernel_summary *ks = summary_of(r, k->name);
    if (ks && ks->occupancy_pct.ok && n > 0 && (size_t)n < sizeof tip) {
        char occ[32];
        n += snprintf(tip + n, sizeof tip - (size_t)n, "\noccupancy %s, limited by %s",
                      html_fig_text(&kernel_summary_table, ks, "occupancy_pct", true, occ, sizeof occ),
                      ks->limiter[0] ? ks->limiter : "none");
    }
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
    int64_t sum_ns, min_ns, max_ns;
} kernel_run;

static void kernel_run_flush(strbuf *b, const tscale *s, const workload_metrics *r, kernel_run *run, double y)
{
    if (run->n == 1)
        kernel_mark(b, s, r, run->first, y, false);
    else if (run->n > 1) {
        char name[256], tip[512], attr[40];
        kernel_display_name(run->first->name, name, sizeof name);
        snprintf(tip, sizeof tip, "%s\n%zu launches over %s: %s of kernel time\neach %s to %s", name, run->n,
                 dur(run->end - run->first->start_ns).s, dur(run->sum_ns).s,
                 dur(run->min_ns).s, dur(run->max_ns).s);
        snprintf(attr, sizeof attr, "data-launches=\"%zu\"", run->n);
        svg_rect(b, tx(s, run->first->start_ns), y, twidth(s, run->first->start_ns, run->end), TL_LANE_H, 1,
                 "ev k", attr, tip);
    }
    run->n = 0;
}

static void kernel_run_add(strbuf *b, const tscale *s, const workload_metrics *r, kernel_run *run,
                           const kernel_event *k, double y)
{
    int64_t ns = k->end_ns - k->start_ns;
    if (run->n > 0 && strcmp(run->first->name, k->name) == 0 && tx(s, k->start_ns) - tx(s, run->end) < 1.0) {
        run->n++;
        run->end = k->end_ns > run->end ? k->end_ns : run->end;
        run->sum_ns += ns;
        run->min_ns = ns < run->min_ns ? ns : run->min_ns;
        run->max_ns = ns > run->max_ns ? ns : run->max_ns;
        return;
    }
    kernel_run_flush(b, s, r, run, y);
    *run = (kernel_run){k, 1, k->end_ns, ns, ns, ns};
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
    sb_add(b, "<figure class=\"tl overview\"><figcaption><b>The whole run</b> <span class=\"quiet\">");
    if (x->a->nrg > 0) {
        char path[FIG_PATH];
        path_region(path, 0);
        html_fig(x, &region_metric_table, &x->a->rg[0], "wall_ms", path, true);
        sb_add(b, "; ");
    }
    sb_add(b, "where mmprof's own time went, and each workload</span></figcaption>\n");
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
    double free_x = 0; /* where the last label drawn in the lane ends: labels never overlap */
    strbuf key; /* every span by its number, listed under the chart */
    sb_init(&key);
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        const workload_run *w = &m->builtin.workloads[i];
        int64_t a, z;
        span_of(w, workload_events(x->a, w), &a, &z);
        if (a >= z)
            continue;
        number++;
        char label[64];
        workload_label(w, label, sizeof label);
        sb_add(&key, "<li>");
        sb_html(&key, label);
        sb_add(&key, "</li>");
        char tip[128];
        snprintf(tip, sizeof tip, "%d. %s\n%s", number, label, dur(z - a).s);
        svg_rect(b, tx(&s, a), y, twidth(&s, a, z), TL_PHASE_H, 1,
                 !w->needs_gpu ? "span cpu" : (w->host_memory == MEM_PINNED ? "span gpu pinned" : "span gpu"), NULL, tip);
        /* A span is labelled with its name inside when it fits, else with its number (the key
         * below names it), unless that would overlap the label before (spans a few pixels wide
         * side by side): then its tip names it. About 7 px per character at 11 px. */
        char num[12];
        snprintf(num, sizeof num, "%d", number);
        double left = tx(&s, a), width = twidth(&s, a, z);
        if (width > 7.0 * (double)strlen(w->name) + 8) {
            svg_text(b, left + 4, y + TL_PHASE_H - 5, "start", "in", w->name);
            free_x = left + 4 + 7.0 * (double)strlen(w->name);
        } else if (left + width / 2 - 3.5 * (double)strlen(num) >= free_x + 2) {
            svg_text(b, left + width / 2, y + TL_PHASE_H - 5, "middle", "in", num);
            free_x = left + width / 2 + 3.5 * (double)strlen(num);
        }
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
    if (key.oom)
        b->oom = true;
    else if (key.s)
        sb_add(b, key.s);
    sb_free(&key);
    sb_add(b, "</ol></figcaption>\n</figure>\n");
}

/* When the GPU ran anything, as analysis joined it into stretches (analysis.busy); each mark's
 * tip says how busy the GPU was inside. */
static bool busy_lane(strbuf *b, const tscale *s, const analysis *a, double y)
{
    for (int i = 0; i < a->nbusy; i++) {
        const busy_span *p = &a->busy[i];
        const metric_table *t = &busy_span_table;
        char tip[128], busy[32], len[32], pct[32];
        snprintf(tip, sizeof tip, "GPU busy %s of %s (%s)", html_fig_text(t, p, "busy_ms", true, busy, sizeof busy),
                 html_fig_text(t, p, "length_ms", true, len, sizeof len),
                 html_fig_text(t, p, "busy_pct", true, pct, sizeof pct));
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
    int64_t busy_ns = 0;
    for (size_t i = 0; i < n; i++) {
        busy_ns += calls[i]->end_ns - calls[i]->start_ns;
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
    num_text busy = dur(busy_ns);
    if (n == 1) {
        char nm[128];
        api_display_name(calls[0]->name, nm, sizeof nm);
        len = snprintf(tip, sizeof tip, "%s\n%s\nthread %u, correlation %u", nm, busy.s, calls[0]->thread,
                       calls[0]->correlation);
    } else {
        len = snprintf(tip, sizeof tip, "%zu CUDA API calls\n%s in calls over %s", n, busy.s,
                       dur(end - calls[0]->start_ns).s);
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
    char path[FIG_PATH];
    path_workload(path, (int)(r - x->a->wl));
    sb_add(b, "<figure class=\"tl one\"><figcaption>One product <span class=\"quiet\">");
    html_fig(x, &workload_metric_table, r, "e2e_ms", path, true);
    sb_add(b, " end to end (median): copies in, the product nearest the median, copies out, back to back"
              "</span></figcaption>\n");
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
    sb_add(b, " <span class=\"quiet\">");
    char path[FIG_PATH];
    if (w->region > 0 && w->region < x->a->nrg) {
        path_region(path, w->region);
        html_fig(x, &region_metric_table, &x->a->rg[w->region], "wall_ms", path, true);
        sb_add(b, " wall &middot; ");
    }
    if (gpu)
        sb_printf(b, "%zu kernels &middot; %zu copies &middot; ", ev->nkernels, ev->ncopies);
    if (ev->napis)
        sb_printf(b, "%zu API calls &middot; ", ev->napis);
    if (gpu && r->busy_pct.ok) {
        path_workload(path, (int)(r - x->a->wl));
        sb_add(b, "GPU busy ");
        html_fig(x, &workload_metric_table, r, "busy_pct", path, true);
        sb_add(b, " of copy-in, compute and copy-out &middot; ");
    }
    sb_printf(b, "timed by %s</span></figcaption>\n", timing_source_name(w->timing));

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

/* What timed the marks, in the words its source deserves. */
static const char *timed_by(const run_model *m)
{
    if (m->collection.source == TIMING_CUPTI)
        return "copies and kernels as CUPTI recorded them, under the NVTX phases that bracket them";
    if (m->collection.source == TIMING_CUDA_EVENT)
        return "copies and kernels timed by cudaEvents around each call (another profiler held CUPTI), under the "
               "NVTX phases that bracket them";
    return "no GPU work: the CPU workload's phases on the host clock";
}

void html_timeline(html_ctx *x)
{
    const analysis *a = x->a;
    /* data-events: how many events the marks stand for, for the tests that count them. */
    sb_printf(x->b, "<p class=\"lede\" data-events=\"%zu\">What the GPU did: %s. Beside each workload's whole span, "
                    "one product as a program would run it once. Hover over a mark for its name, duration, bytes or "
                    "launch shape.</p>\n",
              html_timeline_events(a->m), timed_by(a->m));
    run_overview(x);
    sb_add(x->b, "<p class=\"legend\"><b>Each workload:</b> <span class=\"sw h2d\"></span>host to device "
                 "<span class=\"sw k\"></span>kernel <span class=\"sw d2h\"></span>device to host "
                 "<span class=\"sw api\"></span>CUDA API calls <span class=\"quiet\">&middot; its whole span on its own "
                 "axis, NVTX phases on top; then one product on its own</span></p>\n");
    for (int i = 0; i < a->nwl; i++) {
        if (a->wl[i].w->status == WL_SKIPPED || !workload_in_detail(a, &a->wl[i]))
            continue;
        workload_timeline(x, &a->wl[i]);
        if (a->wl[i].w->needs_gpu && a->wl[i].w->status == WL_OK)
            one_product(x, &a->wl[i]);
    }
}
