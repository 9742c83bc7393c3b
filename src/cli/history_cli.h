/* mmprof history DB: a figure across stored runs (history_cli.c). */
#ifndef MMPROF_HISTORY_CLI_H
#define MMPROF_HISTORY_CLI_H

#include <stdio.h>

int history_main(int argc, char **argv, FILE *out, FILE *err);

#endif
