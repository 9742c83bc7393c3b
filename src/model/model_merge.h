/* Several runs into one: the files of a distributed job's ranks (`mmprof report run.*.json`).
 *
 * Clocks: a run file keeps times relative to its epoch, and the epoch on the host's
 * CLOCK_REALTIME (CUPTI's timestamps are on that clock on Linux), so in memory every event is
 * already on its host's wall clock and files from one host line up exactly. Files from different
 * hosts line up only as well as the hosts' clocks agree (NTP: typically within a millisecond; PTP:
 * microseconds); the merge says so, and the rank analysis measures what it can (how far apart
 * the ranks end the same collective). Files that are not parts of one job are refused. */
#ifndef MMPROF_MODEL_MERGE_H
#define MMPROF_MODEL_MERGE_H

#include <stddef.h>

#include "model.h"

#define MERGE_HOST_LEN 64

/* What one merged file was, to tell whether the next belongs to the same job. */
typedef struct {
    char label[256];    /* its path, for messages */
    run_source source;
    bool ranked;        /* a process of it has a rank (distributedInfo, the launcher's variables) */
    int world_size;     /* -1 when not known */
    char host[MERGE_HOST_LEN];
    int64_t start_ns, end_ns; /* its run region */
} merge_file;

/* What the merge has seen so far. */
typedef struct {
    int nfiles;
    merge_file *files;                /* each file merged, in order */
    int *ranks;                       /* every rank of every file so far */
    int nranks;
    char (*dev_host)[MERGE_HOST_LEN]; /* the host of each of dst's devices */
    int ndev_host;
    char (*hosts)[MERGE_HOST_LEN];    /* distinct hosts, in file order */
    int nhosts;
    int64_t first_epoch, last_epoch;
    int remapped_pids;                /* processes renumbered because the pid was taken */
} merge_state;

/* Starts a merge into dst (the first file's run, label its path). False when memory ran out. */
bool model_merge_begin(merge_state *s, run_model *dst, const char *label);

/* Moves src's events, regions, processes, threads, devices, warnings, host activity and memory into dst; src is left
 * without them (model_free it). Devices are the same when host and PCI bus id are; a pid already
 * taken by another host's process is renumbered. label names src in messages (its file). False
 * with a reason in err when src cannot join or memory ran out. Files join when they are parts
 * of one job: of one kind (profile runs, Kineto traces or nsys exports; no built-in run), and
 * either all ranks of it (every file names ranks, none names a rank another file has, the world
 * sizes agree) or, where none names a rank, on one host (where known) and running at the same
 * time (each file's span overlaps those before it). Otherwise they are refused with the files
 * named: traces of different programs or hosts would make one meaningless run. */
bool model_merge(merge_state *s, run_model *dst, run_model *src, const char *label, char *err, size_t errlen);

/* After the last merge: the run region spans every file, and a warning says how many files and
 * hosts were merged and how their clocks were aligned. Frees s. False when memory ran out. */
bool model_merge_finish(merge_state *s, run_model *dst);

/* The host a run was recorded on: its first process's with one, else "". */
const char *model_run_host(const run_model *m);

#endif
