/* The --kernels expression of `mmprof profile --counters`: a POSIX extended regular expression,
 * compiled here with a bound on what compiling it may cost. glibc's regcomp copies a repeated
 * subexpression once per repetition ("x+" is "xx*", "x{3}" is "xxx"), so nested repetitions grow
 * exponentially: libFuzzer found "s_ep" followed by 60 '+' taking over 2 GB. The launcher checks
 * the expression and so does the injection library (the variable may be set by hand). */
#ifndef MMPROF_KERNEL_REGEX_H
#define MMPROF_KERNEL_REGEX_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

/* Longest expression, and the most nodes its expansion may have. */
#define KERNEL_REGEX_MAX_LEN 512
#define KERNEL_REGEX_MAX_NODES 4096

/* Compiles expr (REG_EXTENDED | REG_NOSUB) into re. False with the reason in why (the
 * expression too long, its repetitions expanding past the bound, or regcomp's own message);
 * re is then not to be freed. */
bool kernel_regex_compile(regex_t *re, const char *expr, char *why, size_t len);

/* The number of nodes expr's repetitions expand to (a deliberately generous estimate; capped
 * just past KERNEL_REGEX_MAX_NODES). Exposed for the tests. */
double kernel_regex_cost(const char *expr);

#endif
