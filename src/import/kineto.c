/* The PyTorch profiler's (Kineto's) Chrome trace, read into the run model.
 *
 * What is read, by the event's "cat":
 *   kernel, gpu_memcpy, gpu_memset   kernels, copies (direction and memory kinds from the name,
 *                                    "Memcpy HtoD (Pageable -> Device)"), memsets; Kineto puts the
 *                                    device in pid and the stream in tid, the launching process is
 *                                    found through the correlation id of the launching API call
 *   cuda_runtime, cuda_driver        API calls on their CPU process and thread; the
 *                                    synchronizing ones (cudaDeviceSynchronize, ...) also as sync
 *   cuda_sync                        CUPTI's synchronization records, where the trace has them and
 *                                    no synchronizing API call carries the same correlation
 *   user_annotation                  record_function ranges: REGION_ANNOTATION on their thread,
 *                                    nested by time
 *   M process_name / thread_name     names of the processes and threads that made CPU events
 *   deviceProperties, cuda_driver_version, cuda_runtime_version, cupti_version (top level)
 * What is not, and why:
 *   gpu_user_annotation              the GPU span of a record_function: analysis attributes GPU
 *                                    work to the CPU range by correlation, which also counts work
 *                                    that ran after the range closed; the span would repeat it
 *   cpu_op, python_function          one per aten operator or Python call: thousands of regions
 *                                    that would drown the user's own ranges
 *   overhead, Trace, ac2g flows, i   profiler bookkeeping; the flows repeat the correlation ids
 *                                    that the events' args already carry
 *
 * Times: Kineto writes ts and dur as microseconds with three decimals (nanoseconds), relative to
 * baseTimeNanoseconds (a CLOCK_REALTIME time near the program's start). A double holds about 16
 * digits, so ts is read from its decimal text, not from cJSON's double: every time in the model is
 * baseTimeNanoseconds + ts to the nanosecond, whatever the magnitude; digits past the nanosecond
 * are rounded to the nearest. */
#include "import.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json_stream.h"

#define MAX_EVENT_BYTES ((size_t)64 << 20)    /* one trace event; a 100 kB kernel name is fine */
#define MAX_TOP_FIELD_BYTES ((size_t)16 << 20) /* deviceProperties and the like */

typedef struct {
    uint32_t pid, tid;
    char name[128];
} named_id;

typedef struct {
    uint32_t correlation, pid, tid;
    bool is_sync; /* the call already became a sync event */
} launch;

/* A cuda_sync record waiting for the API call it belongs to (known once every event is in). */
typedef struct {
    sync_kind kind;
    int64_t start_ns, end_ns;
    uint32_t stream, correlation;
} pending_sync;

typedef struct {
    const char *path;
    run_model *m;
    char *err;
    size_t errlen;

    size_t index;    /* traceEvents index of the event at hand */
    uint64_t offset; /* its byte offset in the file */
    const char *text; /* its text */
    size_t text_len;

    bool have_events, have_base, mmprof_trace;
    bool failed; /* err holds the first fault; later ones do not replace it */
    char schema[32];  /* a top-level "schema" (mmprof's run files have one) */
    char keys[160];   /* the first top-level keys, to say what a file without traceEvents is */
    int nkeys;
    int64_t base_ns;

    named_id *process_names, *thread_names;
    size_t nprocess_names, nthread_names;
    uint64_t *cpu_threads; /* hash set of (pid << 32 | tid) + 1 seen on CPU events; 0 = empty */
    size_t cpu_threads_cap, ncpu_threads;
    pending_sync *pending;
    size_t npending;
    size_t unnamed_copies; /* copies whose name is not in Kineto's form */
    int driver_version, runtime_version;
} reader;

