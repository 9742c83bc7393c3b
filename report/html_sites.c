/* The page's call-site section: per kernel, copy, memset or call, the lines of the program its
 * calls were made from (call_sites.h), and the host column of the idle tables (host_where.h):
 * where the host was while the GPU waited. Shown only where the run carries them. */
#include "host_idle.h"
#include "html_parts.h"
#include "thresholds.h"

#define HTML_SITE_ROWS 50 /* targets shown; the JSON has every one */

void html_sites(html_ctx *x)
{
    const host_analysis *h = x->a->host;
    static const char *const cols[] = {"count", "share_pct"};
    /* Sites held to their cost are a sample of the calls: say so before shares of it. */
    const host_collection *hc = &h->collection;
    if (hc->sites_pct.ok && hc->sites_pct.v < SITES_ALL_PCT) {
        char path[FIG_PATH];
        path_host_sampling(path);
        sb_add(x->b, "<p>Call sites were taken for ");
        html_fig(x, &host_collection_table, hc, "sites_pct", path, true);
        sb_add(x->b, " of the GPU work (kernels, copies and memsets), so the shares below are of that part");
        if (host_sites_held(hc)) {
            sb_add(x->b, ": the rest was left without one to hold the cost of taking them to 1% of the program's time (");
            html_fig(x, &host_collection_table, hc, "sites_skipped", path, false);
            sb_add(x->b, " calls skipped, the callbacks off for ");
            html_fig(x, &host_collection_table, hc, "sites_off_ms", path, true);
            sb_add(x->b, ")");
        }
        sb_add(x->b, ".</p>\n");
    }
    sb_add(x->b, "<div class=\"scroll\"><table class=\"call-sites sortable\">\n<thead><tr><th data-sort=\"text\">kind"
                 "</th><th data-sort=\"text\">launched</th><th data-sort=\"num\" class=\"r\">total</th><th "
                 "data-sort=\"text\">from (the user's line)</th>");
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
        html_fig_heading(x, &call_site_table, cols[k]);
    sb_add(x->b, "</tr></thead>\n<tbody>\n");
    for (int i = 0; i < h->nsites && i < HTML_SITE_ROWS; i++) {
        const call_site_row *r = &h->sites[i];
        for (int k = 0; k < r->nsites; k++) {
            char path[FIG_PATH];
            path_call_site(path, i, k);
            sb_add(x->b, "<tr><td>");
            sb_html(x->b, r->kind);
            /* long kernel names wrap in their cell, so the line they came from stays in view */
            sb_add(x->b, "</td><td class=\"kname\"><code>");
            sb_html(x->b, r->name);
            sb_printf(x->b, "</code></td><td class=\"r\" data-v=\"%d\">%d</td><td class=\"host\"><code>", r->calls,
                      r->calls);
            sb_html(x->b, r->sites[k].at);
            sb_add(x->b, "</code></td>");
            for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
                html_fig_cell(x, &call_site_table, &r->sites[k], cols[c], path, c == 1);
            sb_add(x->b, "</tr>\n");
        }
    }
    sb_add(x->b, "</tbody></table></div>\n");
    if (h->nsites > HTML_SITE_ROWS)
        sb_printf(x->b, "<p class=\"quiet\">%d more in the JSON report.</p>\n", h->nsites - HTML_SITE_ROWS);
}

/* One frame: its words and its share, marked with its place in the JSON. */
static void fn_words(html_ctx *x, const char *lead, const host_fn *f, const char *path)
{
    sb_add(x->b, lead);
    sb_add(x->b, "<code>");
    sb_html(x->b, f->name);
    sb_add(x->b, "</code> ");
    html_fig(x, &host_fn_table, f, "share_pct", path, true);
}

void html_host_cell(html_ctx *x, const host_view v[HOST_NFROM], const char *path)
{
    sb_add(x->b, "<td class=\"host\">");
    int k = 0;
    for (int f = 0; f < HOST_NFROM; f++) {
        if (!v[f].any)
            continue;
        char p[FIG_PATH], q[FIG_PATH + 24];
        snprintf(p, sizeof p, "%.60s.host[%d]", path, k++);
        sb_printf(x->b, "%s<span class=\"quiet\">", k > 1 ? "<br>" : "");
        sb_html(x->b, host_from_label(v[f].from));
        sb_printf(x->b, " (thread %u, ", v[f].tid);
        html_fig(x, &host_view_table, &v[f], v[f].from == HOST_FROM_SPANS ? "ms" : "samples", p,
                 v[f].from == HOST_FROM_SPANS);
        sb_add(x->b, "):</span> ");
        if (v[f].hot.name[0]) {
            snprintf(q, sizeof q, "%s.hot", p);
            fn_words(x, "in ", &v[f].hot, q);
        }
        if (v[f].user.user) {
            snprintf(q, sizeof q, "%s.user_line", p);
            fn_words(x, v[f].hot.name[0] ? "; user's line " : "user's line ", &v[f].user, q);
        }
        /* No frame on most stacks and none of the user's (a thread spread over the
         * interpreter's own functions, as CPU samples of Python code are): the innermost frames,
         * as the text report gives them. */
        for (int t = 0; !v[f].hot.name[0] && !v[f].user.user && t < v[f].ntop; t++) {
            snprintf(q, sizeof q, "%s.innermost[%d]", p, t);
            fn_words(x, t ? ", " : "innermost ", &v[f].top[t], q);
        }
        if (v[f].waiting_pct.ok) {
            sb_add(x->b, "; waiting ");
            html_fig(x, &host_view_table, &v[f], "waiting_pct", p, true);
        }
    }
    if (k == 0)
        sb_html(x->b, x->a->host->none);
    sb_add(x->b, "</td>");
}
