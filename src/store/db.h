/* A database of runs: SQLite (a file, the default) or PostgreSQL (a server a team shares), behind
 * one small interface, so the store, diff and history speak SQL once.
 *
 * Statements are plain SQL text: values go in as literals (sql_text, sql_num), which both
 * databases read alike, and many rows go in one multi-row INSERT. Results come back as text, a
 * row at a time, NULL for SQL's NULL. Every error is a sentence naming the database. */
#ifndef MMPROF_DB_H
#define MMPROF_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"

typedef enum { DB_SQLITE = 0, DB_POSTGRES } db_kind;

typedef struct db db;

/* A row of a result: ncols values as text, NULL where SQL's NULL; false stops the query. */
typedef bool (*db_row_fn)(void *ctx, int ncols, const char *const *vals);

typedef struct {
    bool (*exec)(db *d, const char *sql, char *err, size_t errlen);
    bool (*query)(db *d, const char *sql, db_row_fn fn, void *ctx, char *err, size_t errlen);
    void (*close)(db *d);
} db_ops;

struct db {
    const db_ops *ops;
    db_kind kind;
    char name[512]; /* the path, or the URL without its password, for messages */
    void *conn;
};

/* Whether s names a PostgreSQL server (postgresql:// or postgres://) rather than a file. */
bool db_is_url(const char *s);

/* Opens the database s names: an SQLite file (made when create and it is missing), or a
 * PostgreSQL URL (libpq's connection URI). NULL with why in err. */
db *db_open(const char *s, bool create, char *err, size_t errlen);
void db_close(db *d);
bool db_exec(db *d, const char *sql, char *err, size_t errlen);
bool db_query(db *d, const char *sql, db_row_fn fn, void *ctx, char *err, size_t errlen);

/* Appending literals to a statement: a string quoted as SQL's standard says ('' for '), bytes
 * that are not UTF-8 replaced (PostgreSQL refuses them); a number as %.17g, NULL when not finite. */
void sql_text(strbuf *b, const char *s);
void sql_num(strbuf *b, double v);

/* The backends (db_sqlite.c, db_pg.c). */
db *db_sqlite_open(const char *path, bool create, char *err, size_t errlen);
db *db_pg_open(const char *url, char *err, size_t errlen);

#endif
