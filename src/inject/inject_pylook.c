/* The sampler's look at every Python thread (inject_sampler.c calls it each period): a wall-clock
 * sample of each thread's Python stack, with its kernel state. See inject_py.h and
 * docs/host-sampling.md.
 *
 * Without the GIL where it can: taking it 100 times a second makes the thread that runs Python
 * hand it over each time, which a launch-bound loop pays for. So once a look under the GIL has
 * checked the frame layout and found the interpreter's thread list, each look walks the thread
 * list and every thread's frames as memory (py_peek, py_read_running: a thread may be running and
 * changing them; a torn read is refused). A code object the code cache does not know is named
 * from its memory too (inject_pycode.c, under the host lock: a few reads, once per object). Only
 * a stack with one that cannot be (a name not ASCII, the cache full, or memory reads of names and
 * lines not checked on this Python: then one the cache does not hold) needs a look under the
 * GIL, which names and holds it. Such a look is taken at once, but not within GIL_LOOK_MIN_MS of
 * the last: in between such threads get no sample (counted). A program that keeps running such
 * code so pays at most 1000 / GIL_LOOK_MIN_MS GIL looks a second.
 *
 * The look under the GIL is the first one (it registers the exit hook and finds the thread id's
 * field), and every one where the layout or the thread list could not be checked (another Python
 * version): then each thread's state is read before taking the GIL (once the sampler holds it, a
 * thread running Python is waiting for it, and /proc says S). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "inject.h"
#include "inject_py.h"
#include "stream_format.h"

#define GIL_LOOK_MIN_MS 100 /* looks under the GIL to name new code objects, at most one per */
#define MAX_PY_THREADS 256  /* Python threads sampled at once */
/* PyThreadState's first fields, 3.11 and 3.12 alike: prev, next, interp (checked). */
#define TS_NEXT 8
#define TS_INTERP 16
#define TS_READ 1024 /* the bytes of a thread state read at once, at most */

static size_t tid_offset; /* PyThreadState's native_thread_id, found by the sampler (0: not found) */

/* The interpreter's thread list: where its head is in the interpreter state (0: not found yet). */
static struct {
    void *interp;
    size_t head;
    char why[128]; /* why it cannot be walked without the GIL */
} tlist;

static struct {
    uint64_t without_gil, with_gil, skipped, torn;
} stats;
static int64_t last_gil_look;
static bool first = true;

static void count(uint64_t *c) { __atomic_fetch_add(c, 1, __ATOMIC_RELAXED); }

/* ---- the exit hook ---- */

/* Python's atexit calls this (registered at the first look): from here the interpreter finalises,
 * and a thread taking the GIL then would hang or be ended by it. */
static pyobj *on_python_exit(pyobj *self, pyobj *unused)
{
    (void)self;
    (void)unused;
    py_stopping = 1;
    py.IncRef(py.none);
    return py.none;
}

static py_method_def exit_def = {"mmprof_stop_sampling", (void *)on_python_exit, PY_METH_NOARGS, NULL};

static void register_exit(void)
{
    pyobj *mod = py.ImportModule("atexit");
    pyobj *reg = mod ? py.GetAttrString(mod, "register") : NULL;
    pyobj *fn = reg ? py.CFunctionNewEx(&exit_def, NULL, NULL) : NULL;
    pyobj *r = fn ? py.CallFunctionObjArgs(reg, fn, NULL) : NULL;
    if (r)
        py.DecRef(r);
    else
        py_stopping = 1; /* without the hook the sampler could outlive the interpreter: no Python looks */
    if (fn)
        py.DecRef(fn);
    if (reg)
        py.DecRef(reg);
    if (mod)
        py.DecRef(mod);
    py.ErrClear();
}

/* ---- what the looks need to know, found under the GIL ---- */

/* The native thread id field of PyThreadState (3.11+: native_thread_id): the word of the sampler's
 * own thread state that holds its tid. */
static void find_tid_offset(void)
{
    void *mine = py.GILState_GetThisThreadState();
    long tid = syscall(SYS_gettid);
    if (!mine || tid_offset)
        return;
    for (size_t off = 24; off + sizeof(long) <= TS_READ; off += sizeof(long))
        if (*(long *)((char *)mine + off) == tid) {
            tid_offset = off;
            return;
        }
}

