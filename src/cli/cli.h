/* The command line: `mmprof [options]` runs and reports; `mmprof report RUN.json [options]`
 * re-renders a recorded run; `mmprof import TRACE [options]` analyses a PyTorch profiler trace or
 * an Nsight Systems SQLite export; `mmprof profile CMD` runs a program and profiles it. Parsing only: nothing here runs anything. */
#ifndef MMPROF_CLI_H
#define MMPROF_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli_options.h"
#include "cli_capture.h"
#include "cli_devices.h"
#include "cli_numbers.h"
#include "cli_sweep.h"

/* Parses argv into o. Returns -1 to go on, or an exit status: EXIT_OK after --help, --version
 * or --list-workloads (printed to out), EXIT_USAGE after a message on err naming the bad
 * argument. */
int cli_parse(int argc, char **argv, cli_options *o, FILE *out, FILE *err);

#endif
