/* Why the GPU waits: see idle_causes.h. */
#include "idle_causes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "array_grow.h"
#include "key_sort.h"
#include "spill.h"
#include "thresholds.h"

const char *idle_cause_key(idle_cause c)
{
    static const char *const keys[IDLE_NCAUSES] = {"between_kernels", "module_load", "context", "alloc",
                                                   "pageable_copy", "sync", "other_api", "host_busy"};
    return c >= 0 && c < IDLE_NCAUSES ? keys[c] : "host_busy";
}

const char *idle_cause_label(idle_cause c)
{
    static const char *const labels[IDLE_NCAUSES] = {
        "between kernels (launch latency)", "module loading / JIT compilation", "context creation / teardown",
        "memory allocation", "copies from pageable memory", "synchronization (the host waits on the GPU)",
        "other CUDA API calls", "host busy outside CUDA"};
    return c >= 0 && c < IDLE_NCAUSES ? labels[c] : labels[IDLE_HOST_BUSY];
}

const char *stretch_where_name(stretch_where w)
{
    return w == STRETCH_LEAD ? "before" : w == STRETCH_TAIL ? "after" : "between";
}

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Names as CUPTI records them (runtime calls with a version suffix, "cudaMalloc_v3020"), as
 * Kineto writes them (plain "cudaMalloc") and as the samples hold them (samples/h200-profile-*). */
idle_cause idle_cause_of_name(const char *name)
{
    char n[64];
    api_display_name(name, n, sizeof n);
    /* Loading code: modules and libraries (cuLibraryLoadData is how CUDA 12+ loads a fatbin, lazily
     * per kernel under CUDA_MODULE_LOADING=LAZY), linking and runtime compilation. */
    static const char *const load[] = {"cuModuleLoad", "cuLibraryLoad", "cuLinkCreate", "cuLinkAdd",
                                       "cuLinkComplete", "nvrtc", "cudaLibraryLoad", "nvJitLink",
                                       "cuModuleGetFunction", "cuLibraryGetKernel", "cuKernelGetFunction",
                                       "cudaGetFuncBySymbol", "cudaGetKernel"};
    for (size_t i = 0; i < sizeof load / sizeof load[0]; i++)
        if (starts(n, load[i]))
            return IDLE_MODULE_LOAD;
    static const char *const ctx[] = {"cuCtxCreate", "cuCtxDestroy", "cuDevicePrimaryCtxRetain",
                                      "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxReset", "cuInit",
                                      "cudaDeviceReset", "cudaInitDevice"};
    for (size_t i = 0; i < sizeof ctx / sizeof ctx[0]; i++)
        if (starts(n, ctx[i]))
            return IDLE_CONTEXT;
    static const char *const alloc[] = {"cudaMalloc", "cudaFree", "cudaHostAlloc", "cudaHostRegister",
                                        "cudaHostUnregister", "cuMemAlloc", "cuMemFree", "cuMemHostAlloc",
                                        "cuMemHostRegister", "cuMemHostUnregister", "cuMemCreate", "cuMemRelease",
                                        "cuMemMap", "cuMemUnmap", "cuMemAddressReserve", "cuMemAddressFree"};
    for (size_t i = 0; i < sizeof alloc / sizeof alloc[0]; i++)
        if (starts(n, alloc[i]))
            return IDLE_ALLOC;
    static const char *const sync[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
                                       "cudaThreadSynchronize", "cuCtxSynchronize", "cuStreamSynchronize",
                                       "cuEventSynchronize"};
    for (size_t i = 0; i < sizeof sync / sizeof sync[0]; i++)
        if (strcmp(n, sync[i]) == 0)
            return IDLE_SYNC;
    return IDLE_OTHER_API;
}

/* One host call: which it is and its cause, 5 bytes packed (a long run has millions; analysis
 * takes at most 2^30, analysis_fits): its span and name are read through the model's event
 * (call_start, call_end, call_api). */
typedef struct __attribute__((packed)) {
    uint32_t index; /* below napis an API call, else the synchronization record index - napis */
    uint8_t cause;  /* an idle_cause */
} host_call;
_Static_assert(sizeof(host_call) == 5, "a host call is five bytes");

