/* mmprof compare's text and JSON (compare_report.h). */
#include "compare_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define COMPARE_SCHEMA "mmprof-compare"

static const char *device_name(const run_model *m)
{
    return m->ndevices > 0 ? m->devices[0].name : "no GPU";
}

/* Figure key of a row's comparison (its change, its noises) with its unit, as the registry
 * formats it: "+10.0%", "0.49%", or "n/a". */
static void compare_text(const cmp_row *row, const char *key, char *buf, size_t len)
{
    const metric_def *d;
    const metric *m = metric_get(&compare_row_table, row, key, &d);
    metric_format(d, m, true, buf, len);
}

static void verdict_text(const cmp_row *row, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", cmp_verdict_text(row->verdict, row->def),
             row->verdict != CMP_SAME && row->verdict != CMP_NO_BASE && !row->noise_known ? " (noise n/a)" : "",
             row->regression ? " !" : "");
}

static void header(FILE *f)
{
    fprintf(f, "  %-16s %14s %14s %9s %17s  %s\n", "figure", "base", "new", "change", "noise base/new", "verdict");
}

/* Rows of one workload or region follow each other; its heading comes before its first shown row. */
static void render_rows(const compare_report *r, bool all, FILE *f)
{
    const comparison *c = r->c;
    const char *open_kind = NULL, *open_name = NULL;
    int hidden = 0;
    for (int i = 0; i < c->nrows; i++) {
        const cmp_row *row = &c->rows[i];
        if (!all && row->verdict == CMP_SAME) {
            hidden++;
            continue;
        }
        if (!open_name || strcmp(open_kind, row->entity_kind) != 0 || strcmp(open_name, row->entity) != 0) {
            fprintf(f, "\n%s%s %.80s\n", row->entity_kind, row->is_region ? " region" : "", row->entity);
            header(f);
            open_kind = row->entity_kind, open_name = row->entity;
        }
        char base[32], nw[32], ch[32], nb[32], nn[32], noise[72], verdict[48];
        metric_format_value(row->def, row->base, true, base, sizeof base);
        metric_format_value(row->def, row->new_value, true, nw, sizeof nw);
        compare_text(row, "change_pct", ch, sizeof ch);
        compare_text(row, "noise_base_pct", nb, sizeof nb);
        compare_text(row, "noise_new_pct", nn, sizeof nn);
        snprintf(noise, sizeof noise, "%s / %s", nb, nn);
        verdict_text(row, verdict, sizeof verdict);
        fprintf(f, "  %-16.16s %14.14s %14.14s %9.9s %17.17s  %s\n", row->def->label, base, nw, ch, noise, verdict);
    }
    if (hidden && !all)
        fprintf(f, "\n%d figure%s same within noise not shown (--all shows them)\n", hidden, hidden == 1 ? "" : "s");
}

static const char *unmatched_kind(const cmp_unmatched *u)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "%s%s", u->kind, u->is_region ? " region" : "");
    return buf;
}

void render_compare_text(const compare_report *r, bool all, FILE *f)
{
    const comparison *c = r->c;
    fprintf(f, "mmprof compare\n");
    fprintf(f, "  base  %.52s  (%.20s, %.20s)\n", r->base.path, device_name(r->base.m), r->base.m->started_at);
    fprintf(f, "  new   %.52s  (%.20s, %.20s)\n", r->new_run.path, device_name(r->new_run.m), r->new_run.m->started_at);
    fprintf(f, "  rule  a change counts when |change| > max(noise base, noise new); noise = stdev/mean\n"
               "        of the timed samples; \"!\": worse beyond the noise and the --threshold\n");
    render_rows(r, all, f);
    if (c->nunmatched) {
        fprintf(f, "\n");
        for (int i = 0; i < c->nunmatched; i++)
            fprintf(f, "only in %-4s  %-16s %.68s\n", c->unmatched[i].side, unmatched_kind(&c->unmatched[i]),
                    c->unmatched[i].name);
    }
    char words[5][40];
    for (int v = 0; v < 5; v++)
        snprintf(words[v], sizeof words[v], "%d %s", c->counts[v],
                 v == CMP_BETTER ? "faster/better" : v == CMP_WORSE ? "slower/worse" : cmp_verdict_text((cmp_verdict)v, NULL));
    fprintf(f, "\n%d figures of %d matched workloads and regions (%d unmatched):\n  %s, %s, %s,\n  %s, %s\n",
            c->nrows, c->entities, c->nunmatched, words[CMP_WORSE], words[CMP_BETTER], words[CMP_CHANGED],
            words[CMP_SAME], words[CMP_NO_BASE]);
    if (c->threshold_pct >= 0)
        fprintf(f, "threshold %s: %d figure%s worse beyond the noise and the threshold (\"!\")\n",
                value_text(&report_value_table, "compare_threshold_pct", c->threshold_pct, true).s, c->regressions,
                c->regressions == 1 ? "" : "s");
}

/* ---------- JSON ---------- */

static cJSON *side_json(const compare_side *s)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = cJSON_AddStringToObject(o, "path", s->path) && cJSON_AddStringToObject(o, "device", device_name(s->m)) &&
              cJSON_AddStringToObject(o, "started_at", s->m->started_at) &&
              cJSON_AddStringToObject(o, "source", run_source_name(s->m->source)) &&
              cJSON_AddNumberToObject(o, "schema_version", s->m->schema_version);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* A figure's number, or null where it is n/a. */
