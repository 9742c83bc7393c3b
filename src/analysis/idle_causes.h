/* Why the GPU waits: each idle stretch of a GPU explained by what the host was doing meanwhile,
 * from the records the run already holds (no host sampling): the CUDA runtime and driver calls in
 * progress on any thread (CUPTI's API records, Kineto's cuda_runtime and cuda_driver events, an
 * nsys export's runtime table all land in the store as API calls), the synchronization records,
 * and the NVTX ranges and annotations open during it. What no CUDA call covers is "host busy
 * outside CUDA": Python, a JIT compiler outside the driver (numba's NVVM), data loading.
 *
 * A call's cause is read from its name (idle_cause_of_name), with two facts the name lacks: a
 * memcpy whose copy (same process and correlation id) had pageable host memory is a pageable copy,
 * and a process's first allocation or set-up runtime call (cudaMalloc, cudaFree, cudaHostAlloc,
 * cudaSetDevice, cudaStreamCreate, ...) lasting IDLE_LAZY_CONTEXT_NS or more, before any explicit
 * context call of that process, is context creation (the runtime creates its context lazily inside
 * the first call that needs one). Where calls
 * of several threads overlap, the time goes to one cause, the first in enum order: a module being
 * loaded explains a wait better than another thread's cudaGetDevice.
 *
 * The idle breakdown (per region, in the spirit of Holistic Trace Analysis's idle time
 * breakdown): every idle nanosecond of the region's span in exactly one cause, so the causes sum
 * to its idle time; a stretch between GPU work shorter than IDLE_BETWEEN_KERNELS_NS is the launch
 * path's own latency ("between kernels", HTA's kernel wait), not the host's doing. */
#ifndef MMPROF_IDLE_CAUSES_H
#define MMPROF_IDLE_CAUSES_H

#include <stdint.h>

#include "metric.h"
#include "model.h"

typedef enum {
    IDLE_BETWEEN_KERNELS = 0, /* a short stretch between GPU work: launch latency */
    IDLE_MODULE_LOAD,         /* module loading, lazy kernel loading, JIT (cuModuleLoad*, cuLibraryLoad*, nvrtc) */
    IDLE_CONTEXT,             /* context creation and teardown (cuDevicePrimaryCtxRetain, lazy: see above) */
    IDLE_ALLOC,               /* memory allocation and freeing, pinning host memory */
    IDLE_PAGEABLE_COPY,       /* a copy from or to pageable host memory (staged by the driver on the host) */
    IDLE_SYNC,                /* the host waits on the GPU: the gap is not the host's doing */
    IDLE_OTHER_API,           /* any other CUDA call */
    IDLE_HOST_BUSY,           /* no CUDA call in progress: the host was busy outside CUDA */
    IDLE_NCAUSES
} idle_cause;

/* "between_kernels", "module_load", "context", "alloc", "pageable_copy", "sync", "other_api",
 * "host_busy": the JSON and CSV name. */
const char *idle_cause_key(idle_cause c);
/* "module loading / JIT compilation", ...: the words a report uses. */
const char *idle_cause_label(idle_cause c);
/* The cause a call's name alone says ("cuModuleLoadData", "cudaMemcpy_v3020", Kineto's plain
 * "cudaDeviceSynchronize"); IDLE_OTHER_API for any other CUDA call. */
idle_cause idle_cause_of_name(const char *name);

/* Every host call of a run, classified, and the timeline painted with the strongest cause in
 * progress at each instant: any stretch splits into causes in O(log calls + pieces). */
typedef struct host_causes host_causes;
/* by_start: host_calls_by_start's order of m's calls, or NULL (sorted here). NULL when memory
 * ran out, or for a run of more than 2^32 calls. */
host_causes *host_causes_build(const run_model *m, const size_t *by_start);
/* The run's host calls in order of start, stably, each an index: below s->napis an API call,
 * else the synchronization record i - s->napis. The regions' timeline and the causes both walk
 * them so, sorted once (a long run's millions of calls). NULL when memory ran out. */
size_t *host_calls_by_start(const event_list *s);
/* Host call k of that numbering: its API call (NULL for a synchronization record), its
 * synchronization record (for k at or past s->napis), its span. */
static inline const api_event *host_call_api(const event_list *s, size_t k)
{
    return k < s->napis ? &s->apis[k] : NULL;
}
static inline const sync_event *host_call_sync(const event_list *s, size_t k) { return &s->syncs[k - s->napis]; }
static inline int64_t host_call_start(const event_list *s, size_t k)
{
    return k < s->napis ? s->apis[k].start_ns : host_call_sync(s, k)->start_ns;
}
static inline int64_t host_call_end(const event_list *s, size_t k)
{
    return k < s->napis ? s->apis[k].end_ns : host_call_sync(s, k)->end_ns;
}
void host_causes_free(host_causes *h);
/* Adds to by[] the time of [start, end) under each cause; what no call covers goes to
 * IDLE_HOST_BUSY. */
