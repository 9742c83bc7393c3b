// Pieces the ladder kernels share: asynchronous copies, the TF32 instructions, and filling a
// kernel_shape. Header-only so the tuning harness (tests/ladder_tune.cu) can instantiate the
// same templates with other tile shapes.
#ifndef MMPROF_LADDER_COMMON_CUH
#define MMPROF_LADDER_COMMON_CUH

#include <stdint.h>
#include <stdio.h>

#include "cuda_check.h"
#include "gpu_compute.h"

static inline int ceil_div(int a, int b)
{
    return (a + b - 1) / b;
}

static inline void fill_shape(kernel_shape *s, const void *func, const char *name, int gx, int gy, int bx,
                              int by, int smem)
{
    s->func = func;
    snprintf(s->name, sizeof s->name, "%s", name);
    s->grid[0] = gx, s->grid[1] = gy, s->grid[2] = 1;
    s->block[0] = bx, s->block[1] = by, s->block[2] = 1;
    s->dynamic_smem = smem;
}

// Launch order in groups of `group` tile rows: consecutive blocks walk down a group's rows before
// moving right, so the blocks in flight together share A and B tiles in L2.
__device__ __forceinline__ void grouped_tile(int group, int *tile_m, int *tile_n)
{
    const int tiles_n = gridDim.x, tiles_m = gridDim.y;
    const int pid = blockIdx.y * tiles_n + blockIdx.x;
    const int in_group = group * tiles_n;
    const int first_m = (pid / in_group) * group;
    const int rows = min(tiles_m - first_m, group);
    *tile_m = first_m + (pid % in_group) % rows;
    *tile_n = (pid % in_group) / rows;
}

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

// 16-byte copy global -> shared that bypasses L1 (.cg: each byte is used once from shared
// memory). With pred false the source size is 0: nothing is read and the 16 bytes are zeroed,
// which is how edge tiles get their zero padding. The source must still be a valid address,
// so callers pass the matrix's base when the predicate is off.
__device__ __forceinline__ void cp_async16(void *dst, const void *src, bool pred)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(pred ? 16 : 0)
                 : "memory");
}

// 4-byte copy (.ca: the only cache mode for sizes below 16). Used where a tile is transposed on
// its way to shared memory, and where rows are not 16-byte aligned (n % 4 != 0).
__device__ __forceinline__ void cp_async4(void *dst, const void *src, bool pred)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(pred ? 4 : 0)
                 : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most N of this thread's committed groups are still in flight. The "memory"
// clobber keeps the compiler from moving shared-memory reads above the wait.
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// FP32 -> TF32, rounding to nearest (ties away). Without it the tensor cores truncate the low 13
// bits, a bias of about 2^-11 per product that shows up as ~1e-3 relative error on random data.
__device__ __forceinline__ uint32_t to_tf32(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

#endif
