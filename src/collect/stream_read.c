/* Stream files to the run model. See stream_read.h and stream_format.h for the lines. */
#include "stream_read.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "region_tracker.h"
#include "stream_format.h"

#define MAX_FIELDS 32

/* A process's call-tree node ids (frame lines) to their index in host_activity.frames: open
 * addressing on the id, which the library chooses (from 1, unique in the process) and a damaged
 * or hostile stream may make anything, so no array indexed by id. */
typedef struct {
    uint64_t *ids; /* 0: empty slot */
    int *index;
    size_t cap, n;
} node_map;

static size_t node_slot(const node_map *m, uint64_t id)
{
    size_t i = (size_t)(id * 0x9E3779B97F4A7C15ull) & (m->cap - 1);
    while (m->ids[i] && m->ids[i] != id)
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* The index of node id, -1 when no frame line gave it. */
static int node_find(const node_map *m, uint64_t id)
{
    if (!m->cap || !id)
        return -1;
    size_t i = node_slot(m, id);
    return m->ids[i] ? m->index[i] : -1;
}

static bool node_put(node_map *m, uint64_t id, int index)
{
    if ((m->n + 1) * 2 > m->cap) {
        node_map g = {.cap = m->cap ? m->cap * 2 : 64, .n = m->n};
        g.ids = calloc(g.cap, sizeof *g.ids);
        g.index = malloc(g.cap * sizeof *g.index);
        if (!g.ids || !g.index) {
            free(g.ids);
            free(g.index);
            return false;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->ids[i]) {
                size_t j = node_slot(&g, m->ids[i]);
                g.ids[j] = m->ids[i];
                g.index[j] = m->index[i];
            }
        free(m->ids);
        free(m->index);
        *m = g;
    }
    size_t i = node_slot(m, id);
    m->ids[i] = id;
    m->index[i] = index;
    m->n++;
    return true;
}

static void node_map_free(node_map *m)
{
    free(m->ids);
    free(m->index);
    memset(m, 0, sizeof *m);
}

/* What one file's reading keeps between lines (and, for a file read as it grows, between
 * reads: stream_file). */
struct stream_file {
    run_model *m;
    char *path;
    FILE *fp;
    char *line; /* getline's buffer, of line_cap bytes */
    size_t line_cap;
    uint64_t lineno;
    off_t done_to; /* the end of the last whole line read */
    bool first, truncated;
    uint32_t pid;
    char name[128];     /* the process, for messages */
    bool cuda, exited;
    region_tracker ranges; /* its NVTX ranges, and the latest time seen, where open ones end */
    uint64_t bad_lines;
    /* The first malformed line: its number, kind and field count, so that the warning points at it
     * (a library of another version, a line torn by a writer, or a reader's bug). */
    uint64_t first_bad;
    char first_bad_kind[24];
    int first_bad_fields;
    bool oom;
    bool foreign; /* its first line is not a stream's of this version: read no further */
    int64_t started, exit_ns; /* the process line's start, the exit line's time (0: none) */
    /* Capture windows (profile --delay/--duration/--capture-range): the one open, its fields
     * from the begin line, and where this file's windows start in m->capture.windows. */
    bool cap_open;
    capture_window cap;
    int first_window;
    int64_t outside_total; /* capcalls: CUDA runtime calls made outside windows (-1: no line) */
    node_map nodes; /* frame lines: the process's node ids to host_activity.frames indices */
    node_map hspan_frames; /* hspan lines' op frames by their stack and name (line_hspan) */
    /* The store's copies of the kernel and API names lately met, by a cheap hash of the text: a
     * long run's millions of calls have a few dozen names, and a hit costs one compare instead
     * of hashing the name and looking it up in the store's table. */
    struct {
        const char *own;
        size_t len;
    } names[64];
};
typedef struct stream_file reader;

/* The store's copy of name (events_intern), NULL when memory ran out. */
static const char *own_name(reader *r, const char *name)
{
    size_t len = strlen(name);
    size_t slot = (len * 31 + (len ? (unsigned char)name[0] * 7 + (unsigned char)name[len - 1] * 13 +
                                         (unsigned char)name[len / 2] : 0)) % 64;
    if (r->names[slot].own && r->names[slot].len == len && memcmp(r->names[slot].own, name, len) == 0)
        return r->names[slot].own;
    const char *own = events_intern(&r->m->events, name);
    if (own)
        r->names[slot].own = own, r->names[slot].len = len;
    return own;
}

/* Decimal digits from *s into *v, false past UINT64_MAX; *s moves past them. */
static bool digits(const char **s, uint64_t *v)
{
    uint64_t x = 0;
    const char *p = *s;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
    }
    *s = p;
    *v = x;
    return true;
}

/* strtoll's and strtoull's syntax and range, by hand (a long run's stream is millions of numbers,
 * and the library's locale and errno handling was a fifth of reading it): white space and a sign
 * before the digits of an i64, digits alone for a u64, nothing after. */
static bool parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return false;
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    bool neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    uint64_t v;
    if (*s < '0' || *s > '9' || !digits(&s, &v) || *s || v > (uint64_t)INT64_MAX + neg)
        return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    uint64_t v;
    if (!digits(&s, &v) || *s)
        return false;
    *out = v;
    return true;
}

