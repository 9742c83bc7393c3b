/* The page's "Where the time went": each wall-time account (accounts.h) the text report shows, as
 * a bar of its states (each state's width its share of the wall) and a table of the states with
 * their evidence. The listed regions' own accounts are the JSON's; their verdicts are the regions'
 * table's. */
#include "accounts.h"
#include "html_parts.h"
#include "thresholds.h"

/* The bar: a segment per state, coloured by its group (templates/report.css), its words on hover. */
void html_account_bar(html_ctx *x, const wall_account *acc)
{
    sb_add(x->b, "<div class=\"acct-bar\" role=\"img\" aria-label=\"");
    for (int k = 0; k < acc->nrows && k < 4; k++) {
        char pct[24];
        sb_printf(x->b, "%s", k ? ", " : "");
        sb_html(x->b, wall_states[acc->rows[k].state].brief);
        sb_printf(x->b, " %s", html_fig_text(&account_row_table, &acc->rows[k], "share_pct", true, pct, sizeof pct));
    }
    sb_add(x->b, "\">");
    for (int k = 0; k < acc->nrows; k++) {
        const account_row *r = &acc->rows[k];
        char pct[24];
        html_fig_text(&account_row_table, r, "share_pct", true, pct, sizeof pct);
        sb_printf(x->b, "<span class=\"g-%s\" style=\"width:%s\" title=\"", wall_groups[wall_states[r->state].group].key,
                  css_pct(r->share_pct.ok ? r->share_pct.v : 0.0, 3).s);
        sb_html(x->b, wall_states[r->state].brief);
        sb_printf(x->b, " %s", pct);
        if (r->why[0]) {
            sb_add(x->b, ": ");
            sb_html(x->b, r->why);
        }
        sb_add(x->b, "\"></span>");
    }
    sb_add(x->b, "</div>\n");
}

/* Whether the account's thread was sampled: its states then say how many samples each rests on. */
static bool sampled(const wall_account *acc)
{
    for (int i = 0; i < acc->nrows; i++)
        if (acc->rows[i].samples.ok)
            return true;
    return false;
}

static void account_table_html(html_ctx *x, const wall_account *acc, int i)
{
    static const char *const cols[] = {"ms", "share_pct", "samples"};
    size_t ncols = sampled(acc) ? 3 : 2;
    sb_add(x->b, "<div class=\"scroll\"><table class=\"account\">\n<thead><tr><th>state</th>");
    for (size_t k = 0; k < ncols; k++)
        html_fig_heading(x, &account_row_table, cols[k]);
    sb_add(x->b, "<th>why, where</th></tr></thead>\n<tbody>\n");
    for (int k = 0; k < acc->nrows; k++) {
        const account_row *r = &acc->rows[k];
        char path[FIG_PATH];
        path_account_state(path, i, k);
        sb_printf(x->b, "<tr><td><span class=\"dot g-%s\"></span>", wall_groups[wall_states[r->state].group].key);
        sb_html(x->b, wall_states[r->state].brief);
        sb_add(x->b, "</td>");
        for (size_t c = 0; c < ncols; c++)
            html_fig_cell(x, &account_row_table, r, cols[c], path, c == 1);
        sb_add(x->b, "<td class=\"host\">");
        if (wall_state_gpu(r->state) && r->host_wait_pct.ok && r->host_wait_pct.v >= ACCOUNT_WAIT_SHOWN_PCT) {
            sb_add(x->b, "the host waited ");
            html_fig(x, &account_row_table, r, "host_wait_pct", path, true);
            sb_add(x->b, r->why[0] ? ": " : "");
        }
        sb_html(x->b, r->why);
        if (r->at[0]) {
            sb_add(x->b, " at <code>");
            sb_html(x->b, r->at);
            sb_add(x->b, "</code>");
        }
        if (r->via[0]) {
            sb_add(x->b, ", calling <code>");
            sb_html(x->b, r->via);
            sb_add(x->b, "</code>");
        }
        if (r->few_samples)
            sb_add(x->b, " <span class=\"quiet\">(few samples)</span>");
        sb_add(x->b, "</td></tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}

void html_account(html_ctx *x)
{
    const analysis *a = x->a;
    for (int i = 0; i < a->naccounts; i++) {
        const wall_account *acc = &a->accounts[i];
        const char *what;
        switch (acc->scope) {
        case ACC_RUN: what = "the run"; break;
        case ACC_PROCESS: what = "one process"; break;
        case ACC_BEFORE_STEPS: what = "from the process's start"; break;
        case ACC_GROUP: what = "its instances summed"; break;
        case ACC_GROUP_MEDIAN: what = "the median instance"; break;
        case ACC_GROUP_WORST: what = "the longest instance"; break;
        default: continue;
        }
        char path[FIG_PATH];
        path_account(path, i);
        sb_add(x->b, "<div class=\"account-block\">\n<h3>");
        sb_html(x->b, acc->name);
        sb_printf(x->b, " <span class=\"quiet\">(%s, ", what);
        html_fig(x, &account_table, acc, "wall_ms", path, true);
        sb_add(x->b, ")</span></h3>\n<p class=\"acct-verdict\">");
        sb_html(x->b, acc->verdict_text);
        if (acc->advice[0]) {
            sb_add(x->b, "<br><span class=\"quiet\">Try: ");
            sb_html(x->b, acc->advice);
            sb_add(x->b, "</span>");
        }
        sb_add(x->b, "</p>\n");
        html_account_bar(x, acc);
        account_table_html(x, acc, i);
        sb_add(x->b, "</div>\n");
    }
}
