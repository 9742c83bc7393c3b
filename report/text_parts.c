/* What the text report's files share (text_parts.h): colours, n/a notes, metric formatting. */
#include <stdio.h>
#include <string.h>

#include "text_parts.h"

const char *c(const ctx *x, const char *code)
{
    return x->color ? code : "";
}

void note_na(ctx *x, const char *what, const metric *m)
{
    char line[160];
    snprintf(line, sizeof line, "%s: %s", what, metric_why(m));
    for (int i = 0; i < x->nna; i++)
        if (strcmp(x->na[i], line) == 0)
            return;
    if (x->nna < (int)(sizeof x->na / sizeof x->na[0]))
        memcpy(x->na[x->nna++], line, sizeof line);
}

const char *fig(ctx *x, char *buf, size_t len, const metric_table *t, const void *row, const char *key, bool unit)
{
    const metric_def *d;
    const metric *m = metric_get(t, row, key, &d);
    if (!m) {
        snprintf(buf, len, "?%s", key); /* a renderer naming a key its table lacks: the tests find it */
        return buf;
    }
    metric_format(d, m, unit, buf, len);
    if (!m->ok)
        note_na(x, d->label, m);
    return buf;
}

void fig_cell(ctx *x, const metric_table *t, const void *row, const text_col *col)
{
    char v[48];
    fprintf(x->out, " %*s", col->width, fig(x, v, sizeof v, t, row, col->key, col->unit));
}

void fig_cells(ctx *x, const metric_table *t, const void *row, const text_col *cols, int ncols)
{
    for (int i = 0; i < ncols; i++)
        fig_cell(x, t, row, &cols[i]);
}

/* Prints text after a lead of lead_width visible columns, wrapped at spaces to TEXT_WIDTH with
 * continuation lines indented to the lead. */
void wrapped(ctx *x, int lead_width, const char *text)
{
    int room = TEXT_WIDTH - lead_width;
    const char *p = text;
    while (*p) {
        int len = (int)strlen(p);
        int take = len;
        if (len > room) {
            take = room;
            while (take > 0 && p[take] != ' ')
                take--;
            if (take == 0)
                take = room; /* one long word: cut it */
        }
        fprintf(x->out, "%.*s\n", take, p);
        p += take;
        while (*p == ' ')
            p++;
        if (*p)
            fprintf(x->out, "%*s", lead_width, "");
    }
}

void dims(const int d[3], char *buf, size_t len)
{
    if (d[2] > 1)
        snprintf(buf, len, "%dx%dx%d", d[0], d[1], d[2]);
    else if (d[1] > 1)
        snprintf(buf, len, "%dx%d", d[0], d[1]);
    else
        snprintf(buf, len, "%d", d[0]);
}

void smem_str(int b, char *buf, size_t len)
{
    if (b >= 1024)
        snprintf(buf, len, "%sK", value_text(&report_value_table, "smem_kib", b / 1024.0, false).s);
    else
        snprintf(buf, len, "%d", b);
}

/* The limiter in the table's narrow column: "registers+shared memory" reads "regs+smem". */
const char *short_limiter(const char *full, char *buf, size_t len)
{
    static const struct { const char *full, *brief; } words[] = {{"registers", "regs"}, {"shared memory", "smem"}};
    buf[0] = '\0';
    const char *p = full;
    while (*p) {
        size_t n = strcspn(p, "+");
        const char *word = NULL;
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (strlen(words[i].full) == n && strncmp(p, words[i].full, n) == 0)
                word = words[i].brief;
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%.*s", used ? "+" : "", (int)(word ? strlen(word) : n), word ? word : p);
        p += n + (p[n] == '+');
    }
    return buf;
}

