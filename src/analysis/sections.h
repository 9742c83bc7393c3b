/* The sections a report is made of, named once: their key (the HTML anchor and navigation target),
 * heading and navigation label, and when each is shown. Every renderer walks its own order of
 * these ids and shows a section only when section_shown says its data exists: a profiled
 * program's page has no built-in sections (no ladder, no workloads) and says nothing about them,
 * an import has no host, a run without --counters no counters section. */
#ifndef MMPROF_SECTIONS_H
#define MMPROF_SECTIONS_H

#include <stdbool.h>

struct analysis;

typedef enum {
    SEC_FINDINGS = 0, /* the summary: what to read first (always) */
    SEC_SWEEP,        /* a run of several sizes: where the GPU pays off */
    SEC_DEVICES,      /* a --devices run: each GPU alone and together, the peer matrix */
    SEC_LADDER,       /* built-in GPU workloads against cuBLAS, with occupancy */
    SEC_COUNTERS,     /* hardware counters: a built-in run's --counters, or profile --counters */
    SEC_COPIES,       /* built-in: copy versus compute per product */
    SEC_TIMELINE,     /* built-in: each workload's span and one product */
    SEC_REGIONS,      /* the run and its regions (every source) */
    SEC_RANKS,        /* a job of several ranks or GPU processes */
    SEC_WORKLOADS,    /* built-in: the workloads' per-product table */
    SEC_SPEEDUP,      /* built-in: GPU workloads against the CPU */
    SEC_KERNELS,      /* built-in: one row per kernel per workload */
    SEC_TOOL_TIME,    /* built-in: where mmprof's own time went */
    SEC_WARNINGS,     /* the run's and analysis's warnings */
    SEC_CAPTURE,      /* profile's capture windows: why each opened and closed, what lies outside */
    SEC_CALL_SITES,   /* the lines each kernel, copy and call was made from (host call sites) */
    SEC_ACCOUNT,      /* where the wall-clock time went: every instant in one state (accounts.h) */
    SEC_MEMORY,       /* GPU memory: peaks and who held them, never freed, ranges, failed allocations */
    NSECTIONS
} section_id;

typedef struct {
    section_id id;
    const char *key;   /* "ladder": anchor and JSON-style name */
    const char *title; /* the heading */
    const char *nav;   /* the navigation entry's words */
} section_def;

const section_def *section_of(section_id s);

/* What a region's kernel time, GPU span and busy are, said beside every table that shows them
 * together (a step of 1.4 ms may queue 15 ms of kernels: its kernel time exceeds its wall while
 * its busy is that of the GPU during its own wall). */
#define REGION_ATTRIBUTION                                                                                    \
    "kernels and copies belong to the range whose thread launched them, even when they run after it "       \
    "(their GPU span); busy is the GPU during the range"
/* Whether the analysis has what section s shows. */
bool section_shown(const struct analysis *a, section_id s);

#endif
