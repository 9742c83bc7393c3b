/* The CSV output (--csv FILE): the figures of the metric registry as one table, for spreadsheets
 * and scripts. RFC 4180: a header row, CRLF line ends, fields holding a comma, quote, CR or LF
 * quoted with inner quotes doubled. */
#ifndef MMPROF_REPORT_CSV_H
#define MMPROF_REPORT_CSV_H

#include "analysis.h"

/* The document as a string (the caller frees it), or NULL when memory ran out. */
char *render_csv(const analysis *a);

/* The name of the row kind whose columns are registry table t's ("stream" for stream_table), or
 * NULL where the CSV does not carry t; tests walk the registry with it. */
const char *csv_row_of_table(const metric_table *t);

#endif
