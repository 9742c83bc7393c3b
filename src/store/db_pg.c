/* The PostgreSQL backend, through libpq, for a team's runs on one server.
 *
 * libpq is opened at run time (dlopen), not linked: mmprof runs on GPU machines that have no
 * libpq (the H200 machine's Ubuntu has none, and Debian's libpq5 needs an LDAP library Ubuntu
 * names differently), and a missing library would stop every mmprof command there, not only the
 * few that name a server. Without it, a postgresql:// database is refused with what to install.
 * MMPROF_LIBPQ names another library (the tests use it to show that message). */
#include "db.h"

#include <dlfcn.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PQ_FUNCS(X)                                                                                               \
    X(PQconnectdb) X(PQstatus) X(PQerrorMessage) X(PQfinish) X(PQexec) X(PQresultStatus) X(PQresultErrorMessage) \
    X(PQclear) X(PQntuples) X(PQnfields) X(PQgetvalue) X(PQgetisnull) X(PQsetNoticeProcessor)

static struct {
#define FIELD(f) __typeof__(f) *f;
    PQ_FUNCS(FIELD)
#undef FIELD
} pq;

static bool pq_load(char *err, size_t errlen)
{
    static void *lib;
    if (lib)
        return true;
    const char *name = getenv("MMPROF_LIBPQ");
    void *h = dlopen(name && *name ? name : "libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "a PostgreSQL database needs libpq, which is not installed here (%s): install "
                 "libpq5 (Debian and Ubuntu: apt install libpq5), or use an SQLite file", dlerror());
        return false;
    }
#define LOAD(f)                                                                   \
    if (!(*(void **)&pq.f = dlsym(h, #f))) {                                      \
        snprintf(err, errlen, "libpq has no %s: too old a libpq", #f);            \
        dlclose(h);                                                               \
        return false;                                                             \
    }
    PQ_FUNCS(LOAD)
#undef LOAD
    lib = h;
    return true;
}

/* libpq's messages end in a newline; a sentence of ours must not. */
static void trim_copy(char *out, size_t len, const char *msg)
{
    snprintf(out, len, "%s", msg ? msg : "");
    size_t n = strlen(out);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = '\0';
}

static bool result_ok(db *d, PGresult *r, char *err, size_t errlen)
{
    ExecStatusType s = r ? pq.PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
        return true;
    char msg[1024];
    trim_copy(msg, sizeof msg, r ? pq.PQresultErrorMessage(r) : pq.PQerrorMessage(d->conn));
    snprintf(err, errlen, "%s: %s", d->name, msg);
    return false;
}

static bool pg_exec(db *d, const char *sql, char *err, size_t errlen)
{
    PGresult *r = pq.PQexec(d->conn, sql);
    bool ok = result_ok(d, r, err, errlen);
    pq.PQclear(r);
    return ok;
}

static bool pg_query(db *d, const char *sql, db_row_fn fn, void *ctx, char *err, size_t errlen)
{
    PGresult *r = pq.PQexec(d->conn, sql);
    bool ok = result_ok(d, r, err, errlen);
    int n = ok ? pq.PQnfields(r) : 0, rows = ok ? pq.PQntuples(r) : 0;
    const char **vals = ok ? calloc((size_t)(n > 0 ? n : 1), sizeof *vals) : NULL;
    if (ok && !vals) {
        snprintf(err, errlen, "%s: out of memory", d->name);
        ok = false;
    }
    for (int i = 0; ok && i < rows; i++) {
        for (int c = 0; c < n; c++)
            vals[c] = pq.PQgetisnull(r, i, c) ? NULL : pq.PQgetvalue(r, i, c);
        if (!fn(ctx, n, vals))
            break;
    }
    free(vals);
    pq.PQclear(r);
    return ok;
}

static void pg_close(db *d)
{
    pq.PQfinish(d->conn);
    free(d);
}

static const db_ops pg_ops = {pg_exec, pg_query, pg_close};

/* "relation already exists, skipping" and the like are libpq's notices on stderr: not ours to say. */
static void quiet(void *arg, const char *message) { (void)arg, (void)message; }

/* The URL for messages, its password left out: postgresql://user:secret@host/db. */
static void url_name(char *out, size_t len, const char *url)
{
    const char *scheme = strstr(url, "://"), *at = strchr(url, '@');
    const char *colon = scheme ? strchr(scheme + 3, ':') : NULL;
    if (scheme && at && colon && colon < at)
        snprintf(out, len, "%.*s:***%s", (int)(colon - url), url, at);
    else
        snprintf(out, len, "%s", url);
}

db *db_pg_open(const char *url, char *err, size_t errlen)
{
    if (!pq_load(err, errlen))
        return NULL;
    db *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    d->ops = &pg_ops;
    d->kind = DB_POSTGRES;
    url_name(d->name, sizeof d->name, url);
    PGconn *c = pq.PQconnectdb(url);
    if (!c || pq.PQstatus(c) != CONNECTION_OK) {
        char msg[1024];
        trim_copy(msg, sizeof msg, c ? pq.PQerrorMessage(c) : "out of memory");
        snprintf(err, errlen, "database '%s': %s", d->name, msg);
        if (c)
            pq.PQfinish(c);
        free(d);
        return NULL;
    }
    d->conn = c;
    pq.PQsetNoticeProcessor(c, quiet, NULL);
    /* Literals are written as the standard says (sql_text), in UTF-8. */
    if (!pg_exec(d, "SET client_encoding TO 'UTF8'; SET standard_conforming_strings TO on", err, errlen)) {
        pg_close(d);
        return NULL;
    }
    return d;
}
