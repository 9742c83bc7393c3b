// A CUDA C program that keeps its GPU waiting on a host loop, for `mmprof profile`'s host
// sampling and launch call sites:
//
//   host_loop OUT.json [STEPS]
//
// Each step launches a kernel (launch_scale), waits for it, burns the CPU in a named function
// (burn_cpu, about 200 ms of CPU time) and copies a buffer in from pageable memory. It writes its
// own account to OUT.json: each gap (start and end on CLOCK_REALTIME in ns, the clock mmprof's
// records use, and the function that made it), and the source lines of the launch and the copy,
// for tests/host_causes_gpu.sh. Built with -g (Makefile), so its frames have lines.
#include <cuda_runtime.h>
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

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

__global__ void scale(float *x, int n, float by)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= by;
}

static const int launch_line = __LINE__ + 4;
__attribute__((noinline)) static void launch_scale(float *d, int n)
{
    // the launch's line is the next one
    scale<<<(n + 255) / 256, 256>>>(d, n, 1.0001f);
    CHECK(cudaGetLastError());
}

// The host loop: seconds of this thread's CPU time in arithmetic the compiler cannot drop.
__attribute__((noinline)) static double burn_cpu(double seconds)
{
    volatile double acc = 0;
    double until = cpu_s() + seconds;
    while (cpu_s() < until)
        for (int i = 0; i < 20000; i++)
            acc = acc + i * 0.5;
    return acc;
}

static const int copy_line = __LINE__ + 3;
__attribute__((noinline)) static void copy_in(float *d, const float *pageable, size_t bytes)
{
    CHECK(cudaMemcpy(d, pageable, bytes, cudaMemcpyHostToDevice));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: host_loop OUT.json [STEPS]\n");
        return 2;
    }
    int steps = argc > 2 ? atoi(argv[2]) : 5;
    const int n = 1 << 24;
    size_t bytes = (size_t)n * sizeof(float);
    float *d, *pageable = (float *)malloc(bytes);
    for (int i = 0; i < n; i++)
        pageable[i] = 1.0f;
    CHECK(cudaMalloc(&d, bytes));
    copy_in(d, pageable, bytes);
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    fprintf(out, "{\"file\": \"%s\", \"launch\": {\"function\": \"launch_scale\", \"line\": %d}, "
                 "\"copy\": {\"function\": \"copy_in\", \"line\": %d}, \"steps\": %d, \"gaps\": [",
            __FILE__, launch_line, copy_line, steps);
    for (int s = 0; s < steps; s++) {
        launch_scale(d, n);
        CHECK(cudaDeviceSynchronize());
        long long t0 = now_ns();
        burn_cpu(0.2);
        long long t1 = now_ns();
        fprintf(out, "%s{\"cause\": \"cpu\", \"function\": \"burn_cpu\", \"start_ns\": %lld, \"end_ns\": %lld}", s ? ", " : "",
                t0, t1);
        copy_in(d, pageable, bytes);
    }
    CHECK(cudaDeviceSynchronize());
    fprintf(out, "]}\n");
    fclose(out);
    CHECK(cudaFree(d));
    free(pageable);
    printf("{\"kernels\": %d, \"copies\": %d}\n", steps, steps + 1);
    return 0;
}
