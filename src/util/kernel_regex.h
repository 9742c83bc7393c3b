/* The --kernels expression of `mmprof profile --counters`: a POSIX extended regular expression,
 * compiled here with bounds on what compiling and matching it may cost. glibc's regcomp copies a
 * repeated subexpression once per repetition ("x+" is "xx*", "x{3}" is "xxx"), so nested
 * repetitions grow exponentially (libFuzzer found "s_ep" followed by 60 '+' taking over 2 GB), and
 * optional repetitions nested three deep made compiling take seconds (kernel_regex.c has the
 * figures). Refused: over 512 characters, repetition operators in a row (undefined in POSIX),
 * repetitions nested more than 2 deep, over 2048 nodes once expanded. The launcher checks the
 * expression and so does the injection library (the variable may be set by hand). */
#ifndef MMPROF_KERNEL_REGEX_H
#define MMPROF_KERNEL_REGEX_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

/* Longest expression, and the most nodes its expansion may have. */
#define KERNEL_REGEX_MAX_LEN 512
#define KERNEL_REGEX_MAX_NODES 2048
#define KERNEL_REGEX_MAX_NESTING 2

/* Compiles expr (REG_EXTENDED | REG_NOSUB) into re. False with the reason in why (one of the
 * bounds above, or regcomp's own message); re is then not to be freed. */
bool kernel_regex_compile(regex_t *re, const char *expr, char *why, size_t len);

/* The number of nodes expr's repetitions expand to (a deliberately generous estimate; capped
 * just past KERNEL_REGEX_MAX_NODES). Exposed for the tests. */
double kernel_regex_cost(const char *expr);

#endif
