/* Python stacks for the injection library: a launch's call site in Python, and the sampler's look
 * at every Python thread. See inject_host.h and docs/host-sampling.md.
 *
 * CPython is found at run time, with dlsym(RTLD_DEFAULT): the library is injected into every
 * program `mmprof profile` runs, most of them not Python, so it cannot link libpython (nor know
 * which one: 3.11 here, 3.12 on the GPU machine). The few functions it calls are declared below
 * with opaque pointers; no Python header is needed, and none would match every version.
 *
 * Two ways to read a thread's frames:
 *  - with the GIL held (the sampler takes it; a launch may hold it): the public API, PyFrame_*;
 *  - without it, from the thread itself: a launch from PyTorch runs with the GIL released (its
 *    operator bindings drop it before dispatch), as do ctypes calls (numba), so the public API,
 *    which may allocate frame objects, cannot be used. But a thread blocked in a C call cannot
 *    change its own frame chain, and each frame holds a reference to its code object, so the
 *    chain can be read as plain memory: CPython's internal frame struct (_PyInterpreterFrame),
 *    whose layout differs between versions. Only the layouts of 3.11 and 3.12 are known here, and
 *    each is checked against the public API on the live interpreter before use (the sampler's
 *    first look, under the GIL): a mismatch turns this way off, and such launches get their native
 *    stack. What is read this way is a code object's address and instruction offset; its names
 *    come from the code cache (inject_host.c), which only a GIL holder fills (the names need
 *    Python's API), so a launch whose stack holds a function the cache does not know yet gets its
 *    native stack too: the sampler's looks fill the cache within its first periods.
 * A py key is (code object, instruction offset in bytes), read either way (PyFrame_GetLasti); its
 * line is PyCode_Addr2Line's, asked once, when its node is made (a pure read of the code's line
 * table, safe without the GIL on a code object the cache holds). */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "inject.h"
#include "inject_host.h"
#include "stream_format.h"

/* Opaque CPython objects: PyObject *, PyThreadState *, PyInterpreterState *, PyFrameObject *. */
typedef void pyobj;

static struct {
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
    unsigned long version; /* Py_Version: 0x030C00F0 is 3.12.0 */
} py;

/* The internal layout of a thread's frame chain (see the top). */
typedef struct {
    size_t cframe;        /* PyThreadState.cframe */
    size_t current;       /* _PyCFrame.current_frame */
    size_t code, previous, instr, owner; /* _PyInterpreterFrame's f_code, previous, prev_instr, owner */
    int cstack_owner;     /* owner value of the C-stack shim frames to skip (3.12), -1 none */
    size_t code_start;    /* the offset of co_code_adaptive in the code object: found by the check */
} frame_layout;

static frame_layout layout;
static enum { LAYOUT_UNKNOWN, LAYOUT_UNCHECKED, LAYOUT_OK, LAYOUT_BAD } layout_state;
static char layout_why[160];
static size_t tid_offset; /* PyThreadState's native_thread_id, found by the sampler (0: not found) */
static volatile int stopping;

