/* The built-in run (`mmprof [options]`): inputs, the FP64 reference, every selected workload at
 * every size, CUPTI collection, into a run model. Not to be confused with `mmprof profile`, which
 * profiles another program (src/cli/profile.h: profile_program). */
#ifndef MMPROF_RUNNER_H
#define MMPROF_RUNNER_H

#include <stdio.h>

#include "builtin_options.h"
#include "model.h"

/* How a built-in run ended; the command line makes its exit status of it (cli_builtin.h). */
typedef enum {
    BUILTIN_OK = 0,          /* every workload verified; the model is complete */
    BUILTIN_WORKLOAD_FAILED, /* a workload failed verification, a CUDA call failed or a workload
                              * passed the timeout; the model is complete */
    BUILTIN_BAD_REQUEST,     /* a size, device or memory the run cannot have, after a message; the
                              * model is freed */
    BUILTIN_NO_GPU,          /* require_gpu and no usable GPU, after a message; the model is freed */
} builtin_status;

/* Runs what o asks into m (initialised here), with messages on err. */
builtin_status run_builtin(const builtin_options *o, run_model *m, FILE *err);

/* True when a workload passed the timeout and its thread was abandoned, still running: the
 * process must then end with _exit once the report is written, not run library destructors
 * under it. */
bool run_builtin_abandoned(void);

/* Host memory a run of size n needs at its peak, in bytes; false when it overflows. */
bool host_bytes_needed(int n, bool gpu, uint64_t *bytes);

/* Device memory a GPU workload of size n needs (A, B and C). */
uint64_t device_bytes_needed(int n);

#endif
