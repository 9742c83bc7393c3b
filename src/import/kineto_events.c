/* One Kineto trace event into the run model: kernels, copies, memsets, CUDA API calls, syncs,
 * record_function ranges, the caching allocator's memory events and the metadata that names
 * processes and threads. What is read and
 * what is left out, and why: kineto.c. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_stream.h"
#include "kineto_reader.h"

/* ts or dur of the event at hand in nanoseconds (microseconds in the file), exactly. */
static bool event_time(kineto_reader *r, const cJSON *ev, const char *key, int64_t *ns)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, key);
    if (!v)
        return kr_bad_event(r, "no %s", key);
    if (!cJSON_IsNumber(v))
        return kr_bad_event(r, "%s is %s, not a number", key, kr_type_name(v));
    const char *t = js_member_text(r->text, r->text_len, key);
    if (!t || !js_decimal_scaled(t, 3, ns))
        return kr_bad_event(r, "%s %.17g is out of range", key, v->valuedouble);
    return true;
}

/* ---------- args ---------- */

/* An integer argument: *out stays as it is when absent; false (with a message) when it is there
 * but not a number in [lo, hi]. */
static bool arg_int(kineto_reader *r, const cJSON *args, const char *key, double lo, double hi, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    if (!v)
        return true;
    if (!cJSON_IsNumber(v))
        return kr_bad_event(r, "args.%s is %s, not a number", key, kr_type_name(v));
    if (!(v->valuedouble >= lo && v->valuedouble <= hi))
        return kr_bad_event(r, "args.%s %.17g is out of range", key, v->valuedouble);
    *out = v->valuedouble;
    return true;
}

static bool arg_u32(kineto_reader *r, const cJSON *args, const char *key, uint32_t *out)
{
    double d = *out;
    if (!arg_int(r, args, key, 0, 4294967295.0, &d))
        return false;
    *out = (uint32_t)d;
    return true;
}

static bool arg_triple(kineto_reader *r, const cJSON *args, const char *key, int out[3])
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    if (!v)
        return true;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
        return kr_bad_event(r, "args.%s is %s, not a list of three numbers", key, kr_type_name(v));
    for (int i = 0; i < 3; i++) {
        const cJSON *x = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0 && x->valuedouble <= 2147483647.0))
            return kr_bad_event(r, "args.%s[%d] is not a count", key, i);
        out[i] = (int)x->valuedouble;
    }
    return true;
}

/* ---------- one event ---------- */

/* The common fields of a trace event, checked for type. */
typedef struct {
    const cJSON *obj;
    const cJSON *args; /* an object, or NULL */
    const char *ph, *cat, *name;
    const cJSON *pid, *tid;
} trace_event;

static bool string_field(kineto_reader *r, const cJSON *ev, const char *key, const char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, key);
    *out = "";
    if (!v)
        return true;
    if (!cJSON_IsString(v))
        return kr_bad_event(r, "%s is %s, not a string", key, kr_type_name(v));
    *out = v->valuestring;
    return true;
}

static bool read_common(kineto_reader *r, const cJSON *ev, trace_event *e)
{
    memset(e, 0, sizeof *e);
    e->obj = ev;
    if (!cJSON_IsObject(ev))
        return kr_bad_event(r, "%s, not an object", kr_type_name(ev));
    if (!string_field(r, ev, "ph", &e->ph) || !string_field(r, ev, "cat", &e->cat) ||
        !string_field(r, ev, "name", &e->name))
        return false;
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(ev, "ts");
    if (ts && !cJSON_IsNumber(ts))
        return kr_bad_event(r, "ts is %s, not a number", kr_type_name(ts));
    const cJSON *dur = cJSON_GetObjectItemCaseSensitive(ev, "dur");
    if (dur && !cJSON_IsNumber(dur))
        return kr_bad_event(r, "dur is %s, not a number", kr_type_name(dur));
    e->args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    if (e->args && !cJSON_IsObject(e->args))
        return kr_bad_event(r, "args is %s, not an object", kr_type_name(e->args));
    /* Kineto writes strings ("Spans", "Traces", "") as pid and tid of its own bookkeeping. */
    e->pid = cJSON_GetObjectItemCaseSensitive(ev, "pid");
    e->tid = cJSON_GetObjectItemCaseSensitive(ev, "tid");
    return true;
}

/* pid or tid of an event this importer reads: a number that fits 32 bits. Kineto writes negative
 * thread ids as their absolute value; a negative one here is kept as its 32-bit pattern. */
