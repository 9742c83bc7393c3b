// TF32 kernels on Hopper's warpgroup MMA (wgmma, sm_90a only), as templates for the workload
// cuda-tf32-wgmma (ladder_tf32_wgmma.cu) and the tuning harness. Two of them:
//  - wgmma_body (round 3): verifies, but slower than cuda-tf32-mma (112 against 180 TFLOP/s at
//    n = 4096, README.md says why): each k-step waits for its copies, then for its MMAs, with
//    nothing in between. Kept for comparison in the harness.
//  - wgmma_pipe_body (round 4, further down): the same operand plan with the MMAs kept in
//    flight across k-steps and the A tile swizzled; 280 TFLOP/s. Since round 5 the workload's
//    kernel for n % 4 != 0 and n < 256 only (ladder_wgmma_tma.cuh takes the rest).
// What follows describes the operand plan both share.
//
// wgmma takes TF32 operands only K-major (k contiguous). A (row-major M x K) is K-major, B
// (row-major K x N) is not. So the kernel computes the transpose, C^T = B^T A^T:
//  - wgmma's A operand comes from registers: a 64 x 8 slice of B^T, i.e. 64 columns of the
//    B tile, loaded per thread with LDS from the row-major B tile in shared memory (the same
//    fragment layout as mma.sync's A: rows g and g+8, k t and t+4, per warp 16 rows);
//  - wgmma's B operand comes from shared memory: the A tile, which is K-major as it stands.
//    cp.async places each 16-byte piece (one row, 4 k) straight into the canonical no-swizzle
//    layout: core matrices of 8 rows x 16 bytes, 128 contiguous bytes each, K-neighbours 128 B
//    apart (leading byte offset), 8-row groups BK/4 x 128 B apart (stride byte offset). A
//    thread's i-th copy goes to byte 16 * (tid + i * THREADS): a warp writes 512 contiguous
//    bytes, no bank conflicts;
//  - each warpgroup owns 64 columns of C (BN = 64 x warpgroups) and all BM rows of the block
//    tile: one m64nBMk8 wgmma per 8-deep k-slice. Its accumulator row r, column c is C's
//    row c, column r.
// Rounding to TF32: + 0x1000 on the bits (the tensor core drops the low 13 bits), in registers
// for the B^T fragments and in place in shared memory for the A tile: each thread rounds the
// elements it copied, once its copies have landed, before the barrier that publishes them.
#ifndef MMPROF_LADDER_WGMMA_CUH
#define MMPROF_LADDER_WGMMA_CUH

#include "ladder_common.cuh"

template <int BM_, int WGS_, int BK_, int STAGES_, int MINB_, bool VEC_, bool SWAP_ = false> struct WgCfg {
    static constexpr int BM = BM_, WGS = WGS_, BN = 64 * WGS_, BK = BK_, STAGES = STAGES_, MINB = MINB_;
    static constexpr bool VEC = VEC_;
    // SWAP: put the two strides in each other's descriptor fields (a check of how the fields
    // are read: only one of the two settings can verify).
    static constexpr bool SWAP = SWAP_;
    static constexpr int THREADS = 128 * WGS;
    static constexpr int CPR = BK / 4;              // 16-byte chunks per row of the A tile
    static constexpr int SBO = CPR * 128;           // bytes between 8-row groups of the A tile
    static constexpr int A_STAGE = BM * BK;         // floats (no padding in the core-matrix layout)
    static constexpr int LDB = BN + 8;              // B tile row, padded: fragment reads hit 32 banks
    static constexpr int B_STAGE = BK * LDB;
    static constexpr int STAGE = A_STAGE + B_STAGE;
    static constexpr int SMEM_BYTES = STAGES * STAGE * (int)sizeof(float);
    static constexpr int W = VEC ? 4 : 1;
    static constexpr int A_COPIES = BM * BK / W / THREADS;
    static constexpr int B_PER_ROW = BN / W, B_ROWS_STEP = THREADS / B_PER_ROW, B_COPIES = BK / B_ROWS_STEP;
    static_assert(BM == 128 || BM == 256, "wgmma instances below: n128 and n256");
    static_assert(BK % 8 == 0 && (BM * BK / W) % THREADS == 0, "A copies must divide evenly");
    static_assert(THREADS % B_PER_ROW == 0 && BK % B_ROWS_STEP == 0 && B_COPIES >= 1, "B copies must divide evenly");
};

