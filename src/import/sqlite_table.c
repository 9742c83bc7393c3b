/* Checked reading of SQLite tables by column name: see sqlite_table.h. */
#include "sqlite_table.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "strbuf.h"

bool sq_fail(sq_db *db, const char *fmt, ...)
{
    if (db->failed)
        return false;
    db->failed = true;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(db->err, db->errlen, "%s: %s", db->path, msg);
    return false;
}

/* What an SQLite result code means for the user's file. */
static bool fail_sqlite(sq_db *db, int rc, const char *doing)
{
    switch (rc & 0xff) {
    case SQLITE_NOTADB:
        return sq_fail(db, "not an SQLite database");
    case SQLITE_CORRUPT:
        return sq_fail(db, "damaged SQLite database (%s) while %s", sqlite3_errstr(rc), doing);
    default:
        return sq_fail(db, "%s while %s", db->db ? sqlite3_errmsg(db->db) : sqlite3_errstr(rc), doing);
    }
}

bool sq_open(sq_db *db, int fd, const char *name, char *err, size_t errlen)
{
    memset(db, 0, sizeof *db);
    db->path = name;
    db->err = err;
    db->errlen = errlen;
    /* SQLite takes an empty file for an empty database: tell it apart first, in the user's words. */
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return sq_fail(db, "cannot read: %s", strerror(errno));
    if (sb.st_size == 0)
        return sq_fail(db, "empty file, not an SQLite database");
    if ((uint64_t)sb.st_size > SIZE_MAX)
        return sq_fail(db, "too large to map");
    /* SQLite opens a database by its name, and resolves the links in it first: a descriptor's
     * name (/proc/self/fd/N of a memfd, of an unlinked copy of a pipe's content) leads nowhere.
     * So the file is mapped and handed over as a read-only in-memory database; the kernel pages
     * it in as SQLite reads, as SQLite's own memory-mapped I/O would. */
    void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED)
        return sq_fail(db, "cannot map: %s", strerror(errno));
    db->map = map;
    db->map_len = (size_t)sb.st_size;
    /* NOMUTEX: the connection stays on one thread, so SQLite need not lock around each of the
     * millions of column reads a large export takes (a third of the import's time otherwise). */
    int rc = sqlite3_open_v2(":memory:", &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_deserialize(db->db, "main", map, sb.st_size, sb.st_size, SQLITE_DESERIALIZE_READONLY);
    if (rc != SQLITE_OK) {
        fail_sqlite(db, rc, "opening it");
        sq_close(db);
        return false;
    }
    /* Opening is lazy: the header is read by the first statement. */
    sqlite3_stmt *st = NULL;
    rc = sqlite3_prepare_v2(db->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) {
        fail_sqlite(db, rc, "reading its schema");
        sq_close(db);
        return false;
    }
    return true;
}

void sq_close(sq_db *db)
{
    for (int i = 0; i < SQ_STRING_CACHE; i++) {
        free(db->cache[i].value);
        db->cache[i].value = NULL;
    }
    sqlite3_finalize(db->string_q);
    db->string_q = NULL;
    sqlite3_close(db->db);
    db->db = NULL;
    if (db->map)
        munmap(db->map, db->map_len);
    db->map = NULL;
}

int sq_table_exists(sq_db *db, const char *table)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->db, "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?1",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    fail_sqlite(db, rc, "reading its schema");
    return -1;
}

/* Marks which wanted columns the table has. -1 on error. */
static int find_columns(sq_scan *s)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db->db, "SELECT name FROM pragma_table_info(?1)", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, s->table, -1, SQLITE_STATIC);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        for (int i = 0; name && i < s->ncols; i++)
            if (strcmp(name, s->cols[i].name) == 0)
                s->present[i] = true;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        char doing[128];
        snprintf(doing, sizeof doing, "listing the columns of %s", s->table);
        fail_sqlite(s->db, rc, doing);
        return -1;
    }
    return 0;
}

