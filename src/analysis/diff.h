/* mmprof diff A B: two profiles compared structurally, thing by thing, matched by name: each range
 * group (kind, domain, folded name), each kernel (name), each cause of the run's wall time (the
 * run account's host causes, by cause row) and each state of the run's account. It says what got
 * slower or faster, by how much, beyond whose noise, and where a range's time moved (its median
 * instance's states on both sides: "step * median +18.2 ms: waiting for input +17.9 ms at
 * train.py:38, kernels -0.1 ms").
 *
 * Noise, in ms, the change to beat (run_rows gives every input):
 *  - a range group repeated (at least DIFF_MIN_INSTANCES instances on both sides): its median
 *    instance is compared, against DIFF_SIGMAS robust standard deviations of its instances
 *    (1.4826 x MAD, the larger side's): a repeated range gives its own spread;
 *  - a kernel: DIFF_SIGMAS x its launches' stddev x sqrt(launches), the spread of a sum of that
 *    many launches;
 *  - a figure measured once (a range run once, the run's wall, a state or cause of the whole run):
 *    no spread; the floor below stands for it, and the change says "(floor)".
 * Whatever the spread, a change must also pass the floor: --min-change % of the larger side
 * (default DIFF_MIN_CHANGE_PCT for figures measured once, DIFF_MIN_REPEATED_PCT for repeated
 * ones) and, for the run's states and causes and ranges run once, DIFF_RUN_SHARE_PCT of the run's
 * wall time: two recordings of one program differ by that much in their one-off costs. The three
 * pairs under samples/ (the same program recorded twice on the H200) move once-measured figures
 * by up to 24% on tens of ms (CUDA start-up +21%, host computing +11%, time not known -24%), and
 * by more on figures under 2% of the run (host computing +46% on 80 ms of a 4.4 s run); repeated
 * ranges' medians by 1.7%, kernels' totals by under 0.5%.
 * The process's exit (the account's "exiting": Python's finalization, the libraries' teardown, after
 * the script's last line) is not compared: it is not the work, and it varies more than any floor
 * would hold (261.9 and 413.9 ms in the train pair, 111.5 and 251.2 ms in the gaps pair, x2.3).
 * Nor is the time not known (no call, sample or span): it is where the instrument did not see,
 * not what the program did, and where the samplers start inside cuInit varies: 13.0 ms of a
 * PyTorch script's start not known in one recording, 167.3 ms in the next. The run's wall still
 * holds both.
 * Two recordings of the same program on the H200 (samples/h200-profile-pair-*) show no change. */
#ifndef MMPROF_DIFF_H
#define MMPROF_DIFF_H

#include <stdbool.h>

#include "run_rows.h"

#define DIFF_MIN_INSTANCES 3
#define DIFF_SIGMAS 3.0
#define DIFF_MIN_CHANGE_PCT 25.0
#define DIFF_MIN_REPEATED_PCT 2.0
#define DIFF_RUN_SHARE_PCT 2.0
#define DIFF_MIN_MS 0.01
#define DIFF_PARTS 4

typedef enum { DIFF_RUN = 0, DIFF_RANGE, DIFF_KERNEL, DIFF_STATE, DIFF_CAUSE, DIFF_KINDS } diff_kind;
typedef enum { DV_SAME = 0, DV_SLOWER, DV_FASTER, DV_NEW, DV_GONE } diff_verdict;

/* Where a range's change went: one state of its median instance. */
typedef struct {
    char state[32];   /* wall_states key */
    char words[64];   /* "waiting for input" */
    char at[160];     /* the user's line of its evidence, "" none */
    double delta_ms;
} diff_part;

typedef struct {
    diff_kind kind;
    char name[256];       /* the range group, kernel, state or cause */
    char detail[256];     /* a cause's words, a kernel's launches, a range's instances */
    const char *figure;   /* the key compared: median_ms, total_ms, ms, wall_ms */
    double base, new_value; /* NAN on the side where it is missing */
    int base_count, new_count; /* instances or launches */
    double delta_ms, delta_pct; /* delta_pct NAN where the base is 0 or missing */
    double noise_ms;      /* the change to beat */
    const char *noise_from; /* "instances", "launches", "floor" */
    diff_verdict verdict;
    bool regression;      /* slower or new beyond the threshold */
    diff_part parts[DIFF_PARTS];
    int nparts;
} diff_change;

typedef struct {
    double threshold_pct; /* < 0: none */
    double min_change_pct; /* < 0: the defaults above */
} diff_options;

typedef struct {
    diff_change *changes; /* beyond the noise first (largest change first), then the rest */
    int nchanges, ncalled;
    int compared[DIFF_KINDS]; /* things matched, per kind */
    int regressions;
    double base_wall_ms, new_wall_ms;
    diff_options opt;
} run_diff;

/* Compares every matched thing; false when memory ran out. */
bool diff_runs(const run_rows *base, const run_rows *new_run, const diff_options *o, run_diff *out);
void run_diff_free(run_diff *d);

const char *diff_kind_name(diff_kind k);   /* "run", "range", "kernel", "state", "cause" */
const char *diff_verdict_name(diff_verdict v); /* "same", "slower", "faster", "new", "gone" */

/* One line in words: "range 'step *' median 2.000 -> 20.200 ms (+18.200 ms, +910.0%; noise 0.9 ms
 * from instances): slower". */
void diff_change_words(const diff_change *c, char *buf, size_t len);
/* Its parts: "waiting for input +17.9 ms at train.py:38, kernels -0.1 ms"; "" without parts. */
void diff_parts_words(const diff_change *c, char *buf, size_t len);

#endif
