/* Launch call sites: the host stack of every kernel launch (graph launches included), copy,
 * memset and synchronisation, taken in CUPTI's callback at the call's entry and written as a
 * "site CORR NODE" line (host-spec), CORR the correlation id the call's activity records carry.
 *
 * Which calls: the runtime API's, and the driver API's made outside a runtime call (Triton and
 * numba launch with cuLaunchKernel; the runtime's own driver calls would be the same launch
 * twice). They are chosen by name at start (cuptiGetCallbackName), so a CUPTI with new variants
 * of a call (_ptsz, _v2, Ex) needs no change here.
 *
 * Which stack: the thread's Python stack where it has one that can be read (inject_pyframes.c),
 * else its native stack (glibc's backtrace: outside a signal handler it is safe, and the unwinder
 * uses the modules' unwind tables, so code without frame pointers unwinds too), less the
 * innermost frames in this library, CUPTI, the driver and the CUDA runtime: the stack starts at
 * the caller of the CUDA call. A CUDA runtime linked statically into the program (nvcc's default)
 * cannot be told from the program by its module; its frames stay, and the analysis passes over
 * frames without a source line.
 *
 * Cost: one Python frame chain walk or one unwind, and a lookup in the call tree for each frame
 * not shared with the thread's previous stack, under one lock; the line goes to a buffer written
 * in batches (inject_host.c). The process's sites are held to 1% of its wall time (SITE_SHARE;
 * those of allocations other than a stream-ordered pool's to a share of their own, apart,
 * ALLOC_SITE_SHARE below): past it a call gets no site, and the sites' callbacks are turned off until the process is within
 * its share again (the throttle, below); the "sitestat TAKEN SKIPPED OFF_NS" line at exit says how
 * many were skipped in a callback and how long the callbacks were off. MMPROF_SITES=0 turns sites off (the cost benchmark's baseline); MMPROF_SITES=callbacks
 * leaves their callbacks on but takes no stack (the benchmark's share of CUPTI's calls alone).
 *
 * The cost benchmark's pause (MMPROF_AB_FILE, inject_sampler.c calls inject_sites_pause): sites
 * paused cost what MMPROF_SITES=0 costs, so their callbacks are disabled in CUPTI, not only left
 * without work (CUPTI's call into a callback that returns at once is itself a cost on every
 * launch); a relaxed load of the flag at each site covers the calls already in a callback. */
#include <dlfcn.h>
#include <execinfo.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"
#include "inject_host.h"
#include "stream_format.h"
#include "cupti_load.h" /* last: its macros rename the CUPTI calls below */

static bool on;
static bool stacks = true; /* false: MMPROF_SITES=callbacks */
static uint8_t runtime_tracked[(CUPTI_RUNTIME_TRACE_CBID_SIZE + 7) / 8];
static uint8_t driver_tracked[(CUPTI_DRIVER_TRACE_CBID_SIZE + 7) / 8];
/* The tracked callbacks that no other part of the library enabled (counters enable driver
 * launches before; a capture the whole runtime domain after): the ones a pause may disable. */
static uint8_t runtime_own[sizeof runtime_tracked], driver_own[sizeof driver_tracked];
static CUpti_SubscriberHandle subscriber;
/* Tracked runtime calls in progress on this thread: a driver call inside one is the same call.
 * Counted in an epoch of the callbacks: after a pause the count is stale (a call's enter or exit
 * fell in the pause), and it restarts at 0. */
static __thread int runtime_depth;
static __thread uint32_t depth_epoch;
static uint32_t epoch = 1;
/* The pause: the flag, when it began, and the time paused in all (not counted in a thread's
 * share of time for sites, below: a pause would otherwise save up sites for after it). */
static int paused;
static int64_t paused_since, paused_total;

static bool bit(const uint8_t *set, size_t size, CUpti_CallbackId id)
{
    return id < size * 8 && (set[id / 8] >> (id % 8)) & 1;
}

/* Kernel launches (graphs included), copies, memsets and synchronisation, by name. */
static bool tracked_name(const char *name, bool driver)
{
    static const char *const runtime[] = {"cudaLaunch", "cudaGraphLaunch", "cudaMemcpy", "cudaMemset", NULL};
    static const char *const drv[] = {"cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset", NULL};
    for (const char *const *p = driver ? drv : runtime; *p; p++)
        if (strncmp(name, *p, strlen(*p)) == 0)
            return true;
    return strstr(name, "Synchronize") != NULL;
}

