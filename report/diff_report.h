/* mmprof diff's outputs: text (the changes beyond the noise, each with where its time went),
 * JSON (every thing compared) and Markdown (a table for a pull request or CI summary). */
#ifndef MMPROF_DIFF_REPORT_H
#define MMPROF_DIFF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "diff.h"

typedef struct {
    const char *base, *new_run; /* how each side was named (file or database run) */
    bool all;                   /* text and Markdown: list the things within noise too */
} diff_names;

void render_diff_text(const run_diff *d, const diff_names *n, FILE *f);
/* Whole documents, NULL when memory ran out. */
char *render_diff_json(const run_diff *d, const diff_names *n);
char *render_diff_markdown(const run_diff *d, const diff_names *n);

#endif
