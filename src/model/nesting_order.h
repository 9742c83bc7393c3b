/* The one order that nests intervals on their thread (NVTX ranges in region_tracker.c, an
 * import's CPU spans in host_spans.c, host spans in the analysis): by process, thread and start,
 * and at one start the longer (the outer) first. */
#ifndef MMPROF_NESTING_ORDER_H
#define MMPROF_NESTING_ORDER_H

#include <stdint.h>

/* <0, 0 or >0 as interval a (process pa, thread ta, [sa, ea)) comes before, ties with or comes
 * after interval b; a tie is for the caller to break. */
static inline int nesting_order(uint32_t pa, uint32_t ta, int64_t sa, int64_t ea, uint32_t pb, uint32_t tb, int64_t sb,
                                int64_t eb)
{
    if (pa != pb)
        return pa < pb ? -1 : 1;
    if (ta != tb)
        return ta < tb ? -1 : 1;
    if (sa != sb)
        return sa < sb ? -1 : 1;
    return (ea < eb) - (ea > eb);
}

#endif
