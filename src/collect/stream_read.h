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

/* One stream file read as it grows, while its process runs (stream_follow.h), lines taken as
 * they are completed: the same model as stream_read_file's once it is closed. */
typedef struct stream_file stream_file;
/* Opens path for reading into m; NULL with err naming the file when it cannot be opened. */
stream_file *stream_file_open(const char *path, run_model *m, char *err, size_t errlen);
/* Reads the lines completed since the last call. at_end: its writer is gone, so a last line
 * without its newline is a torn one (said at the close), not one still being written. False when
 * memory ran out. */
bool stream_file_feed(stream_file *f, bool at_end);
/* The path it reads. */
const char *stream_file_path(const stream_file *f);
/* What the file's end says (as stream_read_file), f counted in s, and f freed; false when memory
 * ran out while reading it, with err naming the file. */
bool stream_file_close(stream_file *f, stream_summary *s, char *err, size_t errlen);

/* Every *.stream file of dir, in pid order. */
bool stream_read_dir(const char *dir, run_model *m, stream_summary *s, char *err, size_t errlen);
/* The same, the first file's reading begun already (first, taken over and closed here; NULL:
 * none). Where first is not the first in pid order after all (a process of a lower pid, pids
 * having wrapped, started after it), nothing more is read, *again is set and false returned:
 * m is to be emptied and read again by stream_read_dir. */
bool stream_read_dir_from(const char *dir, stream_file *first, bool *again, run_model *m, stream_summary *s,
                          char *err, size_t errlen);
/* The *.stream file names of dir (no directory), in pid order, NULL-ended; NULL with err when it
 * cannot be listed. */
char **stream_names(const char *dir, size_t *count, char *err, size_t errlen);
void stream_names_free(char **names, size_t n);

#endif
