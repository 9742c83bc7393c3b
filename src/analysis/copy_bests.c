/* The fastest copies of a built-in run (analysis.h, copy_bests): per direction the fastest of any
 * workload, the fastest with pinned and with pageable host memory and how much faster pinned ran,
 * and each workload's bandwidth as a share of the fastest. Renderers show these beside the copy
 * chart; computing them here keeps one definition for every output. */
#include "analysis.h"

/* The fastest copy bandwidth of one direction: overall, per host-memory kind, and pinned over
 * pageable. */
typedef struct {
    metric *best, *pinned, *pageable, *x;
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
    metric_ratio(d->x, d->pinned, d->pageable, 1.0);
}

void copy_bests(analysis *a)
{
    direction h2d = {&a->best_h2d_gbps, &a->best_h2d_pinned_gbps, &a->best_h2d_pageable_gbps, &a->pinned_h2d_x};
    direction d2h = {&a->best_d2h_gbps, &a->best_d2h_pinned_gbps, &a->best_d2h_pageable_gbps, &a->pinned_d2h_x};
    fastest(a, &h2d, offsetof(workload_metrics, h2d_gbps), "host-to-device");
    fastest(a, &d2h, offsetof(workload_metrics, d2h_gbps), "device-to-host");
    for (int i = 0; i < a->nwl; i++) {
        workload_metrics *r = &a->wl[i];
        metric_ratio(&r->h2d_fastest_pct, &r->h2d_gbps, &a->best_h2d_gbps, 100.0);
        metric_ratio(&r->d2h_fastest_pct, &r->d2h_gbps, &a->best_d2h_gbps, 100.0);
    }
}
