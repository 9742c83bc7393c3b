/* Importers: other tools' timelines read into the run model, so `mmprof import` analyses them as
 * it analyses its own runs. The format is told by the file's content, not its name.
 *
 * Every importer fills m with source, devices, processes, threads, events (m->events) and
 * regions (NVTX ranges, PyTorch annotations), then calls model_finish_regions. On failure it
 * returns false, leaves m empty (model_free'd and re-initialised) and puts in err a message
 * naming the file and what is wrong with it ("trace.json: not valid JSON near byte 1234"). */
#ifndef MMPROF_IMPORT_H
#define MMPROF_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

typedef enum {
    IMPORT_UNKNOWN = 0,
    IMPORT_KINETO,      /* a Chrome trace JSON with "traceEvents" (torch.profiler) */
    IMPORT_NSYS_SQLITE, /* an SQLite database (nsys export --type sqlite) */
} import_format;

/* Reads the file's first bytes. IMPORT_UNKNOWN with a reason in err when neither. */
import_format import_detect(const char *path, char *err, size_t errlen);

/* Detects the format and imports. */
bool import_file(const char *path, run_model *m, char *err, size_t errlen);

/* src/import/kineto.c */
bool import_kineto(const char *path, run_model *m, char *err, size_t errlen);

/* src/import/nsys_sqlite.c */
bool import_nsys_sqlite(const char *path, run_model *m, char *err, size_t errlen);

#endif
