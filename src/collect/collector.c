/* CUPTI activity collection. See collector.h; the call sequence (docs/cupti.md) is:
 * subscribe first (to learn whether another tool holds CUPTI), register buffer callbacks, enable
 * the kinds before any work, drain buffers in the completion callback, flush forced at the end. */
#include "collector.h"

#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* 8 MB buffers: CUPTI asks for a new one when one fills, and hands full ones back on its own
 * thread; a 2048 run produces well under one buffer of records. */
#define BUFFER_BYTES (8u << 20)

static struct {
    bool active;
    CUpti_SubscriberHandle subscriber;
    pthread_mutex_t lock;
    workload_run pool; /* every record received, before it is handed to a workload */
    uint64_t records, dropped, lost, overhead_records, memsets, errors;
    int64_t overhead_ns;
} col = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void CUPTIAPI ignore_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                     const void *data)
{
    (void)userdata, (void)domain, (void)cbid, (void)data;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0;
    *max_records = 0; /* as many as fit */
}

static mem_kind memory_kind(uint8_t k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return MEM_PAGEABLE;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return MEM_PINNED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return MEM_DEVICE;
    default: return MEM_UNKNOWN;
    }
}

static copy_dir copy_direction(uint8_t k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return COPY_H2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return COPY_D2H;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return COPY_D2D;
    default: return COPY_OTHER;
    }
}

/* Called with col.lock held. Copies what the model needs out of the record: CUPTI reuses the
 * buffer, and the kernel name it points to belongs to CUPTI. */
static void store(const CUpti_Activity *rec)
{
    col.records++;
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *r = (const CUpti_ActivityKernel10 *)rec;
        if (r->start == 0 && r->end == 0) {
            col.lost++;
            return;
        }
        kernel_event k = {
            .name = (char *)(r->name ? r->name : "?"),
            .start_ns = (int64_t)r->start, .end_ns = (int64_t)r->end,
            .device = r->deviceId, .stream = r->streamId, .correlation = r->correlationId,
            .grid = {r->gridX, r->gridY, r->gridZ}, .block = {r->blockX, r->blockY, r->blockZ},
            .has_resources = true, .registers = r->registersPerThread,
            .static_smem = r->staticSharedMemory, .dynamic_smem = r->dynamicSharedMemory,
            .smem_optin = r->shmemLimitConfig == CUPTI_FUNC_SHMEM_LIMIT_OPTIN,
            .local_mem = (int)r->localMemoryPerThread,
        };
        if (!workload_add_kernel(&col.pool, &k))
            col.errors++;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *r = (const CUpti_ActivityMemcpy6 *)rec;
        if (r->start == 0 && r->end == 0) {
            col.lost++;
            return;
        }
        copy_event c = {
            .dir = copy_direction(r->copyKind), .src = memory_kind(r->srcKind), .dst = memory_kind(r->dstKind),
            .bytes = r->bytes, .start_ns = (int64_t)r->start, .end_ns = (int64_t)r->end,
            .device = r->deviceId, .stream = r->streamId, .correlation = r->correlationId,
        };
        if (!workload_add_copy(&col.pool, &c))
            col.errors++;
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
        const CUpti_ActivityAPI *r = (const CUpti_ActivityAPI *)rec;
        const char *name = NULL;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, r->cbid, &name) != CUPTI_SUCCESS || !name)
            name = "cuda runtime call";
        api_event a = {
            .name = (char *)name, .start_ns = (int64_t)r->start, .end_ns = (int64_t)r->end,
            .thread = r->threadId, .correlation = r->correlationId,
        };
        if (!workload_add_api(&col.pool, &a))
            col.errors++;
        break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        const CUpti_ActivityOverhead3 *r = (const CUpti_ActivityOverhead3 *)rec;
        col.overhead_records++;
        if (r->end > r->start)
            col.overhead_ns += (int64_t)(r->end - r->start);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET:
        col.memsets++;
        break;
    default: /* SYNCHRONIZATION and anything else: counted in records */
        break;
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
    (void)size;
    pthread_mutex_lock(&col.lock);
    CUpti_Activity *rec = NULL;
    for (;;) {
        CUptiResult st = cuptiActivityGetNextRecord(buffer, valid, &rec);
        if (st == CUPTI_ERROR_MAX_LIMIT_REACHED)
            break;
        if (st != CUPTI_SUCCESS) {
            col.errors++;
            break;
        }
        store(rec);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
        col.dropped += dropped;
    pthread_mutex_unlock(&col.lock);
    free(buffer);
}

static const char *result_string(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        return "unknown CUPTI error";
    return s;
}

