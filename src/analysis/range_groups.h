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
/* Distinct advice texts kept per group. */
#define RANGE_GROUP_ADVICE 4

typedef struct {
    int region; /* the first instance that got it (its region_metrics.advice is the text) */
    int count;  /* instances that got the same text */
} range_advice;

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
    /* Its instances, the steady state and the slowest, as the reports' group rows show them: */
    const int *members;          /* its instances' region indices, in timeline order (count of them;
                                  * points into analysis.group_members) */
    int median;                  /* region index of the median instance by wall time: of an even
                                  * count the shorter middle one, of equal lengths the earlier (the
                                  * account of the median instance, accounts.h, is this one's) */
    int longest;                 /* region index of the longest instance (of equal ones the later) */
    metric median_busy_pct;      /* the median of its instances' busy % */
    int listed;                  /* its instances among analysis.listed */
    /* The advice its instances got, each distinct text once with how many got it, most first (of
     * equal counts the earlier): a loop of 12 steps says "capture the launches in a CUDA graph"
     * once, "11 of 12". */
    range_advice advice[RANGE_GROUP_ADVICE];
    int nadvice;
    int advice_other;            /* instances whose advice is none of those listed */
    int by_time;                 /* GPU events of its instances attributed by time (regions.h) */
} range_group;

/* Every NVTX range and annotation of the model grouped, by total time, longest first; false only
 * when memory ran out. rg: analyze_regions's figures, one per region. *members (one allocation,
 * the caller frees it) holds every group's instances; group_of (m->nregions of them, or NULL)
 * gets each region's group index, -1 for none. */
bool group_ranges(const run_model *m, const region_metrics *rg, range_group **out, int *nout, int **members,
                  int *group_of);

/* Counts each group's instances among the listed regions (listed: region indices). */
void range_groups_count_listed(range_group *g, int ng, const int *group_of, const int *listed, int nlisted);

/* A group row shows a group of at least two instances with one of them listed. */
#define RANGE_GROUP_SHOWN(g) ((g)->count >= 2 && (g)->listed > 0)

struct analysis;
/* The group a listed region is an instance of, where the reports show its group's row instead of
 * the instance's (RANGE_GROUP_SHOWN); NULL for a range that occurs once or is not grouped. The
 * group's index into analysis.groups in *gi when gi is not NULL. */
const range_group *range_group_shown(const struct analysis *a, int region, int *gi);
/* Whether listed region li (an index into analysis.listed) is the first listed instance of its
 * shown group: where the reports put the group's row. */
bool range_group_first_listed(const struct analysis *a, int li);

/* How a report names an instance of group g: its own name where it differs from the group's
 * ("step 0" of "step *"), else its place among the instances in timeline order ("#3"). */
void range_instance_label(const run_model *m, const range_group *g, int region, char *buf, size_t len);

/* The name a region is grouped under (a trailing "#<digits>" or " <digits>" folded to "#*", " *"), into buf. */
void range_group_name(const char *name, char *buf, size_t len);

#endif
