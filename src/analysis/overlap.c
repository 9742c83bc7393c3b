/* Copy/compute overlap and streams: see overlap.h. */
#include "overlap.h"

#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "array_grow.h"
#include "key_sort.h"
#include "spill.h"

typedef struct {
    uint32_t device;
    interval *kernels; /* merged: disjoint, by start */
    size_t nkernels;
    interval *copies;
    size_t ncopies;
} device_activity;

struct gpu_activity {
    device_activity *dev;
    int ndev;
};

static device_activity *device_of(gpu_activity *g, uint32_t device)
{
    for (int i = 0; i < g->ndev; i++)
        if (g->dev[i].device == device)
            return &g->dev[i];
    device_activity *grown = realloc(g->dev, (size_t)(g->ndev + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    g->dev = grown;
    device_activity *d = &g->dev[g->ndev++];
    memset(d, 0, sizeof *d);
    d->device = device;
    return d;
}

static const device_activity *find_device(const gpu_activity *g, uint32_t device)
{
    for (int i = 0; g && i < g->ndev; i++)
        if (g->dev[i].device == device)
            return &g->dev[i];
    return NULL;
}

static bool push(interval **v, size_t *n, int64_t s, int64_t e)
{
    SPILL_APPEND(*v, *n, ((interval){s, e})); /* as long as a GPU's work: spill.h's */
    return true;
}

gpu_activity *gpu_activity_build(const run_model *m)
{
    gpu_activity *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    const event_list *e = &m->events;
    bool ok = true;
    for (size_t i = 0; ok && i < e->nkernels; i++) {
        device_activity *d = device_of(g, e->kernels[i].device);
        ok = d && push(&d->kernels, &d->nkernels, e->kernels[i].start_ns, e->kernels[i].end_ns);
    }
    for (size_t i = 0; ok && i < e->ncopies; i++) {
        device_activity *d = device_of(g, e->copies[i].device);
        ok = d && push(&d->copies, &d->ncopies, e->copies[i].start_ns, e->copies[i].end_ns);
    }
    if (!ok) {
        gpu_activity_free(g);
        return NULL;
    }
    for (int i = 0; i < g->ndev; i++) {
        g->dev[i].nkernels = interval_merge(g->dev[i].kernels, g->dev[i].nkernels);
        g->dev[i].ncopies = interval_merge(g->dev[i].copies, g->dev[i].ncopies);
    }
    return g;
}

void gpu_activity_free(gpu_activity *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->ndev; i++) {
        spill_free(g->dev[i].kernels); /* as long as the run's GPU work: spill.h's */
        spill_free(g->dev[i].copies);
    }
    free(g->dev);
    free(g);
}

/* The part of [s, e) covered by merged intervals v. */
static int64_t covered(const interval *v, size_t n, int64_t s, int64_t e)
{
    size_t lo = 0, hi = n; /* the first interval ending after s */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].end <= s)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t t = 0;
    for (size_t i = lo; i < n && v[i].start < e; i++) {
        int64_t a = v[i].start > s ? v[i].start : s, b = v[i].end < e ? v[i].end : e;
        if (b > a)
            t += b - a;
    }
    return t;
}

int64_t hidden_under_kernels(const gpu_activity *g, uint32_t device, int64_t start, int64_t end)
{
    const device_activity *d = find_device(g, device);
    return d ? covered(d->kernels, d->nkernels, start, end) : 0;
}

int64_t hidden_under_copies(const gpu_activity *g, uint32_t device, int64_t start, int64_t end)
{
    const device_activity *d = find_device(g, device);
    return d ? covered(d->copies, d->ncopies, start, end) : 0;
}

/* Streams. */

typedef enum { ITEM_KERNEL, ITEM_COPY, ITEM_MEMSET } item_type;

typedef struct {
    uint32_t device, stream;
    int64_t start, end;
    item_type type;
} stream_item;

/* A stream's busy stretch opening or closing, for the sweep over one device. */
typedef struct {
    int64_t t;
    int stream; /* index into the output */
    int delta;  /* +1 opens, -1 closes */
} edge;

/* overlap_ms of the streams [first, last) of one device, whose merged busy stretches are in
 * busy[first..last): a sweep over their edges, adding each stretch of time two or more streams
 * were busy to every stream busy then. */
static bool stream_overlaps(stream_metrics *s, int first, int last, interval **busy, const size_t *nbusy)
{
    size_t n = 0;
    for (int i = first; i < last; i++)
        n += 2 * nbusy[i];
    edge *ev = spill_alloc((n ? n : 1) * sizeof *ev); /* as long as the streams' work: spill.h's */
    int *active = malloc((size_t)(last - first) * sizeof *active);
    int *where = malloc((size_t)(last - first) * sizeof *where);
    int64_t *both = calloc((size_t)(last - first), sizeof *both);
    if (!ev || !active || !where || !both) {
        spill_free(ev);
        free(active);
        free(where);
        free(both);
        return false;
    }
    size_t k = 0;
    for (int i = first; i < last; i++)
        for (size_t j = 0; j < nbusy[i]; j++) {
            ev[k++] = (edge){busy[i][j].start, i - first, +1};
            ev[k++] = (edge){busy[i][j].end, i - first, -1};
        }
    /* By time, closes (-1) first: touching stretches do not overlap (key_sort.h; qsort would copy
     * the array) */
    const sort_field by[] = {SORT_FIELD(edge, t, FIELD_I64), SORT_FIELD(edge, delta, FIELD_INT)};
    if (!key_sort_fields(ev, n, sizeof *ev, by, 2)) {
        spill_free(ev);
        free(active);
        free(where);
        free(both);
        return false;
    }
    int nactive = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && nactive >= 2 && ev[i].t > ev[i - 1].t)
            for (int a = 0; a < nactive; a++)
                both[active[a]] += ev[i].t - ev[i - 1].t;
        int st = ev[i].stream;
        if (ev[i].delta > 0) {
            where[st] = nactive;
            active[nactive++] = st;
        } else {
            int at = where[st];
            active[at] = active[--nactive];
            where[active[at]] = at;
        }
    }
    for (int i = first; i < last; i++) {
        metric_set(&s[i].overlap_ms, (double)both[i - first] / 1e6);
        metric_ratio(&s[i].overlap_pct, &s[i].overlap_ms, &s[i].busy_ms, 100.0);
    }
    spill_free(ev);
    free(active);
    free(where);
    free(both);
    return true;
}

