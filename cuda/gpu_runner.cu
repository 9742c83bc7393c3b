// The GPU side of a run: device facts, one context and stream, and the phases of each GPU
// workload. Every CUDA call's status is checked; a failure marks the workload as an error with
// the call that failed, and the phases already opened are closed so NVTX ranges stay balanced.
//
// Each workload records cudaEvents around every copy and every launch whatever collects the run:
// under CUPTI they are the cross-check for CUPTI's kernel durations; when another profiler holds
// CUPTI they are the timing, turned into copy and kernel events on the host clock.
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "counters.h"
#include "cuda_check.h"
#include "gpu_runner.h"
#include "ranges.h"
#include "verify.h"

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
    counter_session *counters; // the range profiler, when the run reads counters
    float *ctr_flush;          // read before the counters' DRAM pass, to leave the L2 clean
    size_t ctr_flush_floats;
    float *ctr_sink;
    int ctr_flush_blocks;      // the read's grid: 4 blocks per SM
} g;

#define MAX_SAMPLES 200 // as the fixed-target count was capped before: a sweep of tiny kernels stays a few MB
#define MIN_SAMPLES 10
#define WARMUP_LAUNCHES 2
#define EV_COUNT_MIN (2 * WARMUP_LAUNCHES + 16) // events made up front; compute grows the pool

extern "C" sample_rule gpu_sample_rule(int repeat, double max_noise_pct, double max_time_ms)
{
    sample_rule r;
    memset(&r, 0, sizeof r);
    r.fixed = repeat;
    r.min_samples = MIN_SAMPLES;
    r.max_samples = MAX_SAMPLES;
    r.max_noise_pct = max_noise_pct;
    r.max_time_ms = max_time_ms;
    return r;
}

static void sysfs_read(const char *dir, const char *file, char *buf, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

// The PCIe link from sysfs: the device's maximum speed and width (an idle GPU trains its link
// down, so the current speed under-reads the ceiling).
static void pcie_link(device_info *d)
{
    char dir[96], lower[32], speed[64], width[16];
    size_t i;
    for (i = 0; d->pci_bus_id[i] && i + 1 < sizeof lower; i++)
        lower[i] = (char)tolower((unsigned char)d->pci_bus_id[i]);
    lower[i] = '\0';
    snprintf(dir, sizeof dir, "/sys/bus/pci/devices/%s", lower);
    sysfs_read(dir, "max_link_speed", speed, sizeof speed);
    sysfs_read(dir, "max_link_width", width, sizeof width);
    double gts = atof(speed);
    static const double rates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    for (int k = 0; k < 6; k++)
        if (fabs(gts - rates[k]) < 0.01)
            d->pcie_gen = k + 1;
    d->pcie_width = atoi(width);
    if (d->pcie_gen == 0 || d->pcie_width <= 0) {
        d->pcie_gen = d->pcie_width = 0;
        snprintf(d->pcie_why, sizeof d->pcie_why, "PCIe link speed and width not readable in sysfs for %.16s",
                 lower);
    }
}

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
    pcie_link(d);
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

static int ensure_events(int count, char *err, size_t errlen)
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
    return ensure_events(EV_COUNT_MIN, err, errlen);
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
static CUcontext current_context(void)
{
    CUresult (*get)(CUcontext *) = NULL;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", (void **)&get, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !get)
        return NULL;
    CUcontext ctx = NULL;
    return get(&ctx) == CUDA_SUCCESS ? ctx : NULL;
}

// The DRAM pass's flush buffer: four times the L2, so reading it evicts every line the L2 held
// (writing back the dirty ones) whatever the L2's replacement policy keeps.
static int counter_flush_buffer(char *err, size_t errlen)
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

extern "C" bool gpu_open_counters(run_model *m, char *why, size_t len)
{
    if (counter_flush_buffer(why, len) != 0)
        return false;
    g.counters = counters_open(current_context(), g.device, why, len);
    if (!g.counters)
        return false;
    m->counters.passes = counters_passes(g.counters);
    const char *verbose = getenv("MMPROF_COUNTERS_VERBOSE");
    if (verbose && verbose[0] == '1')
        counters_describe(g.counters, stderr);
    return true;
}

extern "C" uint64_t gpu_free_memory(void)
{
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        return 0;
    return free_b;
}

// ---------- one workload ----------

// Event slots: reference, A in, B in, C out, then a start and an end event per launch (warm-up
// launches, then the compute phase's samples). A pair per launch, not one event between
// launches, so that --cold-l2's flush can run between them outside the timed interval.
enum { EV_REF, EV_A0, EV_A1, EV_B1, EV_C0, EV_C1, EV_W0, EV_COMPUTE = EV_W0 + 2 * WARMUP_LAUNCHES };
#define EV_START(first, i) ((first) + 2 * (i))
#define EV_END(first, i) ((first) + 2 * (i) + 1)

typedef struct {
    const gpu_compute *c;
    const gpu_inputs *in;
    workload_run *w;
    float *dA, *dB, *dC;
    const float *hA, *hB;
    float *hC;
    int64_t host_ref; // collector_now() when EV_REF completed
    kernel_shape shape;
    bool has_shape;
    double *ms;        // the compute phase's samples (room for the rule's cap)
    sample_result got;
    char err[256];
} job;

static int ms_between(cudaEvent_t a, cudaEvent_t b, double *ms, char *err, size_t errlen)
{
    float f = 0;
    CUDA_TRY(cudaEventElapsedTime(&f, a, b));
    *ms = f;
    return 0;
}

static int allocate(job *j, char *err, size_t errlen)
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
    if (j->c->setup && j->c->setup(err, errlen) != 0)
        return -1;
    return 0;
}

