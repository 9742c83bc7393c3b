/* Writing a run's rows as multi-row INSERTs, and reading them back. */
#include "store.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schema.h"

/* Rows per INSERT: few statements for a run, none of them megabytes long. */
#define ROWS_PER_INSERT 200

bool store_begin(db *d, char *err, size_t errlen)
{
    const char *begin = d->kind == DB_POSTGRES ? "BEGIN; SELECT pg_advisory_xact_lock(3838)"
                                               : "BEGIN IMMEDIATE"; /* the write lock now, not at the first INSERT */
    if (!db_exec(d, begin, err, errlen))
        return false;
    if (schema_ensure(d, err, errlen))
        return true;
    store_rollback(d);
    return false;
}

bool store_commit(db *d, char *err, size_t errlen) { return db_exec(d, "COMMIT", err, errlen); }

void store_rollback(db *d)
{
    char err[64];
    db_exec(d, "ROLLBACK", err, sizeof err);
}

static bool id_row(void *ctx, int ncols, const char *const *vals)
{
    if (ncols > 0 && vals[0])
        *(long long *)ctx = strtoll(vals[0], NULL, 10);
    return false; /* the first row is the answer */
}

static bool exec_buf(db *d, strbuf *b, char *err, size_t errlen)
{
    if (b->oom) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    return db_exec(d, b->s, err, errlen);
}

static void add_value(strbuf *b, const rr_val *v, rr_type t)
{
    if (v->null)
        sb_add(b, "NULL");
    else if (t == RR_TEXT)
        sql_text(b, v->s);
    else
        sql_num(b, v->v);
}

static void insert_head(strbuf *b, const rr_table *t, bool run)
{
    sb_printf(b, "INSERT INTO %s (%s", t->name, run ? "key, file, stored_at" : "run_id");
    for (int c = 0, n = rr_ncols(t); c < n; c++)
        sb_printf(b, ", \"%s\"", rr_col_name(t, c));
    sb_add(b, ") VALUES ");
}

static bool insert_table(db *d, const rr_rows *rows, long long id, char *err, size_t errlen)
{
    const rr_table *t = rows->t;
    int nc = rr_ncols(t);
    strbuf b;
    sb_init(&b);
    bool ok = true;
    for (int r = 0; ok && r < rows->nrows; r++) {
        if (r % ROWS_PER_INSERT == 0)
            insert_head(&b, t, false);
        sb_printf(&b, "%s(%lld", r % ROWS_PER_INSERT ? ", " : "", id);
        for (int c = 0; c < nc; c++) {
            sb_add(&b, ", ");
            add_value(&b, &rows->vals[(size_t)r * (size_t)nc + (size_t)c], rr_col_type(t, c));
        }
        sb_add(&b, ")");
        if ((r + 1) % ROWS_PER_INSERT == 0 || r + 1 == rows->nrows) {
            ok = exec_buf(d, &b, err, errlen);
            b.len = 0;
            if (b.s)
                b.s[0] = '\0';
        }
    }
    sb_free(&b);
    return ok;
}

bool store_rows(db *d, const run_rows *r, const char *file, long long *id, bool *added, char *err, size_t errlen)
{
    char q[160];
    *id = -1;
    *added = false;
    snprintf(q, sizeof q, "SELECT id FROM runs WHERE key = '%s'", r->key);
    if (!db_query(d, q, id_row, id, err, errlen))
        return false;
    if (*id >= 0)
        return true;
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    const rr_rows *run = &r->tables[RR_RUNS];
    strbuf b;
    sb_init(&b);
    insert_head(&b, run->t, true);
    sb_add(&b, "(");
    sql_text(&b, r->key);
    sb_add(&b, ", ");
    if (file)
        sql_text(&b, file);
    else
        sb_add(&b, "NULL");
    sb_add(&b, ", ");
    sql_text(&b, now);
    for (int c = 0, n = rr_ncols(run->t); c < n; c++) {
        sb_add(&b, ", ");
        add_value(&b, &run->vals[c], rr_col_type(run->t, c));
    }
    sb_add(&b, ")");
    bool ok = run->nrows == 1 && exec_buf(d, &b, err, errlen) && db_query(d, q, id_row, id, err, errlen);
    sb_free(&b);
    if (ok && *id < 0) {
        snprintf(err, errlen, "%s: the run just stored is not there", d->name);
        ok = false;
    }
    for (int i = RR_RUNS + 1; ok && i < RR_NTABLES; i++)
        ok = insert_table(d, &r->tables[i], *id, err, errlen);
    *added = ok;
    return ok;
}

