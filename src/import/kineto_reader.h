/* The Kineto importer's state while it reads one trace, shared by its three files:
 * kineto.c (the document, top-level fields, messages), kineto_events.c (one trace event into the
 * model) and kineto_finish.c (what can be done only once every event is in). Not for other
 * callers: they use import_kineto (import.h). */
#ifndef MMPROF_KINETO_READER_H
#define MMPROF_KINETO_READER_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "host_spans.h"
#include "region_tracker.h"
#include "trace_input.h"

typedef struct {
    uint32_t pid, tid;
    char name[128];
} named_id;

/* A cuda_sync record waiting for the API call it belongs to (known once every event is in). */
typedef struct {
    sync_kind kind;
    int64_t start_ns, end_ns;
    uint32_t stream, correlation;
} pending_sync;

typedef struct {
    const char *path; /* how messages name the trace (trace_input.name) */
    trace_input *in;
    run_model *m;
    char *err;
    size_t errlen;

    size_t index;    /* traceEvents index of the event at hand */
    uint64_t offset; /* its byte offset in the file */
    const char *text; /* its text */
    size_t text_len;

    bool have_events, mmprof_trace;
    bool failed; /* err holds the first fault; later ones do not replace it */
    char schema[32];  /* a top-level "schema" (mmprof's run files have one) */
    char keys[160];   /* the first top-level keys, to say what a file without traceEvents is */
    int nkeys;
    int64_t base_ns;

    named_id *process_names, *thread_names;
    size_t nprocess_names, nthread_names;
    uint64_t *cpu_threads; /* hash set of (pid << 32 | tid) + 1 seen on CPU events; 0 = empty */
    size_t cpu_threads_cap, ncpu_threads;
    pending_sync *pending;
    size_t npending;
    region_tracker annotations; /* record_function ranges, nested once every event is in */
    cpu_spans host_spans;       /* cpu_op and python_function events, nested once every event is in */
    size_t unnamed_copies; /* copies whose name is not in Kineto's form */
    size_t host_copies;    /* copies naming their host side "Host" (ROCm): kind unknown */
    int driver_version, runtime_version;
    /* distributedInfo (torch.distributed's rank, world size and backend); rank -1 when absent */
    int rank, world_size;
    char backend[32];
    size_t host_memory_events; /* "[memory]" events of CPU memory, left out (kineto_memory.c) */
} kineto_reader;

/* Messages: "<file>: ..." into r->err, the first fault only; each returns false. */
bool kr_fail(kineto_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A fault in the event at hand: "<file>: traceEvents[i] (byte n): ..." */
bool kr_bad_event(kineto_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool kr_no_memory(kineto_reader *r);
const char *kr_type_name(const cJSON *v); /* "a string", "an object", ... */

/* kineto_events.c: one trace event (r->index, r->offset, r->text say which) into the model. */
bool kr_read_event(kineto_reader *r, const cJSON *ev);
/* The kind of host wait a CUDA runtime or driver call is, by name; SYNC_UNKNOWN when none. */
sync_kind kr_api_sync_kind(const char *name);

/* kineto_memory.c: a "[memory]" event's args (the caching allocator's allocation or free, with
 * its own totals after it) into the model's memory, at ts for process pid's thread tid. */
bool kr_read_memory(kineto_reader *r, const cJSON *args, uint32_t pid, uint32_t tid, int64_t ts);

/* kineto_finish.c: refuses what is no PyTorch GPU trace, then links, nests and names. */
bool kr_finish(kineto_reader *r);

#endif
