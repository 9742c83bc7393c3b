/* The memory analysis' series (mem_builder.h): a process's allocations on a device walked in
 * time order, matched with their frees by address: live, reserved, pinned and managed bytes over
 * time and their peaks; what was live at the peak, by site and by library; what was never freed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "array_grow.h"
#include "mem_builder.h"

static bool step_add(steps *s, int64_t t, int64_t live, int64_t reserved)
{
    if (s->n && s->t[s->n - 1] == t) { /* one instant: its last state */
        s->live[s->n - 1] = live;
        s->reserved[s->n - 1] = reserved;
        return true;
    }
    size_t cap = array_capacity_for(s->n);
    if (!s->t || s->n + 1 > cap) {
        size_t c = array_capacity_for(s->n + 1);
        int64_t *t = realloc(s->t, c * sizeof *t), *l = t ? realloc(s->live, c * sizeof *l) : NULL;
        if (t)
            s->t = t;
        if (l)
            s->live = l;
        int64_t *r = l ? realloc(s->reserved, c * sizeof *r) : NULL;
        if (!r)
            return false;
        s->reserved = r;
    }
    s->t[s->n] = t;
    s->live[s->n] = live;
    s->reserved[s->n++] = reserved;
    return true;
}

void mem_steps_free(steps *s)
{
    free(s->t);
    free(s->live);
    free(s->reserved);
}

/* Allocations by address while a series is walked: open addressing, the allocation's index in
 * the timeline (or -1: pinned or managed, not kept there), its kind and bytes. */
typedef struct {
    uint64_t addr;
    int64_t alloc; /* into tl->allocs, -1 none */
    uint64_t bytes;
    uint8_t kind;
    bool used;
} addr_slot;

typedef struct {
    addr_slot *s;
    size_t cap;
} addr_map;

static addr_slot *addr_find(addr_map *m, uint64_t a)
{
    size_t i = (size_t)((a >> 4) * 0x9E3779B97F4A7C15ull >> 20) & (m->cap - 1);
    while (m->s[i].used && m->s[i].addr != a)
        i = (i + 1) & (m->cap - 1);
    return &m->s[i];
}

static void addr_remove(addr_map *m, addr_slot *x)
{
    /* Backward shift, as mem_live.c: no tombstones. */
    size_t hole = (size_t)(x - m->s);
    x->used = false;
    for (size_t j = (hole + 1) & (m->cap - 1); m->s[j].used; j = (j + 1) & (m->cap - 1)) {
        size_t h = (size_t)((m->s[j].addr >> 4) * 0x9E3779B97F4A7C15ull >> 20) & (m->cap - 1);
        bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
        if (stays)
            continue;
        m->s[hole] = m->s[j];
        m->s[j].used = false;
        hole = j;
    }
}


/* Walks series si's events (order[from, to)): live, reserved, pinned and managed bytes, the
 * allocations into the timeline with when they were freed, the peak. */
