/* See model_merge.h. Events move (their names change owner), so a merge of many large files
 * costs one copy of the arrays, not a copy of every string. */
#include "model_merge.h"

#include "array_grow.h"
#include "source.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *model_run_host(const run_model *m)
{
    for (int i = 0; i < m->nprocesses; i++)
        if (m->processes[i].host[0])
            return m->processes[i].host;
    return "";
}

/* Appends src's n elements of size to *dst (holding *nd) and empties src; arrays of spill.h's
 * when spill (the event lists'). */
static bool move_to(void *dst_p, size_t *nd, void *src_p, size_t *ns, size_t size, bool spill)
{
    void **src = src_p;
    if (!array_append_n_to(dst_p, nd, *src, *ns, size, spill))
        return false;
    spill_free(*src); /* a heap array's free too (spill.h) */
    *src = NULL;
    *ns = 0;
    return true;
}

static bool move_array(void *dst_p, size_t *nd, void *src_p, size_t *ns, size_t size)
{
    return move_to(dst_p, nd, src_p, ns, size, false);
}

static bool move_events(void *dst_p, size_t *nd, void *src_p, size_t *ns, size_t size)
{
    return move_to(dst_p, nd, src_p, ns, size, true);
}

static bool add_host(char (**arr)[MERGE_HOST_LEN], int *n, const char *host)
{
    char(*grown)[MERGE_HOST_LEN] = realloc(*arr, (size_t)(*n + 1) * sizeof **arr);
    if (!grown)
        return false;
    *arr = grown;
    copy_str(grown[*n], MERGE_HOST_LEN, host);
    (*n)++;
    return true;
}

/* ---------- one job or not ---------- */

static const char *source_words(run_source src)
{
    return source_of(src)->one;
}

/* What file m is, for the checks of the files after it. */
static merge_file describe(const run_model *m, const char *label)
{
    merge_file f = {.source = m->source, .world_size = -1, .start_ns = m->epoch_ns, .end_ns = m->epoch_ns};
    copy_str(f.label, sizeof f.label, label);
    copy_str(f.host, sizeof f.host, model_run_host(m));
    for (int i = 0; i < m->nprocesses; i++)
        if (m->processes[i].rank >= 0) {
            f.ranked = true;
            if (m->processes[i].world_size > 0)
                f.world_size = m->processes[i].world_size;
        }
    if (m->nregions > 0 && m->regions[0].kind == REGION_RUN) {
        f.start_ns = m->regions[0].start_ns;
        f.end_ns = m->regions[0].end_ns;
    }
    return f;
}

static bool has_rank(const merge_state *s, int rank)
{
    for (int i = 0; i < s->nranks; i++)
        if (s->ranks[i] == rank)
            return true;
    return false;
}

/* Adds m's ranks to the merge's; false when memory ran out. */
static bool note_ranks(merge_state *s, const run_model *m)
{
    for (int i = 0; i < m->nprocesses; i++) {
        int rank = m->processes[i].rank;
        if (rank < 0 || has_rank(s, rank))
            continue;
        int *grown = realloc(s->ranks, (size_t)(s->nranks + 1) * sizeof *grown);
        if (!grown)
            return false;
        s->ranks = grown;
        s->ranks[s->nranks++] = rank;
    }
    return true;
}

static bool add_file(merge_state *s, const merge_file *f)
{
    merge_file *grown = realloc(s->files, (size_t)(s->nfiles + 1) * sizeof *grown);
    if (!grown)
        return false;
    s->files = grown;
    s->files[s->nfiles++] = *f;
    return true;
}

