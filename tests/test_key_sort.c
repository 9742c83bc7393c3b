/* key_sort.h against qsort with a comparator that breaks ties by the original position (the
 * order a stable sort must give): random records of an odd size with many equal keys, at sizes
 * on both sides of the insertion-sort cut and of a radix digit; keys of every sign and of
 * doubles; orders by two fields made by two passes; keys that share all their high bits
 * (timestamps of one run), where passes are skipped; keys nearly in order (a run's calls by
 * start), which are merged rather than sorted whole; key_order's order, records left in place,
 * is the order key_sort gives; key_sort_fields' order of plain fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "key_sort.h"

/* 13 bytes: no alignment the sort could rely on. */
typedef struct {
    unsigned char b[13];
} rec;

static int64_t rec_i64(const rec *r)
{
    int64_t v;
    memcpy(&v, r->b, sizeof v);
    return v;
}

static uint32_t rec_pos(const rec *r)
{
    uint32_t p;
    memcpy(&p, r->b + 8, sizeof p);
    return p;
}

static uint64_t by_i64(const void *r, const void *ctx)
{
    (void)ctx;
    return key_of_i64(rec_i64(r));
}

/* Record i of the array ctx's key, for key_order. */
static uint64_t rec_at_i64(size_t i, const void *ctx)
{
    return key_of_i64(rec_i64(&((const rec *)ctx)[i]));
}

static int cmp_i64_then_pos(const void *a, const void *b)
{
    int64_t x = rec_i64(a), y = rec_i64(b);
    if (x != y)
        return x < y ? -1 : 1;
    return (rec_pos(a) > rec_pos(b)) - (rec_pos(a) < rec_pos(b));
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* n records with keys drawn by pick, each marked with its position; sorted by key_sort and by
 * qsort (ties by position), which must agree byte for byte. */
static void check(size_t n, int64_t (*pick)(uint64_t *s), uint64_t seed)
{
    rec *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++) {
        int64_t v = pick(&seed);
        uint32_t pos = (uint32_t)i;
        memcpy(a[i].b, &v, sizeof v);
        memcpy(a[i].b + 8, &pos, sizeof pos);
        a[i].b[12] = (unsigned char)(i * 7);
    }
    memcpy(b, a, n * sizeof *a);
    /* key_order over the records as they came: the same order, no record moved. */
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    assert_non_null(order);
    assert_true(key_order(n, rec_at_i64, a, order));
    for (size_t i = 0; i < n; i++)
        if (rec_pos(&a[i]) != i)
            fail_msg("n %zu: key_order moved record %zu", n, i);
    assert_true(key_sort(a, n, sizeof *a, by_i64, NULL));
    if (n > 0)
        qsort(b, n, sizeof *b, cmp_i64_then_pos);
    for (size_t i = 0; i < n; i++) {
        if (memcmp(&a[i], &b[i], sizeof a[i]) != 0)
            fail_msg("n %zu: record %zu is %lld (from %u), want %lld (from %u)", n, i, (long long)rec_i64(&a[i]),
                     rec_pos(&a[i]), (long long)rec_i64(&b[i]), rec_pos(&b[i]));
        if (order[i] != rec_pos(&b[i]))
            fail_msg("n %zu: key_order's place %zu is record %zu, want %u", n, i, order[i], rec_pos(&b[i]));
    }
    free(order);
    free(a);
    free(b);
}

/* Few distinct values, of both signs: many ties. */
static int64_t few(uint64_t *s) { return (int64_t)(rnd(s) % 17) - 8; }
/* Anything, INT64_MIN and INT64_MAX included now and then. */
static int64_t any(uint64_t *s)
{
    uint64_t r = rnd(s);
    return r % 97 == 0 ? INT64_MIN : r % 89 == 0 ? INT64_MAX : (int64_t)rnd(s);
}
/* Nearly in order, as a run's calls by start: rising with ties, now and then one from earlier. */
static int64_t nearly(uint64_t *s)
{
    static int64_t at;
    uint64_t r = rnd(s);
    at += (int64_t)(r % 3);
    return r % 50 == 0 ? at - (int64_t)(rnd(s) % 1000) : at;
}
/* Timestamps of one minute: the high digits all equal, so those passes are skipped. */
static int64_t stamps(uint64_t *s) { return 1796150204683365309LL + (int64_t)(rnd(s) % 60000000000ULL); }

