/* See key_sort.h. Its buffers are as long as what is sorted (a long run's millions of calls), so
 * they are spill.h's, as the arrays sorted are. */
#include "key_sort.h"

#include <stdlib.h>

#include "spill.h"

typedef struct {
    uint64_t key;
    size_t at; /* the record's index before the sort */
} pair;

#define DIGIT_BITS 11
#define DIGITS ((64 + DIGIT_BITS - 1) / DIGIT_BITS)
#define BUCKETS (1u << DIGIT_BITS)
#define SMALL 64      /* below this, insertion sort */
#define RADIX_MIN 4096 /* below this, a merge sort: the histograms would cost more than the sort */

static unsigned digit(uint64_t key, int d)
{
    return (unsigned)(key >> (d * DIGIT_BITS)) & (BUCKETS - 1);
}

static void insertion_sort(pair *p, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        pair x = p[i];
        size_t j = i;
        for (; j > 0 && p[j - 1].key > x.key; j--)
            p[j] = p[j - 1];
        p[j] = x;
    }
}

/* Bottom-up, runs of SMALL sorted by insertion first; the result ends in *p. */
static bool merge_sort(pair **p, size_t n)
{
    pair *other = spill_alloc(n * sizeof *other);
    if (!other)
        return false;
    pair *from = *p, *to = other;
    for (size_t i = 0; i < n; i += SMALL)
        insertion_sort(from + i, n - i < SMALL ? n - i : SMALL);
    for (size_t w = SMALL; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                to[k++] = from[j].key < from[i].key ? from[j++] : from[i++];
            while (i < mid)
                to[k++] = from[i++];
            while (j < hi)
                to[k++] = from[j++];
        }
        pair *t = from;
        from = to;
        to = t;
    }
    spill_free(to);
    *p = from;
    return true;
}

/* Least significant digit first, each pass a stable counting sort; a digit all keys share (the
 * high bits of the timestamps of one run) is skipped. An element's key is it followed by KEY
 * (".key" for a pair, nothing for a plain key). The result ends in *p. */
#define RADIX_SORT(NAME, T, KEY)                                                   \
    static bool NAME(T **p, size_t n)                                              \
    {                                                                              \
        size_t(*count)[BUCKETS] = spill_calloc(DIGITS, sizeof *count);                   \
        T *other = spill_alloc(n * sizeof *other);                                      \
        if (!count || !other) {                                                    \
            spill_free(count);                                                           \
            spill_free(other);                                                           \
            return false;                                                          \
        }                                                                          \
        T *from = *p, *to = other;                                                 \
        for (size_t i = 0; i < n; i++)                                             \
            for (int d = 0; d < DIGITS; d++)                                       \
                count[d][digit(from[i] KEY, d)]++;                                 \
        for (int d = 0; d < DIGITS; d++) {                                         \
            if (count[d][digit(from[0] KEY, d)] == n)                              \
                continue;                                                          \
            size_t sum = 0;                                                        \
            for (unsigned b = 0; b < BUCKETS; b++) {                               \
                size_t c = count[d][b];                                            \
                count[d][b] = sum;                                                 \
                sum += c;                                                          \
            }                                                                      \
            for (size_t i = 0; i < n; i++)                                         \
                to[count[d][digit(from[i] KEY, d)]++] = from[i];                   \
            T *t = from;                                                           \
            from = to;                                                             \
            to = t;                                                                \
        }                                                                          \
        spill_free(count);                                                               \
        spill_free(to); /* whichever of the two no longer holds the result */            \
        *p = from;                                                                 \
        return true;                                                               \
    }
RADIX_SORT(radix_sort, pair, .key)
RADIX_SORT(radix_sort_plain, uint64_t, )

/* Pairs in any order: by insertion, merging or digits, by their number. The result ends in *p. */
static bool sort_pairs(pair **p, size_t n)
{
    if (n < SMALL) {
        insertion_sort(*p, n);
        return true;
    }
    return n < RADIX_MIN ? merge_sort(p, n) : radix_sort(p, n);
}

/* A run's events come nearly in order, or as a few orders interleaved: API calls by start are
 * listed per thread's buffer, and of a call and the driver call it made, the inner one ends (and
 * is recorded) first. So each pair joins the lane (of LANES) whose last key is the largest not
 * above its own, which keeps every lane in order; the few that fit none are sorted apart; then
 * the lanes and those are merged, ties by first place. Two passes instead of a digit sort's
 * several. More than an eighth fitting no lane (counted from the start, so keys in no order are
 * given up on early): sort_pairs. The result ends in *p. */
#define LANES 8
#define NONE SIZE_MAX

typedef struct {
    size_t head, tail; /* the lane's first and last place, linked through next[] */
    uint64_t last;     /* its last key */
} lane;