/* Why src (f, the run m) is not part of the job the files before it make, in err; false when it is. */
static bool not_one_job(const merge_state *s, const merge_file *f, const run_model *m, char *err, size_t errlen)
{
    const merge_file *first = &s->files[0];
    /* Counters without a timeline: nothing tells whether two exports are of one run. */
    if (!source_has(f->source, HAS_TIMELINE) || !source_has(first->source, HAS_TIMELINE)) {
        snprintf(err, errlen, "%s and %s: an Nsight Compute CSV export is imported alone (or given to the run of "
                 "the same program: mmprof report RUN --ncu FILE.csv)", first->label, f->label);
        return true;
    }
    for (int i = 0; i < s->nfiles; i++) {
        const merge_file *e = &s->files[i];
        if (e->source != f->source) {
            snprintf(err, errlen, "%s is %s and %s %s: not parts of one run", e->label, source_words(e->source),
                     f->label, source_words(f->source));
            return true;
        }
        if (e->ranked != f->ranked) {
            const merge_file *named = e->ranked ? e : f, *other = e->ranked ? f : e;
            snprintf(err, errlen, "%s names its rank in a job and %s names none: not ranks of one job", named->label,
                     other->label);
            return true;
        }
        if (f->ranked && e->world_size > 0 && f->world_size > 0 && e->world_size != f->world_size) {
            snprintf(err, errlen, "%s is of a job of %d ranks and %s of one of %d: not ranks of one job", e->label,
                     e->world_size, f->label, f->world_size);
            return true;
        }
        if (!f->ranked && e->host[0] && f->host[0] && strcmp(e->host, f->host) != 0) {
            snprintf(err, errlen, "%s ran on %s and %s on %s, and neither names a rank: not one job", e->label, e->host,
                     f->label, f->host);
            return true;
        }
    }
    if (f->ranked) {
        for (int i = 0; i < m->nprocesses; i++)
            if (m->processes[i].rank >= 0 && has_rank(s, m->processes[i].rank)) {
                snprintf(err, errlen, "rank %d is in %s and again in %s: not ranks of one job (or one file given twice)",
                         m->processes[i].rank, s->nfiles == 1 ? first->label : "an earlier file", f->label);
                return true;
            }
        return false;
    }
    /* No ranks: the processes of one job run at once. */
    int64_t lo = first->start_ns, hi = first->end_ns;
    for (int i = 1; i < s->nfiles; i++) {
        if (s->files[i].start_ns < lo)
            lo = s->files[i].start_ns;
        if (s->files[i].end_ns > hi)
            hi = s->files[i].end_ns;
    }
    if (f->end_ns < lo || f->start_ns > hi) {
        double apart = (double)(f->start_ns > hi ? f->start_ns - hi : lo - f->end_ns) / 1e9;
        snprintf(err, errlen, "%s and %s did not run at the same time (%.3f s apart) and name no ranks: traces of "
                 "different runs, not one job", s->nfiles == 1 ? first->label : "the files before it", f->label, apart);
        return true;
    }
    return false;
}

bool model_merge_begin(merge_state *s, run_model *dst, const char *label)
{
    memset(s, 0, sizeof *s);
    merge_file first = describe(dst, label);
    if (!add_file(s, &first) || !note_ranks(s, dst))
        return false;
    s->first_epoch = s->last_epoch = dst->epoch_ns;
    const char *host = model_run_host(dst);
    for (int i = 0; i < dst->ndevices; i++)
        if (!add_host(&s->dev_host, &s->ndev_host, host))
            return false;
    return add_host(&s->hosts, &s->nhosts, host);
}

/* The index in dst of src's device d: the same host and PCI bus id, else a new one. -1 when
 * memory ran out. */
static int device_in(merge_state *s, run_model *dst, const device_info *d, const char *host)
{
    for (int i = 0; i < dst->ndevices; i++)
        if (strcmp(s->dev_host[i], host) == 0 && d->pci_bus_id[0] && strcmp(dst->devices[i].pci_bus_id, d->pci_bus_id) == 0)
            return i;
    device_info *grown = realloc(dst->devices, (size_t)(dst->ndevices + 1) * sizeof *grown);
    if (!grown)
        return -1;
    dst->devices = grown;
    grown[dst->ndevices] = *d;
    grown[dst->ndevices].index = dst->ndevices;
    if (!add_host(&s->dev_host, &s->ndev_host, host))
        return -1;
    return dst->ndevices++;
}

static bool pid_taken(const run_model *m, uint32_t pid)
{
    for (int i = 0; i < m->nprocesses; i++)
        if (m->processes[i].pid == pid)
            return true;
    return false;
}

/* A pid no process of dst or src has (pids stay below 2^22 on Linux; these go above). */
static uint32_t free_pid(const run_model *dst, const run_model *src, uint32_t *next)
{
    while (pid_taken(dst, *next) || pid_taken(src, *next))
        (*next)++;
    return (*next)++;
}

typedef struct {
    uint32_t from, to;
} pid_map;

static uint32_t map_pid(const pid_map *map, int n, uint32_t pid)
{
    for (int i = 0; i < n; i++)
        if (map[i].from == pid)
            return map[i].to;
    return pid;
}

