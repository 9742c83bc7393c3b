/* Chrome trace event JSON from the run model. See trace.h.
 *
 * Events are gathered first, grouped by the logical thread they belong to ("stream 13", "H2D
 * copies"), then laid out: within a thread, sorted by start (longest first on ties), each event
 * goes to the first lane where it either starts after everything open has ended or fits inside
 * the innermost open range. A thread needing a second lane becomes two trace threads ("H2D
 * copies", "H2D copies (2)"). Then metadata and events are written, one per line, a call's, kernel's
 * or copy's name and args made from the model's event as it is written. */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "capture.h"
#include "host_idle.h"
#include "host_where.h"
#include "key_sort.h"
#include "source.h"
#include "strbuf.h"

/* Logical threads, ordered within their process by these bases (the sort index shown). */
enum {
    T_CAPTURE = 0,     /* profile's capture windows, first: what the rest was recorded in */
    T_TOOL = 1,        /* mmprof's own NVTX phases */
    T_WORKLOADS = 2,   /* each workload's span and its NVTX phases */
    T_API = 100,       /* + host thread number */
    T_H2D = 1000,
    T_STREAM = 2000,   /* + stream */
    T_D2H = 3000000,
    T_OTHER = 3000001, /* device to device and the rest */
};
#define T_RANGES (1LL << 40) /* + host thread: the timeline's NVTX ranges and annotations */
#define T_HOST (2LL << 40)   /* + process << 32 + host thread: its host samples and CPU spans */

#define HOST_PID 1
#define GPU_PID(dev) (10 + (int)(dev))

typedef struct {
    int pid;
    int64_t key;      /* one of the enum above, plus the stream or host thread */
    char name[64];
    int *lanes_tid;   /* trace tid of each lane */
    int nlanes;
} lthread;

/* What an event's name and args are made from: its own copies, or (the many: a long run's
 * hundreds of thousands of calls, kernels and copies) the model's event, described again when it
 * is written (describe), so that the trace holds 64 bytes per slice, not the text of each. */
typedef enum { SRC_OWN = 0, SRC_API, SRC_KERNEL, SRC_COPY } tevent_src;

typedef struct {
    int thread;       /* index into the thread table */
    int lane;
    int64_t start, end;
    const char *cat;
    union {
        struct {
            char *name;   /* owned */
            char *args;   /* owned: a JSON object */
        } own;            /* SRC_OWN */
        const void *src;  /* the api_event, kernel_event or copy_event */
    };
    char flow;        /* FLOW_FROM: a launching API call; FLOW_TO: a kernel or copy it launched */
    uint8_t src_kind; /* tevent_src */
    bool instant;     /* a host sample: an instant event ("ph":"i") */
    uint32_t flow_pid, flow_corr;
} tevent;
_Static_assert(sizeof(tevent) == 64, "a slice is one cache line");

enum { FLOW_NONE = 0, FLOW_FROM, FLOW_TO };

typedef struct {
    const analysis *a;
    lthread *threads;
    int nthreads;
    tevent *ev;
    size_t nev;      /* grown as array_grow.h's arrays */
    const host_site **sites; /* the host's call sites by process and correlation id */
    size_t nsites;
    trace_window win;
    strbuf scratch;          /* the args of the event being built (args_open) */
    /* Names as shown, by the stored name's pointer and kind (the store keeps each name once): a
     * run's million calls and kernels have a few dozen names, each demangled or cut once here. */
    struct {
        const char *stored;
        bool kernel;
        char *shown;
    } shown[256];
    const text_sink *sink;   /* where the text goes as it is written (render_trace_to), or NULL */
    bool oom;                /* out of memory, or the sink failed */
} trace;

/* The thread of (pid, key), -1 when there is none yet. */
static int find_thread(const trace *t, int pid, int64_t key)
{
    for (int i = 0; i < t->nthreads; i++)
        if (t->threads[i].pid == pid && t->threads[i].key == key)
            return i;
    return -1;
}

static int thread_of(trace *t, int pid, int64_t key, const char *name)
{
    int found = find_thread(t, pid, key);
    if (found >= 0)
        return found;
    lthread *p = realloc(t->threads, (size_t)(t->nthreads + 1) * sizeof *p);
    if (!p) {
        t->oom = true;
        return -1;
    }
    t->threads = p;
    lthread *th = &t->threads[t->nthreads];
    memset(th, 0, sizeof *th);
    th->pid = pid;
    th->key = key;
    snprintf(th->name, sizeof th->name, "%s", name);
    return t->nthreads++;
}

/* Room for one more event; false (and t->oom) when memory ran out. */
static bool room(trace *t)
{
    tevent *p = array_grow(t->ev, t->nev, sizeof *t->ev);
    if (!p) {
        t->oom = true;
        return false;
    }
    t->ev = p;
    return true;
}

/* A record with its end before its start (a clock hiccup) is kept, as an instant. */
static tevent slice(int thread, int64_t start, int64_t end, const char *cat)
{
    return (tevent){.thread = thread, .start = start, .end = end < start ? start : end, .cat = cat};
}

/* Adds an event with a copy of args (args_open's JSON object, at its exact length) and of name. */
static void add(trace *t, int thread, int64_t start, int64_t end, const char *name, const char *cat, strbuf *args)
{
    char *a = args->oom ? NULL : malloc(args->len + 1);
    if (a)
        memcpy(a, args->s, args->len + 1);
    char *n = a ? strdup(name) : NULL;
    if (thread < 0 || !n || t->oom || !room(t)) {
        free(a);
        free(n);
        t->oom = true;
        return;
    }
    tevent *e = &t->ev[t->nev++];
    *e = slice(thread, start, end, cat);
    e->own.name = n;
    e->own.args = a;
}

