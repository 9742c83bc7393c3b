/* CUPTI activity records turned into run-model events. Shared by the built-in run's collector
 * and by anything else that reads CUPTI buffers, so a record means the same thing everywhere. */
#ifndef MMPROF_CUPTI_RECORDS_H
#define MMPROF_CUPTI_RECORDS_H

#include <cupti.h>

#include "model.h"

/* CUPTI's own words for a result ("unknown CUPTI error" where it has none): the collector's and
 * the injection library's messages both say why a CUPTI call failed this way. */
const char *cupti_result_name(CUptiResult r);

/* What was seen besides the events themselves. */
typedef struct {
    uint64_t records;          /* every record handed in */
    uint64_t lost;             /* kernel, copy or memset records with start = end = 0 */
    uint64_t overhead_records;
    int64_t overhead_ns;
    uint64_t errors;           /* records that could not be stored (memory ran out) */
    uint64_t unreadable;       /* buffers whose records CUPTI could not go on reading */
    uint64_t dropped;          /* records CUPTI reported dropped (its buffers were full) */
} record_counts;

/* Copies what the model needs out of one record into e: kernels, copies, memsets, runtime and
 * driver API calls, synchronization. CUPTI reuses its buffers and owns the names records point
 * to, so nothing of the record is kept. pid is the process the record came from. */
void cupti_record_store(const CUpti_Activity *rec, uint32_t pid, event_list *e, record_counts *n);

/* The one loop over a buffer CUPTI completed (its buffer-completed callback, for every reader):
 * each record goes to cupti_record_store, unless skip(rec, arg) claims it (counted in n->records,
 * not stored; skip NULL: none is). A record CUPTI cannot read ends the buffer, counted in
 * n->unreadable; the records CUPTI dropped for the buffer's context and stream are added to
 * n->dropped. The buffer stays the caller's to free. */
typedef bool (*record_skip_fn)(const CUpti_Activity *rec, void *arg);
void cupti_buffer_store(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t valid, uint32_t pid,
                        record_skip_fn skip, void *arg, event_list *e, record_counts *n);

/* The activity kinds cupti_record_store understands, for enabling them; needed ones must be
 * enabled for the figures to mean anything. */
typedef struct {
    CUpti_ActivityKind kind;
    const char *name;
    bool needed;
} activity_kind;
extern const activity_kind cupti_record_kinds[];
extern const int cupti_record_nkinds;

/* GPU memory (mmprof profile, unless --no-memory): CUPTI's memory records (every allocation and
 * free, each with its address, size, kind, stream and the library that asked) and memory-pool
 * records. Apart from the kinds above, which the built-in run's collector enables too. */
extern const activity_kind cupti_memory_kinds[];
extern const int cupti_memory_nkinds;
/* A memory or memory-pool record into m (a skip function of cupti_buffer_store calls it): true
 * when rec is one (stored, or *oom set when memory ran out), false for any other record. */
bool cupti_memory_record(const CUpti_Activity *rec, uint32_t pid, memory_activity *m, bool *oom);

#endif
