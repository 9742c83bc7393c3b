/* See host_spans.h. */
#include "host_spans.h"
#include "nesting_order.h"

#include <stdlib.h>
#include <string.h>


/* FNV-1a, for the names and the nodes. */
static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001B3ull; }

static uint64_t str_hash(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = mix(h, (unsigned char)*s);
    return mix(h, 0xFF);
}

const char *cpu_spans_name(cpu_spans *l, const char *name)
{
    if ((l->nnames + 1) * 2 > l->names_cap) {
        size_t cap = l->names_cap ? l->names_cap * 2 : 256;
        char **g = calloc(cap, sizeof *g);
        if (!g)
            return NULL;
        for (size_t i = 0; i < l->names_cap; i++)
            if (l->names[i]) {
                size_t j = (size_t)str_hash(0xCBF29CE484222325ull, l->names[i]) & (cap - 1);
                while (g[j])
                    j = (j + 1) & (cap - 1);
                g[j] = l->names[i];
            }
        free(l->names);
        l->names = g;
        l->names_cap = cap;
    }
    size_t i = (size_t)str_hash(0xCBF29CE484222325ull, name) & (l->names_cap - 1);
    while (l->names[i] && strcmp(l->names[i], name) != 0)
        i = (i + 1) & (l->names_cap - 1);
    if (!l->names[i]) {
        if (!(l->names[i] = strdup(name)))
            return NULL;
        l->nnames++;
    }
    return l->names[i];
}

bool cpu_spans_add(cpu_spans *l, const cpu_span *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        cpu_span *g = realloc(l->v, cap * sizeof *g);
        if (!g)
            return false;
        l->v = g;
        l->cap = cap;
    }
    cpu_span c = *s;
    c.name = cpu_spans_name(l, s->name ? s->name : "");
    if (!c.name)
        return false;
    l->v[l->n++] = c;
    return true;
}

void cpu_spans_free(cpu_spans *l)
{
    for (size_t i = 0; i < l->names_cap; i++)
        free(l->names[i]);
    free(l->names);
    free(l->v);
    memset(l, 0, sizeof *l);
}

bool py_frame_name(const char *name, const char **file, size_t *file_len, int *line, const char **function)
{
    const char *close = strstr(name, "): ");
    if (!close)
        return false;
    const char *open = close;
    while (open > name && open[-1] >= '0' && open[-1] <= '9')
        open--;
    if (open == close || open == name || open[-1] != '(' || close - open > 9)
        return false;
    *file = name;
    *file_len = (size_t)(open - 1 - name);
    *line = atoi(open);
    *function = close + 3;
    return *file_len > 0;
}

/* ---------- the call tree's nodes, one per distinct stack ---------- */


static uint64_t frame_hash(const host_frame *f)
{
    uint64_t h = mix(mix(mix(mix(0xCBF29CE484222325ull, f->pid), (uint64_t)(f->parent + 1)), f->kind), (uint64_t)f->line);
    return str_hash(str_hash(str_hash(h, f->function), f->file), f->module);
}

static bool same_str(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

static bool same_frame(const host_frame *a, const host_frame *b)
{
    return a->pid == b->pid && a->parent == b->parent && a->kind == b->kind && a->line == b->line &&
           same_str(a->function, b->function) && same_str(a->file, b->file) && same_str(a->module, b->module);
}

static size_t find_slot(const host_node_set *s, const host_activity *h, const host_frame *f, uint64_t hash)
{
    size_t i = (size_t)hash & (s->cap - 1);
    while (s->slot[i] && !same_frame(&h->frames[s->slot[i] - 1], f))
        i = (i + 1) & (s->cap - 1);
    return i;
}

int host_node(host_node_set *s, host_activity *h, const host_frame *f)
{
    if ((s->n + 1) * 2 > s->cap) {
        host_node_set g = {.cap = s->cap ? s->cap * 2 : 1024, .n = s->n};
        if (!(g.slot = calloc(g.cap, sizeof *g.slot)))
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i]) {
                const host_frame *e = &h->frames[s->slot[i] - 1];
                g.slot[find_slot(&g, h, e, frame_hash(e))] = s->slot[i];
            }
        free(s->slot);
        *s = g;
    }
    size_t i = find_slot(s, h, f, frame_hash(f));
    if (s->slot[i])
        return s->slot[i] - 1;
    int node = host_add_frame(h, f);
    if (node < 0)
        return -1;
    s->slot[i] = node + 1;
    s->n++;
    return node;
}

void host_node_set_free(host_node_set *s)
{
    free(s->slot);
    memset(s, 0, sizeof *s);
}

/* ---------- nesting ---------- */

