/* GPU memory in the injection library (docs/memory.md): the allocation and free calls' callbacks.
 *
 * CUPTI's memory records (MEMORY2, MEMORY_POOL; inject_cuda.c enables them with the other kinds) give
 * every allocation and free with its address, size, kind and the library that asked, but they
 * reach the stream only when CUPTI hands their buffer over. Two things cannot wait for that, and
 * are done here, in CUPTI's callbacks at each allocation and free call of the runtime and the
 * driver (cudaMalloc, cudaMallocAsync, cudaMallocHost, cudaHostAlloc, cudaMallocManaged,
 * cudaMallocFromPoolAsync, cuMemAlloc, cuMemAllocAsync, cuMemCreate and cuMemSetAccess (VMM), ... and
 * their frees):
 * - the call site of each allocation (its host stack, as for launches: inject_sites.c), taken at
 *   the call's entry: a stream-ordered pool's allocation (cudaMallocAsync, under a microsecond in
 *   the driver) within the launches' 1% share of the process's time; any other (cudaMalloc,
 *   cudaHostAlloc, cuMemCreate...) within a share of its own, apart (10%, inject_sites.c): each
 *   costs the driver tens of microseconds or more (on the H200: cudaMalloc of 2 MiB 31 us, of 256
 *   MiB 50-80 us) against a site's microsecond (a Python stack; 3 us for memory_bench's native
 *   one), and a program makes few (a caching allocator exists to avoid them), yet they are what
 *   the peak and a leak are named by: held to the launches' share, a 0.4 s PyTorch loop had spent
 *   it on its first launches, and none of its 40 leaked tensors had a line (the H200 run of issue
 *   37);
 * - a failed allocation (the call's return value at its exit): its "memfail" line, with the live
 *   set the library holds (mem_live.h: every allocation not yet freed, by address, with its call
 *   site), written at once, before the program can die of the error, and whatever its site costs.
 * A driver call made inside a runtime one (cudaMalloc calls cuMemAlloc) is the same allocation:
 * only the outer one counts. Frees get no site (who allocated is what matters).
 *
 * Outside a capture window (profile --delay, --capture-range...) the live set is still kept, and
 * a failure still written, since what is live at an out-of-memory error was mostly allocated
 * before the window; call sites are taken inside windows only, as for launches.
 * MMPROF_MEMORY=0 (profile --no-memory) turns all of it off, with the memory records. */
#include <cuda.h>
#include <cupti.h> /* with the driver calls' parameters (generated_cuda_meta.h) */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"
#include "inject_host.h"
#include "mem_live.h"
#include "model.h"
#include "stream_format.h"
#include "cupti_load.h" /* last: its macros rename the CUPTI calls below */

/* cuda_runtime_api.h's types through CUPTI's generated header would bring the runtime's headers;
 * the runtime calls' parameters are laid out as these (generated_cuda_runtime_api_meta.h). */
typedef struct {
    void **ptr;
    size_t size;
} rt_alloc_params; /* cudaMalloc, cudaMallocHost, cudaHostAlloc, cudaMallocManaged, cudaMallocAsync,
                    * cudaMallocFromPoolAsync: the result's address and the size come first */
typedef struct {
    void *ptr;
} rt_free_params; /* cudaFree, cudaFreeHost, cudaFreeAsync */
typedef struct {
    void **ptr;
    size_t *pitch;
    size_t width, height;
} rt_pitch_params; /* cudaMallocPitch */

#define LIVE_SLOTS (1u << 16) /* 2 MB: 49,152 live allocations before some go untracked */
#define LIVE_GROUPS 64        /* groups of a live set written at a failure */
#define FAILURES_WITH_LIVE 16 /* failures written with their live set; later ones with its totals */

/* ROLE_ACCESS: cuMemSetAccess, whose correlation CUPTI's records of VMM memory carry (one record
 * per chunk it makes accessible, not cuMemCreate's or cuMemMap's: seen on the H200 with PyTorch's
 * expandable segments, 13 records of 20 MiB under one call), so the allocation's site is taken
 * there too; the live set keeps cuMemCreate's handle, not this. */
