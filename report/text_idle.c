/* The text report's "Idle stretches and their causes": the run's longest GPU idle stretches, each
 * with what the host was doing meanwhile (idle_causes.h), then the run's idle time by cause. Shown
 * only where the run has idle stretches and host records to explain them with. */
#include <string.h>

#include "host_idle.h"
#include "text_parts.h"
#include "thresholds.h"

#define TEXT_IDLE_GAPS 8 /* stretches shown; the JSON has every listed one */

/* "calls: cuModuleLoadData 900.1 ms, cudaMalloc x3 2.0 ms" */
static void calls_line(ctx *x, const idle_stretch *g)
{
    char line[512] = "calls: ";
    if (g->ncalls == 0)
        snprintf(line, sizeof line, "calls: none in progress");
    for (int i = 0; i < g->ncalls; i++) {
        char one[160], times[24] = "", as[40] = "";
        const idle_call *k = &g->calls[i];
        if (k->count > 1)
            snprintf(times, sizeof times, " x%d", k->count);
        /* A call counted under another cause than its name says (the first long runtime call,
         * where the runtime created its context; a memcpy from pageable memory) says so. */
        if (idle_cause_of_name(k->name) != k->cause)
            snprintf(as, sizeof as, " [%s]", idle_cause_key(k->cause));
        snprintf(one, sizeof one, "%s%s%s%s %s", i ? ", " : "", k->name, times, as,
                 value_text(&report_value_table, "idle_call_ms", k->ms.v, true).s);
        strncat(line, one, sizeof line - strlen(line) - 1);
    }
    fprintf(x->out, "%-34s ", "");
    wrapped(x, 35, line);
}

static void ranges_line(ctx *x, const analysis *a, const idle_stretch *g)
{
    if (g->nranges == 0)
        return;
    char line[512] = "open: ";
    for (int i = 0; i < g->nranges; i++) {
        char one[112];
        snprintf(one, sizeof one, "%s%.100s", i ? ", " : "", a->m->regions[g->open_ranges[i]].name);
        strncat(line, one, sizeof line - strlen(line) - 1);
    }
    fprintf(x->out, "%-34s ", "");
    wrapped(x, 35, line);
}

/* "host (Python wall-clock samples, thread 42, 100): numba.core.compiler (compile_extra) 87%;
 * user's line prog.py:30 (main) 87%; innermost run_pass 50%, ...": one line per source that saw
 * anything in the window, or why none did. Shown only where the run carries host activity. */
static void host_lines(ctx *x, const analysis *a, const host_view v[HOST_NFROM])
{
    if (!a->host || !a->host->sampled)
        return;
    for (int f = 0; f < HOST_NFROM; f++) {
        const host_view *h = &v[f];
        if (!h->any)
            continue;
        char line[1024], n[32], one[HOST_NAME + 48];
        if (h->from == HOST_FROM_SPANS)
            fig(x, n, sizeof n, &host_view_table, h, "ms", true);
        else
            fig(x, n, sizeof n, &host_view_table, h, "samples", false);
        snprintf(line, sizeof line, "host (%s of thread %u, %s", host_from_label(h->from), h->tid, n);
        if (h->waiting_pct.ok) {
            char w[16];
            fig(x, w, sizeof w, &host_view_table, h, "waiting_pct", true);
            snprintf(one, sizeof one, ", %s waiting", w);
            strncat(line, one, sizeof line - strlen(line) - 1);
        }
        if (h->running_pct.ok) {
            char r[16];
            fig(x, r, sizeof r, &host_view_table, h, "running_pct", true);
            snprintf(one, sizeof one, ", %s running by CPU samples", r);
            strncat(line, one, sizeof line - strlen(line) - 1);
        }
        strncat(line, "):", sizeof line - strlen(line) - 1);
        /* The hot frame, the user's line (where the stacks reach the user's code) and the innermost
         * frames, each with its share; none named: said so. */
        const host_fn *parts[2 + HOST_TOP] = {h->hot.name[0] ? &h->hot : NULL, h->user.user ? &h->user : NULL};
        static const char *const lead[3] = {"in ", "user's line ", "innermost "};
        for (int k = 0; k < h->ntop; k++)
            parts[2 + k] = &h->top[k];
        bool first = true;
        for (int k = 0; k < 2 + h->ntop; k++) {
            if (!parts[k])
                continue;
            char pct[16];
            fig(x, pct, sizeof pct, &host_fn_table, parts[k], "share_pct", true);
            snprintf(one, sizeof one, "%s%s%s %s", k > 2 ? ", " : first ? " " : "; ", k < 3 ? lead[k] : "",
                     parts[k]->name, pct);
            strncat(line, one, sizeof line - strlen(line) - 1);
            first = false;
        }
        if (first)
            strncat(line, " no frame of its stacks has a name", sizeof line - strlen(line) - 1);
        fprintf(x->out, "%-34s ", "");
        wrapped(x, 35, line);
    }
    if (!host_view_headline(v) && a->host->none[0]) {
        fprintf(x->out, "%-34s ", "");
        wrapped(x, 35, a->host->none);
    }
}

