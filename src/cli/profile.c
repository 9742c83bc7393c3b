/* The profile launcher. See profile.h.
 *
 * The program keeps its own stdin, stdout, stderr, arguments and environment (three variables
 * added, and the capture options' MMPROF_CAPTURE_* where given), and stays in mmprof's process
 * group, so the terminal's Ctrl-C reaches it directly;
 * mmprof ignores SIGINT and SIGQUIT while it waits and passes SIGTERM and SIGHUP on, then
 * reports what was recorded. */
#include "profile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture_control.h"
#include "sample_config.h"
#include "stream_format.h"
#include "stream_follow.h"
#include "stream_read.h"
#include "symbolize.h"
#include "stage_times.h"
#include "thread_wait.h"

#define INJECT_NAME "libmmprof_inject.so"

/* The injection library beside the binary (the build tree), then in ../lib/mmprof (installed). */
static bool find_library(char *out, size_t len, FILE *err)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        fprintf(err, "mmprof profile: cannot tell where mmprof is (/proc/self/exe): %s\n", strerror(errno));
        return false;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    const char *tails[] = {"/" INJECT_NAME, "/../lib/mmprof/" INJECT_NAME};
    char tried[2][PATH_MAX + 64];
    for (int i = 0; i < 2; i++) {
        snprintf(tried[i], sizeof tried[i], "%s%s", exe, tails[i]);
        if (access(tried[i], R_OK) == 0 && realpath(tried[i], out) && strlen(out) < len)
            return true;
    }
    fprintf(err, "mmprof profile: the injection library %s was not found; tried %s and %s\n", INJECT_NAME, tried[0],
            tried[1]);
    return false;
}

/* In the child, before exec: libmmprof_exit.so (beside the injection library) goes first in
 * LD_PRELOAD, so a process that leaves through _exit (Python multiprocessing workers) flushes its
 * last CUDA records; the program's own preloads stay after it. Without the file the run goes on:
 * such processes may then lose their last records, and the report says which. */
static bool preload_exit_hook(const char *inject_lib)
{
    char hook[PATH_MAX];
    const char *slash = strrchr(inject_lib, '/');
    int dir_len = slash ? (int)(slash - inject_lib) : 1;
    snprintf(hook, sizeof hook, "%.*s/libmmprof_exit.so", dir_len, slash ? inject_lib : ".");
    if (access(hook, R_OK) != 0)
        return true;
    const char *old = getenv("LD_PRELOAD");
    char value[2 * PATH_MAX];
    if (old && old[0])
        snprintf(value, sizeof value, "%s:%s", hook, old);
    else
        snprintf(value, sizeof value, "%s", hook);
    return setenv("LD_PRELOAD", value, 1) == 0;
}

/* Another profiler (Nsight Systems, Nsight Compute) injects through the same variables and holds
 * CUPTI; two in one process record nothing. */
static bool under_another_profiler(FILE *err)
{
    const char *vars[] = {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH"};
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(vars[i]);
        if (v && v[0]) {
            fprintf(err,
                    "mmprof profile: %s is already set (%s): another profiler is injecting into programs, and CUPTI "
                    "serves one at a time; run mmprof profile outside it, or unset the variable\n",
                    vars[i], v);
            return true;
        }
    }
    return false;
}

/* The forwarded signals go to the child, whose pid the handler reads. */
static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

typedef struct {
    struct sigaction intr, quit, term, hup;
} saved_signals;

static void catch_signals(saved_signals *s)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, fwd = {.sa_handler = forward};
    sigemptyset(&ign.sa_mask);
    sigemptyset(&fwd.sa_mask);
    fwd.sa_flags = SA_RESTART;
    sigaction(SIGINT, &ign, &s->intr);
    sigaction(SIGQUIT, &ign, &s->quit);
    sigaction(SIGTERM, &fwd, &s->term);
    sigaction(SIGHUP, &fwd, &s->hup);
}

static void restore_signals(const saved_signals *s)
{
    sigaction(SIGINT, &s->intr, NULL);
    sigaction(SIGQUIT, &s->quit, NULL);
    sigaction(SIGTERM, &s->term, NULL);
    sigaction(SIGHUP, &s->hup, NULL);
}

/* Starts argv with the injection variables set. Returns the child's pid, or -1 with *exec_errno
 * set when execvp failed (told through a close-on-exec pipe) or errno when fork did. */
