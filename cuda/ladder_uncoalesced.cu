// Ladder step 0: the naive kernel with its thread indices swapped, so threadIdx.x walks rows.
//
// The natural way to write the naive kernel (cuda-naive, kernels_basic.cu) is already coalesced;
// this one is the mistake coalescing fixes, kept so the ladder can measure what it buys. A warp's
// 32 threads share a column and take 32 different rows: each load of A touches 32 rows (32
// sectors instead of 4), and each store of C does too. B is one element broadcast to the warp.
#include "ladder_common.cuh"

#define UNC_ROWS 32 // threadIdx.x: rows of C
#define UNC_COLS 8  // threadIdx.y: columns of C

extern "C" __global__ void mmprof_uncoalesced(const float *__restrict__ A, const float *__restrict__ B,
                                              float *__restrict__ C, int n)
{
    int row = blockIdx.x * UNC_ROWS + threadIdx.x;
    int col = blockIdx.y * UNC_COLS + threadIdx.y;
    if (row >= n || col >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    C[(size_t)row * n + col] = acc;
}

static bool uncoalesced_shape(int n, kernel_shape *s)
{
    fill_shape(s, (const void *)mmprof_uncoalesced, "mmprof_uncoalesced", ceil_div(n, UNC_ROWS),
               ceil_div(n, UNC_COLS), UNC_ROWS, UNC_COLS, 0);
    return true;
}

static int uncoalesced_launch(const float *A, const float *B, float *C, int n, void *stream, char *err,
                              size_t errlen)
{
    dim3 grid(ceil_div(n, UNC_ROWS), ceil_div(n, UNC_COLS)), block(UNC_ROWS, UNC_COLS);
    mmprof_uncoalesced<<<grid, block, 0, (cudaStream_t)stream>>>(A, B, C, n);
    CUDA_TRY_LAUNCH("mmprof_uncoalesced");
    return 0;
}

extern "C" const gpu_compute gpu_uncoalesced = {PREC_FP32, uncoalesced_launch, uncoalesced_shape, NULL, false};
