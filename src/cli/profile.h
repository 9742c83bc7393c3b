/* `mmprof profile [OPTIONS] [--] CMD [ARGS...]`: runs CMD with libmmprof_inject.so injected
 * (CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH), waits for it, and reads every process's
 * record stream into one run model that main analyses and renders as it does any run. */
#ifndef MMPROF_PROFILE_H
#define MMPROF_PROFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"
#include "cli.h"
#include "model.h"

/* `mmprof profile`'s entry: runs o->command under the injection library (not the built-in
 * workloads: those are run_builtin, src/builtin/runner.h). True when the program ran: m holds what was recorded (SOURCE_PROFILE, regions
 * finished) and *status is the program's own exit status (128 + signal when a signal killed
 * it). False when nothing ran or nothing could be read: a message went to err and *status is
 * mmprof's (EXIT_USAGE under another profiler, EXIT_NOT_FOUND, EXIT_CANNOT_EXEC,
 * EXIT_PROFILE_FAILED). */
bool profile_program(const cli_options *o, run_model *m, int *status, FILE *err);

#endif