static bool fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(reader *r, const char *fmt, ...)
{
    if (r->failed)
        return false;
    r->failed = true;
    int n = snprintf(r->err, r->errlen, "%s: ", r->path);
    if (n < 0 || (size_t)n >= r->errlen)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

/* A fault in one trace event: its index and byte offset lead the message. */
static bool bad_event(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool bad_event(reader *r, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fail(r, "traceEvents[%zu] (byte %llu): %s", r->index, (unsigned long long)r->offset, what);
}

static bool no_memory(reader *r) { return fail(r, "out of memory"); }

static const char *json_type_name(const cJSON *v)
{
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    return "an object";
}

/* ---------- exact decimal numbers ---------- */

/* The number text at t (JSON syntax) times 10^scale, rounded to the nearest integer, half away
 * from zero. false when it does not fit an int64. Works on the digits, so no precision is lost. */
static bool decimal_scaled(const char *t, int scale, int64_t *out)
{
    enum { KEEP = 40 }; /* significant digits kept: more than any int64 needs */
    char digits[KEEP];
    int nd = 0;
    long exp10 = scale;
    bool neg = *t == '-', point = false;
    if (neg)
        t++;
    for (;; t++) {
        if (*t == '.' && !point) {
            point = true;
            continue;
        }
        if (*t < '0' || *t > '9')
            break;
        if (nd == 0 && *t == '0') {
            if (point)
                exp10--; /* a leading zero after the point: 0.001 */
            continue;
        }
        if (nd < KEEP) {
            digits[nd++] = (char)(*t - '0');
            if (point)
                exp10--;
        } else if (!point) {
            exp10++; /* an integer digit past those kept scales the value up */
        }
    }
    if (*t == 'e' || *t == 'E') {
        long e = strtol(t + 1, NULL, 10);
        exp10 += e > 1000 ? 1000 : e < -1000 ? -1000 : e;
    }
    long whole = nd + exp10; /* digits before the point once scaled */
    if (nd == 0 || whole < 0) {
        *out = 0;
        return true;
    }
    if (whole > 19)
        return false;
    uint64_t v = 0;
    for (long i = 0; i < whole; i++) {
        uint64_t d = i < nd ? (uint64_t)digits[i] : 0;
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (whole < nd && digits[whole] >= 5)
        v++;
    if (v > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return true;
}

/* The text of the number that key names at the top level of the object text[0, len), or NULL.
 * cJSON has checked the text already, so this only has to step over strings and nesting. */
static const char *top_level_number(const char *text, size_t len, const char *key)
{
    size_t klen = strlen(key);
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '"') {
            size_t start = ++i;
            while (i < len && text[i] != '"')
                i += text[i] == '\\' ? 2 : 1;
            if (depth != 1 || i >= len)
                continue;
            size_t j = i + 1;
            while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r'))
                j++;
            if (j >= len || text[j] != ':')
                continue; /* a value, not a key */
            if (i - start == klen && memcmp(text + start, key, klen) == 0) {
                for (j++; j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r'); j++)
                    ;
                return j < len ? text + j : NULL;
            }
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return NULL;
}

/* ts or dur of the event at hand in nanoseconds (microseconds in the file), exactly. */
static bool event_time(reader *r, const cJSON *ev, const char *key, int64_t *ns)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, key);
    if (!v)
        return bad_event(r, "no %s", key);
    if (!cJSON_IsNumber(v))
        return bad_event(r, "%s is %s, not a number", key, json_type_name(v));
    const char *t = top_level_number(r->text, r->text_len, key);
    if (!t || !decimal_scaled(t, 3, ns))
        return bad_event(r, "%s %.17g is out of range", key, v->valuedouble);
    return true;
}

/* ---------- args ---------- */

/* An integer argument: *out stays as it is when absent; false (with a message) when it is there
 * but not a number in [lo, hi]. */
static bool arg_int(reader *r, const cJSON *args, const char *key, double lo, double hi, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    if (!v)
        return true;
    if (!cJSON_IsNumber(v))
        return bad_event(r, "args.%s is %s, not a number", key, json_type_name(v));
    if (!(v->valuedouble >= lo && v->valuedouble <= hi))
        return bad_event(r, "args.%s %.17g is out of range", key, v->valuedouble);
    *out = v->valuedouble;
    return true;
}

static bool arg_u32(reader *r, const cJSON *args, const char *key, uint32_t *out)
{
    double d = *out;
    if (!arg_int(r, args, key, 0, 4294967295.0, &d))
        return false;
    *out = (uint32_t)d;
    return true;
}

static bool arg_triple(reader *r, const cJSON *args, const char *key, int out[3])
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    if (!v)
        return true;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
        return bad_event(r, "args.%s is %s, not a list of three numbers", key, json_type_name(v));
    for (int i = 0; i < 3; i++) {
        const cJSON *x = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0 && x->valuedouble <= 2147483647.0))
            return bad_event(r, "args.%s[%d] is not a count", key, i);
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

static bool string_field(reader *r, const cJSON *ev, const char *key, const char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, key);
    *out = "";
    if (!v)
        return true;
    if (!cJSON_IsString(v))
        return bad_event(r, "%s is %s, not a string", key, json_type_name(v));
    *out = v->valuestring;
    return true;
}

static bool read_common(reader *r, const cJSON *ev, trace_event *e)
{
    memset(e, 0, sizeof *e);
    e->obj = ev;
    if (!cJSON_IsObject(ev))
        return bad_event(r, "%s, not an object", json_type_name(ev));
    if (!string_field(r, ev, "ph", &e->ph) || !string_field(r, ev, "cat", &e->cat) ||
        !string_field(r, ev, "name", &e->name))
        return false;
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(ev, "ts");
    if (ts && !cJSON_IsNumber(ts))
        return bad_event(r, "ts is %s, not a number", json_type_name(ts));
    const cJSON *dur = cJSON_GetObjectItemCaseSensitive(ev, "dur");
    if (dur && !cJSON_IsNumber(dur))
        return bad_event(r, "dur is %s, not a number", json_type_name(dur));
    e->args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    if (e->args && !cJSON_IsObject(e->args))
        return bad_event(r, "args is %s, not an object", json_type_name(e->args));
    /* Kineto writes strings ("Spans", "Traces", "") as pid and tid of its own bookkeeping. */
    e->pid = cJSON_GetObjectItemCaseSensitive(ev, "pid");
    e->tid = cJSON_GetObjectItemCaseSensitive(ev, "tid");
    return true;
}

/* pid or tid of an event this importer reads: a number that fits 32 bits. Kineto writes negative
 * thread ids as their absolute value; a negative one here is kept as its 32-bit pattern. */
static bool event_id(reader *r, const cJSON *v, const char *key, uint32_t *out)
{
    if (!v)
        return bad_event(r, "no %s", key);
    if (!cJSON_IsNumber(v))
        return bad_event(r, "%s is %s, not a number", key, json_type_name(v));
    if (!(v->valuedouble >= -2147483648.0 && v->valuedouble <= 4294967295.0))
        return bad_event(r, "%s %.17g is out of range", key, v->valuedouble);
    double d = v->valuedouble;
    *out = d < 0 ? (uint32_t)(int32_t)d : (uint32_t)d;
    return true;
}

static bool event_span(reader *r, const cJSON *ev, int64_t *start, int64_t *end)
{
    int64_t dur;
    if (!event_time(r, ev, "ts", start) || !event_time(r, ev, "dur", &dur))
        return false;
    if (dur < 0)
        return bad_event(r, "dur is negative");
    if (*start > INT64_MAX - dur)
        return bad_event(r, "ts + dur is out of range");
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

static bool parse_copy_name(const char *name, copy_event *c)
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
    return mem_kind_of(sp + 2, (size_t)(arrow - (sp + 2)), &c->src) &&
           mem_kind_of(arrow + 4, (size_t)(close - (arrow + 4)), &c->dst);
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

static bool read_gpu_fields(reader *r, const trace_event *e, gpu_fields *g)
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

static bool read_kernel(reader *r, const trace_event *e)
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
    return events_add_kernel(&r->m->events, &k) || no_memory(r);
}

static bool read_copy(reader *r, const trace_event *e)
{
    gpu_fields g;
    if (!read_gpu_fields(r, e, &g))
        return false;
    copy_event c = {.bytes = g.bytes, .start_ns = g.start_ns, .end_ns = g.end_ns,
                    .device = g.device, .stream = g.stream, .correlation = g.correlation};
    if (!parse_copy_name(e->name, &c)) {
        c.dir = COPY_OTHER;
        c.src = c.dst = MEM_UNKNOWN;
        r->unnamed_copies++;
    }
    return events_add_copy(&r->m->events, &c) || no_memory(r);
}

static bool read_memset(reader *r, const trace_event *e)
{
    gpu_fields g;
    if (!read_gpu_fields(r, e, &g))
        return false;
    memset_event s = {.bytes = g.bytes, .start_ns = g.start_ns, .end_ns = g.end_ns,
                      .device = g.device, .stream = g.stream, .correlation = g.correlation};
    if (!parse_memset_name(e->name, &s.mem))
        s.mem = MEM_UNKNOWN;
    return events_add_memset(&r->m->events, &s) || no_memory(r);
}

/* Records that a CPU event came from (pid, tid), so the thread and its process go in the model. */
static bool note_cpu_thread(reader *r, uint32_t pid, uint32_t tid)
{
    uint64_t key = ((uint64_t)pid << 32 | tid) + 1; /* + 1: 0 marks an empty slot */
    if (r->ncpu_threads * 2 >= r->cpu_threads_cap) {
        size_t cap = r->cpu_threads_cap ? r->cpu_threads_cap * 2 : 64;
        uint64_t *t = calloc(cap, sizeof *t);
        if (!t)
            return no_memory(r);
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

static bool cpu_ids(reader *r, const trace_event *e, uint32_t *pid, uint32_t *tid)
{
    return event_id(r, e->pid, "pid", pid) && event_id(r, e->tid, "tid", tid) && note_cpu_thread(r, *pid, *tid);
}

/* The host waits of the CUDA runtime and driver APIs, by name ("cudaStreamSynchronize" and
 * versioned forms such as "cudaStreamSynchronize_v3020"). */
static sync_kind sync_kind_of_api(const char *name)
{
    static const struct { const char *name; sync_kind kind; } waits[] = {
        {"cudaDeviceSynchronize", SYNC_CONTEXT}, {"cudaStreamSynchronize", SYNC_STREAM},
        {"cudaEventSynchronize", SYNC_EVENT},    {"cuCtxSynchronize", SYNC_CONTEXT},
        {"cuStreamSynchronize", SYNC_STREAM},    {"cuEventSynchronize", SYNC_EVENT},
    };
    for (size_t i = 0; i < sizeof waits / sizeof waits[0]; i++) {
        size_t n = strlen(waits[i].name);
        if (strncmp(name, waits[i].name, n) == 0 && (name[n] == '\0' || name[n] == '_'))
            return waits[i].kind;
    }
    return SYNC_UNKNOWN;
}

static bool read_api(reader *r, const trace_event *e, api_kind kind)
{
    api_event a = {0};
    a.name = (char *)e->name;
    a.kind = kind;
    if (!event_span(r, e->obj, &a.start_ns, &a.end_ns) || !cpu_ids(r, e, &a.pid, &a.thread))
        return false;
    if (e->args && !arg_u32(r, e->args, "correlation", &a.correlation))
        return false;
    if (!events_add_api(&r->m->events, &a))
        return no_memory(r);
    sync_kind sk = sync_kind_of_api(e->name);
    if (sk == SYNC_UNKNOWN)
        return true;
    sync_event s = {.kind = sk, .start_ns = a.start_ns, .end_ns = a.end_ns, .pid = a.pid,
                    .thread = a.thread, .correlation = a.correlation};
    return events_add_sync(&r->m->events, &s) || no_memory(r);
}

/* CUPTI's synchronization record, as Kineto names it ("Stream Sync", ...). */
static bool read_cuda_sync(reader *r, const trace_event *e)
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
    if (e->args && (!arg_u32(r, e->args, "stream", &p.stream) || !arg_u32(r, e->args, "correlation", &p.correlation)))
        return false;
    pending_sync *grown = realloc(r->pending, (r->npending + 1) * sizeof *grown);
    if (!grown)
        return no_memory(r);
    r->pending = grown;
    r->pending[r->npending++] = p;
    return true;
}

static bool read_annotation(reader *r, const trace_event *e)
{
    int64_t start, end;
    uint32_t pid, tid;
    if (!event_span(r, e->obj, &start, &end) || !cpu_ids(r, e, &pid, &tid))
        return false;
    return model_add_region(r->m, REGION_ANNOTATION, e->name, NULL, start, end, pid, tid, -1) >= 0 ||
           no_memory(r);
}

static bool add_name(reader *r, named_id **arr, size_t *n, uint32_t pid, uint32_t tid, const char *name)
{
    named_id *grown = realloc(*arr, (*n + 1) * sizeof **arr);
    if (!grown)
        return no_memory(r);
    *arr = grown;
    named_id *x = &grown[(*n)++];
    x->pid = pid;
    x->tid = tid;
    copy_str(x->name, sizeof x->name, name);
    return true;
}

/* process_name and thread_name; the rest (labels, sort indexes) only order Chrome's rows. */
static bool read_metadata(reader *r, const trace_event *e)
{
    bool process = strcmp(e->name, "process_name") == 0;
    if (!process && strcmp(e->name, "thread_name") != 0)
        return true;
    const cJSON *name = e->args ? cJSON_GetObjectItemCaseSensitive(e->args, "name") : NULL;
    if (!cJSON_IsString(name))
        return bad_event(r, "%s without a string args.name", e->name);
    /* Kineto's own rows (pid -1 for its overhead, "Spans") name no process of the program. */
    if (!cJSON_IsNumber(e->pid) || e->pid->valuedouble < 0)
        return true;
    uint32_t pid, tid = 0;
    if (!event_id(r, e->pid, "pid", &pid) || (!process && !event_id(r, e->tid, "tid", &tid)))
        return false;
    return process ? add_name(r, &r->process_names, &r->nprocess_names, pid, 0, name->valuestring)
                   : add_name(r, &r->thread_names, &r->nthread_names, pid, tid, name->valuestring);
}

static bool read_event(reader *r, const cJSON *ev)
{
    trace_event e;
    if (!read_common(r, ev, &e))
        return false;
    if (strcmp(e.ph, "M") == 0)
        return read_metadata(r, &e);
    if (strcmp(e.ph, "X") != 0)
        return true; /* flows, instants, counters */
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
    return true;
}

/* ---------- top level ---------- */

static int dev_int(const cJSON *d, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, key);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 2147483647.0 ? (int)v->valuedouble : 0;
}

static uint64_t dev_u64(const cJSON *d, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, key);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1.8e19 ? (uint64_t)v->valuedouble : 0;
}

