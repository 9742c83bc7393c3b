/* Memory over ranges (memory.h): each listed region's and each range group's peak and growth of
 * its process's live device bytes, and, for what was never freed, whether a repeated range left
 * about the same amount of it live in each instance: a leak per step.
 *
 * A step is an instance of the longest range group of the process repeated MEM_LEAK_MIN_STEPS
 * times or more (range_groups.h folds "ProfilerStep#12" into "ProfilerStep#*"), taken as the loop's
 * step: the groups come longest first, and an outer range run once (an epoch, the whole run) is
 * not repeated. */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "array_grow.h"
#include "mem_builder.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static double median(int64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_i64);
    return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

/* Each region's group (its kind, domain and folded name), -1 none: folded once per region. */
static int *groups_of(const struct analysis *a)
{
    const run_model *m = a->m;
    int *of = malloc(((size_t)m->nregions + 1) * sizeof *of);
    for (int ri = 0; of && ri < m->nregions; ri++) {
        const region *r = &m->regions[ri];
        of[ri] = -1;
        if (r->kind != REGION_NVTX && r->kind != REGION_ANNOTATION)
            continue;
        char folded[RANGE_GROUP_NAME];
        range_group_name(r->name, folded, sizeof folded);
        for (int gi = 0; gi < a->ngroups && of[ri] < 0; gi++) {
            const range_group *g = &a->groups[gi];
            if (r->kind == g->kind && (r->domain == NULL) == (g->domain == NULL) &&
                (!r->domain || strcmp(r->domain, g->domain) == 0) && strcmp(folded, g->name) == 0)
                of[ri] = gi;
        }
    }
    return of;
}

static mem_range *new_range(memory_analysis *x)
{
    mem_range *g = array_grow(x->ranges, (size_t)x->nranges, sizeof *g);
    if (!g)
        return NULL;
    x->ranges = g;
    mem_range *r = &g[x->nranges++];
    memset(r, 0, sizeof *r);
    return r;
}

/* A listed region's row: its process's peak during it and live at its end less at its start. */
static bool region_rows(const struct analysis *a, memory_analysis *x, const mem_timeline *tl)
{
    const run_model *m = a->m;
    for (int i = 0; i < a->nlisted; i++) {
        const region *g = &m->regions[a->listed[i]];
        const mem_pid_line *p = g->kind == REGION_RUN ? NULL : mem_pid_of(tl, g->pid);
        if (!p)
            continue; /* the run is the series; a range of a process without memory has none */
        mem_range *r = new_range(x);
        if (!r)
            return false;
        r->region = a->listed[i];
        copy_str(r->name, sizeof r->name, g->name);
        r->pid = g->pid;
        metric_set(&r->instances, 1);
        metric_set(&r->peak_bytes, (double)mem_max_in(p, g->start_ns, g->end_ns));
        metric_set(&r->growth_bytes, (double)(mem_live_at(p, g->end_ns) - mem_live_at(p, g->start_ns - 1)));
        metric_na(&r->growth_total_bytes, "one range: its growth is the figure");
        metric_na(&r->growing_pct, "one range: its growth is the figure");
    }
    return true;
}

/* A group's row: over its instances (of processes with memory), the most live bytes, the median
 * growth, the share that grew, and each process's growth from its first instance to its last. */
