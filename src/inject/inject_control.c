/* libmmprof_inject.so's side of the profile's control block (capture_control.h): the bytes this
 * process appends to its stream, added to the job's total for --max-size, and the commands of
 * `mmprof capture start|stop`, read by the flusher every period. A process whose profile has no
 * control block (an older launcher, a test harness) goes on as before: no cap, no commands. */
#include <pthread.h>
#include <stdlib.h>

#include "capture_control.h"
#include "inject.h"
#include "stream_format.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static capture_shared *shared;
static bool capped;      /* the cap was reached (this process saw it): NVTX lines stop */
static uint64_t seen;    /* the last command this process applied (0: none) */

static void map_block(void)
{
    const char *dir = getenv(STREAM_DIR_ENV);
    char why[256];
    if (dir && dir[0])
        shared = capture_control_map(dir, why, sizeof why);
}

static capture_shared *block(void)
{
    pthread_once(&once, map_block); /* a forked child inherits the mapping and the once */
    return shared;
}

void inject_control_wrote(size_t bytes)
{
    capture_shared *s = block();
    /* Without --max-size nothing reads the total: no atomic add on a line every process of the
     * job shares (ranks pushing NVTX ranges at a high rate would contend for it). */
    if (s && s->max_bytes > 0 && capture_control_add_bytes(s, bytes, inject_now_ns()))
        __atomic_store_n(&capped, true, __ATOMIC_RELAXED);
}

bool inject_control_capped(void)
{
    if (__atomic_load_n(&capped, __ATOMIC_RELAXED))
        return true;
    capture_shared *s = block();
    if (s && __atomic_load_n(&s->capped_ns, __ATOMIC_ACQUIRE) != 0) {
        __atomic_store_n(&capped, true, __ATOMIC_RELAXED);
        return true;
    }
    return false;
}

uint64_t inject_control_max_bytes(void)
{
    capture_shared *s = block();
    return s ? s->max_bytes : 0;
}

int64_t inject_control_capped_ns(void)
{
    capture_shared *s = block();
    return s ? __atomic_load_n(&s->capped_ns, __ATOMIC_ACQUIRE) : 0;
}

/* The last command: 1 start, 0 stop, -1 none yet; *word its command word. */
static int last_command(uint64_t *word)
{
    capture_shared *s = block();
    *word = s ? __atomic_load_n(&s->command, __ATOMIC_ACQUIRE) : 0;
    return *word == 0 ? -1 : (int)(*word & 1);
}

int inject_control_pending(uint64_t *number)
{
    uint64_t word;
    int c = last_command(&word);
    if (c < 0 || word == seen)
        return -1;
    seen = word;
    *number = word >> 1;
    return c;
}
