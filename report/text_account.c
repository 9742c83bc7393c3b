/* The text report's "Where the time went": the wall-time accounts (accounts.h) of the run, of each
 * GPU process of several, of the time before the first step and of each group of same-named ranges
 * (its instances summed, its median and its longest), each a table of its states with their
 * evidence. The listed regions' own accounts are the JSON's; their verdicts are in the regions'. */
#include <string.h>

#include "accounts.h"
#include "text_parts.h"
#include "thresholds.h"

#define TEXT_ACCOUNT_ROWS 6 /* states shown per account; the rest summed on one line */

/* Whether the account's thread was sampled: its states then say how many samples each rests on. */
static bool sampled(const wall_account *acc)
{
    for (int i = 0; i < acc->nrows; i++)
        if (acc->rows[i].samples.ok)
            return true;
    return false;
}

static void account_rows(ctx *x, const wall_account *acc)
{
    static const text_col cols[] = {{"ms", 11, false}, {"share_pct", 7, true}, {"samples", 7, false}};
    int ncols = sampled(acc) ? 3 : 2;
    fprintf(x->out, "%s  %-30s %11s %7s %7s  %s%s\n", c(x, DIM), "state", "ms", "share", ncols == 3 ? "samples" : "",
            "why, where", c(x, RESET));
    double rest = 0;
    int more = 0;
    for (int i = 0; i < acc->nrows; i++) {
        const account_row *r = &acc->rows[i];
        if (i >= TEXT_ACCOUNT_ROWS) {
            rest += r->ms.v;
            more++;
            continue;
        }
        char state[40];
        clipped(wall_states[r->state].brief, 30, state, sizeof state);
        fprintf(x->out, "  %-30s", state);
        fig_cells(x, &account_row_table, r, cols, ncols);
        if (ncols == 2)
            fprintf(x->out, "%8s", "");
        char why[640] = "";
        size_t n = 0;
        if (wall_state_gpu(r->state) && r->host_wait_pct.ok && r->host_wait_pct.v >= ACCOUNT_WAIT_SHOWN_PCT) {
            char w[16];
            n += (size_t)snprintf(why, sizeof why, "the host waited %s%s",
                                  fig(x, w, sizeof w, &account_row_table, r, "host_wait_pct", true),
                                  r->why[0] ? ": " : "");
        }
        if (n < sizeof why)
            account_row_words(r, why + n, sizeof why - n);
        if (why[0]) {
            fputs("  ", x->out);
            wrapped(x, 62, why); /* the columns above end there, samples or not */
        } else {
            fputc('\n', x->out);
        }
    }
    if (more > 0)
        fprintf(x->out, "  (%d more states, %s; every one is in the JSON report)\n", more,
                value_text(&account_row_table, "ms", rest, true).s);
}

static void account_head(ctx *x, const wall_account *acc, const char *what)
{
    char wall[32], gpu[16];
    fig(x, wall, sizeof wall, &account_table, acc, "wall_ms", true);
    fig(x, gpu, sizeof gpu, &account_table, acc, "gpu_pct", true);
    char head[400];
    snprintf(head, sizeof head, "%s (%s, %s; GPU working %s): %s", acc->name, what, wall, gpu,
             verdict_name(acc->verdict));
    fprintf(x->out, "%s%s%s\n", c(x, BOLD), head, c(x, RESET));
}

void text_account(ctx *x, const analysis *a)
{
    fprintf(x->out, "\n%sWhere the time went%s  every instant in one state: the GPU working, or idle with what the "
                    "host did\n", c(x, BOLD), c(x, RESET));
    for (int i = 0; i < a->naccounts; i++) {
        const wall_account *acc = &a->accounts[i];
        char what[96];
        switch (acc->scope) {
        case ACC_RUN:
            snprintf(what, sizeof what, acc->processes > 1 ? "the run, its %d GPU processes summed" : "the run",
                     acc->processes);
            break;
        case ACC_PROCESS: snprintf(what, sizeof what, "one process"); break;
        case ACC_BEFORE_STEPS: snprintf(what, sizeof what, "from the process's start"); break;
        case ACC_GROUP: snprintf(what, sizeof what, "%d instances summed", acc->instances); break;
        case ACC_GROUP_MEDIAN: snprintf(what, sizeof what, "the median instance"); break;
        case ACC_GROUP_WORST: snprintf(what, sizeof what, "the longest instance"); break;
        default: continue; /* a listed region's: its verdict is in the regions' table, its account the JSON's */
        }
        fputc('\n', x->out);
        account_head(x, acc, what);
        account_rows(x, acc);
    }
}