static void stable_and_ordered(void **state)
{
    (void)state;
    size_t sizes[] = {0, 1, 2, 3, 63, 64, 65, 2047, 2048, 2049, 100000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        check(sizes[i], few, 88172645463325252ULL + i);
        check(sizes[i], any, 1234567ULL + i);
        check(sizes[i], stamps, 99991ULL + i);
        check(sizes[i], nearly, 4242ULL + i);
    }
}

typedef struct {
    double d;
    int group;
    int pos;
} two;

static uint64_t by_double(const void *r, const void *ctx)
{
    (void)ctx;
    return key_of_double(((const two *)r)->d);
}

static uint64_t by_group_desc(const void *r, const void *ctx)
{
    (void)ctx;
    return key_descending(key_of_i64(((const two *)r)->group));
}

static int cmp_group_desc_double(const void *a, const void *b)
{
    const two *x = a, *y = b;
    if (x->group != y->group)
        return x->group > y->group ? -1 : 1;
    if (x->d != y->d)
        return x->d < y->d ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Group (largest first), then value: two passes, the later field first. Doubles of both
 * signs, zeros of both signs (one key) and equal values. */
static void two_fields_and_doubles(void **state)
{
    (void)state;
    enum { N = 5000 };
    two *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    uint64_t s = 42;
    for (int i = 0; i < N; i++) {
        uint64_t r = rnd(&s);
        double d = r % 11 == 0 ? 0.0 : r % 13 == 0 ? -0.0 : (double)(int64_t)(r % 2001 - 1000) / 7.0;
        a[i] = (two){d, (int)(rnd(&s) % 5), i};
    }
    memcpy(b, a, N * sizeof *a);
    assert_true(key_sort(a, N, sizeof *a, by_double, NULL));
    assert_true(key_sort(a, N, sizeof *a, by_group_desc, NULL));
    qsort(b, N, sizeof *b, cmp_group_desc_double);
    for (int i = 0; i < N; i++) {
        assert_int_equal(a[i].pos, b[i].pos);
        assert_int_equal(a[i].group, b[i].group);
    }
    free(a);
    free(b);
}

/* Records of the three field types key_sort_fields reads. */
typedef struct {
    uint32_t u;
    int64_t v;
    int i;
    int pos;
} fields;

static int cmp_fields(const void *a, const void *b)
{
    const fields *x = a, *y = b;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* key_sort_fields: by a uint32_t (its top bit set too), then an int64_t and an int of both
 * signs, against qsort with the comparator those fields and the original place make. */
static void plain_fields(void **state)
{
    (void)state;
    enum { N = 6000 };
    fields *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    uint64_t s = 7;
    for (int i = 0; i < N; i++) {
        uint64_t r = rnd(&s);
        a[i] = (fields){(uint32_t)(r % 3) << 30, (int64_t)(rnd(&s) % 7) - 3, (int)(rnd(&s) % 5) - 2, i};
    }
    memcpy(b, a, N * sizeof *a);
    const sort_field by[] = {SORT_FIELD(fields, u, FIELD_U32), SORT_FIELD(fields, v, FIELD_I64),
                             SORT_FIELD(fields, i, FIELD_INT)};
    assert_true(key_sort_fields(a, N, sizeof *a, by, 3));
    qsort(b, N, sizeof *b, cmp_fields);
    for (int i = 0; i < N; i++)
        assert_int_equal(a[i].pos, b[i].pos);
    free(a);
    free(b);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Plain keys (nothing carried): the same values as qsort gives, below and above the digit sort's
 * cut, with few distinct values and with any. */
static void plain_keys(void **state)
{
    (void)state;
    size_t sizes[] = {0, 1, 2, 100, 4095, 4096, 4097, 100000};
    uint64_t s = 777;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int spread = 0; spread < 2; spread++) {
            size_t n = sizes[i];
            uint64_t *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
            assert_non_null(a);
            assert_non_null(b);
            for (size_t j = 0; j < n; j++)
                a[j] = spread ? rnd(&s) : key_of_i64((int64_t)(rnd(&s) % 1000) - 500);
            memcpy(b, a, n * sizeof *a);
            assert_true(key_sort_plain(a, n));
            if (n > 0)
                qsort(b, n, sizeof *b, cmp_u64);
            if (n > 0)
                assert_memory_equal(a, b, n * sizeof *a);
            free(a);
            free(b);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stable_and_ordered),
        cmocka_unit_test(two_fields_and_doubles),
        cmocka_unit_test(plain_keys),
        cmocka_unit_test(plain_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
