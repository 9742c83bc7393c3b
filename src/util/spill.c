/* See spill.h. The mappings are few (the event kinds, the text, a handful of analysis arrays), so
 * a small table under a mutex tells a file's array from a heap one: no header before the data,
 * and a heap array stays a plain malloc pointer. */
#include "spill.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "scratch_file.h"

size_t spill_min_bytes = SPILL_MIN_BYTES;

#define MAPS 256

typedef struct {
    void *p;      /* NULL: a free slot */
    size_t bytes; /* mapped, a whole number of pages */
    int fd;
} mapping;

static mapping maps[MAPS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

/* MMPROF_SPILL_MIN (bytes) in place of the default: a small machine's user may lower it, and the
 * tests put every array of a report through the files. */
static void read_env(void)
{
    const char *v = getenv("MMPROF_SPILL_MIN");
    char *end;
    unsigned long long n = v && *v ? strtoull(v, &end, 10) : 0;
    if (v && *v && *end == '\0')
        spill_min_bytes = (size_t)n;
}

/* The slot holding p (NULL: a free slot), or -1; under lock. */
static int find(const void *p)
{
    for (int i = 0; i < MAPS; i++)
        if (maps[i].p == p)
            return i;
    return -1;
}

static size_t pages(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return bytes > SIZE_MAX - page ? 0 : (bytes + page - 1) / page * page;
}

/* TMPDIR, else /var/tmp: kept on disk by convention, where /tmp is often memory (tmpfs), which
 * would make the file anonymous memory again. */
static const char *dir(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && tmp[0] ? tmp : "/var/tmp";
}

/* Room for bytes in fd's file, its blocks taken now, so that a write to the mapping cannot meet
 * a full disk later (that would be SIGBUS, not an error). */
static bool reserve(int fd, size_t bytes)
{
    return posix_fallocate(fd, 0, (off_t)bytes) == 0;
}

/* A heap array holding p's first used bytes with room for bytes, p unmapped (slot i freed); NULL
 * when memory ran out. */
static void *back_to_heap(int i, size_t used, size_t bytes)
{
    void *q = malloc(bytes ? bytes : 1);
    if (!q)
        return NULL;
    memcpy(q, maps[i].p, used);
    munmap(maps[i].p, maps[i].bytes);
    close(maps[i].fd);
    maps[i] = (mapping){0};
    return q;
}

/* A new file's array holding p's first used bytes, with room for bytes; NULL when no file could
 * be made, grown or mapped, or the table is full. */
static void *to_file(void *p, size_t used, size_t bytes)
{
    int slot = find(NULL);
    size_t len = pages(bytes);
    if (slot < 0 || len == 0)
        return NULL;
    int fd = scratch_open(dir());
    if (fd < 0)
        return NULL;
    /* In memory already (tmpfs, ramfs): its blocks, reserved whole, would cost more than the heap's
     * pages, which are only those touched. */
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0 || fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC) {
        close(fd);
        return NULL;
    }
    void *q = reserve(fd, len) ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (q == MAP_FAILED) {
        close(fd);
        return NULL;
    }
    if (used)
        memcpy(q, p, used);
    free(p);
    maps[slot] = (mapping){.p = q, .bytes = len, .fd = fd};
    return q;
}

void *spill_resize(void *p, size_t used, size_t bytes)
{
    pthread_once(&env_once, read_env);
    pthread_mutex_lock(&lock);
    int i = p ? find(p) : -1;
    void *q = NULL;
    if (i >= 0 && bytes <= maps[i].bytes) {
        q = p;
    } else if (i >= 0) {
        size_t len = pages(bytes);
        q = len && reserve(maps[i].fd, len) ? mremap(p, maps[i].bytes, len, MREMAP_MAYMOVE) : MAP_FAILED;
        if (q != MAP_FAILED) {
            maps[i].p = q;
            maps[i].bytes = len;
        } else {
            q = back_to_heap(i, used, bytes);
        }
    } else if (bytes >= spill_min_bytes) {
        q = to_file(p, used, bytes);
    }
    if (!q && i < 0)
        q = realloc(p, bytes ? bytes : 1);
    pthread_mutex_unlock(&lock);
    return q;
}

void *spill_alloc(size_t bytes) { return spill_resize(NULL, 0, bytes); }

void *spill_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    pthread_once(&env_once, read_env);
    if (n * size < spill_min_bytes)
        return calloc(n ? n : 1, size ? size : 1);
    void *p = spill_alloc(n * size);
    if (p && !spill_in_file(p)) /* a file's new pages read as zeros; the heap's fallback's do not */
        memset(p, 0, n * size);
    return p;
}

void spill_free(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&lock);
    int i = find(p);
    if (i >= 0) {
        munmap(maps[i].p, maps[i].bytes);
        close(maps[i].fd);
        maps[i] = (mapping){0};
    }
    pthread_mutex_unlock(&lock);
    if (i < 0)
        free(p);
}

bool spill_in_file(const void *p)
{
    pthread_mutex_lock(&lock);
    bool in = p && find(p) >= 0;
    pthread_mutex_unlock(&lock);
    return in;
}

size_t spill_file_bytes(void)
{
    size_t sum = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAPS; i++)
        sum += maps[i].p ? maps[i].bytes : 0;
    pthread_mutex_unlock(&lock);
    return sum;
}
