/* Two runs compared: see compare.h for what is matched and the rule. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "stats.h"

cmp_verdict cmp_judge(double base, double new_value, double noise_base_pct, double noise_new_pct,
                      metric_better better, double *change_pct)
{
    *change_pct = 0;
    if (base == new_value)
        return CMP_SAME;
    if (base == 0)
        return CMP_NO_BASE;
    double change = (new_value - base) / fabs(base) * 100.0;
    *change_pct = change;
    /* nvbench's rule: a change inside the larger of the two noises is no change. Unknown noise
     * counts as none, so the change alone decides (and the row says its noise was n/a). */
    double noise = 0;
    if (!isnan(noise_base_pct))
        noise = noise_base_pct;
    if (!isnan(noise_new_pct) && noise_new_pct > noise)
        noise = noise_new_pct;
    if (fabs(change) <= noise)
        return CMP_SAME;
    if (better == BETTER_NONE)
        return CMP_CHANGED;
    bool improved = better == BETTER_LOWER ? change < 0 : change > 0;
    return improved ? CMP_BETTER : CMP_WORSE;
}

/* Times and throughputs get faster or slower; other figures better or worse. */
static bool speed_unit(const char *unit)
{
    static const char *const units[] = {"ms", "us", "ns", "s", "GB/s", "TFLOP/s", "x"};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i]) == 0)
            return true;
    return false;
}

const char *cmp_verdict_text(cmp_verdict v, const metric_def *d)
{
    bool speed = d && speed_unit(d->unit);
    switch (v) {
    case CMP_SAME: return "same within noise";
    case CMP_BETTER: return speed ? "faster" : "better";
    case CMP_WORSE: return speed ? "slower" : "worse";
    case CMP_CHANGED: return "changed";
    case CMP_NO_BASE: return "n/a (base is 0)";
    }
    return "?";
}

void noise_pct_of(const double *v, int n, metric *out)
{
    double pct = relative_noise_pct(v, n);
    if (n < 2)
        metric_na(out, "fewer than 2 timed samples");
    else if (pct < 0)
        metric_na(out, "mean of the samples is 0");
    else
        metric_set(out, pct);
}

static bool key_in(const char *key, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

/* The noise of a workload figure, for the figures that follow the kernel time: the noise the run
 * recorded when sampling by noise (noise_pct, the figure sampling stopped on), else that of its
 * compute phase's per-product times (runs from before sampling by noise). */
static void workload_noise(const workload_metrics *w, const metric_def *d, metric *out)
{
    static const char *const timed[] = {"kernel_ms", "kernel_total_ms", "tflops", "peak_pct"};
    if (!key_in(d->key, timed, sizeof timed / sizeof timed[0]))
        metric_na(out, "not a timed-sample figure");
    else if (w->w->noise_pct >= 0)
        metric_set(out, w->w->noise_pct);
    else
        noise_pct_of(w->w->product_ms, w->w->nproduct_ms, out);
}

/* The noise of a region figure: the spread of its longest kernel's launches, for its kernel
 * figures. */
static void region_noise(const region_metrics *r, const metric_def *d, metric *out)
{
    static const char *const timed[] = {"kernel_ms", "kernel_us", "tflops"};
    if (!key_in(d->key, timed, sizeof timed / sizeof timed[0])) {
        metric_na(out, "not a timed-sample figure");
        return;
    }
    const kernel_stat *k = r->nkstats > 0 ? &r->kernels[0] : NULL;
    if (!k || k->count < 2 || !k->stddev_ms.ok || !k->total_ms.ok || k->total_ms.v <= 0) {
        metric_na(out, "fewer than 2 launches of its main kernel");
        return;
    }
    metric_set(out, 100.0 * k->stddev_ms.v / (k->total_ms.v / k->count));
}

/* ---------- matching ---------- */

/* One workload or region of a run, under the key it is matched by. */
typedef struct {
    char key[240];  /* kind, a tab, the name or path, and "#n" for the n-th repeat (n > 1) */
    char kind[16];
    char name[200]; /* for people: the label or path, with " #n" */
    int index;      /* into analysis.wl or analysis.rg */
    bool is_region;
    bool matched;
} entity;

/* The path of a region: its ancestors' names below the run region, then its own. The run region
 * itself is "run" whatever the trace called it: the two runs' wholes always match. */
static void region_path(const run_model *m, int i, char *buf, size_t len)
{
    if (i == 0) {
        snprintf(buf, len, "whole run");
        return;
    }
    int chain[64], n = 0;
    for (int at = i; at > 0 && n < 64; at = m->regions[at].parent)
        chain[n++] = at;
    size_t used = 0;
    buf[0] = '\0';
    for (int k = n - 1; k >= 0 && used < len; k--) {
        int w = snprintf(buf + used, len - used, "%s%s", used ? " / " : "", m->regions[chain[k]].name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const entity *)a)->key, ((const entity *)b)->key);
}

