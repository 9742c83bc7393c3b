/* The SQLite backend: a database file on this machine (the default). */
#include "db.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool sq_exec(db *d, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(d->conn, sql, NULL, NULL, &msg) == SQLITE_OK)
        return true;
    snprintf(err, errlen, "%s: %s", d->name, msg ? msg : sqlite3_errmsg(d->conn));
    sqlite3_free(msg);
    return false;
}

static bool sq_query(db *d, const char *sql, db_row_fn fn, void *ctx, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->conn, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", d->name, sqlite3_errmsg(d->conn));
        return false;
    }
    int n = sqlite3_column_count(st), rc;
    const char **vals = calloc((size_t)(n > 0 ? n : 1), sizeof *vals);
    char (*nums)[32] = calloc((size_t)(n > 0 ? n : 1), sizeof *nums);
    bool ok = vals && nums;
    if (!ok)
        snprintf(err, errlen, "%s: out of memory", d->name);
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < n; c++) {
            /* A REAL as all its digits: SQLite's own text of it keeps 15, and a figure read back
             * must be the figure stored. */
            if (sqlite3_column_type(st, c) == SQLITE_FLOAT) {
                snprintf(nums[c], sizeof nums[c], "%.17g", sqlite3_column_double(st, c));
                vals[c] = nums[c];
            } else
                vals[c] = (const char *)sqlite3_column_text(st, c);
        }
        if (!fn(ctx, n, vals)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (ok && rc != SQLITE_DONE) {
        snprintf(err, errlen, "%s: %s", d->name, sqlite3_errmsg(d->conn));
        ok = false;
    }
    free(vals);
    free(nums);
    sqlite3_finalize(st);
    return ok;
}

static void sq_close(db *d)
{
    sqlite3_close(d->conn);
    free(d);
}

static const db_ops sqlite_ops = {sq_exec, sq_query, sq_close};

db *db_sqlite_open(const char *path, bool create, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0 && (!create || errno != ENOENT)) {
        snprintf(err, errlen, "database '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "database '%s' is not a regular file", path);
        return NULL;
    }
    db *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    d->ops = &sqlite_ops;
    d->kind = DB_SQLITE;
    snprintf(d->name, sizeof d->name, "%s", path);
    sqlite3 *s = NULL;
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &s, flags, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "database '%s': %s", path, s ? sqlite3_errmsg(s) : "cannot open");
        sqlite3_close(s);
        free(d);
        return NULL;
    }
    d->conn = s;
    /* Another mmprof writing the same file: wait for it rather than fail at once. */
    sqlite3_busy_timeout(s, 30000);
    /* A file that is not a database says so here, not at the first write. */
    if (!sq_exec(d, "PRAGMA foreign_keys = ON; SELECT count(*) FROM sqlite_master", err, errlen)) {
        char why[600];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "%s (is it an SQLite database?)", why);
        sq_close(d);
        return NULL;
    }
    return d;
}
