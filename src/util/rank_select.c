/* See rank_select.h. */
#include "rank_select.h"

#include <stdlib.h>
#include <string.h>

/* One group: the answer lies in [base, base + 2^width) and is the rank-th smallest of the
 * values there. */
typedef struct {
    uint64_t base, rank, count;
    int width;     /* bits of the range still open; 0: found (base) */
    int digit;     /* bits this pass splits off */
    size_t bucket; /* its first counter in the pass's counters */
} group;

struct rank_select {
    group *g;
    size_t n;
    uint32_t *counts; /* the pass's counters, every open group's in a row */
    size_t ncounts;
};

rank_select *rank_select_new(size_t n)
{
    rank_select *s = calloc(1, sizeof *s);
    if (!s || !(s->g = calloc(n ? n : 1, sizeof *s->g))) {
        free(s);
        return NULL;
    }
    s->n = n;
    return s;
}

void rank_select_free(rank_select *s)
{
    if (!s)
        return;
    free(s->g);
    free(s->counts);
    free(s);
}

/* Bits needed to write v. */
static int bits_of(uint64_t v)
{
    return v ? 64 - __builtin_clzll(v) : 0;
}

void rank_select_group(rank_select *s, size_t g, uint64_t count, uint64_t min, uint64_t max, uint64_t rank)
{
    s->g[g] = (group){.base = min, .rank = rank, .count = count, .width = count > 1 ? bits_of(max - min) : 0};
}

int rank_select_begin(rank_select *s)
{
    size_t need = 0;
    for (size_t i = 0; i < s->n; i++) {
        group *g = &s->g[i];
        if (g->width == 0)
            continue;
        /* About two counters a value of the group, at least 16 and at most RANK_SELECT_BUCKETS:
         * a region's name of ten calls takes a few more passes instead of 65,536 counters each,
         * a name of millions 16 bits a pass (durations to 4.3 s in two passes). */
        int digit = bits_of(g->count) + 1;
        digit = digit < 4 ? 4 : digit > 16 ? 16 : digit;
        g->digit = digit < g->width ? digit : g->width;
        g->bucket = need;
        need += (size_t)1 << g->digit;
    }
    if (need == 0)
        return 0;
    if (need > s->ncounts) {
        uint32_t *more = realloc(s->counts, need * sizeof *more);
        if (!more)
            return -1;
        s->counts = more;
        s->ncounts = need;
    }
    memset(s->counts, 0, need * sizeof *s->counts);
    return 1;
}

void rank_select_add(rank_select *s, size_t i, uint64_t key)
{
    const group *g = &s->g[i];
    if (g->width == 0 || key < g->base)
        return;
    uint64_t off = key - g->base;
    if (g->width < 64 && off >> g->width)
        return; /* above the range: counted in a bucket above the rank's in an earlier pass */
    s->counts[g->bucket + (off >> (g->width - g->digit))]++;
}

void rank_select_end(rank_select *s)
{
    for (size_t i = 0; i < s->n; i++) {
        group *g = &s->g[i];
        if (g->width == 0)
            continue;
        const uint32_t *c = s->counts + g->bucket;
        size_t b = 0, nb = (size_t)1 << g->digit;
        uint64_t below = 0;
        while (b + 1 < nb && below + c[b] <= g->rank)
            below += c[b++];
        g->rank -= below;
        g->width -= g->digit;
        g->base += (uint64_t)b << g->width;
    }
}

uint64_t rank_select_value(const rank_select *s, size_t g)
{
    return s->g[g].base;
}
