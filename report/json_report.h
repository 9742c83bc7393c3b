/* The JSON output: the run model (what `mmprof report` reads back) plus, for other readers, the
 * figures analysis derived from it: per workload "metrics" (null where not measured, with the
 * reason under "not_available") and an "analysis" section with peaks and warnings. */
#ifndef MMPROF_REPORT_JSON_H
#define MMPROF_REPORT_JSON_H

#include "analysis.h"

/* The document as a string (the caller frees it), or NULL when memory ran out. */
char *render_json(const analysis *a);

#endif
