/* Importers: other tools' timelines read into the run model, so `mmprof import` analyses them as
 * it analyses its own runs. The format is told by the content, not the name, and so is its
 * compression (trace_input.h): a path, "-" for standard input, a pipe or FIFO, plain, gzip, zstd
 * or xz.
 *
 * Every importer fills m with source, devices, processes, threads, events (m->events) and
 * regions (NVTX ranges, PyTorch annotations), then calls model_finish_regions (Nsight Compute's
 * CSV has no timeline: launch counters, devices and processes only). On failure it
 * returns false, leaves m empty (model_free'd and re-initialised) and puts in err a message
 * naming the file and what is wrong with it ("trace.json: not valid JSON near byte 1234"). */
#ifndef MMPROF_IMPORT_H
#define MMPROF_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "trace_input.h"

/* A source `mmprof import` reads (import.c holds the table, in the order they are tried). */
typedef struct {
    const char *name; /* as messages list it ("a PyTorch profiler trace (JSON)"); NULL: content
                       * recognised only to be refused, by its read */
    /* Whether the content is this source's, from its first bytes (decompressed, at most 4096,
     * NUL-terminated at n; never empty or white space alone: import_detect refuses those). */
    bool (*detect)(const char *head, size_t n);
    /* Reads the input, as the contract above says. */
    bool (*read)(trace_input *in, run_model *m, char *err, size_t errlen);
} import_source;

/* The source the input's first bytes (after decompression) are, consuming nothing; NULL with
 * the reason in err when none (an empty input, a read error, content no source reads). */
const import_source *import_detect(trace_input *in, char *err, size_t errlen);

/* Opens path, detects the source and imports. */
bool import_file(const char *path, run_model *m, char *err, size_t errlen);

/* src/import/kineto.c: from a path, or from an input already opened (and perhaps peeked at). */
bool import_kineto(const char *path, run_model *m, char *err, size_t errlen);
bool import_kineto_input(trace_input *in, run_model *m, char *err, size_t errlen);

/* src/import/nsys_sqlite.c: the same for SQLite, which needs the whole database at hand: a plain
 * regular file is mapped where it is, anything else (a pipe, compressed content) is copied to an
 * unlinked temporary file first. */
bool import_nsys_sqlite(const char *path, run_model *m, char *err, size_t errlen);
bool import_nsys_sqlite_input(trace_input *in, run_model *m, char *err, size_t errlen);

/* src/import/ncu_csv.c: Nsight Compute's CSV export (ncu --csv --page raw or details): a run of
 * its launches' counters (launch_counters), with no timeline; its content test. */
bool import_ncu_csv(const char *path, run_model *m, char *err, size_t errlen);
bool import_ncu_csv_input(trace_input *in, run_model *m, char *err, size_t errlen);
bool ncu_csv_content(const char *head, size_t n);

#endif
