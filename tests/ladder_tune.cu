// The ladder's tuning and verification harness (build/tests/ladder_tune, run on the GPU machine).
//
// In one process, so every figure shares one GPU state:
//  1. verification: every ladder workload and every candidate configuration of the two top
//     kernels, on fresh random inputs at odd and even sizes, with C poisoned (NaN) before the
//     run, against an FP64 product (cublasDgemm on the same inputs);
//  2. timing at the sizes in TUNE_SIZES (default "2048 4096 8192"): each candidate verified
//     once against cuBLAS FP32 at that size, then 2 warm-up launches and R launches timed one by
//     one with cudaEvents; median, spread ((max - min) / median), TFLOP/s, % of FP32 peak and %
//     of cuBLAS in the same precision. cuBLAS FP32 is timed before and after the candidates, so
//     a drift in clocks shows.
// Prints one compact table per size; exits 1 when anything failed verification or a CUDA call.
//
//   ladder_tune [--quick]   (--quick: 2048 and 4096 only, fewer repeats)
#include <cublas_v2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "ladder_pipelined.cuh"
#include "ladder_tf32.cuh"
#include "ladder_wgmma.cuh"
#include "ladder_wgmma_tma.cuh"

extern "C" const gpu_compute gpu_naive, gpu_tiled, gpu_uncoalesced, gpu_blocktile_1d, gpu_blocktile_2d,
    gpu_vectorized, gpu_warptiled, gpu_pipelined, gpu_tf32_mma, gpu_tf32_wgmma;

#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(2);                                                                              \
        }                                                                                         \
    } while (0)
#define CB(call)                                                                                  \
    do {                                                                                          \
        cublasStatus_t s_ = (call);                                                               \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                        \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cublasGetStatusString(s_)); \
            exit(2);                                                                              \
        }                                                                                         \
    } while (0)

static cublasHandle_t handle;
static cudaStream_t stream;

// ---------- candidates ----------

template <class Cfg>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINB) tune_pipe(const float *A, const float *B, float *C, int n)
{
    pipelined_body<Cfg>(A, B, C, n);
}

template <class Cfg>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINB) tune_tf32(const float *A, const float *B, float *C, int n)
{
    tf32_body<Cfg>(A, B, C, n);
}

template <class Cfg>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINB) tune_wgmma(const float *A, const float *B, float *C, int n)
{
    wgmma_body<Cfg>(A, B, C, n);
}

template <class Cfg>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINB) tune_wgp(const float *A, const float *B, float *C, int n)
{
    wgmma_pipe_body<Cfg>(A, B, C, n);
}

template <class Cfg>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    tune_wgt(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb, float *C, int n)
{
    wgt_body<Cfg>(&ma, &mb, C, n);
}

typedef cudaError_t (*launch_fn)(const float *, const float *, float *, int);

template <class Cfg> static cudaError_t pipe_one(const float *A, const float *B, float *C, int n)
{
    static bool set;
    if (!set) {
        cudaError_t e = cudaFuncSetAttribute(tune_pipe<Cfg>, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES);
        if (e != cudaSuccess)
            return e;
        set = true;
    }
    tune_pipe<Cfg><<<pipe_grid<Cfg>(n), Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(A, B, C, n);
    return cudaGetLastError();
}

template <template <bool> class P> static cudaError_t launch_pipe(const float *A, const float *B, float *C, int n)
{
    return n % 4 == 0 ? pipe_one<P<true>>(A, B, C, n) : pipe_one<P<false>>(A, B, C, n);
}

template <class Cfg> static cudaError_t tf32_one(const float *A, const float *B, float *C, int n)
{
    static bool set;
    if (!set) {
        cudaError_t e = cudaFuncSetAttribute(tune_tf32<Cfg>, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES);
        if (e != cudaSuccess)
            return e;
        set = true;
    }
    tune_tf32<Cfg><<<tf32_grid<Cfg>(n), Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(A, B, C, n);
    return cudaGetLastError();
}

template <template <bool> class P> static cudaError_t launch_tf32(const float *A, const float *B, float *C, int n)
{
    return n % 4 == 0 ? tf32_one<P<true>>(A, B, C, n) : tf32_one<P<false>>(A, B, C, n);
}