static bool parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (!parse_u64(s, &v) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

static bool parse_int(const char *s, int *out)
{
    int64_t v;
    if (!parse_i64(s, &v) || v < INT32_MIN || v > INT32_MAX)
        return false;
    *out = (int)v;
    return true;
}

/* Parses fields f[first..first+n) as ints into out; false if any is not one. */
static bool ints(char **f, int first, int n, int *out)
{
    for (int i = 0; i < n; i++)
        if (!parse_int(f[first + i], &out[i]))
            return false;
    return true;
}

static void saw_time(reader *r, int64_t t) { rt_saw(&r->ranges, t); }

/* Fields shared by the GPU events: START END DEVICE STREAM CORR. */
typedef struct {
    int64_t start, end;
    uint32_t device, stream, corr;
} gpu_fields;

static bool gpu_common(reader *r, char **f, gpu_fields *g)
{
    if (!parse_i64(f[1], &g->start) || !parse_i64(f[2], &g->end) || !parse_u32(f[3], &g->device) ||
        !parse_u32(f[4], &g->stream) || !parse_u32(f[5], &g->corr))
        return false;
    saw_time(r, g->end);
    return true;
}

static bool line_kernel(reader *r, char **f, int n)
{
    gpu_fields g;
    int v[11];
    if (n != 18 || !gpu_common(r, f, &g) || !ints(f, 6, 11, v))
        return false;
    kernel_event k = {
        .name = (char *)own_name(r, f[17]), .start_ns = g.start, .end_ns = g.end, .pid = r->pid, .device = g.device,
        .stream = g.stream, .correlation = g.corr, .grid = {v[0], v[1], v[2]}, .block = {v[3], v[4], v[5]},
        .has_resources = true, .registers = v[6], .static_smem = v[7], .dynamic_smem = v[8],
        .smem_optin = v[9] != 0, .local_mem = v[10],
    };
    r->oom |= !k.name || !events_push_kernel(&r->m->events, &k);
    return true;
}

static bool line_copy(reader *r, char **f, int n)
{
    gpu_fields g;
    int v[3];
    uint64_t bytes;
    if (n != 10 || !gpu_common(r, f, &g) || !ints(f, 6, 3, v) || !parse_u64(f[9], &bytes))
        return false;
    copy_event c = {
        .dir = (copy_dir)v[0], .src = (mem_kind)v[1], .dst = (mem_kind)v[2], .bytes = bytes, .start_ns = g.start,
        .end_ns = g.end, .pid = r->pid, .device = g.device, .stream = g.stream, .correlation = g.corr,
    };
    r->oom |= !events_add_copy(&r->m->events, &c);
    return true;
}

static bool line_memset(reader *r, char **f, int n)
{
    gpu_fields g;
    int mem;
    uint64_t bytes;
    if (n != 8 || !gpu_common(r, f, &g) || !parse_int(f[6], &mem) || !parse_u64(f[7], &bytes))
        return false;
    memset_event s = {
        .mem = (mem_kind)mem, .bytes = bytes, .start_ns = g.start, .end_ns = g.end, .pid = r->pid,
        .device = g.device, .stream = g.stream, .correlation = g.corr,
    };
    r->oom |= !events_add_memset(&r->m->events, &s);
    return true;
}

static bool line_api(reader *r, char **f, int n)
{
    int64_t start, end;
    int kind;
    uint32_t tid, corr;
    if (n != 7 || !parse_i64(f[1], &start) || !parse_i64(f[2], &end) || !parse_int(f[3], &kind) ||
        (kind != API_RUNTIME && kind != API_DRIVER) || !parse_u32(f[4], &tid) || !parse_u32(f[5], &corr))
        return false;
    saw_time(r, end);
    api_event a = {.name = (char *)own_name(r, f[6]), .start_ns = start, .end_ns = end, .kind = (api_kind)kind, .pid = r->pid,
                   .thread = tid, .correlation = corr};
    r->oom |= !a.name || !events_push_api(&r->m->events, &a);
    return true;
}

static bool line_sync(reader *r, char **f, int n)
{
    int64_t start, end;
    int kind;
    uint32_t stream, corr;
    if (n != 6 || !parse_i64(f[1], &start) || !parse_i64(f[2], &end) || !parse_int(f[3], &kind) ||
        !parse_u32(f[4], &stream) || !parse_u32(f[5], &corr))
        return false;
    saw_time(r, end);
    sync_event s = {.kind = kind >= 1 && kind <= 4 ? (sync_kind)kind : SYNC_UNKNOWN, .start_ns = start,
                    .end_ns = end, .pid = r->pid, .stream = stream, .correlation = corr};
    r->oom |= !events_add_sync(&r->m->events, &s);
    return true;
}

static bool line_device(reader *r, char **f, int n)
{
    int v[18];
    uint64_t mem;
    if (n != 23 || !ints(f, 1, 18, v) || !parse_u64(f[19], &mem) || v[0] < 0)
        return false;
    run_model *m = r->m;
    for (int i = 0; i < m->ndevices; i++)
        if (m->devices[i].index == v[0])
            return true; /* another process described it */
    device_info *p = realloc(m->devices, (size_t)(m->ndevices + 1) * sizeof *p);
    if (!p) {
        r->oom = true;
        return true;
    }
    m->devices = p;
    device_info *d = &p[m->ndevices++];
    memset(d, 0, sizeof *d);
    d->index = v[0];
    d->cc_major = v[1], d->cc_minor = v[2], d->sm_count = v[3], d->clock_khz = v[4];
    d->mem_clock_khz = v[5], d->bus_width_bits = v[6], d->l2_bytes = v[7];
    d->max_threads_per_block = v[8], d->max_threads_per_sm = v[9], d->max_blocks_per_sm = v[10];
    d->regs_per_sm = v[11], d->regs_per_block = v[12], d->smem_per_sm = (uint64_t)v[13];
    d->smem_per_block = (uint64_t)v[14], d->smem_per_block_optin = (uint64_t)v[15];
    d->reserved_smem_per_block = (uint64_t)v[16], d->warp_size = v[17];
    d->total_mem = mem;
    parse_int(f[20], &d->driver_version);
    copy_str(d->pci_bus_id, sizeof d->pci_bus_id, f[21]);
    copy_str(d->name, sizeof d->name, f[22]);
    copy_str(d->pcie_why, sizeof d->pcie_why, "not recorded by mmprof profile");
    return true;
}

/* push TS TID DOMAIN NAME / start TS TID ID DOMAIN NAME */
static bool line_open(reader *r, char **f, int n, bool push)
{
    int64_t ts;
    uint32_t tid;
    uint64_t id = 0;
    if (n != (push ? 5 : 6) || !parse_i64(f[1], &ts) || !parse_u32(f[2], &tid) || (!push && !parse_u64(f[3], &id)))
        return false;
    saw_time(r, ts);
    const char *domain = f[push ? 3 : 4], *name = f[push ? 4 : 5];
    r->oom |= !(push ? rt_push(&r->ranges, r->pid, tid, domain, name, ts)
                     : rt_start(&r->ranges, r->pid, tid, id, domain, name, ts));
    return true;
}

/* pop TS TID DOMAIN / end TS TID ID */
static bool line_close(reader *r, char **f, int n, bool push)
{
    int64_t ts;
    uint32_t tid;
    uint64_t id = 0;
    if (n != 4 || !parse_i64(f[1], &ts) || !parse_u32(f[2], &tid) || (!push && !parse_u64(f[3], &id)))
        return false;
    saw_time(r, ts);
    r->oom |= !(push ? rt_pop(&r->ranges, r->pid, tid, f[3], ts) : rt_end(&r->ranges, r->pid, id, ts));
    return true;
}

static bool line_process(reader *r, char **f, int n)
{
    uint32_t pid, ppid;
    int64_t start;
    if (n != 5 || !parse_u32(f[1], &pid) || !parse_u32(f[2], &ppid) || !parse_i64(f[3], &start))
        return false;
    r->pid = pid;
    r->started = start;
    /* The name: the program's basename and its arguments. */
    const char *cmd = f[4];
    size_t prog = strcspn(cmd, " ");
    const char *base = cmd;
    for (const char *p = cmd; p < cmd + prog; p++)
        if (*p == '/')
            base = p + 1;
    copy_str(r->name, sizeof r->name, base[0] ? base : "?");
    r->oom |= !model_add_process(r->m, pid, r->name);
    return true;
}

/* rank RANK WORLD LOCAL SOURCE HOST: the launcher's variables in that process. */
static bool line_rank(reader *r, char **f, int n)
{
    int64_t v[3];
    for (int i = 0; i < 3; i++)
        if (n != 6 || !parse_i64(f[1 + i], &v[i]) || v[i] < -1 || v[i] > INT32_MAX)
            return false;
    model_set_process_rank(r->m, r->pid, (int)v[0], (int)v[1], (int)v[2], f[5]);
    return true;
}

static bool line_thread(reader *r, char **f, int n)
{
    uint32_t tid;
    if (n != 3 || !parse_u32(f[1], &tid))
        return false;
    for (int i = 0; i < r->m->nthreads; i++)
        if (r->m->threads[i].pid == r->pid && r->m->threads[i].tid == tid)
            return true;
    r->oom |= !model_add_thread(r->m, r->pid, tid, f[2]);
    return true;
}

static bool line_stats(reader *r, char **f, int n)
{
    uint64_t v[4];
    int64_t ns;
    for (int i = 0; i < 4; i++)
        if (n != 6 || !parse_u64(f[1 + i], &v[i]))
            return false;
    if (!parse_i64(f[5], &ns))
        return false;
    collection_info *c = &r->m->collection;
    c->records += v[0];
    c->dropped += v[1];
    c->lost_timestamps += v[2];
    c->overhead_records += v[3];
    c->overhead_ns += ns;
    return true;
}

/* profile --counters: one profiled launch (inject_counters.c). A value is a number or "nan". */
static bool line_counters(reader *r, char **f, int n)
{
    kernel_counters k;
    memset(&k, 0, sizeof k);
    if (n != 4 + CTR_COUNT || !parse_u32(f[1], &k.correlation) || !parse_u32(f[2], &k.device))
        return false;
    for (int c = 0; c < CTR_COUNT; c++) {
        char *end;
        k.v[c] = strtod(f[3 + c], &end);
        if (end == f[3 + c] || *end)
            return false;
    }
    k.pid = r->pid;
    k.name = f[3 + CTR_COUNT];
    r->oom |= !model_add_launch_counters(r->m, &k);
    return true;
}

/* What --counters asked: the launch budget (-1: none) and the kernels' expression. */
static bool line_ctrconf(reader *r, char **f, int n)
{
    int64_t max;
    if (n != 3 || !parse_i64(f[1], &max) || max < -1)
        return false;
    r->m->counters.asked = true;
    r->m->counters.max = max < 0 ? 0 : (long)max;
    snprintf(r->m->counters.kernels, sizeof r->m->counters.kernels, "%s", f[2]);
    return true;
}

/* capconf TEXT: what the capture options asked, in words. */
static bool line_capconf(reader *r, char **f, int n)
{
    if (n != 2)
        return false;
    if (!r->m->capture.asked[0])
        copy_str(r->m->capture.asked, sizeof r->m->capture.asked, f[1]);
    return true;
}

/* A window's region: "capture N", its process's work while it was open (the reasons it opened and
 * closed are the window's, which the reports show beside it; a short name fits the timeline). */
static void add_window(reader *r, capture_window *w)
{
    capture_info *c = &r->m->capture;
    capture_window *p = realloc(c->windows, (size_t)(c->nwindows + 1) * sizeof *p);
    if (!p) {
        r->oom = true;
        return;
    }
    c->windows = p;
    char name[96];
    snprintf(name, sizeof name, "capture %d", w->number);
    w->region = model_add_region(r->m, REGION_CAPTURE, name, NULL, w->start_ns, w->end_ns, r->pid, 0, -1);
    r->oom |= w->region < 0;
    p[c->nwindows++] = *w;
}

/* capture TS EDGE WINDOW REASON OUTSIDE_CALLS DETAIL. Until the file ends, calls_before and
 * calls_after hold the counts at the window's begin and end (finish_windows makes them the
 * stretches' own). */
static bool line_capture(reader *r, char **f, int n)
{
    int64_t ts, calls;
    int window;
    bool begin = n == 7 && strcmp(f[2], "begin") == 0, end = n == 7 && strcmp(f[2], "end") == 0;
    if ((!begin && !end) || !parse_i64(f[1], &ts) || !parse_int(f[3], &window) || window < 1 ||
        !parse_i64(f[5], &calls) || calls < 0)
        return false;
    saw_time(r, ts);
    if (begin) {
        if (r->cap_open) /* a begin without an end: it ended where the next began */
            return false;
        memset(&r->cap, 0, sizeof r->cap);
        r->cap_open = true;
        r->cap.pid = r->pid;
        r->cap.number = window;
        r->cap.start_ns = ts;
        copy_str(r->cap.began, sizeof r->cap.began, f[4]);
        copy_str(r->cap.began_detail, sizeof r->cap.began_detail, f[6]);
        r->cap.calls_before = calls;
        return true;
    }
    if (!r->cap_open || window != r->cap.number)
        return false;
    r->cap_open = false;
    r->cap.end_ns = ts < r->cap.start_ns ? r->cap.start_ns : ts;
    copy_str(r->cap.ended, sizeof r->cap.ended, f[4]);
    copy_str(r->cap.ended_detail, sizeof r->cap.ended_detail, f[6]);
    r->cap.calls_after = calls;
    add_window(r, &r->cap);
    return true;
}

/* At the file's end: a window still open ends at the last record (the process was killed), and
 * each window gets the unrecorded stretches around it and the calls made in them. */
static void finish_windows(reader *r)
{
    capture_info *c = &r->m->capture;
    if (r->cap_open) {
        r->cap_open = false;
        r->cap.end_ns = r->ranges.latest > r->cap.start_ns ? r->ranges.latest : r->cap.start_ns;
        copy_str(r->cap.ended, sizeof r->cap.ended, "exit");
        copy_str(r->cap.ended_detail, sizeof r->cap.ended_detail,
                 "the process ended without closing it (its last record)");
        r->cap.calls_after = r->cap.calls_before;
        add_window(r, &r->cap);
        model_add_warning(r->m, "process %u (%s): capture window %d was still open when its records end", r->pid,
                          r->name, r->cap.number);
    }
    int64_t end = r->exit_ns ? r->exit_ns : r->ranges.latest;
    int64_t prev_end = r->started, prev_calls = 0; /* the previous window's end and count there */
    for (int i = r->first_window; !r->oom && i < c->nwindows; i++) {
        capture_window *w = &c->windows[i];
        bool last = i + 1 == c->nwindows;
        int64_t at_begin = w->calls_before, at_end = w->calls_after;
        /* The next window's calls_before is still its count at its begin (converted next). */
        int64_t next_begin = last ? r->outside_total : c->windows[i + 1].calls_before;
        w->before_ns = prev_end > 0 && prev_end <= w->start_ns ? w->start_ns - prev_end : -1;
        w->after_ns = last ? (end >= w->end_ns ? end - w->end_ns : -1) : c->windows[i + 1].start_ns - w->end_ns;
        w->calls_before = at_begin >= prev_calls ? at_begin - prev_calls : -1;
        w->calls_after = next_begin >= at_end ? next_begin - at_end : -1;
        prev_end = w->end_ns;
        prev_calls = at_end;
    }
}

/* A node field of a site or sample line: 0 is no stack (-1) where allowed, else a node a frame
 * line gave for this process (a second process line in one file starts another tree). */
static bool node_field(reader *r, const char *s, bool zero_ok, int *out)
{
    uint64_t id;
    if (!parse_u64(s, &id))
        return false;
    *out = node_find(&r->nodes, id);
    if (*out >= 0 && r->m->host_activity.frames[*out].pid != r->pid)
        return false;
    return *out >= 0 || (zero_ok && id == 0);
}

/* frame ID PARENT KIND LINE OFFSET FUNCTION FILE MODULE: a node of the process's host call tree.
 * Its parent must have come first, and an id comes once. Empty text fields are unknown (NULL). */
static bool line_frame(reader *r, char **f, int n)
{
    uint64_t id, parent, offset;
    int line;
    host_frame fr = {.pid = r->pid};
    if (n != 9 || !parse_u64(f[1], &id) || id == 0 || !parse_u64(f[2], &parent) ||
        !host_frame_kind_parse(f[3], &fr.kind) || !parse_int(f[4], &line) || line < -1 || !parse_u64(f[5], &offset) ||
        node_find(&r->nodes, id) >= 0)
        return false;
    if (parent && !node_field(r, f[2], false, &fr.parent))
        return false;
    fr.parent = parent ? fr.parent : -1;
    fr.line = line < 0 ? 0 : line; /* -1: Python's "no line", which libraries before 2026-12-01 wrote */
    fr.offset = offset;
    fr.function = f[6][0] ? f[6] : NULL;
    fr.file = f[7][0] ? f[7] : NULL;
    fr.module = f[8][0] ? f[8] : NULL;
    int index = host_add_frame(&r->m->host_activity, &fr);
    r->oom |= index < 0 || !node_put(&r->nodes, id, index);
    return true;
}

/* site CORR NODE: the host stack of a CUDA call. */
static bool line_site(reader *r, char **f, int n)
{
    host_site s = {.pid = r->pid};
    if (n != 3 || !parse_u32(f[1], &s.correlation) || !node_field(r, f[2], false, &s.frame))
        return false;
    r->oom |= !host_add_site(&r->m->host_activity, &s);
    return true;
}

/* sample TS TID NODE SOURCE STATE: one look at a thread. */
static bool line_sample(reader *r, char **f, int n)
{
    host_sample s = {.pid = r->pid};
    if (n != 6 || !parse_i64(f[1], &s.ts_ns) || !parse_u32(f[2], &s.tid) || !node_field(r, f[3], true, &s.frame) ||
        !host_sample_source_parse(f[4], &s.source) || strlen(f[5]) != 1 ||
        !(f[5][0] == '-' || (f[5][0] >= 'A' && f[5][0] <= 'Z') || (f[5][0] >= 'a' && f[5][0] <= 'z')))
        return false;
    s.state = f[5][0] == '-' ? 0 : f[5][0];
    saw_time(r, s.ts_ns);
    r->oom |= !host_add_sample(&r->m->host_activity, &s);
    return true;
}

/* hspan START END TID NODE NAME: host work Python told of (a collection, a sleep), a span of the
 * thread named by an op frame NAME under its Python stack. The op frame of one stack and name is
 * made once (r->hspan_frames: the stack's node and the name's first letters as the key). */
static bool line_hspan(reader *r, char **f, int n)
{
    host_span s = {.pid = r->pid};
    int parent;
    if (n != 6 || !parse_i64(f[1], &s.start_ns) || !parse_i64(f[2], &s.end_ns) || s.end_ns < s.start_ns ||
        !parse_u32(f[3], &s.tid) || !node_field(r, f[4], true, &parent) || !f[5][0])
        return false;
    uint64_t key = (uint64_t)r->pid << 40 | (uint64_t)(parent + 1) << 16;
    for (const char *c = f[5]; *c; c++)
        key = (key & ~UINT64_C(0xFFFF)) | (((key & 0xFFFF) * 31 + (unsigned char)*c) & 0xFFFF);
    host_activity *h = &r->m->host_activity;
    int frame = node_find(&r->hspan_frames, key);
    if (frame < 0 || !h->frames[frame].function || strcmp(h->frames[frame].function, f[5]) != 0) {
        host_frame fr = {.pid = r->pid, .parent = parent, .kind = HOST_FRAME_OP, .function = f[5]};
        frame = host_add_frame(h, &fr);
        r->oom |= frame < 0 || !node_put(&r->hspan_frames, key, frame);
    }
    s.frame = frame;
    saw_time(r, s.end_ns);
    r->oom |= frame < 0 || !host_add_span(h, &s);
    return true;
}

/* sampler HZ MECHANISM DETAIL: how this process was sampled, or why not. Over several processes
 * the run keeps the first mechanism given with its rate, and the first reason any process gave
 * for falling back. */
static bool line_sampler(reader *r, char **f, int n)
{
    char *end;
    double hz = n == 4 ? strtod(f[1], &end) : -1;
    if (n != 4 || end == f[1] || *end || !(hz >= 0 && hz < 1e9))
        return false;
    host_activity *h = &r->m->host_activity;
    if (!h->mechanism[0] && f[2][0]) {
        copy_str(h->mechanism, sizeof h->mechanism, f[2]);
        h->rate_hz = hz;
    }
    if (!h->why_not[0] && f[3][0])
        copy_str(h->why_not, sizeof h->why_not, f[3]);
    return true;
}

/* sitestat TAKEN SKIPPED and samplestat NOGIL GIL LEFT_OUT TORN: the library's counts of its own
 * collection at the process's exit (host_collect_stats), added to the run's. */
static bool line_stat_counts(reader *r, char **f, int n, bool sites)
{
    uint64_t v[4] = {0};
    if (sites ? n != 3 && n != 4 : n != 5) /* a sitestat line before OFF_NS has 3 fields */
        return false;
    for (int i = 1; i < n; i++)
        if (!parse_u64(f[i], &v[i - 1]))
            return false;
    host_collect_stats add = {0};
    if (sites)
        add.has_sites = true, add.sites_taken = v[0], add.sites_skipped = v[1], add.sites_off_ns = v[2];
    else
        add.has_looks = true, add.looks_nogil = v[0], add.looks_gil = v[1], add.samples_left_out = v[2],
        add.samples_torn = v[3];
    host_stats_add(&r->m->host_activity.stats, &add);
    return true;
}

/* mem TS OP KIND DEVICE STREAM CORR ADDR BYTES POOL POOL_SIZE SOURCE: a CUPTI memory record. */
static bool line_mem(reader *r, char **f, int n)
{
    mem_event e = {.pid = r->pid, .total_allocated = -1, .total_reserved = -1};
    mem_op op;
    int kind;
    if (n != 12 || !parse_i64(f[1], &e.ts_ns) || !mem_op_parse(f[2], &op) || !parse_int(f[3], &kind) || kind < 0 ||
        kind > MEM_MANAGED || !parse_u32(f[4], &e.device) || !parse_u32(f[5], &e.stream) ||
        !parse_u32(f[6], &e.correlation) || !parse_u64(f[7], &e.address) || !parse_u64(f[8], &e.bytes) ||
        !parse_u64(f[9], &e.pool) || !parse_i64(f[10], &e.pool_size) || e.pool_size < -1)
        return false;
    saw_time(r, e.ts_ns);
    e.op = (uint8_t)op;
    e.kind = (uint8_t)kind;
    e.allocator = f[11][0] ? memory_name(&r->m->memory, f[11]) : -1;
    r->oom |= (f[11][0] && e.allocator < 0) || !memory_add_event(&r->m->memory, &e);
    return true;
}

/* mempool TS OP DEVICE CORR ADDR SIZE UTILIZED THRESHOLD MANAGED */
static bool line_mempool(reader *r, char **f, int n)
{
    mem_pool_event p = {.pid = r->pid};
    mem_pool_op op;
    int managed;
    if (n != 10 || !parse_i64(f[1], &p.ts_ns) || !mem_pool_op_parse(f[2], &op) || !parse_u32(f[3], &p.device) ||
        !parse_u32(f[4], &p.correlation) || !parse_u64(f[5], &p.address) || !parse_u64(f[6], &p.size) ||
        !parse_u64(f[7], &p.utilized) || !parse_u64(f[8], &p.release_threshold) || !parse_int(f[9], &managed) ||
        (managed != 0 && managed != 1))
        return false;
    saw_time(r, p.ts_ns);
    p.op = (uint8_t)op;
    p.managed = managed == 1;
    r->oom |= !memory_add_pool(&r->m->memory, &p);
    return true;
}

/* memfail TS TID DEVICE CORR KIND BYTES ERROR COUNT LIVE UNTRACKED API ERRNAME: a failed
 * allocation with the live set's totals; its memlive groups follow. */
static bool line_memfail(reader *r, char **f, int n)
{
    mem_failure x = {.pid = r->pid, .has_live = true};
    int kind;
    memory_activity *m = &r->m->memory;
    if (n != 13 || !parse_i64(f[1], &x.ts_ns) || !parse_u32(f[2], &x.tid) || !parse_u32(f[3], &x.device) ||
        !parse_u32(f[4], &x.correlation) || !parse_int(f[5], &kind) || kind < 0 || kind > MEM_MANAGED ||
        !parse_u64(f[6], &x.bytes) || !parse_int(f[7], &x.error) || !parse_u64(f[8], &x.live_count) ||
        !parse_u64(f[9], &x.live_bytes) || !parse_u64(f[10], &x.untracked) || !f[11][0])
        return false;
    saw_time(r, x.ts_ns);
    x.kind = (uint8_t)kind;
    x.api = memory_name(m, f[11]);
    x.error_name = f[12][0] ? memory_name(m, f[12]) : -1;
    r->oom |= x.api < 0 || (f[12][0] && x.error_name < 0) || !memory_add_failure(m, &x);
    return true;
}

/* memlive CORR NODE DEVICE KIND COUNT BYTES: a group of the live set of this process's last
 * failure, which must be the call CORR's. */
static bool line_memlive(reader *r, char **f, int n)
{
    memory_activity *m = &r->m->memory;
    mem_live_group g = {0};
    uint32_t corr;
    int kind;
    if (n != 7 || !parse_u32(f[1], &corr) || !node_field(r, f[2], true, &g.frame) || !parse_u32(f[3], &g.device) ||
        !parse_int(f[4], &kind) || kind < 0 || kind > MEM_MANAGED || !parse_u64(f[5], &g.count) ||
        !parse_u64(f[6], &g.bytes))
        return false;
    const mem_failure *last = m->nfailures ? &m->failures[m->nfailures - 1] : NULL;
    if (!last || last->pid != r->pid || last->correlation != corr)
        return false;
    g.kind = (uint8_t)kind;
    r->oom |= !memory_add_live(m, &g);
    return true;
}

/* memnvml TS DEVICE USED TOTAL */
static bool line_memnvml(reader *r, char **f, int n)
{
    mem_sample s = {.pid = r->pid};
    if (n != 5 || !parse_i64(f[1], &s.ts_ns) || !parse_u32(f[2], &s.device) || !parse_u64(f[3], &s.used) ||
        !parse_u64(f[4], &s.total))
        return false;
    saw_time(r, s.ts_ns);
    r->oom |= !memory_add_sample(&r->m->memory, &s);
    return true;
}

/* One line, split into fields; false when it is malformed. */
static bool read_line(reader *r, char **f, int n)
{
    const char *k = f[0];
    if (strcmp(k, "kernel") == 0) return line_kernel(r, f, n);
    if (strcmp(k, "copy") == 0) return line_copy(r, f, n);
    if (strcmp(k, "memset") == 0) return line_memset(r, f, n);
    if (strcmp(k, "api") == 0) return line_api(r, f, n);
    if (strcmp(k, "sync") == 0) return line_sync(r, f, n);
    if (strcmp(k, "push") == 0) return line_open(r, f, n, true);
    if (strcmp(k, "start") == 0) return line_open(r, f, n, false);
    if (strcmp(k, "pop") == 0) return line_close(r, f, n, true);
    if (strcmp(k, "end") == 0) return line_close(r, f, n, false);
    if (strcmp(k, "thread") == 0) return line_thread(r, f, n);
    if (strcmp(k, "device") == 0) return line_device(r, f, n);
    if (strcmp(k, "stats") == 0) return line_stats(r, f, n);
    if (strcmp(k, "process") == 0) return line_process(r, f, n);
    if (strcmp(k, "rank") == 0) return line_rank(r, f, n);
    if (strcmp(k, "counters") == 0) return line_counters(r, f, n);
    if (strcmp(k, "ctrconf") == 0) return line_ctrconf(r, f, n);
    if (strcmp(k, "capture") == 0) return line_capture(r, f, n);
    if (strcmp(k, "capconf") == 0) return line_capconf(r, f, n);
    if (strcmp(k, "frame") == 0) return line_frame(r, f, n);
    if (strcmp(k, "site") == 0) return line_site(r, f, n);
    if (strcmp(k, "sample") == 0) return line_sample(r, f, n);
    if (strcmp(k, "hspan") == 0) return line_hspan(r, f, n);
    if (strcmp(k, "sampler") == 0) return line_sampler(r, f, n);
    if (strcmp(k, "sitestat") == 0) return line_stat_counts(r, f, n, true);
    if (strcmp(k, "samplestat") == 0) return line_stat_counts(r, f, n, false);
    if (strcmp(k, "mem") == 0) return line_mem(r, f, n);
    if (strcmp(k, "mempool") == 0) return line_mempool(r, f, n);
    if (strcmp(k, "memfail") == 0) return line_memfail(r, f, n);
    if (strcmp(k, "memlive") == 0) return line_memlive(r, f, n);
    if (strcmp(k, "memnvml") == 0) return line_memnvml(r, f, n);
    if (strcmp(k, "memnvmloff") == 0) {
        if (n != 2)
            return false;
        if (!r->m->memory.nvml_why[0])
            copy_str(r->m->memory.nvml_why, sizeof r->m->memory.nvml_why, f[1]);
        return true;
    }
    if (strcmp(k, "capcalls") == 0) {
        int64_t ts, calls;
        if (n != 3 || !parse_i64(f[1], &ts) || !parse_i64(f[2], &calls) || calls < 0)
            return false;
        saw_time(r, ts);
        r->outside_total = calls;
        return true;
    }
    if (strcmp(k, "replayed") == 0) {
        uint64_t v;
        if (n != 2 || !parse_u64(f[1], &v))
            return false;
        r->m->collection.replayed_kernels += v;
        return true;
    }
    if (strcmp(k, "cuda") == 0 || strcmp(k, "exit") == 0) {
        int64_t ts;
        if (n != 2 || !parse_i64(f[1], &ts))
            return false;
        saw_time(r, ts);
        if (k[0] == 'c')
            r->cuda = true;
        else
            r->exited = true, r->exit_ns = ts;
        return true;
    }
    if (strcmp(k, "signal") == 0) { /* inject_signal.c: it flushed, then died of the signal */
        int64_t sig;
        if (n != 2 || !parse_i64(f[1], &sig) || sig <= 0 || sig >= 65)
            return false;
        model_add_warning(r->m, "process %u (%s) was ended by signal %d (%s); its CUDA records were flushed first",
                          r->pid, r->name, (int)sig, strsignal((int)sig));
        return true;
    }
    if (strcmp(k, "error") == 0) {
        model_add_warning(r->m, "process %u (%s): the profiling library could not collect everything: %s", r->pid,
                          r->name, n > 1 ? f[1] : "?");
        return true;
    }
    return true; /* a line of a later version */
}

/* escaped: the line holds a backslash (most hold none, and need no unescaping). */
static int split(char *line, char **f, bool escaped)
{
    int n = 0;
    for (char *p = line;; p++) {
        if (n < MAX_FIELDS)
            f[n] = p;
        n++;
        p = strchr(p, '\t');
        if (!p)
            break;
        *p = '\0';
    }
    for (int i = 0; escaped && i < n && i < MAX_FIELDS; i++)
        stream_unescape(f[i]);
    return n;
}

/* What the file's end says about what may be missing. */
static void closing_warnings(reader *r, bool truncated)
{
    run_model *m = r->m;
    char label[160];
    snprintf(label, sizeof label, "process %u (%s)", r->pid, r->name);
    r->oom |= !rt_finish(&r->ranges, label);
    finish_windows(r);
    for (int i = 0; r->cuda && !r->exited && i < m->nprocesses; i++)
        if (m->processes[i].pid == r->pid)
            m->processes[i].records_cut = true; /* analysis/incomplete.c counts what is missing */
    if (r->cuda && !r->exited)
        model_add_warning(m, "process %u (%s) ended without running its exit handlers (killed, crashed or left through "
                          "_exit): the records CUPTI still held (up to its last flush period and buffer) are missing",
                          r->pid, r->name);
    if (truncated)
        model_add_warning(m, "process %u (%s): its record stream ends in a partial line (it was killed while writing); "
                          "that line was dropped", r->pid, r->name);
    if (r->bad_lines > 0)
        model_add_warning(m, "process %u (%s): %llu malformed line(s) in its record stream were skipped (the first: line "
                             "%llu, a '%s' line of %d fields)",
                          r->pid, r->name, (unsigned long long)r->bad_lines, (unsigned long long)r->first_bad,
                          r->first_bad_kind, r->first_bad_fields);
}

/* The pid a stream file's name gives, for a file whose process line is missing. */
static uint32_t pid_from_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return (uint32_t)strtoul(base, NULL, 10);
}