#define SYM(field, name) (*(void **)&py.field = dlsym(RTLD_DEFAULT, name))

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void find_python(void)
{
    const unsigned long *version = dlsym(RTLD_DEFAULT, "Py_Version");
    SYM(IsInitialized, "Py_IsInitialized");
    if (!version || !py.IsInitialized)
        return; /* not Python, or older than 3.11 (Py_Version) */
    py.version = *version;
    bool ok = true;
    ok = SYM(GILState_Check, "PyGILState_Check") != NULL && ok;
    ok = SYM(GILState_GetThisThreadState, "PyGILState_GetThisThreadState") != NULL && ok;
    ok = SYM(GILState_Ensure, "PyGILState_Ensure") != NULL && ok;
    ok = SYM(GILState_Release, "PyGILState_Release") != NULL && ok;
    ok = SYM(EvalGetFrame, "PyEval_GetFrame") != NULL && ok;
    ok = SYM(FrameGetBack, "PyFrame_GetBack") != NULL && ok;
    ok = SYM(FrameGetCode, "PyFrame_GetCode") != NULL && ok;
    ok = SYM(FrameGetLasti, "PyFrame_GetLasti") != NULL && ok;
    ok = SYM(ThreadStateGetFrame, "PyThreadState_GetFrame") != NULL && ok;
    ok = SYM(InterpreterStateHead, "PyInterpreterState_Head") != NULL && ok;
    ok = SYM(InterpreterStateThreadHead, "PyInterpreterState_ThreadHead") != NULL && ok;
    ok = SYM(ThreadStateNext, "PyThreadState_Next") != NULL && ok;
    ok = SYM(GetAttrString, "PyObject_GetAttrString") != NULL && ok;
    ok = SYM(UnicodeAsUTF8, "PyUnicode_AsUTF8") != NULL && ok;
    ok = SYM(IncRef, "Py_IncRef") != NULL && ok;
    ok = SYM(DecRef, "Py_DecRef") != NULL && ok;
    ok = SYM(ErrClear, "PyErr_Clear") != NULL && ok;
    ok = SYM(CodeAddr2Line, "PyCode_Addr2Line") != NULL && ok;
    ok = SYM(ImportModule, "PyImport_ImportModule") != NULL && ok;
    ok = SYM(CFunctionNewEx, "PyCFunction_NewEx") != NULL && ok;
    ok = SYM(CallFunctionObjArgs, "PyObject_CallFunctionObjArgs") != NULL && ok;
    ok = (py.none = dlsym(RTLD_DEFAULT, "_Py_NoneStruct")) != NULL && ok;
    if (!ok || !py.IsInitialized())
        return;
    py.present = true;
    unsigned minor = (unsigned)(py.version >> 16) & 0xff, major = (unsigned)(py.version >> 24);
    /* From CPython's Include/cpython/pystate.h and Include/internal/pycore_frame.h of each
     * version (x86-64 and aarch64 alike: pointers and ints only). */
    if (major == 3 && minor == 11) {
        layout = (frame_layout){.cframe = 56, .current = 8, .code = 32, .previous = 48, .instr = 56, .owner = 69,
                                .cstack_owner = -1};
        layout_state = LAYOUT_UNCHECKED;
    } else if (major == 3 && minor == 12) {
        layout = (frame_layout){.cframe = 56, .current = 0, .code = 0, .previous = 8, .instr = 56, .owner = 70,
                                .cstack_owner = 3};
        layout_state = LAYOUT_UNCHECKED;
    } else {
        layout_state = LAYOUT_UNKNOWN;
        snprintf(layout_why, sizeof layout_why, "Python %u.%u's frame layout is not known to mmprof", major, minor);
    }
}

bool inject_py_present(void)
{
    pthread_once(&once, find_python);
    return py.present;
}

bool inject_py_stopping(void) { return stopping; }

const char *inject_py_mode(void)
{
    switch (layout_state) {
    case LAYOUT_OK: return NULL;
    case LAYOUT_UNCHECKED: return "no Python thread had frames to check the frame layout on: launches without the GIL get native stacks";
    default: return layout_why;
    }
}

/* ---- reading frames ---- */

typedef struct {
    uint64_t code;
    uint32_t b; /* instruction offset in bytes */
} raw_frame;

static inline void *at(const void *p, size_t off) { return *(void *const *)((const char *)p + off); }

/* n bytes at addr, or false where they are not mapped: for the layout check, which reads a
 * version's offsets before they are known to be right (process_vm_readv on ourselves fails with
 * EFAULT where a plain read would crash the program). */
static bool peek(const void *addr, size_t off, void *out, size_t n)
{
    struct iovec local = {.iov_base = out, .iov_len = n};
    struct iovec remote = {.iov_base = (char *)addr + off, .iov_len = n};
    return addr && process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n;
}

static void *peek_ptr(const void *addr, size_t off, bool *ok)
{
    void *v = NULL;
    if (*ok)
        *ok = peek(addr, off, &v, sizeof v);
    return *ok ? v : NULL;
}

/* The frames of tstate read as memory, innermost first. The thread is the caller, or is stopped
 * by the GIL the caller holds. checked: every read through peek (the layout check); false when
 * a read failed. */
