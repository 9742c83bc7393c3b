/* Analysis: the figures a report shows, computed from the run model alone.
 *
 * Pure functions of run_model: no CUDA, no clock, no I/O. Every figure is a metric that is either
 * valid or carries the reason it could not be had, so renderers print "n/a (reason)" or null,
 * never a 0 that was not measured.
 *
 * "Per product" means one n x n multiply as a user would run it once: copy A and B in, run the
 * product (the median of the timed launches), copy C out. */
#ifndef MMPROF_ANALYSIS_H
#define MMPROF_ANALYSIS_H

#include "event_view.h"
#include "metric.h"
#include "model.h"
#include "overlap.h"
#include "capture.h"
#include "range_groups.h"
#include "ranks.h"
#include "regions.h"
#include "sweep.h"
#include "verdict.h"
#include "summary.h"
#include "accounts.h"
#include "display_names.h"
#include "intervals.h"
#include "peaks.h"
#include "spread.h"


/* One kernel name within one workload. */
typedef struct {
    const char *name; /* points into the model */
    int launches;
    metric median_ms;
    int grid[3], block[3];
    bool has_resources;
    int registers, static_smem, dynamic_smem, local_mem;
    metric occupancy_pct;      /* theoretical, from cuda_occupancy.h */
    int active_blocks;         /* per SM, when occupancy_pct.ok */
    char limiter[32];          /* registers, shared memory, blocks, warps, barriers */
    metric tflops;             /* when one kernel makes one product */
} kernel_summary;

/* What limits a kernel, from its counters (roofline.c): the unit nearest its peak, or latency
 * when none is near. */
typedef enum {
    BOUND_NONE = 0, /* no counters */
    BOUND_DRAM,
    BOUND_L1,       /* L1 / shared memory */
    BOUND_L2,
    BOUND_COMPUTE,  /* a compute pipe (FMA, tensor, ...) */
    BOUND_LATENCY,  /* no unit near its peak: latency, or too few warps to hide it */
} bound_kind;

typedef struct {
    const workload_run *w;
    metric kernel_ms;          /* per product: median over the compute phase */
    metric kernel_total_ms;    /* compute phase, all launches */
    metric kernel_spread_pct;  /* (max - min) / median of per-product kernel times */
    metric noise_pct;          /* stdev / mean of the timed samples, in % (what stopped sampling) */
    int kernels_per_product;
    metric h2d_ms, h2d_bytes, h2d_gbps, h2d_link_pct;
    metric d2h_ms, d2h_bytes, d2h_gbps, d2h_link_pct;
    metric h2d_fastest_pct, d2h_fastest_pct; /* GB/s over the run's fastest of that direction, in % */
    metric copy_ms;            /* h2d + d2h */
    metric copy_compute_ratio; /* copy time over one product's kernel time */
    metric e2e_ms;             /* h2d + kernel + d2h, per product */
    metric tflops;             /* kernel only */
    metric tflops_e2e;         /* with copies */
    metric peak_pct;           /* kernel TFLOP/s over the device's peak for its precision (FP32 or TF32) */
    metric busy_pct;           /* union of kernel, copy and memset intervals over the copy-in, compute
                                * and copy-out phases (the time the workload asks the GPU for work) */
    metric busy_span_ms;       /* those phases' time: what busy_pct is a share of */
    metric gap_ms;             /* largest idle gap inside those phases */
    char gap_phase[PHASE_NAME_MAX]; /* the phase it fell in */
    metric vs_cublas_pct;      /* cuBLAS's kernel time (same precision, memory kind and n, same run)
                                * over this one's, in %: how close a kernel comes to the library */
    metric speedup;            /* cpu-openblas product time over kernel time */
    metric speedup_e2e;        /* ... over end-to-end time */
    metric event_agreement_pct; /* CUPTI kernel median vs cudaEvent median, in % */
    verdict_kind verdict;      /* verdict.h, on the product's figures */
    char verdict_text[VERDICT_TEXT];
    char advice[VERDICT_TEXT];
    /* From the counter pass (roofline.c): the main kernel's speed-of-light figures, the product's
     * bytes and FLOPs, and what bounds it. */
    metric achieved_occupancy_pct, sm_throughput_pct, memory_throughput_pct;
    metric dram_read_bytes, dram_write_bytes, l1_hit_pct, l2_hit_pct, tensor_pct;
    metric flops_executed;     /* 2 x FFMA + FADD + FMUL, FP32 thread instructions */
    metric achieved_tflops;    /* flops_executed / kernel time */
    metric intensity;          /* FLOPs per DRAM byte (read + written) */
    bound_kind bound;
    char bound_text[128];      /* "DRAM (DRAM throughput 87% of peak)", or why n/a */
    metric bound_pct;          /* the busiest unit's throughput, % of its peak (what decided bound) */
    kernel_summary *kernels;
    int nkernels;
    int main_kernel;  /* index into kernels of the one with the most time, -1 when none */
    int product_kernel; /* the product a one-product timeline shows, of the timed ones the first whose
                         * kernel time is nearest the median: its first kernel's index in the
                         * workload's events (workload_events), -1 when none */
    int library;      /* index into analysis.wl of the cuBLAS run compared against, -1 when none */
    bool ladder_row;  /* the workload's row in the ladder: its pinned run, or its first pageable
                       * one when it has no pinned run */
} workload_metrics;

