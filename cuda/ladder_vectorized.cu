// Ladder step 5 (cuda-vectorized): the 2D register-blocked kernel with 16-byte memory accesses.
//
// What changes from cuda-blocktile-2d (same 128x128x8 tiles, 8x8 results per thread):
//  - global loads are float4 (LDG.128): one for the A tile and one for the B tile per thread
//    and k-step, instead of four scalar loads each;
//  - A is stored transposed in shared memory (k-major, As[k][m]), so a thread's 8 A values for
//    one k are contiguous and, like its 8 B values, come in two LDS.128 instead of 8 LDS.32;
//  - C is written with float4 stores.
// The A tile rows are padded by 4 floats so the transposing stores of a warp land in 32
// different banks (row stride 132: bank = 4k + m).
//
// 16-byte accesses need 16-byte aligned rows, which row-major n x n matrices have only when
// n % 4 == 0. Other n take a second instantiation with scalar loads and stores (same tiles, same
// shared-memory layout), named mmprof_vectorized_any so the report shows which one ran.
#include "ladder_common.cuh"

#define V_BM 128
#define V_BN 128
#define V_BK 8
#define V_TM 8
#define V_TN 8
#define V_THREADS 256
#define V_LDA (V_BM + 4)

template <bool VEC>
__device__ __forceinline__ void vectorized_body(const float *__restrict__ A, const float *__restrict__ B,
                                                float *__restrict__ C, int n)
{
    __shared__ __align__(16) float As[V_BK][V_LDA];
    __shared__ __align__(16) float Bs[V_BK][V_BN];
    const int tid = threadIdx.x;
    const int bm = blockIdx.y * V_BM, bn = blockIdx.x * V_BN;
    const int tr = tid / (V_BN / V_TN), tc = tid % (V_BN / V_TN);
    float acc[V_TM][V_TN] = {};
    for (int k0 = 0; k0 < n; k0 += V_BK) {
        if (VEC) {
            // A: row tid/2, k k0 + 0..3 or 4..7. With n % 4 == 0 a float4 is either wholly
            // inside the matrix or wholly outside it.
            int r = tid / 2, c = (tid % 2) * 4;
            float4 va = make_float4(0.f, 0.f, 0.f, 0.f);
            if (bm + r < n && k0 + c < n)
                va = *reinterpret_cast<const float4 *>(&A[(size_t)(bm + r) * n + k0 + c]);
            As[c + 0][r] = va.x, As[c + 1][r] = va.y, As[c + 2][r] = va.z, As[c + 3][r] = va.w;
            // B: row tid/32, columns (tid%32)*4 .. +3.
            int br = tid / 32, bc = (tid % 32) * 4;
            float4 vb = make_float4(0.f, 0.f, 0.f, 0.f);
            if (k0 + br < n && bn + bc < n)
                vb = *reinterpret_cast<const float4 *>(&B[(size_t)(k0 + br) * n + bn + bc]);
            *reinterpret_cast<float4 *>(&Bs[br][bc]) = vb;
        } else {
#pragma unroll
            for (int i = 0; i < V_BM * V_BK / V_THREADS; i++) {
                int e = tid + i * V_THREADS, r = e / V_BK, c = e % V_BK;
                As[c][r] = (bm + r < n && k0 + c < n) ? A[(size_t)(bm + r) * n + k0 + c] : 0.0f;
            }
#pragma unroll
            for (int i = 0; i < V_BK * V_BN / V_THREADS; i++) {
                int e = tid + i * V_THREADS, r = e / V_BN, c = e % V_BN;
                Bs[r][c] = (k0 + r < n && bn + c < n) ? B[(size_t)(k0 + r) * n + bn + c] : 0.0f;
            }
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < V_BK; k++) {
            float a[V_TM], b[V_TN];
#pragma unroll
            for (int q = 0; q < V_TM; q += 4)
                *reinterpret_cast<float4 *>(&a[q]) = *reinterpret_cast<const float4 *>(&As[k][tr * V_TM + q]);
#pragma unroll
            for (int q = 0; q < V_TN; q += 4)
                *reinterpret_cast<float4 *>(&b[q]) = *reinterpret_cast<const float4 *>(&Bs[k][tc * V_TN + q]);
#pragma unroll
            for (int i = 0; i < V_TM; i++)
#pragma unroll
                for (int j = 0; j < V_TN; j++)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < V_TM; i++) {
        int row = bm + tr * V_TM + i;
        if (row >= n)
            break;
#pragma unroll
        for (int j = 0; j < V_TN; j += 4) {
            int col = bn + tc * V_TN + j;
            if (VEC) {
                if (col < n)
                    *reinterpret_cast<float4 *>(&C[(size_t)row * n + col]) =
                        make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++)
                    if (col + q < n)
                        C[(size_t)row * n + col + q] = acc[i][j + q];
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(V_THREADS)
    mmprof_vectorized(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    vectorized_body<true>(A, B, C, n);
}

extern "C" __global__ void __launch_bounds__(V_THREADS)
    mmprof_vectorized_any(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    vectorized_body<false>(A, B, C, n);
}

static bool vectorized_shape(int n, kernel_shape *s)
{
    bool vec = n % 4 == 0;
    fill_shape(s, vec ? (const void *)mmprof_vectorized : (const void *)mmprof_vectorized_any,
               vec ? "mmprof_vectorized" : "mmprof_vectorized_any", ceil_div(n, V_BN), ceil_div(n, V_BM),
               V_THREADS, 1, 0);
    return true;
}

static int vectorized_launch(const float *A, const float *B, float *C, int n, void *stream, char *err,
                             size_t errlen)
{
    dim3 grid(ceil_div(n, V_BN), ceil_div(n, V_BM));
    if (n % 4 == 0)
        mmprof_vectorized<<<grid, V_THREADS, 0, (cudaStream_t)stream>>>(A, B, C, n);
    else
        mmprof_vectorized_any<<<grid, V_THREADS, 0, (cudaStream_t)stream>>>(A, B, C, n);
    CUDA_TRY_LAUNCH("mmprof_vectorized");
    return 0;
}

extern "C" const gpu_compute gpu_vectorized = {PREC_FP32, vectorized_launch, vectorized_shape, NULL, false};
