/* Nsight Systems' SQLite export (`nsys export --type sqlite`) read into the run model.
 *
 * Tables read, each looked up by name with its columns discovered (exports differ by version):
 *   CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET, _RUNTIME, _DRIVER, _SYNCHRONIZATION: events;
 *   NVTX_EVENTS: push/pop (59) and start/end (60) ranges become regions, domain creations (75)
 *     name their domains, marks and the rest are left out;
 *   StringIds: the names the tables above refer to by id;
 *   ENUM_CUDA_MEM_KIND, ENUM_CUDA_MEMCPY_OPER: what each memory and copy kind number means, when
 *     the export has them;
 *   TARGET_INFO_GPU: devices; PROCESSES, ThreadNames: process and thread names;
 *   TARGET_INFO_SESSION_START_TIME: when the capture began;
 *   OSRT_API (--trace=osrt): the OS runtime calls of the processes that did CUDA work, as host
 *     spans (host_activity), nested by time on their thread;
 *   COMPOSITE_EVENTS and SAMPLING_CALLCHAINS (--sample=cpu): those processes' CPU samples with
 *     their stacks, as host samples.
 * Each CUDA call counts once, and only processes and threads that did CUDA work count (nsys_tidy.c).
 * A missing table or column makes its figures n/a with a warning; a file with none of the CUDA
 * activity tables, a value of the wrong type, a NULL where one is required or an unreadable
 * database is an error that leaves the model empty. */
#include "import.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host_spans.h"
#include "nsys_tidy.h"
#include "region_tracker.h"
#include "sqlite_table.h"

/* Times are kept within +-2^62 ns (146 years) so that any difference of two fits an int64. */
#define TIME_MIN (-(INT64_C(1) << 62))
#define TIME_MAX (INT64_C(1) << 62)
#define KIND_MAP_SIZE 64

/* A CUDA runtime or driver call's thread, found by its correlation id. */
typedef struct {
    uint32_t pid, correlation, tid;
} call_thread;

typedef struct {
    sq_db db;
    run_model *m;
    /* nsys numbers memory kinds its own way (0 pageable, 1 pinned, 2 device, ...), unlike
     * CUPTI's (1 pageable, 2 pinned, 3 device) that mem_kind follows: these map the file's
     * numbers to the model's. */
    mem_kind mem_map[KIND_MAP_SIZE];
    copy_dir copy_map[KIND_MAP_SIZE];
    call_thread *calls; /* sorted by pid, then correlation */
    size_t ncalls;
    region_tracker ranges; /* the NVTX ranges, and the latest event time, where unended ones end */
    cpu_spans osrt;        /* OS runtime calls, nested into host_activity once every table is read */
    struct cpu_sample *samples; /* COMPOSITE_EVENTS: CPU samples, by id once read */
    size_t nsamples, samples_cap;
    struct chain_entry *chains; /* SAMPLING_CALLCHAINS: their stacks' frames */
    size_t nchains, chains_cap;
} nsys_reader;

static const char *const activity_tables[] = {
    "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
};
#define NACTIVITY ((int)(sizeof activity_tables / sizeof activity_tables[0]))

/* globalTid and globalPid pack the process id in bits 24..47 and the thread id in bits 0..23. */
static uint32_t pid_of(int64_t global) { return (uint32_t)(((uint64_t)global >> 24) & 0xFFFFFF); }
static uint32_t tid_of(int64_t global) { return (uint32_t)((uint64_t)global & 0xFFFFFF); }

/* One warning per table naming the optional columns it lacks. */
static void warn_missing_columns(nsys_reader *r, const sq_scan *s)
{
    char list[256] = "";
    size_t used = 0;
    int n = 0;
    for (int i = 0; i < s->ncols; i++)
        if (s->cols[i].need == COL_OPTIONAL && !s->present[i] && used < sizeof list) {
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", n ? ", " : "", s->cols[i].name);
            n++;
        }
    if (n > 0)
        model_add_warning(r->m, "%s has no column%s %s: the figures that need %s are n/a", s->table, n > 1 ? "s" : "",
                          list, n > 1 ? "them" : "it");
}

/* Opens a scan and warns about missing columns. 1 table there, 0 absent, -1 error. */
static int open_table(nsys_reader *r, sq_scan *s, const char *table, const col_spec *cols, int ncols)
{
    int got = sq_scan_open(&r->db, s, table, cols, ncols);
    if (got == 1)
        warn_missing_columns(r, s);
    return got;
}

static bool out_of_memory(nsys_reader *r) { return sq_fail(&r->db, "out of memory"); }

/* ---------- kind numbers ---------- */

/* Upper-case letters and digits of s only: "Host-to-Device" and "CUDA_MEMCPY_KIND_HTOD" compare
 * as HOSTTODEVICE and CUDAMEMCPYKINDHTOD. */
static void squeeze(const char *s, char *out, size_t len)
{
    size_t o = 0;
    for (; s && *s && o + 1 < len; s++) {
        char c = *s;
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
            out[o++] = c;
    }
    out[o] = '\0';
}

static mem_kind mem_kind_named(const char *name)
{
    char s[128];
    squeeze(name, s, sizeof s);
    if (strstr(s, "PAGEABLE"))
        return MEM_PAGEABLE;
    if (strstr(s, "PINNED"))
        return MEM_PINNED;
    if (strstr(s, "MANAGED"))
        return MEM_MANAGED; /* managed and managed static */
    if (strstr(s, "DEVICE"))
        return MEM_DEVICE; /* device and device static */
    if (strstr(s, "ARRAY"))
        return MEM_ARRAY;
    return MEM_UNKNOWN;
}

static copy_dir copy_dir_named(const char *name)
{
    char s[128];
    squeeze(name, s, sizeof s);
    static const struct {
        const char *a, *b;
        copy_dir dir;
    } words[] = {
        {"HTOD", "HOSTTODEVICE", COPY_H2D}, {"DTOH", "DEVICETOHOST", COPY_D2H}, {"DTOD", "DEVICETODEVICE", COPY_D2D},
        {"HTOH", "HOSTTOHOST", COPY_H2H},   {"PTOP", "PEERTOPEER", COPY_P2P},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(s, words[i].a) || strstr(s, words[i].b))
            return words[i].dir;
    return COPY_OTHER;
}