stream_file *stream_file_open(const char *path, run_model *m, char *err, size_t errlen)
{
    reader *r = calloc(1, sizeof *r);
    char *own = strdup(path);
    FILE *fp = r && own ? fopen(path, "r") : NULL;
    if (!fp) {
        snprintf(err, errlen, "%s: %s", path, r && own ? strerror(errno) : "out of memory");
        free(own);
        free(r);
        return NULL;
    }
    *r = (reader){.m = m, .path = own, .fp = fp, .first = true, .pid = pid_from_name(path),
                  .first_window = m->capture.nwindows, .outside_total = -1};
    snprintf(r->name, sizeof r->name, "?");
    rt_init(&r->ranges, m);
    return r;
}

bool stream_file_feed(stream_file *r, bool at_end)
{
    char *f[MAX_FIELDS];
    ssize_t len;
    /* From the end of the last whole line read: a growing file's end last time is not its end now,
     * and a read that failed part-way left the position anywhere. */
    off_t at = r->done_to;
    clearerr(r->fp);
    if (fseeko(r->fp, at, SEEK_SET) != 0)
        return !r->oom;
    while (!r->oom && !r->truncated && !r->foreign && (len = getline(&r->line, &r->line_cap, r->fp)) > 0) {
        char *line = r->line;
        if (line[len - 1] != '\n') {
            /* At the end: the process died mid-write. Else still being written: read whole next time. */
            r->truncated = at_end;
            break;
        }
        r->done_to = at += len;
        r->lineno++;
        line[len - 1] = '\0';
        int n = split(line, f, memchr(line, '\\', (size_t)len) != NULL);
        if (r->first) {
            r->first = false;
            char magic[32];
            snprintf(magic, sizeof magic, "%d", STREAM_VERSION);
            if (n < 2 || strcmp(f[0], STREAM_MAGIC) != 0 || strcmp(f[1], magic) != 0) {
                model_add_warning(r->m, "%s: not an mmprof record stream (version %d); skipped", r->path, STREAM_VERSION);
                r->foreign = true;
                break;
            }
            continue;
        }
        if (n > MAX_FIELDS || !read_line(r, f, n)) {
            if (r->bad_lines++ == 0) {
                r->first_bad = r->lineno;
                r->first_bad_fields = n;
                copy_str(r->first_bad_kind, sizeof r->first_bad_kind, f[0]);
            }
        }
    }
    return !r->oom;
}

