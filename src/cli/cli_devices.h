/* --devices: the GPUs a built-in run uses. */
#ifndef MMPROF_CLI_DEVICES_H
#define MMPROF_CLI_DEVICES_H

#include <stdbool.h>
#include <stdio.h>

#include "cli_options.h"

/* cli_devices.c: --devices all|LIST into o->all_devices or o->devices; false after a message on
 * err naming --devices (not a number, named twice, out of range). */
bool parse_devices(const char *arg, cli_options *o, FILE *err);

#endif
