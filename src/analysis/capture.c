/* Capture windows' figures. See capture.h. */
#include "capture.h"

#include <stdlib.h>

static void ms_or_na(metric *out, int64_t ns, const char *why)
{
    if (ns >= 0)
        metric_set(out, (double)ns / 1e6);
    else
        metric_na(out, "%s", why);
}

static void count_or_na(metric *out, int64_t n)
{
    if (n >= 0)
        metric_set(out, (double)n);
    else
        metric_na(out, "not counted: the process never initialised CUDA, or ended without its exit handler");
}

bool analyze_capture(const run_model *m, const region_metrics *rg, capture_metrics **out, int *n)
{
    *out = NULL;
    *n = 0;
    const capture_info *c = &m->capture;
    if (c->nwindows == 0)
        return true;
    capture_metrics *r = calloc((size_t)c->nwindows, sizeof *r);
    if (!r)
        return false;
    for (int i = 0; i < c->nwindows; i++) {
        const capture_window *w = &c->windows[i];
        capture_metrics *x = &r[i];
        x->window = i;
        metric_set(&x->wall_ms, (double)(w->end_ns - w->start_ns) / 1e6);
        if (w->region > 0 && w->region < m->nregions)
            metric_set(&x->kernels, rg[w->region].nkernels);
        else
            metric_na(&x->kernels, "the window has no region");
        ms_or_na(&x->before_ms, w->before_ns, "the process's start was not recorded");
        ms_or_na(&x->after_ms, w->after_ns, "the process's end was not recorded");
        count_or_na(&x->calls_before, w->calls_before);
        count_or_na(&x->calls_after, w->calls_after);
    }
    *out = r;
    *n = c->nwindows;
    return true;
}
