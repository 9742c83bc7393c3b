/* Internals shared by the injection library's host-stack parts (see docs/host-sampling.md):
 *   inject_host.c     the process's call tree (host_tree.h), the code-object cache, the buffer
 *                     their lines wait in, and one lock over all of them;
 *   inject_pyframes.c Python's stacks, through CPython's C API found at run time (inject_py.h);
 *   inject_pylook.c   the sampler's look at every Python thread, without the GIL where it can;
 *   inject_sites.c    the host stack of each launch, copy, memset and synchronisation (CUPTI
 *                     callbacks), native where no Python stack can be had;
 *   inject_sampler.c  the sampler thread: Python stacks of every thread on the wall clock, and
 *                     CPU-time timers on every thread for native code.
 * Lock order: the GIL (where held) before the host lock; nothing waits for the GIL holding it. */
#ifndef MMPROF_INJECT_HOST_H
#define MMPROF_INJECT_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "host_tree.h"
#include "strbuf.h"

/* The deepest stack kept. A deeper Python stack keeps its HOST_OUTER_DEPTH outermost frames (the
 * program's own lines, where a library's deep machinery runs: numba compiling a kernel is 60
 * frames deep) and the innermost rest, the outermost's node the parent of the innermost's; a
 * deeper native stack keeps its innermost frames (unwinding further would cost every launch). */
#define HOST_MAX_DEPTH 48
#define HOST_OUTER_DEPTH 16
#define HOST_PY_WALK 256 /* Python frames walked at most */

/* The host lock. */
void inject_host_lock(void);
void inject_host_unlock(void);

/* Under the lock: the innermost node of a stack given outermost first (n keys), writing the frame
 * lines of new nodes to the buffer first. 0 for an empty stack. A py key's code object must be in
 * the code cache (inject_host_code_known). */
uint32_t inject_host_stack(const host_key *keys, int n);
/* The same from node (the node of the frames before keys), each key's node id in ids (NULL: not
 * wanted); returns the innermost node, *interned the keys that got a node (all of them but where
 * the tree is full). */
uint32_t inject_host_stack_at(const host_key *keys, int n, uint32_t node, uint32_t *ids, int *interned);
/* Under the lock: bumped whenever the tree forgets its nodes (a forked child), so node ids kept
 * elsewhere (inject_sites.c's per-thread memo) are known stale. */
uint32_t inject_host_generation(void);

/* Under the lock: the buffer the site and sample lines go to, after the frames they name. */
strbuf *inject_host_out(void);

/* Under the lock: writes the buffer to the stream when it holds more than a batch, or always
 * (force). Sites on every launch would cost a write(2) each; batched, they cost a copy. */
void inject_host_flush_locked(bool force);
void inject_host_flush(void); /* takes the lock, forces */
/* Under the lock: stacks cut short by the tree's bound (host_tree.cut). */
uint64_t inject_host_cut(void);

/* The code-object cache (under the lock): a Python code object's function and file by its
 * address, with a tag inject_pyframes.c checks a live object against (see there; 0: the cache
 * holds a reference to the object). known: whether code is cached; tag: its tag; add: caches it
 * (strings copied; false when the cache is full or memory ran out). */
bool inject_host_code_known(uint64_t code);
bool inject_host_code_tag(uint64_t code, uint64_t *tag);
bool inject_host_code_add(uint64_t code, uint64_t tag, const char *function, const char *file);
/* A cached code object's entry named anew, with a new tag (0: held, the caller took a reference
 * for the cache); false (entry unchanged) when memory ran out. */
bool inject_host_code_rename(uint64_t code, uint64_t tag, const char *function, const char *file);

/* A py key's line (inject_pycode.c): the key's code object is cached. The tree's frame lines
 * get it through the function inject_host_py_lines hands over (inject_pyframes.c, once Python is
 * found). */
int inject_py_key_line(const host_key *k);
void inject_host_py_lines(int (*line)(const host_key *k));
/* The function and file of a cached code object (NULL when not cached). */
bool inject_host_code_names(uint64_t code, const char **function, const char **file);

/* ---- inject_pyframes.c ---- */
/* Finds CPython in the process (its symbols, and an initialised interpreter); once it is found or
 * known absent. */
bool inject_py_present(void);
/* The interpreter is there but not yet initialised (a sampler started with the process): ask
 * inject_py_present again later. */
bool inject_py_pending(void);
/* The calling thread's Python stack as keys, outermost first (at most max, the innermost ones),
 * or -1 when it has none that can be read now. On success (>= 0) the host lock is held on return,
 * so the caller interns the keys with the code objects it checked still cached. The outermost
 * frames equal to known[0..nknown) (the thread's previous stack, checked then) are not checked
 * again. */
int inject_py_this_stack(host_key *keys, int max, const host_key *known, int nknown);
/* The sampler's look at every Python thread (inject_pylook.c): walks each thread's frames, without
 * the GIL where it can, and writes one "sample ... py STATE" line per thread with Python frames.
 * write: false to only fill the code cache (--no-sample). Says in why (once) why it could not, and
 * returns false then. */
bool inject_py_sample_all(bool write, char *why, size_t len);
/* NULL where Python stacks can be read from a thread without the GIL (the frame layout of this
 * Python was checked), else why not in words; for the sampler line. */
const char *inject_py_mode(void);
/* NULL where the sampler's look reads Python threads without the GIL (or the frame layout
 * already says why not), else why it takes the GIL every period, in words; for the sampler line. */
const char *inject_py_look_mode(void);
/* Under the lock, at exit: the "samplestat" line (the looks without and with the GIL, the thread
 * samples left out), where the process had Python looks. */
void inject_py_write_stats(void);
/* The interpreter is finalising (Python's atexit ran): no GIL to take from here on. */
bool inject_py_stopping(void);

/* ---- inject_sites.c ---- */
/* Which share of the process's time a site is held to (inject_sites.c). */
typedef enum {
    SITE_SHARED,     /* the sites' 1%: launches, copies, memsets, syncs, a pool's allocation */
    SITE_ALLOCATION, /* any other allocation's: a share of their own, apart (inject_memory.c) */
    SITE_ALWAYS,     /* a failed allocation's: taken whatever it costs, charged to no share */
} site_budget;
/* Writes the calling thread's host stack as the site of the CUDA call correlation (the callback's
 * work; tests/host_probe.c calls it without a GPU) and returns its innermost node: 0 where none was
 * taken (paused, or past its budget's share of time). */
uint32_t inject_site_take(uint32_t correlation, site_budget budget);
/* Whether call sites are taken at all (not MMPROF_SITES=0 or =callbacks). */
bool inject_sites_taking(void);
/* At exit: the "sitestat TAKEN SKIPPED OFF_NS" line (sites taken, skipped to hold their cost, and
 * the time the sites' callbacks were off for it). */
void inject_sites_finish(void);
/* The sampler thread, every period: the sites' callbacks off while the process is over its share
 * of time for sites, on again once within it. */
void inject_sites_tick(int64_t now);
/* The cost benchmark's pause (MMPROF_AB_FILE): no site taken while paused, and the sites' own CUPTI
 * callbacks disabled, as with MMPROF_SITES=0; the sampler thread calls it. */
void inject_sites_pause(bool pause);

/* ---- inject_sampler.c ---- */
/* The sampler's own threads are not sampled: inject_sampler.c asks this of a tid. */
bool inject_host_own_thread(uint32_t tid);
/* The CPU-time timers' signals handled so far (tests/host_probe.c: a paused sampler's timers are
 * disarmed, so none come). */
uint64_t inject_sampler_signals(void);

#endif
