// The GPU side of the built-in run, as src/builtin/gpu_runner.h declares it: device facts, one
// context and stream per host thread, a workload's host and device buffers, its copies and
// launches timed between cudaEvents, and synchronisation. Every CUDA call's status is checked and
// a failure is returned with the call that failed. What runs when, the phases and their NVTX
// ranges, sampling, verification, the counter pass and what goes into the model are decided in
// C (src/builtin/gpu_workload.c, gpu_counters.c), not here.
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu_runner.h"

// One state per host thread (thread_local): a --devices run drives each GPU from a thread of its
// own, each with its own device, stream, buffers and events, while a single-GPU run has just the
// main thread's. The CUDA runtime keeps the current device per thread too, so a thread's calls go
// to its own GPU without further bookkeeping.
static thread_local struct {
    bool open;
    int device;
    cudaStream_t stream;
    float *pinA, *pinB, *pinC; // pinned copies of the inputs and a pinned result buffer
    float *pageC;              // pageable result buffer
    size_t bytes;
    void *flush;               // --cold-l2: written before each timed launch to evict the L2
    size_t flush_bytes;
    cudaEvent_t *events;       // grown as needed; reused by every workload
    int nevents;
    float *ctr_flush;          // read before the counters' DRAM pass, to leave the L2 clean
    size_t ctr_flush_floats;
    float *ctr_sink;
    int ctr_flush_blocks;      // the read's grid: 4 blocks per SM
} g;

#define EV_COUNT_MIN (2 * WARMUP_LAUNCHES + 16) // events made up front; compute grows the pool

static int device_facts(int dev, device_info *d, char *err, size_t errlen)
{
    cudaDeviceProp p;
    CUDA_TRY(cudaGetDeviceProperties(&p, dev));
    memset(d, 0, sizeof *d);
    d->index = dev;
    copy_str(d->name, sizeof d->name, p.name);
    d->cc_major = p.major, d->cc_minor = p.minor;
    d->sm_count = p.multiProcessorCount;
    // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes still answer.
    CUDA_TRY(cudaDeviceGetAttribute(&d->clock_khz, cudaDevAttrClockRate, dev));
    CUDA_TRY(cudaDeviceGetAttribute(&d->mem_clock_khz, cudaDevAttrMemoryClockRate, dev));
    d->bus_width_bits = p.memoryBusWidth;
    d->l2_bytes = p.l2CacheSize;
    d->total_mem = p.totalGlobalMem;
    d->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    d->max_threads_per_block = p.maxThreadsPerBlock;
    d->max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    d->regs_per_sm = p.regsPerMultiprocessor;
    d->regs_per_block = p.regsPerBlock;
    d->warp_size = p.warpSize;
    d->smem_per_sm = p.sharedMemPerMultiprocessor;
    d->smem_per_block = p.sharedMemPerBlock;
    d->smem_per_block_optin = p.sharedMemPerBlockOptin;
    d->reserved_smem_per_block = p.reservedSharedMemPerBlock;
    CUDA_TRY(cudaDeviceGetPCIBusId(d->pci_bus_id, (int)sizeof d->pci_bus_id, dev));
    CUDA_TRY(cudaDriverGetVersion(&d->driver_version));
    CUDA_TRY(cudaRuntimeGetVersion(&d->runtime_version));
    return 0;
}

extern "C" bool gpu_probe(run_model *m, char *why, size_t len)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver) {
        snprintf(why, len, "no NVIDIA driver found for the CUDA %d.%d runtime (cudaGetDeviceCount: %s)",
                 CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10, cudaGetErrorString(e));
        return false;
    }
    if (e != cudaSuccess) {
        snprintf(why, len, "no usable CUDA device (cudaGetDeviceCount: %s)", cudaGetErrorString(e));
        return false;
    }
    if (count == 0) {
        snprintf(why, len, "no CUDA device found");
        return false;
    }
    m->devices = (device_info *)calloc((size_t)count, sizeof *m->devices);
    if (!m->devices) {
        snprintf(why, len, "out of memory");
        return false;
    }
    for (int i = 0; i < count; i++) {
        if (device_facts(i, &m->devices[i], why, len) != 0)
            return false;
        m->ndevices++;
    }
    return true;
}

