/* `mmprof import`: the sources it reads, each told by the input's content, and the walk over
 * them. See import.h. A new importer is its reader file and one row of `sources` below (with the
 * test that tells its content). */
#include "import.h"

#include <stdio.h>
#include <string.h>

/* How far into the content detection looks: an mmprof run file's own keys, which model_to_json
 * writes first (schema_version, tool_version), are within it. */
#define SNIFF_BYTES 4096

/* Where JSON content starts: past a UTF-8 byte-order mark and white space. */
static size_t json_start(const char *head, size_t n)
{
    size_t i = 0;
    if (n >= 3 && (unsigned char)head[0] == 0xEF && (unsigned char)head[1] == 0xBB && (unsigned char)head[2] == 0xBF)
        i = 3; /* a UTF-8 byte-order mark */
    while (i < n && strchr(" \t\r\n", head[i]))
        i++;
    return i;
}

static bool json_content(const char *head, size_t n)
{
    size_t i = json_start(head, n);
    return i < n && (head[i] == '{' || head[i] == '[');
}

/* mmprof's own run file is JSON too, but not a trace: it is refused with the command that reads
 * it. */
static bool is_run_file(const char *head, size_t n)
{
    return json_content(head, n) && strstr(head, "\"schema_version\"") && strstr(head, "\"tool_version\"");
}

static bool refuse_run_file(trace_input *in, run_model *m, char *err, size_t errlen)
{
    (void)m;
    snprintf(err, errlen, "%s: an mmprof run file, not a trace to import: read it with `mmprof report`", in->name);
    return false;
}

static bool is_sqlite(const char *head, size_t n)
{
    static const char sqlite_magic[16] = "SQLite format 3"; /* and its terminating NUL */
    return n >= sizeof sqlite_magic && memcmp(head, sqlite_magic, sizeof sqlite_magic) == 0;
}

/* Tried in order; the first whose test matches reads the input. A row without a name is content
 * that is recognised only to be refused (its reader says why), and is not listed as a format. */
static const import_source sources[] = {
    {NULL, is_run_file, refuse_run_file},
    {"a PyTorch profiler trace (JSON)", json_content, import_kineto_input},
    {"an Nsight Systems SQLite export", is_sqlite, import_nsys_sqlite_input},
    {"an Nsight Compute CSV export (ncu --csv)", ncu_csv_content, import_ncu_csv_input},
};
#define NSOURCES ((int)(sizeof sources / sizeof sources[0]))

/* The formats import reads, for the message about content none of them is: "neither A nor B",
 * "none of A, B or C". */
static void formats_read(char *buf, size_t len)
{
    const char *names[NSOURCES];
    int k = 0;
    for (int i = 0; i < NSOURCES; i++)
        if (sources[i].name)
            names[k++] = sources[i].name;
    if (k == 1) {
        snprintf(buf, len, "not %s", names[0]);
    } else if (k == 2) {
        snprintf(buf, len, "neither %s nor %s", names[0], names[1]);
    } else {
        size_t at = (size_t)snprintf(buf, len, "none of %s", names[0]);
        for (int i = 1; i < k && at < len; i++)
            at += (size_t)snprintf(buf + at, len - at, "%s%s", i == k - 1 ? " or " : ", ", names[i]);
    }
}

const import_source *import_detect(trace_input *in, char *err, size_t errlen)
{
    const unsigned char *bytes;
    size_t n = ti_peek(in, &bytes, SNIFF_BYTES);
    if (ti_failed(in)) {
        snprintf(err, errlen, "%s: %s", in->name, ti_error(in));
        return NULL;
    }
    char head[SNIFF_BYTES + 1];
    memcpy(head, bytes, n);
    head[n] = '\0';
    const char *packed = ti_compression_name(in);
    if (json_start(head, n) == n) {
        if (packed)
            snprintf(err, errlen, "%s: empty once decompressed (%s)", in->name, packed);
        else
            snprintf(err, errlen, "%s: empty file", in->name);
        return NULL;
    }
    for (int i = 0; i < NSOURCES; i++)
        if (sources[i].detect(head, n))
            return &sources[i];
    char formats[256];
    formats_read(formats, sizeof formats);
    snprintf(err, errlen, "%s: %s%s%s%s", in->name, formats, packed ? " (its content once decompressed from " : "",
             packed ? packed : "", packed ? ")" : "");
    return NULL;
}

/* The source told, then read from the same input. */
static bool import_any(trace_input *in, run_model *m, char *err, size_t errlen)
{
    const import_source *s = import_detect(in, err, errlen);
    return s && s->read(in, m, err, errlen);
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

bool import_ncu_csv(const char *path, run_model *m, char *err, size_t errlen)
{
    return import_path(path, import_ncu_csv_input, m, err, errlen);
}
