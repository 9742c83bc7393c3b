/* metric.h's helpers. */
#include "metric.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reasons given, each once (metric.h): an open-addressing set, at most half full, under a
 * lock (regions are analysed on several threads). Never freed: a figure may point at a reason
 * until the process ends, and there are few distinct ones. */
static struct {
    pthread_mutex_t lock;
    char **slot;
    size_t cap, n;
} reasons = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

static size_t reason_hash(const char *s)
{
    size_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static char **reason_slot(char **slot, size_t cap, const char *s)
{
    size_t i = reason_hash(s) & (cap - 1);
    while (slot[i] && strcmp(slot[i], s) != 0)
        i = (i + 1) & (cap - 1);
    return &slot[i];
}

/* The interned copy of s; NULL when memory ran out. */
static const char *intern_reason(const char *s)
{
    pthread_mutex_lock(&reasons.lock);
    const char *out = NULL;
    if ((reasons.n + 1) * 2 > reasons.cap) {
        size_t cap = reasons.cap ? 2 * reasons.cap : 256;
        char **slot = calloc(cap, sizeof *slot);
        if (slot) {
            for (size_t i = 0; i < reasons.cap; i++)
                if (reasons.slot[i])
                    *reason_slot(slot, cap, reasons.slot[i]) = reasons.slot[i];
            free(reasons.slot);
            reasons.slot = slot;
            reasons.cap = cap;
        }
    }
    if ((reasons.n + 1) * 2 <= reasons.cap) {
        char **at = reason_slot(reasons.slot, reasons.cap, s);
        if (!*at && (*at = strdup(s)))
            reasons.n++;
        out = *at;
    }
    pthread_mutex_unlock(&reasons.lock);
    return out;
}

void metric_set(metric *m, double v)
{
    m->v = v;
    m->ok = true;
    m->reason = NULL;
}

void metric_na(metric *m, const char *fmt, ...)
{
    m->v = 0;
    m->ok = false;
    char why[96]; /* a reason is a line of a report: longer ones are cut, as they always were */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    m->reason = intern_reason(why);
    if (!m->reason)
        m->reason = "out of memory while analysing";
}

void metric_ratio(metric *out, const metric *a, const metric *b, double scale)
{
    if (!a->ok)
        metric_na(out, "%s", metric_why(a));
    else if (!b->ok)
        metric_na(out, "%s", metric_why(b));
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

void metric_format_value(const metric_def *d, double v, bool with_unit, char *buf, size_t len)
{
    if (with_unit && strcmp(d->unit, "B") == 0) {
        format_bytes(v, buf, len);
        return;
    }
    char s[64];
    /* The format comes from the registry's constant table, never from data. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(s, sizeof s, d->fmt, v);
#pragma GCC diagnostic pop
    /* "55.2%" and "13.3x" read as one figure; other units stand apart ("3.271 ms"). */
    bool tight = strcmp(d->unit, "%") == 0 || strcmp(d->unit, "x") == 0;
    if (with_unit && d->unit[0])
        snprintf(buf, len, "%s%s%s", s, tight ? "" : " ", d->unit);
    else
        snprintf(buf, len, "%s", s);
}

void metric_format(const metric_def *d, const metric *m, bool with_unit, char *buf, size_t len)
{
    if (!m->ok)
        snprintf(buf, len, "n/a");
    else
        metric_format_value(d, m->v, with_unit, buf, len);
}

num_text value_text(const metric_table *t, const char *key, double v, bool unit)
{
    num_text out;
    const metric_def *d = metric_find(t, key);
    if (d)
        metric_format_value(d, v, unit, out.s, sizeof out.s);
    else
        snprintf(out.s, sizeof out.s, "?%s", key);
    return out;
}

void copy_compute(metric *out, const metric *copy_ms, const metric *kernel_ms)
{
    if (kernel_ms->ok && kernel_ms->v <= 0)
        metric_na(out, "no kernel time");
    else
        metric_ratio(out, copy_ms, kernel_ms, 1.0);
}
