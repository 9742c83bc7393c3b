/* Rendering a figure's history (history_report.h). */
#include "history_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metric.h"
#include "strbuf.h"
#include "svg.h"

/* A history figure as the registry's history table writes it (value_figures.c). */
#define HV(key, v, unit) value_text(&history_value_table, (key), (v), (unit)).s
/* A coordinate of the chart, one decimal (svg.c's one place for chart geometry). */
#define XY(v) svg_num((v), 1).s

static int changes(const history_view *v)
{
    int n = 0;
    for (int i = 0; i < v->n; i++)
        n += v->p[i].changed != 0;
    return n;
}

static void change_words(const history_point *p, char *buf, size_t len)
{
    double pct = p->baseline != 0 ? 100 * (p->value - p->baseline) / p->baseline : NAN;
    if (isfinite(pct))
        snprintf(buf, len, "%s %s", p->changed > 0 ? "up" : "down", HV("change_pct", pct, true));
    else
        snprintf(buf, len, "%s", p->changed > 0 ? "up" : "down");
}

void render_history_text(const history_view *v, FILE *f)
{
    fprintf(f, "%s: %s %s (%s), %d run%s in time order; ! a run outside the band of the runs before it\n", v->db,
            v->what, v->label, v->figure, v->n, v->n == 1 ? "" : "s");
    fprintf(f, "  %-8s %-22s %-13s %14s  %s\n", "run", "started", "key", v->unit, "band (median +- noise)");
    int from = v->last > 0 && v->n > v->last ? v->n - v->last : 0;
    if (from > 0)
        fprintf(f, "  (%d earlier runs not shown)\n", from);
    for (int i = from; i < v->n; i++) {
        const history_point *p = &v->p[i];
        char band[2 * sizeof(num_text) + 4] = "", ch[sizeof(num_text) + 8] = "";
        if (isfinite(p->baseline))
            snprintf(band, sizeof band, "%s +- %s", HV("figure", p->baseline, false), HV("band", p->band, false));
        if (p->changed)
            change_words(p, ch, sizeof ch);
        char line[256];
        int n = snprintf(line, sizeof line, "%c %-8lld %-22s %-13s %14s  %-26s %s", p->changed ? '!' : ' ', p->id,
                         p->started_at, p->key, HV("value", p->value, false), band, ch);
        while (n > 0 && n < (int)sizeof line && line[n - 1] == ' ')
            line[--n] = '\0'; /* no trailing blanks where a run has no band or change */
        fprintf(f, "%s\n", line);
    }
    int nc = changes(v);
    fprintf(f, "%d run%s changed it", nc, nc == 1 ? "" : "s");
    for (int i = 0, said = 0; i < v->n && said < 10; i++)
        if (v->p[i].changed) {
            char ch[sizeof(num_text) + 8];
            change_words(&v->p[i], ch, sizeof ch);
            fprintf(f, "%s run %lld (%s)", said++ ? "," : ":", v->p[i].id, ch);
        }
    fprintf(f, "\n");
}

static void num(strbuf *b, double v)
{
    sb_add(b, isfinite(v) ? HV("number", v, false) : "null");
}

char *render_history_json(const history_view *v)
{
    strbuf b;
    sb_init(&b);
    sb_add(&b, "{\n  \"database\": \"");
    sb_json(&b, v->db);
    sb_add(&b, "\",\n  \"what\": \"");
    sb_json(&b, v->what);
    sb_printf(&b, "\",\n  \"figure\": \"%s\",\n  \"unit\": \"", v->figure);
    sb_json(&b, v->unit);
    sb_printf(&b, "\",\n  \"changes\": %d,\n  \"runs\": [", changes(v));
    for (int i = 0; i < v->n; i++) {
        const history_point *p = &v->p[i];
        sb_printf(&b, "%s\n    {\"id\": %lld, \"started_at\": \"", i ? "," : "", p->id);
        sb_json(&b, p->started_at);
        sb_printf(&b, "\", \"key\": \"%s\", \"value\": ", p->key);
        num(&b, p->value);
        sb_add(&b, ", \"own_noise\": ");
        num(&b, p->own_noise);
        sb_add(&b, ", \"baseline\": ");
        num(&b, p->baseline);
        sb_add(&b, ", \"band\": ");
        num(&b, p->band);
        sb_printf(&b, ", \"changed\": %s}", p->changed > 0 ? "\"up\"" : p->changed < 0 ? "\"down\"" : "null");
    }
    sb_add(&b, "\n  ]\n}\n");
    return sb_finish(&b);
}

/* The page: the figure as a line over the runs, the band shaded where judged, a run that changed
 * it a red dot with its id; a table of the changes under it. SVG in the page, no script. */
