/* The "device" lines of the injection library: each CUDA device's properties, asked of the
 * driver when the program creates its first context on it (CUPTI's resource callback), so the
 * report can compute occupancy and peaks as it does for mmprof's own runs.
 *
 * The driver is not linked (the library needs only libcupti): it is already loaded in a program
 * that creates a context, and dlopen with RTLD_NOLOAD finds that copy. */
#include "inject.h"

#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "stream_format.h"

typedef CUresult (*attr_fn)(int *, CUdevice_attribute, CUdevice);
typedef CUresult (*get_fn)(CUdevice *, int);
typedef CUresult (*name_fn)(char *, int, CUdevice);
typedef CUresult (*mem_fn)(size_t *, CUdevice);
typedef CUresult (*bus_fn)(char *, int, CUdevice);
typedef CUresult (*ver_fn)(int *);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#define MAX_DEVICES 64
static bool described[MAX_DEVICES];

void inject_device(strbuf *b, uint32_t device)
{
    if (device >= MAX_DEVICES)
        return;
    pthread_mutex_lock(&lock);
    bool seen = described[device];
    described[device] = true;
    pthread_mutex_unlock(&lock);
    if (seen)
        return;
    void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!cuda)
        return;
    attr_fn attr = (attr_fn)dlsym(cuda, "cuDeviceGetAttribute");
    get_fn get = (get_fn)dlsym(cuda, "cuDeviceGet");
    name_fn name = (name_fn)dlsym(cuda, "cuDeviceGetName");
    mem_fn mem = (mem_fn)dlsym(cuda, "cuDeviceTotalMem_v2");
    bus_fn bus = (bus_fn)dlsym(cuda, "cuDeviceGetPCIBusId");
    ver_fn ver = (ver_fn)dlsym(cuda, "cuDriverGetVersion");
    CUdevice dev;
    if (!attr || !get || !name || !mem || !bus || !ver || get(&dev, (int)device) != CUDA_SUCCESS) {
        dlclose(cuda);
        return;
    }
    static const CUdevice_attribute wanted[] = {
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_CLOCK_RATE,
        CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
        CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_WARP_SIZE,
    };
    char dname[256] = "", pci[32] = "";
    size_t total = 0;
    int driver = 0;
    name(dname, sizeof dname, dev);
    mem(&total, dev);
    bus(pci, sizeof pci, dev);
    ver(&driver);
    sb_printf(b, "device\t%u", device);
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        int v = 0;
        if (attr(&v, wanted[i], dev) != CUDA_SUCCESS)
            v = 0;
        sb_printf(b, "\t%d", v);
    }
    sb_printf(b, "\t%zu\t%d\t", total, driver);
    stream_escape(b, pci);
    sb_add(b, "\t");
    stream_escape(b, dname);
    sb_add(b, "\n");
    dlclose(cuda);
}
