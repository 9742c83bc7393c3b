/* What the HTML report's sections share (html_parts.h): numbered n/a notes, figures as the
 * registry formats them, labels. Its own file so html.c (the page) and each section's file depend
 * on it and not on each other. */
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

void html_na(html_ctx *x, const char *what, const char *why)
{
    int note = html_note(x, what, why);
    sb_add(x->b, "<span class=\"na\" title=\"");
    sb_html(x->b, why);
    sb_add(x->b, "\">n/a");
    if (note)
        sb_printf(x->b, "<sup><a href=\"#na-%d\">%d</a></sup>", note, note);
    sb_add(x->b, "</span>");
}

/* How a figure's unit is written: with the value, not at all (a heading has it), or apart. */
typedef enum { UNIT_WITH, UNIT_NONE, UNIT_APART } unit_style;

/* Figure key of row: marked with its table and path, or n/a with its note (and its reason in
 * place when why). */
static void fig(html_ctx *x, const metric_table *t, const void *row, const char *key, const char *path, unit_style u,
                bool why)
{
    const metric_def *d;
    const metric *m = metric_get(t, row, key, &d);
    if (!m) {
        sb_html_printf(x->b, "?%s", key); /* a key the table lacks: the page tests find it */
        return;
    }
    if (!m->ok && why) {
        html_note(x, d->label, metric_why(m));
        sb_add(x->b, "<span class=\"na\">n/a <span class=\"why\">(");
        sb_html(x->b, metric_why(m));
        sb_add(x->b, ")</span></span>");
        return;
    }
    if (!m->ok) {
        html_na(x, d->label, metric_why(m));
        return;
    }
    /* Bytes read with their prefix in every cell ("269 MB", as the text has them), never as the
     * raw count ("268500992"); their heading leaves the "B" out (html_fig_heading). */
    if (u == UNIT_NONE && strcmp(d->unit, "B") == 0)
        u = UNIT_WITH;
    char v[64];
    metric_format(d, m, u == UNIT_WITH, v, sizeof v);
    sb_printf(x->b, "<span class=\"num\" data-t=\"%s\" data-fig=\"", t->name);
    sb_html(x->b, path);
    sb_printf(x->b, ".%s\"%s>", d->key, u == UNIT_WITH ? "" : " data-u=\"0\"");
    sb_html(x->b, v);
    sb_add(x->b, "</span>");
    if (u == UNIT_APART && d->unit[0]) {
        bool tight = strcmp(d->unit, "%") == 0 || strcmp(d->unit, "x") == 0; /* as metric_format has it */
        sb_add(x->b, tight ? "<span class=\"unit\">" : "<span class=\"unit\"> ");
        sb_html(x->b, d->unit);
        sb_add(x->b, "</span>");
    }
}

void html_fig(html_ctx *x, const metric_table *t, const void *row, const char *key, const char *path, bool unit)
{
    fig(x, t, row, key, path, unit ? UNIT_WITH : UNIT_NONE, false);
}

void html_fig_why(html_ctx *x, const metric_table *t, const void *row, const char *key, const char *path, bool unit)
{
    fig(x, t, row, key, path, unit ? UNIT_WITH : UNIT_NONE, true);
}

void html_fig_apart(html_ctx *x, const metric_table *t, const void *row, const char *key, const char *path, bool why)
{
    fig(x, t, row, key, path, UNIT_APART, why);
}

num_text css_pct(double pct, int decimals)
{
    num_text t;
    snprintf(t.s, sizeof t.s, "%.*f%%", decimals, pct);
    return t;
}

void html_data_v(html_ctx *x, double v)
{
    /* Nine digits: enough to order any two figures a table shows; not shown. */
    sb_printf(x->b, " data-v=\"%.9g\"", v);
}

void html_sort_cell(html_ctx *x, double v)
{
    sb_add(x->b, "<td class=\"r\"");
    html_data_v(x, v);
    sb_add(x->b, ">");
}

void html_fig_cell(html_ctx *x, const metric_table *t, const void *row, const char *key, const char *path, bool unit)
{
    const metric *m = metric_get(t, row, key, NULL);
    html_sort_cell(x, m && m->ok ? m->v : -1);
    html_fig(x, t, row, key, path, unit);
    sb_add(x->b, "</td>");
}

const char *html_fig_text(const metric_table *t, const void *row, const char *key, bool unit, char *buf, size_t len)
{
    const metric_def *d;
    const metric *m = metric_get(t, row, key, &d);
    if (m)
        metric_format(d, m, unit, buf, len);
    else
        snprintf(buf, len, "?%s", key);
    return buf;
}

void html_fig_heading(html_ctx *x, const metric_table *t, const char *key)
{
    const metric_def *d = metric_find(t, key);
    if (!d) {
        sb_html_printf(x->b, "?%s", key); /* as html_fig does: the page tests find it */
        return;
    }
    sb_add(x->b, "<th data-sort=\"num\" class=\"r\" title=\"");
    sb_html(x->b, d->what);
    sb_add(x->b, "\">");
    sb_html(x->b, d->label);
    /* "GB/s", not "GB/s GB/s"; bytes carry their unit in each cell (fig) */
    if (d->unit[0] && strcmp(d->unit, d->label) != 0 && strcmp(d->unit, "B") != 0)
        sb_html_printf(x->b, " %s", d->unit);
    sb_add(x->b, "</th>");
}

void html_kernel_cell(html_ctx *x, const char *recorded)
{
    char name[512];
    kernel_display_name(recorded, name, sizeof name);
    sb_add(x->b, "<td class=\"kname\" data-v=\"");
    sb_html(x->b, name);
    sb_add(x->b, "\" title=\"");
    sb_html(x->b, recorded);
    sb_add(x->b, "\"><code>");
    sb_html(x->b, name);
    sb_add(x->b, "</code></td>");
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
