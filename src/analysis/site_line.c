/* The user's line of a call site: see site_line.h. */
#include "site_line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "host_where.h"
#include "key_sort.h"
#include "launch_index.h"
#include "spill.h"

/* A call or span of a main thread, or one of its samples (start == end), with its user frame. */
typedef struct {
    int64_t start, end;
    int node;
} held;

/* Held items by start (grown by array_grow_spill: a main thread's calls may be millions). */
typedef struct {
    held *v;
    size_t n;
} held_list;

/* A process whose calls may borrow, its main thread and what that thread says of its lines. */
typedef struct {
    uint32_t pid, tid;
    held_list busy;    /* its CUDA calls, overlaps merged: the stretches of its time lie between them */
    held_list calls;   /* its calls with a site whose stack holds a user frame */
    held_list spans;   /* its host spans with a user frame */
    int64_t longest;   /* of those spans, to find the ones begun before a time */
    held_list waits;   /* its Python samples taken while it waited, with a user frame */
} main_thread;

struct site_lines {
    const run_model *m;
    launch_index *calls;
    main_thread *mains; /* by pid */
    int nmains;
    int64_t reach;      /* SITE_LINE_PERIODS sampling periods; 0 where nothing was sampled */
};

/* The user's frame of a stack where it is the user's code, else -1. */
static int user_frame_of(const host_activity *h, int frame)
{
    int node = frame >= 0 && frame < h->nframes ? host_user_node(h, frame) : -1;
    return node >= 0 && host_user_frame(&h->frames[node]) ? node : -1;
}

static main_thread *main_of(const site_lines *x, uint32_t pid)
{
    int lo = 0, hi = x->nmains;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (x->mains[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->nmains && x->mains[lo].pid == pid ? &x->mains[lo] : NULL;
}

static int cmp_main(const void *a, const void *b)
{
    uint32_t x = ((const main_thread *)a)->pid, y = ((const main_thread *)b)->pid;
    return (x > y) - (x < y);
}

/* The processes with a site that may borrow: one of a call made by a thread other than the one of
 * the process's own id (the main thread is chosen later) whose stack has no user frame. Only
 * they get the rest of the work, a few passes over the run's calls: a program whose every site
 * names the user's line (or one without sites) pays nothing for the rule. */
static bool borrowing_processes(site_lines *x)
{
    const host_activity *h = &x->m->host_activity;
    for (size_t i = 0; i < h->nsites; i++) {
        const host_site *s = &h->sites[i];
        const api_event *a = launch_of(x->calls, s->pid, s->correlation);
        if (!a || a->thread == s->pid || main_of(x, s->pid) || user_frame_of(h, s->frame) >= 0)
            continue;
        main_thread *grown = array_grow(x->mains, (size_t)x->nmains, sizeof *grown);
        if (!grown)
            return false;
        x->mains = grown;
        x->mains[x->nmains++] = (main_thread){.pid = s->pid};
        qsort(x->mains, (size_t)x->nmains, sizeof *x->mains, cmp_main);
    }
    return true;
}

typedef struct {
    uint32_t pid, tid;
    size_t samples, calls;
} thread_count;

/* Each borrowing process's main thread: the thread of its own id where that has Python samples
 * or calls, else the one with most Python samples, then most calls (as the wall-time account
 * chooses its thread, wall_account.c's choose_threads, but by Python samples: the ones a line is
 * borrowed from). */
static bool choose_main_threads(site_lines *x)
{
    const run_model *m = x->m;
    const host_activity *h = &m->host_activity;
    thread_count *t = NULL;
    size_t n = 0, last = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t count = pass == 0 ? h->nsamples : m->events.napis;
        for (size_t i = 0; i < count; i++) {
            if (pass == 0 && h->samples[i].source != HOST_SAMPLE_PY)
                continue;
            uint32_t pid = pass == 0 ? h->samples[i].pid : m->events.apis[i].pid;
            uint32_t tid = pass == 0 ? h->samples[i].tid : m->events.apis[i].thread;
            if (!(last < n && t[last].pid == pid && t[last].tid == tid)) { /* runs of one thread are common */
                if (!main_of(x, pid))
                    continue;
                for (last = 0; last < n && !(t[last].pid == pid && t[last].tid == tid); last++)
                    ;
                if (last == n) {
                    thread_count *grown = array_grow(t, n, sizeof *grown);
                    if (!grown) {
                        free(t);
                        return false;
                    }
                    t = grown;
                    t[n++] = (thread_count){pid, tid, 0, 0};
                }
            }
            if (pass == 0)
                t[last].samples++;
            else
                t[last].calls++;
        }
    }
    for (int k = 0; k < x->nmains; k++) {
        main_thread *p = &x->mains[k];
        const thread_count *best = NULL;
        for (size_t j = 0; j < n; j++) {
            const thread_count *c = &t[j];
            if (c->pid != p->pid)
                continue;
            if (c->tid == p->pid && p->pid != 0) {
                best = c;
                break;
            }
            if (!best || c->samples > best->samples || (c->samples == best->samples && c->calls > best->calls))
                best = c;
        }
        p->tid = best ? best->tid : p->pid;
    }
    free(t);
    return true;
}

static bool push_held(held_list *l, held item)
{
    held *grown = array_grow_spill(l->v, l->n, sizeof *grown);
    if (!grown)
        return false;
    l->v = grown;
    l->v[l->n++] = item;
    return true;
}

static bool sort_held(held_list *l)
{
    static const sort_field by_start[] = {SORT_FIELD(held, start, FIELD_I64)};
    return key_sort_fields(l->v, l->n, sizeof *l->v, by_start, 1);
}

/* Overlapping calls (a runtime call and the driver calls it made) as one: the stretches of the
 * thread's time outside CUDA lie between the merged ones. */
static void merge_busy(held_list *l)
{
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (k > 0 && l->v[i].start <= l->v[k - 1].end) {
            if (l->v[i].end > l->v[k - 1].end)
                l->v[k - 1].end = l->v[i].end;
        } else {
            l->v[k++] = l->v[i];
        }
    }
    l->n = k;
}