static bool event_id(kineto_reader *r, const cJSON *v, const char *key, uint32_t *out)
{
    if (!v)
        return kr_bad_event(r, "no %s", key);
    if (!cJSON_IsNumber(v))
        return kr_bad_event(r, "%s is %s, not a number", key, kr_type_name(v));
    if (!(v->valuedouble >= -2147483648.0 && v->valuedouble <= 4294967295.0))
        return kr_bad_event(r, "%s %.17g is out of range", key, v->valuedouble);
    double d = v->valuedouble;
    *out = d < 0 ? (uint32_t)(int32_t)d : (uint32_t)d;
    return true;
}

static bool event_span(kineto_reader *r, const cJSON *ev, int64_t *start, int64_t *end)
{
    int64_t dur;
    if (!event_time(r, ev, "ts", start) || !event_time(r, ev, "dur", &dur))
        return false;
    if (dur < 0)
        return kr_bad_event(r, "dur is negative");
    if (*start > INT64_MAX - dur)
        return kr_bad_event(r, "ts + dur is out of range");
    *end = *start + dur;
    return true;
}

/* "Memcpy HtoD (Pageable -> Device)": Kineto's name for a copy, from CUPTI's kinds. */
static copy_dir copy_dir_of(const char *s, size_t n)
{
    static const struct { const char *name; copy_dir dir; } dirs[] = {
        {"HtoD", COPY_H2D}, {"DtoH", COPY_D2H}, {"DtoD", COPY_D2D}, {"HtoH", COPY_H2H}, {"PtoP", COPY_P2P},
    };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (strlen(dirs[i].name) == n && memcmp(dirs[i].name, s, n) == 0)
            return dirs[i].dir;
    return COPY_OTHER; /* HtoA, AtoD and the other array copies */
}

/* CUPTI's memory kinds as Kineto names them; static device and managed memory count as device
 * and managed. */
