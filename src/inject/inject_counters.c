/* `mmprof profile --counters`: hardware counters for the program's kernels, from inside it.
 *
 * The launcher asks through the environment: MMPROF_COUNTERS=1, MMPROF_COUNTERS_KERNELS (an
 * extended regular expression; a kernel is profiled when it matches the demangled name or the
 * mangled one, like Nsight Compute's -k regex:) and MMPROF_COUNTERS_MAX (profile at most that
 * many launches, like ncu's -c; unset: every match). A CUPTI callback on the driver's launch
 * calls begins the range profiler on the launch's context before a chosen launch and ends it
 * after: CUPTI replays that kernel within its launch once per pass (kernel replay, saving and
 * restoring the memory it writes), so the program runs on unchanged, only slower. Profiled
 * launches are serialised (one at a time, a lock across the launch), as under Nsight Compute.
 *
 * Each profiled launch becomes a "counters" line of the stream, tied to its kernel record by the
 * correlation id. DRAM bytes written are not kept: in kernel replay the restore between passes is
 * written back while the kernel runs and counted with it (the built-in run measures them after an
 * L2 flush instead, which no callback can place between replayed passes). Kernels launched from a
 * CUDA graph make no launch call and are not profiled. */
#include <cupti.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "inject.h"
#include "kernel_regex.h"
#include "stream_format.h"
#include "cupti_load.h" /* last: its macros rename the CUPTI calls below */

/* libstdc++'s demangler, looked up in the program rather than linked: the library must not load
 * a libstdc++ of its own into a program that brings another (a conda environment's newer one).
 * Nearly every CUDA program has one loaded (nvcc links C++); without it names are matched mangled. */
typedef char *(*demangler)(const char *mangled, char *buf, size_t *len, int *status);

#define MAX_CONTEXTS 64

static struct {
    bool on;
    bool has_regex;
    regex_t regex;
    long max;   /* launches to profile; < 0: all that match */
    long taken; /* launches chosen so far */
    /* Held from a chosen launch's begin to its end; guards the contexts. */
    pthread_mutex_t lock;
    /* Guards taken and profiled, which CUPTI's buffer thread reads too: held briefly and never
     * across a CUPTI call, so that thread (which may hold CUPTI's own locks) never waits on a
     * launch thread that is inside CUPTI. */
    pthread_mutex_t table;
    uint32_t *profiled; /* correlation ids of the launches profiled, in order */
    size_t nprofiled, capprofiled;
    struct {
        CUcontext ctx;
        counter_session *s; /* NULL: could not be opened (said once in the stream) */
    } ctxs[MAX_CONTEXTS];
    int nctx;
} C = {.lock = PTHREAD_MUTEX_INITIALIZER, .table = PTHREAD_MUTEX_INITIALIZER, .max = -1};

/* The launch this thread is profiling, between its enter and exit callbacks. */
static _Thread_local struct {
    bool active;
    counter_session *s;
    uint32_t correlation, device;
    char *name;
} pending;

static void emit_counters_error(const char *fmt_why, const char *why)
{
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "error\t");
    char text[512];
    snprintf(text, sizeof text, fmt_why, why);
    stream_escape(&b, text);
    sb_printf(&b, "\n");
    inject_emit(&b);
    sb_free(&b);
}

bool inject_counters_init(void)
{
    const char *on = getenv("MMPROF_COUNTERS");
    if (!on || strcmp(on, "1") != 0)
        return false;
    const char *re = getenv("MMPROF_COUNTERS_KERNELS");
    if (re && *re) {
        char why[160];
        if (!kernel_regex_compile(&C.regex, re, why, sizeof why)) {
            /* The launcher checked it: set by hand, or a different regex library. */
            emit_counters_error("counters: MMPROF_COUNTERS_KERNELS is refused (%s); no kernel profiled", why);
            return false;
        }
        C.has_regex = true;
    }
    const char *max = getenv("MMPROF_COUNTERS_MAX");
    if (max && *max) {
        char *end;
        long v = strtol(max, &end, 10);
        C.max = !*end && v >= 0 ? v : -1;
    }
    C.on = true;
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "ctrconf\t%ld\t", C.max);
    stream_escape(&b, re ? re : "");
    sb_printf(&b, "\n");
    inject_emit(&b);
    sb_free(&b);
    return true;
}

/* The demangled name (malloc'd), or a copy of the mangled one. */
static demangler demangle;
static pthread_once_t demangle_once = PTHREAD_ONCE_INIT;

static void find_demangler(void)
{
    demangle = (demangler)dlsym(RTLD_DEFAULT, "__cxa_demangle");
}

static char *readable(const char *mangled)
{
    pthread_once(&demangle_once, find_demangler);
    int status = -1;
    char *d = demangle && mangled[0] == '_' && mangled[1] == 'Z' ? demangle(mangled, NULL, NULL, &status) : NULL;
    return d && status == 0 ? d : strdup(mangled);
}

/* Whether --max-kernels still allows a launch. */
static bool budget_left(void)
{
    pthread_mutex_lock(&C.table);
    bool left = C.max < 0 || C.taken < C.max;
    pthread_mutex_unlock(&C.table);
    return left;
}

