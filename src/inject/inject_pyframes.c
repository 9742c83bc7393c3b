/* Python stacks for the injection library: CPython found at run time, its frame layout checked,
 * a thread's frames read, code objects named; and a launch's call site in Python. The sampler's
 * look at every thread is inject_pylook.c's. See inject_py.h and docs/host-sampling.md.
 *
 * CPython is found at run time, with dlsym(RTLD_DEFAULT): the library is injected into every
 * program `mmprof profile` runs, most of them not Python, so it cannot link libpython (nor know
 * which one: 3.11 here, 3.12 on the GPU machine). The few functions it calls are declared in
 * inject_py.h with opaque pointers; no Python header is needed, and none would match every version.
 *
 * Three ways to read a thread's frames:
 *  - with the GIL held (the sampler's look when nothing else can be had; a launch may hold it):
 *    the public API, PyFrame_*;
 *  - without it, from the thread itself: a launch from PyTorch runs with the GIL released (its
 *    operator bindings drop it before dispatch), as do ctypes calls (numba), so the public API,
 *    which may allocate frame objects, cannot be used. But a thread blocked in a C call cannot
 *    change its own frame chain, and each frame holds a reference to its code object, so the
 *    chain can be read as plain memory: CPython's internal frame struct (_PyInterpreterFrame),
 *    whose layout differs between versions. Only the layouts of 3.11 and 3.12 are known here, and
 *    each is checked against the public API on the live interpreter before use (the sampler's
 *    first look, under the GIL): a mismatch turns this way off, and such launches get their native
 *    stack;
 *  - without it, of another thread, which may be running and changing its frames as they are read
 *    (the sampler's look): the same layout, every read through process_vm_readv (py_peek), each
 *    frame validated (py_read_running). A torn read is refused, or can give a stack that was
 *    never whole (docs/host-sampling.md says what).
 * What is read is a code object's address and instruction offset; its names come from the code
 * cache (inject_host.c). Under the GIL the cache takes a reference to each object (held: never
 * freed, so its address keeps naming it); without it a launch names its own frames' objects from
 * their memory where their names are ASCII (named_without_gil), which its own frames keep alive.
 * A py key is (code object, instruction offset in bytes), read either way (PyFrame_GetLasti); its
 * line is PyCode_Addr2Line's, asked once, when its node is made (a pure read of the code's line
 * table, safe without the GIL on a code object alive then: held, or the launching thread's own). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "inject.h"
#include "inject_py.h"

py_api py;
frame_layout py_layout;
static enum { LAYOUT_UNKNOWN, LAYOUT_UNCHECKED, LAYOUT_OK, LAYOUT_BAD } layout_state;
static char layout_why[160];
volatile int py_stopping;

#define SYM(field, name) (*(void **)&py.field = dlsym(RTLD_DEFAULT, name))

/* Whether the look for CPython is over: FIND_DONE once it is found or known absent; FIND_AGAIN
 * while the interpreter is there but not yet initialised (the sampler started with the process,
 * exit_hook.c): the next call looks again. */
enum { FIND_NOT_YET, FIND_DONE, FIND_AGAIN };
static int find_state;
static pthread_mutex_t find_lock = PTHREAD_MUTEX_INITIALIZER;

static int find_python(void)
{
    const unsigned long *version = dlsym(RTLD_DEFAULT, "Py_Version");
    SYM(IsInitialized, "Py_IsInitialized");
    if (!version || !py.IsInitialized)
        return FIND_DONE; /* not Python, or older than 3.11 (Py_Version) */
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
    /* optional: without them, no reads without the GIL of threads that may run */
    SYM(BytesAsString, "PyBytes_AsString");
    SYM(LongAsLong, "PyLong_AsLong");
    SYM(TupleGetItem, "PyTuple_GetItem");
    SYM(SetAttrString, "PyObject_SetAttrString");
    py.code_type = dlsym(RTLD_DEFAULT, "PyCode_Type");
    py.unicode_type = dlsym(RTLD_DEFAULT, "PyUnicode_Type");
    py.bytes_type = dlsym(RTLD_DEFAULT, "PyBytes_Type");
    if (!ok)
        return FIND_DONE;
    if (!py.IsInitialized())
        return FIND_AGAIN;
    py.present = true;
    unsigned minor = (unsigned)(py.version >> 16) & 0xff, major = (unsigned)(py.version >> 24);
    /* From CPython's Include/cpython/pystate.h and Include/internal/pycore_frame.h of each
     * version (x86-64 and aarch64 alike: pointers and ints only). */
    if (major == 3 && minor == 11) {
        py_layout = (frame_layout){.cframe = 56, .current = 8, .code = 32, .previous = 48, .instr = 56, .owner = 69,
                                .cstack_owner = -1};
        layout_state = LAYOUT_UNCHECKED;
    } else if (major == 3 && minor == 12) {
        py_layout = (frame_layout){.cframe = 56, .current = 0, .code = 0, .previous = 8, .instr = 56, .owner = 70,
                                .cstack_owner = 3};
        layout_state = LAYOUT_UNCHECKED;
    } else {
        layout_state = LAYOUT_UNKNOWN;
        snprintf(layout_why, sizeof layout_why, "Python %u.%u's frame layout is not known to mmprof", major, minor);
    }
    return FIND_DONE;
}

