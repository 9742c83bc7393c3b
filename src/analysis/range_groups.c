/* NVTX ranges and annotations grouped by name: see range_groups.h. */
#include "range_groups.h"

#include "analysis.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void range_group_name(const char *name, char *buf, size_t len)
{
    if (len == 0)
        return;
    size_t n = strlen(name ? name : "");
    size_t d = n;
    while (d > 0 && isdigit((unsigned char)name[d - 1]))
        d--;
    /* "ProfilerStep#12" and "step 12": a step number after '#' or a space, with a name before
     * it, is an instance of one range (a loop's steps), grouped as "ProfilerStep#*", "step *". */
    if (d < n && d > 1 && (name[d - 1] == '#' || name[d - 1] == ' ')) {
        size_t keep = d < len - 1 ? d : len - 1;
        memcpy(buf, name, keep);
        buf[keep] = '\0';
        if (keep + 1 < len) {
            buf[keep] = '*';
            buf[keep + 1] = '\0';
        }
        return;
    }
    size_t keep = n < len - 1 ? n : len - 1;
    memcpy(buf, name ? name : "", keep);
    buf[keep] = '\0';
}

typedef struct {
    int region;
    char name[RANGE_GROUP_NAME];
    const region *r;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->r->kind != y->r->kind)
        return (int)x->r->kind - (int)y->r->kind;
    const char *dx = x->r->domain ? x->r->domain : "", *dy = y->r->domain ? y->r->domain : "";
    int c = strcmp(dx, dy);
    if (c == 0)
        c = strcmp(x->name, y->name);
    return c ? c : x->region - y->region;
}

static bool same_group(const keyed *x, const keyed *y)
{
    const char *dx = x->r->domain ? x->r->domain : "", *dy = y->r->domain ? y->r->domain : "";
    return x->r->kind == y->r->kind && strcmp(dx, dy) == 0 && strcmp(x->name, y->name) == 0;
}

static int cmp_total_desc(const void *a, const void *b)
{
    const range_group *x = a, *y = b;
    if (x->total_ms.v != y->total_ms.v)
        return x->total_ms.v < y->total_ms.v ? 1 : -1;
    return x->first - y->first;
}

static double value(const metric *m)
{
    return m->ok ? m->v : 0;
}

static int64_t length_ns(const region *r)
{
    return r->end_ns - r->start_ns;
}

/* By length, shortest first; of equal lengths the earlier region first. */
static int cmp_length(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int64_t lx = length_ns(x->r), ly = length_ns(y->r);
    if (lx != ly)
        return lx < ly ? -1 : 1;
    return (x->region > y->region) - (x->region < y->region);
}

static int cmp_double_asc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The advice k's instances got, each distinct text once, most first (of equal counts the earlier). */
static void count_advice(range_group *g, const keyed *k, int n, const region_metrics *rg)
{
    for (int i = 0; i < n; i++) {
        const char *text = rg[k[i].region].advice;
        if (!text[0])
            continue;
        int j = 0;
        while (j < g->nadvice && strcmp(rg[g->advice[j].region].advice, text) != 0)
            j++;
        if (j < g->nadvice)
            g->advice[j].count++;
        else if (g->nadvice < RANGE_GROUP_ADVICE)
            g->advice[g->nadvice++] = (range_advice){k[i].region, 1};
        else
            g->advice_other++;
    }
    /* most first; a stable insertion sort keeps the earlier of equal counts first */
    for (int i = 1; i < g->nadvice; i++)
        for (int j = i; j > 0 && g->advice[j].count > g->advice[j - 1].count; j--) {
            range_advice t = g->advice[j];
            g->advice[j] = g->advice[j - 1];
            g->advice[j - 1] = t;
        }
}

