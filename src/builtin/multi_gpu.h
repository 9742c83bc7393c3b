/* A --devices run's GPU side: the GPU workloads of one size on every listed GPU, each GPU alone
 * (one after another) and then all at once, and the peer matrix between every pair of them.
 *
 * The design, kept simple: every GPU is driven by a host thread of its own, in both passes. The
 * GPU runner's state (context's device, stream, buffers, events, cuBLAS handle) is per thread
 * (thread_local in cuda/), so a thread is a GPU's whole run; the sequential pass starts one thread
 * and joins it before the next, the concurrent pass starts them all and then joins them. A thread
 * writes only its own workload array and its own GPU's free-memory figure; its workloads join the
 * run model after the join, in device order, so the model is touched by one thread at a time. */
#ifndef MMPROF_MULTI_GPU_H
#define MMPROF_MULTI_GPU_H

#include <stdio.h>

#include "gpu_runner.h"
#include "model.h"
#include "nvml.h"
#include "workloads.h"

typedef struct {
    const workload_def *const *sel; /* the selected workloads; the CPU one is skipped here */
    int nsel;
    const mem_kind *kinds;
    int nkinds;
    bool want_cublas;
    bool cold_l2;
    nvml_watch **watch;             /* per entry of m->multi.devices; NULL where NVML is n/a */
    const char *nvml_why;
} multi_gpu_work;

/* Fills m->multi.devices from --devices (all: every device, up to MAX_RUN_DEVICES). False after a
 * message on err naming --devices when an index is not a device of this machine. */
bool multi_gpu_select(run_model *m, bool all, const int *devices, int ndevices, FILE *err);

/* The GPU workloads at size n (inputs in `in`) on every GPU of m->multi: the sequential pass,
 * then the concurrent one; the workloads are added to m marked with their pass. */
void multi_gpu_run_size(run_model *m, const multi_gpu_work *work, const gpu_inputs *in);

/* The peer matrix between every ordered pair of m->multi's GPUs, or m->multi.why when there is
 * no pair (one GPU). */
void multi_gpu_peer_matrix(run_model *m);

#endif