bool mem_walk_series(builder *b, int si, size_t from, size_t to)
{
    const memory_activity *mem = &b->m->memory;
    mem_series *s = &b->x->series[si];
    size_t nallocs = 0;
    for (size_t k = from; k < to; k++) {
        const mem_event *e = &mem->events[b->order[k]];
        nallocs += e->op == MEMOP_ALLOC;
        s->totals |= e->total_allocated >= 0;
    }
    addr_map map = {NULL, 16};
    while (map.cap < 2 * nallocs + 2)
        map.cap *= 2;
    map.s = calloc(map.cap, sizeof *map.s);
    /* A stream-ordered pool's latest size, by its address: what it reserves. */
    struct { uint64_t pool; int64_t size; } *pools = NULL;
    size_t npools = 0;
    if (!map.s)
        return false;
    int64_t live = 0, pool_live = 0, pinned = 0, managed = 0, pinned_peak = 0, managed_peak = 0;
    int64_t peak = -1, reserved_peak = -1, allocated = 0, pools_size = 0;
    size_t allocs = 0, frees = 0;
    bool ok = true;
    steps *w = &b->walk[si];
    for (size_t k = from; ok && k < to; k++) {
        const mem_event *e = &mem->events[b->order[k]];
        addr_slot *slot = addr_find(&map, e->address);
        if (slot->used) { /* freed unseen (an alloc), or freed now */
            int64_t gone = (int64_t)slot->bytes;
            if (mem_device_kind(slot->kind)) {
                live -= gone;
                if (slot->alloc >= 0 && b->tl.allocs[slot->alloc].e->pool)
                    pool_live -= gone;
            } else if (slot->kind == MEM_PINNED) {
                pinned -= gone;
            } else if (slot->kind == MEM_MANAGED) {
                managed -= gone;
            }
            if (slot->alloc >= 0)
                b->tl.allocs[slot->alloc].freed_ns = e->ts_ns;
            addr_remove(&map, slot);
            slot = addr_find(&map, e->address);
        }
        if (e->op == MEMOP_FREE) {
            frees++;
        } else {
            allocs++;
            int64_t idx = -1;
            if (mem_device_kind(e->kind)) {
                mem_alloc *g = array_grow(b->tl.allocs, b->tl.nallocs, sizeof *g);
                ok = g != NULL;
                if (!ok)
                    break;
                b->tl.allocs = g;
                idx = (int64_t)b->tl.nallocs;
                g[b->tl.nallocs++] = (mem_alloc){.e = e, .freed_ns = MEM_NEVER, .site = mem_site_of(&b->sc, e), .series = si};
                live += (int64_t)e->bytes;
                pool_live += e->pool ? (int64_t)e->bytes : 0;
                allocated += (int64_t)e->bytes;
            } else if (e->kind == MEM_PINNED) {
                pinned += (int64_t)e->bytes;
            } else if (e->kind == MEM_MANAGED) {
                managed += (int64_t)e->bytes;
            }
            *slot = (addr_slot){.addr = e->address, .alloc = idx, .bytes = e->bytes, .kind = e->kind, .used = true};
        }
        if (e->pool && e->pool_size >= 0) {
            size_t p = 0;
            while (p < npools && pools[p].pool != e->pool)
                p++;
            if (p == npools) {
                void *g = realloc(pools, (npools + 1) * sizeof *pools);
                ok = g != NULL;
                if (!ok)
                    break;
                pools = g;
                pools[npools++].pool = e->pool, pools[p].size = 0;
            }
            pools_size += e->pool_size - pools[p].size;
            pools[p].size = e->pool_size;
        }
        pinned_peak = pinned > pinned_peak ? pinned : pinned_peak;
        managed_peak = managed > managed_peak ? managed : managed_peak;
        int64_t now = s->totals && e->total_allocated >= 0 ? e->total_allocated : live;
        if (k == from && s->totals && e->total_allocated >= 0) /* what its total held before it */
            w->initial = e->total_allocated + (e->op == MEMOP_FREE ? 1 : -1) * (int64_t)e->bytes;
        int64_t reserved = s->totals ? e->total_reserved : live - pool_live + pools_size;
        if (now > peak) {
            peak = now;
            s->peak_ns = e->ts_ns;
        }
        reserved_peak = reserved > reserved_peak ? reserved : reserved_peak;
        ok = step_add(w, e->ts_ns, now, reserved);
    }
    free(map.s);
    free(pools);
    if (!ok)
        return false;
    metric_set(&s->allocations, (double)allocs);
    metric_set(&s->frees, (double)frees);
    metric_set(&s->allocated_bytes, (double)allocated);
    metric_set(&s->peak_bytes, peak < 0 ? 0 : (double)peak);
    metric_set(&s->peak_ms, mem_ms_from(s->peak_ns, b->run_start));
    if (reserved_peak >= 0)
        metric_set(&s->reserved_peak_bytes, (double)reserved_peak);
    else
        metric_na(&s->reserved_peak_bytes, "the trace gave no reserved total");
    metric_set(&s->pinned_peak_bytes, (double)pinned_peak);
    metric_set(&s->managed_peak_bytes, (double)managed_peak);
    metric_set(&s->end_bytes, w->n ? (double)w->live[w->n - 1] : 0);
    return true;
}


static int by_bytes(const void *a, const void *b)
{
    const tally *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->site - y->site;
}

/* Holders from tallies (sorted here): the first MEM_HOLDERS - 1 and, past them, the rest as one;
 * shares of total. lib: named by the site's allocator rather than its line. A tally of site -2 is
 * what an allocator's own total holds beyond the record's allocations. */
bool mem_add_holders(builder *b, tally *t, int n, int64_t total, bool lib, int *first, int *count)
{
    memory_analysis *x = b->x;
    qsort(t, (size_t)n, sizeof *t, by_bytes);
    while (n > 0 && t[n - 1].bytes <= 0)
        n--;
    *first = x->nholders;
    *count = 0;
    for (int i = 0; i < n; i++) {
        mem_holder *g = array_grow(x->holders, (size_t)x->nholders, sizeof *g);
        if (!g)
            return false;
        x->holders = g;
        mem_holder *h = &g[x->nholders];
        memset(h, 0, sizeof *h);
        bool rest = i == MEM_HOLDERS - 1 && n > MEM_HOLDERS;
        int64_t bytes = 0, cnt = 0;
        for (int j = i; j < (rest ? n : i + 1); j++)
            bytes += t[j].bytes, cnt += t[j].count;
        if (rest) {
            snprintf(h->at, sizeof h->at, "%d others", n - i);
        } else if (t[i].site == -2) {
            snprintf(h->at, sizeof h->at, "allocated before the record");
        } else {
            const mem_site *s = &b->tl.sites[t[i].site];
            copy_str(h->at, sizeof h->at, lib ? (s->allocator[0] ? s->allocator : "no library named") : s->at);
            copy_str(h->allocator, sizeof h->allocator, s->allocator);
        }
        metric_set(&h->bytes, (double)bytes);
        if (!rest && t[i].site == -2)
            metric_na(&h->count, "allocated before the record: not seen one by one");
        else
            metric_set(&h->count, (double)cnt);
        if (total > 0)
            metric_set(&h->share_pct, 100.0 * (double)bytes / (double)total);
        else
            metric_na(&h->share_pct, "nothing live");
        x->nholders++;
        (*count)++;
        if (rest)
            break;
    }
    return true;
}