static void choose(CUpti_SubscriberHandle s, CUpti_CallbackDomain domain, uint8_t *set, uint8_t *own, CUpti_CallbackId size)
{
    for (CUpti_CallbackId id = 1; id < size; id++) {
        const char *name = NULL;
        if (cuptiGetCallbackName(domain, id, &name) != CUPTI_SUCCESS || !name ||
            !tracked_name(name, domain == CUPTI_CB_DOMAIN_DRIVER_API))
            continue;
        uint32_t before = 1;
        if (cuptiGetCallbackState(&before, s, domain, id) != CUPTI_SUCCESS)
            before = 1;
        if (cuptiEnableCallback(1, s, domain, id) == CUPTI_SUCCESS) {
            set[id / 8] |= (uint8_t)(1u << (id % 8));
            if (!before && own)
                own[id / 8] |= (uint8_t)(1u << (id % 8));
        }
    }
}

void inject_sites_enable(CUpti_SubscriberHandle s)
{
    const char *v = getenv("MMPROF_SITES");
    if (v && strcmp(v, "0") == 0)
        return;
    stacks = !(v && strcmp(v, "callbacks") == 0);
    inject_py_present(); /* found now, not in the first launch */
    void *warm[2];
    backtrace(warm, 2); /* loads libgcc's unwinder now, not inside a launch */
    bool capture = inject_capture_init(); /* enables the whole runtime domain after this */
    choose(s, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_tracked, capture ? NULL : runtime_own, CUPTI_RUNTIME_TRACE_CBID_SIZE);
    choose(s, CUPTI_CB_DOMAIN_DRIVER_API, driver_tracked, driver_own, CUPTI_DRIVER_TRACE_CBID_SIZE);
    subscriber = s;
    on = true;
}

static void enable_own(uint32_t enable, CUpti_CallbackDomain domain, const uint8_t *own, CUpti_CallbackId size)
{
    for (CUpti_CallbackId id = 1; id < size; id++)
        if (bit(own, (size + 7) / 8, id))
            cuptiEnableCallback(enable, subscriber, domain, id);
}

/* The throttle: while the process is over its share of time for sites (below), the sites' own
 * callbacks are off, as in a pause, not only left without work: CUPTI's call into a callback is a
 * cost on every tracked call, and on the H200 a launch-bound PyTorch step paid +2.4% for call
 * sites with 97% of them skipped for their share, against the 1% the stacks themselves took. Calls
 * made while the callbacks are off are not seen (sitestat counts the time off); the analysis tells
 * the share of GPU work with a site from the activity records. */
static int throttled;
static int64_t throttled_since, throttled_total;
static bool callbacks_on = true;

/* The sites' own callbacks on exactly when neither paused nor throttled; turned on again, the
 * thread's runtime depths start afresh (a call's exit may have gone unseen). */
static void apply_callbacks(void)
{
    bool want = !__atomic_load_n(&paused, __ATOMIC_RELAXED) && !__atomic_load_n(&throttled, __ATOMIC_RELAXED);
    if (want == callbacks_on)
        return;
    callbacks_on = want;
    if (want)
        __atomic_fetch_add(&epoch, 1, __ATOMIC_RELAXED);
    if (on) {
        enable_own(want, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_own, CUPTI_RUNTIME_TRACE_CBID_SIZE);
        enable_own(want, CUPTI_CB_DOMAIN_DRIVER_API, driver_own, CUPTI_DRIVER_TRACE_CBID_SIZE);
    }
}

/* From the sampler thread alone, after InitializeInjection: the library's other calls to
 * cuptiEnableCallback are all made before it, and CUPTI asks a subscriber to serialise them. */
void inject_sites_pause(bool pause)
{
    if (pause == (__atomic_load_n(&paused, __ATOMIC_RELAXED) != 0))
        return;
    int64_t now = inject_now_ns();
    if (pause) {
        paused_since = now;
        __atomic_store_n(&paused, 1, __ATOMIC_RELAXED);
    } else {
        __atomic_fetch_add(&paused_total, now - paused_since, __ATOMIC_RELAXED);
    }
    if (!pause)
        __atomic_store_n(&paused, 0, __ATOMIC_RELAXED);
    apply_callbacks();
}

/* ---- native stacks ---- */

/* Whether an address is in a module whose frames a site leaves out, cached per thread (a launch's
 * innermost frames are the same few addresses each time; dladdr walks the loaded modules). */
