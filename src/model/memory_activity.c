/* memory_activity.h's store: appends that grow by doubling (array_grow.h), as host_activity.c's. */
#include "memory_activity.h"

#include <stdlib.h>
#include <string.h>

#include "array_grow.h"

bool memory_any(const memory_activity *m)
{
    return m->nevents || m->npools || m->nfailures || m->nsamples;
}

int memory_name(memory_activity *m, const char *name)
{
    if (!name)
        return -1;
    /* Few names (a run's allocating libraries and calls): a scan is enough. */
    for (int i = 0; i < m->nnames; i++)
        if (strcmp(m->names[i], name) == 0)
            return i;
    char *own = strdup(name);
    char **grown = own ? array_grow(m->names, (size_t)m->nnames, sizeof *m->names) : NULL;
    if (!grown) {
        free(own);
        return -1;
    }
    m->names = grown;
    m->names[m->nnames] = own;
    return m->nnames++;
}

const char *memory_name_of(const memory_activity *m, int i)
{
    return i >= 0 && i < m->nnames ? m->names[i] : NULL;
}

/* Events come with the run's length (a trace of the caching allocator holds one per tensor):
 * spill.h's, as the model's events are. */
bool memory_add_event(memory_activity *m, const mem_event *e) { SPILL_APPEND(m->events, m->nevents, *e); return true; }
bool memory_add_sample(memory_activity *m, const mem_sample *s) { SPILL_APPEND(m->samples, m->nsamples, *s); return true; }

bool memory_add_pool(memory_activity *m, const mem_pool_event *p)
{
    size_t n = (size_t)m->npools;
    ARRAY_APPEND(m->pools, n, *p);
    m->npools = (int)n;
    return true;
}

bool memory_add_failure(memory_activity *m, const mem_failure *f)
{
    mem_failure c = *f;
    c.first_live = m->nlive;
    c.nlive = 0;
    size_t n = (size_t)m->nfailures;
    ARRAY_APPEND(m->failures, n, c);
    m->nfailures = (int)n;
    return true;
}

bool memory_add_live(memory_activity *m, const mem_live_group *g)
{
    if (!m->nfailures)
        return false;
    size_t n = (size_t)m->nlive;
    ARRAY_APPEND(m->live, n, *g);
    m->nlive = (int)n;
    m->failures[m->nfailures - 1].nlive++;
    return true;
}

void memory_activity_free(memory_activity *m)
{
    for (int i = 0; i < m->nnames; i++)
        free(m->names[i]);
    free(m->names);
    spill_free(m->events);
    spill_free(m->samples);
    free(m->pools);
    free(m->failures);
    free(m->live);
    memset(m, 0, sizeof *m);
}

/* src's name i as dst's index (-1 stays -1). */
static int rename_index(memory_activity *dst, const memory_activity *src, int i, bool *ok)
{
    if (i < 0 || i >= src->nnames)
        return -1;
    int j = memory_name(dst, src->names[i]);
    *ok &= j >= 0;
    return j;
}

bool memory_activity_move(memory_activity *dst, memory_activity *src, int frame_base)
{
    bool ok = true;
    for (size_t i = 0; i < src->nevents; i++)
        src->events[i].allocator = rename_index(dst, src, src->events[i].allocator, &ok);
    for (int i = 0; i < src->nfailures; i++) {
        mem_failure *f = &src->failures[i];
        f->api = rename_index(dst, src, f->api, &ok);
        f->error_name = rename_index(dst, src, f->error_name, &ok);
        f->first_live += dst->nlive;
    }
    for (int i = 0; i < src->nlive; i++)
        if (src->live[i].frame >= 0)
            src->live[i].frame += frame_base;
    size_t np = (size_t)dst->npools, nf = (size_t)dst->nfailures, nl = (size_t)dst->nlive;
    ok = ok && array_append_n_to(&dst->events, &dst->nevents, src->events, src->nevents, sizeof *src->events, true) &&
         array_append_n_to(&dst->samples, &dst->nsamples, src->samples, src->nsamples, sizeof *src->samples, true) &&
         array_append_n(&dst->pools, &np, src->pools, (size_t)src->npools, sizeof *src->pools) &&
         array_append_n(&dst->failures, &nf, src->failures, (size_t)src->nfailures, sizeof *src->failures) &&
         array_append_n(&dst->live, &nl, src->live, (size_t)src->nlive, sizeof *src->live);
    dst->npools = (int)np;
    dst->nfailures = (int)nf;
    dst->nlive = (int)nl;
    if (!dst->nvml_why[0])
        memcpy(dst->nvml_why, src->nvml_why, sizeof dst->nvml_why);
    memory_activity_free(src);
    return ok;
}

const char *mem_op_name(mem_op op) { return op == MEMOP_FREE ? "free" : "alloc"; }

bool mem_op_parse(const char *s, mem_op *out)
{
    if (strcmp(s, "alloc") == 0)
        *out = MEMOP_ALLOC;
    else if (strcmp(s, "free") == 0)
        *out = MEMOP_FREE;
    else
        return false;
    return true;
}

const char *mem_pool_op_name(mem_pool_op op)
{
    return op == MEMPOOL_DESTROYED ? "destroyed" : op == MEMPOOL_TRIMMED ? "trimmed" : "created";
}

bool mem_pool_op_parse(const char *s, mem_pool_op *out)
{
    static const char *const names[] = {"created", "destroyed", "trimmed"};
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (mem_pool_op)i;
            return true;
        }
    return false;
}