template <class Cfg> static cudaError_t wg_one(const float *A, const float *B, float *C, int n)
{
    static bool set;
    if (!set) {
        cudaError_t e = cudaFuncSetAttribute(tune_wgmma<Cfg>, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES);
        if (e != cudaSuccess)
            return e;
        set = true;
    }
    tune_wgmma<Cfg><<<wg_grid<Cfg>(n), Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(A, B, C, n);
    return cudaGetLastError();
}

template <template <bool> class P> static cudaError_t launch_wg(const float *A, const float *B, float *C, int n)
{
    return n % 4 == 0 ? wg_one<P<true>>(A, B, C, n) : wg_one<P<false>>(A, B, C, n);
}

template <class Cfg> static cudaError_t wgp_one(const float *A, const float *B, float *C, int n)
{
    static bool set;
    if (!set) {
        cudaError_t e = cudaFuncSetAttribute(tune_wgp<Cfg>, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES);
        if (e != cudaSuccess)
            return e;
        set = true;
    }
    tune_wgp<Cfg><<<wg_grid<Cfg>(n), Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(A, B, C, n);
    return cudaGetLastError();
}

template <template <bool> class P> static cudaError_t launch_wgp(const float *A, const float *B, float *C, int n)
{
    return n % 4 == 0 ? wgp_one<P<true>>(A, B, C, n) : wgp_one<P<false>>(A, B, C, n);
}

// Round 5: TMA producer warpgroup + 2 consumer warpgroups, mbarrier ring (ladder_wgmma_tma.cuh).
// WgtCfg<STAGES, GROUP, TF32MAP, PRODREG, CONSREG>. Where the TMA kernel does not apply (n % 4 != 0
// or n < 256) the launcher falls back to the round-4 kernel, as the workload does.
using Wt4rn = WgtCfg<4, 8, true>;
using Wt4tr = WgtCfg<4, 8, false>;
using Wt4rnP = WgtCfg<4, 8, true, true>;

// Round 4, wgmma with MMAs in flight across k-steps:
// WgpCfg<BM, warpgroups, BK, STAGES, MINB, GROUP, VEC, SWZ, ROUND> (ladder_wgmma.cuh).
template <bool V> using Wp256k32sw = WgpCfg<256, 2, 32, 4, 1, 8, V, true, true>;
template <bool V> using Wp256k32swTr = WgpCfg<256, 2, 32, 4, 1, 8, V, true, false>;
template <bool V> using Wp256k32swG0 = WgpCfg<256, 2, 32, 4, 1, 0, V, true, true>;
template <bool V> using Wp256k32 = WgpCfg<256, 2, 32, 4, 1, 8, V, false, true>;
template <bool V> using Wp256k16s8 = WgpCfg<256, 2, 16, 8, 1, 8, V, false, true>;
template <bool V> using Wp128x256k32sw = WgpCfg<128, 4, 32, 4, 1, 8, V, true, true>;
template <bool V> using Wp128x256k16s8 = WgpCfg<128, 4, 16, 8, 1, 8, V, false, true>;
template <bool V> using Wp128k16s6x2 = WgpCfg<128, 2, 16, 6, 2, 8, V, false, true>;
template <bool V> using Wp128k32s4sw = WgpCfg<128, 2, 32, 4, 1, 8, V, true, true>;
// Round 4b: truncated A tile; EARLY (wgmma group before the copies), FENCE, 64-byte swizzle at BK 16.
// WgpCfg<BM, warpgroups, BK, STAGES, MINB, GROUP, VEC, SWZ, ROUND, EARLY, FENCE>.
template <bool V> using W4e = WgpCfg<256, 2, 32, 4, 1, 8, V, true, false, true, true>;
template <bool V> using W4nf = WgpCfg<256, 2, 32, 4, 1, 8, V, true, false, false, false>;
template <bool V> using W4enf = WgpCfg<256, 2, 32, 4, 1, 8, V, true, false, true, false>;
template <bool V> using W4re = WgpCfg<256, 2, 32, 4, 1, 8, V, true, true, true, true>;
template <bool V> using W4x256e = WgpCfg<128, 4, 32, 4, 1, 8, V, true, false, true, true>;
template <bool V> using W4k16e = WgpCfg<256, 2, 16, 8, 1, 8, V, true, false, true, true>;
template <bool V> using W4k16enf = WgpCfg<256, 2, 16, 8, 1, 8, V, true, false, true, false>;
template <bool V> using W4x2e = WgpCfg<128, 2, 16, 6, 2, 8, V, true, false, true, true>;
template <bool V> using W4x2enf = WgpCfg<128, 2, 16, 6, 2, 8, V, true, false, true, false>;