static bool sort_nearly(pair **p, size_t n)
{
    pair *in = *p;
    size_t *next = spill_alloc(n * sizeof *next);
    size_t rest_cap = n / 8 + LANES + 2; /* what the count below allows */
    pair *rest = spill_alloc(rest_cap * sizeof *rest);
    if (!next || !rest) {
        spill_free(next);
        spill_free(rest);
        return false;
    }
    lane ln[LANES];
    int nl = 0;
    size_t nrest = 0;
    bool too_many = false;
    for (size_t i = 0; i < n && !(too_many = nrest > i / 8 + LANES); i++) {
        int best = -1;
        for (int l = 0; l < nl; l++)
            if (ln[l].last <= in[i].key && (best < 0 || ln[l].last > ln[best].last))
                best = l;
        if (best < 0 && nl < LANES)
            ln[best = nl++] = (lane){i, NONE, 0};
        if (best < 0) {
            if (nrest < rest_cap)
                rest[nrest] = in[i];
            nrest++;
            continue;
        }
        if (ln[best].tail != NONE)
            next[ln[best].tail] = i;
        ln[best].tail = i;
        ln[best].last = in[i].key;
        next[i] = NONE;
    }
    bool in_order = nl == 1 && nrest == 0;
    pair *out = NULL;
    bool ok = !in_order && !too_many && sort_pairs(&rest, nrest) && (out = spill_alloc(n * sizeof *out));
    if (ok) {
        /* The smallest head, of equal keys the earliest place. */
        size_t at[LANES];
        for (int l = 0; l < nl; l++)
            at[l] = ln[l].head;
        size_t r = 0;
        for (size_t k = 0; k < n; k++) {
            int pick = -1; /* nl: from rest */
            pair best = {0, 0};
            for (int l = 0; l < nl; l++)
                if (at[l] != NONE && (pick < 0 || in[at[l]].key < best.key ||
                                      (in[at[l]].key == best.key && in[at[l]].at < best.at)))
                    pick = l, best = in[at[l]];
            if (r < nrest && (pick < 0 || rest[r].key < best.key || (rest[r].key == best.key && rest[r].at < best.at)))
                pick = nl, best = rest[r];
            out[k] = best;
            if (pick == nl)
                r++;
            else
                at[pick] = next[at[pick]];
        }
    }
    spill_free(next);
    spill_free(rest);
    if (in_order)
        return true;
    if (ok) {
        spill_free(in);
        *p = out;
        return true;
    }
    return too_many && sort_pairs(p, n);
}

/* Record i of out is record p[i].at of in. Reads in any order, but each independent of the
 * last, so the processor has many cache misses in flight (following the permutation's cycles in
 * place made each wait for the one before: most of the time of a sort). The sizes of the arrays
 * sorted get a copy of their own length, which the compiler inlines. */
static void gather(unsigned char *out, const unsigned char *in, const pair *p, size_t n, size_t size)
{
#define GATHER(SZ)                                           \
    for (size_t i = 0; i < n; i++)                           \
        memcpy(out + i * (SZ), in + p[i].at * (SZ), (SZ));   \
    return
    switch (size) {
    case 8: GATHER(8);
    case 16: GATHER(16);
    case 24: GATHER(24);
    case 32: GATHER(32);
    case 40: GATHER(40);
    case 48: GATHER(48);
    default: GATHER(size);
    }
#undef GATHER
}

bool key_sort(void *base, size_t n, size_t size, sort_key_fn key, const void *ctx)
{
    if (n < 2)
        return true;
    pair *p = spill_alloc(n * sizeof *p);
    if (!p)
        return false;
    unsigned char *r = base;
    for (size_t i = 0; i < n; i++)
        p[i] = (pair){key(r + i * size, ctx), i};
    if (!sort_nearly(&p, n)) {
        spill_free(p);
        return false;
    }
    size_t first_moved = 0;
    while (first_moved < n && p[first_moved].at == first_moved)
        first_moved++;
    unsigned char *sorted = first_moved < n ? spill_alloc((n - first_moved) * size) : NULL;
    if (first_moved < n && !sorted) {
        spill_free(p);
        return false;
    }
    if (sorted) {
        gather(sorted, r, p + first_moved, n - first_moved, size);
        memcpy(r + first_moved * size, sorted, (n - first_moved) * size);
    }
    spill_free(p);
    spill_free(sorted);
    return true;
}

static uint64_t field_key(const void *record, const void *ctx)
{
    const sort_field *f = ctx;
    const char *at = (const char *)record + f->offset;
    if (f->type == FIELD_U32) {
        uint32_t v;
        memcpy(&v, at, sizeof v);
        return v;
    }
    if (f->type == FIELD_INT) {
        int v;
        memcpy(&v, at, sizeof v);
        return key_of_i64(v);
    }
    int64_t v;
    memcpy(&v, at, sizeof v);
    return key_of_i64(v);
}

bool key_sort_fields(void *base, size_t n, size_t size, const sort_field *fields, int nfields)
{
    for (int i = nfields - 1; i >= 0; i--)
        if (!key_sort(base, n, size, field_key, &fields[i]))
            return false;
    return true;
}

bool key_order(size_t n, index_key_fn key, const void *ctx, size_t *order)
{
    if (n < 2) {
        if (n == 1)
            order[0] = 0;
        return true;
    }
    pair *p = spill_alloc(n * sizeof *p);
    if (!p)
        return false;
    for (size_t i = 0; i < n; i++)
        p[i] = (pair){key(i, ctx), i};
    if (!sort_nearly(&p, n)) {
        spill_free(p);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = p[i].at;
    spill_free(p);
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

bool key_sort_plain(uint64_t *keys, size_t n)
{
    if (n < SMALL) { /* a region's calls of one name: thousands of such sorts */
        for (size_t i = 1; i < n; i++) {
            uint64_t x = keys[i];
            size_t j = i;
            for (; j > 0 && keys[j - 1] > x; j--)
                keys[j] = keys[j - 1];
            keys[j] = x;
        }
        return true;
    }
    if (n < RADIX_MIN) {
        if (n > 1)
            qsort(keys, n, sizeof *keys, cmp_u64);
        return true;
    }
    /* radix_sort_plain frees the buffer it does not end in: a copy of ours, not the caller's. */
    uint64_t *p = spill_alloc(n * sizeof *p);
    if (!p)
        return false;
    memcpy(p, keys, n * sizeof *keys);
    if (!radix_sort_plain(&p, n)) {
        spill_free(p);
        return false;
    }
    memcpy(keys, p, n * sizeof *keys);
    spill_free(p);
    return true;
}
