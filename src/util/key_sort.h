/* Stable sorting by integer keys, for the per-event arrays of a long run (millions of API calls
 * and their edges): a radix sort of (key, index) pairs, a few passes over the keys, then each
 * record moved once, instead of n log n calls of a comparator through qsort.
 *
 * Equal keys keep the order they came in. glibc's qsort is a merge sort, stable too, so an array
 * sorted here comes out in the order the comparator it replaces gave (the outputs stay byte for
 * byte the same). Orders by several fields are made by sorting on the last field first, then
 * on each earlier one (stability keeps the later fields' order within equal earlier ones). */
#ifndef MMPROF_KEY_SORT_H
#define MMPROF_KEY_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A record's key (ctx: the caller's, passed through). Called once per record. */
typedef uint64_t (*sort_key_fn)(const void *record, const void *ctx);

/* Sorts the n records of size bytes at base by their keys, ascending and stably. False when
 * memory ran out; the records are then untouched. */
bool key_sort(void *base, size_t n, size_t size, sort_key_fn key, const void *ctx);

/* A field of a record as a key, for orders that are a few plain fields: an int64_t, a uint32_t
 * or an int at offset (SORT_FIELD(type, member, FIELD_I64)). */
typedef enum { FIELD_I64, FIELD_U32, FIELD_INT } field_type;
typedef struct {
    size_t offset;
    field_type type;
} sort_field;
#define SORT_FIELD(T, member, type) ((sort_field){offsetof(T, member), (type)})

/* Sorts the records by fields[0], those of equal fields[0] by fields[1], and so on, ascending and
 * stably: a key_sort pass per field, the last first. False when memory ran out; the records may
 * then be in part reordered. */
bool key_sort_fields(void *base, size_t n, size_t size, const sort_field *fields, int nfields);

/* A record's key by its index (records kept in more than one array, or not kept at all). */
typedef uint64_t (*index_key_fn)(size_t i, const void *ctx);

/* The order key_sort would give records 0..n-1 without moving any: order[k] is the index of the
 * k-th, ascending by key and stable. For several arrays that one order serves (sorted once, each
 * filled in that order instead of sorted and copied). False when memory ran out. */
bool key_order(size_t n, index_key_fn key, const void *ctx, size_t *order);

/* Sorts n keys that are all there is (nothing to carry along), ascending. False when memory ran
 * out; the keys are then untouched. */
bool key_sort_plain(uint64_t *keys, size_t n);

/* Keys whose unsigned order is the order of the values. */
static inline uint64_t key_of_i64(int64_t v)
{
    return (uint64_t)v ^ (UINT64_C(1) << 63);
}

static inline int64_t i64_of_key(uint64_t key)
{
    return (int64_t)(key ^ (UINT64_C(1) << 63));
}

/* Doubles in the order of < (NaN excepted: not expected in durations); -0 and +0 are one key,
 * as < finds them equal. */
static inline uint64_t key_of_double(double v)
{
    uint64_t u;
    if (v == 0)
        v = 0.0;
    memcpy(&u, &v, sizeof u);
    return (u >> 63) ? ~u : u ^ (UINT64_C(1) << 63);
}

/* Largest first: the complement of an ascending key. */
static inline uint64_t key_descending(uint64_t key)
{
    return ~key;
}

/* How many of the sorted (non-decreasing) v[0 .. n-1] are at or before t: the index of the
 * first after it. */
static inline size_t sorted_count_upto(const int64_t *v, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
