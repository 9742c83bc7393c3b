// An ordinary CUDA program for checking `mmprof profile`'s GPU memory against the program's own
// account: every allocator the runtime has, each call checked.
//
//   memory_allocators --own OUT.json
//
// Phases, each an NVTX range:
//   "device"   DEVICE_BUFFERS cudaMalloc of DEVICE_BYTES each, a kernel writing each one;
//   "pool"     POOL_BUFFERS cudaMallocAsync of POOL_BYTES each from the device's default pool on a
//              stream (its release threshold raised so the pool keeps what it reserved), a kernel
//              writing each; the device's peak of live bytes is here, every buffer so far live;
//              then half of them freed with cudaFreeAsync;
//   "pinned"   cudaHostAlloc of PINNED_BYTES, copied to the first device buffer; cudaMallocHost of
//              the same while the first is still live (the pinned peak is both), freed at once;
//   "managed"  cudaMallocManaged of MANAGED_BYTES, written by a kernel;
//   "release"  everything freed (cudaFree, cudaFreeAsync, cudaFreeHost).
// OUT.json says what it allocated: each call's count and bytes, the most device bytes live at
// once (the analysis' peak: device memory, pools' allocations in, pinned and managed apart), the
// most pinned bytes, the managed bytes, and that nothing is live at the end.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdint.h>
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

static const size_t MIB = 1u << 20;
// Sizes in whole 2 MiB pages, so no allocator rounds them: the live bytes are the asked ones.
static const int DEVICE_BUFFERS = 6;
static const size_t DEVICE_BYTES = 256 * MIB;
static const int POOL_BUFFERS = 8;
static const size_t POOL_BYTES = 128 * MIB;
static const size_t PINNED_BYTES = 256 * MIB;
static const size_t MANAGED_BYTES = 64 * MIB;

__global__ void fill(float *p, size_t n, float v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = v;
}

static void touch(float *p, size_t bytes, cudaStream_t s)
{
    fill<<<264, 256, 0, s>>>(p, bytes / sizeof(float), 1.0f);
    CHECK(cudaGetLastError());
}

int main(int argc, char **argv)
{
    const char *own = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--own") == 0)
            own = argv[i + 1];
    if (!own) {
        fprintf(stderr, "usage: memory_allocators --own OUT.json\n");
        return 2;
    }
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(0)); // the context, before anything is counted
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    nvtxRangePushA("device");
    float *dev[DEVICE_BUFFERS];
    for (int i = 0; i < DEVICE_BUFFERS; i++) {
        CHECK(cudaMalloc(&dev[i], DEVICE_BYTES));
        touch(dev[i], DEVICE_BYTES, s);
    }
    CHECK(cudaStreamSynchronize(s));
    nvtxRangePop();

    nvtxRangePushA("pool");
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t keep = UINT64_MAX;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    float *pooled[POOL_BUFFERS];
    for (int i = 0; i < POOL_BUFFERS; i++) {
        CHECK(cudaMallocAsync(&pooled[i], POOL_BYTES, s));
        touch(pooled[i], POOL_BYTES, s);
    }
    CHECK(cudaStreamSynchronize(s));
    size_t peak = DEVICE_BUFFERS * DEVICE_BYTES + POOL_BUFFERS * POOL_BYTES; // every buffer live now
    for (int i = 0; i < POOL_BUFFERS / 2; i++)
        CHECK(cudaFreeAsync(pooled[i], s));
    CHECK(cudaStreamSynchronize(s));
    nvtxRangePop();

    nvtxRangePushA("pinned");
    void *host, *host2;
    CHECK(cudaHostAlloc(&host, PINNED_BYTES, cudaHostAllocDefault));
    memset(host, 1, PINNED_BYTES);
    CHECK(cudaMemcpyAsync(dev[0], host, PINNED_BYTES, cudaMemcpyHostToDevice, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMallocHost(&host2, PINNED_BYTES));
    size_t pinned_peak = 2 * PINNED_BYTES; // host is freed only in "release": both live now
    CHECK(cudaFreeHost(host2));
    nvtxRangePop();

    nvtxRangePushA("managed");
    float *managed = NULL;
    int managed_ok = 0;
    CHECK(cudaDeviceGetAttribute(&managed_ok, cudaDevAttrManagedMemory, 0));
    if (managed_ok) {
        CHECK(cudaMallocManaged(&managed, MANAGED_BYTES));
        touch(managed, MANAGED_BYTES, s);
        CHECK(cudaStreamSynchronize(s));
    }
    nvtxRangePop();

    nvtxRangePushA("release");
    for (int i = 0; i < DEVICE_BUFFERS; i++)
        CHECK(cudaFree(dev[i]));
    for (int i = POOL_BUFFERS / 2; i < POOL_BUFFERS; i++)
        CHECK(cudaFreeAsync(pooled[i], s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFreeHost(host));
    if (managed)
        CHECK(cudaFree(managed));
    nvtxRangePop();
    CHECK(cudaStreamDestroy(s));

    FILE *f = fopen(own, "w");
    if (!f) {
        perror(own);
        return 1;
    }
    fprintf(f,
            "{\"device_peak_bytes\": %zu, \"pinned_peak_bytes\": %zu, \"managed_bytes\": %zu, \"end_bytes\": 0,\n"
            " \"calls\": {\"cudaMalloc\": [%d, %zu], \"cudaMallocAsync\": [%d, %zu], \"cudaHostAlloc\": [1, %zu],\n"
            "           \"cudaMallocHost\": [1, %zu], \"cudaMallocManaged\": [%d, %zu]},\n"
            " \"allocations\": %d, \"frees\": %d, \"device_never_freed_bytes\": 0}\n",
            peak, pinned_peak, managed ? MANAGED_BYTES : 0, DEVICE_BUFFERS, DEVICE_BUFFERS * DEVICE_BYTES,
            POOL_BUFFERS, POOL_BUFFERS * POOL_BYTES, PINNED_BYTES, PINNED_BYTES, managed ? 1 : 0,
            managed ? MANAGED_BYTES : 0, DEVICE_BUFFERS + POOL_BUFFERS + 2 + (managed ? 1 : 0),
            DEVICE_BUFFERS + POOL_BUFFERS + 2 + (managed ? 1 : 0));
    fclose(f);
    printf("memory_allocators: peak %zu MiB of device memory live, account in %s\n", peak / MIB, own);
    return 0;
}
