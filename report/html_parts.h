/* What the HTML report's pieces share: the page being built and its "n/a" notes. html.c fills
 * the template's text sections, html_charts.c its SVG charts, html_regions.c the regions; all of
 * them use html_common.c and none calls back into html.c. Not part of the renderer's API. */
#ifndef MMPROF_REPORT_HTML_PARTS_H
#define MMPROF_REPORT_HTML_PARTS_H

#include "analysis.h"
#include "strbuf.h"

#define HTML_MAX_NOTES 48
#define HTML_NOTE_LEN 200

typedef struct {
    strbuf *b;          /* where the current section goes */
    const analysis *a;
    /* Reasons figures were not available, numbered in page order and listed once at the end. */
    char notes[HTML_MAX_NOTES][HTML_NOTE_LEN];
    int nnotes;
} html_ctx;

/* The note number for "what: why", adding it when new (0 when the list is full). */
int html_note(html_ctx *x, const char *what, const char *why);

/* A metric's value in fmt then unit, or "n/a" with a numbered note; "inline" shows the reason
 * in place as well, where there is room for it. */
void html_metric(html_ctx *x, const metric *m, const char *fmt, const char *unit, const char *what);
void html_metric_inline(html_ctx *x, const metric *m, const char *fmt, const char *unit, const char *what);

/* Figure key of row (a struct registry table t describes), formatted as the registry says, with
 * its unit when unit; n/a with a numbered note naming the registry's label. The figure is marked
 * with its table and its place in the JSON report (path: figure_path.h, the key appended), so a
 * test can check the page shows what the JSON holds. The way every figure goes on the page. */
void html_fig(html_ctx *x, const metric_table *t, const void *row, const char *key, const char *path, bool unit);

/* "12,345" for GFLOP/s and other figures too large for decimals. */
void html_thousands(double v, char *buf, size_t len);

/* "cuda-naive" plus a pageable/pinned/host chip. */
void html_workload_label(html_ctx *x, const workload_run *w);
/* "pageable", "pinned" or "host". */
const char *html_memory_word(const workload_run *w);

/* "Nsight Systems export", "PyTorch profiler trace", "profiled program" or "mmprof run". */
const char *html_source_words(const run_model *m);
/* For a timeline that is not a built-in run, a line saying the section is the built-in
 * workloads' and pointing at Regions; true when it wrote it (the caller then writes nothing). */
bool html_builtin_only(html_ctx *x);

/* The regions section (html_regions.c). */
void html_regions(html_ctx *x);

/* The chart sections. */
void html_ladder(html_ctx *x);
void html_timeline(html_ctx *x);
void html_copies(html_ctx *x);
void html_speedup(html_ctx *x);
/* The roofline and the counters per workload (html_roofline.c), from mmprof --counters. */
void html_roofline(html_ctx *x);
/* A run of several sizes: its own section (html_sweep.c); nothing otherwise. */
void html_sweep(html_ctx *x);
/* A --devices run: its own section (html_devices.c); nothing otherwise. */
void html_devices(html_ctx *x);
/* "n = 2048", or a sweep's "n = 256 to 2048 (4 sizes)". */
void html_run_sizes(strbuf *b, const run_model *m);

/* Events the timeline marks, one each: kernels, copies and CUDA API calls of every workload. */
size_t html_timeline_events(const run_model *m);

#endif
