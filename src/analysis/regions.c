/* Region analysis: see regions.h. One pass gathers every event of the store into flat lists with
 * their launching call resolved, sorted by the time that decides membership; each region then
 * takes the slice of its interval, so a trace with many regions costs O((events + regions) log
 * events) plus the events each region holds. */
#include "regions.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "array_grow.h"
#include "launch_index.h"
#include "stage_times.h"
#include "host_idle.h"
#include "key_sort.h"
#include "overlap.h"
#include "rank_select.h"
#include "source.h"
#include "spill.h"
#include "thresholds.h"


typedef enum { GPU_KERNEL, GPU_COPY, GPU_MEMSET } gpu_type;

/* A kernel, copy or memset with the call that launched it. */
typedef struct {
    gpu_type type;
    const void *ev;
    int64_t start, end;
    int64_t key;          /* launch time, or the event's start when no launching call was found */
    uint32_t pid, tid;    /* the launching thread (tid 0: unknown) */
    int owner;            /* the event's region (event_owner in model.h) */
    bool ranged;          /* its launching thread had a range of its own open at key */
    const api_event *launch;
} gpu_item;

/* An API call or synchronization on a host thread: its place in the store and two facts, the
 * rest (its span, process, thread and owner) read through the event: 4 bytes, not 48 (a long run
 * has millions). */
typedef struct {
    uint32_t at; /* HOST_INDEX bits: below the store's napis an API call, else the synchronization
                  * at - napis; HOST_LAUNCHES and HOST_RANGED above them */
} host_item;
_Static_assert(sizeof(host_item) == 4, "a host item is a 32-bit word");
#define HOST_LAUNCHES (UINT32_C(1) << 31) /* an API call that launched a kernel */
#define HOST_RANGED (UINT32_C(1) << 30)   /* its thread had a range of its own open at its start */
#define HOST_INDEX (HOST_RANGED - 1)
_Static_assert(REGIONS_HOST_CALLS_MAX == (size_t)HOST_INDEX + 1, "every call has an index");

typedef struct {
    const event_list *ev;      /* the store the host items index */
    gpu_item *gpu;
    size_t ngpu;
    const gpu_item **by_start; /* the same, by execution start: what ran during a span */
    int64_t longest;           /* the longest GPU event, to find those that began before a span */
    host_item *host;
    size_t nhost;
    uint32_t *sync_tid;        /* each synchronization's thread, from its API call (CUPTI's sync
                                * records carry none): a few, where calls are millions */
    const gpu_activity *act;   /* each GPU's merged kernel and copy intervals, for overlap */
    const host_causes *causes; /* what the host did at each instant (idle_causes.h) */
    const host_where_index *hosts; /* the host samples and spans, by time (host_where.h) */
    const host_activity *ha;
    int64_t unseen_until;      /* GPU activity before this is not known (unseen_until_of) */
} timeline;

/* What a host item reads through the store (idle_causes.h numbers the calls). */
static size_t host_index(const host_item *h) { return h->at & HOST_INDEX; }

static bool host_is_sync(const timeline *t, const host_item *h) { return host_index(h) >= t->ev->napis; }

static const api_event *host_api(const timeline *t, const host_item *h) { return host_call_api(t->ev, host_index(h)); }

static int64_t host_start(const timeline *t, const host_item *h) { return host_call_start(t->ev, host_index(h)); }

static int64_t host_end(const timeline *t, const host_item *h) { return host_call_end(t->ev, host_index(h)); }

static int64_t host_ns(const timeline *t, const host_item *h) { return host_end(t, h) - host_start(t, h); }

static uint32_t host_pid(const timeline *t, const host_item *h)
{
    const api_event *a = host_api(t, h);
    return a ? a->pid : host_call_sync(t->ev, host_index(h))->pid;
}

/* The region the collector gave it (a built-in workload's), as gpu_item.owner. */
static int host_owner(const timeline *t, const host_item *h)
{
    const api_event *a = host_api(t, h);
    return a ? a->region : host_call_sync(t->ev, host_index(h))->region;
}

static uint32_t host_tid(const timeline *t, const host_item *h)
{
    const api_event *a = host_api(t, h);
    return a ? a->thread : t->sync_tid[host_index(h) - t->ev->napis];
}

/* The NVTX ranges and annotations of one thread, by start, with the latest end so far: whether the
 * thread had a range of its own open at a time. */
typedef struct {
    uint32_t pid, tid;
    int64_t start, end, max_end;
} thread_range;

