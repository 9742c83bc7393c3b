/* The injection library's host call tree, code-object cache and line buffer, under one lock. See
 * inject_host.h.
 *
 * The frame lines of a node are written to the buffer when the node is made, before the site or
 * sample line that names it, and the buffer goes to the stream in one write: the reader always
 * meets a node before its first use. Ids are per process: a forked child forgets the tree (its
 * stream is a new file) and the parent's unwritten lines. */
#include "inject_host.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject.h"
#include "module_map.h"

/* 64 KB: about 2000 site lines, so a launch-heavy program writes a few times a second. */
#define FLUSH_BYTES (64u << 10)
/* Code objects cached: each holds a reference and two strings, a few hundred bytes. A program
 * whose stacks show more distinct functions than this gets the rest of its Python frames named
 * only where the cache has them (see inject_pyframes.c). */
#define MAX_CODES 65536

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static host_tree tree;
static bool tree_ready;
static uint32_t generation = 1;
static strbuf out;

typedef struct {
    uint64_t code; /* 0: empty */
    uint64_t tag;  /* what inject_pyframes.c checks the object is still the one named */
    char *function, *file;
} code_entry;

static struct {
    code_entry *e;
    size_t cap, n;
} codes;

static void before_fork(void) { pthread_mutex_lock(&lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&lock); }
static void after_fork_child(void)
{
    host_tree_clear(&tree);
    generation++;
    out.len = 0;
    if (out.s)
        out.s[0] = '\0';
    pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void host_setup(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

void inject_host_lock(void) { pthread_mutex_lock(&lock); }
void inject_host_unlock(void) { pthread_mutex_unlock(&lock); }
strbuf *inject_host_out(void) { return &out; }

void inject_host_flush_locked(bool force)
{
    if (out.len > 0 && (force || out.len >= FLUSH_BYTES))
        inject_emit(&out);
}

void inject_host_flush(void)
{
    pthread_mutex_lock(&lock);
    inject_host_flush_locked(true);
    pthread_mutex_unlock(&lock);
}

/* ---- the code cache ---- */

static size_t code_slot(code_entry *e, size_t cap, uint64_t code)
{
    size_t i = (size_t)((code >> 4) * 0x9e3779b97f4a7c15ull) & (cap - 1);
    while (e[i].code && e[i].code != code)
        i = (i + 1) & (cap - 1);
    return i;
}

bool inject_host_code_known(uint64_t code)
{
    return codes.cap && codes.e[code_slot(codes.e, codes.cap, code)].code == code;
}

bool inject_host_code_tag(uint64_t code, uint64_t *tag)
{
    if (!inject_host_code_known(code))
        return false;
    *tag = codes.e[code_slot(codes.e, codes.cap, code)].tag;
    return true;
}

bool inject_host_code_names(uint64_t code, const char **function, const char **file)
{
    if (!inject_host_code_known(code))
        return false;
    const code_entry *c = &codes.e[code_slot(codes.e, codes.cap, code)];
    *function = c->function;
    *file = c->file;
    return true;
}

/* Copies of a code object's names; false (nothing kept) when memory ran out. */
static bool copy_names(const char *function, const char *file, char **f, char **p)
{
    *f = strdup(function ? function : "");
    *p = strdup(file ? file : "");
    if (*f && *p)
        return true;
    free(*f);
    free(*p);
    return false;
}

bool inject_host_code_add(uint64_t code, uint64_t tag, const char *function, const char *file)
{
    if (inject_host_code_known(code))
        return true;
    if (codes.n >= MAX_CODES)
        return false;
    if ((codes.n + 1) * 2 > codes.cap) {
        size_t cap = codes.cap ? codes.cap * 2 : 1024;
        code_entry *e = calloc(cap, sizeof *e);
        if (!e)
            return false;
        for (size_t i = 0; i < codes.cap; i++)
            if (codes.e[i].code)
                e[code_slot(e, cap, codes.e[i].code)] = codes.e[i];
        free(codes.e);
        codes.e = e;
        codes.cap = cap;
    }
    char *f, *p;
    if (!copy_names(function, file, &f, &p))
        return false;
    code_entry *c = &codes.e[code_slot(codes.e, codes.cap, code)];
    *c = (code_entry){.code = code, .tag = tag, .function = f, .file = p};
    codes.n++;
    return true;
}

bool inject_host_code_rename(uint64_t code, uint64_t tag, const char *function, const char *file)
{
    if (!inject_host_code_known(code))
        return false;
    code_entry *c = &codes.e[code_slot(codes.e, codes.cap, code)];
    char *f, *p;
    if (!copy_names(function, file, &f, &p))
        return false;
    free(c->function);
    free(c->file);
    c->function = f;
    c->file = p;
    c->tag = tag;
    return true;
}

/* ---- native frames ---- */

/* A native frame's line: module, the address as the module's symbols and line tables name it
 * (the address less the module's load bias: for a shared library or a position-independent
 * program its offset from the start of the file's image), and the dynamic symbol covering it
 * where there is one (the symbolizer names the rest after the run); module_map.h says why not
 * dladdr here. */
static void native_frame_line(uint32_t id, uint32_t parent, uint64_t addr)
{
    const char *module;
    uintptr_t bias;
    if (!module_map_find((uintptr_t)addr, &module, &bias)) {
        host_format_native_frame(&out, id, parent, addr, "", ""); /* no module: JIT code, say */
        return;
    }
    const char *symbol = module_map_symbol((uintptr_t)addr);
    host_format_native_frame(&out, id, parent, addr - bias, symbol ? symbol : "", module);
}

uint32_t inject_host_generation(void) { return generation; }

/* A py key's line (inject_pycode.c's inject_py_key_line), handed over once Python is found rather
 * than called by name: the Python parts call down into this file, never the other way. */
static int (*py_line)(const host_key *k);

void inject_host_py_lines(int (*line)(const host_key *k)) { __atomic_store_n(&py_line, line, __ATOMIC_RELEASE); }

uint32_t inject_host_stack(const host_key *keys, int n)
{
    int interned;
    return inject_host_stack_at(keys, n, 0, NULL, &interned);
}

uint32_t inject_host_stack_at(const host_key *keys, int n, uint32_t node, uint32_t *ids, int *interned)
{
    if (!tree_ready) {
        host_tree_init(&tree, HOST_TREE_MAX_NODES);
        tree_ready = true;
    }
    *interned = 0;
    for (int i = 0; i < n; i++) {
        bool made;
        uint32_t id = host_tree_find(&tree, node, &keys[i], &made);
        if (!id)
            break; /* the tree is full: the stack is named by its deepest known node */
        if (made && keys[i].kind == HOST_KEY_PY) {
            const char *function = "", *file = "";
            inject_host_code_names(keys[i].a, &function, &file);
            host_format_py_frame(&out, id, node, py_line ? py_line(&keys[i]) : 0, function, file);
        } else if (made)
            native_frame_line(id, node, keys[i].a);
        node = id;
        if (ids)
            ids[i] = id;
        ++*interned;
    }
    return node;
}

uint64_t inject_host_cut(void) { return tree.cut; }
