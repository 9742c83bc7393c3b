/* The text report's section for a job of several ranks or GPU processes (ranks.h): per rank and
 * per GPU where the window went (compute, exposed communication, copies, idle), how much NCCL
 * time hid under compute, the collective-end skew, and the stragglers of the NVTX ranges. */
#include <string.h>

#include "tables.h"
#include "text_parts.h"

static void share_table(ctx *x, const rank_analysis *ra, const rank_share *rows, int n, bool gpu)
{
    static const char *const cols[] = {"busy_pct", "compute_pct", "comm_pct", "copy_pct", "idle_pct", "overlap_pct", "coll_skew_us"};
    enum { NCOLS = sizeof cols / sizeof cols[0] };
    fprintf(x->out, "%s%-26s", c(x, DIM), gpu ? "GPU" : ra->by_rank ? "rank" : "process");
    for (int i = 0; i < NCOLS; i++) {
        if (gpu && strcmp(cols[i], "coll_skew_us") == 0)
            continue;
        const metric_def *d = metric_find(&rank_share_table, cols[i]);
        char head[32];
        snprintf(head, sizeof head, "%s %s", d->label, d->unit);
        fprintf(x->out, " %10.10s", head);
    }
    fprintf(x->out, "%s\n", c(x, RESET));
    for (int r = 0; r < n; r++) {
        char name[96], cut[40];
        rank_share_label(&rows[r], gpu, ra->nhosts > 1, name, sizeof name);
        clipped(name, 26, cut, sizeof cut);
        fprintf(x->out, "%-26s", cut);
        for (int i = 0; i < NCOLS; i++) {
            if (gpu && strcmp(cols[i], "coll_skew_us") == 0)
                continue;
            fig_cell(x, &rank_share_table, &rows[r], &(text_col){cols[i], 10, false});
        }
        fprintf(x->out, "\n");
    }
}

static void straggler_table_text(ctx *x, const rank_analysis *ra)
{
    if (ra->nstragglers == 0)
        return;
    fprintf(x->out, "\n%sStragglers%s  per NVTX range opened by several ranks: who reaches its end last (the k-th "
                    "occurrence of each rank matched), and by how much\n", c(x, BOLD), c(x, RESET));
    fprintf(x->out, "%s%-30s %7s %-20s %11s %11s %11s%s\n", c(x, DIM), "range", "matched", "last most often",
            "median lag", "max lag", "mean", c(x, RESET));
    int n = table_shown(&table_straggler, ra->nstragglers, false);
    for (int i = 0; i < n; i++) {
        const straggler *s = &ra->stragglers[i];
        char cut[48], who[96] = "-";
        clipped(s->name, 30, cut, sizeof cut);
        if (s->straggler >= 0) {
            char name[80];
            const rank_share *w = &ra->rows[s->straggler];
            if (w->rank >= 0)
                snprintf(name, sizeof name, "rank %d", w->rank);
            else
                snprintf(name, sizeof name, "pid %u", w->pid);
            snprintf(who, sizeof who, "%s (%d/%d)", name, s->straggler_times, s->matched);
        }
        static const text_col cols[] = {{"median_lag_ms", 11, true}, {"max_lag_ms", 11, true}, {"mean_ms", 11, true}};
        char whocut[40];
        clipped(who, 20, whocut, sizeof whocut);
        fprintf(x->out, "%-30s %7d %-20s", cut, s->matched, whocut);
        fig_cells(x, &straggler_table, s, cols, (int)(sizeof cols / sizeof cols[0]));
        fputc('\n', x->out);
    }
    if (ra->nstragglers > n)
        fprintf(x->out, "%s(%d more ranges; all in --json and --csv)%s\n", c(x, DIM), ra->nstragglers - n, c(x, RESET));
}

void text_ranks(ctx *x, const analysis *a)
{
    const rank_analysis *ra = a->ranks;
    /* The window is the job's, the same on every row: the first row's figure. */
    char window[32] = "n/a";
    if (ra->nrows > 0)
        fig(x, window, sizeof window, &rank_share_table, &ra->rows[0], "window_ms", true);
    fprintf(x->out, "\n%s%s%s  %d %s on %d host%s, %d GPU%s; shares of the job's GPU window (%s, first to last "
                    "GPU event of any rank); comm = NCCL kernels not hidden under compute\n",
            c(x, BOLD), ra->by_rank ? "Ranks" : "Processes", c(x, RESET), ra->nrows, ra->by_rank ? "ranks" : "processes",
            ra->nhosts, ra->nhosts == 1 ? "" : "s", ra->ngpus, ra->ngpus == 1 ? "" : "s", window);
    share_table(x, ra, ra->rows, ra->nrows, false);
    if (ra->ngpus > 0 && (ra->ngpus != ra->nrows || ra->nhosts > 1)) {
        fprintf(x->out, "\n");
        share_table(x, ra, ra->gpus, ra->ngpus, true);
    }
    straggler_table_text(x, ra);
}
