/* What the Kineto importer does once every event is in: refuse a trace that is not a PyTorch GPU
 * trace, add the record_function ranges (nested by the region tracker), make times absolute, give
 * GPU events their launching process, add processes and threads, nest the CPU ops and Python calls
 * into host_activity (host_spans.c), and fill the run's own fields. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kineto_reader.h"

/* An API call as the GPU events and sync records it launched look it up. */
typedef struct {
    uint32_t correlation, pid, tid;
    bool is_sync; /* the call already became a sync event */
} launch;

static bool gpu_event_count_zero(const run_model *m)
{
    return m->events.nkernels == 0 && m->events.ncopies == 0 && m->events.nmemsets == 0;
}

/* Kineto's times are relative to baseTimeNanoseconds: make them absolute. */
static bool add_base(kineto_reader *r)
{
    int64_t b = r->base_ns;
    event_list *e = &r->m->events;
#define SHIFT(arr, n)                                                                             \
    for (size_t i_ = 0; i_ < (n); i_++) {                                                         \
        if ((b > 0 && (arr)[i_].end_ns > INT64_MAX - b) ||                                        \
            (b < 0 && (arr)[i_].start_ns < INT64_MIN - b))                                        \
            return kr_fail(r, "times out of range once baseTimeNanoseconds is added");            \
        (arr)[i_].start_ns += b;                                                                  \
        (arr)[i_].end_ns += b;                                                                    \
    }
    SHIFT(e->kernels, e->nkernels);
    SHIFT(e->copies, e->ncopies);
    SHIFT(e->memsets, e->nmemsets);
    SHIFT(e->apis, e->napis);
    SHIFT(e->syncs, e->nsyncs);
    SHIFT(r->m->regions, (size_t)r->m->nregions);
    SHIFT(r->pending, r->npending);
#undef SHIFT
    memory_activity *mem = &r->m->memory; /* the allocator's instants (kineto_memory.c) */
    for (size_t i = 0; i < mem->nevents; i++) {
        if ((b > 0 && mem->events[i].ts_ns > INT64_MAX - b) || (b < 0 && mem->events[i].ts_ns < INT64_MIN - b))
            return kr_fail(r, "times out of range once baseTimeNanoseconds is added");
        mem->events[i].ts_ns += b;
    }
    return true;
}

/* qsort, which must not be handed a NULL array even when it is empty. */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

static int by_correlation(const void *a, const void *b)
{
    uint32_t x = ((const launch *)a)->correlation, y = ((const launch *)b)->correlation;
    return (x > y) - (x < y);
}

