/* libFuzzer target: the command line. The bytes are split at NUL bytes into arguments after
 * "mmprof" (at most 64) and parsed by cli_parse, as main does; a parse that succeeds is parsed a
 * second time, which also checks that parsing leaves no state behind (getopt's). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "mmprof";
    for (size_t at = 0; at <= size && argc <= MAX_ARGS;) {
        argv[argc++] = copy + at;
        at += strlen(copy + at) + 1;
    }
    argv[argc] = NULL;
    /* getopt permutes argv: each parse gets its own copy of the pointers. */
    char *again[MAX_ARGS + 2];
    memcpy(again, argv, sizeof argv);
    cli_options o;
    if (cli_parse(argc, argv, &o, sink, sink) < 0)
        cli_parse(argc, again, &o, sink, sink);
    free(copy);
    return 0;
}
