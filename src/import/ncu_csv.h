/* Nsight Compute's CSV export read into launches: what the importer (`mmprof import FILE.csv`,
 * ncu_csv.c) and `mmprof report RUN --ncu FILE.csv` (ncu_attach.c) share. Other callers use
 * import.h and ncu_attach_file below. */
#ifndef MMPROF_NCU_CSV_H
#define MMPROF_NCU_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model.h"
#include "trace_input.h"

/* One profiled launch, a row of the raw page or the rows of one ID on the details page. */
typedef struct {
    long id;               /* ncu's "ID": the launches' order */
    kernel_counters k;     /* name: ncu's "Kernel Name" (owned); pid: "Process ID"; device:
                            * "Device" (the CUDA index; the importer makes it the run's) */
    int grid[3], block[3]; /* "Grid Size", "Block Size"; 0 where not given */
    int line;              /* where its first row is, for messages */
} ncu_launch;

typedef struct {
    bool details;           /* --page details (one row per metric), else --page raw */
    ncu_launch *launches;   /* by ID */
    size_t nlaunches;
    device_info *devices;   /* each "Device" index once, with what the raw page tells of it */
    int ndevices;
    process_info *processes; /* each "Process ID" once, named by "Process Name" */
    int nprocesses;
    int passes;             /* profiler__replayer_passes (raw page), 0: not given */
    /* Each counter left n/a because the file gives it in a unit not of its kind: the metric and
     * the unit (metric "" where none was). */
    struct {
        char metric[64], unit[24];
    } odd_unit[CTR_COUNT];
} ncu_csv;

/* Reads in into c (zeroed first); false with "NAME: line N: why" in err and c empty. */
bool ncu_csv_read(trace_input *in, ncu_csv *c, char *err, size_t errlen);
void ncu_csv_free(ncu_csv *c);
/* What c left n/a and why, as warnings of m ("FILE: ..."). */
void ncu_csv_warnings(const ncu_csv *c, const char *path, run_model *m);

/* ncu_attach.c: `mmprof report RUN --ncu FILE.csv`: reads path and gives each of its launches to
 * the kernel record of m of the same name and launch order (m->launch_counters), saying on msg
 * how many matched and which did not. false with the reason in err (the file cannot be read, m
 * is a built-in run or has counters of its own, no launch matched); m is then unchanged. */
bool ncu_attach_file(run_model *m, const char *path, FILE *msg, char *err, size_t errlen);

/* ncu_attach.c: a kernel's name as both tools can compare it: demangled where mangled, without
 * a leading "void ", spaces only between two words and const after the type it qualifies
 * ("scale(const float *, int)" and "scale(float const*, int)" are one key). Malloc'd; NULL when
 * memory ran out. */
char *ncu_kernel_key(const char *name);

#endif
