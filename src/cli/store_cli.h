/* mmprof store DB RUN...: run files into a database (store_cli.c). */
#ifndef MMPROF_STORE_CLI_H
#define MMPROF_STORE_CLI_H

#include <stdio.h>

int store_main(int argc, char **argv, FILE *out, FILE *err);

#endif