/* Adds an event described when it is written, from the model's event src. */
static void add_described(trace *t, int thread, int64_t start, int64_t end, const char *cat, tevent_src kind,
                          const void *src)
{
    if (thread < 0 || t->oom || !room(t)) {
        t->oom = true;
        return;
    }
    tevent *e = &t->ev[t->nev++];
    *e = slice(thread, start, end, cat);
    e->src_kind = (uint8_t)kind;
    e->src = src;
}

/* args helpers: each appends ,"key":value (the caller opens with '{' and closes with '}'). */
static void arg_key(strbuf *b, const char *key)
{
    sb_add(b, b->len > 1 ? ",\"" : "\"");
    sb_add(b, key);
    sb_add(b, "\":");
}

static void arg_str(strbuf *b, const char *key, const char *v)
{
    arg_key(b, key);
    sb_add(b, "\"");
    sb_json(b, v);
    sb_add(b, "\"");
}

/* A count or size the model recorded. */
static void arg_int(strbuf *b, const char *key, long long v)
{
    arg_key(b, key);
    sb_int(b, v);
}

/* A figure as the registry formats it (definition d), a JSON number; "n/a (why)" when it was not
 * measured. */
static void arg_metric(strbuf *b, const char *key, const metric_def *d, const metric *m)
{
    char v[64];
    metric_format(d, m, false, v, sizeof v);
    if (!m->ok) {
        char na[160];
        snprintf(na, sizeof na, "n/a (%s)", metric_why(m));
        arg_str(b, key, na);
        return;
    }
    /* JSON numbers have no plus sign, which a signed registry format writes (a change in %). */
    sb_printf(b, "%s\"%s\":%s", b->len > 1 ? "," : "", key, v[0] == '+' ? v + 1 : v);
}

/* Figure key of row (a struct table t describes), under its own key. */
static void arg_fig(strbuf *b, const metric_table *t, const void *row, const char *key)
{
    const metric_def *d;
    const metric *m = metric_get(t, row, key, &d);
    if (m)
        arg_metric(b, key, d, m);
}

/* The args of the next event: t's scratch, emptied and opened. */
static strbuf *args_open(trace *t, const workload_run *w)
{
    strbuf *b = &t->scratch;
    b->len = 0;
    sb_add(b, "{");
    if (w) {
        char label[64];
        workload_label(w, label, sizeof label);
        arg_str(b, "workload", label);
    }
    return b;
}

/* Marks the event just added as one end of a launch flow, matched by process and correlation id. */
static void link_last(trace *t, char role, uint32_t pid, uint32_t corr)
{
    if (t->oom || t->nev == 0 || corr == 0)
        return;
    tevent *e = &t->ev[t->nev - 1];
    e->flow = role;
    e->flow_pid = pid;
    e->flow_corr = corr;
}

/* ,"key":[frame, its caller, ...]: a host stack from its innermost node, named as host_where.h
 * names frames, at most HOST_STACK_ARGS of them. */
#define HOST_STACK_ARGS 32
static void arg_stack(strbuf *b, const host_activity *h, const char *key, int node)
{
    sb_printf(b, "%s\"%s\":[", b->len > 1 ? "," : "", key);
    for (int i = node, k = 0; i >= 0 && i < h->nframes && k < HOST_STACK_ARGS; i = h->frames[i].parent, k++) {
        char name[HOST_NAME];
        host_frame_name(&h->frames[i], true, name, sizeof name);
        sb_add(b, k ? ",\"" : "\"");
        sb_json(b, name);
        sb_add(b, "\"");
    }
    sb_add(b, "]");
}

/* The call site of a launch, copy or call (call_sites.h) as its args: the user's line it was made
 * from as the call-site table says it (site_line.h), and its own host stack. */
static void arg_site(const trace *t, strbuf *b, uint32_t pid, uint32_t corr)
{
    const host_site *hit = t->a->host ? host_site_find(t->sites, t->nsites, pid, corr) : NULL;
    if (!hit)
        return;
    const host_activity *h = &t->a->m->host_activity;
    char at[HOST_NAME];
    site_line_words(h, site_line_of(t->a->host->lines, hit), at, sizeof at);
    if (at[0])
        arg_str(b, "launched_from", at);
    arg_stack(b, h, "host_stack", hit->frame);
}

/* The host's samples (instants) and CPU spans, on one track per thread ("host (process 42 thread 7)"). */
static void gather_host(trace *t)
{
    const host_activity *h = &t->a->m->host_activity;
    for (size_t i = 0; i < h->nsamples && !t->oom; i++) {
        const host_sample *s = &h->samples[i];
        if (s->ts_ns >= t->win.host_cut)
            continue;
        char tname[64], name[HOST_NAME] = "(no stack)";
        snprintf(tname, sizeof tname, "host (process %u thread %u)", s->pid, s->tid);
        if (s->frame >= 0 && s->frame < h->nframes)
            host_frame_name(&h->frames[s->frame], true, name, sizeof name);
        strbuf *args = args_open(t, NULL);
        arg_str(args, "source", host_sample_source_name(s->source));
        if (s->state)
            arg_str(args, "state", (char[]){s->state, '\0'});
        arg_stack(args, h, "stack", s->frame);
        sb_add(args, "}");
        add(t, thread_of(t, HOST_PID, T_HOST + ((int64_t)s->pid << 32) + s->tid, tname), s->ts_ns, s->ts_ns, name,
            "host_sample", args);
        if (!t->oom)
            t->ev[t->nev - 1].instant = true;
    }
    for (size_t i = 0; i < h->nspans && !t->oom; i++) {
        const host_span *s = &h->spans[i];
        if (s->start_ns >= t->win.host_cut)
            continue;
        char tname[64], name[HOST_NAME] = "?";
        snprintf(tname, sizeof tname, "host (process %u thread %u)", s->pid, s->tid);
        if (s->frame >= 0 && s->frame < h->nframes)
            host_frame_name(&h->frames[s->frame], true, name, sizeof name);
        strbuf *args = args_open(t, NULL);
        sb_add(args, "}");
        add(t, thread_of(t, HOST_PID, T_HOST + ((int64_t)s->pid << 32) + s->tid, tname), s->start_ns, s->end_ns,
            name, "cpu_span", args);
    }
}

