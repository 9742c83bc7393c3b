/* The run file's event store in columns: the compact form of a long run's events.
 *
 * One event per line, as a run file holds a short run's events, costs about 150 bytes an API call
 * and 400 a kernel (its mangled name, every key, again on every line): a 60 s training loop made
 * a 395 MB file. From EVENT_COLUMNS_MIN events on, model_write writes the store instead as
 *
 *   "events": {"form": "columns",
 *              "names": ["cuLaunchKernel", "_ZN2at6native...", ...],   each distinct name once
 *              "kernels": {"start_ns": [...], "dur_ns": [...], "name": [...], ...},
 *              "copies": {...}, "memsets": {...}, "apis": {...}, "syncs": {...}}
 *
 * one array of integers per field, all of a kind's arrays as long as its number of events:
 * start_ns is the difference from the kind's previous event's start (the first event's from the
 * run's epoch), dur_ns the event's end less its start, correlation the difference from the
 * previous event's, name an index into names; enums are model.h's numbers (CUPTI's), a kernel's
 * registers -1 where its resources are not known. Small differences print as few digits, and
 * columns of like numbers compress well. Short runs keep one event per line,
 * which reads and diffs line by line and is what scripts over the JSON expect. events_json.c
 * reads both forms in any schema 3 file. */
#ifndef MMPROF_EVENT_COLUMNS_H
#define MMPROF_EVENT_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json_writer.h"
#include "model.h"

#define EVENT_COLUMNS_MIN 100000

/* Events in the store from which model_write writes columns: EVENT_COLUMNS_MIN; tests lower it. */
extern size_t event_columns_min;

size_t event_count(const event_list *e);

/* Whether e is written in columns: it has event_columns_min events or more, and every name is
 * one of its names table's (events_names: so for events added through events_add_*, not for a
 * list a test filled by hand). */
bool event_columns_fit(const event_list *e);

/* Writes the members of the open "events" object (form, names and one object per kind), for an
 * e that event_columns_fit. False when memory ran out. */
bool event_columns_write(json_writer *w, const event_list *e, int64_t epoch);

/* The five kinds, in the order they are written and read: "kernels", "copies", "memsets",
 * "apis", "syncs". */
extern const char *const event_column_kinds[5];

/* What a kind's columns are checked against. */
typedef struct {
    const char *const *names; /* the file's names table */
    size_t nnames;
    int ndevices, nregions;
    int64_t epoch;
} event_column_limits;

/* Reads kind k's object, text[0, len) (JSON: an object of integer arrays), appending its events
 * to ev. False with the reason in err ("apis.dur_ns[12]: ..."); what was read stays in ev. */
bool event_columns_read(int k, const char *text, size_t len, const event_column_limits *lim, event_list *ev,
                        char *err, size_t errlen);

#endif
