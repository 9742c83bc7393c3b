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

void metric_format(const metric_def *d, const metric *m, bool with_unit, char *buf, size_t len)
{
    if (!m->ok) {
        snprintf(buf, len, "n/a");
        return;
    }
    char v[64];
    /* The format comes from the registry's constant table, never from data. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(v, sizeof v, d->fmt, m->v);
#pragma GCC diagnostic pop
    if (with_unit && d->unit[0])
        snprintf(buf, len, "%s %s", v, d->unit);
    else
        snprintf(buf, len, "%s", v);
}
