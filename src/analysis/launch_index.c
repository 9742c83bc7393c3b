/* See launch_index.h.
 *
 * CUPTI hands out a process's correlation ids from a counter, so one process's ids fill a range
 * little wider than its number of calls: each process gets an array indexed by id (filled in the
 * order the calls come, nearly the order of the ids, so the writes stay in cache), which is a
 * long run's 2 million calls indexed in milliseconds instead of sorted. Ids far sparser than that
 * (capture windows leave the calls between them unrecorded; a damaged stream can hold any id) are
 * found in a table sorted by process and id instead, searched by halves. Both are as long as the
 * run's calls: spill.h's. */
#include "launch_index.h"

#include <stdbool.h>
#include <stdlib.h>

#include "array_grow.h"
#include "key_sort.h"
#include "spill.h"

/* One process's ids: at[id - lo] is the index of its call in s->apis plus one, 0 where none. */
typedef struct {
    uint32_t pid, lo, hi;
    uint32_t *at;
} id_range;

/* (pid, correlation) -> call, for the sorted table. */
typedef struct {
    uint32_t pid, corr;
    const api_event *api;
} corr_entry;

struct launch_index {
    const event_list *s;
    id_range *ranges; /* dense: one per process */
    int nranges;
    corr_entry *table; /* sparse: sorted by process, id and kind */
    size_t ntable;
};

#define SPARSE_SLACK 4096 /* ids beyond twice the calls, before the ranges are given up */

/* The range of pid among r[0..n), -1 where none; *hint is the last one found (calls come in runs
 * of one process). */
static int range_of(const id_range *r, int n, uint32_t pid, int *hint)
{
    if (*hint >= 0 && *hint < n && r[*hint].pid == pid)
        return *hint;
    for (int i = 0; i < n; i++)
        if (r[i].pid == pid)
            return *hint = i;
    return -1;
}

/* Whether call b takes the place of call a of the same id: a runtime call the driver call it
 * made, never the other way, and of one kind the first stays. */
static bool replaces(const api_event *a, const api_event *b)
{
    return a->kind == API_DRIVER && b->kind != API_DRIVER;
}

/* The dense way; false (nothing kept) where the ids are too sparse or memory ran out. */
static bool build_ranges(launch_index *x)
{
    const event_list *s = x->s;
    int hint = -1;
    for (size_t j = 0; j < s->napis; j++) {
        const api_event *a = &s->apis[j];
        if (a->correlation == 0)
            continue;
        int r = range_of(x->ranges, x->nranges, a->pid, &hint);
        if (r < 0) {
            id_range *g = array_grow(x->ranges, (size_t)x->nranges, sizeof *g);
            if (!g)
                return false;
            x->ranges = g;
            x->ranges[r = hint = x->nranges++] = (id_range){a->pid, a->correlation, a->correlation, NULL};
        }
        id_range *g = &x->ranges[r];
        g->lo = a->correlation < g->lo ? a->correlation : g->lo;
        g->hi = a->correlation > g->hi ? a->correlation : g->hi;
    }
    uint64_t span = 0;
    for (int i = 0; i < x->nranges; i++)
        span += (uint64_t)x->ranges[i].hi - x->ranges[i].lo + 1;
    if (span > 2 * (uint64_t)s->napis + SPARSE_SLACK)
        return false;
    for (int i = 0; i < x->nranges; i++)
        if (!(x->ranges[i].at = spill_calloc((size_t)x->ranges[i].hi - x->ranges[i].lo + 1, sizeof *x->ranges[i].at)))
            return false;
    hint = -1;
    for (size_t j = 0; j < s->napis; j++) {
        const api_event *a = &s->apis[j];
        if (a->correlation == 0)
            continue;
        id_range *g = &x->ranges[range_of(x->ranges, x->nranges, a->pid, &hint)];
        uint32_t *slot = &g->at[a->correlation - g->lo];
        if (*slot == 0 || replaces(&s->apis[*slot - 1], a))
            *slot = (uint32_t)j + 1;
    }
    return true;
}

static void free_ranges(launch_index *x)
{
    for (int i = 0; i < x->nranges; i++)
        spill_free(x->ranges[i].at);
    free(x->ranges);
    x->ranges = NULL;
    x->nranges = 0;
}

/* Sorted by id and kind (runtime before driver), then stably by process: the order lookups by
 * halves need. The calls come nearly in that order already. */
static uint64_t corr_id_kind(const void *e, const void *ctx)
{
    (void)ctx;
    const corr_entry *x = e;
    return (uint64_t)x->corr << 1 | (x->api->kind == API_DRIVER);
}

static uint64_t corr_pid(const void *e, const void *ctx)
{
    (void)ctx;
    return ((const corr_entry *)e)->pid;
}

static bool build_table(launch_index *x)
{
    const event_list *s = x->s;
    x->table = spill_alloc((s->napis ? s->napis : 1) * sizeof *x->table);
    if (!x->table)
        return false;
    for (size_t j = 0; j < s->napis; j++)
        x->table[x->ntable++] = (corr_entry){s->apis[j].pid, s->apis[j].correlation, &s->apis[j]};
    return key_sort(x->table, x->ntable, sizeof *x->table, corr_id_kind, NULL) &&
           key_sort(x->table, x->ntable, sizeof *x->table, corr_pid, NULL);
}

launch_index *launch_index_build(const event_list *s)
{
    launch_index *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->s = s;
    if (s->napis < UINT32_MAX && build_ranges(x))
        return x;
    free_ranges(x);
    if (build_table(x))
        return x;
    launch_index_free(x);
    return NULL;
}

const api_event *launch_of(const launch_index *x, uint32_t pid, uint32_t corr)
{
    if (corr == 0)
        return NULL;
    if (x->ranges) {
        int hint = -1;
        int r = range_of(x->ranges, x->nranges, pid, &hint);
        if (r < 0 || corr < x->ranges[r].lo || corr > x->ranges[r].hi)
            return NULL;
        uint32_t at = x->ranges[r].at[corr - x->ranges[r].lo];
        return at ? &x->s->apis[at - 1] : NULL;
    }
    const corr_entry *t = x->table;
    size_t lo = 0, hi = x->ntable;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t[mid].pid < pid || (t[mid].pid == pid && t[mid].corr < corr))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->ntable && t[lo].pid == pid && t[lo].corr == corr ? t[lo].api : NULL;
}

void launch_index_free(launch_index *x)
{
    if (!x)
        return;
    free_ranges(x);
    spill_free(x->table);
    free(x);
}