template <class Cfg> static cudaError_t wgt_one(const float *A, const float *B, float *C, int n)
{
    if (!wgt_takes(n))
        return launch_wgp<W4e>(A, B, C, n);
    static bool set;
    static WgtMaps maps;
    if (!set) {
        cudaError_t e = cudaFuncSetAttribute(tune_wgt<Cfg>, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES);
        if (e != cudaSuccess)
            return e;
        set = true;
    }
    if (!wgt_maps<Cfg>(&maps, A, B, n)) {
        fprintf(stderr, "cuTensorMapEncodeTiled: no entry point, or it failed (n = %d)\n", n);
        return cudaErrorUnknown;
    }
    static int sms;
    if (!sms && cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess)
        return cudaErrorUnknown;
    tune_wgt<Cfg><<<wgt_grid<Cfg>(n, sms), Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(maps.ma, maps.mb, C, n);
    return cudaGetLastError();
}

// wgmma candidates: WgCfg<BM, warpgroups (BN = 64 each), BK, STAGES, MINB, VEC>.
template <bool V> using W256x128k32s4 = WgCfg<256, 2, 32, 4, 1, V>;
template <bool V> using W256x128k32s3 = WgCfg<256, 2, 32, 3, 1, V>;
template <bool V> using W256x128k16s6 = WgCfg<256, 2, 16, 6, 1, V>;
template <bool V> using W128x128k32s3 = WgCfg<128, 2, 32, 3, 2, V>;
template <bool V> using W128x256k32s3 = WgCfg<128, 4, 32, 3, 1, V>;
template <bool V> using W256x64k32s4 = WgCfg<256, 1, 32, 4, 2, V>;
template <bool V> using W256x128k32s4_swap = WgCfg<256, 2, 32, 4, 1, V, true>;

// FP32 candidates: PipeCfg<BM, BN, BK, WM, WN, LM, STAGES, MINB, GROUP, VEC, SERP, FAST>.
template <bool V> using P128x256 = PipeCfg<128, 256, 8, 64, 64, 8, 4, 1, 0, V>;
template <bool V> using P128x256_serp = PipeCfg<128, 256, 8, 64, 64, 8, 4, 1, 0, V, true, false>;
template <bool V> using P128x256_fast = PipeCfg<128, 256, 8, 64, 64, 8, 4, 1, 0, V, false, true>;
template <bool V> using P128x256_sf = PipeCfg<128, 256, 8, 64, 64, 8, 4, 1, 0, V, true, true>;
template <bool V> using P128x256_sf_s3 = PipeCfg<128, 256, 8, 64, 64, 8, 3, 1, 0, V, true, true>;
template <bool V> using P128x256_sf_k16 = PipeCfg<128, 256, 16, 64, 64, 8, 3, 1, 0, V, true, true>;
template <bool V> using P128x256_sf_lm4 = PipeCfg<128, 256, 8, 64, 64, 4, 4, 1, 0, V, true, true>;
template <bool V> using P128x128_t128_sf = PipeCfg<128, 128, 8, 64, 64, 8, 4, 2, 0, V, true, true>;
template <bool V> using P128x128_t128_sf_lm4 = PipeCfg<128, 128, 8, 64, 64, 4, 4, 2, 0, V, true, true>;
template <bool V> using P128x128_t128_sf_s3 = PipeCfg<128, 128, 8, 64, 64, 8, 3, 2, 0, V, true, true>;
template <bool V> using P128x128_w64x32_sf = PipeCfg<128, 128, 8, 64, 32, 8, 4, 2, 0, V, true, true>;
template <bool V> using P256x128_sf_lm4 = PipeCfg<256, 128, 8, 64, 64, 4, 4, 1, 0, V, true, true>;

