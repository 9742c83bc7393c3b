/* The workload table. Adding a GPU workload is one line here and a gpu_compute in cuda/. */
#include "workloads.h"

#include <string.h>

static const workload_def table[] = {
    {"cpu-openblas", "cblas_sgemm on the system's OpenBLAS", false, NULL},
    {"cuda-naive", "one thread per output element, 16x16 blocks", true, &gpu_naive},
    {"cuda-tiled", "16x16 shared-memory tiles", true, &gpu_tiled},
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