static int cmp_thread_range(const void *a, const void *b)
{
    const thread_range *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* Whether thread (pid, tid) had a range open at t; r sorted (cmp_thread_range), max_end filled. */
static bool thread_ranged(const thread_range *r, size_t n, uint32_t pid, uint32_t tid, int64_t t)
{
    if (tid == 0)
        return false;
    size_t lo = 0, hi = n; /* the last range of the thread starting at or before t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const thread_range *x = &r[mid];
        bool before = x->pid < pid || (x->pid == pid && (x->tid < tid || (x->tid == tid && x->start <= t)));
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && r[lo - 1].pid == pid && r[lo - 1].tid == tid && r[lo - 1].max_end >= t;
}

static thread_range *thread_ranges(const run_model *m, size_t *n)
{
    *n = 0;
    thread_range *r = malloc((size_t)(m->nregions > 0 ? m->nregions : 1) * sizeof *r);
    if (!r)
        return NULL;
    for (int i = 0; i < m->nregions; i++) {
        const region *g = &m->regions[i];
        if ((g->kind == REGION_NVTX || g->kind == REGION_ANNOTATION) && g->tid)
            r[(*n)++] = (thread_range){g->pid, g->tid, g->start_ns, g->end_ns, g->end_ns};
    }
    if (*n > 0)
        qsort(r, *n, sizeof *r, cmp_thread_range);
    for (size_t i = 1; i < *n; i++)
        if (r[i].pid == r[i - 1].pid && r[i].tid == r[i - 1].tid && r[i - 1].max_end > r[i].max_end)
            r[i].max_end = r[i - 1].max_end;
    return r;
}

static uint64_t by_start(const void *p, const void *ctx)
{
    (void)ctx;
    return key_of_i64((*(const gpu_item *const *)p)->start);
}

static uint64_t gpu_key(const void *g, const void *ctx)
{
    (void)ctx;
    return key_of_i64(((const gpu_item *)g)->key);
}

static void add_gpu(timeline *t, const launch_index *launches, gpu_type type, const void *ev, int64_t s,
                    int64_t e, uint32_t pid, uint32_t corr, int owner)
{
    gpu_item *g = &t->gpu[t->ngpu++];
    g->type = type;
    g->ev = ev;
    g->start = s;
    g->end = e;
    g->owner = owner;
    g->launch = launch_of(launches, pid, corr);
    g->key = g->launch ? g->launch->start_ns : s;
    g->pid = g->launch ? g->launch->pid : pid;
    g->tid = g->launch ? g->launch->thread : 0;
}

static void timeline_free(timeline *t)
{
    spill_free(t->gpu);
    spill_free(t->by_start);
    spill_free(t->host);
    spill_free(t->sync_tid);
}

/* Where recording began after the program's first CUDA calls (its first capture window has calls
 * before it), what the GPU ran before the first recorded GPU work is not known: work launched
 * before the window may still have been running (a loop that never waits runs far ahead of the
 * GPU: 124 ms on the H200's capture sample). That instant, or INT64_MIN where all was recorded:
 * timeline.unseen_until, found once with the timeline. */
static int64_t unseen_until_of(const run_model *m, const timeline *t)
{
    const capture_window *w = NULL;
    for (int i = 0; i < m->capture.nwindows; i++)
        if (!w || m->capture.windows[i].start_ns < w->start_ns)
            w = &m->capture.windows[i];
    if (!w || w->calls_before <= 0 || t->ngpu == 0)
        return INT64_MIN;
    return t->by_start[0]->start;
}

static bool build_timeline(const run_model *m, const size_t *calls_order, timeline *t)
{
    memset(t, 0, sizeof *t);
    const event_list *s = &m->events;
    size_t ngpu = s->nkernels + s->ncopies + s->nmemsets, nhost = s->napis + s->nsyncs;
    if (nhost > REGIONS_HOST_CALLS_MAX)
        return false; /* analysis_fits says so before it gets here */
    t->ev = s;
    launch_index *launches = launch_index_build(s);
    /* As long as the run's events: spill.h's, as the events are */
    t->gpu = spill_alloc((ngpu ? ngpu : 1) * sizeof *t->gpu);
    t->by_start = spill_alloc((ngpu ? ngpu : 1) * sizeof *t->by_start);
    t->host = spill_alloc((nhost ? nhost : 1) * sizeof *t->host);
    t->sync_tid = spill_alloc((s->nsyncs ? s->nsyncs : 1) * sizeof *t->sync_tid);
    size_t nranges;
    thread_range *ranges = thread_ranges(m, &nranges);
    if (!launches || !t->gpu || !t->by_start || !t->host || !t->sync_tid || !ranges) {
        launch_index_free(launches);
        free(ranges);
        timeline_free(t);
        return false;
    }

    for (size_t j = 0; j < s->nkernels; j++)
        add_gpu(t, launches, GPU_KERNEL, &s->kernels[j], s->kernels[j].start_ns, s->kernels[j].end_ns, s->kernels[j].pid,
                s->kernels[j].correlation, s->kernels[j].region);
    for (size_t j = 0; j < s->ncopies; j++)
        add_gpu(t, launches, GPU_COPY, &s->copies[j], s->copies[j].start_ns, s->copies[j].end_ns, s->copies[j].pid,
                s->copies[j].correlation, s->copies[j].region);
    for (size_t j = 0; j < s->nmemsets; j++)
        add_gpu(t, launches, GPU_MEMSET, &s->memsets[j], s->memsets[j].start_ns, s->memsets[j].end_ns,
                s->memsets[j].pid, s->memsets[j].correlation, s->memsets[j].region);
    /* The calls in order of start, as the causes take them (host_calls_by_start): no sort here. */
    for (size_t o = 0; o < nhost; o++) {
        size_t i = calls_order[o];
        if (i < s->napis) {
            t->host[t->nhost++] = (host_item){(uint32_t)i};
            continue;
        }
        /* CUPTI's synchronization records carry no thread: take the calling API's. */
        const sync_event *y = &s->syncs[i - s->napis];
        const api_event *call = launch_of(launches, y->pid, y->correlation);
        t->sync_tid[i - s->napis] = call ? call->thread : y->thread;
        t->host[t->nhost++] = (host_item){(uint32_t)i};
    }
    for (size_t i = 0; i < t->ngpu; i++) {
        gpu_item *g = &t->gpu[i];
        g->ranged = thread_ranged(ranges, nranges, g->pid, g->tid, g->key);
        if (g->end - g->start > t->longest)
            t->longest = g->end - g->start;
    }
    for (size_t i = 0; i < t->nhost; i++)
        if (thread_ranged(ranges, nranges, host_pid(t, &t->host[i]), host_tid(t, &t->host[i]), host_start(t, &t->host[i])))
            t->host[i].at |= HOST_RANGED;
    free(ranges);
    bool ok = key_sort(t->gpu, t->ngpu, sizeof *t->gpu, gpu_key, NULL);
    for (size_t i = 0; i < t->ngpu; i++)
        t->by_start[i] = &t->gpu[i];
    if (!ok || !key_sort(t->by_start, t->ngpu, sizeof *t->by_start, by_start, NULL)) {
        launch_index_free(launches);
        timeline_free(t);
        return false;
    }
    t->unseen_until = unseen_until_of(m, t);
    /* Mark launching calls: a call is one when some kernel names it. */
    for (size_t i = 0; i < t->ngpu; i++) {
        if (t->gpu[i].type != GPU_KERNEL || !t->gpu[i].launch)
            continue;
        /* Binary search the host list by start, then walk the equal starts. */
        const api_event *l = t->gpu[i].launch;
        size_t lo = 0, hi = t->nhost;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (host_start(t, &t->host[mid]) < l->start_ns)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t j = lo; j < t->nhost && host_start(t, &t->host[j]) == l->start_ns; j++)
            if (host_api(t, &t->host[j]) == l)
                t->host[j].at |= HOST_LAUNCHES;
    }
    launch_index_free(launches);
    return true;
}

/* First index whose key (or start) is >= t. */
static size_t first_gpu(const timeline *t, int64_t at)
{
    size_t lo = 0, hi = t->ngpu;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->gpu[mid].key < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t first_host(const timeline *t, int64_t at)
{
    size_t lo = 0, hi = t->nhost;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (host_start(t, &t->host[mid]) < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether an event launched (or made) at key by (pid, tid), owned by region owner, belongs to
 * region ri: a built-in workload owns its events (the collector decided), a phase those of its
 * workload inside its interval. An NVTX range or annotation owns what its process launched while
 * it was open (regions.h): from its own thread, and from any other thread of its process that
 * had no range of its own open then (ranged: PyTorch's autograd thread launches the backward pass
 * while the main thread's step is open; a loader thread with ranges of its own keeps its work). */
static bool member(const run_model *m, int ri, int64_t key, uint32_t pid, uint32_t tid, int owner, bool ranged)
{
    const region *r = &m->regions[ri];
    switch (r->kind) {
    case REGION_RUN:
        return true;
    case REGION_WORKLOAD:
        return owner == ri;
    case REGION_PHASE:
        return owner == r->parent && key >= r->start_ns && key <= r->end_ns;
    default:
        if (key < r->start_ns || key > r->end_ns)
            return false;
        if (r->pid && pid && r->pid != pid)
            return false;
        return !r->tid || !tid || r->tid == tid || !ranged;
    }
}

/* The slice of the sorted lists a region needs to look at: all of it for the run and workload
 * regions (workload membership is by owner, not time), its interval otherwise. */
static bool whole(const region *r)
{
    return r->kind == REGION_RUN || r->kind == REGION_WORKLOAD;
}

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

static const char *event_name(const gpu_item *g)
{
    return ((const kernel_event *)g->ev)->name;
}

static int cmp_by_name(const void *a, const void *b)
{
    const gpu_item *x = *(const gpu_item *const *)a, *y = *(const gpu_item *const *)b;
    return strcmp(event_name(x), event_name(y));
}

/* Longest total first; equal totals by name, so the order does not depend on qsort. */
static int cmp_total_desc(const void *a, const void *b)
{
    const kernel_stat *x = a, *y = b;
    if (x->total_ms.v != y->total_ms.v)
        return x->total_ms.v < y->total_ms.v ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Per kernel name: count, total, min, median, max, stddev, launch shape and occupancy. */
static bool kernel_stats(const run_model *m, const gpu_item **ks, int nk, double total_kernel_ms, region_metrics *r)
{
    r->kernels = NULL;
    r->nkstats = 0;
    if (nk == 0)
        return true;
    /* One row a name, not a launch (the run region of a long run has 100 k launches of a few
     * hundred names, and its rows are kept until the outputs are written); the launches' own
     * arrays are as long as the region's kernels: spill.h's. */
    double *d = spill_alloc((size_t)nk * sizeof *d);
    const gpu_item **sorted = spill_alloc((size_t)nk * sizeof *sorted);
    kernel_stat *st = NULL;
    int names = 0;
    if (d && sorted) {
        /* Group by name: sort by name, then walk runs of equal names. */
        memcpy(sorted, ks, (size_t)nk * sizeof *sorted);
        qsort(sorted, (size_t)nk, sizeof *sorted, cmp_by_name);
        for (int i = 0; i < nk; i++)
            names += i == 0 || strcmp(event_name(sorted[i]), event_name(sorted[i - 1])) != 0;
        st = calloc((size_t)names, sizeof *st);
    }
    if (!st) {
        spill_free(d);
        spill_free(sorted);
        return false;
    }
    int ns = 0;
    for (int i = 0; i < nk;) {
        int j = i;
        const char *name = event_name(sorted[i]);
        double sum = 0;
        while (j < nk && strcmp(event_name(sorted[j]), name) == 0) {
            d[j - i] = ms(sorted[j]->end - sorted[j]->start);
            sum += d[j - i];
            j++;
        }
        int c = j - i;
        kernel_stat *s = &st[ns++];
        const kernel_event *k = sorted[i]->ev;
        s->name = k->name;
        s->count = c;
        metric_set(&s->total_ms, sum);
        if (total_kernel_ms > 0)
            metric_set(&s->share_pct, 100.0 * sum / total_kernel_ms);
        else
            metric_na(&s->share_pct, "no kernel time in the region");
        duration_spread(d, c, &s->mean_ms, &s->min_ms, &s->median_ms, &s->max_ms, &s->stddev_ms, "one launch");
        memcpy(s->grid, k->grid, sizeof s->grid);
        memcpy(s->block, k->block, sizeof s->block);
        s->has_resources = k->has_resources;
        s->registers = k->registers;
        s->static_smem = k->static_smem;
        s->dynamic_smem = k->dynamic_smem;
        kernel_occupancy(m, k, &s->occupancy_pct, &s->active_blocks, s->limiter, sizeof s->limiter);
        i = j;
    }
    qsort(st, (size_t)ns, sizeof *st, cmp_total_desc);
    spill_free(sorted);
    spill_free(d);
    r->kernels = st;
    r->nkstats = ns;
    return true;
}


/* One stored name's calls (the store keeps each distinct name once, model.h): their count,
 * shortest and longest (as keys) and summed time, its display name and that name's group. */
typedef struct {
    const char *stored;
    char name[64];
    uint64_t count, min, max;
    int64_t sum_ns;
    int group;
} name_run;

static int cmp_run(const void *a, const void *b) { return strcmp(((const name_run *)a)->name, ((const name_run *)b)->name); }

static int cmp_api_total(const void *a, const void *b)
{
    const api_stat *x = a, *y = b;
    if (x->total_ms.v != y->total_ms.v)
        return x->total_ms.v < y->total_ms.v ? 1 : -1;
    return strcmp(x->name, y->name);
}

static size_t name_slot(const int *slot, size_t nslots, const name_run *runs, const char *name)
{
    size_t h = (size_t)((((uintptr_t)name >> 4) * 0x9E3779B97F4A7C15ull) >> 32) & (nslots - 1);
    while (slot[h] >= 0 && runs[slot[h]].stored != name)
        h = (h + 1) & (nslots - 1);
    return h;
}

/* A region's host calls and synchronizations, in timeline order: walked again where they are
 * needed rather than gathered, since the run region of a long run has millions. */
typedef struct {
    const run_model *m;
    const timeline *t;
    int ri;
    size_t from; /* the first host item that may be in the region */
} call_walk;

/* The next of the region's host items at or after *i (then *i is past it); NULL after the last. */
static const host_item *next_member(const call_walk *w, size_t *i)
{
    const region *rg = &w->m->regions[w->ri];
    const timeline *t = w->t;
    for (; *i < t->nhost && (whole(rg) || host_start(t, &t->host[*i]) <= rg->end_ns); (*i)++) {
        const host_item *h = &t->host[*i];
        if (member(w->m, w->ri, host_start(t, h), host_pid(t, h), host_tid(t, h), host_owner(t, h),
                   (h->at & HOST_RANGED) != 0)) {
            (*i)++;
            return h;
        }
    }
    return NULL;
}

/* The next of the region's API calls (its synchronizations passed over), as next_member. */
static const host_item *next_call(const call_walk *w, size_t *i)
{
    const host_item *h;
    while ((h = next_member(w, i)) && host_is_sync(w->t, h))
        ;
    return h;
}

/* The stored names of the region's calls: runs (one per name, in the order met, each with its
 * count, extremes and sum), and the open-addressing table that finds a name's run by its pointer
 * (at most half full; *slots its size). A long run has millions of calls of a few dozen names. */
static name_run *name_runs(const call_walk *w, int **slot_out, size_t *slots, int *nruns)
{
    size_t nslots = 64;
    name_run *runs = malloc(nslots / 2 * sizeof *runs);
    int *slot = malloc(nslots * sizeof *slot);
    *nruns = 0;
    bool ok = runs && slot;
    for (size_t i = 0; ok && i < nslots; i++)
        slot[i] = -1;
    size_t at = w->from;
    for (const host_item *c; ok && (c = next_call(w, &at));) {
        const char *name = host_api(w->t, c)->name;
        name = name ? name : "";
        size_t h = name_slot(slot, nslots, runs, name);
        if (slot[h] < 0 && (size_t)*nruns == nslots / 2) { /* full: twice the slots */
            int *grown = malloc(2 * nslots * sizeof *grown);
            name_run *more = realloc(runs, nslots * sizeof *runs);
            if (more)
                runs = more;
            if (!(ok = grown && more)) {
                free(grown);
                break;
            }
            free(slot);
            slot = grown, nslots *= 2;
            for (size_t j = 0; j < nslots; j++)
                slot[j] = -1;
            for (int j = 0; j < *nruns; j++)
                slot[name_slot(slot, nslots, runs, runs[j].stored)] = j;
            h = name_slot(slot, nslots, runs, name);
        }
        if (slot[h] < 0) {
            runs[*nruns] = (name_run){.stored = name, .min = UINT64_MAX};
            api_display_name(name, runs[*nruns].name, sizeof runs[*nruns].name);
            slot[h] = (*nruns)++;
        }
        name_run *g = &runs[slot[h]];
        int64_t d = host_ns(w->t, c);
        uint64_t key = key_of_i64(d);
        g->count++;
        g->sum_ns += d;
        g->min = key < g->min ? key : g->min;
        g->max = key > g->max ? key : g->max;
    }
    if (!ok) {
        free(slot);
        free(runs);
        return NULL;
    }
    *slot_out = slot;
    *slots = nslots;
    return runs;
}

/* A display name's calls: its stored names' tallies joined. */
typedef struct {
    uint64_t count, min, max;
    int64_t sum_ns;
} name_total;

/* The group of a call's display name, through the stored names' table (name_runs). */
static size_t call_group(const call_walk *w, const name_run *runs, const int *slot, size_t nslots, const host_item *c)
{
    const char *name = host_api(w->t, c)->name;
    return (size_t)runs[slot[name_slot(slot, nslots, runs, name ? name : "")]].group;
}

/* A region of at most this many calls has its medians sorted (8 bytes a call, 512 KiB at most);
 * a larger one selected (memory per name). Both are exact, and the same; sorting takes one walk
 * of the calls where selecting takes several, which thousands of small regions add up to. */
#define API_SORTED_CALLS_MAX 65536

/* The middle two durations of each display name's calls (mid[2g], mid[2g + 1] for group g):
 * gathered by group and sorted. */
static bool name_medians_sorted(const call_walk *w, const name_run *runs, const int *slot, size_t nslots,
                                const name_total *tot, int ngroups, uint64_t *mid)
{
    size_t n = 0;
    for (int g = 0; g < ngroups; g++)
        n += tot[g].count;
    uint64_t *dur = malloc((n ? n : 1) * sizeof *dur);
    size_t *at = malloc((size_t)(ngroups > 0 ? ngroups : 1) * sizeof *at);
    bool ok = dur && at;
    for (int g = 0; ok && g < ngroups; g++)
        at[g] = g ? at[g - 1] + tot[g - 1].count : 0;
    size_t i = w->from;
    for (const host_item *c; ok && (c = next_call(w, &i));) {
        dur[at[call_group(w, runs, slot, nslots, c)]++] = key_of_i64(host_ns(w->t, c));
    }
    for (int g = 0; ok && g < ngroups; g++) {
        uint64_t *d = dur + at[g] - tot[g].count; /* at[g] is now its end */
        ok = key_sort_plain(d, tot[g].count);
        mid[2 * g] = d[(tot[g].count - 1) / 2];
        mid[2 * g + 1] = d[tot[g].count / 2];
    }
    free(dur);
    free(at);
    return ok;
}

/* The same by selection over walks of the region's calls (rank_select.h): the two middle ranks of
 * group g are selections 2g and 2g + 1. Memory per name, not per call: the run region of a long
 * run has millions of calls of a few dozen names. */
static bool name_medians(const call_walk *w, const name_run *runs, const int *slot, size_t nslots,
                         const name_total *tot, int ngroups, uint64_t *mid)
{
    rank_select *sel = rank_select_new(2 * (size_t)ngroups);
    if (!sel)
        return false;
    for (int g = 0; g < ngroups; g++) {
        rank_select_group(sel, 2 * (size_t)g, tot[g].count, tot[g].min, tot[g].max, (tot[g].count - 1) / 2);
        rank_select_group(sel, 2 * (size_t)g + 1, tot[g].count, tot[g].min, tot[g].max, tot[g].count / 2);
    }
    int more;
    while ((more = rank_select_begin(sel)) == 1) {
        size_t i = w->from;
        for (const host_item *c; (c = next_call(w, &i));) {
            size_t g = call_group(w, runs, slot, nslots, c);
            uint64_t key = key_of_i64(host_ns(w->t, c));
            rank_select_add(sel, 2 * g, key);
            rank_select_add(sel, 2 * g + 1, key);
        }
        rank_select_end(sel);
    }
    for (size_t g = 0; more == 0 && g < 2 * (size_t)ngroups; g++)
        mid[g] = rank_select_value(sel, g);
    rank_select_free(sel);
    return more == 0;
}

/* API calls by name (version suffix dropped): count, total, share, median, min, max. A display
 * name joins its stored names' calls (two rank files' "cudaMalloc", "cudaMalloc_v3020"); its
 * total is summed in whole nanoseconds, so it does not depend on the order the calls come in, and
 * its median is sorted in a small region, selected in a large one (API_SORTED_CALLS_MAX). */
static bool api_stats(const call_walk *w, int n, double total_ms, region_metrics *r)
{
    r->apis = NULL;
    r->napistats = 0;
    if (n == 0)
        return true;
    int *slot = NULL, nruns = 0;
    size_t nslots = 0;
    name_run *runs = name_runs(w, &slot, &nslots, &nruns);
    if (!runs)
        return false;
    /* By display name, then the table refilled for the runs' new places. */
    qsort(runs, (size_t)nruns, sizeof *runs, cmp_run);
    for (size_t j = 0; j < nslots; j++)
        slot[j] = -1;
    int ngroups = 0;
    for (int j = 0; j < nruns; j++) {
        slot[name_slot(slot, nslots, runs, runs[j].stored)] = j;
        runs[j].group = j > 0 && strcmp(runs[j].name, runs[j - 1].name) == 0 ? ngroups - 1 : ngroups++;
    }
    name_total *tot = calloc((size_t)(ngroups ? ngroups : 1), sizeof *tot);
    uint64_t *mid = malloc(2 * (size_t)(ngroups ? ngroups : 1) * sizeof *mid);
    api_stat *st = calloc((size_t)(ngroups ? ngroups : 1), sizeof *st);
    bool ok = tot && mid && st;
    for (int j = 0; ok && j < nruns; j++) {
        name_total *t = &tot[runs[j].group];
        if (t->count == 0)
            t->min = UINT64_MAX;
        t->count += runs[j].count;
        t->sum_ns += runs[j].sum_ns;
        t->min = runs[j].min < t->min ? runs[j].min : t->min;
        t->max = runs[j].max > t->max ? runs[j].max : t->max;
    }
    if ((size_t)n <= API_SORTED_CALLS_MAX)
        ok = ok && name_medians_sorted(w, runs, slot, nslots, tot, ngroups, mid);
    else
        ok = ok && name_medians(w, runs, slot, nslots, tot, ngroups, mid);
    for (int j = 0; ok && j < nruns; j++) {
        if (j > 0 && runs[j].group == runs[j - 1].group)
            continue; /* a later stored name of a display name already written */
        const name_total *t = &tot[runs[j].group];
        api_stat *s = &st[runs[j].group];
        memcpy(s->name, runs[j].name, sizeof s->name);
        s->count = (int)t->count;
        metric_set(&s->total_ms, ms(t->sum_ns));
        if (total_ms > 0)
            metric_set(&s->share_pct, 100.0 * ms(t->sum_ns) / total_ms);
        else
            metric_na(&s->share_pct, "no time in API calls");
        double m1 = 1e3 * ms(i64_of_key(mid[2 * runs[j].group])), m2 = 1e3 * ms(i64_of_key(mid[2 * runs[j].group + 1]));
        metric_set(&s->min_us, 1e3 * ms(i64_of_key(t->min)));
        metric_set(&s->max_us, 1e3 * ms(i64_of_key(t->max)));
        metric_set(&s->median_us, (t->count % 2) ? m2 : 0.5 * (m1 + m2));
    }
    free(slot);
    free(runs);
    free(tot);
    free(mid);
    if (!ok) {
        free(st);
        return false;
    }
    qsort(st, (size_t)ngroups, sizeof *st, cmp_api_total);
    r->apis = st;
    r->napistats = ngroups;
    return true;
}

/* Copies grouped by direction and host-side memory kind. */
static mem_kind host_side(const copy_event *c)
{
    switch (c->dir) {
    case COPY_H2D: return c->src;
    case COPY_D2H: return c->dst;
    default: return c->src == MEM_DEVICE ? c->dst : c->src;
    }
}

/* The flow a copy or memset belongs to: copies by direction and host memory, memsets by the
 * memory they set. */
static bool same_flow(const copy_flow *f, const gpu_item *g)
{
    if (g->type == GPU_MEMSET)
        return f->memset && f->host == ((const memset_event *)g->ev)->mem;
    const copy_event *c = g->ev;
    return !f->memset && f->dir == c->dir && f->host == host_side(c);
}

static uint32_t item_device(const gpu_item *g)
{
    switch (g->type) {
    case GPU_KERNEL: return ((const kernel_event *)g->ev)->device;
    case GPU_COPY: return ((const copy_event *)g->ev)->device;
    default: return ((const memset_event *)g->ev)->device;
    }
}

static uint64_t item_bytes(const gpu_item *g)
{
    return g->type == GPU_COPY ? ((const copy_event *)g->ev)->bytes : ((const memset_event *)g->ev)->bytes;
}

/* The region's flows from its copies and memsets (moves, n of them, in timeline order): count,
 * bytes, time and its spread, GB/s, and the part of the time kernels ran during. */
static bool build_flows(const timeline *t, region_metrics *r, const gpu_item **moves, int n)
{
    r->flows = NULL;
    r->nflows = 0;
    if (n == 0)
        return true;
    /* The moves' own arrays are as long as the region's copies and memsets: spill.h's; the flows
     * are a row each (a direction and memory), grown as found. */
    int *flow_of = spill_alloc((size_t)n * sizeof *flow_of);
    double *d = spill_alloc((size_t)n * sizeof *d);
    bool ok = flow_of && d;
    /* Copies' flows first, then memsets'. */
    for (int pass = 0; ok && pass < 2; pass++) {
        for (int i = 0; ok && i < n; i++) {
            const gpu_item *g = moves[i];
            if ((g->type == GPU_MEMSET) != (pass == 1))
                continue;
            int f = 0;
            while (f < r->nflows && !same_flow(&r->flows[f], g))
                f++;
            if (f == r->nflows) {
                copy_flow *grown = realloc(r->flows, (size_t)(r->nflows + 1) * sizeof *grown);
                if (!(ok = grown != NULL))
                    break;
                r->flows = grown;
                copy_flow *nf = &r->flows[r->nflows++];
                memset(nf, 0, sizeof *nf);
                nf->memset = g->type == GPU_MEMSET;
                nf->dir = nf->memset ? COPY_OTHER : ((const copy_event *)g->ev)->dir;
                nf->host = nf->memset ? ((const memset_event *)g->ev)->mem : host_side(g->ev);
            }
            flow_of[i] = f;
        }
    }
    if (!ok) {
        spill_free(flow_of);
        spill_free(d);
        free(r->flows);
        r->flows = NULL;
        r->nflows = 0;
        return false;
    }
    for (int f = 0; f < r->nflows; f++) {
        copy_flow *x = &r->flows[f];
        double bytes = 0, total = 0, hidden = 0;
        int c = 0;
        for (int i = 0; i < n; i++) {
            if (flow_of[i] != f)
                continue;
            const gpu_item *g = moves[i];
            d[c++] = ms(g->end - g->start);
            total += ms(g->end - g->start);
            bytes += (double)item_bytes(g);
            hidden += ms(hidden_under_kernels(t->act, item_device(g), g->start, g->end));
        }
        x->count = c;
        metric_set(&x->bytes, bytes);
        metric_set(&x->ms, total);
        if (total > 0)
            metric_set(&x->gbps, bytes / (total * 1e6));
        else
            metric_na(&x->gbps, "%s took no measurable time", x->memset ? "memsets" : "copies");
        metric_set(&x->mean_bytes, bytes / c);
        duration_spread(d, c, &x->mean_ms, &x->min_ms, &x->median_ms, &x->max_ms, &x->stddev_ms, "one copy");
        if (total > 0)
            metric_set(&x->hidden_pct, 100.0 * hidden / total);
        else
            metric_na(&x->hidden_pct, "%s took no measurable time", x->memset ? "memsets" : "copies");
    }
    spill_free(flow_of);
    spill_free(d);
    return true;
}

/* Whether GPU event g ran as part of region ri's "executed during" set: everything for the run,
 * a built-in workload's or phase's own work, the work of an NVTX range's or annotation's process
 * (any when either process is not known). */
static bool during_member(const run_model *m, int ri, const gpu_item *g)
{
    const region *r = &m->regions[ri];
    switch (r->kind) {
    case REGION_RUN: return true;
    case REGION_WORKLOAD:
    case REGION_PHASE: return member(m, ri, g->start, g->pid, g->tid, g->owner, g->ranged);
    default: return !r->pid || !g->pid || r->pid == g->pid;
    }
}

/* The first kernel to start at or after t on the timeline (its name), NULL when a copy or memset
 * comes first or nothing does: what ended an idle stretch, for the advice. */
static const char *next_kernel(const timeline *t, int64_t at)
{
    size_t a = 0, b = t->ngpu;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (t->by_start[mid]->start < at)
            a = mid + 1;
        else
            b = mid;
    }
    return a < t->ngpu && t->by_start[a]->type == GPU_KERNEL ? event_name(t->by_start[a]) : NULL;
}

/* The idle breakdown of the span [lo, hi) whose GPU work iv holds (sorted by interval_union) and
 * the explanation of the stretch the verdict names: the lead when it outlasts the largest gap
 * between GPU work (as mostly_idle words it), else that gap. */
static bool idle_figures(const timeline *t, const interval *iv, size_t n, int64_t lo, int64_t hi, int64_t first,
                         region_metrics *r)
{
    int64_t by[IDLE_NCAUSES] = {0}, cursor = lo;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        int64_t s = iv[i].start < lo ? lo : iv[i].start, e = iv[i].end > hi ? hi : iv[i].end;
        if (e <= s)
            continue;
        if (s > cursor)
            idle_breakdown_add(t->causes, cursor, s, any ? STRETCH_BETWEEN : STRETCH_LEAD, by);
        any = true;
        cursor = e > cursor ? e : cursor;
    }
    idle_breakdown_add(t->causes, cursor, hi, STRETCH_TAIL, by);
    idle_breakdown_finish(by, r->idle);
    metric_set(&r->idle_ms, ms(hi - lo) - r->gpu_busy_ms.v);
    if (t->nhost == 0)
        return true; /* no host records: nothing to explain with */
    int64_t s = 0, e = 0;
    if (first - lo > 0 && (r->ngaps == 0 || first - lo > r->gaps[0].length_ns)) {
        idle_explain(t->causes, s = lo, e = first, STRETCH_LEAD, next_kernel(t, first), &r->idle_why);
    } else if (r->ngaps > 0) {
        s = r->gaps[0].start_ns;
        e = s + r->gaps[0].length_ns;
        idle_explain(t->causes, s, e, STRETCH_BETWEEN, next_kernel(t, e), &r->idle_why);
    }
    return host_explain(t->hosts, t->ha, s, e, &r->idle_why);
}

/* The "executed during" figures (regions.h): the GPU work that ran inside the region's span, its
 * busy time, the idle before the first and after the last of it, and the stretches between. */
static bool executed_during(const run_model *m, const timeline *t, int ri, region_metrics *r)
{
    const region *rg = &m->regions[ri];
    int64_t lo = rg->start_ns, hi = rg->end_ns;
    int64_t unseen = t->unseen_until;
    /* Every event that may overlap [lo, hi): from the first that starts after lo - longest. */
    size_t a = 0, b = t->ngpu;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (t->by_start[mid]->start < lo - t->longest)
            a = mid + 1;
        else
            b = mid;
    }
    interval *iv = NULL;
    size_t n = 0;
    double kernel = 0;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = a; i < t->ngpu && t->by_start[i]->start < hi; i++) {
        const gpu_item *g = t->by_start[i];
        int64_t s = g->start > lo ? g->start : lo, e = g->end < hi ? g->end : hi;
        if (e <= s || !during_member(m, ri, g))
            continue;
        interval *grown = array_grow_spill(iv, n, sizeof *iv);
        if (!grown) {
            spill_free(iv);
            return false;
        }
        iv = grown;
        iv[n++] = (interval){s, e};
        first = s < first ? s : first;
        last = e > last ? e : last;
        if (g->type == GPU_KERNEL)
            kernel += ms(e - s);
    }
    if (n == 0 || hi <= lo) {
        /* work the region launched that ran after it: said, so that the n/a does not read as
         * denying the kernel time beside it */
        bool launched = r->nkernels + r->ncopies + r->nmemsets > 0;
        const char *why = hi <= lo ? "the region has no length"
                          : launched ? "no GPU work ran during the region: the work it launched ran after it ended "
                                       "(its GPU span)"
                                     : "no GPU work ran during the region";
        metric_na(&r->gpu_busy_ms, "%s", why);
        metric_na(&r->busy_pct, "%s", why);
        metric_na(&r->kernel_during_ms, "%s", why);
        metric_na(&r->lead_idle_ms, "%s", why);
        metric_na(&r->tail_idle_ms, "%s", why);
        metric_na(&r->largest_gap_ms, "%s", why);
        metric_na(&r->idle_ms, "%s", why);
        idle_breakdown_na(r->idle, why);
        spill_free(iv);
        return true;
    }
    int64_t busy = interval_union(iv, n, first, last, r->gaps, REGION_MAX_GAPS, &r->ngaps);
    metric_set(&r->gpu_busy_ms, ms(busy));
    metric_set(&r->busy_pct, 100.0 * (double)busy / (double)(hi - lo));
    metric_set(&r->kernel_during_ms, kernel);
    metric_set(&r->lead_idle_ms, ms(first - lo));
    metric_set(&r->tail_idle_ms, ms(hi - last));
    metric_set(&r->largest_gap_ms, r->ngaps > 0 ? ms(r->gaps[0].length_ns) : 0);
    if (lo < unseen) { /* the start is not idle but unknown: neither judged nor explained */
        const char *why = "the GPU may have run work launched before the capture until its first recorded work";
        metric_na(&r->busy_pct, "%s", why);
        metric_na(&r->lead_idle_ms, "%s", why);
        lo = unseen < first ? unseen : first;
    }
    bool ok = idle_figures(t, iv, n, lo, hi, first, r);
    spill_free(iv);
    return ok;
}

/* The verdict (verdict.h) on the region's own figures. */
static void judge_region(region_metrics *r)
{
    verdict_input in = {.gpu_events = r->nkernels + r->ncopies + r->nmemsets, .kernel_ms = r->kernel_ms,
                        .copy_ms = r->memcpy_ms, .busy_pct = r->busy_pct, .wall_ms = r->wall_ms,
                        .largest_gap_ms = r->largest_gap_ms, .lead_idle_ms = r->lead_idle_ms, .nkernels = r->nkernels,
                        .short_kernel_pct = r->short_kernel_pct, .launch_us = r->launch_us, .kernel_us = r->kernel_us,
                        .sync_ms = r->sync_ms, .flows = r->flows, .nflows = r->nflows,
                        .copy_hidden_pct = r->copy_hidden_pct,
                        .idle_why = r->idle_why.known ? &r->idle_why : NULL};
    if (r->nkstats > 0)
        in.top_kernel_share_pct = r->kernels[0].share_pct;
    else
        metric_na(&in.top_kernel_share_pct, "no kernels");
    metric_na(&in.tflops, "not a product");
    metric_na(&in.peak_pct, "not a product");
    verdict v;
    judge(&in, &v);
    r->verdict = v.kind;
    copy_str(r->verdict_text, sizeof r->verdict_text, v.text);
    copy_str(r->advice, sizeof r->advice, v.advice);
}

/* FLOPs where the region carries a count: built-in workloads and their compute phase. */
static void region_flops(const run_model *m, const region *rg, region_metrics *r)
{
    const workload_run *w = rg->workload >= 0 ? &m->builtin.workloads[rg->workload] : NULL;
    if (!w || w->n <= 0) {
        metric_na(&r->tflops, "no FLOP count for this region");
        return;
    }
    int products = 0;
    if (rg->kind == REGION_WORKLOAD)
        products = w->launched;
    else if (rg->kind == REGION_PHASE && strcmp(rg->name, "compute") == 0)
        products = w->repeat;
    if (products <= 0 || !w->needs_gpu) {
        metric_na(&r->tflops, "no FLOP count for this region");
        return;
    }
    if (!r->kernel_ms.ok || r->kernel_ms.v <= 0) {
        metric_na(&r->tflops, "no kernel time recorded");
        return;
    }
    metric_set(&r->tflops, products * product_flops(w->n) / (r->kernel_ms.v * 1e9));
}

static bool analyze_one(const run_model *m, const timeline *t, int ri, region_metrics *r)
{
    const region *rg = &m->regions[ri];
    memset(r, 0, sizeof *r);
    r->region = ri;
    size_t g0 = whole(rg) ? 0 : first_gpu(t, rg->start_ns);
    size_t h0 = whole(rg) ? 0 : first_host(t, rg->start_ns);
    interval *iv = NULL;
    const gpu_item **ks = NULL, **moves = NULL;
    size_t niv = 0;
    int nk = 0, nshort = 0, nmoves = 0;
    double kernel = 0, memcpy_t = 0, memset_t = 0, memset_b = 0, h2d = 0, d2h = 0, h2d_b = 0, d2h_b = 0;
    double copy_hidden = 0, kernel_hidden = 0;
    int64_t first_start = INT64_MAX, last_end = INT64_MIN;
    bool ok = true;
    for (size_t i = g0; ok && i < t->ngpu && (whole(rg) || t->gpu[i].key <= rg->end_ns); i++) {
        const gpu_item *g = &t->gpu[i];
        if (!member(m, ri, g->key, g->pid, g->tid, g->owner, g->ranged))
            continue;
        interval *grown = array_grow_spill(iv, niv, sizeof *iv);
        if (!(ok = grown != NULL))
            break;
        iv = grown;
        iv[niv++] = (interval){g->start, g->end};
        first_start = g->start < first_start ? g->start : first_start;
        last_end = g->end > last_end ? g->end : last_end;
        r->by_time += g->launch == NULL;
        double d = ms(g->end - g->start);
        if (g->type == GPU_KERNEL) {
            const gpu_item **more = array_grow_spill(ks, (size_t)nk, sizeof *ks);
            if (!(ok = more != NULL))
                break;
            ks = more;
            ks[nk++] = g;
            kernel += d;
            nshort += g->end - g->start < SHORT_KERNEL_NS;
            kernel_hidden += ms(hidden_under_copies(t->act, item_device(g), g->start, g->end));
            continue;
        }
        const gpu_item **more = array_grow_spill(moves, (size_t)nmoves, sizeof *moves);
        if (!(ok = more != NULL))
            break;
        moves = more;
        moves[nmoves++] = g;
        if (g->type == GPU_COPY) {
            const copy_event *c = g->ev;
            r->ncopies++;
            memcpy_t += d;
            if (c->dir == COPY_H2D) {
                h2d += d;
                h2d_b += (double)c->bytes;
            } else if (c->dir == COPY_D2H) {
                d2h += d;
                d2h_b += (double)c->bytes;
            }
            copy_hidden += ms(hidden_under_kernels(t->act, item_device(g), g->start, g->end));
        } else {
            r->nmemsets++;
            memset_t += d;
            memset_b += (double)((const memset_event *)g->ev)->bytes;
        }
    }
    r->nkernels = nk;
    double sync_t = 0, api_t = 0;
    double *launch_us = NULL;
    call_walk calls = {m, t, ri, h0};
    size_t at = h0;
    for (const host_item *h; ok && (h = next_member(&calls, &at));) {
        double d = ms(host_ns(t, h));
        if (host_is_sync(t, h)) {
            r->nsyncs++;
            sync_t += d;
        } else {
            r->napis++;
            api_t += d;
            if (h->at & HOST_LAUNCHES) {
                double *grown = array_grow_spill(launch_us, (size_t)r->nlaunches, sizeof *launch_us);
                if (!(ok = grown != NULL))
                    break;
                launch_us = grown;
                launch_us[r->nlaunches++] = 1e3 * d;
            }
        }
    }
    if (ok) {
        metric_set(&r->wall_ms, ms(rg->end_ns - rg->start_ns));
        metric_set(&r->kernel_ms, kernel);
        metric_set(&r->memcpy_ms, memcpy_t);
        metric_set(&r->memset_ms, memset_t);
        metric_set(&r->memset_bytes, memset_b);
        metric_set(&r->h2d_ms, h2d);
        metric_set(&r->h2d_bytes, h2d_b);
        metric_set(&r->d2h_ms, d2h);
        metric_set(&r->d2h_bytes, d2h_b);
        if (h2d > 0)
            metric_set(&r->h2d_gbps, h2d_b / (h2d * 1e6));
        else
            metric_na(&r->h2d_gbps, "no host-to-device copies");
        if (d2h > 0)
            metric_set(&r->d2h_gbps, d2h_b / (d2h * 1e6));
        else
            metric_na(&r->d2h_gbps, "no device-to-host copies");
        copy_compute(&r->copy_compute_ratio, &r->memcpy_ms, &r->kernel_ms);
        if (memcpy_t > 0)
            metric_set(&r->copy_hidden_pct, 100.0 * copy_hidden / memcpy_t);
        else
            metric_na(&r->copy_hidden_pct, "%s", r->ncopies ? "its copies took no measurable time" : "no copies in this region");
        if (kernel > 0)
            metric_set(&r->kernel_hidden_pct, 100.0 * kernel_hidden / kernel);
        else
            metric_na(&r->kernel_hidden_pct, "%s", nk ? "its kernels took no measurable time" : "no kernels in this region");
        if (niv > 0 && last_end > first_start) {
            int64_t busy = interval_union(iv, niv, first_start, last_end, NULL, 0, NULL);
            metric_set(&r->gpu_span_ms, ms(last_end - first_start));
            metric_set(&r->projected_busy_pct, 100.0 * (double)busy / (double)(last_end - first_start));
        } else {
            metric_na(&r->gpu_span_ms, "%s", niv > 0 ? "its GPU work took no time" : "no GPU work launched from inside");
            metric_na(&r->projected_busy_pct, "%s", metric_why(&r->gpu_span_ms));
        }
        ok = executed_during(m, t, ri, r);
        /* A source without API calls (source.h) says why it has no launch or host-side times. */
        const char *no_api = source_why_not(m->source, HAS_API_CALLS);
        if (r->nlaunches > 0)
            metric_set(&r->launch_us, median_of(launch_us, r->nlaunches));
        else
            metric_na(&r->launch_us, "%s", nk == 0 ? "no kernels in this region" : no_api ? no_api : "no launching API calls recorded");
        if (nk > 0)
            metric_set(&r->short_kernel_pct, 100.0 * nshort / nk);
        else
            metric_na(&r->short_kernel_pct, "no kernels in this region");
        if (t->nhost > 0) {
            metric_set(&r->sync_ms, sync_t);
            metric_set(&r->api_ms, api_t);
        } else {
            metric_na(&r->sync_ms, "%s", no_api ? no_api : "no host-side API records in the timeline");
            metric_na(&r->api_ms, "%s", metric_why(&r->sync_ms));
        }
        ok = build_flows(t, r, moves, nmoves) && kernel_stats(m, ks, nk, kernel, r) && api_stats(&calls, r->napis, api_t, r);
        if (nk > 0) {
            double *d = malloc((size_t)nk * sizeof *d);
            if (!d)
                ok = false;
            else {
                for (int i = 0; i < nk; i++)
                    d[i] = 1e3 * ms(ks[i]->end - ks[i]->start);
                metric_set(&r->kernel_us, median_of(d, nk));
                free(d);
            }
        } else {
            metric_na(&r->kernel_us, "no kernels in this region");
        }
        region_flops(m, rg, r);
        judge_region(r);
    }
    spill_free(iv);
    spill_free(ks);
    spill_free(moves);
    spill_free(launch_us);
    return ok;
}

/* The regions are independent of each other: shared out among a few threads, each taking the
 * next region not yet taken (the run's own, which holds every event, goes first), so a long
 * run's thousands take the time of their share. Each region's figures are the same as when they
 * were worked out one after the other. */
#define REGIONS_PER_THREAD 64 /* fewer regions than this per thread: not worth a thread */
int region_threads = REGION_THREADS;

typedef struct {
    const run_model *m;
    const timeline *t;
    region_metrics *r;
    int next;    /* the next region to take */
    bool failed; /* memory ran out in one of them */
} region_share;

static void *analyze_share(void *p)
{
    region_share *w = p;
    for (;;) {
        int i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED);
        if (i >= w->m->nregions || __atomic_load_n(&w->failed, __ATOMIC_RELAXED))
            return NULL;
        if (!analyze_one(w->m, w->t, i, &w->r[i]))
            __atomic_store_n(&w->failed, true, __ATOMIC_RELAXED);
    }
}

static bool analyze_all(const run_model *m, const timeline *t, region_metrics *r)
{
    region_share w = {m, t, r, 0, false};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n = cpus < region_threads ? (int)(cpus > 1 ? cpus : 1) : region_threads;
    n = n < REGION_THREADS ? n : REGION_THREADS;
    if (n > m->nregions / REGIONS_PER_THREAD)
        n = m->nregions / REGIONS_PER_THREAD > 1 ? m->nregions / REGIONS_PER_THREAD : 1;
    pthread_t helper[REGION_THREADS];
    int started = 0;
    while (started < n - 1 && pthread_create(&helper[started], NULL, analyze_share, &w) == 0)
        started++;
    analyze_share(&w);
    for (int i = 0; i < started; i++)
        pthread_join(helper[i], NULL);
    return !w.failed;
}

bool analyze_regions(const run_model *m, region_metrics **out, int *nout)
{
    host_causes *causes;
    bool ok = analyze_regions_and_causes(m, &causes, out, nout, NULL);
    host_causes_free(causes);
    return ok;
}

/* The causes, built on a thread of their own while the timeline is. */
typedef struct {
    const run_model *m;
    const size_t *by_start; /* host_calls_by_start's */
    host_causes *causes;    /* out */
} causes_job;

static void build_causes(void *p)
{
    causes_job *job = p;
    job->causes = host_causes_build(job->m, job->by_start);
}

bool analyze_regions_and_causes(const run_model *m, host_causes **causes, region_metrics **out, int *nout,
                                const size_t *calls_by_start)
{
    *out = NULL;
    *nout = 0;
    /* The causes on a thread of their own while the timeline is built; both take the run's calls
     * in order of start, sorted once (sorting them in each, and copying each array into its
     * order, was a long run's largest use of memory). */
    double lap = 0;
    stage_lap(&lap, "");
    size_t *own_order = calls_by_start ? NULL : host_calls_by_start(&m->events);
    const size_t *calls_order = calls_by_start ? calls_by_start : own_order;
    stage_lap(&lap, "regions: host calls by start");
    causes_job job = {m, calls_order, NULL};
    stage_beside causes_step;
    if (calls_order)
        stage_beside_start(&causes_step, build_causes, &job, "regions: host causes, on their thread");
    timeline t;
    memset(&t, 0, sizeof t);
    gpu_activity *act = m->nregions > 0 ? gpu_activity_build(m) : NULL;
    stage_lap(&lap, "regions: GPU activity");
    host_where_index *hosts = m->nregions > 0 ? host_where_build(&m->host_activity) : NULL;
    stage_lap(&lap, "regions: host index");
    bool ok = calls_order && (m->nregions == 0 || (act && hosts && build_timeline(m, calls_order, &t)));
    stage_lap(&lap, "regions: timeline");
    if (calls_order)
        stage_beside_wait(&causes_step);
    spill_free(own_order);
    stage_lap(&lap, "regions: waiting for the host causes");
    *causes = job.causes;
    region_metrics *r = NULL;
    if (ok && *causes && m->nregions > 0) {
        t.act = act;
        t.causes = *causes;
        t.hosts = hosts;
        t.ha = &m->host_activity;
        host_names_wait(t.ha); /* the regions' idle stretches name host frames */
        stage_lap(&lap, "regions: waiting for native names");
        r = calloc((size_t)m->nregions, sizeof *r);
        ok = r && analyze_all(m, &t, r);
        stage_lap(&lap, "regions: each region's figures");
        timeline_free(&t);
    } else if (ok && m->nregions > 0) {
        timeline_free(&t);
    }
    gpu_activity_free(act);
    host_where_index_free(hosts);
    ok = ok && *causes;
    if (!ok) {
        region_metrics_free(r, r ? m->nregions : 0); /* those not reached are zero */
        return false;
    }
    *out = r;
    *nout = r ? m->nregions : 0;
    return true;
}

void region_metrics_free(region_metrics *r, int n)
{
    if (!r)
        return;
    for (int i = 0; i < n; i++) {
        free(r[i].flows);
        free(r[i].kernels);
        free(r[i].apis);
    }
    free(r);
}