static bool add_metric(cJSON *o, const char *key, const metric *n)
{
    return n->ok ? cJSON_AddNumberToObject(o, key, n->v) != NULL : cJSON_AddNullToObject(o, key) != NULL;
}

static const char *better_name(metric_better b)
{
    return b == BETTER_LOWER ? "lower" : b == BETTER_HIGHER ? "higher" : "none";
}

static cJSON *row_json(const cmp_row *row)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = cJSON_AddBoolToObject(o, "region", row->is_region) &&
              cJSON_AddStringToObject(o, "kind", row->entity_kind) && cJSON_AddStringToObject(o, "name", row->entity) &&
              cJSON_AddStringToObject(o, "figure", row->def->key) && cJSON_AddStringToObject(o, "label", row->def->label) &&
              cJSON_AddStringToObject(o, "unit", row->def->unit) &&
              cJSON_AddStringToObject(o, "better", better_name(row->def->better)) &&
              cJSON_AddNumberToObject(o, "base", row->base) && cJSON_AddNumberToObject(o, "new", row->new_value) &&
              add_metric(o, "change_pct", &row->change_pct) && add_metric(o, "noise_base_pct", &row->noise_base) &&
              add_metric(o, "noise_new_pct", &row->noise_new) &&
              cJSON_AddStringToObject(o, "verdict", cmp_verdict_text(row->verdict, row->def)) &&
              cJSON_AddBoolToObject(o, "regression", row->regression);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static bool append(cJSON *arr, cJSON *item)
{
    if (!item || !cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

char *render_compare_json(const compare_report *r)
{
    const comparison *c = r->c;
    cJSON *root = cJSON_CreateObject();
    cJSON *rows = cJSON_CreateArray(), *unmatched = cJSON_CreateArray(), *warnings = cJSON_CreateArray();
    bool ok = root && rows && unmatched && warnings;
    ok = ok && cJSON_AddStringToObject(root, "schema", COMPARE_SCHEMA) && cJSON_AddNumberToObject(root, "schema_version", 1);
    cJSON *b = ok ? side_json(&r->base) : NULL, *n = ok ? side_json(&r->new_run) : NULL;
    ok = ok && b && cJSON_AddItemToObject(root, "base", b);
    if (!ok)
        cJSON_Delete(b);
    ok = ok && n && cJSON_AddItemToObject(root, "new", n);
    if (!ok)
        cJSON_Delete(n);
    ok = ok && cJSON_AddStringToObject(root, "rule", "|change| > max(noise_base_pct, noise_new_pct): faster or slower "
                                                     "by the figure's better direction; otherwise same within noise");
    ok = ok && (c->threshold_pct >= 0 ? cJSON_AddNumberToObject(root, "threshold_pct", c->threshold_pct) != NULL
                                      : cJSON_AddNullToObject(root, "threshold_pct") != NULL);
    for (int i = 0; ok && i < r->nwarnings; i++)
        ok = append(warnings, cJSON_CreateString(r->warnings[i]));
    for (int i = 0; ok && i < c->nrows; i++)
        ok = append(rows, row_json(&c->rows[i]));
    for (int i = 0; ok && i < c->nunmatched; i++) {
        cJSON *u = cJSON_CreateObject();
        ok = u && cJSON_AddStringToObject(u, "only_in", c->unmatched[i].side) &&
             cJSON_AddBoolToObject(u, "region", c->unmatched[i].is_region) &&
             cJSON_AddStringToObject(u, "kind", c->unmatched[i].kind) &&
             cJSON_AddStringToObject(u, "name", c->unmatched[i].name);
        ok = append(unmatched, u) && ok;
    }
    /* Attached last, so that on failure each array is freed once, by whoever holds it. */
    if (ok && cJSON_AddItemToObject(root, "warnings", warnings)) {
        warnings = NULL;
        if (cJSON_AddItemToObject(root, "rows", rows)) {
            rows = NULL;
            if (cJSON_AddItemToObject(root, "unmatched", unmatched))
                unmatched = NULL;
        }
    }
    ok = ok && !warnings && !rows && !unmatched;
    cJSON *summary = ok ? cJSON_AddObjectToObject(root, "summary") : NULL;
    ok = summary && cJSON_AddNumberToObject(summary, "figures", c->nrows) &&
         cJSON_AddNumberToObject(summary, "matched", c->entities) &&
         cJSON_AddNumberToObject(summary, "faster", c->counts[CMP_BETTER]) &&
         cJSON_AddNumberToObject(summary, "slower", c->counts[CMP_WORSE]) &&
         cJSON_AddNumberToObject(summary, "changed", c->counts[CMP_CHANGED]) &&
         cJSON_AddNumberToObject(summary, "same", c->counts[CMP_SAME]) &&
         cJSON_AddNumberToObject(summary, "regressions", c->regressions) &&
         cJSON_AddNumberToObject(summary, "exit_status", r->exit_status);
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    cJSON_Delete(rows);
    cJSON_Delete(unmatched);
    cJSON_Delete(warnings);
    return text;
}
