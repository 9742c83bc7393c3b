// An ordinary CUDA program for checking `mmprof profile` against the program's own account.
//
//   copies_and_streams OUT.json [fork|crash]
//
// Phases, each an NVTX range:
//   "timed"       one stream, one thing at a time: pageable copies, batches of pinned copies each
//                 way and spin kernels, each timed by a cudaEvent pair, so the event times are the operations'
//                 own (nothing else runs, nothing waits behind anything);
//   "concurrent"  several streams, each copying in (pinned, async), running kernels and copying
//                 out, overlapping: counted, not timed.
// It writes what it did to OUT.json: counts and bytes per direction and memory kind, and the
// event-timed milliseconds of the timed phase. "fork" first forks a child (before any CUDA call
// in the parent) that runs CHILD_KERNELS kernels and one copy of its own; "crash" ends the
// program by SIGSEGV a second after its work (CUPTI's periodic flush has handed over some
// records by then; its exit handler never runs).
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// The timed phase's copies. An event pair around a copy also counts what happens before the copy
// reaches the copy engine and after it leaves it: the host's launch latency (14-42 us on the
// H200, 1-3% of one 64 MB pinned copy at ~50 GB/s), and for a pageable copy the driver's staging
// through a pinned buffer (the host copies the first chunk in before the engine starts, or the
// last one out after it ends). So the pinned copies go PINNED_COPIES at a time, back to back on
// the stream inside one pair (the latency counted once against ~10 ms of copying), and the
// pageable copy is eight times larger than a pinned one (one chunk's staging, 0.1-0.8 ms on the
// H200, against ~40-90 ms of copying).
static const size_t BYTES = 64u << 20;           // each pinned copy in the timed phase
static const int PINNED_COPIES = 8;              // per direction, inside one event pair
static const size_t PAGEABLE_BYTES = 512u << 20; // the pageable copy each way
static const int TIMED_KERNELS = 8;
static const long long SPIN_CYCLES = 2000000; // about 1 ms at the H200's clock
// The timed phase's kernels run ten times longer: an event pair around a launch on an idle stream
// also counts the host's launch latency (the first event is stamped before the kernel arrives),
// about 36 us a launch on the H200, 3.4% of a 1 ms kernel but 0.4% of a 10 ms one.
static const long long TIMED_SPIN_CYCLES = 10 * SPIN_CYCLES;
static const int STREAMS = 4;
static const int KERNELS_PER_STREAM = 6;
static const size_t STREAM_BYTES = 16u << 20; // each copy of the concurrent phase
static const int CHILD_KERNELS = 3;

// One block that spins for a fixed number of cycles and writes one value: a kernel whose length
// does not depend on memory or on what else runs.
__global__ void spin(long long cycles, float *out)
{
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = (float)(clock64() - start);
}

struct counts {
    int kernels = 0, h2d = 0, d2h = 0, h2d_pageable = 0, d2h_pageable = 0;
    unsigned long long h2d_bytes = 0, d2h_bytes = 0;
    double kernel_ms = 0, h2d_pinned_ms = 0, d2h_pinned_ms = 0, h2d_pageable_ms = 0, d2h_pageable_ms = 0;
};

// Times one operation on stream s with an event pair, synchronously.
template <typename F> static double timed(cudaStream_t s, F op)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaEventRecord(a, s));
    op();
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    return ms;
}

static void timed_phase(counts &c, float *dev, float *out)
{
    nvtxRangePushA("timed");
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    char *pageable = (char *)malloc(PAGEABLE_BYTES);
    char *pinned;
    if (!pageable) {
        fprintf(stderr, "out of memory for the pageable buffer\n");
        exit(1);
    }
    CHECK(cudaMallocHost(&pinned, BYTES));
    memset(pageable, 1, PAGEABLE_BYTES);
    memset(pinned, 2, BYTES);
    // Pageable copies are synchronous: cudaMemcpy on the stream-ordered default stream would
    // also be, but cudaMemcpyAsync on s keeps every operation of the phase on one stream.
    c.h2d_pageable_ms += timed(s, [&] { CHECK(cudaMemcpyAsync(dev, pageable, PAGEABLE_BYTES, cudaMemcpyHostToDevice, s)); });
    c.d2h_pageable_ms += timed(s, [&] { CHECK(cudaMemcpyAsync(pageable, dev, PAGEABLE_BYTES, cudaMemcpyDeviceToHost, s)); });
    c.h2d_pinned_ms += timed(s, [&] {
        for (int i = 0; i < PINNED_COPIES; i++)
            CHECK(cudaMemcpyAsync(dev, pinned, BYTES, cudaMemcpyHostToDevice, s));
    });
    c.d2h_pinned_ms += timed(s, [&] {
        for (int i = 0; i < PINNED_COPIES; i++)
            CHECK(cudaMemcpyAsync(pinned, dev, BYTES, cudaMemcpyDeviceToHost, s));
    });
    c.h2d += 1 + PINNED_COPIES, c.d2h += 1 + PINNED_COPIES, c.h2d_pageable++, c.d2h_pageable++;
    c.h2d_bytes += PAGEABLE_BYTES + PINNED_COPIES * BYTES, c.d2h_bytes += PAGEABLE_BYTES + PINNED_COPIES * BYTES;
    for (int i = 0; i < TIMED_KERNELS; i++) {
        c.kernel_ms += timed(s, [&] { spin<<<1, 32, 0, s>>>(TIMED_SPIN_CYCLES, out); CHECK(cudaGetLastError()); });
        c.kernels++;
    }
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(pinned));
    free(pageable);
    nvtxRangePop();
}

