/* CUPTI opened at CUDA's start: see cupti_load.h for why the injection library does not link it. */
#define MMPROF_CUPTI_LOAD_IMPL
#include "cupti_load.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

struct cupti_core_fns cupti_core;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char load_why[200];

static void load(void)
{
    /* By soname: a copy the program already loaded (PyTorch's) is the one returned; else the
     * toolkit's, found through this library's run path (the Makefile's -rpath). */
    void *lib = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_why, sizeof load_why, "cannot open libcupti.so.13: %s", dlerror());
        return;
    }
#define CUPTI_FIND(name)                                                                                               \
    if (!(*(void **)&cupti_core.name = dlsym(lib, #name))) {                                                          \
        snprintf(load_why, sizeof load_why, "libcupti.so.13 has no %s", #name);                                        \
        return;                                                                                                        \
    }
    CUPTI_CORE_FNS(CUPTI_FIND)
#undef CUPTI_FIND
    if (!cupti_load_counters(lib, load_why, sizeof load_why))
        return;
    loaded = true;
}

bool cupti_load(char *why, size_t why_len)
{
    pthread_once(&once, load);
    if (!loaded && why && why_len)
        snprintf(why, why_len, "%s", load_why);
    return loaded;
}
