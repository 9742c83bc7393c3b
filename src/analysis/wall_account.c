/* Where the wall-clock time went: see wall_account.h.
 *
 * Each layer of wall_account.h's order is a stream of disjoint pieces in time order; an idle
 * stretch is filled by asking the first layer, and the instants a layer leaves (or does not
 * decide) are asked of the next. Every layer moves forward only, so a process's timeline is built
 * in one pass over its calls, samples and GPU work, and a long run's millions of calls are walked,
 * not copied: a layer of calls is painted as it is read. */
#include "wall_account.h"

#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "array_grow.h"
#include "host_where.h"
#include "idle_causes.h"
#include "key_sort.h"
#include "source.h"
#include "spill.h"
#include "thresholds.h"

/* A stretch of one evidence, from its start to the next one's (the last one's to its process's
 * end): segments tile the span, so an end need not be kept. Packed: a long run holds millions. */
typedef struct __attribute__((packed)) {
    int64_t start;
    uint32_t ev;
} seg;

typedef struct {
    uint32_t pid, tid;   /* the process and its accounted thread */
    int64_t lo, hi;      /* its span: from its first record to its last */
    seg *segs;           /* tiling [lo, hi), in order */
    size_t nsegs;
    /* Each evidence's time over segments [0, c * ck), at cum[c * nev + ev]: a sum over a long
     * span is the difference of two checkpoints, with at most 2 * ck segments walked at its ends
     * (a 60 s run's account of its every step walked its millions of segments once per step). */
    int64_t *cum;
    size_t ck, ncum;
    /* Segment c * ck's start, for c below nck: a search for an instant looks here first, then
     * among ck segments (the segments are tens of MB in a long run, and a search straight over
     * them missed the cache at every step). */
    int64_t *ck_start;
    size_t nck;
    int64_t *sample_ts;  /* the accounted thread's samples (Python ones, else CPU ones), by time */
    uint8_t *sample_state; /* the state at each */
    size_t nsamples;
    bool sampled;
} wt_proc;

struct wall_timeline {
    const run_model *m;
    wt_proc *procs;
    int nprocs;
    wall_evidence *ev;
    size_t nev;
    uint32_t *slots; /* open addressing over ev: index + 1, 0 empty */
    size_t nslots;
};

struct wall_scratch {
    int64_t *ns;       /* per evidence */
    uint32_t *touched;
    size_t ntouched;
    size_t n;
};

static int64_t seg_end(const wt_proc *p, size_t k) { return k + 1 < p->nsegs ? p->segs[k + 1].start : p->hi; }

/* ---- evidence, interned ---- */

static uint64_t ev_hash(const wall_evidence *e)
{
    uint64_t h = 0xCBF29CE484222325ull;
    int64_t parts[] = {e->state, e->host_wait, e->from, e->rule, e->user, e->via, e->detail, (int64_t)(uintptr_t)e->call};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        h = (h ^ (uint64_t)parts[i]) * 0x100000001B3ull;
    return h;
}

static bool ev_same(const wall_evidence *a, const wall_evidence *b)
{
    return a->state == b->state && a->host_wait == b->host_wait && a->from == b->from && a->rule == b->rule && a->user == b->user &&
           a->via == b->via && a->detail == b->detail && a->call == b->call;
}

static bool ev_rehash(wall_timeline *t)
{
    size_t n = t->nslots ? 2 * t->nslots : 1024;
    uint32_t *s = calloc(n, sizeof *s);
    if (!s)
        return false;
    for (size_t i = 0; i < t->nev; i++) {
        size_t j = ev_hash(&t->ev[i]) & (n - 1);
        while (s[j])
            j = (j + 1) & (n - 1);
        s[j] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = n;
    return true;
}

/* e's id; UINT32_MAX when memory ran out. */
static uint32_t ev_intern(wall_timeline *t, wall_evidence e)
{
    if (2 * (t->nev + 1) > t->nslots && !ev_rehash(t))
        return UINT32_MAX;
    size_t j = ev_hash(&e) & (t->nslots - 1);
    while (t->slots[j]) {
        if (ev_same(&t->ev[t->slots[j] - 1], &e))
            return t->slots[j] - 1;
        j = (j + 1) & (t->nslots - 1);
    }
    wall_evidence *grown = array_grow(t->ev, t->nev, sizeof *t->ev);
    if (!grown)
        return UINT32_MAX;
    t->ev = grown;
    t->ev[t->nev] = e;
    t->slots[j] = (uint32_t)++t->nev;
    return (uint32_t)(t->nev - 1);
}

static wall_evidence evidence(evidence_from from, wall_state s, int rule, int user, int via, int detail,
                              const char *call)
{
    return (wall_evidence){(uint8_t)s, 0, (uint8_t)from, (int16_t)rule, user, via, detail, call};
}

/* ---- pieces and the painter ---- */

/* A piece of a layer: [start, end) under one row. ref is the layer's: a host call's index, a
 * sample piece's, an evidence id. */
typedef struct {
    int64_t start, end;
    int32_t rule;
    uint32_t ref;
} piece;

/* What is painted: an item open over [start, end) with a priority (lower wins; of equal ones the
 * latest started, the innermost of nested ones). */
typedef struct {
    int64_t start, end;
    int32_t prio, rule;
    uint32_t ref;
} item;

/* Pieces of items given in order of start (item_fn), painted as they are asked for: a heap of the
 * open items by end, and at each edge the winner among them (few are open at once: threads times
 * nesting). */
typedef bool (*item_fn)(void *ctx, item *out);

typedef struct {
    item_fn next_item;
    void *ctx;
    item pending;     /* the next item not yet open */
    bool has_pending;
    item *open;       /* a heap by end */
    size_t nopen, cap;
    int64_t t;        /* painted up to here */
    bool oom;
} painter;

static void heap_up(item *h, size_t k)
{
    item x = h[k];
    while (k > 0 && h[(k - 1) / 2].end > x.end) {
        h[k] = h[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h[k] = x;
}

static void heap_pop(item *h, size_t *n)
{
    item last = h[--*n];
    size_t k = 0;
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].end < h[c].end)
            c++;
        if (h[c].end >= last.end)
            break;
        h[k] = h[c];
        k = c;
    }
    if (*n > 0)
        h[k] = last;
}

static void painter_init(painter *p, item_fn f, void *ctx)
{
    memset(p, 0, sizeof *p);
    p->next_item = f;
    p->ctx = ctx;
    p->has_pending = f(ctx, &p->pending);
    p->t = INT64_MIN;
}

static void painter_free(painter *p) { free(p->open); }

/* The next piece painted; false when none is left. */
static bool painter_next(painter *p, piece *out)
{
    for (;;) {
        /* Close what ended, open what starts, at p->t. */
        while (p->nopen > 0 && p->open[0].end <= p->t)
            heap_pop(p->open, &p->nopen);
        if (p->nopen == 0 && p->has_pending && p->pending.start > p->t)
            p->t = p->pending.start; /* nothing open: skip to the next item */
        while (p->has_pending && p->pending.start <= p->t) {
            if (p->pending.end > p->t) {
                if (p->nopen == p->cap) {
                    size_t cap = p->cap ? 2 * p->cap : 16;
                    item *g = realloc(p->open, cap * sizeof *g);
                    if (!g) {
                        p->oom = true;
                        return false;
                    }
                    p->open = g;
                    p->cap = cap;
                }
                p->open[p->nopen] = p->pending;
                heap_up(p->open, p->nopen++);
            }
            p->has_pending = p->next_item(p->ctx, &p->pending);
        }
        if (p->nopen == 0) {
            if (!p->has_pending)
                return false;
            continue;
        }
        int64_t edge = p->open[0].end;
        if (p->has_pending && p->pending.start < edge)
            edge = p->pending.start;
        const item *w = &p->open[0];
        for (size_t i = 1; i < p->nopen; i++) {
            const item *c = &p->open[i];
            if (c->prio < w->prio || (c->prio == w->prio && c->start > w->start))
                w = c;
        }
        *out = (piece){p->t, edge, w->rule, w->ref};
        p->t = edge;
        return true;
    }
}

/* ---- layers ---- */

typedef struct layer layer;
struct layer {
    bool (*pull)(layer *y, piece *out);        /* the next piece, false at the end */
    bool (*accept)(const layer *y, const piece *p); /* whether it decides its instants (NULL: always) */
    uint32_t (*resolve)(layer *y, const piece *p);  /* its evidence */
    piece cur;
    bool has, done;
    void *ctx;
};

/* The layer's pieces before at passed over. */
static void layer_seek(layer *y, int64_t at)
{
    while (!y->done && (!y->has || y->cur.end <= at)) {
        y->has = y->pull(y, &y->cur);
        y->done = !y->has;
    }
}

