/* Host sampling: what every thread of the profiled process was doing, a look every period
 * (profile --sample-rate HZ, default SAMPLE_DEFAULT_HZ; --no-sample turns it off). See docs/host-sampling.md for
 * the choice of mechanism and what was rejected.
 *
 * One thread of ours, the sampler, does all the work that is not async-signal-safe, and is the
 * only writer of samples:
 *  - Python processes: every period it reads every Python thread's stack, running or waiting,
 *    without taking the GIL once its first looks have checked how (inject_pylook.c): a wall-clock
 *    look, "sample ... py STATE" with the thread's state from /proc (S: sleeping in time.sleep or
 *    waiting on the GPU; R: running);
 *  - every process: each thread of the program has a CPU-time timer (timer_create on the thread's
 *    CPU clock, SIGEV_THREAD_ID to that thread) that fires each period of CPU time the thread
 *    used; its signal handler stores only the interrupted instruction's address, the thread and
 *    the time in a lock-free ring, which the sampler drains into "sample ... cpu R" lines. A
 *    CPU-time timer never fires on a sleeping thread, so it cannot cut a program's sleep short.
 *    Threads come and go: the sampler scans /proc/self/task every few periods.
 * The signal is a real-time one (SIGRTMIN + 4), installed only where the program has no handler
 * for it, with SA_RESTART; without it (or where timer_create is refused) the CPU timers are off
 * and the sampler line says why; the run goes on.
 *
 * With a capture option (profile --delay/--duration/--capture-range) samples are kept only while a
 * window is open. The sampler also writes the host buffer (sites and samples) to the stream every
 * FLUSH_MS, and so runs, at a slow period, even with sampling off.
 *
 * MMPROF_AB_FILE (the cost benchmark's knob, sample_config.h): while that file exists, the
 * sampler and call sites cost what --no-sample with MMPROF_SITES=0 costs: every thread's timer
 * disarmed (a dropped sample would still have cost its signal), no rescan of the threads, the
 * Python look only every OFF_PERIOD_MS to fill the code cache, as with sampling off, and the
 * sites' callbacks disabled (inject_sites_pause). The sampler looks for the file every
 * AB_CHECK_MS in both states (one access(2)), and writes an "abswitch TS on|off" line once a
 * switch is done, so the benchmark times only the steps that began after it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "inject.h"
#include "inject_host.h"
#include "stream_format.h"
#include "sample_config.h"
#include "thread_wait.h"

#define FLUSH_MS 100
#define OFF_PERIOD_MS 100   /* the sampler's period with sampling off: flushes, and fills the code cache */
#define RESCAN_MS 200       /* how often new threads get a CPU timer */
#define MAX_TIMED 1024      /* threads timed at once */
#define RING 4096           /* CPU samples waiting for the sampler (a power of two) */
#define AB_CHECK_MS 10      /* how often the sampler looks for MMPROF_AB_FILE */

/* ---- the signal handler's ring ---- */

typedef struct {
    uint64_t seq; /* slot's sequence + 1 once written */
    int64_t ts;
    uint64_t pc;
    uint32_t tid;
} ring_entry;

static ring_entry ring[RING];
static uint64_t ring_head, ring_tail; /* head: claimed by handlers; tail: drained by the sampler */
static uint64_t ring_dropped;
static int timer_signal;

static uint64_t interrupted_pc(void *uc)
{
    const ucontext_t *u = uc;
#if defined(__x86_64__)
    return (uint64_t)u->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uint64_t)u->uc_mcontext.pc;
#else
    (void)u;
    return 0;
#endif
}

