/* Format detection and dispatch for `mmprof import`. See import.h. */
#include "import.h"

#include <stdio.h>
#include <string.h>

/* How far into a JSON file to look for an mmprof run file's own keys: model_to_json writes
 * schema_version and tool_version first. */
#define SNIFF_BYTES 4096

import_format import_detect(trace_input *in, char *err, size_t errlen)
{
    const unsigned char *bytes;
    size_t n = ti_peek(in, &bytes, SNIFF_BYTES);
    if (ti_failed(in)) {
        snprintf(err, errlen, "%s: %s", in->name, ti_error(in));
        return IMPORT_UNKNOWN;
    }
    char head[SNIFF_BYTES + 1];
    memcpy(head, bytes, n);
    head[n] = '\0';
    static const char sqlite_magic[16] = "SQLite format 3"; /* and its terminating NUL */
    if (n >= sizeof sqlite_magic && memcmp(head, sqlite_magic, sizeof sqlite_magic) == 0)
        return IMPORT_NSYS_SQLITE;
    size_t i = 0;
    if (n >= 3 && (unsigned char)head[0] == 0xEF && (unsigned char)head[1] == 0xBB && (unsigned char)head[2] == 0xBF)
        i = 3; /* a UTF-8 byte-order mark */
    while (i < n && strchr(" \t\r\n", head[i]))
        i++;
    const char *packed = ti_compression_name(in);
    if (i == n) {
        if (packed)
            snprintf(err, errlen, "%s: empty once decompressed (%s)", in->name, packed);
        else
            snprintf(err, errlen, "%s: empty file", in->name);
        return IMPORT_UNKNOWN;
    }
    if (head[i] != '{' && head[i] != '[') {
        snprintf(err, errlen, "%s: neither a PyTorch profiler trace (JSON) nor an Nsight Systems SQLite export%s%s%s",
                 in->name, packed ? " (its content once decompressed from " : "", packed ? packed : "",
                 packed ? ")" : "");
        return IMPORT_UNKNOWN;
    }
    if (strstr(head, "\"schema_version\"") && strstr(head, "\"tool_version\"")) {
        snprintf(err, errlen, "%s: an mmprof run file, not a trace to import: read it with `mmprof report`", in->name);
        return IMPORT_UNKNOWN;
    }
    return IMPORT_KINETO;
}

/* The format told, then read from the same input. */
static bool import_any(trace_input *in, run_model *m, char *err, size_t errlen)
{
    switch (import_detect(in, err, errlen)) {
    case IMPORT_NSYS_SQLITE:
        return import_nsys_sqlite_input(in, m, err, errlen);
    case IMPORT_KINETO:
        return import_kineto_input(in, m, err, errlen);
    default:
        return false;
    }
}

/* Opens path and hands it to read. */
static bool import_path(const char *path, bool (*read)(trace_input *, run_model *, char *, size_t), run_model *m,
                        char *err, size_t errlen)
{
    model_init(m);
    trace_input in;
    if (!ti_open(&in, path, err, errlen))
        return false;
    bool ok = read(&in, m, err, errlen);
    ti_close(&in);
    return ok;
}

bool import_file(const char *path, run_model *m, char *err, size_t errlen)
{
    return import_path(path, import_any, m, err, errlen);
}

bool import_kineto(const char *path, run_model *m, char *err, size_t errlen)
{
    return import_path(path, import_kineto_input, m, err, errlen);
}

bool import_nsys_sqlite(const char *path, run_model *m, char *err, size_t errlen)
{
    return import_path(path, import_nsys_sqlite_input, m, err, errlen);
}
