/* The injection library's stream file: one per process, appended with whole lines. See inject.h.
 *
 * Raw write(2) on an O_APPEND descriptor, not stdio: a line reaches the file the moment it is
 * written, so a process that ends through _exit (Python's multiprocessing workers do) or a
 * signal loses only what CUPTI had not yet handed over; and a forked child, which inherits the
 * descriptor, notices the pid change and opens its own file instead of writing into its
 * parent's. */
#include "inject.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rank_env.h"
#include "stream_format.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1;
/* Bumped in every forked child, so per-process state (the file, thread ids and names) is known to
 * be the parent's without a getpid() system call on every NVTX range. */
static unsigned fork_gen;
static unsigned fd_gen;   /* the fork generation fd was opened in */
static bool failed;       /* opening failed in this process: do not retry on every line */

/* Thread ids already named in this process (bounded: past the table, threads go unnamed). */
#define MAX_NAMED 1024
static uint32_t named[MAX_NAMED];
static int nnamed;

/* A fork while another thread holds the lock would leave it held forever in the child. */
static void before_fork(void) { pthread_mutex_lock(&lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&lock); }
static void after_fork_child(void)
{
    fork_gen++;
    pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void stream_setup(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

int64_t inject_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The thread's id and whether it was named, cached per thread for the fork generation. */
static __thread unsigned tid_gen = ~0u, named_gen = ~0u;
static __thread uint32_t tid_cached;

uint32_t inject_tid(void)
{
    if (tid_gen != fork_gen) {
        tid_cached = (uint32_t)syscall(SYS_gettid);
        tid_gen = fork_gen;
    }
    return tid_cached;
}

static bool write_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* The process line: pid, parent, start and /proc/self/cmdline with its NULs as spaces. */
static void process_line(strbuf *b, pid_t pid)
{
    sb_printf(b, "%s\t%d\n", STREAM_MAGIC, STREAM_VERSION);
    sb_printf(b, "process\t%d\t%d\t%lld\t", (int)pid, (int)getppid(), (long long)inject_now_ns());
    char cmd[4096];
    size_t n = 0;
    int cfd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (cfd >= 0) {
        ssize_t r;
        while (n < sizeof cmd - 1 && (r = read(cfd, cmd + n, sizeof cmd - 1 - n)) > 0)
            n += (size_t)r;
        close(cfd);
    }
    while (n > 0 && cmd[n - 1] == '\0')
        n--;
    for (size_t i = 0; i < n; i++)
        if (cmd[i] == '\0')
            cmd[i] = ' ';
    cmd[n] = '\0';
    stream_escape(b, cmd);
    sb_add(b, "\n");
    /* The rank a launcher gave it (torchrun's workers under one `mmprof profile`), and the host. */
    rank_env re;
    rank_env_read(&re);
    sb_printf(b, "rank\t%d\t%d\t%d\t", re.rank, re.world_size, re.local_rank);
    stream_escape(b, re.source);
    sb_add(b, "\t");
    stream_escape(b, re.host);
    sb_add(b, "\n");
}

/* Called with lock held. */
static bool open_stream(void)
{
    if (fd >= 0 && fd_gen == fork_gen)
        return true;
    if (fd_gen != fork_gen) { /* a forked child: the descriptor and names are the parent's */
        if (fd >= 0)
            close(fd);
        fd = -1;
        failed = false;
        nnamed = 0;
        fd_gen = fork_gen;
    }
    pid_t pid = getpid();
    if (failed)
        return false;
    const char *dir = getenv(STREAM_DIR_ENV);
    char path[4096];
    if (!dir || !dir[0] || snprintf(path, sizeof path, "%s/%d%s", dir, (int)pid, STREAM_SUFFIX) >= (int)sizeof path) {
        failed = true;
        return false;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        /* A process outliving `mmprof profile` finds the directory gone: nothing to say then. */
        if (errno != ENOENT)
            fprintf(stderr, "mmprof: cannot write the profile stream %s: %s\n", path, strerror(errno));
        failed = true;
        return false;
    }
    strbuf head;
    sb_init(&head);
    process_line(&head, pid);
    bool ok = !head.oom && write_all(head.s, head.len);
    if (ok)
        inject_control_wrote(head.len);
    sb_free(&head);
    return ok;
}

bool inject_emit(strbuf *b)
{
    bool ok = false;
    pthread_mutex_lock(&lock);
    if (!b->oom && b->len > 0 && open_stream())
        ok = write_all(b->s, b->len);
    pthread_mutex_unlock(&lock);
    if (ok)
        inject_control_wrote(b->len); /* --max-size counts the job's bytes */
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
    return ok;
}

void inject_name_this_thread(strbuf *b)
{
    if (named_gen == fork_gen)
        return;
    named_gen = fork_gen;
    inject_thread_name(b, inject_tid());
}

void inject_thread_name(strbuf *b, uint32_t tid)
{
    pthread_mutex_lock(&lock);
    if (fd_gen != fork_gen) { /* a forked child that has not written yet */
        nnamed = 0;
    }
    bool seen = false;
    for (int i = 0; i < nnamed && !seen; i++)
        seen = named[i] == tid;
    if (!seen && nnamed < MAX_NAMED)
        named[nnamed++] = tid;
    pthread_mutex_unlock(&lock);
    if (seen)
        return;
    char path[64], name[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
    FILE *f = fopen(path, "re");
    if (f) {
        if (!fgets(name, sizeof name, f))
            name[0] = '\0';
        fclose(f);
    }
    name[strcspn(name, "\n")] = '\0';
    sb_printf(b, "thread\t%u\t", tid);
    stream_escape(b, name);
    sb_add(b, "\n");
}
