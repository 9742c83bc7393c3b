/* Interval arithmetic over nanoseconds, beneath every busy figure and idle gap. Pure functions. */
#ifndef MMPROF_INTERVALS_H
#define MMPROF_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

/* A stretch with nothing on the GPU (verdict.h's figures and every idle table name them). */
typedef struct {
    int64_t start_ns, length_ns;
} idle_gap;


/* The union of intervals [start, end) (iv is sorted by start here) inside [lo, hi): returns the
 * busy time, and gives the longest idle stretches, up to max_gaps of them, longest first (of
 * equal ones the earlier first; gaps may be NULL when max_gaps is 0). The one union every busy
 * figure and gap of every output comes from. */
typedef struct { int64_t start, end; } interval;
int64_t interval_union(interval *iv, size_t n, int64_t lo, int64_t hi, idle_gap *gaps, int max_gaps, int *ngaps);

/* iv sorted and merged in place into disjoint intervals; returns how many remain. */
size_t interval_merge(interval *iv, size_t n);
/* The time two sets of disjoint sorted intervals (interval_merge's) overlap. */
int64_t interval_overlap(const interval *a, size_t na, const interval *b, size_t nb);

#endif
