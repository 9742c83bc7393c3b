/* One GPU workload of the built-in run, phase by phase: allocate, copy-in, warm-up, compute,
 * copy-out, verify, then the counter pass where asked. Each phase is an NVTX range and a timed
 * interval of the workload (ranges.h); the GPU work itself is the thin interface of
 * gpu_runner.h, which cuda/ implements. */
#ifndef MMPROF_GPU_WORKLOAD_H
#define MMPROF_GPU_WORKLOAD_H

#include "gpu_compute.h"
#include "gpu_runner.h"
#include "model.h"
#include "sampling.h"

/* The GPU's sampling rule: at least 10 launches before the noise may stop it, at most 200. */
sample_rule gpu_sample_rule(int repeat, double max_noise_pct, double max_time_ms);

/* Runs c at in->n with host memory kind into w, on the calling thread's GPU (gpu_open and
 * gpu_prepare done). A CUDA call that fails marks w as an error with the call that failed, and
 * the phases already opened are closed so NVTX ranges stay balanced.
 *
 * cudaEvents are recorded around every copy and every launch whatever collects the run: under
 * CUPTI they are the cross-check for CUPTI's kernel durations; when another profiler holds CUPTI
 * they are the timing, turned into copy and kernel events on the host clock. */
void gpu_workload_run(const gpu_compute *c, const gpu_inputs *in, mem_kind kind, workload_run *w);

#endif