/* The head of the interpreter's thread list (PyInterpreterState.threads.head): the first word of
 * the interpreter state that holds PyInterpreterState_ThreadHead's value, each thread state's next
 * and interpreter then checked against PyThreadState_Next; checked again at each later look
 * under the GIL. */
static void find_thread_list(void)
{
    void *is = py.InterpreterStateHead();
    void *head = is ? py.InterpreterStateThreadHead(is) : NULL;
    void *v = NULL;
    if (tlist.why[0] || !head)
        return;
    if (tlist.head) {
        if (is != tlist.interp || !py_peek(is, tlist.head, &v, sizeof v) || v != head) {
            snprintf(tlist.why, sizeof tlist.why, "the interpreter's thread list moved");
            tlist.head = 0;
        }
        return;
    }
    size_t off = 0;
    for (size_t o = sizeof v; o < 512 && !off; o += sizeof v)
        if (py_peek(is, o, &v, sizeof v) && v == head)
            off = o;
    for (void *t = head; t && off; t = py.ThreadStateNext(t)) {
        void *w[3];
        if (!py_peek(t, 0, w, sizeof w) || w[TS_NEXT / sizeof v] != py.ThreadStateNext(t) || w[TS_INTERP / sizeof v] != is)
            off = 0;
    }
    if (!off) {
        snprintf(tlist.why, sizeof tlist.why, "the interpreter's thread list was not found");
        return;
    }
    tlist.interp = is;
    tlist.head = off;
}

const char *inject_py_look_mode(void)
{
    static char why[240];
    const char *w = tlist.why[0] ? tlist.why : py_running_why();
    if (!w && !tlist.head && py_layout_ok())
        w = "the interpreter's thread list was not found";
    if (!py_layout_ok())
        return NULL; /* the frame layout says why already */
    if (w)
        snprintf(why, sizeof why, "the Python look takes the GIL every period: %s", w);
    else if (py_code_reads_why())
        snprintf(why, sizeof why, "the Python look takes the GIL for each new code object: %s", py_code_reads_why());
    return w || py_code_reads_why() ? why : NULL;
}

/* R, S, D... of a thread, from /proc. */
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

/* ---- the look without the GIL ---- */

static struct {
    uint32_t tid;
    char state;
    bool ready; /* its code objects are named */
    int n;
    raw_frame f[HOST_MAX_DEPTH];
} seen[MAX_PY_THREADS];

/* Each Python thread's frames and state, into seen; -1 where the list's head cannot be read. A
 * thread state freed while the list was walked ends the walk (its next is not to be trusted). */
static int read_threads(void)
{
    void *ts[TS_READ / sizeof(void *)];
    size_t span = TS_INTERP + sizeof(void *);
    if (py_layout.cframe + sizeof(void *) > span)
        span = py_layout.cframe + sizeof(void *);
    if (tid_offset + sizeof(long) > span)
        span = tid_offset + sizeof(long);
    void *t = NULL;
    if (!py_peek(tlist.interp, tlist.head, &t, sizeof t))
        return -1;
    int n = 0;
    for (int guard = 0; t && n < MAX_PY_THREADS && guard < 4 * MAX_PY_THREADS; guard++) {
        if (!py_peek(t, 0, ts, span) || py_at(ts, TS_INTERP) != tlist.interp)
            break;
        raw_frame f[HOST_PY_WALK];
        int k = py_read_running(py_at(ts, py_layout.cframe), f, HOST_PY_WALK);
        uint32_t tid = (uint32_t)*(const unsigned long *)((const char *)ts + tid_offset);
        t = py_at(ts, TS_NEXT);
        if (k < 0)
            count(&stats.torn);
        if (k <= 0)
            continue;
        seen[n].tid = tid;
        seen[n].n = py_trim(f, k);
        memcpy(seen[n].f, f, (size_t)seen[n].n * sizeof *f);
        seen[n].state = thread_state(tid);
        n++;
    }
    return n;
}

/* False where a look under the GIL is to be taken instead (the thread list could not be read, or a
 * stack names a code object the cache does not hold and such a look is due). */
