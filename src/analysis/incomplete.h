/* What a killed process's records lack. A profiled process that ends without its exit handler
 * (SIGKILL, a crash) never hands over the records CUPTI still held: on the H200 a training loop
 * killed after 8 s kept 18,288 CUDA API calls but none of its kernels, and a verdict drawn from
 * that ("copy-bound: 9.4 ms of copies against 0 ms of kernels") was wrong. The API records of the
 * launches and copies did arrive (they complete at once), so they say how many GPU records are
 * missing: for each such process (process_info.records_cut), the kernel launch calls against the
 * kernel records with their correlation id, and the same for copies and memsets. Regions of those
 * processes, and the whole run, are then not judged: their verdict says why instead. */
#ifndef MMPROF_INCOMPLETE_H
#define MMPROF_INCOMPLETE_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

typedef struct incomplete_process_s {
    uint32_t pid;
    const char *name;              /* the process's (run_model.processes) */
    int64_t launches, kernels;     /* kernel launch calls, and those with a kernel record */
    int64_t copy_calls, copies;    /* memcpy calls, and those with a copy record */
    int64_t memset_calls, memsets; /* memset calls, and those with a memset record */
} incomplete_process;

/* One entry per process whose records were cut (none for a complete run); false when memory ran
 * out. */
bool analyze_incomplete(const run_model *m, incomplete_process **out, int *n);

/* The reason a verdict is withheld for a region of process pid (0: the whole run, every process),
 * in out; false when the region's records are complete: no such process was cut, or every call
 * of its that puts work on the GPU has its record (with MMPROF_FLUSH_FORCED a killed process
 * loses at most a flush period, API records included, and its verdicts stand). */
bool incomplete_reason(const incomplete_process *p, int n, uint32_t pid, char *out, size_t len);

#endif
