/* Run model lifetime and the small helpers that grow its arrays. */
#include "model.h"

#include "array_grow.h"
#include "strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void copy_str(char *dst, size_t len, const char *src)
{
    if (len == 0)
        return;
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void model_init(run_model *m)
{
    memset(m, 0, sizeof *m);
    m->schema_version = MMPROF_SCHEMA_VERSION;
    copy_str(m->tool_version, sizeof m->tool_version, MMPROF_VERSION);
}

void workload_clear(workload_run *w)
{
    events_clear(&w->timed);
    free(w->product_ms);
    free(w->occ);
    for (int i = 0; i < w->ncounters; i++)
        free(w->counters[i].name);
    free(w->counters);
    memset(w, 0, sizeof *w);
}

/* The names of a store's kernels and API calls, each distinct one kept once: a long run's
 * millions of API calls have a few dozen names, and a kernel's mangled name is hundreds of bytes,
 * so one copy per event was most of a long run's model and a malloc per event. The strings are
 * owned by the pool (events may point at any of them); the hash table (open addressing, indices
 * + 1, 0 empty) finds an existing copy. */
struct name_pool {
    char **s;
    size_t n, cap;
    size_t *slot;
    size_t nslots;
};

static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* Puts string i of p into its hash table (at most half full); false when memory ran out. */
static bool pool_index(struct name_pool *p, size_t i)
{
    if (2 * (i + 1) > p->nslots) {
        size_t ns = p->nslots ? 2 * p->nslots : 64;
        size_t *slot = calloc(ns, sizeof *slot);
        if (!slot)
            return false;
        free(p->slot);
        p->slot = slot, p->nslots = ns;
        for (size_t j = 0; j < i; j++)
            if (!pool_index(p, j))
                return false;
    }
    size_t h = name_hash(p->s[i]) & (p->nslots - 1);
    while (p->slot[h]) {
        if (strcmp(p->s[p->slot[h] - 1], p->s[i]) == 0)
            return true; /* an equal string is indexed already (an adopted pool's) */
        h = (h + 1) & (p->nslots - 1);
    }
    p->slot[h] = i + 1;
    return true;
}

static bool pool_push(struct name_pool *p, char *s)
{
    if (p->n == p->cap) {
        size_t nc = p->cap ? 2 * p->cap : 32;
        char **g = realloc(p->s, nc * sizeof *g);
        if (!g)
            return false;
        p->s = g, p->cap = nc;
    }
    p->s[p->n] = s;
    if (!pool_index(p, p->n))
        return false;
    p->n++;
    return true;
}

size_t events_name_index(const event_list *e, const char *s)
{
    const struct name_pool *p = e->names;
    if (!s)
        s = "";
    if (p && p->nslots) {
        size_t h = name_hash(s) & (p->nslots - 1);
        for (; p->slot[h]; h = (h + 1) & (p->nslots - 1))
            if (strcmp(p->s[p->slot[h] - 1], s) == 0)
                return p->slot[h] - 1;
    }
    return SIZE_MAX;
}

const char *const *events_names(const event_list *e, size_t *n)
{
    *n = e->names ? e->names->n : 0;
    return e->names ? (const char *const *)e->names->s : NULL;
}

/* The pool's copy of s (added when new), or NULL when memory ran out. */
static char *intern(event_list *e, const char *s)
{
    if (!s)
        s = "";
    if (!e->names && !(e->names = calloc(1, sizeof *e->names)))
        return NULL;
    struct name_pool *p = e->names;
    size_t i = events_name_index(e, s);
    if (i != SIZE_MAX)
        return p->s[i];
    char *d = strdup(s);
    if (!d || !pool_push(p, d)) {
        free(d);
        return NULL;
    }
    return d;
}

bool events_adopt_names(event_list *dst, event_list *src)
{
    struct name_pool *from = src->names;
    if (!from)
        return true;
    if (!dst->names && !(dst->names = calloc(1, sizeof *dst->names)))
        return false;
    size_t moved = 0;
    while (moved < from->n && pool_push(dst->names, from->s[moved]))
        moved++;
    /* What was not adopted (memory ran out) stays src's, for its own events_clear. */
    memmove(from->s, from->s + moved, (from->n - moved) * sizeof *from->s);
    from->n -= moved;
    free(from->slot);
    from->slot = NULL;
    from->nslots = 0;
    return from->n == 0;
}

void events_clear(event_list *e)
{
    if (e->names) {
        for (size_t i = 0; i < e->names->n; i++)
            free(e->names->s[i]);
        free(e->names->s);
        free(e->names->slot);
        free(e->names);
    }
    spill_free(e->kernels);
    spill_free(e->apis);
    spill_free(e->copies);
    spill_free(e->memsets);
    spill_free(e->syncs);
    memset(e, 0, sizeof *e);
}

void model_free(run_model *m)
{
    for (int i = 0; i < m->builtin.nworkloads; i++)
        workload_clear(&m->builtin.workloads[i]);
    free(m->builtin.workloads);
    free(m->builtin.multi.pairs);
    events_clear(&m->events);
    for (int i = 0; i < m->nregions; i++) {
        free(m->regions[i].name);
        free(m->regions[i].domain);
    }
    free(m->regions);
    free(m->processes);
    free(m->threads);
    for (int i = 0; i < m->nwarnings; i++)
        free(m->warnings[i]);
    free(m->warnings);
    free(m->devices);
    free(m->command_line);
    for (int i = 0; i < m->nlaunch_counters; i++)
        free(m->launch_counters[i].name);
    free(m->launch_counters);
    free(m->capture.windows);
    host_activity_free(&m->host_activity);
    memory_activity_free(&m->memory);
    memset(m, 0, sizeof *m);
}

#define APPEND ARRAY_APPEND

workload_run *model_add_workload(run_model *m)
{
    builtin_run *b = &m->builtin;
    workload_run *p = realloc(b->workloads, (size_t)(b->nworkloads + 1) * sizeof *p);
    if (!p)
        return NULL;
    b->workloads = p;
    workload_run *w = &p[b->nworkloads++];
    memset(w, 0, sizeof *w);
    w->device = -1;
    w->n = b->n;
    w->noise_pct = -1;
    w->region = -1;
    return w;
}

void model_add_warning(run_model *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    str_list_vaddf(&m->warnings, &m->nwarnings, fmt, ap); /* a warning lost to memory is not the run's */
    va_end(ap);
}

/* Appends a copy of k, its name the list's (interned). */
static bool append_kernel(event_list *e, const kernel_event *k)
{
    kernel_event copy = *k;
    if (!(copy.name = intern(e, k->name)))
        return false;
    SPILL_APPEND(e->kernels, e->nkernels, copy);
    return true;
}

static bool append_api(event_list *e, const api_event *a)
{
    api_event copy = *a;
    if (!(copy.name = intern(e, a->name)))
        return false;
    SPILL_APPEND(e->apis, e->napis, copy);
    return true;
}

bool workload_add_product_ms(workload_run *w, double ms)
{
    size_t n = (size_t)w->nproduct_ms;
    APPEND(w->product_ms, n, ms);
    w->nproduct_ms = (int)n;
    return true;
}

bool workload_add_occ(workload_run *w, const occupancy_check *o)
{
    size_t n = (size_t)w->nocc;
    APPEND(w->occ, n, *o);
    w->nocc = (int)n;
    return true;
}

static bool add_counters(kernel_counters **arr, int *n, const kernel_counters *c)
{
    kernel_counters copy = *c;
    copy.name = strdup(c->name ? c->name : "");
    if (!copy.name)
        return false;
    void *grown = array_grow(*arr, (size_t)*n, sizeof **arr);
    if (!grown) {
        free(copy.name);
        return false;
    }
    *arr = grown;
    (*arr)[(*n)++] = copy;
    return true;
}

bool workload_add_counters(workload_run *w, const kernel_counters *c)
{
    return add_counters(&w->counters, &w->ncounters, c);
}

bool model_add_launch_counters(run_model *m, const kernel_counters *c)
{
    return add_counters(&m->launch_counters, &m->nlaunch_counters, c);
}

/* Each counter's JSON key beside the Nsight Compute metric that measures it: the names ncu uses
 * in its Speed of Light, Occupancy and Memory Workload sections, so the figures can be compared. */
static const struct {
    const char *key, *metric;
} counter_names[CTR_COUNT] = {
    [CTR_OCCUPANCY_PCT] = {"achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active"},
    [CTR_SM_PCT] = {"sm_throughput_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
    [CTR_MEM_PCT] = {"memory_throughput_pct", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    [CTR_DRAM_READ_BYTES] = {"dram_read_bytes", "dram__bytes_read.sum"},
    [CTR_DRAM_WRITE_BYTES] = {"dram_write_bytes", "dram__bytes_write.sum"},
    [CTR_L1_HIT_PCT] = {"l1_hit_pct", "l1tex__t_sector_hit_rate.pct"},
    [CTR_L2_HIT_PCT] = {"l2_hit_pct", "lts__t_sector_hit_rate.pct"},
    [CTR_FFMA] = {"ffma", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"},
    [CTR_FADD] = {"fadd", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"},
    [CTR_FMUL] = {"fmul", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"},
    [CTR_TENSOR_PCT] = {"tensor_pct", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"},
    [CTR_DRAM_PCT] = {"dram_throughput_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
    [CTR_L2_PCT] = {"l2_throughput_pct", "lts__throughput.avg.pct_of_peak_sustained_elapsed"},
    [CTR_L1_PCT] = {"l1_throughput_pct", "l1tex__throughput.avg.pct_of_peak_sustained_active"},
    [CTR_DURATION_NS] = {"duration_ns", "gpu__time_duration.sum"},
    [CTR_L2_PEAK_BYTES_PER_CYCLE] = {"l2_peak_bytes_per_cycle", "lts__t_bytes.sum.peak_sustained"},
    [CTR_L2_CYCLES_PER_SECOND] = {"l2_cycles_per_second", "lts__cycles_elapsed.avg.per_second"},
    [CTR_DRAM_PEAK_BYTES_PER_CYCLE] = {"dram_peak_bytes_per_cycle", "dram__bytes.sum.peak_sustained"},
    [CTR_DRAM_CYCLES_PER_SECOND] = {"dram_cycles_per_second", "dram__cycles_elapsed.avg.per_second"},
};

const char *counter_key(counter_id c) { return (unsigned)c < CTR_COUNT ? counter_names[c].key : "?"; }
const char *counter_metric_name(counter_id c) { return (unsigned)c < CTR_COUNT ? counter_names[c].metric : "?"; }

phase *workload_add_phase(workload_run *w, const char *name)
{
    if (w->nphases >= MAX_PHASES)
        return NULL;
    phase *p = &w->phases[w->nphases++];
    memset(p, 0, sizeof *p);
    copy_str(p->name, sizeof p->name, name);
    return p;
}

const phase *workload_find_phase(const workload_run *w, const char *name)
{
    for (int i = 0; i < w->nphases; i++)
        if (strcmp(w->phases[i].name, name) == 0)
            return &w->phases[i];
    return NULL;
}

bool workload_add_kernel(workload_run *w, const kernel_event *k) { return append_kernel(&w->timed, k); }
bool workload_add_copy(workload_run *w, const copy_event *c) { SPILL_APPEND(w->timed.copies, w->timed.ncopies, *c); return true; }
bool workload_add_memset(workload_run *w, const memset_event *s) { SPILL_APPEND(w->timed.memsets, w->timed.nmemsets, *s); return true; }
bool workload_add_api(workload_run *w, const api_event *a) { return append_api(&w->timed, a); }
bool workload_add_sync(workload_run *w, const sync_event *s) { SPILL_APPEND(w->timed.syncs, w->timed.nsyncs, *s); return true; }

/* The event store (event_owner in model.h says which region each event names). */
bool events_add_kernel(event_list *e, const kernel_event *k) { return append_kernel(e, k); }
bool events_add_api(event_list *e, const api_event *a) { return append_api(e, a); }

const char *events_intern(event_list *e, const char *name) { return intern(e, name); }
bool events_push_kernel(event_list *e, const kernel_event *k) { SPILL_APPEND(e->kernels, e->nkernels, *k); return true; }
bool events_push_api(event_list *e, const api_event *a) { SPILL_APPEND(e->apis, e->napis, *a); return true; }

bool events_add_copy(event_list *e, const copy_event *c) { SPILL_APPEND(e->copies, e->ncopies, *c); return true; }

bool events_add_memset(event_list *e, const memset_event *s) { SPILL_APPEND(e->memsets, e->nmemsets, *s); return true; }

bool events_add_sync(event_list *e, const sync_event *s) { SPILL_APPEND(e->syncs, e->nsyncs, *s); return true; }

static char *dup_or_null(const char *s, bool *ok)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *ok = false;
    return d;
}

static int append_region(run_model *m, region_kind kind, const char *name, const char *domain, int64_t start_ns,
                         int64_t end_ns, uint32_t pid, uint32_t tid, int parent)
{
    bool ok = true;
    region r = {0};
    r.name = dup_or_null(name ? name : "", &ok);
    r.domain = dup_or_null(domain, &ok);
    r.kind = kind;
    r.start_ns = start_ns;
    r.end_ns = end_ns;
    r.pid = pid;
    r.tid = tid;
    r.parent = parent;
    r.workload = -1;
    size_t n = (size_t)m->nregions;
    void *grown = ok ? array_grow(m->regions, n, sizeof *m->regions) : NULL;
    if (!grown) {
        free(r.name);
        free(r.domain);
        return -1;
    }
    m->regions = grown;
    m->regions[n] = r;
    m->nregions = (int)n + 1;
    return (int)n;
}

int model_add_region(run_model *m, region_kind kind, const char *name, const char *domain,
                     int64_t start_ns, int64_t end_ns, uint32_t pid, uint32_t tid, int parent)
{
    if (m->nregions == 0 && kind == REGION_RUN)
        return append_region(m, kind, name, domain, start_ns, end_ns, pid, tid, -1);
    /* The run comes first, so that no index given out ever moves; model_finish_regions names and
     * spans it. */
    if (m->nregions == 0 && append_region(m, REGION_RUN, "", NULL, start_ns, end_ns, 0, 0, -1) < 0)
        return -1;
    return append_region(m, kind, name, domain, start_ns, end_ns, pid, tid, parent < 0 ? 0 : parent);
}

bool model_add_process(run_model *m, uint32_t pid, const char *name)
{
    process_info p = {.pid = pid, .rank = -1, .world_size = -1, .local_rank = -1};
    copy_str(p.name, sizeof p.name, name);
    size_t n = (size_t)m->nprocesses;
    APPEND(m->processes, n, p);
    m->nprocesses = (int)n;
    return true;
}

void model_set_process_rank(run_model *m, uint32_t pid, int rank, int world_size, int local_rank, const char *host)
{
    for (int i = m->nprocesses - 1; i >= 0; i--) {
        process_info *p = &m->processes[i];
        if (p->pid != pid)
            continue;
        p->rank = rank;
        p->world_size = world_size;
        p->local_rank = local_rank;
        copy_str(p->host, sizeof p->host, host ? host : "");
        return;
    }
}

bool model_add_thread(run_model *m, uint32_t pid, uint32_t tid, const char *name)
{
    thread_info t = {.pid = pid, .tid = tid};
    copy_str(t.name, sizeof t.name, name);
    size_t n = (size_t)m->nthreads;
    APPEND(m->threads, n, t);
    m->nthreads = (int)n;
    return true;
}

/* Earliest start and latest end over intervals [s, e), folded into *lo and *hi. */
#define SPAN_OF(arr, count, lo, hi)                                                               \
    for (size_t i_ = 0; i_ < (count); i_++) {                                                     \
        if ((arr)[i_].start_ns < *(lo))                                                           \
            *(lo) = (arr)[i_].start_ns;                                                           \
        if ((arr)[i_].end_ns > *(hi))                                                             \
            *(hi) = (arr)[i_].end_ns;                                                             \
    }

static void event_span(const event_list *e, int64_t *lo, int64_t *hi)
{
    SPAN_OF(e->kernels, e->nkernels, lo, hi);
    SPAN_OF(e->copies, e->ncopies, lo, hi);
    SPAN_OF(e->memsets, e->nmemsets, lo, hi);
    SPAN_OF(e->apis, e->napis, lo, hi);
    SPAN_OF(e->syncs, e->nsyncs, lo, hi);
}

/* Labels as the reports and the NVTX ranges name them: "cuda-naive (pinned)", phase "copy-in". */
bool model_add_builtin_regions(run_model *m)
{
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        workload_run *w = &m->builtin.workloads[i];
        if (w->nphases == 0 || w->region > 0)
            continue;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        SPAN_OF(w->phases, (size_t)w->nphases, &lo, &hi);
        char label[64];
        workload_label(w, label, sizeof label);
        int wr = model_add_region(m, REGION_WORKLOAD, label, NULL, lo, hi, 0, 0, 0);
        if (wr < 0)
            return false;
        m->regions[wr].workload = i;
        w = &m->builtin.workloads[i];
        w->region = wr;
        for (int p = 0; p < w->nphases; p++) {
            int pr = model_add_region(m, REGION_PHASE, w->phases[p].name, NULL, w->phases[p].start_ns,
                                      w->phases[p].end_ns, 0, 0, wr);
            if (pr < 0)
                return false;
            m->regions[pr].workload = i;
        }
    }
    return true;
}

/* Moves every workload's timed events into the store, owned by the workload's region. */
static bool store_timed(run_model *m)
{
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        workload_run *w = &m->builtin.workloads[i];
        event_list *t = &w->timed;
        int owner = w->region > 0 ? w->region : 0;
        bool ok = true;
        for (size_t j = 0; ok && j < t->nkernels; j++)
            t->kernels[j].region = owner, ok = events_add_kernel(&m->events, &t->kernels[j]);
        for (size_t j = 0; ok && j < t->ncopies; j++)
            t->copies[j].region = owner, ok = events_add_copy(&m->events, &t->copies[j]);
        for (size_t j = 0; ok && j < t->nmemsets; j++)
            t->memsets[j].region = owner, ok = events_add_memset(&m->events, &t->memsets[j]);
        for (size_t j = 0; ok && j < t->napis; j++)
            t->apis[j].region = owner, ok = events_add_api(&m->events, &t->apis[j]);
        for (size_t j = 0; ok && j < t->nsyncs; j++)
            t->syncs[j].region = owner, ok = events_add_sync(&m->events, &t->syncs[j]);
        events_clear(t);
        if (!ok)
            return false;
    }
    return true;
}

bool model_finish_regions(run_model *m, const char *run_name)
{
    if (m->nregions == 0 && model_add_region(m, REGION_RUN, "", NULL, 0, 0, 0, 0, -1) < 0)
        return false;
    if (!model_add_builtin_regions(m) || !store_timed(m))
        return false;
    region *run = &m->regions[0];
    /* A run region a source made itself (it is named) keeps its span, widened to what it holds;
     * the one made for it here (unnamed) spans just what it holds. */
    bool named = run->name[0] != '\0';
    if (!named) {
        char *name = strdup(run_name ? run_name : "");
        if (!name)
            return false;
        free(run->name);
        run->name = name;
    }
    int64_t lo = named ? run->start_ns : INT64_MAX, hi = named ? run->end_ns : INT64_MIN;
    event_span(&m->events, &lo, &hi);
    /* The host's records too: a program sampled from its first NVTX call is recorded before its
     * first CUDA record, and the run (and its wall-time account) is all that was recorded. */
    const host_activity *h = &m->host_activity;
    for (size_t i = 0; i < h->nsamples; i++) {
        lo = h->samples[i].ts_ns < lo ? h->samples[i].ts_ns : lo;
        hi = h->samples[i].ts_ns > hi ? h->samples[i].ts_ns : hi;
    }
    for (size_t i = 0; i < h->nspans; i++) {
        lo = h->spans[i].start_ns < lo ? h->spans[i].start_ns : lo;
        hi = h->spans[i].end_ns > hi ? h->spans[i].end_ns : hi;
    }
    for (int i = 1; i < m->nregions; i++) {
        if (m->regions[i].start_ns < lo)
            lo = m->regions[i].start_ns;
        if (m->regions[i].end_ns > hi)
            hi = m->regions[i].end_ns;
    }
    if (lo > hi)
        lo = hi = 0;
    run->start_ns = lo;
    run->end_ns = hi;
    return true;
}

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Name tables: one place for the strings the JSON form and the reports share. Each enumeration
 * maps names through a value table, which also serves those numbered sparsely as CUPTI numbers
 * them. */
typedef struct {
    int value;
    const char *name;
} named_value;

static const char *value_name(const named_value *t, int n, int v, const char *fallback)
{
    for (int i = 0; i < n; i++)
        if (t[i].value == v)
            return t[i].name;
    return fallback;
}

static bool value_parse(const named_value *t, int n, const char *s, int *out)
{
    for (int i = 0; i < n; i++)
        if (s && strcmp(s, t[i].name) == 0) {
            *out = t[i].value;
            return true;
        }
    return false;
}

/* "host" is the name version 1 wrote for an unknown memory kind; "unknown" reads the same. */
static const named_value mem_kinds[] = {
    {MEM_PAGEABLE, "pageable"}, {MEM_PINNED, "pinned"}, {MEM_DEVICE, "device"}, {MEM_ARRAY, "array"},
    {MEM_MANAGED, "managed"}, {MEM_UNKNOWN, "host"}, {MEM_UNKNOWN, "unknown"},
};
static const named_value copy_dirs[] = {
    {COPY_H2D, "HtoD"}, {COPY_D2H, "DtoH"}, {COPY_D2D, "DtoD"}, {COPY_H2H, "HtoH"}, {COPY_P2P, "PtoP"},
    {COPY_OTHER, "other"},
};
static const named_value sync_kinds[] = {
    {SYNC_UNKNOWN, "unknown"}, {SYNC_EVENT, "event"}, {SYNC_STREAM_WAIT_EVENT, "stream-wait-event"},
    {SYNC_STREAM, "stream"}, {SYNC_CONTEXT, "context"},
};
static const named_value region_kinds[] = {
    {REGION_RUN, "run"}, {REGION_WORKLOAD, "workload"}, {REGION_PHASE, "phase"}, {REGION_NVTX, "nvtx"},
    {REGION_ANNOTATION, "annotation"}, {REGION_CAPTURE, "capture"},
};
static const named_value api_kinds[] = {{API_RUNTIME, "runtime"}, {API_DRIVER, "driver"}};
static const named_value timing_sources[] = {
    {TIMING_NONE, "none"}, {TIMING_CUPTI, "cupti"}, {TIMING_CUDA_EVENT, "cudaEvent"}, {TIMING_HOST_CLOCK, "host-clock"},
};
static const named_value statuses[] = {{WL_OK, "ok"}, {WL_FAILED, "failed"}, {WL_ERROR, "error"}, {WL_SKIPPED, "skipped"}};
static const named_value precisions[] = {{PREC_FP32, "fp32"}, {PREC_TF32, "tf32"}};
static const named_value sample_stops[] = {
    {STOP_UNKNOWN, "unknown"}, {STOP_NOISE, "noise"}, {STOP_TIME, "time"}, {STOP_REPEAT, "repeat"},
    {STOP_MAX_SAMPLES, "max-samples"},
};
static const named_value device_passes[] = {
    {PASS_ALONE, "alone"}, {PASS_SEQUENTIAL, "sequential"}, {PASS_CONCURRENT, "concurrent"},
};
static const named_value host_frame_kinds[] = {{HOST_FRAME_NATIVE, "native"}, {HOST_FRAME_PY, "py"}, {HOST_FRAME_OP, "op"}};
static const named_value host_sample_sources[] = {{HOST_SAMPLE_CPU, "cpu"}, {HOST_SAMPLE_PY, "py"}};

#define NAME_AND_PARSE(type, table, fallback, name_fn, parse_fn)                                  \
    const char *name_fn(type v) { return value_name(table, COUNT(table), (int)v, fallback); }      \
    bool parse_fn(const char *s, type *out)                                                       \
    {                                                                                             \
        int v;                                                                                    \
        if (!value_parse(table, COUNT(table), s, &v))                                             \
            return false;                                                                         \
        *out = (type)v;                                                                           \
        return true;                                                                              \
    }

NAME_AND_PARSE(mem_kind, mem_kinds, "host", mem_kind_name, mem_kind_parse)
NAME_AND_PARSE(copy_dir, copy_dirs, "other", copy_dir_name, copy_dir_parse)
NAME_AND_PARSE(sync_kind, sync_kinds, "unknown", sync_kind_name, sync_kind_parse)
NAME_AND_PARSE(region_kind, region_kinds, "run", region_kind_name, region_kind_parse)
NAME_AND_PARSE(api_kind, api_kinds, "runtime", api_kind_name, api_kind_parse)
NAME_AND_PARSE(timing_source, timing_sources, "none", timing_source_name, timing_source_parse)
NAME_AND_PARSE(workload_status, statuses, "error", status_name, status_parse)
NAME_AND_PARSE(precision, precisions, "fp32", precision_name, precision_parse)
NAME_AND_PARSE(sample_stop, sample_stops, "unknown", sample_stop_name, sample_stop_parse)
NAME_AND_PARSE(device_pass, device_passes, "alone", device_pass_name, device_pass_parse)
NAME_AND_PARSE(host_frame_kind, host_frame_kinds, "native", host_frame_kind_name, host_frame_kind_parse)
NAME_AND_PARSE(host_sample_source, host_sample_sources, "cpu", host_sample_source_name, host_sample_source_parse)

void workload_label(const workload_run *w, char *buf, size_t len)
{
    if (w->needs_gpu && (w->host_memory == MEM_PAGEABLE || w->host_memory == MEM_PINNED))
        snprintf(buf, len, "%s (%s)", w->name, mem_kind_name(w->host_memory));
    else
        snprintf(buf, len, "%s", w->name);
}