static bool mem_kind_of(const char *s, size_t n, mem_kind *out)
{
    static const struct { const char *name; mem_kind kind; } kinds[] = {
        {"Pageable", MEM_PAGEABLE}, {"Pinned", MEM_PINNED}, {"Device", MEM_DEVICE},
        {"Array", MEM_ARRAY}, {"Managed", MEM_MANAGED}, {"Device Static", MEM_DEVICE},
        {"Managed Static", MEM_MANAGED}, {"Unknown", MEM_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strlen(kinds[i].name) == n && memcmp(kinds[i].name, s, n) == 0) {
            *out = kinds[i].kind;
            return true;
        }
    return false;
}

/* ROCm's copies name their host side "Host" (roctracer tells no pageable from pinned): the
 * direction is known, the host memory kind is not. */
static bool host_kind_of(const char *s, size_t n, mem_kind *out, bool *unnamed_host)
{
    if (n == 4 && memcmp(s, "Host", 4) == 0) {
        *out = MEM_UNKNOWN;
        *unnamed_host = true;
        return true;
    }
    return mem_kind_of(s, n, out);
}

static bool parse_copy_name(const char *name, copy_event *c, bool *unnamed_host)
{
    const char *prefix = "Memcpy ";
    if (strncmp(name, prefix, strlen(prefix)) != 0)
        return false;
    const char *kind = name + strlen(prefix);
    const char *sp = strchr(kind, ' ');
    const char *arrow = sp ? strstr(sp, " -> ") : NULL;
    const char *close = arrow ? strchr(arrow, ')') : NULL;
    if (!sp || sp[1] != '(' || !arrow || !close || close[1] != '\0')
        return false;
    c->dir = copy_dir_of(kind, (size_t)(sp - kind));
    return host_kind_of(sp + 2, (size_t)(arrow - (sp + 2)), &c->src, unnamed_host) &&
           host_kind_of(arrow + 4, (size_t)(close - (arrow + 4)), &c->dst, unnamed_host);
}

/* "Memset (Device)". */
static bool parse_memset_name(const char *name, mem_kind *out)
{
    size_t n = strlen(name);
    const char *prefix = "Memset (";
    size_t p = strlen(prefix);
    return n > p + 1 && strncmp(name, prefix, p) == 0 && name[n - 1] == ')' &&
           mem_kind_of(name + p, n - p - 1, out);
}

/* What every GPU event has: its span, and device, stream and correlation (args first, Kineto's
 * pid and tid as the fallback for device and stream), plus bytes for copies and memsets. */
typedef struct {
    int64_t start_ns, end_ns;
    uint32_t device, stream, correlation;
    uint64_t bytes;
} gpu_fields;

static bool read_gpu_fields(kineto_reader *r, const trace_event *e, gpu_fields *g)
{
    memset(g, 0, sizeof *g);
    if (!event_span(r, e->obj, &g->start_ns, &g->end_ns) || !event_id(r, e->pid, "pid", &g->device) ||
        !event_id(r, e->tid, "tid", &g->stream))
        return false;
    if (!e->args)
        return true;
    double bytes = 0;
    if (!arg_u32(r, e->args, "device", &g->device) || !arg_u32(r, e->args, "inDevice", &g->device) ||
        !arg_u32(r, e->args, "stream", &g->stream) || !arg_u32(r, e->args, "correlation", &g->correlation) ||
        !arg_int(r, e->args, "bytes", 0, 1.8e19, &bytes))
        return false;
    g->bytes = (uint64_t)bytes;
    return true;
}

static bool read_kernel(kineto_reader *r, const trace_event *e)
{
    gpu_fields g;
    if (!read_gpu_fields(r, e, &g))
        return false;
    kernel_event k = {.name = (char *)e->name, .start_ns = g.start_ns, .end_ns = g.end_ns,
                      .device = g.device, .stream = g.stream, .correlation = g.correlation};
    if (e->args) {
        double regs = -1, smem = 0;
        if (!arg_int(r, e->args, "registers per thread", 0, 65536, &regs) ||
            !arg_int(r, e->args, "shared memory", 0, 2147483647.0, &smem) ||
            !arg_triple(r, e->args, "grid", k.grid) || !arg_triple(r, e->args, "block", k.block))
            return false;
        /* Kineto gives static + dynamic shared memory as one sum: it goes in as dynamic, which
         * is what can exceed the 48 KB default and so what the occupancy calculator must see. */
        k.has_resources = regs >= 0;
        k.registers = regs >= 0 ? (int)regs : 0;
        k.dynamic_smem = (int)smem;
    }
    return events_add_kernel(&r->m->events, &k) || kr_no_memory(r);
}

static bool read_copy(kineto_reader *r, const trace_event *e)
{
    gpu_fields g;
    if (!read_gpu_fields(r, e, &g))
        return false;
    copy_event c = {.bytes = g.bytes, .start_ns = g.start_ns, .end_ns = g.end_ns,
                    .device = g.device, .stream = g.stream, .correlation = g.correlation};
    bool unnamed_host = false;
    if (!parse_copy_name(e->name, &c, &unnamed_host)) {
        c.dir = COPY_OTHER;
        c.src = c.dst = MEM_UNKNOWN;
        r->unnamed_copies++;
    } else if (unnamed_host) {
        r->host_copies++;
    }
    return events_add_copy(&r->m->events, &c) || kr_no_memory(r);
}

static bool read_memset(kineto_reader *r, const trace_event *e)
{
    gpu_fields g;
    if (!read_gpu_fields(r, e, &g))
        return false;
    memset_event s = {.bytes = g.bytes, .start_ns = g.start_ns, .end_ns = g.end_ns,
                      .device = g.device, .stream = g.stream, .correlation = g.correlation};
    if (!parse_memset_name(e->name, &s.mem))
        s.mem = MEM_UNKNOWN;
    return events_add_memset(&r->m->events, &s) || kr_no_memory(r);
}

/* Records that a CPU event came from (pid, tid), so the thread and its process go in the model. */
static bool note_cpu_thread(kineto_reader *r, uint32_t pid, uint32_t tid)
{
    uint64_t key = ((uint64_t)pid << 32 | tid) + 1; /* + 1: 0 marks an empty slot */
    if (r->ncpu_threads * 2 >= r->cpu_threads_cap) {
        size_t cap = r->cpu_threads_cap ? r->cpu_threads_cap * 2 : 64;
        uint64_t *t = calloc(cap, sizeof *t);
        if (!t)
            return kr_no_memory(r);
        for (size_t i = 0; i < r->cpu_threads_cap; i++) {
            uint64_t k = r->cpu_threads[i];
            if (!k)
                continue;
            size_t h = (size_t)(k * 0x9E3779B97F4A7C15ull) & (cap - 1);
            while (t[h])
                h = (h + 1) & (cap - 1);
            t[h] = k;
        }
        free(r->cpu_threads);
        r->cpu_threads = t;
        r->cpu_threads_cap = cap;
    }
    size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull) & (r->cpu_threads_cap - 1);
    while (r->cpu_threads[h] && r->cpu_threads[h] != key)
        h = (h + 1) & (r->cpu_threads_cap - 1);
    if (!r->cpu_threads[h]) {
        r->cpu_threads[h] = key;
        r->ncpu_threads++;
    }
    return true;
}

