/* The wall-time accounts a report shows (analysis.accounts), and every region's verdict from its
 * own: where the time of the run, of each GPU process, of the time before the first step, of
 * each group of same-named ranges (its instances summed, its median instance and its worst) and
 * of each listed region went, state by state (wall_account.h), each state with its evidence.
 *
 * The verdict of a span is its largest state (verdict.h's judge_account): "input-bound: the GPU
 * waits for the DataLoader 61% of the wall at train.py:38", not a ratio of GPU records. */
#ifndef MMPROF_ACCOUNTS_H
#define MMPROF_ACCOUNTS_H

#include <stdbool.h>
#include <stdint.h>

#include "cause_table.h"
#include "host_where.h"
#include "metric.h"
#include "verdict.h"

/* An account's states shown at most (those with time, largest first). */
#define ACCOUNT_ROWS WS_COUNT
/* A cause resting on fewer host samples than this is said to. */
#define ACCOUNT_FEW_SAMPLES 10

/* One state of an account, with the evidence that holds most of its time. */
typedef struct account_row {
    wall_state state;
    int rule;             /* the top evidence's cause row (cause_rules), -1 none */
    metric ms;            /* its time */
    metric share_pct;     /* of the account's wall */
    metric host_wait_pct; /* a GPU state: of its time, the accounted thread waited in a synchronising call */
    metric samples;       /* host samples of the accounted thread at its instants */
    metric cause_pct;     /* of its time, the share of its top evidence (why, at, via) */
    char cause[24];       /* the top evidence's cause row ("dataloader"), "" where none named it */
    char why[128];        /* its words: "waiting for the DataLoader", "importing sympy", "in cudaMalloc" */
    char at[HOST_NAME];   /* the user's line, "" none */
    char via[HOST_NAME];  /* the library frame that line called, "" none */
    bool few_samples;     /* the cause rests on fewer than ACCOUNT_FEW_SAMPLES samples */
} account_row;

/* What the accounted thread did over the span, whatever the GPU did meanwhile (the host's view):
 * one row per cause, largest first. For a GPU-bound span it says what the host waited in. */
typedef struct host_cause_row {
    int rule;             /* the cause row (cause_rules), -1: nothing named the time */
    char cause[24];       /* its id, "" for none */
    char why[128];        /* its top evidence's words: "synchronising with the GPU: cudaStreamSynchronize" */
    char at[HOST_NAME];   /* the user's line */
    char via[HOST_NAME];  /* the library frame it called */
    metric ms, share_pct; /* its time, and that of the account's wall */
    metric cause_pct;     /* of its time, the share its top evidence holds */
} host_cause_row;

typedef enum {
    ACC_RUN = 0,       /* the run: its GPU processes summed */
    ACC_PROCESS,       /* one GPU process of several */
    ACC_BEFORE_STEPS,  /* from a process's start to its first step */
    ACC_GROUP,         /* a group of same-named ranges: its instances summed */
    ACC_GROUP_MEDIAN,  /* its median instance (by wall time): the steady state */
    ACC_GROUP_WORST,   /* its longest instance */
    ACC_REGION,        /* a listed region */
} account_scope;

typedef struct {
    account_scope scope;
    char name[160];       /* "python3", "step *", "step 0" */
    int region;           /* the region (ACC_REGION, ACC_GROUP_MEDIAN, ACC_GROUP_WORST), -1 */
    int group;            /* the range group (ACC_GROUP*, ACC_BEFORE_STEPS), -1 */
    uint32_t pid;         /* the process (0: the run's processes summed) */
    int processes;        /* processes summed */
    int instances;        /* ranges summed (ACC_GROUP), else 1 */
    metric start_ms;      /* from the run's start */
    metric wall_ms;       /* summed over what it sums */
    metric gpu_pct;       /* of the wall, GPU states */
    metric idle_pct;      /* of the wall, idle states */
    account_row *rows;    /* states with time, largest first */
    int nrows;
    host_cause_row *causes; /* the host's view, largest first */
    int ncauses;
    verdict_kind verdict;
    metric verdict_pct;   /* the share of the wall that decided it */
    char verdict_text[VERDICT_TEXT];
    char advice[VERDICT_TEXT];
} wall_account;

struct analysis;
struct wall_timeline;
/* Each region's verdict, text and advice from its own account (after the regions' figures, before
 * the range groups count the verdicts); regions of processes that are not accounted (no GPU work)
 * keep theirs. False only when memory ran out. */
bool account_regions(struct analysis *a, const struct wall_timeline *t);
/* a->accounts: the run's, each GPU process's (of several), the time before the first step, each
 * range group's (instances summed, median, longest) and each listed region's (after the listing
 * and the range groups; before the summary). False only when memory ran out. */
bool account_spans(struct analysis *a, const struct wall_timeline *t);
void accounts_free(wall_account *v, int n);

/* A stretch of a process's timeline in one state, for the page's timeline: the process's span cut
 * into ACCOUNT_BAND_BUCKETS equal buckets, each given the state that held most of it, and
 * neighbours in one state joined; each band with that state's evidence over it. */
#define ACCOUNT_BAND_BUCKETS 500
typedef struct {
    uint32_t pid;
    int64_t start_ns, end_ns;
    account_row row;      /* the band's state, its share of the band, its top evidence */
} account_band;

/* a->idle_accounts (per listed idle stretch, the state of its GPU's process that held most of it,
 * with its evidence: the same words as the accounts) and a->bands. False only when memory ran
 * out. */
bool account_stretches(struct analysis *a, const struct wall_timeline *t);

/* A row's evidence in words: "waiting for the DataLoader at train.py:38 (main), calling
 * torch.utils.data.dataloader (__next__) (few samples)"; "" where nothing named it. */
void account_row_words(const account_row *r, char *buf, size_t len);

/* "run", "process", "before_steps", "group", "group_median", "group_worst", "region". */
const char *account_scope_name(account_scope s);
/* The key of the state a host cause's rule puts its time in ("import"), "not_known" without one. */
const char *host_cause_state_key(const host_cause_row *h);

/* The run's account (scope ACC_RUN), NULL when there is none. */
const wall_account *run_account(const struct analysis *a);
/* The accounts of a group that the summary speaks of: the principal steps' (the group of at
 * least ACCOUNT_MIN_STEPS instances with the most time), NULL where there is none. */
#define ACCOUNT_MIN_STEPS 3
const wall_account *steps_account(const struct analysis *a, account_scope s);

#endif
