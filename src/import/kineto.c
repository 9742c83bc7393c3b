/* The PyTorch profiler's (Kineto's) Chrome trace, read into the run model.
 *
 * What is read, by the event's "cat":
 *   kernel, gpu_memcpy, gpu_memset   kernels, copies (direction and memory kinds from the name,
 *                                    "Memcpy HtoD (Pageable -> Device)"; ROCm's "(Host -> Device)"
 *                                    names no host memory kind), memsets; Kineto puts the
 *                                    device in pid and the stream in tid, the launching process is
 *                                    found through the correlation id of the launching API call
 *   cuda_runtime, cuda_driver        API calls on their CPU process and thread; the
 *                                    synchronizing ones (cudaDeviceSynchronize, ...) also as sync
 *   cuda_sync                        CUPTI's synchronization records, where the trace has them and
 *                                    no synchronizing API call carries the same correlation
 *   user_annotation                  record_function ranges: REGION_ANNOTATION on their thread,
 *                                    nested by time
 *   cpu_op, python_function          host spans in run_model.host_activity, not regions (thousands
 *                                    of them would drown the user's own ranges): each under its
 *                                    caller, its Python parent ("Python parent id") or else the
 *                                    span of its thread around it; a Python call's name
 *                                    "model.py(42): forward" gives file, line and function
 *   M process_name / thread_name     names of the processes and threads that made CPU events
 *   deviceProperties, cuda_driver_version, cuda_runtime_version, cupti_version (top level); an AMD
 *                                    GPU (gcnArchName, its name, a 64-wide warp) gets no compute
 *                                    capability, since HIP's computeMajor/Minor are not one
 *   distributedInfo (top level)      rank, world_size and backend, which torch.profiler adds when
 *                                    torch.distributed is initialised: set on the trace's
 *                                    processes, so that merged ranks' traces are told apart
 * What is not, and why:
 *   gpu_user_annotation              the GPU span of a record_function: analysis attributes GPU
 *                                    work to the CPU range by correlation, which also counts work
 *                                    that ran after the range closed; the span would repeat it
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

#include "json_stream.h"
#include "kineto_reader.h"

#define MAX_EVENT_BYTES ((size_t)64 << 20)    /* one trace event; a 100 kB kernel name is fine */
#define MAX_TOP_FIELD_BYTES ((size_t)16 << 20) /* deviceProperties and the like */

/* ---------- top-level fields ---------- */

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

/* An AMD GPU of a ROCm build of PyTorch: deviceProperties then hold HIP's properties, whose
 * computeMajor/Minor are the GCN generation (9.0 on an MI250), not a CUDA compute capability. */
static bool amd_device(const cJSON *p, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(p, "gcnArchName") || strncmp(name, "AMD", 3) == 0 ||
           strstr(name, "Radeon") || strstr(name, "Instinct") || dev_int(p, "warpSize") == 64;
}

/* An AMD device: no compute capability (n/a, not sm_90), and the architecture HIP names
 * (gcnArchName "gfx90a:sramecc+:xnack-") after its name, where the trace has it. */
static void mark_amd(device_info *d, const cJSON *p, int *count, char *first, size_t first_len)
{
    if ((*count)++ == 0)
        snprintf(first, first_len, "%d.%d", d->cc_major, d->cc_minor);
    d->cc_major = d->cc_minor = 0;
    const cJSON *arch = cJSON_GetObjectItemCaseSensitive(p, "gcnArchName");
    if (cJSON_IsString(arch) && arch->valuestring[0]) {
        size_t used = strlen(d->name);
        snprintf(d->name + used, sizeof d->name - used, "%s(%.*s)", used ? " " : "",
                 (int)strcspn(arch->valuestring, ":"), arch->valuestring);
    }
}

static bool read_devices(kineto_reader *r, const cJSON *list)
{
    if (!cJSON_IsArray(list))
        return kr_fail(r, "deviceProperties is %s, not a list", kr_type_name(list));
    int n = cJSON_GetArraySize(list);
    if (n == 0)
        return true;
    device_info *d = calloc((size_t)n, sizeof *d);
    if (!d)
        return kr_no_memory(r);
    free(r->m->devices);
    r->m->devices = d;
    r->m->ndevices = n;
    int amd = 0;
    char amd_cc[32] = "";
    for (int i = 0; i < n; i++) {
        const cJSON *p = cJSON_GetArrayItem(list, i);
        if (!cJSON_IsObject(p))
            return kr_fail(r, "deviceProperties[%d] is %s, not an object", i, kr_type_name(p));
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
        if (amd_device(p, d[i].name))
            mark_amd(&d[i], p, &amd, amd_cc, sizeof amd_cc);
    }
    if (amd)
        model_add_warning(r->m, "deviceProperties: %d AMD GPU%s (a ROCm trace): computeMajor/Minor %s is the GCN "
                          "generation, not a CUDA compute capability, so no compute capability is given and the FP32 "
                          "peak and occupancy are n/a", amd, amd == 1 ? "" : "s", amd_cc);
    return true;
}