__device__ __forceinline__ uint64_t wg_desc(const float *smem_ptr, int lbo_bytes, int sbo_bytes)
{
    // Start address, leading and stride byte offsets in 16-byte units; layout type 0: no swizzle.
    uint64_t d = 0;
    d |= (uint64_t)((smem_addr(smem_ptr) >> 4) & 0x3FFF);
    d |= (uint64_t)((lbo_bytes >> 4) & 0x3FFF) << 16;
    d |= (uint64_t)((sbo_bytes >> 4) & 0x3FFF) << 32;
    return d;
}

__device__ __forceinline__ void wg_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wg_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wg_wait0()
{
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}
// Keeps the compiler from moving accumulator reads or writes across a wgmma fence or wait.
__device__ __forceinline__ void wg_pin(float &x)
{
    asm volatile("" : "+f"(x)::"memory");
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_ACC8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
                   "+f"(d[i + 6]), "+f"(d[i + 7])
__device__ __forceinline__ void wg_mma_n128(float (&d)[64], const uint32_t (&a)[4], uint64_t desc)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
                 "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
                 "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
                 "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, "
                 "{%64,%65,%66,%67}, %68, p, 1, 1;\n}\n"
                 : WG_ACC8(0), WG_ACC8(8), WG_ACC8(16), WG_ACC8(24), WG_ACC8(32), WG_ACC8(40), WG_ACC8(48),
                   WG_ACC8(56)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}
__device__ __forceinline__ void wg_mma_n256(float (&d)[128], const uint32_t (&a)[4], uint64_t desc)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
                 "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
                 "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
                 "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
                 "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
                 "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
                 "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"
                 "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, "
                 "{%128,%129,%130,%131}, %132, p, 1, 1;\n}\n"
                 : WG_ACC8(0), WG_ACC8(8), WG_ACC8(16), WG_ACC8(24), WG_ACC8(32), WG_ACC8(40), WG_ACC8(48),
                   WG_ACC8(56), WG_ACC8(64), WG_ACC8(72), WG_ACC8(80), WG_ACC8(88), WG_ACC8(96), WG_ACC8(104),
                   WG_ACC8(112), WG_ACC8(120)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}
#undef WG_ACC8
#endif

// Stores a warpgroup's accumulators. They hold a 64 x BM tile of C^T (the kernels compute
// C^T = B^T A^T): accumulator 4j + q is row 16 wq + g (+8 for q >= 2) and column 8j + 2t (+1 for
// odd q) of it, i.e. element (bm + 8j + 2t + (q & 1), col0 + 8 (q >> 1)) of C, col0 being
// bn + 64 (warpgroup) + 16 wq + g.
template <int BM>
__device__ __forceinline__ void wg_store_ct(const float *d, float *__restrict__ C, int n, int bm, int col0, int t)
{
#pragma unroll
    for (int j = 0; j < BM / 8; j++)
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const int row = bm + 8 * j + 2 * t + (q & 1);
            const int col = col0 + (q >> 1) * 8;
            if (row < n && col < n)
                C[(size_t)row * n + col] = d[4 * j + q];
        }
}

// Copies one k-step of the B tile (row-major, BN wide) into shared memory, rows LDB apart; the
// elements outside the matrix are zero-filled, so edge tiles add nothing. Both wgmma loaders use it.
template <class Cfg>
__device__ __forceinline__ void wg_load_b_tile(float *Bs, const float *__restrict__ B, int n, int bn, int k0, int tid)
{
    const int bc = (tid % Cfg::B_PER_ROW) * Cfg::W, br0 = tid / Cfg::B_PER_ROW;
#pragma unroll
    for (int i = 0; i < Cfg::B_COPIES; i++) {
        const int kr = br0 + i * Cfg::B_ROWS_STEP;
        const bool ok = bn + bc < n && k0 + kr < n;
        const float *src = ok ? B + (size_t)(k0 + kr) * n + bn + bc : B;
        if (Cfg::VEC)
            cp_async16(&Bs[kr * Cfg::LDB + bc], src, ok);
        else
            cp_async4(&Bs[kr * Cfg::LDB + bc], src, ok);
    }
}