int sq_scan_open(sq_db *db, sq_scan *s, const char *table, const col_spec *cols, int ncols)
{
    memset(s, 0, sizeof *s);
    s->db = db;
    s->table = table;
    s->cols = cols;
    s->ncols = ncols < SQ_MAX_COLS ? ncols : SQ_MAX_COLS;
    int exists = sq_table_exists(db, table);
    if (exists <= 0)
        return exists;
    if (find_columns(s) < 0)
        return -1;
    /* Column names come from the caller's fixed specs, never from the file; absent ones are
     * selected as NULL so every column keeps its index. */
    strbuf q;
    sb_init(&q);
    sb_add(&q, "SELECT ");
    for (int i = 0; i < s->ncols; i++) {
        if (s->cols[i].need == COL_REQUIRED && !s->present[i]) {
            sb_free(&q);
            sq_fail(db, "table %s has no column %s", table, s->cols[i].name);
            return -1;
        }
        if (i > 0)
            sb_add(&q, ", ");
        if (s->present[i])
            sb_printf(&q, "\"%s\"", s->cols[i].name);
        else
            sb_add(&q, "NULL");
    }
    sb_printf(&q, " FROM \"%s\"", table);
    char *sql = sb_finish(&q);
    if (!sql) {
        sq_fail(db, "out of memory");
        return -1;
    }
    int rc = sqlite3_prepare_v2(db->db, sql, -1, &s->st, NULL);
    free(sql);
    if (rc != SQLITE_OK) {
        char doing[128];
        snprintf(doing, sizeof doing, "reading table %s", table);
        fail_sqlite(db, rc, doing);
        return -1;
    }
    return 1;
}

int sq_scan_next(sq_scan *s)
{
    int rc = sqlite3_step(s->st);
    if (rc == SQLITE_ROW) {
        s->row++;
        return 1;
    }
    if (rc == SQLITE_DONE)
        return 0;
    char doing[128];
    snprintf(doing, sizeof doing, "reading table %s after row %lld", s->table, (long long)s->row);
    fail_sqlite(s->db, rc, doing);
    return -1;
}

void sq_scan_close(sq_scan *s)
{
    sqlite3_finalize(s->st);
    s->st = NULL;
}

bool sq_has(const sq_scan *s, int i)
{
    return s->present[i] && sqlite3_column_type(s->st, i) != SQLITE_NULL;
}

static const char *type_name(int type)
{
    switch (type) {
    case SQLITE_INTEGER: return "an INTEGER";
    case SQLITE_FLOAT: return "a REAL";
    case SQLITE_TEXT: return "TEXT";
    case SQLITE_BLOB: return "a BLOB";
    default: return "NULL";
    }
}

/* A value that has no business where it is, for a message: " 'abc'" for text (its first 40
 * bytes, printable ASCII only, so no control character from the file reaches the terminal),
 * " 1.5" for a real, "" otherwise. */
static void quote_value(sqlite3_stmt *st, int i, char *out, size_t len)
{
    out[0] = '\0';
    int type = sqlite3_column_type(st, i);
    if (type == SQLITE_FLOAT)
        snprintf(out, len, " %g", sqlite3_column_double(st, i));
    if (type != SQLITE_TEXT || len < 16)
        return;
    const unsigned char *t = sqlite3_column_text(st, i);
    size_t o = 0, k = 0;
    out[o++] = ' ';
    out[o++] = '\'';
    for (; t && t[k] && k < 40 && o + 6 < len; k++)
        out[o++] = (t[k] >= 0x20 && t[k] < 0x7f) ? (char)t[k] : '?';
    if (t && t[k])
        for (int d = 0; d < 3; d++)
            out[o++] = '.';
    out[o++] = '\'';
    out[o] = '\0';
}

static bool fail_cell(sq_scan *s, int i, const char *why)
{
    return sq_fail(s->db, "table %s, row %lld, column %s: %s", s->table, (long long)s->row, s->cols[i].name, why);
}

/* NULL or absent: true with *is_null set; an error for a required column. */
static bool check_null(sq_scan *s, int i, bool *is_null)
{
    *is_null = !sq_has(s, i);
    if (*is_null && s->cols[i].need == COL_REQUIRED)
        return fail_cell(s, i, "NULL where a value is required");
    return true;
}