static const kernel_summary *summary_of(const workload_metrics *r, const char *name)
{
    for (int i = 0; i < r->nkernels; i++)
        if (strcmp(r->kernels[i].name, name) == 0)
            return &r->kernels[i];
    return NULL;
}

static void dims(const int d[3], char *buf, size_t len)
{
    snprintf(buf, len, "%dx%dx%d", d[0], d[1], d[2]);
}

/* The name a kernel (kernel_display_name) or an API call (api_display_name) is shown by; NULL when
 * memory ran out. */
static const char *shown_name(trace *t, const char *stored, bool kernel)
{
    size_t slot = (size_t)((((uintptr_t)stored >> 4) * 0x9E3779B97F4A7C15ull) >> 56);
    if (t->shown[slot].shown && t->shown[slot].stored == stored && t->shown[slot].kernel == kernel)
        return t->shown[slot].shown;
    char name[512];
    if (kernel)
        kernel_display_name(stored, name, sizeof name);
    else
        api_display_name(stored, name, 128);
    free(t->shown[slot].shown);
    t->shown[slot].stored = stored;
    t->shown[slot].kernel = kernel;
    t->shown[slot].shown = strdup(name);
    t->oom |= !t->shown[slot].shown;
    return t->shown[slot].shown;
}

/* The built-in workload that owns events of region g (its figures), or NULL. */
static const workload_metrics *owner_of(const analysis *a, int g)
{
    int w = g > 0 && g < a->m->nregions ? a->m->regions[g].workload : -1;
    return w >= 0 && w < a->nwl ? &a->wl[w] : NULL;
}

static const workload_run *owner_run(const analysis *a, int g)
{
    const workload_metrics *r = owner_of(a, g);
    return r ? r->w : NULL;
}

/* One CUDA API call on its host thread, named without its version suffix. */
static void add_api(trace *t, const api_event *e)
{
    if (e->start_ns >= t->win.host_cut)
        return;
    int th = find_thread(t, HOST_PID, T_API + e->thread);
    if (th < 0) {
        char name[48];
        snprintf(name, sizeof name, "CUDA API (thread %u)", e->thread);
        th = thread_of(t, HOST_PID, T_API + e->thread, name);
    }
    add_described(t, th, e->start_ns, e->end_ns, "cuda_api", SRC_API, e);
    link_last(t, FLOW_FROM, e->pid, e->correlation);
}

/* Its name and args, in t's scratch (NULL when memory ran out). */
static const char *describe_api(trace *t, const api_event *e)
{
    strbuf *args = args_open(t, owner_run(t->a, e->region));
    arg_int(args, "correlation", e->correlation);
    arg_site(t, args, e->pid, e->correlation);
    sb_add(args, "}");
    return shown_name(t, e->name, false);
}

/* One kernel on its stream's thread. */
static void add_kernel(trace *t, const kernel_event *k)
{
    if (k->start_ns >= t->win.gpu_cut)
        return;
    int th = find_thread(t, GPU_PID(k->device), T_STREAM + k->stream);
    if (th < 0) {
        char tname[48];
        snprintf(tname, sizeof tname, "stream %u", k->stream);
        th = thread_of(t, GPU_PID(k->device), T_STREAM + k->stream, tname);
    }
    add_described(t, th, k->start_ns, k->end_ns, "kernel", SRC_KERNEL, k);
    link_last(t, FLOW_TO, k->pid, k->correlation);
}

/* Its name and args, as describe_api; its workload's figures (none outside every workload) give
 * its occupancy. */
static const char *describe_kernel(trace *t, const kernel_event *k)
{
    const workload_metrics *r = owner_of(t->a, k->region);
    const workload_run *w = r ? r->w : NULL;
    char g[48], bl[48];
    dims(k->grid, g, sizeof g);
    dims(k->block, bl, sizeof bl);
    strbuf *args = args_open(t, w);
    arg_str(args, "grid", g);
    arg_str(args, "block", bl);
    if (k->has_resources) {
        arg_int(args, "registers", k->registers);
        arg_int(args, "static_smem", k->static_smem);
        arg_int(args, "dynamic_smem", k->dynamic_smem);
        arg_int(args, "local_mem", k->local_mem);
    } else {
        char why[96];
        snprintf(why, sizeof why, "not recorded (%s timing)", w ? timing_source_name(w->timing) : "trace");
        arg_str(args, "registers", why);
    }
    const kernel_summary *s = r ? summary_of(r, k->name) : NULL;
    if (s)
        arg_fig(args, &kernel_summary_table, s, "occupancy_pct");
    if (s && s->occupancy_pct.ok) {
        arg_str(args, "occupancy_limiter", s->limiter[0] ? s->limiter : "none");
        arg_int(args, "blocks_per_sm", s->active_blocks);
    }
    arg_int(args, "stream", k->stream);
    arg_int(args, "correlation", k->correlation);
    arg_str(args, "mangled", k->name);
    arg_site(t, args, k->pid, k->correlation);
    sb_add(args, "}");
    return shown_name(t, k->name, true);
}

static const char *copy_dir_shown(const copy_event *c)
{
    return c->dir == COPY_H2D ? "H2D" : c->dir == COPY_D2H ? "D2H" : c->dir == COPY_D2D ? "D2D" : "other";
}

static void add_copy(trace *t, const copy_event *c)
{
    if (c->start_ns >= t->win.gpu_cut)
        return;
    int64_t key = c->dir == COPY_H2D ? T_H2D : c->dir == COPY_D2H ? T_D2H : T_OTHER;
    char tname[48];
    snprintf(tname, sizeof tname, "%s copies", key == T_OTHER ? "other" : copy_dir_shown(c));
    add_described(t, thread_of(t, GPU_PID(c->device), key, tname), c->start_ns, c->end_ns, "memcpy", SRC_COPY, c);
    link_last(t, FLOW_TO, c->pid, c->correlation);
}