typedef enum { ROLE_NONE = 0, ROLE_ALLOC, ROLE_PITCH, ROLE_FREE, ROLE_CREATE, ROLE_RELEASE, ROLE_ACCESS } call_role;

typedef struct {
    call_role role;
    uint8_t kind; /* mem_kind of what it allocates */
    bool pool;    /* from a stream-ordered pool */
    const char *name;
} call_info;

static const call_info runtime_calls[] = {
    [CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020] = {ROLE_ALLOC, MEM_DEVICE, false, "cudaMalloc"},
    [CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020] = {ROLE_PITCH, MEM_DEVICE, false, "cudaMallocPitch"},
    [CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020] = {ROLE_ALLOC, MEM_PINNED, false, "cudaMallocHost"},
    [CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020] = {ROLE_ALLOC, MEM_PINNED, false, "cudaHostAlloc"},
    [CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000] = {ROLE_ALLOC, MEM_MANAGED, false, "cudaMallocManaged"},
    [CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020] = {ROLE_ALLOC, MEM_DEVICE, true, "cudaMallocAsync"},
    [CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020] = {ROLE_ALLOC, MEM_DEVICE, true, "cudaMallocAsync"},
    [CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020] = {ROLE_ALLOC, MEM_DEVICE, true, "cudaMallocFromPoolAsync"},
    [CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020] = {ROLE_ALLOC, MEM_DEVICE, true, "cudaMallocFromPoolAsync"},
    [CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020] = {ROLE_FREE, 0, false, "cudaFree"},
    [CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020] = {ROLE_FREE, 0, false, "cudaFreeHost"},
    [CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020] = {ROLE_FREE, 0, false, "cudaFreeAsync"},
    [CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020] = {ROLE_FREE, 0, false, "cudaFreeAsync"},
};

static const call_info driver_calls[] = {
    [CUPTI_DRIVER_TRACE_CBID_cuMemAlloc] = {ROLE_ALLOC, MEM_DEVICE, false, "cuMemAlloc"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2] = {ROLE_ALLOC, MEM_DEVICE, false, "cuMemAlloc"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch] = {ROLE_PITCH, MEM_DEVICE, false, "cuMemAllocPitch"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2] = {ROLE_PITCH, MEM_DEVICE, false, "cuMemAllocPitch"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost] = {ROLE_ALLOC, MEM_PINNED, false, "cuMemAllocHost"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2] = {ROLE_ALLOC, MEM_PINNED, false, "cuMemAllocHost"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc] = {ROLE_ALLOC, MEM_PINNED, false, "cuMemHostAlloc"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc_v2] = {ROLE_ALLOC, MEM_PINNED, false, "cuMemHostAlloc"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged] = {ROLE_ALLOC, MEM_MANAGED, false, "cuMemAllocManaged"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync] = {ROLE_ALLOC, MEM_DEVICE, true, "cuMemAllocAsync"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz] = {ROLE_ALLOC, MEM_DEVICE, true, "cuMemAllocAsync"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync] = {ROLE_ALLOC, MEM_DEVICE, true, "cuMemAllocFromPoolAsync"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz] = {ROLE_ALLOC, MEM_DEVICE, true, "cuMemAllocFromPoolAsync"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemCreate] = {ROLE_CREATE, MEM_DEVICE, false, "cuMemCreate"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemFree] = {ROLE_FREE, 0, false, "cuMemFree"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2] = {ROLE_FREE, 0, false, "cuMemFree"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost] = {ROLE_FREE, 0, false, "cuMemFreeHost"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync] = {ROLE_FREE, 0, false, "cuMemFreeAsync"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz] = {ROLE_FREE, 0, false, "cuMemFreeAsync"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemRelease] = {ROLE_RELEASE, 0, false, "cuMemRelease"},
    [CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess] = {ROLE_ACCESS, MEM_DEVICE, false, "cuMemSetAccess"},
};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static const call_info *info_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    const call_info *t = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime_calls : driver_calls;
    size_t n = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? COUNT(runtime_calls) : COUNT(driver_calls);
    return cbid < n && t[cbid].role != ROLE_NONE ? &t[cbid] : NULL;
}