static bool cpu_ids(kineto_reader *r, const trace_event *e, uint32_t *pid, uint32_t *tid)
{
    return event_id(r, e->pid, "pid", pid) && event_id(r, e->tid, "tid", tid) && note_cpu_thread(r, *pid, *tid);
}

static bool read_api(kineto_reader *r, const trace_event *e, api_kind kind)
{
    api_event a = {0};
    a.name = (char *)e->name;
    a.kind = kind;
    if (!event_span(r, e->obj, &a.start_ns, &a.end_ns) || !cpu_ids(r, e, &a.pid, &a.thread))
        return false;
    if (e->args && !arg_u32(r, e->args, "correlation", &a.correlation))
        return false;
    if (!events_add_api(&r->m->events, &a))
        return kr_no_memory(r);
    sync_kind sk = kr_api_sync_kind(e->name);
    if (sk == SYNC_UNKNOWN)
        return true;
    sync_event s = {.kind = sk, .start_ns = a.start_ns, .end_ns = a.end_ns, .pid = a.pid,
                    .thread = a.thread, .correlation = a.correlation};
    return events_add_sync(&r->m->events, &s) || kr_no_memory(r);
}

/* Room in *arr (n elements of size elem) for one more: the capacity doubles at each power of two
 * from 8, so a trace with many records costs no quadratic copying. */
static bool room_for_one(kineto_reader *r, void **arr, size_t n, size_t elem)
{
    if (n != 0 && (n < 8 || (n & (n - 1)) != 0))
        return true;
    void *grown = realloc(*arr, (n < 8 ? 8 : 2 * n) * elem);
    if (!grown)
        return kr_no_memory(r);
    *arr = grown;
    return true;
}

/* CUPTI's synchronization record, as Kineto names it ("Stream Sync", ...). */
static bool read_cuda_sync(kineto_reader *r, const trace_event *e)
{
    static const struct { const char *name; sync_kind kind; } kinds[] = {
        {"Event Sync", SYNC_EVENT}, {"Stream Wait Event", SYNC_STREAM_WAIT_EVENT},
        {"Stream Sync", SYNC_STREAM}, {"Context Sync", SYNC_CONTEXT},
    };
    pending_sync p = {0};
    if (!event_span(r, e->obj, &p.start_ns, &p.end_ns))
        return false;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(e->name, kinds[i].name) == 0)
            p.kind = kinds[i].kind;
    /* Context and device syncs have no stream: CUPTI's invalid value, -1 or 2^32 - 1. */
    double stream = 0;
    if (e->args && (!arg_int(r, e->args, "stream", -1, 4294967295.0, &stream) ||
                    !arg_u32(r, e->args, "correlation", &p.correlation)))
        return false;
    p.stream = stream < 0 || stream == 4294967295.0 ? 0 : (uint32_t)stream;
    if (!room_for_one(r, (void **)&r->pending, r->npending, sizeof *r->pending))
        return false;
    r->pending[r->npending++] = p;
    return true;
}

static bool read_annotation(kineto_reader *r, const trace_event *e)
{
    int64_t start, end;
    uint32_t pid, tid;
    if (!event_span(r, e->obj, &start, &end) || !cpu_ids(r, e, &pid, &tid))
        return false;
    rt_range range = {.style = RANGE_ANNOTATION, .name = e->name, .pid = pid, .tid = tid, .start_ns = start,
                      .end_ns = end};
    return rt_interval(&r->annotations, &range) || kr_no_memory(r);
}

/* An optional id argument ("Python id", "Python parent id"): a non-negative integer, or null or
 * absent (-1). */
static bool arg_id(kineto_reader *r, const cJSON *args, const char *key, int64_t *out)
{
    const cJSON *v = args ? cJSON_GetObjectItemCaseSensitive(args, key) : NULL;
    double d = -1;
    if (v && !cJSON_IsNull(v) && !arg_int(r, args, key, 0, 9007199254740992.0, &d))
        return false;
    *out = (int64_t)d;
    return true;
}

