/* Where the wall-clock time went: every instant of a process's time in exactly one state
 * (cause_table.h), so the states of any span sum to its wall.
 *
 * Built once per run (wall_timeline_build), per accounted process: the processes whose work ran on
 * a GPU (each rank of a job on its own, never over the union of their GPUs), else the run's first.
 * Each instant of a process's span is, in this order of precedence:
 * - a GPU state where the GPU ran the process's work (kernels, copies, memsets; of several at
 *   once the first state in enum order: a copy under a kernel is hidden by it), with whether the
 *   process's accounted thread was meanwhile in a synchronising call (it waits on the GPU) or not
 *   (it runs ahead);
 * - otherwise an idle state, from what the host did, asked in this order:
 *   1. outside every capture window of the process: not recorded;
 *   2. a stretch between GPU work of 10 us or less: launch latency (the host's view of it, and
 *      its evidence, still asked of the layers below: in the launch call, at the user's line);
 *   3. a CUDA call of the accounted thread in progress (exact: the call's row);
 *   4. an open range a row names (the built-in run's own phases, a loader's annotation);
 *   5. a recorded span of the thread (an import's CPU ops, the profile's garbage collections and
 *      sleeps), named by its stack;
 *   6. the thread's nearest host sample, where a specific row names its stack (a Python sample,
 *      with a specific row of a CPU sample inside its reach standing in for a generic one);
 *   7. a CUDA call of another thread of the process in progress (the backward pass's thread);
 *   8. the nearest sample's generic row (computing at a line, waiting at a line);
 *   9. not known, or, where only CPU samples were taken and none fell near, off the CPU.
 * The accounted thread is the process's main thread (its thread id is its pid) where it has host
 * samples or calls, else the thread with the most of them: the one whose wait keeps the GPU idle.
 * A sample stands for the instants nearer to it than to the thread's next and previous samples,
 * at most one sampling period away.
 *
 * Each instant's evidence (its row, the user's line and the library entry it called, the CUDA
 * call) is kept too, so an account says why, not only what. */
#ifndef MMPROF_WALL_ACCOUNT_H
#define MMPROF_WALL_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "cause_match.h"
#include "cause_table.h"
#include "model.h"

/* What decided a state, in wall_account.h's order. */
typedef enum { EV_NONE = 0, EV_GPU, EV_CALL, EV_RANGE, EV_SPAN, EV_SAMPLE } evidence_from;

/* Why instants were put in a state. */
typedef struct {
    uint8_t state;     /* wall_state */
    uint8_t host_wait; /* a GPU state: the accounted thread was in a synchronising call */
    uint8_t from;      /* evidence_from */
    int16_t rule;      /* the cause row, -1 none (a GPU state with the thread running ahead) */
    int32_t user, via, detail; /* host frame nodes (cause_hit's), -1 none */
    const char *call;  /* the CUDA call's stored name where a call decided, NULL otherwise */
} wall_evidence;

typedef struct wall_timeline wall_timeline;

/* NULL when memory ran out. causes: the run's host calls in order of start
 * (host_calls_by_start), or NULL to sort them here. */
wall_timeline *wall_timeline_build(const run_model *m, const size_t *calls_by_start);
void wall_timeline_free(wall_timeline *t);

/* The accounted processes, and process pid's index among them (-1: not accounted). */
int wall_processes(const wall_timeline *t);
uint32_t wall_process_pid(const wall_timeline *t, int i);
uint32_t wall_process_thread(const wall_timeline *t, int i); /* its accounted thread (0: none known) */
void wall_process_span(const wall_timeline *t, int i, int64_t *start, int64_t *end);
int wall_process_of(const wall_timeline *t, uint32_t pid);
/* Whether process i had host samples to name its idle time with. */
bool wall_process_sampled(const wall_timeline *t, int i);

const wall_evidence *wall_evidence_of(const wall_timeline *t, uint32_t id);

/* The host's causes an account sums: one per cause row, and one (index 0) for none known. */
#define WALL_HOST_CAUSES 65

/* A span's states summed. */
typedef struct {
    int64_t wall_ns;
    int64_t outside_ns;        /* of wall_ns, outside the process's span (counted not known) */
    int64_t ns[WS_COUNT];
    int64_t wait_ns[WS_COUNT]; /* GPU states: of ns, the thread waited in a synchronising call */
    int samples[WS_COUNT];     /* the accounted thread's samples at instants of each state */
    uint32_t top[WS_COUNT];    /* the evidence with most time in each state (UINT32_MAX: none) */
    int64_t top_ns[WS_COUNT];
    uint32_t top_wait[WS_COUNT]; /* GPU states: the one with most time of those the thread waited in */
    int64_t top_wait_ns[WS_COUNT];
    /* The host's view: every instant by what the accounted thread did (its cause row, index rule +
     * 1; 0 where none is known), whatever the GPU did meanwhile; their top evidence. */
    int64_t host_ns[WALL_HOST_CAUSES];
    uint32_t host_top[WALL_HOST_CAUSES];
    int64_t host_top_ns[WALL_HOST_CAUSES];
} wall_sums;

/* Per-evidence sums, for the top evidence of each state over one or several spans. */
typedef struct wall_scratch wall_scratch;
wall_scratch *wall_scratch_new(const wall_timeline *t); /* NULL when memory ran out */
void wall_scratch_free(wall_scratch *x);

/* Adds process i's instants in [start, end) to x's per-evidence sums, and the span's wall time and
 * samples to s (s zeroed first by the caller). The states' and causes' times are summed from x by
 * wall_sums_finish, once the account's spans are all added. */
void wall_sum(const wall_timeline *t, int i, int64_t start, int64_t end, wall_sums *s, wall_scratch *x);
/* s's states, causes and tops from what x summed, x emptied for the next account. */
void wall_sums_finish(const wall_timeline *t, wall_scratch *x, wall_sums *s);

#endif