/* In the child: what --counters asks of the injection library (inject_counters.c). */
static bool counters_env(const cli_options *o)
{
    if (!o->counters)
        return true;
    char max[24];
    snprintf(max, sizeof max, "%ld", o->counter_max);
    return setenv("MMPROF_COUNTERS", "1", 1) == 0 &&
           (!o->counter_kernels || setenv("MMPROF_COUNTERS_KERNELS", o->counter_kernels, 1) == 0) &&
           (o->counter_max <= 0 || setenv("MMPROF_COUNTERS_MAX", max, 1) == 0);
}

/* In the child: the host sampler's rate (sample_config.h). */
static bool sample_env(const cli_options *o)
{
    char hz[32];
    snprintf(hz, sizeof hz, "%g", o->sample_hz);
    return setenv(SAMPLE_ENV_HZ, hz, 1) == 0;
}

/* In the child: GPU memory collection, on unless --no-memory (inject_memory.c). */
static bool memory_env(const cli_options *o)
{
    return !o->no_memory || setenv("MMPROF_MEMORY", "0", 1) == 0;
}

static pid_t start_program(const cli_options *o, const capture_config *cap, const char *lib, const char *dir,
                           const saved_signals *saved, int *exec_errno)
{
    char **argv = o->command;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        *exec_errno = errno;
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        *exec_errno = errno;
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        restore_signals(saved); /* the program gets mmprof's own dispositions, not the waiting ones */
        /* The process the program starts in: libmmprof_exit.so's constructor starts sampling there
         * early where it is Python (exit_hook.c says why). */
        char early[24];
        snprintf(early, sizeof early, "%d", (int)getpid());
        if (setenv("CUDA_INJECTION64_PATH", lib, 1) == 0 && setenv("NVTX_INJECTION64_PATH", lib, 1) == 0 &&
            setenv("MMPROF_EARLY_PID", early, 1) == 0 &&
            setenv(STREAM_DIR_ENV, dir, 1) == 0 && counters_env(o) && sample_env(o) && memory_env(o) && capture_config_setenv(cap) &&
            preload_exit_hook(lib))
            execvp(argv[0], argv);
        int e = errno;
        ssize_t w = write(fds[1], &e, sizeof e);
        (void)w;
        _exit(EXIT_NOT_FOUND);
    }
    close(fds[1]);
    int e = 0;
    ssize_t r;
    while ((r = read(fds[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(fds[0]);
    if (r == (ssize_t)sizeof e) { /* exec failed: reap the child that said so */
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        *exec_errno = e;
        return -1;
    }
    return pid;
}

/* Removes the stream files and the directory (only files this run's processes wrote). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The command as one line, arguments separated by spaces. */
static char *join_command(char **argv)
{
    size_t len = 1;
    for (int i = 0; argv[i]; i++)
        len += strlen(argv[i]) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; argv[i]; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

/* "SIGSEGV"; a table rather than sigabbrev_np, which older C libraries lack. */
static const char *signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } t[] = {
        {SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},
        {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"}, {SIGILL, "SIGILL"}, {SIGHUP, "SIGHUP"}, {SIGQUIT, "SIGQUIT"},
        {SIGPIPE, "SIGPIPE"}, {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"}, {SIGXCPU, "SIGXCPU"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].sig == sig)
            return t[i].name;
    return "a signal";
}

/* An empty model of the program's run, before its records: false when memory ran out. */
static bool start_model(char **argv, int64_t launched, run_model *m)
{
    model_init(m);
    m->source = SOURCE_PROFILE;
    m->command_line = join_command(argv);
    copy_str(m->source_file, sizeof m->source_file, m->command_line ? m->command_line : ""); /* the report's header */
    time_t now = (time_t)(launched / 1000000000);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(m->started_at, sizeof m->started_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return m->command_line != NULL;
}

/* Native frames are named while the program runs, its modules loaded and the launcher idle, so
 * that its exit waits only for those of its last second: a pass (symbolize.h) on the follower's
 * thread when frames came that none has named, at most one per NAMING_GAP_S seconds (a start-up
 * brings new call paths for a while; each pass reads the symbol tables of the modules it names). */
#define NAMING_GAP_S 1.0

static void name_while_running(run_model *m, void *ctx)
{
    symbol_passes *o = ctx;
    host_activity *h = &m->host_activity;
    if (h->nframes <= o->named_upto || (o->last_pass > 0 && monotonic_seconds() - o->last_pass < NAMING_GAP_S))
        return;
    double t0 = monotonic_seconds();
    int from = o->named_upto;
    host_symbolize_new(h, o);
    stage_note("native frames %d-%d named while the program ran: %.3f s", from, h->nframes - 1,
               monotonic_seconds() - t0);
}

/* Fills m (start_model's, the followed stream read into it while the program ran) from the
 * streams in dir, its native frames named on a thread (passes: those named while it ran, handed
 * over); false when they could not be read. */
static bool build_model(char **argv, const char *dir, stream_follow *follow, symbol_passes *passes, int64_t launched,
                        int64_t ended, int wait_status, run_model *m, FILE *err)
{
    stream_summary s = {0};
    char msg[512];
    follow_result got = stream_follow_finish(follow, dir, m, &s, msg, sizeof msg);
    if (got == FOLLOW_AGAIN) { /* read once more, all of it, in pid order */
        symbol_passes_free(passes);
        if (passes)
            *passes = (symbol_passes){0};
        model_free(m);
        s = (stream_summary){0};
        got = start_model(argv, launched, m) && stream_read_dir(dir, m, &s, msg, sizeof msg) ? FOLLOW_READ
                                                                                             : FOLLOW_FAILED;
    }
    if (!m->command_line || got != FOLLOW_READ) {
        fprintf(err, "mmprof profile: reading the records: %s\n", m->command_line ? msg : "out of memory");
        symbol_passes_free(passes);
        free(passes);
        model_free(m);
        return false;
    }
    stage_mark("records read");
    /* The modules are still where the program loaded them. The last frames are named on a thread
     * while the regions and the analysis start: readers of names wait (host_names_wait). */
    host_symbolize_start(&m->host_activity, passes);
    m->collection.source = s.cuda_processes > 0 ? TIMING_CUPTI : TIMING_NONE;
    if (s.cuda_processes == 0) {
        copy_str(m->collection.reason, sizeof m->collection.reason, "the program made no CUDA calls");
        model_add_warning(m, "the program made no CUDA calls: no process it started initialised CUDA, so there are no "
                             "kernels or copies to report");
    }
    if (m->capture.asked[0] && m->capture.nwindows == 0)
        model_add_warning(m, "no capture window opened (asked: %s), so no CUDA activity was recorded: check the "
                             "range's name and domain, the delay against the program's run time, or (manual) that `mmprof "
                             "capture start` was given while it ran",
                          m->capture.asked);
    if (m->collection.dropped > 0)
        model_add_warning(m, "CUPTI dropped %llu records: the figures undercount", (unsigned long long)m->collection.dropped);
    if (WIFSIGNALED(wait_status)) {
        int sig = WTERMSIG(wait_status);
        model_add_warning(m, "%s was killed by %s: the report is partial; the last buffer of records may be lost",
                          argv[0], signal_name(sig));
    }
    const char *base = strrchr(argv[0], '/');
    if (!model_finish_regions(m, base ? base + 1 : argv[0])) {
        fprintf(err, "mmprof profile: out of memory while reading the records\n");
        model_free(m);
        return false;
    }
    stage_mark("regions");
    /* Nothing recorded: the run is the program's lifetime, so it still has a wall time and every
     * time sits near the epoch (JSON keeps times relative to it). */
    region *run = &m->regions[0];
    if (run->start_ns == 0 && run->end_ns == 0) {
        run->start_ns = launched;
        run->end_ns = ended;
    }
    m->epoch_ns = run->start_ns < launched ? run->start_ns : launched;
    return true;
}

/* --max-size reached: when, and what the windows it closed left unrecorded (their "after"
 * stretches and the CUDA calls counted there, per process). */
static void max_size_warning(run_model *m, const capture_shared *c, int64_t launched)
{
    int64_t at = __atomic_load_n(&c->capped_ns, __ATOMIC_ACQUIRE);
    if (at == 0)
        return;
    int64_t calls = 0, after_ns = 0;
    int windows = 0;
    for (int i = 0; i < m->capture.nwindows; i++) {
        const capture_window *w = &m->capture.windows[i];
        if (strcmp(w->ended, "max-size") != 0)
            continue;
        windows++;
        calls += w->calls_after > 0 ? w->calls_after : 0;
        after_ns = w->after_ns > after_ns ? w->after_ns : after_ns;
    }
    char after[256] = "";
    if (windows > 0)
        snprintf(after, sizeof after, "; %d capture window(s) closed there (reason max-size), after which the program "
                                      "ran %.3f s more and made %lld CUDA runtime call(s), counted but not recorded",
                 windows, (double)after_ns / 1e9, (long long)calls);
    char size[32], total[32];
    capture_size_words(c->max_bytes, size, sizeof size);
    capture_size_words(__atomic_load_n(&c->bytes, __ATOMIC_ACQUIRE), total, sizeof total);
    model_add_warning(m, "recording stopped at the --max-size cap: the record files reached %s %.3f s after launch "
                         "(%s in all at the end: the windows' closing marks and the records in flight then); nothing "
                         "after that is recorded, NVTX ranges included%s",
                      size, (double)(at - launched) / 1e9, total, after);
}

bool profile_program(const cli_options *o, run_model *m, int *status, FILE *err)
{
    char lib[PATH_MAX];
    if (under_another_profiler(err)) {
        *status = EXIT_USAGE;
        return false;
    }
    if (!find_library(lib, sizeof lib, err)) {
        *status = EXIT_PROFILE_FAILED;
        return false;
    }
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/mmprof-profile-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(err, "mmprof profile: cannot make a directory for the records (%s): %s\n", dir, strerror(errno));
        *status = EXIT_PROFILE_FAILED;
        return false;
    }
    /* The control block (capture_control.h), mapped here while the program runs so that
     * `mmprof capture` finds the directory from this pid (/proc/PID/maps). */
    char why[PATH_MAX + 64];
    capture_shared *control = NULL;
    if (!capture_control_create(dir, o->capture.mode == CAPTURE_MANUAL, o->capture.max_bytes, getpid(), why,
                                sizeof why) ||
        !(control = capture_control_map(dir, why, sizeof why))) {
        fprintf(err, "mmprof profile: cannot make the profile's control file: %s\n", why);
        remove_dir(dir);
        *status = EXIT_PROFILE_FAILED;
        return false;
    }
    if (o->capture.mode == CAPTURE_MANUAL)
        fprintf(err, "mmprof profile: recording is off until `mmprof capture start %d` (or the directory %s); "
                     "`mmprof capture stop %d` closes the window\n",
                (int)getpid(), dir, (int)getpid());
    int64_t launched = realtime_ns();
    int e = 0;
    saved_signals saved;
    fflush(NULL); /* nothing of ours buffered twice */
    /* Before the fork, so no Ctrl-C can fall between it and the wait. */
    catch_signals(&saved);
    /* --delay and --duration count from here, the launch, as nsys's do. */
    capture_config cap = o->capture;
    cap.start_ns = launched;
    if (!start_model(o->command, launched, m)) {
        restore_signals(&saved);
        capture_control_unmap(control);
        remove_dir(dir);
        model_free(m);
        fprintf(err, "mmprof profile: out of memory\n");
        *status = EXIT_PROFILE_FAILED;
        return false;
    }
    pid_t pid = start_program(o, &cap, lib, dir, &saved, &e);
    if (pid < 0) {
        model_free(m);
        restore_signals(&saved);
        capture_control_unmap(control);
        remove_dir(dir);
        fprintf(err, "mmprof profile: %s: %s\n", o->command[0], strerror(e));
        *status = e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
        return false;
    }
    child_pid = pid;
    /* After the fork: a child forked beside a running thread could find its locks held. */
    symbol_passes *passes = calloc(1, sizeof *passes); /* NULL: named after the exit, in one pass */
    stream_follow *follow = stream_follow_start(dir, m, passes ? name_while_running : NULL, passes);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    child_pid = 0;
    stage_mark("the program, to its exit");
    restore_signals(&saved);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    bool ok = build_model(o->command, dir, follow, passes, launched, realtime_ns(), st, m, err);
    if (ok)
        max_size_warning(m, control, launched);
    capture_control_unmap(control);
    if (ok && o->counters) {
        m->counters.asked = true;
        if (m->nlaunch_counters == 0)
            snprintf(m->counters.why, sizeof m->counters.why, "%s",
                     m->ndevices == 0     ? "the program used no GPU"
                     : o->counter_kernels ? "no launch of a kernel matching --kernels was profiled (warnings say why if one failed)"
                                          : "no kernel launch was profiled (warnings say why if one failed)");
    }
    remove_dir(dir);
    if (!ok)
        *status = EXIT_PROFILE_FAILED;
    return ok;
}