static bool on;       /* memory collection asked for (MMPROF_MEMORY is not 0) */
static bool enabled;  /* the callbacks were enabled */
static int paused;    /* the cost benchmark's pause (atomic) */
static CUpti_SubscriberHandle subscriber;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static mem_live_table table;
static unsigned failures; /* written so far (under table_lock) */

/* Memory runtime calls in progress on this thread (a driver call inside one is the same call), in
 * an epoch of the callbacks: after a pause a call's entry or exit may have gone unseen. And the
 * site its entry took, for its exit to keep with the allocation. */
static __thread int depth;
static __thread uint32_t depth_epoch;
static uint32_t epoch = 1;
static __thread uint32_t site_corr, site_node;

bool inject_memory_init(void)
{
    static bool done;
    if (!done) {
        const char *v = getenv("MMPROF_MEMORY");
        on = !(v && strcmp(v, "0") == 0);
        done = true;
    }
    return on;
}

bool inject_memory_on(void) { return inject_memory_init() && !__atomic_load_n(&paused, __ATOMIC_RELAXED); }

/* MMPROF_MEMORY_ASYNC_CALLBACKS=0, a measurement knob (tests/alloc_cost_gpu.sh): no callbacks at
 * the stream-ordered calls (cudaMallocAsync, cudaFreeAsync and kin), whose records alone then tell
 * of them. On the H200 the callbacks at a cudaMallocAsync/cudaFreeAsync pair cost +58% of it with
 * no memory record kind enabled (docs/memory.md): the pair is 1.5 us, a callback about 0.1 us, and
 * each call has four (the runtime's and the driver's, at entry and exit). */
static bool callback_wanted(const call_info *c)
{
    const char *v = getenv("MMPROF_MEMORY_ASYNC_CALLBACKS");
    return c->role != ROLE_NONE && !(v && strcmp(v, "0") == 0 && strstr(c->name, "Async"));
}

