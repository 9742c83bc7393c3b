/* Analysis, the orchestrator: analyze() computes every figure of a run model into an analysis
 * (analysis.h's types) by calling the analysis files in turn. Only the CLI, the store and tests
 * call it; the files it calls never call back into it. */
#ifndef MMPROF_ANALYZE_H
#define MMPROF_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"

/* Whether analyze can take m: false, with why in words, for a run larger than the analysis
 * counts (REGIONS_HOST_CALLS_MAX). */
bool analysis_fits(const run_model *m, char *why, size_t len);
/* Computes every figure; returns false only when memory ran out (on a run analysis_fits takes). */
bool analyze(const run_model *m, analysis *out);
void analysis_free(analysis *a);

#endif
