/* The CSV output (csv.h): the registry's tables (tables.h) as one table whose columns are their
 * figures.
 *
 * The rows are the tables' walk (table_walk): the run as a whole, its regions, each listed
 * region's kernels, copies and calls, the workloads (each followed by its kernels), devices, a
 * --devices run's rows, a job's ranks, launches, busy stretches, idle stretches and causes, the
 * host's views, frames and call sites, the wall-time accounts (each followed by its states and
 * causes), range groups, streams, capture windows, a sweep's points and crossovers, and GPU
 * memory's rows last; src/analysis/tables.c declares each one, what it puts in the identifying
 * columns and in what order its rows come. The first columns say what a row is (table_id_names);
 * then each table has its own columns, named "table.key (unit)", filled on that table's rows and
 * empty on the others. A table whose columns exist only with its data (GPU memory's) adds them
 * only then, so a run without it keeps the columns it always had. A figure that was not measured
 * is an empty field: its reason is in the JSON output. Numbers are written as the registry writes
 * data (metric_format_data: 10 significant digits), not with the text report's rounding. */
#include "csv.h"

#include <stdio.h>
#include <string.h>

#include "strbuf.h"
#include "tables.h"

/* A field as RFC 4180 wants it: quoted only when it must be. */
static void field(strbuf *b, const char *s, bool first)
{
    if (!first)
        sb_add(b, ",");
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        sb_add(b, s);
        return;
    }
    sb_add(b, "\"");
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            sb_add(b, "\"");
        sb_addn(b, p, 1);
    }
    sb_add(b, "\"");
}

/* The document being written, and which declarations have columns in it: those with figures,
 * the first of each name (a table listed under two parents has one set), whose columns exist in
 * this run. */
typedef struct {
    strbuf *b;
    bool columns[TABLES_MAX];
} csv_doc;

static void header(const csv_doc *doc)
{
    for (int i = 0; i < TID_COUNT_OF; i++)
        field(doc->b, table_id_names[i], i == 0);
    for (int k = 0; k < report_ntables; k++) {
        if (!doc->columns[k])
            continue;
        const table_decl *d = report_tables[k];
        for (int i = 0; i < d->figures->n; i++) {
            const metric_def *f = &d->figures->defs[i];
            char name[96];
            if (f->unit[0])
                snprintf(name, sizeof name, "%s.%s (%s)", d->name, f->key, f->unit);
            else
                snprintf(name, sizeof name, "%s.%s", d->name, f->key);
            field(doc->b, name, false);
        }
    }
    sb_add(doc->b, "\r\n");
}

/* One row: its ids, then the figures of its own table in that table's columns. */
static bool row(void *ctx, const table_decl *d, const table_ids *id, const void *figures)
{
    const csv_doc *doc = ctx;
    strbuf *b = doc->b;
    for (int c = 0; c < TID_COUNT_OF; c++)
        field(b, c == TID_ROW ? d->name : id->v[c], c == 0);
    for (int k = 0; k < report_ntables; k++) {
        if (!doc->columns[k])
            continue;
        const metric_table *t = report_tables[k]->figures;
        bool own = t == d->figures && strcmp(report_tables[k]->name, d->name) == 0;
        for (int f = 0; f < t->n; f++) {
            sb_add(b, ",");
            if (!own)
                continue;
            char v[40];
            metric_format_data(metric_of(figures, &t->defs[f]), v, sizeof v);
            sb_add(b, v);
        }
    }
    sb_add(b, "\r\n");
    return true;
}

char *render_csv(const analysis *a)
{
    strbuf b;
    sb_init(&b);
    csv_doc doc = {&b, {false}};
    for (int k = 0; k < report_ntables; k++) {
        const table_decl *d = report_tables[k];
        doc.columns[k] = d->figures && (!d->has_columns || d->has_columns(a)) && table_named(d->name) == d;
    }
    header(&doc);
    table_walk(a, row, &doc);
    return sb_finish(&b);
}