bool inject_py_present(void)
{
    if (__atomic_load_n(&find_state, __ATOMIC_ACQUIRE) == FIND_DONE)
        return py.present;
    pthread_mutex_lock(&find_lock);
    if (find_state != FIND_DONE) {
        __atomic_store_n(&find_state, find_python(), __ATOMIC_RELEASE);
        if (find_state == FIND_DONE && py.present)
            inject_host_py_lines(inject_py_key_line); /* before any py key reaches the tree */
    }
    pthread_mutex_unlock(&find_lock);
    return py.present;
}

bool inject_py_pending(void) { return __atomic_load_n(&find_state, __ATOMIC_ACQUIRE) == FIND_AGAIN; }

bool inject_py_stopping(void) { return py_stopping; }

bool py_layout_ok(void) { return layout_state == LAYOUT_OK; }

const char *inject_py_mode(void)
{
    switch (layout_state) {
    case LAYOUT_OK: return NULL;
    case LAYOUT_UNCHECKED: return "no Python thread had frames to check the frame layout on: launches without the GIL get native stacks";
    default: return layout_why;
    }
}

/* ---- reading frames ---- */

bool py_peek(const void *addr, size_t off, void *out, size_t n)
{
    struct iovec local = {.iov_base = out, .iov_len = n};
    struct iovec remote = {.iov_base = (char *)addr + off, .iov_len = n};
    return addr && process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n;
}

static void *peek_ptr(const void *addr, size_t off, bool *ok)
{
    void *v = NULL;
    if (*ok)
        *ok = py_peek(addr, off, &v, sizeof v);
    return *ok ? v : NULL;
}

/* The frames of tstate read as memory, innermost first. The thread is the caller, or is stopped
 * by the GIL the caller holds. checked: every read through peek (the layout check); false when
 * a read failed. */
static int read_direct(void *tstate, raw_frame *f, int max, bool checked, bool *ok)
{
    *ok = true;
    void *cframe = checked ? peek_ptr(tstate, py_layout.cframe, ok) : py_at(tstate, py_layout.cframe);
    void *fr = !cframe ? NULL : checked ? peek_ptr(cframe, py_layout.current, ok) : py_at(cframe, py_layout.current);
    int n = 0;
    for (int guard = 0; fr && n < max && guard < 4096 && *ok; guard++) {
        char owner = 0;
        char *code, *instr;
        if (checked) {
            code = peek_ptr(fr, py_layout.code, ok);
            instr = peek_ptr(fr, py_layout.instr, ok);
            *ok = *ok && py_peek(fr, py_layout.owner, &owner, 1);
        } else {
            code = py_at(fr, py_layout.code);
            instr = py_at(fr, py_layout.instr);
            owner = *((const char *)fr + py_layout.owner);
        }
        long lasti = layout_state == LAYOUT_OK ? (long)(instr - (code + py_layout.code_start)) : 0;
        /* C-stack shim frames (3.12), and frames not yet started (3.11's incomplete frames:
         * PyFrame_GetBack skips them too) */
        if (*ok && code && !(py_layout.cstack_owner >= 0 && owner == py_layout.cstack_owner) && lasti >= 0)
            f[n++] = (raw_frame){.code = (uint64_t)(uintptr_t)code, .b = (uint32_t)lasti};
        fr = checked ? peek_ptr(fr, py_layout.previous, ok) : py_at(fr, py_layout.previous);
    }
    return n;
}

