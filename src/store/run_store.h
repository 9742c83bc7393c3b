/* One analysed run into a database: what --db does after a run, profile, import or report. */
#ifndef MMPROF_RUN_STORE_H
#define MMPROF_RUN_STORE_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"
#include "db.h"
#include "run_rows.h"

/* a's rows stored in d in one transaction; a line to `say` names its id (NULL: silent). `file` is
 * where the run came from, NULL for a new run. False with why in err. */
bool run_store(db *d, const analysis *a, const char *file, FILE *say, char *err, size_t errlen);

/* The rows of a run file, read and analysed; false with why (naming the file) in err. */
bool run_rows_of_file(const char *path, run_rows *out, char *err, size_t errlen);

#endif