/* Renumbers src's pids and devices in place before its arrays move. */
static void renumber(run_model *src, const pid_map *map, int nmap, const int *dev)
{
    event_list *e = &src->events;
#define FIX(arr, n, has_dev)                                          \
    for (size_t i = 0; i < (n); i++) {                                \
        (arr)[i].pid = map_pid(map, nmap, (arr)[i].pid);              \
        if (has_dev && (arr)[i].device < (uint32_t)src->ndevices)     \
            (arr)[i].device = (uint32_t)dev[(arr)[i].device];         \
    }
#define FIX_NODEV(arr, n)                                             \
    for (size_t i = 0; i < (n); i++)                                  \
        (arr)[i].pid = map_pid(map, nmap, (arr)[i].pid);
    FIX(e->kernels, e->nkernels, 1)
    FIX(e->copies, e->ncopies, 1)
    FIX(e->memsets, e->nmemsets, 1)
    FIX(src->launch_counters, (size_t)src->nlaunch_counters, 1)
    FIX_NODEV(e->apis, e->napis)
    FIX_NODEV(e->syncs, e->nsyncs)
    FIX_NODEV(src->regions, (size_t)src->nregions)
    FIX_NODEV(src->processes, (size_t)src->nprocesses)
    FIX_NODEV(src->threads, (size_t)src->nthreads)
    FIX_NODEV(src->capture.windows, (size_t)src->capture.nwindows)
    host_activity *h = &src->host_activity;
    FIX_NODEV(h->frames, (size_t)h->nframes)
    FIX_NODEV(h->samples, h->nsamples)
    FIX_NODEV(h->spans, h->nspans)
    FIX_NODEV(h->sites, h->nsites)
    memory_activity *mem = &src->memory;
    FIX(mem->events, mem->nevents, 1)
    FIX(mem->pools, (size_t)mem->npools, 1)
    FIX(mem->failures, (size_t)mem->nfailures, 1)
    FIX(mem->samples, mem->nsamples, 1)
    for (int i = 0; i < mem->nlive; i++)
        if (mem->live[i].device < (uint32_t)src->ndevices)
            mem->live[i].device = (uint32_t)dev[mem->live[i].device];
#undef FIX
#undef FIX_NODEV
}

/* src's capture windows after dst's (profile --delay/--duration/--capture-range/--max-size in
 * each rank's file), pointing at their regions' places once move_regions has moved them; before
 * it, while dst->nregions is still dst's own. What was asked: the first file's, or, where the
 * files asked differently, both. */
static bool move_capture(run_model *dst, run_model *src)
{
    capture_info *d = &dst->capture, *c = &src->capture;
    if (c->asked[0] && !d->asked[0])
        copy_str(d->asked, sizeof d->asked, c->asked);
    else if (c->asked[0] && strcmp(c->asked, d->asked) != 0 && strlen(d->asked) + strlen(c->asked) + 3 < sizeof d->asked)
        snprintf(d->asked + strlen(d->asked), sizeof d->asked - strlen(d->asked), "; %s", c->asked);
    if (c->nwindows == 0)
        return true;
    capture_window *w = realloc(d->windows, (size_t)(d->nwindows + c->nwindows) * sizeof *w);
    if (!w)
        return false;
    d->windows = w;
    int skip = src->nregions > 0 && src->regions[0].kind == REGION_RUN ? 1 : 0;
    for (int i = 0; i < c->nwindows; i++) {
        capture_window x = c->windows[i];
        x.region = x.region >= skip ? dst->nregions + x.region - skip : -1;
        w[d->nwindows++] = x;
    }
    free(c->windows);
    c->windows = NULL;
    c->nwindows = 0;
    return true;
}

/* src's regions after dst's, without src's run region (dst's spans both once finished). */
static bool move_regions(run_model *dst, run_model *src)
{
    int skip = src->nregions > 0 && src->regions[0].kind == REGION_RUN ? 1 : 0;
    int add = src->nregions - skip;
    if (add <= 0)
        return true;
    /* Room as model_add_region's appends expect it (array_grow.h), so a region added after the
     * merge cannot write past the end. */
    region *grown = realloc(dst->regions, array_capacity_for((size_t)(dst->nregions + add)) * sizeof *grown);
    if (!grown)
        return false;
    dst->regions = grown;
    int base = dst->nregions;
    for (int i = 0; i < add; i++) {
        region r = src->regions[skip + i];
        /* A region under src's run region goes under dst's (index 0, or none without one). */
        if (r.parent >= skip)
            r.parent = base + r.parent - skip;
        else
            r.parent = dst->nregions > 0 && dst->regions[0].kind == REGION_RUN ? 0 : -1;
        grown[base + i] = r;
    }
    dst->nregions += add;
    if (skip) {
        free(src->regions[0].name);
        free(src->regions[0].domain);
    }
    free(src->regions);
    src->regions = NULL;
    src->nregions = 0;
    return true;
}

