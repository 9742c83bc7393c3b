/* Figures of a job of several processes or ranks (a profiled torchrun or mpirun job, or the rank
 * files of one merged by `mmprof report run.*.json`): per rank and per GPU, how the GPU time
 * splits into compute, communication (NCCL kernels, recognised by name), copies and idle; how much
 * of the communication ran hidden under compute; the collective-end skew between ranks (what is
 * left of clock offsets between hosts); and the stragglers: for each NVTX range name that
 * several ranks open, the rank that reaches its end last, and by how much.
 *
 * Rows: one per rank (the processes with one rank and host together: a rank's DataLoader
 * workers are the rank), or, when no launcher gave ranks, one per process that used a GPU. All
 * shares are over the job's GPU window, from the first GPU event of any rank to the last, so a
 * rank that starts late or ends early shows that time as idle. */
#ifndef MMPROF_RANKS_H
#define MMPROF_RANKS_H

#include "metric.h"
#include "model.h"

typedef struct {
    int rank;        /* the launcher's rank; -1 when not known (then pid names the row) */
    uint32_t pid;    /* the row's first process */
    int nprocs;      /* processes in the row */
    char host[64];
    int device;      /* per-GPU rows: the device; rank rows: the GPU it used most (-1: none) */
    int kernels, comm_kernels, copies;
    metric window_ms;   /* the job's GPU window */
    metric busy_pct;    /* union of kernels, copies and memsets over the window */
    metric compute_pct; /* non-NCCL kernels (union) */
    metric comm_pct;    /* NCCL kernels not under compute (exposed communication) */
    metric copy_pct;    /* copies and memsets under neither */
    metric idle_pct;    /* the rest: compute + comm + copy + idle = 100 */
    metric compute_ms, comm_ms; /* unions of non-NCCL and of NCCL kernels */
    metric overlap_pct; /* share of NCCL time that ran while a compute kernel ran on the same rank */
    metric memory_ms;   /* union of copies and memsets */
    /* Over the row's own GPU span (its first GPU event to its last) rather than the job's window,
     * as Holistic Trace Analysis's temporal breakdown measures a rank (docs/hta-parity.md): a
     * rank that starts late shows no idle for it here. */
    metric span_ms;
    metric span_idle_pct, span_compute_pct;
    metric span_non_compute_pct; /* NCCL kernels, copies and memsets not under compute */
    metric coll_skew_us; /* median over matched collectives (k-th NCCL kernel of each rank) of its end
                          * minus the first row's: near 0 on one host; across hosts, the clock offset */
} rank_share;

/* One NVTX range name (and domain) several rows open. */
typedef struct {
    const char *name;    /* points into the model */
    int matched;         /* occurrences matched across rows (the k-th of each row) */
    int rows;            /* rows that open it */
    int straggler;       /* row index most often last to end it */
    int straggler_times; /* how often that row was last */
    metric median_lag_ms; /* latest end minus earliest, median over the matched occurrences */
    metric max_lag_ms;
    metric mean_ms;       /* mean duration of the range over all rows and occurrences */
} straggler;

typedef struct rank_analysis {
    bool by_rank;        /* rows are launcher ranks (else processes) */
    rank_share *rows;
    int nrows;
    rank_share *gpus;    /* one per device that ran anything */
    int ngpus;
    straggler *stragglers; /* by max lag, largest first */
    int nstragglers;
    int nhosts;
} rank_analysis;

/* NULL in *out when the run has fewer than two rows and no ranks (nothing to compare); false
 * only when memory ran out. */
bool analyze_ranks(const run_model *m, rank_analysis **out);
void rank_analysis_free(rank_analysis *r);

/* A row's name for the reports: "rank 1 GPU 1" ("pid 812" without a rank), or for a GPU row
 * "GPU 0 (rank 0)"; " @host" after it with with_host. */
void rank_share_label(const rank_share *r, bool gpu, bool with_host, char *buf, size_t len);

/* A NCCL kernel: ncclKernel* or ncclDevKernel* (mangled or not). */
bool is_nccl_kernel(const char *name);

#endif
