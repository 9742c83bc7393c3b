/* The built-in run's hardware-counter pass: the range profiler (counters.h) on the calling
 * thread's context, one more product of a GPU workload under it after the timed launches and
 * verification (so replaying it touches no timing and no verified result), and the pass's
 * bookkeeping once CUPTI's records are in. The session is per thread, as the GPU runner's state
 * is (gpu_runner.h). */
#ifndef MMPROF_GPU_COUNTERS_H
#define MMPROF_GPU_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu_runner.h"
#include "model.h"

/* Opens the range profiler on the thread's context and records the passes it needs in m; false
 * with the reason (no permission, unsupported GPU) when counters cannot be read. */
bool gpu_counters_open(run_model *m, char *why, size_t len);

/* The counter pass of j's workload w, as its "counters" phase: fills w->counters, or
 * w->counters_why with the reason. Nothing without an open session. */
void gpu_counter_pass(gpu_job *j, workload_run *w);

/* Closes the thread's session, once the device is idle (nothing without one). Before gpu_close
 * or gpu_reset. */
void gpu_counters_close(void);

/* Once the records are in (collector_finish): a counter entry still numbered (a library's
 * kernel) takes the name of the kernel launched at the same place in the compute phase's first
 * product, and the pass's own kernel records leave the store (a replayed launch times nothing). */
void gpu_counter_pass_records(run_model *m, workload_run *w);

#endif
