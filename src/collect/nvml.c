/* NVML through dlopen (nvml.h says why). The CUDA toolkit here ships no nvml.h, and mmprof must
 * not need one to build: the few types and entry points used are declared below by hand, from
 * NVIDIA's NVML API reference (the same approach nvtop takes). Enums are passed as int, which is
 * how the C ABI passes them. */
#include "nvml.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------- NVML's API, declared by hand ---------- */

typedef int nvmlReturn_t;            /* NVML_SUCCESS = 0 */
typedef struct nvmlDevice_st *nvmlDevice_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_CLOCK_SM 1              /* nvmlClockType_t */
#define NVML_CLOCK_MEM 2
#define NVML_TEMPERATURE_GPU 0       /* nvmlTemperatureSensors_t */

/* nvmlProcessInfo_t (= nvmlProcessInfo_v2_t), what _v3 and _v2 of the process queries fill. */
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvml_process_info;

typedef struct {
    nvmlReturn_t (*init)(void);                                       /* nvmlInit_v2 */
    nvmlReturn_t (*shutdown)(void);                                   /* nvmlShutdown */
    const char *(*error_string)(nvmlReturn_t);                        /* nvmlErrorString */
    nvmlReturn_t (*by_bus_id)(const char *, nvmlDevice_t *);          /* nvmlDeviceGetHandleByPciBusId_v2 */
    nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int *);         /* nvmlDeviceGetClockInfo, MHz */
    nvmlReturn_t (*max_clock)(nvmlDevice_t, int, unsigned int *);     /* nvmlDeviceGetMaxClockInfo */
    nvmlReturn_t (*power)(nvmlDevice_t, unsigned int *);              /* nvmlDeviceGetPowerUsage, mW */
    nvmlReturn_t (*power_limit)(nvmlDevice_t, unsigned int *);        /* nvmlDeviceGetEnforcedPowerLimit */
    nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int *);   /* nvmlDeviceGetTemperature */
    nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long *);      /* ...ClocksEventReasons or
                                                                       * ...ClocksThrottleReasons */
    nvmlReturn_t (*processes)(nvmlDevice_t, unsigned int *, nvml_process_info *); /* ..._v3 or _v2 */
} nvml_api;

/* ---------- the watch ---------- */

struct nvml_watch {
    void *lib;
    nvml_api api;
    nvmlDevice_t dev;
    int64_t (*now)(void);
    int period_ms;
    int sm_max, mem_max, power_limit;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool running, stop;
    nvml_sample *s;
    int ns, cap;
};

static const char *nvml_error(const nvml_watch *w, nvmlReturn_t rc)
{
    const char *s = w->api.error_string ? w->api.error_string(rc) : NULL;
    return s ? s : "unknown NVML error";
}

static void *sym(void *lib, const char *a, const char *b)
{
    void *p = dlsym(lib, a);
    return p || !b ? p : dlsym(lib, b);
}

