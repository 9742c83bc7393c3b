/* The backend a name asks for, and SQL literals both backends read alike. */
#include "db.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool db_is_url(const char *s)
{
    return strncmp(s, "postgresql://", 13) == 0 || strncmp(s, "postgres://", 11) == 0;
}

db *db_open(const char *s, bool create, char *err, size_t errlen)
{
    if (!s || !*s) {
        snprintf(err, errlen, "no database named");
        return NULL;
    }
    return db_is_url(s) ? db_pg_open(s, err, errlen) : db_sqlite_open(s, create, err, errlen);
}

void db_close(db *d)
{
    if (d)
        d->ops->close(d);
}

bool db_exec(db *d, const char *sql, char *err, size_t errlen) { return d->ops->exec(d, sql, err, errlen); }

bool db_query(db *d, const char *sql, db_row_fn fn, void *ctx, char *err, size_t errlen)
{
    return d->ops->query(d, sql, fn, ctx, err, errlen);
}

/* Length of the valid UTF-8 sequence at s, 0 where it is not one. */
static int utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

void sql_text(strbuf *b, const char *s)
{
    sb_addn(b, "'", 1);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
        int n = utf8_len(p);
        if (n == 0) {
            sb_add(b, "?");
            p++;
            continue;
        }
        if (*p == '\'')
            sb_addn(b, "''", 2);
        else
            sb_addn(b, (const char *)p, (size_t)n);
        p += n;
    }
    sb_addn(b, "'", 1);
}

void sql_num(strbuf *b, double v)
{
    if (!isfinite(v)) {
        sb_add(b, "NULL");
        return;
    }
    char num[32];
    if (v == (double)(long long)v && fabs(v) < 1e15)
        snprintf(num, sizeof num, "%lld", (long long)v);
    else
        snprintf(num, sizeof num, "%.17g", v);
    sb_add(b, num);
}
