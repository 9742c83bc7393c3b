/* See key_sort.h. */
#include "key_sort.h"

#include <stdlib.h>

typedef struct {
    uint64_t key;
    size_t at; /* the record's index before the sort */
} pair;

#define DIGIT_BITS 11
#define DIGITS ((64 + DIGIT_BITS - 1) / DIGIT_BITS)
#define BUCKETS (1u << DIGIT_BITS)
#define SMALL 64 /* below this, insertion sort: the histograms would cost more than the sort */

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

/* Least significant digit first, each pass a stable counting sort; a digit all keys share (the
 * high bits of the timestamps of one run) is skipped. The result ends in *p. */
static bool radix_sort(pair **p, size_t n)
{
    size_t(*count)[BUCKETS] = calloc(DIGITS, sizeof *count);
    pair *other = malloc(n * sizeof *other);
    if (!count || !other) {
        free(count);
        free(other);
        return false;
    }
    pair *from = *p, *to = other;
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < DIGITS; d++)
            count[d][digit(from[i].key, d)]++;
    for (int d = 0; d < DIGITS; d++) {
        if (count[d][digit(from[0].key, d)] == n)
            continue;
        size_t sum = 0;
        for (unsigned b = 0; b < BUCKETS; b++) {
            size_t c = count[d][b];
            count[d][b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            to[count[d][digit(from[i].key, d)]++] = from[i];
        pair *t = from;
        from = to;
        to = t;
    }
    free(count);
    free(to); /* whichever of the two no longer holds the result */
    *p = from;
    return true;
}

bool key_sort(void *base, size_t n, size_t size, sort_key_fn key, const void *ctx)
{
    if (n < 2)
        return true;
    pair *p = malloc(n * sizeof *p);
    unsigned char *hold = malloc(size);
    if (!p || !hold) {
        free(p);
        free(hold);
        return false;
    }
    unsigned char *r = base;
    for (size_t i = 0; i < n; i++)
        p[i] = (pair){key(r + i * size, ctx), i};
    if (n < SMALL)
        insertion_sort(p, n);
    else if (!radix_sort(&p, n)) {
        free(p);
        free(hold);
        return false;
    }
    /* Record i takes the one at p[i].at: follow each cycle of the permutation with one record
     * held aside, marking a place done by pointing it at itself. */
    for (size_t i = 0; i < n; i++) {
        if (p[i].at == i)
            continue;
        memcpy(hold, r + i * size, size);
        size_t j = i;
        for (;;) {
            size_t k = p[j].at;
            p[j].at = j;
            if (k == i) {
                memcpy(r + j * size, hold, size);
                break;
            }
            memcpy(r + j * size, r + k * size, size);
            j = k;
        }
    }
    free(p);
    free(hold);
    return true;
}
