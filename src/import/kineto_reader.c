/* What every part of the Kineto reader shares (kineto_reader.h): its failure messages, which name
 * the file, the event and its byte offset, and the names of the CUDA calls that wait. Beneath
 * kineto.c, kineto_events.c, kineto_memory.c and kineto_finish.c, none of which it calls. */
#include "kineto_reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool kr_fail(kineto_reader *r, const char *fmt, ...)
{
    if (r->failed)
        return false;
    r->failed = true;
    int n = snprintf(r->err, r->errlen, "%s: ", r->path);
    if (n < 0 || (size_t)n >= r->errlen)
        return false;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    /* Offsets into compressed content count the decompressed text: say so. */
    const char *packed = r->in ? ti_compression_name(r->in) : NULL;
    if (packed && m >= 0 && (size_t)(n + m) < r->errlen && strstr(r->err + n, "byte "))
        snprintf(r->err + n + m, r->errlen - (size_t)(n + m), " (bytes of the %s-decompressed text)", packed);
    return false;
}

bool kr_bad_event(kineto_reader *r, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return kr_fail(r, "traceEvents[%zu] (byte %llu): %s", r->index, (unsigned long long)r->offset, what);
}

bool kr_no_memory(kineto_reader *r) { return kr_fail(r, "out of memory"); }

const char *kr_type_name(const cJSON *v)
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

/* The host waits of the CUDA runtime and driver APIs, by name ("cudaStreamSynchronize" and
 * versioned forms such as "cudaStreamSynchronize_v3020"). */
sync_kind kr_api_sync_kind(const char *name)
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
