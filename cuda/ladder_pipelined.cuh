// The pipelined FP32 kernel as a template, so the workload (ladder_pipelined.cu) and the tuning
// harness (tests/ladder_tune.cu) instantiate the same code with different tile shapes.
//
// Shape of the kernel (the layout cuBLAS's own CUTLASS SIMT kernel uses):
//  - block tile BM x BN, k-step BK; warps of WM x WN; lanes LM x (32/LM); each thread owns
//    (WM/LM/4) x (WN/LN/4) sub-tiles of 4x4 results, spread across the warp tile so that every
//    shared-memory fragment read is an LDS.128 of consecutive float4 (conflict-free);
//  - A is stored k-major in shared memory (As[k][m]), so A fragments are LDS.128 like B's. The
//    transpose happens in the copy itself: 4-byte cp.async per element into its transposed
//    place (as cuBLAS's align1 kernel does). Rows of As are padded by 4 floats so a warp's
//    copies (8 k x 4 m) land in 32 different banks;
//  - B rows go straight to shared memory with 16-byte cp.async when n % 4 == 0 (4-byte
//    otherwise);
//  - STAGES shared-memory buffers: while the block computes tile t, tiles t+1 .. t+STAGES-1
//    are in flight. One barrier per k-step;
//  - fragments are double-buffered in registers: the loads for k+1 are issued before the FMAs
//    of k, and the first fragments of the next tile before the last FMAs of this one;
//  - SERP and FAST (see PipeCfg) trim the inner loop's instruction count;
//  - GROUP > 0 reorders blocks so that consecutive blocks walk GROUP tile-rows down a column of
//    tiles before moving right, which keeps the A and B panels of a wave in L2.
// Any n: out-of-range elements are zero-filled by the copies (source size 0) and stores are
// bounds-checked; the same code runs interior and edge tiles.
#ifndef MMPROF_LADDER_PIPELINED_CUH
#define MMPROF_LADDER_PIPELINED_CUH

#include "ladder_common.cuh"

template <int BM_, int BN_, int BK_, int WM_, int WN_, int LM_, int STAGES_, int MINB_, int GROUP_, bool VEC_,
          bool SERP_ = false, bool FAST_ = false>
struct PipeCfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, LM = LM_, LN = 32 / LM_;
    static constexpr int STAGES = STAGES_, MINB = MINB_, GROUP = GROUP_;
    static constexpr bool VEC = VEC_;
    // SERP: walk the thread tile's columns back and forth (CUTLASS's serpentine order), so the
    // B value of one FFMA is the operand of the next too and the register reuse cache serves it.
    // FAST: blocks wholly inside the matrix copy full k-tiles without predicates.
    static constexpr bool SERP = SERP_, FAST = FAST_;
    static constexpr int RM = WM / (LM * 4), RN = WN / (LN * 4); // 4x4 sub-tiles per thread
    static constexpr int TM = RM * 4, TN = RN * 4;
    static constexpr int WARPS_N = BN / WN;
    static constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    static constexpr int LDA = BM + 4;
    static constexpr int A_STAGE = BK * LDA, B_STAGE = BK * BN, STAGE = A_STAGE + B_STAGE;
    static constexpr int SMEM_BYTES = STAGES * STAGE * (int)sizeof(float);
    // Copies per thread and k-step.
    static constexpr int A_ROWS_STEP = THREADS / BK; // rows of A between one thread's copies
    static constexpr int A_COPIES = BM / A_ROWS_STEP;
    static constexpr int B_CHUNKS = VEC ? BN / 4 : BN; // copies per row of the B tile
    static constexpr int B_ROWS_STEP = THREADS / B_CHUNKS;
    static constexpr int B_COPIES = BK / B_ROWS_STEP;

    static_assert(WM % (LM * 4) == 0 && WN % (LN * 4) == 0, "warp tile must hold whole 4x4 sub-tiles");
    static_assert(BM % WM == 0 && BN % WN == 0, "block tile must hold whole warp tiles");
    static_assert(THREADS % BK == 0 && BM % A_ROWS_STEP == 0, "A tile copies must divide evenly");
    static_assert(THREADS % B_CHUNKS == 0 && BK % B_ROWS_STEP == 0 && B_COPIES >= 1, "B copies must divide evenly");
    static_assert(STAGES >= 2, "at least two stages");
};

