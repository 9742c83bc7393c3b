/* The launcher's side of the record stream (stream_format.h): every process's file read back into
 * one run model. Plain C and the model only, so the tests exercise it on files they write. */
#ifndef MMPROF_STREAM_READ_H
#define MMPROF_STREAM_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

typedef struct {
    int files;          /* stream files read */
    int cuda_processes; /* processes whose cuInit ran the injection ("cuda" line) */
} stream_summary;

/* Adds one stream file to m: processes, threads, devices, events (m->events, with their pid),
 * NVTX ranges as REGION_NVTX regions (push/pop nested on their thread), CUPTI's counts in
 * m->collection, and a warning for each thing that may be missing (no exit handler ran, a
 * truncated last line, ranges left open, errors the library reported). False only when the file
 * cannot be read or memory ran out, with err naming the file. */
bool stream_read_file(const char *path, run_model *m, stream_summary *s, char *err, size_t errlen);

/* Every *.stream file of dir, in pid order. */
bool stream_read_dir(const char *dir, run_model *m, stream_summary *s, char *err, size_t errlen);

#endif
