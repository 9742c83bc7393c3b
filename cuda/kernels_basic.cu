// The two kernels a newcomer writes first: one thread per output element, then 16x16
// shared-memory tiles. Row-major, any n (edges are bounds-checked, not padded).
#include "cuda_check.h"
#include "gpu_compute.h"

#define TILE 16

// One thread per element of C. threadIdx.x walks columns, so a warp reads 32 consecutive
// elements of a row of B (coalesced) and one element of A (a broadcast).
extern "C" __global__ void mmprof_naive(const float *__restrict__ A, const float *__restrict__ B,
                                        float *__restrict__ C, int n)
{
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    if (row >= n || col >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    C[(size_t)row * n + col] = acc;
}

// The classic first optimisation: each block stages a 16x16 tile of A and of B in shared
// memory, so each element loaded from global memory is used 16 times instead of once.
extern "C" __global__ void mmprof_tiled16(const float *__restrict__ A, const float *__restrict__ B,
                                          float *__restrict__ C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        // Out-of-range elements load as zero, so partial tiles at the edges add nothing.
        As[ty][tx] = (row < n && k0 + tx < n) ? A[(size_t)row * n + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < n && col < n) ? B[(size_t)(k0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n)
        C[(size_t)row * n + col] = acc;
}

static void square_shape(int n, const void *func, const char *name, kernel_shape *s)
{
    int blocks = (n + TILE - 1) / TILE;
    s->func = func;
    snprintf(s->name, sizeof s->name, "%s", name);
    s->grid[0] = blocks, s->grid[1] = blocks, s->grid[2] = 1;
    s->block[0] = TILE, s->block[1] = TILE, s->block[2] = 1;
    s->dynamic_smem = 0;
}

static bool naive_shape(int n, kernel_shape *s)
{
    square_shape(n, (const void *)mmprof_naive, "mmprof_naive", s);
    return true;
}

static bool tiled_shape(int n, kernel_shape *s)
{
    square_shape(n, (const void *)mmprof_tiled16, "mmprof_tiled16", s);
    return true;
}

static int naive_launch(const float *A, const float *B, float *C, int n, void *stream, char *err, size_t errlen)
{
    dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE), block(TILE, TILE);
    mmprof_naive<<<grid, block, 0, (cudaStream_t)stream>>>(A, B, C, n);
    CUDA_TRY_LAUNCH("mmprof_naive");
    return 0;
}

static int tiled_launch(const float *A, const float *B, float *C, int n, void *stream, char *err, size_t errlen)
{
    dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE), block(TILE, TILE);
    mmprof_tiled16<<<grid, block, 0, (cudaStream_t)stream>>>(A, B, C, n);
    CUDA_TRY_LAUNCH("mmprof_tiled16");
    return 0;
}

extern "C" const gpu_compute gpu_naive = {PREC_FP32, naive_launch, naive_shape, NULL, false};
extern "C" const gpu_compute gpu_tiled = {PREC_FP32, tiled_launch, tiled_shape, NULL, false};
