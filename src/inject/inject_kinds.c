/* Which CUPTI activity kinds are on (docs/architecture.md): the record kinds cupti_records.c reads,
 * and the memory kinds with them unless memory collection is off or paused, turned on and off as
 * capture windows open and close (inject_capture.c) and as the memory benchmark pauses
 * (inject_memory.c). Beneath inject_cuda.c, which makes them ready once CUPTI's buffer callbacks
 * are registered and hands over a way to flush soon; nothing here calls up into it. */
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti_records.h"
#include "inject.h"
#include "cupti_load.h" /* last: its macros rename the CUPTI calls below */

void inject_cupti_error(const char *what, CUptiResult r)
{
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "error\t%s: %s\n", what, cupti_result_name(r));
    inject_emit(&b);
    sb_free(&b);
}

/* Capture windows: activity kinds on only inside them (inject_capture.c); ready once the buffer
 * callbacks are registered (InitializeInjection). */
static struct {
    pthread_mutex_t lock;
    bool ready;   /* the buffer callbacks are registered: kinds can be enabled */
    bool on;      /* the kinds are enabled */
    bool want;    /* what inject_set_tracing last asked */
    bool reported; /* the kinds that failed to enable were reported once */
    bool collecting; /* at least one activity kind was enabled */
    bool memory;   /* the memory kinds wanted with the others (inject_memory_kinds) */
    pid_t owner;   /* the process that made them ready (see inject_set_tracing) */
    void (*flush_soon)(void);
} tracing = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Under tracing.lock: the kinds of a table enabled, each failure reported once. */
static bool enable_table(const activity_kind *kinds, int n)
{
    bool any = false;
    for (int i = 0; i < n; i++) {
        CUptiResult r = cuptiActivityEnable(kinds[i].kind);
        if (r == CUPTI_SUCCESS) {
            any = true;
            continue;
        }
        if (tracing.reported)
            continue;
        char what[96];
        snprintf(what, sizeof what, "cuptiActivityEnable(%s)", kinds[i].name);
        inject_cupti_error(what, r);
    }
    return any;
}

/* MMPROF_MEMORY_RECORDS, a measurement knob: which of the memory record kinds are enabled, by
 * their names in cupti_memory_kinds ("MEMORY2", "MEMORY_POOL", both joined by a comma), or "none"
 * (the allocation calls' callbacks alone); unset, every one. It exists to tell each kind's cost
 * per stream-ordered allocation apart (examples/memory_bench, tests/alloc_cost_gpu.sh,
 * docs/memory.md). */
static bool memory_kind_wanted(const activity_kind *k)
{
    const char *v = getenv("MMPROF_MEMORY_RECORDS");
    if (!v || !*v)
        return true;
    size_t n = strlen(k->name);
    for (const char *p = v; (p = strstr(p, k->name)) != NULL; p += n)
        if ((p == v || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return true;
    return false;
}

/* Under tracing.lock: the memory kinds on or off; those MMPROF_MEMORY_RECORDS leaves out are left
 * alone, never disabled while the others are on: disabling MEMORY_POOL after enabling MEMORY2 turns
 * CUPTI's memory records off altogether (seen on the H200, CUDA 13.0: no allocation recorded, which
 * read as "MEMORY2 costs nothing"). */
static void memory_table(bool on)
{
    for (int i = 0; i < cupti_memory_nkinds; i++) {
        if (!on)
            cuptiActivityDisable(cupti_memory_kinds[i].kind);
        else if (memory_kind_wanted(&cupti_memory_kinds[i]))
            enable_table(&cupti_memory_kinds[i], 1);
    }
}

/* Under tracing.lock. The memory kinds with the others, where memory collection wants them. */
static void enable_kinds(void)
{
    bool any = enable_table(cupti_record_kinds, cupti_record_nkinds);
    if (tracing.memory)
        memory_table(true);
    tracing.reported = true;
    tracing.on = true;
    if (any)
        __atomic_store_n(&tracing.collecting, true, __ATOMIC_RELEASE);
}

static void disable_kinds(void)
{
    for (int i = 0; i < cupti_record_nkinds; i++)
        cuptiActivityDisable(cupti_record_kinds[i].kind);
    for (int i = 0; i < cupti_memory_nkinds; i++)
        cuptiActivityDisable(cupti_memory_kinds[i].kind);
    tracing.on = false;
}

void inject_memory_kinds(bool on)
{
    pthread_mutex_lock(&tracing.lock);
    tracing.memory = on;
    if (tracing.on)
        memory_table(on);
    pthread_mutex_unlock(&tracing.lock);
}

void inject_set_tracing(bool on)
{
    /* Before the lock: a forked child may have inherited it held, and CUPTI is the parent's. */
    if (__atomic_load_n(&tracing.ready, __ATOMIC_ACQUIRE) && getpid() != tracing.owner)
        return;
    pthread_mutex_lock(&tracing.lock);
    tracing.want = on;
    if (tracing.ready && on && !tracing.on) {
        enable_kinds();
    } else if (tracing.ready && !on && tracing.on) {
        disable_kinds();
        if (tracing.flush_soon)
            tracing.flush_soon();
    }
    pthread_mutex_unlock(&tracing.lock);
}

void inject_kinds_ready(bool now, void (*flush_soon)(void))
{
    pthread_mutex_lock(&tracing.lock);
    tracing.owner = getpid();
    tracing.flush_soon = flush_soon;
    __atomic_store_n(&tracing.ready, true, __ATOMIC_RELEASE);
    if (now || tracing.want)
        enable_kinds();
    pthread_mutex_unlock(&tracing.lock);
}

/* Without the lock: read at exit and from the signal thread, where a thread that held it may be
 * gone; it only ever turns true, at InitializeInjection. */
bool inject_kinds_collecting(void) { return __atomic_load_n(&tracing.collecting, __ATOMIC_ACQUIRE); }