static void enable_callbacks(uint32_t enable)
{
    for (CUpti_CallbackId id = 0; id < COUNT(runtime_calls); id++)
        if (callback_wanted(&runtime_calls[id]))
            cuptiEnableCallback(enable, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
    for (CUpti_CallbackId id = 0; id < COUNT(driver_calls); id++)
        if (callback_wanted(&driver_calls[id]))
            cuptiEnableCallback(enable, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
}

void inject_memory_enable(CUpti_SubscriberHandle s)
{
    if (!inject_memory_init())
        return;
    if (!mem_live_init(&table, LIVE_SLOTS)) {
        strbuf b;
        sb_init(&b);
        sb_add(&b, "error\tGPU memory: no room for the table of live allocations; failed allocations will come "
                   "without the live set\n");
        inject_emit(&b);
        sb_free(&b);
    }
    subscriber = s;
    enable_callbacks(1);
    enabled = true;
    inject_memory_kinds(true); /* the memory record kinds with the others from now on */
}

void inject_memory_pause(bool pause)
{
    if (!enabled || pause == (__atomic_load_n(&paused, __ATOMIC_RELAXED) != 0))
        return;
    __atomic_store_n(&paused, pause, __ATOMIC_RELAXED);
    if (!pause)
        __atomic_fetch_add(&epoch, 1, __ATOMIC_RELAXED);
    /* Off in CUPTI too, as the sites' pause does (a callback returning at once is still CUPTI's
     * call), but not under a capture: it enabled the runtime's whole domain to count the calls
     * outside its windows, and these callbacks are part of it; the flag covers them then. */
    if (!inject_capture_init())
        enable_callbacks(!pause);
    inject_memory_kinds(!pause);
}

/* Contexts created so far (atomic): a thread's remembered context is good in its generation. */
static uint32_t contexts = 1;

void inject_memory_context_created(void) { __atomic_fetch_add(&contexts, 1, __ATOMIC_RELAXED); }

/* The device of the call's context (0 where CUPTI cannot tell). The thread's last context's is
 * remembered: a program allocates on one context for long stretches, and cuptiGetDeviceId is a call
 * into CUPTI that a stream-ordered allocation, under a microsecond in the driver, paid each time. */
static uint32_t context_device(const CUpti_CallbackData *d)
{
    static __thread CUcontext last;
    static __thread uint32_t last_device, last_generation;
    if (!d->context)
        return 0;
    uint32_t generation = __atomic_load_n(&contexts, __ATOMIC_RELAXED);
    if (d->context == last && generation == last_generation)
        return last_device;
    uint32_t dev = 0;
    if (cuptiGetDeviceId(d->context, &dev) != CUPTI_SUCCESS)
        return 0;
    last = d->context;
    last_device = dev;
    last_generation = generation;
    return dev;
}

/* What an allocation call asked for: its size, its device, and its result's address or handle (0
 * before the call returned, or where it failed); of a free, its address or handle alone (a free
 * needs no device: the live table finds it by address). */
static void decode(const call_info *c, const CUpti_CallbackData *d, uint64_t *key, uint64_t *bytes, uint32_t *device,
                   uint8_t *kind)
{
    const void *p = d->functionParams;
    *key = 0;
    *bytes = 0;
    *device = c->role == ROLE_FREE || c->role == ROLE_RELEASE ? 0 : context_device(d);
    *kind = c->kind;
    switch (c->role) {
    case ROLE_ALLOC: {
        const rt_alloc_params *a = p; /* the driver's alloc calls are laid out alike */
        *bytes = a->size;
        if (d->callbackSite == CUPTI_API_EXIT && a->ptr)
            *key = (uint64_t)(uintptr_t)*a->ptr;
        break;
    }
    case ROLE_PITCH: {
        const rt_pitch_params *a = p; /* and cuMemAllocPitch: dptr, pPitch, width, height */
        *bytes = a->width * a->height; /* asked; the pitch, known after, pads the width */
        if (d->callbackSite == CUPTI_API_EXIT && a->pitch && *a->pitch)
            *bytes = *a->pitch * a->height;
        if (d->callbackSite == CUPTI_API_EXIT && a->ptr)
            *key = (uint64_t)(uintptr_t)*a->ptr;
        break;
    }
    case ROLE_CREATE: {
        const cuMemCreate_params *a = p;
        *bytes = a->size;
        if (a->prop && a->prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE)
            *device = (uint32_t)a->prop->location.id;
        else if (a->prop)
            *kind = MEM_PINNED; /* VMM memory of the host */
        if (d->callbackSite == CUPTI_API_EXIT && a->handle)
            *key = (uint64_t)*a->handle | MEM_LIVE_HANDLE;
        break;
    }
    case ROLE_FREE:
        *key = (uint64_t)(uintptr_t)((const rt_free_params *)p)->ptr; /* cuMemFree*: dptr alike */
        break;
    case ROLE_RELEASE:
        *key = (uint64_t)((const cuMemRelease_params *)p)->handle | MEM_LIVE_HANDLE;
        break;
    default:
        break;
    }
}

/* The error's name: the driver's own (cuGetErrorName, from the loaded driver), the runtime's where
 * the program's runtime exports it, else the one every allocation failure gives (2 is "out of
 * memory" in both). NULL where not known. */
static const char *error_name(bool driver, int error)
{
    const char *name = NULL;
    if (driver) {
        void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
        CUresult (*get)(CUresult, const char **) = cuda ? (CUresult(*)(CUresult, const char **))dlsym(cuda, "cuGetErrorName") : NULL;
        if (get && get((CUresult)error, &name) != CUDA_SUCCESS)
            name = NULL;
        if (cuda)
            dlclose(cuda);
    } else {
        const char *(*get)(int) = (const char *(*)(int))dlsym(RTLD_DEFAULT, "cudaGetErrorName");
        name = get ? get(error) : NULL;
    }
    if (!name && error == 2)
        name = driver ? "CUDA_ERROR_OUT_OF_MEMORY" : "cudaErrorMemoryAllocation";
    return name;
}

/* A failed allocation: its line and the live set, flushed to the stream at once. */
static void failed(const call_info *c, const CUpti_CallbackData *d, bool driver, int error, uint64_t bytes,
                   uint32_t device, uint8_t kind)
{
    const char *errname = error_name(driver, error); /* before any lock: it may take the loader's */
    uint32_t node = site_corr == d->correlationId ? site_node : 0;
    if (!node && inject_sites_taking())
        node = inject_site_take(d->correlationId, SITE_ALWAYS);
    mem_failure f = {.ts_ns = inject_now_ns(), .tid = inject_tid(), .device = device,
                     .correlation = d->correlationId, .kind = kind, .bytes = bytes, .error = error};
    static mem_live_sum groups[LIVE_GROUPS];
    pthread_mutex_lock(&table_lock);
    size_t n = ++failures <= FAILURES_WITH_LIVE ? mem_live_groups(&table, groups, LIVE_GROUPS) : 0;
    f.live_count = table.n;
    f.live_bytes = table.bytes;
    f.untracked = table.untracked;
    /* Under the host lock, after the frame lines the groups' nodes name. */
    inject_host_lock();
    strbuf *b = inject_host_out();
    inject_name_this_thread(b);
    stream_format_memfail(b, &f, c->name, errname);
    for (size_t i = 0; i < n; i++)
        stream_format_memlive(b, d->correlationId, groups[i].node, groups[i].device, groups[i].kind, groups[i].count,
                              groups[i].bytes);
    inject_host_flush_locked(true);
    inject_host_unlock();
    pthread_mutex_unlock(&table_lock);
}

void inject_memory_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    if (!enabled || __atomic_load_n(&paused, __ATOMIC_RELAXED))
        return;
    const call_info *c = info_of(domain, cbid);
    if (!c)
        return;
    const CUpti_CallbackData *d = data;
    uint32_t e = __atomic_load_n(&epoch, __ATOMIC_RELAXED);
    if (depth_epoch != e) {
        depth_epoch = e;
        depth = 0;
    }
    bool driver = domain == CUPTI_CB_DOMAIN_DRIVER_API;
    bool enter = d->callbackSite == CUPTI_API_ENTER;
    if (!driver) {
        if (enter && depth++ > 0)
            return;
        if (!enter && --depth > 0)
            return;
        if (depth < 0)
            depth = 0;
    } else if (depth > 0) {
        return; /* inside a runtime allocation: the same one */
    }
    bool alloc = c->role == ROLE_ALLOC || c->role == ROLE_PITCH || c->role == ROLE_CREATE;
    if (enter) {
        /* The allocation's site, inside a capture window (its records are there to tie it to). */
        site_corr = d->correlationId;
        site_node = (alloc || c->role == ROLE_ACCESS) && inject_sites_taking() && inject_capture_tracing_now()
                        ? inject_site_take(d->correlationId, c->pool ? SITE_SHARED : SITE_ALLOCATION) : 0;
        return;
    }
    if (c->role == ROLE_ACCESS)
        return;
    uint64_t key, bytes;
    uint32_t device;
    uint8_t kind;
    decode(c, d, &key, &bytes, &device, &kind);
    int error = d->functionReturnValue ? *(const int *)d->functionReturnValue : 0;
    if (alloc && error != 0) {
        failed(c, d, driver, error, bytes, device, kind);
        return;
    }
    if (error != 0 || !table.cap)
        return;
    pthread_mutex_lock(&table_lock);
    if (alloc)
        mem_live_add(&table, key, bytes, site_corr == d->correlationId ? site_node : 0, device, kind);
    else
        mem_live_remove(&table, key, NULL);
    pthread_mutex_unlock(&table_lock);
}