/* True when a profiler injected itself: it owns CUPTI, and mmprof must leave it alone. */
static bool profiler_attached(char *why, size_t len)
{
    const char *cuda = getenv("CUDA_INJECTION64_PATH");
    if (cuda && cuda[0]) {
        snprintf(why, len, "a profiler is attached (CUDA_INJECTION64_PATH=%s)", cuda);
        return true;
    }
    const char *nvtx = getenv("NVTX_INJECTION64_PATH");
    if (nvtx && nvtx[0] && !strstr(nvtx, "cupti")) {
        snprintf(why, len, "a profiler is attached (NVTX_INJECTION64_PATH=%s)", nvtx);
        return true;
    }
    return false;
}

void collector_start(const collector_options *opt, collection_info *info)
{
    memset(info, 0, sizeof *info);
    info->source = TIMING_CUDA_EVENT;
    uint32_t version = 0;
    if (cuptiGetVersion(&version) == CUPTI_SUCCESS)
        info->cupti_version = (int)version;
    if (opt->disable_cupti) {
        copy_str(info->reason, sizeof info->reason, "CUPTI disabled by --no-cupti");
        return;
    }
    if (profiler_attached(info->reason, sizeof info->reason))
        return;
    CUptiResult r = cuptiSubscribe(&col.subscriber, (CUpti_CallbackFunc)ignore_callback, NULL);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        copy_str(info->reason, sizeof info->reason,
                 "another tool holds CUPTI (multiple subscribers are not supported)");
        return;
    }
    if (r != CUPTI_SUCCESS) {
        snprintf(info->reason, sizeof info->reason, "cuptiSubscribe failed: %s", result_string(r));
        return;
    }
    r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    static const struct { CUpti_ActivityKind kind; const char *name; bool needed; } kinds[] = {
        {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true},
        {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", true},
        {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", false},
        {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", false},
        {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", false},
        {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", false},
    };
    for (size_t i = 0; r == CUPTI_SUCCESS && i < sizeof kinds / sizeof kinds[0]; i++) {
        CUptiResult e = cuptiActivityEnable(kinds[i].kind);
        if (e != CUPTI_SUCCESS && kinds[i].needed) {
            r = e;
            snprintf(info->reason, sizeof info->reason, "enabling %s records failed: %s",
                     kinds[i].name, result_string(e));
        }
    }
    if (r != CUPTI_SUCCESS) {
        if (!info->reason[0])
            snprintf(info->reason, sizeof info->reason, "registering CUPTI buffers failed: %s",
                     result_string(r));
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
            cuptiActivityDisable(kinds[i].kind);
        cuptiUnsubscribe(col.subscriber);
        return;
    }
    col.active = true;
    info->source = TIMING_CUPTI;
}

bool collector_cupti_active(void)
{
    return col.active;
}

int64_t collector_now(void)
{
    if (col.active) {
        uint64_t ts;
        if (cuptiGetTimestamp(&ts) == CUPTI_SUCCESS)
            return (int64_t)ts;
    }
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The workload whose span (first phase start to last phase end) holds t, or NULL. */
static workload_run *owner(run_model *m, int64_t t)
{
    for (int i = 0; i < m->nworkloads; i++) {
        workload_run *w = &m->workloads[i];
        if (w->nphases > 0 && w->needs_gpu && t >= w->phases[0].start_ns &&
            t <= w->phases[w->nphases - 1].end_ns)
            return w;
    }
    return NULL;
}

void collector_finish(run_model *m, collection_info *info)
{
    if (!col.active)
        return;
    int64_t t0 = collector_now();
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    info->flush_ms = (double)(collector_now() - t0) / 1e6;
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_OVERHEAD);

    pthread_mutex_lock(&col.lock);
    workload_run *pool = &col.pool;
    for (size_t i = 0; i < pool->nkernels; i++) {
        workload_run *w = owner(m, pool->kernels[i].start_ns);
        if (w && w->timing == TIMING_CUPTI && !workload_add_kernel(w, &pool->kernels[i]))
            col.errors++;
    }
    for (size_t i = 0; i < pool->ncopies; i++) {
        workload_run *w = owner(m, pool->copies[i].start_ns);
        if (w && w->timing == TIMING_CUPTI && !workload_add_copy(w, &pool->copies[i]))
            col.errors++;
    }
    for (size_t i = 0; i < pool->napis; i++) {
        workload_run *w = owner(m, pool->apis[i].start_ns);
        if (w && !workload_add_api(w, &pool->apis[i]))
            col.errors++;
    }
    info->records = col.records;
    info->dropped = col.dropped;
    info->lost_timestamps = col.lost;
    info->overhead_records = col.overhead_records;
    info->overhead_ns = col.overhead_ns;
    if (col.errors)
        model_add_warning(m, "%llu CUPTI records could not be read or stored",
                          (unsigned long long)col.errors);
    workload_clear(pool); /* the workloads hold copies of what they own */
    pthread_mutex_unlock(&col.lock);
    cuptiUnsubscribe(col.subscriber);
    col.active = false;
}