bool sq_int(sq_scan *s, int i, int64_t lo, int64_t hi, int64_t *out)
{
    bool is_null;
    if (!check_null(s, i, &is_null) || is_null)
        return !s->db->failed;
    int type = sqlite3_column_type(s->st, i);
    if (type != SQLITE_INTEGER) {
        char v[64], why[192];
        quote_value(s->st, i, v, sizeof v);
        snprintf(why, sizeof why, "%s%s where an integer belongs", type_name(type), v);
        return fail_cell(s, i, why);
    }
    int64_t x = sqlite3_column_int64(s->st, i);
    if (x < lo || x > hi) {
        char why[160];
        snprintf(why, sizeof why, "%lld is outside [%lld, %lld]", (long long)x, (long long)lo, (long long)hi);
        return fail_cell(s, i, why);
    }
    *out = x;
    return true;
}

/* The StringIds entry for id, malloc'd; NULL with the error set when there is none. */
static char *lookup_string(sq_scan *s, int i, int64_t id)
{
    sq_db *db = s->db;
    size_t slot = (size_t)((uint64_t)id % SQ_STRING_CACHE);
    if (db->cache[slot].value && db->cache[slot].id == id) {
        char *v = strdup(db->cache[slot].value);
        if (!v)
            sq_fail(db, "out of memory");
        return v;
    }
    if (!db->string_q && !db->no_string_table) {
        int exists = sq_table_exists(db, "StringIds");
        if (exists < 0)
            return NULL;
        db->no_string_table = exists == 0;
        if (exists && sqlite3_prepare_v2(db->db, "SELECT value FROM StringIds WHERE id = ?1", -1, &db->string_q,
                                         NULL) != SQLITE_OK) {
            fail_sqlite(db, sqlite3_errcode(db->db), "reading table StringIds");
            return NULL;
        }
    }
    char why[160];
    if (db->no_string_table) {
        snprintf(why, sizeof why, "string id %lld, but the file has no StringIds table", (long long)id);
        fail_cell(s, i, why);
        return NULL;
    }
    sqlite3_reset(db->string_q);
    sqlite3_bind_int64(db->string_q, 1, id);
    int rc = sqlite3_step(db->string_q);
    if (rc == SQLITE_DONE) {
        snprintf(why, sizeof why, "string id %lld is not in StringIds", (long long)id);
        fail_cell(s, i, why);
        return NULL;
    }
    if (rc != SQLITE_ROW) {
        fail_sqlite(db, rc, "reading table StringIds");
        return NULL;
    }
    if (sqlite3_column_type(db->string_q, 0) != SQLITE_TEXT) {
        snprintf(why, sizeof why, "StringIds entry %lld holds %s, not TEXT", (long long)id,
                 type_name(sqlite3_column_type(db->string_q, 0)));
        fail_cell(s, i, why);
        return NULL;
    }
    char *v = strdup((const char *)sqlite3_column_text(db->string_q, 0));
    char *kept = v ? strdup(v) : NULL;
    if (!v || !kept) {
        free(v);
        sq_fail(db, "out of memory");
        return NULL;
    }
    free(db->cache[slot].value);
    db->cache[slot].id = id;
    db->cache[slot].value = kept;
    return v;
}

bool sq_name(sq_scan *s, int i, char **out)
{
    *out = NULL;
    bool is_null;
    if (!check_null(s, i, &is_null) || is_null)
        return !s->db->failed;
    int type = sqlite3_column_type(s->st, i);
    if (type == SQLITE_TEXT) {
        const char *t = (const char *)sqlite3_column_text(s->st, i);
        *out = strdup(t ? t : "");
        return *out ? true : sq_fail(s->db, "out of memory");
    }
    if (type != SQLITE_INTEGER) {
        char v[64], why[192];
        quote_value(s->st, i, v, sizeof v);
        snprintf(why, sizeof why, "%s%s where a string or a StringIds id belongs", type_name(type), v);
        return fail_cell(s, i, why);
    }
    *out = lookup_string(s, i, sqlite3_column_int64(s->st, i));
    return *out != NULL;
}
