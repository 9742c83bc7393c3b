/* Which line launched each kernel: see call_sites.h. */
#include "call_sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "array_grow.h"
#include "spill.h"

/* The (pid, correlation) of every site, sorted: a long run has millions of calls and kernels but
 * thousands of sites (held to a share of the process's time, inject_sites.c), so only the events
 * of a site's correlation are named and kept. */
typedef struct {
    uint32_t pid, corr;
} site_key;

static int cmp_site_key(const void *a, const void *b)
{
    const site_key *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

/* A GPU event or call by process and correlation id, with the target it counts for. */
typedef struct {
    site_key key;
    char kind[8];
    char name[128];
} target;

static int cmp_target(const void *a, const void *b)
{
    return cmp_site_key(&((const target *)a)->key, &((const target *)b)->key);
}

/* The first of n sorted rows of size bytes, each beginning with its site_key, not below
 * (pid, corr). */
static size_t lower_bound(const void *rows, size_t n, size_t size, uint32_t pid, uint32_t corr)
{
    site_key want = {pid, corr};
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_site_key((const char *)rows + mid * size, &want) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first target of (pid, corr) in the sorted t, or n. */
static size_t find(const target *t, size_t n, uint32_t pid, uint32_t corr)
{
    size_t lo = lower_bound(t, n, sizeof *t, pid, corr);
    return lo < n && t[lo].key.pid == pid && t[lo].key.corr == corr ? lo : n;
}

/* The host side of a copy: where its host memory lived ("pageable", "pinned"), else its source's. */
static mem_kind host_side(const copy_event *c)
{
    return c->dir == COPY_D2H ? c->dst : c->src;
}

static site_key *site_keys(const host_activity *ha)
{
    site_key *k = malloc((ha->nsites ? ha->nsites : 1) * sizeof *k);
    if (!k)
        return NULL;
    for (size_t i = 0; i < (size_t)ha->nsites; i++)
        k[i] = (site_key){ha->sites[i].pid, ha->sites[i].correlation};
    qsort(k, (size_t)ha->nsites, sizeof *k, cmp_site_key);
    return k;
}

/* How many sites have (pid, corr): their keys are sorted. */
static size_t sites_of(const site_key *k, size_t n, uint32_t pid, uint32_t corr)
{
    size_t lo = lower_bound(k, n, sizeof *k, pid, corr), c = 0;
    while (lo + c < n && k[lo + c].pid == pid && k[lo + c].corr == corr)
        c++;
    return c;
}

/* A new last target of t (grown by doubling, array_grow.h), or NULL when out of memory (t freed). */
static target *push_target(target **t, size_t *n, uint32_t pid, uint32_t corr, const char *kind)
{
    target *grown = array_grow(*t, *n, sizeof *grown);
    if (!grown) {
        free(*t);
        *t = NULL;
        return NULL;
    }
    *t = grown;
    target *x = &grown[(*n)++];
    *x = (target){.key = {pid, corr}};
    copy_str(x->kind, sizeof x->kind, kind);
    return x;
}

/* Kernel display names by stored name (the store keeps each distinct name once, model.h): a
 * long run's thousands of sited launches have a few dozen names, each demangled once. */
#define SHOWN_SLOTS 64
typedef struct {
    const char *stored;
    char shown[128];
} shown_name;

static void kernel_shown(shown_name *cache, const char *stored, char *buf, size_t len)
{
    shown_name *e = &cache[((uintptr_t)stored >> 4) % SHOWN_SLOTS];
    if (!stored || e->stored != stored) {
        kernel_display_name(stored, e->shown, sizeof e->shown);
        e->stored = stored;
    }
    copy_str(buf, len, e->shown);
}

/* The GPU work of the sites' correlations (a graph launch's kernels share one), sorted by
 * correlation; *sited counts it once for each site of its correlation. */
static target *gpu_targets(const run_model *m, const site_key *keys, size_t nkeys, size_t *n, size_t *sited)
{
    const event_list *s = &m->events;
    target *t = NULL, *x;
    size_t k = 0, c;
    shown_name *cache = calloc(SHOWN_SLOTS, sizeof *cache);
    if (!cache)
        return NULL;
    for (size_t i = 0; i < s->nkernels; i++)
        if ((c = sites_of(keys, nkeys, s->kernels[i].pid, s->kernels[i].correlation)) > 0) {
            *sited += c;
            if (!(x = push_target(&t, &k, s->kernels[i].pid, s->kernels[i].correlation, "kernel"))) {
                free(cache);
                return NULL;
            }
            kernel_shown(cache, s->kernels[i].name, x->name, sizeof x->name);
        }
    free(cache);
    for (size_t i = 0; i < s->ncopies; i++)
        if ((c = sites_of(keys, nkeys, s->copies[i].pid, s->copies[i].correlation)) > 0) {
            *sited += c;
            if (!(x = push_target(&t, &k, s->copies[i].pid, s->copies[i].correlation, "copy")))
                return NULL;
            snprintf(x->name, sizeof x->name, "%s %s", copy_dir_name(s->copies[i].dir),
                     mem_kind_name(host_side(&s->copies[i])));
        }
    for (size_t i = 0; i < s->nmemsets; i++)
        if ((c = sites_of(keys, nkeys, s->memsets[i].pid, s->memsets[i].correlation)) > 0) {
            *sited += c;
            if (!(x = push_target(&t, &k, s->memsets[i].pid, s->memsets[i].correlation, "memset")))
                return NULL;
            snprintf(x->name, sizeof x->name, "memset %s", mem_kind_name(s->memsets[i].mem));
        }
    if (!t && !(t = malloc(sizeof *t)))
        return NULL;
    qsort(t, k, sizeof *t, cmp_target);
    *n = k;
    return t;
}

/* The calls of the sites' correlations, which name a target only where no GPU work has theirs. */
static target *call_targets(const run_model *m, const site_key *keys, size_t nkeys, size_t *n)
{
    const event_list *s = &m->events;
    target *t = NULL, *x;
    size_t k = 0;
    for (size_t i = 0; i < s->napis; i++)
        if (sites_of(keys, nkeys, s->apis[i].pid, s->apis[i].correlation) > 0) {
            if (!(x = push_target(&t, &k, s->apis[i].pid, s->apis[i].correlation, "call")))
                return NULL;
            api_display_name(s->apis[i].name, x->name, sizeof x->name);
        }
    if (!t && !(t = malloc(sizeof *t)))
        return NULL;
    qsort(t, k, sizeof *t, cmp_target);
    *n = k;
    return t;
}

/* nvcc's launch stub for a kernel: a host function of the kernel's own name (at the kernel's line
 * in its .cu file) or its __device_stub__, which a <<<>>> launch calls: it is the user's code, but
 * the line a reader wants is its caller's, or, where the host compiler inlined the stub into the
 * launching function (at -O2 it does: the frame then reads as the stub, and its caller is the
 * launching function's caller), the line it was inlined at. cause_match.c's quoted_frames passes
 * over it the same way, so that the account and the call sites name one line. */
static bool launch_stub(const host_frame *f, const char *kernel)
{
    if (!f->function)
        return false;
    size_t n = strcspn(f->function, "(<");
    return strncmp(f->function, "__device_stub__", 15) == 0 || (n == strlen(kernel) && strncmp(f->function, kernel, n) == 0);
}

/* The user's line of a site's own stack (node, site_line_of's) for a target: a kernel's launch
 * stubs passed over. */
static int site_node(const host_activity *ha, int node, const target *t)
{
    for (int guard = 0; node >= 0 && strcmp(t->kind, "kernel") == 0 && launch_stub(&ha->frames[node], t->name) &&
                        guard < ha->nframes;
         guard++) {
        int outer = host_outer_node(ha, node);
        if (outer >= 0) { /* inlined: the launching function's line (passed over in turn, were it a stub) */
            node = outer;
            continue;
        }
        int up = ha->frames[node].parent >= 0 ? host_user_node(ha, ha->frames[node].parent) : -1;
        if (up < 0 || !host_user_frame(&ha->frames[up]))
            break; /* no caller of the user's: the stub it is */
        node = up;
    }
    return node;
}

/* One call of a target from one site. */
typedef struct {
    const target *t;
    char at[HOST_NAME];
} hit;

static int cmp_hit(const void *a, const void *b)
{
    const hit *x = *(const hit *const *)a, *y = *(const hit *const *)b;
    int c = strcmp(x->t->kind, y->t->kind);
    if (c == 0)
        c = strcmp(x->t->name, y->t->name);
    return c ? c : strcmp(x->at, y->at);
}

static bool same_target(const hit *x, const hit *y)
{
    return strcmp(x->t->kind, y->t->kind) == 0 && strcmp(x->t->name, y->t->name) == 0;
}

static int cmp_row(const void *a, const void *b)
{
    const call_site_row *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls < y->calls ? 1 : -1;
    int c = strcmp(x->kind, y->kind);
    return c ? c : strcmp(x->name, y->name);
}

/* The hits of one target, [lo, hi) of the sorted hits, as its row: sites by calls. */
static void make_row(const hit *const *h, size_t lo, size_t hi, call_site_row *r)
{
    memset(r, 0, sizeof *r);
    copy_str(r->kind, sizeof r->kind, h[lo]->t->kind);
    copy_str(r->name, sizeof r->name, h[lo]->t->name);
    r->calls = (int)(hi - lo);
    for (size_t i = lo; i < hi;) {
        size_t j = i;
        while (j < hi && strcmp(h[j]->at, h[i]->at) == 0)
            j++;
        int count = (int)(j - i), at = r->nsites;
        while (at > 0 && r->sites[at - 1].count.v < count)
            at--;
        if (at < CALL_SITES_TOP) {
            int last = r->nsites < CALL_SITES_TOP ? r->nsites : CALL_SITES_TOP - 1;
            if (r->nsites == CALL_SITES_TOP)
                r->other_sites++;
            for (int k = last; k > at; k--)
                r->sites[k] = r->sites[k - 1];
            copy_str(r->sites[at].at, sizeof r->sites[at].at, h[i]->at);
            metric_set(&r->sites[at].count, count);
            if (r->nsites < CALL_SITES_TOP)
                r->nsites++;
        } else {
            r->other_sites++;
        }
        i = j;
    }
    for (int k = 0; k < r->nsites; k++)
        metric_set(&r->sites[k].share_pct, 100.0 * r->sites[k].count.v / r->calls);
}

bool call_sites_analyze(const run_model *m, const site_lines *lines, call_site_row **out, int *nout, size_t *work,
                        size_t *sited)
{
    *out = NULL;
    *nout = 0;
    const event_list *ev = &m->events;
    *work = ev->nkernels + ev->ncopies + ev->nmemsets;
    *sited = 0;
    const host_activity *ha = &m->host_activity;
    if (ha->nsites == 0)
        return true;
    size_t ng = 0, nc = 0, nh = 0, nkeys = (size_t)ha->nsites;
    site_key *keys = site_keys(ha);
    target *g = keys ? gpu_targets(m, keys, nkeys, &ng, sited) : NULL;
    target *c = keys ? call_targets(m, keys, nkeys, &nc) : NULL;
    free(keys);
    hit *h = NULL;
    bool ok = g && c;
    for (size_t i = 0; ok && i < ha->nsites; i++) {
        const host_site *s = &ha->sites[i];
        site_line line = site_line_of(lines, s);
        if (line.node < 0)
            continue; /* a stack with no named frame, and no main thread's line, says nothing */
        size_t k = find(g, ng, s->pid, s->correlation);
        const target *t = g, *end = g + ng;
        if (k == ng) { /* no GPU work of its correlation: the call itself */
            k = find(c, nc, s->pid, s->correlation);
            t = c;
            end = c + (k < nc ? k + 1 : nc);
        }
        for (const target *x = t + k; x < end && x->key.pid == s->pid && x->key.corr == s->correlation; x++) {
            char at[HOST_NAME];
            site_line l = line;
            if (l.from == SITE_LINE_OWN)
                l.node = site_node(ha, l.node, x);
            site_line_words(ha, l, at, sizeof at);
            hit *grown = array_grow_spill(h, nh, sizeof *grown); /* a sampled launch's: spill.h's */
            if (!grown) {
                ok = false;
                break;
            }
            h = grown;
            h[nh].t = x;
            copy_str(h[nh].at, sizeof h[nh].at, at);
            nh++;
        }
    }
    call_site_row *rows = NULL;
    int nr = 0;
    /* Sorted through pointers (a hit is 168 bytes, which qsort would copy), then a row a target */
    const hit **sorted = ok && nh > 0 ? spill_alloc(nh * sizeof *sorted) : NULL;
    ok = ok && (nh == 0 || sorted);
    if (ok && nh > 0) {
        for (size_t i = 0; i < nh; i++)
            sorted[i] = &h[i];
        qsort(sorted, nh, sizeof *sorted, cmp_hit);
        size_t targets = 0;
        for (size_t i = 0; i < nh; i++)
            targets += i == 0 || !same_target(sorted[i], sorted[i - 1]);
        rows = malloc(targets * sizeof *rows);
        ok = rows != NULL;
        for (size_t i = 0; ok && i < nh;) {
            size_t j = i;
            while (j < nh && same_target(sorted[j], sorted[i]))
                j++;
            make_row(sorted, i, j, &rows[nr++]);
            i = j;
        }
        if (ok)
            qsort(rows, (size_t)nr, sizeof *rows, cmp_row);
    }
    spill_free(sorted);
    free(g);
    free(c);
    spill_free(h);
    if (!ok) {
        free(rows);
        return false;
    }
    *out = rows;
    *nout = nr;
    return true;
}
