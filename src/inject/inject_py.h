/* CPython as the injection library sees it, shared by its two Python files (see inject_host.h for
 * what the library exports to its other parts):
 *   inject_pyframes.c  finding CPython, its frame layout (checked), reading a thread's frames,
 *                      a launch's Python stack;
 *   inject_pycode.c    code objects' names and lines, for the code cache;
 *   inject_pylook.c    the sampler's look at every Python thread (docs/host-sampling.md).
 * CPython is found at run time (dlsym): no Python header is included, objects are opaque. */
#ifndef MMPROF_INJECT_PY_H
#define MMPROF_INJECT_PY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inject_host.h"

/* Opaque CPython objects: PyObject *, PyThreadState *, PyInterpreterState *, PyFrameObject *. */
typedef void pyobj;

/* PyMethodDef's layout, stable across versions: name, function, flags, doc. */
typedef struct {
    const char *name;
    void *meth;
    int flags;
    const char *doc;
} py_method_def;
#define PY_METH_VARARGS 0x0001
#define PY_METH_NOARGS 0x0004
#define PY_METH_O 0x0008

/* The functions of CPython's C API the library calls, found by find_python (inject_pyframes.c). */
typedef struct {
    bool present;
    int (*IsInitialized)(void);
    int (*GILState_Check)(void);
    void *(*GILState_GetThisThreadState)(void);
    int (*GILState_Ensure)(void);
    void (*GILState_Release)(int);
    pyobj *(*EvalGetFrame)(void);
    pyobj *(*FrameGetBack)(pyobj *);
    pyobj *(*FrameGetCode)(pyobj *);
    int (*FrameGetLasti)(pyobj *); /* 3.11+ */
    pyobj *(*ThreadStateGetFrame)(void *);
    void *(*InterpreterStateHead)(void);
    void *(*InterpreterStateThreadHead)(void *);
    void *(*ThreadStateNext)(void *);
    pyobj *(*GetAttrString)(pyobj *, const char *);
    const char *(*UnicodeAsUTF8)(pyobj *);
    void (*IncRef)(pyobj *);
    void (*DecRef)(pyobj *);
    void (*ErrClear)(void);
    int (*CodeAddr2Line)(pyobj *, int);
    pyobj *(*ImportModule)(const char *);
    pyobj *(*CFunctionNewEx)(void *, pyobj *, pyobj *);
    pyobj *(*CallFunctionObjArgs)(pyobj *, ...);
    pyobj *none;
    char *(*BytesAsString)(pyobj *);
    long (*LongAsLong)(pyobj *);
    /* for inject_pyhooks.c (optional: without them no collection or sleep is written) */
    pyobj *(*TupleGetItem)(pyobj *, long);
    int (*SetAttrString)(pyobj *, const char *, pyobj *);
    /* the types of what is read without the GIL (optional: without them it is not) */
    const void *code_type, *unicode_type, *bytes_type;
    unsigned long version;  /* Py_Version: 0x030C00F0 is 3.12.0 */
} py_api;

extern py_api py;

/* The internal layout of a thread's frame chain (inject_pyframes.c says which versions). */
typedef struct {
    size_t cframe;        /* PyThreadState.cframe */
    size_t current;       /* _PyCFrame.current_frame */
    size_t code, previous, instr, owner; /* _PyInterpreterFrame's f_code, previous, prev_instr, owner */
    int cstack_owner;     /* owner value of the C-stack shim frames to skip (3.12), -1 none */
    size_t code_start;    /* the offset of co_code_adaptive in the code object: found by the check */
} frame_layout;

extern frame_layout py_layout;

/* One frame read: its code object and instruction offset in bytes (PyFrame_GetLasti's). */
typedef struct {
    uint64_t code;
    uint32_t b;
    uint64_t tag; /* the code object's tag (py_code_tag) where it was read with it, else 0 */
} raw_frame;

static inline void *py_at(const void *p, size_t off) { return *(void *const *)((const char *)p + off); }

/* n bytes at addr + off, or false where they are not mapped (process_vm_readv on ourselves: a
 * read a plain load would crash on fails with EFAULT instead). */
bool py_peek(const void *addr, size_t off, void *out, size_t n);

/* Whether frames can be read as memory (the layout was checked on this interpreter). */
bool py_layout_ok(void);
/* With the GIL: checks the frame layout against the public API on every thread with frames, once
 * one has frames (until then it stays unchecked; a mismatch turns the memory reads off). */
void py_check_layout(void);
/* NULL where the sampler may read running threads' frames without the GIL (py_read_running was
 * checked with the layout), else why not, in words. */
const char *py_running_why(void);
/* The frames of a frame object and its callers through the public API (the GIL is held). */
int py_read_public(pyobj *frame, raw_frame *f, int max);
/* With the GIL (no thread runs Python): a thread's frames, as memory where the layout was checked,
 * else through the public API. */
int py_read_stopped(void *tstate, raw_frame *f, int max);
/* The frames of a thread that may be running (no GIL held), from its thread state's cframe
 * pointer, every read through py_peek: each frame's code object must have PyCode_Type's address
 * as its type and the frame's instruction offset must lie inside its code, else -1 (a torn read:
 * the thread changed its frames while they were read). The layout is checked. */
int py_read_running(const void *cframe, raw_frame *f, int max);

/* ---- inject_pycode.c: code objects' names and lines ---- */
/* Under the host lock, with the GIL: caches the code objects of f with a reference of the cache's
 * (held: never freed, so its address keeps naming it and its line table stays readable), those
 * named earlier without one included. False when one could not be (the cache is full). */
bool py_hold_codes(const raw_frame *f, int n);
/* Under the host lock, without the GIL: names the code objects of f that the cache does not hold
 * from their memory (py_peek), with their tags; false where one could not be named so (a name
 * not ASCII, a refused read, the cache full, or such reads not checked: py_code_reads_ok). */
bool py_name_codes(const raw_frame *f, int n);
/* Under the host lock: whether every code object of f is cached (cached), or cached and held. */
bool py_codes_cached(const raw_frame *f, int n, bool held);
/* Whether names and lines can both be read as memory (checked by py_check_code_reads); where not,
 * why, in words (NULL before the check). */
bool py_code_reads_ok(void);
const char *py_code_reads_why(void);
/* Under the host lock, with the GIL, on frames read through the public API: finds where code
 * objects keep their names and line tables, once, and checks reading them as memory against
 * Python's answers on each of these code objects (a mismatch turns reading names, or lines, off). */
void py_check_code_reads(const raw_frame *f, int n);
/* The tag of a code object (or a copy of its first py_code_head_span bytes): the addresses of its
 * name strings, which another object at the same address would not share; 0 where reads as
 * memory are off. */
uint64_t py_code_tag(const void *code);
size_t py_code_head_span(void);
/* A stack of n frames (innermost first) cut to HOST_MAX_DEPTH; and keys outermost first. */
int py_trim(raw_frame *f, int n);
void py_to_keys(const raw_frame *f, int n, host_key *keys);

/* ---- inject_pyhooks.c ---- */
/* With the GIL, once, where sampling is on: gc.callbacks and the wrapper of time.sleep that write
 * the thread's garbage collections and sleeps as hspan lines. */
void inject_py_hooks_register(void);

/* The interpreter is finalising (set by the atexit hook, inject_pylook.c). */
extern volatile int py_stopping;

#endif