template <class Cfg>
__device__ __forceinline__ void wg_load_tile(float *stage, const float *__restrict__ A, const float *__restrict__ B,
                                             int n, int bm, int bn, int k0, int tid)
{
    float *As = stage, *Bs = stage + Cfg::A_STAGE;
#pragma unroll
    for (int i = 0; i < Cfg::A_COPIES; i++) {
        const int e = tid + i * Cfg::THREADS; // copy index = position in the core-matrix layout
        int m, k;
        if (Cfg::VEC) { // e: [m/8][chunk][m%8]
            m = (e % 8) + 8 * (e / (8 * Cfg::CPR));
            k = 4 * ((e / 8) % Cfg::CPR);
        } else { // e: [m/8][chunk][m%8][k%4]
            m = ((e / 4) % 8) + 8 * (e / (32 * Cfg::CPR));
            k = 4 * ((e / 32) % Cfg::CPR) + e % 4;
        }
        const bool ok = bm + m < n && k0 + k < n;
        const float *src = ok ? A + (size_t)(bm + m) * n + k0 + k : A;
        if (Cfg::VEC)
            cp_async16(As + 4 * e, src, ok);
        else
            cp_async4(As + e, src, ok);
    }
    wg_load_b_tile<Cfg>(Bs, B, n, bn, k0, tid);
}

template <class Cfg>
__device__ __forceinline__ void wgmma_body(const float *__restrict__ A, const float *__restrict__ B,
                                           float *__restrict__ C, int n)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wg = warp / 4, wq = warp % 4; // warpgroup, and warp within it
    const int g = lane / 4, t = lane % 4;
    const int bm = blockIdx.y * Cfg::BM, bn = blockIdx.x * Cfg::BN;
    constexpr int NACC = Cfg::BM / 2;
    float d[NACC];
#pragma unroll
    for (int i = 0; i < NACC; i++)
        d[i] = 0.0f;

    // This thread's B^T fragment: B tile column 64 wg + 16 wq + g (+8), k t (+4).
    const int b_off = Cfg::A_STAGE + t * Cfg::LDB + 64 * wg + 16 * wq + g;
    const int KT = (n + Cfg::BK - 1) / Cfg::BK;