static bool read_devices(reader *r, const cJSON *list)
{
    if (!cJSON_IsArray(list))
        return fail(r, "deviceProperties is %s, not a list", json_type_name(list));
    int n = cJSON_GetArraySize(list);
    if (n == 0)
        return true;
    device_info *d = calloc((size_t)n, sizeof *d);
    if (!d)
        return no_memory(r);
    free(r->m->devices);
    r->m->devices = d;
    r->m->ndevices = n;
    for (int i = 0; i < n; i++) {
        const cJSON *p = cJSON_GetArrayItem(list, i);
        if (!cJSON_IsObject(p))
            return fail(r, "deviceProperties[%d] is %s, not an object", i, json_type_name(p));
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
        d[i].index = cJSON_GetObjectItemCaseSensitive(p, "id") ? dev_int(p, "id") : i;
        copy_str(d[i].name, sizeof d[i].name, cJSON_IsString(name) ? name->valuestring : "");
        d[i].cc_major = dev_int(p, "computeMajor");
        d[i].cc_minor = dev_int(p, "computeMinor");
        d[i].sm_count = dev_int(p, "numSms");
        d[i].total_mem = dev_u64(p, "totalGlobalMem");
        d[i].max_threads_per_block = dev_int(p, "maxThreadsPerBlock");
        d[i].max_threads_per_sm = dev_int(p, "maxThreadsPerMultiprocessor");
        d[i].regs_per_block = dev_int(p, "regsPerBlock");
        d[i].regs_per_sm = dev_int(p, "regsPerMultiprocessor");
        d[i].warp_size = dev_int(p, "warpSize");
        d[i].smem_per_block = dev_u64(p, "sharedMemPerBlock");
        d[i].smem_per_sm = dev_u64(p, "sharedMemPerMultiprocessor");
        d[i].smem_per_block_optin = dev_u64(p, "sharedMemPerBlockOptin");
    }
    return true;
}

