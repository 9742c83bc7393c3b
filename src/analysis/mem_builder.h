/* What memory.c hands memory_steps.c: every device allocation of the record with its call site and
 * when it was freed, and each process's live device bytes over time, all its devices together. */
#ifndef MMPROF_MEM_BUILDER_H
#define MMPROF_MEM_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "memory.h"
#include "model.h"

#define MEM_NEVER INT64_MAX /* freed_ns of an allocation never freed in the record */

typedef struct {
    const mem_event *e;
    int64_t freed_ns;  /* MEM_NEVER: never freed */
    int site;          /* index into the timeline's sites */
    int series;        /* index into memory_analysis.series */
} mem_alloc;

typedef struct {
    char at[HOST_NAME];
    char allocator[MEM_NAME];
} mem_site;

/* A process's live device bytes: live[i] from t[i] on, times ascending; block_max[b] the most of
 * entries [b * MEM_BLOCK, (b + 1) * MEM_BLOCK), for the most in a range without a scan of all. */
#define MEM_BLOCK 256
typedef struct {
    uint32_t pid;
    int64_t *t, *live;
    size_t n;
    int64_t initial; /* before t[0] */
    int64_t *block_max;
} mem_pid_line;

struct mem_timeline {
    mem_alloc *allocs;  /* device allocations of the record, by time */
    size_t nallocs;
    mem_site *sites;
    int nsites;
    mem_pid_line *pids;
    int npids;
};

const mem_pid_line *mem_pid_of(const mem_timeline *tl, uint32_t pid);
/* Live bytes at t (after every change at t; 0 before the first). */
int64_t mem_live_at(const mem_pid_line *p, int64_t t);
/* The most live bytes over [start, end]. */
int64_t mem_max_in(const mem_pid_line *p, int64_t start, int64_t end);


/* ---------- between the files of the memory analysis ---------- */

/* Call sites (memory_sites.c): each allocation's user line, else its thread's CPU span's (an
 * import), else its library with no call site; each distinct site once in the timeline. */
typedef struct {
    const run_model *m;
    struct mem_timeline *tl;
    const host_site **sites; /* sorted (host_where.h) */
    size_t *spans;           /* span indices by (pid, tid, start) */
    int *by_frame;           /* frame -> site, -1 not yet */
    int *by_lib;             /* allocator (names + 1) -> site of no call site, -1 not yet */
    bool oom;
} site_ctx;
bool mem_sites_init(site_ctx *c, const run_model *m, struct mem_timeline *tl);
void mem_sites_free(site_ctx *c);
int mem_site_of(site_ctx *c, const mem_event *e);
int mem_add_site(site_ctx *c, const char *at, const char *lib); /* -1 when memory ran out */

/* One series' walk: every change of its live and reserved device bytes, in time order. */
typedef struct {
    int64_t *t, *live, *reserved;
    size_t n;
    int64_t initial; /* live before the first change: an allocator's total before its first event */
} steps;
void mem_steps_free(steps *s);

/* What the analysis builds as it goes. */
typedef struct {
    const run_model *m;
    memory_analysis *x;
    struct mem_timeline tl;
    site_ctx sc;
    size_t *order;       /* memory events by (series, time) */
    int *series_of;      /* each event's series, -1 none */
    steps *walk;         /* per series */
    int64_t run_start, run_end;
} builder;

/* Site s's bytes and allocations (s -2: what an allocator's own total holds beyond the record's). */
typedef struct {
    int site;
    int64_t bytes, count;
} tally;

/* memory_series.c: walks series si (order[from, to)); what was live at its peak; what was never
 * freed; holders from tallies (sorted there), the first MEM_HOLDERS - 1 and the rest as one. */
bool mem_walk_series(builder *b, int si, size_t from, size_t to);
bool mem_peak_holders(builder *b, int si);
bool mem_never_freed(builder *b);
bool mem_add_holders(builder *b, tally *t, int n, int64_t total, bool lib, int *first, int *count);

/* memory_lines.c: each process's allocation calls; the device's readings sorted by (device, time)
 * (indices); series si's timeline; each process's line of live bytes. */
bool mem_alloc_calls(builder *b);
size_t *mem_sorted_samples(const memory_activity *mem);
bool mem_series_timeline(builder *b, int si, const size_t *samples);
bool mem_pid_lines(builder *b);

static inline double mem_ms_from(int64_t t, int64_t start) { return (double)(t - start) / 1e6; }
/* Device memory: what live bytes count (an unknown kind is CUPTI's rare record of the device's). */
static inline bool mem_device_kind(int k) { return k == MEM_DEVICE || k == MEM_ARRAY || k == MEM_UNKNOWN; }

#endif