typedef struct {
    long long id;
    int found;
} find_ctx;

static bool find_row(void *ctx, int ncols, const char *const *vals)
{
    find_ctx *f = ctx;
    if (ncols > 0 && vals[0] && f->found++ == 0)
        f->id = strtoll(vals[0], NULL, 10);
    return f->found < 2;
}

bool store_find(db *d, const char *ref, long long *id, char *err, size_t errlen)
{
    if (!schema_present(d, err, errlen)) {
        if (!err[0])
            snprintf(err, errlen, "%s holds no runs (store some with mmprof store)", d->name);
        return false;
    }
    size_t n = strlen(ref), digits = strspn(ref, "0123456789"), hex = 0;
    while (hex < n && isxdigit((unsigned char)ref[hex]))
        hex++;
    char q[200];
    if (n > 0 && n <= 18 && digits == n)
        snprintf(q, sizeof q, "SELECT id FROM runs WHERE id = %s", ref);
    else if (n >= 6 && n <= 64 && hex == n)
        snprintf(q, sizeof q, "SELECT id FROM runs WHERE key LIKE '%s%%' ORDER BY id LIMIT 2", ref);
    else {
        snprintf(err, errlen, "'%s' names no run: give a run's id or the start of its key (6 hex digits or more)", ref);
        return false;
    }
    find_ctx f = {-1, 0};
    if (!db_query(d, q, find_row, &f, err, errlen))
        return false;
    if (f.found != 1) {
        snprintf(err, errlen, f.found ? "'%s' is the start of several runs' keys in %s: give more of it"
                                      : "no run '%s' in %s (mmprof history lists them)",
                 ref, d->name);
        return false;
    }
    *id = f.id;
    return true;
}

typedef struct {
    rr_rows *rows;
    bool oom;
} load_ctx;

static bool load_row(void *ctx, int ncols, const char *const *vals)
{
    load_ctx *l = ctx;
    const rr_table *t = l->rows->t;
    rr_val *row = rr_add_row(l->rows);
    if (!row || ncols != rr_ncols(t)) {
        l->oom = true;
        return false;
    }
    for (int c = 0; c < ncols; c++) {
        if (!vals[c])
            continue;
        if (rr_col_type(t, c) == RR_TEXT) {
            if (!rr_set_text(&row[c], vals[c])) {
                l->oom = true;
                return false;
            }
        } else
            rr_set_num(&row[c], strtod(vals[c], NULL));
    }
    return true;
}

static void select_cols(strbuf *b, const rr_table *t)
{
    sb_add(b, "SELECT ");
    for (int c = 0, n = rr_ncols(t); c < n; c++)
        sb_printf(b, "%s\"%s\"", c ? ", " : "", rr_col_name(t, c));
    sb_printf(b, " FROM %s", t->name);
}

static bool key_row(void *ctx, int ncols, const char *const *vals)
{
    if (ncols > 0 && vals[0])
        snprintf(ctx, 65, "%s", vals[0]);
    return false;
}

bool store_load(db *d, long long id, run_rows *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    bool ok = true;
    for (int i = 0; ok && i < RR_NTABLES; i++) {
        out->tables[i].t = &rr_tables[i];
        strbuf q;
        sb_init(&q);
        select_cols(&q, &rr_tables[i]);
        sb_printf(&q, " WHERE %s = %lld", i == RR_RUNS ? "id" : "run_id", id);
        load_ctx l = {&out->tables[i], false};
        if (q.oom) {
            snprintf(err, errlen, "out of memory");
            ok = false;
        } else if (!db_query(d, q.s, load_row, &l, err, errlen) || l.oom) {
            if (l.oom)
                snprintf(err, errlen, "out of memory reading %s from %s", rr_tables[i].name, d->name);
            ok = false;
        }
        sb_free(&q);
    }
    char q[96];
    snprintf(q, sizeof q, "SELECT key FROM runs WHERE id = %lld", id);
    if (ok)
        ok = db_query(d, q, key_row, out->key, err, errlen);
    if (!ok)
        run_rows_free(out);
    return ok;
}
