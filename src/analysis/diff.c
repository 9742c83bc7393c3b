/* The structural diff of two runs' rows (diff.h). */
#include "diff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cause_table.h"

const char *diff_kind_name(diff_kind k)
{
    static const char *const names[DIFF_KINDS] = {"run", "range", "kernel", "state", "cause"};
    return k >= 0 && k < DIFF_KINDS ? names[k] : "?";
}

const char *diff_verdict_name(diff_verdict v)
{
    static const char *const names[] = {"same", "slower", "faster", "new", "gone"};
    return v >= DV_SAME && v <= DV_GONE ? names[v] : "?";
}

static bool push(run_diff *d, int *cap, const diff_change *c)
{
    if (d->nchanges == *cap) {
        int n = *cap ? 2 * *cap : 32;
        diff_change *v = realloc(d->changes, (size_t)n * sizeof *v);
        if (!v)
            return false;
        d->changes = v, *cap = n;
    }
    d->changes[d->nchanges++] = *c;
    return true;
}

static double nz(double v) { return isfinite(v) ? v : 0; }

/* The floor a change must pass besides the spread (diff.h). */
static double floor_ms(const run_diff *d, double base, double new_value, bool repeated, bool run_share)
{
    double pct = d->opt.min_change_pct >= 0 ? d->opt.min_change_pct
                 : repeated                  ? DIFF_MIN_REPEATED_PCT
                                             : DIFF_MIN_CHANGE_PCT;
    double larger = fmax(nz(base), nz(new_value));
    double f = fmax(pct / 100 * larger, DIFF_MIN_MS);
    if (run_share)
        f = fmax(f, DIFF_RUN_SHARE_PCT / 100 * fmax(d->base_wall_ms, d->new_wall_ms));
    return f;
}

/* The verdict and regression of c, its delta, noise and counts set. */
static void diff_judge(run_diff *d, diff_change *c)
{
    bool has_base = isfinite(c->base), has_new = isfinite(c->new_value);
    c->delta_ms = nz(c->new_value) - nz(c->base);
    c->delta_pct = has_base && has_new && c->base != 0 ? 100 * c->delta_ms / c->base : NAN;
    if (!has_base)
        c->verdict = c->new_value > c->noise_ms ? DV_NEW : DV_SAME;
    else if (!has_new)
        c->verdict = c->base > c->noise_ms ? DV_GONE : DV_SAME;
    else if (fabs(c->delta_ms) <= c->noise_ms)
        c->verdict = DV_SAME;
    else
        c->verdict = c->delta_ms > 0 ? DV_SLOWER : DV_FASTER;
    /* New work counts against a threshold by its share of the base run's wall time. */
    double pct = isfinite(c->delta_pct) ? c->delta_pct
                 : d->base_wall_ms > 0  ? 100 * c->delta_ms / d->base_wall_ms
                                        : NAN;
    c->regression = (c->verdict == DV_SLOWER || c->verdict == DV_NEW) && d->opt.threshold_pct >= 0 &&
                    isfinite(pct) && pct > d->opt.threshold_pct;
}

/* ---------- ranges ---------- */

static int find_group(const rr_rows *t, const char *name, const char *kind, const char *domain)
{
    for (int i = 0; i < t->nrows; i++)
        if (strcmp(rr_text(t, i, "name"), name) == 0 && strcmp(rr_text(t, i, "kind"), kind) == 0 &&
            strcmp(rr_text(t, i, "domain"), domain) == 0)
            return i;
    return -1;
}

/* The account a group's typical instance has: its median instance's (scope group_median), or
 * for a range run once, its region's; -1 none. */
static int typical_account(const run_rows *r, const char *group)
{
    const rr_rows *acc = &r->tables[RR_ACCOUNTS];
    int region = -1;
    for (int i = 0; i < acc->nrows; i++) {
        const char *scope = rr_text(acc, i, "scope");
        if (strcmp(scope, "group_median") == 0 && strcmp(rr_text(acc, i, "range_group"), group) == 0)
            return (int)rr_num(acc, i, "idx");
        if (region < 0 && strcmp(scope, "region") == 0 && strcmp(rr_text(acc, i, "name"), group) == 0)
            region = (int)rr_num(acc, i, "idx");
    }
    return region;
}

