// Ladder step 7 (cuda-pipelined): the best FP32 kernel. cp.async multi-stage shared-memory
// pipeline, A transposed by the copies, register-double-buffered fragments; the template and
// the reasoning are in ladder_pipelined.cuh, the measurements in README.md.
//
// The configuration below was picked on the H200 by tests/ladder_tune.cu among the shapes it
// times (README.md has the table).
#include "ladder_pipelined.cuh"

// 128x256 block tile, k-step 16, 8 warps of 64x64, lanes 8 x 4 (8x16 results per thread),
// 3 stages (74.5 KB), 1 block per SM, serpentine FFMA order, unpredicated copies inside the matrix.
template <bool VEC> using PipeBest = PipeCfg<128, 256, 16, 64, 64, 8, 3, 1, 0, VEC, true, true>;

extern "C" __global__ void __launch_bounds__(PipeBest<true>::THREADS, PipeBest<true>::MINB)
    mmprof_pipelined(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    pipelined_body<PipeBest<true>>(A, B, C, n);
}

extern "C" __global__ void __launch_bounds__(PipeBest<false>::THREADS, PipeBest<false>::MINB)
    mmprof_pipelined_any(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    pipelined_body<PipeBest<false>>(A, B, C, n);
}

static int pipelined_setup(char *err, size_t errlen)
{
    // Above 48 KB of dynamic shared memory a kernel must opt in; below it this is a no-op.
    CUDA_TRY(cudaFuncSetAttribute((const void *)mmprof_pipelined, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  PipeBest<true>::SMEM_BYTES));
    CUDA_TRY(cudaFuncSetAttribute((const void *)mmprof_pipelined_any, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  PipeBest<false>::SMEM_BYTES));
    return 0;
}

static bool pipelined_shape(int n, kernel_shape *s)
{
    bool vec = n % 4 == 0;
    dim3 g = pipe_grid<PipeBest<true>>(n);
    fill_shape(s, vec ? (const void *)mmprof_pipelined : (const void *)mmprof_pipelined_any,
               vec ? "mmprof_pipelined" : "mmprof_pipelined_any", (int)g.x, (int)g.y, PipeBest<true>::THREADS, 1,
               vec ? PipeBest<true>::SMEM_BYTES : PipeBest<false>::SMEM_BYTES);
    return true;
}

static int pipelined_launch(const float *A, const float *B, float *C, int n, void *stream, char *err,
                            size_t errlen)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (n % 4 == 0)
        mmprof_pipelined<<<pipe_grid<PipeBest<true>>(n), PipeBest<true>::THREADS, PipeBest<true>::SMEM_BYTES, st>>>(
            A, B, C, n);
    else
        mmprof_pipelined_any<<<pipe_grid<PipeBest<false>>(n), PipeBest<false>::THREADS, PipeBest<false>::SMEM_BYTES,
                               st>>>(A, B, C, n);
    CUDA_TRY_LAUNCH("mmprof_pipelined");
    return 0;
}

extern "C" const gpu_compute gpu_pipelined = {PREC_FP32, pipelined_launch, pipelined_shape, pipelined_setup, false};
