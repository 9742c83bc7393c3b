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

/* Copies of one direction whose host side is one memory kind. */
typedef struct {
    copy_dir dir;
    mem_kind host;    /* the host side (pageable, pinned, ...); MEM_DEVICE for device-to-device */
    int count;
    metric bytes, ms, gbps;
    metric mean_bytes; /* per copy: small copies are a reason to batch */
} copy_flow;

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

typedef struct {
    int64_t start_ns, length_ns;
} idle_gap;

typedef enum {
    RV_NO_GPU = 0,  /* no GPU work in the region */
    RV_COPY_BOUND,  /* copies take longer than the kernels */
    RV_LAUNCH_BOUND, /* many short kernels: the GPU waits for launches */
    RV_SYNC_BOUND,  /* the host spends the region waiting in synchronization */
    RV_IDLE,        /* the GPU sits idle for most of the region */
    RV_COMPUTE_BOUND,
} region_verdict;

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
    region_verdict verdict;
    char verdict_text[200]; /* the figure that decided it */
    char advice[200];       /* one line: what to try */
} region_metrics;

/* Computes every region's figures; false only when memory ran out. */
bool analyze_regions(const run_model *m, region_metrics **out, int *nout);
void region_metrics_free(region_metrics *r, int n);

const char *region_verdict_name(region_verdict v);

/* Kernels shorter than this count as short (launch overhead dominates them). */
#define SHORT_KERNEL_NS 10000

#endif
