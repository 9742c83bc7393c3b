/* The JSON output: the run model (what `mmprof report` reads back) plus, for other readers, the
 * figures analysis derived from it: per workload "metrics" (null where not measured, with the
 * reason under "not_available") and an "analysis" section with peaks and warnings. */
#ifndef MMPROF_REPORT_JSON_H
#define MMPROF_REPORT_JSON_H

#include "analysis.h"

/* The document as a string (the caller frees it), or NULL when memory ran out. */
char *render_json(const analysis *a);

/* The model's members of the document (a long run's events: most of its text), rendered on a
 * thread of their own from the moment the model is final, while the analysis runs: analyze reads
 * the model and never changes it. NULL where it could not start, and for a built-in run (its
 * workloads carry figures of the analysis among the model's members). */
typedef struct json_model_text json_model_text;
json_model_text *json_model_text_start(const run_model *m);
/* render_json with the model's members from t, which it joins and frees; t NULL: render_json. */
char *render_json_from(const analysis *a, json_model_text *t);
/* Joins and frees t unused. */
void json_model_text_free(json_model_text *t);

#endif
