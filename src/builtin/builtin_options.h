/* What the built-in run is asked to do: sizes, workloads, sampling, host memory, seed, devices,
 * counters, cold L2, the watchdog, CUPTI and progress. The built-in run's own settings, so that
 * src/builtin needs nothing of the command line: `mmprof [options]` fills them from its parsed
 * options (src/cli/cli_builtin.c), and a test or another front end could fill them directly. */
#ifndef MMPROF_BUILTIN_OPTIONS_H
#define MMPROF_BUILTIN_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

#define MAX_SELECTED 32 /* workloads a run can name */

/* Which host memory the GPU workloads copy from and to: both kinds (each workload runs twice),
 * or one. */
typedef enum { HOSTMEM_BOTH = 0, HOSTMEM_PAGEABLE, HOSTMEM_PINNED } host_memory_opt;

typedef struct {
    int argc;                /* the command line, recorded in the run */
    char **argv;
    int n;                   /* the size, or a sweep's first */
    int sizes[MAX_SWEEP_SIZES]; /* a sweep's sizes, in run order; nsizes 0: the one size n */
    int nsizes;
    int repeat;              /* a fixed count of timed products; 0: sampled by noise */
    double max_noise_pct;    /* sampling stops at this relative noise... */
    double max_time_s;       /* ...or after this long, per workload and size */
    bool cold_l2;            /* flush the L2 before each timed launch */
    bool counters;           /* a hardware-counter pass after each GPU workload */
    host_memory_opt host_memory;
    bool seed_given;         /* seed is the inputs' seed; otherwise a fresh one */
    uint64_t seed;
    int device;              /* the GPU of a single-device run */
    bool all_devices;        /* a multi-GPU run on every GPU... */
    int devices[MAX_RUN_DEVICES]; /* ...or on these, in order; ndevices 0 (and not all): one GPU */
    int ndevices;
    const char *selected[MAX_SELECTED]; /* workload names, in table order; none: all */
    int nselected;
    bool require_gpu;        /* no usable GPU is a failure (BUILTIN_NO_GPU), not skipped workloads */
    bool no_cupti;           /* time with cudaEvents as if a profiler held CUPTI */
    int timeout_s;           /* the watchdog per workload, seconds; 0: none */
    bool progress;           /* a progress line on the run's error stream */
} builtin_options;

#endif
