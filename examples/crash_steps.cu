// A GPU-bound loop for checking what `mmprof profile` keeps of a program killed by SIGKILL,
// against the program's own progress.
//
//   crash_steps [STEPS [KERNELS [CYCLES]]]
//
// STEPS steps (default 100000: it runs until killed), each an NVTX range "step" launching KERNELS
// spin kernels (default 15) of CYCLES clock cycles (default 400000, about 0.2 ms on an H200) on one
// stream, never waiting for them: the host runs ahead until CUDA's launch queue is full, then at
// the GPU's pace, so kernels are always queued and running, as in a GPU-bound training loop. After
// each step's launches it prints "step N KERNELS_LAUNCHED" and flushes: its own progress, which a
// killer reads. A step whose kernels have all run leaves "done N" (an event queried after each
// step), the kernels known complete.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

__global__ void spin(long long cycles, float *out)
{
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = (float)(clock64() - start);
}

#define RING 4096 // events of the steps not yet known done

int main(int argc, char **argv)
{
    long steps = argc > 1 ? atol(argv[1]) : 100000;
    int kernels = argc > 2 ? atoi(argv[2]) : 15;
    long long cycles = argc > 3 ? atoll(argv[3]) : 400000;
    if (steps < 1 || kernels < 1 || cycles < 1) {
        fprintf(stderr, "usage: crash_steps [STEPS [KERNELS [CYCLES]]]\n");
        return 2;
    }
    float *out;
    CHECK(cudaMalloc(&out, 64 * sizeof(float)));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    static cudaEvent_t ev[RING];
    for (int i = 0; i < RING; i++)
        CHECK(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));
    long done = 0;
    for (long n = 1; n <= steps; n++) {
        nvtxRangePushA("step");
        for (int k = 0; k < kernels; k++)
            spin<<<1, 32, 0, s>>>(cycles, out);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(ev[n % RING], s));
        nvtxRangePop();
        printf("step %ld %ld\n", n, n * kernels);
        /* the steps whose kernels have all run since the last look */
        while (done < n && n - done < RING && cudaEventQuery(ev[(done + 1) % RING]) == cudaSuccess)
            done++;
        printf("done %ld %ld\n", done, done * kernels);
        fflush(stdout);
    }
    CHECK(cudaStreamSynchronize(s));
    return 0;
}