static int read_direct(void *tstate, raw_frame *f, int max, bool checked, bool *ok)
{
    *ok = true;
    void *cframe = checked ? peek_ptr(tstate, layout.cframe, ok) : at(tstate, layout.cframe);
    void *fr = !cframe ? NULL : checked ? peek_ptr(cframe, layout.current, ok) : at(cframe, layout.current);
    int n = 0;
    for (int guard = 0; fr && n < max && guard < 4096 && *ok; guard++) {
        char owner = 0;
        char *code, *instr;
        if (checked) {
            code = peek_ptr(fr, layout.code, ok);
            instr = peek_ptr(fr, layout.instr, ok);
            *ok = *ok && peek(fr, layout.owner, &owner, 1);
        } else {
            code = at(fr, layout.code);
            instr = at(fr, layout.instr);
            owner = *((const char *)fr + layout.owner);
        }
        long lasti = layout_state == LAYOUT_OK ? (long)(instr - (code + layout.code_start)) : 0;
        /* C-stack shim frames (3.12), and frames not yet started (3.11's incomplete frames:
         * PyFrame_GetBack skips them too) */
        if (*ok && code && !(layout.cstack_owner >= 0 && owner == layout.cstack_owner) && lasti >= 0)
            f[n++] = (raw_frame){.code = (uint64_t)(uintptr_t)code, .b = (uint32_t)lasti};
        fr = checked ? peek_ptr(fr, layout.previous, ok) : at(fr, layout.previous);
    }
    return n;
}

/* The frames of a frame object and its callers through the public API (the GIL is held). */
static int read_public(pyobj *frame, raw_frame *f, int max)
{
    int n = 0;
    if (frame)
        py.IncRef(frame);
    while (frame && n < max) {
        pyobj *code = py.FrameGetCode(frame);
        int b = py.FrameGetLasti(frame);
        if (code) {
            f[n++] = (raw_frame){.code = (uint64_t)(uintptr_t)code, .b = (uint32_t)(b < 0 ? 0 : b)};
            py.DecRef(code); /* the frame keeps it alive until we are done */
        }
        pyobj *back = py.FrameGetBack(frame);
        py.DecRef(frame);
        frame = back;
    }
    if (frame)
        py.DecRef(frame);
    return n;
}

/* A string attribute of obj as UTF-8 in out ("" where it has none); the GIL is held. */
static void attr_text(pyobj *obj, const char *attr, char *out, size_t len)
{
    pyobj *s = py.GetAttrString(obj, attr);
    const char *u = s ? py.UnicodeAsUTF8(s) : NULL;
    snprintf(out, len, "%s", u ? u : "");
    if (s)
        py.DecRef(s);
    py.ErrClear();
}

/* A code object's name (co_qualname where Python has it, else co_name) and file; the GIL is held. */
static void code_names(pyobj *code, char *function, size_t flen, char *file, size_t plen)
{
    attr_text(code, "co_qualname", function, flen);
    if (!function[0])
        attr_text(code, "co_name", function, flen);
    attr_text(code, "co_filename", file, plen);
}

/* Where a code object's names are, found by check_strings on the live interpreter: the offsets
 * of co_qualname and co_filename in the code object, and of the characters of a compact ASCII
 * string in its object (PyASCIIObject's state bits: compact 0x20, ascii 0x40, at STATE_OFFSET in
 * 3.11 and 3.12). With them a thread without the GIL names a code object it holds (its frame
 * keeps it alive) without any call into Python: a string's UTF-8 form of a non-ASCII name may not
 * exist yet, and making it would allocate, so such a name is not read this way. */
#define STATE_OFFSET 32
static struct {
    bool ok;
    size_t qualname, filename, chars;
} names_at;

/* The tag of a live code object cached without a reference: its name objects' addresses, which a
 * different code object at the same address (the first one freed) would not share. */
static uint64_t code_tag(const char *code)
{
    return ((uint64_t)(uintptr_t)at(code, names_at.qualname) * 31 ^ (uint64_t)(uintptr_t)at(code, names_at.filename)) | 1;
}

/* A compact ASCII string's characters, or NULL. */
static const char *ascii_chars(const char *str)
{
    if (!str)
        return NULL;
    unsigned state = *(const unsigned *)(str + STATE_OFFSET);
    return (state & 0x60) == 0x60 ? str + names_at.chars : NULL;
}

/* With the GIL, on a code object the cache just named (function and file as Python gave them):
 * finds names_at, once, and checks it against this object. */