/* Every entry point, the newer name first. False with the missing one named. */
static bool load_api(nvml_watch *w, char *why, size_t len)
{
    nvml_api *a = &w->api;
    struct { void **slot; const char *name, *older; } t[] = {
        {(void **)&a->init, "nvmlInit_v2", NULL},
        {(void **)&a->shutdown, "nvmlShutdown", NULL},
        {(void **)&a->error_string, "nvmlErrorString", NULL},
        {(void **)&a->by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2", NULL},
        {(void **)&a->clock, "nvmlDeviceGetClockInfo", NULL},
        {(void **)&a->max_clock, "nvmlDeviceGetMaxClockInfo", NULL},
        {(void **)&a->power, "nvmlDeviceGetPowerUsage", NULL},
        {(void **)&a->power_limit, "nvmlDeviceGetEnforcedPowerLimit", NULL},
        {(void **)&a->temperature, "nvmlDeviceGetTemperature", NULL},
        {(void **)&a->reasons, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"},
        {(void **)&a->processes, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        /* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
        *t[i].slot = sym(w->lib, t[i].name, t[i].older);
        if (!*t[i].slot) {
            snprintf(why, len, "NVML library lacks %s", t[i].name);
            return false;
        }
    }
    return true;
}

nvml_watch *nvml_watch_open(const char *pci_bus_id, int period_ms, int64_t (*now)(void), char *why, size_t len)
{
    void *lib = nvml_library_open(why, len);
    if (!lib)
        return NULL;
    nvml_watch *w = calloc(1, sizeof *w);
    if (!w) {
        dlclose(lib);
        snprintf(why, len, "out of memory");
        return NULL;
    }
    w->lib = lib;
    w->now = now;
    w->period_ms = period_ms;
    if (!load_api(w, why, len)) {
        dlclose(lib);
        free(w);
        return NULL;
    }
    nvmlReturn_t rc = w->api.init();
    if (rc != NVML_SUCCESS) {
        snprintf(why, len, "nvmlInit failed: %s", nvml_error(w, rc));
        dlclose(lib);
        free(w);
        return NULL;
    }
    rc = w->api.by_bus_id(pci_bus_id, &w->dev);
    if (rc != NVML_SUCCESS) {
        snprintf(why, len, "NVML has no device at PCI bus id '%s': %s", pci_bus_id, nvml_error(w, rc));
        w->api.shutdown();
        dlclose(lib);
        free(w);
        return NULL;
    }
    unsigned int v;
    w->sm_max = w->api.max_clock(w->dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS ? (int)v : -1;
    w->mem_max = w->api.max_clock(w->dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS ? (int)v : -1;
    w->power_limit = w->api.power_limit(w->dev, &v) == NVML_SUCCESS ? (int)v : -1;
    pthread_mutex_init(&w->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->wake, &ca);
    pthread_condattr_destroy(&ca);
    return w;
}

/* Another process's pids, as NVML lists them. mmprof holds a context on the device while it is
 * watched, so NVML lists it too; when its pid is not among them (NVML reports pids of another pid
 * namespace, as in a container) one of the listed processes is taken to be mmprof. */
static void read_processes(nvml_watch *w, nvml_sample *s)
{
    nvml_process_info info[32];
    unsigned int count = 32;
    nvmlReturn_t rc = w->api.processes(w->dev, &count, info);
    /* More than fit: NVML filled nothing and set count to how many there are. */
    if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE)
        return;
    uint32_t self = (uint32_t)getpid();
    bool seen = false;
    int others = 0;
    for (unsigned int i = 0; i < count; i++) {
        if (rc == NVML_SUCCESS && info[i].pid == self) {
            seen = true;
            continue;
        }
        if (rc == NVML_SUCCESS && others < DEVICE_STATE_MAX_PIDS)
            s->pids[others] = info[i].pid;
        others++;
    }
    if (!seen && others > 0)
        others--;
    s->npids = others;
}

void nvml_watch_sample(nvml_watch *w)
{
    nvml_sample s;
    memset(&s, 0, sizeof s);
    unsigned int v;
    unsigned long long r;
    s.r.sm_mhz = w->api.clock(w->dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS ? (int)v : -1;
    s.r.mem_mhz = w->api.clock(w->dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS ? (int)v : -1;
    s.r.power_mw = w->api.power(w->dev, &v) == NVML_SUCCESS ? (int)v : -1;
    s.r.temp_c = w->api.temperature(w->dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS ? (int)v : -1;
    s.reasons = w->api.reasons(w->dev, &r) == NVML_SUCCESS ? r : 0;
    read_processes(w, &s);
    s.t_ns = w->now();
    pthread_mutex_lock(&w->lock);
    if (w->ns == w->cap) {
        int cap = w->cap ? w->cap * 2 : 64;
        nvml_sample *p = realloc(w->s, (size_t)cap * sizeof *p);
        if (p)
            w->s = p, w->cap = cap;
    }
    if (w->ns < w->cap)
        w->s[w->ns++] = s;
    pthread_mutex_unlock(&w->lock);
}

static void *sampler(void *arg)
{
    nvml_watch *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        t.tv_nsec += (long)w->period_ms * 1000000L;
        t.tv_sec += t.tv_nsec / 1000000000L;
        t.tv_nsec %= 1000000000L;
        while (!w->stop && pthread_cond_timedwait(&w->wake, &w->lock, &t) != ETIMEDOUT)
            ;
        if (w->stop)
            break;
        pthread_mutex_unlock(&w->lock);
        nvml_watch_sample(w);
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

void nvml_watch_begin(nvml_watch *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->ns = 0;
    w->stop = false;
    pthread_mutex_unlock(&w->lock);
    nvml_watch_sample(w);
    w->running = w->period_ms > 0 && pthread_create(&w->thread, NULL, sampler, w) == 0;
}

static void stop_thread(nvml_watch *w)
{
    if (!w->running)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    w->running = false;
}

/* The compute phase's interval, or the workload's whole span. False when it has no phase. */
static bool measured_span(const workload_run *wl, int64_t *from, int64_t *to)
{
    const phase *p = workload_find_phase(wl, "compute");
    if (p) {
        *from = p->start_ns, *to = p->end_ns;
        return true;
    }
    if (wl->nphases == 0)
        return false;
    *from = wl->phases[0].start_ns, *to = wl->phases[wl->nphases - 1].end_ns;
    return true;
}

void nvml_watch_end(nvml_watch *w, workload_run *wl, const char *why)
{
    device_state *d = &wl->device_state;
    memset(d, 0, sizeof *d);
    d->recorded = true;
    if (!w) {
        snprintf(d->reason, sizeof d->reason, "%s", why && why[0] ? why : "NVML was not opened");
        return;
    }
    stop_thread(w);
    nvml_watch_sample(w);
    int64_t from, to;
    if (!measured_span(wl, &from, &to)) {
        snprintf(d->reason, sizeof d->reason, "the workload recorded no phase to match readings to");
        return;
    }
    device_state_reduce(w->s, w->ns, from, to, d);
    d->sm_clock_max_mhz = w->sm_max;
    d->mem_clock_max_mhz = w->mem_max;
    d->power_limit_mw = w->power_limit > 0 ? w->power_limit : 0;
}

void nvml_watch_close(nvml_watch *w)
{
    if (!w)
        return;
    stop_thread(w);
    w->api.shutdown();
    dlclose(w->lib);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    free(w->s);
    free(w);
}

/* ---------- the reduction ---------- */

static void lower(int *a, int b) { if (b >= 0 && (*a < 0 || b < *a)) *a = b; }
static void higher(int *a, int b) { if (b > *a) *a = b; }

void device_state_reduce(const nvml_sample *s, int n, int64_t from_ns, int64_t to_ns, device_state *out)
{
    bool recorded = out->recorded;
    memset(out, 0, sizeof *out);
    out->recorded = recorded;
    if (n <= 0) {
        snprintf(out->reason, sizeof out->reason, "no NVML reading was taken");
        return;
    }
    /* The last reading at or before the start, the first at or after the end. */
    int first = 0, last = n - 1;
    for (int i = 0; i < n; i++)
        if (s[i].t_ns <= from_ns)
            first = i;
    for (int i = n - 1; i >= first; i--)
        if (s[i].t_ns >= to_ns)
            last = i;
    out->valid = true;
    out->before = s[first].r, out->before_reasons = s[first].reasons;
    out->after = s[last].r, out->after_reasons = s[last].reasons;
    device_reading lo = {-1, -1, -1, -1}, hi = {-1, -1, -1, -1};
    out->busy_sm_min_mhz = -1;
    for (int i = first; i <= last; i++) {
        const nvml_sample *x = &s[i];
        lower(&lo.sm_mhz, x->r.sm_mhz), higher(&hi.sm_mhz, x->r.sm_mhz);
        lower(&lo.mem_mhz, x->r.mem_mhz), higher(&hi.mem_mhz, x->r.mem_mhz);
        lower(&lo.power_mw, x->r.power_mw), higher(&hi.power_mw, x->r.power_mw);
        lower(&lo.temp_c, x->r.temp_c), higher(&hi.temp_c, x->r.temp_c);
        if (!(x->reasons & CLOCK_REASON_GPU_IDLE))
            lower(&out->busy_sm_min_mhz, x->r.sm_mhz);
        out->reasons |= x->reasons;
        if (x->npids > out->other_pids)
            out->other_pids = x->npids;
        /* The pids seen, each once. */
        for (int p = 0; p < x->npids && p < DEVICE_STATE_MAX_PIDS; p++) {
            bool known = false;
            for (int q = 0; q < DEVICE_STATE_MAX_PIDS && out->other_pid[q]; q++)
                known |= out->other_pid[q] == x->pids[p];
            for (int q = 0; !known && q < DEVICE_STATE_MAX_PIDS; q++)
                if (!out->other_pid[q]) {
                    out->other_pid[q] = x->pids[p];
                    break;
                }
        }
    }
    out->low = lo, out->high = hi;
    out->samples = last - first + 1;
}
