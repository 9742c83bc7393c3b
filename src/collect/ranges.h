/* Ranges: each phase of a workload (and of the tool itself) is one NVTX range in domain "mmprof"
 * and one timed interval in the run model, opened and closed together, so an Nsight Systems
 * timeline and mmprof's report show the same phases. */
#ifndef MMPROF_RANGES_H
#define MMPROF_RANGES_H

#include <stdint.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ARGB color of a workload's ranges, fixed per workload name. */
uint32_t workload_color(const char *name);

/* An NVTX range around a whole workload: message "cuda-naive (pinned)", payload n. */
void range_push_workload(const workload_run *w, int n);
void range_pop(void);

/* Opens a phase of w (NVTX push + start time); phase_end closes the most recent one. */
phase *phase_begin(workload_run *w, const char *name, int n);
void phase_end(phase *p);

/* The tool's own phases (cuda-init, inputs, reference, ...), recorded in m->tool_phases. */
phase *tool_phase_begin(run_model *m, const char *name);
void tool_phase_end(phase *p);

#ifdef __cplusplus
}
#endif

#endif
