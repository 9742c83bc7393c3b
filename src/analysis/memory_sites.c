/* The memory analysis' call sites (mem_builder.h): an allocation's site is the user's line of
 * its call's host stack (joined by pid and correlation id), or, for an import, of the innermost CPU
 * span of its thread at its time; without one, its library with "no call site". Each distinct site
 * is kept once, its words made once per frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "array_grow.h"
#include "mem_builder.h"


int mem_add_site(site_ctx *c, const char *at, const char *lib)
{
    struct mem_timeline *tl = c->tl;
    for (int i = 0; i < tl->nsites; i++)
        if (strcmp(tl->sites[i].at, at) == 0 && strcmp(tl->sites[i].allocator, lib) == 0)
            return i;
    mem_site *grown = array_grow(tl->sites, (size_t)tl->nsites, sizeof *grown);
    if (!grown) {
        c->oom = true;
        return -1;
    }
    tl->sites = grown;
    copy_str(grown[tl->nsites].at, sizeof grown[tl->nsites].at, at);
    copy_str(grown[tl->nsites].allocator, sizeof grown[tl->nsites].allocator, lib);
    return tl->nsites++;
}

static int cmp_span(const void *a, const void *b, void *ctx)
{
    const host_activity *h = ctx;
    const host_span *x = &h->spans[*(const size_t *)a];
    const host_span *y = &h->spans[*(const size_t *)b];
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* The innermost span of (pid, tid) holding ts: the latest-starting one that has not ended (spans
 * nest on a thread), looked for among the 64 that began last before it. */
static int span_frame(const site_ctx *c, uint32_t pid, uint32_t tid, int64_t ts)
{
    const host_activity *h = &c->m->host_activity;
    size_t lo = 0, hi = h->nspans;
    while (lo < hi) { /* the first span after (pid, tid, ts) */
        size_t mid = lo + (hi - lo) / 2;
        const host_span *s = &h->spans[c->spans[mid]];
        bool before = s->pid < pid || (s->pid == pid && (s->tid < tid || (s->tid == tid && s->start_ns <= ts)));
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, looked = 0; i > 0 && looked < 64; i--, looked++) {
        const host_span *s = &h->spans[c->spans[i - 1]];
        if (s->pid != pid || s->tid != tid)
            break;
        if (s->end_ns >= ts)
            return s->frame;
    }
    return -1;
}

/* The site of an allocation: its call's user line, else its thread's CPU span's (an import), else
 * its library with no call site. */
int mem_site_of(site_ctx *c, const mem_event *e)
{
    const host_activity *h = &c->m->host_activity;
    int frame = -1;
    if (e->correlation) {
        const host_site *s = host_site_find(c->sites, h->nsites, e->pid, e->correlation);
        frame = s ? s->frame : -1;
    } else if (c->spans && e->tid) {
        frame = span_frame(c, e->pid, e->tid, e->ts_ns);
    }
    const char *lib = memory_name_of(&c->m->memory, e->allocator);
    if (frame >= 0 && frame < h->nframes) {
        if (c->by_frame[frame] >= 0)
            return c->by_frame[frame];
        int user = host_user_node(h, frame);
        char at[HOST_NAME];
        if (user >= 0)
            host_frame_name(&h->frames[user], true, at, sizeof at);
        else
            snprintf(at, sizeof at, "no named frame");
        return c->by_frame[frame] = mem_add_site(c, at, lib ? lib : "");
    }
    int slot = e->allocator + 1;
    if (slot < 0 || slot > c->m->memory.nnames)
        slot = 0;
    if (c->by_lib[slot] >= 0)
        return c->by_lib[slot];
    char at[HOST_NAME];
    snprintf(at, sizeof at, "%s%sno call site", lib ? lib : "", lib ? ", " : "");
    return c->by_lib[slot] = mem_add_site(c, at, lib ? lib : "");
}


bool mem_sites_init(site_ctx *c, const run_model *m, struct mem_timeline *tl)
{
    const host_activity *h = &m->host_activity;
    *c = (site_ctx){.m = m, .tl = tl, .sites = host_sites_sorted(h)};
    c->by_frame = malloc(((size_t)h->nframes + 1) * sizeof *c->by_frame);
    c->by_lib = malloc(((size_t)m->memory.nnames + 1) * sizeof *c->by_lib);
    if (h->nspans) {
        c->spans = malloc(h->nspans * sizeof *c->spans);
        for (size_t i = 0; c->spans && i < h->nspans; i++)
            c->spans[i] = i;
        if (c->spans)
            qsort_r(c->spans, h->nspans, sizeof *c->spans, cmp_span, (void *)h);
    }
    if (!c->by_frame || !c->by_lib || (h->nspans && !c->spans) || (h->nsites && !c->sites))
        return false;
    memset(c->by_frame, 0xff, ((size_t)h->nframes + 1) * sizeof *c->by_frame);
    memset(c->by_lib, 0xff, ((size_t)m->memory.nnames + 1) * sizeof *c->by_lib);
    return true;
}

void mem_sites_free(site_ctx *c)
{
    free(c->sites);
    free(c->spans);
    free(c->by_frame);
    free(c->by_lib);
}