static void check_strings(pyobj *code, const char *function, const char *file)
{
    static bool tried;
    if (tried || layout_state != LAYOUT_OK)
        return;
    tried = true;
    pyobj *q = py.GetAttrString(code, "co_qualname"), *f = py.GetAttrString(code, "co_filename");
    const char *qu = q ? py.UnicodeAsUTF8(q) : NULL, *fu = f ? py.UnicodeAsUTF8(f) : NULL;
    py.ErrClear();
    size_t qo = 0, fo = 0;
    /* the fields sit before the code's instructions (layout.code_start) */
    for (size_t off = 16; off + sizeof(void *) <= layout.code_start; off += sizeof(void *)) {
        if (!qo && at(code, off) == q)
            qo = off;
        if (!fo && at(code, off) == f)
            fo = off;
    }
    if (qu && fu && qo && fo && strcmp(qu, function) == 0 && strcmp(fu, file) == 0) {
        names_at.qualname = qo;
        names_at.filename = fo;
        names_at.chars = (size_t)(qu - (const char *)q);
        names_at.ok = names_at.chars == (size_t)(fu - (const char *)f) && names_at.chars < 128 &&
                      ascii_chars((const char *)q) == qu && ascii_chars((const char *)f) == fu;
    }
    if (q)
        py.DecRef(q);
    if (f)
        py.DecRef(f);
}

/* Under the host lock, with the GIL: caches the code objects of f that are not cached yet, each
 * with a reference of the cache's, so the object is never freed and its address keeps naming it.
 * False when one could not be (the cache is full). */
static bool cache_codes(const raw_frame *f, int n)
{
    bool all = true;
    for (int i = 0; i < n; i++) {
        pyobj *code = (pyobj *)(uintptr_t)f[i].code;
        const char *cf, *cp;
        if (inject_host_code_names(f[i].code, &cf, &cp)) {
            check_strings(code, cf, cp);
            continue;
        }
        char function[256], file[1024];
        code_names(code, function, sizeof function, file, sizeof file);
        check_strings(code, function, file);
        if (inject_host_code_add(f[i].code, 0, function, file)) /* tag 0: held, never checked */
            py.IncRef(code);
        else
            all = false;
    }
    return all;
}

/* Under the host lock, without the GIL (the caller's own frames): whether each code object of f
 * is named in the cache, naming the ones that are not from their memory where names_at allows.
 * A cached address whose tag differs is a different object than the one named (the first was
 * freed: only objects cached without the GIL hold no reference): not named. */
static bool name_without_gil(const raw_frame *f, int n)
{
    for (int i = 0; i < n; i++) {
        const char *code = (const char *)(uintptr_t)f[i].code;
        uint64_t tag;
        if (inject_host_code_tag(f[i].code, &tag)) {
            if (tag && tag != code_tag(code))
                return false;
            continue;
        }
        if (!names_at.ok)
            return false;
        const char *function = ascii_chars(at(code, names_at.qualname));
        const char *file = ascii_chars(at(code, names_at.filename));
        if (!function || !file || !inject_host_code_add(f[i].code, code_tag(code), function, file))
            return false;
    }
    return true;
}

static bool all_cached(const raw_frame *f, int n)
{
    for (int i = 0; i < n; i++)
        if (!inject_host_code_known(f[i].code))
            return false;
    return true;
}

/* A stack of n frames (innermost first) cut to HOST_MAX_DEPTH: its innermost and its
 * HOST_OUTER_DEPTH outermost frames. */
static int trim(raw_frame *f, int n)
{
    if (n <= HOST_MAX_DEPTH)
        return n;
    int inner = HOST_MAX_DEPTH - HOST_OUTER_DEPTH;
    memmove(f + inner, f + n - HOST_OUTER_DEPTH, HOST_OUTER_DEPTH * sizeof *f);
    return HOST_MAX_DEPTH;
}

/* Keys outermost first from frames innermost first. */
static void to_keys(const raw_frame *f, int n, host_key *keys)
{
    for (int i = 0; i < n; i++)
        keys[n - 1 - i] = (host_key){.a = f[i].code, .b = f[i].b, .kind = HOST_KEY_PY};
}

