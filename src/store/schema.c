/* CREATE TABLE statements made from the row tables (run_rows.c) and the registry (metrics.c). */
#include "schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *sql_type(rr_type t)
{
    /* DOUBLE PRECISION, not REAL: PostgreSQL's REAL is 4 bytes; SQLite reads both as REAL. */
    return t == RR_TEXT ? "TEXT" : t == RR_INT ? "BIGINT" : "DOUBLE PRECISION";
}

/* One column's line: its comment says what it holds (the registry's words for a figure, with its
 * unit), so the schema printed by `mmprof store --schema` is its own documentation. */
static void column_sql(strbuf *b, const char *name, const char *type, const char *unit, const char *what, bool last)
{
    sb_printf(b, "  \"%s\" %s%s -- %s%s%s\n", name, type, last ? "" : ",", unit && *unit ? unit : "",
              unit && *unit ? ": " : "", what);
}

static void table_sql(strbuf *b, const rr_table *t, db_kind k)
{
    sb_printf(b, "-- %s: %s\nCREATE TABLE IF NOT EXISTS %s (\n", t->name, t->what, t->name);
    if (t == &rr_tables[RR_RUNS]) {
        /* A run's id is the database's; its key is its content's (run_rows.h). */
        sb_printf(b, "  id %s, -- the run's number in this database\n"
                     "  key TEXT NOT NULL UNIQUE, -- SHA-256 of its rows: the same run stored again is found by it\n"
                     "  file TEXT, -- the run file it was stored from (absolute path), NULL for --db on a new run\n"
                     "  stored_at TEXT NOT NULL, -- when it was stored (ISO 8601, UTC)\n",
                  k == DB_POSTGRES ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY");
    } else
        sb_add(b, "  run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, -- runs.id\n");
    int n = rr_ncols(t), nf = t->figures ? t->figures->n : 0;
    for (int c = 0; c < n; c++) {
        const char *what, *unit = "";
        if (c < t->nids)
            what = t->ids[c].what;
        else if (c < t->nids + nf)
            what = t->figures->defs[c - t->nids].what, unit = t->figures->defs[c - t->nids].unit;
        else
            what = t->extra[c - t->nids - nf].what, unit = "ms";
        column_sql(b, rr_col_name(t, c), sql_type(rr_col_type(t, c)), unit, what, c == n - 1);
    }
    sb_add(b, ");\n");
    if (t != &rr_tables[RR_RUNS])
        sb_printf(b, "CREATE INDEX IF NOT EXISTS %s_run ON %s (run_id);\n", t->name, t->name);
}

void schema_sql(strbuf *b, db_kind k)
{
    sb_add(b, "CREATE TABLE IF NOT EXISTS mmprof_schema (version BIGINT NOT NULL);\n");
    for (int i = 0; i < RR_NTABLES; i++)
        table_sql(b, &rr_tables[i], k);
    sb_add(b, "CREATE INDEX IF NOT EXISTS runs_started ON runs (started_at);\n"
              "CREATE INDEX IF NOT EXISTS range_groups_name ON range_groups (name);\n"
              "CREATE INDEX IF NOT EXISTS kernels_name ON kernels (name);\n");
}

typedef struct {
    char **names;
    int n, cap;
} name_list;

static bool add_name(void *ctx, int ncols, const char *const *vals)
{
    name_list *l = ctx;
    if (ncols < 1 || !vals[0])
        return true;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        char **v = realloc(l->names, (size_t)cap * sizeof *v);
        if (!v)
            return false;
        l->names = v, l->cap = cap;
    }
    return (l->names[l->n] = strdup(vals[0])) != NULL && ++l->n;
}

static bool version_row(void *ctx, int ncols, const char *const *vals)
{
    if (ncols > 0 && vals[0])
        *(long *)ctx = strtol(vals[0], NULL, 10);
    return true;
}

/* Columns a table lacks that the registry now has: added, NULL for the runs stored before. */
static bool add_missing_columns(db *d, const rr_table *t, char *err, size_t errlen)
{
    strbuf q;
    sb_init(&q);
    if (d->kind == DB_POSTGRES)
        sb_printf(&q, "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
                      "AND table_name = '%s'", t->name);
    else
        sb_printf(&q, "SELECT name FROM pragma_table_info('%s')", t->name);
    name_list have = {0};
    bool ok = !q.oom && db_query(d, q.s, add_name, &have, err, errlen);
    sb_free(&q);
    for (int c = 0, n = rr_ncols(t); ok && c < n; c++) {
        const char *name = rr_col_name(t, c);
        bool found = false;
        for (int i = 0; i < have.n && !found; i++)
            found = strcmp(have.names[i], name) == 0;
        if (found)
            continue;
        char sql[256];
        snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN \"%s\" %s", t->name, name, sql_type(rr_col_type(t, c)));
        ok = db_exec(d, sql, err, errlen);
    }
    for (int i = 0; i < have.n; i++)
        free(have.names[i]);
    free(have.names);
    return ok;
}

bool schema_ensure(db *d, char *err, size_t errlen)
{
    strbuf b;
    sb_init(&b);
    schema_sql(&b, d->kind);
    if (b.oom) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    bool ok = db_exec(d, b.s, err, errlen);
    sb_free(&b);
    long version = -1;
    ok = ok && db_query(d, "SELECT max(version) FROM mmprof_schema", version_row, &version, err, errlen);
    if (ok && version > SCHEMA_VERSION) {
        snprintf(err, errlen, "%s: its tables are of schema version %ld, newer than this mmprof's %d: use a newer "
                 "mmprof", d->name, version, SCHEMA_VERSION);
        return false;
    }
    if (ok && version < SCHEMA_VERSION) {
        char sql[96];
        snprintf(sql, sizeof sql, "DELETE FROM mmprof_schema; INSERT INTO mmprof_schema VALUES (%d)", SCHEMA_VERSION);
        ok = db_exec(d, sql, err, errlen);
    }
    for (int i = 0; ok && i < RR_NTABLES; i++)
        ok = add_missing_columns(d, &rr_tables[i], err, errlen);
    return ok;
}

static bool count_row(void *ctx, int ncols, const char *const *vals)
{
    *(long *)ctx = ncols > 0 && vals[0] ? strtol(vals[0], NULL, 10) : 0;
    return true;
}

bool schema_present(db *d, char *err, size_t errlen)
{
    long n = 0;
    const char *q = d->kind == DB_POSTGRES
                        ? "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() "
                          "AND table_name = 'runs'"
                        : "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'runs'";
    err[0] = '\0';
    return db_query(d, q, count_row, &n, err, errlen) && n > 0;
}