/* A piece of the painted timeline: a stretch under one cause, in 8 bytes (a long run paints
 * about one a call). Its start is an offset from its block's, a block of pieces beginning every
 * PIECE_BLOCK pieces or sooner, where an offset would pass 32 bits; its length shares a word with
 * its cause, so a stretch of one cause longer than PIECE_LEN_MAX ns (0.54 s) is painted as
 * several pieces, which the queries add up the same. */
typedef struct {
    uint32_t off;       /* from its block's base */
    uint32_t len_cause; /* the length in the low PIECE_LEN_BITS bits, the idle_cause above them */
} piece;
_Static_assert(sizeof(piece) == 8, "a piece is one word");
#define PIECE_LEN_BITS 29
#define PIECE_LEN_MAX ((UINT32_C(1) << PIECE_LEN_BITS) - 1)
_Static_assert(IDLE_NCAUSES <= 1 << (32 - PIECE_LEN_BITS), "a cause fits above the length");
#define PIECE_BLOCK 256

/* Pieces [first, the next block's first) start at base plus their offsets; base is the start of
 * the first of them. */
typedef struct {
    int64_t base;
    size_t first;
} piece_block;

static uint32_t piece_len(const piece *p) { return p->len_cause & PIECE_LEN_MAX; }

static idle_cause piece_cause(const piece *p) { return (idle_cause)(p->len_cause >> PIECE_LEN_BITS); }

struct host_causes {
    const event_list *events;
    host_call *calls; /* by start */
    size_t ncalls;
    int64_t longest;  /* the longest call, to find those that began before a stretch */
    piece *pieces;    /* disjoint, by start */
    size_t npieces;
    piece_block *blocks; /* by base: grown as array_grow.h's arrays */
    size_t nblocks;
};

/* A piece and its block, as the queries walk them. */
typedef struct {
    size_t i, b;
} piece_at;

static int64_t at_start(const host_causes *h, piece_at a) { return h->blocks[a.b].base + h->pieces[a.i].off; }

static int64_t at_end(const host_causes *h, piece_at a) { return at_start(h, a) + piece_len(&h->pieces[a.i]); }

static void at_next(const host_causes *h, piece_at *a)
{
    a->i++;
    if (a->b + 1 < h->nblocks && a->i == h->blocks[a->b + 1].first)
        a->b++;
}

static const api_event *call_api(const host_causes *h, size_t i) /* NULL for a synchronization record */
{
    return host_call_api(h->events, h->calls[i].index);
}

static int64_t call_start(const host_causes *h, size_t i) { return host_call_start(h->events, h->calls[i].index); }

static int64_t call_end(const host_causes *h, size_t i) { return host_call_end(h->events, h->calls[i].index); }

/* A copy's process, correlation id and whether its host side was pageable. */
typedef struct {
    uint32_t pid, corr;
    bool pageable;
} copy_key;