struct event_view_s;
struct devices_analysis;

/* A stretch of one GPU's activity as a timeline can show it: its kernels, copies and memsets,
 * stretches closer than the run's span / BUSY_SERIES_STEPS joined, with how busy it was inside. */
#define BUSY_SERIES_STEPS 1000
typedef struct {
    int device;
    int64_t start_ns, end_ns;
    metric busy_ms;  /* union of the GPU's intervals inside it */
    metric busy_pct; /* that over its length */
    metric start_ms, length_ms; /* from the run's start, for outputs that show it */
} busy_span;

typedef struct analysis {
    const run_model *m;
    struct event_view_s *owned; /* the events each region owns (event_view.h), one per region */
    device_peaks *peaks;    /* one per device */
    workload_metrics *wl;   /* one per workload, same order */
    int nwl;
    metric best_h2d_gbps, best_d2h_gbps; /* fastest measured, across workloads */
    /* The same per host-memory kind: copy_bests.c. */
    metric best_h2d_pinned_gbps, best_h2d_pageable_gbps, best_d2h_pinned_gbps, best_d2h_pageable_gbps;
    /* Pinned against pageable, the one comparison every output prints (copy_bests.c): the medians
     * over the GPU runs the summary speaks of (summary_workload) of each host-memory kind, per
     * direction and per product's copies, and how much faster pinned ran (median over median). */
    metric med_h2d_pinned_gbps, med_h2d_pageable_gbps, med_d2h_pinned_gbps, med_d2h_pageable_gbps;
    metric med_copy_pinned_ms, med_copy_pageable_ms;
    metric pinned_h2d_x, pinned_d2h_x, pinned_copy_x;
    int pinned_runs, pageable_runs; /* the runs those medians are of */
    char **warnings;        /* the model's own and analysis's */
    int nwarnings;
    region_metrics *rg;     /* one per region of the model, same order */
    int nrg;
    int *listed;            /* the regions summaries list, in timeline order: the run, then the
                             * longest NVTX ranges and annotations (at most MAX_LISTED_REGIONS) */
    int nlisted;
    int unlisted;           /* regions of those kinds with GPU work left out of the list */
    int no_gpu_regions;     /* NVTX ranges and annotations left out because no GPU work was launched
                             * from them or ran during them (a compiler's or loader's annotations) */
    bool listed_by_gpu;     /* more than MAX_LISTED_REGIONS had GPU work: those listed are the ones
                             * with the most GPU time, in that order; else timeline order */
    range_group *groups;    /* NVTX ranges and annotations grouped by name (range_groups.h) */
    int ngroups;
    int *group_members;     /* the groups' instances (range_group.members points into it) */
    int *group_of;          /* per region, its group's index in groups, -1 for none */
    capture_metrics *capture; /* profile's capture windows, one per run_model.capture window (capture.h) */
    int ncapture;
    struct incomplete_process_s *incomplete; /* processes whose records were cut (incomplete.h) */
    int nincomplete;
    sweep_analysis *sweep;  /* a run of several sizes: series and crossovers (sweep.h); else NULL */
    rank_analysis *ranks;   /* several ranks or GPU processes: shares, overlap, stragglers (ranks.h); else NULL */
    finding *summary;       /* what to read first, heaviest first (summary.h) */
    int nsummary;
    struct devices_analysis *devices; /* a --devices run's figures (devices.h); NULL otherwise */
    struct launch_metrics_s *launches; /* profile --counters: one per profiled launch (launch_metrics) */
    int nlaunches;
    busy_span *busy;        /* each GPU's activity over time (BUSY_SERIES_STEPS), by device then time */
    int nbusy;
    stream_metrics *streams; /* every stream with GPU work, by device then stream (overlap.h) */
    int nstreams;
    idle_stretch *idle_gaps; /* the run's longest idle stretches per GPU with their causes,
                              * longest first (idle_causes.h) */
    int nidle_gaps;
    int idle_gaps_unlisted;  /* stretches past the threshold beyond IDLE_GAPS_MAX */
    struct host_analysis *host; /* what the host did in them, and the call sites per kernel
                                 * (host_idle.h); NULL where the run has no host activity */
    wall_account *accounts; /* where the wall-clock time went (accounts.h): the run's first */
    int naccounts;
    account_row *idle_accounts; /* per idle_gaps entry, its process's largest idle state there
                                 * (state WS_COUNT: none accounted); NULL without idle_gaps */
    account_band *bands;    /* the accounted processes' timelines in bands of one state (accounts.h) */
    int nbands;
    struct memory_analysis *memory; /* GPU memory over time (memory.h); NULL where the run has none */
} analysis;