/* Its name (into name) and args, as describe_api. */
static const char *describe_copy(trace *t, const copy_event *c, char *name, size_t len)
{
    snprintf(name, len, "%s %s", copy_dir_shown(c), mem_kind_name(c->dir == COPY_D2H ? c->dst : c->src));
    strbuf *args = args_open(t, owner_run(t->a, c->region));
    arg_int(args, "bytes", (long long)c->bytes);
    /* The copy's own bandwidth, bytes over its duration, formatted as the registry formats the
     * GB/s of copies. */
    double ns = (double)(c->end_ns - c->start_ns);
    if (ns > 0) {
        metric gbps;
        metric_set(&gbps, (double)c->bytes / ns);
        arg_metric(args, "GB/s", metric_find(&copy_flow_table, "gbps"), &gbps);
    }
    arg_str(args, "src", mem_kind_name(c->src));
    arg_str(args, "dst", mem_kind_name(c->dst));
    arg_int(args, "stream", c->stream);
    arg_int(args, "correlation", c->correlation);
    arg_site(t, args, c->pid, c->correlation);
    sb_add(args, "}");
    return name;
}

/* e's name, and its args in t's scratch or its own: NULL (and t->oom) when memory ran out. */
static const char *describe(trace *t, const tevent *e, const char **args, char *name, size_t len)
{
    const char *n;
    switch ((tevent_src)e->src_kind) {
    case SRC_OWN: *args = e->own.args; return e->own.name;
    case SRC_API: n = describe_api(t, e->src); break;
    case SRC_KERNEL: n = describe_kernel(t, e->src); break;
    default: n = describe_copy(t, e->src, name, len); break;
    }
    *args = t->scratch.s;
    t->oom |= !n || t->scratch.oom;
    return t->oom ? NULL : n;
}

/* Every event of the store (a built-in workload's with its workload's figures) and the NVTX
 * ranges and annotations of the timeline, each range on a thread of its own per host thread. */
