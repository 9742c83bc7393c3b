/* SVG primitives. See svg.h. */
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

num_text svg_num(double v, int decimals)
{
    num_text t;
    snprintf(t.s, sizeof t.s, "%.*f", decimals, v);
    return t;
}

num_text svg_tick(double v)
{
    num_text t;
    snprintf(t.s, sizeof t.s, "%g", v);
    return t;
}

/* A coordinate with two decimals (x: marks along a long timeline are a hundredth of a unit
 * apart) or one (y, text and paths). */
#define D2(v) svg_num((v), 2).s
#define D1(v) svg_num((v), 1).s

void svg_open(strbuf *b, double w, double h, const char *cls, const char *label)
{
    sb_printf(b, "<svg class=\"chart%s%s\" viewBox=\"0 0 %s %s\" width=\"%s\" height=\"%s\" role=\"img\" aria-label=\"",
              cls ? " " : "", cls ? cls : "", svg_num(w, 0).s, svg_num(h, 0).s, svg_num(w, 0).s, svg_num(h, 0).s);
    sb_html(b, label);
    sb_add(b, "\">");
}

void svg_close(strbuf *b)
{
    sb_add(b, "</svg>\n");
}

void svg_rect(strbuf *b, double x, double y, double w, double h, double min_w, const char *cls,
              const char *attrs, const char *tip)
{
    if (w < min_w)
        w = min_w;
    sb_printf(b, "<rect class=\"%s\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"", cls, D2(x), D1(y), D2(w), D1(h));
    if (attrs) {
        sb_add(b, " ");
        sb_add(b, attrs);
    }
    if (tip) {
        sb_add(b, "><title>");
        sb_html(b, tip);
        sb_add(b, "</title></rect>");
    } else {
        sb_add(b, "/>");
    }
}

static void text_open(strbuf *b, double x, double y, const char *anchor, const char *cls)
{
    sb_printf(b, "<text x=\"%s\" y=\"%s\"", D1(x), D1(y));
    if (anchor && strcmp(anchor, "start") != 0)
        sb_printf(b, " text-anchor=\"%s\"", anchor);
    if (cls)
        sb_printf(b, " class=\"%s\"", cls);
}

void svg_text(strbuf *b, double x, double y, const char *anchor, const char *cls, const char *text)
{
    text_open(b, x, y, anchor, cls);
    sb_add(b, ">");
    sb_html(b, text);
    sb_add(b, "</text>");
}

/* data-t, data-fig and data-u as html_fig writes them (html_common.c). */
static void fig_marks(strbuf *b, const metric_table *t, const metric_def *d, const char *path, bool unit)
{
    sb_printf(b, " data-t=\"%s\" data-fig=\"", t->name);
    sb_html(b, path);
    sb_printf(b, ".%s\"%s>", d->key, unit ? "" : " data-u=\"0\"");
}

void svg_fig(strbuf *b, double x, double y, const char *anchor, const char *cls, const char *lead,
             const metric_table *t, const void *row, const char *key, const char *path, bool unit)
{
    const metric_def *d;
    const metric *m = metric_get(t, row, key, &d);
    if (!m || !m->ok)
        return;
    char v[64];
    metric_format(d, m, unit, v, sizeof v);
    text_open(b, x, y, anchor, cls);
    if (lead) {
        sb_add(b, ">");
        sb_html(b, lead);
        sb_add(b, "<tspan");
        fig_marks(b, t, d, path, unit);
        sb_html(b, v);
        sb_add(b, "</tspan></text>");
        return;
    }
    fig_marks(b, t, d, path, unit);
    sb_html(b, v);
    sb_add(b, "</text>");
}

void svg_line(strbuf *b, double x1, double y1, double x2, double y2, const char *cls)
{
    sb_printf(b, "<line class=\"%s\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>", cls, D2(x1), D1(y1), D2(x2), D1(y2));
}

void svg_vlines(strbuf *b, const double *xs, int n, double y1, double y2, const char *cls)
{
    if (n <= 0)
        return;
    sb_printf(b, "<path class=\"%s\" d=\"", cls);
    for (int i = 0; i < n; i++)
        sb_printf(b, "M%s %sV%s", D2(xs[i]), D1(y1), D1(y2));
    sb_add(b, "\"/>");
}

/* A circle's attributes, then its tip (as its <title>) or the tag's end. */
static void circle(strbuf *b, double cx, double cy, double r, const char *cls, const char *color, const char *tip)
{
    sb_printf(b, "<circle class=\"%s\" cx=\"%s\" cy=\"%s\" r=\"%s\"", cls, D2(cx), D2(cy), D1(r));
    if (color)
        sb_printf(b, " fill=\"%s\"", color);
    if (tip) {
        sb_add(b, "><title>");
        sb_html(b, tip);
        sb_add(b, "</title></circle>");
    } else {
        sb_add(b, "/>");
    }
}

void svg_circle(strbuf *b, double cx, double cy, double r, const char *cls, const char *tip)
{
    circle(b, cx, cy, r, cls, NULL, tip);
}

void svg_dot(strbuf *b, double cx, double cy, double r, const char *cls, const char *color, const char *tip)
{
    circle(b, cx, cy, r, cls, color, tip);
}

void svg_polyline(strbuf *b, const double *xs, const double *ys, int n, const char *cls, const char *color)
{
    sb_printf(b, "<path class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"", cls, color);
    for (int i = 0; i < n; i++)
        sb_printf(b, "%s%s %s", i == 0 ? "M" : " L", D1(xs[i]), D1(ys[i]));
    sb_add(b, "\"/>");
}

void svg_text_in(strbuf *b, double x, double y, const char *cls, const char *color, const char *text)
{
    text_open(b, x, y, NULL, cls);
    sb_printf(b, " fill=\"%s\">", color);
    sb_html(b, text);
    sb_add(b, "</text>");
}

double svg_nice_step(double max, int want)
{
    if (!(max > 0) || want < 1)
        return 1;
    double raw = max / want;
    double p = pow(10, floor(log10(raw)));
    double f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

double svg_scale(double v, double lo, double hi, double x0, double x1)
{
    if (!(hi > lo))
        return x0;
    double t = (v - lo) / (hi - lo);
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    return x0 + t * (x1 - x0);
}
