/* What each source of a run is (model.h's run_source), one row per source in source.c: its name
 * in the run file and in a reader's words, what recorded its events, what its API calls are
 * called, and which groups of figures it can have; for a group it cannot have, why not, which the
 * analysis gives as the figures' reason ("n/a: why").
 *
 * Every layer asks the row (source_of, source_has, source_why_not) rather than testing a
 * run_source, and report/ never names one: a new source is its value in model.h's run_source and
 * its row in source.c's table, and every output then names it, and leaves out or explains what it
 * lacks, from the row. */
#ifndef MMPROF_SOURCE_H
#define MMPROF_SOURCE_H

#include <stdbool.h>

#include "model.h"

/* Groups of figures a source may be unable to have. */
typedef enum {
    /* mmprof's built-in workloads: each product timed and verified, the fastest copies and pinned
     * against pageable, the ladder, the BLAS and sampling settings, the matrix size, mmprof's own
     * phases; a run of them draws its workloads' timelines and rooflines, any other run its events
     * and its launches. */
    HAS_WORKLOADS = 0,
    /* mmprof's own CUPTI collection's account of itself: records dropped, the final flush. */
    HAS_COLLECTION,
    /* mmprof's host sampler and call sites: samples, rates, call sites skipped, Python looks. */
    HAS_HOST_SAMPLES,
    /* CUDA API calls: launch and synchronisation times, the API tables. */
    HAS_API_CALLS,
    /* When the GPU work ran: a timeline, its wall-time account, its timed sections and verdicts (an
     * Nsight Compute export has each launch's counters, not when it ran). */
    HAS_TIMELINE,
    HAS_COUNT
} source_figs;

typedef struct {
    run_source source;    /* the row's own value: source_descs[s].source == s */
    const char *key;      /* in the run file ("kineto"): run_source_name */
    const char *name;     /* in a reader's words, before the file it came from: a report's title */
    const char *one;      /* one file of it in a sentence ("a PyTorch profiler trace") */
    const char *recorder; /* what recorded its events, in "as the ... recorded them" */
    const char *api_calls; /* what its API calls are called, as a heading names them */
    const char *why_not[HAS_COUNT]; /* NULL: it can have the group; else why it cannot */
} source_desc;

extern const source_desc source_descs[SOURCE_COUNT];

/* The row of s; a value outside the table gets the built-in run's (as run_source_name always has
 * named one "builtin"). */
const source_desc *source_of(run_source s);
/* Whether a run of source s can have the figures of group f. */
bool source_has(run_source s, source_figs f);
/* Why it cannot, NULL where it can. */
const char *source_why_not(run_source s, source_figs f);

#endif
