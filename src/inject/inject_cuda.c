/* libmmprof_inject.so's CUDA side: InitializeInjection, which the CUDA driver calls at the
 * program's cuInit because CUDA_INJECTION64_PATH names this library.
 *
 * It enables the activity kinds cupti_records.c understands and, as each CUPTI buffer completes,
 * turns the records into run-model events (the same code as mmprof's own collector) and appends
 * them to this process's stream at once: memory stays bounded by the buffers in flight (at most
 * MMPROF_MAX_BUFFERS, see DEFAULT_MAX_BUFFERS) however long the program runs, and a crash loses
 * at most the buffers CUPTI still held. At exit (atexit) a forced flush hands over the rest.
 *
 * CUPTI hands a buffer over only when it is full or flushed, and its own periodic flush
 * (cuptiActivityFlushPeriod) returns full buffers only; so a thread of ours calls
 * cuptiActivityFlushAll every MMPROF_FLUSH_MS (default 100 ms), which returns partly filled
 * buffers too; forced where MMPROF_FLUSH_FORCED asks, even those with a record still incomplete
 * (flush_loop says what each costs). What can still be lost: a process that leaves through
 * _exit (Python multiprocessing workers use os._exit) or is killed runs no atexit handler, so the
 * records since the last flush never arrive; `mmprof profile` therefore also preloads
 * libmmprof_exit.so, whose _exit calls mmprof_inject_flush first. A killed process still loses
 * them, unless the signal is one inject_signal.c catches (SIGTERM, SIGINT, SIGHUP, where the
 * program left them at their default): the launcher says so for every process whose stream has no
 * "exit" line.
 *
 * One libcupti per process: the library is linked against the soname libcupti.so.13, so in a
 * program that already loaded a copy (PyTorch's wheel ships one) it binds to that copy, and only
 * a program without one loads the toolkit's (through the rpath). */
#include <cupti.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cupti_records.h"
#include "inject.h"
#include "stream_format.h"
#include "thread_wait.h"
#include "cupti_load.h" /* last: its macros rename the CUPTI calls below */

#define EXPORT __attribute__((visibility("default")))

/* 2 MB: a 100 ms flush rarely fills one; CUPTI asks for more as it needs them. */
#define BUFFER_BYTES (2u << 20)
/* MMPROF_FLUSH_FORCED=1 (a job that may be killed): buffers of 64 KB, handed over by default
 * flushes as soon as their records are complete (flush_loop says why not forced flushes).
 * MMPROF_BUFFER_KB sets either size. */
#define SAFE_BUFFER_BYTES (64u << 10)
static size_t buffer_bytes = BUFFER_BYTES;
#define DEFAULT_FLUSH_MS 100
/* The bound on the library's memory for records: buffers handed to CUPTI and not yet back (being
 * filled, or completed and waiting for buffer_completed to write them out). CUPTI asks for a new
 * buffer whenever the ones it holds are full, so a writer that lags (a slow disk) or a burst of
 * records would otherwise grow them without limit. Past the bound buffer_requested gives none:
 * CUPTI then drops records, counts them (cuptiActivityGetNumDroppedRecords, the stats line's
 * DROPPED) and the report warns with the count. 64 x 2 MB = 128 MB; MMPROF_MAX_BUFFERS sets it. */
#define DEFAULT_MAX_BUFFERS 64
static unsigned max_buffers = DEFAULT_MAX_BUFFERS; /* of buffer_bytes: the bound's bytes over them */
static unsigned buffers_out;      /* atomic: requested and not yet completed */
static uint64_t buffers_refused;  /* atomic: requests answered with no buffer */

static CUpti_SubscriberHandle subscriber;
static bool initialized;
/* The process that initialised collection. A child it forks (PyTorch's DataLoader workers, for
 * one) inherits this state but not CUPTI's threads or the flusher: it must make no CUPTI call
 * at exit. */
static pid_t owner;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *max_records = 0;
    *buffer = NULL;
    if (__atomic_add_fetch(&buffers_out, 1, __ATOMIC_RELAXED) <= max_buffers)
        *buffer = aligned_alloc(8, buffer_bytes);
    if (!*buffer) {
        __atomic_sub_fetch(&buffers_out, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&buffers_refused, 1, __ATOMIC_RELAXED);
    }
    *size = *buffer ? buffer_bytes : 0;
}

