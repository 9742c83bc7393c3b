/* CUPTI activity records to run-model events. See cupti_records.h. Struct versions are the
 * current ones of CUDA 13 (cupti_activity.h); CUPTI fills the version that matches the header the
 * program was built with. */
#include "cupti_records.h"

#include <string.h>

#include "cupti_load.h" /* last: its macros rename the CUPTI calls below */

const char *cupti_result_name(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        return "unknown CUPTI error";
    return s;
}

const activity_kind cupti_record_kinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", true},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", false},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", false},
    /* cuBLAS and other libraries launch through the driver API: without these records their
     * kernels have no launching call. */
    {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", false},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", false},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", false},
};
const int cupti_record_nkinds = (int)(sizeof cupti_record_kinds / sizeof cupti_record_kinds[0]);

const activity_kind cupti_memory_kinds[] = {
    {CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2", false},
    {CUPTI_ACTIVITY_KIND_MEMORY_POOL, "MEMORY_POOL", false},
};
const int cupti_memory_nkinds = (int)(sizeof cupti_memory_kinds / sizeof cupti_memory_kinds[0]);

static mem_kind memory_kind(unsigned k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return MEM_PAGEABLE;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return MEM_PINNED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return MEM_DEVICE;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return MEM_ARRAY;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return MEM_MANAGED;
    default: return MEM_UNKNOWN;
    }
}

/* An allocation's kind: a module's __device__ and __managed__ variables, allocated as it loads,
 * are the same memory as any other. */
static mem_kind allocation_kind(unsigned k)
{
    return k == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC    ? MEM_DEVICE
           : k == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC ? MEM_MANAGED
                                                            : memory_kind(k);
}

/* The library a memory record says asked for it, as its base name: "libtorch_cuda.so" rather than
 * the path, which differs between machines and virtual environments. */
static const char *source_name(const char *path)
{
    if (!path || !path[0])
        return NULL;
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

bool cupti_memory_record(const CUpti_Activity *rec, uint32_t pid, memory_activity *m, bool *oom)
{
    if (rec->kind == CUPTI_ACTIVITY_KIND_MEMORY2) {
        const CUpti_ActivityMemory4 *r = (const CUpti_ActivityMemory4 *)rec;
        bool local_pool = r->memoryPoolConfig.memoryPoolType == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
        bool pool = r->memoryPoolConfig.memoryPoolType != CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID;
        const char *source = source_name(r->source);
        mem_event e = {
            .ts_ns = (int64_t)r->timestamp, .address = r->address, .bytes = r->bytes,
            .pool = pool ? (r->memoryPoolConfig.address ? r->memoryPoolConfig.address : 1) : 0,
            .pool_size = local_pool ? (int64_t)r->memoryPoolConfig.pool.size : -1,
            .total_allocated = -1, .total_reserved = -1, .pid = pid,
            .device = r->deviceId,
            .stream = r->streamId == CUPTI_INVALID_STREAM_ID ? 0 : r->streamId,
            .correlation = r->correlationId,
            .allocator = source ? memory_name(m, source) : -1,
            .op = r->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE ? MEMOP_FREE : MEMOP_ALLOC,
            .kind = (uint8_t)allocation_kind(r->memoryKind),
        };
        *oom |= (source && e.allocator < 0) || !memory_add_event(m, &e);
        return true;
    }
    if (rec->kind == CUPTI_ACTIVITY_KIND_MEMORY_POOL) {
        const CUpti_ActivityMemoryPool3 *r = (const CUpti_ActivityMemoryPool3 *)rec;
        mem_pool_event p = {
            .ts_ns = (int64_t)r->timestamp, .pid = pid, .device = r->deviceId, .correlation = r->correlationId,
            .op = r->memoryPoolOperationType == CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED ? MEMPOOL_DESTROYED
                  : r->memoryPoolOperationType == CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED ? MEMPOOL_TRIMMED
                                                                                                      : MEMPOOL_CREATED,
            .managed = r->isManagedPool != 0, .address = r->address, .size = r->size, .utilized = r->utilizedSize,
            .release_threshold = r->releaseThreshold,
        };
        *oom |= !memory_add_pool(m, &p);
        return true;
    }
    return false;
}

static copy_dir copy_direction(unsigned k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return COPY_H2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return COPY_D2H;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return COPY_D2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return COPY_H2H;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return COPY_P2P;
    default: return COPY_OTHER;
    }
}