static void layer_advance(layer *y)
{
    y->has = !y->done && y->pull(y, &y->cur);
    y->done = !y->has;
}

/* Pieces held in an array. */
typedef struct {
    const piece *v;
    size_t n, i;
} array_src;

static bool array_pull(layer *y, piece *out)
{
    array_src *a = y->ctx;
    if (a->i >= a->n)
        return false;
    *out = a->v[a->i++];
    return true;
}

/* ---- building one process ---- */

#define LAST_SITES 64 /* builder.last_site's slots */
#define REMAPPED 1024 /* builder.remapped's slots */
#define CALLS_SEEN 256 /* builder.calls_seen's slots */
#define KERNEL_NAMES 256 /* gpu_items' slots */

typedef struct {
    wall_timeline *t;
    const run_model *m;
    wt_proc *p;
    cause_matcher *cm;
    const size_t *calls; /* the run's host calls by start */
    size_t ncalls;
    const host_site **sites; /* by (pid, correlation) */
    size_t nsites;
    /* The accounted thread's sample pieces (ref: the sample's evidence id; rule: its row). */
    piece *samples;
    size_t nsamples;
    bool off_cpu;        /* only CPU samples: where none fell, the thread was off the CPU */
    int64_t period;      /* of the samples */
    /* The calls' rows, by call index: computed once per distinct name. */
    int32_t *call_rule;
    layer *layers;
    int nlayers;
    int gpu_state;      /* the GPU state of the instants being filled, -1 where the GPU is idle;
                         * WS_LAUNCH in a gap between kernels under IDLE_BETWEEN_KERNELS_NS */
    uint32_t between;   /* such a gap's evidence where the host's says nothing */
    uint32_t unseen;    /* WS_UNRECORDED's, for a capture's start before the GPU's first recorded
                         * work (gpu_items): the GPU's state not known, the host's view kept */
    piece *longs;       /* the accounted thread's long calls (long_calls) */
    size_t nlong;
    /* The latest call with a call site, per thread and name (a few slots by name): a call without
     * one (sites are taken for a share of the calls, holding their cost to 1%) is taken to come
     * from where the latest one of its name on its thread came from. */
    struct {
        const char *name;
        uint32_t tid;
        int32_t user, via;
    } last_site[LAST_SITES];
    /* emit's GPU evidence of a host evidence and GPU state (key + 1; 0 empty) */
    struct {
        uint32_t key, ev;
    } remapped[REMAPPED];
    struct {
        wall_evidence e; /* call_evidence's, by a hash of its rule, lines and call (id + 1; 0 empty) */
        uint32_t id;
    } calls_seen[CALLS_SEEN];
    uint32_t fallback;       /* fallback's evidence, once known (UINT32_MAX before) */
    bool oom;
} builder;

static bool emit(builder *b, int64_t s, int64_t e, uint32_t ev)
{
    if (e <= s)
        return true;
    if (ev != UINT32_MAX && b->gpu_state >= 0 && !wall_state_gpu((wall_state)b->gpu_state)) {
        /* A gap between kernels too short to be anything but launch latency: launch overhead,
         * with what the host did meanwhile (its view: in the launch call, at the user's line),
         * the gap's own words where the host's evidence says nothing. */
        wall_evidence g = b->t->ev[ev];
        uint32_t own = b->gpu_state == WS_LAUNCH ? b->between : b->unseen;
        ev = g.rule < 0 ? own : ev_intern(b->t, (wall_evidence){.state = (uint8_t)b->gpu_state,
                                                                        .from = EV_GPU, .rule = g.rule,
                                                                        .user = g.user, .via = g.via,
                                                                        .detail = g.detail, .call = g.call});
    } else if (ev != UINT32_MAX && b->gpu_state >= 0) {
        /* The GPU worked: its state, with what the host did meanwhile (the host's view), and
         * whether that was a wait on the GPU. Remembered: a kernel's pieces repeat a few. */
        uint32_t key = ev * WS_COUNT + (uint32_t)b->gpu_state;
        size_t slot = key % REMAPPED;
        if (b->remapped[slot].key == key + 1) {
            ev = b->remapped[slot].ev;
        } else {
            wall_evidence g = b->t->ev[ev];
            g.state = (uint8_t)b->gpu_state;
            g.host_wait = g.rule >= 0 && cause_rules[g.rule].state == WS_SYNC;
            ev = ev_intern(b->t, g);
            b->remapped[slot].key = key + 1;
            b->remapped[slot].ev = ev;
        }
    }
    if (ev == UINT32_MAX) {
        b->oom = true;
        return false;
    }
    wt_proc *p = b->p;
    if (p->nsegs > 0 && p->segs[p->nsegs - 1].ev == ev)
        return true; /* the tiling goes on: the same evidence's segment lasts */
    seg *grown = array_grow_spill(p->segs, p->nsegs, sizeof *p->segs);
    if (!grown) {
        b->oom = true;
        return false;
    }
    p->segs = grown;
    p->segs[p->nsegs++] = (seg){s, ev};
    return true;
}

/* The default where no layer decides: off the CPU, or not known. */
static uint32_t fallback(builder *b)
{
    if (b->fallback == UINT32_MAX)
        b->fallback = b->off_cpu ? ev_intern(b->t, evidence(EV_NONE, WS_WAITING, cause_rule_find("waiting"), -1, -1, -1, NULL))
                                 : ev_intern(b->t, evidence(EV_NONE, WS_UNKNOWN, -1, -1, -1, -1, NULL));
    return b->fallback;
}

static void fill(builder *b, int L, int64_t a, int64_t e)
{
    if (a >= e || b->oom)
        return;
    if (L == b->nlayers) {
        emit(b, a, e, fallback(b));
        return;
    }
    layer *y = &b->layers[L];
    layer_seek(y, a);
    int64_t t = a;
    while (y->has && y->cur.start < e && !b->oom) {
        int64_t s = y->cur.start > t ? y->cur.start : t, end = y->cur.end < e ? y->cur.end : e;
        if (s > t)
            fill(b, L + 1, t, s);
        if (end > s) {
            if (!y->accept || y->accept(y, &y->cur))
                emit(b, s, end, y->resolve(y, &y->cur));
            else
                fill(b, L + 1, s, end);
        }
        t = end > t ? end : t;
        if (y->cur.end <= e)
            layer_advance(y);
        else
            break;
    }
    if (t < e)
        fill(b, L + 1, t, e);
}

/* The sample piece at t (index), or SIZE_MAX. */
static size_t sample_at(const builder *b, int64_t t)
{
    size_t lo = 0, hi = b->nsamples;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->samples[mid].end <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < b->nsamples && b->samples[lo].start <= t ? lo : SIZE_MAX;
}

/* ---- the calls ---- */

/* A call's row: its name's, with what the name lacks (a copy of pageable memory, a launch the
 * counter pass replayed); the lazy context is marked apart (mark_lazy_context). */
typedef struct {
    uint32_t pid, corr;
} corr_key;