static bool skipped_module(uintptr_t addr)
{
    static __thread struct {
        uintptr_t addr;
        bool skip;
    } cache[256];
    size_t i = (addr >> 2) & 255;
    if (cache[i].addr == addr)
        return cache[i].skip;
    static void *own_base;
    Dl_info self, info;
    if (!own_base && dladdr((void *)skipped_module, &self))
        own_base = self.dli_fbase;
    bool skip = false;
    if (dladdr((void *)addr, &info) && info.dli_fname) {
        const char *base = strrchr(info.dli_fname, '/');
        base = base ? base + 1 : info.dli_fname;
        skip = info.dli_fbase == own_base || strncmp(base, "libcupti.so", 11) == 0 || strncmp(base, "libcuda.so", 10) == 0 ||
               strncmp(base, "libcudart.so", 12) == 0;
    }
    cache[i].addr = addr;
    cache[i].skip = skip;
    return skip;
}

/* The calling thread's native stack as keys, outermost first: return addresses less one (the
 * call instruction's address, which names the caller's line). */
static int native_stack(host_key *keys)
{
    void *pcs[HOST_MAX_DEPTH + 32];
    int n = backtrace(pcs, (int)(sizeof pcs / sizeof pcs[0]));
    int first = 0;
    while (first < n && skipped_module((uintptr_t)pcs[first]))
        first++;
    int kept = n - first < HOST_MAX_DEPTH ? n - first : HOST_MAX_DEPTH;
    for (int i = 0; i < kept; i++)
        keys[kept - 1 - i] = (host_key){.a = (uint64_t)(uintptr_t)pcs[first + i] - 1, .kind = HOST_KEY_NATIVE};
    return kept;
}

/* Each thread's previous stack and its nodes: consecutive launches share most of their stack
 * (the same loop, the same module's forward), so only the frames past the shared outer part are
 * checked and looked up again. */
static __thread struct {
    uint32_t generation; /* the tree's (inject_host_generation); 0: empty */
    int n;
    host_key keys[HOST_MAX_DEPTH];
    uint32_t ids[HOST_MAX_DEPTH];
} memo;

/* The process's time spent taking sites, all threads together, held to SITE_SHARE of the wall time
 * since its first site (after a first allowance of SITE_BURST_NS): past it a call's site is
 * skipped and counted. A Python stack costs about a microsecond, a native one tens (libgcc's
 * unwinder reads each frame's unwind table), and a program that launches every few microseconds
 * would otherwise pay that on each launch. The process's, not each thread's: a training step waits
 * for its main thread and autograd's, so a share per thread was paid once per thread (measured on
 * the H200: +2.7% of a launch-bound step with 1% per thread, two thirds of the sites skipped). */
#define SITE_SHARE 100 /* 1/100: 1% */
#define SITE_BURST_NS 20000000LL
/* A synchronous allocation's site (SITE_ALLOCATION) is held to a share of its own, apart: such a
 * call costs the driver tens of microseconds, its site one (Python) to tens (a deep native stack),
 * and the launches' share must not starve it (inject_memory.c says what that did). A tenth of the
 * wall time is never reached by a program that allocates as programs do; it bounds one that
 * calls cudaMalloc in a loop from a deep native stack. */
#define ALLOC_SITE_SHARE 10 /* 1/10: 10% */
typedef struct {
    int64_t first, spent; /* atomics */
    int64_t paused;       /* paused_total at first */
} site_account;
static site_account cost, alloc_cost;
static uint64_t taken, skipped;

/* Whether the process has spent more than its share (1/share of the wall time) of account a on
 * sites at now. */
