/* profile's capture options, and `mmprof capture start|stop`. */
#ifndef MMPROF_CLI_CAPTURE_H
#define MMPROF_CLI_CAPTURE_H

#include <stdbool.h>
#include <stdio.h>

#include "cli_options.h"

/* cli_capture.c: profile's capture options as given (NULL: not given), checked together into
 * o->capture (o->profile_mode already set); false after a message on err naming the option. */
bool capture_options(const capture_args *a, cli_options *o, FILE *err);

/* cli_capture.c: `mmprof capture start|stop TARGET` (argv from "capture"): opens or closes the
 * capture window of a running `mmprof profile --capture-range manual` (capture_control.h). Returns
 * the exit status: 0 done, 2 a bad command or target (message on err). */
int capture_main(int argc, char **argv, FILE *out, FILE *err);

#endif