/* A top-level field other than traceEvents, parsed alone. */
static bool read_top_field(reader *r, const char *key, const cJSON *v)
{
    if (strcmp(key, "deviceProperties") == 0)
        return read_devices(r, v);
    if (strcmp(key, "baseTimeNanoseconds") == 0) {
        if (!cJSON_IsNumber(v))
            return fail(r, "baseTimeNanoseconds is %s, not a number", json_type_name(v));
        return true; /* read from its text by the caller */
    }
    if (strcmp(key, "schema") == 0 && cJSON_IsString(v)) {
        copy_str(r->schema, sizeof r->schema, v->valuestring);
        return true;
    }
    if (strcmp(key, "otherData") == 0) {
        /* mmprof's own Chrome trace (report/trace.c) says who wrote it here. */
        const cJSON *tool = cJSON_GetObjectItemCaseSensitive(v, "tool");
        r->mmprof_trace = cJSON_IsString(tool) && strncmp(tool->valuestring, "mmprof", 6) == 0;
        return true;
    }
    int value = cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 2147483647.0 ? (int)v->valuedouble : 0;
    if (strcmp(key, "cuda_driver_version") == 0)
        r->driver_version = value;
    else if (strcmp(key, "cuda_runtime_version") == 0)
        r->runtime_version = value;
    else if (strcmp(key, "cupti_version") == 0)
        r->m->collection.cupti_version = value;
    return true;
}

