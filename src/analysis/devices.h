/* A --devices run, analysed: each GPU's workloads with that GPU alone busy (sequential pass) and
 * with every listed GPU busy (concurrent pass), what running together costs each GPU, the
 * aggregate throughput, and the peer matrix's figures. analyze() computes it (analysis.devices)
 * once the workloads are analysed. */
#ifndef MMPROF_DEVICES_H
#define MMPROF_DEVICES_H

#include "analysis.h"

/* One workload (name, memory kind, n) on one GPU, in both passes. */
typedef struct {
    int device;                 /* index into run.devices */
    int n;
    char label[48];             /* "cuda-tiled (pinned)" */
    int wl_seq, wl_conc;        /* indices into analysis.wl, -1 when that pass has none */
    int agg;                    /* its workload's index into devices_analysis.agg */
    bool seq_verified, conc_verified;
    metric seq_tflops, conc_tflops;   /* 2n^3 over the median kernel time of one product */
    metric seq_kernel_ms, conc_kernel_ms;
    metric change_pct;          /* concurrent TFLOP/s over sequential, - 1, in %: < 0 is a slowdown */
} device_workload_row;

/* One workload (name, memory kind, n) over every GPU. */
typedef struct {
    int n;
    char label[48];
    int ngpus;                  /* GPUs whose concurrent run was measured */
    metric aggregate_tflops;    /* summed concurrent TFLOP/s of every GPU */
    metric one_gpu_tflops;      /* the best sequential TFLOP/s of one GPU */
    metric scaling;             /* aggregate over one GPU (ideal: the number of GPUs) */
    metric worst_change_pct;    /* the largest slowdown of one GPU when all ran together */
} device_aggregate_row;

/* Each GPU's share of the two passes. */
typedef struct {
    int device;
    int seq_total, seq_ok, conc_total, conc_ok; /* workloads, and of them verified */
    metric seq_wall_ms;         /* its workloads' span in the sequential pass (first start to last end) */
    metric conc_wall_ms;        /* ... in the concurrent pass */
} device_pass_row;

/* One ordered pair of the peer matrix. */
typedef struct {
    const peer_pair *p;
    metric staged_gbps, staged_latency_us;   /* peer access off */
    metric direct_gbps, direct_latency_us;   /* peer access on */
} peer_row;

typedef struct devices_analysis {
    bool multi;                 /* a --devices run */
    char why[256];              /* when !multi: why there is no per-GPU section */
    device_workload_row *rows; /* grouped by workload (agg), in run order, then by GPU */
    int nrows;
    device_aggregate_row *agg;
    int nagg;
    device_pass_row passes[MAX_RUN_DEVICES];
    int npasses;
    metric seq_wall_ms;         /* the sequential pass, every GPU one after another */
    metric conc_wall_ms;        /* the concurrent pass, first start to last end over every GPU */
    metric wall_speedup;        /* sequential over concurrent wall time */
    peer_row *peers;
    int npeers;
    char peer_why[256];         /* why there is no peer matrix; empty when there is */
} devices_analysis;

/* False only when memory ran out. */
bool devices_analyze(const analysis *a, devices_analysis *out);
void devices_free(devices_analysis *d);

#endif