static int cmp_copy_key(const void *a, const void *b)
{
    const copy_key *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

static bool pageable_copy(const copy_key *k, size_t n, uint32_t pid, uint32_t corr)
{
    copy_key want = {pid, corr, false};
    const copy_key *hit = corr ? bsearch(&want, k, n, sizeof *k, cmp_copy_key) : NULL;
    return hit && hit->pageable;
}

/* Per process: the first explicit context call and the first long runtime call. */
typedef struct {
    uint32_t pid;
    int64_t explicit_ctx;
    size_t first_long; /* index into calls, or SIZE_MAX */
} proc_ctx;

/* The runtime calls that create the context when none exists yet and that a program makes first:
 * allocation (cudaMalloc, cudaFree(0), cudaHostAlloc) and the set-up calls. A copy or launch does
 * too, but a long one of those is more often the copy itself (a trace started after the context
 * was made, as Kineto's usually is), so they are left to their own cause. */
static bool may_create_context(const char *name, idle_cause c)
{
    char n[64];
    api_display_name(name, n, sizeof n);
    return c == IDLE_ALLOC || starts(n, "cudaSetDevice") || starts(n, "cudaStreamCreate") ||
           starts(n, "cudaEventCreate") || starts(n, "cudaGetDeviceProperties");
}

/* The runtime's lazy context creation (idle_causes.h): calls are sorted by start here. */
static bool mark_lazy_context(host_causes *h)
{
    host_call *calls = h->calls;
    proc_ctx *p = NULL;
    size_t np = 0;
    for (size_t i = 0; i < h->ncalls; i++) {
        const api_event *a = call_api(h, i);
        if (!a)
            continue;
        size_t j = 0;
        while (j < np && p[j].pid != a->pid)
            j++;
        if (j == np) {
            proc_ctx *grown = realloc(p, (np + 1) * sizeof *p);
            if (!grown) {
                free(p);
                return false;
            }
            p = grown;
            p[np++] = (proc_ctx){a->pid, INT64_MAX, SIZE_MAX};
        }
        if (a->kind == API_DRIVER && calls[i].cause == IDLE_CONTEXT && a->start_ns < p[j].explicit_ctx)
            p[j].explicit_ctx = a->start_ns;
        if (a->kind == API_RUNTIME && p[j].first_long == SIZE_MAX && a->end_ns - a->start_ns >= IDLE_LAZY_CONTEXT_NS &&
            may_create_context(a->name, (idle_cause)calls[i].cause))
            p[j].first_long = i;
    }
    for (size_t j = 0; j < np; j++)
        if (p[j].first_long != SIZE_MAX && call_start(h, p[j].first_long) < p[j].explicit_ctx)
            calls[p[j].first_long].cause = IDLE_CONTEXT;
    free(p);
    return true;
}

/* The ends of the calls in progress, earliest first (a binary heap): what the sweep that paints
 * the timeline closes next. It holds the calls open at one time (threads times nesting), not the
 * run's millions, which a list of every end sorted apart did. */
typedef struct {
    int64_t t;
    idle_cause cause;
} open_end;

typedef struct {
    open_end *v; /* grown as array_grow.h's arrays */
    size_t n;
} end_heap;

static bool heap_push(end_heap *q, open_end e)
{
    open_end *grown = array_grow(q->v, q->n, sizeof *q->v);
    if (!grown)
        return false;
    q->v = grown;
    size_t k = q->n++;
    while (k > 0 && q->v[(k - 1) / 2].t > e.t) {
        q->v[k] = q->v[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    q->v[k] = e;
    return true;
}

static open_end heap_pop(end_heap *q)
{
    open_end top = q->v[0], last = q->v[--q->n];
    size_t k = 0;
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && q->v[c + 1].t < q->v[c].t)
            c++;
        if (q->v[c].t >= last.t)
            break;
        q->v[k] = q->v[c];
        k = c;
    }
    if (q->n > 0)
        q->v[k] = last;
    return top;
}

/* The next call at or after *i that takes time (its start is an edge); false past the last. */
static bool next_start(const host_causes *h, size_t *i)
{
    while (*i < h->ncalls && call_end(h, *i) <= call_start(h, *i))
        (*i)++;
    return *i < h->ncalls;
}

/* The time of the next edge, the earlier of the next start (from *i) and the earliest open end;
 * false when none is left. */
static bool next_edge(const host_causes *h, size_t *i, const end_heap *q, int64_t *t)
{
    bool s = next_start(h, i);
    if (!s && q->n == 0)
        return false;
    *t = !s ? q->v[0].t : q->n == 0 || call_start(h, *i) < q->v[0].t ? call_start(h, *i) : q->v[0].t;
    return true;
}

/* Paints [s, e) with cause c: onto the last piece where it continues it, else as new pieces
 * (h->pieces has room for *cap), each in the last block where it fits, else in a new one. */
static bool add_piece(host_causes *h, size_t *cap, int64_t s, int64_t e, idle_cause c)
{
    if (h->npieces > 0) {
        piece_at last = {h->npieces - 1, h->nblocks - 1};
        piece *p = &h->pieces[last.i];
        if (piece_cause(p) == c && at_end(h, last) == s) {
            int64_t take = e - s < (int64_t)(PIECE_LEN_MAX - piece_len(p)) ? e - s : (int64_t)(PIECE_LEN_MAX - piece_len(p));
            p->len_cause += (uint32_t)take;
            s += take;
        }
    }
    for (; s < e; h->npieces++) {
        if (h->npieces == *cap) { /* past the two a call it was sized for: long stretches */
            piece *grown = spill_resize(h->pieces, *cap * sizeof *grown, 2 * *cap * sizeof *grown);
            if (!grown)
                return false;
            h->pieces = grown;
            *cap *= 2;
        }
        const piece_block *b = h->nblocks ? &h->blocks[h->nblocks - 1] : NULL;
        if (!b || h->npieces - b->first == PIECE_BLOCK || s - b->base > (int64_t)UINT32_MAX) {
            piece_block *grown = array_grow(h->blocks, h->nblocks, sizeof *h->blocks);
            if (!grown)
                return false;
            h->blocks = grown;
            h->blocks[h->nblocks++] = (piece_block){s, h->npieces};
            b = &h->blocks[h->nblocks - 1];
        }
        int64_t take = e - s < (int64_t)PIECE_LEN_MAX ? e - s : (int64_t)PIECE_LEN_MAX;
        h->pieces[h->npieces] = (piece){(uint32_t)(s - b->base), (uint32_t)take | (uint32_t)c << PIECE_LEN_BITS};
        s += take;
    }
    return true;
}

/* At each instant the strongest cause in progress (the first in enum order), joined into pieces.
 * The edges are the calls' starts (in order: calls are sorted by start) and their ends (from the
 * heap of those in progress); those of one time are applied together, starts first. */
static bool paint(host_causes *h)
{
    size_t ne = 0;
    for (size_t i = 0; i < h->ncalls; i++)
        ne += call_end(h, i) > call_start(h, i);
    size_t cap = ne ? 2 * ne : 1;
    h->pieces = spill_alloc(cap * sizeof *h->pieces); /* trimmed to what was painted below */
    if (!h->pieces)
        return false;
    end_heap q = {0};
    bool ok = true;
    int open[IDLE_NCAUSES] = {0};
    size_t i = 0;
    int64_t t, next;
    for (bool more = next_edge(h, &i, &q, &t); ok && more; t = next) {
        for (; ok && next_start(h, &i) && call_start(h, i) == t; i++) {
            open[h->calls[i].cause]++;
            ok = heap_push(&q, (open_end){call_end(h, i), (idle_cause)h->calls[i].cause});
        }
        while (q.n > 0 && q.v[0].t == t)
            open[heap_pop(&q).cause]--;
        if (!ok || !(more = next_edge(h, &i, &q, &next)))
            break;
        int c = 0;
        while (c < IDLE_NCAUSES && open[c] <= 0)
            c++;
        if (c == IDLE_NCAUSES)
            continue;
        ok = add_piece(h, &cap, t, next, (idle_cause)c);
    }
    free(q.v);
    piece *fit = spill_resize(h->pieces, h->npieces * sizeof *h->pieces, (h->npieces ? h->npieces : 1) * sizeof *h->pieces);
    h->pieces = fit ? fit : h->pieces;
    return ok;
}

static uint64_t call_index_start(size_t i, const void *ctx) { return key_of_i64(host_call_start(ctx, i)); }

size_t *host_calls_by_start(const event_list *s)
{
    size_t n = s->napis + s->nsyncs;
    size_t *order = spill_alloc((n ? n : 1) * sizeof *order);
    if (order && !key_order(n, call_index_start, s, order)) {
        spill_free(order);
        return NULL;
    }
    return order;
}

host_causes *host_causes_build(const run_model *m, const size_t *by_start)
{
    const event_list *s = &m->events;
    size_t n = s->napis + s->nsyncs;
    if (n > UINT32_MAX) /* a host_call's index */
        return NULL;
    size_t *own = by_start ? NULL : host_calls_by_start(s);
    const size_t *order = by_start ? by_start : own;
    host_causes *h = order ? calloc(1, sizeof *h) : NULL;
    if (h)
        h->events = s;
    copy_key *k = spill_alloc((s->ncopies ? s->ncopies : 1) * sizeof *k);
    if (h)
        h->calls = spill_alloc((n ? n : 1) * sizeof *h->calls);
    if (!h || !k || !h->calls) {
        spill_free(k);
        spill_free(own);
        host_causes_free(h);
        return NULL;
    }
    for (size_t i = 0; i < s->ncopies; i++)
        k[i] = (copy_key){s->copies[i].pid, s->copies[i].correlation,
                          s->copies[i].src == MEM_PAGEABLE || s->copies[i].dst == MEM_PAGEABLE};
    if (s->ncopies > 0)
        qsort(k, s->ncopies, sizeof *k, cmp_copy_key);
    /* A name's cause, remembered by the name's pointer (the store keeps each distinct name once,
     * model.h): a long run's millions of calls have a few dozen names. */
    struct {
        const char *name;
        idle_cause c;
        bool memcpy; /* a copy call: its cause depends on the copy's memory */
    } seen[64] = {{0}};
    /* In order of start: the calls are painted so. */
    for (size_t o = 0; o < n; o++) {
        size_t i = order[o];
        if (i >= s->napis) { /* a synchronization record is the host waiting on the GPU, whatever call made it */
            h->calls[h->ncalls++] = (host_call){(uint32_t)i, IDLE_SYNC};
            continue;
        }
        const api_event *a = &s->apis[i];
        size_t slot = ((uintptr_t)a->name >> 4) % 64;
        if (!a->name || seen[slot].name != a->name)
            seen[slot].name = a->name, seen[slot].c = idle_cause_of_name(a->name),
            seen[slot].memcpy = a->name && strstr(a->name, "Memcpy");
        idle_cause c = seen[slot].c;
        if (c == IDLE_OTHER_API && seen[slot].memcpy &&
            pageable_copy(k, s->ncopies, a->pid, a->correlation))
            c = IDLE_PAGEABLE_COPY;
        h->calls[h->ncalls++] = (host_call){(uint32_t)i, (uint8_t)c};
    }
    spill_free(k);
    spill_free(own);
    for (size_t i = 0; i < h->ncalls; i++)
        if (call_end(h, i) - call_start(h, i) > h->longest)
            h->longest = call_end(h, i) - call_start(h, i);
    if (!mark_lazy_context(h) || !paint(h)) {
        host_causes_free(h);
        return NULL;
    }
    return h;
}

void host_causes_free(host_causes *h)
{
    if (!h)
        return;
    spill_free(h->calls);
    spill_free(h->pieces);
    free(h->blocks);
    free(h);
}

/* The first piece ending after t (i == npieces: none). Pieces of blocks before the last block
 * starting at or before t end by its base, so it is in that block or is the next block's first. */
static piece_at piece_after(const host_causes *h, int64_t t)
{
    size_t lo = 0, hi = h->nblocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->blocks[mid].base <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return (piece_at){0, 0};
    piece_at a = {h->blocks[lo - 1].first, lo - 1};
    size_t end = lo < h->nblocks ? h->blocks[lo].first : h->npieces;
    while (a.i < end) { /* binary search within the block: ends rise with starts */
        size_t n = end - a.i, mid = a.i + n / 2;
        if (at_end(h, (piece_at){mid, a.b}) <= t)
            a.i = mid + 1;
        else
            end = mid;
    }
    if (a.b + 1 < h->nblocks && a.i == h->blocks[a.b + 1].first)
        a.b++;
    return a;
}

void host_causes_split(const host_causes *h, int64_t start, int64_t end, int64_t by[IDLE_NCAUSES])
{
    if (end <= start)
        return;
    int64_t covered = 0;
    for (piece_at a = piece_after(h, start); a.i < h->npieces && at_start(h, a) < end; at_next(h, &a)) {
        int64_t s = at_start(h, a) > start ? at_start(h, a) : start;
        int64_t e = at_end(h, a) < end ? at_end(h, a) : end;
        if (e > s) {
            by[piece_cause(&h->pieces[a.i])] += e - s;
            covered += e - s;
        }
    }
    by[IDLE_HOST_BUSY] += end - start - covered;
}

idle_cause host_causes_at(const host_causes *h, int64_t t)
{
    piece_at a = piece_after(h, t);
    return a.i < h->npieces && at_start(h, a) <= t ? piece_cause(&h->pieces[a.i]) : IDLE_HOST_BUSY;
}

/* The first call that may overlap [start, ...): calls start no earlier than start - longest. */
static size_t first_call(const host_causes *h, int64_t start)
{
    size_t lo = 0, hi = h->ncalls;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (call_start(h, mid) < start - h->longest)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int64_t inside(int64_t s, int64_t e, int64_t start, int64_t end)
{
    s = s > start ? s : start;
    e = e < end ? e : end;
    return e > s ? e - s : 0;
}

/* Names tallied per stretch: a stretch's calls of one cause rarely have more (allocation: malloc
 * and free, host and device); past it, further names are not counted. */
#define TOP_CALL_NAMES 16

int64_t host_causes_top_call(const host_causes *h, int64_t start, int64_t end, idle_cause c, char *name,
                             size_t len, int *count)
{
    struct {
        char name[64];
        int64_t ns;
        int count;
    } seen[TOP_CALL_NAMES];
    int n = 0, best = -1;
    for (size_t i = first_call(h, start); i < h->ncalls && call_start(h, i) < end; i++) {
        int64_t d = inside(call_start(h, i), call_end(h, i), start, end);
        const api_event *a = call_api(h, i);
        if (!a || h->calls[i].cause != c || d <= 0)
            continue;
        char nm[64];
        api_display_name(a->name, nm, sizeof nm);
        int j = 0;
        while (j < n && strcmp(seen[j].name, nm) != 0)
            j++;
        if (j == n) {
            if (n == TOP_CALL_NAMES)
                continue;
            copy_str(seen[n].name, sizeof seen[n].name, nm);
            seen[n].ns = 0;
            seen[n].count = 0;
            n++;
        }
        seen[j].ns += d;
        seen[j].count++;
        if (best < 0 || seen[j].ns > seen[best].ns)
            best = j;
    }
    if (best < 0) {
        if (len)
            name[0] = '\0';
        *count = 0;
        return 0;
    }
    copy_str(name, len, seen[best].name);
    *count = seen[best].count;
    return seen[best].ns;
}

void idle_explain(const host_causes *h, int64_t start, int64_t end, stretch_where where, const char *next,
                  idle_explained *out)
{
    memset(out, 0, sizeof *out);
    if (!h || end <= start)
        return;
    int64_t by[IDLE_NCAUSES] = {0};
    host_causes_split(h, start, end, by);
    idle_cause top = IDLE_HOST_BUSY;
    for (int c = 0; c < IDLE_NCAUSES; c++)
        if (by[c] > by[top])
            top = (idle_cause)c;
    out->known = true;
    out->where = where;
    out->ms = (double)(end - start) / 1e6;
    out->cause = top;
    out->cause_ms = (double)by[top] / 1e6;
    if (top != IDLE_HOST_BUSY)
        out->call_ms = (double)host_causes_top_call(h, start, end, top, out->call, sizeof out->call,
                                                    &out->call_count) / 1e6;
    if (next)
        kernel_display_name(next, out->next, sizeof out->next);
}

/* ---- the run's idle stretches, per device ---- */

typedef struct {
    int64_t start, end;
    const char *name; /* a kernel's name; NULL for a copy or memset */
} busy_item;

static uint64_t busy_start(const void *b, const void *ctx)
{
    (void)ctx;
    return key_of_i64(((const busy_item *)b)->start);
}

/* A stretch as found: a long run has one between almost every two kernels, and only the longest
 * few become rows (idle_stretch, with the name of what ended them made readable), so the rest
 * stay this small. */
typedef struct {
    int64_t start, end;
    uint32_t device;
    stretch_where where;
    const char *next; /* the kernel that ended it; NULL for a copy or memset, or after the last */
} gap;

static uint64_t gap_start(const void *g, const void *ctx)
{
    (void)ctx;
    return key_of_i64(((const gap *)g)->start);
}

static uint64_t gap_longest(const void *g, const void *ctx)
{
    (void)ctx;
    const gap *x = g;
    return key_descending(key_of_i64(x->end - x->start));
}

static bool push_stretch(gap **v, size_t *n, uint32_t device, stretch_where w, int64_t s, int64_t e,
                         const char *next)
{
    if (e <= s)
        return true;
    SPILL_APPEND(*v, *n, ((gap){s, e, device, w, next})); /* as long as the GPU work: spill.h's */
    return true;
}

static void stretch_row(const gap *g, idle_stretch *x)
{
    memset(x, 0, sizeof *x);
    x->device = g->device;
    x->where = g->where;
    x->start_ns = g->start;
    x->end_ns = g->end;
    if (g->next)
        kernel_display_name(g->next, x->next, sizeof x->next);
    else if (g->where != STRETCH_TAIL)
        copy_str(x->next, sizeof x->next, "a copy or memset");
}

/* Every stretch of one device's idle time inside [lo, hi): items sorted by start. */
static bool device_stretches(const busy_item *it, size_t n, uint32_t device, int64_t lo, int64_t hi, gap **v,
                             size_t *nv)
{
    int64_t cursor = lo;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        int64_t s = it[i].start < lo ? lo : it[i].start, e = it[i].end > hi ? hi : it[i].end;
        if (e <= s)
            continue;
        if (s > cursor && !push_stretch(v, nv, device, any ? STRETCH_BETWEEN : STRETCH_LEAD, cursor, s, it[i].name))
            return false;
        any = true;
        cursor = e > cursor ? e : cursor;
    }
    return !any || push_stretch(v, nv, device, STRETCH_TAIL, cursor, hi, NULL);
}

static int cmp_call_ms(const void *a, const void *b)
{
    const idle_call *x = a, *y = b;
    if (x->ms.v != y->ms.v)
        return x->ms.v < y->ms.v ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The calls with most time inside the stretch, one row per name, cause and thread. */
static bool stretch_calls(const host_causes *h, idle_stretch *x)
{
    idle_call *all = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = first_call(h, x->start_ns); i < h->ncalls && call_start(h, i) < x->end_ns; i++) {
        const api_event *a = call_api(h, i);
        idle_cause cause = (idle_cause)h->calls[i].cause;
        int64_t d = inside(call_start(h, i), call_end(h, i), x->start_ns, x->end_ns);
        if (!a || d <= 0)
            continue;
        char name[64];
        api_display_name(a->name, name, sizeof name);
        size_t j = 0;
        while (j < n && (strcmp(all[j].name, name) != 0 || all[j].cause != cause || all[j].pid != a->pid ||
                         all[j].thread != a->thread))
            j++;
        if (j == n) {
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                idle_call *grown = realloc(all, cap * sizeof *grown);
                if (!grown) {
                    free(all);
                    return false;
                }
                all = grown;
            }
            memset(&all[n], 0, sizeof all[n]);
            copy_str(all[n].name, sizeof all[n].name, name);
            all[n].cause = cause;
            all[n].pid = a->pid;
            all[n].thread = a->thread;
            metric_set(&all[n].ms, 0);
            n++;
        }
        all[j].count++;
        all[j].ms.v += (double)d / 1e6;
    }
    if (n > 0)
        qsort(all, n, sizeof *all, cmp_call_ms);
    for (size_t j = 0; j < n && j < IDLE_GAP_CALLS; j++)
        x->calls[x->ncalls++] = all[j];
    free(all);
    return true;
}