static bool group_rows(const struct analysis *a, memory_analysis *x, const mem_timeline *tl, const int *of)
{
    const run_model *m = a->m;
    int64_t *growth = malloc(((size_t)m->nregions + 1) * sizeof *growth);
    if (!growth)
        return false;
    for (int gi = 0; gi < a->ngroups; gi++) {
        const range_group *g = &a->groups[gi];
        int n = 0, grew = 0;
        int64_t peak = 0, total = 0;
        uint32_t pid = 0;
        bool one_pid = true;
        for (int ri = 0; ri < m->nregions; ri++) {
            const region *r = &m->regions[ri];
            const mem_pid_line *p = of[ri] == gi ? mem_pid_of(tl, r->pid) : NULL;
            if (!p)
                continue;
            one_pid &= n == 0 || r->pid == pid;
            pid = r->pid;
            int64_t before = mem_live_at(p, r->start_ns - 1), after = mem_live_at(p, r->end_ns);
            growth[n++] = after - before;
            grew += after > before;
            int64_t most = mem_max_in(p, r->start_ns, r->end_ns);
            peak = most > peak ? most : peak;
        }
        if (n == 0)
            continue;
        /* Each process's growth over its instances: from its first start to its last end. */
        for (int pi = 0; pi < tl->npids; pi++) {
            int64_t first = INT64_MAX, last = INT64_MIN;
            for (int ri = 0; ri < m->nregions; ri++) {
                const region *r = &m->regions[ri];
                if (r->pid != tl->pids[pi].pid || of[ri] != gi)
                    continue;
                first = r->start_ns < first ? r->start_ns : first;
                last = r->end_ns > last ? r->end_ns : last;
            }
            if (first <= last)
                total += mem_live_at(&tl->pids[pi], last) - mem_live_at(&tl->pids[pi], first - 1);
        }
        mem_range *r = new_range(x);
        if (!r) {
            free(growth);
            return false;
        }
        r->region = -1;
        copy_str(r->name, sizeof r->name, g->name);
        r->pid = one_pid ? pid : 0;
        metric_set(&r->instances, n);
        metric_set(&r->peak_bytes, (double)peak);
        metric_set(&r->growth_bytes, median(growth, n));
        metric_set(&r->growth_total_bytes, (double)total);
        metric_set(&r->growing_pct, 100.0 * grew / n);
    }
    free(growth);
    return true;
}

/* The step group of process pid: the first (longest) group with MEM_LEAK_MIN_STEPS instances of
 * it or more; -1 none. */
static int step_group(const struct analysis *a, uint32_t pid, const int *of)
{
    const run_model *m = a->m;
    for (int gi = 0; gi < a->ngroups; gi++) {
        int n = 0;
        for (int ri = 0; ri < m->nregions && n < MEM_LEAK_MIN_STEPS; ri++)
            n += m->regions[ri].pid == pid && of[ri] == gi;
        if (n >= MEM_LEAK_MIN_STEPS)
            return gi;
    }
    return -1;
}

/* Each never-freed site's bytes per step: of each instance of its process's step group, the bytes
 * of the site allocated in it and never freed (the site's allocations gathered once, in time
 * order, each instance's found by binary search). */
static bool leak_steps(const struct analysis *a, memory_analysis *x, const mem_timeline *tl, const int *of)
{
    const run_model *m = a->m;
    int64_t *per = malloc(((size_t)m->nregions + 1) * sizeof *per);
    int64_t (*at)[2] = malloc((tl->nallocs + 1) * sizeof *at); /* time, bytes */
    bool ok = per && at;
    for (int li = 0; ok && li < x->nleaks; li++) {
        mem_leak *l = &x->leaks[li];
        int gi = step_group(a, l->pid, of);
        if (gi < 0)
            continue;
        int site = -1;
        for (int s = 0; s < tl->nsites && site < 0; s++)
            if (strcmp(tl->sites[s].at, l->at) == 0 && strcmp(tl->sites[s].allocator, l->allocator) == 0)
                site = s;
        size_t na = 0;
        for (size_t i = 0; i < tl->nallocs; i++) {
            const mem_alloc *al = &tl->allocs[i];
            if (al->site == site && al->freed_ns == MEM_NEVER && al->e->device == l->device && al->e->pid == l->pid)
                at[na][0] = al->e->ts_ns, at[na++][1] = (int64_t)al->e->bytes;
        }
        int n = 0, left = 0;
        for (int ri = 0; ri < m->nregions; ri++) {
            const region *r = &m->regions[ri];
            if (r->pid != l->pid || of[ri] != gi)
                continue;
            size_t lo = 0, hi = na;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (at[mid][0] < r->start_ns)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            int64_t bytes = 0;
            for (size_t i = lo; i < na && at[i][0] <= r->end_ns; i++)
                bytes += at[i][1];
            per[n++] = bytes;
            left += bytes > 0;
        }
        copy_str(l->step, sizeof l->step, a->groups[gi].name);
        metric_set(&l->steps_pct, 100.0 * left / n);
        metric_set(&l->per_step_bytes, median(per, n));
        l->per_step = l->steps_pct.v >= MEM_LEAK_STEPS_PCT && l->per_step_bytes.v > 0;
    }
    free(per);
    free(at);
    return ok;
}

bool memory_steps(struct analysis *a, memory_analysis *x, const mem_timeline *tl)
{
    int *of = groups_of(a);
    bool ok = of && region_rows(a, x, tl) && group_rows(a, x, tl, of) && leak_steps(a, x, tl, of);
    free(of);
    return ok;
}
