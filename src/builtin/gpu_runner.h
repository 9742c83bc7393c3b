/* The GPU side of the built-in run, as cuda/gpu_runner.cu implements it: device facts, one context
 * and stream per host thread, a workload's host and device buffers, its copies and launches timed
 * between cudaEvents, and synchronisation. Thin on purpose: what runs when (the phases and their
 * NVTX ranges, sampling, verification, the counter pass, what goes into the model) is decided in C
 * (gpu_workload.c, gpu_counters.c), so that nvcc compiles only GPU work. A C header (no CUDA
 * types): the interface lives in src/ and cuda/ implements it; src/ never includes cuda/.
 *
 * The functions returning int return 0, or non-zero with "call: CUDA's message" in err (NULL err:
 * no message). */
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
    bool counters;       /* read hardware counters in a pass after the timed launches (gpu_counters.h) */
} gpu_inputs;

/* Counts devices and fills m->devices with every device's facts as the CUDA runtime gives them
 * (no context is created; the PCIe link is sysfs's, pcie_link.h). Returns false, with the CUDA
 * runtime's reason in why, when none can be used. */
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

/* Free device memory now, in bytes (after gpu_open). */
uint64_t gpu_free_memory(void);

/* The calling thread's device (after gpu_open) and its context (a CUcontext; NULL when the
 * driver cannot say), for the range profiler. */
int gpu_device(void);
void *gpu_context(void);

/* ---------- one workload ----------
 * A workload's cudaEvents are slots of the thread's pool: the reference event (ties event times
 * to the host clock), around each input copy and the output copy, then a start and an end event
 * per launch (the warm-up launches, then the compute phase's samples). A pair per launch, not one
 * event between launches, so that the cold-L2 flush can run between them outside the timed
 * interval. */
#define WARMUP_LAUNCHES 2
enum { EV_REF, EV_A0, EV_A1, EV_B1, EV_C0, EV_C1, EV_W0, EV_COMPUTE = EV_W0 + 2 * WARMUP_LAUNCHES };
#define EV_START(first, i) ((first) + 2 * (i))
#define EV_END(first, i) ((first) + 2 * (i) + 1)

/* One workload's buffers: the host ones it copies from and to (the pinned copies or the pageable
 * inputs, by memory kind) and the device ones it allocates. */
typedef struct {
    const gpu_compute *c;
    int n;
    int device;          /* the thread's GPU */
    size_t bytes;        /* one matrix */
    const float *hA, *hB;
    float *hC;
    float *dA, *dB, *dC; /* gpu_allocate; freed by gpu_release */
    kernel_shape shape;  /* our own kernel's launch, when has_shape (gpu_compute.shape) */
    bool has_shape;
} gpu_job;

/* What the CUDA runtime says of our own kernel's resources. */
typedef struct {
    int registers, static_smem, local_mem;
} kernel_resources;

/* A job of c at size n with host memory kind: A and B are the pageable inputs (gpu_prepare made
 * the pinned copies and the result buffers). */
void gpu_job_init(gpu_job *j, const gpu_compute *c, int n, const float *A, const float *B, mem_kind kind);
/* A, B and C on the device, C and the host result poisoned with NaN; synchronised. */
int gpu_allocate(gpu_job *j, char *err, size_t errlen);
/* Records the reference event and waits for it. */
int gpu_reference_event(char *err, size_t errlen);
/* A and B to the device between events EV_A0, EV_A1 and EV_B1; synchronised. */
int gpu_copy_in(gpu_job *j, char *err, size_t errlen);
/* count launches, launch i between events EV_START(first_event, i) and EV_END(first_event, i)
 * (the cold-L2 flush before each); synchronised, launch errors checked. */
int gpu_launches(gpu_job *j, int first_event, int count, char *err, size_t errlen);
/* Makes sure the pool has count events. */
int gpu_events_reserve(int count, char *err, size_t errlen);
/* Milliseconds between two recorded events. */
int gpu_event_ms(int from, int to, double *ms, char *err, size_t errlen);
/* C to the host between events EV_C0 and EV_C1; synchronised. */
int gpu_copy_out(gpu_job *j, char *err, size_t errlen);
/* Our own kernel's resources (j->shape) and the runtime's blocks per SM for its launch. */
int gpu_kernel_resources(const gpu_job *j, kernel_resources *res, int *blocks_per_sm, char *err, size_t errlen);
/* Frees the device buffers; false when a cudaFree failed. */
bool gpu_release(gpu_job *j);
/* A kernel on the run's stream spinning ms milliseconds on the GPU's timer (fault injection). */
int gpu_fault_spin(long ms, char *err, size_t errlen);

/* ---------- the counter pass's GPU side ---------- */
/* One launch of the product, synchronised, launch errors checked (err gets only the launch
 * function's own message). */
int gpu_launch_once(gpu_job *j, char *err, size_t errlen);
/* Makes the buffer gpu_l2_clean reads (four times the L2); synchronised. */
int gpu_counter_flush_buffer(char *err, size_t errlen);
/* Reads that buffer, so the L2 holds no dirty line; synchronised. */
int gpu_l2_clean(char *err, size_t errlen);

/* The peer matrix's copies from GPU src to GPU dst (cuda/peer_copy.cu): cfg gives the sizes and
 * counts; fills p's can_access_peer and both copy modes (a mode that could not run says why in its
 * own why). False, with the reason in why, when the pair's buffers could not be set up. Run on a
 * thread with nothing else on either GPU; leaves peer access off. */
bool gpu_peer_pair(const multi_gpu_info *cfg, int src, int dst, peer_pair *p, char *why, size_t len);

/* Brackets the measured region for nsys --capture-range=cudaProfilerApi. */
void gpu_profiler_start(void);
void gpu_profiler_stop(void);

/* Waits for the device, then releases everything gpu_open made (the counter session is
 * gpu_counters_close's). */
void gpu_sync(void);
void gpu_close(void);

/* gpu_close, then cudaDeviceReset: for an interrupted run, so the device is released whatever
 * state a workload left it in. */
void gpu_reset(void);

#ifdef __cplusplus
}
#endif

#endif
