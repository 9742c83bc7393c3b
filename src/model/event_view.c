/* See event_view.h. */
#include "event_view.h"

#include <stdlib.h>

/* For one event type: counts per region, then one allocation per region's list, then the fill. */
#define VIEW_OF(type, arr, count, field, nfield)                                                  \
    do {                                                                                          \
        for (size_t i_ = 0; i_ < (count); i_++) {                                                 \
            int g_ = (arr)[i_].region;                                                            \
            if (g_ >= 0 && g_ < n && m->regions[g_].kind == kind)                                 \
                v[g_].nfield++;                                                                   \
        }                                                                                         \
        for (int g_ = 0; g_ < n && ok; g_++) {                                                    \
            if (v[g_].nfield && !(v[g_].field = malloc(v[g_].nfield * sizeof *v[g_].field)))     \
                ok = false;                                                                       \
            v[g_].nfield = 0;                                                                     \
        }                                                                                         \
        for (size_t i_ = 0; ok && i_ < (count); i_++) {                                           \
            int g_ = (arr)[i_].region;                                                            \
            if (g_ >= 0 && g_ < n && v[g_].field)                                                 \
                v[g_].field[v[g_].nfield++] = (const type *)&(arr)[i_];                           \
        }                                                                                         \
    } while (0)

/* Views into v (zeroed) of the regions in [0, n) of that kind; the others stay empty. */
static bool fill_views(const run_model *m, event_view *v, int n, region_kind kind)
{
    bool ok = true;
    const event_list *e = &m->events;
    VIEW_OF(kernel_event, e->kernels, e->nkernels, kernels, nkernels);
    VIEW_OF(copy_event, e->copies, e->ncopies, copies, ncopies);
    VIEW_OF(memset_event, e->memsets, e->nmemsets, memsets, nmemsets);
    VIEW_OF(api_event, e->apis, e->napis, apis, napis);
    VIEW_OF(sync_event, e->syncs, e->nsyncs, syncs, nsyncs);
    return ok;
}

event_view *event_views(const run_model *m, region_kind kind)
{
    int n = m->nregions;
    if (n <= 0)
        return NULL;
    event_view *v = calloc((size_t)n, sizeof *v);
    if (!v)
        return NULL;
    if (!fill_views(m, v, n, kind)) {
        event_views_free(v, n);
        return NULL;
    }
    return v;
}

void event_views_free(event_view *v, int n)
{
    if (!v)
        return;
    for (int i = 0; i < n; i++) {
        free(v[i].kernels);
        free(v[i].copies);
        free(v[i].memsets);
        free(v[i].apis);
        free(v[i].syncs);
    }
    free(v);
}
