/* rank_select.h against sorting: every rank of small groups, the middle ranks of large ones, on
 * random keys with many equal ones, keys all equal, keys at both ends of the 64-bit range, and
 * groups of one value; groups side by side, which must not count each other's values; the
 * values handed over in a new order each pass (the answer must not depend on it); and the number
 * of passes, which is what bounds the cost of not holding the values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rank_select.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A group's values: n keys drawn by how. */
typedef enum { SPREAD_WIDE, SPREAD_NARROW, SPREAD_FEW_DISTINCT, SPREAD_EQUAL, SPREAD_ENDS, SPREAD_DURATIONS } spread;

static void fill(uint64_t *v, size_t n, spread how, uint64_t *seed)
{
    uint64_t base = rnd(seed) >> 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rnd(seed);
        switch (how) {
        case SPREAD_WIDE: v[i] = r; break;
        case SPREAD_NARROW: v[i] = base + (r & 0xff); break;
        case SPREAD_FEW_DISTINCT: v[i] = base + (r % 3) * 1000003u; break;
        case SPREAD_EQUAL: v[i] = base; break;
        case SPREAD_ENDS: v[i] = (r & 1) ? UINT64_MAX - (r >> 60) : (r >> 60); break;
        /* API call durations: mostly sub-microsecond, a tail to seconds (as a long run's) */
        default: v[i] = (UINT64_C(1) << 63) + ((r & 7) ? 150 + (r >> 56) : (r >> 31)); break;
        }
    }
}

static void shuffle(size_t *order, size_t n, uint64_t *seed)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = rnd(seed) % i, t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

/* Selects rank[g] of each group's values (groups in a row in v, sizes in len) and checks each
 * against the sorted values; the passes it took. */
static int select_and_check(const uint64_t *v, const size_t *len, const uint64_t *rank, size_t ngroups,
                            uint64_t *seed)
{
    size_t total = 0;
    for (size_t g = 0; g < ngroups; g++)
        total += len[g];
    size_t *order = malloc((total ? total : 1) * sizeof *order), *group_of = malloc((total ? total : 1) * sizeof *group_of);
    uint64_t *sorted = malloc((total ? total : 1) * sizeof *sorted);
    assert_non_null(order);
    assert_non_null(group_of);
    assert_non_null(sorted);
    rank_select *s = rank_select_new(ngroups);
    assert_non_null(s);
    size_t at = 0;
    for (size_t g = 0; g < ngroups; g++) {
        uint64_t lo = UINT64_MAX, hi = 0;
        for (size_t i = at; i < at + len[g]; i++) {
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
            group_of[i] = g;
        }
        if (len[g])
            rank_select_group(s, g, len[g], lo, hi, rank[g]);
        at += len[g];
    }
    for (size_t i = 0; i < total; i++)
        order[i] = i;
    int passes = 0, more;
    while ((more = rank_select_begin(s)) == 1) {
        shuffle(order, total, seed);
        for (size_t i = 0; i < total; i++)
            rank_select_add(s, group_of[order[i]], v[order[i]]);
        rank_select_end(s);
        passes++;
        assert_true(passes <= 64);
    }
    assert_int_equal(more, 0);
    at = 0;
    for (size_t g = 0; g < ngroups; g++) {
        if (len[g]) {
            memcpy(sorted, v + at, len[g] * sizeof *sorted);
            qsort(sorted, len[g], sizeof *sorted, cmp_u64);
            assert_true(rank_select_value(s, g) == sorted[rank[g]]);
        }
        at += len[g];
    }
    rank_select_free(s);
    free(order);
    free(group_of);
    free(sorted);
    return passes;
}

/* Every rank of groups of 1 to 40 values, each spread. */
static void every_rank_of_small_groups(void **state)
{
    (void)state;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    uint64_t v[40];
    for (int how = SPREAD_WIDE; how <= SPREAD_DURATIONS; how++)
        for (size_t n = 1; n <= 40; n += (n < 5 ? 1 : 7)) {
            fill(v, n, (spread)how, &seed);
            for (uint64_t r = 0; r < n; r++) {
                size_t len = n;
                select_and_check(v, &len, &r, 1, &seed);
            }
        }
}

/* Many groups of very different sizes selected together, their middle ranks (a median's two). */
static void middles_of_many_groups_at_once(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    enum { GROUPS = 24 };
    size_t len[GROUPS];
    uint64_t rank[GROUPS];
    size_t total = 0;
    for (int g = 0; g < GROUPS; g++) {
        len[g] = g % 6 == 5 ? 0 : (size_t)1 << (g % 17);
        total += len[g];
    }
    uint64_t *v = malloc(total * sizeof *v);
    assert_non_null(v);
    for (int lower = 0; lower < 2; lower++) {
        size_t at = 0;
        for (int g = 0; g < GROUPS; g++) {
            fill(v + at, len[g], (spread)(g % (SPREAD_DURATIONS + 1)), &seed);
            rank[g] = len[g] ? (lower ? (len[g] - 1) / 2 : len[g] / 2) : 0;
            at += len[g];
        }
        select_and_check(v, len, rank, GROUPS, &seed);
    }
    free(v);
}

/* Groups side by side of one size and spread, so that a value counted outside its group's range
 * would land in its neighbour's counters: each still finds its own. */
static void neighbours_keep_their_own_counts(void **state)
{
    (void)state;
    uint64_t seed = 4242;
    enum { GROUPS = 4, EACH = 1 << 14 };
    size_t len[GROUPS];
    uint64_t rank[GROUPS];
    uint64_t *v = malloc(GROUPS * EACH * sizeof *v);
    assert_non_null(v);
    for (int how = SPREAD_WIDE; how <= SPREAD_DURATIONS; how++) {
        for (int g = 0; g < GROUPS; g++) {
            len[g] = EACH;
            rank[g] = (uint64_t)(g + 1) * EACH / (GROUPS + 1);
            fill(v + g * EACH, EACH, (spread)how, &seed);
        }
        select_and_check(v, len, rank, GROUPS, &seed);
    }
    free(v);
}

/* The passes a group needs follow the spread of its keys, 16 bits a pass for a large group: a
 * million durations over 2^33 ns in three passes, over 2^24 ns (to 16.8 ms, an API call's) in
 * two, equal keys in none. */
static void passes_follow_the_spread(void **state)
{
    (void)state;
    uint64_t seed = 777;
    size_t n = 1000000;
    uint64_t *v = malloc(n * sizeof *v);
    assert_non_null(v);
    for (int bits = 33; bits >= 24; bits -= 9) {
        for (size_t i = 0; i < n; i++)
            v[i] = UINT64_C(5000000000) + (rnd(&seed) & ((UINT64_C(1) << bits) - 1));
        uint64_t r = n / 2;
        assert_int_equal(select_and_check(v, &n, &r, 1, &seed), bits == 33 ? 3 : 2);
    }
    uint64_t r = n / 2;
    fill(v, n, SPREAD_EQUAL, &seed);
    assert_int_equal(select_and_check(v, &n, &r, 1, &seed), 0);
    size_t one = 1;
    r = 0;
    assert_int_equal(select_and_check(v, &one, &r, 1, &seed), 0);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_rank_of_small_groups),
        cmocka_unit_test(middles_of_many_groups_at_once),
        cmocka_unit_test(neighbours_keep_their_own_counts),
        cmocka_unit_test(passes_follow_the_spread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
