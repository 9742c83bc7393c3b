/* Reading another tool's SQLite tables by column name, with every value's type checked.
 *
 * Exports change between versions: a column is looked up by name (pragma_table_info), a missing
 * optional one reads as absent, and a value of the wrong type or a NULL where one is required
 * stops the import with a message naming the table, the column and the row. Nothing here knows
 * any one tool's schema; src/import/nsys_sqlite.c does. */
#ifndef MMPROF_SQLITE_TABLE_H
#define MMPROF_SQLITE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#define SQ_STRING_CACHE 1024

/* One open database and the first error met reading it. */
typedef struct {
    sqlite3 *db;
    void *map;              /* the database file, mapped read-only */
    size_t map_len;
    const char *path;       /* how messages name it */
    char *err;
    size_t errlen;
    bool failed;            /* err holds the first error */
    sqlite3_stmt *string_q; /* StringIds lookup, prepared on first use */
    bool no_string_table;
    /* The last strings looked up, by id modulo SQ_STRING_CACHE: an export names its millions of
     * kernels and calls with a few hundred strings. */
    struct {
        int64_t id;
        char *value; /* NULL: empty slot */
    } cache[SQ_STRING_CACHE];
} sq_db;

/* Opens the database in the file fd reads, read-only (mapped, so fd may be a memfd or an unlinked
 * copy); messages name it name. False with the reason in db->err. */
bool sq_open(sq_db *db, int fd, const char *name, char *err, size_t errlen);
void sq_close(sq_db *db);

/* Sets the error (the first one wins) as "PATH: message"; returns false. */
bool sq_fail(sq_db *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How a column's absence is taken. */
typedef enum {
    COL_REQUIRED, /* the table is unreadable without it */
    COL_OPTIONAL, /* its figures are n/a: the caller warns */
    COL_QUIET,    /* one of several alternatives, or not worth a warning */
} col_need;

typedef struct {
    const char *name;
    col_need need;
} col_spec;

#define SQ_MAX_COLS 24

/* A scan over one table: the wanted columns in the order given, absent ones read as NULL. */
typedef struct {
    sq_db *db;
    const char *table;
    const col_spec *cols;
    int ncols;
    bool present[SQ_MAX_COLS];
    sqlite3_stmt *st;
    int64_t row; /* 1-based ordinal of the current row, for messages */
} sq_scan;

/* Starts a scan. Returns 1 when the table is there, 0 when the database has no such table, -1
 * on error (a required column missing, the file unreadable). */
int sq_scan_open(sq_db *db, sq_scan *s, const char *table, const col_spec *cols, int ncols);
/* Steps to the next row: 1 a row, 0 the end, -1 an error. */
int sq_scan_next(sq_scan *s);
void sq_scan_close(sq_scan *s);
/* Whether any table by that name exists. -1 on error. */
int sq_table_exists(sq_db *db, const char *table);

/* Whether column i holds a value in this row (present and not NULL). */
bool sq_has(const sq_scan *s, int i);

/* The integer in column i, within [lo, hi]. An absent column or a NULL leaves *out as it was
 * (a required column's NULL is an error); text, a real or a value out of range is an error.
 * False on error. */
bool sq_int(sq_scan *s, int i, int64_t lo, int64_t hi, int64_t *out);

/* The string in column i: inline TEXT, or an INTEGER id into the StringIds table. Absent or
 * NULL leaves *out NULL (an error when required); otherwise *out is malloc'd. False on error. */
bool sq_name(sq_scan *s, int i, char **out);

#endif