static int copy_in(job *j, char *err, size_t errlen)
{
    // The reference event ties event times to the host clock for cudaEvent timing.
    CUDA_TRY(cudaEventRecord(g.events[EV_REF], g.stream));
    CUDA_TRY(cudaEventSynchronize(g.events[EV_REF]));
    j->host_ref = collector_now();
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
static int launches(job *j, int first_event, int count, char *err, size_t errlen)
{
    for (int i = 0; i < count; i++) {
        if (g.flush)
            CUDA_TRY(cudaMemsetAsync(g.flush, i & 0xFF, g.flush_bytes, g.stream));
        CUDA_TRY(cudaEventRecord(g.events[EV_START(first_event, i)], g.stream));
        if (j->c->launch(j->dA, j->dB, j->dC, j->in->n, g.stream, err, errlen) != 0)
            return -1;
        CUDA_TRY(cudaEventRecord(g.events[EV_END(first_event, i)], g.stream));
    }
    CUDA_TRY(cudaStreamSynchronize(g.stream));
    CUDA_TRY(cudaGetLastError());
    return 0;
}

// One batch of samples for sampling.h: the launches back to back, one synchronization, then each
// launch's time from its events.
typedef struct {
    job *j;
    char *err;
    size_t errlen;
} batch_ctx;

static int take_launches(void *ctx, int first, int count, double *ms)
{
    batch_ctx *b = (batch_ctx *)ctx;
    int base = EV_START(EV_COMPUTE, first);
    if (ensure_events(EV_START(EV_COMPUTE, first + count), b->err, b->errlen) != 0 ||
        launches(b->j, base, count, b->err, b->errlen) != 0)
        return -1;
    for (int i = 0; i < count; i++)
        if (ms_between(g.events[EV_START(base, i)], g.events[EV_END(base, i)], &ms[i], b->err, b->errlen) != 0)
            return -1;
    return 0;
}

static double host_ms(void *ctx)
{
    (void)ctx;
    return (double)collector_now() / 1e6;
}

// The warm-up's last launch: the expected time of one sample.
static double warm_sample_ms(void)
{
    double ms = 0;
    if (ms_between(g.events[EV_START(EV_W0, WARMUP_LAUNCHES - 1)], g.events[EV_END(EV_W0, WARMUP_LAUNCHES - 1)], &ms,
                   NULL, 0) != 0)
        return 0;
    return ms;
}

static int copy_out(job *j, char *err, size_t errlen)
{
    CUDA_TRY(cudaEventRecord(g.events[EV_C0], g.stream));
    CUDA_TRY(cudaMemcpyAsync(j->hC, j->dC, g.bytes, cudaMemcpyDeviceToHost, g.stream));
    CUDA_TRY(cudaEventRecord(g.events[EV_C1], g.stream));
    CUDA_TRY(cudaStreamSynchronize(g.stream));
    return 0;
}

// Event time on the host clock: the reference event's host time plus the elapsed time.
static int64_t event_time(job *j, int ev)
{
    double ms = 0;
    if (ms_between(g.events[EV_REF], g.events[ev], &ms, NULL, 0) != 0)
        return j->host_ref;
    return j->host_ref + (int64_t)llround(ms * 1e6);
}

static void add_event_copy(job *j, copy_dir dir, int from, int to)
{
    bool pinned = j->w->host_memory == MEM_PINNED;
    mem_kind host = pinned ? MEM_PINNED : MEM_PAGEABLE;
    copy_event c;
    memset(&c, 0, sizeof c);
    c.dir = dir;
    c.src = dir == COPY_H2D ? host : MEM_DEVICE;
    c.dst = dir == COPY_H2D ? MEM_DEVICE : host;
    c.bytes = g.bytes;
    c.start_ns = event_time(j, from);
    c.end_ns = event_time(j, to);
    c.device = (uint32_t)g.device;
    workload_add_copy(j->w, &c);
}

static void add_event_kernel(job *j, int from, int to, const cudaFuncAttributes *attr)
{
    kernel_event k;
    memset(&k, 0, sizeof k);
    k.name = j->has_shape ? j->shape.name : (char *)"cuBLAS (kernel names need CUPTI)";
    k.start_ns = event_time(j, from);
    k.end_ns = event_time(j, to);
    k.device = (uint32_t)g.device;
    if (j->has_shape) {
        memcpy(k.grid, j->shape.grid, sizeof k.grid);
        memcpy(k.block, j->shape.block, sizeof k.block);
        k.has_resources = attr != NULL;
        if (attr) {
            k.registers = attr->numRegs;
            k.static_smem = (int)attr->sharedSizeBytes;
            k.dynamic_smem = j->shape.dynamic_smem;
            k.local_mem = (int)attr->localSizeBytes;
        }
    }
    workload_add_kernel(j->w, &k);
}

// Under cudaEvent timing the events become the workload's copy and kernel records.
static void events_as_records(job *j, int repeat, const cudaFuncAttributes *attr)
{
    add_event_copy(j, COPY_H2D, EV_A0, EV_A1);
    add_event_copy(j, COPY_H2D, EV_A1, EV_B1);
    for (int i = 0; i < WARMUP_LAUNCHES; i++)
        add_event_kernel(j, EV_START(EV_W0, i), EV_END(EV_W0, i), attr);
    for (int i = 0; i < repeat; i++)
        add_event_kernel(j, EV_START(EV_COMPUTE, i), EV_END(EV_COMPUTE, i), attr);
    add_event_copy(j, COPY_D2H, EV_C0, EV_C1);
}

// The CUDA runtime's occupancy for our own kernels, for the calculator to be checked against.
static int occupancy_check_of(job *j, cudaFuncAttributes *attr, char *err, size_t errlen)
{
    CUDA_TRY(cudaFuncGetAttributes(attr, j->shape.func));
    int threads = j->shape.block[0] * j->shape.block[1] * j->shape.block[2];
    int blocks = 0;
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, j->shape.func, threads,
                                                           (size_t)j->shape.dynamic_smem));
    occupancy_check o;
    memset(&o, 0, sizeof o);
    snprintf(o.kernel, sizeof o.kernel, "%s", j->shape.name);
    o.block_size = threads;
    o.dynamic_smem = j->shape.dynamic_smem;
    o.registers = attr->numRegs;
    o.static_smem = (int)attr->sharedSizeBytes;
    o.runtime_blocks_per_sm = blocks;
    workload_add_occ(j->w, &o);
    return 0;
}