static int cmp_corr(const void *a, const void *b)
{
    const corr_key *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

static bool has_corr(const corr_key *k, size_t n, uint32_t pid, uint32_t corr)
{
    corr_key want = {pid, corr};
    return corr && n && bsearch(&want, k, n, sizeof *k, cmp_corr);
}

/* Whether t falls in one of the built-in run's counter passes (its workloads' "counters" phases):
 * the range profiler replays each launch there, inside the launch call. */
static bool in_counter_pass(const run_model *m, int64_t t)
{
    for (int w = 0; w < m->builtin.nworkloads; w++)
        for (int k = 0; k < m->builtin.workloads[w].nphases; k++) {
            const phase *ph = &m->builtin.workloads[w].phases[k];
            if (strcmp(ph->name, "counters") == 0 && ph->start_ns <= t && t < ph->end_ns)
                return true;
        }
    return false;
}

/* Every call's row (call_rule[i], by host call index), once for the run. */
static int32_t *call_rules(const run_model *m)
{
    const event_list *s = &m->events;
    size_t n = s->napis + s->nsyncs, nc = s->ncopies ? s->ncopies : 1;
    int32_t *r = spill_alloc((n ? n : 1) * sizeof *r);
    corr_key *pageable = malloc(nc * sizeof *pageable), *to_host = malloc(nc * sizeof *to_host);
    corr_key *replayed = malloc((m->nlaunch_counters ? (size_t)m->nlaunch_counters : 1) * sizeof *replayed);
    if (!r || !pageable || !to_host || !replayed) {
        spill_free(r);
        free(pageable);
        free(to_host);
        free(replayed);
        return NULL;
    }
    size_t np = 0, nr = 0, nd = 0;
    for (size_t i = 0; i < s->ncopies; i++)
        if (s->copies[i].dst == MEM_PAGEABLE && s->copies[i].dir == COPY_D2H)
            to_host[nd++] = (corr_key){s->copies[i].pid, s->copies[i].correlation};
        else if (s->copies[i].src == MEM_PAGEABLE || s->copies[i].dst == MEM_PAGEABLE)
            pageable[np++] = (corr_key){s->copies[i].pid, s->copies[i].correlation};
    /* Only mmprof's own pass replayed the launches it counted (Nsight Compute's, --ncu, ran apart). */
    for (int i = 0; i < m->nlaunch_counters && !m->counters.from[0]; i++)
        replayed[nr++] = (corr_key){m->launch_counters[i].pid, m->launch_counters[i].correlation};
    qsort(pageable, np, sizeof *pageable, cmp_corr);
    qsort(to_host, nd, sizeof *to_host, cmp_corr);
    qsort(replayed, nr, sizeof *replayed, cmp_corr);
    int sync = cause_rule_find("sync"), page = cause_rule_find("pageable_copy"), wait = cause_rule_find("copy_to_host"),
        launch = cause_rule_find("launch"), replay = cause_rule_find("counter_replay");
    bool passes = source_has(m->source, HAS_WORKLOADS) && m->counters.asked;
    /* Each distinct name's row, matched once: names are the model's, one pointer each, so a table
     * by pointer (open addressing; a run has tens of names, a long one a few hundred). */
    enum { SEEN = 4096 };
    struct seen_name {
        const char *name;
        int32_t rule;
        bool copy;
    } *seen = calloc(SEEN, sizeof *seen);
    if (!seen) {
        spill_free(r);
        free(pageable);
        free(to_host);
        free(replayed);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (i >= s->napis) {
            r[i] = sync;
            continue;
        }
        const api_event *a = &s->apis[i];
        struct seen_name *e = NULL;
        for (size_t k = 0, h = ((uintptr_t)a->name >> 3) * 0x9E3779B97F4A7C15ull >> 52; k < SEEN; k++) {
            e = &seen[(h + k) % SEEN];
            if (e->name == a->name || !e->name)
                break;
        }
        if (!a->name || e->name != a->name) { /* new, or the table full */
            e->name = a->name;
            e->rule = cause_of_api(a->name);
            e->copy = a->name && strstr(a->name, "emcpy");
        }
        int32_t rule = e->rule;
        /* A copy into pageable memory returns once the data is there: the host waits on the GPU.
         * One from it (or to it the other way) stages the data through a pinned buffer. A launch
         * the counter pass replayed is mmprof's own work (profile --counters names its launches;
         * the built-in run's are those of its counter passes). */
        bool copy = e->copy;
        if (copy && has_corr(to_host, nd, a->pid, a->correlation))
            rule = wait;
        else if (copy && has_corr(pageable, np, a->pid, a->correlation))
            rule = page;
        else if (rule == launch && (has_corr(replayed, nr, a->pid, a->correlation) ||
                                    (passes && in_counter_pass(m, a->start_ns))))
            rule = replay;
        r[i] = rule;
    }
    free(seen);
    free(pageable);
    free(to_host);
    free(replayed);
    return r;
}

/* The runtime creates its context lazily, inside the first call that needs one: a process's first
 * long runtime call of those that may (allocation and set-up calls), before any explicit context
 * call of its, is context creation (idle_causes.h says the same of its own causes). */
static void mark_lazy_context(const run_model *m, const size_t *calls, size_t ncalls, uint32_t pid, int32_t *rule)
{
    const event_list *s = &m->events;
    int ctx = cause_rule_find("cuda_context"), lazy = cause_rule_find("cuda_context_lazy"),
        alloc = cause_rule_find("alloc");
    int64_t explicit_ctx = INT64_MAX;
    size_t first_long = SIZE_MAX;
    for (size_t o = 0; o < ncalls; o++) {
        size_t i = calls[o];
        if (i >= s->napis || s->apis[i].pid != pid)
            continue;
        const api_event *a = &s->apis[i];
        /* The calls come by start: once past the first explicit context call or the first long
         * call, none later changes the mark (a long run's millions were walked for it). */
        if (a->start_ns > explicit_ctx || (first_long != SIZE_MAX && a->start_ns > s->apis[first_long].start_ns))
            break;
        if (a->kind == API_DRIVER && rule[i] == ctx && a->start_ns < explicit_ctx)
            explicit_ctx = a->start_ns;
        if (a->kind != API_RUNTIME || first_long != SIZE_MAX || a->end_ns - a->start_ns < IDLE_LAZY_CONTEXT_NS)
            continue;
        char n[64];
        api_display_name(a->name ? a->name : "", n, sizeof n);
        /* allocation and the set-up calls a program makes first (PyTorch: the stream priorities) */
        if (rule[i] == alloc || strncmp(n, "cudaSetDevice", 13) == 0 || strncmp(n, "cudaStreamCreate", 16) == 0 ||
            strncmp(n, "cudaEventCreate", 15) == 0 || strncmp(n, "cudaGetDevice", 13) == 0 ||
            strncmp(n, "cudaDeviceGet", 13) == 0)
            first_long = i;
    }
    if (first_long != SIZE_MAX && s->apis[first_long].start_ns < explicit_ctx)
        rule[first_long] = lazy;
}

/* A process's calls as items, in order of start: the accounted thread's, or the others'. */
typedef struct {
    builder *b;
    size_t o;       /* position in b->calls */
    bool own;       /* the accounted thread's calls, else the other threads' */
} call_src;

static bool call_item(void *ctx, item *out)
{
    call_src *c = ctx;
    const builder *b = c->b;
    const event_list *s = &b->m->events;
    for (; c->o < b->ncalls; c->o++) {
        size_t i = b->calls[c->o];
        uint32_t pid = i < s->napis ? s->apis[i].pid : host_call_sync(s, i)->pid;
        uint32_t tid = i < s->napis ? s->apis[i].thread : host_call_sync(s, i)->thread;
        if (pid != b->p->pid || (tid == b->p->tid) != c->own)
            continue;
        int64_t st = host_call_start(s, i), en = host_call_end(s, i);
        int32_t rule = b->call_rule[i];
        if (en <= st)
            continue;
        c->o++;
        *out = (item){st, en, rule, rule, (uint32_t)i};
        return true;
    }
    return false;
}

typedef struct {
    painter paint;
    call_src src;
} call_layer;

static bool call_pull(layer *y, piece *out)
{
    call_layer *c = y->ctx;
    return painter_next(&c->paint, out);
}

/* A call's evidence: its row and name, and the user's line from its call site, else from the
 * accounted thread's sample nearest its start. */
static uint32_t call_evidence(builder *b, const piece *p)
{
    const event_list *s = &b->m->events;
    size_t i = p->ref;
    const api_event *a = host_call_api(s, i);
    int user = -1, via = -1;
    const host_site *site = a ? host_site_find(b->sites, b->nsites, a->pid, a->correlation) : NULL;
    /* a slot per name (names are the model's, one pointer each), shared by the threads */
    size_t slot = a ? ((uintptr_t)a->name >> 4) % LAST_SITES : 0;
    if (site) {
        cause_hit h = cause_of_stack(b->cm, site->frame, THREAD_RUNNING);
        user = h.user;
        via = h.via;
        b->last_site[slot].name = a->name;
        b->last_site[slot].tid = a->thread;
        b->last_site[slot].user = user;
        b->last_site[slot].via = via;
    } else if (a && b->last_site[slot].name == a->name && b->last_site[slot].tid == a->thread) {
        user = b->last_site[slot].user;
        via = b->last_site[slot].via;
    } else {
        size_t k = sample_at(b, host_call_start(s, i));
        if (k != SIZE_MAX) {
            const wall_evidence *e = &b->t->ev[b->samples[k].ref];
            user = e->user;
            via = e->via;
        }
    }
    wall_evidence e = evidence(EV_CALL, cause_rules[p->rule].state, p->rule, user, via, -1, a ? a->name : NULL);
    /* a loop's calls repeat a few evidences: remembered by slot before the interning table */
    size_t seen = (size_t)(((uint64_t)(uint32_t)p->rule * 0x9E3779B1u) ^ ((uint64_t)(uint32_t)user * 0x85EBCA6Bu) ^
                           ((uint64_t)(uint32_t)via * 0xC2B2AE35u) ^ ((uintptr_t)e.call >> 3)) % CALLS_SEEN;
    if (b->calls_seen[seen].id && ev_same(&e, &b->calls_seen[seen].e))
        return b->calls_seen[seen].id - 1;
    uint32_t id = ev_intern(b->t, e);
    if (id != UINT32_MAX) {
        b->calls_seen[seen].e = e;
        b->calls_seen[seen].id = id + 1;
    }
    return id;
}

static uint32_t call_resolve(layer *y, const piece *p) { return call_evidence(((call_layer *)y->ctx)->src.b, p); }

/* ---- the other layers' pieces ---- */

static uint32_t ref_resolve(layer *y, const piece *p)
{
    (void)y;
    return p->ref;
}

static bool specific_only(const layer *y, const piece *p)
{
    (void)y;
    return cause_rule_specific(p->rule);
}

/* Painted pieces of an array of items (ranges, spans), materialized: they are few. */
typedef struct {
    const item *v;
    size_t n, i;
} item_array;

static bool array_item(void *ctx, item *out)
{
    item_array *a = ctx;
    if (a->i >= a->n)
        return false;
    *out = a->v[a->i++];
    return true;
}

static uint64_t item_start_key(const void *it, const void *ctx)
{
    (void)ctx;
    return key_of_i64(((const item *)it)->start);
}

/* items (sorted here) painted into *out; false when memory ran out. */
static bool paint_items(item *items, size_t n, piece **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (n == 0)
        return true;
    if (!key_sort(items, n, sizeof *items, item_start_key, NULL))
        return false;
    item_array src = {items, n, 0};
    painter p;
    painter_init(&p, array_item, &src);
    piece x;
    bool ok = true;
    while (ok && painter_next(&p, &x)) {
        piece *g = array_grow_spill(*out, *nout, sizeof **out);
        if (!g) {
            ok = false;
            break;
        }
        *out = g;
        (*out)[(*nout)++] = x;
    }
    ok = ok && !p.oom;
    painter_free(&p);
    return ok;
}

static const char *range_kind(region_kind k)
{
    switch (k) {
    case REGION_NVTX: return "nvtx";
    case REGION_ANNOTATION: return "annotation";
    case REGION_PHASE: return "phase";
    case REGION_WORKLOAD: return "workload";
    case REGION_CAPTURE: return "capture";
    default: return "run";
    }
}

/* Open ranges a row names, painted (the innermost wins), with their evidence. */
static bool range_pieces(builder *b, piece **out, size_t *nout)
{
    const run_model *m = b->m;
    item *items = NULL;
    size_t n = 0;
    bool ok = true;
    for (int i = 1; ok && i < m->nregions; i++) {
        const region *r = &m->regions[i];
        if (r->pid && b->p->pid && r->pid != b->p->pid)
            continue;
        const char *name = r->name;
        char label[64];
        if (r->kind == REGION_WORKLOAD && r->workload >= 0) { /* "cpu-openblas", as the rows name it */
            workload_label(&m->builtin.workloads[r->workload], label, sizeof label);
            name = label;
        }
        int rule = cause_of_range(range_kind(r->kind), name);
        if (rule < 0)
            continue;
        uint32_t ev = ev_intern(b->t, evidence(EV_RANGE, cause_rules[rule].state, rule, -1, -1, -1, NULL));
        item *g = array_grow(items, n, sizeof *items);
        ok = g && ev != UINT32_MAX;
        if (ok) {
            items = g;
            items[n++] = (item){r->start_ns, r->end_ns, 0, rule, ev};
        }
    }
    for (int i = 0; ok && source_has(m->source, HAS_WORKLOADS) && i < m->builtin.ntool_phases; i++) {
        const phase *ph = &m->builtin.tool_phases[i];
        int rule = cause_of_range("tool", ph->name);
        if (rule < 0)
            continue;
        uint32_t ev = ev_intern(b->t, evidence(EV_RANGE, cause_rules[rule].state, rule, -1, -1, -1, NULL));
        item *g = array_grow(items, n, sizeof *items);
        ok = g && ev != UINT32_MAX;
        if (ok) {
            items = g;
            items[n++] = (item){ph->start_ns, ph->end_ns, 0, rule, ev};
        }
    }
    ok = ok && paint_items(items, n, out, nout);
    free(items);
    return ok;
}

/* The accounted thread's recorded spans (an import's CPU ops; the profile's garbage collections
 * and sleeps), painted (the innermost wins), each named by its stack. */
static bool span_pieces(builder *b, piece **out, size_t *nout)
{
    const host_activity *h = &b->m->host_activity;
    item *items = NULL;
    size_t n = 0;
    for (size_t i = 0; i < h->nspans; i++) {
        const host_span *s = &h->spans[i];
        if (s->pid != b->p->pid || s->tid != b->p->tid || s->end_ns <= s->start_ns)
            continue;
        cause_hit hit = cause_of_stack(b->cm, s->frame, THREAD_UNKNOWN);
        if (hit.rule < 0)
            continue;
        uint32_t ev = ev_intern(b->t, evidence(EV_SPAN, cause_rules[hit.rule].state, hit.rule, hit.user, hit.via, hit.detail, NULL));
        item *g = array_grow_spill(items, n, sizeof *items);
        if (!g || ev == UINT32_MAX) {
            spill_free(items);
            return false;
        }
        items = g;
        items[n++] = (item){s->start_ns, s->end_ns, 0, hit.rule, ev};
    }
    bool ok = paint_items(items, n, out, nout);
    spill_free(items);
    return ok;
}

/* The capture windows' complement inside the process's span: nothing was recorded there. And
 * where its first window opened after CUDA calls (calls_before), the GPU's state up to its first
 * recorded work is not known either: work launched before the window may have run on (the
 * regions' "unseen" start, regions.c). gpu_first: the process's first GPU work, INT64_MAX none. */
static bool unrecorded_pieces(builder *b, piece **out, size_t *nout)
{
    const capture_info *c = &b->m->capture;
    *out = NULL;
    *nout = 0;
    item *items = NULL;
    size_t n = 0;
    const capture_window *first = NULL;
    for (int i = 0; i < c->nwindows; i++)
        if (c->windows[i].pid == b->p->pid && (!first || c->windows[i].start_ns < first->start_ns))
            first = &c->windows[i];
    if (!first)
        return true; /* no capture: every instant was recorded */
    for (int i = 0; i < c->nwindows; i++)
        if (c->windows[i].pid == b->p->pid && c->windows[i].end_ns > c->windows[i].start_ns) {
            item *g = array_grow(items, n, sizeof *items);
            if (!g) {
                free(items);
                return false;
            }
            items = g;
            items[n++] = (item){c->windows[i].start_ns, c->windows[i].end_ns, 0, 0, 0};
        }
    piece *win = NULL;
    size_t nwin = 0;
    bool ok = paint_items(items, n, &win, &nwin);
    free(items);
    uint32_t ev = ev_intern(b->t, evidence(EV_NONE, WS_UNRECORDED, -1, -1, -1, -1, NULL));
    int64_t t = b->p->lo;
    for (size_t i = 0; ok && i <= nwin; i++) {
        int64_t s = i < nwin ? win[i].start : b->p->hi;
        if (s > t) {
            piece *g = array_grow(*out, *nout, sizeof **out);
            ok = g != NULL && ev != UINT32_MAX;
            if (ok) {
                *out = g;
                (*out)[(*nout)++] = (piece){t, s, -1, ev};
            }
        }
        if (i < nwin && win[i].end > t)
            t = win[i].end;
    }
    spill_free(win);
    return ok;
}

/* A sample stands for the instants around it, but not across the thread's long CUDA calls: a
 * sample inside one (torch.cuda.synchronize at the loop's end) says nothing of what the thread
 * did before the call began, and one outside says nothing of the call (the call layer names its
 * instants exactly). The accounted thread's calls of SAMPLE_CLIP_NS or more, outermost ones. */
#define SAMPLE_CLIP_NS 1000000LL

static bool long_calls(builder *b)
{
    const event_list *s = &b->m->events;
    for (size_t o = 0; o < b->ncalls; o++) {
        size_t i = b->calls[o];
        uint32_t pid = i < s->napis ? s->apis[i].pid : host_call_sync(s, i)->pid;
        uint32_t tid = i < s->napis ? s->apis[i].thread : host_call_sync(s, i)->thread;
        int64_t st = host_call_start(s, i), en = host_call_end(s, i);
        if (pid != b->p->pid || tid != b->p->tid || en - st < SAMPLE_CLIP_NS)
            continue;
        if (b->nlong > 0 && st < b->longs[b->nlong - 1].end) { /* nested in the last: keep the outer */
            if (en > b->longs[b->nlong - 1].end)
                b->longs[b->nlong - 1].end = en;
            continue;
        }
        piece *g = array_grow(b->longs, b->nlong, sizeof *b->longs);
        if (!g)
            return false;
        b->longs = g;
        b->longs[b->nlong++] = (piece){st, en, -1, 0};
    }
    return true;
}

/* [*s, *e), a sample at ts's reach, clipped by the long calls (long_calls). */
static void clip_to_calls(const builder *b, int64_t ts, int64_t *s, int64_t *e)
{
    size_t lo = 0, hi = b->nlong;
    while (lo < hi) { /* the first long call ending after *s */
        size_t mid = lo + (hi - lo) / 2;
        if (b->longs[mid].end <= *s)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k < b->nlong && b->longs[k].start < *e; k++) {
        const piece *c = &b->longs[k];
        if (c->start <= ts && ts < c->end) { /* inside it: it alone */
            *s = *s > c->start ? *s : c->start;
            *e = *e < c->end ? *e : c->end;
            return;
        }
        if (c->end <= ts && c->end > *s)
            *s = c->end;
        else if (c->start > ts && c->start < *e)
            *e = c->start;
    }
}

/* Where the Python sampler missed the thread (a stall of its own), the CPU samples that fell
 * there stand for their instants: the thread ran, and their stacks say where. Those after the
 * thread's last Python sample are the interpreter's exit (the sampler stops when the script has
 * left its last line; Python's finalization and the libraries' teardown run on): where no specific
 * row names their stack, they are that (cause_table.c's py_exit). b->samples' pieces are merged
 * with theirs, in order. */
static bool cpu_gap_pieces(builder *b, const host_sample *const *cpu, size_t kc)
{
    piece *add = NULL;
    int64_t *add_ts = NULL; /* their samples' instants, counted with the Python ones' */
    size_t na = 0;
    int64_t P = b->period, last_end = INT64_MIN;
    int exit_rule = cause_rule_find("py_exit");
    for (size_t i = 0; i < kc; i++) {
        int64_t ts = cpu[i]->ts_ns;
        if (sample_at(b, ts) != SIZE_MAX)
            continue;
        /* clipped to the Python pieces around it and the CPU piece before */
        size_t lo = 0, hi = b->nsamples;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (b->samples[mid].start <= ts)
                lo = mid + 1;
            else
                hi = mid;
        }
        int64_t s = ts - P, e = ts + P;
        if (lo > 0 && b->samples[lo - 1].end > s)
            s = b->samples[lo - 1].end;
        if (lo < b->nsamples && b->samples[lo].start < e)
            e = b->samples[lo].start;
        if (last_end > s)
            s = last_end;
        clip_to_calls(b, ts, &s, &e);
        if (e <= s)
            continue;
        cause_hit hit = cause_of_stack(b->cm, cpu[i]->frame, THREAD_RUNNING);
        if (lo == b->nsamples && b->nsamples > 0 && exit_rule >= 0 && !cause_rule_specific(hit.rule))
            hit.rule = exit_rule, hit.detail = -1;
        wall_state st = hit.rule >= 0 ? cause_rules[hit.rule].state : WS_UNKNOWN;
        uint32_t ev = ev_intern(b->t, evidence(EV_SAMPLE, st, hit.rule, hit.user, hit.via, hit.detail, NULL));
        piece *g = array_grow_spill(add, na, sizeof *add);
        if (g)
            add = g;
        int64_t *gt = g ? array_grow_spill(add_ts, na, sizeof *add_ts) : NULL;
        if (gt)
            add_ts = gt;
        if (!g || !gt || ev == UINT32_MAX) {
            spill_free(add);
            spill_free(add_ts);
            return false;
        }
        add_ts[na] = ts;
        add[na++] = (piece){s, e, hit.rule, ev};
        last_end = e;
    }
    if (na == 0)
        return true;
    wt_proc *p = b->p;
    piece *all = spill_alloc((b->nsamples + na) * sizeof *all);
    int64_t *all_ts = spill_alloc((p->nsamples + na) * sizeof *all_ts);
    uint8_t *states = spill_alloc(p->nsamples + na);
    if (!all || !all_ts || !states) {
        spill_free(all);
        spill_free(all_ts);
        spill_free(states);
        spill_free(add);
        spill_free(add_ts);
        return false;
    }
    size_t i = 0, j = 0, k = 0;
    while (i < b->nsamples || j < na)
        all[k++] = j == na || (i < b->nsamples && b->samples[i].start <= add[j].start) ? b->samples[i++] : add[j++];
    spill_free(b->samples);
    b->samples = all;
    b->nsamples = k;
    /* the instants, in order, for the accounts' sample counts (build_process fills the states) */
    for (i = j = k = 0; i < p->nsamples || j < na;)
        all_ts[k++] = j == na || (i < p->nsamples && p->sample_ts[i] <= add_ts[j]) ? p->sample_ts[i++] : add_ts[j++];
    spill_free(p->sample_ts);
    spill_free(p->sample_state);
    p->sample_ts = all_ts;
    p->sample_state = states;
    p->nsamples = k;
    spill_free(add);
    spill_free(add_ts);
    return true;
}

