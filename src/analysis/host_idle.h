/* What the host did while the GPU waited, and where each kernel was launched from: the host
 * activity's part of the analysis (analysis.host), computed once from run_model.host_activity
 * (host_where.h, call_sites.h):
 * - per listed idle stretch of analysis.idle_gaps, a view per source (Python wall-clock samples,
 *   CPU samples, recorded CPU spans) of everything in the stretch;
 * - per listed region, the same over its "host busy outside CUDA" idle time only (the instants
 *   when no GPU ran anything and no CUDA call was in progress: idle_causes.h's IDLE_HOST_BUSY),
 *   so the idle breakdown's host-busy share says which functions it was;
 * - the call sites per kernel, copy, memset or call (call_sites.h).
 * NULL (analysis.host) where the run carries no host activity at all (a built-in run, an import
 * without CPU events), so no output says anything about it. */
#ifndef MMPROF_HOST_IDLE_H
#define MMPROF_HOST_IDLE_H

#include "call_sites.h"
#include "host_where.h"
#include "idle_causes.h"

struct analysis;

/* How the host was seen (host_activity's sampler and its own counts, host_collect_stats): the
 * figures of the "Host" line and of the JSON's host_sampling (host_collection_table). */
typedef struct {
    metric py_samples;   /* Python wall-clock samples */
    metric cpu_samples;  /* CPU-time samples */
    metric rate_hz;      /* the sampling rate asked */
    metric sites;        /* calls with a call site in the run */
    metric sites_skipped;/* calls left without one in a callback, to hold the cost of taking them */
    metric sites_off_ms; /* time the sites' callbacks were off for it (calls then not seen) */
    metric sites_pct;    /* the GPU work launched by a call with a site, over all of it */
    metric nogil_pct;    /* Python looks made without the GIL */
    metric left_out;     /* thread samples not written: a code object not named yet */
    metric torn;         /* thread samples not written: torn reads */
} host_collection;

typedef struct host_analysis {
    host_collection collection;
    host_view *gaps;       /* HOST_NFROM per analysis.idle_gaps entry: gaps[i * HOST_NFROM + from] */
    int ngaps;
    host_view *regions;    /* HOST_NFROM per listed region (analysis.listed): its host-busy idle time */
    int nregions;
    call_site_row *sites;  /* most calls first */
    int nsites;
    site_lines *lines;     /* the user's line of each call site (site_line.h): the call-site table's,
                            * and the outputs' that name a launch's line (a timeline's hover, the
                            * trace's launched_from), so that all say the same */
    char none[256];        /* host_none_words of the run: why a window has no view */
    bool sampled;          /* the run has samples or spans, or says why not: the views are worth
                            * showing (a run with call sites alone has nothing to say in them) */
} host_analysis;

/* Whether the run carries host activity (samples, spans, call sites, or the sampler's word). */
bool host_activity_present(const host_activity *h);

/* Whether call sites were left out to hold their cost (the library skipped calls, or turned the
 * sites' callbacks off for a while): their shares are then of a sample of the calls. */
bool host_sites_held(const host_collection *c);

/* Listed region li's host-busy views (analysis.host.regions) where it has host-busy idle time
 * and a view with something to say of it, else NULL: what the outputs' "by region" sections
 * show (the run, li 0, is in the idle breakdown). */
const host_view *host_region_busy_views(const struct analysis *a, int li);

/* analysis.host, after the regions, their listing and the idle stretches (causes: the run's, as
 * they had); false only when memory ran out (a->host stays NULL where the run has no host
 * activity). */
bool host_analyze(struct analysis *a, const host_causes *causes);
void host_analysis_free(host_analysis *h);

/* w's host words (idle_causes.h) over [start, end): the headline view's, else why there is none.
 * Leaves w as it is where the run carries no host activity. False only when memory ran out. */
bool host_explain(const host_where_index *x, const host_activity *h, int64_t start, int64_t end,
                  idle_explained *w);

#endif
