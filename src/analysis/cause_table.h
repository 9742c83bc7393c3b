/* Where the wall-clock time went, as data: the states an instant of a run can be in, and the
 * table of causes that name what the host did while the GPU waited.
 *
 * A state is one of two kinds. GPU states: the GPU ran the process's work (computing, a
 * collective, copies by direction and host memory, memsets). Idle states: the GPU ran nothing of
 * the process, and the state says what the host did meanwhile (waiting for input, compiling,
 * importing, allocating, ...). wall_account.h gives every instant of a span exactly one state.
 *
 * The causes are rows of cause_table.c, one per cause, as perf keeps its metrics as tables: what
 * a row matches (Python frames, native frames, recorded spans such as a garbage collection or a
 * sleep, CUDA API calls, open NVTX ranges, the thread's state), the state it puts an instant in,
 * its name in the user's words and its advice. Adding a cause is one row there; cause_match.c
 * reads the rows and nothing else knows their contents.
 *
 * Patterns are fnmatch(3) globs, several separated by '|':
 *   py      "FILE:FUNCTION" against a Python frame's file path and function (qualname); without
 *           ':' the file alone ("*" /torch/utils/data/ "*" matches any function there)
 *   native  "FUNCTION@MODULE" against a native frame's symbol and its module's file name; without
 *           '@' the function alone
 *   op      a recorded span's name: an import's cpu_op or OS runtime call, the profile's garbage
 *           collections ("gc") and sleeps ("time.sleep")
 *   api     a CUDA API call's name without its version suffix ("cuModuleLoadData")
 *   range   an open NVTX range's, annotation's or built-in phase's name */
#ifndef MMPROF_CAUSE_TABLE_H
#define MMPROF_CAUSE_TABLE_H

#include <stdbool.h>

typedef enum {
    /* GPU states: the GPU ran the process's work (the first in this order wins where several ran
     * at once: a copy under a kernel is hidden by it, and the kernel is what the wall waits on) */
    WS_GPU_COLLECTIVE = 0,   /* a collective (NCCL) kernel */
    WS_GPU_COMPUTE,          /* any other kernel */
    WS_GPU_COPY_H2D_PAGEABLE,
    WS_GPU_COPY_H2D_PINNED,
    WS_GPU_COPY_D2H_PAGEABLE,
    WS_GPU_COPY_D2H_PINNED,
    WS_GPU_COPY_DEVICE,      /* device to device, peer, or another kind */
    WS_GPU_MEMSET,
    /* idle states: what the host did while the GPU ran nothing of the process */
    WS_INPUT,                /* waiting for input (a DataLoader) */
    WS_COMPILE,              /* JIT compilation, GPU code loading */
    WS_IMPORT,               /* importing Python modules */
    WS_CUDA_INIT,            /* CUDA context and library initialisation */
    WS_ALLOC,                /* allocating and freeing memory */
    WS_SYNC,                 /* the host waits on the GPU (with nothing of it running) */
    WS_LAUNCH,               /* launch calls, and the latency between kernels */
    WS_COPY_CALL,            /* in copy calls, staging pageable memory */
    WS_IO,                   /* file and network I/O */
    WS_SLEEP,                /* sleeping */
    WS_LOCK,                 /* waiting on another thread or a lock */
    WS_GC,                   /* garbage collection */
    WS_EXIT,                 /* the process exiting: the interpreter's and libraries' teardown */
    WS_CPU,                  /* computing on the host (Python, NumPy, native code) */
    WS_MMPROF,               /* mmprof's own work */
    WS_OTHER_API,            /* another CUDA call */
    WS_WAITING,              /* off the CPU, for no cause the table knows */
    WS_UNKNOWN,              /* not known: no call, no sample, no span */
    WS_UNRECORDED,           /* outside every capture window: nothing was recorded */
    WS_COUNT
} wall_state;

/* Verdict groups: the states a verdict judges together (every copy state is "copies"). */
typedef enum {
    WG_COMPUTE = 0, WG_COLLECTIVE, WG_COPIES, WG_MEMSET, WG_INPUT, WG_COMPILE, WG_IMPORT, WG_CUDA_INIT, WG_ALLOC,
    WG_SYNC, WG_LAUNCH, WG_IO, WG_SLEEP, WG_LOCK, WG_GC, WG_EXIT, WG_CPU, WG_MMPROF, WG_OTHER_API, WG_UNKNOWN,
    WG_UNRECORDED, WG_COUNT
} wall_group;

typedef struct {
    const char *key;     /* JSON and CSV: "gpu_compute", "input" */
    const char *label;   /* a table's words: "GPU idle: the host waits for input" */
    const char *brief;   /* a sentence's: "waiting for input" */
    wall_group group;
} wall_state_def;

typedef struct {
    const char *key;     /* "copies" */
    const char *verdict; /* a verdict's first words: "copy-bound" */
    const char *brief;   /* the group in a sentence: "copies" */
    const char *advice;  /* what to try where no cause row says better */
} wall_group_def;

/* What a rule asks of the thread's state where a sample recorded it. */
typedef enum { WANT_ANY = 0, WANT_RUNNING, WANT_WAITING } want_state;

/* Specific rules name a cause (a DataLoader, a compiler); generic ones only say the host computed
 * or waited there. Every specific rule of a stack is tried, outermost frame first, before any
 * generic one, so compiling that imports is compiling, and a DataLoader's queue is input. */
typedef enum { TIER_SPECIFIC = 0, TIER_GENERIC } rule_tier;

/* How a rule's evidence names more than the user's line. */
typedef enum {
    DETAIL_NONE = 0,
    DETAIL_PACKAGE, /* importing: the package imported (the first module executed inside the match) */
} rule_detail;

typedef struct {
    const char *id;      /* JSON and CSV: "dataloader" */
    wall_state state;
    const char *label;   /* users' words: "waiting for the DataLoader" */
    const char *advice;  /* NULL: the group's */
    const char *py, *native, *op, *api, *range;
    want_state want;
    rule_tier tier;
    rule_detail detail;
} cause_rule;

extern const wall_state_def wall_states[WS_COUNT];
extern const wall_group_def wall_groups[WG_COUNT];
extern const cause_rule cause_rules[];
extern const int cause_nrules;

static inline bool wall_state_gpu(wall_state s) { return s <= WS_GPU_MEMSET; }

#endif
