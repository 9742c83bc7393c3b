/* What the host was doing: `mmprof profile`'s host samples and launch call sites, an import's
 * CPU ops and Python stack events. One call tree per run (nodes per process) shared by samples,
 * spans and call sites, so a stack seen a million times is stored once.
 *
 * Kept apart from model.h's GPU events: the analysis asks different questions of it (what the
 * host did in a GPU idle stretch, which line launched a kernel), and a run without it (a built-in
 * run, an import without CPU events) carries an empty host_activity. */
#ifndef MMPROF_HOST_ACTIVITY_H
#define MMPROF_HOST_ACTIVITY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    HOST_FRAME_NATIVE = 0, /* a machine-code frame: module + offset, symbolised where possible */
    HOST_FRAME_PY = 1,     /* a Python frame: function, file, line */
    HOST_FRAME_OP = 2,     /* a named span of work an import recorded (a PyTorch cpu_op, an OS
                            * runtime call): function holds its name */
} host_frame_kind;

/* One node of the call tree: a frame with its callers. A stack is named by its innermost node. */
typedef struct {
    uint32_t pid;
    int parent;          /* index of the caller's node in host_activity.frames, -1 outermost */
    host_frame_kind kind;
    char *function;      /* owned; NULL unknown */
    char *file;          /* owned; source path (Python, or native where debug info named it); NULL unknown */
    char *module;        /* owned; native: the module's path; NULL otherwise */
    uint64_t offset;     /* native: the return address's offset in module */
    int line;            /* 0 unknown */
    /* Native, where the address lies in code inlined into another function (function, file and
     * line are then the innermost inlined scope, as addr2line names it without -i): the node that
     * names the function the code physically lies in, at its line of the outermost inlined call
     * (symbolize.c), so that a line of the user's survives an inlined launch stub. That node has
     * this frame's caller as its parent, module and offset, and is on no stack itself. 0: none (such
     * a node always comes after its frame, so it is never node 0, and a frame made without it, as
     * every importer's is, zero-initialised, has none). */
    int outer;
} host_frame;

typedef enum {
    HOST_SAMPLE_CPU = 0, /* a thread on the CPU (a CPU-time timer fired on it) */
    HOST_SAMPLE_PY = 1,  /* a wall-clock look at a thread's Python stack, running or waiting */
} host_sample_source;

/* One look at a thread: its stack at ts_ns. */
typedef struct {
    int64_t ts_ns;
    uint32_t pid, tid;
    int frame;           /* innermost node, -1: no stack */
    host_sample_source source;
    char state;          /* the kernel's state of the thread at the look: 'R', 'S', 'D'; 0 unknown */
} host_sample;

/* A span of host work an import recorded (cpu_op, python_function, OS runtime call). */
typedef struct {
    int64_t start_ns, end_ns;
    uint32_t pid, tid;
    int frame;           /* the node naming it (its callers are the spans around it) */
} host_span;

/* The host stack at a CUDA API call (launch, copy, memset, sync), by the call's correlation id. */
typedef struct {
    uint32_t pid, correlation;
    int frame;           /* innermost node */
} host_site;

/* What the injection library counted of its own collection, at each process's exit (its sitestat
 * and samplestat lines), summed over the processes that said it. */
typedef struct {
    bool has_sites;          /* some process gave a sitestat line */
    uint64_t sites_taken;    /* calls whose host stack was taken */
    uint64_t sites_skipped;  /* calls left without one, to hold the site cost to 1% of the process's time */
    uint64_t sites_off_ns;   /* time the sites' callbacks were off for it (calls then not seen) */
    bool has_looks;          /* some process gave a samplestat line (a Python program) */
    uint64_t looks_nogil;    /* Python looks made by reading memory, without the GIL */
    uint64_t looks_gil;      /* ... and under the GIL (the first; code that memory cannot name) */
    uint64_t samples_left_out; /* thread samples not written: a code object not named yet */
    uint64_t samples_torn;   /* ... nor these: torn reads (the thread moved while its frames were read) */
} host_collect_stats;

typedef struct {
    char mechanism[64];  /* how samples were taken, in words ("" none) */
    double rate_hz;      /* 0: no sampling */
    char why_not[256];   /* non-empty: sampling was off or fell back, and why */
    host_frame *frames;
    int nframes;
    host_sample *samples;
    size_t nsamples;
    host_span *spans;
    size_t nspans;
    host_site *sites;
    size_t nsites;
    char symbols_why[256]; /* non-empty: native frames were left without source lines, and why */
    host_collect_stats stats;
    struct host_naming *naming; /* native frames being named on a thread: host_names_wait */
} host_activity;

/* Appends a node (copies the strings) and returns its index, or -1 when memory ran out. */
int host_add_frame(host_activity *h, const host_frame *f);
bool host_add_sample(host_activity *h, const host_sample *s);
bool host_add_span(host_activity *h, const host_span *s);
bool host_add_site(host_activity *h, const host_site *s);
void host_activity_free(host_activity *h);

/* A profile's launcher names the native frames on a thread of their own while the analysis
 * starts (symbolize.h: up to a second of addr2line): whatever reads the frames (their names,
 * and the array itself: naming appends the outer nodes, which may move it) or symbols_why waits
 * here first. From any thread; at once when nothing is pending. */
void host_names_wait(const host_activity *h);
/* Hands h the thread that names its frames, joined by host_names_wait or host_activity_free;
 * false (nothing kept) when memory ran out. */
bool host_names_pending(host_activity *h, pthread_t thread);
/* Appends src's frames, samples, spans and sites to dst (src's frame indices shifted past dst's),
 * adds src's stats to dst's, keeps dst's mechanism, rate and reasons where it has them (else
 * src's), and empties src. Pids
 * are kept: the caller renumbers them first where two runs share one. False when memory ran out
 * (dst then holds part of src; src is emptied either way). */
bool host_activity_move(host_activity *dst, host_activity *src);
/* Adds src's counts to dst's. */
void host_stats_add(host_collect_stats *dst, const host_collect_stats *src);

/* Names in the stream and the run file; model.c holds them with the model's other names. */
const char *host_frame_kind_name(host_frame_kind k); /* "native", "py", "op" */
bool host_frame_kind_parse(const char *s, host_frame_kind *out);
const char *host_sample_source_name(host_sample_source s); /* "cpu", "py" */
bool host_sample_source_parse(const char *s, host_sample_source *out);

#ifdef __cplusplus
}
#endif

#endif
