/* CUPTI activity collection. See collector.h; the call sequence (docs/cupti.md) is:
 * subscribe first (to learn whether another tool holds CUPTI), register buffer callbacks, enable
 * the kinds before any work, drain buffers in the completion callback, flush forced at the end. */
#include "collector.h"

#include <unistd.h>

#include "cupti_records.h"
#include "thread_wait.h"

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
    event_list pool; /* every record received, before it is handed to a workload */
    record_counts n;
    uint32_t pid;
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

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
    (void)size;
    pthread_mutex_lock(&col.lock);
    cupti_buffer_store(ctx, stream, buffer, valid, col.pid, NULL, NULL, &col.pool, &col.n);
    pthread_mutex_unlock(&col.lock);
    free(buffer);
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
        snprintf(info->reason, sizeof info->reason, "cuptiSubscribe failed: %s", cupti_result_name(r));
        return;
    }
    /* Thread ids as the system numbers them (gettid), the ids workloads record as host_tid. */
    cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    for (int i = 0; r == CUPTI_SUCCESS && i < cupti_record_nkinds; i++) {
        CUptiResult e = cuptiActivityEnable(cupti_record_kinds[i].kind);
        if (e != CUPTI_SUCCESS && cupti_record_kinds[i].needed) {
            r = e;
            snprintf(info->reason, sizeof info->reason, "enabling %s records failed: %s",
                     cupti_record_kinds[i].name, cupti_result_name(e));
        }
    }
    if (r != CUPTI_SUCCESS) {
        if (!info->reason[0])
            snprintf(info->reason, sizeof info->reason, "registering CUPTI buffers failed: %s",
                     cupti_result_name(r));
        for (int i = 0; i < cupti_record_nkinds; i++)
            cuptiActivityDisable(cupti_record_kinds[i].kind);
        cuptiUnsubscribe(col.subscriber);
        return;
    }
    col.pid = (uint32_t)getpid();
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

/* The workload whose span (first phase start to last phase end) holds t, or NULL. A --devices
 * run's concurrent workloads overlap in time, one per GPU and host thread: a GPU event goes to the
 * one on its device, an API call or synchronization (device UINT32_MAX) to the one its thread ran
 * (CUPTI's thread ids are the system's, as host_tid is: collector_start asks for that). */
static workload_run *owner(run_model *m, int64_t t, uint32_t device, uint32_t thread)
{
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        workload_run *w = &m->builtin.workloads[i];
        if (w->nphases > 0 && w->needs_gpu && t >= w->phases[0].start_ns &&
            t <= w->phases[w->nphases - 1].end_ns) {
            if (w->pass == PASS_ALONE)
                return w;
            if (device != UINT32_MAX ? (int)device == w->device : thread == w->host_tid)
                return w;
        }
    }
    return NULL;
}

/* Moves each pooled event into the store, owned by the workload whose span holds its start (GPU
 * events only by workloads CUPTI timed), or by the run: CUDA's start-up, cuBLAS's handle and the
 * tool's work between workloads are part of the timeline too. Returns how many the run owns. */
#define DISTRIBUTE(arr, count, gpu_event, device_of, thread_of, add)                               \
    for (size_t i_ = 0; i_ < (count); i_++) {                                                     \
        workload_run *w_ = owner(m, (arr)[i_].start_ns, device_of, thread_of);                    \
        bool mine_ = w_ && w_->region > 0 && (!(gpu_event) || w_->timing == TIMING_CUPTI);         \
        (arr)[i_].region = mine_ ? w_->region : 0;                                                \
        outside += !mine_;                                                                        \
        if (!add(&m->events, &(arr)[i_]))                                                         \
            col.n.errors++;                                                                       \
    }

static uint64_t distribute(run_model *m, event_list *pool)
{
    uint64_t outside = 0;
    if (!model_add_builtin_regions(m))
        col.n.errors++;
    DISTRIBUTE(pool->kernels, pool->nkernels, true, pool->kernels[i_].device, 0, events_add_kernel);
    DISTRIBUTE(pool->copies, pool->ncopies, true, pool->copies[i_].device, 0, events_add_copy);
    DISTRIBUTE(pool->memsets, pool->nmemsets, true, pool->memsets[i_].device, 0, events_add_memset);
    DISTRIBUTE(pool->apis, pool->napis, false, UINT32_MAX, pool->apis[i_].thread, events_add_api);
    DISTRIBUTE(pool->syncs, pool->nsyncs, false, UINT32_MAX, pool->syncs[i_].thread, events_add_sync);
    return outside;
}

static void *forced_flush(void *arg)
{
    (void)arg;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    return NULL;
}

/* The forced flush, waiting at most wait_s seconds (0: as long as it takes). False when it did
 * not return in time: its thread is left inside CUPTI. */
static bool flush_within(int wait_s)
{
    if (wait_s == 0) {
        forced_flush(NULL);
        return true;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, forced_flush, NULL) != 0)
        return false;
    if (thread_join_within(t, wait_s * 1000L))
        return true;
    pthread_detach(t);
    return false;
}

void collector_finish(run_model *m, collection_info *info)
{
    collector_finish_within(m, info, 0);
}

void collector_finish_within(run_model *m, collection_info *info, int wait_s)
{
    if (!col.active)
        return;
    int64_t t0 = collector_now();
    bool flushed = flush_within(wait_s);
    info->flush_ms = (double)(collector_now() - t0) / 1e6;
    /* A flush still inside CUPTI may hold CUPTI's own locks: then no more CUPTI calls, only what
     * already arrived is distributed. */
    if (flushed)
        for (int i = 0; i < cupti_record_nkinds; i++)
            cuptiActivityDisable(cupti_record_kinds[i].kind);
    else
        model_add_warning(m, "CUPTI's last records could not be collected within %d s (the GPU was still running "
                             "an abandoned workload): figures of the records missing come from cudaEvents or are n/a",
                          wait_s);

    pthread_mutex_lock(&col.lock);
    info->outside_workloads = distribute(m, &col.pool);
    info->records = col.n.records;
    info->dropped = col.n.dropped;
    info->lost_timestamps = col.n.lost;
    info->overhead_records = col.n.overhead_records;
    info->overhead_ns = col.n.overhead_ns;
    if (col.n.errors + col.n.unreadable)
        model_add_warning(m, "%llu CUPTI records could not be read or stored",
                          (unsigned long long)(col.n.errors + col.n.unreadable));
    events_clear(&col.pool); /* the store holds copies */
    pthread_mutex_unlock(&col.lock);
    if (flushed)
        cuptiUnsubscribe(col.subscriber);
    col.active = false;
}