static const launch *find_launch(const launch *l, size_t n, uint32_t correlation)
{
    launch key = {.correlation = correlation};
    return correlation && n ? bsearch(&key, l, n, sizeof *l, by_correlation) : NULL;
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The launching process of each GPU event (Kineto writes the device as its pid), and the thread
 * of each cuda_sync record, from the API call with the same correlation id; where none matches,
 * the trace's only process if it has one. */
static bool link_by_correlation(kineto_reader *r, uint32_t only_pid, bool one_process)
{
    event_list *e = &r->m->events;
    launch *l = malloc((e->napis ? e->napis : 1) * sizeof *l);
    if (!l)
        return kr_no_memory(r);
    for (size_t i = 0; i < e->napis; i++)
        l[i] = (launch){e->apis[i].correlation, e->apis[i].pid, e->apis[i].thread,
                        kr_api_sync_kind(e->apis[i].name) != SYNC_UNKNOWN};
    sort(l, e->napis, sizeof *l, by_correlation);
    size_t unmatched = 0;
#define LINK(arr, n)                                                                              \
    for (size_t i_ = 0; i_ < (n); i_++) {                                                         \
        const launch *f_ = find_launch(l, e->napis, (arr)[i_].correlation);                       \
        (arr)[i_].pid = f_ ? f_->pid : one_process ? only_pid : 0;                                \
        unmatched += !f_;                                                                         \
    }
    LINK(e->kernels, e->nkernels);
    LINK(e->copies, e->ncopies);
    LINK(e->memsets, e->nmemsets);
#undef LINK
    bool ok = true;
    for (size_t i = 0; i < r->npending && ok; i++) {
        const pending_sync *p = &r->pending[i];
        const launch *f = find_launch(l, e->napis, p->correlation);
        if (f && f->is_sync)
            continue; /* the API call made this sync already */
        sync_event s = {.kind = p->kind, .start_ns = p->start_ns, .end_ns = p->end_ns,
                        .pid = f ? f->pid : one_process ? only_pid : 0, .thread = f ? f->tid : 0,
                        .stream = p->stream, .correlation = p->correlation};
        ok = events_add_sync(e, &s) || kr_no_memory(r);
    }
    free(l);
    if (ok && unmatched && !one_process)
        model_add_warning(r->m, "%zu GPU events have no launching API call in the trace: their process is unknown",
                          unmatched);
    return ok;
}

static int by_ids(const void *a, const void *b)
{
    const named_id *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

static const char *name_of(const named_id *names, size_t n, uint32_t pid, uint32_t tid)
{
    named_id key = {.pid = pid, .tid = tid};
    const named_id *f = n ? bsearch(&key, names, n, sizeof *names, by_ids) : NULL;
    return f ? f->name : "";
}

/* The processes and threads that made CPU events, with the names the metadata gave them. Sets
 * *only_pid and *one_process when exactly one process did. */
static bool add_processes(kineto_reader *r, uint32_t *only_pid, bool *one_process)
{
    sort(r->process_names, r->nprocess_names, sizeof *r->process_names, by_ids);
    sort(r->thread_names, r->nthread_names, sizeof *r->thread_names, by_ids);
    uint64_t *ids = malloc((r->ncpu_threads ? r->ncpu_threads : 1) * sizeof *ids);
    if (!ids)
        return kr_no_memory(r);
    size_t n = 0;
    for (size_t i = 0; i < r->cpu_threads_cap; i++)
        if (r->cpu_threads[i])
            ids[n++] = r->cpu_threads[i] - 1;
    sort(ids, n, sizeof *ids, by_u64);
    bool ok = true;
    int processes = 0;
    for (size_t i = 0; i < n && ok; i++) {
        uint32_t pid = (uint32_t)(ids[i] >> 32), tid = (uint32_t)ids[i];
        if (i == 0 || (uint32_t)(ids[i - 1] >> 32) != pid) {
            ok = model_add_process(r->m, pid, name_of(r->process_names, r->nprocess_names, pid, 0));
            processes++;
            *only_pid = pid;
        }
        ok = ok && model_add_thread(r->m, pid, tid, name_of(r->thread_names, r->nthread_names, pid, tid));
    }
    free(ids);
    *one_process = processes == 1;
    return ok || kr_no_memory(r);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* distributedInfo's rank on every process of the trace (a rank's trace is one process; its
 * DataLoader workers, if any, belong to the same rank). A Kineto trace names no host and no PCI bus
 * id, so the warning says what a merge with other ranks' traces cannot know. */
static void set_rank(kineto_reader *r)
{
    run_model *m = r->m;
    for (int i = 0; i < m->nprocesses; i++)
        model_set_process_rank(m, m->processes[i].pid, r->rank, r->world_size, -1, "");
    char world[48] = ", world size not recorded";
    if (r->world_size > 0)
        snprintf(world, sizeof world, " of %d", r->world_size);
    model_add_warning(m, "%s: rank %d%s%s%s (torch.profiler's distributedInfo); the trace names no "
                      "host and no GPU PCI bus id, so merged with other ranks' traces its devices are kept "
                      "apart from theirs and its times are lined up by the traces' own timestamps "
                      "(CLOCK_REALTIME: exact for ranks on one host, off by the clock offset across hosts)",
                      base_name(r->path), r->rank, world, r->backend[0] ? ", backend " : "",
                      r->backend);
}

bool kr_finish(kineto_reader *r)
{
    run_model *m = r->m;
    if (strcmp(r->schema, "mmprof-run") == 0)
        return kr_fail(r, "an mmprof run file (schema \"mmprof-run\"), not a PyTorch profiler trace: "
                       "mmprof reads it as it is");
    if (!r->have_events)
        return kr_fail(r, "no traceEvents: a JSON object with keys %s, not a PyTorch profiler trace",
                    r->nkeys ? r->keys : "(none)");
    if (gpu_event_count_zero(m))
        return kr_fail(r, "no GPU activity: none of the trace's %llu events is a kernel, gpu_memcpy or gpu_memset "
                       "(record with torch.profiler.ProfilerActivity.CUDA)",
                    (unsigned long long)m->collection.records);
    uint32_t only_pid = 0;
    bool one_process = false;
    /* The ranges go in first: add_base then moves them with everything else. */
    if (!rt_finish(&r->annotations, base_name(r->path)))
        return kr_no_memory(r);
    if (!add_base(r) || !add_processes(r, &only_pid, &one_process) || !link_by_correlation(r, only_pid, one_process))
        return false;
    bool overflow;
    if (!cpu_spans_finish(&r->host_spans, r->base_ns, &m->host_activity, &overflow))
        return overflow ? kr_fail(r, "times out of range once baseTimeNanoseconds is added") : kr_no_memory(r);
    for (int i = 0; i < m->ndevices; i++) {
        m->devices[i].driver_version = r->driver_version;
        m->devices[i].runtime_version = r->runtime_version;
    }
    if (r->rank >= 0)
        set_rank(r);
    if (r->host_copies)
        model_add_warning(m, "%zu copies name their host memory \"Host\" (\"Memcpy HtoD (Host -> Device)\", as ROCm "
                             "traces do): their direction is known, pageable or pinned is not", r->host_copies);
    if (r->host_memory_events)
        model_add_warning(m, "%zu [memory] events of host (CPU) memory were left out: the memory tables are the GPU's",
                          r->host_memory_events);
    if (r->unnamed_copies)
        model_add_warning(m, "%zu copies have names not in Kineto's form (\"Memcpy HtoD (Pageable -> Device)\"): "
                             "their direction and memory kinds are unknown", r->unnamed_copies);
    m->source = SOURCE_KINETO;
    copy_str(m->source_file, sizeof m->source_file, r->path);
    m->collection.source = TIMING_CUPTI;
    if (!model_finish_regions(m, base_name(r->path)))
        return kr_no_memory(r);
    m->epoch_ns = m->regions[0].start_ns;
    time_t secs = (time_t)(m->epoch_ns / 1000000000);
    struct tm tm;
    if (m->epoch_ns > 0 && gmtime_r(&secs, &tm))
        strftime(m->started_at, sizeof m->started_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return true;
}