static bool look_without_gil(bool write, int64_t now)
{
    int n = read_threads();
    if (n < 0)
        return false;
    inject_host_lock();
    /* every code object named (from memory where that was checked, else held by a look under
     * the GIL, whose lines PyCode_Addr2Line may read) */
    bool reads = py_code_reads_ok(), missing = false;
    for (int i = 0; i < n; i++) {
        seen[i].ready = reads ? py_name_codes(seen[i].f, seen[i].n) : py_codes_cached(seen[i].f, seen[i].n, true);
        missing = missing || !seen[i].ready;
    }
    if (missing && now - last_gil_look >= GIL_LOOK_MIN_MS * 1000000L) {
        inject_host_unlock();
        return false;
    }
    for (int i = 0; write && i < n; i++) {
        if (!seen[i].ready) {
            count(&stats.skipped);
            continue;
        }
        host_key keys[HOST_MAX_DEPTH];
        py_to_keys(seen[i].f, seen[i].n, keys);
        uint32_t node = inject_host_stack(keys, seen[i].n);
        stream_format_sample(inject_host_out(), now, seen[i].tid, node, HOST_SAMPLE_PY, seen[i].state);
    }
    inject_host_unlock();
    count(&stats.without_gil);
    return true;
}

/* ---- the look under the GIL ---- */

/* The states of the Python threads of the last look, read before taking the GIL: once we hold it,
 * a thread running Python is waiting for it, and /proc says S. A thread new since the last look
 * is read under the GIL, once. */
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

static bool look_with_gil(bool write, char *why, size_t len)
{
    for (int i = 0; write && i < looked.n; i++)
        looked.state[i] = thread_state(looked.tid[i]);
    looked.next_n = 0;
    int g = py.GILState_Ensure();
    if (py_stopping) { /* the program began to exit while we waited */
        py.GILState_Release(g);
        return false;
    }
    if (first) {
        register_exit();
        find_tid_offset();
        if (write)
            inject_py_hooks_register();
        first = false;
    }
    py_check_layout();
    find_thread_list();
    int64_t ts = inject_now_ns();
    void *self = py.GILState_GetThisThreadState();
    void *is = py.InterpreterStateHead();
    inject_host_lock();
    for (void *t = is ? py.InterpreterStateThreadHead(is) : NULL; t; t = py.ThreadStateNext(t)) {
        if (t == self)
            continue;
        raw_frame f[HOST_PY_WALK];
        int n = py_read_stopped(t, f, HOST_PY_WALK);
        n = py_trim(f, n);
        if (n <= 0)
            continue;
        py_hold_codes(f, n);
        if (!write || !tid_offset || !py_codes_cached(f, n, false))
            continue;
        uint32_t tid = (uint32_t) * (long *)((char *)t + tid_offset);
        host_key keys[HOST_MAX_DEPTH];
        py_to_keys(f, n, keys);
        uint32_t node = inject_host_stack(keys, n);
        stream_format_sample(inject_host_out(), ts, tid, node, HOST_SAMPLE_PY, state_before(tid));
        if (looked.next_n < MAX_PY_THREADS)
            looked.next[looked.next_n++] = tid;
    }
    inject_host_unlock();
    py.GILState_Release(g);
    last_gil_look = inject_now_ns();
    count(&stats.with_gil);
    memcpy(looked.tid, looked.next, (size_t)looked.next_n * sizeof looked.tid[0]);
    looked.n = looked.next_n;
    if (write && !tid_offset) {
        snprintf(why, len, "the threads' ids could not be found in Python's thread states");
        return false;
    }
    return true;
}

bool inject_py_sample_all(bool write, char *why, size_t len)
{
    if (!inject_py_present() || py_stopping) {
        snprintf(why, len, "%s", py_stopping ? "the interpreter is finalising" : "no Python interpreter");
        return false;
    }
    if (!first && tlist.head && tid_offset && py_layout_ok() && !py_running_why() &&
        look_without_gil(write, inject_now_ns()))
        return true;
    return look_with_gil(write, why, len);
}

void inject_py_write_stats(void)
{
    uint64_t looks = __atomic_load_n(&stats.without_gil, __ATOMIC_RELAXED) + __atomic_load_n(&stats.with_gil, __ATOMIC_RELAXED);
    if (!looks)
        return;
    host_collect_stats st = {.has_looks = true,
                             .looks_nogil = __atomic_load_n(&stats.without_gil, __ATOMIC_RELAXED),
                             .looks_gil = __atomic_load_n(&stats.with_gil, __ATOMIC_RELAXED),
                             .samples_left_out = __atomic_load_n(&stats.skipped, __ATOMIC_RELAXED),
                             .samples_torn = __atomic_load_n(&stats.torn, __ATOMIC_RELAXED)};
    stream_format_host_stats(inject_host_out(), &st);
}
