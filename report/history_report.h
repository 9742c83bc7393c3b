/* mmprof history's outputs: a table (text), every point (JSON) and a page that draws the figure
 * with its band and marks the runs that changed it (HTML, one self-contained file). */
#ifndef MMPROF_HISTORY_REPORT_H
#define MMPROF_HISTORY_REPORT_H

#include <stdio.h>

#include "history.h"

typedef struct {
    const char *db;     /* the database, as named for messages */
    const char *what;   /* "range 'step *'" or "the run" */
    const char *figure; /* its key: "median_ms" */
    const char *unit;   /* the registry's: "ms" */
    const char *label;  /* the registry's: "median" */
    const history_point *p;
    int n;
    int last;           /* text: show only the last N runs (0: all) */
} history_view;

void render_history_text(const history_view *v, FILE *f);
char *render_history_json(const history_view *v);
char *render_history_html(const history_view *v);

#endif