extern "C" int gpu_events_reserve(int count, char *err, size_t errlen)
{
    if (count <= g.nevents)
        return 0;
    cudaEvent_t *grown = (cudaEvent_t *)realloc(g.events, (size_t)count * sizeof *grown);
    if (!grown) {
        snprintf(err, errlen, "out of memory for events");
        return -1;
    }
    g.events = grown;
    while (g.nevents < count)
        CUDA_TRY(cudaEventCreate(&g.events[g.nevents++]));
    return 0;
}

static int open_device(run_model *m, int device, char *err, size_t errlen)
{
    g.device = device;
    CUDA_TRY(cudaSetDevice(device));
    CUDA_TRY(cudaFree(0)); // creates the context here, so its cost is not charged to a workload
    CUDA_TRY(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
    g.open = true;
    size_t free_b = 0, total_b = 0;
    CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    m->devices[device].free_mem = free_b;
    return gpu_events_reserve(EV_COUNT_MIN, err, errlen);
}

static void release_buffers(void)
{
    cudaFreeHost(g.pinA);
    cudaFreeHost(g.pinB);
    cudaFreeHost(g.pinC);
    free(g.pageC);
    cudaFree(g.flush);
    g.pinA = g.pinB = g.pinC = g.pageC = NULL;
    g.flush = NULL;
    g.flush_bytes = 0;
}

static int host_buffers(const gpu_inputs *in, char *err, size_t errlen)
{
    release_buffers(); // a sweep's earlier size
    g.bytes = (size_t)in->n * (size_t)in->n * sizeof(float);
    if (in->cold_l2) {
        int l2 = 0;
        CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, g.device));
        g.flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 1 << 20);
        CUDA_TRY(cudaMalloc(&g.flush, g.flush_bytes));
    }
    if (in->pinned) {
        CUDA_TRY(cudaMallocHost((void **)&g.pinA, g.bytes));
        CUDA_TRY(cudaMallocHost((void **)&g.pinB, g.bytes));
        CUDA_TRY(cudaMallocHost((void **)&g.pinC, g.bytes));
        memcpy(g.pinA, in->A, g.bytes);
        memcpy(g.pinB, in->B, g.bytes);
    }
    g.pageC = (float *)malloc(g.bytes);
    if (!g.pageC) {
        snprintf(err, errlen, "out of host memory for the result buffer");
        return -1;
    }
    return 0;
}

extern "C" bool gpu_open(run_model *m, int device, char *why, size_t len)
{
    return open_device(m, device, why, len) == 0;
}

extern "C" bool gpu_prepare(const gpu_inputs *in, char *why, size_t len)
{
    return host_buffers(in, why, len) == 0;
}

extern "C" bool gpu_open_cublas(char *why, size_t len)
{
    return cublas_open(g.stream, why, len) == 0;
}

// The current context through the runtime's driver entry point: the program links no libcuda.
extern "C" void *gpu_context(void)
{
    CUresult (*get)(CUcontext *) = NULL;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", (void **)&get, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !get)
        return NULL;
    CUcontext ctx = NULL;
    return get(&ctx) == CUDA_SUCCESS ? ctx : NULL;
}

extern "C" int gpu_device(void)
{
    return g.device;
}

// The DRAM pass's flush buffer: four times the L2, so reading it evicts every line the L2 held
// (writing back the dirty ones) whatever the L2's replacement policy keeps.
extern "C" int gpu_counter_flush_buffer(char *err, size_t errlen)
{
    int l2 = 0;
    CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, g.device));
    g.ctr_flush_floats = 4 * (size_t)(l2 > 0 ? l2 : 1 << 20) / sizeof(float);
    int sms = 0;
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, g.device));
    g.ctr_flush_blocks = 4 * (sms > 0 ? sms : 1);
    CUDA_TRY(cudaMalloc((void **)&g.ctr_flush, g.ctr_flush_floats * sizeof(float)));
    CUDA_TRY(cudaMemset(g.ctr_flush, 0, g.ctr_flush_floats * sizeof(float)));
    CUDA_TRY(cudaMalloc((void **)&g.ctr_sink, sizeof(float)));
    CUDA_TRY(cudaDeviceSynchronize());
    return 0;
}