static void concurrent_phase(counts &c, float *out)
{
    nvtxRangePushA("concurrent");
    cudaStream_t s[STREAMS];
    char *host[STREAMS];
    char *dev[STREAMS];
    for (int i = 0; i < STREAMS; i++) {
        CHECK(cudaStreamCreate(&s[i]));
        CHECK(cudaMallocHost(&host[i], STREAM_BYTES));
        CHECK(cudaMalloc(&dev[i], STREAM_BYTES));
        memset(host[i], i, STREAM_BYTES);
    }
    for (int i = 0; i < STREAMS; i++) {
        CHECK(cudaMemcpyAsync(dev[i], host[i], STREAM_BYTES, cudaMemcpyHostToDevice, s[i]));
        for (int k = 0; k < KERNELS_PER_STREAM; k++)
            spin<<<1, 32, 0, s[i]>>>(SPIN_CYCLES / 4, out + 1 + i);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(host[i], dev[i], STREAM_BYTES, cudaMemcpyDeviceToHost, s[i]));
        c.h2d++, c.d2h++, c.kernels += KERNELS_PER_STREAM;
        c.h2d_bytes += STREAM_BYTES, c.d2h_bytes += STREAM_BYTES;
    }
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < STREAMS; i++) {
        CHECK(cudaStreamDestroy(s[i]));
        CHECK(cudaFreeHost(host[i]));
        CHECK(cudaFree(dev[i]));
    }
    nvtxRangePop();
}

// The forked child: a few kernels and one copy in its own process, then a normal exit.
static void child_work(void)
{
    nvtxRangePushA("child");
    float *out;
    CHECK(cudaMalloc(&out, 64 * sizeof(float)));
    for (int i = 0; i < CHILD_KERNELS; i++)
        spin<<<1, 32>>>(SPIN_CYCLES / 4, out);
    CHECK(cudaGetLastError());
    float h[64];
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(out));
    nvtxRangePop();
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT.json [fork|crash]\n", argv[0]);
        return 2;
    }
    const char *mode = argc > 2 ? argv[2] : "";
    int child_kernels = 0;
    unsigned long long child_d2h_bytes = 0;
    if (strcmp(mode, "fork") == 0) {
        // Before any CUDA call here: a CUDA context does not survive fork.
        pid_t pid = fork();
        if (pid == 0) {
            child_work();
            return 0;
        }
        int st;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "the forked child failed (status %d)\n", st);
            return 1;
        }
        child_kernels = CHILD_KERNELS;
        child_d2h_bytes = 64 * sizeof(float);
    }
    nvtxRangePushA("setup");
    float *dev, *out;
    CHECK(cudaMalloc(&dev, PAGEABLE_BYTES)); // the timed phase's copies land here, the largest first
    CHECK(cudaMalloc(&out, 64 * sizeof(float)));
    nvtxRangePop();

    counts c;
    timed_phase(c, dev, out);
    concurrent_phase(c, out);
    CHECK(cudaFree(dev));
    CHECK(cudaFree(out));

    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fprintf(f,
            "{\"kernels\": %d, \"h2d_copies\": %d, \"d2h_copies\": %d, \"h2d_pageable_copies\": %d, "
            "\"d2h_pageable_copies\": %d, \"h2d_bytes\": %llu, \"d2h_bytes\": %llu, \"child_kernels\": %d, "
            "\"child_d2h_bytes\": %llu, \"timed_kernel_ms\": %.6f, \"timed_h2d_pinned_ms\": %.6f, "
            "\"timed_d2h_pinned_ms\": %.6f, \"timed_h2d_pageable_ms\": %.6f, \"timed_d2h_pageable_ms\": %.6f, "
            "\"timed_pinned_bytes\": %zu, \"timed_pageable_bytes\": %zu}\n",
            c.kernels, c.h2d, c.d2h, c.h2d_pageable, c.d2h_pageable, c.h2d_bytes, c.d2h_bytes, child_kernels,
            child_d2h_bytes, c.kernel_ms, c.h2d_pinned_ms, c.d2h_pinned_ms, c.h2d_pageable_ms, c.d2h_pageable_ms,
            PINNED_COPIES * BYTES, PAGEABLE_BYTES);
    fclose(f);
    printf("copies_and_streams: %d kernels, %d + %d copies\n", c.kernels, c.h2d, c.d2h);
    fflush(stdout);
    if (strcmp(mode, "crash") == 0) {
        sleep(1);
        raise(SIGSEGV);
    }
    return 0;
}
