/* Every threshold a verdict, a piece of advice or a mark in a report rests on, named once.
 *
 * They are judgement, not measurement: each says where the line is drawn and why, so a report's
 * wording can be traced to one number here, and changing one changes every output alike. */
#ifndef MMPROF_THRESHOLDS_H
#define MMPROF_THRESHOLDS_H

/* The GPU is "idle" for a span when kernels, copies and memsets cover less than this share of it:
 * below it, the time the GPU waits is the larger part of the story than what it ran. */
#define IDLE_BUSY_PCT 60.0

/* A kernel shorter than this is dominated by its launch (a launch call takes 2-10 us). */
#define SHORT_KERNEL_NS 10000

/* Launch-bound needs at least this many kernels: fewer say nothing about a launch rate. */
#define MIN_LAUNCH_BOUND_KERNELS 3
/* ... and at least this share of them short (or a launch call lasting longer than a kernel). */
#define SHORT_KERNEL_SHARE_PCT 50.0

/* Sync-bound when the host waits in synchronization for more than this share of the wall time. */
#define SYNC_WALL_SHARE 0.5

/* Copies move "small" amounts below this: each copy's fixed cost (several us) then dominates,
 * and batching them helps more than pinning. */
#define SMALL_COPY_BYTES (64 * 1024)

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

#endif