static void store_api(const CUpti_ActivityAPI *r, api_kind kind, uint32_t pid, event_list *e, record_counts *n)
{
    CUpti_CallbackDomain domain = kind == API_DRIVER ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
    const char *name = NULL;
    if (cuptiGetCallbackName(domain, r->cbid, &name) != CUPTI_SUCCESS || !name)
        name = kind == API_DRIVER ? "cuda driver call" : "cuda runtime call";
    api_event a = {
        .name = (char *)name, .start_ns = (int64_t)r->start, .end_ns = (int64_t)r->end, .kind = kind,
        .pid = pid, .thread = r->threadId, .correlation = r->correlationId,
    };
    if (!events_add_api(e, &a))
        n->errors++;
}

void cupti_record_store(const CUpti_Activity *rec, uint32_t pid, event_list *e, record_counts *n)
{
    n->records++;
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const CUpti_ActivityKernel10 *r = (const CUpti_ActivityKernel10 *)rec;
        /* An end before the start was seen on the H200 while the range profiler replayed kernels
         * (user replay): as unusable as no timestamps, and a run file must not hold it. */
        if ((r->start == 0 && r->end == 0) || r->end < r->start) {
            n->lost++;
            return;
        }
        kernel_event k = {
            .name = (char *)(r->name ? r->name : "?"),
            .start_ns = (int64_t)r->start, .end_ns = (int64_t)r->end, .pid = pid,
            .device = r->deviceId, .stream = r->streamId, .correlation = r->correlationId,
            .grid = {r->gridX, r->gridY, r->gridZ}, .block = {r->blockX, r->blockY, r->blockZ},
            .has_resources = true, .registers = r->registersPerThread,
            .static_smem = r->staticSharedMemory, .dynamic_smem = r->dynamicSharedMemory,
            .smem_optin = r->shmemLimitConfig == CUPTI_FUNC_SHMEM_LIMIT_OPTIN,
            .local_mem = (int)r->localMemoryPerThread,
        };
        if (!events_add_kernel(e, &k))
            n->errors++;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *r = (const CUpti_ActivityMemcpy6 *)rec;
        if (r->start == 0 && r->end == 0) {
            n->lost++;
            return;
        }
        copy_event c = {
            .dir = copy_direction(r->copyKind), .src = memory_kind(r->srcKind), .dst = memory_kind(r->dstKind),
            .bytes = r->bytes, .start_ns = (int64_t)r->start, .end_ns = (int64_t)r->end, .pid = pid,
            .device = r->deviceId, .stream = r->streamId, .correlation = r->correlationId,
        };
        if (!events_add_copy(e, &c))
            n->errors++;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *r = (const CUpti_ActivityMemset4 *)rec;
        if (r->start == 0 && r->end == 0) {
            n->lost++;
            return;
        }
        memset_event s = {
            .mem = memory_kind(r->memoryKind), .bytes = r->bytes, .start_ns = (int64_t)r->start,
            .end_ns = (int64_t)r->end, .pid = pid, .device = r->deviceId, .stream = r->streamId,
            .correlation = r->correlationId,
        };
        if (!events_add_memset(e, &s))
            n->errors++;
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
        store_api((const CUpti_ActivityAPI *)rec, API_RUNTIME, pid, e, n);
        break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
        store_api((const CUpti_ActivityAPI *)rec, API_DRIVER, pid, e, n);
        break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        /* No thread in the record: analysis finds it through the API call's correlation id. */
        const CUpti_ActivitySynchronization2 *r = (const CUpti_ActivitySynchronization2 *)rec;
        sync_kind k = r->type >= 1 && r->type <= 4 ? (sync_kind)r->type : SYNC_UNKNOWN;
        sync_event s = {
            .kind = k, .start_ns = (int64_t)r->start, .end_ns = (int64_t)r->end, .pid = pid,
            .stream = r->streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0 : r->streamId,
            .correlation = r->correlationId,
        };
        if (!events_add_sync(e, &s))
            n->errors++;
        break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        const CUpti_ActivityOverhead3 *r = (const CUpti_ActivityOverhead3 *)rec;
        n->overhead_records++;
        if (r->end > r->start)
            n->overhead_ns += (int64_t)(r->end - r->start);
        break;
    }
    default: /* counted in records */
        break;
    }
}

void cupti_buffer_store(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t valid, uint32_t pid,
                        record_skip_fn skip, void *arg, event_list *e, record_counts *n)
{
    CUpti_Activity *rec = NULL;
    for (;;) {
        CUptiResult st = cuptiActivityGetNextRecord(buffer, valid, &rec);
        if (st == CUPTI_ERROR_MAX_LIMIT_REACHED) /* the buffer's end */
            break;
        if (st != CUPTI_SUCCESS) {
            n->unreadable++;
            break;
        }
        if (skip && skip(rec, arg)) {
            n->records++;
            continue;
        }
        cupti_record_store(rec, pid, e, n);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
        n->dropped += dropped;
}
