// Round 5: the wgmma TF32 kernel fed by the bulk tensor copy engine (TMA) from a producer
// warpgroup, with mbarriers in place of the block-wide barrier: the structure of cuBLAS's own
// sm90 TF32 kernel. Same operand plan as ladder_wgmma.cuh (C^T = B^T A^T: B^T fragments from
// registers, the A tile K-major in shared memory in the 128-byte swizzle); what changes:
//
//  - warpgroup 0 is the producer: one thread issues, per k-step, two
//    cp.async.bulk.tensor.2d copies (the A tile, 256 rows x 32 k, 128-byte swizzled by the copy
//    engine; the B tile, 32 k x 136 columns) into a ring of STAGES stages. Each stage has a
//    "full" mbarrier (the producer's arrive.expect_tx with the stage's byte count; the copies
//    complete the transaction) and an "empty" mbarrier (8 arrivals, one per consumer warp).
//    The copy engine writes through the async proxy, so the wgmma reads need no
//    fence.proxy.async, and the consumers issue no copies and compute no copy addresses.
//  - warpgroups 1 and 2 are the consumers (64 columns of C each, all 256 rows): wait for the
//    stage's full barrier (try_wait.parity), load the B^T fragments, issue 4 x m64n256k8, commit,
//    wgmma.wait_group 1 (the previous step's group is done), then one lane per warp arrives on
//    that previous stage's empty barrier. No __syncthreads in the k loop.
//  - setmaxnreg: the producer drops to PRODREG registers, the consumers rise to CONSREG
//    (__launch_bounds__(384, 1) gives the cap at entry that setmaxnreg needs).
//  - the B tile is loaded 136 columns wide (8 beyond the block's 128, out-of-range ones
//    zero-filled): the copy engine writes a box densely, and rows 136 floats apart keep the
//    fragment loads conflict-free (banks 8t + g), as the padded row did with cp.async.
//  - PERSIST: one block per SM walks the tiles (block b takes tiles b, b + grid, ...); the ring's
//    stage and phase run on across tiles, so the producer loads the next tile's first stages
//    while the consumers store the last tile's results.
//  - TF32MAP: tensor maps of type TFLOAT32, so the copy engine rounds both operands to TF32
//    (round to nearest even) on the way in and the fragments need no rounding; otherwise FLOAT32
//    maps, the A tile truncated by the tensor core and the fragments rounded in registers (+0x1000).
//
// The copy engine needs 16-byte multiples for the row stride: n % 4 == 0 only. The launchers
// use this kernel for n % 4 == 0 and n >= 256 (so a box never exceeds the matrix) and the
// cp.async kernel (wgmma_pipe_body) otherwise. Tensor maps are built on the host through the
// runtime's driver entry point (no link against libcuda) and passed by value as
// __grid_constant__ kernel parameters.
#ifndef MMPROF_LADDER_WGMMA_TMA_CUH
#define MMPROF_LADDER_WGMMA_TMA_CUH

#include <cuda.h>          // CUtensorMap and its enums (types only: nothing links libcuda)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include "ladder_wgmma.cuh"