#pragma unroll
    for (int s = 0; s < Cfg::STAGES - 1; s++) {
        if (s < KT)
            wg_load_tile<Cfg>(smem + s * Cfg::STAGE, A, B, n, bm, bn, s * Cfg::BK, tid);
        cp_async_commit();
    }
    int rs = 0, ws = Cfg::STAGES - 1;
    for (int kt = 0; kt < KT; kt++) {
        cp_async_wait<Cfg::STAGES - 2>();
        {
            // Round this thread's own copies of the A tile to TF32 in place (wgmma reads that
            // operand straight from shared memory): its copies are complete after the wait.
            float *as = smem + rs * Cfg::STAGE;
#pragma unroll
            for (int i = 0; i < Cfg::A_COPIES; i++) {
                const int e = tid + i * Cfg::THREADS;
                if (Cfg::VEC) {
                    uint4 *p = reinterpret_cast<uint4 *>(as + 4 * e);
                    uint4 v = *p;
                    v.x += 0x1000u, v.y += 0x1000u, v.z += 0x1000u, v.w += 0x1000u;
                    *p = v;
                } else {
                    uint32_t *p = reinterpret_cast<uint32_t *>(as + e);
                    *p += 0x1000u;
                }
            }
        }
        // The copies and the rounding wrote shared memory through the generic proxy; wgmma reads it through the
        // async proxy.
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        const int next = kt + Cfg::STAGES - 1;
        if (next < KT)
            wg_load_tile<Cfg>(smem + ws * Cfg::STAGE, A, B, n, bm, bn, next * Cfg::BK, tid);
        cp_async_commit();
        ws = ws + 1 == Cfg::STAGES ? 0 : ws + 1;

        const float *st = smem + rs * Cfg::STAGE;
        rs = rs + 1 == Cfg::STAGES ? 0 : rs + 1;
        uint32_t a[Cfg::BK / 8][4];
#pragma unroll
        for (int kk = 0; kk < Cfg::BK / 8; kk++) {
            const float *p = st + b_off + kk * 8 * Cfg::LDB;
            a[kk][0] = __float_as_uint(p[0]) + 0x1000u;
            a[kk][1] = __float_as_uint(p[8]) + 0x1000u;
            a[kk][2] = __float_as_uint(p[4 * Cfg::LDB]) + 0x1000u;
            a[kk][3] = __float_as_uint(p[4 * Cfg::LDB + 8]) + 0x1000u;
        }
#pragma unroll
        for (int i = 0; i < NACC; i++)
            wg_pin(d[i]);
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < Cfg::BK / 8; kk++) {
            // k 8kk .. 8kk+7 are 16-byte chunks 2kk and 2kk+1: 256 bytes (64 floats) per kk.
            const uint64_t desc = Cfg::SWAP ? wg_desc(st + kk * 64, Cfg::SBO, 128) : wg_desc(st + kk * 64, 128, Cfg::SBO);
            if constexpr (Cfg::BM == 128)
                wg_mma_n128(d, a[kk], desc);
            else
                wg_mma_n256(d, a[kk], desc);
        }
        wg_commit();
        wg_wait0();
#pragma unroll
        for (int i = 0; i < NACC; i++)
            wg_pin(d[i]);
    }
    cp_async_wait<0>();

    wg_store_ct<Cfg::BM>(d, C, n, bm, bn + 64 * wg + 16 * wq + g, t);
#else
    (void)A, (void)B, (void)C, (void)n;
    __trap(); // built without sm_90a: no wgmma
#endif
}

template <class Cfg> static inline dim3 wg_grid(int n)
{
    return dim3((unsigned)ceil_div(n, Cfg::BN), (unsigned)ceil_div(n, Cfg::BM));
}

// ---------- Round 4: the same design with its k-steps overlapped ----------
//
// What changes against wgmma_body above (which drains every k-step):
//  - MMAs stay in flight across k-steps: step kt issues its wgmma group, commits it, then waits
//    with wgmma.wait_group 1, i.e. only for step kt-1's group. The B^T fragments (wgmma's A
//    operand, in registers) are double-buffered: the k loop is unrolled by two, so each step
//    writes the buffer whose last reader (group kt-2) is known to be done, with compile-time
//    indices (no local memory). The loop runs an even number of k-steps; an odd count gets one
//    more step over an all-zero tile (its copies are out of range, so they zero-fill).
//  - Stage reuse follows the MMAs: group kt-1 may still read its stage while step kt runs, so
//    step kt copies tile kt+STAGES-2 into the stage of tile kt-2 (STAGES-2 tiles in flight).
//    Every thread passed its wait for group kt-2 (end of step kt-1) before step kt's barrier.
//  - SWZ: the A tile is stored with rows of BK floats in the matching swizzle of the wgmma
//    descriptor, the layout TMA and CUTLASS use: BK = 32 (rows of 128 B), the 128-byte swizzle
//    (16-byte chunk c of row m at chunk c ^ (m % 8); 8-row atoms of 1024 B); BK = 16 (rows of
//    64 B), the 64-byte swizzle (chunk c ^ ((m / 2) % 4); 8-row atoms of 512 B). The k-slices of
//    one tile are 32 bytes apart inside the atom. Without SWZ: the core-matrix layout of
//    wgmma_body.
//  - ROUND false: the A tile is not rounded in place; the tensor core then truncates it to TF32
//    (B^T fragments are still rounded in registers, one integer add each).
//  - GROUP > 0: blocks walk GROUP tile-rows down a tile-column (grouped_tile) for L2 reuse.
//  - EARLY: after the barrier, load the fragments and issue the wgmma group first, then the
//    copies of the next tile (the copies' issue no longer delays the MMAs).
//  - FENCE false: no fence.proxy.async between the cp.async copies and the wgmma reads of them
//    (CUTLASS's cp.async + GMMA mainloops have none); a measurement of what the fence costs.
template <int BM_, int WGS_, int BK_, int STAGES_, int MINB_, int GROUP_, bool VEC_, bool SWZ_, bool ROUND_,
          bool EARLY_ = false, bool FENCE_ = true>
