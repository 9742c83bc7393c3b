/* What the command line asked for (cli_options), with the exit statuses and limits every part of
 * the CLI shares. Types only: cli.c fills it, its option helpers (cli_capture.c, cli_devices.c,
 * cli_sweep.c) check parts of it, and main.c reads it. */
#ifndef MMPROF_CLI_OPTIONS_H
#define MMPROF_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "builtin_options.h"
#include "capture_config.h"
#include "model.h"
#include "outputs.h"

/* Exit statuses, documented in --help and README.md. */
enum {
    EXIT_OK = 0,
    EXIT_WORKLOAD_FAILED = 1, /* a workload failed verification or a CUDA call failed */
    EXIT_USAGE = 2,           /* bad option, size, workload or run file */
    EXIT_NO_GPU = 3,          /* --require-gpu and no usable GPU */
    EXIT_OUTPUT = 4,          /* an output file could not be written */
    /* `mmprof profile` exits with the program's own status; these are its own failures, numbered
     * as env(1) and the shells number them. */
    EXIT_PROFILE_FAILED = 125, /* profile: the injection library or the records directory failed */
    EXIT_CANNOT_EXEC = 126,    /* profile: CMD was found but could not be run */
    EXIT_NOT_FOUND = 127,      /* profile: CMD was not found */
};

#define MAX_SIZE 1000000
#define MAX_REPEAT_OPT 100000
#define DEFAULT_TIMEOUT_S 600
#define MAX_TIMEOUT_S 604800 /* a week */

typedef enum { COLOR_AUTO = 0, COLOR_ALWAYS, COLOR_NEVER } color_mode;

typedef struct {
    bool report_mode;        /* `mmprof report RUN.json` or `mmprof import TRACE` */
    bool import_mode;        /* `mmprof import TRACE`: run_file is another tool's timeline */
    const char *run_file;    /* its RUN.json or TRACE */
    char **more_files;       /* report/import of several files (the ranks of one job): the rest,
                              * merged into run_file's run (points into argv) */
    int nmore_files;
    int n;                   /* the size, or a sweep's first */
    int sizes[MAX_SWEEP_SIZES]; /* --sizes with two or more sizes, in run order */
    int nsizes;
    int repeat;              /* 0: sampled by noise */
    double max_noise_pct;    /* --max-noise (default 0.5) */
    double max_time_s;       /* --max-time per workload and size (default 0.5) */
    bool cold_l2;            /* --cold-l2 */
    bool counters;           /* --counters: a hardware-counter pass after each GPU workload, or in
                              * profile the chosen launches replayed under the counters */
    const char *counter_kernels; /* profile --kernels REGEX: the kernels --counters profiles; NULL: all */
    long counter_max;        /* profile --max-kernels N: at most N launches; 0: no limit */
    host_memory_opt host_memory;
    bool seed_given;
    uint64_t seed;
    int device;
    bool all_devices;        /* --devices all */
    int devices[MAX_RUN_DEVICES]; /* --devices LIST, in order; ndevices 0 (and not all): one GPU */
    int ndevices;
    const char *selected[MAX_SELECTED]; /* workload names, in table order; none: all */
    int nselected;
    bool require_gpu;
    bool no_cupti;
    int timeout_s;           /* watchdog per workload, seconds; 0: none */
    bool quiet;
    color_mode color;
    const char *out_path[OUTPUTS_MAX]; /* each output's FILE, by its row of outputs[] (outputs.h); NULL: not asked */
    bool profile_mode;       /* `mmprof profile [OPTIONS] [--] CMD [ARGS...]` */
    char **command;          /* its CMD and ARGS, NULL-terminated (points into argv) */
    capture_config capture;  /* profile --delay/--duration/--capture-range/--capture-count/--capture-skip */
    double sample_hz;        /* profile --sample-rate HZ (0: --no-sample; default SAMPLE_DEFAULT_HZ) */
    bool no_memory;          /* profile --no-memory: no GPU memory collection (MMPROF_MEMORY=0) */
    const char *db;          /* --db DB: store the run in a database (SQLite file or postgresql:// URL) */
    const char *ncu_file;    /* --ncu FILE: Nsight Compute's CSV export, its counters given to the run's
                              * kernels (report, import, profile; src/import/ncu_csv.h) */
} cli_options;

typedef struct {
    const char *delay, *duration, *range, *count, *skip, *max_size;
} capture_args;

#define DEFAULT_MAX_NOISE_PCT 0.5
#define DEFAULT_MAX_TIME_S 0.1

#endif
