/* The injection library's host-stack parts without a GPU: built as a shared object from the
 * library's own objects (Makefile: HOST_PROBE), it exports what CUPTI's callbacks and the
 * driver's InitializeInjection would call, so tests/test_host_inject.sh can drive them from a
 * Python program (through ctypes, with and without the GIL) and from a C program with no Python,
 * and check the stream lines they write (MMPROF_PROFILE_DIR). */
#include <cupti.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "inject.h"
#include "inject_host.h"
#include "inject_py.h"
#include "cupti_load.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT void probe_start(void) { inject_sampler_start(); }

/* A launch's call site: the caller's stack as inject_sites.c takes it in the callback. */
EXPORT void probe_site(unsigned correlation) { inject_site_take(correlation, SITE_SHARED); }

EXPORT void probe_finish(void) { inject_host_finish(2000); }

/* Launch sites taken, from correlation on, until one is skipped for the process's share of time
 * for sites: what a launch-heavy start leaves before a program's allocations. Returns how many. */
EXPORT unsigned probe_spend_site_share(unsigned correlation)
{
    unsigned n = 0;
    while (inject_site_take(correlation + n, SITE_SHARED))
        n++;
    return n;
}

EXPORT uint64_t probe_signals(void) { return inject_sampler_signals(); }

/* A Python code object's line at an instruction offset, as a call-tree node gets it; and whether
 * that is read from the code's memory (the location table decoded) rather than asked of Python. */
EXPORT int probe_code_line(void *code, int lasti)
{
    host_key k = {.a = (uint64_t)(uintptr_t)code, .b = (uint32_t)lasti, .kind = HOST_KEY_PY};
    return inject_py_key_line(&k);
}

EXPORT int probe_code_reads(void) { return py_code_reads_ok(); }

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Native work the CPU-time timers should find: ms of this thread's CPU time. */
EXPORT __attribute__((noinline)) double probe_burn(unsigned ms)
{
    volatile double x = 0;
    double until = cpu_s() + ms / 1e3;
    while (cpu_s() < until)
        for (int i = 0; i < 10000; i++)
            x += i * 0.5;
    return x;
}

/* ---- GPU memory (inject_memory.c) ---- */

/* Memory collection with call sites, as InitializeInjection starts it, CUPTI opened first as it
 * does (no CUPTI subscriber here: CUPTI refuses to enable callbacks for none, which the library
 * survives). */
EXPORT void probe_memory_start(void)
{
    cupti_load(NULL, 0);
    inject_sites_enable(NULL);
    inject_memory_enable(NULL);
}

/* One allocation or free call's entry or exit, as CUPTI's callback hands it over: params laid
 * out as the call's (CUPTI's generated *_params structs), ret its return value. */
EXPORT void probe_memory_call(int driver, unsigned cbid, int enter, void *params, int ret, unsigned correlation)
{
    CUpti_CallbackData d;
    memset(&d, 0, sizeof d);
    d.callbackSite = enter ? CUPTI_API_ENTER : CUPTI_API_EXIT;
    d.functionParams = params;
    d.functionReturnValue = enter ? NULL : &ret;
    d.correlationId = correlation;
    inject_memory_callback(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &d);
}
