/* Warnings about the GPU's state during each built-in workload (device_state.h): clocks held down
 * during the measurement, another process on the GPU, or no state at all and why. */
#ifndef MMPROF_DEVICE_CHECK_H
#define MMPROF_DEVICE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* The SM clock counts as held down below this share of its maximum. */
#define CLOCK_DROP_PCT 5.0

/* Calls add(ctx, text) for each warning; stops and returns false when add does. GPU workloads
 * whose state is n/a for one same reason get one warning between them. */
bool device_state_warnings(const run_model *m, bool (*add)(void *ctx, const char *text), void *ctx);

#endif
