/* NVTX ranges and annotations grouped by name, as Nsight Systems' nvtx_sum lists them: how many
 * instances, their total, average, median, min, max and spread, with the GPU work inside and the
 * verdicts of the instances counted, so a loop of 40 identical steps reads as one line.
 *
 * A group is one kind (NVTX or annotation), domain and name. A trailing "#<digits>" is folded
 * ("ProfilerStep#12" joins "ProfilerStep#*"): PyTorch numbers its steps, and a step is a step. */
#ifndef MMPROF_RANGE_GROUPS_H
#define MMPROF_RANGE_GROUPS_H

#include "metric.h"
#include "model.h"
#include "regions.h"
#include "verdict.h"

#define RANGE_GROUP_NAME 128

typedef struct {
    char name[RANGE_GROUP_NAME]; /* the folded name */
    const char *domain;          /* NVTX domain, NULL for the default one (points into the model) */
    region_kind kind;
    int count;                   /* instances */
    int with_gpu;                /* instances with GPU work launched from inside or run during them */
    metric total_ms, share_pct;  /* summed wall time; that over every group's summed wall time */
    metric mean_ms, median_ms, min_ms, max_ms, stddev_ms; /* wall time of one instance */
    metric kernel_ms, copy_ms;   /* summed over instances, launched from inside (regions.h) */
    metric gpu_busy_ms;          /* summed over instances, executed during */
    metric busy_pct;             /* gpu_busy_ms over total_ms */
    int verdicts[VERDICT_COUNT]; /* instances per verdict */
    verdict_kind verdict;        /* the verdict most instances got (of equals, the worse-ranked first) */
    int worst;                   /* region index of the least busy instance (of equals, the longest) */
    int first;                   /* region index of its first instance */
} range_group;

/* Every NVTX range and annotation of the model grouped, by total time, longest first; false only
 * when memory ran out. rg: analyze_regions's figures, one per region. */
bool group_ranges(const run_model *m, const region_metrics *rg, range_group **out, int *nout);

/* The name a region is grouped under (a trailing "#<digits>" or " <digits>" folded to "#*", " *"), into buf. */
void range_group_name(const char *name, char *buf, size_t len);

#endif
