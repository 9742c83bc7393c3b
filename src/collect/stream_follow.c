/* See stream_follow.h. */
#include "stream_follow.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "thread_wait.h"

/* How often the followed file is looked at (the directory, until the stream exists): a tenth of
 * a second leaves at most that much of the stream (a few hundred kilobytes on a busy PyTorch
 * loop) to read after the exit, for a stat per period. */
#define FOLLOW_PERIOD_MS 100
#define FOLLOW_NICE 10
/* Nothing is read in a program's first seconds: a short program's streams take milliseconds to
 * read after its exit, so following it gains nothing, and its start-up (CUDA's initialisation,
 * module loads, the first launches) has the machine to itself. */
#define FOLLOW_AFTER_MS 2000

struct stream_follow {
    const char *dir;
    run_model *m;
    follow_hook hook;
    void *ctx;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;          /* set by stream_follow_finish */
    stream_file *file;  /* the stream followed, once it exists */
    off_t read_to;      /* its size when last read */
    bool failed;        /* memory ran out reading it */
    char err[512];
};

/* Reads what the followed file gained since the last look; opens the lowest pid's file first. */
static void follow_once(stream_follow *f)
{
    if (!f->file) {
        size_t n;
        char **names = stream_names(f->dir, &n, f->err, sizeof f->err);
        if (names && n > 0) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", f->dir, names[0]);
            f->file = stream_file_open(path, f->m, f->err, sizeof f->err);
        }
        stream_names_free(names, n);
        if (!f->file)
            return; /* none yet (or it vanished): looked for again next time */
    }
    struct stat st;
    if (stat(stream_file_path(f->file), &st) != 0 || st.st_size == f->read_to)
        return;
    f->read_to = st.st_size;
    if (!stream_file_feed(f->file, false)) {
        f->failed = true;
        snprintf(f->err, sizeof f->err, "%s: out of memory", stream_file_path(f->file));
        return;
    }
    if (f->hook)
        f->hook(f->m, f->ctx);
}

static void *follow_thread(void *p)
{
    stream_follow *f = p;
    /* Below the program it follows: when cores are short, its threads go first (the naming the
     * hook does, its threads and addr2line processes, inherit this). Linux's nice is per thread. */
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), FOLLOW_NICE);
    pthread_mutex_lock(&f->lock);
    struct timespec begin = realtime_after_ms(FOLLOW_AFTER_MS);
    while (!f->stop && pthread_cond_timedwait(&f->wake, &f->lock, &begin) != ETIMEDOUT)
        ;
    while (!f->stop && !f->failed) {
        pthread_mutex_unlock(&f->lock);
        follow_once(f);
        pthread_mutex_lock(&f->lock);
        struct timespec until = realtime_after_ms(FOLLOW_PERIOD_MS);
        while (!f->stop && pthread_cond_timedwait(&f->wake, &f->lock, &until) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&f->lock);
    return NULL;
}

stream_follow *stream_follow_start(const char *dir, run_model *m, follow_hook hook, void *ctx)
{
    stream_follow *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    *f = (stream_follow){.dir = dir, .m = m, .hook = hook, .ctx = ctx, .read_to = -1};
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->wake, NULL);
    /* The thread takes no signals (it inherits this mask): the launcher's handlers forward them to
     * the program, and its reads are best not interrupted. */
    int rc = thread_start_quiet(&f->thread, follow_thread, f, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&f->wake);
        pthread_mutex_destroy(&f->lock);
        free(f);
        return NULL;
    }
    return f;
}

follow_result stream_follow_finish(stream_follow *f, const char *dir, run_model *m, stream_summary *s, char *err,
                                   size_t errlen)
{
    stream_file *first = NULL;
    if (f) {
        pthread_mutex_lock(&f->lock);
        f->stop = true;
        pthread_cond_signal(&f->wake);
        pthread_mutex_unlock(&f->lock);
        pthread_join(f->thread, NULL);
        first = f->file;
        bool failed = f->failed;
        if (failed)
            snprintf(err, errlen, "%s", f->err);
        pthread_cond_destroy(&f->wake);
        pthread_mutex_destroy(&f->lock);
        free(f);
        if (failed) {
            if (first) {
                stream_summary ignored = {0};
                char e2[64];
                stream_file_close(first, &ignored, e2, sizeof e2);
            }
            return FOLLOW_FAILED;
        }
    }
    bool again = false;
    if (stream_read_dir_from(dir, first, &again, m, s, err, errlen))
        return FOLLOW_READ;
    return again ? FOLLOW_AGAIN : FOLLOW_FAILED;
}