static void mark_error(workload_run *w, const char *err)
{
    w->status = WL_ERROR;
    snprintf(w->status_reason, sizeof w->status_reason, "%s", err[0] ? err : "unknown error");
}

typedef int (*step_fn)(job *, char *, size_t);

// Runs one step inside its phase; on failure records the error. True when the step succeeded.
static bool step(job *j, const char *phase_name, step_fn fn)
{
    phase *p = phase_begin(j->w, phase_name, j->in->n);
    int rc = fn(j, j->err, sizeof j->err);
    phase_end(p);
    if (rc != 0)
        mark_error(j->w, j->err);
    return rc == 0;
}

// Fault injection for the watchdog's test: with MMPROF_FAULT_GPU_HANG_MS set, one thread spins on
// the GPU's nanosecond timer that long on the run's stream before the warm-up, so the workload's
// next wait does not return in time (a stand-in for a kernel that hangs). Not for users; the
// variable is documented in docs/architecture.md with the watchdog.
__global__ void mmprof_fault_spin(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

static int fault_hang(job *j, char *err, size_t errlen)
{
    (void)j;
    const char *s = getenv("MMPROF_FAULT_GPU_HANG_MS");
    long ms = s ? strtol(s, NULL, 10) : 0;
    if (ms <= 0)
        return 0;
    mmprof_fault_spin<<<1, 1, 0, g.stream>>>((unsigned long long)ms * 1000000ull);
    CUDA_TRY(cudaGetLastError());
    return 0;
}

static int warm_up(job *j, char *err, size_t errlen)
{
    if (fault_hang(j, err, errlen) != 0)
        return -1;
    return launches(j, EV_W0, WARMUP_LAUNCHES, err, errlen);
}

// The compute phase: samples by the rule into j->ms.
static int compute(job *j, char *err, size_t errlen)
{
    batch_ctx b = {j, err, errlen};
    if (sample_until(&j->in->rule, warm_sample_ms(), take_launches, host_ms, &b, j->ms, &j->got) != 0)
        return -1;
    return 0;
}

// The counter pass: one more product, launched under the range profiler after the timed ones and
// verification, so replaying it for each pass touches no timing and no verified result.
static int counter_launch(void *ctx)
{
    job *j = (job *)ctx;
    if (j->c->launch(j->dA, j->dB, j->dC, j->in->n, g.stream, j->err, sizeof j->err) != 0)
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

static int counter_flush(void *ctx)
{
    job *j = (job *)ctx;
    char *err = j->err;
    size_t errlen = sizeof j->err;
    mmprof_l2_clean<<<g.ctr_flush_blocks, 512, 0, g.stream>>>((const float4 *)g.ctr_flush, g.ctr_flush_floats / 4, g.ctr_sink);
    CUDA_TRY_LAUNCH("the L2 flush");
    CUDA_TRY(cudaStreamSynchronize(g.stream));
    return 0;
}

static void counter_pass(job *j)
{
    phase *p = phase_begin(j->w, "counters", j->in->n);
    char why[256] = "";
    if (counters_collect(g.counters, counter_launch, counter_flush, j, j->w, why, sizeof why) != 0)
        snprintf(j->w->counters_why, sizeof j->w->counters_why, "%s", why);
    phase_end(p);
    // The range profiler numbers its ranges; our own kernel has its name here (a library's is
    // named from its kernel records, runner.c).
    if (j->has_shape && j->w->ncounters == 1) {
        char *name = strdup(j->shape.name);
        if (name) {
            free(j->w->counters[0].name);
            j->w->counters[0].name = name;
        }
    }
}

extern "C" void gpu_run(const gpu_compute *c, const gpu_inputs *in, mem_kind kind, workload_run *w)
{
    job j;
    memset(&j, 0, sizeof j);
    j.c = c, j.in = in, j.w = w;
    bool pinned = kind == MEM_PINNED;
    j.hA = pinned ? g.pinA : in->A;
    j.hB = pinned ? g.pinB : in->B;
    j.hC = pinned ? g.pinC : g.pageC;
    w->needs_gpu = true;
    w->host_memory = kind;
    w->prec = c->prec;
    w->device = g.device;
    w->host_tid = (uint32_t)gettid();
    w->timing = collector_cupti_active() ? TIMING_CUPTI : TIMING_CUDA_EVENT;
    w->error_bound = error_bound(c->prec);
    j.has_shape = c->shape && c->shape(in->n, &j.shape);
    cudaFuncAttributes attr;
    bool have_attr = false;
    int repeat = 0;

    range_push_workload(w, in->n);
    w->n = in->n;
    int cap = in->rule.fixed > 0 ? in->rule.fixed : in->rule.max_samples;
    j.ms = (double *)malloc((size_t)(cap > 0 ? cap : 1) * sizeof *j.ms);
    bool ok = j.ms != NULL;
    if (!ok)
        mark_error(w, "out of host memory for the samples");
    ok = ok && step(&j, "allocate", allocate) && step(&j, "copy-in", copy_in) && step(&j, "warm-up", warm_up);
    if (ok) {
        w->launched = WARMUP_LAUNCHES;
        ok = step(&j, "compute", compute);
        repeat = j.got.samples;
        w->repeat = w->samples = repeat;
        w->noise_pct = j.got.noise_pct;
        w->stopped_by = j.got.stopped_by;
        w->launched += repeat;
    }
    for (int i = 0; ok && i < repeat; i++)
        workload_add_product_ms(w, j.ms[i]);
    if (ok)
        ok = step(&j, "copy-out", copy_out);
    if (ok) {
        phase *p = phase_begin(w, "verify", in->n);
        verify_into(w, j.hC, in->ref, (size_t)in->n * (size_t)in->n);
        phase_end(p);
    }
    if (ok && j.has_shape) {
        if (occupancy_check_of(&j, &attr, j.err, sizeof j.err) == 0)
            have_attr = true;
        else
            mark_error(w, j.err);
    }
    if (w->timing == TIMING_CUDA_EVENT && w->nproduct_ms == repeat && repeat > 0)
        events_as_records(&j, repeat, have_attr ? &attr : NULL);
    if (ok && in->counters && g.counters)
        counter_pass(&j);
    // Free whatever was allocated, even after an error; errors here are reported too.
    free(j.ms);
    cudaError_t e1 = cudaFree(j.dA), e2 = cudaFree(j.dB), e3 = cudaFree(j.dC);
    if (w->status != WL_ERROR && (e1 || e2 || e3))
        mark_error(w, "cudaFree failed after the run");
    range_pop();
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
    counters_close(g.counters);
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
