/* The host's part of the analysis: see host_idle.h. */
#include "host_idle.h"

#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "source.h"

bool host_activity_present(const host_activity *h)
{
    return h->nsamples > 0 || h->nspans > 0 || h->nsites > 0 || h->mechanism[0] || h->why_not[0];
}

static bool views_of(const host_where_index *x, int64_t start, int64_t end, host_keep_fn keep, const void *ctx,
                     host_view out[HOST_NFROM])
{
    for (int f = 0; f < HOST_NFROM; f++)
        if (!host_view_of(x, (host_from)f, start, end, f == HOST_FROM_SPANS ? NULL : keep, ctx, &out[f]))
            return false;
    return true;
}

bool host_explain(const host_where_index *x, const host_activity *h, int64_t start, int64_t end,
                  idle_explained *w)
{
    if (!host_activity_present(h) || end <= start)
        return true;
    host_view v[HOST_NFROM];
    if (!views_of(x, start, end, NULL, NULL, v))
        return false;
    const host_view *head = host_view_headline(v);
    w->host_seen = head != NULL;
    w->host_waited = head && host_view_waited(head);
    if (head)
        host_view_words(head, w->host, sizeof w->host);
    else
        host_none_words(h, w->host, sizeof w->host);
    return true;
}

/* The instants of a region's idle time that the breakdown calls host busy: no GPU work on any
 * device (the run's merged intervals) and no CUDA call in progress. */
typedef struct {
    const interval *busy;
    size_t nbusy;
    const host_causes *causes;
} busy_ctx;

static bool host_busy_idle(const void *p, int64_t t)
{
    const busy_ctx *c = p;
    size_t lo = 0, hi = c->nbusy; /* the first interval ending after t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->busy[mid].end <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < c->nbusy && c->busy[lo].start <= t)
        return false;
    return host_causes_at(c->causes, t) == IDLE_HOST_BUSY;
}

static interval *gpu_busy(const run_model *m, size_t *n)
{
    const event_list *s = &m->events;
    size_t k = 0, cap = s->nkernels + s->ncopies + s->nmemsets;
    interval *iv = malloc((cap ? cap : 1) * sizeof *iv);
    if (!iv)
        return NULL;
    for (size_t i = 0; i < s->nkernels; i++)
        iv[k++] = (interval){s->kernels[i].start_ns, s->kernels[i].end_ns};
    for (size_t i = 0; i < s->ncopies; i++)
        iv[k++] = (interval){s->copies[i].start_ns, s->copies[i].end_ns};
    for (size_t i = 0; i < s->nmemsets; i++)
        iv[k++] = (interval){s->memsets[i].start_ns, s->memsets[i].end_ns};
    *n = interval_merge(iv, k);
    return iv;
}

static bool region_views(const analysis *a, const host_causes *causes, const host_where_index *x, host_analysis *h)
{
    if (a->nlisted == 0)
        return true;
    size_t nbusy = 0;
    interval *busy = gpu_busy(a->m, &nbusy);
    h->regions = calloc((size_t)a->nlisted * HOST_NFROM, sizeof *h->regions);
    bool ok = busy && h->regions;
    busy_ctx ctx = {busy, nbusy, causes};
    for (int li = 0; ok && li < a->nlisted; li++) {
        const region *r = &a->m->regions[a->rg[a->listed[li]].region];
        host_view *v = &h->regions[li * HOST_NFROM];
        ok = views_of(x, r->start_ns, r->end_ns, host_busy_idle, &ctx, v);
        /* Spans are not split by cause (their time is weighed, not their instants): a region's
         * host-busy view is from samples alone. */
        host_view_of(x, HOST_FROM_SPANS, 0, 0, NULL, NULL, &v[HOST_FROM_SPANS]);
        metric_na(&v[HOST_FROM_SPANS].ms, "CPU spans are not split by idle cause");
        h->nregions = li + 1;
    }
    free(busy);
    return ok;
}

/* How the host was seen. A source that cannot have mmprof's sampler and call sites (source.h)
 * gives its own reason for what they count; a run of one that can says why they are missing. */
