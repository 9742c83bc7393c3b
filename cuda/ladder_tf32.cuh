// The TF32 tensor-core kernel as a template (instantiated by ladder_tf32.cu and by the tuning
// harness tests/ladder_tune.cu).
//
// mma.sync.m16n8k8 with TF32 inputs and FP32 accumulation: each warp owns a WM x WN piece of
// the block tile as (WM/16) x (WN/8) accumulator tiles. Per 8-deep k-slice a warp loads its A
// fragments with ldmatrix (A is k-contiguous in shared memory, and one 8x8 matrix of 16-bit
// pairs is exactly an 8-row x 4-k block of 32-bit values in the layout mma wants) and its B
// fragments with scalar LDS (B is n-contiguous; ldmatrix has no 32-bit transpose), rounds them
// to TF32 (cvt.rna), and issues (WM/16) x (WN/8) MMAs.
//
// Shared memory per stage: As[BM][BK+4] and Bs[BK][BN+8]. The paddings make the fragment reads
// conflict-free: an A fragment reads rows g (0..7) at k t (0..3), bank 4g + t with a 36-float
// row (and ldmatrix's eight 16-byte rows start in different banks); a B fragment reads k t at
// column g, bank 8t + g with a BN+8 row.
// Tiles arrive by cp.async (16 bytes when n % 4 == 0, 4 bytes otherwise), STAGES deep, one
// barrier per k-step; edges are zero-filled and stores bounds-checked, so any n works.
#ifndef MMPROF_LADDER_TF32_CUH
#define MMPROF_LADDER_TF32_CUH

#include "ladder_common.cuh"

template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int MINB_, int GROUP_, bool VEC_,
          bool IADD_ = false, bool BPERM_ = false>
struct Tf32Cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_;
    static constexpr int STAGES = STAGES_, MINB = MINB_, GROUP = GROUP_;
    static constexpr bool VEC = VEC_;
    // IADD: round to TF32 by adding half a TF32 unit to the bit pattern (one integer add) and
    // let the tensor core drop the low 13 bits, instead of cvt.rna: the same rounding (to
    // nearest, ties away from zero) for finite values.
    // BPERM: permute columns inside each group of 4 n-tiles (logical column c of n-tile 4q+r is
    // physical column 32q + 4c + r), so one LDS.128 brings a thread its B values for 4 n-tiles
    // and its results come out as float4s of consecutive columns.
    static constexpr bool IADD = IADD_, BPERM = BPERM_;
    static constexpr int WARPS_N = BN / WN;
    static constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    static constexpr int MT = WM / 16, NT = WN / 8;
    static constexpr int LDA = BK + 4, LDB = BN + 8;
    static constexpr int A_STAGE = BM * LDA, B_STAGE = BK * LDB, STAGE = A_STAGE + B_STAGE;
    static constexpr int SMEM_BYTES = STAGES * STAGE * (int)sizeof(float);
    static constexpr int W = VEC ? 4 : 1; // floats per copy
    static constexpr int A_PER_ROW = BK / W, A_ROWS_STEP = THREADS / A_PER_ROW, A_COPIES = BM / A_ROWS_STEP;
    static constexpr int B_PER_ROW = BN / W, B_ROWS_STEP = THREADS / B_PER_ROW, B_COPIES = BK / B_ROWS_STEP;

    static_assert(WM % 16 == 0 && WN % 8 == 0 && BK % 8 == 0, "mma tiles are 16 x 8 x 8");
    static_assert(BM % WM == 0 && BN % WN == 0, "block tile must hold whole warp tiles");
    static_assert(THREADS % A_PER_ROW == 0 && BM % A_ROWS_STEP == 0, "A copies must divide evenly");
    static_assert(THREADS % B_PER_ROW == 0 && BK % B_ROWS_STEP == 0 && B_COPIES >= 1, "B copies must divide evenly");
    static_assert(STAGES >= 2, "at least two stages");
    static_assert(!BPERM || NT % 4 == 0, "column permutation works on groups of 4 n-tiles");
};

template <class Cfg> __device__ __forceinline__ uint32_t tf32_round(uint32_t bits)
{
    return Cfg::IADD ? bits + 0x1000u : to_tf32(__uint_as_float(bits));
}

__device__ __forceinline__ void mma_tf32(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Four 8x8 matrices of 16-bit pairs = the four registers of an m16n8k8 TF32 A fragment.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const float *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p))
                 : "memory");
}

