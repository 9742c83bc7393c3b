/* The HTML report: one self-contained page (templates/report.html with its CSS and script
 * compiled in) showing the run as a GPU programmer would look at it: summary cards, the ladder
 * against cuBLAS, timelines, copy versus compute, speedups, kernels and warnings. Nothing is
 * loaded from elsewhere, so the file can be mailed or attached to a bug report. */
#ifndef MMPROF_REPORT_HTML_H
#define MMPROF_REPORT_HTML_H

#include "analysis.h"
#include "sections.h"

/* The page as a string (the caller frees it), or NULL when memory ran out. */
char *render_html(const analysis *a);

/* Whether the page has section s: where section_shown says its data exists, and the timeline on
 * the page of a profiled program or an imported trace that has events to draw (the page's own
 * drawing: the text and JSON reports have no timeline of events, so sections.h does not decide
 * it). */
bool html_section_shown(const analysis *a, section_id s);

#endif