/* By key, then by position in the run (index), so repeats keep their timeline order. */
static int by_key_then_position(const void *a, const void *b)
{
    int c = by_key(a, b);
    if (c)
        return c;
    int x = ((const entity *)a)->index, y = ((const entity *)b)->index;
    return (x > y) - (x < y);
}

/* with_n: a sweep is on either side, so a workload is matched at each size (its label and n). */
static entity *entities_of(const analysis *a, bool with_n, int *count)
{
    const run_model *m = a->m;
    int n = a->nwl + a->nrg;
    entity *e = calloc((size_t)(n > 0 ? n : 1), sizeof *e);
    if (!e)
        return NULL;
    int k = 0;
    for (int i = 0; i < a->nwl; i++, k++) {
        char label[64];
        workload_label(a->wl[i].w, label, sizeof label);
        snprintf(e[k].kind, sizeof e[k].kind, "workload");
        if (with_n)
            snprintf(e[k].name, sizeof e[k].name, "%s, n = %d", label, a->wl[i].w->n);
        else
            snprintf(e[k].name, sizeof e[k].name, "%s", label);
        e[k].index = i;
    }
    for (int i = 0; i < a->nrg; i++, k++) {
        int r = a->rg[i].region;
        snprintf(e[k].kind, sizeof e[k].kind, "%s", region_kind_name(m->regions[r].kind));
        region_path(m, r, e[k].name, sizeof e[k].name);
        e[k].index = i;
        e[k].is_region = true;
    }
    /* Repeats of one kind and name are numbered in timeline order, so the n-th of the base meets
     * the n-th of the new run: sorted by key, then by position, each group is in order. */
    for (int i = 0; i < n; i++)
        snprintf(e[i].key, sizeof e[i].key, "%c%s\t%s", e[i].is_region ? 'R' : 'W', e[i].kind, e[i].name);
    entity *sorted = malloc((size_t)(n > 0 ? n : 1) * sizeof *sorted);
    if (!sorted) {
        free(e);
        return NULL;
    }
    memcpy(sorted, e, (size_t)n * sizeof *e);
    for (int i = 0; i < n; i++)
        sorted[i].index = i; /* position in e */
    qsort(sorted, (size_t)n, sizeof *sorted, by_key_then_position);
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && strcmp(sorted[j].key, sorted[i].key) == 0)
            j++;
        /* The key always carries the number (one "forward" meets the first of three); the name
         * only among repeats. */
        for (int r = i; r < j; r++) {
            entity *x = &e[sorted[r].index];
            size_t kl = strlen(x->key), nl = strlen(x->name);
            snprintf(x->key + kl, sizeof x->key - kl, "#%d", r - i + 1);
            if (j - i > 1)
                snprintf(x->name + nl, sizeof x->name - nl, " #%d", r - i + 1);
        }
        i = j;
    }
    free(sorted);
    *count = n;
    return e;
}

/* ---------- rows ---------- */

static bool add_row(comparison *c, const cmp_row *row)
{
    if ((c->nrows & (c->nrows - 1)) == 0) { /* grow at powers of two */
        size_t cap = c->nrows ? (size_t)c->nrows * 2 : 64;
        cmp_row *p = realloc(c->rows, cap * sizeof *p);
        if (!p)
            return false;
        c->rows = p;
    }
    c->rows[c->nrows++] = *row;
    c->counts[row->verdict]++;
    c->regressions += row->regression;
    return true;
}

/* A built-in run samples each workload until its noise is low enough or its time is up, so the
 * number of products it timed differs from run to run: totals over them (a workload's kernel
 * total; a built-in run's region sums of time, bytes and calls) say how long it sampled, not how
 * fast anything ran, and are not compared. Per-product figures, rates and shares are. A profiled
 * program or an imported trace did the same work in both runs: there every figure counts. */
static bool sample_count_total(const analysis *a, bool is_region, const metric_def *d)
{
    static const char *const region_sums[] = {"wall_ms", "kernel_ms", "memcpy_ms", "memset_ms", "h2d_ms",
                                              "h2d_bytes", "d2h_ms", "d2h_bytes", "gpu_busy_ms", "sync_ms",
                                              "api_ms", "largest_gap_ms"};
    if (!source_has(a->m->source, HAS_WORKLOADS))
        return false;
    if (!is_region)
        return strcmp(d->key, "kernel_total_ms") == 0;
    for (size_t i = 0; i < sizeof region_sums / sizeof region_sums[0]; i++)
        if (strcmp(d->key, region_sums[i]) == 0)
            return true;
    return false;
}

