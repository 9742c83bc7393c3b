/* What a GPU workload computes, as the runner sees it: one product C = A x B of n x n row-major
 * FP32 matrices already in device memory, launched on a stream. A plain C header (no CUDA types)
 * so src/builtin/workloads.c can list the GPU workloads beside the CPU one. It lives in
 * src/ because src/ defines the interface and cuda/ implements it. */
#ifndef MMPROF_GPU_COMPUTE_H
#define MMPROF_GPU_COMPUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How one of our own kernels is launched for a given n: for occupancy checks through the CUDA
 * runtime, and to name and describe kernels when cudaEvents time them instead of CUPTI. */
typedef struct {
    const void *func; /* the __global__ function */
    char name[96];    /* as CUPTI names it (extern "C" kernels are not mangled) */
    int grid[3], block[3];
    int dynamic_smem;
} kernel_shape;

typedef struct gpu_compute {
    precision prec;
    /* Launches one product on stream (a cudaStream_t). Returns 0, or non-zero with a message in
     * err naming the call that failed. Launch errors are checked here, right after the launch. */
    int (*launch)(const float *A, const float *B, float *C, int n, void *stream, char *err, size_t errlen);
    /* Our own kernels: fills the launch shape for n and returns true. NULL for library calls,
     * whose kernels only CUPTI can name. */
    bool (*shape)(int n, kernel_shape *out);
    /* Set up before the first launch (a library handle, a shared-memory opt-in): 0 or non-zero
     * with a message. NULL when nothing is needed. */
    int (*setup)(char *err, size_t errlen);
    bool uses_cublas; /* needs the cuBLAS handle (cublas_open) */
} gpu_compute;

/* The workloads in cuda/. */
extern const gpu_compute gpu_naive, gpu_tiled, gpu_cublas_sgemm, gpu_cublas_tf32;
/* The kernel ladder (cuda/ladder_*.cu, README.md there), in ladder order around naive and tiled. */
extern const gpu_compute gpu_uncoalesced, gpu_blocktile_1d, gpu_blocktile_2d, gpu_vectorized, gpu_warptiled,
    gpu_pipelined, gpu_tf32_mma;

/* The cuBLAS handle's lifetime (cuda/cublas_workloads.cu): created once, used by both cuBLAS
 * workloads, so its creation cost shows as a tool phase and not inside a workload. */
int cublas_open(void *stream, char *err, size_t errlen);
void cublas_close(void);

#ifdef __cplusplus
}
#endif

#endif