/* The maps when the export names no kinds: nsys's fixed memory-kind numbering, and copy kinds
 * numbered as CUPTI's (which copy_dir follows). */
static void default_kind_maps(nsys_reader *r)
{
    static const mem_kind nsys_mem[] = {MEM_PAGEABLE, MEM_PINNED, MEM_DEVICE, MEM_ARRAY,
                                        MEM_MANAGED,  MEM_DEVICE, MEM_MANAGED, MEM_UNKNOWN};
    for (int i = 0; i < KIND_MAP_SIZE; i++) {
        r->mem_map[i] = i < (int)(sizeof nsys_mem / sizeof nsys_mem[0]) ? nsys_mem[i] : MEM_UNKNOWN;
        bool known = i == COPY_H2D || i == COPY_D2H || i == COPY_D2D || i == COPY_H2H || i == COPY_P2P;
        r->copy_map[i] = known ? (copy_dir)i : COPY_OTHER;
    }
}

/* Reads an ENUM_ table (id, name, label) into map through classify. False on error. */
static bool read_enum(nsys_reader *r, const char *table, int *map, int (*classify)(const char *))
{
    static const col_spec cols[] = {{"id", COL_REQUIRED}, {"name", COL_QUIET}, {"label", COL_QUIET}};
    sq_scan s;
    int got = sq_scan_open(&r->db, &s, table, cols, 3);
    if (got <= 0)
        return got == 0;
    bool first = true;
    while ((got = sq_scan_next(&s)) == 1) {
        int64_t id = 0;
        char *name = NULL, *label = NULL;
        bool ok = sq_int(&s, 0, 0, INT_MAX, &id) && sq_name(&s, 1, &name) && sq_name(&s, 2, &label);
        if (ok && first)
            for (int i = 0; i < KIND_MAP_SIZE; i++)
                map[i] = 0; /* the table says what every number means: the rest are unknown */
        first = false;
        if (ok && id < KIND_MAP_SIZE) {
            int k = classify(name);
            map[id] = k ? k : classify(label);
        }
        free(name);
        free(label);
        if (!ok) {
            got = -1;
            break;
        }
    }
    sq_scan_close(&s);
    return got == 0;
}

static int classify_mem(const char *s) { return (int)mem_kind_named(s); }
static int classify_copy(const char *s) { return (int)copy_dir_named(s); }

static bool read_kind_maps(nsys_reader *r)
{
    default_kind_maps(r);
    int mem[KIND_MAP_SIZE], copy[KIND_MAP_SIZE];
    for (int i = 0; i < KIND_MAP_SIZE; i++) {
        mem[i] = (int)r->mem_map[i];
        copy[i] = (int)r->copy_map[i];
    }
    if (!read_enum(r, "ENUM_CUDA_MEM_KIND", mem, classify_mem) ||
        !read_enum(r, "ENUM_CUDA_MEMCPY_OPER", copy, classify_copy))
        return false;
    for (int i = 0; i < KIND_MAP_SIZE; i++) {
        r->mem_map[i] = (mem_kind)mem[i];
        r->copy_map[i] = (copy_dir)copy[i];
    }
    return true;
}

static mem_kind map_mem(const nsys_reader *r, int64_t v)
{
    return v >= 0 && v < KIND_MAP_SIZE ? r->mem_map[v] : MEM_UNKNOWN;
}

/* ---------- GPU activity: kernels, copies, memsets, synchronization ---------- */

/* The columns every GPU activity table starts with, in this order. */
#define GPU_COLS                                                                                   \
    {"start", COL_REQUIRED}, {"end", COL_REQUIRED}, {"deviceId", COL_OPTIONAL}, {"streamId", COL_OPTIONAL}, \
        {"correlationId", COL_OPTIONAL}, {"globalPid", COL_OPTIONAL}
enum { G_START, G_END, G_DEVICE, G_STREAM, G_CORR, G_PID, G_NEXT };

typedef struct {
    int64_t start, end;
    uint32_t device, stream, correlation, pid;
} gpu_common;

/* The fields a kernel, copy and memset event share, as designated initializers. */
#define GPU_FIELDS(g)                                                                              \
    .start_ns = (g).start, .end_ns = (g).end, .pid = (g).pid, .device = (g).device, .stream = (g).stream, \
    .correlation = (g).correlation

/* Column col into a model field of the given type; sq_int checks it fits (0 to hi). */
#define FIELD_READER(fn, type, hi)                                                                 \
    static bool fn(sq_scan *s, int col, type *out)                                                 \
    {                                                                                              \
        int64_t v = 0;                                                                             \
        if (!sq_int(s, col, 0, hi, &v))                                                            \
            return false;                                                                          \
        *out = (type)v;                                                                            \
        return true;                                                                               \
    }
FIELD_READER(read_u32, uint32_t, UINT32_MAX)
FIELD_READER(read_int, int, INT_MAX)
FIELD_READER(read_u64, uint64_t, INT64_MAX)

/* Start and end (columns 0 and 1). */
static bool read_span(sq_scan *s, int64_t *start, int64_t *end)
{
    return sq_int(s, 0, TIME_MIN, TIME_MAX, start) && sq_int(s, 1, TIME_MIN, TIME_MAX, end);
}

static bool read_gpu_common(sq_scan *s, gpu_common *g)
{
    int64_t gpid = 0;
    memset(g, 0, sizeof *g);
    if (!read_span(s, &g->start, &g->end) || !read_u32(s, G_DEVICE, &g->device) ||
        !read_u32(s, G_STREAM, &g->stream) || !read_u32(s, G_CORR, &g->correlation) ||
        !sq_int(s, G_PID, 0, INT64_MAX, &gpid))
        return false;
    g->pid = pid_of(gpid);
    return true;
}

/* Rows whose interval cannot be used (end before start; both 0, which CUPTI writes when it lost
 * the timestamps) are counted and left out. */
typedef struct {
    int64_t backwards, lost;
} skipped_rows;

static bool usable(nsys_reader *r, skipped_rows *k, int64_t start, int64_t end)
{
    if (start == 0 && end == 0) {
        k->lost++;
        r->m->collection.lost_timestamps++;
        return false;
    }
    if (end < start) {
        k->backwards++;
        return false;
    }
    rt_saw(&r->ranges, end);
    return true;
}