/* The events of one buffer as stream lines, each thread's name before its first call. */
static void format_events(strbuf *b, const event_list *e)
{
    for (size_t i = 0; i < e->napis; i++)
        inject_thread_name(b, e->apis[i].thread);
    stream_format_events(b, e);
}

/* What a buffer's records go to besides its events: the count of replayed launches, the memory
 * records. */
typedef struct {
    uint64_t replayed;
    memory_activity mem;
    bool mem_oom;
} buffer_extra;

/* A launch profiled under the counters: CUPTI's record of it has no usable timestamps (seen on
 * the H200), which is not the lost kind the stats line counts. Counted in the extra instead. And
 * the memory records (GPU memory), which are no events of the store. */
static bool claimed_record(const CUpti_Activity *rec, void *arg)
{
    buffer_extra *x = arg;
    if (cupti_memory_record(rec, 0, &x->mem, &x->mem_oom))
        return true;
    if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
        return false;
    const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
    if (((k->start == 0 && k->end == 0) || k->end < k->start) && inject_counters_replayed(k->correlationId)) {
        x->replayed++;
        return true;
    }
    return false;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)size;
    event_list e;
    memset(&e, 0, sizeof e);
    record_counts n;
    memset(&n, 0, sizeof n);
    buffer_extra x;
    memset(&x, 0, sizeof x);
    cupti_buffer_store(ctx, stream, buffer, valid, 0, claimed_record, &x, &e, &n);
    free(buffer);
    __atomic_sub_fetch(&buffers_out, 1, __ATOMIC_RELAXED);
    strbuf b;
    sb_init(&b);
    format_events(&b, &e);
    stream_format_memory(&b, &x.mem);
    if (x.replayed)
        sb_printf(&b, "replayed\t%llu\n", (unsigned long long)x.replayed);
    if (n.errors + n.unreadable + x.mem_oom)
        sb_printf(&b, "error\t%llu CUPTI records could not be read or stored\n",
                  (unsigned long long)(n.errors + n.unreadable + x.mem_oom));
    sb_printf(&b, "stats\t%llu\t%llu\t%llu\t%llu\t%lld\n", (unsigned long long)n.records,
              (unsigned long long)n.dropped, (unsigned long long)n.lost, (unsigned long long)n.overhead_records,
              (long long)n.overhead_ns);
    inject_emit(&b);
    sb_free(&b);
    events_clear(&e);
    memory_activity_free(&x.mem);
}

/* A context was created: describe its device (the driver can be asked from here). A launch:
 * hardware counters, where asked for. */
static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        inject_capture_callback(domain, cbid, data);
        inject_sites_callback(domain, cbid, data);
        inject_memory_callback(domain, cbid, data);
        return;
    }
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        inject_capture_callback(domain, cbid, data);
        inject_sites_callback(domain, cbid, data);
        inject_counters_callback(cbid, data);
        inject_memory_callback(domain, cbid, data);
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_RESOURCE || cbid != CUPTI_CBID_RESOURCE_CONTEXT_CREATED)
        return;
    inject_memory_context_created();
    const CUpti_ResourceData *r = data;
    uint32_t device;
    if (cuptiGetDeviceId(r->context, &device) != CUPTI_SUCCESS)
        return;
    strbuf b;
    sb_init(&b);
    inject_device(&b, device);
    inject_emit(&b);
    sb_free(&b);
}

/* The flusher thread: wakes every period, or when finish asks it to stop. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop, running;
    bool now;   /* a capture window closed: flush without waiting for the period */
    bool forced; /* MMPROF_FLUSH_FORCED=force: periodic flushes forced (see flush_loop) */
    bool flush;  /* flush each period (false: MMPROF_FLUSH_MS=0, the thread only polls the
                  * control block) */
    bool debug; /* MMPROF_INJECT_DEBUG: a "flush" line per periodic flush and the exit flush's
                 * timing on stderr, for diagnosis */
    unsigned period_ms;
    pthread_t thread;
} flusher = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

