/* Every threshold a verdict, a piece of advice or a mark in a report rests on, named once.
 *
 * They are judgement, not measurement: each says where the line is drawn and why, so a report's
 * wording can be traced to one number here, and changing one changes every output alike. */
#ifndef MMPROF_THRESHOLDS_H
#define MMPROF_THRESHOLDS_H

/* The GPU is "idle" for a span when kernels, copies and memsets cover less than this share of it:
 * below it, the time the GPU waits is the larger part of the story than what it ran. */
#define IDLE_BUSY_PCT 60.0

/* A kernel shorter than this is dominated by its launch (a launch call takes 2-10 us). The
 * sentences that name it say it in these words. */
#define SHORT_KERNEL_NS 10000
#define SHORT_KERNEL_WORDS "10 us"

/* Launch-bound needs at least this many kernels: fewer say nothing about a launch rate. */
#define MIN_LAUNCH_BOUND_KERNELS 3
/* ... and at least this share of them short (or a launch call lasting longer than a kernel). */
#define SHORT_KERNEL_SHARE_PCT 50.0

/* Sync-bound when the host waits in synchronization for more than this share of the wall time. */
#define SYNC_WALL_SHARE 0.5

/* Copies move "small" amounts below this: each copy's fixed cost (several us) then dominates,
 * and batching them helps more than pinning. */
#define SMALL_COPY_BYTES (64 * 1024)
#define SMALL_COPY_WORDS "64 KB"

/* Pageable memory is the cause worth naming when it carries more than this share of copy time. */
#define PAGEABLE_COPY_SHARE 0.5

/* Copies already overlap compute when kernels run during at least this share of their time: the
 * advice to put them on another stream would then not help. */
#define HIDDEN_COPY_PCT 50.0

/* A kernel within this of the library (cuBLAS), in %, is "as fast"; beyond 100 + this, faster. */
#define LIBRARY_TIE_PCT 2.5

/* A hardware unit this close to its peak (% of speed of light) is what limits a kernel; below it
 * on every unit the kernel waits on latency. Nsight Compute's speed-of-light guidance uses 60%. */
#define BOUND_PCT 60.0

/* An idle stretch of a GPU is listed with its cause when it lasts this long or more (and the
 * IDLE_GAP_ALWAYS longest are listed whatever their size): below a millisecond a stretch is one
 * launch or copy's worth of waiting, and the breakdown counts it without naming it. */
#define IDLE_GAP_LIST_NS 1000000LL
#define IDLE_GAP_ALWAYS 5

/* A stretch between GPU work no longer than this is the launch path's own latency (a launch
 * call takes 2-10 us): "between kernels" in the idle breakdown, as HTA's kernel wait. */
#define IDLE_BETWEEN_KERNELS_NS 10000LL

/* A process's first runtime call lasting this long, before any explicit context call, is where
 * the runtime created its context (tens to hundreds of ms on a large GPU; a cudaMalloc alone is
 * well under this). */
#define IDLE_LAZY_CONTEXT_NS 10000000LL

/* An idle stretch is "mostly" one cause, and the verdict's advice names that cause, when the
 * cause covers at least this share of it. */
#define IDLE_CAUSE_SHARE_PCT 50.0

/* A wall-time account names its largest group of states (cause_table.h) as the verdict only when
 * that holds at least this share of the wall: below it the time is spread over several causes, and
 * the verdict says "mixed" and lists them rather than crown one. A quarter: copies holding less of
 * the wall than that are not what bounds it. Launch overhead must also hold ACCOUNT_SIDE_PCT of
 * the idle time: launches keep the GPU waiting only where nothing else does more. */
#define ACCOUNT_VERDICT_PCT 25.0
#define ACCOUNT_SIDE_PCT 50.0

/* A state's evidence is worth quoting the host's wait on the GPU (a synchronising call) when the
 * host waited for at least this share of the state's time. */
#define ACCOUNT_WAIT_PCT 50.0

/* A verdict lists the states after the one it names ("then ...") where they hold at least this
 * share of the wall: below it they are the noise of launch latency and short calls. */
#define ACCOUNT_THEN_PCT 1.0

/* A GPU state's host wait is named (the text's and the page's "the host waited N%") where the
 * host waited at least this share of the state's time: below it the share reads 0%. */
#define ACCOUNT_WAIT_SHOWN_PCT 0.5

/* Call sites cover all of the GPU work where their share (host_collection's sites_pct, one
 * decimal) reads 100.0%: below this the reports say "for N% of the GPU work". */
#define SITES_ALL_PCT 99.95

/* A range without GPU work is listed (with its account of where the time went) where it lasts at
 * least this share of the run: a long "load data" or "compile" range is what a reader asks about;
 * the dozens of short compiler annotations of a torch.compile trace stay counted, not listed. */
#define REGION_LIST_NO_GPU_PCT 10.0

#endif
