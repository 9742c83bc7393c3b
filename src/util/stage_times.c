/* Stage times on stderr under MMPROF_TIMINGS (stage_times.h). */
#include "stage_times.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "spill.h"
#include "thread_wait.h"

bool stage_times_on(void)
{
    const char *e = getenv("MMPROF_TIMINGS");
    return e && *e && *e != '0';
}

void stage_note(const char *fmt, ...)
{
    if (!stage_times_on())
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "mmprof: stage   %s\n", line); /* one write: lines of threads stay whole */
}

/* The process's peak RSS so far, -1 where it cannot be had. */
static long peak_rss_mb(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss / 1024 : -1;
}

/* The process's anonymous memory now (RssAnon: what no file backs, so what no pressure can page
 * out without swap), -1 where it cannot be had. */
static long anon_rss_mb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    long kb = -1;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "RssAnon: %ld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb < 0 ? -1 : kb / 1024;
}

void stage_lap(double *since, const char *what)
{
    if (!stage_times_on())
        return;
    double t = monotonic_seconds();
    if (*since > 0)
        stage_note("%s: %.3f s, peak RSS %ld MB (anonymous now %ld MB)", what, t - *since, peak_rss_mb(), anon_rss_mb());
    *since = t;
}

void stage_mark(const char *what)
{
    static int enabled = -1;
    static double first, last;
    if (enabled < 0) {
        enabled = stage_times_on();
        first = last = monotonic_seconds();
    }
    if (!enabled)
        return;
    double t = monotonic_seconds();
    fprintf(stderr, "mmprof: stage %s: %.3f s (%.3f s in all), peak RSS %ld MB (anonymous now %ld MB, in spill files %zu MB)\n",
            what, t - last, t - first, peak_rss_mb(), anon_rss_mb(), spill_file_bytes() >> 20);
    last = t;
}

static void beside_timed(stage_beside *s)
{
    double lap = 0;
    stage_lap(&lap, "");
    s->fn(s->arg);
    stage_lap(&lap, s->what);
}

static void *beside_thread(void *p)
{
    beside_timed(p);
    return NULL;
}

void stage_beside_start(stage_beside *s, void (*fn)(void *arg), void *arg, const char *what)
{
    *s = (stage_beside){.fn = fn, .arg = arg, .what = what};
    s->apart = pthread_create(&s->thread, NULL, beside_thread, s) == 0;
}

void stage_beside_wait(stage_beside *s)
{
    if (s->apart)
        pthread_join(s->thread, NULL);
    else
        beside_timed(s);
    s->apart = false;
}
