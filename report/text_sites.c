/* The text report's "Launched from": per kernel, copy, memset or call, the lines of the program
 * its calls were made from (call_sites.h), most calls first. Shown where the run has call sites. */
#include <string.h>

#include "host_idle.h"
#include "text_parts.h"

#define TEXT_SITE_ROWS 20 /* targets shown; the JSON has every one */

void text_sites(ctx *x, const analysis *a)
{
    const host_analysis *h = a->host;
    fprintf(x->out, "\n%sLaunched from%s  (the user's line of the host stack at each call)\n", c(x, BOLD),
            c(x, RESET));
    fprintf(x->out, "%s%-6s %-32s %6s  %-38s %6s %6s%s\n", c(x, DIM), "kind", "name", "total", "from", "calls",
            "share", c(x, RESET));
    static const text_col cols[] = {{"count", 6, false}, {"share_pct", 6, true}};
    for (int i = 0; i < h->nsites && i < TEXT_SITE_ROWS; i++) {
        const call_site_row *r = &h->sites[i];
        char name[40], at[48];
        clipped(r->name, 32, name, sizeof name);
        for (int k = 0; k < r->nsites; k++) {
            if (k == 0)
                fprintf(x->out, "%-6s %-32s %6d ", r->kind, name, r->calls);
            else
                fprintf(x->out, "%-6s %-32s %6s ", "", "", "");
            clipped(r->sites[k].at, 38, at, sizeof at); /* the line within 100 columns */
            fprintf(x->out, " %-38s", at);
            fig_cells(x, &call_site_table, &r->sites[k], cols, 2);
            fputc('\n', x->out);
        }
        if (r->other_sites > 0)
            fprintf(x->out, "%-47s  (%d more lines)\n", "", r->other_sites);
    }
    if (h->nsites > TEXT_SITE_ROWS)
        fprintf(x->out, "  (%d more in the JSON report)\n", h->nsites - TEXT_SITE_ROWS);
}