/* distributedInfo's rank or world_size: a whole number in [lo, 1 << 20); -1 with a message when not. */
static int dist_int(kineto_reader *r, const cJSON *d, const char *key, int lo)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, key);
    if (!v) {
        kr_fail(r, "distributedInfo has no \"%s\"", key);
        return -1;
    }
    if (!cJSON_IsNumber(v)) {
        kr_fail(r, "distributedInfo.%s is %s, not a number", key, kr_type_name(v));
        return -1;
    }
    double x = v->valuedouble;
    if (!(x >= lo && x < (double)(1 << 20)) || x != (double)(int)x) {
        kr_fail(r, "distributedInfo.%s is %.15g, not a whole number from %d to %d", key, x, lo, (1 << 20) - 1);
        return -1;
    }
    return (int)x;
}

/* torch.profiler's distributedInfo: {"backend", "rank", "world_size", "pg_count", "pg_config",
 * "nccl_version"}; only the first three matter here, and only rank is required. A faulty one is
 * refused: a wrong rank would put the trace's work in another rank's row when traces are merged. */
static bool read_distributed(kineto_reader *r, const cJSON *v)
{
    if (!cJSON_IsObject(v))
        return kr_fail(r, "distributedInfo is %s, not an object", kr_type_name(v));
    int rank = dist_int(r, v, "rank", 0);
    if (rank < 0)
        return false;
    /* HTA documents (and its alexnet test trace has) a distributedInfo of a rank alone: the
     * world size is then unknown, not wrong. */
    int world = -1;
    if (cJSON_GetObjectItemCaseSensitive(v, "world_size") && (world = dist_int(r, v, "world_size", 1)) < 0)
        return false;
    if (world > 0 && rank >= world)
        return kr_fail(r, "distributedInfo.rank is %d, not below world_size %d", rank, world);
    const cJSON *backend = cJSON_GetObjectItemCaseSensitive(v, "backend");
    copy_str(r->backend, sizeof r->backend, cJSON_IsString(backend) ? backend->valuestring : "");
    r->rank = rank;
    r->world_size = world;
    return true;
}

/* A top-level field other than traceEvents, parsed alone. */
static bool read_top_field(kineto_reader *r, const char *key, const cJSON *v)
{
    if (strcmp(key, "deviceProperties") == 0)
        return read_devices(r, v);
    if (strcmp(key, "distributedInfo") == 0)
        return read_distributed(r, v);
    if (strcmp(key, "baseTimeNanoseconds") == 0) {
        if (!cJSON_IsNumber(v))
            return kr_fail(r, "baseTimeNanoseconds is %s, not a number", kr_type_name(v));
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
    bool counts = cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 2147483647.0;
    int value = counts ? (int)v->valuedouble : 0;
    if (strcmp(key, "cuda_driver_version") == 0)
        r->driver_version = value;
    else if (strcmp(key, "cuda_runtime_version") == 0)
        r->runtime_version = value;
    else if (strcmp(key, "cupti_version") == 0)
        r->m->collection.cupti_version = value;
    return true;
}

/* What a stream error means here; where says what was being read. */
static bool stream_error(kineto_reader *r, const json_stream *s, js_status st, const char *where)
{
    unsigned long long at = (unsigned long long)s->err_offset;
    switch (st) {
    case JS_END:
        return kr_fail(r, "truncated: the file ends at byte %llu, %s", at, where);
    case JS_SYNTAX:
        return kr_fail(r, "not valid JSON near byte %llu (a closing bracket that does not match), %s", at, where);
    case JS_DEEP:
        return kr_fail(r, "nested deeper than %d levels at byte %llu, %s", JS_MAX_DEPTH, at, where);
    case JS_LARGE:
        return kr_fail(r, "the value at byte %llu, %s, is too large to be a trace event or field", at, where);
    case JS_IO:
        return kr_fail(r, "%s", ti_error(r->in));
    case JS_NOMEM:
        return kr_no_memory(r);
    case JS_OK:
        break;
    }
    return true;
}

/* The byte at hand is not what the grammar wants there (expected): the file ended early, could
 * not be read, or is not JSON. */
static bool unexpected(kineto_reader *r, json_stream *s, const char *expected, const char *where)
{
    s->err_offset = js_offset(s);
    if (js_peek(s) < 0)
        return stream_error(r, s, js_failure(s), where);
    return kr_fail(r, "not valid JSON near byte %llu: expected %s", (unsigned long long)js_offset(s), expected);
}

/* Parses the span text[0, len) at file offset off alone; NULL with a message when it is not JSON. */
static cJSON *parse_span(kineto_reader *r, const char *text, size_t len, uint64_t off, const char *where)
{
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (v && end == text + len)
        return v;
    cJSON_Delete(v);
    size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
    kr_fail(r, "not valid JSON near byte %llu, %s", (unsigned long long)(off + at), where);
    return NULL;
}

static bool read_trace_events(kineto_reader *r, json_stream *s)
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
                char expected[64];
                snprintf(expected, sizeof expected, "',' or ']' after traceEvents[%zu]", i - 1);
                return unexpected(r, s, expected, where);
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
        kr_read_event(r, ev);
        cJSON_Delete(ev);
        r->m->collection.records++;
    }
}

