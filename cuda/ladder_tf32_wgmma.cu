// Ladder step 9 (cuda-tf32-wgmma): TF32 on Hopper's warpgroup MMA (wgmma), the instruction
// cuBLAS's TF32 kernel uses. The template and its reasoning are in ladder_wgmma.cuh
// (wgmma_pipe_body); measurements and the choice of configuration in README.md.
//
// wgmma exists only in the architecture-specific sm_90a target, so this file alone is built for
// it (Makefile) and its code runs on compute capability 9.0 only (H100, H200): setup() refuses any
// other device with a message that says so.
//
// Round 5: for n % 4 == 0 and n >= 256 the kernel is the TMA-fed, warp-specialized one
// (ladder_wgmma_tma.cuh); the round-4 cp.async kernels below stay for the other sizes, and for
// any size when the driver offers no cuTensorMapEncodeTiled.
#include "ladder_wgmma_tma.cuh"

// The round-4 kernels, used where the TMA kernel is not (n % 4 != 0, n < 256, or no tensor-map
// encoder in the driver):
// 256x128 block tile (C rows x columns), 2 warpgroups of m64n256k8, k-step 32, 4 stages of
// cp.async (2 tiles in flight while 2 wgmma groups run), A tile in the 128-byte swizzle and
// truncated to TF32 by the tensor core (B^T fragments rounded in registers), the wgmma group
// issued before the next copies, grouped launch order (8 tile-rows).
template <bool VEC> using WgBest = WgpCfg<256, 2, 32, 4, 1, 8, VEC, true, false, true, true>;
// n % 4 != 0: 4-byte copies. The 256-row tile spills with them (32 copies per thread and k-step),
// so a 128x128 tile.
using WgAny = WgpCfg<128, 2, 32, 4, 1, 8, false, true, false, true, true>;
// n % 4 == 0, n >= 256: a producer warpgroup feeding 4 stages through TMA, 2 consumer warpgroups
// of m64n256k8 (256x128 block tile, k-step 32), grouped launch order, tensor maps of type
// TFLOAT32 (the copy engine rounds both operands to TF32).
using WgTma = WgtCfg<4, 8, true>;

extern "C" __global__ void __launch_bounds__(WgTma::THREADS, 1)
    mmprof_tf32_wgmma_tma(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb,
                          float *__restrict__ C, int n)
{
    wgt_body<WgTma>(&ma, &mb, C, n);
}

extern "C" __global__ void __launch_bounds__(WgBest<true>::THREADS, WgBest<true>::MINB)
    mmprof_tf32_wgmma(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    wgmma_pipe_body<WgBest<true>>(A, B, C, n);
}

extern "C" __global__ void __launch_bounds__(WgAny::THREADS, WgAny::MINB)
    mmprof_tf32_wgmma_any(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    wgmma_pipe_body<WgAny>(A, B, C, n);
}

// sm_90a code runs on compute capability 9.0 and nothing else (not 8.x, not 10.x, and no PTX
// to fall back on): say so before any launch.
static int wg_check_device(char *err, size_t errlen)
{
    int dev = 0, major = 0, minor = 0;
    CUDA_TRY(cudaGetDevice(&dev));
    CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    if (major != 9 || minor != 0) {
        if (err)
            snprintf(err, errlen,
                     "cuda-tf32-wgmma needs a compute capability 9.0 GPU (H100/H200): its wgmma code is built "
                     "for sm_90a only, and this GPU is %d.%d",
                     major, minor);
        return -1;
    }
    return 0;
}

// Per host thread, as the runner's state is (a --devices run drives each GPU from its own thread):
// the tensor maps name one GPU's buffers and must never be handed to another GPU's launch.
static thread_local int wg_ready;   // setup() passed on this device
static thread_local WgtMaps wg_maps; // the last (A, B, n) launched, with its tensor maps

// The device's multiprocessor count (a persistent grid's size), asked once.
static int wg_sms(void)
{
    static thread_local int sms;
    int dev = 0;
    if (sms <= 0 && (cudaGetDevice(&dev) != cudaSuccess ||
                     cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0))
        sms = 132;
    return sms;
}

// The TMA kernel where it applies and the driver encodes tensor maps.
static bool wg_use_tma(int n)
{
    return wgt_takes(n) && wgt_encoder() != NULL;
}

static int wg_setup(char *err, size_t errlen)
{
    if (wg_check_device(err, errlen) != 0)
        return -1;
    // More than 48 KB of dynamic shared memory per block needs the kernel's opt-in.
    CUDA_TRY(cudaFuncSetAttribute((const void *)mmprof_tf32_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  WgBest<true>::SMEM_BYTES));
    CUDA_TRY(cudaFuncSetAttribute((const void *)mmprof_tf32_wgmma_any, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  WgAny::SMEM_BYTES));
    CUDA_TRY(cudaFuncSetAttribute((const void *)mmprof_tf32_wgmma_tma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  WgTma::SMEM_BYTES));
    wg_ready = 1;
    return 0;
}

static bool wg_shape(int n, kernel_shape *s)
{
    if (wg_use_tma(n)) {
        dim3 g = wgt_grid<WgTma>(n, wg_sms());
        fill_shape(s, (const void *)mmprof_tf32_wgmma_tma, "mmprof_tf32_wgmma_tma", (int)g.x, (int)g.y,
                   WgTma::THREADS, 1, WgTma::SMEM_BYTES);
    } else if (n % 4 == 0) {
        dim3 g = wg_grid<WgBest<true>>(n);
        fill_shape(s, (const void *)mmprof_tf32_wgmma, "mmprof_tf32_wgmma", (int)g.x, (int)g.y, WgBest<true>::THREADS,
                   1, WgBest<true>::SMEM_BYTES);
    } else {
        dim3 g = wg_grid<WgAny>(n);
        fill_shape(s, (const void *)mmprof_tf32_wgmma_any, "mmprof_tf32_wgmma_any", (int)g.x, (int)g.y,
                   WgAny::THREADS, 1, WgAny::SMEM_BYTES);
    }
    return true;
}

static int wg_launch(const float *A, const float *B, float *C, int n, void *stream, char *err, size_t errlen)
{
    if (!wg_ready && wg_setup(err, errlen) != 0)
        return -1;
    cudaStream_t st = (cudaStream_t)stream;
    if (wg_use_tma(n)) {
        if (!wgt_maps<WgTma>(&wg_maps, A, B, n)) {
            if (err)
                snprintf(err, errlen, "cuTensorMapEncodeTiled failed for n = %d", n);
            return -1;
        }
        mmprof_tf32_wgmma_tma<<<wgt_grid<WgTma>(n, wg_sms()), WgTma::THREADS, WgTma::SMEM_BYTES, st>>>(
            wg_maps.ma, wg_maps.mb, C, n);
        CUDA_TRY_LAUNCH("mmprof_tf32_wgmma_tma");
        return 0;
    }
    if (n % 4 == 0)
        mmprof_tf32_wgmma<<<wg_grid<WgBest<true>>(n), WgBest<true>::THREADS, WgBest<true>::SMEM_BYTES, st>>>(A, B, C,
                                                                                                             n);
    else
        mmprof_tf32_wgmma_any<<<wg_grid<WgAny>(n), WgAny::THREADS, WgAny::SMEM_BYTES, st>>>(A, B, C, n);
    CUDA_TRY_LAUNCH("mmprof_tf32_wgmma");
    return 0;
}

extern "C" const gpu_compute gpu_tf32_wgmma = {PREC_TF32, wg_launch, wg_shape, wg_setup, false};