/* The accounted thread's samples as pieces: Python ones where it has any (a specific row of a CPU
 * sample inside a piece standing in for the Python one's generic row), else CPU ones. */
static bool sample_pieces(builder *b)
{
    const host_activity *h = &b->m->host_activity;
    wt_proc *p = b->p;
    size_t npy = 0, ncpu = 0;
    for (size_t i = 0; i < h->nsamples; i++)
        if (h->samples[i].pid == p->pid && h->samples[i].tid == p->tid) {
            npy += h->samples[i].source == HOST_SAMPLE_PY;
            ncpu += h->samples[i].source == HOST_SAMPLE_CPU;
        }
    host_sample_source primary = npy ? HOST_SAMPLE_PY : HOST_SAMPLE_CPU;
    size_t n = npy ? npy : ncpu;
    b->off_cpu = npy == 0 && ncpu > 0;
    p->sampled = n > 0;
    const host_sample **v = spill_alloc((n ? n : 1) * sizeof *v), **cpu = NULL;
    p->sample_ts = spill_alloc((n ? n : 1) * sizeof *p->sample_ts);
    p->sample_state = spill_alloc(n ? n : 1);
    b->samples = spill_alloc((n ? n : 1) * sizeof *b->samples);
    if (npy && ncpu)
        cpu = spill_alloc(ncpu * sizeof *cpu);
    if (!v || !p->sample_ts || !p->sample_state || !b->samples || (npy && ncpu && !cpu)) {
        spill_free(v);
        spill_free(cpu);
        return false;
    }
    size_t k = 0, kc = 0;
    for (size_t i = 0; i < h->nsamples; i++) {
        const host_sample *s = &h->samples[i];
        if (s->pid != p->pid || s->tid != p->tid)
            continue;
        if (s->source == primary)
            v[k++] = s;
        else if (cpu)
            cpu[kc++] = s;
    }
    /* by time (samples come nearly in order: an insertion sort moves few) */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1]->ts_ns > v[j]->ts_ns; j--) {
            const host_sample *x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    for (size_t i = 1; i < kc; i++)
        for (size_t j = i; j > 0 && cpu[j - 1]->ts_ns > cpu[j]->ts_ns; j--) {
            const host_sample *x = cpu[j];
            cpu[j] = cpu[j - 1];
            cpu[j - 1] = x;
        }
    int64_t P = b->period;
    bool ok = true;
    size_t c = 0;
    for (size_t i = 0; ok && i < n; i++) {
        int64_t ts = v[i]->ts_ns;
        int64_t s = ts - P, e = ts + P;
        if (i > 0 && (v[i - 1]->ts_ns + ts) / 2 > s)
            s = (v[i - 1]->ts_ns + ts) / 2;
        if (i + 1 < n && (ts + v[i + 1]->ts_ns) / 2 < e)
            e = (ts + v[i + 1]->ts_ns) / 2;
        clip_to_calls(b, ts, &s, &e);
        if (e < s)
            e = s;
        thread_class tc = v[i]->source == HOST_SAMPLE_CPU ? THREAD_RUNNING : thread_class_of(v[i]->state);
        /* A CPU sample inside the piece says the thread ran there, whatever its state read (a
         * thread waiting for the GIL the sampler holds reads as asleep). */
        size_t c0 = c;
        while (cpu && c0 < kc && cpu[c0]->ts_ns < s)
            c0++;
        if (tc == THREAD_WAITING && cpu && c0 < kc && cpu[c0]->ts_ns < e)
            tc = THREAD_RUNNING;
        cause_hit hit = cause_of_stack(b->cm, v[i]->frame, tc);
        /* A CPU sample inside the piece whose stack a specific row names says more than a generic
         * row of the Python one (a native compiler, a collection Python's frames do not show). */
        for (; cpu && c < kc && cpu[c]->ts_ns < e; c++) {
            if (cpu[c]->ts_ns < s || cause_rule_specific(hit.rule))
                continue;
            cause_hit native = cause_of_stack(b->cm, cpu[c]->frame, THREAD_RUNNING);
            if (cause_rule_specific(native.rule)) {
                hit.rule = native.rule;
                hit.detail = native.detail;
            }
        }
        wall_state st = hit.rule >= 0 ? cause_rules[hit.rule].state : WS_UNKNOWN;
        uint32_t ev = ev_intern(b->t, evidence(EV_SAMPLE, st, hit.rule, hit.user, hit.via, hit.detail, NULL));
        ok = ev != UINT32_MAX;
        b->samples[i] = (piece){s, e, hit.rule, ev};
        p->sample_ts[i] = ts;
    }
    b->nsamples = n;
    p->nsamples = n;
    if (ok && cpu)
        ok = cpu_gap_pieces(b, cpu, kc);
    spill_free(v);
    spill_free(cpu);
    return ok;
}

