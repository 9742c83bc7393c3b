/* What the run allocated: every allocation and free of device, pinned-host and managed memory as
 * CUPTI's memory records saw them (`mmprof profile`), or as PyTorch's profiler recorded its caching
 * allocator ("[memory]" events of a Kineto trace); the memory pools' own records; each allocation
 * that failed, with the live set the injection library held at that moment; and the device's
 * used and total memory over time from NVML.
 *
 * Kept apart from model.h's events, as host_activity.h is: the analysis asks other questions of it
 * (what was live when, who held it, what was never freed), and a run without it (a built-in run,
 * an import without memory events, a profile under --no-memory) carries an empty one. Host call
 * sites of allocations are host_activity's sites, joined by (pid, correlation). */
#ifndef MMPROF_MEMORY_ACTIVITY_H
#define MMPROF_MEMORY_ACTIVITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { MEMOP_ALLOC = 0, MEMOP_FREE = 1 } mem_op;

/* One allocation or free. kind numbers memory as model.h's mem_kind (CUPTI's memory kinds). */
typedef struct {
    int64_t ts_ns;
    uint64_t address;
    uint64_t bytes;
    uint64_t pool;            /* the stream-ordered pool it came from (its address); 0: not a pool's */
    int64_t pool_size;        /* that pool's size at the time (CUPTI); -1 not given */
    int64_t total_allocated;  /* the allocator's own total after it (Kineto's "Total Allocated"); -1 not given */
    int64_t total_reserved;   /* ... and what it reserved from the driver ("Total Reserved"); -1 not given */
    uint32_t pid, tid;        /* tid 0: not recorded (CUPTI's records carry none: the call's thread has it) */
    uint32_t device, stream, correlation; /* correlation 0: none (imports) */
    int allocator;            /* index into names: the library that asked, as CUPTI names it, or
                               * "PyTorch" (Kineto); -1 not known */
    uint8_t op;               /* mem_op */
    uint8_t kind;             /* mem_kind */
} mem_event;

typedef enum { MEMPOOL_CREATED = 0, MEMPOOL_DESTROYED = 1, MEMPOOL_TRIMMED = 2 } mem_pool_op;

/* A memory pool created, destroyed or trimmed (CUPTI's memory-pool records). */
typedef struct {
    int64_t ts_ns;
    uint32_t pid, device, correlation;
    uint8_t op;               /* mem_pool_op */
    bool managed;             /* a pool of managed memory (else device) */
    uint64_t address;
    uint64_t size;            /* the pool's size after the operation */
    uint64_t utilized;        /* the bytes of it in use */
    uint64_t release_threshold;
} mem_pool_event;

/* One group of the live set at a failed allocation: the allocations of one call site, device and
 * kind the injection library held then. */
typedef struct {
    int frame;                /* the host call tree's node of the allocating call; -1 not known */
    uint32_t device;
    uint8_t kind;             /* mem_kind */
    uint64_t count, bytes;
} mem_live_group;

/* An allocation call that failed (out of memory, most often), from the call's return in the
 * library's callback, with the live set it held at that moment, written before the program could
 * die of the error. */
typedef struct {
    int64_t ts_ns;
    uint32_t pid, tid, device, correlation;
    uint8_t kind;             /* mem_kind asked for */
    uint64_t bytes;           /* asked for */
    int error;                /* the call's CUDA error code */
    int api;                  /* index into names: the call ("cudaMalloc") */
    int error_name;           /* index into names ("cudaErrorMemoryAllocation"); -1 not known */
    bool has_live;            /* the live set below was written */
    uint64_t live_count, live_bytes; /* every allocation the library held */
    uint64_t untracked;       /* allocations it could not hold (its table was full): the live set
                               * is short of them */
    int first_live, nlive;    /* its groups in memory_activity.live */
} mem_failure;

/* The device's memory as NVML saw it, everyone's allocations together. */
typedef struct {
    int64_t ts_ns;
    uint32_t pid;             /* the process that read it */
    uint32_t device;
    uint64_t used, total;
} mem_sample;

typedef struct {
    char **names;             /* owned; allocators, calls and error names, each once */
    int nnames;
    mem_event *events;        /* in the order recorded (spill.h's: a trace may hold millions) */
    size_t nevents;
    mem_pool_event *pools;
    int npools;
    mem_failure *failures;
    int nfailures;
    mem_live_group *live;
    int nlive;
    mem_sample *samples;
    size_t nsamples;
    char nvml_why[160];       /* non-empty: the device's memory could not be read, and why */
} memory_activity;

/* Whether m holds anything: a run without memory data shows no memory section. */
bool memory_any(const memory_activity *m);
/* The index of name in m->names, added when new; -1 when memory ran out (or name is NULL). */
int memory_name(memory_activity *m, const char *name);
/* m->names[i], or NULL for -1 (or out of range). */
const char *memory_name_of(const memory_activity *m, int i);
bool memory_add_event(memory_activity *m, const mem_event *e);
bool memory_add_pool(memory_activity *m, const mem_pool_event *p);
bool memory_add_failure(memory_activity *m, const mem_failure *f);
/* Appends a live-set group to the last failure (which must exist). */
bool memory_add_live(memory_activity *m, const mem_live_group *g);
bool memory_add_sample(memory_activity *m, const mem_sample *s);
void memory_activity_free(memory_activity *m);
/* Appends src to dst: src's names re-indexed into dst's, its live groups' frames shifted by
 * frame_base (the host call tree's nodes moved before them), then src emptied. False when memory
 * ran out. */
bool memory_activity_move(memory_activity *dst, memory_activity *src, int frame_base);

/* Names in the stream and the run file. */
const char *mem_op_name(mem_op op); /* "alloc", "free" */
bool mem_op_parse(const char *s, mem_op *out);
const char *mem_pool_op_name(mem_pool_op op); /* "created", "destroyed", "trimmed" */
bool mem_pool_op_parse(const char *s, mem_pool_op *out);

#ifdef __cplusplus
}
#endif

#endif