extern "C" uint64_t gpu_free_memory(void)
{
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        return 0;
    return free_b;
}

// ---------- one workload ----------

extern "C" void gpu_job_init(gpu_job *j, const gpu_compute *c, int n, const float *A, const float *B, mem_kind kind)
{
    memset(j, 0, sizeof *j);
    j->c = c, j->n = n;
    bool pinned = kind == MEM_PINNED;
    j->hA = pinned ? g.pinA : A;
    j->hB = pinned ? g.pinB : B;
    j->hC = pinned ? g.pinC : g.pageC;
    j->bytes = g.bytes;
    j->device = g.device;
}

extern "C" int gpu_event_ms(int from, int to, double *ms, char *err, size_t errlen)
{
    cudaEvent_t a = g.events[from], b = g.events[to];
    float f = 0;
    CUDA_TRY(cudaEventElapsedTime(&f, a, b));
    *ms = f;
    return 0;
}

extern "C" int gpu_allocate(gpu_job *j, char *err, size_t errlen)
{
    size_t bytes = g.bytes;
    CUDA_TRY(cudaMalloc((void **)&j->dA, bytes));
    CUDA_TRY(cudaMalloc((void **)&j->dB, bytes));
    CUDA_TRY(cudaMalloc((void **)&j->dC, bytes));
    // Poison C with NaN (all bits set): an element the kernel never writes fails verification.
    // The host buffer too, so a short copy shows as NaN; done here, since the first touch of a
    // pageable buffer faults its pages in, which would otherwise sit as an idle gap between the
    // compute and copy-out phases.
    CUDA_TRY(cudaMemsetAsync(j->dC, 0xFF, bytes, g.stream));
    memset(j->hC, 0xFF, bytes);
    CUDA_TRY(cudaStreamSynchronize(g.stream));
    return 0;
}

extern "C" int gpu_reference_event(char *err, size_t errlen)
{
    CUDA_TRY(cudaEventRecord(g.events[EV_REF], g.stream));
    CUDA_TRY(cudaEventSynchronize(g.events[EV_REF]));
    return 0;
}

extern "C" int gpu_copy_in(gpu_job *j, char *err, size_t errlen)
{
    CUDA_TRY(cudaEventRecord(g.events[EV_A0], g.stream));
    CUDA_TRY(cudaMemcpyAsync(j->dA, j->hA, g.bytes, cudaMemcpyHostToDevice, g.stream));
    CUDA_TRY(cudaEventRecord(g.events[EV_A1], g.stream));
    CUDA_TRY(cudaMemcpyAsync(j->dB, j->hB, g.bytes, cudaMemcpyHostToDevice, g.stream));
    CUDA_TRY(cudaEventRecord(g.events[EV_B1], g.stream));
    CUDA_TRY(cudaStreamSynchronize(g.stream));
    return 0;
}

// Launches count products, each between its start and end events; with --cold-l2 the flush
// buffer is written on the stream before each start event.
extern "C" int gpu_launches(gpu_job *j, int first_event, int count, char *err, size_t errlen)
{
    for (int i = 0; i < count; i++) {
        if (g.flush)
            CUDA_TRY(cudaMemsetAsync(g.flush, i & 0xFF, g.flush_bytes, g.stream));
        CUDA_TRY(cudaEventRecord(g.events[EV_START(first_event, i)], g.stream));
        if (j->c->launch(j->dA, j->dB, j->dC, j->n, g.stream, err, errlen) != 0)
            return -1;
        CUDA_TRY(cudaEventRecord(g.events[EV_END(first_event, i)], g.stream));
    }
    CUDA_TRY(cudaStreamSynchronize(g.stream));
    CUDA_TRY(cudaGetLastError());
    return 0;
}