static const char *state_words(const char *key)
{
    if (strcmp(key, "gpu_compute") == 0)
        return "kernels";
    for (int s = 0; s < WS_COUNT; s++)
        if (strcmp(wall_states[s].key, key) == 0)
            return wall_states[s].brief;
    return key;
}

/* State ms of account idx of r, by state key, into ms[] (NAN where absent); evidence lines. */
static void account_states(const run_rows *r, int idx, double ms[WS_COUNT], const char *at[WS_COUNT])
{
    for (int s = 0; s < WS_COUNT; s++)
        ms[s] = 0, at[s] = "";
    const rr_rows *st = &r->tables[RR_ACCOUNT_STATES];
    for (int i = 0; idx >= 0 && i < st->nrows; i++) {
        if ((int)rr_num(st, i, "account") != idx)
            continue;
        const char *key = rr_text(st, i, "state");
        for (int s = 0; s < WS_COUNT; s++)
            if (strcmp(wall_states[s].key, key) == 0) {
                ms[s] += nz(rr_num(st, i, "ms"));
                at[s] = rr_text(st, i, "at");
            }
    }
}

static int part_cmp(const void *a, const void *b)
{
    double x = fabs(((const diff_part *)a)->delta_ms), y = fabs(((const diff_part *)b)->delta_ms);
    return (x < y) - (x > y);
}

/* Where a range's change went: its typical instance's states, base against new. */
static void range_parts(const run_rows *a, const run_rows *b, diff_change *c)
{
    int ia = typical_account(a, c->name), ib = typical_account(b, c->name);
    if (ia < 0 || ib < 0)
        return;
    double ma[WS_COUNT], mb[WS_COUNT];
    const char *ata[WS_COUNT], *atb[WS_COUNT];
    account_states(a, ia, ma, ata);
    account_states(b, ib, mb, atb);
    diff_part all[WS_COUNT];
    int n = 0;
    /* a part worth naming: a twentieth of the change, and more than rounding */
    double least = fmax(fabs(c->delta_ms) / 20, DIFF_MIN_MS);
    for (int s = 0; s < WS_COUNT; s++) {
        double dm = mb[s] - ma[s];
        if (fabs(dm) < least)
            continue;
        diff_part *p = &all[n++];
        snprintf(p->state, sizeof p->state, "%s", wall_states[s].key);
        snprintf(p->words, sizeof p->words, "%s", state_words(wall_states[s].key));
        snprintf(p->at, sizeof p->at, "%s", dm > 0 ? atb[s] : ata[s]);
        p->delta_ms = dm;
    }
    qsort(all, (size_t)n, sizeof *all, part_cmp);
    c->nparts = n < DIFF_PARTS ? n : DIFF_PARTS;
    memcpy(c->parts, all, (size_t)c->nparts * sizeof *all);
}

