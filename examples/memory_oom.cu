// A CUDA program that dies of an out-of-memory error, for checking that `mmprof profile` reports
// the failed request and what was live although the program never ran its exit handler.
//
//   memory_oom --own OUT.json [--steps N]
//
// N steps (default 6), each an NVTX range "step K", each holding one more cudaMalloc'd buffer of
// about 85% of the device's free memory over N (so the live set grows step by step, written by a
// kernel); the last step asks for all the free memory and 1 GiB more, which fails with
// cudaErrorMemoryAllocation. Its own account is written first (the live bytes it holds, their
// count, the bytes asked, the step), then the program aborts (SIGABRT), as a program that does
// not handle the error dies: no atexit handler, no flush.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

__global__ void fill(char *p, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = 1;
}

int main(int argc, char **argv)
{
    const char *own = NULL;
    int steps = 6;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--own") == 0)
            own = argv[i + 1];
        if (strcmp(argv[i], "--steps") == 0)
            steps = atoi(argv[i + 1]);
    }
    if (!own || steps < 2 || steps > 64) {
        fprintf(stderr, "usage: memory_oom --own OUT.json [--steps N (2 to 64)]\n");
        return 2;
    }
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(0));
    size_t free_bytes, total;
    CHECK(cudaMemGetInfo(&free_bytes, &total));
    const size_t page = 2u << 20;
    size_t each = (size_t)(free_bytes * 0.85 / (steps - 1)) / page * page;
    char *held[64];
    size_t live = 0;
    int count = 0;
    for (int k = 1; k <= steps; k++) {
        char name[32];
        snprintf(name, sizeof name, "step %d", k);
        nvtxRangePushA(name);
        if (k < steps) {
            CHECK(cudaMalloc(&held[count], each));
            fill<<<264, 256>>>(held[count], each);
            CHECK(cudaDeviceSynchronize());
            live += each;
            count++;
        } else {
            size_t now_free;
            CHECK(cudaMemGetInfo(&now_free, &total));
            size_t ask = now_free + (1ull << 30);
            void *p = NULL;
            cudaError_t e = cudaMalloc(&p, ask); // the failure the report must lead with
            FILE *f = fopen(own, "w");
            if (!f) {
                perror(own);
                return 1;
            }
            fprintf(f,
                    "{\"live_bytes\": %zu, \"live_count\": %d, \"asked\": %zu, \"error\": \"%s\", \"step\": \"%s\",\n"
                    " \"device_total\": %zu, \"api\": \"cudaMalloc\"}\n",
                    live, count, ask, cudaGetErrorName(e), name, total);
            fclose(f);
            if (e == cudaSuccess) {
                fprintf(stderr, "memory_oom: asking %zu bytes did not fail\n", ask);
                return 1;
            }
            fprintf(stderr, "memory_oom: %s asking %zu bytes with %zu live: aborting\n", cudaGetErrorName(e), ask, live);
            abort();
        }
        nvtxRangePop();
    }
    return 1;
}