struct WgpCfg {
    static constexpr int BM = BM_, WGS = WGS_, BN = 64 * WGS_, BK = BK_, STAGES = STAGES_, MINB = MINB_;
    static constexpr int GROUP = GROUP_;
    static constexpr bool VEC = VEC_, SWZ = SWZ_, ROUND = ROUND_, EARLY = EARLY_, FENCE = FENCE_;
    static constexpr int THREADS = 128 * WGS;
    static constexpr int CPR = BK / 4;              // 16-byte chunks per row of the A tile
    static constexpr int ROWB = BK * 4;             // bytes per row of the A tile
    static constexpr int SBO = SWZ ? 8 * ROWB : CPR * 128; // bytes between 8-row groups of the A tile
    static constexpr int A_STAGE = BM * BK;         // floats
    static constexpr int LDB = BN + 8;              // B tile row, padded: fragment reads hit 32 banks
    static constexpr int B_STAGE = BK * LDB;
    // All A stages first (each a multiple of 1024 bytes, so every A stage stays 1024-aligned),
    // then the B stages; 1 KB of slack to align the start for the swizzle.
    static constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * (int)sizeof(float) + (SWZ ? 1024 : 0);
    static constexpr int W = VEC ? 4 : 1;
    static constexpr int A_COPIES = BM * BK / W / THREADS;
    static constexpr int B_PER_ROW = BN / W, B_ROWS_STEP = THREADS / B_PER_ROW, B_COPIES = BK / B_ROWS_STEP;
    static_assert(BM == 128 || BM == 256, "wgmma instances: n128 and n256");
    static_assert(!SWZ || BK == 32 || BK == 16, "swizzles: 128 bytes (BK 32) and 64 bytes (BK 16)");
    static_assert(BK % 8 == 0 && (BM * BK / W) % THREADS == 0, "A copies must divide evenly");
    static_assert(THREADS % B_PER_ROW == 0 && BK % B_ROWS_STEP == 0 && B_COPIES >= 1, "B copies must divide evenly");
    static_assert(STAGES >= 3, "the stage of group kt-1 is still being read while tile kt+STAGES-2 is copied");
};

// rowb: bytes per row, 128 (128-byte swizzle, layout type 1) or 64 (64-byte swizzle, type 2).
template <int ROWB> __device__ __forceinline__ uint64_t wg_desc_sw(const float *smem_ptr)
{
    static_assert(ROWB == 128 || ROWB == 64, "swizzle width");
    uint64_t d = (uint64_t)((smem_addr(smem_ptr) >> 4) & 0x3FFF);
    d |= (uint64_t)1 << 16;                   // leading byte offset: unused for K-major swizzled layouts
    d |= (uint64_t)((8 * ROWB) >> 4) << 32;   // stride byte offset: 8 rows
    d |= (uint64_t)(ROWB == 128 ? 1 : 2) << 62; // layout type
    return d;
}