/* What a stream error means here; where says what was being read. */
static bool stream_error(reader *r, const json_stream *s, js_status st, const char *where)
{
    unsigned long long at = (unsigned long long)s->err_offset;
    switch (st) {
    case JS_END:
        return fail(r, "truncated: the file ends at byte %llu, %s", at, where);
    case JS_SYNTAX:
        return fail(r, "not valid JSON near byte %llu (a closing bracket that does not match), %s", at, where);
    case JS_DEEP:
        return fail(r, "nested deeper than %d levels at byte %llu, %s", JS_MAX_DEPTH, at, where);
    case JS_LARGE:
        return fail(r, "the value at byte %llu, %s, is too large to be a trace event or field", at, where);
    case JS_IO:
        return fail(r, "read error: %s", strerror(s->errno_saved));
    case JS_NOMEM:
        return no_memory(r);
    case JS_OK:
        break;
    }
    return true;
}

/* Parses the span text[0, len) at file offset off alone; NULL with a message when it is not JSON. */
static cJSON *parse_span(reader *r, const char *text, size_t len, uint64_t off, const char *where)
{
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (v && end == text + len)
        return v;
    cJSON_Delete(v);
    size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
    fail(r, "not valid JSON near byte %llu, %s", (unsigned long long)(off + at), where);
    return NULL;
}

