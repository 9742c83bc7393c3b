// A program for `mmprof profile --delay/--duration/--capture-range` (tests/capture_gpu.sh): a loop
// of steps whose kernels are counted exactly, with every kind of marker a capture can key on:
//   - one "warmup" kernel before the loop, outside every range;
//   - each step: NVTX push "step" (default domain) with a nested push "inner" around K kernels,
//     then a cudaDeviceSynchronize, then sleep_ms of host time (for --delay/--duration);
//   - step 4 also inside an NVTX range "dstep" of the domain "capture-demo" (nvtxDomainRangePushEx);
//   - cudaProfilerStart before step 2 and cudaProfilerStop after step 3 (two steps), and again
//     around step 5 (one step): two cuda-profiler ranges.
//   capture_ranges [STEPS [K [SLEEP_MS]]]   (default 6 steps, 3 kernels each, 200 ms)
// Prints "kernels TOTAL per_step K steps STEPS" and one "step I KERNELS T_NS" line per step (the
// step's start on CLOCK_REALTIME, the clock mmprof's records are on) and exits 0.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                                               \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "capture_ranges: %s: %s\n", #call, cudaGetErrorString(e_));          \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

__global__ void work(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] * 0.5f + 1.0f;
}

static long long now_ns()
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 6;
    int k = argc > 2 ? atoi(argv[2]) : 3;
    int sleep_ms = argc > 3 ? atoi(argv[3]) : 200;
    if (steps < 6 || k < 1 || sleep_ms < 0) {
        fprintf(stderr, "usage: capture_ranges [STEPS>=6 [K>=1 [SLEEP_MS]]]\n");
        return 2;
    }
    const int n = 1 << 20;
    float *x;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMemset(x, 0, n * sizeof(float)));
    work<<<(n + 255) / 256, 256>>>(x, n); // warmup, outside every range
    CHECK(cudaDeviceSynchronize());
    nvtxDomainHandle_t dom = nvtxDomainCreateA("capture-demo");
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "dstep";
    int total = 1;
    for (int s = 0; s < steps; s++) {
        if (s == 2 || s == 5)
            CHECK(cudaProfilerStart());
        long long t = now_ns();
        if (s == 4)
            nvtxDomainRangePushEx(dom, &a);
        nvtxRangePushA("step");
        nvtxRangePushA("inner");
        for (int i = 0; i < k; i++)
            work<<<(n + 255) / 256, 256>>>(x, n);
        CHECK(cudaGetLastError());
        nvtxRangePop();
        CHECK(cudaDeviceSynchronize());
        nvtxRangePop();
        if (s == 4)
            nvtxDomainRangePop(dom);
        if (s == 3 || s == 5)
            CHECK(cudaProfilerStop());
        total += k;
        printf("step %d %d %lld\n", s, k, t);
        fflush(stdout); // a test that kills the program reads how far it got
        if (sleep_ms > 0)
            usleep((useconds_t)sleep_ms * 1000);
    }
    CHECK(cudaFree(x));
    printf("kernels %d per_step %d steps %d\n", total, k, steps);
    return 0;
}