// TF32 candidates: Tf32Cfg<BM, BN, BK, WM, WN, STAGES, MINB, GROUP, VEC, IADD, BPERM>.
template <bool V> using T128x256k32 = Tf32Cfg<128, 256, 32, 64, 64, 3, 1, 0, V>;
template <bool V> using T128x256k32_i = Tf32Cfg<128, 256, 32, 64, 64, 3, 1, 0, V, true, false>;
template <bool V> using T128x256k32_p = Tf32Cfg<128, 256, 32, 64, 64, 3, 1, 0, V, false, true>;
template <bool V> using T128x256k32_ip = Tf32Cfg<128, 256, 32, 64, 64, 3, 1, 0, V, true, true>;
template <bool V> using T128x256k32_ip_s4 = Tf32Cfg<128, 256, 32, 64, 64, 4, 1, 0, V, true, true>;
template <bool V> using T128x256k16_ip = Tf32Cfg<128, 256, 16, 64, 64, 4, 1, 0, V, true, true>;
template <bool V> using T128x128k32_ip = Tf32Cfg<128, 128, 32, 64, 64, 3, 2, 0, V, true, true>;
template <bool V> using T128x128k32_i = Tf32Cfg<128, 128, 32, 64, 64, 3, 2, 0, V, true, false>;
template <bool V> using T128x128k16_ip = Tf32Cfg<128, 128, 16, 64, 64, 4, 2, 0, V, true, true>;
template <bool V> using T128x128k32_w64x32_ip = Tf32Cfg<128, 128, 32, 64, 32, 3, 2, 0, V, true, true>;
template <bool V> using T256x128k32_ip = Tf32Cfg<256, 128, 32, 64, 64, 3, 1, 0, V, true, true>;
template <bool V> using T128x256k32_ip_g8 = Tf32Cfg<128, 256, 32, 64, 64, 3, 1, 8, V, true, true>;

// The real workloads, through the interface the runner uses.
template <const gpu_compute *W> static cudaError_t launch_workload(const float *A, const float *B, float *C, int n)
{
    static bool set;
    char err[256] = "";
    if (!set && W->setup && W->setup(err, sizeof err) != 0) {
        fprintf(stderr, "setup: %s\n", err);
        return cudaErrorUnknown;
    }
    set = true;
    if (W->launch(A, B, C, n, stream, err, sizeof err) != 0) {
        fprintf(stderr, "launch: %s\n", err);
        return cudaErrorLaunchFailure;
    }
    return cudaSuccess;
}

static cudaError_t cublas_fp32(const float *A, const float *B, float *C, int n)
{
    const float one = 1.0f, zero = 0.0f;
    if (cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS ||
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n) != CUBLAS_STATUS_SUCCESS)
        return cudaErrorUnknown;
    return cudaGetLastError();
}

static cudaError_t cublas_tf32(const float *A, const float *B, float *C, int n)
{
    const float one = 1.0f, zero = 0.0f;
    if (cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH) != CUBLAS_STATUS_SUCCESS ||
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n) != CUBLAS_STATUS_SUCCESS)
        return cudaErrorUnknown;
    return cudaGetLastError();
}

typedef struct {
    const char *name;
    bool tf32;
    bool fast; // timed at every size; slow ladder steps only at the smaller sizes
    launch_fn fn;
} entry;

