/* GPU memory over time (run_model.memory): per process and device, the live bytes and their
 * peak with what was live at it, by call site and by allocator; what reserved memory and the
 * device as a whole (NVML) held; what was never freed, by call site, and whether it grew by about
 * the same amount in each instance of a repeated range (a leak per step); the time in allocation
 * calls; each range's and step's peak and growth; and at a failed allocation, the request and the
 * live set the injection library wrote then.
 *
 * Live bytes: device memory (cudaMalloc, pools, VMM, a module's static memory) handed to the
 * program and not yet freed. From CUPTI's records (mmprof profile) they are the allocations of
 * the record matched with their frees by address; an allocation made before the record (a capture
 * window opened late) is not in them. From an import whose allocator gave its own totals
 * (Kineto's "Total Allocated"), they are those totals, which count what was allocated before the
 * trace too (said as a holder of its own). Pinned and managed memory are figures of their own:
 * neither is the device's memory alone. Reserved: what the allocator holds from the driver (a
 * stream-ordered pool's size; Kineto's "Total Reserved").
 *
 * A call site is the user's line of the allocating call's host stack (host_where.h's rule, as for
 * launches: call_sites.h), joined by (pid, correlation id); an import's allocation takes the
 * innermost CPU span of its thread at its time (a python_function of with_stack=True, else the
 * aten op). Without one, the allocating library CUPTI named stands for it. */
#ifndef MMPROF_MEMORY_H
#define MMPROF_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "host_where.h"
#include "metric.h"
#include "model.h"
#include "range_groups.h"
#include "summary.h"

#define MEM_HOLDERS 6        /* holders listed per peak or failure (the rest summed as one) */
#define MEM_POINTS 400       /* a series' timeline at most: buckets of the run's span, each its maxima */
#define MEM_LEAK_MIN_STEPS 3 /* instances a repeated range needs before a leak per step is judged */
#define MEM_LEAK_STEPS_PCT 75.0 /* ... of which at least this share left bytes of the site live */
#define MEM_NAME 96

/* What held memory: one call site (or allocating library) at the peak or at a failure. */
typedef struct {
    char at[HOST_NAME];      /* "train.py:57 (train_step)"; a library without a call site
                              * ("libnccl.so.2, no call site"); "allocated before the record" */
    char allocator[MEM_NAME]; /* the library that asked ("libtorch_cuda.so"), "" not known */
    metric bytes, count;
    metric share_pct;         /* of the live bytes then */
} mem_holder;

/* One bucket of a series' timeline: the highest figures in it. */
typedef struct {
    int64_t t_ns;
    metric t_ms;               /* its start, from the run's start */
    metric live_bytes, reserved_bytes;
    metric device_used_bytes;  /* NVML: the device's memory in use by everyone */
} mem_point;

/* One process on one device. */
typedef struct {
    uint32_t pid;
    uint32_t device;
    bool device_only;          /* NVML readings of a device no recorded allocation was on (pid 0) */
    bool totals;               /* live and reserved from the allocator's own totals (an import) */
    metric peak_bytes;         /* the most live device bytes */
    metric peak_ms;            /* when first reached, from the run's start */
    int64_t peak_ns;
    char peak_in[MEM_NAME];    /* the innermost range of the process open then ("ProfilerStep#3"), "" none */
    metric reserved_peak_bytes;
    metric pinned_peak_bytes, managed_peak_bytes;
    metric end_bytes;          /* live at the record's end */
    metric allocations, frees, allocated_bytes;
    metric never_freed_bytes, never_freed_count; /* allocated in the record, not freed by its end */
    metric alloc_calls, alloc_call_ms; /* the process's allocation and free calls (API records) */
    metric failed;             /* failed allocations of the process on the device */
    metric device_used_peak_bytes, device_total_bytes; /* NVML */
    int first_holder, nholders; /* live at the peak, by call site (holders) */
    int first_lib, nlibs;       /* ... and by allocating library */
    int first_point, npoints;
} mem_series;

/* Allocations of one call site never freed, and how they grew over a repeated range. */
typedef struct {
    uint32_t pid, device;
    char at[HOST_NAME];
    char allocator[MEM_NAME];
    metric bytes, count;
    char step[RANGE_GROUP_NAME]; /* the repeated range judged ("ProfilerStep#*"), "" none */
    metric per_step_bytes;   /* median over its instances of the bytes of the site allocated in one
                              * and never freed */
    metric steps_pct;        /* instances that left some of it live */
    bool per_step;           /* a leak per step: steps_pct reached MEM_LEAK_STEPS_PCT */
} mem_leak;

/* A range's (a listed region's) or a repeated range's (a group's) memory. */
typedef struct {
    int region;              /* the model's region; -1 for a group */
    char name[RANGE_GROUP_NAME];
    uint32_t pid;
    metric instances;
    metric peak_bytes;       /* the most live bytes of its process during it (over its instances) */
    metric growth_bytes;     /* live at its end less live at its start (a group's: median instance) */
    metric growth_total_bytes; /* a group's: from its first instance's start to its last's end */
    metric growing_pct;      /* a group's: instances that ended with more live than they began */
} mem_range;

/* A failed allocation. */
typedef struct {
    uint32_t pid, tid, device;
    bool out_of_memory;      /* the error says so (cudaErrorMemoryAllocation, CUDA_ERROR_OUT_OF_MEMORY) */
    char api[64], error[64];
    char at[HOST_NAME];      /* the failed call's site, "" none */
    char in[MEM_NAME];       /* the innermost range open on its thread (else its process), "" none */
    metric requested_bytes, t_ms;
    metric live_bytes, live_count, untracked; /* the library's live set then (n/a: not written) */
    metric device_used_bytes, device_total_bytes; /* NVML's last reading before it */
    int first_holder, nholders;
} mem_failure_row;

/* A summary finding memory makes (summary.c adds them). */
typedef struct {
    finding_kind kind;
    double weight, value;     /* value in bytes */
    char text[FINDING_TEXT];
} mem_finding;

typedef struct memory_analysis {
    mem_series *series;
    int nseries;
    mem_holder *holders;
    int nholders;
    mem_point *points;
    int npoints;
    mem_leak *leaks;          /* never freed, most bytes first */
    int nleaks;
    mem_range *ranges;        /* the listed regions', then the groups' */
    int nranges;
    mem_failure_row *failures;
    int nfailures;
    mem_finding findings[3];
    int nfindings;
    char nvml_why[160];       /* the device's memory could not be read, and why ("" read or not asked) */
} memory_analysis;

struct analysis;
/* a->memory from the model's memory activity (NULL where the run has none); needs a's regions,
 * listed regions and groups. False only when memory ran out. */
bool analyze_memory(struct analysis *a);
void memory_analysis_free(memory_analysis *x);

/* Bytes in words as every output writes them ("2.15 GB"). */
void mem_bytes_words(double bytes, char *buf, size_t len);

/* memory_steps.c: the ranges' and groups' rows and the leaks' growth over repeated ranges; used by
 * analyze_memory. */
typedef struct mem_timeline mem_timeline;
bool memory_steps(struct analysis *a, memory_analysis *x, const mem_timeline *tl);

#endif