static void warn_skipped(nsys_reader *r, const char *table, const skipped_rows *k)
{
    if (k->backwards)
        model_add_warning(r->m, "%s: %lld %s; left out", table, (long long)k->backwards,
                          k->backwards == 1 ? "row ends before it starts" : "rows end before they start");
    if (k->lost)
        model_add_warning(r->m, "%s: %lld %s no timestamps (start = end = 0); left out", table, (long long)k->lost,
                          k->lost == 1 ? "row has" : "rows have");
}

/* The table's rows, each handed to row(); the scan's shared loop and its bookkeeping. A missing
 * table warns with what then is n/a. False on error. */
typedef bool (*row_fn)(nsys_reader *r, sq_scan *s, skipped_rows *k);

static bool read_rows(nsys_reader *r, const char *table, const col_spec *cols, int ncols, const char *if_missing,
                      row_fn row)
{
    sq_scan s;
    int got = open_table(r, &s, table, cols, ncols);
    if (got == 0 && if_missing)
        model_add_warning(r->m, "no %s table: %s", table, if_missing);
    if (got <= 0)
        return got == 0;
    skipped_rows k = {0, 0};
    bool activity = strncmp(table, "CUPTI_ACTIVITY_KIND_", 20) == 0;
    while ((got = sq_scan_next(&s)) == 1) {
        r->m->collection.records += activity;
        if (!row(r, &s, &k)) {
            got = -1;
            break;
        }
    }
    sq_scan_close(&s);
    if (got == 0)
        warn_skipped(r, table, &k);
    return got == 0;
}

enum { K_DEMANGLED = G_NEXT, K_SHORT, K_MANGLED, K_NAME, K_REGS, K_GRID, K_BLOCK = K_GRID + 3, K_SSMEM = K_BLOCK + 3,
       K_DSMEM, K_LOCAL, K_NCOLS };
static const col_spec kernel_cols[K_NCOLS] = {
    GPU_COLS,
    {"demangledName", COL_QUIET}, {"shortName", COL_QUIET}, {"mangledName", COL_QUIET}, {"name", COL_QUIET},
    {"registersPerThread", COL_OPTIONAL},
    {"gridX", COL_OPTIONAL}, {"gridY", COL_OPTIONAL}, {"gridZ", COL_OPTIONAL},
    {"blockX", COL_OPTIONAL}, {"blockY", COL_OPTIONAL}, {"blockZ", COL_OPTIONAL},
    {"staticSharedMemory", COL_OPTIONAL}, {"dynamicSharedMemory", COL_OPTIONAL}, {"localMemoryPerThread", COL_OPTIONAL},
};

/* The kernel's name: demangled where the export has it, else the short, mangled or plain one. */
static bool kernel_name(nsys_reader *r, sq_scan *s, char **name)
{
    for (int c = K_DEMANGLED; c <= K_NAME; c++)
        if (sq_has(s, c))
            return sq_name(s, c, name);
    if (!s->present[K_DEMANGLED] && !s->present[K_SHORT] && !s->present[K_MANGLED] && !s->present[K_NAME])
        return sq_fail(&r->db, "table %s has no kernel name column (demangledName, shortName, mangledName or name)",
                       s->table);
    return sq_fail(&r->db, "table %s, row %lld: the kernel's name is NULL in every name column", s->table,
                   (long long)s->row);
}

static bool kernel_row(nsys_reader *r, sq_scan *s, skipped_rows *k)
{
    gpu_common g;
    kernel_event e = {0};
    if (!read_gpu_common(s, &g) || !kernel_name(r, s, &e.name))
        return false;
    bool ok = read_int(s, K_REGS, &e.registers) && read_int(s, K_SSMEM, &e.static_smem) &&
              read_int(s, K_DSMEM, &e.dynamic_smem) && read_int(s, K_LOCAL, &e.local_mem);
    for (int d = 0; ok && d < 3; d++)
        ok = read_int(s, K_GRID + d, &e.grid[d]) && read_int(s, K_BLOCK + d, &e.block[d]);
    if (ok && usable(r, k, g.start, g.end)) {
        e.start_ns = g.start;
        e.end_ns = g.end;
        e.pid = g.pid;
        e.device = g.device;
        e.stream = g.stream;
        e.correlation = g.correlation;
        e.has_resources = sq_has(s, K_REGS);
        /* More than the default 48 KB per block can only have been launched after opting in. */
        e.smem_optin = (int64_t)e.static_smem + e.dynamic_smem > 48 * 1024;
        ok = events_add_kernel(&r->m->events, &e) || out_of_memory(r);
    }
    free(e.name);
    return ok;
}

enum { C_BYTES = G_NEXT, C_KIND, C_SRC, C_DST, C_NCOLS };
static const col_spec copy_cols[C_NCOLS] = {
    GPU_COLS, {"bytes", COL_REQUIRED}, {"copyKind", COL_REQUIRED}, {"srcKind", COL_OPTIONAL}, {"dstKind", COL_OPTIONAL},
};

static bool copy_row(nsys_reader *r, sq_scan *s, skipped_rows *k)
{
    gpu_common g;
    int64_t bytes = 0, kind = 0, src = -1, dst = -1;
    if (!read_gpu_common(s, &g) || !sq_int(s, C_BYTES, 0, INT64_MAX, &bytes) || !sq_int(s, C_KIND, 0, INT_MAX, &kind) ||
        !sq_int(s, C_SRC, 0, INT_MAX, &src) || !sq_int(s, C_DST, 0, INT_MAX, &dst))
        return false;
    if (!usable(r, k, g.start, g.end))
        return true;
    copy_event c = {
        .dir = kind < KIND_MAP_SIZE ? r->copy_map[kind] : COPY_OTHER,
        .src = map_mem(r, src),
        .dst = map_mem(r, dst),
        .bytes = (uint64_t)bytes,
        GPU_FIELDS(g),
    };
    return events_add_copy(&r->m->events, &c) || out_of_memory(r);
}

enum { S_BYTES = G_NEXT, S_MEM, S_NCOLS };
static const col_spec memset_cols[S_NCOLS] = {GPU_COLS, {"bytes", COL_REQUIRED}, {"memKind", COL_OPTIONAL}};