static bool diff_ranges(const run_rows *a, const run_rows *b, run_diff *d, int *cap)
{
    const rr_rows *ga = &a->tables[RR_RANGE_GROUPS], *gb = &b->tables[RR_RANGE_GROUPS];
    for (int side = 0; side < 2; side++) {
        const rr_rows *mine = side ? gb : ga, *other = side ? ga : gb;
        for (int i = 0; i < mine->nrows; i++) {
            const char *name = rr_text(mine, i, "name"), *kind = rr_text(mine, i, "kind");
            int j = find_group(other, name, kind, rr_text(mine, i, "domain"));
            if (side == 1 && j >= 0)
                continue; /* matched: done from the base's side */
            int ra = side ? j : i, rb = side ? i : j;
            diff_change c = {.kind = DIFF_RANGE, .figure = "median_ms", .noise_from = "floor"};
            snprintf(c.name, sizeof c.name, "%s", name);
            c.base = ra >= 0 ? rr_num(ga, ra, "median_ms") : NAN;
            c.new_value = rb >= 0 ? rr_num(gb, rb, "median_ms") : NAN;
            c.base_count = ra >= 0 ? (int)rr_num(ga, ra, "count") : 0;
            c.new_count = rb >= 0 ? (int)rr_num(gb, rb, "count") : 0;
            bool repeated = c.base_count >= DIFF_MIN_INSTANCES && c.new_count >= DIFF_MIN_INSTANCES;
            if (ra < 0 || rb < 0) {
                /* A range on one side only: its total is what came or went. */
                c.figure = "total_ms";
                c.base = ra >= 0 ? rr_num(ga, ra, "total_ms") : NAN;
                c.new_value = rb >= 0 ? rr_num(gb, rb, "total_ms") : NAN;
            }
            c.noise_ms = floor_ms(d, c.base, c.new_value, repeated, !repeated);
            if (repeated && ra >= 0 && rb >= 0) {
                double spread = 1.4826 * fmax(nz(rr_num(ga, ra, "mad_ms")), nz(rr_num(gb, rb, "mad_ms")));
                if (DIFF_SIGMAS * spread > c.noise_ms) {
                    c.noise_ms = DIFF_SIGMAS * spread;
                    c.noise_from = "instances";
                }
            }
            snprintf(c.detail, sizeof c.detail, "%d -> %d instances", c.base_count, c.new_count);
            diff_judge(d, &c);
            if (c.verdict == DV_SLOWER || c.verdict == DV_FASTER)
                range_parts(a, b, &c);
            d->compared[DIFF_RANGE]++;
            if (!push(d, cap, &c))
                return false;
        }
    }
    return true;
}

/* ---------- kernels ---------- */

static int find_name(const rr_rows *t, const char *col, const char *name)
{
    for (int i = 0; i < t->nrows; i++)
        if (strcmp(rr_text(t, i, col), name) == 0)
            return i;
    return -1;
}

static bool diff_kernels(const run_rows *a, const run_rows *b, run_diff *d, int *cap)
{
    const rr_rows *ka = &a->tables[RR_KERNELS], *kb = &b->tables[RR_KERNELS];
    for (int side = 0; side < 2; side++) {
        const rr_rows *mine = side ? kb : ka, *other = side ? ka : kb;
        for (int i = 0; i < mine->nrows; i++) {
            const char *name = rr_text(mine, i, "name");
            int j = find_name(other, "name", name);
            if (side == 1 && j >= 0)
                continue;
            int ra = side ? j : i, rb = side ? i : j;
            diff_change c = {.kind = DIFF_KERNEL, .figure = "total_ms", .noise_from = "floor"};
            snprintf(c.name, sizeof c.name, "%s", name);
            c.base = ra >= 0 ? rr_num(ka, ra, "total_ms") : NAN;
            c.new_value = rb >= 0 ? rr_num(kb, rb, "total_ms") : NAN;
            c.base_count = ra >= 0 ? (int)rr_num(ka, ra, "launches") : 0;
            c.new_count = rb >= 0 ? (int)rr_num(kb, rb, "launches") : 0;
            c.noise_ms = floor_ms(d, c.base, c.new_value, true, false);
            double spread = 0;
            if (ra >= 0)
                spread = nz(rr_num(ka, ra, "stddev_ms")) * sqrt(c.base_count);
            if (rb >= 0)
                spread = fmax(spread, nz(rr_num(kb, rb, "stddev_ms")) * sqrt(c.new_count));
            if (DIFF_SIGMAS * spread > c.noise_ms) {
                c.noise_ms = DIFF_SIGMAS * spread;
                c.noise_from = "launches";
            }
            snprintf(c.detail, sizeof c.detail, "%d -> %d launches", c.base_count, c.new_count);
            diff_judge(d, &c);
            d->compared[DIFF_KERNEL]++;
            if (!push(d, cap, &c))
                return false;
        }
    }
    return true;
}

/* ---------- the run's states and causes ---------- */

