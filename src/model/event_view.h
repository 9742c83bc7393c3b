/* The events one region owns (event_owner in model.h), as pointers into the run's event store:
 * a built-in workload's kernels, copies, ... without copying them. The views of a kind of region are
 * made in one pass over the store, so the whole set costs O(events + regions). */
#ifndef MMPROF_EVENT_VIEW_H
#define MMPROF_EVENT_VIEW_H

#include "model.h"

typedef struct event_view_s {
    const kernel_event **kernels;
    size_t nkernels;
    const copy_event **copies;
    size_t ncopies;
    const memset_event **memsets;
    size_t nmemsets;
    const api_event **apis;
    size_t napis;
    const sync_event **syncs;
    size_t nsyncs;
} event_view;

/* One view per region of m (m->nregions of them, in region order): a region of the kind asked
 * lists the events whose region is that one, in store order; the others are empty (a profile's
 * run region owns its millions of calls, and only the built-in workloads' views are read). NULL
 * when memory ran out (or m has no regions). The views point into m->events: valid while it is
 * not changed. */
event_view *event_views(const run_model *m, region_kind kind);
void event_views_free(event_view *v, int n);

#endif
