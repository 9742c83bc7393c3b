/* What the text report's files share: the output, colour, the n/a notes listed under the
 * tables, and the small formatting helpers. text.c writes the built-in run's tables,
 * text_regions.c the timeline's regions, kernels and copies; neither calls the other's tables. */
#ifndef MMPROF_REPORT_TEXT_PARTS_H
#define MMPROF_REPORT_TEXT_PARTS_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"
#include "strbuf.h" /* clipped */
#include "text.h"

typedef struct {
    FILE *out;
    bool color;
    /* "n/a" reasons, each printed once under the tables. */
    char na[24][160];
    int nna;
} ctx;

#define BOLD "\033[1m"
#define DIM "\033[2m"
#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define RESET "\033[0m"

const char *c(const ctx *x, const char *code);
/* Notes "what: why" once for the footer. */
void note_na(ctx *x, const char *what, const metric *m);
/* Figure key of row as the registry formats it (table t), with its unit when unit, or "n/a" with
 * the reason noted for the footer under the registry's label. The way every figure is printed. */
const char *fig(ctx *x, char *buf, size_t len, const metric_table *t, const void *row, const char *key, bool unit);

/* A column of a table of figures: the registry key, its width (right-aligned after one space)
 * and whether the value carries its unit ("1.00x", "33.6 MB"). */
typedef struct {
    const char *key;
    int width;
    bool unit;
} text_col;
/* " " and the figure in its column. */
void fig_cell(ctx *x, const metric_table *t, const void *row, const text_col *col);
/* Every column of cols, in order. */
void fig_cells(ctx *x, const metric_table *t, const void *row, const text_col *cols, int ncols);
/* text after a lead of lead_width columns, wrapped to TEXT_WIDTH. */
void wrapped(ctx *x, int lead_width, const char *text);
void dims(const int d[3], char *buf, size_t len);
/* A kernel's shared memory per block in a narrow column: bytes below 1 KiB, else the registry's
 * smem_kib with "K" for its unit ("1.5K"). */
void smem_str(int b, char *buf, size_t len);
/* "registers+shared memory" as "regs+smem". */
const char *short_limiter(const char *full, char *buf, size_t len);

/* The sections other files write, each called by render_text only where section_shown says the
 * run has its data (sections.h). */

/* text_regions.c: the timeline's regions, with kernel and copy tables for timelines that are
 * not built-in runs. */
void text_regions(ctx *x, const analysis *a);
/* text_idle.c: the run's idle stretches with their causes, and its idle time by cause. */
void text_idle(ctx *x, const analysis *a);

/* text_account.c: where the wall-clock time went (the run's, the steps' accounts). */
void text_account(ctx *x, const analysis *a);

/* text_sites.c: the lines each kernel, copy and call was made from (call sites). */
void text_sites(ctx *x, const analysis *a);

/* text_ranks.c: a job of several ranks or GPU processes: shares, overlap, stragglers. */
void text_ranks(ctx *x, const analysis *a);

/* text_counters.c: the hardware counters of a run made with --counters. */
void text_counters(ctx *x, const analysis *a);

/* text_sweep.c: a run of several sizes: where the GPU pays off, and the series per size. */
void text_sweep(ctx *x, const analysis *a);

/* text_devices.c: a --devices run: each GPU alone and together, the aggregate, the peer matrix. */
void text_devices(ctx *x, const analysis *a);

/* text_memory.c: GPU memory: a failed allocation, the peaks and their holders, what was never
 * freed, each range's peak and growth. */
void text_memory(ctx *x, const analysis *a);

#endif
