/* libmmprof_inject.so's capture windows: `mmprof profile --delay/--duration/--capture-range`
 * (capture_config.h). Outside a window no CUPTI activity kind is enabled (inject_set_tracing), so
 * the program runs at near-native speed; each window's opening and closing is a "capture" line in
 * the stream, with why, so the report can show the windows as regions of their own.
 *
 * What opens and closes a window:
 *   --delay/--duration  a timer thread of ours, at launch + delay and launch + delay + duration
 *                       (the launcher's clock, MMPROF_CAPTURE_START_NS, as nsys counts);
 *   cuda-profiler       CUPTI's callbacks on the driver's cuProfilerStart (at its exit: what the
 *                       program launches after it is recorded) and cuProfilerStop (at its entry:
 *                       what it launched before is recorded). cudaProfilerStart/Stop call those,
 *                       so both APIs are caught, once;
 *   manual              `mmprof capture start|stop` (capture_control.h): the flusher reads the
 *                       profile's control block every period and calls inject_capture_command;
 *                       a process that initialises CUDA after a start opens at once;
 *   --max-size          the job's record files reached the cap: the flusher closes the window
 *                       for good (inject_capture_capped), whatever opened it;
 *   nvtx:NAME[@DOMAIN]  inject_nvtx.c's push/pop and start/end, which already run for every range:
 *                       a matching push or start opens, its own pop (the thread's depth back where
 *                       it was) or end closes. While a window is open further matches are nested
 *                       or overlapping instances and are not counted (they are recorded anyway).
 * --capture-skip and --capture-count count cuda-profiler and NVTX instances: the first skip are
 * passed over, the next count recorded, each a window; after the last, callbacks return at once.
 *
 * The CUDA runtime calls made outside the windows are counted (a runtime-domain callback doing one
 * atomic increment), so the report can say how much of the program went unrecorded. */
#include <cupti.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "capture_config.h"
#include "inject.h"
#include "stream_format.h"
#include "thread_wait.h"
#include "cupti_load.h" /* last: its macros rename the CUPTI calls below */

static struct {
    pthread_mutex_t lock; /* the window state below; the counters are atomic */
    pthread_cond_t wake;  /* the timer thread's */
    capture_config c;
    bool open;            /* a window is open (read without the lock by the call counter) */
    bool done;            /* every window asked for was recorded, or the process is ending */
    bool timer_stop, timer_running;
    pthread_t timer;
    int window;           /* windows opened so far */
    long instances;       /* cuda-profiler or NVTX instances seen (skipped ones included) */
    uint32_t nvtx_tid;    /* the open window's range: push on this thread at this depth ... */
    int nvtx_depth;
    uint64_t nvtx_id;     /* ... or start/end with this id (0: a push) */
    uint64_t outside_calls; /* CUDA runtime calls made while no window was open */
} cap = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void read_config(void)
{
    capture_config_from_env(&cap.c);
    if (cap.c.mode == CAPTURE_ALL)
        return;
    char what[600];
    capture_describe(&cap.c, what, sizeof what);
    strbuf b;
    sb_init(&b);
    sb_add(&b, "capconf\t");
    stream_escape(&b, what);
    sb_add(&b, "\n");
    inject_emit(&b);
    sb_free(&b);
}

bool inject_capture_init(void)
{
    pthread_once(&once, read_config);
    return cap.c.mode != CAPTURE_ALL;
}

/* A capture line (stream_format_capture). */
static void marker(int64_t ts, bool begin, const char *reason, const char *detail)
{
    strbuf b;
    sb_init(&b);
    stream_format_capture(&b, ts, begin, cap.window, reason, __atomic_load_n(&cap.outside_calls, __ATOMIC_RELAXED),
                          detail);
    inject_emit(&b);
    sb_free(&b);
}

/* Under cap.lock. The begin is timed before tracing starts and the end after it stopped, so every
 * launch recorded falls inside its window. */
static void open_window(const char *reason, const char *detail)
{
    if (cap.open || cap.done)
        return;
    cap.window++;
    marker(inject_now_ns(), true, reason, detail);
    __atomic_store_n(&cap.open, true, __ATOMIC_RELAXED);
    inject_set_tracing(true);
}

static void close_window(const char *reason, const char *detail, bool last)
{
    if (!cap.open)
        return;
    inject_set_tracing(false);
    __atomic_store_n(&cap.open, false, __ATOMIC_RELAXED);
    marker(inject_now_ns(), false, reason, detail);
    if (last)
        cap.done = true;
}

/* An instance of the range began: whether it is one to record (and counts it). */
static bool counted_instance(void)
{
    long k = ++cap.instances;
    if (k > cap.c.skip + cap.c.count)
        cap.done = true;
    return k > cap.c.skip && k <= cap.c.skip + cap.c.count;
}

