/* Where the host was during a stretch of time, from run_model.host_activity: the host samples
 * (Python wall-clock looks and CPU-time samples, two sources told apart, since a wall-clock look
 * sees a sleeping thread and a CPU sample never does) or, for an import, the CPU spans it recorded
 * (Kineto's cpu_op and python_function, nsys's OS runtime calls), weighted by the time each was
 * the innermost span of its thread.
 *
 * One view per source and window, of the thread with most of it (a wall-clock sampler looks at
 * every thread, and a pool of threads parked in a wait would otherwise outvote the one that kept
 * the GPU waiting): its frames as three answers:
 * - hot: the deepest named frame of the call tree on more than HOST_HOT_PCT of its stacks ("numba.core.
 *   compiler (compile_extra) 87%"): what the thread was doing, as specific as the samples allow;
 * - top: the innermost named frames by share (self time, as a profiler's flat view);
 * - user: "the user's line" (host_user_frame): the line of the program that led there.
 *
 * host_where_index sorts the samples and spans once; each view is then found by binary search. */
#ifndef MMPROF_HOST_WHERE_H
#define MMPROF_HOST_WHERE_H

#include <stdbool.h>
#include <stdint.h>

#include "metric.h"
#include "model.h"

/* A view's source. */
typedef enum { HOST_FROM_PY = 0, HOST_FROM_CPU = 1, HOST_FROM_SPANS = 2, HOST_NFROM } host_from;
/* "Python wall-clock samples", "CPU samples", "recorded CPU spans": the words a report uses. */
const char *host_from_label(host_from f);
const char *host_from_key(host_from f); /* "py", "cpu", "spans": JSON and CSV */

#define HOST_TOP 3        /* innermost frames named per view */
#define HOST_HOT_PCT 50.0 /* the hot frame is on more than this share of the stacks */
#define HOST_NAME 160

/* One frame (or line) of a view with its part of the view. */
typedef struct {
    char name[HOST_NAME]; /* "numba.core.compiler (compile_extra)", "prog.py:12 (main)", "" none */
    bool user;            /* the user's own code (host_user_frame's rule) */
    metric share_pct;     /* of the view's samples (or span time) */
    metric samples;       /* how many samples (n/a for spans) */
    metric ms;            /* span time (n/a for samples) */
} host_fn;

typedef struct {
    bool any;             /* false: nothing of this source in the window */
    host_from from;
    uint32_t pid, tid;    /* the thread the view is of */
    int threads;          /* threads with samples (or spans) of this source in the window */
    metric samples;       /* the thread's samples in the window (n/a for spans) */
    metric ms;            /* spans: the time its spans cover in the window (n/a for samples) */
    metric waiting_pct;   /* of its samples, those with the thread asleep or waiting (state S or D) */
    metric running_pct;   /* Python samples: the thread's CPU samples in the window over its wall-clock
                           * ones (both at the sampler's rate: about its CPU use), which overrules a
                           * state read as waiting (a thread waiting for the GIL the sampler holds) */
    host_fn hot, user;
    host_fn top[HOST_TOP];
    int ntop;
} host_view;

/* A frame's words: a Python frame in a library as its module and function ("numba.core.compiler
 * (compile_extra)"), one in the user's code, and a native frame with a source line, as
 * "prog.py:12 (main)"; other native frames as "function (module)". */
void host_frame_name(const host_frame *f, bool with_line, char *buf, size_t len);
/* A library file's module: the path after site-packages/, dist-packages/ or lib/pythonX.Y/,
 * without ".py" and "/__init__", with dots for slashes ("numba.core.compiler"); a file elsewhere
 * by its name. */
void host_module_name(const char *file, char *buf, size_t len);
/* Whether a frame is the user's own code: a Python frame whose file is not in the Python
 * installation (".../lib/pythonX.Y/"), site-packages or dist-packages, nor "<frozen ...>"; a
 * native frame with a source file and line outside /usr/, in a module outside /usr/, /lib/,
 * /lib64/, site-packages and dist-packages. */
bool host_user_frame(const host_frame *f);

/* The user's frame of the stack whose innermost node is node: the innermost frame of the user's
 * own code, else the innermost frame with a name; -1 when none. */
int host_user_node(const host_activity *h, int node);

/* Where node's code is inlined into a function of the user's own code: the node naming that
 * function at its line of the call (host_frame.outer), else -1. How a line of the user's survives
 * a frame that is passed over (nvcc's launch stub, inlined into the launching function). */
int host_outer_node(const host_activity *h, int node);

/* The call sites sorted by process and correlation id (to free; NULL when there are none or memory
 * ran out), and the one of a call in them (NULL: none): how a renderer finds a launch's site. */
const host_site **host_sites_sorted(const host_activity *h);
const host_site *host_site_find(const host_site *const *sorted, size_t n, uint32_t pid, uint32_t corr);

typedef struct host_where_index host_where_index;
host_where_index *host_where_build(const host_activity *h); /* NULL when memory ran out */
void host_where_index_free(host_where_index *x);

/* keep(ctx, ts): whether a sample at ts counts (NULL: every one in the window). */
typedef bool (*host_keep_fn)(const void *ctx, int64_t ts);

/* The view of source f over [start, end) (out->any false when nothing); false only when memory
 * ran out. Spans ignore keep. */
bool host_view_of(const host_where_index *x, host_from f, int64_t start, int64_t end, host_keep_fn keep,
                  const void *ctx, host_view *out);

/* The view a sentence names, of those of one window: Python samples first (they see waiting too),
 * then CPU samples, then spans; NULL when none has anything. */
const host_view *host_view_headline(const host_view v[HOST_NFROM]);
/* Whether a view says the thread mostly slept or waited: waiting_pct HOST_HOT_PCT or more, unless
 * its CPU samples say it ran (running_pct HOST_HOT_PCT or more). */
bool host_view_waited(const host_view *v);
/* "in numba.core.compiler (compile_extra) 87% of 900 Python wall-clock samples, from prog.py:30
 * (main)"; for a view that waited, "slept/waited in prog.py:12 (main) 95% of 500 Python
 * wall-clock samples". */
void host_view_words(const host_view *v, char *buf, size_t len);
/* Why a window has no host view: "sampling off (--no-sample)", "no host samples in it", or ""
 * where the run never carried host activity (a built-in run, an import without CPU events). */
void host_none_words(const host_activity *h, char *buf, size_t len);

#endif