template <int STAGES_, int GROUP_, bool TF32MAP_, bool PERSIST_ = false, int PRODREG_ = 40, int CONSREG_ = 232>
struct WgtCfg {
    static constexpr int BM = 256, BN = 128, BK = 32, STAGES = STAGES_, GROUP = GROUP_;
    static constexpr bool TF32MAP = TF32MAP_, PERSIST = PERSIST_;
    static constexpr int PRODREG = PRODREG_, CONSREG = CONSREG_;
    static constexpr int THREADS = 384;             // producer warpgroup + 2 consumer warpgroups
    static constexpr int CONSUMER_WARPS = 8;
    static constexpr int LDB = BN + 8;              // B tile row as loaded (box 136 columns wide)
    static constexpr int A_STAGE = BM * BK, B_STAGE = BK * LDB; // floats
    static constexpr int A_BYTES = A_STAGE * 4, B_BYTES = B_STAGE * 4, TX_BYTES = A_BYTES + B_BYTES;
    // A stages first (32 KB each: every one stays 1024-aligned for the swizzle), then B stages
    // (17408 B each, a multiple of 128), then the barriers; 1 KB of slack to align the start.
    static constexpr int BAR_OFF = STAGES * (A_BYTES + B_BYTES);
    static constexpr int SMEM_BYTES = BAR_OFF + 2 * STAGES * 8 + 1024;
    static_assert(PRODREG % 8 == 0 && CONSREG % 8 == 0 && PRODREG >= 24 && CONSREG <= 256, "setmaxnreg counts");
    static_assert(128 * PRODREG + 256 * CONSREG <= 65536, "register file");
    static_assert(SMEM_BYTES <= 232448, "shared memory per block");
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
// One try at the phase of the given parity: true once it has completed.
__device__ __forceinline__ bool mbar_try(uint32_t bar, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return done != 0;
}
// A wait that has not completed after MBAR_TIMEOUT_NS of the global timer is a deadlock (a
// fault in the producer, a miscounted transaction): the kernel traps, the launch fails with
// cudaErrorLaunchFailure, and the runner reports the workload as an error (gpu_runner.cu names
// the bound) instead of hanging the GPU. Kept cheap, as ptxas -v shows (168 registers, no spill,
// no C75xx message): the bound is counted only after a first try has failed, the timer is read
// once per 4096 tries, and the trap is inline PTX. No printf: it is a call, and a call in the
// kernel makes ptxas serialize the wgmma instructions (C7510) and ignore setmaxnreg (C7507),
// as an out-of-line slow path did too; round 5's trap inside the plain wait loop had cost the
// register budget in the same way.
#define MBAR_TIMEOUT_NS 10000000000ull
__device__ __forceinline__ uint64_t global_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
// Waits until the phase of the given parity has completed.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
    if (mbar_try(bar, parity))
        return;
    const uint64_t start = global_ns();
    for (uint32_t tries = 1;; tries++) {
        if (mbar_try(bar, parity))
            return;
        if ((tries & 4095) == 0 && global_ns() - start > MBAR_TIMEOUT_NS)
            asm volatile("trap;");
    }
}
// Tile copy global -> shared through the tensor map; completes bytes on the mbarrier. c0 is the
// inner (contiguous) coordinate, c1 the row.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap *map, int c0, int c1, uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}
#endif

// ma: the A map (k inner, rows outer; box 32 x 256, 128-byte swizzle); mb: the B map (columns
// inner, k outer; box 136 x 32). Both are __grid_constant__ parameters of the calling kernel.
// Tile L of the launch (linear), in grouped order when GROUP > 0: GROUP tile-rows walked down a
// tile-column before moving right (grouped_tile's order, from a linear index).
template <class Cfg> __device__ __forceinline__ void wgt_tile(int L, int tiles_m, int tiles_n, int &tm, int &tn)
{
    if (Cfg::GROUP > 0) {
        const int in_group = Cfg::GROUP * tiles_n, first_m = (L / in_group) * Cfg::GROUP;
        const int rows = min(tiles_m - first_m, Cfg::GROUP);
        tm = first_m + (L % in_group) % rows;
        tn = (L % in_group) / rows;
    } else {
        tm = L / tiles_n, tn = L % tiles_n;
    }
}