int inject_py_key_line(const host_key *k)
{
    return py.CodeAddr2Line((pyobj *)(uintptr_t)k->a, (int)k->b);
}

int inject_py_this_stack(host_key *keys, int max, const host_key *known, int nknown)
{
    if (!inject_py_present() || stopping)
        return -1;
    void *tstate = py.GILState_GetThisThreadState();
    if (!tstate)
        return -1; /* this thread never ran Python (PyTorch's autograd thread, CUDA's own) */
    raw_frame f[HOST_PY_WALK];
    bool gil = py.GILState_Check() == 1;
    int n;
    bool ok;
    if (layout_state == LAYOUT_OK)
        n = read_direct(tstate, f, HOST_PY_WALK, false, &ok);
    else if (gil)
        n = read_public(py.EvalGetFrame(), f, HOST_PY_WALK);
    else
        return -1;
    n = trim(f, n);
    if (n <= 0 || n > max)
        return -1;
    to_keys(f, n, keys);
    int same = 0;
    while (same < n && same < nknown && keys[same].a == known[same].a && keys[same].b == known[same].b)
        same++;
    inject_host_lock();
    /* f is innermost first: its first n - same frames are the ones not checked before */
    if (!(gil ? cache_codes(f, n - same) : name_without_gil(f, n - same))) {
        inject_host_unlock();
        return -1;
    }
    return n; /* the lock stays held: the caller interns */
}

/* ---- the sampler's look ---- */

/* Python's atexit calls this (registered at the first look): from here the interpreter finalises,
 * and a thread taking the GIL then would hang or be ended by it. */
static pyobj *on_python_exit(pyobj *self, pyobj *unused)
{
    (void)self;
    (void)unused;
    stopping = 1;
    py.IncRef(py.none);
    return py.none;
}

/* PyMethodDef's layout, stable across versions: name, function, flags, doc. */
static struct {
    const char *name;
    void *meth;
    int flags;
    const char *doc;
} exit_def = {"mmprof_stop_sampling", (void *)on_python_exit, 0x0004 /* METH_NOARGS */, NULL};

static void register_exit(void)
{
    pyobj *mod = py.ImportModule("atexit");
    pyobj *reg = mod ? py.GetAttrString(mod, "register") : NULL;
    pyobj *fn = reg ? py.CFunctionNewEx(&exit_def, NULL, NULL) : NULL;
    pyobj *r = fn ? py.CallFunctionObjArgs(reg, fn, NULL) : NULL;
    if (r)
        py.DecRef(r);
    else
        stopping = 1; /* without the hook the sampler could outlive the interpreter: no Python looks */
    if (fn)
        py.DecRef(fn);
    if (reg)
        py.DecRef(reg);
    if (mod)
        py.DecRef(mod);
    py.ErrClear();
}

/* Checks the frame layout against the public API on every thread with frames (the GIL is held):
 * the same code objects in the same order, and one consistent start of the code in the code
 * object, from which instruction offsets are read. */
static void check_layout(void)
{
    if (layout_state != LAYOUT_UNCHECKED)
        return;
    int threads = 0;
    long start = -1;
    for (void *is = py.InterpreterStateHead(); is && is == py.InterpreterStateHead(); is = NULL)
        for (void *t = py.InterpreterStateThreadHead(is); t; t = py.ThreadStateNext(t)) {
            raw_frame d[HOST_PY_WALK], p[HOST_PY_WALK];
            bool ok;
            int nd = read_direct(t, d, HOST_PY_WALK, true, &ok);
            int np = read_public(py.ThreadStateGetFrame(t), p, HOST_PY_WALK);
            if (ok && np == 0 && nd == 0)
                continue;
            if (!ok || nd != np)
                goto bad;
            for (int i = 0; i < nd; i++)
                if (d[i].code != p[i].code)
                    goto bad;
            /* The instruction pointer of the innermost frame against PyFrame_GetLasti. */
            /* Read again: the frames were checked readable above. */
            void *fr = at(at(t, layout.cframe), layout.current);
            while (fr && layout.cstack_owner >= 0 && *((const char *)fr + layout.owner) == layout.cstack_owner)
                fr = at(fr, layout.previous);
            if (!fr)
                goto bad;
            long s = (long)((char *)at(fr, layout.instr) - (char *)at(fr, layout.code)) - (long)p[0].b;
            if (s <= 0 || s > 4096 || (start >= 0 && s != start))
                goto bad;
            start = s;
            threads++;
        }
    if (threads == 0)
        return; /* nothing to check against yet: the next look tries again */
    layout.code_start = (size_t)start;
    layout_state = LAYOUT_OK;
    return;
bad:
    layout_state = LAYOUT_BAD;
    snprintf(layout_why, sizeof layout_why,
             "Python frames did not read as CPython %lu.%lu's layout: launches without the GIL get native stacks",
             (py.version >> 24) & 0xff, (py.version >> 16) & 0xff);
}

