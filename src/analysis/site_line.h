/* The user's line of a CUDA call's site (host_activity.sites), the one place that says it: the
 * call-site table (call_sites.c) asks here, and so can anything else that names the line a call was
 * made from (the wall-time account's evidence, a launch's hover).
 *
 * A call's own stack names it where it holds a frame of the user's (host_where.h's rule). A thread
 * without Python frames has none: PyTorch's autograd thread runs the backward pass in C++ while the
 * Python main thread waits in loss.backward(), so its launches' stacks end in libtorch and cuBLAS
 * ("cublasLtMatrixTransform (libcublasLt.so.13)"), which tells the user nothing. Such a call, made
 * by a thread other than its process's main one (the thread of the process's own id where that has
 * Python samples or calls, else the one with most Python samples: the wall-time account's rule),
 * borrows the main thread's line at the call's start (where it waited while the other thread
 * worked), from, best first:
 * - the main thread's own CUDA call in progress then, where that call has a site with a user frame;
 * - its host span in progress then (a recorded sleep or collection, an import's python_function);
 * - its nearest Python wall-clock sample within SITE_LINE_PERIODS sampling periods of the start,
 *   taken while it waited (state S or D) outside a CUDA call of its own that the start is not in;
 *   of those in the same stretch of its time between CUDA calls as the start, else only where every
 *   one in reach names the same line.
 * Where none is found the call keeps its own stack's frame, as before.
 *
 * Why only waiting samples, and why the stretch: a 100 Hz sample can be 10 ms from the call, and a
 * running main thread passes several lines in that time. On an H200 recording of
 * examples/torch_train.py (40 steps of 2 ms; h200-profile-pair-train-1, not committed), the
 * nearest main-thread sample of any state named opt.step's or the forward's line for 375 of the
 * 850 launches of autograd's thread; the rule above names loss.backward()'s line for all 850. A
 * waiting sample inside another CUDA call of the main thread is a synchronisation's line, where
 * the main thread was not at the call; a waiting line in another stretch (past a CUDA call of the
 * main thread) may be another wait's (a data loader's queue), so those count only where they all
 * name one line. */
#ifndef MMPROF_SITE_LINE_H
#define MMPROF_SITE_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define SITE_LINE_PERIODS 2 /* a borrowed sample is at most this many sampling periods from the call */

typedef enum {
    SITE_LINE_OWN = 0,     /* the call's own stack (node -1: it names nothing) */
    SITE_LINE_MAIN_CALL,   /* borrowed: the main thread's CUDA call in progress at the call's start */
    SITE_LINE_MAIN_SPAN,   /* borrowed: the main thread's host span in progress then */
    SITE_LINE_MAIN_SAMPLE, /* borrowed: the main thread's waiting Python sample nearest then */
} site_line_from;

typedef struct {
    int node;            /* host_activity.frames index of the user's frame (host_user_node's rule), -1 none */
    site_line_from from; /* SITE_LINE_OWN, or where on the main thread node was borrowed */
    uint32_t tid;        /* the thread whose stack node is of (the main thread's where borrowed); 0 unknown */
} site_line;

typedef struct site_lines site_lines;

/* What site_line_of needs of m (its calls by correlation; the main thread of each process with a
 * site that may borrow, with that thread's calls, spans and samples), built once; NULL when memory
 * ran out. m must outlive it. */
site_lines *site_lines_build(const run_model *m);
void site_lines_free(site_lines *x);

/* The user's line of site s (one of m->host_activity.sites, or any with its pid, correlation and
 * frame): its own stack's user frame where that is the user's code, else the main thread's as
 * above, else its own stack's innermost named frame (node -1 where it has none). */
site_line site_line_of(const site_lines *x, const host_site *s);

/* The same for a call known by its thread and start (frame: its own stack's innermost node, -1
 * none recorded), for a caller that already holds the call's site and call, such as the wall-time
 * account's evidence (wall_account.c's call_evidence, where cause_of_stack finds no user frame in
 * the site's stack). It borrows in the processes site_lines_build chose, those with a site that
 * may: elsewhere it gives the call's own frame. */
site_line site_line_at(const site_lines *x, uint32_t pid, uint32_t tid, int64_t start_ns, int frame);

/* A line's words: "model.py:42 (forward)" (host_frame_name with its line), and for a borrowed one
 * "main thread at train.py:17 (train)": short, and the file and line come early, so a column
 * clipped at its end (the text's, 38 characters) still shows them. "" where node is -1. */
void site_line_words(const host_activity *h, site_line l, char *buf, size_t len);

#endif