/* ---- the GPU's work ---- */


static wall_state copy_state(const copy_event *c)
{
    if (c->dir == COPY_H2D)
        return c->src == MEM_PAGEABLE ? WS_GPU_COPY_H2D_PAGEABLE : WS_GPU_COPY_H2D_PINNED;
    if (c->dir == COPY_D2H)
        return c->dst == MEM_PAGEABLE ? WS_GPU_COPY_D2H_PAGEABLE : WS_GPU_COPY_D2H_PINNED;
    return WS_GPU_COPY_DEVICE;
}

static item gpu_item(int64_t start, int64_t end, wall_state s) { return (item){start, end, s, s, 0}; }

/* Whether an event of process pid is the accounted process's: its own, or, where the run has one
 * accounted process, one whose process is not known. */
static bool ours(const wall_timeline *t, uint32_t proc, uint32_t pid)
{
    return pid == proc || (pid == 0 && t->nprocs == 1);
}

/* The process's GPU work as items (its state the priority: wall_state's order is the GPU states'
 * precedence), sorted by start; NULL with *n 0 where it has none, or on oom (*oom). */
/* The process's GPU work as items by start, and *gpu_first the start of its first. Under a
 * capture whose first window opened with the program's calls already made (calls_before), the
 * GPU may have run work launched before it until its first recorded work: the windows' instants
 * before that are items too, of state WS_UNRECORDED (the GPU's state not known; the host's view
 * of them is recorded and kept), after every real GPU state in the painter's order. */
