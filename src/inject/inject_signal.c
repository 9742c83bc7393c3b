/* libmmprof_inject.so's answer to a terminating signal. A process killed by SIGTERM, SIGINT or
 * SIGHUP with the default disposition runs no exit handler, so the records CUPTI held since the
 * last periodic flush were lost. That is how Python's multiprocessing Pool ends its workers
 * (Pool.terminate, and leaving a `with Pool(...)` block, send SIGTERM to each idle worker): on the
 * H200 such workers' kernels and copies were missing from the profile while their NVTX ranges,
 * written at once, were there.
 *
 * So, for each of those signals whose disposition is still the default when collection starts,
 * a handler of ours takes it: it only posts a semaphore (async-signal-safe) and returns; a thread
 * of ours waiting on that semaphore flushes (each wait bounded, as for _exit), marks the stream,
 * restores the default disposition and sends the signal again, so the process dies of it as it
 * would have, with the same exit status. A program that installs its own handler later replaces
 * ours and keeps its own behaviour. A forked child inherits the handler but not the thread: there
 * the handler restores the default and re-raises at once. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stddef.h>
#include <unistd.h>

#include "inject.h"
#include "thread_wait.h"

static const int handled[] = {SIGTERM, SIGINT, SIGHUP};
#define NHANDLED (sizeof handled / sizeof handled[0])

static sem_t posted;
static volatile sig_atomic_t caught;
static pid_t owner;

static void on_signal(int sig)
{
    if (getpid() != owner) { /* a forked child: no thread of ours here */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    if (caught) /* a second signal while flushing: the first one's default follows soon */
        return;
    caught = sig;
    int saved = errno;
    sem_post(&posted);
    errno = saved;
}

/* What the signal thread calls before the process dies of the signal: inject_cuda.c's
 * inject_finish, handed over rather than called by name, so this file stays beneath it. */
static void (*finish)(long wait_ms, int sig);

static void *signal_loop(void *arg)
{
    (void)arg;
    while (sem_wait(&posted) != 0 && errno == EINTR)
        ;
    int sig = caught;
    finish(INJECT_EXIT_FLUSH_MS, sig);
    signal(sig, SIG_DFL);
    kill(getpid(), sig); /* this thread blocks every signal: another thread takes it, and dies */
    return NULL;
}

void inject_catch_signals(void (*finish_fn)(long wait_ms, int sig))
{
    owner = getpid();
    finish = finish_fn;
    if (sem_init(&posted, 0, 0) != 0)
        return;
    /* The thread first, with every signal blocked in it, so it never runs the handler itself. */
    pthread_t t;
    if (thread_start_quiet(&t, signal_loop, NULL, "mmprof-signal") != 0)
        return;
    pthread_detach(t);
    for (size_t i = 0; i < NHANDLED; i++) {
        struct sigaction now;
        if (sigaction(handled[i], NULL, &now) != 0 || (now.sa_flags & SA_SIGINFO) || now.sa_handler != SIG_DFL)
            continue; /* the program's own choice (ignored, or its handler) stays */
        struct sigaction sa = {0};
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(handled[i], &sa, NULL);
    }
}