/* How long one periodic flush took and what CUPTI said: the report ignores these lines; they
 * show in the stream file whether flushes run and return. */
static void emit_flush_debug(int64_t t0, CUptiResult r)
{
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "flush\t%lld\t%lld\t%d\n", (long long)t0, (long long)inject_now_ns(), (int)r);
    inject_emit(&b);
    sb_free(&b);
}

static void *flush_loop(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&flusher.lock);
    while (!flusher.stop) {
        struct timespec at = realtime_after_ms(flusher.period_ms);
        bool timed_out = flusher.now || pthread_cond_timedwait(&flusher.wake, &flusher.lock, &at) == ETIMEDOUT;
        if ((timed_out || flusher.now) && !flusher.stop) {
            flusher.now = false;
            pthread_mutex_unlock(&flusher.lock);
            inject_capture_poll(); /* mmprof capture start|stop, and --max-size reached */
            inject_memory_tick(inject_now_ns()); /* the devices' memory through NVML, at a low rate */
            if (!flusher.flush) {
                pthread_mutex_lock(&flusher.lock);
                continue;
            }
            int64_t t0 = flusher.debug ? inject_now_ns() : 0;
            /* Default, unless MMPROF_FLUSH_FORCED=force. CUPTI keeps kernel records in
             * per-context buffers that a default flush (0) returns only once every record in them
             * is complete; a buffer that holds a kernel in flight keeps filling, so in a program
             * that always has one in flight (a GPU-bound loop) the buffer being filled is handed
             * over only once full, and a SIGKILL loses it: up to 2 MB of records. A forced flush
             * hands over every buffer, incomplete records included (cupti_activity.h,
             * cuptiActivityFlushAll), but each kernel queued or running at that flush comes back
             * without its timestamps and is lost for good: in a GPU-bound loop, whose queue is
             * always deep, that is nearly every kernel (issue 37: a loop killed after 300 steps
             * kept 85 kernels with a forced flush every 100 ms against 4,819 with the default).
             * So MMPROF_FLUSH_FORCED=1, for jobs that may be killed, keeps the default flush and
             * makes the buffers small (SAFE_BUFFER_BYTES) instead: a full buffer stops filling
             * and is returned by the next default flush once its kernels are done, so a kill
             * loses at most one small buffer besides what never ran, and no record loses its
             * timestamps. =force keeps the forced flush, for comparison (tests/memory_gpu.sh).
             * Either took 5-8 ms on the H200 (docs/cupti.md), on this thread, not the program's.
             * MMPROF_FLUSH_MS=0 turns the periodic flush off. */
            CUptiResult r = cuptiActivityFlushAll(flusher.forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
            if (flusher.debug)
                emit_flush_debug(t0, r);
            pthread_mutex_lock(&flusher.lock);
        }
    }
    pthread_mutex_unlock(&flusher.lock);
    return NULL;
}

/* A window's records to the stream now, not a period later (inject_kinds.c asks when tracing
 * stops): not from there, which may be inside a CUPTI callback, but by the flusher. */
static void flush_soon(void)
{
    pthread_mutex_lock(&flusher.lock);
    flusher.now = true;
    pthread_cond_signal(&flusher.wake);
    pthread_mutex_unlock(&flusher.lock);
}

/* Starts the flusher with every signal blocked in it, so the program's signals go to its own
 * threads. */
static void start_flusher(unsigned period_ms, bool capture)
{
    /* MMPROF_FLUSH_MS=0 turns the periodic flush off; a capture still needs the thread, to read
     * mmprof capture's commands and the --max-size cap, at the default period. */
    flusher.flush = period_ms > 0;
    if (period_ms == 0 && !capture)
        return;
    flusher.period_ms = period_ms ? period_ms : DEFAULT_FLUSH_MS;
    flusher.running = thread_start_quiet(&flusher.thread, flush_loop, NULL, "mmprof-flush") == 0;
}

/* Asks the flusher to stop and waits for it (wait_ms as thread_join_within); false when it did not
 * stop in time. */
