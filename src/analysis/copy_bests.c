/* The fastest copies of a built-in run (analysis.h, copy_bests): per direction the fastest of any
 * workload and the fastest with pinned and with pageable host memory, and each workload's
 * bandwidth as a share of the fastest; and pinned against pageable as every output compares them:
 * the medians over the summary's GPU runs and how much faster pinned ran. Renderers show these
 * beside the copy chart and in the summary; computing them here keeps one definition for every
 * output. */
#include <stddef.h>
#include <stdlib.h>

#include "analysis.h"
#include "source.h"

/* The fastest copy bandwidth of one direction: overall and per host-memory kind. */
typedef struct {
    metric *best, *pinned, *pageable;
} direction;

static void widen(metric *best, const metric *g)
{
    if (g->ok && (!best->ok || g->v > best->v))
        metric_set(best, g->v);
}

static void fastest(const analysis *a, const direction *d, size_t gbps_offset, const char *dir)
{
    metric_na(d->best, "no %s copies", dir);
    metric_na(d->pinned, "no %s copies from pinned host memory", dir);
    metric_na(d->pageable, "no %s copies from pageable host memory", dir);
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        const metric *g = (const metric *)((const char *)r + gbps_offset);
        widen(d->best, g);
        if (r->w->host_memory == MEM_PINNED)
            widen(d->pinned, g);
        else if (r->w->host_memory == MEM_PAGEABLE)
            widen(d->pageable, g);
    }
}

/* The median of one figure (at offset) over the summary's GPU runs with host memory mem; n/a
 * with the reason where none has it. Returns how many runs had it. */
static int kind_median(const analysis *a, mem_kind mem, size_t offset, metric *out, const char *what)
{
    double *v = malloc((size_t)(a->nwl ? a->nwl : 1) * sizeof *v);
    int n = 0;
    for (int i = 0; v && i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        const metric *m = (const metric *)((const char *)r + offset);
        if (summary_workload(a, r) && r->w->host_memory == mem && m->ok)
            v[n++] = m->v;
    }
    if (n > 0)
        metric_set(out, median_of(v, n));
    else
        metric_na(out, "no GPU run with %s host memory has %s", mem == MEM_PINNED ? "pinned" : "pageable", what);
    free(v);
    return n;
}

/* Pinned against pageable, once for every output: medians of each kind, and their ratios. */
static void pinned_vs_pageable(analysis *a)
{
    a->pinned_runs = kind_median(a, MEM_PINNED, offsetof(workload_metrics, copy_ms), &a->med_copy_pinned_ms, "copies");
    a->pageable_runs =
        kind_median(a, MEM_PAGEABLE, offsetof(workload_metrics, copy_ms), &a->med_copy_pageable_ms, "copies");
    kind_median(a, MEM_PINNED, offsetof(workload_metrics, h2d_gbps), &a->med_h2d_pinned_gbps, "host-to-device copies");
    kind_median(a, MEM_PAGEABLE, offsetof(workload_metrics, h2d_gbps), &a->med_h2d_pageable_gbps,
              "host-to-device copies");
    kind_median(a, MEM_PINNED, offsetof(workload_metrics, d2h_gbps), &a->med_d2h_pinned_gbps, "device-to-host copies");
    kind_median(a, MEM_PAGEABLE, offsetof(workload_metrics, d2h_gbps), &a->med_d2h_pageable_gbps,
              "device-to-host copies");
    metric_ratio(&a->pinned_h2d_x, &a->med_h2d_pinned_gbps, &a->med_h2d_pageable_gbps, 1.0);
    metric_ratio(&a->pinned_d2h_x, &a->med_d2h_pinned_gbps, &a->med_d2h_pageable_gbps, 1.0);
    metric_ratio(&a->pinned_copy_x, &a->med_copy_pageable_ms, &a->med_copy_pinned_ms, 1.0);
}

/* A run of a source without the built-in workloads has none of these: n/a with its source's reason,
 * not "no copies" (a trace may hold thousands; these are figures of workloads). */
static void no_workloads(analysis *a, const char *why)
{
    metric *const all[] = {&a->best_h2d_gbps, &a->best_h2d_pinned_gbps, &a->best_h2d_pageable_gbps, &a->best_d2h_gbps,
                           &a->best_d2h_pinned_gbps, &a->best_d2h_pageable_gbps, &a->med_h2d_pinned_gbps,
                           &a->med_h2d_pageable_gbps, &a->med_d2h_pinned_gbps, &a->med_d2h_pageable_gbps,
                           &a->pinned_h2d_x, &a->pinned_d2h_x, &a->med_copy_pinned_ms, &a->med_copy_pageable_ms,
                           &a->pinned_copy_x};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        metric_na(all[i], "%s", why);
    a->pinned_runs = a->pageable_runs = 0;
}

void copy_bests(analysis *a)
{
    const char *why = source_why_not(a->m->source, HAS_WORKLOADS);
    if (why) {
        no_workloads(a, why);
        return;
    }
    direction h2d = {&a->best_h2d_gbps, &a->best_h2d_pinned_gbps, &a->best_h2d_pageable_gbps};
    direction d2h = {&a->best_d2h_gbps, &a->best_d2h_pinned_gbps, &a->best_d2h_pageable_gbps};
    pinned_vs_pageable(a);
    fastest(a, &h2d, offsetof(workload_metrics, h2d_gbps), "host-to-device");
    fastest(a, &d2h, offsetof(workload_metrics, d2h_gbps), "device-to-host");
    for (int i = 0; i < a->nwl; i++) {
        workload_metrics *r = &a->wl[i];
        metric_ratio(&r->h2d_fastest_pct, &r->h2d_gbps, &a->best_h2d_gbps, 100.0);
        metric_ratio(&r->d2h_fastest_pct, &r->d2h_gbps, &a->best_d2h_gbps, 100.0);
    }
}