static void collection_of(const host_activity *ha, run_source source, host_collection *c)
{
    size_t py = 0;
    for (size_t i = 0; i < ha->nsamples; i++)
        py += ha->samples[i].source == HOST_SAMPLE_PY;
    const char *cannot = source_why_not(source, HAS_HOST_SAMPLES);
    const char *off = cannot ? cannot : ha->why_not[0] ? ha->why_not : "no sampler ran";
    if (ha->nsamples > 0 || ha->rate_hz > 0) {
        metric_set(&c->py_samples, (double)py);
        metric_set(&c->cpu_samples, (double)(ha->nsamples - py));
        metric_set(&c->rate_hz, ha->rate_hz);
    } else {
        metric_na(&c->py_samples, "%.80s", off);
        metric_na(&c->cpu_samples, "%.80s", off);
        metric_na(&c->rate_hz, "%.80s", off);
    }
    metric_set(&c->sites, (double)ha->nsites);
    const host_collect_stats *st = &ha->stats;
    if (st->has_sites) {
        metric_set(&c->sites_skipped, (double)st->sites_skipped);
        metric_set(&c->sites_off_ms, (double)st->sites_off_ns / 1e6);
    } else {
        metric_na(&c->sites_skipped, "%s", cannot ? cannot : "not counted: no sitestat line (a process that ended "
                                                             "without its exit handler)");
        metric_na(&c->sites_off_ms, "%s", metric_why(&c->sites_skipped));
    }
    if (st->has_looks) {
        uint64_t looks = st->looks_nogil + st->looks_gil;
        metric_set(&c->nogil_pct, 100.0 * (double)st->looks_nogil / (double)(looks ? looks : 1));
        metric_set(&c->left_out, (double)st->samples_left_out);
        metric_set(&c->torn, (double)st->samples_torn);
    } else {
        metric_na(&c->nogil_pct, "%s", cannot ? cannot : "no Python look counted (not a Python program, or sampling off)");
        metric_na(&c->left_out, "%s", metric_why(&c->nogil_pct));
        metric_na(&c->torn, "%s", metric_why(&c->nogil_pct));
    }
}

bool host_analyze(analysis *a, const host_causes *causes)
{
    const host_activity *ha = &a->m->host_activity;
    host_names_wait(ha);
    if (!host_activity_present(ha))
        return true;
    host_analysis *h = calloc(1, sizeof *h);
    host_where_index *x = host_where_build(ha);
    bool ok = h && x;
    if (ok) {
        a->host = h;
        host_none_words(ha, h->none, sizeof h->none);
        collection_of(ha, a->m->source, &h->collection);
        h->sampled = ha->nsamples > 0 || ha->nspans > 0 || ha->mechanism[0] || ha->why_not[0];
        h->gaps = calloc((size_t)(a->nidle_gaps ? a->nidle_gaps : 1) * HOST_NFROM, sizeof *h->gaps);
        ok = h->gaps != NULL;
        for (int i = 0; ok && i < a->nidle_gaps; i++) {
            ok = views_of(x, a->idle_gaps[i].start_ns, a->idle_gaps[i].end_ns, NULL, NULL, &h->gaps[i * HOST_NFROM]);
            h->ngaps = i + 1;
        }
        size_t work = 0, sited = 0;
        ok = ok && region_views(a, causes, x, h) && (h->lines = site_lines_build(a->m)) != NULL &&
             call_sites_analyze(a->m, h->lines, &h->sites, &h->nsites, &work, &sited);
        if (ok && ha->nsites == 0)
            metric_na(&h->collection.sites_pct, "no call site was taken");
        else if (ok && work == 0)
            metric_na(&h->collection.sites_pct, "the run has no GPU work");
        else if (ok)
            metric_set(&h->collection.sites_pct, 100.0 * (double)sited / (double)work);
    } else {
        free(h);
    }
    host_where_index_free(x);
    return ok;
}

bool host_sites_held(const host_collection *c)
{
    return (c->sites_skipped.ok && c->sites_skipped.v > 0) || (c->sites_off_ms.ok && c->sites_off_ms.v > 0);
}

const host_view *host_region_busy_views(const analysis *a, int li)
{
    if (!a->host || !a->host->sampled || li < 1 || li >= a->host->nregions || li >= a->nlisted)
        return NULL;
    const idle_share *busy = &a->rg[a->listed[li]].idle[IDLE_HOST_BUSY];
    const host_view *v = &a->host->regions[li * HOST_NFROM];
    return busy->ms.ok && busy->ms.v > 0 && host_view_headline(v) ? v : NULL;
}

void host_analysis_free(host_analysis *h)
{
    if (!h)
        return;
    free(h->gaps);
    free(h->regions);
    free(h->sites);
    site_lines_free(h->lines);
    free(h);
}