/* One group's figures from its instances k[0..n) (in timeline order; members gets their regions). */
static void fill(range_group *g, keyed *k, int n, const region_metrics *rg, double *wall, int *members)
{
    memset(g, 0, sizeof *g);
    for (int i = 0; i < n; i++)
        members[i] = k[i].region;
    g->members = members;
    memcpy(g->name, k[0].name, sizeof g->name);
    g->domain = k[0].r->domain;
    g->kind = k[0].r->kind;
    g->count = n;
    g->first = k[0].region;
    g->worst = k[0].region;
    double total = 0, kernel = 0, copy = 0, busy = 0;
    for (int i = 0; i < n; i++) {
        const region_metrics *r = &rg[k[i].region];
        wall[i] = value(&r->wall_ms);
        total += wall[i];
        kernel += value(&r->kernel_ms);
        copy += value(&r->memcpy_ms);
        busy += value(&r->gpu_busy_ms);
        g->with_gpu += r->nkernels + r->ncopies + r->nmemsets > 0 || r->gpu_busy_ms.ok;
        g->verdicts[r->verdict]++;
        g->by_time += r->by_time;
        /* The least busy instance, of equals the longest. */
        const region_metrics *w = &rg[g->worst];
        double b = value(&r->busy_pct), wb = value(&w->busy_pct);
        if (b < wb || (b == wb && wall[i] > value(&w->wall_ms)))
            g->worst = k[i].region;
    }
    metric_set(&g->total_ms, total);
    duration_spread(wall, n, &g->mean_ms, &g->min_ms, &g->median_ms, &g->max_ms, &g->stddev_ms, "one instance");
    metric_set(&g->kernel_ms, kernel);
    metric_set(&g->copy_ms, copy);
    metric_set(&g->gpu_busy_ms, busy);
    if (total > 0)
        metric_set(&g->busy_pct, 100.0 * busy / total);
    else
        metric_na(&g->busy_pct, "its instances have no length");
    int nb = 0;
    for (int i = 0; i < n; i++)
        if (rg[k[i].region].busy_pct.ok)
            wall[nb++] = rg[k[i].region].busy_pct.v;
    if (nb > 0) {
        qsort(wall, (size_t)nb, sizeof *wall, cmp_double_asc);
        metric_set(&g->median_busy_pct, (nb % 2) ? wall[nb / 2] : 0.5 * (wall[nb / 2 - 1] + wall[nb / 2]));
    } else {
        metric_na(&g->median_busy_pct, "no instance has a busy figure");
    }
    count_advice(g, k, n, rg);
    /* The median and the longest instance, by length (k is reordered: members keeps the timeline
     * order). */
    qsort(k, (size_t)n, sizeof *k, cmp_length);
    g->median = k[(n - 1) / 2].region;
    g->longest = k[n - 1].region;
    /* The verdict most instances got: of equals the first in verdict.h's order, so a tie between
     * copy-bound and compute-bound names the copies. No-GPU counts only when nothing else does. */
    g->verdict = VERDICT_NO_GPU;
    int best = 0;
    for (int v = VERDICT_COPY_BOUND; v < VERDICT_COUNT; v++)
        if (g->verdicts[v] > best) {
            best = g->verdicts[v];
            g->verdict = (verdict_kind)v;
        }
    if (best == 0 && g->verdicts[VERDICT_NO_GPU] == 0)
        g->verdict = VERDICT_NONE;
}

bool group_ranges(const run_model *m, const region_metrics *rg, range_group **out, int *nout, int **members,
                  int *group_of)
{
    *out = NULL;
    *nout = 0;
    *members = NULL;
    for (int i = 0; group_of && i < m->nregions; i++)
        group_of[i] = -1;
    int n = 0;
    for (int i = 0; i < m->nregions; i++)
        n += m->regions[i].kind == REGION_NVTX || m->regions[i].kind == REGION_ANNOTATION;
    if (n == 0)
        return true;
    keyed *k = malloc((size_t)n * sizeof *k);
    double *wall = malloc((size_t)n * sizeof *wall);
    range_group *g = malloc((size_t)n * sizeof *g);
    int *mem = malloc((size_t)n * sizeof *mem);
    if (!k || !wall || !g || !mem) {
        free(k);
        free(wall);
        free(g);
        free(mem);
        return false;
    }
    int nk = 0;
    for (int i = 0; i < m->nregions; i++) {
        const region *r = &m->regions[i];
        if (r->kind != REGION_NVTX && r->kind != REGION_ANNOTATION)
            continue;
        k[nk].region = i;
        k[nk].r = r;
        range_group_name(r->name, k[nk].name, sizeof k[nk].name);
        nk++;
    }
    qsort(k, (size_t)n, sizeof *k, cmp_keyed);
    int ng = 0;
    for (int i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && same_group(&k[i], &k[j]); j++)
            ;
        fill(&g[ng++], k + i, j - i, rg, wall, mem + i);
    }
    double all = 0;
    for (int i = 0; i < ng; i++)
        all += g[i].total_ms.v;
    for (int i = 0; i < ng; i++)
        if (all > 0)
            metric_set(&g[i].share_pct, 100.0 * g[i].total_ms.v / all);
        else
            metric_na(&g[i].share_pct, "no range has a length");
    qsort(g, (size_t)ng, sizeof *g, cmp_total_desc);
    for (int i = 0; group_of && i < ng; i++)
        for (int j = 0; j < g[i].count; j++)
            group_of[g[i].members[j]] = i;
    free(k);
    free(wall);
    *out = g;
    *nout = ng;
    *members = mem;
    return true;
}

void range_groups_count_listed(range_group *g, int ng, const int *group_of, const int *listed, int nlisted)
{
    for (int i = 0; i < ng; i++)
        g[i].listed = 0;
    for (int li = 0; group_of && li < nlisted; li++)
        if (group_of[listed[li]] >= 0 && group_of[listed[li]] < ng)
            g[group_of[listed[li]]].listed++;
}

void range_instance_label(const run_model *m, const range_group *g, int region, char *buf, size_t len)
{
    const char *name = m->regions[region].name ? m->regions[region].name : "";
    if (strcmp(name, g->name) != 0) {
        snprintf(buf, len, "%s", name);
        return;
    }
    int at = 0;
    while (at < g->count && g->members[at] != region)
        at++;
    snprintf(buf, len, "#%d", at + 1);
}

const range_group *range_group_shown(const analysis *a, int region, int *gi)
{
    int g = a->group_of && region >= 0 && region < a->m->nregions ? a->group_of[region] : -1;
    if (g < 0 || g >= a->ngroups || !RANGE_GROUP_SHOWN(&a->groups[g]))
        return NULL;
    if (gi)
        *gi = g;
    return &a->groups[g];
}

bool range_group_first_listed(const analysis *a, int li)
{
    const range_group *g = range_group_shown(a, a->listed[li], NULL);
    for (int lj = 0; g && lj < li; lj++)
        if (range_group_shown(a, a->listed[lj], NULL) == g)
            return false;
    return g != NULL;
}