static void gather_run(trace *t)
{
    const run_model *m = t->a->m;
    const event_list *e = &m->events;
    for (size_t i = 0; i < e->napis; i++)
        add_api(t, &e->apis[i]);
    for (size_t i = 0; i < e->nkernels; i++)
        add_kernel(t, &e->kernels[i]);
    for (size_t i = 0; i < e->ncopies; i++)
        add_copy(t, &e->copies[i]);
    /* profile's capture windows (capture.h), on a track of their own: each span with why it opened
     * and closed and what went unrecorded around it, as the report's capture table has them. */
    for (int i = 0; i < t->a->ncapture; i++) {
        const capture_metrics *c = &t->a->capture[i];
        const capture_window *w = &m->capture.windows[c->window];
        char name[96];
        snprintf(name, sizeof name, "capture %d: %s to %s", w->number, w->began, w->ended);
        strbuf *args = args_open(t, NULL);
        arg_int(args, "pid", w->pid);
        arg_str(args, "opened", w->began_detail);
        arg_str(args, "closed", w->ended_detail);
        static const char *const keys[] = {"wall_ms", "kernels", "before_ms", "calls_before", "after_ms", "calls_after"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            arg_fig(args, &capture_table, c, keys[k]);
        sb_add(args, "}");
        add(t, thread_of(t, HOST_PID, T_CAPTURE, "capture windows"), w->start_ns, w->end_ns, name, "capture", args);
    }
    for (int i = 0; i < m->nregions; i++) {
        const region *rg = &m->regions[i];
        if (rg->kind != REGION_NVTX && rg->kind != REGION_ANNOTATION)
            continue;
        char tname[64];
        snprintf(tname, sizeof tname, "%s (thread %u)", rg->kind == REGION_NVTX ? "NVTX" : "annotations", rg->tid);
        strbuf *args = args_open(t, NULL);
        if (rg->domain)
            arg_str(args, "domain", rg->domain);
        sb_add(args, "}");
        add(t, thread_of(t, HOST_PID, T_RANGES + rg->tid, tname), rg->start_ns, rg->end_ns, rg->name,
            rg->kind == REGION_NVTX ? "nvtx" : "annotation", args);
    }
}

static void gather_workload(trace *t, const workload_metrics *r)
{
    const workload_run *w = r->w;
    char label[64];
    workload_label(w, label, sizeof label);
    int wt = thread_of(t, HOST_PID, T_WORKLOADS, "workloads (NVTX)");
    if (w->nphases > 0) {
        int64_t lo = w->phases[0].start_ns, hi = w->phases[0].end_ns;
        for (int i = 1; i < w->nphases; i++) {
            lo = w->phases[i].start_ns < lo ? w->phases[i].start_ns : lo;
            hi = w->phases[i].end_ns > hi ? w->phases[i].end_ns : hi;
        }
        strbuf *args = args_open(t, NULL);
        arg_str(args, "status", status_name(w->status));
        arg_str(args, "timing", timing_source_name(w->timing));
        arg_int(args, "repeat", w->repeat);
        if (r->verdict != VERDICT_NONE)
            arg_str(args, "verdict", verdict_name(r->verdict));
        sb_add(args, "}");
        add(t, wt, lo, hi, label, "workload", args);
    }
    for (int i = 0; i < w->nphases; i++) {
        strbuf *args = args_open(t, w);
        sb_add(args, "}");
        add(t, wt, w->phases[i].start_ns, w->phases[i].end_ns, w->phases[i].name, "nvtx", args);
    }
}

/* Events by thread, then start, the enclosing range first (the later end); equal ones as they
 * came: their indices sorted (stably) by the last of those first, then the events moved once. */
static uint64_t event_end_desc(const void *i, const void *ev)
{
    return key_descending(key_of_i64(((const tevent *)ev)[*(const size_t *)i].end));
}

static uint64_t event_start(const void *i, const void *ev)
{
    return key_of_i64(((const tevent *)ev)[*(const size_t *)i].start);
}

static uint64_t event_thread(const void *i, const void *ev)
{
    return (uint64_t)((const tevent *)ev)[*(const size_t *)i].thread;
}

static bool sort_events(trace *t)
{
    size_t n = t->nev;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    bool ok = order != NULL;
    for (size_t i = 0; ok && i < n; i++)
        order[i] = i;
    ok = ok && key_sort(order, n, sizeof *order, event_end_desc, t->ev) &&
         key_sort(order, n, sizeof *order, event_start, t->ev) && key_sort(order, n, sizeof *order, event_thread, t->ev);
    /* Moved into place along the permutation's cycles (order[k] is the event that goes to k), each
     * place marked done by setting order[k] to itself: no second array of events. */
    for (size_t i = 0; ok && i < n; i++) {
        if (order[i] == i)
            continue;
        tevent first = t->ev[i];
        size_t k = i;
        while (order[k] != i) {
            size_t from = order[k];
            t->ev[k] = t->ev[from];
            order[k] = k;
            k = from;
        }
        t->ev[k] = first;
        order[k] = k;
    }
    free(order);
    return ok;
}

/* Lays out one logical thread's events (ev[from, to), sorted) in lanes; returns the lane count
 * or -1 when memory ran out. Each lane keeps a stack of the ends of its open ranges. */
static int lay_out(tevent *ev, size_t from, size_t to)
{
    size_t n = to - from;
    int64_t **stack = calloc(n ? n : 1, sizeof *stack); /* per lane, room for every event */
    size_t *depth = calloc(n ? n : 1, sizeof *depth);
    int nlanes = 0;
    bool ok = stack && depth;
    for (size_t i = from; i < to && ok; i++) {
        tevent *e = &ev[i];
        int lane = -1;
        for (int l = 0; l < nlanes && lane < 0; l++) {
            while (depth[l] > 0 && stack[l][depth[l] - 1] <= e->start)
                depth[l]--;
            if (depth[l] == 0 || stack[l][depth[l] - 1] >= e->end)
                lane = l;
        }
        if (lane < 0) {
            lane = nlanes;
            stack[lane] = malloc(n * sizeof **stack);
            if (!stack[lane]) {
                ok = false;
                break;
            }
            nlanes++;
        }
        stack[lane][depth[lane]++] = e->end;
        e->lane = lane;
    }
    for (int l = 0; l < nlanes; l++)
        free(stack[l]);
    free(stack);
    free(depth);
    return ok ? nlanes : -1;
}

static void us(strbuf *b, int64_t ns)
{
    /* Microseconds with the nanoseconds kept exactly: integer arithmetic, no rounding. */
    int64_t mag = ns < 0 ? -ns : ns;
    char frac[5] = {'.', (char)('0' + mag % 1000 / 100), (char)('0' + mag % 100 / 10), (char)('0' + mag % 10), '\0'};
    if (ns < 0)
        sb_add(b, "-");
    sb_int(b, mag / 1000);
    sb_addn(b, frac, 4);
}

/* ,"pid":P,"tid":T,"ts": */
static void pid_tid(strbuf *b, int pid, int tid)
{
    sb_add(b, ",\"pid\":");
    sb_int(b, pid);
    sb_add(b, ",\"tid\":");
    sb_int(b, tid);
    sb_add(b, ",\"ts\":");
}

static void meta(strbuf *b, const char *what, int pid, int tid, const char *key, const char *sval, long ival)
{
    sb_printf(b, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"%s\":", what, pid, tid, key);
    if (sval) {
        sb_add(b, "\"");
        sb_json(b, sval);
        sb_add(b, "\"");
    } else {
        sb_printf(b, "%ld", ival);
    }
    sb_add(b, "}},\n");
}

/* The text so far handed to the sink once it passes trace_spill_bytes, all but its last byte: a
 * line's "\n", which more() may still make ",\n". A long run's trace is hundreds of megabytes. */
size_t trace_spill_bytes = 1u << 20;

static void spill(trace *t, strbuf *b)
{
    if (!t->sink || t->oom || b->oom || b->len < trace_spill_bytes)
        return;
    if (!sink_write(t->sink, b->s, b->len - 1)) {
        t->oom = true;
        return;
    }
    b->s[0] = b->s[b->len - 1];
    b->s[1] = '\0';
    b->len = 1;
}

/* The document's last line ends "}\n": another event follows it. */
static void more(strbuf *b)
{
    if (b->len > 0 && b->s[b->len - 1] == '\n')
        b->len--;
    sb_add(b, ",\n");
}

typedef struct {
    uint32_t pid, corr;
    size_t ev;
} flow_end;

static int cmp_flow_end(const void *pa, const void *pb)
{
    const flow_end *a = pa, *b = pb;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    return (a->corr > b->corr) - (a->corr < b->corr);
}

/* Flow arrows from each launching API call to the kernel or copy it launched ('s' on the call,
 * 'f' bound to the enclosing slice on the GPU), matched by process and correlation id. */
static void write_flows(trace *t, strbuf *b)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nev; i++)
        n += t->ev[i].flow == FLOW_FROM;
    if (n == 0)
        return;
    flow_end *from = malloc(n * sizeof *from);
    if (!from) {
        t->oom = true;
        return;
    }
    n = 0;
    for (size_t i = 0; i < t->nev; i++)
        if (t->ev[i].flow == FLOW_FROM)
            from[n++] = (flow_end){t->ev[i].flow_pid, t->ev[i].flow_corr, i};
    qsort(from, n, sizeof *from, cmp_flow_end);
    const int64_t epoch = t->a->m->epoch_ns;
    unsigned long id = 0;
    for (size_t i = 0; i < t->nev; i++) {
        const tevent *g = &t->ev[i];
        if (g->flow != FLOW_TO)
            continue;
        flow_end key = {g->flow_pid, g->flow_corr, 0};
        const flow_end *f = bsearch(&key, from, n, sizeof *from, cmp_flow_end);
        if (!f)
            continue;
        const tevent *api = &t->ev[f->ev];
        const lthread *ta = &t->threads[api->thread], *tg = &t->threads[g->thread];
        id++;
        more(b);
        sb_add(b, "{\"name\":\"launch\",\"cat\":\"launch\",\"ph\":\"s\",\"id\":");
        sb_int(b, (long long)id);
        pid_tid(b, ta->pid, ta->lanes_tid[api->lane]);
        us(b, api->start - epoch);
        sb_add(b, "},\n{\"name\":\"launch\",\"cat\":\"launch\",\"ph\":\"f\",\"bp\":\"e\",\"id\":");
        sb_int(b, (long long)id);
        pid_tid(b, tg->pid, tg->lanes_tid[g->lane]);
        us(b, g->start - epoch);
        sb_add(b, "}\n");
        spill(t, b);
    }
    free(from);
}