static item *gpu_items(const wall_timeline *t, uint32_t pid, size_t *n, int64_t *gpu_first, bool *oom)
{
    const event_list *s = &t->m->events;
    const capture_info *c = &t->m->capture;
    size_t k = 0, cap = s->nkernels + s->ncopies + s->nmemsets + (size_t)c->nwindows;
    *n = 0;
    *gpu_first = INT64_MAX;
    if (cap == 0)
        return NULL;
    item *v = spill_alloc(cap * sizeof *v);
    if (!v) {
        *oom = true;
        return NULL;
    }
    /* Each kernel name's state, by the name's pointer (names are the model's, one pointer each): a
     * loop's kernels repeat a few names, and matching each kernel's (two strstr) took about 9 ms
     * of a long run's report in perf. */
    struct {
        const char *name;
        wall_state state;
    } named[KERNEL_NAMES] = {{0}};
    for (size_t i = 0; i < s->nkernels; i++) {
        const kernel_event *kv = &s->kernels[i];
        if (!ours(t, pid, kv->pid) || kv->end_ns <= kv->start_ns)
            continue;
        size_t slot = ((uintptr_t)kv->name >> 4) % KERNEL_NAMES;
        if (!kv->name || named[slot].name != kv->name) {
            named[slot].name = kv->name;
            named[slot].state = is_nccl_kernel(kv->name) ? WS_GPU_COLLECTIVE : WS_GPU_COMPUTE;
        }
        v[k++] = gpu_item(kv->start_ns, kv->end_ns, named[slot].state);
    }
    for (size_t i = 0; i < s->ncopies; i++)
        if (ours(t, pid, s->copies[i].pid) && s->copies[i].end_ns > s->copies[i].start_ns)
            v[k++] = gpu_item(s->copies[i].start_ns, s->copies[i].end_ns, copy_state(&s->copies[i]));
    for (size_t i = 0; i < s->nmemsets; i++)
        if (ours(t, pid, s->memsets[i].pid) && s->memsets[i].end_ns > s->memsets[i].start_ns)
            v[k++] = gpu_item(s->memsets[i].start_ns, s->memsets[i].end_ns, WS_GPU_MEMSET);
    for (size_t i = 0; i < k; i++)
        *gpu_first = v[i].start < *gpu_first ? v[i].start : *gpu_first;
    const capture_window *first = NULL;
    for (int i = 0; i < c->nwindows; i++)
        if (c->windows[i].pid == pid && (!first || c->windows[i].start_ns < first->start_ns))
            first = &c->windows[i];
    for (int i = 0; first && first->calls_before > 0 && *gpu_first != INT64_MAX && i < c->nwindows; i++) {
        const capture_window *w = &c->windows[i];
        int64_t end = w->end_ns < *gpu_first ? w->end_ns : *gpu_first;
        if (w->pid == pid && end > w->start_ns)
            v[k++] = gpu_item(w->start_ns, end, WS_UNRECORDED);
    }
    if (!key_sort(v, k, sizeof *v, item_start_key, NULL)) {
        spill_free(v);
        *oom = true;
        return NULL;
    }
    *n = k;
    return v;
}


/* ---- a process ---- */

static bool build_process(wall_timeline *t, cause_matcher *cm, const size_t *calls, size_t ncalls, int32_t *rules,
                          const host_site **sites, size_t nsites, wt_proc *p)
{
    const run_model *m = t->m;
    builder b = {.t = t, .m = m, .p = p, .cm = cm, .calls = calls, .ncalls = ncalls, .sites = sites, .nsites = nsites,
                 .call_rule = rules, .gpu_state = -1, .fallback = UINT32_MAX};
    double hz = m->host_activity.rate_hz > 0 ? m->host_activity.rate_hz : 100;
    b.period = (int64_t)(1e9 / hz);
    mark_lazy_context(m, calls, ncalls, p->pid, rules);
    piece *unrec = NULL, *ranges = NULL, *spans = NULL;
    size_t nunrec = 0, nranges = 0, nspans = 0;
    size_t ng = 0;
    bool oom = false;
    int64_t gpu_first;
    item *g = gpu_items(t, p->pid, &ng, &gpu_first, &oom);
    bool ok = !oom && long_calls(&b) && sample_pieces(&b) &&
              unrecorded_pieces(&b, &unrec, &nunrec) &&
              range_pieces(&b, &ranges, &nranges) && span_pieces(&b, &spans, &nspans);
    call_layer own = {0}, others = {0};
    own.src = (call_src){&b, 0, true};
    others.src = (call_src){&b, 0, false};
    painter_init(&own.paint, call_item, &own.src);
    painter_init(&others.paint, call_item, &others.src);
    array_src a_unrec = {unrec, nunrec, 0}, a_ranges = {ranges, nranges, 0}, a_spans = {spans, nspans, 0},
              a_spec = {b.samples, b.nsamples, 0}, a_gen = {b.samples, b.nsamples, 0};
    layer layers[] = {
        {.pull = array_pull, .resolve = ref_resolve, .ctx = &a_unrec},
        {.pull = call_pull, .resolve = call_resolve, .ctx = &own},
        {.pull = array_pull, .resolve = ref_resolve, .ctx = &a_ranges},
        {.pull = array_pull, .resolve = ref_resolve, .ctx = &a_spans},
        {.pull = array_pull, .accept = specific_only, .resolve = ref_resolve, .ctx = &a_spec},
        {.pull = call_pull, .resolve = call_resolve, .ctx = &others},
        {.pull = array_pull, .resolve = ref_resolve, .ctx = &a_gen},
    };
    b.layers = layers;
    b.nlayers = (int)(sizeof layers / sizeof layers[0]);
    item_array gs = {g, ng, 0};
    painter gp;
    painter_init(&gp, array_item, &gs);
    b.between = ev_intern(t, evidence(EV_GPU, WS_LAUNCH, cause_rule_find("between_kernels"), -1, -1, -1, NULL));
    b.unseen = ev_intern(t, evidence(EV_NONE, WS_UNRECORDED, -1, -1, -1, -1, NULL));
    int64_t cursor = p->lo;
    bool any = false;
    piece x;
    while (ok && !b.oom && painter_next(&gp, &x)) {
        int64_t s = x.start < p->lo ? p->lo : x.start, e = x.end > p->hi ? p->hi : x.end;
        if (e <= s)
            continue;
        if (s > cursor) {
            b.gpu_state = -1;
            if (any && s - cursor <= IDLE_BETWEEN_KERNELS_NS)
                b.gpu_state = WS_LAUNCH; /* emit says how */
            fill(&b, 0, cursor, s);
        }
        b.gpu_state = x.rule; /* the GPU's state, the host's cause meanwhile */
        fill(&b, 0, s > cursor ? s : cursor, e);
        any |= wall_state_gpu((wall_state)x.rule);
        cursor = e > cursor ? e : cursor;
    }
    ok = ok && !gp.oom && !b.oom;
    b.gpu_state = -1;
    if (ok && cursor < p->hi)
        fill(&b, 0, cursor, p->hi);
    ok = ok && !b.oom && !own.paint.oom && !others.paint.oom;
    painter_free(&gp);
    painter_free(&own.paint);
    painter_free(&others.paint);
    spill_free(g);
    spill_free(unrec);
    spill_free(ranges);
    spill_free(spans);
    /* The state at each sample, for the accounts' sample counts. */
    size_t j = 0;
    for (size_t i = 0; ok && i < p->nsamples; i++) {
        while (j < p->nsegs && seg_end(p, j) <= p->sample_ts[i])
            j++;
        p->sample_state[i] = j < p->nsegs && p->segs[j].start <= p->sample_ts[i] ? t->ev[p->segs[j].ev].state : WS_UNKNOWN;
    }
    spill_free(b.samples);
    free(b.longs);
    return ok;
}