/* cpu_op (an aten operator, an autograd node) and python_function (a Python call, named
 * "file.py(42): function", linked to its caller by "Python parent id"): host spans. */
static bool read_host_span(kineto_reader *r, const trace_event *e, host_frame_kind kind)
{
    cpu_span s = {.kind = kind, .name = e->name, .id = -1, .parent_id = -1};
    if (!event_span(r, e->obj, &s.start_ns, &s.end_ns) || !event_id(r, e->pid, "pid", &s.pid) ||
        !event_id(r, e->tid, "tid", &s.tid))
        return false;
    if (kind == HOST_FRAME_PY && (!arg_id(r, e->args, "Python id", &s.id) || !arg_id(r, e->args, "Python parent id", &s.parent_id)))
        return false;
    return cpu_spans_add(&r->host_spans, &s) || kr_no_memory(r);
}

static bool add_name(kineto_reader *r, named_id **arr, size_t *n, uint32_t pid, uint32_t tid, const char *name)
{
    if (!room_for_one(r, (void **)arr, *n, sizeof **arr))
        return false;
    named_id *x = &(*arr)[(*n)++];
    x->pid = pid;
    x->tid = tid;
    copy_str(x->name, sizeof x->name, name);
    return true;
}

/* process_name and thread_name; the rest (labels, sort indexes) only order Chrome's rows. */
static bool read_metadata(kineto_reader *r, const trace_event *e)
{
    bool process = strcmp(e->name, "process_name") == 0;
    if (!process && strcmp(e->name, "thread_name") != 0)
        return true;
    const cJSON *name = e->args ? cJSON_GetObjectItemCaseSensitive(e->args, "name") : NULL;
    if (!cJSON_IsString(name))
        return kr_bad_event(r, "%s without a string args.name", e->name);
    /* Kineto's own rows (pid -1 for its overhead, "Spans") name no process of the program. */
    if (!cJSON_IsNumber(e->pid) || e->pid->valuedouble < 0)
        return true;
    uint32_t pid, tid = 0;
    if (!event_id(r, e->pid, "pid", &pid) || (!process && !event_id(r, e->tid, "tid", &tid)))
        return false;
    return process ? add_name(r, &r->process_names, &r->nprocess_names, pid, 0, name->valuestring)
                   : add_name(r, &r->thread_names, &r->nthread_names, pid, tid, name->valuestring);
}

/* The caching allocator's "[memory]" instant (profile_memory=True): its time and ids here, its
 * args in kineto_memory.c. */
static bool read_memory(kineto_reader *r, const trace_event *e)
{
    int64_t ts;
    uint32_t pid, tid;
    if (!e->args)
        return kr_bad_event(r, "a [memory] event without args");
    return event_time(r, e->obj, "ts", &ts) && event_id(r, e->pid, "pid", &pid) && event_id(r, e->tid, "tid", &tid) &&
           kr_read_memory(r, e->args, pid, tid, ts);
}

bool kr_read_event(kineto_reader *r, const cJSON *ev)
{
    trace_event e;
    if (!read_common(r, ev, &e))
        return false;
    if (strcmp(e.ph, "M") == 0)
        return read_metadata(r, &e);
    if (strcmp(e.ph, "i") == 0 && strcmp(e.name, "[memory]") == 0)
        return read_memory(r, &e);
    if (strcmp(e.ph, "X") != 0)
        return true; /* flows, other instants, counters */
    if (strcmp(e.cat, "kernel") == 0)
        return read_kernel(r, &e);
    if (strcmp(e.cat, "gpu_memcpy") == 0)
        return read_copy(r, &e);
    if (strcmp(e.cat, "gpu_memset") == 0)
        return read_memset(r, &e);
    if (strcmp(e.cat, "cuda_runtime") == 0)
        return read_api(r, &e, API_RUNTIME);
    if (strcmp(e.cat, "cuda_driver") == 0)
        return read_api(r, &e, API_DRIVER);
    if (strcmp(e.cat, "cuda_sync") == 0)
        return read_cuda_sync(r, &e);
    if (strcmp(e.cat, "user_annotation") == 0)
        return read_annotation(r, &e);
    if (strcmp(e.cat, "cpu_op") == 0)
        return read_host_span(r, &e, HOST_FRAME_OP);
    if (strcmp(e.cat, "python_function") == 0)
        return read_host_span(r, &e, HOST_FRAME_PY);
    return true;
}

