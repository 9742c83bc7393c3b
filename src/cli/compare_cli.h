/* `mmprof compare BASE NEW [--threshold PCT] [--json FILE] [--all] [-q]`: two run files compared
 * figure by figure (src/analysis/compare.h has the rule). */
#ifndef MMPROF_COMPARE_CLI_H
#define MMPROF_COMPARE_CLI_H

#include <stdio.h>

/* argv[0] is "compare". Returns the exit status: 0, 1 (a figure worse beyond the noise and the
 * threshold, with --threshold), 2 (bad option or run file), 4 (the JSON could not be written). */
int compare_main(int argc, char **argv, FILE *out, FILE *err);

#endif
