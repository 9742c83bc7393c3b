/* One verdict for any span of GPU work: a region of any timeline (the whole run, an NVTX range, a
 * PyTorch annotation) and a built-in workload's product alike. The figures differ (a region's
 * summed times, a product's per-product ones); the rules and the words are these, once.
 *
 * Copy-bound when copies outlast kernels; otherwise, when the GPU was busy less than
 * IDLE_BUSY_PCT of the span, the cause is named: launches when most kernels are short or a launch
 * call takes longer than a kernel runs, synchronization when the host waited for most of the span,
 * idle otherwise; else compute-bound. Each verdict comes with the figure that decided it and one
 * line of advice. Thresholds: thresholds.h. */
#ifndef MMPROF_VERDICT_H
#define MMPROF_VERDICT_H

#include "idle_causes.h"
#include "intervals.h" /* idle_gap */
#include "metric.h"
#include "model.h"

typedef enum {
    VERDICT_NONE = 0,   /* not judged (a CPU workload, one that did not complete): text says why */
    VERDICT_NO_GPU,     /* no GPU work in the span */
    VERDICT_COPY_BOUND, /* copies take longer than the kernels */
    VERDICT_LAUNCH_BOUND, /* many short kernels: the GPU waits for launches */
    VERDICT_SYNC_BOUND, /* the host spends the span waiting in synchronization */
    VERDICT_IDLE,       /* the GPU sits idle for most of the span */
    VERDICT_COMPUTE_BOUND,
    /* A wall-time account's largest state's group (judge_account; cause_table.h's groups) */
    VERDICT_COMM_BOUND,
    VERDICT_MEMSET_BOUND,
    VERDICT_INPUT_BOUND,
    VERDICT_COMPILE_BOUND,
    VERDICT_IMPORT_BOUND,
    VERDICT_START_UP,
    VERDICT_ALLOC_BOUND,
    VERDICT_IO_BOUND,
    VERDICT_SLEEPING,
    VERDICT_LOCK_BOUND,
    VERDICT_GC_BOUND,
    VERDICT_HOST_BOUND,
    VERDICT_MMPROF,
    VERDICT_API_BOUND,
    VERDICT_UNRECORDED,
    VERDICT_MIXED,      /* no state holds enough of the wall to name one */
    VERDICT_COUNT
} verdict_kind;

/* Copies of one direction whose host side is one memory kind, or the memsets of one memory kind
 * (memset: dir is COPY_OTHER, host the memory set). */
typedef struct {
    bool memset;
    copy_dir dir;
    mem_kind host;    /* the host side (pageable, pinned, ...); MEM_DEVICE for device-to-device */
    int count;
    metric bytes, ms, gbps;
    metric mean_bytes; /* per copy: small copies are a reason to batch */
    metric mean_ms, min_ms, median_ms, max_ms, stddev_ms; /* per copy */
    metric hidden_pct; /* of ms, the part a kernel ran on the same GPU during (overlap.h) */
} copy_flow;

/* What a span is judged on. Times in ms; figures not measured stay n/a (metric_na). */
typedef struct {
    const char *per;          /* "per product" where the times are one product's, else NULL */
    int gpu_events;           /* kernels, copies and memsets in the span */
    metric kernel_ms, copy_ms;
    metric busy_pct, wall_ms, largest_gap_ms;
    metric lead_idle_ms;      /* before the first GPU work of the span (n/a: not told apart) */
    const char *gap_where;    /* where the largest gap fell ("copy-out"), or NULL */
    const idle_explained *idle_why; /* what the host did during the stretch the idle verdict names
                                     * (idle_causes.h), or NULL where not known */
    int nkernels;
    metric short_kernel_pct, launch_us, kernel_us, sync_ms;
    const copy_flow *flows;   /* for the copy advice (pinned or pageable, small copies); memset rows
                               * among them are not copies and are passed over */
    metric copy_hidden_pct;   /* of copy time, the part kernels ran during (n/a: not measured) */
    int nflows;
    metric top_kernel_share_pct; /* of kernel time, the kernel that takes most */
    metric tflops, peak_pct;  /* a product's, where known */
    const char *peak_name;    /* the peak peak_pct is of ("FP32", "TF32"); NULL: "FP32" */
} verdict_input;

#define VERDICT_TEXT 512

typedef struct {
    verdict_kind kind;
    char text[VERDICT_TEXT];   /* the verdict with the figure that decided it */
    char advice[VERDICT_TEXT]; /* one line: what to try ("" where there is nothing to say) */
} verdict;

void judge(const verdict_input *in, verdict *out);
/* A span that is not judged, and why. */
void not_judged(verdict *out, const char *why);

/* "none", "no-gpu", "copy-bound", "launch-bound", "sync-bound", "idle", "compute-bound",
 * "communication-bound", "input-bound", ... "mixed". */
const char *verdict_name(verdict_kind v);

/* What a span's wall-time account (accounts.h) is judged on: its states with time, largest first,
 * and for the advice the span's top kernel and copies. */
struct account_row;
struct host_cause_row;
typedef struct {
    const struct account_row *rows;
    int nrows;
    const struct host_cause_row *causes; /* the host's view (accounts.h), largest first */
    int ncauses;
    metric wall_ms;
    const char *of;             /* what the shares are of: "the wall", "the median step" */
    const char *top_kernel;     /* the kernel with most of the span's kernel time (readable), NULL none */
    metric top_kernel_share_pct;
    const copy_flow *flows;     /* the span's copies, for the copy advice */
    int nflows;
    metric copy_hidden_pct;
} account_input;

/* The verdict of an account: its largest group of states (cause_table.h) where that holds at least
 * ACCOUNT_VERDICT_PCT of the wall (launch overhead: and ACCOUNT_SIDE_PCT of the idle time), else
 * mixed; the text names the state, its share, its evidence and the next states, the advice comes
 * from the cause that holds it. *decided: the share of the wall that decided it. */
void judge_account(const account_input *in, verdict *out, metric *decided);

#endif
