/* Runs into a database, and back out: a write is one transaction (store_begin .. store_commit),
 * so a failed command leaves the database as it was; a run is keyed by its content (run_rows.h),
 * so storing it again adds nothing. */
#ifndef MMPROF_STORE_H
#define MMPROF_STORE_H

#include <stdbool.h>

#include "db.h"
#include "run_rows.h"

/* A write's transaction, the tables made or brought up to date inside it. PostgreSQL writers take
 * one advisory lock for it, so two machines storing at once neither race to make the tables nor
 * store one run twice. */
bool store_begin(db *d, char *err, size_t errlen);
bool store_commit(db *d, char *err, size_t errlen);
void store_rollback(db *d);

/* r stored (inside store_begin): *id its run id; *added false when a run of its key was there. */
bool store_rows(db *d, const run_rows *r, const char *file, long long *id, bool *added, char *err, size_t errlen);

/* The run `ref` names: its id ("12") or the start of its key (6 hex digits or more). */
bool store_find(db *d, const char *ref, long long *id, char *err, size_t errlen);
/* The rows of run id, as store_rows wrote them (row order within a table may differ). */
bool store_load(db *d, long long id, run_rows *out, char *err, size_t errlen);

#endif