/* The NVTX ranges and annotations open during the stretch, those covering most of it first. */
static void stretch_ranges(const run_model *m, idle_stretch *x)
{
    int64_t cover[IDLE_GAP_RANGES];
    for (int i = 0; i < m->nregions; i++) {
        const region *r = &m->regions[i];
        if (r->kind != REGION_NVTX && r->kind != REGION_ANNOTATION)
            continue;
        int64_t d = inside(r->start_ns, r->end_ns, x->start_ns, x->end_ns);
        if (d <= 0)
            continue;
        /* Insertion into the kept few; of equal cover the later-opened (inner) range first. */
        int at = x->nranges;
        while (at > 0 && (cover[at - 1] < d || (cover[at - 1] == d && m->regions[x->open_ranges[at - 1]].start_ns <
                                                                          r->start_ns)))
            at--;
        if (at >= IDLE_GAP_RANGES)
            continue;
        int last = x->nranges < IDLE_GAP_RANGES ? x->nranges : IDLE_GAP_RANGES - 1;
        for (int j = last; j > at; j--) {
            cover[j] = cover[j - 1];
            x->open_ranges[j] = x->open_ranges[j - 1];
        }
        cover[at] = d;
        x->open_ranges[at] = i;
        if (x->nranges < IDLE_GAP_RANGES)
            x->nranges++;
    }
}

