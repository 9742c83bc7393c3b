/* Arrays of the run model that grow by doubling. An array's capacity is derived from its count
 * (the next power of two, at least 8), so no capacity field has to be kept in step; every code
 * that grows or fills such an array (model.c's appends, host_activity.c's, model_merge.c's moves)
 * goes through here, so a later append never writes past what an earlier fill allocated. Arrays
 * as long as the run's events (the event lists, the host samples and sites) grow by the _spill
 * forms, into spill.h's files once large. */
#ifndef MMPROF_ARRAY_GROW_H
#define MMPROF_ARRAY_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spill.h"

/* The capacity of an array holding count elements: the next power of two, in one step (doubling
 * from 8 took 19 steps an append at 4 M elements, a long run's wall-time segments). */
static inline size_t array_capacity_for(size_t count)
{
    if (count <= 8)
        return 8;
    return (size_t)2 << (63 - __builtin_clzll((unsigned long long)(count - 1)));
}

/* arr with room for one more element (count elements of size elem held now); NULL when memory
 * ran out (arr is then unchanged). */
static inline void *array_grow(void *arr, size_t count, size_t elem)
{
    if (arr && count + 1 <= array_capacity_for(count))
        return arr;
    return realloc(arr, array_capacity_for(count + 1) * elem);
}

/* As array_grow, for an array that grows with a run's events (spill.h: freed with spill_free):
 * the model's event lists. */
static inline void *array_grow_spill(void *arr, size_t count, size_t elem)
{
    if (arr && count + 1 <= array_capacity_for(count))
        return arr;
    return spill_resize(arr, count * elem, array_capacity_for(count + 1) * elem);
}

/* Appends n elements of src to the array *dst holding *nd, by copying; an array of spill.h's when
 * spill. False when the sizes overflow or memory ran out (*dst and *nd are then unchanged). */
static inline bool array_append_n_to(void *dst_p, size_t *nd, const void *src, size_t n, size_t elem, bool spill)
{
    void **dst = dst_p;
    if (n == 0)
        return true;
    if (*nd > SIZE_MAX / elem - n)
        return false;
    size_t cap = array_capacity_for(*nd + n);
    void *grown = cap > SIZE_MAX / elem ? NULL
                  : spill              ? spill_resize(*dst, *nd * elem, cap * elem)
                                       : realloc(*dst, cap * elem);
    if (!grown)
        return false;
    memcpy((char *)grown + *nd * elem, src, n * elem);
    *dst = grown;
    *nd += n;
    return true;
}

static inline bool array_append_n(void *dst_p, size_t *nd, const void *src, size_t n, size_t elem)
{
    return array_append_n_to(dst_p, nd, src, n, elem, false);
}

/* Appends value to arr (holding count), grown by grow (array_grow or array_grow_spill), or
 * returns false from the calling function. */
#define ARRAY_APPEND_BY(grow, arr, count, value)                                                  \
    do {                                                                                          \
        void *grown_ = grow((arr), (count), sizeof *(arr));                                       \
        if (!grown_)                                                                              \
            return false;                                                                         \
        (arr) = grown_;                                                                           \
        (arr)[(count)++] = (value);                                                               \
    } while (0)
#define ARRAY_APPEND(arr, count, value) ARRAY_APPEND_BY(array_grow, arr, count, value)
/* As ARRAY_APPEND, for an array of spill.h's. */
#define SPILL_APPEND(arr, count, value) ARRAY_APPEND_BY(array_grow_spill, arr, count, value)

#endif
