// A program for `mmprof profile --counters` (tests/profile_counters_gpu.sh): three kernels whose
// FP32 instruction counts are known exactly, launched four times each in turn, and results it
// checks itself, so a test can tell that the counters name the right kernels, count the right
// instructions, and that the replay under the counters left the program's memory as it was.
//   ffma_chain:  THREADS threads x ITERS dependent FFMAs each (FFMA = THREADS * ITERS)
//   scale:       out = 1.5 * in over N floats (FMUL = N)
//   add_one:     x += 1 in place over N floats (FADD = N); after 4 launches x = x0 + 4 only if
//                every replayed pass was undone but one
// Prints the exact counts it expects and exits 0 when every result checks out.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                               \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "counter_kernels: %s: %s\n", #call, cudaGetErrorString(e_));         \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

enum { THREADS = 132 * 1024, ITERS = 4096, N = 1 << 24, LAUNCHES = 4 };

__global__ void ffma_chain(float *out, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = (float)(i & 1023) * 1e-3f;
    for (int k = 0; k < iters; k++)
        a = fmaf(a, 0.999f, 0.001f);
    out[i] = a;
}

__global__ void scale(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * 1.5f; // not 2: x * 2 compiles to an FADD
}

__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] + 1.0f;
}

int main(void)
{
    float *chain, *in, *out, *x;
    CHECK(cudaMalloc(&chain, THREADS * sizeof(float)));
    CHECK(cudaMalloc(&in, N * sizeof(float)));
    CHECK(cudaMalloc(&out, N * sizeof(float)));
    CHECK(cudaMalloc(&x, N * sizeof(float)));
    float *h = (float *)malloc(N * sizeof(float));
    if (!h)
        return 1;
    srand(12345);
    for (int i = 0; i < N; i++)
        h[i] = (float)(rand() % 1000);
    CHECK(cudaMemcpy(in, h, N * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(x, h, N * sizeof(float), cudaMemcpyHostToDevice));
    for (int l = 0; l < LAUNCHES; l++) {
        ffma_chain<<<THREADS / 256, 256>>>(chain, ITERS);
        CHECK(cudaGetLastError());
        scale<<<N / 256, 256>>>(in, out, N);
        CHECK(cudaGetLastError());
        add_one<<<N / 256, 256>>>(x, N);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());

    float *hx = (float *)malloc(N * sizeof(float)), *ho = (float *)malloc(N * sizeof(float));
    float *hc = (float *)malloc(THREADS * sizeof(float));
    if (!hx || !ho || !hc)
        return 1;
    CHECK(cudaMemcpy(hx, x, N * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ho, out, N * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hc, chain, THREADS * sizeof(float), cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int i = 0; i < N; i++)
        bad += hx[i] != h[i] + LAUNCHES || ho[i] != 1.5f * h[i];
    for (int i = 0; i < THREADS; i++) {
        float a = (float)(i & 1023) * 1e-3f;
        for (int k = 0; k < ITERS; k++)
            a = fmaf(a, 0.999f, 0.001f);
        bad += hc[i] != a;
    }
    printf("expect ffma_chain ffma %ld\nexpect scale fmul %d\nexpect add_one fadd %d\nlaunches %d each\n",
           (long)THREADS * ITERS, N, N, LAUNCHES);
    printf("%s: %ld wrong values\n", bad ? "FAILED" : "verified", bad);
    cudaFree(chain);
    cudaFree(in);
    cudaFree(out);
    cudaFree(x);
    free(h);
    free(hx);
    free(ho);
    free(hc);
    return bad ? 1 : 0;
}