static int diff_run_account(const run_rows *r)
{
    const rr_rows *acc = &r->tables[RR_ACCOUNTS];
    for (int i = 0; i < acc->nrows; i++)
        if (strcmp(rr_text(acc, i, "scope"), "run") == 0)
            return (int)rr_num(acc, i, "idx");
    return -1;
}

/* Summed time of the rows of table t in account idx whose column col is key; the first's why
 * and at. */
static double sum_of(const rr_rows *t, int idx, const char *col, const char *key, const char **why, const char **at)
{
    double ms = NAN;
    for (int i = 0; idx >= 0 && i < t->nrows; i++) {
        if ((int)rr_num(t, i, "account") != idx || strcmp(rr_text(t, i, col), key) != 0)
            continue;
        if (!isfinite(ms)) {
            ms = 0;
            if (why)
                *why = rr_text(t, i, "why");
            if (at)
                *at = rr_text(t, i, "at");
        }
        ms += nz(rr_num(t, i, "ms"));
    }
    return ms;
}

static bool seen_before(const rr_rows *t, int idx, const char *col, int upto)
{
    const char *key = rr_text(t, upto, col);
    for (int i = 0; i < upto; i++)
        if ((int)rr_num(t, i, "account") == idx && strcmp(rr_text(t, i, col), key) == 0)
            return true;
    return false;
}

static bool diff_account_rows(const run_rows *a, const run_rows *b, int table, const char *col, diff_kind kind,
                              run_diff *d, int *cap)
{
    int ia = diff_run_account(a), ib = diff_run_account(b);
    if (ia < 0 || ib < 0)
        return true;
    const rr_rows *ta = &a->tables[table], *tb = &b->tables[table];
    for (int side = 0; side < 2; side++) {
        const rr_rows *mine = side ? tb : ta;
        int idx = side ? ib : ia;
        for (int i = 0; i < mine->nrows; i++) {
            if ((int)rr_num(mine, i, "account") != idx || seen_before(mine, idx, col, i))
                continue;
            const char *key = rr_text(mine, i, col);
            if (strcmp(key, kind == DIFF_STATE ? wall_states[WS_EXIT].key : "py_exit") == 0 ||
                strcmp(key, kind == DIFF_STATE ? wall_states[WS_UNKNOWN].key : "") == 0)
                continue; /* the process's exit and the time not known are not judged (diff.h) */
            const char *why_a = "", *why_b = "", *at_a = "", *at_b = "";
            double va = sum_of(ta, ia, col, key, &why_a, &at_a), vb = sum_of(tb, ib, col, key, &why_b, &at_b);
            if (side == 1 && isfinite(va))
                continue;
            diff_change c = {.kind = kind, .figure = "ms", .noise_from = "floor", .base = va, .new_value = vb};
            const char *why = isfinite(vb) ? why_b : why_a, *at = isfinite(vb) ? at_b : at_a;
            if (kind == DIFF_STATE) {
                snprintf(c.name, sizeof c.name, "%s", state_words(key));
                snprintf(c.detail, sizeof c.detail, "%s", at);
            } else {
                snprintf(c.name, sizeof c.name, "%s", key[0] ? key : "not known");
                snprintf(c.detail, sizeof c.detail, "%s%s%s", why, at[0] ? " at " : "", at);
            }
            c.noise_ms = floor_ms(d, va, vb, false, true);
            diff_judge(d, &c);
            d->compared[kind]++;
            if (!push(d, cap, &c))
                return false;
        }
    }
    return true;
}

static bool diff_wall(run_diff *d, int *cap)
{
    diff_change c = {.kind = DIFF_RUN, .figure = "wall_ms", .noise_from = "floor"};
    snprintf(c.name, sizeof c.name, "the run");
    c.base = d->base_wall_ms, c.new_value = d->new_wall_ms;
    c.noise_ms = floor_ms(d, c.base, c.new_value, false, false);
    diff_judge(d, &c);
    d->compared[DIFF_RUN]++;
    return push(d, cap, &c);
}

static double run_wall(const run_rows *r)
{
    const rr_rows *g = &r->tables[RR_REGIONS];
    for (int i = 0; i < g->nrows; i++)
        if (rr_num(g, i, "idx") == 0)
            return rr_num(g, i, "wall_ms");
    return NAN;
}