#define MAX_LISTED_REGIONS 40

/* The events a built-in workload owns (an empty view for one that never ran): the analysis's
 * own, read by the renderers that draw a workload's timeline. */
static inline const event_view *workload_events(const analysis *a, const workload_run *w)
{
    static const event_view none;
    return a->owned && w->region > 0 && w->region < a->m->nregions ? &a->owned[w->region] : &none;
}

/* Pieces, exposed for tests and for renderers that need one figure. */
const char *bound_name(bound_kind b); /* "dram", "l1", "l2", "compute", "latency", "none" */

/* roofline.c: the counter-derived figures of one workload (its kernel time and verdict known),
 * and each device's roofline ceilings that only counters give (the L2's). */
void counter_figures(const run_model *m, workload_metrics *r);
void counter_ceilings(const run_model *m, device_peaks *peaks);

/* profile --counters: the figures of one profiled launch. No DRAM bytes written (kernel replay's
 * memory restore is counted in them), so no intensity; FLOP/s over the kernel's own duration in
 * the counter pass. */
typedef struct launch_metrics_s {
    const kernel_counters *k;
    metric duration_us, achieved_occupancy_pct, sm_throughput_pct, memory_throughput_pct;
    metric dram_read_bytes, l1_hit_pct, l2_hit_pct, tensor_pct;
    metric flops_executed;  /* 2 x FFMA + FADD + FMUL */
    metric achieved_tflops; /* FP32, over duration_us */
    bound_kind bound;
    char bound_text[128];
    metric bound_pct; /* the busiest unit's throughput, % of its peak */
} launch_metrics;
void launch_counter_figures(const kernel_counters *k, launch_metrics *r);
double tf32_flops_per_sm_clock(int cc_major, int cc_minor); /* 0 when unknown */
double l1_bytes_per_sm_clock(int cc_major);                   /* 0 when unknown */

/* Theoretical occupancy of a launch on a device through cuda_occupancy.h. Returns false (and a
 * reason in why) when the calculator refuses the input. */
bool occupancy_of(const device_info *d, int block_threads, int registers, int static_smem,
                  int dynamic_smem, bool smem_optin, int *blocks_per_sm, double *pct,
                  char *limiter, size_t limiter_len, char *why, size_t why_len);

/* copy_bests.c: the fastest copies of the run in each direction, overall and per host-memory
 * kind, pinned over pageable, and each workload's bandwidth as a share of the fastest. */
void copy_bests(analysis *a);

/* summary.c: the size a built-in run's findings speak of (a sweep's largest; 0 for one size), and
 * whether a workload is one of the GPU runs they compare (ran to its figures, at that size). */
int summary_size(const analysis *a);
bool summary_workload(const analysis *a, const workload_metrics *r);

/* A kernel record's theoretical occupancy on its device (occupancy_of with the record's launch
 * shape and resources): the one way every table gets it. */
void kernel_occupancy(const run_model *m, const kernel_event *k, metric *pct, int *blocks, char *limiter,
                      size_t limiter_len);

/* Whether the per-workload sections of a report show r: every workload of a single-size run; of a
 * sweep, those at its detail size (sweep.h), since every size's card, timeline and kernel table
 * on one page made it 6.8 MB. */
bool workload_in_detail(const analysis *a, const workload_metrics *r);

#endif