int py_read_stopped(void *tstate, raw_frame *f, int max)
{
    bool ok;
    return layout_state == LAYOUT_OK ? read_direct(tstate, f, max, false, &ok)
                                     : py_read_public(py.ThreadStateGetFrame(tstate), f, max);
}

#define FRAME_OWNED_BY_THREAD 0 /* a frame's owner (pycore_frame.h, 3.11 and 3.12) */

/* The bytes of a frame read in one go: up to its furthest field. */
static size_t frame_span(void)
{
    size_t span = py_layout.owner + 1;
    size_t fields[] = {py_layout.code, py_layout.previous, py_layout.instr};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (fields[i] + sizeof(void *) > span)
            span = fields[i] + sizeof(void *);
    return span;
}

int py_read_running(const void *cframe, raw_frame *f, int max)
{
    void *b[16], *head[64]; /* words, so fields read from them are aligned */
    size_t span = frame_span(), head_span = py_code_head_span();
    void *fr = NULL;
    if (!cframe)
        return 0;
    if (layout_state != LAYOUT_OK || !py.code_type || span > sizeof b || head_span > sizeof head ||
        !py_peek(cframe, py_layout.current, &fr, sizeof fr))
        return -1;
    int n = 0;
    char owner = -1; /* the last frame's: -1, none */
    for (int guard = 0; fr && n < max; guard++) {
        if (guard >= 4 * max || !py_peek(fr, 0, b, span))
            return -1; /* a chain that loops, or a frame freed while it was read */
        const char *code = py_at(b, py_layout.code), *instr = py_at(b, py_layout.instr);
        owner = ((const char *)b)[py_layout.owner];
        fr = py_at(b, py_layout.previous);
        if (!code || (py_layout.cstack_owner >= 0 && owner == py_layout.cstack_owner))
            continue; /* as read_direct */
        /* the code object's first words: reference count, type, size (code units of 2 bytes),
         * and on to its names' pointers (the tag) */
        if (!py_peek(code, 0, head, head_span) || head[1] != py.code_type)
            return -1;
        long lasti = (long)(instr - (code + py_layout.code_start));
        if (lasti < 0)
            continue; /* a frame not started yet, as read_direct */
        if (lasti >= 2 * (long)(intptr_t)head[2])
            return -1;
        f[n++] = (raw_frame){.code = (uint64_t)(uintptr_t)code, .b = (uint32_t)lasti, .tag = py_code_tag(head)};
    }
    /* A whole chain ends at the C-stack shim frame of the thread's first entry into Python (3.12),
     * or at a frame the thread owns (3.11): one that ends at a generator's frame was read as the
     * generator yielded (its link to its caller cleared), the rest of the stack lost. (In 3.11 a
     * generator run from C with no Python below is refused too: rare.) */
    if (!fr && n < max && owner != -1 && owner != (py_layout.cstack_owner >= 0 ? py_layout.cstack_owner : FRAME_OWNED_BY_THREAD))
        return -1;
    return n;
}

int py_read_public(pyobj *frame, raw_frame *f, int max)
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

/* Its innermost frames and its HOST_OUTER_DEPTH outermost. */
int py_trim(raw_frame *f, int n)
{
    if (n <= HOST_MAX_DEPTH)
        return n;
    int inner = HOST_MAX_DEPTH - HOST_OUTER_DEPTH;
    memmove(f + inner, f + n - HOST_OUTER_DEPTH, HOST_OUTER_DEPTH * sizeof *f);
    return HOST_MAX_DEPTH;
}

void py_to_keys(const raw_frame *f, int n, host_key *keys)
{
    for (int i = 0; i < n; i++)
        keys[n - 1 - i] = (host_key){.a = f[i].code, .b = f[i].b, .kind = HOST_KEY_PY};
}