static void breakdown(ctx *x, const analysis *a)
{
    const region_metrics *r = &a->rg[a->listed[0]];
    if (!r->idle_ms.ok || r->idle_ms.v <= 0)
        return;
    char idle[32];
    fprintf(x->out, "\n%sIdle time by cause%s  %s: %s idle\n", c(x, BOLD), c(x, RESET), a->m->regions[r->region].name,
            fig(x, idle, sizeof idle, &region_metric_table, r, "idle_ms", true));
    fprintf(x->out, "%s%-44s %10s %6s%s\n", c(x, DIM), "cause", "idle ms", "share", c(x, RESET));
    static const text_col cols[] = {{"ms", 10, false}, {"share_pct", 6, false}};
    for (int k = 0; k < IDLE_NCAUSES; k++) {
        if (!r->idle[k].ms.ok || r->idle[k].ms.v <= 0)
            continue;
        fprintf(x->out, "%-44s", idle_cause_label((idle_cause)k));
        fig_cells(x, &idle_share_table, &r->idle[k], cols, 2);
        fputc('\n', x->out);
        /* The host-busy time's functions, from the samples taken in it (host_idle.h). */
        if (k == IDLE_HOST_BUSY && a->host && a->host->nregions > 0 && host_view_headline(&a->host->regions[0]))
            host_lines(x, a, &a->host->regions[0]);
    }
}

/* Each other listed region's host-busy idle time and the functions sampled in it (the run's is in
 * the breakdown above), where any has some to show. */
#define TEXT_HOST_REGIONS 10
static void host_busy_by_region(ctx *x, const analysis *a)
{
    int shown = 0;
    for (int li = 1; li < a->nlisted && shown < TEXT_HOST_REGIONS; li++) {
        const host_view *v = host_region_busy_views(a, li);
        if (!v)
            continue;
        const region_metrics *r = &a->rg[a->listed[li]];
        const idle_share *busy = &r->idle[IDLE_HOST_BUSY];
        if (shown++ == 0)
            fprintf(x->out, "\n%sHost busy outside CUDA, by region%s\n", c(x, BOLD), c(x, RESET));
        char ms[32], pct[16], line[200];
        snprintf(line, sizeof line, "%.60s: %s idle with no CUDA call in progress (%s of its idle time)",
                 a->m->regions[r->region].name, fig(x, ms, sizeof ms, &idle_share_table, busy, "ms", true),
                 fig(x, pct, sizeof pct, &idle_share_table, busy, "share_pct", true));
        fprintf(x->out, "  ");
        wrapped(x, 2, line);
        host_lines(x, a, v);
    }
}

void text_idle(ctx *x, const analysis *a)
{
    if (a->nidle_gaps == 0 || a->nlisted == 0 || a->m->events.napis + a->m->events.nsyncs == 0)
        return;
    fprintf(x->out, "\n%sIdle stretches and their causes%s  (nothing on the GPU; 1 ms or more, and the %d "
                    "longest)\n", c(x, BOLD), c(x, RESET), IDLE_GAP_ALWAYS);
    fprintf(x->out, "%s%-3s %10s %10s %-8s %s%s\n", c(x, DIM), "GPU", "at ms", "idle ms", "where", "cause",
            c(x, RESET));
    static const text_col cols[] = {{"start_ms", 10, false}, {"ms", 10, false}};
    for (int i = 0; i < a->nidle_gaps && i < TEXT_IDLE_GAPS; i++) {
        const idle_stretch *g = &a->idle_gaps[i];
        fprintf(x->out, "%-3u", g->device);
        fig_cells(x, &idle_gap_table, g, cols, 2);
        char cause[640], pct[16], words[512] = "";
        /* the stretch's largest state in its process's account, in the account's words; the
         * older cause of its CUDA calls where the process is not accounted */
        const account_row *acc = a->idle_accounts && a->idle_accounts[i].state < WS_COUNT ? &a->idle_accounts[i] : NULL;
        if (acc) {
            fig(x, pct, sizeof pct, &account_row_table, acc, "share_pct", true);
            account_row_words(acc, words, sizeof words);
            snprintf(cause, sizeof cause, "%s %s%s%s", wall_states[acc->state].brief, pct, words[0] ? ": " : "", words);
        } else {
            fig(x, pct, sizeof pct, &idle_gap_table, g, "cause_pct", true);
            snprintf(cause, sizeof cause, "%s %s", idle_cause_label(g->cause), pct);
        }
        if (g->next[0])
            snprintf(cause + strlen(cause), sizeof cause - strlen(cause), ", then %.96s", g->next);
        fprintf(x->out, " %-8s ", stretch_where_name(g->where));
        wrapped(x, 35, cause);
        calls_line(x, g);
        ranges_line(x, a, g);
        if (a->host)
            host_lines(x, a, &a->host->gaps[i * HOST_NFROM]);
    }
    int more = a->nidle_gaps - TEXT_IDLE_GAPS + a->idle_gaps_unlisted;
    if (more > 0)
        fprintf(x->out, "  (%d more stretches of 1 ms or more in the JSON report)\n", more);
    breakdown(x, a);
    host_busy_by_region(x, a);
}
