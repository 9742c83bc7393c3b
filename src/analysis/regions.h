/* Figures of any region of any timeline: the whole run, a built-in workload or phase, an NVTX
 * range, a PyTorch annotation. Computed from events alone, so they mean the same for mmprof's
 * own runs, imported traces and profiled programs.
 *
 * Attribution (as Nsight Systems' "NVTX GPU projection"): a kernel, copy or memset belongs to a
 * region when the API call that launched it (same process and correlation id) was made on the
 * region's thread while the region was open, even when the GPU ran it after the region closed.
 * A GPU event whose launching call is not in the timeline is attributed by its own start time
 * and counted in by_time. API calls and synchronization belong by their start on the thread. */
#ifndef MMPROF_REGIONS_H
#define MMPROF_REGIONS_H

#include "metric.h"
#include "model.h"
#include "verdict.h"

/* One kernel name within a region. */
typedef struct {
    const char *name; /* points into the model */
    int count;
    metric total_ms, share_pct, min_ms, median_ms, max_ms, stddev_ms;
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
    metric wall_ms;       /* from the region's start to the later of its end and its last GPU event's */
    metric kernel_ms;     /* summed kernel durations */
    metric memcpy_ms, memset_ms;
    metric h2d_ms, h2d_bytes, h2d_gbps;
    metric d2h_ms, d2h_bytes, d2h_gbps;
    metric copy_compute_ratio; /* memcpy time over kernel time */
    metric gpu_busy_ms;   /* union of kernel, copy and memset intervals */
    metric busy_pct;      /* that over wall_ms */
    metric largest_gap_ms;
    idle_gap gaps[REGION_MAX_GAPS]; /* the largest idle stretches, largest first */
    int ngaps;
    metric launch_us;     /* mean time of the API calls that launched kernels */
    metric kernel_us;     /* median kernel duration */
    metric short_kernel_pct; /* kernels shorter than 10 us, % of launches */
    metric sync_ms;       /* host time in synchronization */
    metric api_ms;        /* host time in CUDA API calls */
    metric tflops;        /* where the region carries a FLOP count (built-in workloads) */
    copy_flow *flows;
    int nflows;
    kernel_stat *kernels; /* by total time, longest first */
    int nkstats;
    api_stat *apis;       /* API calls by total time, longest first */
    int napistats;
    verdict_kind verdict;   /* verdict.h */
    char verdict_text[VERDICT_TEXT]; /* the figure that decided it */
    char advice[VERDICT_TEXT];       /* one line: what to try */
} region_metrics;

/* Computes every region's figures; false only when memory ran out. */
bool analyze_regions(const run_model *m, region_metrics **out, int *nout);
void region_metrics_free(region_metrics *r, int n);


#endif