static bool stop_flusher(long wait_ms)
{
    if (!flusher.running)
        return true;
    pthread_mutex_lock(&flusher.lock);
    flusher.stop = true;
    pthread_cond_signal(&flusher.wake);
    pthread_mutex_unlock(&flusher.lock);
    bool stopped = thread_join_within(flusher.thread, wait_ms);
    flusher.running = !stopped;
    return stopped;
}

static void *forced_flush(void *arg)
{
    (void)arg;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    return NULL;
}

/* Hands over every record CUPTI still holds and marks the process's exit in its stream, once per
 * process (atexit, libmmprof_exit.so's _exit and a terminating signal may each ask; sig is that
 * signal, 0 otherwise). wait_ms bounds each wait (0: none): _exit and a signal must not hang the
 * process; past the bound it ends without its last records and the stream says why. */
void inject_finish(long wait_ms, int sig)
{
    if (getpid() != owner)
        return;
    /* A second caller waits for the first to finish instead of returning at once: in a Pool
     * worker the Pool's SIGTERM arrives while the worker's own _exit is flushing, and a signal
     * path that went straight on to re-raise killed the worker in the middle of that flush (seen
     * on the H200: the workers' last records missing). The first caller's waits are bounded, so
     * this one is too. */
    static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
    static bool done;
    pthread_mutex_lock(&once);
    if (done) {
        pthread_mutex_unlock(&once);
        return;
    }
    done = true;
    inject_capture_finish(wait_ms); /* an open window ends here, before the last records */
    inject_host_finish(wait_ms);    /* the last call sites and samples */
    int64_t t0 = inject_now_ns();
    bool ok = stop_flusher(wait_ms);
    int64_t t1 = inject_now_ns();
    pthread_t t;
    if (ok && inject_kinds_collecting() && wait_ms == 0)
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    else if (ok && inject_kinds_collecting() && pthread_create(&t, NULL, forced_flush, NULL) == 0)
        ok = thread_join_within(t, wait_ms);
    if (flusher.debug)
        fprintf(stderr, "mmprof-inject: pid %d sig %d: flusher stopped %s in %.1f ms, last flush %s in %.1f ms\n", (int)getpid(),
                sig, ok ? "ok" : "-", (t1 - t0) / 1e6, ok ? "ok" : "timed out", (inject_now_ns() - t1) / 1e6);
    strbuf b;
    sb_init(&b);
    uint64_t refused = __atomic_load_n(&buffers_refused, __ATOMIC_RELAXED);
    if (refused)
        sb_printf(&b, "error\t%llu CUPTI buffer requests were refused: %u buffers of %zu KB were already in flight "
                      "(MMPROF_MAX_BUFFERS bounds the library's memory); CUPTI dropped the records meanwhile\n",
                  (unsigned long long)refused, max_buffers, buffer_bytes >> 10);
    if (sig)
        sb_printf(&b, "signal\t%d\n", sig);
    if (ok)
        sb_printf(&b, "exit\t%lld\n", (long long)inject_now_ns());
    else
        sb_printf(&b, "error\tat _exit or a signal the last CUDA records could not be flushed within %ld ms (CUPTI busy)\n",
                  wait_ms);
    inject_emit(&b);
    sb_free(&b);
    pthread_mutex_unlock(&once);
}

static void at_exit(void)
{
    inject_finish(0, 0);
}

static unsigned flush_period_ms(void)
{
    const char *s = getenv("MMPROF_FLUSH_MS");
    char *end;
    long v = s ? strtol(s, &end, 10) : -1;
    return s && *s && !*end && v >= 0 && v <= 60000 ? (unsigned)v : DEFAULT_FLUSH_MS;
}

static unsigned max_buffers_env(void)
{
    const char *s = getenv("MMPROF_MAX_BUFFERS");
    char *end;
    long v = s ? strtol(s, &end, 10) : -1;
    return s && *s && !*end && v >= 1 && v <= 65536 ? (unsigned)v : DEFAULT_MAX_BUFFERS;
}

