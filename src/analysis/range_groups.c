/* NVTX ranges and annotations grouped by name: see range_groups.h. */
#include "range_groups.h"

#include "analysis.h"

#include <ctype.h>
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

/* One group's figures from its instances k[0..n). */
static void fill(range_group *g, const keyed *k, int n, const region_metrics *rg, double *wall)
{
    memset(g, 0, sizeof *g);
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

bool group_ranges(const run_model *m, const region_metrics *rg, range_group **out, int *nout)
{
    *out = NULL;
    *nout = 0;
    int n = 0;
    for (int i = 0; i < m->nregions; i++)
        n += m->regions[i].kind == REGION_NVTX || m->regions[i].kind == REGION_ANNOTATION;
    if (n == 0)
        return true;
    keyed *k = malloc((size_t)n * sizeof *k);
    double *wall = malloc((size_t)n * sizeof *wall);
    range_group *g = malloc((size_t)n * sizeof *g);
    if (!k || !wall || !g) {
        free(k);
        free(wall);
        free(g);
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
        fill(&g[ng++], k + i, j - i, rg, wall);
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
    free(k);
    free(wall);
    *out = g;
    *nout = ng;
    return true;
}
