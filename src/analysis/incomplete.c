/* What a killed process's records lack. See incomplete.h. */
#include "incomplete.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key_sort.h"
#include "spill.h"

typedef enum { CALL_OTHER, CALL_LAUNCH, CALL_COPY, CALL_MEMSET } call_kind;

/* The calls that put work on the GPU, by name: cudaLaunchKernel, cudaLaunchKernelExC,
 * cudaLaunchCooperativeKernel, cuLaunchKernel(Ex), cuLaunchCooperativeKernel (host functions and
 * graph launches excluded: one has no kernel, the other many); cudaMemcpy*, cuMemcpy*;
 * cudaMemset*, cuMemset* (with their _v2/Async/_ptds variants). */
static call_kind kind_of(const char *name)
{
    if (!name)
        return CALL_OTHER;
    const char *rest = strncmp(name, "cuda", 4) == 0 ? name + 4 : strncmp(name, "cu", 2) == 0 ? name + 2 : NULL;
    if (!rest)
        return CALL_OTHER;
    if (strncmp(rest, "Launch", 6) == 0 && strstr(rest, "Kernel") && !strstr(rest, "HostFunc"))
        return CALL_LAUNCH;
    if (strncmp(rest, "Memcpy", 6) == 0)
        return CALL_COPY;
    if (strncmp(rest, "Memset", 6) == 0)
        return CALL_MEMSET;
    return CALL_OTHER;
}

static int by_corr(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static bool has(const uint32_t *sorted, size_t n, uint32_t corr)
{
    return n > 0 && bsearch(&corr, sorted, n, sizeof *sorted, by_corr) != NULL;
}

/* The runtime calls of one process that put work on the GPU, by thread then start. */
typedef struct {
    uint32_t thread;
    int64_t start_ns, end_ns;
} span;

/* A driver call made inside a runtime call of the same thread (cudaLaunchKernel calls
 * cuLaunchKernel): the runtime call is the one its GPU record correlates with, so the driver one
 * is not counted again. Runtime calls of one thread do not overlap, so the last one starting
 * before it is the only candidate. */
static bool nested(const span *rt, size_t n, const api_event *d)
{
    size_t lo = 0, hi = n; /* the first span after (thread, start) */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rt[mid].thread < d->thread || (rt[mid].thread == d->thread && rt[mid].start_ns <= d->start_ns))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && rt[lo - 1].thread == d->thread && rt[lo - 1].end_ns >= d->end_ns;
}

/* The correlation ids of pid's records of one kind, sorted. */
#define CORRS(arr, n, who, out, nout)                              \
    do {                                                           \
        for (size_t i_ = 0; i_ < (n); i_++)                        \
            if ((arr)[i_].pid == (who))                            \
                (out)[(nout)++] = (arr)[i_].correlation;           \
        qsort((out), (nout), sizeof *(out), by_corr);              \
    } while (0)

static bool count_process(const run_model *m, incomplete_process *p)
{
    const event_list *e = &m->events;
    /* As long as the run's events: spill.h's */
    uint32_t *k = spill_alloc((e->nkernels + 1) * sizeof *k), *c = spill_alloc((e->ncopies + 1) * sizeof *c),
             *s = spill_alloc((e->nmemsets + 1) * sizeof *s);
    span *rt = spill_alloc((e->napis + 1) * sizeof *rt);
    bool ok = k && c && s && rt;
    size_t nk = 0, nc = 0, ns = 0, nrt = 0;
    if (ok) {
        CORRS(e->kernels, e->nkernels, p->pid, k, nk);
        CORRS(e->copies, e->ncopies, p->pid, c, nc);
        CORRS(e->memsets, e->nmemsets, p->pid, s, ns);
        for (size_t i = 0; i < e->napis; i++) {
            const api_event *a = &e->apis[i];
            if (a->pid == p->pid && a->kind == API_RUNTIME && kind_of(a->name) != CALL_OTHER)
                rt[nrt++] = (span){a->thread, a->start_ns, a->end_ns};
        }
        /* By thread, then start (key_sort.h; qsort would copy the array) */
        const sort_field by[] = {SORT_FIELD(span, thread, FIELD_U32), SORT_FIELD(span, start_ns, FIELD_I64)};
        ok = key_sort_fields(rt, nrt, sizeof *rt, by, 2);
    }
    for (size_t i = 0; ok && i < e->napis; i++) {
        const api_event *a = &e->apis[i];
        call_kind kind = a->pid == p->pid ? kind_of(a->name) : CALL_OTHER;
        if (kind == CALL_OTHER || (a->kind == API_DRIVER && nested(rt, nrt, a)))
            continue;
        if (kind == CALL_LAUNCH)
            p->launches++, p->kernels += has(k, nk, a->correlation);
        else if (kind == CALL_COPY)
            p->copy_calls++, p->copies += has(c, nc, a->correlation);
        else
            p->memset_calls++, p->memsets += has(s, ns, a->correlation);
    }
    spill_free(k), spill_free(c), spill_free(s), spill_free(rt);
    return ok;
}

bool analyze_incomplete(const run_model *m, incomplete_process **out, int *n)
{
    *out = NULL;
    *n = 0;
    int cut = 0;
    for (int i = 0; i < m->nprocesses; i++)
        cut += m->processes[i].records_cut;
    if (cut == 0)
        return true;
    incomplete_process *r = calloc((size_t)cut, sizeof *r);
    if (!r)
        return false;
    for (int i = 0; i < m->nprocesses; i++) {
        if (!m->processes[i].records_cut)
            continue;
        incomplete_process *p = &r[(*n)++];
        p->pid = m->processes[i].pid;
        p->name = m->processes[i].name;
        if (!count_process(m, p)) {
            free(r);
            *n = 0;
            return false;
        }
    }
    *out = r;
    return true;
}

bool incomplete_reason(const incomplete_process *p, int n, uint32_t pid, char *out, size_t len)
{
    int64_t launches = 0, kernels = 0, copy_calls = 0, copies = 0;
    int hit = 0;
    for (int i = 0; i < n; i++)
        if ((pid == 0 || p[i].pid == pid) &&
            (p[i].kernels < p[i].launches || p[i].copies < p[i].copy_calls || p[i].memsets < p[i].memset_calls)) {
            hit++;
            launches += p[i].launches, kernels += p[i].kernels;
            copy_calls += p[i].copy_calls, copies += p[i].copies;
        }
    if (!hit)
        return false;
    snprintf(out, len,
             "records incomplete (%s killed before its last records were flushed): %lld of %lld launched "
             "kernels and %lld of %lld copies have records",
             hit == 1 ? "the process was" : "processes were", (long long)kernels, (long long)launches,
             (long long)copies, (long long)copy_calls);
    return true;
}