static bool gpu_event_count_zero(const run_model *m)
{
    return m->events.nkernels == 0 && m->events.ncopies == 0 && m->events.nmemsets == 0;
}

static bool read_trace_events(reader *r, json_stream *s)
{
    js_next(s); /* '[' */
    for (size_t i = 0;; i++) {
        char where[64];
        snprintf(where, sizeof where, "inside traceEvents[%zu]", i);
        int c = js_peek(s);
        if (c == ']') {
            js_next(s);
            return true;
        }
        if (i > 0) {
            if (c != ',') {
                s->err_offset = js_offset(s);
                return c < 0 ? stream_error(r, s, JS_END, where)
                             : fail(r, "not valid JSON near byte %llu: expected ',' or ']' after traceEvents[%zu]",
                                    (unsigned long long)js_offset(s), i - 1);
            }
            js_next(s);
        }
        const char *text;
        size_t len;
        uint64_t off;
        /* After a faulty event the rest is only stepped over: the fields after traceEvents may
         * still show the file is of another kind, which says more than the fault. */
        js_status st = js_value(s, !r->failed, MAX_EVENT_BYTES, &text, &len, &off);
        if (st != JS_OK)
            return stream_error(r, s, st, where);
        if (r->failed)
            continue;
        r->index = i;
        r->offset = off;
        r->text = text;
        r->text_len = len;
        cJSON *ev = parse_span(r, text, len, off, where);
        if (!ev)
            return false;
        read_event(r, ev);
        cJSON_Delete(ev);
        r->m->collection.records++;
    }
}

