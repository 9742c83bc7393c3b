/* NVML's library opened (nvml.h): apart from nvml.c so that the injection library, which reads
 * the device's memory through NVML and must not link libnvidia-ml, opens it the same way. */
#include "nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void *nvml_library_open(char *why, size_t len)
{
    const char *name = getenv("MMPROF_NVML_LIBRARY");
    if (!name || !name[0])
        name = "libnvidia-ml.so.1";
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, len, "%s not found: %s", name, e ? e : "dlopen failed");
    }
    return lib;
}
