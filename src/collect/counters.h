/* Hardware counters per kernel through CUPTI's range profiler (cupti_range_profiler.h with the
 * host API of cupti_profiler_host.h, CUDA 13): the metrics of model.h's counter table, collected
 * in kernel replay, one range per kernel launch, so each kernel is replayed once per pass the
 * metric set needs. A C interface over counters.cpp (the host API's header is C++ only).
 *
 * The counters are read in a pass of their own, after a workload's timed launches: replay
 * saves and restores device memory and serialises kernels, and must never touch a timing. */
#ifndef MMPROF_COUNTERS_H
#define MMPROF_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct counter_session counter_session;

/* Opens the range profiler on a CUDA context (a CUcontext; device is its device's index):
 * checks the device is supported, builds the configuration for every metric of the counter
 * table the chip has, and reports the passes it needs. NULL with the reason in why when the
 * counters cannot be read: no permission (the message names NVIDIA's counter-permission
 * setting), a GPU the profiler does not support, another profiler holding the counters. */
counter_session *counters_open(void *context, int device, char *why, size_t len);

/* Replays passes for each metric set; 0 until counters_open succeeded. */
int counters_passes(const counter_session *s);

/* Runs launch(ctx) under the profiler and appends one kernel_counters per kernel it launched to
 * w (metrics the chip lacks stay NaN), named by the range profiler's range number. launch must
 * synchronise before returning, and may be called more than once (each call the same work).
 * With flush (which must leave the L2 holding no dirty line and synchronise), the DRAM bytes
 * come from one more launch after it, not from the replay (counters.cpp says why); NULL keeps
 * the replay's. Returns 0, or -1 with the reason in why (the workload's timings are not affected
 * either way). */
int counters_collect(counter_session *s, int (*launch)(void *ctx), int (*flush)(void *ctx), void *ctx, workload_run *w,
                     char *why, size_t len);

/* For a launch the caller does not control (the injection library's launch callback): begin
 * before the launch, end after it. The launch is replayed within itself once per pass (kernel
 * replay); end fills k with its first kernel's values (NaN where not collected; k->name is
 * left NULL). Each returns 0, or -1 with the reason in why. DRAM bytes written include the
 * replay's memory restore here (no flush can come between its passes). */
int counters_begin(counter_session *s, char *why, size_t len);
int counters_end(counter_session *s, kernel_counters *k, char *why, size_t len);

/* Stops the profiler and frees the session (NULL is fine). */
void counters_close(counter_session *s);

/* The chip, which of the table's metrics it has, and the passes: for diagnosis (MMPROF_COUNTERS_VERBOSE). */
void counters_describe(const counter_session *s, FILE *f);

/* The reason text for a CUPTI result of the profiler (exposed for the tests). */
void counters_reason(int cupti_result, const char *call, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