char *render_history_html(const history_view *v)
{
    strbuf b;
    sb_init(&b);
    const double W = 900, H = 320, L = 70, R = 20, T = 20, B = 40;
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < v->n; i++) {
        const history_point *p = &v->p[i];
        double a = p->value, c = isfinite(p->baseline) ? p->baseline - p->band : a, d = isfinite(p->baseline) ? p->baseline + p->band : a;
        lo = fmin(lo, fmin(a, c));
        hi = fmax(hi, fmax(a, d));
    }
    if (!(hi > lo))
        lo = lo - 1, hi = hi + 1;
    double span = hi - lo;
    lo -= span * 0.05, hi += span * 0.05;
#define X(i) (L + (v->n > 1 ? (double)(i) / (v->n - 1) : 0.5) * (W - L - R))
#define Y(val) (T + (1 - ((val) - lo) / (hi - lo)) * (H - T - B))
    sb_add(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>mmprof history</title>\n"
               "<style>body{font:14px system-ui,sans-serif;margin:2em;color:#222}svg{background:#fff;border:1px solid #ccc}"
               ".band{fill:#cfe3f7}.line{fill:none;stroke:#1f5fa8;stroke-width:1.5}.changed{fill:#c0392b}"
               "td,th{padding:2px 10px;text-align:left}</style></head><body>\n<h1>");
    sb_html_printf(&b, "%s: %s %s", v->what, v->label, v->unit);
    sb_add(&b, "</h1>\n<p>");
    sb_html_printf(&b, "%s, %d runs in time order. The band is the median of the runs before each one, plus or "
                       "minus their noise; a red dot is a run outside it: it changed the figure.",
                   v->db, v->n);
    sb_printf(&b, "</p>\n<svg role=\"img\" aria-label=\"the figure over the runs\" width=\"%s\" height=\"%s\" "
                  "viewBox=\"0 0 %s %s\">\n",
              svg_num(W, 0).s, svg_num(H, 0).s, svg_num(W, 0).s, svg_num(H, 0).s);
    /* the band, one quadrilateral between judged neighbours */
    for (int i = 1; i < v->n; i++) {
        const history_point *a = &v->p[i - 1], *c = &v->p[i];
        if (!isfinite(a->baseline) || !isfinite(c->baseline))
            continue;
        sb_printf(&b, "<polygon class=\"band\" points=\"%s,%s %s,%s %s,%s %s,%s\"/>\n", XY(X(i - 1)),
                  XY(Y(a->baseline + a->band)), XY(X(i)), XY(Y(c->baseline + c->band)), XY(X(i)),
                  XY(Y(c->baseline - c->band)), XY(X(i - 1)), XY(Y(a->baseline - a->band)));
    }
    sb_add(&b, "<polyline class=\"line\" points=\"");
    for (int i = 0; i < v->n; i++)
        sb_printf(&b, "%s,%s ", XY(X(i)), XY(Y(v->p[i].value)));
    sb_add(&b, "\"/>\n");
    for (int i = 0; i < v->n; i++)
        if (v->p[i].changed)
            sb_printf(&b, "<circle class=\"changed\" cx=\"%s\" cy=\"%s\" r=\"4\"><title>run %lld</title></circle>\n",
                      XY(X(i)), XY(Y(v->p[i].value)), v->p[i].id);
    sb_printf(&b, "<text x=\"4\" y=\"%s\">%s</text><text x=\"4\" y=\"%s\">%s</text>\n", XY(Y(hi) + 12),
              HV("figure", hi, false), XY(Y(lo)), HV("figure", lo, false));
    sb_printf(&b, "<text x=\"%s\" y=\"%s\">runs, oldest to newest</text>\n", svg_num(L, 0).s, svg_num(H - 10, 0).s);
    sb_add(&b, "</svg>\n<table><tr><th>run</th><th>started</th><th>value</th><th>band</th><th>change</th></tr>\n");
    for (int i = 0; i < v->n; i++) {
        const history_point *p = &v->p[i];
        if (!p->changed)
            continue;
        char ch[sizeof(num_text) + 8];
        change_words(p, ch, sizeof ch);
        sb_printf(&b, "<tr><td>%lld</td><td>", p->id);
        sb_html(&b, p->started_at);
        sb_printf(&b, "</td><td>%s</td><td>%s &plusmn; %s</td><td>%s</td></tr>\n", HV("figure", p->value, false),
                  HV("figure", p->baseline, false), HV("band", p->band, false), ch);
    }
    sb_add(&b, "</table>\n</body></html>\n");
#undef X
#undef Y
    return sb_finish(&b);
}
