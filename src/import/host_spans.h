/* CPU spans an import read (Kineto's cpu_op and python_function events, nsys's OS runtime calls)
 * into host_activity: each span nested in the spans around it on its thread (or under its Python
 * parent, where the trace names one), and named by a node of the call tree, so a stack that
 * repeats a thousand times is stored once. Shared by the importers, which collect spans while they
 * read and hand them over once every event is in. */
#ifndef MMPROF_HOST_SPANS_H
#define MMPROF_HOST_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host_activity.h"

typedef struct {
    int64_t start_ns, end_ns;
    uint32_t pid, tid;
    host_frame_kind kind; /* HOST_FRAME_PY: name is Kineto's "file.py(42): function" where it can */
    const char *name;     /* the collection's copy, one per distinct name */
    int64_t id, parent_id; /* Kineto's "Python id" and "Python parent id"; -1 none */
} cpu_span;

typedef struct {
    cpu_span *v;
    size_t n, cap;
    char **names; /* the distinct names, open addressing (a trace repeats a few hundred names) */
    size_t nnames, names_cap;
} cpu_spans;

/* The collection's copy of name: a trace of a million ops names a few hundred, so each is kept
 * once, until cpu_spans_free. NULL when memory ran out. */
const char *cpu_spans_name(cpu_spans *l, const char *name);

/* Appends s (its name copied once per distinct name). False when memory ran out. */
bool cpu_spans_add(cpu_spans *l, const cpu_span *s);

/* Adds every span to h with shift_ns added to its times: a frame per distinct stack, a host_span
 * per span. A span's caller is its Python parent where it names one that started no later on the
 * same process, else the innermost span of its thread that holds it. Empties l. False when memory
 * ran out or a time would overflow (*overflow then set). */
bool cpu_spans_finish(cpu_spans *l, int64_t shift_ns, host_activity *h, bool *overflow);

void cpu_spans_free(cpu_spans *l);

/* The call tree's nodes by what they are (process, parent, kind, function, file, line): a stack
 * seen many times is stored once. */
typedef struct {
    int *slot; /* node index + 1; 0 empty */
    size_t cap, n;
} host_node_set;

/* The node of h for f (whose parent is already a node): the one there, or a new one added (its
 * strings copied). -1 when memory ran out. */
int host_node(host_node_set *s, host_activity *h, const host_frame *f);
void host_node_set_free(host_node_set *s);

/* A Python frame's name as Kineto writes it, "path/model.py(42): forward": file, line and
 * function (pointers into name, file's end at *file_len). False when name is not in that form. */
bool py_frame_name(const char *name, const char **file, size_t *file_len, int *line, const char **function);

#endif
