/* The summary: what a reader should know about a run before any table, as a short list of
 * findings, each a sentence with the one figure that decides it, heaviest first.
 *
 * Analysis writes it (summarize, called by analyze) and every renderer shows it first: the text
 * report opens with it, the HTML page puts it on its first screen, JSON has it as "summary", CSV
 * leaves it out (CSV is for the figures). Renderers print the sentences as they are. */
#ifndef MMPROF_SUMMARY_H
#define MMPROF_SUMMARY_H

#include "metric.h"

#define FINDING_TEXT 1024

/* What a finding is about; its key in JSON. */
typedef enum {
    FIND_FAILED = 0,     /* workloads that failed verification or a CUDA call */
    FIND_NO_GPU,         /* GPU work could not run */
    FIND_COPY_BOUND,     /* how many GPU runs copies bound, and by how much */
    FIND_PINNED,         /* pinned against pageable host memory */
    FIND_BEST_KERNEL,    /* the best own kernel against the library, per precision */
    FIND_CROSSOVER,      /* the kernel time below which copies bound a product */
    FIND_SPEEDUP,        /* the fastest GPU product against the CPU */
    FIND_BUSY,           /* GPU busy over the run */
    FIND_VERDICT,        /* a timeline's verdict and its advice */
    FIND_GPU_TIME,       /* where a timeline's GPU time went: kernels, copies, memsets */
    FIND_TOP_KERNEL,     /* the kernel that takes most of it */
    FIND_REGION,         /* a region whose verdict differs from the run's */
    FIND_SWEEP,          /* a sweep's answer: from which size the GPU pays off */
    FIND_COUNTERS,       /* what the hardware counters say bounds the kernel that matters most */
    FIND_LAUNCHED_FROM,  /* the line that launched the top kernel (call sites) */
    FIND_STEPS,          /* the steps' steady state (their median instance) and their longest */
    FIND_BEFORE_STEPS,   /* where the time before the first step went (start-up, imports, compiling) */
    FIND_OUT_OF_MEMORY,  /* a failed allocation, with what was live then (memory.h) */
    FIND_MEMORY_LEAK,    /* memory left live by about the same amount every step */
    FIND_MEMORY_PEAK,    /* the GPU memory's peak and who held it */
} finding_kind;

typedef struct {
    finding_kind kind;
    double weight;        /* order: heaviest first (100: figures may be wrong; 50-100: what bounds the
                           * work, by the share it covers; below 50: comparisons and remedies) */
    metric figure;        /* the figure that decides it */
    const char *unit;     /* of figure: "ms", "%", "x", "GB/s", "runs", "MB" */
    char text[FINDING_TEXT];
} finding;

const char *finding_kind_name(finding_kind k);
/* The registry table that describes f's figure (metric.h: by its unit); NULL for a unit it lacks. */
const metric_table *finding_table(const finding *f);

struct analysis;
/* Fills a->summary from the rest of the analysis; false only when memory ran out. */
bool summarize(struct analysis *a);

#endif
