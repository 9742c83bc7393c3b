/* Which line launched each kernel: run_model.host_activity's call sites (the host stack at a CUDA
 * call, by process and correlation id) joined to the GPU work of the same correlation (a kernel,
 * copy or memset; else the call itself: a synchronization, an allocation) and aggregated per
 * target: "gemm: launched from model.py:42 (forward) 95%, model.py:60 (backward) 5%".
 *
 * A site is named by the user's line of its stack (host_where.h's rule: the innermost frame of the
 * user's own code, else the innermost named one), so a launch through PyTorch's dispatcher is told
 * by the model's line, not by the library frame that made the call; a call of a thread without a
 * user frame (PyTorch's autograd thread) by the main thread's line then, "main thread at
 * train.py:17 (train)" (site_line.h). */
#ifndef MMPROF_CALL_SITES_H
#define MMPROF_CALL_SITES_H

#include "host_where.h"
#include "metric.h"
#include "model.h"
#include "site_line.h"

#define CALL_SITES_TOP 3 /* sites named per target */

typedef struct {
    char at[HOST_NAME]; /* "model.py:42 (forward)" */
    metric count;       /* calls of the target from it */
    metric share_pct;   /* of the target's calls with a site */
} call_site;

typedef struct {
    char kind[8];       /* "kernel", "copy", "memset", "call" */
    char name[128];     /* a kernel's readable name; a copy's "HtoD pageable"; a call's name */
    int calls;          /* of the target with a recorded site */
    call_site sites[CALL_SITES_TOP]; /* most calls first */
    int nsites;
    int other_sites;    /* further sites, not listed */
} call_site_row;

/* Every target with a site, each site named by lines (site_lines_build(m)'s), most calls first;
 * *out NULL and *nout 0 when the run has no sites. *work gets the run's GPU work (kernels, copies,
 * memsets) and *sited how much of it was launched by a call with a site (any stack): call sites
 * are held to their cost, so they may be a sample. False only when memory ran out. */
bool call_sites_analyze(const run_model *m, const site_lines *lines, call_site_row **out, int *nout, size_t *work,
                        size_t *sited);

#endif