/* Async-signal-safe: atomics, clock_gettime and the ucontext only. */
static void on_timer(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    if (si->si_code != SI_TIMER)
        return;
    int saved = errno;
    uint64_t h = __atomic_load_n(&ring_head, __ATOMIC_RELAXED);
    do {
        if (h - __atomic_load_n(&ring_tail, __ATOMIC_ACQUIRE) >= RING) {
            __atomic_fetch_add(&ring_dropped, 1, __ATOMIC_RELAXED);
            errno = saved;
            return;
        }
    } while (!__atomic_compare_exchange_n(&ring_head, &h, h + 1, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
    ring_entry *e = &ring[h & (RING - 1)];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    e->ts = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    e->pc = interrupted_pc(uc);
    e->tid = (uint32_t)si->si_value.sival_int;
    __atomic_store_n(&e->seq, h + 1, __ATOMIC_RELEASE);
    errno = saved;
}

/* ---- the sampler's state ---- */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop, running;
    pthread_t thread;
    uint32_t tid;        /* the sampler's own */
    double hz;           /* asked; 0 off */
    bool python, cpu;    /* the mechanisms running */
    bool py_pending;     /* Python is there, not yet initialised: look again (started with the process) */
    bool py_off;         /* MMPROF_SAMPLE_OFF=python: the look runs as with sampling off (it fills
                          * the code cache the sites name Python frames from), writing no sample */
    char why[256];       /* why one is off */
    bool announced;      /* the sampler line was written */
    struct {
        uint32_t tid;
        timer_t timer;
        bool seen;
    } timed[MAX_TIMED];
    int ntimed;
    int timer_errno;     /* the first refusal */
    uint64_t written;    /* samples written */
    const char *ab_path; /* MMPROF_AB_FILE: paused while it exists */
    bool paused;
    bool ab_memory;      /* MMPROF_AB_ONLY=memory: the file pauses GPU memory collection alone */
    bool ab_off;         /* the file existed at the last look */
} s = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static void add_why(const char *fmt, const char *what)
{
    size_t n = strlen(s.why);
    snprintf(s.why + n, sizeof s.why - n, "%s", n ? "; " : "");
    n = strlen(s.why);
    snprintf(s.why + n, sizeof s.why - n, fmt, what);
}

/* The thread's name starts with "mmprof-": one of ours (flusher, signal, capture, sampler). */
static bool ours(uint32_t tid)
{
    if (tid == s.tid)
        return true;
    char path[64], name[32] = "";
    snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return true; /* gone */
    ssize_t n = read(fd, name, sizeof name - 1);
    close(fd);
    name[n > 0 ? n : 0] = '\0';
    return strncmp(name, "mmprof-", 7) == 0;
}

bool inject_host_own_thread(uint32_t tid) { return ours(tid); }

uint64_t inject_sampler_signals(void)
{
    return __atomic_load_n(&ring_head, __ATOMIC_RELAXED) + __atomic_load_n(&ring_dropped, __ATOMIC_RELAXED);
}

/* A thread's CPU-time clock by its kernel id (Linux's encoding of a per-thread CPU clock, the one
 * glibc's pthread_getcpuclockid makes from a thread it created; ours come from /proc). */
static clockid_t thread_clock(uint32_t tid) { return (clockid_t)((~(unsigned)tid << 3) | 6); }

/* A timer's setting: every period of the thread's CPU time, or disarmed (0). */
static struct itimerspec timer_period(bool armed)
{
    long ns = armed ? (long)(1e9 / s.hz) : 0;
    return (struct itimerspec){.it_interval = {ns / 1000000000, ns % 1000000000}, .it_value = {ns / 1000000000, ns % 1000000000}};
}

static bool time_thread(uint32_t tid)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = timer_signal;
    ev.sigev_value.sival_int = (int)tid;
    ev._sigev_un._tid = (pid_t)tid;
    timer_t t;
    if (timer_create(thread_clock(tid), &ev, &t) != 0) {
        if (!s.timer_errno)
            s.timer_errno = errno;
        return false;
    }
    struct itimerspec it = timer_period(true);
    if (timer_settime(t, 0, &it, NULL) != 0) {
        if (!s.timer_errno)
            s.timer_errno = errno;
        timer_delete(t);
        return false;
    }
    s.timed[s.ntimed].tid = tid;
    s.timed[s.ntimed].timer = t;
    s.ntimed++;
    return true;
}

/* New threads get a timer; the timers of threads that ended are deleted. */
static void rescan_threads(void)
{
    for (int i = 0; i < s.ntimed; i++)
        s.timed[i].seen = false;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        uint32_t tid = (uint32_t)strtoul(e->d_name, NULL, 10);
        if (!tid)
            continue;
        int i = 0;
        while (i < s.ntimed && s.timed[i].tid != tid)
            i++;
        if (i < s.ntimed)
            s.timed[i].seen = true;
        else if (s.ntimed < MAX_TIMED && !ours(tid) && time_thread(tid))
            s.timed[s.ntimed - 1].seen = true;
    }
    closedir(d);
    for (int i = 0; i < s.ntimed;)
        if (!s.timed[i].seen) {
            timer_delete(s.timed[i].timer);
            s.timed[i] = s.timed[--s.ntimed];
        } else
            i++;
}

static void delete_timers(void)
{
    for (int i = 0; i < s.ntimed; i++)
        timer_delete(s.timed[i].timer);
    s.ntimed = 0;
}

/* MMPROF_AB_FILE: the file appeared (pause) or went away (resume). */
static void ab_check(void)
{
    bool exists = access(s.ab_path, F_OK) == 0;
    if (exists == s.ab_off)
        return;
    s.ab_off = exists;
    if (s.ab_memory) /* the memory benchmark (tests/memory_bench.cu): sampling and sites stay as asked */
        inject_memory_pause(exists);
    else
        s.paused = exists;
    if (s.cpu && !s.ab_memory) {
        struct itimerspec it = timer_period(!exists);
        for (int i = 0; i < s.ntimed; i++)
            timer_settime(s.timed[i].timer, 0, &it, NULL);
        if (!exists)
            rescan_threads(); /* threads that began during the pause */
    }
    if (!s.ab_memory)
        inject_sites_pause(exists);
    inject_host_lock();
    sb_printf(inject_host_out(), "abswitch\t%lld\t%s\n", (long long)inject_now_ns(), exists ? "off" : "on");
    inject_host_flush_locked(true); /* the benchmark reads it back; a switch is every 100 ms or so */
    inject_host_unlock();
}