void host_causes_split(const host_causes *h, int64_t start, int64_t end, int64_t by[IDLE_NCAUSES]);
/* The cause painted at instant t: IDLE_HOST_BUSY where no call was in progress. */
idle_cause host_causes_at(const host_causes *h, int64_t t);
/* Of the calls of cause c inside [start, end), the name (without its version suffix) whose calls
 * have the most time there, summed: that time (0 when none), the name in name and the calls in
 * *count: what an explanation names ("cuModuleLoadData 900 ms", "cudaHostAlloc x4 31 ms"). */
int64_t host_causes_top_call(const host_causes *h, int64_t start, int64_t end, idle_cause c, char *name,
                             size_t len, int *count);

/* Where an idle stretch lies in its span. */
typedef enum { STRETCH_LEAD = 0, STRETCH_BETWEEN, STRETCH_TAIL } stretch_where;
const char *stretch_where_name(stretch_where w); /* "before", "between", "after" */

/* One idle stretch explained: what the verdict's advice says about its span's largest one. */
typedef struct {
    bool known;              /* false: not explained (no stretch, or no API records at all) */
    stretch_where where;
    double ms;               /* the stretch */
    idle_cause cause;        /* the cause with most of its time */
    double cause_ms;
    char call[64];           /* the call of that cause with most time in it ("" for host busy) */
    int call_count;          /* calls of that name in it */
    double call_ms;          /* their time in it */
    char next[96];           /* the GPU work that ended it (a kernel's readable name), "" if none */
    /* Where the host was (host_idle.h's host_explain, from host samples or CPU spans): host_seen,
     * its words ("in numba.core.compiler (compile_extra) 87% of 900 Python wall-clock samples");
     * else, where non-empty, why nothing was seen ("no host samples: sampling off (...)"). */
    bool host_seen, host_waited;
    char host[256];
} idle_explained;

/* Explains [start, end): its causes, the largest, its call; next may be NULL. */
void idle_explain(const host_causes *h, int64_t start, int64_t end, stretch_where where, const char *next,
                  idle_explained *out);

#define IDLE_GAP_CALLS 3  /* calls named per listed stretch */
#define IDLE_GAP_RANGES 3 /* open ranges named per listed stretch */
#define IDLE_GAPS_MAX 50  /* listed stretches at most (the rest are counted) */

typedef struct {
    char name[64]; /* the call's name without its version suffix; the calls of one name, cause and
                    * thread summed */
    uint32_t pid, thread;
    int count;
    idle_cause cause;
    metric ms;     /* their time inside the stretch */
} idle_call;

/* One idle stretch of one GPU over the run (analysis.idle_gaps). */
typedef struct {
    uint32_t device;
    stretch_where where;
    int64_t start_ns, end_ns;
    metric start_ms;          /* from the run's start */
    metric ms;                /* its length */
    metric by[IDLE_NCAUSES];  /* its time by cause (they sum to ms) */
    idle_cause cause;         /* the cause with most of it */
    metric cause_pct;         /* that cause's share of it */
    idle_call calls[IDLE_GAP_CALLS]; /* the calls with most time inside it */
    int ncalls;
    int open_ranges[IDLE_GAP_RANGES]; /* NVTX ranges and annotations open during it (region indices),
                                       * those covering most of it first */
    int nranges;
    char next[96];            /* the GPU work that ended it, "" after the last */
} idle_stretch;

/* Per device, the stretches of the run with nothing on the GPU (before its first work, between,
 * after its last), those of IDLE_GAP_LIST_NS or more and always the IDLE_GAP_ALWAYS longest,
 * longest first, at most IDLE_GAPS_MAX (*unlisted: how many more passed the threshold). False
 * only when memory ran out. */
bool idle_stretches(const run_model *m, const host_causes *h, idle_stretch **out, int *nout, int *unlisted);

/* One cause's part of a span's idle time (region_metrics.idle). */
typedef struct {
    metric ms;        /* idle time under this cause */
    metric share_pct; /* of the span's idle time */
} idle_share;

/* The breakdown of a span: each idle stretch of it added (a stretch between GPU work shorter than
 * IDLE_BETWEEN_KERNELS_NS goes to IDLE_BETWEEN_KERNELS, any other is split by host_causes_split),
 * then the sums made shares of their total, which is the span's idle time. */
void idle_breakdown_add(const host_causes *h, int64_t start, int64_t end, stretch_where where,
                        int64_t by[IDLE_NCAUSES]);
void idle_breakdown_finish(const int64_t by[IDLE_NCAUSES], idle_share out[IDLE_NCAUSES]);
/* Every share n/a for the reason why (no GPU work in the span). */
void idle_breakdown_na(idle_share out[IDLE_NCAUSES], const char *why);

#endif
