/* The collector: CUPTI activity records for every kernel, copy, memset, runtime and driver call
 * and synchronization, or, when
 * another profiler holds CUPTI, nothing from CUPTI and cudaEvents in the workloads instead.
 *
 * One clock for everything: collector_now() is CUPTI's timestamp when CUPTI is active, which is
 * the clock its records use; otherwise CLOCK_REALTIME, which CUPTI's clock is based on. */
#ifndef MMPROF_COLLECTOR_H
#define MMPROF_COLLECTOR_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    bool disable_cupti; /* --no-cupti: time with cudaEvents as if a profiler held CUPTI */
} collector_options;

/* Decides the timing source and, for CUPTI, subscribes and enables the activity kinds. Call after
 * the CUDA driver is initialised (so an injected profiler has taken CUPTI already) and before
 * the first context is created (activity is not retroactive). Fills info->source and reason. */
void collector_start(const collector_options *opt, collection_info *info);

bool collector_cupti_active(void);
int64_t collector_now(void);

/* Flushes every buffered record (the caller synchronised the device first), stops collection and
 * moves the events into m->events, each owned by the workload whose span holds it (the workloads'
 * regions are made first: model_add_builtin_regions); records outside every workload span (CUDA's
 * start-up, cuBLAS handle creation) are owned by the run and counted in info->outside_workloads.
 * Updates info's counters. */
void collector_finish(run_model *m, collection_info *info);
/* The same with CUPTI's final flush bounded to wait_s seconds (0: unbounded): after a GPU
 * workload was abandoned the device may never go idle. Past the bound only the records that
 * already arrived are distributed, with a warning. */
void collector_finish_within(run_model *m, collection_info *info, int wait_s);

#ifdef __cplusplus
}
#endif

#endif
