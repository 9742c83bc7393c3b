/* mmprof diff A B: what changed between two profiles, where and why (diff_cli.c). */
#ifndef MMPROF_DIFF_CLI_H
#define MMPROF_DIFF_CLI_H

#include <stdio.h>

int diff_main(int argc, char **argv, FILE *out, FILE *err);

#endif
