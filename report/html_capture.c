/* The HTML report's Capture section (profile --delay/--duration/--capture-range/--max-size and
 * mmprof capture start|stop): what was asked, then each window with why it opened and closed and
 * what went unrecorded around it, each figure the registry's (capture_table) marked with its place
 * in the JSON. Shown only when there are windows (sections.c). */
#include <stdio.h>

#include "capture.h"
#include "html_parts.h"

void html_capture(html_ctx *x)
{
    const analysis *a = x->a;
    const capture_info *ci = &a->m->capture;
    if (ci->asked[0]) {
        sb_add(x->b, "<p>Asked: ");
        sb_html(x->b, ci->asked);
        sb_printf(x->b, "; %d window%s.</p>\n", a->ncapture, a->ncapture == 1 ? "" : "s");
    }
    static const char *const cols[] = {"wall_ms", "kernels", "before_ms", "calls_before", "after_ms", "calls_after"};
    enum { NCOLS = sizeof cols / sizeof cols[0] };
    sb_add(x->b, "<div class=\"scroll\"><table class=\"capture sortable\">\n<thead><tr><th data-sort=\"text\">window</th>"
                 "<th data-sort=\"text\">opened</th><th data-sort=\"text\">closed</th>");
    for (int c = 0; c < NCOLS; c++)
        html_fig_heading(x, &capture_table, cols[c]);
    sb_add(x->b, "</tr></thead>\n<tbody>\n");
    for (int i = 0; i < a->ncapture; i++) {
        const capture_window *w = &ci->windows[a->capture[i].window];
        char path[FIG_PATH], label[48];
        path_capture(path, i);
        if (a->m->nprocesses > 1)
            snprintf(label, sizeof label, "process %u #%d", w->pid, w->number);
        else
            snprintf(label, sizeof label, "capture %d", w->number);
        sb_add(x->b, "<tr><td>");
        sb_html(x->b, label);
        sb_add(x->b, "</td><td><code>");
        sb_html(x->b, w->began);
        sb_add(x->b, "</code> ");
        sb_html(x->b, w->began_detail);
        sb_add(x->b, "</td><td><code>");
        sb_html(x->b, w->ended);
        sb_add(x->b, "</code> ");
        sb_html(x->b, w->ended_detail);
        sb_add(x->b, "</td>");
        for (int c = 0; c < NCOLS; c++)
            html_fig_cell(x, &capture_table, &a->capture[i], cols[c], path, false);
        sb_add(x->b, "</tr>\n");
    }
    sb_add(x->b, "</tbody></table></div>\n");
}
