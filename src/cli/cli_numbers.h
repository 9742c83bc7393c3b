/* Numbers on the command line: whole and real, positive, bounded; the one place each is parsed. */
#ifndef MMPROF_CLI_NUMBERS_H
#define MMPROF_CLI_NUMBERS_H

#include <stdbool.h>
#include <stdio.h>

/* Parses a positive decimal integer no larger than max; no sign, spaces or trailing text. */
bool parse_positive(const char *s, long max, long *out);

/* A positive number no larger than max for opt; false after a message on err naming the option
 * and the unit. */
bool parse_positive_real(const char *opt, const char *arg, double max, const char *unit, double *out, FILE *err);

#endif