/* Per thread, by start, the longer first (a parent before the children it holds); ties in the
 * order they came (nesting_order.h, the order region_tracker.c gives NVTX ranges). */
static int by_thread_time(const void *a, const void *b, void *arg)
{
    const cpu_span *spans = arg;
    const cpu_span *x = &spans[*(const size_t *)a], *y = &spans[*(const size_t *)b];
    int c = nesting_order(x->pid, x->tid, x->start_ns, x->end_ns, y->pid, y->tid, y->start_ns, y->end_ns);
    if (c)
        return c;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

typedef struct {
    uint32_t pid;
    int64_t id;
    size_t pos; /* place in the sorted order */
} py_id;

static int by_py_id(const void *a, const void *b)
{
    const py_id *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The frame a span is: Python names split into function, file and line. */
static void span_frame(const cpu_span *s, host_frame *f, char *file_buf, size_t file_cap)
{
    const char *file, *function;
    size_t len;
    int line;
    f->pid = s->pid;
    f->kind = s->kind;
    f->function = (char *)s->name;
    if (s->kind == HOST_FRAME_PY && py_frame_name(s->name, &file, &len, &line, &function) && len < file_cap) {
        memcpy(file_buf, file, len);
        file_buf[len] = '\0';
        f->file = file_buf;
        f->line = line;
        f->function = (char *)function;
    }
}

bool cpu_spans_finish(cpu_spans *l, int64_t shift_ns, host_activity *h, bool *overflow)
{
    *overflow = false;
    size_t n = l->n;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    size_t *parent = malloc((n ? n : 1) * sizeof *parent); /* sorted position of the caller; SIZE_MAX none */
    int *node = malloc((n ? n : 1) * sizeof *node);
    size_t *stack = malloc((n ? n : 1) * sizeof *stack);
    py_id *ids = malloc((n ? n : 1) * sizeof *ids);
    char *file_buf = malloc(4096);
    host_node_set set = {0};
    bool ok = order && parent && node && stack && ids && file_buf;
    for (size_t i = 0; ok && i < n; i++) {
        cpu_span *s = &l->v[i];
        if ((shift_ns > 0 && s->end_ns > INT64_MAX - shift_ns) || (shift_ns < 0 && s->start_ns < INT64_MIN - shift_ns))
            ok = false, *overflow = true;
        else
            s->start_ns += shift_ns, s->end_ns += shift_ns;
        order[i] = i;
    }
    if (ok && n > 1)
        qsort_r(order, n, sizeof *order, by_thread_time, l->v);
    /* Nesting by time on each thread: the innermost open span that holds this one. */
    size_t depth = 0, nids = 0;
    for (size_t p = 0; ok && p < n; p++) {
        const cpu_span *s = &l->v[order[p]];
        if (p > 0 && (l->v[order[p - 1]].pid != s->pid || l->v[order[p - 1]].tid != s->tid))
            depth = 0;
        while (depth > 0 && l->v[order[stack[depth - 1]]].end_ns < s->end_ns)
            depth--;
        parent[p] = depth > 0 ? stack[depth - 1] : SIZE_MAX;
        stack[depth++] = p;
        if (s->id >= 0)
            ids[nids++] = (py_id){s->pid, s->id, p};
    }
    /* Python's own links, where the trace has them: they hold across threads and gaps. */
    if (ok && nids > 1)
        qsort(ids, nids, sizeof *ids, by_py_id);
    for (size_t p = 0; ok && nids && p < n; p++) {
        const cpu_span *s = &l->v[order[p]];
        if (s->parent_id < 0)
            continue;
        py_id key = {s->pid, s->parent_id, 0};
        const py_id *hit = bsearch(&key, ids, nids, sizeof *ids, by_py_id);
        if (hit && hit->pos < p) /* a caller sorted before: no cycle can form */
            parent[p] = hit->pos;
    }
    /* Nodes: every caller's before its callees', since a caller sorts first. */
    for (size_t p = 0; ok && p < n; p++) {
        const cpu_span *s = &l->v[order[p]];
        host_frame f = {.parent = parent[p] == SIZE_MAX ? -1 : node[parent[p]]};
        span_frame(s, &f, file_buf, 4096);
        node[p] = host_node(&set, h, &f);
        host_span hs = {.start_ns = s->start_ns, .end_ns = s->end_ns, .pid = s->pid, .tid = s->tid, .frame = node[p]};
        ok = node[p] >= 0 && host_add_span(h, &hs);
    }
    free(order);
    free(parent);
    free(node);
    free(stack);
    free(ids);
    free(file_buf);
    host_node_set_free(&set);
    cpu_spans_free(l);
    return ok;
}
