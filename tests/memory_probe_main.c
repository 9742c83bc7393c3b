/* A C program for tests/test_memory_inject.sh: drives the injection library's allocation
 * callbacks (tests/host_probe.so, argv[1]) as CUPTI would call them, with the parameters laid out
 * as CUDA's calls lay them out, and ends in an out-of-memory error, so the live set the library
 * writes at once, the report's lead and the OOM section are checked without a GPU. It first takes
 * launch sites until the sites' share of time is spent, as a launch-heavy start would: the
 * allocations after it (none stream-ordered) must have their sites all the same. Its own account,
 * which the test compares against, is printed as JSON on stdout:
 *   load_weights      three cudaMalloc of 1 GiB (live to the end)
 *   make_activations  two cudaMalloc of 512 MiB (a runtime call with the driver's cuMemAlloc inside
 *                     it, which must count once); one is freed
 *   pinned_staging    one cudaHostAlloc of 256 MiB (pinned)
 *   map_chunk         a cuMemSetAccess (VMM), whose correlation CUPTI's records of the memory it
 *                     maps carry: its site must be written under it (nothing joins the live set)
 *   grow_cache        a cudaMalloc of 2 GiB that fails with cudaErrorMemoryAllocation (2)
 * then it exits 1, as a program that dies of the error would (after its exit handler ran).
 * Built with -rdynamic, so the library's native call sites name these functions. */
#include <cupti.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define GIB (1ull << 30)
#define MIB (1ull << 20)

static void (*call)(int driver, unsigned cbid, int enter, void *params, int ret, unsigned corr);
static unsigned corr = 100;
static uintptr_t next_address = 0x7f3a00000000ull;

typedef struct {
    void **ptr;
    size_t size;
} alloc_params; /* cudaMalloc_v3020_params, cudaHostAlloc's first two fields */

/* The exit of a runtime allocation that succeeds, its driver call inside it when nested. */
static void *exit_alloc(unsigned cbid, alloc_params *a, unsigned c, int nested)
{
    if (nested) { /* cudaMalloc calls cuMemAlloc_v2 (dptr, bytesize: the same layout) */
        CUdeviceptr d = 0;
        struct {
            CUdeviceptr *dptr;
            size_t bytesize;
        } drv = {&d, a->size};
        call(1, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, 1, &drv, 0, c);
        d = next_address;
        call(1, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, 0, &drv, 0, c);
    }
    *a->ptr = (void *)next_address;
    next_address += a->size;
    call(0, cbid, 0, a, 0, c);
    return *a->ptr;
}

/* The entry is made on the caller's line (a macro, not a function), where the library takes the
 * call site: as a program calling cudaMalloc there. */
#define ALLOCATE(cbid, size, nested, out)                        \
    do {                                                         \
        void *p_ = NULL;                                         \
        alloc_params a_ = {&p_, (size)};                         \
        unsigned c_ = ++corr;                                    \
        call(0, (cbid), 1, &a_, 0, c_);                          \
        (out) = exit_alloc((cbid), &a_, c_, (nested));           \
    } while (0)

static void release(void *p)
{
    struct {
        void *ptr;
    } f = {p};
    unsigned c = ++corr;
    call(0, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, 1, &f, 0, c);
    call(0, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, 0, &f, 0, c);
}

__attribute__((noinline)) void load_weights(void)
{
    void *w;
    for (int i = 0; i < 3; i++)
        ALLOCATE(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, GIB, 0, w);
    (void)w;
}

__attribute__((noinline)) void *make_activations(void)
{
    void *first, *second;
    ALLOCATE(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 512 * MIB, 1, first);
    ALLOCATE(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 512 * MIB, 1, second);
    (void)second;
    return first;
}

__attribute__((noinline)) void pinned_staging(void)
{
    void *h;
    ALLOCATE(CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020, 256 * MIB, 0, h);
    (void)h;
}

/* A VMM mapping made accessible (cuMemSetAccess: ptr, size, desc, count; read by no one here). */
__attribute__((noinline)) unsigned map_chunk(void)
{
    struct {
        CUdeviceptr ptr;
        size_t size;
        const void *desc;
        size_t count;
    } a = {(CUdeviceptr)next_address, 20 * MIB, NULL, 1};
    unsigned c = ++corr;
    call(1, CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess, 1, &a, 0, c);
    call(1, CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess, 0, &a, 0, c);
    return c;
}

/* The failing call: the library writes the failure and the live set in its exit callback. */
__attribute__((noinline)) unsigned grow_cache(void)
{
    void *p = NULL;
    alloc_params a = {&p, 2 * GIB};
    unsigned c = ++corr;
    call(0, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 1, &a, 0, c);
    call(0, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 0, &a, 2, c);
    return c;
}

int main(int argc, char **argv)
{
    void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
    if (!h) {
        fprintf(stderr, "memory_probe_main: %s\n", dlerror());
        return 2;
    }
    void (*start)(void) = (void (*)(void))dlsym(h, "probe_memory_start");
    call = (void (*)(int, unsigned, int, void *, int, unsigned))dlsym(h, "probe_memory_call");
    void (*finish)(void) = (void (*)(void))dlsym(h, "probe_finish");
    unsigned (*spend)(unsigned) = (unsigned (*)(unsigned))dlsym(h, "probe_spend_site_share");
    if (!start || !call || !finish || !spend) {
        fprintf(stderr, "memory_probe_main: %s lacks the memory probes\n", argv[1]);
        return 2;
    }
    start();
    spend(1000000); /* correlations of no call here */
    load_weights();
    release(make_activations());
    pinned_staging();
    unsigned mapped = map_chunk();
    unsigned failed = grow_cache();
    finish();
    printf("{\"live_count\": 5, \"live_bytes\": %llu, \"device_live_bytes\": %llu, \"asked\": %llu, "
           "\"failed_correlation\": %u, \"holders\": {\"load_weights\": %llu, \"make_activations\": %llu, "
           "\"pinned_staging\": %llu}, \"access_correlation\": %u}\n",
           3 * GIB + 512 * MIB + 256 * MIB, 3 * GIB + 512 * MIB, 2 * GIB, failed, 3 * GIB, 512 * MIB, 256 * MIB, mapped);
    fprintf(stderr, "memory_probe_main: out of memory asking 2 GiB (cudaErrorMemoryAllocation)\n");
    return 1;
}
