/* The injection library's host call tree: every stack it takes (a launch's call site, a sample)
 * is stored as a path of nodes, each node a frame with its caller, so a stack seen a million times
 * costs one lookup per frame and is written to the stream once (its "frame" lines, host-spec).
 *
 * Plain C with no CUPTI, Python or locking of its own (the caller holds inject_host.c's lock):
 * tests/test_host_tree.c checks it on any machine.
 *
 * A frame is named by a key: its kind (py or native) and two numbers, (code object, instruction
 * offset) for Python, (address, 0) for native code. The tree only compares keys; what a key means
 * is the caller's, which writes a node's frame line when it is made. Node ids run from 1 in the
 * order nodes were made; 0 is "no node" (the parent of an outermost frame). */
#ifndef MMPROF_HOST_TREE_H
#define MMPROF_HOST_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* A key's kind, as the stream names it. */
typedef enum { HOST_KEY_NATIVE = 0, HOST_KEY_PY = 1 } host_key_kind;

typedef struct {
    uint64_t a;   /* native: the frame's address; py: the code object */
    uint32_t b;   /* native: 0; py: the instruction offset (or the line, see inject_pyframes.c) */
    uint8_t kind; /* host_key_kind */
} host_key;

typedef struct {
    uint64_t a;
    uint32_t parent, b, id; /* id 0: empty slot */
    uint8_t kind;
} host_tree_slot;

typedef struct {
    host_tree_slot *slots; /* open addressing, capacity a power of two, at most half full */
    size_t cap;
    uint32_t nnodes;
    uint32_t max_nodes;    /* no node past this many: the stack is cut (see host_tree_find) */
    uint64_t cut;          /* stacks cut short because the tree was full or memory ran out */
} host_tree;

/* The default bound on the nodes of one process: 32 bytes a slot at half load, 16 MB at most. */
#define HOST_TREE_MAX_NODES (1u << 18)

void host_tree_init(host_tree *t, uint32_t max_nodes);
void host_tree_free(host_tree *t);
/* Forgets every node (a forked child starts its own stream), keeping the memory. */
void host_tree_clear(host_tree *t);

/* The node of key under parent (0: outermost). *made says whether it is new (the caller then
 * writes its frame line). Returns 0 when it did not exist and could not be made (the tree holds
 * max_nodes, or memory ran out): the caller names the stack by parent, its deepest known node,
 * and t->cut counts it. */
uint32_t host_tree_find(host_tree *t, uint32_t parent, const host_key *key, bool *made);

/* A frame line of host-spec (stream_format_frame, from a frame's parts); the site, sample and
 * sampler lines are stream_format.c's. */
void host_format_py_frame(strbuf *b, uint32_t id, uint32_t parent, int line, const char *function, const char *file);
void host_format_native_frame(strbuf *b, uint32_t id, uint32_t parent, uint64_t offset, const char *function,
                              const char *module);

#endif