/* A "GPU busy %" counter per GPU, from analysis's series (analysis.busy): at each stretch of
 * activity how busy the GPU was inside it (as the registry formats it), and 0 between stretches.
 * A stretch that is an instant has no share to show, and is left out. */
static void write_busy_counter(trace *t, strbuf *b, int pid)
{
    const analysis *a = t->a;
    const metric_def *d = metric_find(&busy_span_table, "busy_pct");
    for (int i = 0; i < a->nbusy; i++) {
        const busy_span *p = &a->busy[i];
        if (GPU_PID(p->device) != pid || !p->busy_pct.ok)
            continue;
        char pct[32];
        metric_format(d, &p->busy_pct, false, pct, sizeof pct);
        more(b);
        sb_printf(b, "{\"name\":\"GPU busy\",\"ph\":\"C\",\"pid\":%d,\"ts\":", pid);
        us(b, p->start_ns - a->m->epoch_ns);
        sb_printf(b, ",\"args\":{\"busy %%\":%s}}\n", pct);
        more(b);
        sb_printf(b, "{\"name\":\"GPU busy\",\"ph\":\"C\",\"pid\":%d,\"ts\":", pid);
        us(b, p->end_ns - a->m->epoch_ns);
        sb_add(b, ",\"args\":{\"busy %\":0}}\n");
    }
}

static void write_counters(trace *t, strbuf *b)
{
    for (int i = 0; i < t->nthreads && !t->oom; i++) {
        int pid = t->threads[i].pid;
        bool first = pid != HOST_PID;
        for (int j = 0; j < i; j++)
            first &= t->threads[j].pid != pid;
        if (first)
            write_busy_counter(t, b, pid);
    }
}

/* ---- a long run's window (trace.h) ---- */

size_t trace_max_events = TRACE_MAX_EVENTS;

/* Slices kept whatever the run's length: mmprof's phases, workloads and their phases, capture
 * windows, NVTX ranges and annotations. */
static size_t always_kept(const analysis *a)
{
    const run_model *m = a->m;
    size_t n = (size_t)m->builtin.ntool_phases + (size_t)a->ncapture;
    for (int i = 0; i < a->nwl; i++)
        n += (size_t)(a->wl[i].w->nphases > 0) + (size_t)a->wl[i].w->nphases;
    for (int i = 0; i < m->nregions; i++)
        n += m->regions[i].kind == REGION_NVTX || m->regions[i].kind == REGION_ANNOTATION;
    return n;
}

/* The starts of the host's slices (API calls, samples, spans) and, with gpu, of the GPU's
 * (kernels, copies), sorted as keys; NULL when memory ran out. */
static uint64_t *starts(const run_model *m, bool gpu, size_t *n)
{
    const event_list *e = &m->events;
    const host_activity *h = &m->host_activity;
    *n = e->napis + h->nsamples + h->nspans + (gpu ? e->nkernels + e->ncopies : 0);
    uint64_t *s = malloc((*n ? *n : 1) * sizeof *s);
    if (!s)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < e->napis; i++)
        s[k++] = key_of_i64(e->apis[i].start_ns);
    for (size_t i = 0; i < h->nsamples; i++)
        s[k++] = key_of_i64(h->samples[i].ts_ns);
    for (size_t i = 0; i < h->nspans; i++)
        s[k++] = key_of_i64(h->spans[i].start_ns);
    for (size_t i = 0; gpu && i < e->nkernels; i++)
        s[k++] = key_of_i64(e->kernels[i].start_ns);
    for (size_t i = 0; gpu && i < e->ncopies; i++)
        s[k++] = key_of_i64(e->copies[i].start_ns);
    if (!key_sort_plain(s, k)) {
        free(s);
        return NULL;
    }
    return s;
}

bool trace_window_of(const analysis *a, trace_window *w)
{
    const run_model *m = a->m;
    const event_list *e = &m->events;
    const host_activity *h = &m->host_activity;
    size_t always = always_kept(a), gpu = e->nkernels + e->ncopies, host = e->napis + h->nsamples + h->nspans;
    *w = (trace_window){false, INT64_MAX, INT64_MAX, always + gpu + host, always + gpu + host};
    if (w->total <= trace_max_events)
        return true;
    size_t budget = always < trace_max_events ? trace_max_events - always : 0;
    bool gpu_too = gpu > budget; /* the GPU work alone is over: it is windowed with the rest */
    size_t n;
    uint64_t *s = starts(m, gpu_too, &n);
    if (!s)
        return false;
    size_t room = gpu_too ? budget : budget - gpu;
    if (room >= n) { /* over only by what is always kept: nothing to cut */
        free(s);
        return true;
    }
    /* The cut: the first start past the room; slices sharing it go too, so the kept are at most
     * the budget. */
    int64_t cut = i64_of_key(s[room]);
    size_t kept = room;
    while (kept > 0 && i64_of_key(s[kept - 1]) == cut)
        kept--;
    free(s);
    w->windowed = true;
    w->host_cut = cut;
    w->gpu_cut = gpu_too ? cut : INT64_MAX;
    w->kept = always + (gpu_too ? 0 : gpu) + kept;
    return true;
}