extern "C" int gpu_copy_out(gpu_job *j, char *err, size_t errlen)
{
    CUDA_TRY(cudaEventRecord(g.events[EV_C0], g.stream));
    CUDA_TRY(cudaMemcpyAsync(j->hC, j->dC, g.bytes, cudaMemcpyDeviceToHost, g.stream));
    CUDA_TRY(cudaEventRecord(g.events[EV_C1], g.stream));
    CUDA_TRY(cudaStreamSynchronize(g.stream));
    return 0;
}

extern "C" int gpu_kernel_resources(const gpu_job *j, kernel_resources *res, int *blocks_per_sm, char *err,
                                    size_t errlen)
{
    cudaFuncAttributes a;
    cudaFuncAttributes *attr = &a;
    CUDA_TRY(cudaFuncGetAttributes(attr, j->shape.func));
    int threads = j->shape.block[0] * j->shape.block[1] * j->shape.block[2];
    int blocks = 0;
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, j->shape.func, threads,
                                                           (size_t)j->shape.dynamic_smem));
    res->registers = attr->numRegs;
    res->static_smem = (int)attr->sharedSizeBytes;
    res->local_mem = (int)attr->localSizeBytes;
    *blocks_per_sm = blocks;
    return 0;
}

extern "C" bool gpu_release(gpu_job *j)
{
    cudaError_t e1 = cudaFree(j->dA), e2 = cudaFree(j->dB), e3 = cudaFree(j->dC);
    return !(e1 || e2 || e3);
}

// Fault injection for the watchdog's test (gpu_workload.c reads MMPROF_FAULT_GPU_HANG_MS): one
// thread spins on the GPU's nanosecond timer on the run's stream, a stand-in for a kernel that
// hangs.
__global__ void mmprof_fault_spin(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

extern "C" int gpu_fault_spin(long ms, char *err, size_t errlen)
{
    mmprof_fault_spin<<<1, 1, 0, g.stream>>>((unsigned long long)ms * 1000000ull);
    CUDA_TRY(cudaGetLastError());
    return 0;
}

extern "C" int gpu_launch_once(gpu_job *j, char *err, size_t errlen)
{
    if (j->c->launch(j->dA, j->dB, j->dC, j->n, g.stream, err, errlen) != 0)
        return -1;
    return cudaStreamSynchronize(g.stream) == cudaSuccess && cudaGetLastError() == cudaSuccess ? 0 : -1;
}

// Reads the flush buffer: the L2 then holds its clean lines only, every dirty line written back
// before the DRAM pass starts. A read, not a write: written lines would be dirty and be written
// back during the pass. The sum's store never happens (the buffer is zero) but keeps the reads.
__global__ void mmprof_l2_clean(const float4 *buf, size_t n4, float *sink)
{
    float acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
        float4 v = buf[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1.0f)
        *sink = acc;
}

extern "C" int gpu_l2_clean(char *err, size_t errlen)
{
    mmprof_l2_clean<<<g.ctr_flush_blocks, 512, 0, g.stream>>>((const float4 *)g.ctr_flush, g.ctr_flush_floats / 4, g.ctr_sink);
    CUDA_TRY_LAUNCH("the L2 flush");
    CUDA_TRY(cudaStreamSynchronize(g.stream));
    return 0;
}

extern "C" void gpu_profiler_start(void)
{
    cudaProfilerStart();
}

extern "C" void gpu_profiler_stop(void)
{
    cudaProfilerStop();
}

extern "C" void gpu_sync(void)
{
    if (g.open)
        cudaDeviceSynchronize();
}

extern "C" void gpu_close(void)
{
    if (!g.open)
        return;
    cudaDeviceSynchronize();
    cublas_close();
    cudaFree(g.ctr_flush);
    cudaFree(g.ctr_sink);
    for (int i = 0; i < g.nevents; i++)
        cudaEventDestroy(g.events[i]);
    free(g.events);
    release_buffers();
    cudaStreamDestroy(g.stream);
    memset(&g, 0, sizeof g);
}

extern "C" void gpu_reset(void)
{
    gpu_close();
    cudaDeviceReset();
}
