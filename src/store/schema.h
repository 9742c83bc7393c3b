/* The database's schema, made from the tables run_rows.h describes: a table per rr_table, its
 * identity columns, then one column per registry figure, named by the figure's key. Every table
 * but runs starts with run_id, the stored run it belongs to (runs.id).
 *
 * A database made by an older mmprof gets the columns of figures added to the registry since
 * (ALTER TABLE ... ADD COLUMN) the next time it is written to; rows stored before have NULL there. */
#ifndef MMPROF_SCHEMA_H
#define MMPROF_SCHEMA_H

#include "db.h"
#include "run_rows.h"
#include "strbuf.h"

/* The layout's version, in mmprof_schema: a database of a newer layout is refused, not guessed at. */
#define SCHEMA_VERSION 1

/* The statements that make every table and index where missing, for that database. */
void schema_sql(strbuf *b, db_kind k);
/* Inside a write's transaction: the tables made or brought up to date. */
bool schema_ensure(db *d, char *err, size_t errlen);
/* Whether the database has runs at all (its tables exist); false with err empty when not. */
bool schema_present(db *d, char *err, size_t errlen);

#endif
