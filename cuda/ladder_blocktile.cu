// Ladder steps 3 and 4: register blocking. Each thread computes several elements of C, so every
// value it reads from shared memory is used several times from a register.
//
//  1D (cuda-blocktile-1d): 64x64 block tile, BK = 8, 512 threads, each a column of 8 results.
//     Per k a thread reads one B value and 8 A values (a warp-wide broadcast) for 8 FMAs:
//     shared-memory loads per FMA drop from 2 (16x16 tiling) to 9/8.
//  2D (cuda-blocktile-2d): 128x128 block tile, BK = 8, 256 threads, each an 8x8 block of
//     results: 16 loads for 64 FMAs, a quarter of a load per FMA.
//
// Any n: out-of-range elements load as zero and stores are bounds-checked. Loads are scalar
// here; 16-byte loads are the next step (ladder_vectorized.cu).
#include "ladder_common.cuh"

// ---------- 1D ----------
#define B1_BM 64
#define B1_BN 64
#define B1_BK 8
#define B1_TM 8
#define B1_THREADS (B1_BM * B1_BN / B1_TM) // 512

extern "C" __global__ void __launch_bounds__(B1_THREADS)
    mmprof_blocktile_1d(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    __shared__ float As[B1_BM][B1_BK];
    __shared__ float Bs[B1_BK][B1_BN];
    const int tid = threadIdx.x;
    const int bm = blockIdx.y * B1_BM, bn = blockIdx.x * B1_BN;
    // A warp's threads share tr, so the 8 A values are broadcasts; tc walks columns (coalesced).
    const int tc = tid % B1_BN, tr = tid / B1_BN;
    const int ar = tid / B1_BK, ac = tid % B1_BK; // this thread's element of the A tile
    const int br = tid / B1_BN, bc = tid % B1_BN; // and of the B tile
    float acc[B1_TM] = {};
    for (int k0 = 0; k0 < n; k0 += B1_BK) {
        As[ar][ac] = (bm + ar < n && k0 + ac < n) ? A[(size_t)(bm + ar) * n + k0 + ac] : 0.0f;
        Bs[br][bc] = (k0 + br < n && bn + bc < n) ? B[(size_t)(k0 + br) * n + bn + bc] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < B1_BK; k++) {
            float b = Bs[k][tc];
#pragma unroll
            for (int i = 0; i < B1_TM; i++)
                acc[i] += As[tr * B1_TM + i][k] * b;
        }
        __syncthreads();
    }
    const int col = bn + tc;
#pragma unroll
    for (int i = 0; i < B1_TM; i++) {
        int row = bm + tr * B1_TM + i;
        if (row < n && col < n)
            C[(size_t)row * n + col] = acc[i];
    }
}

// ---------- 2D ----------
#define B2_BM 128
#define B2_BN 128
#define B2_BK 8
#define B2_TM 8
#define B2_TN 8
#define B2_THREADS (B2_BM * B2_BN / (B2_TM * B2_TN)) // 256

extern "C" __global__ void __launch_bounds__(B2_THREADS)
    mmprof_blocktile_2d(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    __shared__ float As[B2_BM][B2_BK];
    __shared__ float Bs[B2_BK][B2_BN];
    const int tid = threadIdx.x;
    const int bm = blockIdx.y * B2_BM, bn = blockIdx.x * B2_BN;
    const int tr = tid / (B2_BN / B2_TN), tc = tid % (B2_BN / B2_TN);
    float acc[B2_TM][B2_TN] = {};
    float a[B2_TM], b[B2_TN];
    for (int k0 = 0; k0 < n; k0 += B2_BK) {
        // Each thread loads BM*BK/256 = 4 elements of each tile; consecutive threads take
        // consecutive elements of a row, so global loads stay coalesced.
#pragma unroll
        for (int i = 0; i < B2_BM * B2_BK / B2_THREADS; i++) {
            int e = tid + i * B2_THREADS, r = e / B2_BK, c = e % B2_BK;
            As[r][c] = (bm + r < n && k0 + c < n) ? A[(size_t)(bm + r) * n + k0 + c] : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < B2_BK * B2_BN / B2_THREADS; i++) {
            int e = tid + i * B2_THREADS, r = e / B2_BN, c = e % B2_BN;
            Bs[r][c] = (k0 + r < n && bn + c < n) ? B[(size_t)(k0 + r) * n + bn + c] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < B2_BK; k++) {
#pragma unroll
            for (int i = 0; i < B2_TM; i++)
                a[i] = As[tr * B2_TM + i][k];
#pragma unroll
            for (int j = 0; j < B2_TN; j++)
                b[j] = Bs[k][tc * B2_TN + j];
#pragma unroll
            for (int i = 0; i < B2_TM; i++)
#pragma unroll
                for (int j = 0; j < B2_TN; j++)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < B2_TM; i++) {
        int row = bm + tr * B2_TM + i;
#pragma unroll
        for (int j = 0; j < B2_TN; j++) {
            int col = bn + tc * B2_TN + j;
            if (row < n && col < n)
                C[(size_t)row * n + col] = acc[i][j];
        }
    }
}

// ---------- workloads ----------
static bool blocktile_1d_shape(int n, kernel_shape *s)
{
    fill_shape(s, (const void *)mmprof_blocktile_1d, "mmprof_blocktile_1d", ceil_div(n, B1_BN), ceil_div(n, B1_BM),
               B1_THREADS, 1, 0);
    return true;
}

static bool blocktile_2d_shape(int n, kernel_shape *s)
{
    fill_shape(s, (const void *)mmprof_blocktile_2d, "mmprof_blocktile_2d", ceil_div(n, B2_BN), ceil_div(n, B2_BM),
               B2_THREADS, 1, 0);
    return true;
}

static int blocktile_1d_launch(const float *A, const float *B, float *C, int n, void *stream, char *err,
                               size_t errlen)
{
    dim3 grid(ceil_div(n, B1_BN), ceil_div(n, B1_BM));
    mmprof_blocktile_1d<<<grid, B1_THREADS, 0, (cudaStream_t)stream>>>(A, B, C, n);
    CUDA_TRY_LAUNCH("mmprof_blocktile_1d");
    return 0;
}

static int blocktile_2d_launch(const float *A, const float *B, float *C, int n, void *stream, char *err,
                               size_t errlen)
{
    dim3 grid(ceil_div(n, B2_BN), ceil_div(n, B2_BM));
    mmprof_blocktile_2d<<<grid, B2_THREADS, 0, (cudaStream_t)stream>>>(A, B, C, n);
    CUDA_TRY_LAUNCH("mmprof_blocktile_2d");
    return 0;
}

extern "C" const gpu_compute gpu_blocktile_1d = {PREC_FP32, blocktile_1d_launch, blocktile_1d_shape, NULL, false};
extern "C" const gpu_compute gpu_blocktile_2d = {PREC_FP32, blocktile_2d_launch, blocktile_2d_shape, NULL, false};
