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
#include <string.h>

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
static char buses[MAX_DEVICES][32]; /* each described device's PCI bus id ("" none), under lock */

bool inject_device_bus(uint32_t device, char *bus, size_t len)
{
    if (device >= MAX_DEVICES)
        return false;
    pthread_mutex_lock(&lock);
    bool known = buses[device][0] != '\0';
    if (known)
        snprintf(bus, len, "%s", buses[device]);
    pthread_mutex_unlock(&lock);
    return known;
}

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
    device_info d;
    memset(&d, 0, sizeof d);
    d.index = (int)device;
    /* Each attribute and the field it fills; one the driver does not know stays 0. */
    const struct {
        CUdevice_attribute attr;
        int *field;
    } ints[] = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &d.cc_major},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &d.cc_minor},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &d.sm_count},
        {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &d.clock_khz},
        {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &d.mem_clock_khz},
        {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &d.bus_width_bits},
        {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &d.l2_bytes},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &d.max_threads_per_block},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &d.max_threads_per_sm},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, &d.max_blocks_per_sm},
        {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, &d.regs_per_sm},
        {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, &d.regs_per_block},
        {CU_DEVICE_ATTRIBUTE_WARP_SIZE, &d.warp_size},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (attr(ints[i].field, ints[i].attr, dev) != CUDA_SUCCESS)
            *ints[i].field = 0;
    const struct {
        CUdevice_attribute attr;
        uint64_t *field;
    } sizes[] = {
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, &d.smem_per_sm},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &d.smem_per_block},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &d.smem_per_block_optin},
        {CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, &d.reserved_smem_per_block},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int v = 0;
        *sizes[i].field = attr(&v, sizes[i].attr, dev) == CUDA_SUCCESS && v > 0 ? (uint64_t)v : 0;
    }
    size_t total = 0;
    if (mem(&total, dev) == CUDA_SUCCESS)
        d.total_mem = total;
    if (ver(&d.driver_version) != CUDA_SUCCESS)
        d.driver_version = 0;
    if (name(d.name, sizeof d.name, dev) != CUDA_SUCCESS)
        d.name[0] = '\0';
    if (bus(d.pci_bus_id, sizeof d.pci_bus_id, dev) != CUDA_SUCCESS)
        d.pci_bus_id[0] = '\0';
    pthread_mutex_lock(&lock);
    snprintf(buses[device], sizeof buses[device], "%s", d.pci_bus_id);
    pthread_mutex_unlock(&lock);
    stream_format_device(b, &d);
    dlclose(cuda);
}