static const entry entries[] = {
    {"cublas-sgemm", false, true, cublas_fp32},
    {"cublas-tf32", true, true, cublas_tf32},
    {"cuda-uncoalesced", false, false, launch_workload<&gpu_uncoalesced>},
    {"cuda-naive", false, false, launch_workload<&gpu_naive>},
    {"cuda-tiled", false, false, launch_workload<&gpu_tiled>},
    {"cuda-blocktile-1d", false, false, launch_workload<&gpu_blocktile_1d>},
    {"cuda-blocktile-2d", false, true, launch_workload<&gpu_blocktile_2d>},
    {"cuda-vectorized", false, true, launch_workload<&gpu_vectorized>},
    {"cuda-warptiled", false, true, launch_workload<&gpu_warptiled>},
    {"cuda-pipelined", false, true, launch_workload<&gpu_pipelined>},
    {"cuda-tf32-mma", true, true, launch_workload<&gpu_tf32_mma>},
    {"cuda-tf32-wgmma", true, true, launch_workload<&gpu_tf32_wgmma>},
    {"p128x256", false, true, launch_pipe<P128x256>},
    {"p128x256 serp", false, true, launch_pipe<P128x256_serp>},
    {"p128x256 fast", false, true, launch_pipe<P128x256_fast>},
    {"p128x256 sf", false, true, launch_pipe<P128x256_sf>},
    {"p128x256 sf s3", false, true, launch_pipe<P128x256_sf_s3>},
    {"p128x256 sf k16 s3", false, true, launch_pipe<P128x256_sf_k16>},
    {"p128x256 sf lm4", false, true, launch_pipe<P128x256_sf_lm4>},
    {"p128x128 t128 sf", false, true, launch_pipe<P128x128_t128_sf>},
    {"p128x128 t128 sf lm4", false, true, launch_pipe<P128x128_t128_sf_lm4>},
    {"p128x128 t128 sf s3", false, true, launch_pipe<P128x128_t128_sf_s3>},
    {"p128x128 w64x32 sf", false, true, launch_pipe<P128x128_w64x32_sf>},
    {"p256x128 sf lm4", false, true, launch_pipe<P256x128_sf_lm4>},
    {"t128x256 k32 cvt", true, true, launch_tf32<T128x256k32>},
    {"t128x256 k32 iadd", true, true, launch_tf32<T128x256k32_i>},
    {"t128x256 k32 perm", true, true, launch_tf32<T128x256k32_p>},
    {"t128x256 k32 ip", true, true, launch_tf32<T128x256k32_ip>},
    {"t128x256 k32 ip s4", true, true, launch_tf32<T128x256k32_ip_s4>},
    {"t128x256 k16 ip s4", true, true, launch_tf32<T128x256k16_ip>},
    {"t128x128 k32 ip", true, true, launch_tf32<T128x128k32_ip>},
    {"t128x128 k16 ip s4", true, true, launch_tf32<T128x128k16_ip>},
    {"t128x128 k32 w64x32 ip", true, true, launch_tf32<T128x128k32_w64x32_ip>},
    {"t256x128 k32 ip", true, true, launch_tf32<T256x128k32_ip>},
    {"t128x256 k32 ip g8", true, true, launch_tf32<T128x256k32_ip_g8>},
    {"t128x128 k32 iadd", true, true, launch_tf32<T128x128k32_i>},
    {"wg256x128 k32 s4", true, true, launch_wg<W256x128k32s4>},
    {"wg256x128 k32 s3", true, true, launch_wg<W256x128k32s3>},
    {"wg256x128 k16 s6", true, true, launch_wg<W256x128k16s6>},
    {"wg128x128 k32 s3 x2", true, true, launch_wg<W128x128k32s3>},
    {"wg128x256 k32 s3", true, true, launch_wg<W128x256k32s3>},
    {"wg256x64 k32 s4 x2", true, true, launch_wg<W256x64k32s4>},
    {"wg256x128 swapped desc", true, true, launch_wg<W256x128k32s4_swap>},
    {"wgp256x128 sw", true, true, launch_wgp<Wp256k32sw>},
    {"wgp256x128 sw trunc", true, true, launch_wgp<Wp256k32swTr>},
    {"wgp256x128 sw g0", true, true, launch_wgp<Wp256k32swG0>},
    {"wgp256x128 ns", true, true, launch_wgp<Wp256k32>},
    {"wgp256x128 k16 s8 ns", true, true, launch_wgp<Wp256k16s8>},
    {"wgp128x256 sw", true, true, launch_wgp<Wp128x256k32sw>},
    {"wgp128x256 k16 s8 ns", true, true, launch_wgp<Wp128x256k16s8>},
    {"wgp128x128 k16 x2 ns", true, true, launch_wgp<Wp128k16s6x2>},
    {"wgp128x128 sw", true, true, launch_wgp<Wp128k32s4sw>},
    {"w4 256 tr early", true, true, launch_wgp<W4e>},
    {"w4 256 tr nofence", true, true, launch_wgp<W4nf>},
    {"w4 256 tr early nf", true, true, launch_wgp<W4enf>},
    {"w4 256 rnd early", true, true, launch_wgp<W4re>},
    {"w4 128x256 tr early", true, true, launch_wgp<W4x256e>},
    {"w4 256 k16 sw64 e", true, true, launch_wgp<W4k16e>},
    {"w4 256 k16 sw64 e nf", true, true, launch_wgp<W4k16enf>},
    {"w4 128 k16 sw64 x2 e", true, true, launch_wgp<W4x2e>},
    {"w4 128 k16 sw64 x2 e nf", true, true, launch_wgp<W4x2enf>},
    {"tma s4 rn", true, true, wgt_one<Wt4rn>},
    {"tma s4 tr", true, true, wgt_one<Wt4tr>},
    {"tma s4 rn pers", true, true, wgt_one<Wt4rnP>},
};
#define NENTRIES (int)(sizeof entries / sizeof entries[0])

