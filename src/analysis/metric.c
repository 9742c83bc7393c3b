/* metric.h's helpers. */
#include "metric.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void metric_set(metric *m, double v)
{
    m->v = v;
    m->ok = true;
    m->why[0] = '\0';
}

void metric_na(metric *m, const char *fmt, ...)
{
    m->v = 0;
    m->ok = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->why, sizeof m->why, fmt, ap);
    va_end(ap);
}

void metric_ratio(metric *out, const metric *a, const metric *b, double scale)
{
    if (!a->ok)
        metric_na(out, "%s", a->why);
    else if (!b->ok)
        metric_na(out, "%s", b->why);
    else if (b->v <= 0)
        metric_na(out, "divisor is zero");
    else
        metric_set(out, scale * a->v / b->v);
}

const metric_def *metric_find(const metric_table *t, const char *key)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->defs[i].key, key) == 0)
            return &t->defs[i];
    return NULL;
}

const metric_table *metric_table_named(const char *name)
{
    for (int i = 0; i < metric_ntables; i++)
        if (strcmp(metric_tables[i]->name, name) == 0)
            return metric_tables[i];
    return NULL;
}

const metric *metric_get(const metric_table *t, const void *row, const char *key, const metric_def **def)
{
    const metric_def *d = metric_find(t, key);
    if (def)
        *def = d;
    return d ? metric_of(row, d) : NULL;
}

/* "67.1 MB": bytes with a decimal prefix, three significant digits. */
static void format_bytes(double v, char *buf, size_t len)
{
    static const char *const prefix[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int p = 0;
    double a = v < 0 ? -v : v;
    while (a >= 999.5 && p < (int)(sizeof prefix / sizeof prefix[0]) - 1) {
        v /= 1000, a /= 1000;
        p++;
    }
    if (p == 0)
        snprintf(buf, len, "%.0f B", v);
    else
        snprintf(buf, len, "%.3g %s", v, prefix[p]);
}

void metric_format_data(const metric *m, char *buf, size_t len)
{
    if (m->ok)
        snprintf(buf, len, "%.10g", m->v);
    else if (len > 0)
        buf[0] = '\0';
}

void metric_format(const metric_def *d, const metric *m, bool with_unit, char *buf, size_t len)
{
    if (!m->ok) {
        snprintf(buf, len, "n/a");
        return;
    }
    if (with_unit && strcmp(d->unit, "B") == 0) {
        format_bytes(m->v, buf, len);
        return;
    }
    char v[64];
    /* The format comes from the registry's constant table, never from data. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(v, sizeof v, d->fmt, m->v);
#pragma GCC diagnostic pop
    /* "55.2%" and "13.3x" read as one figure; other units stand apart ("3.271 ms"). */
    bool tight = strcmp(d->unit, "%") == 0 || strcmp(d->unit, "x") == 0;
    if (with_unit && d->unit[0])
        snprintf(buf, len, "%s%s%s", v, tight ? "" : " ", d->unit);
    else
        snprintf(buf, len, "%s", v);
}