static bool memset_row(nsys_reader *r, sq_scan *s, skipped_rows *k)
{
    gpu_common g;
    int64_t bytes = 0, mem = -1;
    if (!read_gpu_common(s, &g) || !sq_int(s, S_BYTES, 0, INT64_MAX, &bytes) || !sq_int(s, S_MEM, 0, INT_MAX, &mem))
        return false;
    if (!usable(r, k, g.start, g.end))
        return true;
    memset_event e = {
        .mem = map_mem(r, mem),
        .bytes = (uint64_t)bytes,
        GPU_FIELDS(g),
    };
    return events_add_memset(&r->m->events, &e) || out_of_memory(r);
}

/* ---------- host calls: runtime, driver, synchronization ---------- */

enum { A_START, A_END, A_TID, A_CORR, A_NAME, A_NCOLS };
static const col_spec api_cols[A_NCOLS] = {
    {"start", COL_REQUIRED},         {"end", COL_REQUIRED}, {"globalTid", COL_OPTIONAL},
    {"correlationId", COL_OPTIONAL}, {"nameId", COL_REQUIRED},
};

static bool api_row(nsys_reader *r, sq_scan *s, skipped_rows *k, api_kind kind)
{
    api_event a = {.kind = kind};
    int64_t gtid = 0;
    if (!read_span(s, &a.start_ns, &a.end_ns) || !sq_int(s, A_TID, 0, INT64_MAX, &gtid) ||
        !read_u32(s, A_CORR, &a.correlation) || !sq_name(s, A_NAME, &a.name))
        return false;
    a.pid = pid_of(gtid);
    a.thread = tid_of(gtid);
    bool ok = !usable(r, k, a.start_ns, a.end_ns) || events_add_api(&r->m->events, &a) || out_of_memory(r);
    free(a.name);
    return ok;
}

static bool runtime_row(nsys_reader *r, sq_scan *s, skipped_rows *k) { return api_row(r, s, k, API_RUNTIME); }
static bool driver_row(nsys_reader *r, sq_scan *s, skipped_rows *k) { return api_row(r, s, k, API_DRIVER); }

static int call_cmp(const void *a, const void *b)
{
    const call_thread *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->correlation < y->correlation ? -1 : x->correlation > y->correlation;
}

/* Each CUDA call once (nsys_tidy.h: a backtrace row around the call's own), said when any was
 * recorded twice. */
static bool drop_nested_calls(nsys_reader *r)
{
    size_t dropped = 0;
    if (!nsys_drop_nested_calls(&r->m->events, &dropped))
        return out_of_memory(r);
    if (dropped)
        model_add_warning(r->m, "CUPTI_ACTIVITY_KIND_RUNTIME: %zu CUDA %s twice, under two names with one correlation "
                          "id, one row inside the other (a CUDA backtrace row around the call's own): counted once",
                          dropped, dropped == 1 ? "call was recorded" : "calls were recorded");
    return true;
}

/* The calls' threads by correlation id, for the synchronization records, which name none. */
static bool index_calls(nsys_reader *r)
{
    const event_list *e = &r->m->events;
    if (e->napis == 0)
        return true;
    r->calls = malloc(e->napis * sizeof *r->calls);
    if (!r->calls)
        return out_of_memory(r);
    for (size_t i = 0; i < e->napis; i++)
        r->calls[i] = (call_thread){e->apis[i].pid, e->apis[i].correlation, e->apis[i].thread};
    r->ncalls = e->napis;
    qsort(r->calls, r->ncalls, sizeof *r->calls, call_cmp);
    return true;
}

static uint32_t call_thread_of(const nsys_reader *r, uint32_t pid, uint32_t correlation)
{
    call_thread key = {pid, correlation, 0};
    const call_thread *c = r->ncalls ? bsearch(&key, r->calls, r->ncalls, sizeof key, call_cmp) : NULL;
    return c ? c->tid : 0;
}

enum { Y_TID = G_NEXT, Y_TYPE, Y_NCOLS };
static const col_spec sync_cols[Y_NCOLS] = {GPU_COLS, {"globalTid", COL_QUIET}, {"syncType", COL_OPTIONAL}};

static bool sync_row(nsys_reader *r, sq_scan *s, skipped_rows *k)
{
    gpu_common g;
    int64_t gtid = -1, type = 0;
    if (!read_gpu_common(s, &g) || !sq_int(s, Y_TID, 0, INT64_MAX, &gtid) || !sq_int(s, Y_TYPE, 0, INT_MAX, &type))
        return false;
    if (!usable(r, k, g.start, g.end))
        return true;
    sync_event e = {
        /* ENUM_CUPTI_SYNC_TYPE numbers them as CUPTI does, and so does sync_kind. */
        .kind = type >= SYNC_EVENT && type <= SYNC_CONTEXT ? (sync_kind)type : SYNC_UNKNOWN,
        .start_ns = g.start,
        .end_ns = g.end,
        .pid = gtid >= 0 ? pid_of(gtid) : g.pid,
        .stream = g.stream,
        .correlation = g.correlation,
    };
    e.thread = gtid >= 0 ? tid_of(gtid) : call_thread_of(r, e.pid, e.correlation);
    return events_add_sync(&r->m->events, &e) || out_of_memory(r);
}

/* ---------- NVTX ranges ---------- */

enum { NVTX_MARK = 34, NVTX_PUSH_POP = 59, NVTX_START_END = 60, NVTX_DOMAIN_CREATE = 75 };

enum { N_START, N_END, N_TYPE, N_TEXT, N_TEXT_ID, N_TID, N_DOMAIN, N_NCOLS };
static const col_spec nvtx_cols[N_NCOLS] = {
    {"start", COL_REQUIRED}, {"end", COL_OPTIONAL},       {"eventType", COL_REQUIRED}, {"text", COL_QUIET},
    {"textId", COL_QUIET},   {"globalTid", COL_OPTIONAL}, {"domainId", COL_OPTIONAL},
};

/* One NVTX_EVENTS row kept: a range (end RT_OPEN_END when it never ended) or a domain's name. */
typedef struct {
    int64_t start, end, domain;
    uint32_t pid, tid;
    bool push_pop;
    char *name;
} nvtx_range;