/* One row per figure of table both rows measured. */
static bool compare_rows(comparison *c, const entity *e, const metric_table *t, const void *rb, const void *rn,
                         const analysis *ab, const analysis *an, const entity *eb, const entity *en)
{
    for (int i = 0; i < t->n; i++) {
        const metric_def *d = &t->defs[i];
        const metric *mb = metric_of(rb, d), *mn = metric_of(rn, d);
        if (!mb->ok || !mn->ok || sample_count_total(ab, e->is_region, d))
            continue;
        cmp_row row;
        memset(&row, 0, sizeof row);
        row.is_region = e->is_region;
        snprintf(row.entity_kind, sizeof row.entity_kind, "%s", e->kind);
        snprintf(row.entity, sizeof row.entity, "%s", e->name);
        row.def = d;
        row.base = mb->v;
        row.new_value = mn->v;
        if (e->is_region) {
            region_noise(&ab->rg[eb->index], d, &row.noise_base);
            region_noise(&an->rg[en->index], d, &row.noise_new);
        } else {
            workload_noise(&ab->wl[eb->index], d, &row.noise_base);
            workload_noise(&an->wl[en->index], d, &row.noise_new);
        }
        row.noise_known = row.noise_base.ok || row.noise_new.ok;
        double change;
        row.verdict = cmp_judge(row.base, row.new_value, row.noise_base.ok ? row.noise_base.v : NAN,
                                row.noise_new.ok ? row.noise_new.v : NAN, d->better, &change);
        if (row.verdict == CMP_NO_BASE)
            metric_na(&row.change_pct, "the base is 0");
        else
            metric_set(&row.change_pct, change);
        row.regression = row.verdict == CMP_WORSE && row.noise_known && c->threshold_pct >= 0 &&
                         fabs(change) > c->threshold_pct;
        if (!add_row(c, &row))
            return false;
    }
    return true;
}

static bool add_unmatched(comparison *c, const char *side, const entity *e)
{
    cmp_unmatched *p = realloc(c->unmatched, (size_t)(c->nunmatched + 1) * sizeof *p);
    if (!p)
        return false;
    c->unmatched = p;
    cmp_unmatched *u = &p[c->nunmatched++];
    snprintf(u->side, sizeof u->side, "%s", side);
    u->is_region = e->is_region;
    snprintf(u->kind, sizeof u->kind, "%s", e->kind);
    snprintf(u->name, sizeof u->name, "%s", e->name);
    return true;
}

bool compare_runs(const analysis *base, const analysis *new_run, double threshold_pct, comparison *out)
{
    memset(out, 0, sizeof *out);
    out->threshold_pct = threshold_pct;
    int nb = 0, nn = 0;
    bool with_n = base->m->builtin.nsizes > 0 || new_run->m->builtin.nsizes > 0;
    entity *eb = entities_of(base, with_n, &nb), *en = entities_of(new_run, with_n, &nn);
    entity *sorted = en ? malloc((size_t)(nn > 0 ? nn : 1) * sizeof *sorted) : NULL;
    bool ok = eb && en && sorted;
    if (ok) {
        memcpy(sorted, en, (size_t)nn * sizeof *en);
        for (int i = 0; i < nn; i++)
            sorted[i].index = i;
        qsort(sorted, (size_t)nn, sizeof *sorted, by_key);
    }
    for (int i = 0; ok && i < nb; i++) {
        const entity *hit = bsearch(&eb[i], sorted, (size_t)nn, sizeof *sorted, by_key);
        if (!hit) {
            ok = add_unmatched(out, "base", &eb[i]);
            continue;
        }
        entity *m = &en[hit->index];
        m->matched = true;
        out->entities++;
        if (eb[i].is_region)
            ok = compare_rows(out, &eb[i], &region_metric_table, &base->rg[eb[i].index], &new_run->rg[m->index],
                              base, new_run, &eb[i], m);
        else
            ok = compare_rows(out, &eb[i], &workload_metric_table, &base->wl[eb[i].index], &new_run->wl[m->index],
                              base, new_run, &eb[i], m);
    }
    for (int i = 0; ok && i < nn; i++)
        if (!en[i].matched)
            ok = add_unmatched(out, "new", &en[i]);
    free(eb);
    free(en);
    free(sorted);
    if (!ok)
        comparison_free(out);
    return ok;
}

void comparison_free(comparison *c)
{
    free(c->rows);
    free(c->unmatched);
    memset(c, 0, sizeof *c);
}