/* What each main thread says of its lines: its calls (all, for the stretches; those with a user
 * frame in their site), its spans and its waiting Python samples. */
static bool gather(site_lines *x)
{
    const run_model *m = x->m;
    const host_activity *h = &m->host_activity;
    const event_list *ev = &m->events;
    bool ok = true;
    for (size_t i = 0; ok && i < ev->napis; i++) {
        main_thread *p = main_of(x, ev->apis[i].pid);
        if (p && ev->apis[i].thread == p->tid)
            ok = push_held(&p->busy, (held){ev->apis[i].start_ns, ev->apis[i].end_ns, -1});
    }
    for (size_t i = 0; ok && i < h->nsites; i++) {
        const host_site *s = &h->sites[i];
        main_thread *p = main_of(x, s->pid);
        const api_event *a = p ? launch_of(x->calls, s->pid, s->correlation) : NULL;
        int node = a && a->thread == p->tid ? user_frame_of(h, s->frame) : -1;
        if (node >= 0)
            ok = push_held(&p->calls, (held){a->start_ns, a->end_ns, node});
    }
    for (size_t i = 0; ok && i < h->nspans; i++) {
        const host_span *s = &h->spans[i];
        main_thread *p = main_of(x, s->pid);
        int node = p && s->tid == p->tid ? user_frame_of(h, s->frame) : -1;
        if (node >= 0) {
            ok = push_held(&p->spans, (held){s->start_ns, s->end_ns, node});
            if (s->end_ns - s->start_ns > p->longest)
                p->longest = s->end_ns - s->start_ns;
        }
    }
    for (size_t i = 0; ok && i < h->nsamples; i++) {
        const host_sample *s = &h->samples[i];
        if (s->source != HOST_SAMPLE_PY || (s->state != 'S' && s->state != 'D'))
            continue;
        main_thread *p = main_of(x, s->pid);
        int node = p && s->tid == p->tid ? user_frame_of(h, s->frame) : -1;
        if (node >= 0)
            ok = push_held(&p->waits, (held){s->ts_ns, s->ts_ns, node});
    }
    for (int k = 0; ok && k < x->nmains; k++) {
        main_thread *p = &x->mains[k];
        ok = sort_held(&p->busy) && sort_held(&p->calls) && sort_held(&p->spans) && sort_held(&p->waits);
        if (ok)
            merge_busy(&p->busy);
    }
    return ok;
}

site_lines *site_lines_build(const run_model *m)
{
    site_lines *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->m = m;
    const host_activity *h = &m->host_activity;
    host_names_wait(h); /* a frame's file and line decide whether it is the user's */
    x->reach = h->rate_hz > 0 ? (int64_t)(SITE_LINE_PERIODS * 1e9 / h->rate_hz) : 0;
    bool ok = h->nsites == 0 || ((x->calls = launch_index_build(&m->events)) != NULL && borrowing_processes(x));
    if (ok && x->nmains > 0)
        ok = choose_main_threads(x) && gather(x);
    if (!ok) {
        site_lines_free(x);
        return NULL;
    }
    return x;
}

void site_lines_free(site_lines *x)
{
    if (!x)
        return;
    for (int k = 0; k < x->nmains; k++) {
        spill_free(x->mains[k].busy.v);
        spill_free(x->mains[k].calls.v);
        spill_free(x->mains[k].spans.v);
        spill_free(x->mains[k].waits.v);
    }
    free(x->mains);
    launch_index_free(x->calls);
    free(x);
}

