/* Per-step figures of a PyTorch training loop whose backward pass runs on autograd's own thread,
 * recorded on the H200 (examples/torch_train.py: forward, backward, SGD step, one NVTX range and
 * one record_function "step N" per iteration): under mmprof profile
 * (samples/h200-profile-train.json) and as torch.profiler's trace (samples/h200-train.kineto.json).
 *
 * Each step's figures are computed here again from the events alone, by the rules regions.h
 * states, and compared with the analysis: the kernels launched while the step was open by any
 * thread of its process (the launching call found by correlation id), their summed time, and the
 * GPU busy share inside the step's wall (the union of its process's kernels, copies and memsets).
 * The host queues a whole step in 2 ms while the GPU needs 15 ms for it, so after the first steps
 * the GPU is busy all through every step's wall. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze.h"
#include "import.h"
#include "model_json.h"
#include "test_support.h"

typedef struct {
    int64_t s, e;
} span;

static int by_start(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return (x->s > y->s) - (x->s < y->s);
}

/* The union of the process's GPU intervals clipped to [s, e), in ns. */
static int64_t busy_ns(const run_model *m, uint32_t pid, int64_t s, int64_t e)
{
    const event_list *ev = &m->events;
    size_t cap = ev->nkernels + ev->ncopies + ev->nmemsets, n = 0;
    span *v = calloc(cap ? cap : 1, sizeof *v);
    assert_non_null(v);
#define CLIP(x)                                                                                         \
    if ((x).pid == pid && (x).end_ns > s && (x).start_ns < e)                                           \
        v[n++] = (span){(x).start_ns < s ? s : (x).start_ns, (x).end_ns > e ? e : (x).end_ns};
    for (size_t i = 0; i < ev->nkernels; i++)
        CLIP(ev->kernels[i]);
    for (size_t i = 0; i < ev->ncopies; i++)
        CLIP(ev->copies[i]);
    for (size_t i = 0; i < ev->nmemsets; i++)
        CLIP(ev->memsets[i]);
#undef CLIP
    qsort(v, n, sizeof *v, by_start);
    int64_t total = 0, cs = 0, ce = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || v[i].s > ce) {
            total += ce - cs;
            cs = v[i].s, ce = v[i].e;
        } else if (v[i].e > ce) {
            ce = v[i].e;
        }
    }
    total += ce - cs;
    free(v);
    return total;
}

/* The launching call of kernel k: the API call of its process with its correlation id. */
static const api_event *launch_of(const run_model *m, const kernel_event *k)
{
    for (size_t i = 0; i < m->events.napis; i++) {
        const api_event *c = &m->events.apis[i];
        if (c->correlation == k->correlation && c->pid == k->pid && k->correlation != 0)
            return c;
    }
    return NULL;
}

/* Checks every "step N" region of kind kind; returns how many. */
static int check_steps(const run_model *m, const analysis *a, region_kind kind)
{
    int steps = 0, other_thread_steps = 0;
    for (int ri = 0; ri < m->nregions; ri++) {
        const region *r = &m->regions[ri];
        if (r->kind != kind || strncmp(r->name, "step ", 5) != 0)
            continue;
        const region_metrics *g = &a->rg[ri];
        int count = 0, from_other = 0;
        double kernel_ms = 0;
        for (size_t i = 0; i < m->events.nkernels; i++) {
            const kernel_event *k = &m->events.kernels[i];
            const api_event *c = launch_of(m, k);
            if (!c || c->pid != r->pid || c->start_ns < r->start_ns || c->start_ns >= r->end_ns)
                continue;
            count++;
            from_other += c->thread != r->tid;
            kernel_ms += (double)(k->end_ns - k->start_ns) / 1e6;
        }
        if (g->nkernels != count)
            fail_msg("%s: %d kernels in the analysis, %d launched while it was open", r->name, g->nkernels, count);
        assert_true(g->kernel_ms.ok);
        assert_close(g->kernel_ms.v, kernel_ms, 1e-9);
        double wall = (double)(r->end_ns - r->start_ns);
        double busy = 100.0 * (double)busy_ns(m, r->pid, r->start_ns, r->end_ns) / wall;
        assert_true(g->busy_pct.ok);
        assert_close(g->busy_pct.v, busy, 1e-9);
        /* The step number: from the third step on the GPU runs back to back. */
        if (atoi(r->name + 5) >= 2 && busy < 90)
            fail_msg("%s: busy %.1f%% of its wall; the GPU ran back to back", r->name, busy);
        if (atoi(r->name + 5) >= 2 && g->verdict == VERDICT_IDLE)
            fail_msg("%s is called GPU idle", r->name);
        assert_true(count > 0);
        other_thread_steps += from_other > 0;
        steps++;
    }
    /* The backward pass is another thread's: every step holds some of its kernels. */
    assert_int_equal(other_thread_steps, steps);
    return steps;
}

static void profiled_loop(void **state)
{
    (void)state;
    run_model m;
    load_run("samples/h200-profile-train.json", &m);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_int_equal(check_steps(&m, &a, REGION_NVTX), 12);
    analysis_free(&a);
    model_free(&m);
}

static void traced_loop(void **state)
{
    (void)state;
    run_model m;
    char err[512];
    model_init(&m);
    if (!import_kineto("samples/h200-train.kineto.json", &m, err, sizeof err))
        fail_msg("import: %s", err);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_int_equal(check_steps(&m, &a, REGION_ANNOTATION), 12);
    analysis_free(&a);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(profiled_loop),
        cmocka_unit_test(traced_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
