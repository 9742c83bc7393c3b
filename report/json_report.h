/* The JSON output: the run model (what `mmprof report` reads back) plus, for other readers, the
 * figures analysis derived from it: per workload "metrics" (null where not measured, with the
 * reason under "not_available") and an "analysis" section with peaks and warnings. */
#ifndef MMPROF_REPORT_JSON_H
#define MMPROF_REPORT_JSON_H

#include <stddef.h>

#include "analysis.h"
#include "text_sink.h"

/* The document as a string (the caller frees it), or NULL when memory ran out. */
char *render_json(const analysis *a);

/* The model's members of the document (a long run's events: most of its text), rendered on a
 * thread of their own from the moment the model is final, while the analysis runs: analyze reads
 * the model and never changes it. NULL where it could not start, and for a built-in run (its
 * workloads carry figures of the analysis among the model's members). */
typedef struct json_model_text json_model_text;
/* scratch: a file (output_scratch) the text goes to as it is made, read back when the document
 * is written, so that a long run's events are not held in memory beside its analysis; t owns it
 * from here (and closes it). -1: the text is kept in memory. */
json_model_text *json_model_text_start(const run_model *m, int scratch);
/* render_json with the model's members from t, which it joins and frees; t NULL: render_json. */
char *render_json_from(const analysis *a, json_model_text *t);
/* The same document handed to sink as it is made (never whole in memory). False with why in err
 * (out of memory, the scratch file unwritable) or where the sink failed (the sink says why). */
bool render_json_to(const analysis *a, json_model_text *t, const text_sink *sink, char *err, size_t errlen);
/* How much of the analysis' text render_json_to holds while the model's members are written
 * (4 MiB; tests lower it to see the analysis wait for them). */
extern size_t json_analysis_ahead;
/* Joins and frees t unused. */
void json_model_text_free(json_model_text *t);

#endif