bool model_merge(merge_state *s, run_model *dst, run_model *src, const char *label, char *err, size_t errlen)
{
    if (src->builtin.nworkloads > 0 || dst->builtin.nworkloads > 0) {
        snprintf(err, errlen, "%s: a run of mmprof's built-in workloads; only profiled programs (mmprof profile) and "
                              "imports can be merged", label);
        return false;
    }
    merge_file file = describe(src, label);
    if (not_one_job(s, &file, src, err, errlen))
        return false;
    if (!add_file(s, &file) || !note_ranks(s, src))
        goto oom;
    const char *host = model_run_host(src);
    char host_copy[MERGE_HOST_LEN];
    copy_str(host_copy, sizeof host_copy, host);
    bool new_host = true;
    for (int i = 0; i < s->nhosts; i++)
        new_host &= strcmp(s->hosts[i], host_copy) != 0;
    if (new_host && !add_host(&s->hosts, &s->nhosts, host_copy))
        goto oom;

    int *dev = calloc((size_t)src->ndevices + 1, sizeof *dev);
    pid_map *map = calloc((size_t)src->nprocesses + 1, sizeof *map);
    int nmap = 0;
    if (!dev || !map) {
        free(dev);
        free(map);
        goto oom;
    }
    for (int i = 0; i < src->ndevices; i++)
        if ((dev[i] = device_in(s, dst, &src->devices[i], host_copy)) < 0) {
            free(dev);
            free(map);
            goto oom;
        }
    /* The same pid in two files is two processes (two hosts, or a pid reused): renumber src's. */
    uint32_t next = 1u << 22;
    for (int i = 0; i < src->nprocesses; i++)
        if (pid_taken(dst, src->processes[i].pid))
            map[nmap++] = (pid_map){src->processes[i].pid, free_pid(dst, src, &next)};
    s->remapped_pids += nmap;
    renumber(src, map, nmap, dev);
    free(dev);
    free(map);

    event_list *d = &dst->events, *e = &src->events;
    size_t np = (size_t)dst->nprocesses, nps = (size_t)src->nprocesses;
    size_t nt = (size_t)dst->nthreads, nts = (size_t)src->nthreads;
    size_t nw = (size_t)dst->nwarnings, nws = (size_t)src->nwarnings;
    size_t nc = (size_t)dst->nlaunch_counters, ncs = (size_t)src->nlaunch_counters;
    bool ok = move_array(&dst->launch_counters, &nc, &src->launch_counters, &ncs, sizeof *src->launch_counters) &&
              move_events(&d->kernels, &d->nkernels, &e->kernels, &e->nkernels, sizeof *e->kernels) &&
              move_events(&d->copies, &d->ncopies, &e->copies, &e->ncopies, sizeof *e->copies) &&
              move_events(&d->memsets, &d->nmemsets, &e->memsets, &e->nmemsets, sizeof *e->memsets) &&
              move_events(&d->apis, &d->napis, &e->apis, &e->napis, sizeof *e->apis) &&
              move_events(&d->syncs, &d->nsyncs, &e->syncs, &e->nsyncs, sizeof *e->syncs) &&
              events_adopt_names(d, e) &&
              move_array(&dst->processes, &np, &src->processes, &nps, sizeof *src->processes) &&
              move_array(&dst->threads, &nt, &src->threads, &nts, sizeof *src->threads) &&
              move_array(&dst->warnings, &nw, &src->warnings, &nws, sizeof *src->warnings) &&
              move_capture(dst, src) && move_regions(dst, src) &&
              /* the memory's live sets name frames: shifted past dst's before those move */
              memory_activity_move(&dst->memory, &src->memory, dst->host_activity.nframes) &&
              host_activity_move(&dst->host_activity, &src->host_activity);
    dst->nprocesses = (int)np;
    src->nprocesses = (int)nps;
    dst->nthreads = (int)nt;
    src->nthreads = (int)nts;
    dst->nwarnings = (int)nw;
    src->nwarnings = (int)nws;
    dst->nlaunch_counters = (int)nc;
    src->nlaunch_counters = (int)ncs;
    /* profile --counters in any file: the merged run has counters (each file's launches). */
    if (src->counters.asked && !dst->counters.asked) {
        dst->counters.asked = true;
        memcpy(dst->counters.kernels, src->counters.kernels, sizeof dst->counters.kernels);
        dst->counters.max = src->counters.max;
    }
    if (dst->nlaunch_counters > 0)
        dst->counters.why[0] = '\0';
    if (!ok)
        goto oom;
    collection_info *c = &dst->collection;
    const collection_info *o = &src->collection;
    c->records += o->records;
    c->dropped += o->dropped;
    c->lost_timestamps += o->lost_timestamps;
    c->replayed_kernels += o->replayed_kernels;
    c->overhead_records += o->overhead_records;
    c->outside_workloads += o->outside_workloads;
    c->overhead_ns += o->overhead_ns;
    if (src->epoch_ns < s->first_epoch)
        s->first_epoch = src->epoch_ns;
    if (src->epoch_ns > s->last_epoch)
        s->last_epoch = src->epoch_ns;
    if (src->epoch_ns < dst->epoch_ns)
        dst->epoch_ns = src->epoch_ns;
    return true;
oom:
    snprintf(err, errlen, "%s: out of memory while merging", label);
    return false;
}