// GUARD false: the caller knows the whole tile is inside the matrix (no predicates, no selects).
template <class Cfg, bool GUARD>
__device__ __forceinline__ void pipe_load_tile(float *stage, const float *__restrict__ A, const float *__restrict__ B,
                                               const float *a_src, const float *b_src, unsigned a_rows_ok,
                                               bool b_col_ok, int n, int k0, int ak, int am0, int bk0, int bcol)
{
    float *As = stage, *Bs = stage + Cfg::A_STAGE;
    const bool ak_ok = !GUARD || k0 + ak < n;
#pragma unroll
    for (int i = 0; i < Cfg::A_COPIES; i++) {
        bool ok = !GUARD || (ak_ok && ((a_rows_ok >> i) & 1u));
        const float *src = a_src + (size_t)i * Cfg::A_ROWS_STEP * n + k0;
        cp_async4(&As[ak * Cfg::LDA + am0 + i * Cfg::A_ROWS_STEP], ok ? src : A, ok);
    }
#pragma unroll
    for (int i = 0; i < Cfg::B_COPIES; i++) {
        int kr = bk0 + i * Cfg::B_ROWS_STEP;
        bool ok = !GUARD || (b_col_ok && k0 + kr < n);
        const float *src = b_src + (size_t)(k0 + kr) * n;
        if (Cfg::VEC)
            cp_async16(&Bs[kr * Cfg::BN + bcol], ok ? src : B, ok);
        else
            cp_async4(&Bs[kr * Cfg::BN + bcol], ok ? src : B, ok);
    }
}

template <class Cfg>
__device__ __forceinline__ void pipe_load_frag(float (&a)[Cfg::TM], float (&b)[Cfg::TN], const float *As,
                                               const float *Bs)
{
    // As and Bs point at this thread's first float4 of row k; sub-tiles are LM*4 (LN*4) apart.
#pragma unroll
    for (int r = 0; r < Cfg::RM; r++)
        *reinterpret_cast<float4 *>(&a[r * 4]) = *reinterpret_cast<const float4 *>(As + r * Cfg::LM * 4);
#pragma unroll
    for (int r = 0; r < Cfg::RN; r++)
        *reinterpret_cast<float4 *>(&b[r * 4]) = *reinterpret_cast<const float4 *>(Bs + r * Cfg::LN * 4);
}