/* The native thread id field of PyThreadState (3.11+: native_thread_id): the word of the sampler's
 * own thread state that holds its tid, checked on the main thread's (pid). */
static void find_tid_offset(void)
{
    void *mine = py.GILState_GetThisThreadState();
    long tid = syscall(SYS_gettid);
    if (!mine || tid_offset)
        return;
    for (size_t off = 24; off < 512; off += sizeof(long))
        if (*(long *)((char *)mine + off) == tid) {
            tid_offset = off;
            return;
        }
}

static char thread_state(uint32_t tid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%u/stat", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
    return p && p[1] == ' ' && p[2] ? p[2] : 0;
}

/* The states of the Python threads of the last look, read before taking the GIL: once we hold it,
 * a thread running Python is waiting for it, and /proc says S. A thread new since the last look
 * is read under the GIL, once. */
#define MAX_PY_THREADS 256
static struct {
    uint32_t tid[MAX_PY_THREADS];
    char state[MAX_PY_THREADS];
    int n, next_n;
    uint32_t next[MAX_PY_THREADS];
} looked;

static char state_before(uint32_t tid)
{
    for (int i = 0; i < looked.n; i++)
        if (looked.tid[i] == tid)
            return looked.state[i];
    return thread_state(tid);
}

bool inject_py_sample_all(bool write, char *why, size_t len)
{
    if (!inject_py_present() || stopping) {
        snprintf(why, len, "%s", stopping ? "the interpreter is finalising" : "no Python interpreter");
        return false;
    }
    static bool first = true;
    for (int i = 0; write && i < looked.n; i++)
        looked.state[i] = thread_state(looked.tid[i]);
    looked.next_n = 0;
    int g = py.GILState_Ensure();
    if (stopping) { /* the program began to exit while we waited */
        py.GILState_Release(g);
        return false;
    }
    if (first) {
        register_exit();
        find_tid_offset();
        first = false;
    }
    check_layout();
    int64_t ts = inject_now_ns();
    void *self = py.GILState_GetThisThreadState();
    inject_host_lock();
    for (void *is = py.InterpreterStateHead(); is; is = NULL)
        for (void *t = py.InterpreterStateThreadHead(is); t; t = py.ThreadStateNext(t)) {
            if (t == self)
                continue;
            raw_frame f[HOST_PY_WALK];
            bool ok;
            int n = layout_state == LAYOUT_OK ? read_direct(t, f, HOST_PY_WALK, false, &ok)
                                              : read_public(py.ThreadStateGetFrame(t), f, HOST_PY_WALK);
            n = trim(f, n);
            if (n <= 0)
                continue;
            cache_codes(f, n);
            if (!write || !tid_offset || !all_cached(f, n))
                continue;
            uint32_t tid = (uint32_t) * (long *)((char *)t + tid_offset);
            host_key keys[HOST_MAX_DEPTH];
            to_keys(f, n, keys);
            uint32_t node = inject_host_stack(keys, n);
            stream_format_sample(inject_host_out(), ts, tid, node, HOST_SAMPLE_PY, state_before(tid));
            if (looked.next_n < MAX_PY_THREADS)
                looked.next[looked.next_n++] = tid;
        }
    inject_host_unlock();
    py.GILState_Release(g);
    memcpy(looked.tid, looked.next, (size_t)looked.next_n * sizeof looked.tid[0]);
    looked.n = looked.next_n;
    if (write && !tid_offset) {
        snprintf(why, len, "the threads' ids could not be found in Python's thread states");
        return false;
    }
    return true;
}