/* What was live at series si's peak, by site and by library. The record's allocations live then
 * are those made at or before it and freed after it; under an allocator's own totals, what they
 * lack was allocated before the record. */
bool mem_peak_holders(builder *b, int si)
{
    mem_series *s = &b->x->series[si];
    int ns = b->tl.nsites;
    tally *by_site = calloc((size_t)ns + 2, sizeof *by_site), *by_lib = calloc((size_t)ns + 2, sizeof *by_lib);
    if (!by_site || !by_lib) {
        free(by_site);
        free(by_lib);
        return false;
    }
    int64_t held = 0;
    for (size_t i = 0; i < b->tl.nallocs; i++) {
        const mem_alloc *a = &b->tl.allocs[i];
        if (a->series != si || a->e->ts_ns > s->peak_ns || a->freed_ns <= s->peak_ns || a->site < 0)
            continue;
        by_site[a->site].bytes += (int64_t)a->e->bytes;
        by_site[a->site].count++;
        held += (int64_t)a->e->bytes;
    }
    int n = 0, nl = 0;
    for (int i = 0; i < ns; i++) {
        if (by_site[i].count == 0)
            continue;
        /* libraries: the first site of each allocator stands for it */
        int lib = i;
        for (int j = 0; j < i; j++)
            if (strcmp(b->tl.sites[j].allocator, b->tl.sites[i].allocator) == 0) {
                lib = j;
                break;
            }
        int k = 0;
        while (k < nl && by_lib[k].site != lib)
            k++;
        if (k == nl)
            by_lib[nl++] = (tally){.site = lib};
        by_lib[k].bytes += by_site[i].bytes;
        by_lib[k].count += by_site[i].count;
        by_site[n] = by_site[i];
        by_site[n++].site = i;
    }
    int64_t peak = (int64_t)s->peak_bytes.v;
    if (s->totals && peak > held) {
        by_site[n++] = (tally){.site = -2, .bytes = peak - held};
        by_lib[nl++] = (tally){.site = -2, .bytes = peak - held};
    }
    bool ok = mem_add_holders(b, by_site, n, peak, false, &s->first_holder, &s->nholders) &&
              mem_add_holders(b, by_lib, nl, peak, true, &s->first_lib, &s->nlibs);
    free(by_site);
    free(by_lib);
    return ok;
}

static int cmp_leak(const void *a, const void *b)
{
    const mem_leak *x = a, *y = b;
    if (x->bytes.v != y->bytes.v)
        return x->bytes.v > y->bytes.v ? -1 : 1;
    return strcmp(x->at, y->at);
}

#define MEM_LEAKS_LISTED 20

/* The record's allocations never freed, per series and site, most bytes first. */
bool mem_never_freed(builder *b)
{
    memory_analysis *x = b->x;
    int ns = b->tl.nsites;
    for (int si = 0; si < x->nseries; si++) {
        mem_series *s = &x->series[si];
        if (s->device_only)
            continue;
        tally *t = calloc((size_t)ns + 1, sizeof *t);
        if (!t)
            return false;
        int64_t bytes = 0, count = 0;
        for (size_t i = 0; i < b->tl.nallocs; i++) {
            const mem_alloc *a = &b->tl.allocs[i];
            if (a->series != si || a->freed_ns != MEM_NEVER || a->site < 0)
                continue;
            t[a->site].bytes += (int64_t)a->e->bytes;
            t[a->site].count++;
            bytes += (int64_t)a->e->bytes;
            count++;
        }
        metric_set(&s->never_freed_bytes, (double)bytes);
        metric_set(&s->never_freed_count, (double)count);
        for (int i = 0; i < ns; i++) {
            if (!t[i].count)
                continue;
            mem_leak *g = array_grow(x->leaks, (size_t)x->nleaks, sizeof *g);
            if (!g) {
                free(t);
                return false;
            }
            x->leaks = g;
            mem_leak *l = &g[x->nleaks++];
            memset(l, 0, sizeof *l);
            l->pid = s->pid;
            l->device = s->device;
            copy_str(l->at, sizeof l->at, b->tl.sites[i].at);
            copy_str(l->allocator, sizeof l->allocator, b->tl.sites[i].allocator);
            metric_set(&l->bytes, (double)t[i].bytes);
            metric_set(&l->count, (double)t[i].count);
            metric_na(&l->per_step_bytes, "no range repeated %d times or more in its process", MEM_LEAK_MIN_STEPS);
            metric_na(&l->steps_pct, "no range repeated %d times or more in its process", MEM_LEAK_MIN_STEPS);
        }
        free(t);
    }
    if (x->nleaks > 1)
        qsort(x->leaks, (size_t)x->nleaks, sizeof *x->leaks, cmp_leak);
    if (x->nleaks > MEM_LEAKS_LISTED)
        x->nleaks = MEM_LEAKS_LISTED;
    return true;
}