/* The first of l's items (by start) starting after t. */
static size_t after(const held_list *l, int64_t t)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->v[mid].start <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Where t lies in a main thread's time: 2i+1 inside its i-th merged CUDA call, 2i in the stretch
 * before it (2n after the last). */
static size_t stretch_of(const main_thread *p, int64_t t)
{
    size_t i = after(&p->busy, t);
    return i > 0 && t < p->busy.v[i - 1].end ? 2 * (i - 1) + 1 : 2 * i;
}

/* The innermost span in progress at t (spans of a thread nest: the latest begun that still runs). */
static int span_at(const main_thread *p, int64_t t)
{
    const held *v = p->spans.v;
    for (size_t i = after(&p->spans, t); i > 0 && v[i - 1].start >= t - p->longest; i--)
        if (v[i - 1].end > t)
            return v[i - 1].node;
    return -1;
}

/* Two frames of one line: the same node, or the same function, file and line reached otherwise. */
static bool same_line(const host_activity *h, int a, int b)
{
    if (a == b)
        return true;
    const host_frame *x = &h->frames[a], *y = &h->frames[b];
    return x->line == y->line && x->function && y->function && strcmp(x->function, y->function) == 0 && x->file &&
           y->file && strcmp(x->file, y->file) == 0;
}

static int64_t distance(int64_t a, int64_t b)
{
    return a > b ? a - b : b - a;
}

/* The waiting sample's line for t (site_line.h's rule), -1 none. */
static int wait_at(const site_lines *x, const main_thread *p, int64_t t)
{
    if (x->reach <= 0 || p->waits.n == 0)
        return -1;
    const host_activity *h = &x->m->host_activity;
    size_t here = stretch_of(p, t);
    int near = -1, any = -1;
    int64_t near_d = 0, any_d = 0;
    bool agree = true;
    const held_list *l = &p->waits;
    for (size_t i = after(l, t - x->reach - 1); i < l->n && l->v[i].start <= t + x->reach; i++) {
        const held *w = &l->v[i];
        size_t at = stretch_of(p, w->start);
        if (at % 2 == 1 && at != here)
            continue; /* waiting in a CUDA call of its own that t is not in: a sync's line */
        int64_t d = distance(w->start, t);
        if (at == here && (near < 0 || d < near_d)) {
            near = w->node;
            near_d = d;
        }
        agree = agree && (any < 0 || same_line(h, any, w->node));
        if (any < 0 || d < any_d) {
            any = w->node;
            any_d = d;
        }
    }
    return near >= 0 ? near : agree ? any : -1;
}

site_line site_line_at(const site_lines *x, uint32_t pid, uint32_t tid, int64_t start_ns, int frame)
{
    const host_activity *h = &x->m->host_activity;
    int own = frame >= 0 && frame < h->nframes ? host_user_node(h, frame) : -1;
    site_line l = {own, SITE_LINE_OWN, tid};
    if (own >= 0 && host_user_frame(&h->frames[own]))
        return l;
    const main_thread *p = main_of(x, pid);
    if (!p || tid == p->tid)
        return l;
    size_t i = after(&p->calls, start_ns);
    int node = -1;
    if (i > 0 && p->calls.v[i - 1].end > start_ns) {
        node = p->calls.v[i - 1].node;
        l.from = SITE_LINE_MAIN_CALL;
    } else if ((node = span_at(p, start_ns)) >= 0) {
        l.from = SITE_LINE_MAIN_SPAN;
    } else if ((node = wait_at(x, p, start_ns)) >= 0) {
        l.from = SITE_LINE_MAIN_SAMPLE;
    }
    if (node >= 0) {
        l.node = node;
        l.tid = p->tid;
    }
    return l;
}

site_line site_line_of(const site_lines *x, const host_site *s)
{
    const api_event *a = x->calls ? launch_of(x->calls, s->pid, s->correlation) : NULL;
    if (!a) { /* no call recorded: its thread and time are not known, so its own stack it is */
        const host_activity *h = &x->m->host_activity;
        return (site_line){s->frame >= 0 && s->frame < h->nframes ? host_user_node(h, s->frame) : -1, SITE_LINE_OWN, 0};
    }
    return site_line_at(x, s->pid, a->thread, a->start_ns, s->frame);
}

void site_line_words(const host_activity *h, site_line l, char *buf, size_t len)
{
    if (l.node < 0 || l.node >= h->nframes) {
        copy_str(buf, len, "");
        return;
    }
    char at[HOST_NAME];
    host_frame_name(&h->frames[l.node], true, at, sizeof at);
    if (l.from == SITE_LINE_OWN)
        copy_str(buf, len, at);
    else
        snprintf(buf, len, "main thread at %s", at);
}