static bool last_instance(void) { return cap.instances >= cap.c.skip + cap.c.count; }

/* ---- --delay / --duration ---- */

static struct timespec at_ns(int64_t ns)
{
    return (struct timespec){.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
}

/* Waits until ns on CLOCK_REALTIME or until asked to stop; under cap.lock. False when stopped. */
static bool wait_until(int64_t ns)
{
    struct timespec t = at_ns(ns);
    while (!cap.timer_stop && inject_now_ns() < ns)
        pthread_cond_timedwait(&cap.wake, &cap.lock, &t);
    return !cap.timer_stop;
}

static void *timer_loop(void *arg)
{
    (void)arg;
    const capture_config *c = &cap.c;
    int64_t from = c->start_ns + c->delay_ns;
    int64_t to = c->duration_ns > 0 ? from + c->duration_ns : INT64_MAX;
    char detail[96];
    pthread_mutex_lock(&cap.lock);
    if (wait_until(from) && inject_now_ns() < to) {
        if (c->delay_ns > 0)
            snprintf(detail, sizeof detail, "the %g s delay elapsed", c->delay_ns / 1e9);
        else
            snprintf(detail, sizeof detail, "CUDA initialised");
        open_window(c->delay_ns > 0 ? "delay" : "start", detail);
        if (to != INT64_MAX && wait_until(to)) {
            snprintf(detail, sizeof detail, "the %g s duration was reached", c->duration_ns / 1e9);
            close_window("duration", detail, true);
        }
    }
    pthread_mutex_unlock(&cap.lock);
    return NULL;
}

/* ---- cuda-profiler, and the calls outside ---- */

void inject_capture_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    const CUpti_CallbackData *d = data;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        /* Counted for the capture lines alone: without a capture there are none, and a locked add
         * on every runtime call with a callback (an allocation's and free's, a launch's site) would
         * be work for nothing. */
        if (cap.c.mode != CAPTURE_ALL && d->callbackSite == CUPTI_API_ENTER && !__atomic_load_n(&cap.open, __ATOMIC_RELAXED))
            __atomic_fetch_add(&cap.outside_calls, 1, __ATOMIC_RELAXED);
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API || cap.c.mode != CAPTURE_CUDA_PROFILER)
        return;
    bool start = cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart && d->callbackSite == CUPTI_API_EXIT;
    bool stop = cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop && d->callbackSite == CUPTI_API_ENTER;
    if (!start && !stop)
        return;
    pthread_mutex_lock(&cap.lock);
    char detail[64];
    if (start && !cap.open && !cap.done && counted_instance()) {
        snprintf(detail, sizeof detail, "cudaProfilerStart #%ld", cap.instances);
        open_window("cuda-profiler-start", detail);
    } else if (stop && cap.open) {
        snprintf(detail, sizeof detail, "cudaProfilerStop #%ld", cap.instances);
        close_window("cuda-profiler-stop", detail, last_instance());
    }
    pthread_mutex_unlock(&cap.lock);
}

/* ---- nvtx:NAME[@DOMAIN] ---- */

static bool matches(const char *domain, const char *name)
{
    return cap.c.mode == CAPTURE_NVTX && !cap.done && name && strcmp(name, cap.c.nvtx_name) == 0 &&
           strcmp(domain ? domain : "", cap.c.nvtx_domain) == 0;
}

void inject_capture_nvtx_open(uint32_t tid, int depth, uint64_t id, const char *domain, const char *name)
{
    if (!matches(domain, name)) /* the common case: no lock */
        return;
    pthread_mutex_lock(&cap.lock);
    if (!cap.open && !cap.done && counted_instance()) {
        cap.nvtx_tid = tid;
        cap.nvtx_depth = depth;
        cap.nvtx_id = id;
        char detail[CAPTURE_NAME_MAX + 64];
        snprintf(detail, sizeof detail, "NVTX range %s instance %ld began", cap.c.nvtx_name, cap.instances);
        open_window("nvtx-begin", detail);
    }
    pthread_mutex_unlock(&cap.lock);
}

void inject_capture_nvtx_close(uint32_t tid, int depth, uint64_t id)
{
    if (cap.c.mode != CAPTURE_NVTX || !__atomic_load_n(&cap.open, __ATOMIC_RELAXED))
        return;
    pthread_mutex_lock(&cap.lock);
    bool mine = cap.open && (id ? cap.nvtx_id == id : cap.nvtx_id == 0 && cap.nvtx_tid == tid && cap.nvtx_depth == depth);
    if (mine) {
        char detail[CAPTURE_NAME_MAX + 64];
        snprintf(detail, sizeof detail, "NVTX range %s instance %ld ended", cap.c.nvtx_name, cap.instances);
        close_window("nvtx-end", detail, last_instance());
    }
    pthread_mutex_unlock(&cap.lock);
}