/* The handler, where the program left the signal alone. */
static bool install_handler(void)
{
    timer_signal = SIGRTMIN + 4;
    struct sigaction now;
    if (sigaction(timer_signal, NULL, &now) != 0) {
        add_why("sigaction failed: %s", strerror(errno));
        return false;
    }
    if ((now.sa_flags & SA_SIGINFO) || now.sa_handler != SIG_DFL) {
        add_why("%s", "the program handles the timer signal (SIGRTMIN+4) itself: CPU-time timers off");
        return false;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_timer;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    if (sigaction(timer_signal, &sa, NULL) != 0) {
        add_why("sigaction failed: %s", strerror(errno));
        return false;
    }
    return true;
}

/* Under the host lock: the CPU samples the handlers stored, as sample lines (keep: inside a
 * capture window). */
static void drain_ring(bool keep)
{
    uint64_t t = ring_tail;
    for (;; t++) {
        ring_entry *e = &ring[t & (RING - 1)];
        if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != t + 1)
            break; /* empty, or a handler is still writing it */
        if (keep) {
            host_key k = {.a = e->pc, .kind = HOST_KEY_NATIVE};
            uint32_t node = inject_host_stack(&k, 1);
            stream_format_sample(inject_host_out(), e->ts, e->tid, node, HOST_SAMPLE_CPU, 'R');
            s.written++;
        }
        __atomic_store_n(&ring_tail, t + 1, __ATOMIC_RELEASE);
    }
}

static void announce(void)
{
    if (s.announced)
        return;
    s.announced = true;
    char mech[64] = "";
    bool py_samples = s.python && !s.py_off;
    if (py_samples)
        snprintf(mech, sizeof mech, "python-wall");
    if (s.cpu)
        snprintf(mech + strlen(mech), sizeof mech - strlen(mech), "%scpu-timer", mech[0] ? "+" : "");
    if (!mech[0] || s.hz == 0)
        snprintf(mech, sizeof mech, "off");
    const char *py_why = py_samples && s.hz > 0 ? inject_py_mode() : NULL;
    if (py_why)
        add_why("%s", py_why);
    const char *look_why = py_samples && s.hz > 0 ? inject_py_look_mode() : NULL;
    if (look_why)
        add_why("%s", look_why);
    inject_host_lock();
    stream_format_sampler(inject_host_out(), strcmp(mech, "off") ? s.hz : 0, mech, s.why);
    inject_host_unlock();
}

static void *sampler_loop(void *arg)
{
    (void)arg;
    s.tid = inject_tid();
    bool sampling = s.hz > 0;
    /* Not sampling (off, or paused): the period of the look that fills the code cache (every
     * OFF_PERIOD_MS), or of the look for the benchmark's file, which is then made every
     * AB_CHECK_MS in both states. */
    const long idle_ns = (s.ab_path ? AB_CHECK_MS : OFF_PERIOD_MS) * 1000000L;
    int64_t last_flush = 0, last_scan = 0, next_check = 0, next_idle_look = 0;
    if (s.ab_path)
        ab_check();
    if (sampling && s.cpu && !s.paused)
        rescan_threads();
    if (s.cpu && s.ntimed == 0 && s.timer_errno) {
        add_why("timer_create failed: %s", strerror(s.timer_errno));
        s.cpu = false;
    }
    if (!s.python && !s.py_pending)
        announce();
    int64_t next = inject_now_ns();
    pthread_mutex_lock(&s.lock);
    while (!s.stop) {
        long period_ns = sampling && !s.paused ? (long)(1e9 / s.hz) : idle_ns;
        next += period_ns;
        struct timespec at = {.tv_sec = next / 1000000000, .tv_nsec = next % 1000000000};
        while (!s.stop && pthread_cond_timedwait(&s.wake, &s.lock, &at) != ETIMEDOUT)
            ;
        if (s.stop)
            break;
        pthread_mutex_unlock(&s.lock);
        int64_t now = inject_now_ns();
        if (next < now - 10 * period_ns)
            next = now; /* fell behind (a long GIL wait): no burst to catch up */
        if (s.ab_path && next >= next_check) {
            ab_check();
            next_check = next + AB_CHECK_MS * 1000000L;
        }
        inject_sites_tick(now);
        bool window = inject_capture_tracing_now(), sampling_now = sampling && !s.paused;
        bool py_now = sampling_now && !s.py_off;
        /* Scheduled times, not the clock: every OFF_PERIOD_MS / period-th wake looks. */
        bool look = py_now || next >= next_idle_look;
        if (look && !py_now)
            next_idle_look = next + OFF_PERIOD_MS * 1000000L;
        if (s.py_pending && look) { /* started with the process: the interpreter initialises meanwhile */
            s.python = inject_py_present();
            s.py_pending = !s.python && inject_py_pending();
            if (!s.python && !s.py_pending)
                announce();
        }
        if (s.python && look && !inject_py_stopping()) {
            char why[160] = "";
            if (!inject_py_sample_all(py_now && window, why, sizeof why) && why[0] && !s.announced) {
                add_why("Python look: %s", why);
                s.python = false;
            }
            announce();
        }
        if (s.cpu && (!s.paused || __atomic_load_n(&ring_head, __ATOMIC_ACQUIRE) != ring_tail)) {
            inject_host_lock();
            drain_ring(window);
            inject_host_unlock();
        }
        if (s.cpu && !s.paused) {
            if (now - last_scan >= RESCAN_MS * 1000000L) {
                rescan_threads();
                last_scan = now;
            }
        }
        if (now - last_flush >= FLUSH_MS * 1000000L) {
            inject_host_flush();
            last_flush = now;
        }
        pthread_mutex_lock(&s.lock);
    }
    pthread_mutex_unlock(&s.lock);
    return NULL;
}