template <class Cfg>
__device__ __forceinline__ void tf32_load_tile(float *stage, const float *__restrict__ A, const float *__restrict__ B,
                                               const float *a_src, const float *b_src, unsigned a_rows_ok,
                                               bool b_col_ok, int n, int k0, int ar0, int ac, int br0, int bc)
{
    float *As = stage, *Bs = stage + Cfg::A_STAGE;
    const bool ak_ok = k0 + ac < n;
#pragma unroll
    for (int i = 0; i < Cfg::A_COPIES; i++) {
        bool ok = ak_ok && ((a_rows_ok >> i) & 1u);
        const float *src = a_src + (size_t)i * Cfg::A_ROWS_STEP * n + k0;
        float *dst = &As[(ar0 + i * Cfg::A_ROWS_STEP) * Cfg::LDA + ac];
        if (Cfg::VEC)
            cp_async16(dst, ok ? src : A, ok);
        else
            cp_async4(dst, ok ? src : A, ok);
    }
#pragma unroll
    for (int i = 0; i < Cfg::B_COPIES; i++) {
        int kr = br0 + i * Cfg::B_ROWS_STEP;
        bool ok = b_col_ok && k0 + kr < n;
        const float *src = b_src + (size_t)(k0 + kr) * n;
        float *dst = &Bs[kr * Cfg::LDB + bc];
        if (Cfg::VEC)
            cp_async16(dst, ok ? src : B, ok);
        else
            cp_async4(dst, ok ? src : B, ok);
    }
}

