/* See mem_live.h. */
#include "mem_live.h"

#include <stdlib.h>
#include <string.h>

bool mem_live_init(mem_live_table *t, size_t cap)
{
    memset(t, 0, sizeof *t);
    size_t c = 16;
    while (c < cap)
        c *= 2;
    t->slots = calloc(c, sizeof *t->slots);
    if (!t->slots)
        return false;
    t->cap = c;
    return true;
}

void mem_live_free(mem_live_table *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static size_t home(const mem_live_table *t, uint64_t key)
{
    /* Addresses are aligned (the low bits alike): mixed before masking. */
    return (size_t)((key >> 4) * 0x9E3779B97F4A7C15ull >> 17) & (t->cap - 1);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t find(const mem_live_table *t, uint64_t key)
{
    size_t i = home(t, key);
    while (t->slots[i].key && t->slots[i].key != key)
        i = (i + 1) & (t->cap - 1);
    return i;
}

void mem_live_add(mem_live_table *t, uint64_t key, uint64_t bytes, uint32_t node, uint32_t device, uint8_t kind)
{
    if (!key || !t->cap)
        return;
    size_t i = find(t, key);
    if (t->slots[i].key) {
        t->bytes -= t->slots[i].bytes;
        t->n--;
    } else if ((t->n + 1) * 4 > t->cap * 3) {
        t->untracked++;
        return;
    }
    t->slots[i] = (mem_live_entry){.key = key, .bytes = bytes, .node = node, .device = device, .kind = kind};
    t->n++;
    t->bytes += bytes;
}

bool mem_live_remove(mem_live_table *t, uint64_t key, mem_live_entry *out)
{
    if (!key || !t->cap)
        return false;
    size_t i = find(t, key);
    if (!t->slots[i].key)
        return false;
    if (out)
        *out = t->slots[i];
    t->bytes -= t->slots[i].bytes;
    t->n--;
    /* Backward shift: an entry after the hole moves into it unless its home lies cyclically after
     * the hole and at or before its own slot (then moving it would put it before its home). */
    size_t hole = i;
    for (size_t j = (i + 1) & (t->cap - 1); t->slots[j].key; j = (j + 1) & (t->cap - 1)) {
        size_t h = home(t, t->slots[j].key);
        bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
        if (stays)
            continue;
        t->slots[hole] = t->slots[j];
        hole = j;
    }
    t->slots[hole].key = 0;
    return true;
}

static int by_group(const void *a, const void *b)
{
    const mem_live_sum *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return (int)x->kind - (int)y->kind;
}

static int by_bytes(const void *a, const void *b)
{
    const mem_live_sum *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return by_group(a, b);
}

size_t mem_live_groups(const mem_live_table *t, mem_live_sum *out, size_t max)
{
    if (!max || !t->n)
        return 0;
    mem_live_sum *all = malloc(t->n * sizeof *all);
    if (!all) { /* no room to sort: the whole set as one group */
        out[0] = (mem_live_sum){.count = t->n, .bytes = t->bytes};
        return 1;
    }
    size_t n = 0;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].key)
            all[n++] = (mem_live_sum){.node = t->slots[i].node, .device = t->slots[i].device, .kind = t->slots[i].kind,
                                      .count = 1, .bytes = t->slots[i].bytes};
    qsort(all, n, sizeof *all, by_group);
    size_t groups = 0;
    for (size_t i = 0; i < n; i++) {
        if (groups && by_group(&all[groups - 1], &all[i]) == 0) {
            all[groups - 1].count += all[i].count;
            all[groups - 1].bytes += all[i].bytes;
        } else {
            all[groups++] = all[i];
        }
    }
    qsort(all, groups, sizeof *all, by_bytes);
    size_t kept = groups <= max ? groups : max - 1;
    memcpy(out, all, kept * sizeof *out);
    if (kept < groups) {
        mem_live_sum rest = {0};
        for (size_t i = kept; i < groups; i++) {
            rest.count += all[i].count;
            rest.bytes += all[i].bytes;
        }
        out[kept++] = rest;
    }
    free(all);
    return kept;
}