int inject_py_this_stack(host_key *keys, int max, const host_key *known, int nknown)
{
    if (!inject_py_present() || py_stopping)
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
        n = py_read_public(py.EvalGetFrame(), f, HOST_PY_WALK);
    else
        return -1;
    n = py_trim(f, n);
    if (n <= 0 || n > max)
        return -1;
    py_to_keys(f, n, keys);
    int same = 0;
    while (same < n && same < nknown && keys[same].a == known[same].a && keys[same].b == known[same].b)
        same++;
    inject_host_lock();
    /* f is innermost first: its first n - same frames are the ones not checked before; their code
     * objects are alive (this thread's frames hold them), so their tags are read plainly */
    for (int i = 0; !gil && i < n - same; i++)
        f[i].tag = py_code_tag((const void *)(uintptr_t)f[i].code);
    if (!(gil ? py_hold_codes(f, n - same) : py_name_codes(f, n - same))) {
        inject_host_unlock();
        return -1;
    }
    return n; /* the lock stays held: the caller interns */
}


/* ---- the layout check ---- */

/* Every thread's frames read as memory against the public API (the GIL is held, so none runs):
 * the same code objects in the same order, and one consistent start of the code in the code
 * object, from which instruction offsets are read. Then, with that start, py_read_running (the
 * sampler's read of running threads) must give the same frames and offsets; where it does not,
 * memory reads stay on for launches and the sampler keeps to the GIL (running_why says why). */
static char running_why[160];

const char *py_running_why(void) { return running_why[0] ? running_why : NULL; }

static bool same_frames(const raw_frame *a, int na, const raw_frame *b, int nb, bool offsets)
{
    if (na != nb)
        return false;
    for (int i = 0; i < na; i++)
        if (a[i].code != b[i].code || (offsets && a[i].b != b[i].b))
            return false;
    return true;
}

void py_check_layout(void)
{
    if (layout_state != LAYOUT_UNCHECKED)
        return;
    int threads = 0;
    long start = -1;
    void *is = py.InterpreterStateHead();
    for (void *t = is ? py.InterpreterStateThreadHead(is) : NULL; t; t = py.ThreadStateNext(t)) {
        raw_frame d[HOST_PY_WALK], p[HOST_PY_WALK];
        bool ok;
        int nd = read_direct(t, d, HOST_PY_WALK, true, &ok);
        int np = py_read_public(py.ThreadStateGetFrame(t), p, HOST_PY_WALK);
        if (ok && np == 0 && nd == 0)
            continue;
        if (!ok || !same_frames(d, nd, p, np, false))
            goto bad;
        /* The instruction pointer of the innermost frame against PyFrame_GetLasti. */
        /* Read again: the frames were checked readable above. */
        void *fr = py_at(py_at(t, py_layout.cframe), py_layout.current);
        while (fr && py_layout.cstack_owner >= 0 && *((const char *)fr + py_layout.owner) == py_layout.cstack_owner)
            fr = py_at(fr, py_layout.previous);
        if (!fr)
            goto bad;
        long s = (long)((char *)py_at(fr, py_layout.instr) - (char *)py_at(fr, py_layout.code)) - (long)p[0].b;
        if (s <= 0 || s > 4096 || (start >= 0 && s != start))
            goto bad;
        start = s;
        threads++;
    }
    if (threads == 0)
        return; /* nothing to check against yet: the next look tries again */
    py_layout.code_start = (size_t)start;
    layout_state = LAYOUT_OK;
    if (!py.code_type)
        snprintf(running_why, sizeof running_why, "no PyCode_Type in this Python");
    for (void *t = py.InterpreterStateThreadHead(is); t && !running_why[0]; t = py.ThreadStateNext(t)) {
        raw_frame r[HOST_PY_WALK], p[HOST_PY_WALK];
        int nr = py_read_running(py_at(t, py_layout.cframe), r, HOST_PY_WALK);
        int np = py_read_public(py.ThreadStateGetFrame(t), p, HOST_PY_WALK);
        if (!same_frames(r, nr, p, np, true))
            snprintf(running_why, sizeof running_why, "a stopped thread's frames read without the GIL did not match Python's");
    }
    for (void *t = py.InterpreterStateThreadHead(is); t; t = py.ThreadStateNext(t)) {
        raw_frame p[HOST_PY_WALK];
        int np = py_read_public(py.ThreadStateGetFrame(t), p, HOST_PY_WALK);
        inject_host_lock();
        py_check_code_reads(p, np);
        inject_host_unlock();
    }
    return;
bad:
    layout_state = LAYOUT_BAD;
    snprintf(layout_why, sizeof layout_why,
             "Python frames did not read as CPython %lu.%lu's layout: launches without the GIL get native stacks",
             (py.version >> 24) & 0xff, (py.version >> 16) & 0xff);
}