// ---------- helpers ----------

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void fill(std::vector<float> &x, uint64_t seed)
{
    for (auto &v : x)
        v = 2.0f * ((float)(splitmix(&seed) >> 40) * (1.0f / 16777216.0f)) - 1.0f;
}

static double rel_err(const std::vector<float> &c, const std::vector<double> &ref)
{
    double d = 0, r = 0;
    for (size_t i = 0; i < c.size(); i++) {
        if (!std::isfinite(c[i]))
            return NAN;
        double e = (double)c[i] - ref[i];
        d += e * e;
        r += ref[i] * ref[i];
    }
    return r > 0 ? sqrt(d / r) : (d == 0 ? 0 : INFINITY);
}

static double bound(const entry &e)
{
    return e.tf32 ? 1e-3 : 1e-5;
}

// Poisons C, runs one product, returns its error against ref (NaN when an element was never
// written), or -1 when a CUDA call failed.
static double check(const entry &e, const float *dA, const float *dB, float *dC, int n, const std::vector<double> &ref)
{
    size_t count = (size_t)n * n;
    CK(cudaMemsetAsync(dC, 0xFF, count * sizeof(float), stream));
    cudaError_t le = e.fn(dA, dB, dC, n);
    cudaError_t se = cudaStreamSynchronize(stream);
    if (le != cudaSuccess || se != cudaSuccess) {
        fprintf(stderr, "%s n=%d: %s\n", e.name, n, cudaGetErrorString(le != cudaSuccess ? le : se));
        return -1;
    }
    std::vector<float> c(count);
    CK(cudaMemcpy(c.data(), dC, count * sizeof(float), cudaMemcpyDeviceToHost));
    return rel_err(c, ref);
}

static int failures;

// For the summary printed last: the largest FP64 error over the verified sizes, and TFLOP/s and
// % of cuBLAS (same precision) at each timed size.
#define MAX_TSIZES 8
static double max_err[NENTRIES];
static int tsizes[MAX_TSIZES], ntsizes;
static double sum_tfl[MAX_TSIZES][NENTRIES], sum_pct[MAX_TSIZES][NENTRIES];

// Whether name contains one of the comma-separated substrings in list.
static bool matches(const char *name, const char *list)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
        if (s[0] && strstr(name, s))
            return true;
    return false;
}

// TUNE_ONLY / TUNE_SKIP: run only the candidates whose name contains one of the first list's
// substrings (comma-separated), skip those that contain one of the second's (cuBLAS always runs).
// A kernel that faults ends the process's CUDA context, so risky candidates are run in a process
// of their own.
static bool selected(int i)
{
    if (i < 2)
        return true;
    const char *only = getenv("TUNE_ONLY"), *skip = getenv("TUNE_SKIP");
    if (only && only[0] && !matches(entries[i].name, only))
        return false;
    if (skip && skip[0] && matches(entries[i].name, skip))
        return false;
    return true;
}