template <int N> __device__ __forceinline__ void wg_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Where the A tile's copy e (e = tid + i * THREADS) comes from (row m, column k of the tile) and
// goes to (float offset in the stage).
template <class Cfg> __device__ __forceinline__ void wgp_a_pos(int e, int &m, int &k, int &off)
{
    if (Cfg::SWZ) {
        // Chunk c of row m sits at chunk c ^ (bits 7.. of the row's byte offset), as the hardware's
        // Swizzle<3,4,3> (128 B) or Swizzle<2,4,3> (64 B) reads it.
        if (Cfg::VEC) { // e: [m][chunk]; a warp writes 512 contiguous bytes
            m = e / Cfg::CPR;
            const int c = e % Cfg::CPR;
            k = 4 * c;
            off = Cfg::BK * m + 4 * (c ^ (((m * Cfg::ROWB) >> 7) & (Cfg::CPR - 1)));
        } else { // e: [m][k]
            m = e / Cfg::BK;
            k = e % Cfg::BK;
            off = Cfg::BK * m + 4 * ((k / 4) ^ (((m * Cfg::ROWB) >> 7) & (Cfg::CPR - 1))) + k % 4;
        }
    } else if (Cfg::VEC) { // e: [m/8][chunk][m%8]
        m = (e % 8) + 8 * (e / (8 * Cfg::CPR));
        k = 4 * ((e / 8) % Cfg::CPR);
        off = 4 * e;
    } else { // e: [m/8][chunk][m%8][k%4]
        m = ((e / 4) % 8) + 8 * (e / (32 * Cfg::CPR));
        k = 4 * ((e / 32) % Cfg::CPR) + e % 4;
        off = e;
    }
}

template <class Cfg>
__device__ __forceinline__ void wgp_load_tile(float *As, float *Bs, const float *__restrict__ A,
                                              const float *__restrict__ B, int n, int bm, int bn, int k0, int tid)
{
#pragma unroll
    for (int i = 0; i < Cfg::A_COPIES; i++) {
        int m, k, off;
        wgp_a_pos<Cfg>(tid + i * Cfg::THREADS, m, k, off);
        const bool ok = bm + m < n && k0 + k < n;
        const float *src = ok ? A + (size_t)(bm + m) * n + k0 + k : A;
        if (Cfg::VEC)
            cp_async16(As + off, src, ok);
        else
            cp_async4(As + off, src, ok);
    }
    wg_load_b_tile<Cfg>(Bs, B, n, bn, k0, tid);
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// One k-step: tile kt is in stage rs, tile kt + STAGES - 2 goes to stage ws; a is this step's
// fragment buffer (the other one may still be read by the group in flight).
template <class Cfg>
__device__ __forceinline__ void wgp_step(float (&d)[Cfg::BM / 2], uint32_t (&a)[Cfg::BK / 8][4], float *base,
                                         const float *__restrict__ A, const float *__restrict__ B, int n, int bm,
                                         int bn, int tid, int b_off, int kt, int KT2, int &rs, int &ws)
{
    constexpr int S = Cfg::STAGES;
    cp_async_wait<S - 3>(); // this thread's copies of tile kt have landed
    float *as = base + rs * Cfg::A_STAGE;
    const float *bs = base + S * Cfg::A_STAGE + rs * Cfg::B_STAGE;
    if (Cfg::ROUND) {
#pragma unroll
        for (int i = 0; i < Cfg::A_COPIES; i++) {
            int m, k, off;
            wgp_a_pos<Cfg>(tid + i * Cfg::THREADS, m, k, off);
            if (Cfg::VEC) {
                uint4 *p = reinterpret_cast<uint4 *>(as + off);
                uint4 v = *p;
                v.x += 0x1000u, v.y += 0x1000u, v.z += 0x1000u, v.w += 0x1000u;
                *p = v;
            } else {
                *reinterpret_cast<uint32_t *>(as + off) += 0x1000u;
            }
        }
    }
    // The copies (and the rounding) wrote through the generic proxy; wgmma reads through the async proxy.
    if (Cfg::FENCE)
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    const int next = kt + S - 2;
    if (!Cfg::EARLY) {
        if (next < KT2)
            wgp_load_tile<Cfg>(base + ws * Cfg::A_STAGE, base + S * Cfg::A_STAGE + ws * Cfg::B_STAGE, A, B, n, bm,
                               bn, next * Cfg::BK, tid);
        cp_async_commit(); // empty groups near the end keep the wait counts right
    }

#pragma unroll
    for (int kk = 0; kk < Cfg::BK / 8; kk++) {
        const float *p = bs + b_off + kk * 8 * Cfg::LDB;
        a[kk][0] = __float_as_uint(p[0]) + 0x1000u;
        a[kk][1] = __float_as_uint(p[8]) + 0x1000u;
        a[kk][2] = __float_as_uint(p[4 * Cfg::LDB]) + 0x1000u;
        a[kk][3] = __float_as_uint(p[4 * Cfg::LDB + 8]) + 0x1000u;
    }
#pragma unroll
    for (int i = 0; i < Cfg::BM / 2; i++)
        wg_pin(d[i]);
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < Cfg::BK / 8; kk++) {
        const uint64_t desc = Cfg::SWZ ? wg_desc_sw<Cfg::ROWB>(as + kk * 8) : wg_desc(as + kk * 64, 128, Cfg::SBO);
        if constexpr (Cfg::BM == 128)
            wg_mma_n128(d, a[kk], desc);
        else
            wg_mma_n256(d, a[kk], desc);
    }
    wg_commit();
    if (Cfg::EARLY) {
        if (next < KT2)
            wgp_load_tile<Cfg>(base + ws * Cfg::A_STAGE, base + S * Cfg::A_STAGE + ws * Cfg::B_STAGE, A, B, n, bm,
                               bn, next * Cfg::BK, tid);
        cp_async_commit();
    }
    ws = ws + 1 == S ? 0 : ws + 1;
    rs = rs + 1 == S ? 0 : rs + 1;
    wg_wait<1>(); // group kt-1 is done: its fragments and its stage may be reused
#pragma unroll
    for (int i = 0; i < Cfg::BM / 2; i++)
        wg_pin(d[i]);
}
#endif

