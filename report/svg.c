/* SVG primitives. See svg.h. */
#include "svg.h"

#include <math.h>
#include <string.h>

void svg_open(strbuf *b, double w, double h, const char *cls, const char *label)
{
    sb_printf(b, "<svg class=\"chart%s%s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
                 "role=\"img\" aria-label=\"", cls ? " " : "", cls ? cls : "", w, h, w, h);
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
    sb_printf(b, "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"", cls, x, y, w, h);
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

void svg_text(strbuf *b, double x, double y, const char *anchor, const char *cls, const char *text)
{
    sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
    if (anchor && strcmp(anchor, "start") != 0)
        sb_printf(b, " text-anchor=\"%s\"", anchor);
    if (cls)
        sb_printf(b, " class=\"%s\"", cls);
    sb_add(b, ">");
    sb_html(b, text);
    sb_add(b, "</text>");
}

void svg_line(strbuf *b, double x1, double y1, double x2, double y2, const char *cls)
{
    sb_printf(b, "<line class=\"%s\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/>", cls, x1, y1, x2, y2);
}

void svg_circle(strbuf *b, double cx, double cy, double r, const char *cls, const char *tip)
{
    sb_printf(b, "<circle class=\"%s\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\"", cls, cx, cy, r);
    if (tip) {
        sb_add(b, "><title>");
        sb_html(b, tip);
        sb_add(b, "</title></circle>");
    } else {
        sb_add(b, "/>");
    }
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
