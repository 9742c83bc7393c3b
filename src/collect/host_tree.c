/* The host call tree and its stream lines. See host_tree.h. */
#include "host_tree.h"

#include <stdlib.h>
#include <string.h>

#include "stream_format.h"

#define FIRST_CAP 4096

void host_tree_init(host_tree *t, uint32_t max_nodes)
{
    memset(t, 0, sizeof *t);
    t->max_nodes = max_nodes;
}

void host_tree_free(host_tree *t)
{
    free(t->slots);
    host_tree_init(t, t->max_nodes);
}

void host_tree_clear(host_tree *t)
{
    if (t->slots)
        memset(t->slots, 0, t->cap * sizeof *t->slots);
    t->nnodes = 0;
    t->cut = 0;
}

/* splitmix64's finaliser over the key's fields: addresses differ in their low bits, code objects
 * in their middle ones, and a parent's id is small: all are mixed before the mask. */
static uint64_t hash_key(uint32_t parent, const host_key *k)
{
    uint64_t x = k->a ^ ((uint64_t)parent << 32) ^ ((uint64_t)k->b * 0x9e3779b97f4a7c15ull) ^ k->kind;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static host_tree_slot *probe(host_tree_slot *slots, size_t cap, uint32_t parent, const host_key *k)
{
    for (size_t i = hash_key(parent, k) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        host_tree_slot *s = &slots[i];
        if (s->id == 0 || (s->a == k->a && s->parent == parent && s->b == k->b && s->kind == k->kind))
            return s;
    }
}

static bool grow(host_tree *t)
{
    size_t cap = t->cap ? t->cap * 2 : FIRST_CAP;
    host_tree_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < t->cap; i++) {
        const host_tree_slot *o = &t->slots[i];
        if (o->id) {
            host_key k = {.a = o->a, .b = o->b, .kind = o->kind};
            *probe(slots, cap, o->parent, &k) = *o;
        }
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return true;
}

uint32_t host_tree_find(host_tree *t, uint32_t parent, const host_key *key, bool *made)
{
    *made = false;
    if (t->slots) {
        host_tree_slot *s = probe(t->slots, t->cap, parent, key);
        if (s->id)
            return s->id;
    }
    if (t->nnodes >= t->max_nodes || ((size_t)(t->nnodes + 1) * 2 > t->cap && !grow(t))) {
        t->cut++;
        return 0;
    }
    host_tree_slot *s = probe(t->slots, t->cap, parent, key);
    s->a = key->a;
    s->b = key->b;
    s->kind = key->kind;
    s->parent = parent;
    s->id = ++t->nnodes;
    *made = true;
    return s->id;
}

void host_format_py_frame(strbuf *b, uint32_t id, uint32_t parent, int line, const char *function, const char *file)
{
    sb_printf(b, "frame\t%u\t%u\tpy\t%d\t0\t", id, parent, line);
    stream_escape(b, function);
    sb_add(b, "\t");
    stream_escape(b, file);
    sb_add(b, "\t\n");
}

void host_format_native_frame(strbuf *b, uint32_t id, uint32_t parent, uint64_t offset, const char *function,
                              const char *module)
{
    sb_printf(b, "frame\t%u\t%u\tnative\t0\t%llu\t", id, parent, (unsigned long long)offset);
    stream_escape(b, function);
    sb_add(b, "\t\t");
    stream_escape(b, module);
    sb_add(b, "\n");
}

/* Decimal digits of v ending at end; returns where they start. */
static char *digits(char *end, uint32_t v)
{
    do
        *--end = (char)('0' + v % 10);
    while (v /= 10);
    return end;
}

/* Written on every launch: two numbers by hand, not through printf's format parser. */
void host_format_site(strbuf *b, uint32_t correlation, uint32_t node)
{
    char line[32], *end = line + sizeof line;
    char *p = digits(end - 1, node);
    end[-1] = '\n';
    *--p = '\t';
    p = digits(p, correlation);
    p -= 5;
    memcpy(p, "site\t", 5);
    sb_addn(b, p, (size_t)(end - p));
}

void host_format_sample(strbuf *b, int64_t ts_ns, uint32_t tid, uint32_t node, bool cpu, char state)
{
    sb_printf(b, "sample\t%lld\t%u\t%u\t%s\t", (long long)ts_ns, tid, node, cpu ? "cpu" : "py");
    if (state)
        sb_addn(b, &state, 1);
    else
        sb_add(b, "-");
    sb_add(b, "\n");
}

void host_format_sampler(strbuf *b, double hz, const char *mechanism, const char *detail)
{
    sb_printf(b, "sampler\t%g\t", hz);
    stream_escape(b, mechanism);
    sb_add(b, "\t");
    stream_escape(b, detail);
    sb_add(b, "\n");
}
