/* Interval arithmetic over int64 nanoseconds: the one union every busy figure and idle gap comes
 * from, merges and overlaps. See intervals.h. */
#include "intervals.h"

#include <stdlib.h>

#include "key_sort.h"

static int cmp_interval(const void *a, const void *b)
{
    const interval *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* By start: key_sort where it can (a run's GPU work: qsort would copy the array), qsort where
 * memory ran out for it. The order of equal starts changes neither a union nor a merge. */
static void sort_by_start(interval *iv, size_t n)
{
    sort_field start = SORT_FIELD(interval, start, FIELD_I64);
    if (n > 0 && !key_sort_fields(iv, n, sizeof *iv, &start, 1)) /* qsort's array may not be NULL, even empty */
        qsort(iv, n, sizeof *iv, cmp_interval);
}

size_t interval_merge(interval *iv, size_t n)
{
    if (n == 0)
        return 0;
    sort_by_start(iv, n);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (iv[i].end <= iv[i].start)
            continue;
        if (m > 0 && iv[i].start <= iv[m - 1].end) {
            if (iv[i].end > iv[m - 1].end)
                iv[m - 1].end = iv[i].end;
        } else {
            iv[m++] = iv[i];
        }
    }
    return m;
}

int64_t interval_overlap(const interval *a, size_t na, const interval *b, size_t nb)
{
    int64_t both = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int64_t s = a[i].start > b[j].start ? a[i].start : b[j].start;
        int64_t e = a[i].end < b[j].end ? a[i].end : b[j].end;
        if (e > s)
            both += e - s;
        if (a[i].end < b[j].end)
            i++;
        else
            j++;
    }
    return both;
}

/* Keeps g among the max longest gaps, longest first; of equal ones the earlier stays ahead. */
static void keep_gap(idle_gap *gaps, int max, int *n, idle_gap g)
{
    int at;
    if (*n < max)
        at = (*n)++;
    else if (max > 0 && g.length_ns > gaps[max - 1].length_ns)
        at = max - 1;
    else
        return;
    gaps[at] = g;
    for (int k = at; k > 0 && gaps[k].length_ns > gaps[k - 1].length_ns; k--) {
        idle_gap tmp = gaps[k];
        gaps[k] = gaps[k - 1];
        gaps[k - 1] = tmp;
    }
}

int64_t interval_union(interval *iv, size_t n, int64_t lo, int64_t hi, idle_gap *gaps, int max_gaps, int *ngaps)
{
    sort_by_start(iv, n);
    int64_t covered = 0, cursor = lo;
    int kept = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t s = iv[i].start < lo ? lo : iv[i].start;
        int64_t e = iv[i].end > hi ? hi : iv[i].end;
        if (e <= s)
            continue;
        if (s > cursor) {
            keep_gap(gaps, max_gaps, &kept, (idle_gap){cursor, s - cursor});
            cursor = s;
        }
        if (e > cursor) {
            covered += e - cursor;
            cursor = e;
        }
    }
    if (hi > cursor)
        keep_gap(gaps, max_gaps, &kept, (idle_gap){cursor, hi - cursor});
    if (ngaps)
        *ngaps = kept;
    return covered;
}
