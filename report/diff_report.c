/* Rendering a diff (diff_report.h): the same changes, in the same order, in each output. */
#include "diff_report.h"

#include <math.h>
#include <string.h>

#include "metric.h"
#include "strbuf.h"

/* A change's figure as the registry's diff table writes it (value_figures.c). */
#define DV(key, v) value_text(&diff_value_table, (key), (v), true).s

static void summary_line(const run_diff *d, char *buf, size_t len)
{
    char thr[96] = "";
    if (d->opt.threshold_pct >= 0)
        snprintf(thr, sizeof thr, "; %d past the threshold of %s", d->regressions,
                 value_text(&report_value_table, "diff_threshold_pct", d->opt.threshold_pct, true).s);
    snprintf(buf, len, "%d change%s beyond the noise, of %d things compared (%d ranges, %d kernels, %d states, %d causes)%s",
             d->ncalled, d->ncalled == 1 ? "" : "s", d->nchanges, d->compared[DIFF_RANGE], d->compared[DIFF_KERNEL],
             d->compared[DIFF_STATE], d->compared[DIFF_CAUSE], thr);
}

void render_diff_text(const run_diff *d, const diff_names *n, FILE *f)
{
    char line[1024];
    fprintf(f, "mmprof diff\n  base: %s\n  new:  %s\n", n->base, n->new_run);
    summary_line(d, line, sizeof line);
    fprintf(f, "%s\n", line);
    for (int i = 0; i < d->nchanges; i++) {
        const diff_change *c = &d->changes[i];
        if (c->verdict == DV_SAME && !n->all)
            continue;
        diff_change_words(c, line, sizeof line);
        fprintf(f, "%s %s\n", c->regression ? "!" : c->verdict == DV_SAME ? " " : "*", line);
        diff_parts_words(c, line, sizeof line);
        if (line[0])
            fprintf(f, "    where: %s\n", line);
    }
    if (d->ncalled == 0)
        fprintf(f, "No change beyond the noise.\n");
}

static void json_num(strbuf *b, double v)
{
    sb_add(b, isfinite(v) ? value_text(&diff_value_table, "number", v, false).s : "null");
}

static void json_str(strbuf *b, const char *key, const char *v)
{
    sb_printf(b, "\"%s\": \"", key);
    sb_json(b, v);
    sb_add(b, "\"");
}

char *render_diff_json(const run_diff *d, const diff_names *n)
{
    strbuf b;
    sb_init(&b);
    sb_add(&b, "{\n  ");
    json_str(&b, "base", n->base);
    sb_add(&b, ",\n  ");
    json_str(&b, "new", n->new_run);
    sb_printf(&b, ",\n  \"changes_beyond_noise\": %d,\n  \"regressions\": %d,\n  \"threshold_pct\": ", d->ncalled,
              d->regressions);
    json_num(&b, d->opt.threshold_pct >= 0 ? d->opt.threshold_pct : NAN);
    sb_add(&b, ",\n  \"compared\": {");
    for (int k = 0; k < DIFF_KINDS; k++)
        sb_printf(&b, "%s\"%s\": %d", k ? ", " : "", diff_kind_name(k), d->compared[k]);
    sb_add(&b, "},\n  \"changes\": [");
    for (int i = 0; i < d->nchanges; i++) {
        const diff_change *c = &d->changes[i];
        sb_add(&b, i ? ",\n    {" : "\n    {");
        json_str(&b, "kind", diff_kind_name(c->kind));
        sb_add(&b, ", ");
        json_str(&b, "name", c->name);
        sb_add(&b, ", ");
        json_str(&b, "figure", c->figure);
        sb_add(&b, ", \"base\": ");
        json_num(&b, c->base);
        sb_add(&b, ", \"new\": ");
        json_num(&b, c->new_value);
        sb_add(&b, ", \"delta_ms\": ");
        json_num(&b, c->delta_ms);
        sb_add(&b, ", \"delta_pct\": ");
        json_num(&b, c->delta_pct);
        sb_add(&b, ", \"noise_ms\": ");
        json_num(&b, c->noise_ms);
        sb_add(&b, ", ");
        json_str(&b, "noise_from", c->noise_from);
        sb_printf(&b, ", \"base_count\": %d, \"new_count\": %d, ", c->base_count, c->new_count);
        json_str(&b, "detail", c->detail);
        sb_add(&b, ", ");
        json_str(&b, "verdict", diff_verdict_name(c->verdict));
        sb_printf(&b, ", \"regression\": %s, \"where\": [", c->regression ? "true" : "false");
        for (int p = 0; p < c->nparts; p++) {
            sb_add(&b, p ? ", {" : "{");
            json_str(&b, "state", c->parts[p].state);
            sb_add(&b, ", ");
            json_str(&b, "words", c->parts[p].words);
            sb_add(&b, ", ");
            json_str(&b, "at", c->parts[p].at);
            sb_add(&b, ", \"delta_ms\": ");
            json_num(&b, c->parts[p].delta_ms);
            sb_add(&b, "}");
        }
        sb_add(&b, "]}");
    }
    sb_add(&b, "\n  ]\n}\n");
    return sb_finish(&b);
}

/* Markdown table cells: a pipe would end the cell, a newline the row. */
static void md_cell(strbuf *b, const char *s)
{
    for (; *s; s++)
        if (*s == '|')
            sb_add(b, "\\|");
        else if (*s == '\n')
            sb_add(b, " ");
        else
            sb_addn(b, s, 1);
}

char *render_diff_markdown(const run_diff *d, const diff_names *n)
{
    strbuf b;
    sb_init(&b);
    char line[1024];
    sb_add(&b, "## mmprof diff\n\nBase: `");
    md_cell(&b, n->base);
    sb_add(&b, "`, new: `");
    md_cell(&b, n->new_run);
    summary_line(d, line, sizeof line);
    sb_printf(&b, "`\n\n%s.\n\n", line);
    sb_add(&b, "| | what | name | base | new | change | noise | where the time went |\n"
               "|---|---|---|---:|---:|---:|---:|---|\n");
    int rows = 0;
    for (int i = 0; i < d->nchanges; i++) {
        const diff_change *c = &d->changes[i];
        if (c->verdict == DV_SAME && !n->all)
            continue;
        rows++;
        sb_printf(&b, "| %s | %s %s | `", c->regression ? "**!**" : diff_verdict_name(c->verdict),
                  diff_kind_name(c->kind), c->figure);
        md_cell(&b, c->name);
        sb_add(&b, "` | ");
        json_num(&b, c->base);
        sb_add(&b, " | ");
        json_num(&b, c->new_value);
        sb_printf(&b, " | %s", DV("delta_ms", c->delta_ms));
        if (isfinite(c->delta_pct))
            sb_printf(&b, " (%s)", DV("delta_pct", c->delta_pct));
        sb_printf(&b, " | %s (%s) | ", DV("noise_ms", c->noise_ms), c->noise_from);
        diff_parts_words(c, line, sizeof line);
        md_cell(&b, line);
        sb_add(&b, " |\n");
    }
    if (rows == 0)
        sb_add(&b, "| | | no change beyond the noise | | | | | |\n");
    return sb_finish(&b);
}
