/* Progress on a terminal (progress.h). */
#include "progress.h"

#include <time.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void progress_init(progress *p, FILE *out, bool on, int steps, int n)
{
    *p = (progress){out, on && out, 0, steps, n, now_ns()};
}

void progress_step(progress *p, const char *what)
{
    if (!p->on)
        return;
    p->step++;
    /* \r and erase-line: the step replaces the previous one on the same line. */
    fprintf(p->out, "\r\033[Kmmprof: [%d/%d] %s, n = %d (%.0f s so far)", p->step, p->steps, what, p->n,
            (double)(now_ns() - p->t0_ns) / 1e9);
    fflush(p->out);
}

void progress_done(progress *p)
{
    if (!p->on)
        return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
}