static void stretch_figures(const run_model *m, const host_causes *h, int64_t t0, idle_stretch *x)
{
    int64_t by[IDLE_NCAUSES] = {0};
    idle_breakdown_add(h, x->start_ns, x->end_ns, x->where, by);
    int64_t len = x->end_ns - x->start_ns;
    metric_set(&x->start_ms, (double)(x->start_ns - t0) / 1e6);
    metric_set(&x->ms, (double)len / 1e6);
    x->cause = IDLE_HOST_BUSY;
    for (int c = 0; c < IDLE_NCAUSES; c++) {
        metric_set(&x->by[c], (double)by[c] / 1e6);
        if (by[c] > by[x->cause])
            x->cause = (idle_cause)c;
    }
    metric_set(&x->cause_pct, 100.0 * (double)by[x->cause] / (double)len);
    stretch_ranges(m, x);
}

bool idle_stretches(const run_model *m, const host_causes *h, idle_stretch **out, int *nout, int *unlisted)
{
    *out = NULL;
    *nout = 0;
    *unlisted = 0;
    const event_list *s = &m->events;
    size_t n = s->nkernels + s->ncopies + s->nmemsets;
    if (n == 0 || m->nregions == 0)
        return true;
    int64_t lo = m->regions[0].start_ns, hi = m->regions[0].end_ns;
    busy_item *it = spill_alloc(n * sizeof *it);
    uint32_t *devs = spill_alloc(n * sizeof *devs);
    if (!it || !devs) {
        spill_free(it);
        spill_free(devs);
        return false;
    }
    /* The devices, each once. */
    size_t nd = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t d = i < s->nkernels ? s->kernels[i].device
                     : i < s->nkernels + s->ncopies ? s->copies[i - s->nkernels].device
                                                     : s->memsets[i - s->nkernels - s->ncopies].device;
        size_t j = 0;
        while (j < nd && devs[j] != d)
            j++;
        if (j == nd)
            devs[nd++] = d;
    }
    gap *v = NULL;
    size_t nv = 0;
    bool ok = true;
    for (size_t di = 0; ok && di < nd; di++) {
        size_t k = 0;
        for (size_t i = 0; i < s->nkernels; i++)
            if (s->kernels[i].device == devs[di])
                it[k++] = (busy_item){s->kernels[i].start_ns, s->kernels[i].end_ns, s->kernels[i].name};
        for (size_t i = 0; i < s->ncopies; i++)
            if (s->copies[i].device == devs[di])
                it[k++] = (busy_item){s->copies[i].start_ns, s->copies[i].end_ns, NULL};
        for (size_t i = 0; i < s->nmemsets; i++)
            if (s->memsets[i].device == devs[di])
                it[k++] = (busy_item){s->memsets[i].start_ns, s->memsets[i].end_ns, NULL};
        ok = key_sort(it, k, sizeof *it, busy_start, NULL) && device_stretches(it, k, devs[di], lo, hi, &v, &nv);
    }
    spill_free(it);
    spill_free(devs);
    /* Longest first, of equal length the earlier first. */
    ok = ok && key_sort(v, nv, sizeof *v, gap_start, NULL) && key_sort(v, nv, sizeof *v, gap_longest, NULL);
    size_t keep = 0;
    while (ok && keep < nv && (keep < IDLE_GAP_ALWAYS || v[keep].end - v[keep].start >= IDLE_GAP_LIST_NS))
        keep++;
    *unlisted = keep > IDLE_GAPS_MAX ? (int)(keep - IDLE_GAPS_MAX) : 0;
    keep = keep > IDLE_GAPS_MAX ? IDLE_GAPS_MAX : keep;
    idle_stretch *rows = ok ? calloc(keep ? keep : 1, sizeof *rows) : NULL;
    ok = rows != NULL;
    for (size_t i = 0; ok && i < keep; i++) {
        stretch_row(&v[i], &rows[i]);
        stretch_figures(m, h, lo, &rows[i]);
        ok = stretch_calls(h, &rows[i]);
    }
    spill_free(v);
    if (!ok) {
        free(rows);
        return false;
    }
    if (keep == 0) {
        free(rows);
        rows = NULL;
    }
    *out = rows;
    *nout = (int)keep;
    return true;
}

