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

/* Frame lines through the stream's one writer (stream_format.c). */
void host_format_py_frame(strbuf *b, uint32_t id, uint32_t parent, int line, const char *function, const char *file)
{
    host_frame f = {.kind = HOST_FRAME_PY, .function = (char *)function, .file = (char *)file, .line = line};
    stream_format_frame(b, id, parent, &f);
}

void host_format_native_frame(strbuf *b, uint32_t id, uint32_t parent, uint64_t offset, const char *function,
                              const char *module)
{
    host_frame f = {.kind = HOST_FRAME_NATIVE, .function = (char *)function, .module = (char *)module, .offset = offset};
    stream_format_frame(b, id, parent, &f);
}