/* ---- the run ---- */

static bool add_proc(wall_timeline *t, uint32_t pid)
{
    for (int i = 0; i < t->nprocs; i++)
        if (t->procs[i].pid == pid)
            return true;
    wt_proc *g = realloc(t->procs, (size_t)(t->nprocs + 1) * sizeof *g);
    if (!g)
        return false;
    t->procs = g;
    memset(&t->procs[t->nprocs], 0, sizeof t->procs[0]);
    t->procs[t->nprocs++].pid = pid;
    return true;
}

/* The processes whose work ran on a GPU, in order of pid; else the run's first process. */
static bool choose_processes(wall_timeline *t)
{
    const event_list *s = &t->m->events;
    bool ok = true;
    for (size_t i = 0; ok && i < s->nkernels; i++)
        ok = add_proc(t, s->kernels[i].pid);
    for (size_t i = 0; ok && i < s->ncopies; i++)
        ok = add_proc(t, s->copies[i].pid);
    for (size_t i = 0; ok && i < s->nmemsets; i++)
        ok = add_proc(t, s->memsets[i].pid);
    if (ok && t->nprocs > 1) { /* events of no known process belong to the known ones' */
        for (int i = 0; i < t->nprocs; i++)
            if (t->procs[i].pid == 0) {
                t->procs[i] = t->procs[--t->nprocs];
                break;
            }
    }
    if (ok && t->nprocs == 0)
        ok = add_proc(t, t->m->nprocesses > 0 ? t->m->processes[0].pid : 0);
    for (int i = 1; i < t->nprocs; i++)
        for (int j = i; j > 0 && t->procs[j - 1].pid > t->procs[j].pid; j--) {
            wt_proc x = t->procs[j];
            t->procs[j] = t->procs[j - 1];
            t->procs[j - 1] = x;
        }
    return ok;
}

typedef struct {
    uint32_t tid;
    size_t samples, calls;
} thread_count;

/* Process proc's accounted thread: its main thread (tid = pid) where that has samples or calls,
 * else the thread with most samples, else most calls; 0 where none is known. */
static uint32_t accounted_thread(const wall_timeline *t, uint32_t proc)
{
    const run_model *m = t->m;
    const host_activity *h = &m->host_activity;
    thread_count th[64];
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t count = pass == 0 ? h->nsamples : m->events.napis;
        for (size_t i = 0; i < count; i++) {
            uint32_t pid = pass == 0 ? h->samples[i].pid : m->events.apis[i].pid;
            uint32_t tid = pass == 0 ? h->samples[i].tid : m->events.apis[i].thread;
            if (!ours(t, proc, pid))
                continue;
            int j = 0;
            while (j < n && th[j].tid != tid)
                j++;
            if (j == n) {
                if (n == 64)
                    continue;
                th[n++] = (thread_count){tid, 0, 0};
            }
            if (tid == proc && proc != 0)
                return proc; /* the main thread, whatever the others' counts (the rest not walked) */
            if (pass == 0)
                th[j].samples++;
            else
                th[j].calls++;
        }
    }
    int best = -1;
    for (int j = 0; j < n; j++)
        if (best < 0 || th[j].samples > th[best].samples ||
            (th[j].samples == th[best].samples && th[j].calls > th[best].calls))
            best = j;
    return best >= 0 ? th[best].tid : 0;
}

static bool choose_threads(wall_timeline *t)
{
    for (int k = 0; k < t->nprocs; k++)
        t->procs[k].tid = accounted_thread(t, t->procs[k].pid);
    return true;
}

/* Each process's span: from its first record to its last, inside the run's. */
static void process_spans(wall_timeline *t)
{
    const run_model *m = t->m;
    const event_list *s = &m->events;
    int64_t run_lo = m->nregions ? m->regions[0].start_ns : 0, run_hi = m->nregions ? m->regions[0].end_ns : 0;
    for (int k = 0; k < t->nprocs; k++) {
        wt_proc *p = &t->procs[k];
        if (t->nprocs == 1) {
            p->lo = run_lo;
            p->hi = run_hi;
            continue;
        }
        int64_t lo = INT64_MAX, hi = INT64_MIN;
#define SPAN_OF(arr, n, S, E)                                           \
    for (size_t i = 0; i < (n); i++)                                    \
        if ((arr)[i].pid == p->pid) {                                   \
            lo = (arr)[i].S < lo ? (arr)[i].S : lo;                     \
            hi = (arr)[i].E > hi ? (arr)[i].E : hi;                     \
        }
        SPAN_OF(s->kernels, s->nkernels, start_ns, end_ns)
        SPAN_OF(s->copies, s->ncopies, start_ns, end_ns)
        SPAN_OF(s->memsets, s->nmemsets, start_ns, end_ns)
        SPAN_OF(s->apis, s->napis, start_ns, end_ns)
        SPAN_OF(s->syncs, s->nsyncs, start_ns, end_ns)
        SPAN_OF(m->host_activity.samples, m->host_activity.nsamples, ts_ns, ts_ns)
        SPAN_OF(m->host_activity.spans, m->host_activity.nspans, start_ns, end_ns)
#undef SPAN_OF
        for (int i = 1; i < m->nregions; i++)
            if (m->regions[i].pid == p->pid) {
                lo = m->regions[i].start_ns < lo ? m->regions[i].start_ns : lo;
                hi = m->regions[i].end_ns > hi ? m->regions[i].end_ns : hi;
            }
        p->lo = lo < run_lo ? run_lo : lo;
        p->hi = hi > run_hi ? run_hi : hi;
        if (p->hi < p->lo)
            p->hi = p->lo;
    }
}

/* p's checkpoints (wt_proc.cum), once every process is built and the evidence is all interned:
 * ck segments apart, twice the evidence's count (at least 64), so they take at most 4 bytes a
 * segment, and a sum walks about as many segments at its ends as it adds evidences between. */
static bool checkpoints(const wall_timeline *t, wt_proc *p)
{
    size_t nev = t->nev ? t->nev : 1;
    p->ck = nev * 2 > 64 ? nev * 2 : 64;
    p->ncum = p->nsegs / p->ck + 1;
    p->cum = spill_alloc(p->ncum * nev * sizeof *p->cum);
    if (!p->cum)
        return false;
    p->nck = (p->nsegs + p->ck - 1) / p->ck;
    p->ck_start = malloc((p->nck ? p->nck : 1) * sizeof *p->ck_start);
    int64_t *run = calloc(nev, sizeof *run);
    if (!run || !p->ck_start) {
        free(run);
        return false;
    }
    for (size_t c = 0; c < p->nck; c++)
        p->ck_start[c] = p->segs[c * p->ck].start;
    for (size_t c = 0, k = 0; c < p->ncum; c++) {
        for (; k < c * p->ck; k++)
            run[p->segs[k].ev] += seg_end(p, k) - p->segs[k].start;
        memcpy(&p->cum[c * nev], run, nev * sizeof *run);
    }
    free(run);
    return true;
}

wall_timeline *wall_timeline_build(const run_model *m, const size_t *calls_by_start)
{
    wall_timeline *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->m = m;
    size_t ncalls = m->events.napis + m->events.nsyncs;
    size_t *own = calls_by_start ? NULL : host_calls_by_start(&m->events);
    const size_t *calls = calls_by_start ? calls_by_start : own;
    cause_matcher *cm = cause_matcher_build(&m->host_activity);
    int32_t *rules = call_rules(m);
    const host_site **sites = host_sites_sorted(&m->host_activity);
    bool ok = calls && cm && rules && (m->host_activity.nsites == 0 || sites) && choose_processes(t) &&
              choose_threads(t);
    if (ok)
        process_spans(t);
    for (int i = 0; ok && i < t->nprocs; i++)
        ok = build_process(t, cm, calls, ncalls, rules, sites, (size_t)m->host_activity.nsites, &t->procs[i]);
    for (int i = 0; ok && i < t->nprocs; i++)
        ok = checkpoints(t, &t->procs[i]);
    spill_free(own);
    cause_matcher_free(cm);
    spill_free(rules);
    free(sites);
    if (!ok) {
        wall_timeline_free(t);
        return NULL;
    }
    return t;
}