/* Chosen: the name matches and the budget is not spent (counted here). Every launch of the
 * program comes through here, so once the budget is spent no name is demangled or matched. */
static bool choose(const char *mangled, char **name)
{
    *name = NULL;
    if (!budget_left())
        return false;
    *name = readable(mangled);
    if (!*name)
        return false;
    bool match = !C.has_regex || regexec(&C.regex, *name, 0, NULL, 0) == 0 || regexec(&C.regex, mangled, 0, NULL, 0) == 0;
    pthread_mutex_lock(&C.table);
    bool take = match && (C.max < 0 || C.taken < C.max);
    if (take)
        C.taken++;
    pthread_mutex_unlock(&C.table);
    if (!take) {
        free(*name);
        *name = NULL;
    }
    return take;
}

/* The context's session, opened on its first chosen launch; NULL when it cannot be. Called with
 * C.lock held. */
static counter_session *session_for(CUcontext ctx, uint32_t *device)
{
    if (cuptiGetDeviceId(ctx, device) != CUPTI_SUCCESS)
        return NULL;
    for (int i = 0; i < C.nctx; i++)
        if (C.ctxs[i].ctx == ctx)
            return C.ctxs[i].s;
    char why[256] = "";
    counter_session *s = C.nctx < MAX_CONTEXTS ? counters_open(ctx, (int)*device, why, sizeof why) : NULL;
    if (C.nctx < MAX_CONTEXTS) {
        C.ctxs[C.nctx].ctx = ctx;
        C.ctxs[C.nctx++].s = s;
    } else {
        snprintf(why, sizeof why, "more than %d CUDA contexts", MAX_CONTEXTS);
    }
    if (!s)
        emit_counters_error("counters n/a on this process's GPU: %s", why);
    return s;
}

static void emit_counters(const kernel_counters *k)
{
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "counters\t%u\t%u", pending.correlation, pending.device);
    for (int c = 0; c < CTR_COUNT; c++)
        if (isfinite(k->v[c]))
            sb_printf(&b, "\t%.17g", k->v[c]);
        else
            sb_printf(&b, "\tnan");
    sb_printf(&b, "\t");
    stream_escape(&b, pending.name);
    sb_printf(&b, "\n");
    inject_emit(&b);
    sb_free(&b);
}

static void launch_enter(const CUpti_CallbackData *d)
{
    char *name = NULL;
    if (!d->symbolName || !choose(d->symbolName, &name))
        return;
    pthread_mutex_lock(&C.lock);
    uint32_t device = 0;
    counter_session *s = session_for(d->context, &device);
    char why[256] = "";
    if (!s || counters_begin(s, why, sizeof why) != 0) {
        if (s)
            emit_counters_error("counters: the range profiler did not start: %s", why);
        pthread_mutex_unlock(&C.lock);
        free(name);
        return;
    }
    pthread_mutex_lock(&C.table);
    if (C.nprofiled == C.capprofiled) {
        size_t cap = C.capprofiled ? 2 * C.capprofiled : 64;
        uint32_t *p = realloc(C.profiled, cap * sizeof *p);
        if (p)
            C.profiled = p, C.capprofiled = cap;
    }
    if (C.nprofiled < C.capprofiled)
        C.profiled[C.nprofiled++] = d->correlationId;
    pthread_mutex_unlock(&C.table);
    pending.active = true;
    pending.s = s;
    pending.correlation = d->correlationId;
    pending.device = device;
    pending.name = name;
}

static void launch_exit(void)
{
    if (!pending.active)
        return;
    kernel_counters k;
    char why[256] = "";
    if (counters_end(pending.s, &k, why, sizeof why) == 0) {
        k.v[CTR_DRAM_WRITE_BYTES] = NAN; /* the replay's restore is in it: see the top */
        emit_counters(&k);
    } else {
        emit_counters_error("counters: a profiled launch gave no counters: %s", why);
    }
    free(pending.name);
    memset(&pending, 0, sizeof pending);
    pthread_mutex_unlock(&C.lock);
}

/* The driver's launch calls; the runtime's launches reach the driver through them. */
static const CUpti_CallbackId launch_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,       CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

bool inject_counters_replayed(uint32_t correlation)
{
    if (!C.on)
        return false;
    pthread_mutex_lock(&C.table);
    bool found = false;
    for (size_t i = C.nprofiled; i-- > 0 && !found;) /* records come roughly in launch order */
        found = C.profiled[i] == correlation;
    pthread_mutex_unlock(&C.table);
    return found;
}

void inject_counters_enable(CUpti_SubscriberHandle subscriber)
{
    for (size_t i = 0; i < sizeof launch_cbids / sizeof launch_cbids[0]; i++)
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, launch_cbids[i]);
}

void inject_counters_callback(CUpti_CallbackId cbid, const CUpti_CallbackData *d)
{
    bool launch = false;
    for (size_t i = 0; i < sizeof launch_cbids / sizeof launch_cbids[0]; i++)
        launch = launch || launch_cbids[i] == cbid;
    if (!C.on || !launch)
        return;
    if (d->callbackSite == CUPTI_API_ENTER)
        launch_enter(d);
    else
        launch_exit();
}