typedef struct {
    nvtx_range *ranges;
    size_t nranges;
    nvtx_range *domains; /* name and domain id of each domain creation */
    size_t ndomains;
} nvtx_rows;

static void nvtx_rows_free(nvtx_rows *n)
{
    for (size_t i = 0; i < n->nranges; i++)
        free(n->ranges[i].name);
    for (size_t i = 0; i < n->ndomains; i++)
        free(n->domains[i].name);
    free(n->ranges);
    free(n->domains);
}

static bool push_range(nvtx_range **arr, size_t *count, const nvtx_range *v)
{
    nvtx_range *p = realloc(*arr, (*count + 1) * sizeof *p);
    if (!p)
        return false;
    *arr = p;
    p[(*count)++] = *v;
    return true;
}

/* One NVTX_EVENTS row: kept when it is a range or names a domain. */
static bool nvtx_row(nsys_reader *r, sq_scan *s, nvtx_rows *n)
{
    nvtx_range v = {.end = RT_OPEN_END};
    int64_t type = 0, gtid = 0;
    if (!sq_int(s, N_TYPE, INT64_MIN, INT64_MAX, &type))
        return false;
    bool range = type == NVTX_PUSH_POP || type == NVTX_START_END;
    if (!range && type != NVTX_DOMAIN_CREATE)
        return true;
    if (!sq_int(s, N_START, TIME_MIN, TIME_MAX, &v.start) || !sq_int(s, N_END, TIME_MIN, TIME_MAX, &v.end) ||
        !sq_int(s, N_TID, 0, INT64_MAX, &gtid) || !sq_int(s, N_DOMAIN, INT64_MIN, INT64_MAX, &v.domain))
        return false;
    /* Plain strings arrive inline, registered ones through StringIds. */
    if (!(sq_has(s, N_TEXT) ? sq_name(s, N_TEXT, &v.name) : sq_name(s, N_TEXT_ID, &v.name)))
        return false;
    v.pid = pid_of(gtid);
    v.tid = tid_of(gtid);
    v.push_pop = type == NVTX_PUSH_POP;
    if (push_range(range ? &n->ranges : &n->domains, range ? &n->nranges : &n->ndomains, &v))
        return true;
    free(v.name);
    return out_of_memory(r);
}

static const char *domain_name(const nvtx_rows *n, const nvtx_range *v)
{
    if (v->domain == 0)
        return NULL; /* the default domain */
    for (size_t i = 0; i < n->ndomains; i++)
        if (n->domains[i].domain == v->domain && n->domains[i].pid == v->pid)
            return n->domains[i].name;
    return NULL;
}

/* The ranges, with their domains' names, to the region tracker, which nests them: a push/pop
 * range in the innermost one of its thread that contains it; start/end ranges need not nest, so
 * they hang from the run. A range never ended closes at the last event of the export. */
static bool add_ranges(nsys_reader *r, nvtx_rows *n)
{
    int64_t unknown_domains = 0;
    for (size_t i = 0; i < n->nranges; i++) {
        const nvtx_range *v = &n->ranges[i];
        const char *domain = domain_name(n, v);
        unknown_domains += v->domain != 0 && !domain;
        rt_range range = {.style = v->push_pop ? RANGE_PUSH_POP : RANGE_START_END, .name = v->name,
                          .domain = domain, .pid = v->pid, .tid = v->tid, .start_ns = v->start, .end_ns = v->end};
        if (!rt_interval(&r->ranges, &range))
            return out_of_memory(r);
    }
    if (!rt_finish(&r->ranges, "NVTX_EVENTS"))
        return out_of_memory(r);
    if (unknown_domains)
        model_add_warning(r->m, "NVTX_EVENTS: %lld %s in domains no domain-creation row names", (long long)unknown_domains,
                          unknown_domains == 1 ? "range is" : "ranges are");
    return true;
}

static bool read_nvtx(nsys_reader *r)
{
    sq_scan s;
    int got = open_table(r, &s, "NVTX_EVENTS", nvtx_cols, N_NCOLS);
    if (got == 0)
        model_add_warning(r->m, "no NVTX_EVENTS table: no NVTX ranges (was the report recorded with --trace=nvtx?)");
    if (got <= 0)
        return got == 0;
    if (!s.present[N_TEXT] && !s.present[N_TEXT_ID])
        model_add_warning(r->m, "NVTX_EVENTS has neither a text nor a textId column: ranges are unnamed");
    nvtx_rows n = {0};
    while ((got = sq_scan_next(&s)) == 1)
        if (!nvtx_row(r, &s, &n)) {
            got = -1;
            break;
        }
    sq_scan_close(&s);
    bool ok = got == 0 && add_ranges(r, &n);
    nvtx_rows_free(&n);
    return ok;
}

/* ---------- devices, processes, threads, session ---------- */

enum { D_ID, D_NAME, D_BUS, D_L2, D_MEM, D_CLOCK, D_SMS, D_REGS_BLOCK, D_SMEM_BLOCK, D_SMEM_OPTIN, D_SMEM_SM,
       D_REGS_SM, D_WARP, D_WARPS_SM, D_BLOCKS_SM, D_THREADS_BLOCK, D_CC_MAJOR, D_CC_MINOR, D_BANDWIDTH, D_NCOLS };
static const col_spec gpu_cols[D_NCOLS] = {
    {"id", COL_REQUIRED},
    {"name", COL_OPTIONAL},
    {"busLocation", COL_OPTIONAL},
    {"l2CacheSize", COL_OPTIONAL},
    {"totalMemory", COL_OPTIONAL},
    {"clockRate", COL_OPTIONAL}, /* Hz */
    {"smCount", COL_OPTIONAL},
    {"maxRegistersPerBlock", COL_OPTIONAL},
    {"maxShmemPerBlock", COL_OPTIONAL},
    {"maxShmemPerBlockOptin", COL_OPTIONAL},
    {"maxShmemPerSm", COL_OPTIONAL},
    {"maxRegistersPerSm", COL_OPTIONAL},
    {"threadsPerWarp", COL_OPTIONAL},
    {"maxWarpsPerSm", COL_OPTIONAL},
    {"maxBlocksPerSm", COL_OPTIONAL},
    {"maxThreadsPerBlock", COL_OPTIONAL},
    {"computeMajor", COL_OPTIONAL},
    {"computeMinor", COL_OPTIONAL},
    {"memoryBandwidth", COL_OPTIONAL}, /* bytes per second */
};

