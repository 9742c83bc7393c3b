/* Python's own word on two kinds of host work its stacks do not show: a garbage collection runs
 * inside whatever line allocated, and time.sleep is a C function below the caller's line, so a
 * sample of either reads as "computing" or "waiting" at that line. gc.callbacks tells when each
 * collection starts and stops, and a wrapper of time.sleep when a sleep starts and stops; each
 * becomes an "hspan" line of the record stream (stream_format.h) with the
 * thread's Python stack, which the wall-time account (src/analysis/wall_account.h) names exactly.
 *
 * Registered at the sampler's first look under the GIL (inject_pylook.c), where sampling is on;
 * both run on the thread that collects or sleeps, holding the GIL. A collection or sleep shorter
 * than PY_SPAN_MIN_NS is not written: each costs a stack and a line, and their sum is small. */
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "inject.h"
#include "inject_py.h"
#include "stream_format.h"

#define PY_SPAN_MIN_NS 100000 /* 0.1 ms */

static __thread int64_t gc_started; /* the thread's collection in progress, 0 none */

/* Writes [start, end) named name with the calling thread's Python stack (the GIL is held). */
static void write_span(int64_t start, int64_t end, const char *name)
{
    if (!inject_capture_tracing_now())
        return; /* outside a capture window nothing is recorded */
    host_key keys[HOST_MAX_DEPTH];
    int n = inject_py_this_stack(keys, HOST_MAX_DEPTH, NULL, 0); /* >= 0: the host lock is held */
    if (n < 0)
        inject_host_lock();
    uint32_t node = n > 0 ? inject_host_stack(keys, n) : 0;
    stream_format_hspan(inject_host_out(), start, end, (uint32_t)syscall(SYS_gettid), node, name);
    inject_host_flush_locked(false);
    inject_host_unlock();
}

/* gc.callbacks' callback: (phase, info), phase "start" or "stop". */
static pyobj *on_gc(pyobj *self, pyobj *args)
{
    (void)self;
    pyobj *phase = py.TupleGetItem ? py.TupleGetItem(args, 0) : NULL; /* borrowed */
    const char *p = phase ? py.UnicodeAsUTF8(phase) : NULL;
    if (p && strcmp(p, "start") == 0) {
        gc_started = inject_now_ns();
    } else if (p && strcmp(p, "stop") == 0 && gc_started) {
        int64_t end = inject_now_ns();
        if (end - gc_started >= PY_SPAN_MIN_NS)
            write_span(gc_started, end, "gc");
        gc_started = 0;
    }
    py.ErrClear();
    py.IncRef(py.none);
    return py.none;
}

static py_method_def gc_def = {"mmprof_gc_callback", (void *)on_gc, PY_METH_VARARGS, NULL};

/* time.sleep, wrapped: the original called, its span written where it lasted (the GIL is
 * released inside the original, and held again here). A wrapper, not the "time.sleep" audit event,
 * since that event came with Python 3.13 only; a program that took the function before the hook
 * was set (from time import sleep, at its start) keeps the original, and its sleeps read as waits. */
static pyobj *real_sleep;

static pyobj *on_sleep(pyobj *self, pyobj *secs)
{
    (void)self;
    int64_t t0 = inject_now_ns();
    pyobj *r = py.CallFunctionObjArgs(real_sleep, secs, NULL);
    int64_t t1 = inject_now_ns();
    if (r && t1 - t0 >= PY_SPAN_MIN_NS)
        write_span(t0, t1, "time.sleep");
    return r; /* NULL with the original's exception (a KeyboardInterrupt in the sleep) */
}

static py_method_def sleep_def = {"sleep", (void *)on_sleep, PY_METH_O, NULL};

void inject_py_hooks_register(void)
{
    pyobj *mod = py.ImportModule("gc");
    pyobj *cbs = mod ? py.GetAttrString(mod, "callbacks") : NULL;
    pyobj *append = cbs ? py.GetAttrString(cbs, "append") : NULL;
    pyobj *fn = append && py.TupleGetItem ? py.CFunctionNewEx(&gc_def, NULL, NULL) : NULL;
    pyobj *r = fn ? py.CallFunctionObjArgs(append, fn, NULL) : NULL;
    if (r)
        py.DecRef(r);
    if (fn)
        py.DecRef(fn);
    if (append)
        py.DecRef(append);
    if (cbs)
        py.DecRef(cbs);
    if (mod)
        py.DecRef(mod);
    py.ErrClear();
    pyobj *time = py.SetAttrString ? py.ImportModule("time") : NULL;
    pyobj *orig = time ? py.GetAttrString(time, "sleep") : NULL; /* kept: the wrapper calls it */
    pyobj *wrap = orig ? py.CFunctionNewEx(&sleep_def, NULL, NULL) : NULL;
    if (wrap && py.SetAttrString(time, "sleep", wrap) == 0)
        real_sleep = orig;
    else if (orig)
        py.DecRef(orig);
    if (wrap)
        py.DecRef(wrap);
    if (time)
        py.DecRef(time);
    py.ErrClear();
}
