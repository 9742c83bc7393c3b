/* Format detection and dispatch for `mmprof import`. See import.h. */
#include "import.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* How far into a JSON file to look for an mmprof run file's own keys: model_to_json writes
 * schema_version and tool_version first. */
#define SNIFF_BYTES 4096

import_format import_detect(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return IMPORT_UNKNOWN;
    }
    char head[SNIFF_BYTES + 1];
    size_t n = fread(head, 1, SNIFF_BYTES, f);
    bool read_error = ferror(f);
    fclose(f);
    if (read_error) {
        snprintf(err, errlen, "%s: could not be read", path);
        return IMPORT_UNKNOWN;
    }
    head[n] = '\0';
    static const char sqlite_magic[16] = "SQLite format 3"; /* and its terminating NUL */
    if (n >= sizeof sqlite_magic && memcmp(head, sqlite_magic, sizeof sqlite_magic) == 0)
        return IMPORT_NSYS_SQLITE;
    size_t i = 0;
    if (n >= 3 && (unsigned char)head[0] == 0xEF && (unsigned char)head[1] == 0xBB && (unsigned char)head[2] == 0xBF)
        i = 3; /* a UTF-8 byte-order mark */
    while (i < n && strchr(" \t\r\n", head[i]))
        i++;
    if (i == n) {
        snprintf(err, errlen, "%s: empty file", path);
        return IMPORT_UNKNOWN;
    }
    if (head[i] != '{' && head[i] != '[') {
        snprintf(err, errlen, "%s: neither a PyTorch profiler trace (JSON) nor an Nsight Systems SQLite "
                              "export", path);
        return IMPORT_UNKNOWN;
    }
    if (strstr(head, "\"schema_version\"") && strstr(head, "\"tool_version\"")) {
        snprintf(err, errlen, "%s: an mmprof run file, not a trace to import: read it with `mmprof report`", path);
        return IMPORT_UNKNOWN;
    }
    return IMPORT_KINETO;
}

bool import_file(const char *path, run_model *m, char *err, size_t errlen)
{
    model_init(m);
    switch (import_detect(path, err, errlen)) {
    case IMPORT_NSYS_SQLITE:
        return import_nsys_sqlite(path, m, err, errlen);
    case IMPORT_KINETO:
        return import_kineto(path, m, err, errlen);
    default:
        return false;
    }
}