/* MMPROF_BUFFER_KB (16 KB to 64 MB), else the mode's size. */
static size_t buffer_bytes_env(bool safe)
{
    const char *s = getenv("MMPROF_BUFFER_KB");
    char *end;
    long v = s ? strtol(s, &end, 10) : -1;
    if (s && *s && !*end && v >= 16 && v <= 65536)
        return (size_t)v << 10;
    return safe ? SAFE_BUFFER_BYTES : BUFFER_BYTES;
}

/* Called by libmmprof_exit.so's _exit, which `mmprof profile` preloads: a process leaving
 * through _exit (Python multiprocessing workers) runs no atexit handler, so it flushes here,
 * each wait bounded. */
EXPORT void mmprof_inject_flush(void)
{
    inject_finish(INJECT_EXIT_FLUSH_MS, 0);
}

/* Called by libmmprof_exit.so's constructor in a Python program `mmprof profile` started itself,
 * before the interpreter runs (cupti_load.h says why this library can be loaded then): the host
 * sampler starts with the process, so CUDA's own start inside cuInit, before this library's CUDA
 * side exists, is sampled too. The process's exit is marked in its stream from here even where
 * CUDA never starts; where it does, InitializeInjection's handler, registered later, runs first
 * and this one finds the work done. */
static void early_exit(void)
{
    if (!initialized)
        inject_finish(0, 0);
}

EXPORT void mmprof_inject_early(void)
{
    if (owner)
        return;
    owner = getpid();
    atexit(early_exit);
    inject_sampler_start();
}

/* Always returns 1 (success): what the driver does with a failed injection is not documented, and
 * a profiler must never stop the program. What could not be enabled is in the stream as "error"
 * lines, which the report shows as warnings. */
EXPORT int InitializeInjection(void)
{
    if (initialized)
        return 1;
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "cuda\t%lld\n", (long long)inject_now_ns());
    inject_emit(&b);
    sb_free(&b);
    /* From here on the process's exit is marked in the stream, inject_kinds_collecting() or not. */
    initialized = true;
    owner = getpid();
    atexit(at_exit);
    char why[200];
    if (!cupti_load(why, sizeof why)) {
        sb_init(&b);
        sb_printf(&b, "error\tno CUDA records: %s\n", why);
        inject_emit(&b);
        sb_free(&b);
        return 1;
    }

    /* MMPROF_FLUSH_FORCED: "force" forces every periodic flush; any other value but 0 keeps
     * them default, with small buffers (flush_loop says why). The memory bound stays
     * MMPROF_MAX_BUFFERS x 2 MB whatever the buffers' size. Set before CUPTI can ask for one. */
    const char *forced = getenv("MMPROF_FLUSH_FORCED");
    bool safe = forced && *forced && strcmp(forced, "0") != 0;
    flusher.forced = safe && strcmp(forced, "force") == 0;
    buffer_bytes = buffer_bytes_env(safe && !flusher.forced);
    max_buffers = (unsigned)(((uint64_t)max_buffers_env() * BUFFER_BYTES + buffer_bytes - 1) / buffer_bytes);

    /* Subscribing first finds another tool holding CUPTI, before any kind is half enabled. */
    CUptiResult r = cuptiSubscribe(&subscriber, on_callback, NULL);
    if (r != CUPTI_SUCCESS) {
        inject_cupti_error("cuptiSubscribe", r);
        return 1;
    }
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    if (inject_counters_init())
        inject_counters_enable(subscriber);
    inject_sites_enable(subscriber);
    inject_memory_enable(subscriber);
    /* Kernel thread ids (gettid), the ids NVTX ranges and /proc carry. */
    cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) {
        inject_cupti_error("cuptiActivityRegisterCallbacks", r);
        return 1;
    }
    /* With a capture asked for, tracing starts with its first window (which an NVTX range may
     * already have opened); without one, now. */
    bool capture = inject_capture_init();
    inject_kinds_ready(!capture || inject_capture_tracing_now(), flush_soon);
    inject_capture_cuda_ready(subscriber);
    if (inject_kinds_collecting() || capture) {
        const char *debug = getenv("MMPROF_INJECT_DEBUG");
        flusher.debug = debug && *debug && strcmp(debug, "0") != 0;
        start_flusher(flush_period_ms(), capture);
        inject_catch_signals(inject_finish);
        inject_sampler_start();
    }
    return 1;
}
