/* Copy/compute overlap and streams: how much of a copy ran while a kernel ran on the same GPU
 * (hidden under compute, as Nsight Systems shows copies under kernels on its timeline), and each
 * stream's work with the time it shared the GPU with other streams.
 *
 * Built once per run from the event store: per device, the merged intervals of its kernels and of
 * its copies, so the hidden part of any one event is a binary search and a short walk. */
#ifndef MMPROF_OVERLAP_H
#define MMPROF_OVERLAP_H

#include <stdint.h>

#include "metric.h"
#include "model.h"

typedef struct gpu_activity gpu_activity;

/* NULL when memory ran out (a run without GPU events gets an empty one). */
gpu_activity *gpu_activity_build(const run_model *m);
void gpu_activity_free(gpu_activity *g);

/* The part of [start, end) on device during which a kernel ran there (any stream, any process). */
int64_t hidden_under_kernels(const gpu_activity *g, uint32_t device, int64_t start, int64_t end);
/* The part of [start, end) on device during which a copy ran there. */
int64_t hidden_under_copies(const gpu_activity *g, uint32_t device, int64_t start, int64_t end);

/* One stream of one device over the whole run. */
typedef struct {
    uint32_t device, stream;
    int nkernels, ncopies, nmemsets;
    metric kernel_ms, copy_ms, memset_ms;
    metric busy_ms;        /* union of its kernel, copy and memset intervals */
    metric busy_pct;       /* that over the run's span */
    metric overlap_ms;     /* of busy_ms, the time another stream of the device was busy too */
    metric overlap_pct;    /* that over busy_ms */
    metric copy_hidden_pct; /* of its copy time, the part a kernel ran during (any stream) */
} stream_metrics;

/* Every stream with GPU work, by device then stream; false only when memory ran out. */
bool analyze_streams(const run_model *m, stream_metrics **out, int *nout);

#endif