static bool gpu_row(nsys_reader *r, sq_scan *s, skipped_rows *k)
{
    (void)k;
    device_info d = {0};
    int64_t clock_hz = 0;
    int warps_per_sm = 0;
    char *name = NULL, *bus = NULL;
    bool ok = read_int(s, D_ID, &d.index) && sq_name(s, D_NAME, &name) && sq_name(s, D_BUS, &bus) &&
              read_int(s, D_L2, &d.l2_bytes) && read_u64(s, D_MEM, &d.total_mem) &&
              sq_int(s, D_CLOCK, 0, INT64_MAX, &clock_hz) && read_int(s, D_SMS, &d.sm_count) &&
              read_int(s, D_REGS_BLOCK, &d.regs_per_block) && read_u64(s, D_SMEM_BLOCK, &d.smem_per_block) &&
              read_u64(s, D_SMEM_OPTIN, &d.smem_per_block_optin) && read_u64(s, D_SMEM_SM, &d.smem_per_sm) &&
              read_int(s, D_REGS_SM, &d.regs_per_sm) && read_int(s, D_WARP, &d.warp_size) &&
              read_int(s, D_WARPS_SM, &warps_per_sm) && read_int(s, D_BLOCKS_SM, &d.max_blocks_per_sm) &&
              read_int(s, D_THREADS_BLOCK, &d.max_threads_per_block) && read_int(s, D_CC_MAJOR, &d.cc_major) &&
              read_int(s, D_CC_MINOR, &d.cc_minor) && read_u64(s, D_BANDWIDTH, &d.memory_bandwidth);
    copy_str(d.name, sizeof d.name, name);
    copy_str(d.pci_bus_id, sizeof d.pci_bus_id, bus);
    free(name);
    free(bus);
    if (!ok)
        return false;
    d.clock_khz = clock_hz / 1000 > INT_MAX ? 0 : (int)(clock_hz / 1000);
    d.max_threads_per_sm = (int64_t)warps_per_sm * d.warp_size > INT_MAX ? 0 : warps_per_sm * d.warp_size;
    copy_str(d.pcie_why, sizeof d.pcie_why, "not recorded in an Nsight Systems export");
    /* Each device once: an export may list a GPU per VM or context. */
    for (int i = 0; i < r->m->ndevices; i++)
        if (r->m->devices[i].index == d.index)
            return true;
    device_info *p = realloc(r->m->devices, (size_t)(r->m->ndevices + 1) * sizeof *p);
    if (!p)
        return out_of_memory(r);
    r->m->devices = p;
    p[r->m->ndevices++] = d;
    return true;
}

enum { P_GPID, P_PID, P_NAME, P_NCOLS };
static const col_spec process_cols[P_NCOLS] = {{"globalPid", COL_QUIET}, {"pid", COL_QUIET}, {"name", COL_OPTIONAL}};

static bool process_row(nsys_reader *r, sq_scan *s, skipped_rows *k)
{
    (void)k;
    int64_t gpid = -1, pid = -1;
    char *name = NULL;
    if (!sq_int(s, P_GPID, 0, INT64_MAX, &gpid) || !sq_int(s, P_PID, 0, UINT32_MAX, &pid) || !sq_name(s, P_NAME, &name))
        return false;
    bool ok = true;
    if (pid >= 0 || gpid >= 0)
        ok = model_add_process(r->m, pid >= 0 ? (uint32_t)pid : pid_of(gpid), name) || out_of_memory(r);
    free(name);
    return ok;
}

enum { T_NAME, T_GTID, T_NCOLS };
static const col_spec thread_cols[T_NCOLS] = {{"nameId", COL_REQUIRED}, {"globalTid", COL_REQUIRED}};

static bool thread_row(nsys_reader *r, sq_scan *s, skipped_rows *k)
{
    (void)k;
    int64_t gtid = 0;
    char *name = NULL;
    if (!sq_int(s, T_GTID, 0, INT64_MAX, &gtid) || !sq_name(s, T_NAME, &name))
        return false;
    uint32_t pid = pid_of(gtid), tid = tid_of(gtid);
    bool known = false;
    for (int i = 0; i < r->m->nthreads && !known; i++)
        known = r->m->threads[i].pid == pid && r->m->threads[i].tid == tid;
    bool ok = known || model_add_thread(r->m, pid, tid, name) || out_of_memory(r);
    free(name);
    return ok;
}

static const col_spec session_cols[] = {{"utcEpochNs", COL_OPTIONAL}};