// ma: the A map (k inner, rows outer; box 32 x 256, 128-byte swizzle); mb: the B map (columns
// inner, k outer; box 136 x 32). Both are __grid_constant__ parameters of the calling kernel.
template <class Cfg>
__device__ __forceinline__ void wgt_body(const CUtensorMap *ma, const CUtensorMap *mb, float *__restrict__ C, int n)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ __align__(16) float smem[];
    constexpr int S = Cfg::STAGES;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, wg = warp / 4;
    const int tiles_m = (n + Cfg::BM - 1) / Cfg::BM, tiles_n = (n + Cfg::BN - 1) / Cfg::BN;
    const int ntiles = tiles_m * tiles_n;
    // Without PERSIST the grid is tiles_n x tiles_m and each block does one tile.
    const int L0 = Cfg::PERSIST ? (int)blockIdx.x : (int)(blockIdx.y * gridDim.x + blockIdx.x);
    const int Lstep = Cfg::PERSIST ? (int)gridDim.x : ntiles;
    const int KT = (n + Cfg::BK - 1) / Cfg::BK;

    const uint32_t raw = smem_addr(smem);
    const uint32_t pad = ((raw + 1023u) & ~1023u) - raw;
    float *base = smem + pad / 4;
    const uint32_t sbase = raw + pad;                       // shared address of stage 0's A tile
    const uint32_t sB = sbase + S * Cfg::A_BYTES;           // of stage 0's B tile
    const uint32_t full = sbase + Cfg::BAR_OFF, empty = full + 8 * S;

    if (tid == 0) {
        for (int s = 0; s < S; s++) {
            mbar_init(full + 8 * s, 1);
            mbar_init(empty + 8 * s, Cfg::CONSUMER_WARPS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();

    if (wg == 0) {
        // Producer: registers given back; one thread issues every copy. it counts k-steps over
        // all of this block's tiles: stage it % S, round it / S.
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Cfg::PRODREG));
        if (tid == 0) {
            int it = 0;
            for (int L = L0; L < ntiles; L += Lstep) {
                int tm, tn;
                wgt_tile<Cfg>(L, tiles_m, tiles_n, tm, tn);
                const int bm = tm * Cfg::BM, bn = tn * Cfg::BN;
                for (int kt = 0; kt < KT; kt++, it++) {
                    const int s = it % S;
                    // Round r = it / S needs the consumers' r-th release of stage s (phase r - 1);
                    // in round 0 the parity 1 of the phase "before" the first passes at once.
                    mbar_wait(empty + 8 * s, ((it / S) & 1) ^ 1);
                    mbar_arrive_expect_tx(full + 8 * s, Cfg::TX_BYTES);
                    tma_load_2d(sbase + s * Cfg::A_BYTES, ma, kt * Cfg::BK, bm, full + 8 * s);
                    tma_load_2d(sB + s * Cfg::B_BYTES, mb, bn, kt * Cfg::BK, full + 8 * s);
                }
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Cfg::CONSREG));
        const int cw = wg - 1, wq = warp % 4, g = lane / 4, t = lane % 4;
        // This thread's B^T fragment: B tile column 64 cw + 16 wq + g (+8), k t (+4).
        const int b_off = t * Cfg::LDB + 64 * cw + 16 * wq + g;
        const float *bbase = base + S * Cfg::A_STAGE;
        float d[128];
        uint32_t fa[4][4], fb[4][4];

        // One k-step (it: over all tiles) into fragment buffer f (the other one may still be
        // read by the group in flight); releases the previous step's stage unless first.
        auto step = [&](uint32_t(&f)[4][4], int it, bool release_prev) {
            const int s = it % S;
            mbar_wait(full + 8 * s, (it / S) & 1);
            const float *bs = bbase + s * Cfg::B_STAGE + b_off;
#pragma unroll
            for (int kk = 0; kk < 4; kk++) {
                const float *p = bs + kk * 8 * Cfg::LDB;
                const uint32_t r = Cfg::TF32MAP ? 0u : 0x1000u;
                f[kk][0] = __float_as_uint(p[0]) + r;
                f[kk][1] = __float_as_uint(p[8]) + r;
                f[kk][2] = __float_as_uint(p[4 * Cfg::LDB]) + r;
                f[kk][3] = __float_as_uint(p[4 * Cfg::LDB + 8]) + r;
            }
#pragma unroll
            for (int i = 0; i < 128; i++)
                wg_pin(d[i]);
            wg_fence();
            const float *as = base + s * Cfg::A_STAGE;
#pragma unroll
            for (int kk = 0; kk < 4; kk++)
                wg_mma_n256(d, f[kk], wg_desc_sw<128>(as + kk * 8));
            wg_commit();
            wg_wait<1>(); // the previous step's group is done: its stage goes back to the producer
#pragma unroll
            for (int i = 0; i < 128; i++)
                wg_pin(d[i]);
            if (release_prev && lane == 0)
                mbar_arrive(empty + 8 * ((it + S - 1) % S));
        };

        int it = 0;
        for (int L = L0; L < ntiles; L += Lstep) {
            int tm, tn;
            wgt_tile<Cfg>(L, tiles_m, tiles_n, tm, tn);
            const int bm = tm * Cfg::BM, bn = tn * Cfg::BN;
#pragma unroll
            for (int i = 0; i < 128; i++)
                d[i] = 0.0f;
            int kt = 0;
            for (; kt + 1 < KT; kt += 2) {
                step(fa, it + kt, kt > 0);
                step(fb, it + kt + 1, true);
            }
            if (kt < KT)
                step(fa, it + kt, kt > 0);
            wg_wait<0>();
#pragma unroll
            for (int i = 0; i < 128; i++)
                wg_pin(d[i]);
            it += KT;
            if (lane == 0) // the tile's last stage
                mbar_arrive(empty + 8 * ((it - 1) % S));

            wg_store_ct<Cfg::BM>(d, C, n, bm, bn + 64 * cw + 16 * wq + g, t);
        }
    }
#else
    (void)ma, (void)mb, (void)C, (void)n;
    __trap(); // built without sm_90a
#endif
}

