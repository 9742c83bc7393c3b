/* Figures of any region of any timeline: the whole run, a built-in workload or phase, an NVTX
 * range, a PyTorch annotation. Computed from events alone, so they mean the same for mmprof's
 * own runs, imported traces and profiled programs.
 *
 * Two rules, each figure saying which it follows:
 * - launched from inside (counts, kernel and copy times, the kernel table, the GPU projection): a
 *   kernel, copy or memset belongs to an NVTX range or annotation when the API call that launched
 *   it (same process and correlation id) was made while the range was open, by the range's own
 *   thread, or by another thread of its process that had no range of its own open then
 *   (PyTorch's autograd thread launches the backward pass while the main thread's step is open;
 *   a loader thread with ranges of its own keeps its work to them); it belongs even when the GPU
 *   ran it after the range closed. A GPU event whose launching call is not in the timeline is
 *   attributed by its own start time and counted in by_time. API calls and synchronization
 *   belong by their start, the same way. A built-in workload owns the events the collector gave
 *   it, its phases those inside them.
 * - executed during (busy %, idle stretches, the verdict): what the GPU ran between the region's
 *   start and end, whoever launched it, as Holistic Trace Analysis windows a step. */
#ifndef MMPROF_REGIONS_H
#define MMPROF_REGIONS_H

#include "idle_causes.h"
#include "metric.h"
#include "model.h"
#include "verdict.h"

/* One kernel name within a region. */
typedef struct {
    const char *name; /* points into the model */
    int count;
    metric total_ms, share_pct, min_ms, median_ms, max_ms, stddev_ms;
    metric mean_ms;
    int grid[3], block[3];
    bool has_resources;
    int registers, static_smem, dynamic_smem;
    metric occupancy_pct;
    int active_blocks;
    char limiter[32];
} kernel_stat;

/* One CUDA API call name (without its version suffix) within a region, as nsys stats lists them. */
typedef struct {
    char name[64];
    int count;
    metric total_ms, share_pct, median_us, min_us, max_us;
} api_stat;


#define REGION_MAX_GAPS 3

typedef struct {
    int region; /* index into the model's regions */
    int nkernels, ncopies, nmemsets, napis, nlaunches, nsyncs;
    int by_time; /* GPU events attributed by time (no launching call in the timeline) */
    metric wall_ms;       /* the region's own span: from its start to its end */
    metric kernel_ms;     /* summed kernel durations of its work (launched from inside, attributed above) */
    metric memcpy_ms, memset_ms;
    metric memset_bytes;  /* bytes the memsets launched from inside set */
    metric h2d_ms, h2d_bytes, h2d_gbps;
    metric d2h_ms, d2h_bytes, d2h_gbps;
    metric copy_compute_ratio; /* memcpy time over kernel time */
    /* Overlap (overlap.h): of its copy time, the part a kernel ran during on the same GPU (copies
     * hidden under compute, whoever launched the kernel); of its kernel time, the part a copy ran
     * during. Per direction and memory kind in its flows. */
    metric copy_hidden_pct, kernel_hidden_pct;
    /* Its work projected onto the GPU (Nsight Systems' NVTX GPU projection): from the first of its
     * kernels, copies and memsets to start to the last to end, and how busy the GPU was with it. */
    metric gpu_span_ms, projected_busy_pct;
    /* Executed during its span (HTA's per-step window): the GPU work of its process that ran
     * between its start and its end, whoever launched it (the run: everything; a built-in workload
     * or phase: its own work). The verdict is judged on these. */
    metric gpu_busy_ms;   /* union of those kernel, copy and memset intervals inside the span */
    metric busy_pct;      /* that over wall_ms */
    metric kernel_during_ms; /* kernel time inside the span */
    metric lead_idle_ms;  /* from its start to the first GPU work in it (start-up, compilation, loading) */
    metric tail_idle_ms;  /* from the last GPU work in it to its end */
    metric largest_gap_ms; /* the longest idle stretch between GPU work inside the span */
    idle_gap gaps[REGION_MAX_GAPS]; /* those stretches, largest first (lead and tail apart) */
    int ngaps;
    /* Its idle time (wall_ms - gpu_busy_ms) by cause (idle_causes.h): the shares sum to 100%. */
    metric idle_ms;
    idle_share idle[IDLE_NCAUSES];
    idle_explained idle_why; /* the stretch the verdict names (its lead or largest gap), explained */
    metric launch_us;     /* median time of the API calls that launched kernels */
    metric kernel_us;     /* median kernel duration */
    metric short_kernel_pct; /* kernels shorter than 10 us, % of launches */
    metric sync_ms;       /* host time in synchronization */
    metric api_ms;        /* host time in CUDA API calls */
    metric tflops;        /* where the region carries a FLOP count (built-in workloads) */
    copy_flow *flows;     /* copies by direction and host memory, then memsets by memory */
    int nflows;
    kernel_stat *kernels; /* by total time, longest first */
    int nkstats;
    api_stat *apis;       /* API calls by total time, longest first */
    int napistats;
    verdict_kind verdict;   /* verdict.h */
    char verdict_text[VERDICT_TEXT]; /* the figure that decided it */
    char advice[VERDICT_TEXT];       /* one line: what to try */
} region_metrics;

/* The regions are shared out among at most this many threads (the processors there are, and one
 * per 64 regions); tests change it. */
#define REGION_THREADS 4
extern int region_threads;

/* The CUDA API calls and synchronizations a run may have for its regions to be analysed: 2^30,
 * a billion (their timeline keeps each in 30 bits). Several hours of a training loop's, whose
 * analysis would need over 100 GB anyway; a capture window is the way to report on such a run. */
#define REGIONS_HOST_CALLS_MAX ((size_t)1 << 30)

/* Computes every region's figures; false only when memory ran out (or the run has more than
 * REGIONS_HOST_CALLS_MAX calls, which analysis_fits says first). */
bool analyze_regions(const run_model *m, region_metrics **out, int *nout);
/* The same, and the run's host causes for the caller (analysis builds them once for the regions,
 * the idle stretches and the host views: a long run's millions of calls, sorted and painted),
 * built on a thread of their own while the regions' timeline is built. *causes is the caller's
 * to free, NULL when memory ran out (the call then returns false). calls_by_start: the run's
 * host calls in order of start (host_calls_by_start), the caller's, which the wall-time account
 * walks too; NULL to sort them here. */
bool analyze_regions_and_causes(const run_model *m, host_causes **causes, region_metrics **out, int *nout,
                                const size_t *calls_by_start);
void region_metrics_free(region_metrics *r, int n);


#endif
