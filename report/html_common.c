/* What the HTML report's sections share (html_parts.h): numbered n/a notes, metric values, labels.
 * Its own file so html.c (the text sections) and html_charts.c (the charts) both depend on it
 * and not on each other. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html_parts.h"

int html_note(html_ctx *x, const char *what, const char *why)
{
    char line[HTML_NOTE_LEN];
    snprintf(line, sizeof line, "%s: %s", what, why);
    for (int i = 0; i < x->nnotes; i++)
        if (strcmp(x->notes[i], line) == 0)
            return i + 1;
    if (x->nnotes >= HTML_MAX_NOTES)
        return 0;
    memcpy(x->notes[x->nnotes++], line, sizeof line);
    return x->nnotes;
}

void html_metric(html_ctx *x, const metric *m, const char *fmt, const char *unit, const char *what)
{
    if (m->ok) {
        sb_add(x->b, "<span class=\"num\">");
        sb_printf(x->b, fmt, m->v);
        sb_add(x->b, "</span>");
        if (unit && unit[0])
            sb_printf(x->b, "<span class=\"unit\">%s</span>", unit);
        return;
    }
    int note = html_note(x, what, m->why);
    sb_add(x->b, "<span class=\"na\" title=\"");
    sb_html(x->b, m->why);
    sb_add(x->b, "\">n/a");
    if (note)
        sb_printf(x->b, "<sup><a href=\"#na-%d\">%d</a></sup>", note, note);
    sb_add(x->b, "</span>");
}

void html_fig(html_ctx *x, const metric_table *t, const void *row, const char *key, const char *path, bool unit)
{
    const metric_def *d;
    const metric *m = metric_get(t, row, key, &d);
    if (!m) {
        sb_html_printf(x->b, "?%s", key); /* a key the table lacks: the page tests find it */
        return;
    }
    if (!m->ok) {
        int note = html_note(x, d->label, m->why);
        sb_add(x->b, "<span class=\"na\" title=\"");
        sb_html(x->b, m->why);
        sb_add(x->b, "\">n/a");
        if (note)
            sb_printf(x->b, "<sup><a href=\"#na-%d\">%d</a></sup>", note, note);
        sb_add(x->b, "</span>");
        return;
    }
    char v[64];
    metric_format(d, m, unit, v, sizeof v);
    sb_printf(x->b, "<span class=\"num\" data-t=\"%s\" data-fig=\"", t->name);
    sb_html(x->b, path);
    sb_printf(x->b, ".%s\"%s>", d->key, unit ? "" : " data-u=\"0\"");
    sb_html(x->b, v);
    sb_add(x->b, "</span>");
}

void html_metric_inline(html_ctx *x, const metric *m, const char *fmt, const char *unit, const char *what)
{
    if (m->ok) {
        html_metric(x, m, fmt, unit, what);
        return;
    }
    html_note(x, what, m->why);
    sb_add(x->b, "<span class=\"na\">n/a <span class=\"why\">(");
    sb_html(x->b, m->why);
    sb_add(x->b, ")</span></span>");
}

void html_thousands(double v, char *buf, size_t len)
{
    char digits[64];
    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    size_t n = strlen(digits), o = 0;
    if (v < 0 && o + 1 < len)
        buf[o++] = '-';
    for (size_t i = 0; i < n && o + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

const char *html_memory_word(const workload_run *w)
{
    if (!w->needs_gpu)
        return "host";
    return w->host_memory == MEM_PINNED ? "pinned" : (w->host_memory == MEM_PAGEABLE ? "pageable" : "unknown");
}

void html_workload_label(html_ctx *x, const workload_run *w)
{
    sb_add(x->b, "<span class=\"wl\">");
    sb_html(x->b, w->name);
    sb_printf(x->b, "</span> <span class=\"chip %s\">%s</span>", html_memory_word(w), html_memory_word(w));
}

/* What a timeline that is not a built-in run is, in a reader's words. */
const char *html_source_words(const run_model *m)
{
    switch (m->source) {
    case SOURCE_NSYS: return "Nsight Systems export";
    case SOURCE_KINETO: return "PyTorch profiler trace";
    case SOURCE_PROFILE: return "profiled program";
    default: return "mmprof run";
    }
}

bool html_builtin_only(html_ctx *x)
{
    if (x->a->m->source == SOURCE_BUILTIN)
        return false;
    sb_printf(x->b, "<p class=\"quiet\">This section shows mmprof's built-in matrix-multiply workloads; a %s has "
                    "none. Its figures are under <a href=\"#regions\">Regions</a>.</p>\n",
              html_source_words(x->a->m));
    return true;
}