template <class Cfg>
__device__ __forceinline__ void wgmma_pipe_body(const float *__restrict__ A, const float *__restrict__ B,
                                                float *__restrict__ C, int n)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wg = warp / 4, wq = warp % 4; // warpgroup, and warp within it
    const int g = lane / 4, t = lane % 4;
    int tile_m = blockIdx.y, tile_n = blockIdx.x;
    if (Cfg::GROUP > 0)
        grouped_tile(Cfg::GROUP, &tile_m, &tile_n);
    const int bm = tile_m * Cfg::BM, bn = tile_n * Cfg::BN;
    float *base = smem;
    if (Cfg::SWZ) { // the swizzle pattern repeats every 1024 bytes of shared address
        const uint32_t s = smem_addr(smem);
        base = smem + (((s + 1023u) & ~1023u) - s) / 4;
    }
    constexpr int NACC = Cfg::BM / 2;
    float d[NACC];
#pragma unroll
    for (int i = 0; i < NACC; i++)
        d[i] = 0.0f;

    // This thread's B^T fragment: B tile column 64 wg + 16 wq + g (+8), k t (+4).
    const int b_off = t * Cfg::LDB + 64 * wg + 16 * wq + g;
    const int KT = (n + Cfg::BK - 1) / Cfg::BK, KT2 = (KT + 1) & ~1;
#pragma unroll
    for (int s = 0; s < Cfg::STAGES - 2; s++) {
        if (s < KT2)
            wgp_load_tile<Cfg>(base + s * Cfg::A_STAGE, base + Cfg::STAGES * Cfg::A_STAGE + s * Cfg::B_STAGE, A, B, n,
                               bm, bn, s * Cfg::BK, tid);
        cp_async_commit();
    }
    int rs = 0, ws = Cfg::STAGES - 2;
    uint32_t fa[Cfg::BK / 8][4], fb[Cfg::BK / 8][4];
    for (int kt = 0; kt < KT2; kt += 2) {
        wgp_step<Cfg>(d, fa, base, A, B, n, bm, bn, tid, b_off, kt, KT2, rs, ws);
        wgp_step<Cfg>(d, fb, base, A, B, n, bm, bn, tid, b_off, kt + 1, KT2, rs, ws);
    }
    wg_wait<0>();
#pragma unroll
    for (int i = 0; i < NACC; i++)
        wg_pin(d[i]);
    cp_async_wait<0>();

    wg_store_ct<Cfg::BM>(d, C, n, bm, bn + 64 * wg + 16 * wq + g, t);
#else
    (void)A, (void)B, (void)C, (void)n;
    __trap(); // built without sm_90a: no wgmma
#endif
}

#endif
