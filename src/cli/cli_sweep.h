/* --sizes: the sizes of a sweep. */
#ifndef MMPROF_CLI_SWEEP_H
#define MMPROF_CLI_SWEEP_H

#include <stdbool.h>
#include <stdio.h>

#include "cli_options.h"

/* --sizes LIST or A:B into o->sizes (one size becomes o->n alone); false after a message on err
 * naming the option. */
bool parse_sizes(const char *arg, cli_options *o, FILE *err);

#endif
