/* The k-th smallest value of each of many groups, exactly, without holding the values: the
 * caller walks its values once per pass and hands each to its group, and each pass narrows every
 * group's answer by one digit (a radix selection). A long run's region holds millions of API
 * calls of a few dozen names; their medians from the durations gathered and sorted cost 8 bytes
 * a call, these cost a counter per bucket per group (at most RANK_SELECT_BUCKETS), whatever the
 * number of calls.
 *
 * A group is given its count, smallest and largest key and the rank wanted (its count and
 * extremes come from a first pass the caller makes anyway: totals, minimum, maximum). Each pass
 * splits the range still holding the answer into up to RANK_SELECT_BUCKETS buckets (fewer for a
 * group of few values, whose counters would be mostly empty) and keeps the bucket where the rank
 * falls, so a large group's keys spread over 2^b nanoseconds need about b/16 passes. No C
 * library offers a selection over values that are walked rather than stored, hence this file. */
#ifndef MMPROF_RANK_SELECT_H
#define MMPROF_RANK_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RANK_SELECT_BUCKETS 65536 /* 32-bit counters: 256 KiB for a group of 32,768 values or more */

typedef struct rank_select rank_select;

/* n groups, each found at once (count 0) until rank_select_group sets it. NULL when memory ran
 * out. */
rank_select *rank_select_new(size_t n);
void rank_select_free(rank_select *s);
/* Group g holds count values (at most UINT32_MAX) with keys in [min, max]; the one wanted is the
 * rank-th smallest (from 0; rank < count). */
void rank_select_group(rank_select *s, size_t g, uint64_t count, uint64_t min, uint64_t max, uint64_t rank);
/* Starts a pass: 1 when one is needed (hand every value to rank_select_add, then call
 * rank_select_end), 0 when every group's value is found, -1 when memory ran out. */
int rank_select_begin(rank_select *s);
/* Key of one value of group g, in the pass under way. Every value of the group must be handed
 * over in each pass, in any order. */
void rank_select_add(rank_select *s, size_t g, uint64_t key);
void rank_select_end(rank_select *s);
/* Group g's rank-th smallest key, once rank_select_begin has said 0. */
uint64_t rank_select_value(const rank_select *s, size_t g);

#endif