// sms: the device's multiprocessor count (the persistent grid's size, at most one block per tile).
template <class Cfg> static inline dim3 wgt_grid(int n, int sms)
{
    const int tn = ceil_div(n, Cfg::BN), tm = ceil_div(n, Cfg::BM);
    if (Cfg::PERSIST)
        return dim3((unsigned)(tn * tm < sms ? tn * tm : sms));
    return dim3((unsigned)tn, (unsigned)tm);
}

// Whether the TMA kernel takes this n (else the cp.async kernel).
static inline bool wgt_takes(int n)
{
    return n % 4 == 0 && n >= 256;
}

// cuTensorMapEncodeTiled from the driver through the runtime (the program does not link
// libcuda, so it still starts where no driver is installed); NULL when the driver lacks it.
static inline PFN_cuTensorMapEncodeTiled_v12000 wgt_encoder()
{
    static thread_local PFN_cuTensorMapEncodeTiled_v12000 fn; // per thread: no race between GPU threads
    static thread_local bool tried;
    if (!tried) {
        tried = true;
        void *p = NULL;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) ==
                cudaSuccess &&
            q == cudaDriverEntryPointSuccess && p)
            fn = (PFN_cuTensorMapEncodeTiled_v12000)p;
        else
            (void)cudaGetLastError();
    }
    return fn;
}

// The two maps of one (A, B, n), built once and kept for the launches that follow.
struct WgtMaps {
    CUtensorMap ma, mb;
    const float *A, *B;
    int n;
    bool ok;
};

// Fills m for (A, B, n) unless it already holds them; returns whether the maps are usable.
template <class Cfg> static inline bool wgt_maps(WgtMaps *m, const float *A, const float *B, int n)
{
    if (m->ok && m->A == A && m->B == B && m->n == n)
        return true;
    m->ok = false;
    PFN_cuTensorMapEncodeTiled_v12000 enc = wgt_encoder();
    if (!enc)
        return false;
    const CUtensorMapDataType type = Cfg::TF32MAP ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    const cuuint64_t dims[2] = {(cuuint64_t)n, (cuuint64_t)n};
    const cuuint64_t strides[1] = {(cuuint64_t)n * sizeof(float)};
    const cuuint32_t ones[2] = {1, 1};
    const cuuint32_t boxa[2] = {(cuuint32_t)Cfg::BK, (cuuint32_t)Cfg::BM};  // 128 bytes x 256 rows
    const cuuint32_t boxb[2] = {(cuuint32_t)Cfg::LDB, (cuuint32_t)Cfg::BK}; // 136 columns x 32 rows
    if (enc(&m->ma, type, 2, (void *)A, dims, strides, boxa, ones, CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) !=
            CUDA_SUCCESS ||
        enc(&m->mb, type, 2, (void *)B, dims, strides, boxb, ones, CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) !=
            CUDA_SUCCESS)
        return false;
    m->A = A, m->B = B, m->n = n, m->ok = true;
    return true;
}

#endif