static bool wanted_top_field(const char *key)
{
    static const char *const keys[] = {"deviceProperties", "baseTimeNanoseconds", "schema", "otherData",
                                       "cuda_driver_version", "cuda_runtime_version", "cupti_version",
                                       "distributedInfo"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

/* One top-level "key": value pair; s is at the key. */
static bool read_top_pair(kineto_reader *r, json_stream *s)
{
    const char *text;
    size_t len;
    uint64_t off;
    if (js_peek(s) != '"')
        return unexpected(r, s, "a key", "in the top-level object");
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
    if (js_peek(s) != ':')
        return unexpected(r, s, "':'", "after a top-level key");
    js_next(s);
    char where[96];
    snprintf(where, sizeof where, "in top-level field \"%s\"", key);
    if (strcmp(key, "traceEvents") == 0) {
        if (r->have_events)
            return kr_fail(r, "traceEvents appears twice");
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
            kr_fail(r, "traceEvents is %s, not a list", kr_type_name(v));
            cJSON_Delete(v);
            return false;
        }
        return kr_fail(r, "traceEvents is not a list (byte %llu)", (unsigned long long)js_offset(s));
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
        if (!js_decimal_scaled(text, 0, &r->base_ns))
            ok = kr_fail(r, "baseTimeNanoseconds is out of range");
    }
    cJSON_Delete(v);
    return ok;
}

/* What the file is, when it is not a JSON object. */
static bool not_an_object(kineto_reader *r, json_stream *s, int c)
{
    if (c < 0)
        return s->errno_saved ? stream_error(r, s, js_failure(s), "")
                              : kr_fail(r, "empty file: not a PyTorch profiler trace");
    const char *what = c == '[' ? "a JSON array"
                       : c == '"' ? "a JSON string"
                       : (c == '-' || (c >= '0' && c <= '9')) ? "a JSON number"
                       : (c == 't' || c == 'f') ? "a JSON boolean"
                       : c == 'n' ? "JSON null" : NULL;
    if (what)
        return kr_fail(r, "%s at the top level, not a PyTorch profiler trace (a JSON object with traceEvents)",
                       what);
    if (c >= 0x20 && c < 0x7f)
        return kr_fail(r, "not JSON: the file starts with '%c' (byte %llu)", c, (unsigned long long)js_offset(s));
    return kr_fail(r, "not JSON: the file starts with byte 0x%02x (byte %llu)", c,
                   (unsigned long long)js_offset(s));
}

static bool read_document(kineto_reader *r, json_stream *s)
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
            if (c != ',')
                return unexpected(r, s, "',' or '}'", "in the top-level object");
            js_next(s);
        }
        if (!read_top_pair(r, s))
            return false;
    }
    c = js_peek(s);
    if (c >= 0)
        return kr_fail(r, "data after the end of the JSON object, at byte %llu", (unsigned long long)js_offset(s));
    if (s->errno_saved)
        return stream_error(r, s, js_failure(s), "");
    return true;
}

bool import_kineto_input(trace_input *in, run_model *m, char *err, size_t errlen)
{
    kineto_reader r = {.path = in->name, .in = in, .m = m, .err = err, .errlen = errlen, .rank = -1,
                       .world_size = -1};
    rt_init(&r.annotations, m);
    json_stream s;
    js_attach(&s, in);
    bool ok = read_document(&r, &s);
    if (r.mmprof_trace) {
        r.failed = false; /* this says more than a fault in its events */
        ok = kr_fail(&r, "a Chrome trace written by mmprof, not a PyTorch profiler trace: "
                      "import the mmprof run file (--json) it was made from instead");
    }
    ok = ok && !r.failed && kr_finish(&r);
    js_close(&s);
    free(r.process_names);
    free(r.thread_names);
    free(r.cpu_threads);
    free(r.pending);
    rt_free(&r.annotations);
    cpu_spans_free(&r.host_spans);
    if (!ok) {
        model_free(m);
        model_init(m);
    }
    return ok;
}
