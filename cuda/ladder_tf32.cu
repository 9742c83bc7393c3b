// Ladder step 8 (cuda-tf32-mma): TF32 tensor cores through mma.sync.m16n8k8, to stand beside
// cuBLAS's TF32 path. The template and its reasoning are in ladder_tf32.cuh; measurements and
// the choice of configuration in README.md.
#include "ladder_tf32.cuh"

// 128x128 block tile, k-step 32, 4 warps of 64x64, 3 stages (105 KB), 2 blocks per SM;
// rounding by integer add, B columns permuted for LDS.128 fragment loads.
template <bool VEC> using Tf32Best = Tf32Cfg<128, 128, 32, 64, 64, 3, 2, 0, VEC, true, true>;

extern "C" __global__ void __launch_bounds__(Tf32Best<true>::THREADS, Tf32Best<true>::MINB)
    mmprof_tf32_mma(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    tf32_body<Tf32Best<true>>(A, B, C, n);
}

extern "C" __global__ void __launch_bounds__(Tf32Best<false>::THREADS, Tf32Best<false>::MINB)
    mmprof_tf32_mma_any(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    tf32_body<Tf32Best<false>>(A, B, C, n);
}

static int tf32_setup(char *err, size_t errlen)
{
    // More than 48 KB of dynamic shared memory per block needs the kernel's opt-in.
    CUDA_TRY(cudaFuncSetAttribute((const void *)mmprof_tf32_mma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  Tf32Best<true>::SMEM_BYTES));
    CUDA_TRY(cudaFuncSetAttribute((const void *)mmprof_tf32_mma_any, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  Tf32Best<false>::SMEM_BYTES));
    return 0;
}

static bool tf32_shape(int n, kernel_shape *s)
{
    bool vec = n % 4 == 0;
    dim3 g = tf32_grid<Tf32Best<true>>(n);
    fill_shape(s, vec ? (const void *)mmprof_tf32_mma : (const void *)mmprof_tf32_mma_any,
               vec ? "mmprof_tf32_mma" : "mmprof_tf32_mma_any", (int)g.x, (int)g.y, Tf32Best<true>::THREADS, 1,
               vec ? Tf32Best<true>::SMEM_BYTES : Tf32Best<false>::SMEM_BYTES);
    return true;
}

static int tf32_launch(const float *A, const float *B, float *C, int n, void *stream, char *err, size_t errlen)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (n % 4 == 0)
        mmprof_tf32_mma<<<tf32_grid<Tf32Best<true>>(n), Tf32Best<true>::THREADS, Tf32Best<true>::SMEM_BYTES, st>>>(
            A, B, C, n);
    else
        mmprof_tf32_mma_any<<<tf32_grid<Tf32Best<false>>(n), Tf32Best<false>::THREADS, Tf32Best<false>::SMEM_BYTES,
                              st>>>(A, B, C, n);
    CUDA_TRY_LAUNCH("mmprof_tf32_mma");
    return 0;
}

extern "C" const gpu_compute gpu_tf32_mma = {PREC_TF32, tf32_launch, tf32_shape, tf32_setup, false};
