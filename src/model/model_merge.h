/* Several runs into one: the files of a distributed job's ranks (`mmprof report run.*.json`).
 *
 * Clocks: a run file keeps times relative to its epoch, and the epoch on the host's
 * CLOCK_REALTIME (CUPTI's timestamps are on that clock on Linux), so in memory every event is
 * already on its host's wall clock and files from one host line up exactly. Files from different
 * hosts line up only as well as the hosts' clocks agree (NTP: typically within a millisecond; PTP:
 * microseconds); the merge says so, and the rank analysis measures what it can (how far apart
 * the ranks end the same collective). */
#ifndef MMPROF_MODEL_MERGE_H
#define MMPROF_MODEL_MERGE_H

#include <stddef.h>

#include "model.h"

#define MERGE_HOST_LEN 64

/* What the merge has seen so far. */
typedef struct {
    int nfiles;
    char (*dev_host)[MERGE_HOST_LEN]; /* the host of each of dst's devices */
    int ndev_host;
    char (*hosts)[MERGE_HOST_LEN];    /* distinct hosts, in file order */
    int nhosts;
    int64_t first_epoch, last_epoch;
    int remapped_pids;                /* processes renumbered because the pid was taken */
} merge_state;

/* Starts a merge into dst (the first file's run). False when memory ran out. */
bool model_merge_begin(merge_state *s, run_model *dst);

/* Moves src's events, regions, processes, threads, devices and warnings into dst; src is left
 * without them (model_free it). Devices are the same when host and PCI bus id are; a pid already
 * taken by another host's process is renumbered. label names src in messages (its file). False
 * with a reason in err when src cannot join (a built-in run: its workloads own the events) or
 * memory ran out. */
bool model_merge(merge_state *s, run_model *dst, run_model *src, const char *label, char *err, size_t errlen);

/* After the last merge: the run region spans every file, and a warning says how many files and
 * hosts were merged and how their clocks were aligned. Frees s. False when memory ran out. */
bool model_merge_finish(merge_state *s, run_model *dst);

/* The host a run was recorded on: its first process's with one, else "". */
const char *model_run_host(const run_model *m);

#endif
