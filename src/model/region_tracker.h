/* The one place where every source's ranges become model regions with their parent links: the
 * profile record stream (push/pop and start/end lines as the program made them), the Nsight
 * Systems export (NVTX rows with both ends known, or never ended) and the Kineto trace
 * (record_function's complete events, ts + dur, in any order). Sources only parse and hand their
 * ranges here; how ranges nest, what an unmatched pop or a range left open becomes, and what the
 * report then says about it are decided here once.
 *
 * Nesting:
 *   push/pop    on one thread; a push nests in the innermost push/pop range still open on its
 *               thread (whatever its domain); a pop closes the innermost open push of its thread
 *               and domain, as NVTX keeps one stack per thread and domain;
 *   start/end   by id, from any thread, may overlap: they hang from the run (no parent);
 *   annotation  a complete interval (Kineto's record_function): nests in the innermost range of
 *               the same style on its thread that contains it.
 * Live ranges (rt_push, rt_start) become regions when they open, in the order the source saw
 * them; complete ones (rt_interval) when rt_finish runs, ordered by thread and start (nesting ones
 * first, the enclosing before the enclosed), whatever order they came in.
 *
 * What is said (a warning each, naming the label rt_finish is given): pops and ends that match no
 * open range (ignored), ranges never ended (closed at the latest time the tracker saw, which the
 * source feeds with rt_saw), intervals that end before they start (left out) and live ranges
 * whose close came before their open (given zero length). */
#ifndef MMPROF_REGION_TRACKER_H
#define MMPROF_REGION_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef enum {
    RANGE_PUSH_POP,   /* NVTX push/pop: nests on its thread (REGION_NVTX, push_pop set) */
    RANGE_START_END,  /* NVTX start/end: may overlap anything, no parent (REGION_NVTX) */
    RANGE_ANNOTATION, /* a PyTorch record_function range: nests on its thread (REGION_ANNOTATION) */
} range_style;

/* rt_interval's end for a range that was never ended. */
#define RT_OPEN_END INT64_MIN

/* A range with both ends known, or RT_OPEN_END. */
typedef struct {
    range_style style;
    const char *name, *domain; /* copied; domain NULL for the default domain */
    uint32_t pid, tid;
    int64_t start_ns, end_ns;
} rt_range;

/* An open live range: a push (by thread and domain) or a start (by process and id). */
typedef struct {
    bool push;
    uint32_t pid, tid;
    uint64_t id;
    int region; /* its index in the model */
} rt_open;

typedef struct {
    run_model *m;
    rt_open *open;
    size_t nopen, capopen;
    rt_range *ranges; /* complete intervals waiting for rt_finish (names and domains owned) */
    size_t nranges, capranges;
    int64_t latest;   /* the latest time seen: where ranges never ended are closed */
    size_t unmatched, never_ended, backwards_left_out, backwards_clamped;
    bool oom;
} region_tracker;

void rt_init(region_tracker *t, run_model *m);
void rt_free(region_tracker *t);

/* A time the source recorded (an event's end, a line's timestamp): ranges never ended close at
 * the latest of these and of the ranges' own times. */
void rt_saw(region_tracker *t, int64_t ns);

/* Live ranges, in the order the source made them. Each returns false when memory ran out. */
bool rt_push(region_tracker *t, uint32_t pid, uint32_t tid, const char *domain, const char *name, int64_t ns);
bool rt_pop(region_tracker *t, uint32_t pid, uint32_t tid, const char *domain, int64_t ns);
bool rt_start(region_tracker *t, uint32_t pid, uint32_t tid, uint64_t id, const char *domain, const char *name,
              int64_t ns);
bool rt_end(region_tracker *t, uint32_t pid, uint64_t id, int64_t ns);

/* A complete interval (or one never ended: end_ns RT_OPEN_END), in any order. false when memory
 * ran out. */
bool rt_interval(region_tracker *t, const rt_range *r);

/* Closes what is still open at the latest time seen, nests and adds the complete intervals, and
 * adds a warning per thing to say, each starting "label: ". Call once, after the source's last
 * range; false when memory ran out. */
bool rt_finish(region_tracker *t, const char *label);

#endif