static int change_cmp(const void *x, const void *y)
{
    const diff_change *a = x, *b = y;
    bool ca = a->verdict != DV_SAME, cb = b->verdict != DV_SAME;
    if (ca != cb)
        return ca ? -1 : 1;
    double da = fabs(a->delta_ms), db = fabs(b->delta_ms);
    return (da < db) - (da > db);
}

bool diff_runs(const run_rows *base, const run_rows *new_run, const diff_options *o, run_diff *out)
{
    memset(out, 0, sizeof *out);
    out->opt = *o;
    out->base_wall_ms = run_wall(base);
    out->new_wall_ms = run_wall(new_run);
    int cap = 0;
    bool ok = diff_wall(out, &cap) && diff_ranges(base, new_run, out, &cap) &&
              diff_kernels(base, new_run, out, &cap) &&
              diff_account_rows(base, new_run, RR_ACCOUNT_STATES, "state", DIFF_STATE, out, &cap) &&
              diff_account_rows(base, new_run, RR_ACCOUNT_CAUSES, "cause", DIFF_CAUSE, out, &cap);
    if (!ok) {
        run_diff_free(out);
        return false;
    }
    if (out->nchanges > 1)
        qsort(out->changes, (size_t)out->nchanges, sizeof *out->changes, change_cmp);
    for (int i = 0; i < out->nchanges; i++) {
        out->ncalled += out->changes[i].verdict != DV_SAME;
        out->regressions += out->changes[i].regression;
    }
    return true;
}

void run_diff_free(run_diff *d)
{
    free(d->changes);
    d->changes = NULL;
    d->nchanges = 0;
}

/* A change's figure as the registry's diff table writes it (value_figures.c). */
#define DV(key, v) value_text(&diff_value_table, (key), (v), true).s

static void ms_text(char *buf, size_t len, double v)
{
    snprintf(buf, len, "%s", isfinite(v) ? DV("value_ms", v) : "-");
}

void diff_change_words(const diff_change *c, char *buf, size_t len)
{
    char va[sizeof(num_text)], vb[sizeof(num_text)];
    ms_text(va, sizeof va, c->base);
    ms_text(vb, sizeof vb, c->new_value);
    const char *what = c->kind == DIFF_RANGE && strcmp(c->figure, "median_ms") == 0 ? " median"
                       : c->kind == DIFF_RANGE || c->kind == DIFF_KERNEL           ? " total"
                       : c->kind == DIFF_RUN                                       ? " wall"
                                                                                   : "";
    char pct[sizeof(num_text) + 2] = "";
    if (isfinite(c->delta_pct))
        snprintf(pct, sizeof pct, ", %s", DV("delta_pct", c->delta_pct));
    if (c->verdict == DV_NEW || c->verdict == DV_GONE)
        snprintf(buf, len, "%s '%s'%s: %s, %s (%s; noise %s from %s)", diff_kind_name(c->kind), c->name, what,
                 c->verdict == DV_NEW ? "new" : "gone", c->verdict == DV_NEW ? vb : va, c->detail,
                 DV("noise_ms", c->noise_ms), c->noise_from);
    else
        snprintf(buf, len, "%s '%s'%s %s -> %s (%s%s; noise %s from %s): %s", diff_kind_name(c->kind),
                 c->name, what, va, vb, DV("delta_ms", c->delta_ms), pct, DV("noise_ms", c->noise_ms), c->noise_from,
                 c->verdict == DV_SAME ? "same within noise" : diff_verdict_name(c->verdict));
}

void diff_parts_words(const diff_change *c, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->nparts && used < len; i++) {
        const diff_part *p = &c->parts[i];
        int n = snprintf(buf + used, len - used, "%s%s %s%s%s", i ? ", " : "", p->words,
                         DV(fabs(p->delta_ms) >= 1 ? "part_ms" : "part_small_ms", p->delta_ms), p->at[0] ? " at " : "",
                         p->at);
        used += n > 0 ? (size_t)n : 0;
    }
}
