/* Running GPU workloads: device facts, the context and the phases of one workload. C interface
 * over cuda/gpu_runner.cu, so src/builtin/runner.c needs no CUDA header. The
 * interface lives in src/ and cuda/ implements it: src/ never includes cuda/. */
#ifndef MMPROF_GPU_RUNNER_H
#define MMPROF_GPU_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu_compute.h"
#include "model.h"
#include "sampling.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int n;
    const float *A, *B;  /* pageable host inputs */
    const double *ref;   /* FP64 reference product */
    sample_rule rule;    /* how many timed launches (sampling.h; gpu_sample_rule) */
    bool cold_l2;        /* flush the L2 before each timed launch */
    bool pinned;         /* pinned host buffers will be needed */
    bool counters;       /* read hardware counters in a pass after the timed launches (gpu_open_counters) */
} gpu_inputs;

/* The GPU's sampling rule: at least 10 launches before the noise may stop it, at most 200. */
sample_rule gpu_sample_rule(int repeat, double max_noise_pct, double max_time_ms);

/* Counts devices and fills m->devices with every device's facts (no context is created).
 * Returns false, with the CUDA runtime's reason in why, when none can be used. */
bool gpu_probe(run_model *m, char *why, size_t len);

/* Creates the context on device and the stream, and reads the device's free memory into
 * m->devices[device].free_mem, so a size that does not fit is refused before any work. */
bool gpu_open(run_model *m, int device, char *why, size_t len);

/* The host buffers GPU workloads copy from and to: pinned copies of the inputs when in->pinned,
 * and the result buffers (those of an earlier size are released first); with in->cold_l2, the
 * device buffer the L2 flush writes (twice the L2). */
bool gpu_prepare(const gpu_inputs *in, char *why, size_t len);

/* Creates the cuBLAS handle on the run's stream (its cost shows as its own tool phase). */
bool gpu_open_cublas(char *why, size_t len);

/* Opens the range profiler on the run's context (counters.h) and records the passes it needs in
 * m; false with the reason (no permission, unsupported GPU) when counters cannot be read. */
bool gpu_open_counters(run_model *m, char *why, size_t len);

/* Free device memory now, in bytes (after gpu_open). */
uint64_t gpu_free_memory(void);

/* Runs one workload through its phases: allocate, copy-in, warm-up, compute, copy-out, verify. */
void gpu_run(const gpu_compute *c, const gpu_inputs *in, mem_kind kind, workload_run *w);

/* The peer matrix's copies from GPU src to GPU dst (cuda/peer_copy.cu): cfg gives the sizes and
 * counts; fills p's can_access_peer and both copy modes (a mode that could not run says why in its
 * own why). False, with the reason in why, when the pair's buffers could not be set up. Run on a
 * thread with nothing else on either GPU; leaves peer access off. */
bool gpu_peer_pair(const multi_gpu_info *cfg, int src, int dst, peer_pair *p, char *why, size_t len);

/* Brackets the measured region for nsys --capture-range=cudaProfilerApi. */
void gpu_profiler_start(void);
void gpu_profiler_stop(void);

/* Waits for the device, then releases everything gpu_open made. */
void gpu_sync(void);
void gpu_close(void);

/* gpu_close, then cudaDeviceReset: for an interrupted run, so the device is released whatever
 * state a workload left it in. */
void gpu_reset(void);

#ifdef __cplusplus
}
#endif

#endif