/* The window in words, for the trace and for stderr. */
static void window_words(const analysis *a, const trace_window *w, char *buf, size_t len)
{
    const run_model *m = a->m;
    int64_t t0 = m->nregions > 0 ? m->regions[0].start_ns : m->epoch_ns;
    int64_t t1 = m->nregions > 0 ? m->regions[0].end_ns : t0;
    snprintf(buf, len,
             "the run has %zu slices, more than the %zu a trace holds: this one keeps %zu, its %sNVTX ranges and "
             "capture windows whole and %s of its first %s of %s (the rest left out); the JSON and text "
             "reports have every figure, and profile --duration or --capture-range records a window of your choosing",
             w->total, trace_max_events, w->kept, w->gpu_cut == INT64_MAX ? "kernels, copies, " : "",
             w->gpu_cut == INT64_MAX ? "the CUDA API calls, host samples and CPU spans" : "the rest",
             value_text(&report_value_table, "trace_window_s", (double)(w->host_cut - t0) / 1e9, true).s,
             value_text(&report_value_table, "trace_window_s", (double)(t1 - t0) / 1e9, true).s);
}

void trace_window_note(const analysis *a, const char *path, FILE *err)
{
    trace_window w;
    if (!trace_window_of(a, &w) || !w.windowed)
        return;
    char words[512];
    window_words(a, &w, words, sizeof words);
    fprintf(err, "mmprof: note: --trace '%s': %s\n", path, words);
}

static void write_doc(trace *t, strbuf *b)
{
    const run_model *m = t->a->m;
    sb_add(b, "{\"traceEvents\":[\n");
    /* Processes: the host first, then each GPU that has events (or is in the run). */
    meta(b, "process_name", HOST_PID, 0, "name", "host: mmprof", 0);
    meta(b, "process_sort_index", HOST_PID, 0, "sort_index", NULL, 0);
    for (int i = 0; i < t->nthreads; i++) {
        int pid = t->threads[i].pid;
        bool first = true;
        for (int j = 0; j < i; j++)
            first &= t->threads[j].pid != pid;
        if (pid == HOST_PID || !first)
            continue;
        int dev = pid - GPU_PID(0);
        char name[192];
        const device_info *d = NULL;
        for (int k = 0; k < m->ndevices; k++)
            if (m->devices[k].index == dev)
                d = &m->devices[k];
        if (d)
            snprintf(name, sizeof name, "GPU %d: %s", dev, d->name);
        else
            snprintf(name, sizeof name, "GPU %d", dev);
        meta(b, "process_name", pid, 0, "name", name, 0);
        meta(b, "process_sort_index", pid, 0, "sort_index", NULL, pid);
    }
    for (int i = 0; i < t->nthreads; i++) {
        const lthread *th = &t->threads[i];
        for (int l = 0; l < th->nlanes; l++) {
            char name[80];
            if (l == 0)
                snprintf(name, sizeof name, "%s", th->name);
            else
                snprintf(name, sizeof name, "%s (%d)", th->name, l + 1);
            meta(b, "thread_name", th->pid, th->lanes_tid[l], "name", name, 0);
            meta(b, "thread_sort_index", th->pid, th->lanes_tid[l], "sort_index", NULL, th->lanes_tid[l]);
        }
    }
    for (size_t i = 0; i < t->nev && !t->oom; i++) {
        const tevent *e = &t->ev[i];
        const lthread *th = &t->threads[e->thread];
        char own[64];
        const char *args, *name = describe(t, e, &args, own, sizeof own);
        if (!name)
            break;
        sb_add(b, "{\"name\":\"");
        sb_json(b, name);
        sb_add(b, "\",\"cat\":\"");
        sb_add(b, e->cat);
        sb_add(b, e->instant ? "\",\"ph\":\"i\"" : "\",\"ph\":\"X\"");
        pid_tid(b, th->pid, th->lanes_tid[e->lane]);
        us(b, e->start - m->epoch_ns);
        if (e->instant) {
            sb_add(b, ",\"s\":\"t\"");
        } else {
            sb_add(b, ",\"dur\":");
            us(b, e->end - e->start);
        }
        sb_add(b, ",\"args\":");
        sb_add(b, args);
        sb_add(b, i + 1 < t->nev ? "},\n" : "}\n");
        spill(t, b);
    }
    if (t->nev == 0 && b->len >= 2 && b->s[b->len - 2] == ',') {
        /* No events: drop the last metadata line's comma. */
        b->len -= 2;
        sb_add(b, "\n");
    } else if (t->nev > 0) {
        write_flows(t, b);
        write_counters(t, b);
    }
    sb_add(b, "],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"tool\":\"mmprof ");
    sb_json(b, m->tool_version);
    sb_add(b, "\",\"command_line\":\"");
    sb_json(b, m->command_line ? m->command_line : "");
    sb_add(b, "\",\"started_at\":\"");
    sb_json(b, m->started_at);
    sb_add(b, "\"");
    /* The matrix size is a built-in run's; other sources have none to give. */
    if (source_has(m->source, HAS_WORKLOADS) && m->builtin.n > 0)
        sb_printf(b, ",\"n\":%d", m->builtin.n);
    sb_add(b, ",\"time_origin\":\"the run's start; times in microseconds\"");
    if (t->win.windowed) {
        char words[512];
        window_words(t->a, &t->win, words, sizeof words);
        sb_add(b, ",\"windowed\":\"");
        sb_json(b, words);
        sb_add(b, "\"");
    }
    sb_add(b, "}}\n");
}

