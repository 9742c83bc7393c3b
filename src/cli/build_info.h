/* What a binary knows about its own build, for `mmprof --version`. */
#ifndef MMPROF_BUILD_INFO_H
#define MMPROF_BUILD_INFO_H

#include <stdio.h>

/* Prints the version and run file schema, the commit the binary was built from (src/cli/commit.sh
 * says how it is found: "-dirty" for a modified tree, "unknown" without .git) and the CUDA
 * toolkit it was compiled against. */
void print_version(FILE *out);

#endif