template <class Cfg>
__device__ __forceinline__ void tf32_body(const float *__restrict__ A, const float *__restrict__ B,
                                          float *__restrict__ C, int n)
{
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int g = lane / 4, t = lane % 4; // mma's groupID and thread-in-group

    int tile_m = blockIdx.y, tile_n = blockIdx.x;
    if (Cfg::GROUP > 0)
        grouped_tile(Cfg::GROUP, &tile_m, &tile_n);
    const int bm = tile_m * Cfg::BM, bn = tile_n * Cfg::BN;

    const int ac = (tid % Cfg::A_PER_ROW) * Cfg::W, ar0 = tid / Cfg::A_PER_ROW;
    unsigned a_rows_ok = 0;
#pragma unroll
    for (int i = 0; i < Cfg::A_COPIES; i++)
        a_rows_ok |= (unsigned)(bm + ar0 + i * Cfg::A_ROWS_STEP < n) << i;
    const float *a_src = A + (size_t)min(bm + ar0, n - 1) * n + ac;
    const int bc = (tid % Cfg::B_PER_ROW) * Cfg::W, br0 = tid / Cfg::B_PER_ROW;
    const bool b_col_ok = bn + bc < n;
    const float *b_src = B + min(bn + bc, n - 1);

    const int wm0 = (warp / Cfg::WARPS_N) * Cfg::WM, wn0 = (warp % Cfg::WARPS_N) * Cfg::WN;
    // ldmatrix: lanes 0-7 address matrix 0 (rows 0-7, k 0-3), 8-15 matrix 1 (rows 8-15, k 0-3),
    // 16-23 matrix 2 (rows 0-7, k 4-7), 24-31 matrix 3 (rows 8-15, k 4-7): registers a0..a3.
    const int a_off = (wm0 + (lane % 8) + ((lane / 8) % 2) * 8) * Cfg::LDA + (lane / 16) * 4;
    const int b_off = Cfg::A_STAGE + t * Cfg::LDB + wn0 + (Cfg::BPERM ? 4 * g : g);

    float acc[Cfg::MT][Cfg::NT][4];
#pragma unroll
    for (int i = 0; i < Cfg::MT; i++)
#pragma unroll
        for (int j = 0; j < Cfg::NT; j++)
#pragma unroll
            for (int q = 0; q < 4; q++)
                acc[i][j][q] = 0.0f;

    const int KT = (n + Cfg::BK - 1) / Cfg::BK;
#pragma unroll
    for (int s = 0; s < Cfg::STAGES - 1; s++) {
        if (s < KT)
            tf32_load_tile<Cfg>(smem + s * Cfg::STAGE, A, B, a_src, b_src, a_rows_ok, b_col_ok, n, s * Cfg::BK, ar0,
                                ac, br0, bc);
        cp_async_commit();
    }

    int rs = 0, ws = Cfg::STAGES - 1;
    for (int kt = 0; kt < KT; kt++) {
        // Tile kt has landed; every thread is past tile kt-1, whose stage the copy below reuses.
        cp_async_wait<Cfg::STAGES - 2>();
        __syncthreads();
        const int next = kt + Cfg::STAGES - 1;
        if (next < KT)
            tf32_load_tile<Cfg>(smem + ws * Cfg::STAGE, A, B, a_src, b_src, a_rows_ok, b_col_ok, n, next * Cfg::BK,
                                ar0, ac, br0, bc);
        cp_async_commit();
        ws = ws + 1 == Cfg::STAGES ? 0 : ws + 1;

        const float *st = smem + rs * Cfg::STAGE;
        rs = rs + 1 == Cfg::STAGES ? 0 : rs + 1;
#pragma unroll
        for (int kk = 0; kk < Cfg::BK; kk += 8) {
            uint32_t af[Cfg::MT][4], bf[Cfg::NT][2];
#pragma unroll
            for (int i = 0; i < Cfg::MT; i++) {
                ldmatrix_x4(af[i], st + a_off + i * 16 * Cfg::LDA + kk);
#pragma unroll
                for (int q = 0; q < 4; q++)
                    af[i][q] = tf32_round<Cfg>(af[i][q]);
            }
            if (Cfg::BPERM) {
#pragma unroll
                for (int q = 0; q < Cfg::NT / 4; q++)
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        const float4 v = *reinterpret_cast<const float4 *>(&st[b_off + (kk + 4 * h) * Cfg::LDB + q * 32]);
                        bf[4 * q + 0][h] = tf32_round<Cfg>(__float_as_uint(v.x));
                        bf[4 * q + 1][h] = tf32_round<Cfg>(__float_as_uint(v.y));
                        bf[4 * q + 2][h] = tf32_round<Cfg>(__float_as_uint(v.z));
                        bf[4 * q + 3][h] = tf32_round<Cfg>(__float_as_uint(v.w));
                    }
            } else {
#pragma unroll
                for (int j = 0; j < Cfg::NT; j++) {
                    bf[j][0] = tf32_round<Cfg>(__float_as_uint(st[b_off + kk * Cfg::LDB + j * 8]));
                    bf[j][1] = tf32_round<Cfg>(__float_as_uint(st[b_off + (kk + 4) * Cfg::LDB + j * 8]));
                }
            }
#pragma unroll
            for (int i = 0; i < Cfg::MT; i++)
#pragma unroll
                for (int j = 0; j < Cfg::NT; j++)
                    mma_tf32(acc[i][j], af[i], bf[j]);
        }
    }
    cp_async_wait<0>();

    // Accumulator q of tile (i, j): row g (+8 for q >= 2), columns 2t and 2t+1; with BPERM,
    // logical column c of n-tile 4p+r is physical column 32p + 4c + r, so for each group p a
    // thread holds columns 32p + 8t .. 32p + 8t + 7 of its two rows.
    if constexpr (Cfg::BPERM) {
#pragma unroll
        for (int i = 0; i < Cfg::MT; i++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int row = bm + wm0 + i * 16 + g + h * 8;
                if (row >= n)
                    continue;
#pragma unroll
                for (int p = 0; p < Cfg::NT / 4; p++)
#pragma unroll
                    for (int e = 0; e < 2; e++) {
                        const int col = bn + wn0 + p * 32 + t * 8 + e * 4;
                        float v[4];
#pragma unroll
                        for (int r = 0; r < 4; r++)
                            v[r] = acc[i][4 * p + r][h * 2 + e];
                        float *dst = &C[(size_t)row * n + col];
                        if (Cfg::VEC) {
                            if (col < n)
                                *reinterpret_cast<float4 *>(dst) = make_float4(v[0], v[1], v[2], v[3]);
                        } else {
#pragma unroll
                            for (int r = 0; r < 4; r++)
                                if (col + r < n)
                                    dst[r] = v[r];
                        }
                    }
            }
    } else {
#pragma unroll
        for (int i = 0; i < Cfg::MT; i++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int row = bm + wm0 + i * 16 + g + h * 8;
                if (row >= n)
                    continue;
#pragma unroll
                for (int j = 0; j < Cfg::NT; j++) {
                    const int col = bn + wn0 + j * 8 + t * 2;
                    float *dst = &C[(size_t)row * n + col];
                    const float c0 = acc[i][j][h * 2], c1 = acc[i][j][h * 2 + 1];
                    if (Cfg::VEC) {
                        // n % 4 == 0: col is even, so col < n means col + 1 < n too.
                        if (col < n)
                            *reinterpret_cast<float2 *>(dst) = make_float2(c0, c1);
                    } else {
                        if (col < n)
                            dst[0] = c0;
                        if (col + 1 < n)
                            dst[1] = c1;
                    }
                }
            }
    }
}

template <class Cfg> static inline dim3 tf32_grid(int n)
{
    return dim3((unsigned)ceil_div(n, Cfg::BN), (unsigned)ceil_div(n, Cfg::BM));
}

#endif
