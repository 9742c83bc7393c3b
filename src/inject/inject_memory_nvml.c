/* The device's memory over time, everyone's allocations together, as NVML reads it (the "memnvml"
 * lines): what a program's own allocations cannot show (another process on the GPU, the CUDA
 * context itself, memory freed to the driver but not yet returned).
 *
 * Read from the flusher thread (inject_cuda.c), at most every MEM_NVML_MS, for each device the program
 * made a context on, found in NVML by its PCI bus id (inject_device.c), since NVML's numbering
 * ignores CUDA_VISIBLE_DEVICES. NVML is opened with dlopen (nvml_open.c): the library must not
 * link libnvidia-ml. Where it cannot be read, one "memnvmloff" line says why, and no more is
 * tried. */
#include <stdio.h>
#include <string.h>

#include "inject.h"
#include "nvml.h"
#include "stream_format.h"

#include <dlfcn.h>

#define MEM_NVML_MS 200 /* a low rate: a reading costs tens of microseconds, a context's memory
                         * changes at the pace of a step */
#define MAX_DEVICES 64

typedef int (*init_fn)(void);
typedef int (*by_bus_fn)(const char *, void **);
typedef struct {
    unsigned long long total, free, used;
} nvml_memory; /* nvmlMemory_t */
typedef int (*memory_fn)(void *, nvml_memory *);
typedef const char *(*error_fn)(int);

static struct {
    bool tried, off;
    int64_t last;
    memory_fn memory;
    by_bus_fn by_bus;
    error_fn error;
    void *handle[MAX_DEVICES];
    bool missing[MAX_DEVICES]; /* not found by its bus id: not asked again */
} nv;

static void give_up(const char *why)
{
    nv.off = true;
    strbuf b;
    sb_init(&b);
    sb_add(&b, "memnvmloff\t");
    stream_escape(&b, why);
    sb_add(&b, "\n");
    inject_emit(&b);
    sb_free(&b);
}

static bool open_nvml(void)
{
    char why[160];
    void *lib = nvml_library_open(why, sizeof why);
    if (!lib) {
        give_up(why);
        return false;
    }
    init_fn init = (init_fn)dlsym(lib, "nvmlInit_v2");
    nv.by_bus = (by_bus_fn)dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    nv.memory = (memory_fn)dlsym(lib, "nvmlDeviceGetMemoryInfo");
    nv.error = (error_fn)dlsym(lib, "nvmlErrorString");
    if (!init || !nv.by_bus || !nv.memory) {
        give_up("the NVML library lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2 or nvmlDeviceGetMemoryInfo");
        return false;
    }
    int rc = init();
    if (rc != 0) {
        snprintf(why, sizeof why, "nvmlInit_v2: %s", nv.error && nv.error(rc) ? nv.error(rc) : "failed");
        give_up(why);
        return false;
    }
    return true; /* kept open: the process reads it until its exit */
}

void inject_memory_tick(int64_t now)
{
    if (nv.off || !inject_memory_on() || now - nv.last < MEM_NVML_MS * 1000000LL)
        return;
    nv.last = now;
    if (!nv.tried) {
        nv.tried = true;
        if (!open_nvml())
            return;
    }
    strbuf b;
    sb_init(&b);
    for (uint32_t d = 0; d < MAX_DEVICES; d++) {
        char bus[32];
        if (nv.missing[d] || !inject_device_bus(d, bus, sizeof bus))
            continue;
        if (!nv.handle[d] && nv.by_bus(bus, &nv.handle[d]) != 0) {
            nv.missing[d] = true;
            nv.handle[d] = NULL;
            continue;
        }
        nvml_memory m;
        if (nv.memory(nv.handle[d], &m) == 0)
            stream_format_memnvml(&b, inject_now_ns(), d, m.used, m.total);
    }
    inject_emit(&b);
    sb_free(&b);
}
