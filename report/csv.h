/* The CSV output (--csv FILE): the registry's tables (tables.h) as one table, for spreadsheets
 * and scripts. RFC 4180: a header row, CRLF line ends, fields holding a comma, quote, CR or LF
 * quoted with inner quotes doubled. */
#ifndef MMPROF_REPORT_CSV_H
#define MMPROF_REPORT_CSV_H

#include "analysis.h"

/* The document as a string (the caller frees it), or NULL when memory ran out. */
char *render_csv(const analysis *a);

#endif
