/* mmprof compare's outputs: the text table (fits 100 columns) and the JSON document. */
#ifndef MMPROF_COMPARE_REPORT_H
#define MMPROF_COMPARE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "compare.h"

/* One side of the comparison, as the outputs name it. */
typedef struct {
    const char *path;
    const run_model *m;
} compare_side;

typedef struct {
    compare_side base, new_run;
    const comparison *c;
    char **warnings; /* about the pair (different devices, schema versions, ...) */
    int nwarnings;
    int exit_status; /* what mmprof compare returns */
} compare_report;

/* The table: every figure that changed beyond its noise (all figures with all), the workloads and
 * regions only one run has, and a summary. */
void render_compare_text(const compare_report *r, bool all, FILE *f);

/* The JSON document (schema "mmprof-compare"), every row; NULL when memory ran out. */
char *render_compare_json(const compare_report *r);

#endif