static void verify_size(int n, uint64_t seed)
{
    size_t count = (size_t)n * n;
    std::vector<float> A(count), B(count);
    fill(A, seed);
    fill(B, seed + 1);
    std::vector<double> Ad(A.begin(), A.end()), Bd(B.begin(), B.end()), ref(count);
    float *dA, *dB, *dC;
    double *dAd, *dBd, *dR;
    CK(cudaMalloc(&dA, count * 4));
    CK(cudaMalloc(&dB, count * 4));
    CK(cudaMalloc(&dC, count * 4));
    CK(cudaMalloc(&dAd, count * 8));
    CK(cudaMalloc(&dBd, count * 8));
    CK(cudaMalloc(&dR, count * 8));
    CK(cudaMemcpy(dA, A.data(), count * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, B.data(), count * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dAd, Ad.data(), count * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dBd, Bd.data(), count * 8, cudaMemcpyHostToDevice));
    const double one = 1.0, zero = 0.0;
    CB(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dBd, n, dAd, n, &zero, dR, n));
    // The handle's stream is non-blocking: cudaMemcpy on the default stream would not wait.
    CK(cudaStreamSynchronize(stream));
    CK(cudaMemcpy(ref.data(), dR, count * 8, cudaMemcpyDeviceToHost));
    printf("verify n=%-5d", n);
    int bad = 0, ran = 0;
    for (int i = 0; i < NENTRIES; i++) {
        if (!selected(i))
            continue;
        ran++;
        double e = check(entries[i], dA, dB, dC, n, ref);
        const double v = e < 0 ? NAN : e; // a failed CUDA call counts as NaN
        if (!std::isnan(max_err[i]) && !(v <= max_err[i]))
            max_err[i] = v; // NaN sticks
        if (!(e >= 0 && e <= bound(entries[i]))) {
            printf("\n  FAIL %-22s err %.3g (bound %.0e)", entries[i].name, e, bound(entries[i]));
            bad++;
        }
    }
    printf(bad ? "\n" : "  all %d ok\n", ran);
    failures += bad;
    cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dAd), cudaFree(dBd), cudaFree(dR);
}

typedef struct {
    double med, lo, hi, err;
    bool ok;
} timing;

static timing time_one(const entry &e, const float *dA, const float *dB, float *dC, int n,
                       const std::vector<double> &ref, int repeat)
{
    timing t = {NAN, NAN, NAN, NAN, false};
    t.err = check(e, dA, dB, dC, n, ref);
    if (t.err < 0)
        return t;
    std::vector<cudaEvent_t> ev(repeat + 1);
    for (auto &x : ev)
        CK(cudaEventCreate(&x));
    for (int i = 0; i < 2; i++)
        CK(e.fn(dA, dB, dC, n));
    CK(cudaEventRecord(ev[0], stream));
    for (int i = 0; i < repeat; i++) {
        CK(e.fn(dA, dB, dC, n));
        CK(cudaEventRecord(ev[i + 1], stream));
    }
    CK(cudaStreamSynchronize(stream));
    std::vector<double> ms(repeat);
    for (int i = 0; i < repeat; i++) {
        float f;
        CK(cudaEventElapsedTime(&f, ev[i], ev[i + 1]));
        ms[i] = f;
    }
    for (auto &x : ev)
        cudaEventDestroy(x);
    std::sort(ms.begin(), ms.end());
    t.med = repeat % 2 ? ms[repeat / 2] : 0.5 * (ms[repeat / 2 - 1] + ms[repeat / 2]);
    t.lo = ms.front(), t.hi = ms.back();
    t.ok = true;
    return t;
}

