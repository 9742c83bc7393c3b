/* The registry's tables: what a table of an analysed run is, declared once.
 *
 * metric.h declares each table's figures (its columns that are measured). A table_decl declares
 * the table itself: its name (the CSV row kind), where its rows come from (a count and a row of
 * the analysis, under a parent row where the table nests: a workload's kernels, an account's
 * states), what identifies a row (table_ids: the columns that are not figures), where the JSON
 * keeps it, in what order its rows come and how many the text report and the page show.
 *
 * The outputs walk these declarations instead of enumerating rows themselves: the CSV is the walk
 * written out (csv.c: a row per declared row, its ids, then its figures), and a test compares the
 * walk with the JSON document, table by table, on every committed sample (tests/test_tables.c),
 * so a table the CSV carries and the JSON does not (or with other rows) fails there.
 *
 * A new table is its analysis file, its figures in metrics.c and one declaration here. */
#ifndef MMPROF_TABLES_H
#define MMPROF_TABLES_H

#include <stdbool.h>

#include "analysis.h"
#include "metric.h"

/* The columns that say which row a row is, as the CSV names them (empty where they do not apply
 * to a table; each declaration says what it puts in them). */
enum {
    TID_ROW, TID_REGION_INDEX, TID_REGION, TID_REGION_KIND, TID_NAME, TID_COUNT, TID_DIRECTION,
    TID_HOST_MEMORY, TID_N, TID_DEVICE, TID_PASS, TID_HOST, TID_COUNT_OF
};
extern const char *const table_id_names[TID_COUNT_OF];

/* A row's identifying values: v[c] NULL for an empty column. The buffers hold the numbers and
 * labels v points to, so a row's ids live as long as this struct. */
typedef struct {
    const char *v[TID_COUNT_OF];
    char count[24], index[24], n[24], device[24], pair[24];
    char text[4096]; /* a composed label or host column ("stream 3", "rank 1 GPU 1"), a kernel's whole name */
} table_ids;

/* Where a row is: the row above it (the parent table's row index; -1 for a top-level table) and
 * the declaration's arg (one table listed twice under a parent: a memory series' holders at its
 * peak "by_site", then its allocators). */
typedef struct {
    const analysis *a;
    int parent;
    int arg;
    const table_ids *up; /* the parent row's ids, which a row under it may start from */
} table_at;

typedef struct table_decl table_decl;
struct table_decl {
    const char *name;             /* the row kind: "stream" (CSV's `row` column, the figures' prefix) */
    const metric_table *figures;  /* NULL for a grouping that has no rows of its own (see rows) */
    const table_decl *parent;     /* rows are listed under each row of this table; NULL: top level */
    int arg;                      /* passed to rows, row and ids (table_at.arg) */
    /* How many rows there are under at->parent, and row i's figures (the struct figures
     * describes); NULL to skip row i (and what is under it): a host view that saw nothing. */
    int (*count)(const table_at *at);
    const void *(*row)(const table_at *at, int i);
    /* Row i's identifying columns (ids is zeroed first; NULL for a table with none). */
    void (*ids)(const table_at *at, int i, table_ids *ids);
    /* The columns exist only where this says so (GPU memory's, only in a run with memory data, so
     * a run without it keeps the columns it always had); NULL: always. */
    bool (*has_columns)(const analysis *a);
    const char *json;  /* where the JSON keeps the rows: a path from the document ("analysis.streams"),
                        * or from the parent's row ("states"); "[]" steps into every element of an
                        * array, "[listed]" into the regions analysis.listed_regions names; "a, b":
                        * at both; NULL for a grouping */
    const char *order; /* in what order the rows come, for docs and readers */
    int shown;         /* rows the text report lists by default (0: all) */
    int page_shown;    /* rows the page lists (0: all): it scrolls, so it may list more */
    const char *what;  /* what one row is, one line */
};

/* Every declaration, in the CSV's column order (TABLES_MAX at most: an output may keep a flag per
 * declaration): a table's rows are written after its parent's
 * row, the top-level ones in this order. */
#define TABLES_MAX 64
extern const table_decl *const report_tables[];
extern const int report_ntables;

/* Each declaration by name (report_tables lists them all): a renderer that shows a table reads its
 * rows and limits from here. */
extern const table_decl table_run, table_region, table_listed, table_kernel, table_copy, table_api,
    table_workload, table_device, table_gpus, table_gpu_wl, table_gpu_agg, table_gpu_pass, table_peer,
    table_rank, table_rank_gpu, table_straggler, table_launch, table_busy, table_gap, table_share,
    table_sampling, table_view, table_fn, table_target, table_site, table_account, table_state, table_cause,
    table_group, table_stream, table_capture, table_wl_kernel, table_point, table_cross, table_memory,
    table_holder_site, table_holder_lib, table_mpoint, table_leak, table_mrange, table_failure,
    table_holder_fail;

/* The declaration of that name (the first, where a table is listed under two parents), NULL none. */
const table_decl *table_named(const char *name);
/* The declaration whose figures t are (the first), NULL where none carries t. */
const table_decl *table_of_figures(const metric_table *t);

/* Walks the tables in the order the CSV writes them: each row's declaration, identifying columns
 * (empty where the table has none) and figures to fn (which returns false to stop; table_walk
 * then returns false). */
typedef bool (*table_row_fn)(void *ctx, const table_decl *d, const table_ids *ids, const void *row);
bool table_walk(const analysis *a, table_row_fn fn, void *ctx);

/* How many of n rows the text (page: the page) lists: its declaration's limit, or all. */
int table_shown(const table_decl *d, int n, bool page);

#endif