void wall_timeline_free(wall_timeline *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nprocs; i++) {
        spill_free(t->procs[i].segs);
        spill_free(t->procs[i].cum);
        free(t->procs[i].ck_start);
        spill_free(t->procs[i].sample_ts);
        spill_free(t->procs[i].sample_state);
    }
    free(t->procs);
    free(t->ev);
    free(t->slots);
    free(t);
}

int wall_processes(const wall_timeline *t) { return t->nprocs; }

uint32_t wall_process_pid(const wall_timeline *t, int i) { return t->procs[i].pid; }

uint32_t wall_process_thread(const wall_timeline *t, int i) { return t->procs[i].tid; }

bool wall_process_sampled(const wall_timeline *t, int i) { return t->procs[i].sampled; }

void wall_process_span(const wall_timeline *t, int i, int64_t *start, int64_t *end)
{
    *start = t->procs[i].lo;
    *end = t->procs[i].hi;
}

int wall_process_of(const wall_timeline *t, uint32_t pid)
{
    for (int i = 0; i < t->nprocs; i++)
        if (t->procs[i].pid == pid)
            return i;
    return t->nprocs == 1 && pid == 0 ? 0 : -1;
}

const wall_evidence *wall_evidence_of(const wall_timeline *t, uint32_t id)
{
    return id < t->nev ? &t->ev[id] : NULL;
}

/* ---- sums ---- */

wall_scratch *wall_scratch_new(const wall_timeline *t)
{
    wall_scratch *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->n = t->nev;
    x->ns = calloc(t->nev ? t->nev : 1, sizeof *x->ns);
    x->touched = malloc((t->nev ? t->nev : 1) * sizeof *x->touched);
    if (!x->ns || !x->touched) {
        wall_scratch_free(x);
        return NULL;
    }
    return x;
}

void wall_scratch_free(wall_scratch *x)
{
    if (!x)
        return;
    free(x->ns);
    free(x->touched);
    free(x);
}

/* How many of p's segments from the first start at or before t (the first from `from` on that
 * starts after it). */
static size_t segs_starting_by(const wt_proc *p, size_t from, int64_t t)
{
    size_t lo = from, hi = p->nsegs;
    if (p->ck_start) { /* between the checkpoints around t first (the starts increase) */
        size_t clo = sorted_count_upto(p->ck_start, p->nck, t);
        size_t below = clo > 0 ? (clo - 1) * p->ck : 0, above = clo < p->nck ? clo * p->ck : p->nsegs;
        lo = below > from ? below : from;
        hi = above > lo ? above : lo;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->segs[mid].start <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void add_ev(wall_scratch *x, uint32_t id, int64_t ns)
{
    if (ns <= 0)
        return;
    if (x->ns[id] == 0)
        x->touched[x->ntouched++] = id;
    x->ns[id] += ns;
}

/* Segments [from, to) whole, into x. */
static void add_segs(const wall_timeline *t, const wt_proc *p, size_t from, size_t to, wall_scratch *x)
{
    if (to <= from)
        return;
    size_t b0 = (from + p->ck - 1) / p->ck, b1 = to / p->ck; /* the checkpoints inside */
    if (b0 >= b1 || !p->cum) {
        for (size_t k = from; k < to; k++)
            add_ev(x, p->segs[k].ev, seg_end(p, k) - p->segs[k].start);
        return;
    }
    for (size_t k = from; k < b0 * p->ck; k++)
        add_ev(x, p->segs[k].ev, seg_end(p, k) - p->segs[k].start);
    const int64_t *c0 = &p->cum[b0 * t->nev], *c1 = &p->cum[b1 * t->nev];
    for (size_t e = 0; e < t->nev; e++)
        add_ev(x, (uint32_t)e, c1[e] - c0[e]);
    for (size_t k = b1 * p->ck; k < to; k++)
        add_ev(x, p->segs[k].ev, seg_end(p, k) - p->segs[k].start);
}

void wall_sum(const wall_timeline *t, int i, int64_t start, int64_t end, wall_sums *s, wall_scratch *x)
{
    if (i < 0 || i >= t->nprocs || end <= start)
        return;
    const wt_proc *p = &t->procs[i];
    s->wall_ns += end - start;
    int64_t a = start > p->lo ? start : p->lo, b = end < p->hi ? end : p->hi;
    /* Outside the process's span (a region opened before its first record): not known. */
    s->outside_ns += (end - start) - (b > a ? b - a : 0);
    if (b > a && p->nsegs > 0) {
        /* k0: the segment holding a; k1: the one holding b's last instant */
        size_t after_a = segs_starting_by(p, 0, a), k0 = after_a ? after_a - 1 : 0;
        size_t after_b = segs_starting_by(p, after_a, b - 1), k1 = after_b ? after_b - 1 : 0;
        if (k0 == k1) {
            add_ev(x, p->segs[k0].ev, b - a);
        } else {
            add_ev(x, p->segs[k0].ev, seg_end(p, k0) - a);
            add_segs(t, p, k0 + 1, k1, x);
            add_ev(x, p->segs[k1].ev, b - p->segs[k1].start);
        }
    }
    size_t lo = 0, hi = p->nsamples;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->sample_ts[mid] < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k < p->nsamples && p->sample_ts[k] < end; k++)
        s->samples[p->sample_state[k]]++;
}

void wall_sums_finish(const wall_timeline *t, wall_scratch *x, wall_sums *s)
{
    for (int k = 0; k < WS_COUNT; k++) {
        s->top[k] = s->top_wait[k] = UINT32_MAX;
        s->top_ns[k] = s->top_wait_ns[k] = 0;
    }
    for (int k = 0; k < WALL_HOST_CAUSES; k++) {
        s->host_top[k] = UINT32_MAX;
        s->host_top_ns[k] = 0;
    }
    /* The states' and causes' times, from the per-evidence sums */
    s->ns[WS_UNKNOWN] += s->outside_ns;
    s->host_ns[0] += s->outside_ns;
    for (size_t i = 0; i < x->ntouched; i++) {
        const wall_evidence *e = &t->ev[x->touched[i]];
        int64_t ns = x->ns[x->touched[i]];
        s->ns[e->state] += ns;
        if (e->host_wait)
            s->wait_ns[e->state] += ns;
        if (e->rule + 1 < WALL_HOST_CAUSES)
            s->host_ns[e->rule + 1] += ns;
    }
    /* The host's causes' tops: the same evidence summed over the states it spans (a line that
     * launched while the GPU computed and while it idled is one line). x->ns is by evidence, so
     * the sums by (rule, user, via, detail, call) are made here, over the few touched ones. */
    for (size_t i = 0; i < x->ntouched; i++) {
        const wall_evidence *e = &t->ev[x->touched[i]];
        if (e->rule + 1 >= WALL_HOST_CAUSES)
            continue;
        int64_t ns = 0;
        for (size_t j = 0; j < x->ntouched; j++) {
            const wall_evidence *o = &t->ev[x->touched[j]];
            if (o->rule == e->rule && o->user == e->user && o->via == e->via && o->detail == e->detail &&
                o->call == e->call)
                ns += x->ns[x->touched[j]];
        }
        int k = e->rule + 1;
        if (ns > s->host_top_ns[k] || (ns == s->host_top_ns[k] && x->touched[i] < s->host_top[k])) {
            s->host_top_ns[k] = ns;
            s->host_top[k] = x->touched[i];
        }
    }
    for (size_t i = 0; i < x->ntouched; i++) {
        uint32_t id = x->touched[i];
        int st = t->ev[id].state;
        /* of equal times the first interned: the order is the timeline's, the same every run */
        if (x->ns[id] > s->top_ns[st] || (x->ns[id] == s->top_ns[st] && id < s->top[st])) {
            s->top_ns[st] = x->ns[id];
            s->top[st] = id;
        }
        if (t->ev[id].host_wait &&
            (x->ns[id] > s->top_wait_ns[st] || (x->ns[id] == s->top_wait_ns[st] && id < s->top_wait[st]))) {
            s->top_wait_ns[st] = x->ns[id];
            s->top_wait[st] = id;
        }
        x->ns[id] = 0;
    }
    x->ntouched = 0;
}
