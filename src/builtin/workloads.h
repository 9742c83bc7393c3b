/* The workloads mmprof can run, registered by name (fio's engine table, in small): the CPU one
 * and the GPU ones from cuda/. --workloads picks from this list; the default runs them all. */
#ifndef MMPROF_WORKLOADS_H
#define MMPROF_WORKLOADS_H

#include <stdbool.h>

#include "gpu_compute.h"

typedef struct {
    const char *name;
    const char *summary;
    bool needs_gpu;
    const gpu_compute *gpu; /* NULL for the CPU workload */
} workload_def;

const workload_def *workload_list(int *count);
const workload_def *workload_find(const char *name);

#endif