static void time_size(int n, int repeat, double peak_tflops)
{
    size_t count = (size_t)n * n;
    std::vector<float> A(count), B(count);
    fill(A, 1000 + n);
    fill(B, 2000 + n);
    float *dA, *dB, *dC;
    CK(cudaMalloc(&dA, count * 4));
    CK(cudaMalloc(&dB, count * 4));
    CK(cudaMalloc(&dC, count * 4));
    CK(cudaMemcpy(dA, A.data(), count * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, B.data(), count * 4, cudaMemcpyHostToDevice));
    // The reference at this size: cuBLAS FP32 (checked against FP64 at the verify sizes).
    std::vector<float> c(count);
    CK(cublas_fp32(dA, dB, dC, n));
    CK(cudaStreamSynchronize(stream));
    CK(cudaMemcpy(c.data(), dC, count * 4, cudaMemcpyDeviceToHost));
    std::vector<double> ref(c.begin(), c.end());

    double flops = 2.0 * n * (double)n * n;
    printf("\nn = %d  (median of %d launches; spread = (max-min)/median; %%cuBLAS vs the same precision)\n", n, repeat);
    printf("%-22s %9s %7s %8s %6s %8s %9s\n", "kernel", "median ms", "spread", "TFLOP/s", "%peak", "%cuBLAS", "err");
    timing sg = time_one(entries[0], dA, dB, dC, n, ref, repeat);
    timing tf = time_one(entries[1], dA, dB, dC, n, ref, repeat);
    std::vector<timing> all(NENTRIES);
    all[0] = sg, all[1] = tf;
    for (int i = 2; i < NENTRIES; i++) {
        if ((!entries[i].fast && n > 4096) || !selected(i))
            continue;
        // Slow steps get fewer launches: they are minutes, not milliseconds, at large n.
        all[i] = time_one(entries[i], dA, dB, dC, n, ref, entries[i].fast ? repeat : 5);
    }
    timing sg2 = time_one(entries[0], dA, dB, dC, n, ref, repeat);
    for (int i = 0; i < NENTRIES; i++) {
        const timing &t = all[i];
        if ((!entries[i].fast && n > 4096) || !selected(i))
            continue;
        if (!t.ok) {
            printf("%-22s error\n", entries[i].name);
            failures++;
            continue;
        }
        double tfl = flops / t.med / 1e9;
        double vs = 100.0 * (entries[i].tf32 ? tf.med : sg.med) / t.med;
        if (ntsizes > 0)
            sum_tfl[ntsizes - 1][i] = tfl, sum_pct[ntsizes - 1][i] = vs;
        bool bad = !(t.err <= bound(entries[i]));
        failures += bad;
        char pk[16] = "-";
        if (!entries[i].tf32)
            snprintf(pk, sizeof pk, "%.1f", 100.0 * tfl / peak_tflops);
        printf("%-22s %9.4f %6.1f%% %8.2f %6s %7.1f%% %9.2e%s\n", entries[i].name, t.med,
               100.0 * (t.hi - t.lo) / t.med, tfl, pk, vs, t.err, bad ? " FAIL" : "");
    }
    printf("%-22s %9.4f %6.1f%% %8.2f (timed again after the candidates: %+.1f%% vs first)\n", "cublas-sgemm again",
           sg2.med, 100.0 * (sg2.hi - sg2.lo) / sg2.med, flops / sg2.med / 1e9, 100.0 * (sg2.med - sg.med) / sg.med);
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    CK(cudaSetDevice(0));
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CB(cublasCreate(&handle));
    CB(cublasSetStream(handle, stream));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    // 128 FP32 lanes per SM on sm_90, 2 FLOP per FMA.
    double peak = 128.0 * 2 * p.multiProcessorCount * clock_khz * 1e3 / 1e12;
    printf("%s, %d SMs at %d MHz, FP32 peak %.1f TFLOP/s\n", p.name, p.multiProcessorCount, clock_khz / 1000, peak);

    // TUNE_VSIZES: the sizes verified against FP64 (default below).
    const char *venv = getenv("TUNE_VSIZES");
    char vlist[256];
    snprintf(vlist, sizeof vlist, "%s", venv && venv[0] ? venv : "1 17 33 255 257 1000 1023 2048 4096");
    for (char *save = NULL, *s = strtok_r(vlist, " ,", &save); s; s = strtok_r(NULL, " ,", &save)) {
        int n = atoi(s);
        if (n > 0)
            verify_size(n, 77 + (uint64_t)n * 3);
    }

    const char *env = getenv("TUNE_SIZES");
    char list[256];
    snprintf(list, sizeof list, "%s", env && env[0] ? env : (quick ? "2048 4096" : "2048 4096 8192"));
    for (char *save = NULL, *s = strtok_r(list, " ,", &save); s; s = strtok_r(NULL, " ,", &save)) {
        int n = atoi(s);
        if (ntsizes < MAX_TSIZES)
            tsizes[ntsizes++] = n;
        time_size(n, quick ? 10 : (n >= 8192 ? 15 : 30), peak);
    }
    // Summary: one line per selected candidate.
    printf("\nsummary: TFLOP/s (%% of cuBLAS, same precision) per size; max FP64 error over the verified sizes\n");
    printf("%-24s", "kernel");
    for (int s = 0; s < ntsizes; s++)
        printf(" %8d %7s", tsizes[s], "");
    printf(" %9s\n", "max err");
    for (int i = 0; i < NENTRIES; i++) {
        if (!selected(i))
            continue;
        printf("%-24s", entries[i].name);
        for (int s = 0; s < ntsizes; s++)
            if (sum_tfl[s][i] > 0)
                printf(" %8.1f (%5.1f%%)", sum_tfl[s][i], sum_pct[s][i]);
            else
                printf(" %8s %7s", "-", "");
        printf(" %9.2e\n", max_err[i]);
    }
    printf("\n%s: %d failure(s)\n", failures ? "FAILED" : "ok", failures);
    cublasDestroy(handle);
    return failures ? 1 : 0;
}
