/* An Nsight Systems export's doubled calls and idle processes: see nsys_tidy.h. */
#include "nsys_tidy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Calls of one thread and correlation id together, by start, the enclosing (longer) first. */
static int call_order(const void *a, const void *b, void *arg)
{
    const api_event *calls = arg;
    const api_event *x = &calls[*(const size_t *)a], *y = &calls[*(const size_t *)b];
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->correlation != y->correlation)
        return x->correlation < y->correlation ? -1 : 1;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    if (x->end_ns != y->end_ns)
        return x->end_ns > y->end_ns ? -1 : 1;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

bool nsys_drop_nested_calls(event_list *e, size_t *dropped)
{
    *dropped = 0;
    size_t n = e->napis;
    if (n < 2)
        return true;
    size_t *order = malloc(n * sizeof *order);
    bool *drop = calloc(n, sizeof *drop);
    if (!order || !drop) {
        free(order);
        free(drop);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, call_order, e->apis);
    for (size_t k = 0; k + 1 < n; k++) {
        const api_event *outer = &e->apis[order[k]], *inner = &e->apis[order[k + 1]];
        /* Correlation 0 is no id (calls CUPTI gave none): such calls are never one call. */
        drop[order[k]] = outer->correlation != 0 && outer->pid == inner->pid && outer->thread == inner->thread &&
                         outer->correlation == inner->correlation && outer->start_ns <= inner->start_ns &&
                         inner->end_ns <= outer->end_ns;
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (drop[i])
            continue; /* its name is the store's (model.h) */
        e->apis[kept++] = e->apis[i];
    }
    *dropped = n - kept;
    e->napis = kept;
    free(order);
    free(drop);
    return true;
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A sorted set of 64-bit keys, built by appending and then sorting. */
typedef struct {
    uint64_t *v;
    size_t n, cap;
    bool oom;
} key_set;

static void add_key(key_set *s, uint64_t k)
{
    if (s->oom)
        return;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        uint64_t *grown = realloc(s->v, cap * sizeof *grown);
        if (!grown) {
            s->oom = true;
            return;
        }
        s->v = grown;
        s->cap = cap;
    }
    s->v[s->n++] = k;
}

/* Sorts and drops repeats. */
static void seal(key_set *s)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof *s->v, by_u64);
    size_t u = 0;
    for (size_t i = 0; i < s->n; i++)
        if (u == 0 || s->v[u - 1] != s->v[i])
            s->v[u++] = s->v[i];
    s->n = u;
}

static bool has_key(const key_set *s, uint64_t k)
{
    return s->n && bsearch(&k, s->v, s->n, sizeof k, by_u64) != NULL;
}

static uint64_t thread_key(uint32_t pid, uint32_t tid) { return (uint64_t)pid << 32 | tid; }

/* The processes that did CUDA work, and their threads that called, synchronized or opened ranges. */
static void cuda_ids(const run_model *m, key_set *pids, key_set *threads)
{
    const event_list *e = &m->events;
    for (size_t i = 0; i < e->nkernels; i++)
        add_key(pids, e->kernels[i].pid);
    for (size_t i = 0; i < e->ncopies; i++)
        add_key(pids, e->copies[i].pid);
    for (size_t i = 0; i < e->nmemsets; i++)
        add_key(pids, e->memsets[i].pid);
    for (size_t i = 0; i < e->napis; i++) {
        add_key(pids, e->apis[i].pid);
        add_key(threads, thread_key(e->apis[i].pid, e->apis[i].thread));
    }
    for (size_t i = 0; i < e->nsyncs; i++) {
        add_key(pids, e->syncs[i].pid);
        add_key(threads, thread_key(e->syncs[i].pid, e->syncs[i].thread));
    }
    seal(pids);
    for (int i = 0; i < m->nregions; i++)
        if (has_key(pids, m->regions[i].pid))
            add_key(threads, thread_key(m->regions[i].pid, m->regions[i].tid));
    seal(threads);
}

bool nsys_keep_cuda_processes(run_model *m)
{
    key_set pids = {0}, threads = {0}, named = {0};
    cuda_ids(m, &pids, &threads);
    bool ok = !pids.oom && !threads.oom;
    /* The named ones that did CUDA work, in table order (once each), then the unnamed ones. */
    int kept = 0;
    for (int i = 0; ok && i < m->nprocesses; i++) {
        bool again = false;
        for (int j = 0; j < kept && !again; j++)
            again = m->processes[j].pid == m->processes[i].pid;
        if (has_key(&pids, m->processes[i].pid) && !again)
            m->processes[kept++] = m->processes[i];
    }
    m->nprocesses = kept;
    for (size_t i = 0; ok && i < pids.n; i++) {
        bool named_one = false;
        for (int j = 0; j < kept && !named_one; j++)
            named_one = m->processes[j].pid == pids.v[i];
        if (!named_one)
            ok = model_add_process(m, (uint32_t)pids.v[i], "");
    }
    kept = 0;
    for (int i = 0; ok && i < m->nthreads; i++) {
        uint64_t k = thread_key(m->threads[i].pid, m->threads[i].tid);
        if (!has_key(&threads, k))
            continue;
        add_key(&named, k);
        m->threads[kept++] = m->threads[i];
    }
    if (ok)
        m->nthreads = kept;
    seal(&named);
    for (size_t i = 0; ok && i < threads.n; i++)
        if (!has_key(&named, threads.v[i]))
            ok = model_add_thread(m, (uint32_t)(threads.v[i] >> 32), (uint32_t)threads.v[i], "");
    ok = ok && !named.oom;
    free(pids.v);
    free(threads.v);
    free(named.v);
    return ok;
}
