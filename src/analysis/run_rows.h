/* A run's figures as rows of tables: what the database keeps of a run (mmprof store, --db) and
 * what mmprof diff and history compare, whether the run comes from a file or from a database.
 *
 * Each table is described once (run_rows.c's rr_tables): its identity and descriptive columns,
 * then every figure of a registry table (metric.h) as a column named by the figure's key, then
 * the few figures the registry has no row for (a range group's spread of instances). The SQL
 * schema (store/schema.c) is made from these descriptions, so a figure added to the registry is a
 * column of the database at once, and a figure is named the same in JSON, CSV and SQL.
 *
 * The run's key is the SHA-256 of its rows as text (every table, every value): the same run,
 * read from its file or analysed after `mmprof run`, has one key, so storing it twice is a no-op.
 * Where the run came from (the file's path) is not content, and is not in the key. */
#ifndef MMPROF_RUN_ROWS_H
#define MMPROF_RUN_ROWS_H

#include <stdbool.h>

#include "analysis.h"
#include "metric.h"

typedef enum { RR_TEXT, RR_INT, RR_REAL } rr_type;

typedef struct {
    const char *name;
    rr_type type;
    const char *what; /* one line, for docs/sql.md */
} rr_col;

typedef struct {
    const char *name;            /* the SQL table: "range_groups" */
    const char *what;            /* what one row is */
    const rr_col *ids;           /* identity and descriptive columns */
    int nids;
    const metric_table *figures; /* the registry's figures, one REAL column each; NULL for none */
    const rr_col *extra;         /* REAL columns the registry has no row for */
    int nextra;
} rr_table;

enum {
    RR_RUNS = 0, RR_DEVICES, RR_REGIONS, RR_RANGE_GROUPS, RR_KERNELS, RR_COPIES, RR_ACCOUNTS,
    RR_ACCOUNT_STATES, RR_ACCOUNT_CAUSES, RR_CALL_SITES, RR_WORKLOADS, RR_LAUNCHES, RR_MEMORY, RR_NTABLES
};
extern const rr_table rr_tables[RR_NTABLES];

/* Columns of a table: ids, then figures, then extra. */
int rr_ncols(const rr_table *t);
const char *rr_col_name(const rr_table *t, int c);
rr_type rr_col_type(const rr_table *t, int c);
/* The column of that name, -1 none. */
int rr_col_find(const rr_table *t, const char *name);
/* The table of that SQL name, NULL none. */
const rr_table *rr_table_named(const char *name);

/* A value: text (s, owned) or a number (v); null where the figure was not measured. */
typedef struct {
    char *s;
    double v;
    bool null;
} rr_val;

typedef struct {
    const rr_table *t;
    rr_val *vals; /* nrows x rr_ncols(t), row by row */
    int nrows, cap;
} rr_rows;

typedef struct {
    rr_rows tables[RR_NTABLES]; /* tables[RR_RUNS] has one row */
    char key[65];               /* hex SHA-256 of the rows */
} run_rows;

/* The rows of an analysed run; false only when memory ran out. */
bool run_rows_from_analysis(const analysis *a, run_rows *out);
void run_rows_free(run_rows *r);
/* Sets r->key from its rows (run_rows_from_analysis does; a loader from a database need not). */
void run_rows_key(run_rows *r);

/* Building rows by hand (a loader, tests): a new row of nulls, and its values set. */
rr_val *rr_add_row(rr_rows *t);
bool rr_set_text(rr_val *v, const char *s);
void rr_set_num(rr_val *v, double x);

/* The value of column `name` in row i of t: its number (NAN where null or text), its text (""). */
double rr_num(const rr_rows *t, int row, const char *name);
const char *rr_text(const rr_rows *t, int row, const char *name);

#endif