/* Earliest start and latest end of every event and region. */
static void whole_span(const run_model *m, int64_t *lo, int64_t *hi)
{
    const event_list *e = &m->events;
#define SPAN(arr, n)                          \
    for (size_t i = 0; i < (n); i++) {        \
        if ((arr)[i].start_ns < *lo)          \
            *lo = (arr)[i].start_ns;          \
        if ((arr)[i].end_ns > *hi)            \
            *hi = (arr)[i].end_ns;            \
    }
    SPAN(e->kernels, e->nkernels)
    SPAN(e->copies, e->ncopies)
    SPAN(e->memsets, e->nmemsets)
    SPAN(e->apis, e->napis)
    SPAN(e->syncs, e->nsyncs)
    SPAN(m->regions, (size_t)m->nregions)
#undef SPAN
}

/* A merge's run is named by every file in it ("rank0.json + rank1.json"), so every output that
 * names the run (the summary first) names them all, not the first alone. */
static bool name_run(const merge_state *s, run_model *dst)
{
    size_t len = 1;
    for (int i = 0; i < s->nfiles; i++)
        len += strlen(s->files[i].label) + 3;
    char *name = malloc(len);
    if (!name)
        return false;
    name[0] = '\0';
    for (int i = 0; i < s->nfiles; i++) {
        const char *base = strrchr(s->files[i].label, '/');
        strcat(name, i ? " + " : "");
        strcat(name, base ? base + 1 : s->files[i].label);
    }
    free(dst->regions[0].name);
    dst->regions[0].name = name;
    return true;
}

bool model_merge_finish(merge_state *s, run_model *dst)
{
    bool ok = true;
    if (dst->nregions > 0 && dst->regions[0].kind == REGION_RUN) {
        int64_t lo = dst->regions[0].start_ns, hi = dst->regions[0].end_ns;
        whole_span(dst, &lo, &hi);
        dst->regions[0].start_ns = lo;
        dst->regions[0].end_ns = hi;
        if (s->nfiles > 1)
            ok = name_run(s, dst);
    }
    if (s->nfiles > 1) {
        if (s->nhosts <= 1)
            model_add_warning(dst, "merged %d run files from one host (%s): their clocks are the same (CLOCK_REALTIME), "
                                   "so they line up exactly; the files began %.3f s apart",
                              s->nfiles, s->nhosts && s->hosts[0][0] ? s->hosts[0] : "host not recorded",
                              (double)(s->last_epoch - s->first_epoch) / 1e9);
        else
            model_add_warning(dst, "merged %d run files from %d hosts: each host's times are its own CLOCK_REALTIME, "
                                   "lined up as recorded, so anything compared across hosts (stragglers, overlap of "
                                   "ranks) is uncertain by the hosts' clock offset (NTP: typically up to ~1 ms; PTP: "
                                   "microseconds); the collective-end skew below bounds it",
                              s->nfiles, s->nhosts);
        if (s->remapped_pids)
            model_add_warning(dst, "%d process(es) of different files had the same pid; they were renumbered from %u",
                              s->remapped_pids, 1u << 22);
    }
    free(s->dev_host);
    free(s->hosts);
    free(s->files);
    free(s->ranks);
    memset(s, 0, sizeof *s);
    return ok;
}
