/* The page's answer, first on its first screen where the run has a wall-time account
 * (accounts.h): the run's verdict with the line to change, a bar per account that matters (the
 * run, the time before the first step, the steps' median and longest instance) and a small
 * timeline of each GPU process in bands of one state (analysis.bands), its long idle stretches
 * named; a click on a band shows that stretch on the full timeline. The findings follow it. */
#include <string.h>

#include "accounts.h"
#include "html_parts.h"

#define ANSWER_STRIPS 4          /* processes drawn at most (a job's first ranks) */
#define ANSWER_LABEL_PCT 8.0     /* a band named under the strip when it holds this share of it */
#define ANSWER_MIN_PCT 0.5       /* narrower bands are drawn with the next one */

/* A time from the run's start as the record has it (report_value's event_ms), with its unit or
 * bare: the bare one goes to data-s and data-e, which the full timeline's script reads in ms. */
#define EVENT_MS(ns, unit) value_text(&report_value_table, "event_ms", (double)(ns) / 1e6, (unit)).s

/* The account of a scope (the principal steps' for the group scopes), NULL where none. */
static const wall_account *scoped(const analysis *a, account_scope s)
{
    if (s == ACC_RUN)
        return run_account(a);
    if (s == ACC_BEFORE_STEPS || s == ACC_GROUP_MEDIAN || s == ACC_GROUP_WORST)
        return steps_account(a, s);
    return NULL;
}

static void bar_row(html_ctx *x, const wall_account *acc, const char *label)
{
    char ms[32];
    sb_add(x->b, "<div class=\"answer-row\"><span class=\"answer-label\">");
    sb_html(x->b, label);
    sb_printf(x->b, " <span class=\"quiet\">%s</span></span>", html_fig_text(&account_table, acc, "wall_ms", true, ms, sizeof ms));
    html_account_bar(x, acc);
    sb_add(x->b, "</div>\n");
}

/* One process's bands in time order, widths their share of its span; the long ones named below. */
static void strip(html_ctx *x, int first, int n, int64_t origin)
{
    const analysis *a = x->a;
    int64_t lo = a->bands[first].start_ns, hi = a->bands[first + n - 1].end_ns;
    double span = (double)(hi - lo);
    if (span <= 0)
        return;
    sb_printf(x->b, "<div class=\"answer-row\"><span class=\"answer-label\">pid %u <span class=\"quiet\">over time</span>"
                    "</span><div class=\"acct-bar acct-strip\" role=\"img\" aria-label=\"the process's states over time\">",
              a->bands[first].pid);
    /* Bands narrower than ANSWER_MIN_PCT (a few pixels) go to the next one shown: the full
     * timeline's track has them all. */
    int64_t from = lo;
    for (int i = first; i < first + n; i++) {
        const account_band *b = &a->bands[i];
        if (100.0 * (double)(b->end_ns - b->start_ns) / span < ANSWER_MIN_PCT && i + 1 < first + n)
            continue;
        char words[512];
        account_row_words(&b->row, words, sizeof words);
        sb_printf(x->b, "<span class=\"g-%s\" style=\"width:%s\" data-s=\"%s\" data-e=\"%s\" title=\"",
                  wall_groups[wall_states[b->row.state].group].key, css_pct(100.0 * (double)(b->end_ns - from) / span, 3).s,
                  EVENT_MS(from - origin, false), EVENT_MS(b->end_ns - origin, false));
        sb_printf(x->b, "%s to %s: ", EVENT_MS(from - origin, false), EVENT_MS(b->end_ns - origin, true));
        from = b->end_ns;
        sb_html(x->b, wall_states[b->row.state].brief);
        if (words[0]) {
            sb_add(x->b, ": ");
            sb_html(x->b, words);
        }
        sb_add(x->b, "\"></span>");
    }
    sb_add(x->b, "</div></div>\n<div class=\"strip-labels\">");
    for (int i = first; i < first + n; i++) {
        const account_band *b = &a->bands[i];
        double share = 100.0 * (double)(b->end_ns - b->start_ns) / span;
        if (share < ANSWER_LABEL_PCT || wall_state_gpu(b->row.state))
            continue;
        sb_printf(x->b, "<span style=\"left:%s;max-width:%s\">", css_pct(100.0 * (double)(b->start_ns - lo) / span, 3).s,
                  css_pct(share, 3).s);
        sb_html(x->b, wall_states[b->row.state].brief);
        if (b->row.at[0]) {
            sb_add(x->b, " <code>");
            sb_html(x->b, b->row.at);
            sb_add(x->b, "</code>");
        }
        sb_add(x->b, "</span>");
    }
    sb_printf(x->b, "</div>\n<div class=\"strip-axis quiet\"><span>%s</span><span>%s</span></div>\n",
              value_text(&report_value_table, "axis_ms", (double)(lo - origin) / 1e6, true).s,
              value_text(&report_value_table, "axis_ms", (double)(hi - origin) / 1e6, true).s);
}

bool html_answer(html_ctx *x)
{
    const analysis *a = x->a;
    const wall_account *run = run_account(a);
    if (!run)
        return false;
    sb_add(x->b, "<div class=\"answer\">\n<p class=\"answer-verdict\">");
    sb_add(x->b, "<strong>");
    sb_html(x->b, a->m->nregions > 0 ? a->m->regions[0].name : "the run");
    sb_add(x->b, "</strong> is ");
    sb_html(x->b, run->verdict_text);
    if (run->advice[0]) {
        sb_add(x->b, "<br><strong>Try:</strong> ");
        sb_html(x->b, run->advice);
    }
    sb_add(x->b, "</p>\n");
    bar_row(x, run, "the run");
    static const struct {
        account_scope s;
        const char *label;
    } more[] = {{ACC_BEFORE_STEPS, "before step 1"}, {ACC_GROUP_MEDIAN, "median step"},
                {ACC_GROUP_WORST, "longest step"}};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        const wall_account *acc = scoped(a, more[i].s);
        if (acc)
            bar_row(x, acc, more[i].label);
    }
    int64_t origin = a->m->nregions > 0 ? a->m->regions[0].start_ns : 0;
    int strips = 0;
    for (int i = 0; i < a->nbands && strips < ANSWER_STRIPS;) {
        int j = i;
        while (j < a->nbands && a->bands[j].pid == a->bands[i].pid)
            j++;
        strip(x, i, j - i, origin);
        strips++;
        i = j;
    }
    if (strips)
        sb_add(x->b, "<p class=\"quiet answer-note\">Each band is the state that held most of its stretch; hover for "
                     "its cause, click to see it on the full timeline.</p>\n");
    sb_add(x->b, "</div>\n");
    return true;
}