static bool over_share(site_account *a, int64_t share, int64_t now)
{
    int64_t pauses = __atomic_load_n(&paused_total, __ATOMIC_RELAXED);
    int64_t first = __atomic_load_n(&a->first, __ATOMIC_ACQUIRE);
    if (!first) {
        int64_t none = 0;
        __atomic_store_n(&a->paused, pauses, __ATOMIC_RELAXED);
        first = __atomic_compare_exchange_n(&a->first, &none, now, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ? now : none;
    }
    int64_t allowed = (now - first - (pauses - __atomic_load_n(&a->paused, __ATOMIC_RELAXED))) / share + SITE_BURST_NS;
    return __atomic_load_n(&a->spent, __ATOMIC_RELAXED) > allowed;
}

void inject_sites_tick(int64_t now)
{
    if (!on || !stacks || !__atomic_load_n(&cost.first, __ATOMIC_ACQUIRE))
        return; /* no site taken yet: nothing spent */
    bool over = over_share(&cost, SITE_SHARE, now);
    if (over == (__atomic_load_n(&throttled, __ATOMIC_RELAXED) != 0))
        return;
    if (over)
        throttled_since = now;
    else
        __atomic_fetch_add(&throttled_total, now - throttled_since, __ATOMIC_RELAXED);
    __atomic_store_n(&throttled, over, __ATOMIC_RELAXED);
    apply_callbacks();
}

uint32_t inject_site_take(uint32_t correlation, site_budget budget)
{
    if (__atomic_load_n(&paused, __ATOMIC_RELAXED))
        return 0;
    /* Throttled (over the share at the last tick): skipped without reading the clock. The calls
     * that still come here then are the stream-ordered allocations (inject_memory.c; the launches'
     * callbacks are off), each under a microsecond in the driver, to which the clock and the share's
     * atomics were a cost on every call. */
    if (budget == SITE_SHARED && __atomic_load_n(&throttled, __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&skipped, 1, __ATOMIC_RELAXED);
        return 0;
    }
    site_account *account = budget == SITE_SHARED ? &cost : budget == SITE_ALLOCATION ? &alloc_cost : NULL;
    int64_t t0 = inject_now_ns();
    if (account && over_share(account, account == &cost ? SITE_SHARE : ALLOC_SITE_SHARE, t0)) {
        __atomic_fetch_add(&skipped, 1, __ATOMIC_RELAXED);
        return 0;
    }
    host_key keys[HOST_MAX_DEPTH];
    int n = inject_py_this_stack(keys, HOST_MAX_DEPTH, memo.keys, memo.n); /* >= 0: the host lock is held */
    if (n < 0) {
        n = native_stack(keys);
        inject_host_lock();
    }
    int same = 0;
    if (memo.generation == inject_host_generation())
        while (same < n && same < memo.n && keys[same].a == memo.keys[same].a && keys[same].b == memo.keys[same].b &&
               keys[same].kind == memo.keys[same].kind)
            same++;
    int interned;
    uint32_t node = inject_host_stack_at(keys + same, n - same, same ? memo.ids[same - 1] : 0, memo.ids + same, &interned);
    memcpy(memo.keys + same, keys + same, (size_t)interned * sizeof keys[0]);
    memo.n = same + interned;
    memo.generation = inject_host_generation();
    stream_format_site(inject_host_out(), correlation, node);
    inject_host_flush_locked(false);
    inject_host_unlock();
    __atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
    if (account)
        __atomic_fetch_add(&account->spent, inject_now_ns() - t0, __ATOMIC_RELAXED);
    return node;
}

bool inject_sites_taking(void)
{
    return on && stacks;
}

void inject_sites_finish(void)
{
    uint64_t k = __atomic_load_n(&skipped, __ATOMIC_RELAXED);
    if (!on && !k && !__atomic_load_n(&taken, __ATOMIC_RELAXED))
        return;
    int64_t off = __atomic_load_n(&throttled_total, __ATOMIC_RELAXED);
    if (__atomic_load_n(&throttled, __ATOMIC_RELAXED))
        off += inject_now_ns() - throttled_since;
    host_collect_stats st = {.has_sites = true, .sites_taken = __atomic_load_n(&taken, __ATOMIC_RELAXED), .sites_skipped = k,
                             .sites_off_ns = (uint64_t)off};
    inject_host_lock();
    stream_format_host_stats(inject_host_out(), &st);
    inject_host_unlock();
}

void inject_sites_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    if (!on)
        return;
    const CUpti_CallbackData *d = data;
    uint32_t e = __atomic_load_n(&epoch, __ATOMIC_RELAXED);
    if (depth_epoch != e) {
        depth_epoch = e;
        runtime_depth = 0;
    }
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        if (!bit(runtime_tracked, sizeof runtime_tracked, cbid))
            return;
        if (d->callbackSite == CUPTI_API_EXIT) {
            if (runtime_depth > 0)
                runtime_depth--;
            return;
        }
        if (runtime_depth++ > 0)
            return;
    } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        if (!bit(driver_tracked, sizeof driver_tracked, cbid) || d->callbackSite != CUPTI_API_ENTER || runtime_depth > 0)
            return;
    } else
        return;
    if (stacks && inject_capture_tracing_now()) /* outside a capture window nothing is recorded to tie it to */
        inject_site_take(d->correlationId, SITE_SHARED);
}
