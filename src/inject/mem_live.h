/* The injection library's table of live allocations, by address: what it writes at a failed
 * allocation, at once, before the program can die of the error (CUPTI's memory records of the
 * same allocations may still sit in a buffer it holds). Filled from the allocation and free calls'
 * callbacks (inject_memory.c); plain data here, so it is tested without a GPU.
 *
 * Bounded memory: a fixed table of open addressing, sized at init (1 << 16 slots, 2 MB, in the
 * library), filled to three quarters at most; an allocation that finds it full is counted as
 * untracked instead (the live set then says how many it lacks). Removal shifts the entries behind
 * back (no tombstones), so a program that allocates and frees forever never fills it. */
#ifndef MMPROF_MEM_LIVE_H
#define MMPROF_MEM_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t key;    /* the address (a VMM handle with MEM_LIVE_HANDLE set); 0: empty slot */
    uint64_t bytes;
    uint32_t node;   /* the allocating call's host call-tree node, 0: none */
    uint32_t device;
    uint8_t kind;    /* model.h's mem_kind */
} mem_live_entry;

/* Keys of VMM allocation handles (cuMemCreate), which are not addresses. */
#define MEM_LIVE_HANDLE (1ull << 63)

typedef struct {
    mem_live_entry *slots;
    size_t cap;          /* a power of two */
    size_t n;            /* entries held */
    uint64_t bytes;      /* their bytes */
    uint64_t untracked;  /* allocations that found the table full */
} mem_live_table;

/* cap slots (rounded up to a power of two, at least 16); false when memory ran out. */
bool mem_live_init(mem_live_table *t, size_t cap);
void mem_live_free(mem_live_table *t);
/* An allocation; a key already held is replaced (its old bytes dropped: an address the driver gave
 * again was freed unseen). Key 0 is ignored. */
void mem_live_add(mem_live_table *t, uint64_t key, uint64_t bytes, uint32_t node, uint32_t device, uint8_t kind);
/* A free: true, with its entry in *out (may be NULL), when key was held. */
bool mem_live_remove(mem_live_table *t, uint64_t key, mem_live_entry *out);

/* The live set grouped by (node, device, kind), most bytes first: at most max groups into out,
 * the rest summed into the last one with node 0 (as "other"). Returns the groups written. */
typedef struct {
    uint32_t node, device;
    uint8_t kind;
    uint64_t count, bytes;
} mem_live_sum;
size_t mem_live_groups(const mem_live_table *t, mem_live_sum *out, size_t max);

#endif
