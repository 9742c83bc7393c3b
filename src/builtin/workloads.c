/* The workload table. Adding a GPU workload is one line here and a gpu_compute in cuda/. */
#include "workloads.h"

#include <string.h>

/* cuda/ladder_tf32_wgmma.cu: the sm_90a step past mma.sync. */
extern const gpu_compute gpu_tf32_wgmma;

static const workload_def table[] = {
    {"cpu-openblas", "cblas_sgemm on the system's OpenBLAS", false, NULL},
    {"cuda-uncoalesced", "naive with threadIdx.x walking rows: uncoalesced loads", true, &gpu_uncoalesced},
    {"cuda-naive", "one thread per output element, 16x16 blocks", true, &gpu_naive},
    {"cuda-tiled", "16x16 shared-memory tiles", true, &gpu_tiled},
    {"cuda-blocktile-1d", "64x64 tiles, 8 results per thread in a column", true, &gpu_blocktile_1d},
    {"cuda-blocktile-2d", "128x128 tiles, 8x8 results per thread", true, &gpu_blocktile_2d},
    {"cuda-vectorized", "2D blocking with 16-byte loads, A transposed in smem", true, &gpu_vectorized},
    {"cuda-warptiled", "block, warp and thread tiles; conflict-free LDS.128", true, &gpu_warptiled},
    {"cuda-pipelined", "cp.async multi-stage pipeline, the best FP32 kernel", true, &gpu_pipelined},
    {"cuda-tf32-mma", "TF32 tensor cores through mma.sync m16n8k8", true, &gpu_tf32_mma},
    {"cuda-tf32-wgmma", "TF32 warpgroup MMA (wgmma, sm_90a), MMAs overlapped", true, &gpu_tf32_wgmma},
    {"cublas-sgemm", "cublasSgemm, default (true FP32) math", true, &gpu_cublas_sgemm},
    {"cublas-tf32", "cublasSgemm, TF32 tensor-op math", true, &gpu_cublas_tf32},
};

const workload_def *workload_list(int *count)
{
    *count = (int)(sizeof table / sizeof table[0]);
    return table;
}

const workload_def *workload_find(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}
