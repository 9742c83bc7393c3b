// Launch overhead: a loop of empty kernels, each shorter than its own launch call, so the GPU
// waits on the host's launches (the cause programs' own account: examples/causes/own.py):
//
//   launch OUT.json [SECONDS]
//
// The loop runs inside an NVTX range "work"; the program times every cudaLaunchKernel it makes
// on CLOCK_MONOTONIC and writes, as the Python cause programs do, the time it spent in them
// (cause_ns) against the range's wall time (work_ns), the line of the launch, and the first
// launches' own times (launch_ns), which a run under `mmprof profile --counters --max-kernels K`
// holds against mmprof's counter replay (each profiled launch returns after its replay).
// Built with -g (Makefile), so its frames have lines.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define FIRST 64 /* launches whose own times are written */

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

__global__ void empty(int *x)
{
    if (x && threadIdx.x == 1024)
        x[0] = 1; /* never: the kernel does nothing, but cannot be dropped */
}

static const int launch_line = __LINE__ + 4;
__attribute__((noinline)) static long long launch_once(void)
{
    long long t0 = now_ns();
    empty<<<1, 32>>>(NULL);
    long long t1 = now_ns();
    CHECK(cudaGetLastError());
    return t1 - t0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT.json [SECONDS]\n", argv[0]);
        return 2;
    }
    double seconds = argc > 2 ? atof(argv[2]) : 2.5;
    CHECK(cudaFree(0));
    launch_once(); /* the kernel's module loaded, outside the work */
    CHECK(cudaDeviceSynchronize());
    static long long first[FIRST];
    long long cause = 0, n = 0;
    nvtxRangePushA("work");
    long long t0 = now_ns(), until = t0 + (long long)(seconds * 1e9);
    while (now_ns() < until) {
        long long t = launch_once();
        if (n < FIRST)
            first[n] = t;
        cause += t;
        n++;
    }
    CHECK(cudaDeviceSynchronize());
    long long work = now_ns() - t0;
    nvtxRangePop();
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fprintf(f, "{\"program\": \"launch.cu\", \"cause\": \"launch\", \"rule\": \"launch\", \"file\": \"%s\", "
               "\"lines\": [%d], \"cause_ns\": %lld, \"work_ns\": %lld, \"launches\": %lld, \"launch_ns\": [",
            __FILE__, launch_line, cause, work, n);
    for (long long i = 0; i < n && i < FIRST; i++)
        fprintf(f, "%s%lld", i ? ", " : "", first[i]);
    fprintf(f, "]}\n");
    if (fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    printf("{\"launches\": %lld, \"cause_ns\": %lld, \"work_ns\": %lld}\n", n, cause, work);
    return 0;
}