bool stream_file_close(stream_file *r, stream_summary *s, char *err, size_t errlen)
{
    if (!r->oom)
        closing_warnings(r, r->truncated);
    if (!r->oom) {
        s->files++;
        if (r->cuda)
            s->cuda_processes++;
    }
    bool ok = !r->oom;
    if (!ok)
        snprintf(err, errlen, "%s: out of memory", r->path);
    rt_free(&r->ranges);
    node_map_free(&r->nodes);
    node_map_free(&r->hspan_frames);
    free(r->line);
    fclose(r->fp);
    free(r->path);
    free(r);
    return ok;
}

bool stream_read_file(const char *path, run_model *m, stream_summary *s, char *err, size_t errlen)
{
    stream_file *r = stream_file_open(path, m, err, errlen);
    if (!r)
        return false;
    stream_file_feed(r, true);
    return stream_file_close(r, s, err, errlen);
}

static int by_pid(const void *a, const void *b)
{
    unsigned long x = strtoul(*(char *const *)a, NULL, 10), y = strtoul(*(char *const *)b, NULL, 10);
    return x < y ? -1 : x > y;
}

static int by_ordinal(const void *a, const void *b)
{
    const device_info *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* The streams name a device by its CUDA ordinal; the model's events by their device's place in
 * m->devices. They differ when the processes used only some GPUs (a rank on GPU 1 alone): the
 * devices go in ordinal order (device_info.index keeps the ordinal) and the events follow. */
static void devices_by_place(run_model *m)
{
    if (m->ndevices > 1)
        qsort(m->devices, (size_t)m->ndevices, sizeof *m->devices, by_ordinal);
    event_list *e = &m->events;
#define PLACE(arr, n)                                            \
    for (size_t i = 0; i < (n); i++)                             \
        for (int d = 0; d < m->ndevices; d++)                    \
            if ((uint32_t)m->devices[d].index == (arr)[i].device) { \
                (arr)[i].device = (uint32_t)d;                   \
                break;                                           \
            }
    PLACE(e->kernels, e->nkernels)
    PLACE(e->copies, e->ncopies)
    PLACE(e->memsets, e->nmemsets)
    PLACE(m->launch_counters, (size_t)m->nlaunch_counters)
#undef PLACE
}

static bool is_stream_name(const char *name)
{
    size_t len = strlen(name), suffix = strlen(STREAM_SUFFIX);
    return len > suffix && strcmp(name + len - suffix, STREAM_SUFFIX) == 0;
}

char **stream_names(const char *dir, size_t *count, char *err, size_t errlen)
{
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return NULL;
    }
    char **names = malloc(sizeof *names); /* the end's NULL */
    size_t n = 0;
    bool ok = names != NULL;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        if (!is_stream_name(e->d_name))
            continue;
        char **p = realloc(names, (n + 2) * sizeof *names);
        ok = p != NULL;
        if (ok) {
            names = p;
            names[n] = strdup(e->d_name);
            ok = names[n++] != NULL;
        }
    }
    closedir(d);
    if (!ok) {
        snprintf(err, errlen, "%s: out of memory", dir);
        stream_names_free(names, n);
        return NULL;
    }
    if (n > 1)
        qsort(names, n, sizeof *names, by_pid);
    names[n] = NULL;
    *count = n;
    return names;
}