/* Tids: the host's threads in key order, then each GPU's; each lane its own tid. */
static int cmp_thread_index(const void *pa, const void *pb, void *ctx)
{
    const lthread *th = ctx;
    const lthread *a = &th[*(const int *)pa], *b = &th[*(const int *)pb];
    if (a->pid != b->pid)
        return (a->pid > b->pid) - (a->pid < b->pid);
    return (a->key > b->key) - (a->key < b->key);
}

/* The trace into out, handed to sink (NULL: none) as it goes; false when memory ran out or the
 * sink failed. */
static bool render(const analysis *a, strbuf *out_text, const text_sink *sink)
{
    trace t;
    memset(&t, 0, sizeof t);
    t.a = a;
    t.sink = sink;
    t.oom = !trace_window_of(a, &t.win);
    const run_model *m = a->m;
    int tool = thread_of(&t, HOST_PID, T_TOOL, "mmprof (NVTX)");
    for (int i = 0; i < m->builtin.ntool_phases; i++) {
        strbuf *args = args_open(&t, NULL);
        sb_add(args, "}");
        add(&t, tool, m->builtin.tool_phases[i].start_ns, m->builtin.tool_phases[i].end_ns, m->builtin.tool_phases[i].name, "nvtx", args);
    }
    const host_activity *h = &m->host_activity;
    if (h->nsites > 0) {
        t.sites = host_sites_sorted(h);
        t.oom = !t.sites;
        t.nsites = t.sites ? h->nsites : 0;
    }
    for (int i = 0; i < a->nwl && !t.oom; i++)
        gather_workload(&t, &a->wl[i]);
    if (!t.oom)
        gather_run(&t);
    if (!t.oom)
        gather_host(&t);

    strbuf *out = out_text;
    if (!t.oom) {
        t.oom = !sort_events(&t);
        for (size_t i = 0; i < t.nev && !t.oom;) {
            size_t j = i;
            while (j < t.nev && t.ev[j].thread == t.ev[i].thread)
                j++;
            int lanes = lay_out(t.ev, i, j);
            if (lanes < 0)
                t.oom = true;
            else if (lanes > t.threads[t.ev[i].thread].nlanes)
                t.threads[t.ev[i].thread].nlanes = lanes;
            i = j;
        }
    }
    /* Every thread gets at least one lane, so one with no events still has its name. */
    int *order = t.oom ? NULL : malloc((size_t)(t.nthreads ? t.nthreads : 1) * sizeof *order);
    if (!order)
        t.oom = true;
    for (int i = 0; i < t.nthreads && !t.oom; i++) {
        order[i] = i;
        if (t.threads[i].nlanes == 0)
            t.threads[i].nlanes = 1;
        t.threads[i].lanes_tid = calloc((size_t)t.threads[i].nlanes, sizeof(int));
        if (!t.threads[i].lanes_tid)
            t.oom = true;
    }
    if (!t.oom) {
        qsort_r(order, (size_t)t.nthreads, sizeof *order, cmp_thread_index, t.threads);
        int tid = 1;
        for (int i = 0; i < t.nthreads; i++)
            for (int l = 0; l < t.threads[order[i]].nlanes; l++)
                t.threads[order[i]].lanes_tid[l] = tid++;
        /* Metadata in tid order reads better; events stay in time order per thread. */
        lthread *sorted = malloc((size_t)(t.nthreads ? t.nthreads : 1) * sizeof *sorted);
        int *where = malloc((size_t)(t.nthreads ? t.nthreads : 1) * sizeof *where);
        if (sorted && where) {
            for (int i = 0; i < t.nthreads; i++) {
                sorted[i] = t.threads[order[i]];
                where[order[i]] = i;
            }
            for (size_t i = 0; i < t.nev; i++)
                t.ev[i].thread = where[t.ev[i].thread];
            memcpy(t.threads, sorted, (size_t)t.nthreads * sizeof *sorted);
            write_doc(&t, out);
        } else {
            t.oom = true;
        }
        free(sorted);
        free(where);
    }
    free(order);
    for (int i = 0; i < t.nthreads; i++)
        free(t.threads[i].lanes_tid);
    free(t.threads);
    for (size_t i = 0; i < t.nev; i++)
        if (t.ev[i].src_kind == SRC_OWN) {
            free(t.ev[i].own.name);
            free(t.ev[i].own.args);
        }
    free(t.ev);
    free(t.sites);
    sb_free(&t.scratch);
    for (size_t i = 0; i < sizeof t.shown / sizeof t.shown[0]; i++)
        free(t.shown[i].shown);
    return !t.oom && !out->oom;
}

char *render_trace(const analysis *a)
{
    strbuf out;
    sb_init(&out);
    if (!render(a, &out, NULL)) {
        sb_free(&out);
        return NULL;
    }
    return sb_finish(&out);
}

bool render_trace_to(const analysis *a, const text_sink *sink, char *err, size_t errlen)
{
    strbuf out;
    sb_init(&out);
    bool ok = render(a, &out, sink) && sink_write(sink, out.s, out.len);
    sb_free(&out);
    snprintf(err, errlen, "out of memory");
    return ok;
}

void trace_size_warning(size_t bytes, const char *path, FILE *err)
{
    if (bytes <= TRACE_VIEWER_MAX_BYTES)
        return;
    fprintf(err,
            "mmprof: warning: --trace '%s' is %s: chrome://tracing opens JSON traces of at most %zu MB, and "
            "ui.perfetto.dev holds a trace at 2-4x its size in the browser's memory (typically 2 GB); open it with "
            "Perfetto's trace_processor --httpd, or record a shorter window (mmprof profile --duration, "
            "--capture-range)\n",
            path, value_text(&report_value_table, "trace_mb", (double)bytes / 1e6, true).s, TRACE_VIEWER_MAX_BYTES >> 20);
}