static bool session_row(nsys_reader *r, sq_scan *s, skipped_rows *k)
{
    (void)k;
    int64_t ns = -1;
    if (!sq_int(s, 0, 0, INT64_MAX, &ns))
        return false;
    time_t t = (time_t)(ns / 1000000000);
    struct tm tm;
    if (ns >= 0 && gmtime_r(&t, &tm))
        strftime(r->m->started_at, sizeof r->m->started_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return true;
}

/* ---------- the host: OS runtime calls ---------- */

/* OSRT_API (nsys --trace=osrt): each traced libc/pthread call (poll, read, pthread_mutex_lock,
 * usleep...) with its thread, a host span named by the call. Columns as NVIDIA's export schema
 * documents them; only these are needed. */
enum { O_START, O_END, O_TID, O_NAME, O_NCOLS };
static const col_spec osrt_cols[O_NCOLS] = {
    {"start", COL_REQUIRED}, {"end", COL_REQUIRED}, {"globalTid", COL_REQUIRED}, {"nameId", COL_REQUIRED},
};

static bool osrt_row(nsys_reader *r, sq_scan *s, skipped_rows *k)
{
    cpu_span c = {.kind = HOST_FRAME_OP, .id = -1, .parent_id = -1};
    int64_t gtid = 0;
    char *name = NULL;
    if (!read_span(s, &c.start_ns, &c.end_ns) || !sq_int(s, O_TID, 0, INT64_MAX, &gtid) || !sq_name(s, O_NAME, &name))
        return false;
    c.pid = pid_of(gtid);
    c.tid = tid_of(gtid);
    c.name = name;
    bool ok = !usable(r, k, c.start_ns, c.end_ns) || cpu_spans_add(&r->osrt, &c) || out_of_memory(r);
    free(name);
    return ok;
}

/* The calls of the processes kept (those that did CUDA work), into host_activity. */
static bool add_osrt_spans(nsys_reader *r)
{
    cpu_spans *l = &r->osrt;
    size_t kept = 0;
    for (size_t i = 0; i < l->n; i++) {
        bool cuda = false;
        for (int p = 0; p < r->m->nprocesses && !cuda; p++)
            cuda = r->m->processes[p].pid == l->v[i].pid;
        if (cuda)
            l->v[kept++] = l->v[i];
    }
    l->n = kept;
    bool overflow;
    return cpu_spans_finish(l, 0, &r->m->host_activity, &overflow) || out_of_memory(r);
}

/* ---------- the host: CPU samples ---------- */

/* COMPOSITE_EVENTS (nsys --sample=cpu): a sample's id, time and thread; SAMPLING_CALLCHAINS: its
 * stack, a row per frame (stackDepth 0 the sampled function, then its callers), symbol and module
 * names as StringIds. Columns as NVIDIA's export schema documents them. */
struct cpu_sample {
    int64_t id, start;
    uint32_t pid, tid;
};
struct chain_entry {
    int64_t id, depth;
    const char *symbol, *module; /* r->osrt's copies */
};

static bool room(void **arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 256;
    void *g = realloc(*arr, c * size);
    if (!g)
        return false;
    *arr = g;
    *cap = c;
    return true;
}

enum { CE_ID, CE_START, CE_TID, CE_NCOLS };
static const col_spec composite_cols[CE_NCOLS] = {{"id", COL_REQUIRED}, {"start", COL_REQUIRED}, {"globalTid", COL_REQUIRED}};

static bool composite_row(nsys_reader *r, sq_scan *s, skipped_rows *k)
{
    (void)k;
    struct cpu_sample c;
    int64_t gtid = 0;
    if (!sq_int(s, CE_ID, INT64_MIN, INT64_MAX, &c.id) || !sq_int(s, CE_START, TIME_MIN, TIME_MAX, &c.start) ||
        !sq_int(s, CE_TID, 0, INT64_MAX, &gtid))
        return false;
    c.pid = pid_of(gtid);
    c.tid = tid_of(gtid);
    if (!room((void **)&r->samples, r->nsamples, &r->samples_cap, sizeof *r->samples))
        return out_of_memory(r);
    r->samples[r->nsamples++] = c;
    return true;
}

enum { SC_ID, SC_SYMBOL, SC_MODULE, SC_DEPTH, SC_NCOLS };
static const col_spec chain_cols[SC_NCOLS] = {
    {"id", COL_REQUIRED}, {"symbol", COL_REQUIRED}, {"module", COL_OPTIONAL}, {"stackDepth", COL_REQUIRED},
};

static bool chain_row(nsys_reader *r, sq_scan *s, skipped_rows *k)
{
    (void)k;
    struct chain_entry c = {0};
    char *symbol = NULL, *module = NULL;
    bool ok = sq_int(s, SC_ID, INT64_MIN, INT64_MAX, &c.id) && sq_int(s, SC_DEPTH, 0, INT32_MAX, &c.depth) &&
              sq_name(s, SC_SYMBOL, &symbol) && sq_name(s, SC_MODULE, &module);
    if (ok) {
        c.symbol = cpu_spans_name(&r->osrt, symbol ? symbol : "");
        c.module = module && module[0] ? cpu_spans_name(&r->osrt, module) : NULL;
        ok = (c.symbol && (!module || !module[0] || c.module) &&
              room((void **)&r->chains, r->nchains, &r->chains_cap, sizeof *r->chains)) || out_of_memory(r);
        if (ok)
            r->chains[r->nchains++] = c;
    }
    free(symbol);
    free(module);
    return ok;
}

static int sample_by_id(const void *a, const void *b)
{
    const struct cpu_sample *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* By sample, the outermost caller first. */
static int chain_by_id(const void *a, const void *b)
{
    const struct chain_entry *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return (x->depth < y->depth) - (x->depth > y->depth);
}

static int by_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int sample_by_thread(const void *a, const void *b)
{
    const struct cpu_sample *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* The sampling rate as the export shows it (it does not state it): the median interval between a
 * thread's consecutive samples. 0 when no thread has two. */
static double sampling_rate(struct cpu_sample *v, size_t n)
{
    int64_t *gaps = malloc((n ? n : 1) * sizeof *gaps);
    size_t ng = 0;
    if (!gaps)
        return 0;
    if (n > 1)
        qsort(v, n, sizeof *v, sample_by_thread);
    for (size_t i = 1; i < n; i++)
        if (v[i].pid == v[i - 1].pid && v[i].tid == v[i - 1].tid && v[i].start > v[i - 1].start)
            gaps[ng++] = v[i].start - v[i - 1].start;
    if (ng > 1)
        qsort(gaps, ng, sizeof *gaps, by_i64);
    double hz = ng ? 1e9 / (double)gaps[ng / 2] : 0;
    free(gaps);
    return hz;
}

/* The samples of the processes kept, each with its stack as nodes of the call tree. */
static bool add_cpu_samples(nsys_reader *r)
{
    host_activity *h = &r->m->host_activity;
    if (r->nsamples == 0)
        return true;
    if (r->nsamples > 1)
        qsort(r->samples, r->nsamples, sizeof *r->samples, sample_by_id);
    if (r->nchains > 1)
        qsort(r->chains, r->nchains, sizeof *r->chains, chain_by_id);
    host_node_set set = {0};
    bool ok = true;
    size_t c = 0, kept = 0;
    for (size_t i = 0; ok && i < r->nsamples; i++) {
        const struct cpu_sample *x = &r->samples[i];
        while (c < r->nchains && r->chains[c].id < x->id)
            c++;
        bool cuda = false;
        for (int p = 0; p < r->m->nprocesses && !cuda; p++)
            cuda = r->m->processes[p].pid == x->pid;
        if (!cuda)
            continue;
        int node = -1;
        for (size_t e = c; ok && e < r->nchains && r->chains[e].id == x->id; e++) {
            host_frame f = {.pid = x->pid, .parent = node, .kind = HOST_FRAME_NATIVE,
                            .function = (char *)r->chains[e].symbol, .module = (char *)r->chains[e].module};
            node = host_node(&set, h, &f);
            ok = node >= 0;
        }
        host_sample hs = {.ts_ns = x->start, .pid = x->pid, .tid = x->tid, .frame = node, .source = HOST_SAMPLE_CPU};
        ok = ok && host_add_sample(h, &hs);
        r->samples[kept++] = *x;
    }
    host_node_set_free(&set);
    if (!ok)
        return out_of_memory(r);
    if (kept && !h->mechanism[0]) {
        copy_str(h->mechanism, sizeof h->mechanism, "nsys CPU sampling");
        h->rate_hz = sampling_rate(r->samples, kept);
    }
    return true;
}

/* ---------- the whole file ---------- */

static bool has_activity_tables(nsys_reader *r)
{
    for (int i = 0; i < NACTIVITY; i++) {
        int got = sq_table_exists(&r->db, activity_tables[i]);
        if (got != 0)
            return got > 0;
    }
    return sq_fail(&r->db, "no CUDA activity tables: was the report recorded with --trace=cuda?");
}

#define ROWS(table, cols, if_missing, fn) read_rows(&r, table, cols, (int)(sizeof cols / sizeof cols[0]), if_missing, fn)

/* The export in the file fd reads (named name in messages) into m. */
static bool read_export(int fd, const char *name, run_model *m, char *err, size_t errlen)
{
    nsys_reader r = {.m = m};
    rt_init(&r.ranges, m);
    bool ok = sq_open(&r.db, fd, name, err, errlen) && has_activity_tables(&r) && read_kind_maps(&r) &&
              ROWS("TARGET_INFO_GPU", gpu_cols, "device facts n/a", gpu_row) &&
              ROWS("PROCESSES", process_cols, "process names n/a", process_row) &&
              ROWS("ThreadNames", thread_cols, "thread names n/a", thread_row) &&
              ROWS("TARGET_INFO_SESSION_START_TIME", session_cols, NULL, session_row) &&
              ROWS("CUPTI_ACTIVITY_KIND_KERNEL", kernel_cols, "kernel figures n/a", kernel_row) &&
              ROWS("CUPTI_ACTIVITY_KIND_MEMCPY", copy_cols, "copy figures n/a", copy_row) &&
              ROWS("CUPTI_ACTIVITY_KIND_MEMSET", memset_cols, "memset figures n/a", memset_row) &&
              ROWS("CUPTI_ACTIVITY_KIND_RUNTIME", api_cols, "CUDA runtime calls n/a", runtime_row) &&
              ROWS("CUPTI_ACTIVITY_KIND_DRIVER", api_cols, "CUDA driver calls n/a (not traced)", driver_row) &&
              drop_nested_calls(&r) && index_calls(&r) &&
              ROWS("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", sync_cols, "synchronization figures n/a", sync_row) &&
              read_nvtx(&r) && ROWS("OSRT_API", osrt_cols, NULL, osrt_row) &&
              ROWS("COMPOSITE_EVENTS", composite_cols, NULL, composite_row) &&
              ROWS("SAMPLING_CALLCHAINS", chain_cols, NULL, chain_row) &&
              (nsys_keep_cuda_processes(m) || out_of_memory(&r)) && add_cpu_samples(&r) && add_osrt_spans(&r); /* samples name osrt's strings: first */
    if (ok) {
        m->source = SOURCE_NSYS;
        copy_str(m->source_file, sizeof m->source_file, name);
        m->collection.source = TIMING_CUPTI; /* nsys traces CUDA through CUPTI */
        const char *base = strrchr(name, '/');
        ok = model_finish_regions(m, base ? base + 1 : name) || out_of_memory(&r);
    }
    if (ok)
        m->epoch_ns = m->regions[0].start_ns;
    free(r.calls);
    rt_free(&r.ranges);
    cpu_spans_free(&r.osrt);
    free(r.samples);
    free(r.chains);
    sq_close(&r.db);
    if (!ok) {
        model_free(m);
        model_init(m);
    }
    return ok;
}

/* The input's content in a temporary file that is already unlinked (so nothing is left behind,
 * whatever ends the import): its descriptor, or -1 with a message. SQLite needs the whole
 * database at hand to jump around in; a pipe or a compressed stream gives it once, in order. */
static int spool(trace_input *in, char *err, size_t errlen)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !dir[0])
        dir = "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/mmprof-import-XXXXXX", dir);
    int fd = mkstemp(path);
    FILE *copy = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!copy) {
        snprintf(err, errlen, "%s: cannot make a temporary copy for SQLite in %s: %s", in->name, dir, strerror(errno));
        if (fd >= 0) {
            unlink(path);
            close(fd);
        }
        return -1;
    }
    unlink(path);
    enum { CHUNK = 1 << 20 };
    unsigned char *buf = malloc(CHUNK);
    const char *why = buf ? NULL : "out of memory";
    size_t got;
    while (!why && (got = ti_read(in, buf, CHUNK)) > 0)
        if (fwrite(buf, 1, got, copy) != got)
            why = strerror(errno);
    if (!why && fflush(copy) != 0)
        why = strerror(errno);
    free(buf);
    int kept = why || ti_failed(in) ? -1 : dup(fd); /* the copy outlives its FILE */
    if (kept < 0 && !why)
        why = strerror(errno);
    fclose(copy);
    if (ti_failed(in))
        snprintf(err, errlen, "%s: %s", in->name, ti_error(in));
    else if (kept < 0)
        snprintf(err, errlen, "%s: cannot make a temporary copy for SQLite in %s: %s", in->name, dir, why);
    return kept;
}

bool import_nsys_sqlite_input(trace_input *in, run_model *m, char *err, size_t errlen)
{
    if (in->regular && in->compression == TI_PLAIN)
        return read_export(in->fd, in->name, m, err, errlen);
    int fd = spool(in, err, errlen);
    if (fd < 0)
        return false;
    bool ok = read_export(fd, in->name, m, err, errlen);
    close(fd);
    return ok;
}