/* ---- manual (mmprof capture start|stop) and --max-size ---- */

void inject_capture_command(bool start, uint64_t number, bool before_cuda)
{
    if (cap.c.mode != CAPTURE_MANUAL)
        return;
    char detail[128];
    pthread_mutex_lock(&cap.lock);
    if (start) {
        snprintf(detail, sizeof detail, "mmprof capture start (command %llu%s)", (unsigned long long)number,
                 before_cuda ? ", given before this process initialised CUDA" : "");
        open_window("control-start", detail);
    } else {
        snprintf(detail, sizeof detail, "mmprof capture stop (command %llu)", (unsigned long long)number);
        close_window("control-stop", detail, false);
    }
    pthread_mutex_unlock(&cap.lock);
}

void inject_capture_capped(int64_t capped_ns, uint64_t max_bytes)
{
    pthread_mutex_lock(&cap.lock);
    if (!cap.done) {
        char detail[160], size[32];
        capture_size_words(max_bytes, size, sizeof size);
        snprintf(detail, sizeof detail, "the job's record files reached %s (--max-size) at %.3f s after launch", size,
                 (double)(capped_ns - cap.c.start_ns) / 1e9);
        close_window("max-size", detail, true);
        cap.done = true; /* also when no window was open: none opens again */
    }
    pthread_mutex_unlock(&cap.lock);
}

/* From the flusher every period: --max-size reached and `mmprof capture start|stop`'s commands,
 * read from the profile's control block (inject_control.c, which calls nothing here), applied to
 * the windows. Without a control block both read as nothing. */
void inject_capture_poll(void)
{
    if (inject_control_capped())
        inject_capture_capped(inject_control_capped_ns(), inject_control_max_bytes());
    uint64_t number;
    int c = inject_control_pending(&number);
    if (c >= 0)
        inject_capture_command(c == 1, number, false);
}

/* ---- the CUDA side starts, and the process ends ---- */

void inject_capture_cuda_ready(CUpti_SubscriberHandle subscriber)
{
    if (!inject_capture_init())
        return;
    cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
    if (cap.c.mode == CAPTURE_CUDA_PROFILER) {
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
    }
    if (inject_control_capped()) { /* the job reached --max-size before this process began */
        pthread_mutex_lock(&cap.lock);
        cap.done = true;
        pthread_mutex_unlock(&cap.lock);
        return;
    }
    uint64_t number;
    int command = cap.c.mode == CAPTURE_MANUAL ? inject_control_pending(&number) : -1;
    if (command == 1)
        inject_capture_command(true, number, true);
    if (cap.c.mode != CAPTURE_TIME)
        return;
    /* CUDA started after the delay: open now, before the program's first calls, not when the
     * timer thread gets to run. */
    int64_t from = cap.c.start_ns + cap.c.delay_ns;
    pthread_mutex_lock(&cap.lock);
    if (inject_now_ns() >= from && (cap.c.duration_ns == 0 || inject_now_ns() < from + cap.c.duration_ns))
        open_window(cap.c.delay_ns > 0 ? "delay" : "start",
                    cap.c.delay_ns > 0 ? "the delay had elapsed when CUDA initialised" : "CUDA initialised");
    pthread_mutex_unlock(&cap.lock);
    cap.timer_running = thread_start_quiet(&cap.timer, timer_loop, NULL, "mmprof-capture") == 0;
}

bool inject_capture_tracing_now(void)
{
    if (!inject_capture_init())
        return true;
    return __atomic_load_n(&cap.open, __ATOMIC_RELAXED);
}

void inject_capture_finish(long wait_ms)
{
    if (!inject_capture_init())
        return;
    /* A signal may have come while a thread of the program held the lock (in an NVTX or
     * profiler callback): then nothing is written, and the reader closes the window at the
     * process's last record, as it does a killed process's. */
    if (pthread_mutex_trylock(&cap.lock) != 0)
        return;
    if (cap.timer_running) {
        cap.timer_stop = true;
        pthread_cond_signal(&cap.wake);
        pthread_mutex_unlock(&cap.lock);
        cap.timer_running = !thread_join_within(cap.timer, wait_ms);
        if (pthread_mutex_trylock(&cap.lock) != 0)
            return;
    }
    if (cap.open) {
        marker(inject_now_ns(), false, "exit", "the program ended with the window open");
        cap.open = false;
    }
    cap.done = true;
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "capcalls\t%lld\t%llu\n", (long long)inject_now_ns(),
              (unsigned long long)__atomic_load_n(&cap.outside_calls, __ATOMIC_RELAXED));
    inject_emit(&b);
    sb_free(&b);
    pthread_mutex_unlock(&cap.lock);
}
