// Ladder step 9 (cuda-tf32-wgmma): TF32 on Hopper's warpgroup MMA, the instruction cuBLAS's own
// TF32 kernel uses, past mma.sync's ceiling. Template and reasoning in ladder_wgmma.cuh;
// measurements in README.md. Built for sm_90a only (the Makefile gives this file its own target):
// on other GPUs its launch fails with "no kernel image" and the workload reports that error.
#include "ladder_wgmma.cuh"

// 256x128 block tile (rows x columns of C), k-step 32, 2 warpgroups, 4 stages, 1 block per SM.
using WgBest = WgCfg<256, 2, 32, 4, 1, true>;
// n % 4 != 0: 4-byte copies; the smaller 128-row tile keeps the copy arithmetic out of local memory.
using WgAny = WgCfg<128, 2, 32, 3, 1, false>;

extern "C" __global__ void __launch_bounds__(WgBest::THREADS, WgBest::MINB)
    mmprof_tf32_wgmma(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    wgmma_body<WgBest>(A, B, C, n);
}

extern "C" __global__ void __launch_bounds__(WgAny::THREADS, WgAny::MINB)
    mmprof_tf32_wgmma_any(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    wgmma_body<WgAny>(A, B, C, n);
}

static int wgmma_setup(char *err, size_t errlen)
{
    CUDA_TRY(cudaFuncSetAttribute((const void *)mmprof_tf32_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  WgBest::SMEM_BYTES));
    CUDA_TRY(cudaFuncSetAttribute((const void *)mmprof_tf32_wgmma_any, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  WgAny::SMEM_BYTES));
    return 0;
}

static bool wgmma_shape(int n, kernel_shape *s)
{
    if (n % 4 == 0) {
        dim3 g = wg_grid<WgBest>(n);
        fill_shape(s, (const void *)mmprof_tf32_wgmma, "mmprof_tf32_wgmma", (int)g.x, (int)g.y, WgBest::THREADS, 1,
                   WgBest::SMEM_BYTES);
    } else {
        dim3 g = wg_grid<WgAny>(n);
        fill_shape(s, (const void *)mmprof_tf32_wgmma_any, "mmprof_tf32_wgmma_any", (int)g.x, (int)g.y,
                   WgAny::THREADS, 1, WgAny::SMEM_BYTES);
    }
    return true;
}

static int wgmma_launch(const float *A, const float *B, float *C, int n, void *stream, char *err, size_t errlen)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (n % 4 == 0)
        mmprof_tf32_wgmma<<<wg_grid<WgBest>(n), WgBest::THREADS, WgBest::SMEM_BYTES, st>>>(A, B, C, n);
    else
        mmprof_tf32_wgmma_any<<<wg_grid<WgAny>(n), WgAny::THREADS, WgAny::SMEM_BYTES, st>>>(A, B, C, n);
    CUDA_TRY_LAUNCH("mmprof_tf32_wgmma");
    return 0;
}

extern "C" const gpu_compute gpu_tf32_wgmma = {PREC_TF32, wgmma_launch, wgmma_shape, wgmma_setup, false};
