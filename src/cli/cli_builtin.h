/* `mmprof [options]`: what the command line asks of the built-in run (src/builtin/runner.h), and
 * the run's outcome as the exit status --help documents. */
#ifndef MMPROF_CLI_BUILTIN_H
#define MMPROF_CLI_BUILTIN_H

#include <stdbool.h>

#include "builtin_options.h"
#include "cli.h"
#include "runner.h"

/* The built-in run's options from the parsed command line (argc and argv are recorded in the
 * run); progress: whether to show the progress line (main: stderr is a terminal and no -q). */
void cli_builtin_options(const cli_options *o, int argc, char **argv, bool progress, builtin_options *b);

/* EXIT_OK, EXIT_WORKLOAD_FAILED, EXIT_USAGE or EXIT_NO_GPU. */
int builtin_exit_status(builtin_status s);

#endif