void stream_names_free(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

const char *stream_file_path(const stream_file *f)
{
    return f->path;
}

bool stream_read_dir_from(const char *dir, stream_file *first, bool *again, run_model *m, stream_summary *s,
                          char *err, size_t errlen)
{
    if (again)
        *again = false;
    size_t n;
    char **names = stream_names(dir, &n, err, errlen);
    bool ok = names != NULL;
    size_t from = 0;
    if (ok && first) {
        const char *base = strrchr(first->path, '/');
        base = base ? base + 1 : first->path;
        if (n == 0 || strcmp(names[0], base) != 0) {
            /* A process of a lower pid (pids wrapped) began after the one followed: the files are
             * read in pid order, so the model is to be read again from its start. */
            stream_summary ignored = {0};
            stream_file_close(first, &ignored, err, errlen);
            stream_names_free(names, n);
            if (again)
                *again = true;
            snprintf(err, errlen, "%s: read out of pid order", dir);
            return false;
        }
        stream_file_feed(first, true);
        ok = stream_file_close(first, s, err, errlen);
        from = 1;
    } else if (first) {
        stream_summary ignored = {0};
        stream_file_close(first, &ignored, err, errlen);
    }
    for (size_t i = from; ok && i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        ok = stream_read_file(path, m, s, err, errlen);
    }
    stream_names_free(names, n);
    if (ok)
        devices_by_place(m);
    return ok;
}

bool stream_read_dir(const char *dir, run_model *m, stream_summary *s, char *err, size_t errlen)
{
    return stream_read_dir_from(dir, NULL, NULL, m, s, err, errlen);
}