template <class Cfg>
__device__ __forceinline__ void pipelined_body(const float *__restrict__ A, const float *__restrict__ B,
                                               float *__restrict__ C, int n)
{
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;

    // Which tile this block computes.
    int tile_m = blockIdx.y, tile_n = blockIdx.x;
    if (Cfg::GROUP > 0)
        grouped_tile(Cfg::GROUP, &tile_m, &tile_n);
    const int bm = tile_m * Cfg::BM, bn = tile_n * Cfg::BN;

    // Copy assignments, fixed for the whole k loop.
    const int ak = tid % Cfg::BK, am0 = tid / Cfg::BK;
    unsigned a_rows_ok = 0;
#pragma unroll
    for (int i = 0; i < Cfg::A_COPIES; i++)
        a_rows_ok |= (unsigned)(bm + am0 + i * Cfg::A_ROWS_STEP < n) << i;
    const float *a_src = A + (size_t)min(bm + am0, n - 1) * n + ak;
    const int bk0 = tid / Cfg::B_CHUNKS;
    const int bcol = (tid % Cfg::B_CHUNKS) * (Cfg::VEC ? 4 : 1);
    const bool b_col_ok = bn + bcol < n;
    const float *b_src = B + min(bn + bcol, n - 1);

    // Fragment read positions inside a stage.
    const int wm0 = (warp / Cfg::WARPS_N) * Cfg::WM, wn0 = (warp % Cfg::WARPS_N) * Cfg::WN;
    const int lm = lane % Cfg::LM, ln = lane / Cfg::LM;
    const int a_frag = wm0 + lm * 4, b_frag = Cfg::A_STAGE + wn0 + ln * 4;

    float acc[Cfg::TM][Cfg::TN];
#pragma unroll
    for (int i = 0; i < Cfg::TM; i++)
#pragma unroll
        for (int j = 0; j < Cfg::TN; j++)
            acc[i][j] = 0.0f;

    const int KT = (n + Cfg::BK - 1) / Cfg::BK;
    const bool inside = bm + Cfg::BM <= n && bn + Cfg::BN <= n; // the block's tile is all in range
#pragma unroll
    for (int s = 0; s < Cfg::STAGES - 1; s++) {
        if (s < KT)
            pipe_load_tile<Cfg, true>(smem + s * Cfg::STAGE, A, B, a_src, b_src, a_rows_ok, b_col_ok, n, s * Cfg::BK, ak,
                                am0, bk0, bcol);
        cp_async_commit();
    }
    cp_async_wait<Cfg::STAGES - 2>();
    __syncthreads();

    float fa[2][Cfg::TM], fb[2][Cfg::TN];
    const float *rd = smem; // the stage being read
    pipe_load_frag<Cfg>(fa[0], fb[0], rd + a_frag, rd + b_frag);
    int ws = Cfg::STAGES - 1, rs = 0; // stages being written and read

    for (int kt = 0; kt < KT; kt++) {
#pragma unroll
        for (int k = 0; k < Cfg::BK; k++) {
            if (k == Cfg::BK - 1) {
                // The next tile must have landed, and every thread must be done with the tile
                // the copy issued below (at k == 0 of the next tile) will overwrite.
                cp_async_wait<Cfg::STAGES - 2>();
                __syncthreads();
                rs = rs + 1 == Cfg::STAGES ? 0 : rs + 1;
                rd = smem + rs * Cfg::STAGE;
            }
            const int kn = (k + 1) % Cfg::BK;
            pipe_load_frag<Cfg>(fa[(k + 1) % 2], fb[(k + 1) % 2], rd + kn * Cfg::LDA + a_frag,
                                rd + kn * Cfg::BN + b_frag);
            if (k == 0) {
                // Tile kt + STAGES - 1 goes into the stage tile kt - 1 used: all threads passed
                // the barrier after their last read of it.
                const int next = kt + Cfg::STAGES - 1;
                if (Cfg::FAST && inside && (next + 1) * Cfg::BK <= n)
                    pipe_load_tile<Cfg, false>(smem + ws * Cfg::STAGE, A, B, a_src, b_src, a_rows_ok, b_col_ok, n,
                                               next * Cfg::BK, ak, am0, bk0, bcol);
                else if (next < KT)
                    pipe_load_tile<Cfg, true>(smem + ws * Cfg::STAGE, A, B, a_src, b_src, a_rows_ok, b_col_ok, n,
                                              next * Cfg::BK, ak, am0, bk0, bcol);
                cp_async_commit(); // empty groups near the end keep the wait counts right
                ws = ws + 1 == Cfg::STAGES ? 0 : ws + 1;
            }
#pragma unroll
            for (int i = 0; i < Cfg::TM; i++)
#pragma unroll
                for (int jj = 0; jj < Cfg::TN; jj++) {
                    const int j = Cfg::SERP && (i % 2) ? Cfg::TN - 1 - jj : jj;
                    acc[i][j] = fmaf(fa[k % 2][i], fb[k % 2][j], acc[i][j]);
                }
        }
    }
    cp_async_wait<0>();

#pragma unroll
    for (int rm = 0; rm < Cfg::RM; rm++)
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int row = bm + wm0 + (rm * Cfg::LM + lm) * 4 + i;
            if (row >= n)
                continue;
#pragma unroll
            for (int rn = 0; rn < Cfg::RN; rn++) {
                const int col = bn + wn0 + (rn * Cfg::LN + ln) * 4;
                const float *v = &acc[rm * 4 + i][rn * 4];
                float *dst = &C[(size_t)row * n + col];
                if (Cfg::VEC) {
                    if (col < n)
                        *reinterpret_cast<float4 *>(dst) = make_float4(v[0], v[1], v[2], v[3]);
                } else {
#pragma unroll
                    for (int q = 0; q < 4; q++)
                        if (col + q < n)
                            dst[q] = v[q];
                }
            }
        }
}

// Grid and launch for a configuration.
template <class Cfg> static inline dim3 pipe_grid(int n)
{
    return dim3((unsigned)ceil_div(n, Cfg::BN), (unsigned)ceil_div(n, Cfg::BM));
}

#endif