/* MMPROF_SAMPLE_HZ: the rate (profile --sample-rate); 0: off (profile --no-sample). Unset: the
 * default rate. Malformed: off, said in the sampler line. */
static double asked_rate(void)
{
    const char *v = getenv(SAMPLE_ENV_HZ);
    if (!v || !*v)
        return SAMPLE_DEFAULT_HZ;
    char *end;
    double hz = strtod(v, &end);
    if (*end || !(hz >= 0 && hz <= SAMPLE_MAX_HZ)) {
        add_why(SAMPLE_ENV_HZ "=%s is not a rate", v);
        return 0;
    }
    if (hz == 0)
        add_why("%s", "--no-sample");
    return hz;
}

void inject_sampler_start(void)
{
    if (s.running)
        return;
    s.hz = asked_rate();
    const char *ab = getenv(SAMPLE_ENV_AB);
    s.ab_path = ab && *ab ? ab : NULL;
    const char *only = getenv("MMPROF_AB_ONLY");
    s.ab_memory = s.ab_path && only && strcmp(only, "memory") == 0;
    if (s.ab_path && !s.ab_memory)
        add_why(SAMPLE_ENV_AB "=%s: off while the file exists", s.ab_path);
    const char *off = getenv(SAMPLE_ENV_OFF);
    bool python_off = off && strcmp(off, "python") == 0, cpu_off = off && strcmp(off, "cpu") == 0;
    if (python_off || cpu_off)
        add_why(SAMPLE_ENV_OFF "=%s", off);
    s.python = inject_py_present();
    s.py_pending = !s.python && inject_py_pending();
    s.py_off = python_off;
    s.cpu = s.hz > 0 && !cpu_off && install_handler();
    s.running = thread_start_quiet(&s.thread, sampler_loop, NULL, "mmprof-sampler") == 0;
    if (!s.running) {
        s.python = s.cpu = false;
        add_why("%s", "the sampler thread could not start");
        announce();
        inject_host_flush();
    }
}

void inject_host_finish(long wait_ms)
{
    if (s.running) {
        pthread_mutex_lock(&s.lock);
        s.stop = true;
        pthread_cond_signal(&s.wake);
        pthread_mutex_unlock(&s.lock);
        /* Past the bound the sampler is left waiting for the GIL (the interpreter ended it or
         * will): its lines so far are written below. */
        s.running = !thread_join_within(s.thread, wait_ms ? wait_ms : INJECT_EXIT_FLUSH_MS);
    }
    /* The handler stays: a signal already queued would otherwise kill the process. */
    delete_timers();
    inject_sites_finish();
    inject_host_lock();
    if (!s.running && s.cpu)
        drain_ring(inject_capture_tracing_now());
    if (!s.announced && s.hz > 0) {
        inject_host_unlock();
        announce();
        inject_host_lock();
    }
    inject_py_write_stats();
    uint64_t cut = inject_host_cut();
    if (cut)
        sb_printf(inject_host_out(), "error\thost call tree full (%u nodes): %llu stacks were cut at their deepest known frame\n",
                  HOST_TREE_MAX_NODES, (unsigned long long)cut);
    if (ring_dropped)
        sb_printf(inject_host_out(), "error\t%llu CPU samples were dropped: the sampler fell behind\n",
                  (unsigned long long)ring_dropped);
    inject_host_flush_locked(true);
    inject_host_unlock();
}