bool analyze_streams(const run_model *m, stream_metrics **out, int *nout)
{
    *out = NULL;
    *nout = 0;
    const event_list *e = &m->events;
    size_t n = e->nkernels + e->ncopies + e->nmemsets;
    if (n == 0)
        return true;
    stream_item *it = spill_alloc(n * sizeof *it); /* as long as the run's GPU work: spill.h's */
    gpu_activity *act = gpu_activity_build(m);
    if (!it || !act) {
        spill_free(it);
        gpu_activity_free(act);
        return false;
    }
    size_t k = 0;
    for (size_t i = 0; i < e->nkernels; i++) {
        const kernel_event *x = &e->kernels[i];
        it[k++] = (stream_item){x->device, x->stream, x->start_ns, x->end_ns, ITEM_KERNEL};
    }
    for (size_t i = 0; i < e->ncopies; i++) {
        const copy_event *x = &e->copies[i];
        it[k++] = (stream_item){x->device, x->stream, x->start_ns, x->end_ns, ITEM_COPY};
    }
    for (size_t i = 0; i < e->nmemsets; i++) {
        const memset_event *x = &e->memsets[i];
        it[k++] = (stream_item){x->device, x->stream, x->start_ns, x->end_ns, ITEM_MEMSET};
    }
    /* By device, stream and start (key_sort.h; qsort would copy the array) */
    const sort_field by[] = {SORT_FIELD(stream_item, device, FIELD_U32), SORT_FIELD(stream_item, stream, FIELD_U32),
                             SORT_FIELD(stream_item, start, FIELD_I64)};
    if (!key_sort_fields(it, n, sizeof *it, by, 3)) {
        spill_free(it);
        gpu_activity_free(act);
        return false;
    }
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        lo = it[i].start < lo ? it[i].start : lo;
        hi = it[i].end > hi ? it[i].end : hi;
    }
    if (m->nregions > 0 && m->regions[0].end_ns > m->regions[0].start_ns) {
        lo = m->regions[0].start_ns < lo ? m->regions[0].start_ns : lo;
        hi = m->regions[0].end_ns > hi ? m->regions[0].end_ns : hi;
    }
    int ns = 0;
    for (size_t i = 0; i < n; i++)
        ns += i == 0 || it[i].device != it[i - 1].device || it[i].stream != it[i - 1].stream;
    stream_metrics *s = calloc((size_t)ns, sizeof *s);
    interval **busy = calloc((size_t)ns, sizeof *busy);
    size_t *nbusy = calloc((size_t)ns, sizeof *nbusy);
    bool ok = s && busy && nbusy;
    int si = -1;
    for (size_t i = 0, j; ok && i < n; i = j) {
        si++;
        stream_metrics *r = &s[si];
        r->device = it[i].device;
        r->stream = it[i].stream;
        double kernel = 0, copy = 0, set = 0, hidden = 0;
        for (j = i; j < n && it[j].device == r->device && it[j].stream == r->stream; j++) {
            int64_t d = it[j].end - it[j].start;
            if (it[j].type == ITEM_KERNEL) {
                r->nkernels++;
                kernel += (double)d;
            } else if (it[j].type == ITEM_COPY) {
                r->ncopies++;
                copy += (double)d;
                hidden += (double)hidden_under_kernels(act, r->device, it[j].start, it[j].end);
            } else {
                r->nmemsets++;
                set += (double)d;
            }
        }
        busy[si] = spill_alloc((j - i) * sizeof **busy);
        if (!busy[si]) {
            ok = false;
            break;
        }
        for (size_t q = i; q < j; q++)
            busy[si][q - i] = (interval){it[q].start, it[q].end};
        nbusy[si] = interval_merge(busy[si], j - i);
        int64_t b = 0;
        for (size_t q = 0; q < nbusy[si]; q++)
            b += busy[si][q].end - busy[si][q].start;
        metric_set(&r->kernel_ms, kernel / 1e6);
        metric_set(&r->copy_ms, copy / 1e6);
        metric_set(&r->memset_ms, set / 1e6);
        metric_set(&r->busy_ms, (double)b / 1e6);
        if (hi > lo)
            metric_set(&r->busy_pct, 100.0 * (double)b / (double)(hi - lo));
        else
            metric_na(&r->busy_pct, "the run has no length");
        if (copy > 0)
            metric_set(&r->copy_hidden_pct, 100.0 * hidden / copy);
        else
            metric_na(&r->copy_hidden_pct, "%s", r->ncopies ? "its copies took no measurable time" : "no copies on this stream");
    }
    for (int first = 0, last; ok && first < ns; first = last) {
        for (last = first + 1; last < ns && s[last].device == s[first].device; last++)
            ;
        ok = stream_overlaps(s, first, last, busy, nbusy);
    }
    for (int i = 0; busy && i < ns; i++)
        spill_free(busy[i]);
    free(busy);
    free(nbusy);
    spill_free(it);
    gpu_activity_free(act);
    if (!ok) {
        free(s);
        return false;
    }
    *out = s;
    *nout = ns;
    return true;
}
