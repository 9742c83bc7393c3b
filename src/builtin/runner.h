/* The pipeline of one run: inputs, reference, workloads, collection, into a run model. */
#ifndef MMPROF_RUNNER_H
#define MMPROF_RUNNER_H

#include <stdio.h>

#include "cli.h"
#include "model.h"

/* Runs what o asks into m (initialised here). Returns an exit status: EXIT_OK or
 * EXIT_WORKLOAD_FAILED with m complete, or EXIT_USAGE / EXIT_NO_GPU after a message on err (m is
 * then freed). */
int run_profile(const cli_options *o, int argc, char **argv, run_model *m, FILE *err);

/* True when a workload passed --timeout and its thread was abandoned, still running: the process
 * must then end with _exit once the report is written, not run library destructors under it. */
bool runner_abandoned(void);

/* Host memory a run of size n needs at its peak, in bytes; false when it overflows. */
bool host_bytes_needed(int n, bool gpu, uint64_t *bytes);

/* Device memory a GPU workload of size n needs (A, B and C). */
uint64_t device_bytes_needed(int n);

#endif