static bool wanted_top_field(const char *key)
{
    static const char *const keys[] = {"deviceProperties", "baseTimeNanoseconds", "schema", "otherData",
                                       "cuda_driver_version", "cuda_runtime_version", "cupti_version"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

/* One top-level "key": value pair; s is at the key. */
static bool read_top_pair(reader *r, json_stream *s)
{
    const char *text;
    size_t len;
    uint64_t off;
    if (js_peek(s) != '"') {
        s->err_offset = js_offset(s);
        return js_peek(s) < 0 ? stream_error(r, s, JS_END, "in the top-level object")
                              : fail(r, "not valid JSON near byte %llu: expected a key", (unsigned long long)js_offset(s));
    }
    js_status st = js_value(s, true, 4096, &text, &len, &off);
    if (st != JS_OK)
        return stream_error(r, s, st, "in a top-level key");
    char key[64];
    copy_str(key, sizeof key, "");
    if (len >= 2)
        snprintf(key, sizeof key, "%.*s", (int)(len - 2), text + 1);
    if (r->nkeys < 4) {
        size_t used = strlen(r->keys);
        snprintf(r->keys + used, sizeof r->keys - used, "%s\"%s\"", r->nkeys ? ", " : "", key);
        r->nkeys++;
    }
    if (js_peek(s) != ':') {
        s->err_offset = js_offset(s);
        return js_peek(s) < 0 ? stream_error(r, s, JS_END, "after a top-level key")
                              : fail(r, "not valid JSON near byte %llu: expected ':'", (unsigned long long)js_offset(s));
    }
    js_next(s);
    char where[96];
    snprintf(where, sizeof where, "in top-level field \"%s\"", key);
    if (strcmp(key, "traceEvents") == 0) {
        if (r->have_events)
            return fail(r, "traceEvents appears twice");
        r->have_events = true;
        int c = js_peek(s);
        if (c == '[')
            return read_trace_events(r, s);
        s->err_offset = js_offset(s);
        if (c < 0)
            return stream_error(r, s, JS_END, where);
        if (js_value(s, true, MAX_TOP_FIELD_BYTES, &text, &len, &off) == JS_OK) {
            cJSON *v = parse_span(r, text, len, off, where);
            if (!v)
                return false;
            fail(r, "traceEvents is %s, not a list", json_type_name(v));
            cJSON_Delete(v);
            return false;
        }
        return fail(r, "traceEvents is not a list (byte %llu)", (unsigned long long)js_offset(s));
    }
    if (!wanted_top_field(key)) {
        st = js_value(s, false, 0, &text, &len, &off);
        return st == JS_OK || stream_error(r, s, st, where);
    }
    st = js_value(s, true, MAX_TOP_FIELD_BYTES, &text, &len, &off);
    if (st != JS_OK)
        return stream_error(r, s, st, where);
    cJSON *v = parse_span(r, text, len, off, where);
    if (!v)
        return false;
    bool ok = read_top_field(r, key, v);
    if (ok && strcmp(key, "baseTimeNanoseconds") == 0) {
        if (!decimal_scaled(text, 0, &r->base_ns))
            ok = fail(r, "baseTimeNanoseconds is out of range");
        r->have_base = ok;
    }
    cJSON_Delete(v);
    return ok;
}

/* What the file is, when it is not a JSON object. */
static bool not_an_object(reader *r, json_stream *s, int c)
{
    if (c < 0)
        return s->errno_saved ? fail(r, "read error: %s", strerror(s->errno_saved))
                              : fail(r, "empty file: not a PyTorch profiler trace");
    const char *what = c == '[' ? "a JSON array"
                       : c == '"' ? "a JSON string"
                       : (c == '-' || (c >= '0' && c <= '9')) ? "a JSON number"
                       : (c == 't' || c == 'f') ? "a JSON boolean"
                       : c == 'n' ? "JSON null" : NULL;
    if (what)
        return fail(r, "%s at the top level, not a PyTorch profiler trace (a JSON object with traceEvents)", what);
    if (c >= 0x20 && c < 0x7f)
        return fail(r, "not JSON: the file starts with '%c' (byte %llu)", c, (unsigned long long)js_offset(s));
    return fail(r, "not JSON: the file starts with byte 0x%02x (byte %llu)", c, (unsigned long long)js_offset(s));
}

static bool read_document(reader *r, json_stream *s)
{
    int c = js_peek(s);
    if (c != '{')
        return not_an_object(r, s, c);
    js_next(s);
    for (int k = 0;; k++) {
        c = js_peek(s);
        if (c == '}') {
            js_next(s);
            break;
        }
        if (k > 0) {
            s->err_offset = js_offset(s);
            if (c < 0)
                return stream_error(r, s, JS_END, "in the top-level object");
            if (c != ',')
                return fail(r, "not valid JSON near byte %llu: expected ',' or '}'", (unsigned long long)js_offset(s));
            js_next(s);
        }
        if (!read_top_pair(r, s))
            return false;
    }
    c = js_peek(s);
    if (c >= 0)
        return fail(r, "data after the end of the JSON object, at byte %llu", (unsigned long long)js_offset(s));
    if (s->errno_saved)
        return fail(r, "read error: %s", strerror(s->errno_saved));
    return true;
}

/* ---------- after the last event ---------- */

/* Kineto's times are relative to baseTimeNanoseconds: make them absolute. */
static bool add_base(reader *r)
{
    int64_t b = r->base_ns;
    event_list *e = &r->m->events;
#define SHIFT(arr, n)                                                                             \
    for (size_t i_ = 0; i_ < (n); i_++) {                                                         \
        if ((b > 0 && (arr)[i_].end_ns > INT64_MAX - b) || (b < 0 && (arr)[i_].start_ns < INT64_MIN - b)) \
            return fail(r, "times out of range once baseTimeNanoseconds is added");               \
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
static bool link_by_correlation(reader *r, uint32_t only_pid, bool one_process)
{
    event_list *e = &r->m->events;
    launch *l = malloc((e->napis ? e->napis : 1) * sizeof *l);
    if (!l)
        return no_memory(r);
    for (size_t i = 0; i < e->napis; i++)
        l[i] = (launch){e->apis[i].correlation, e->apis[i].pid, e->apis[i].thread,
                        sync_kind_of_api(e->apis[i].name) != SYNC_UNKNOWN};
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
        ok = events_add_sync(e, &s) || no_memory(r);
    }
    free(l);
    if (ok && unmatched && !one_process)
        model_add_warning(r->m, "%zu GPU events have no launching API call in the trace: their process is unknown",
                          unmatched);
    return ok;
}

static int by_thread_then_time(const void *a, const void *b)
{
    const region *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return (x->end_ns < y->end_ns) - (x->end_ns > y->end_ns); /* the longer (enclosing) first */
}

/* record_function ranges nest on their thread: each region's parent is the innermost range of
 * its thread that encloses it. */
static bool nest_regions(reader *r)
{
    run_model *m = r->m;
    if (m->nregions == 0)
        return true;
    sort(m->regions, (size_t)m->nregions, sizeof *m->regions, by_thread_then_time);
    int *stack = malloc((size_t)m->nregions * sizeof *stack);
    if (!stack)
        return no_memory(r);
    int depth = 0;
    for (int i = 0; i < m->nregions; i++) {
        region *g = &m->regions[i];
        while (depth > 0) {
            const region *top = &m->regions[stack[depth - 1]];
            if (top->pid == g->pid && top->tid == g->tid && top->start_ns <= g->start_ns && g->end_ns <= top->end_ns)
                break;
            depth--;
        }
        g->parent = depth > 0 ? stack[depth - 1] : -1;
        stack[depth++] = i;
    }
    free(stack);
    return true;
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
static bool add_processes(reader *r, uint32_t *only_pid, bool *one_process)
{
    sort(r->process_names, r->nprocess_names, sizeof *r->process_names, by_ids);
    sort(r->thread_names, r->nthread_names, sizeof *r->thread_names, by_ids);
    uint64_t *ids = malloc((r->ncpu_threads ? r->ncpu_threads : 1) * sizeof *ids);
    if (!ids)
        return no_memory(r);
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
    return ok || no_memory(r);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool finish(reader *r)
{
    run_model *m = r->m;
    if (strcmp(r->schema, "mmprof-run") == 0)
        return fail(r, "an mmprof run file (schema \"mmprof-run\"), not a PyTorch profiler trace: "
                       "mmprof reads it as it is");
    if (!r->have_events)
        return fail(r, "no traceEvents: a JSON object with keys %s, not a PyTorch profiler trace",
                    r->nkeys ? r->keys : "(none)");
    if (gpu_event_count_zero(m))
        return fail(r, "no GPU activity: none of the trace's %llu events is a kernel, gpu_memcpy or gpu_memset "
                       "(record with torch.profiler.ProfilerActivity.CUDA)",
                    (unsigned long long)m->collection.records);
    uint32_t only_pid = 0;
    bool one_process = false;
    if (!add_base(r) || !add_processes(r, &only_pid, &one_process) || !link_by_correlation(r, only_pid, one_process) ||
        !nest_regions(r))
        return false;
    for (int i = 0; i < m->ndevices; i++) {
        m->devices[i].driver_version = r->driver_version;
        m->devices[i].runtime_version = r->runtime_version;
    }
    if (r->unnamed_copies)
        model_add_warning(m, "%zu copies have names not in Kineto's form (\"Memcpy HtoD (Pageable -> Device)\"): "
                             "their direction and memory kinds are unknown", r->unnamed_copies);
    m->source = SOURCE_KINETO;
    copy_str(m->source_file, sizeof m->source_file, r->path);
    m->collection.source = TIMING_CUPTI;
    if (!model_finish_regions(m, base_name(r->path)))
        return no_memory(r);
    m->epoch_ns = m->regions[0].start_ns;
    time_t secs = (time_t)(m->epoch_ns / 1000000000);
    struct tm tm;
    if (m->epoch_ns > 0 && gmtime_r(&secs, &tm))
        strftime(m->started_at, sizeof m->started_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return true;
}

bool import_kineto(const char *path, run_model *m, char *err, size_t errlen)
{
    reader r = {.path = path, .m = m, .err = err, .errlen = errlen};
    json_stream s;
    bool ok;
    if (!js_open(&s, path))
        ok = fail(&r, "%s", strerror(errno));
    else {
        ok = read_document(&r, &s);
        if (r.mmprof_trace) {
            r.failed = false; /* this says more than a fault in its events */
            ok = fail(&r, "a Chrome trace written by mmprof, not a PyTorch profiler trace: "
                          "import the mmprof run file (--json) it was made from instead");
        }
        ok = ok && !r.failed && finish(&r);
    }
    js_close(&s);
    free(r.process_names);
    free(r.thread_names);
    free(r.cpu_threads);
    free(r.pending);
    if (!ok) {
        model_free(m);
        model_init(m);
    }
    return ok;
}
