/* See event_view.h. */
#include "event_view.h"

#include <stdlib.h>
#include <string.h>

/* For one event type: counts per region, then one allocation per region's list, then the fill. */
#define VIEW_OF(type, arr, count, field, nfield)                                                  \
    do {                                                                                          \
        for (size_t i_ = 0; i_ < (count); i_++) {                                                 \
            int g_ = (arr)[i_].region;                                                            \
            if (g_ >= 0 && g_ < n && want(m, g_, ctx))                                            \
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

/* Views into v (zeroed) of the regions in [0, n) that want() takes; the others stay empty. */
static bool fill_views(const run_model *m, event_view *v, int n, bool (*want)(const run_model *, int, const void *),
                       const void *ctx)
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

static bool of_kind(const run_model *m, int region, const void *kind)
{
    return m->regions[region].kind == *(const region_kind *)kind;
}

static bool the_one(const run_model *m, int region, const void *which)
{
    (void)m;
    return region == *(const int *)which;
}

event_view *event_views(const run_model *m, region_kind kind)
{
    int n = m->nregions;
    if (n <= 0)
        return NULL;
    event_view *v = calloc((size_t)n, sizeof *v);
    if (!v)
        return NULL;
    if (!fill_views(m, v, n, of_kind, &kind)) {
        event_views_free(v, n);
        return NULL;
    }
    return v;
}

bool event_view_of(const run_model *m, int region, event_view *v)
{
    memset(v, 0, sizeof *v);
    if (region < 0 || region >= m->nregions)
        return true;
    event_view *all = calloc((size_t)m->nregions, sizeof *all);
    bool ok = all && fill_views(m, all, m->nregions, the_one, &region);
    if (ok) {
        *v = all[region];
        memset(&all[region], 0, sizeof all[region]);
    }
    event_views_free(all, all ? m->nregions : 0);
    return ok;
}

void event_view_release(event_view *v)
{
    free(v->kernels);
    free(v->copies);
    free(v->memsets);
    free(v->apis);
    free(v->syncs);
    memset(v, 0, sizeof *v);
}

void event_views_free(event_view *v, int n)
{
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        event_view_release(&v[i]);
    free(v);
}
