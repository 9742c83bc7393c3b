/* The built-in run's counter pass. See gpu_counters.h; counters.h is the range profiler. */
#include "gpu_counters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "ranges.h"

/* The range profiler's session of this thread's context (a --devices run has a thread per GPU). */
static _Thread_local counter_session *session;

bool gpu_counters_open(run_model *m, char *why, size_t len)
{
    if (gpu_counter_flush_buffer(why, len) != 0)
        return false;
    session = counters_open(gpu_context(), gpu_device(), why, len);
    if (!session)
        return false;
    m->counters.passes = counters_passes(session);
    const char *verbose = getenv("MMPROF_COUNTERS_VERBOSE");
    if (verbose && verbose[0] == '1')
        counters_describe(session, stderr);
    return true;
}

void gpu_counters_close(void)
{
    if (!session)
        return;
    gpu_sync(); /* nothing of the profiler's in flight when it stops */
    counters_close(session);
    session = NULL;
}

/* The launch and the flush counters_collect calls, on the workload's buffers; a failure's message
 * goes to err (counters_collect gives its own reason). */
typedef struct {
    gpu_job *j;
    char err[256];
} pass_ctx;

static int counter_launch(void *ctx)
{
    pass_ctx *p = ctx;
    return gpu_launch_once(p->j, p->err, sizeof p->err);
}

static int counter_flush(void *ctx)
{
    pass_ctx *p = ctx;
    return gpu_l2_clean(p->err, sizeof p->err);
}

void gpu_counter_pass(gpu_job *j, workload_run *w)
{
    if (!session)
        return;
    pass_ctx ctx = {.j = j};
    phase *p = phase_begin(w, "counters", j->n);
    char why[256] = "";
    if (counters_collect(session, counter_launch, counter_flush, &ctx, w, why, sizeof why) != 0)
        snprintf(w->counters_why, sizeof w->counters_why, "%s", why);
    phase_end(p);
    /* The range profiler numbers its ranges; our own kernel has its name here (a library's is
     * named from its kernel records, gpu_counter_pass_records). */
    if (j->has_shape && w->ncounters == 1) {
        char *name = strdup(j->shape.name);
        if (name) {
            free(w->counters[0].name);
            w->counters[0].name = name;
        }
    }
}

/* True when a counter entry still has the range profiler's name for it, a range number. */
static bool numbered(const char *name)
{
    char *end;
    strtol(name, &end, 10);
    return name[0] && !*end;
}

/* The range profiler numbers its ranges: an entry still numbered (a library's kernel) takes the
 * name of the kernel launched at the same place in the compute phase's first product (the same
 * launches, in the same order). Any kernel record of the pass itself is dropped from the store: a
 * replayed launch times nothing; the "counters" phase stays. */
void gpu_counter_pass_records(run_model *m, workload_run *w)
{
    const phase *pass = workload_find_phase(w, "counters"), *compute = workload_find_phase(w, "compute");
    if (!pass || w->region <= 0)
        return;
    event_list *e = &m->events;
    size_t kept = 0;
    int named = 0;
    for (size_t i = 0; i < e->nkernels; i++) {
        kernel_event *k = &e->kernels[i];
        bool mine = k->region == w->region;
        if (mine && k->start_ns >= pass->start_ns && k->start_ns <= pass->end_ns)
            continue; /* its name is the store's (model.h) */
        e->kernels[kept++] = *k;
        if (mine && compute && k->start_ns >= compute->start_ns && k->start_ns <= compute->end_ns &&
            named < w->ncounters) {
            kernel_counters *c = &w->counters[named++];
            char *name = numbered(c->name) ? strdup(k->name) : NULL;
            if (name) {
                free(c->name);
                c->name = name;
            }
        }
    }
    e->nkernels = kept;
}
