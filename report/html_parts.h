/* What the HTML report's pieces share: the page being built and its "n/a" notes. html.c walks the
 * page's sections (sections.h) and fills the template; each section's body comes from its own file
 * (html_header.c, html_workloads.c, html_charts.c, html_timeline.c, html_regions.c, ...); all of
 * them use html_common.c and none calls back into html.c. Not part of the renderer's API. */
#ifndef MMPROF_REPORT_HTML_PARTS_H
#define MMPROF_REPORT_HTML_PARTS_H

#include "analysis.h"
#include "figure_path.h"
#include "host_where.h"
#include "strbuf.h"

#define HTML_CHART_W 1180.0 /* every chart's width in its own units; the page's CSS scales it */
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

/* Figure key of row (a struct registry table t describes), formatted as the registry says, with
 * its unit when unit; n/a with a numbered note naming the registry's label. The figure is marked
 * with its table and its place in the JSON report (path: figure_path.h, the key appended), so a
 * test can check the page shows what the JSON holds. The way every figure goes on the page. */
void html_fig(html_ctx *x, const metric_table *t, const void *row, const char *key, const char *path, bool unit);
/* The same, where there is room for an n/a's reason: it is shown in place as well. */
void html_fig_why(html_ctx *x, const metric_table *t, const void *row, const char *key, const char *path, bool unit);
/* The value (html_fig without its unit), then the registry's unit apart in a quieter span; with
 * why, an n/a shows its reason in place. */
void html_fig_apart(html_ctx *x, const metric_table *t, const void *row, const char *key, const char *path, bool why);
/* "n/a" for something that is not a registry figure (a fact the source did not record), with its
 * numbered note "what: why". */
void html_na(html_ctx *x, const char *what, const char *why);
/* A table cell holding html_fig (with its unit when unit, else the heading has it), sortable by
 * the value. */
void html_fig_cell(html_ctx *x, const metric_table *t, const void *row, const char *key, const char *path, bool unit);
/* The figure as text, for a mark's tip (an SVG <title> holds no markup): the registry's format,
 * with its unit when unit, or "n/a". Returns buf. */
const char *html_fig_text(const metric_table *t, const void *row, const char *key, bool unit, char *buf, size_t len);
/* A length in % of its box, for a style attribute ("width:" then "12.345%"): layout, not a figure
 * (the figure beside a bar or in its tip says the share), with the decimals the bar needs. The one
 * place a page's CSS lengths become text. */
num_text css_pct(double pct, int decimals);
/* The attribute the page's script sorts a cell by: data-v="v". */
void html_data_v(html_ctx *x, double v);
/* Opens a numeric cell that the page's script sorts by value v. */
void html_sort_cell(html_ctx *x, double v);
/* The registry's heading for figure key of t (its label and unit, its description on hover). */
void html_fig_heading(html_ctx *x, const metric_table *t, const char *key);

/* A table's first cell: a kernel's readable name (sortable by it), its name as recorded on hover. */
void html_kernel_cell(html_ctx *x, const char *recorded);
/* "cuda-naive" plus a pageable/pinned/host chip. */
void html_workload_label(html_ctx *x, const workload_run *w);
/* "pageable", "pinned" or "host". */
const char *html_memory_word(const workload_run *w);

/* "2026-11-29T15:46:18Z" as "2026-11-29 15:46:18 UTC" (html_header.c). */
void html_readable_date(const char *iso, char *buf, size_t len);

/* The sections' bodies: each writes what follows its heading and lede (html.c writes those, and
 * only for a section sections.h says is shown). */
void html_header(html_ctx *x);     /* the run's title and facts (html_header.c) */
void html_findings(html_ctx *x);   /* html_workloads.c: the summary's findings */
void html_workloads(html_ctx *x);  /* ... the workloads' cards */
void html_kernels(html_ctx *x);    /* ... one row per kernel per workload */
void html_warnings(html_ctx *x);
void html_regions(html_ctx *x);    /* html_regions.c */
void html_ranks(html_ctx *x);      /* html_ranks.c */
void html_capture(html_ctx *x);    /* html_capture.c */
void html_ladder(html_ctx *x);     /* html_charts.c */
void html_copies(html_ctx *x);
void html_speedup(html_ctx *x);
void html_timeline(html_ctx *x);   /* html_timeline.c */
void html_roofline(html_ctx *x);   /* html_roofline.c: the counters (mmprof --counters, profile --counters) */
void html_sweep(html_ctx *x);      /* html_sweep.c: a run of several sizes */
void html_devices(html_ctx *x);    /* html_devices.c: a --devices run */
void html_sites(html_ctx *x);      /* html_sites.c: the call sites per kernel */
void html_account(html_ctx *x);    /* html_account.c: where the wall-clock time went */
/* html_account.c: an account's states as one bar (each state's width its share). */
void html_account_bar(html_ctx *x, const wall_account *acc);
/* html_answer.c: the verdict, the accounts' bars and the small timeline, first on the page; false
 * (nothing written) where the run has no wall-time account. */
bool html_answer(html_ctx *x);
void html_memory(html_ctx *x);     /* html_memory.c: GPU memory's peaks, holders, leaks, failures */
/* html_sites.c: a table cell saying where the host was in a window (a host_view per source,
 * host_where.h), its figures marked under path (the window's row in the JSON). */
void html_host_cell(html_ctx *x, const host_view v[HOST_NFROM], const char *path);
/* "n = 2048", or a sweep's "n = 256 to 2048 (4 sizes)". */
void html_run_sizes(strbuf *b, const run_model *m);

/* Events the timeline marks, one each: kernels, copies and CUDA API calls of every workload. */
size_t html_timeline_events(const run_model *m);
/* html_events.c: the timeline of every event of a profiled program or an imported trace, drawn by
 * templates/timeline.js from the data it embeds; how many events it could draw (0 on a built-in
 * run's page, which has html_timeline's). */
void html_event_timeline(html_ctx *x);
size_t html_event_timeline_events(const run_model *m);

#endif