void idle_breakdown_add(const host_causes *h, int64_t start, int64_t end, stretch_where where,
                        int64_t by[IDLE_NCAUSES])
{
    if (end <= start)
        return;
    if (where == STRETCH_BETWEEN && end - start <= IDLE_BETWEEN_KERNELS_NS)
        by[IDLE_BETWEEN_KERNELS] += end - start;
    else
        host_causes_split(h, start, end, by);
}

void idle_breakdown_finish(const int64_t by[IDLE_NCAUSES], idle_share out[IDLE_NCAUSES])
{
    int64_t total = 0;
    for (int c = 0; c < IDLE_NCAUSES; c++)
        total += by[c];
    for (int c = 0; c < IDLE_NCAUSES; c++) {
        metric_set(&out[c].ms, (double)by[c] / 1e6);
        if (total > 0)
            metric_set(&out[c].share_pct, 100.0 * (double)by[c] / (double)total);
        else
            metric_na(&out[c].share_pct, "the GPU was never idle in the span");
    }
}

void idle_breakdown_na(idle_share out[IDLE_NCAUSES], const char *why)
{
    for (int c = 0; c < IDLE_NCAUSES; c++) {
        metric_na(&out[c].ms, "%s", why);
        metric_na(&out[c].share_pct, "%s", why);
    }
}
