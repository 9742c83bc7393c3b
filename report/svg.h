/* Chart primitives for the HTML report: inline SVG written into a strbuf. Coordinates are in the
 * chart's own units (its viewBox); the page's CSS scales the whole chart to the column. Every
 * string passes through HTML escaping, and a shape's tip becomes its <title>: the browser shows
 * it on hover with scripts off, and the page's script turns it into a richer tooltip. */
#ifndef MMPROF_REPORT_SVG_H
#define MMPROF_REPORT_SVG_H

#include <stdbool.h>

#include "metric.h"
#include "strbuf.h"

/* A number of a chart's geometry (a coordinate, a length, a viewBox) with `decimals` decimals:
 * the one place layout becomes text. Not a figure (figures go through the registry: svg_fig): a
 * hundredth of a unit is finer than a pixel of any chart, a tenth enough across a lane. */
num_text svg_num(double v, int decimals);
/* An axis tick's value as %g writes it ("0.5", "25", "1e+06"): ticks are 1, 2 or 5 times a power
 * of ten (svg_nice_step), a power of ten on a log axis or a multiple of 25, which %g writes in the
 * fewest digits. Layout, not a figure; the caller adds the axis's unit. */
num_text svg_tick(double v);

/* <svg class="chart cls" viewBox="0 0 w h" role="img" aria-label="label">. */
void svg_open(strbuf *b, double w, double h, const char *cls, const char *label);
void svg_close(strbuf *b);

/* A rectangle at least min_w wide (so a 1 ns event still shows), classes cls, tip may be NULL.
 * attrs, when not NULL, is added inside the tag verbatim (the caller escapes it). */
void svg_rect(strbuf *b, double x, double y, double w, double h, double min_w, const char *cls,
              const char *attrs, const char *tip);
/* Text anchored at start, middle or end. */
void svg_text(strbuf *b, double x, double y, const char *anchor, const char *cls, const char *text);
/* A figure as a chart label: lead (may be NULL), then figure key of row (registry table t) as the
 * registry formats it, with its unit when unit, marked like html_fig's figures with its table and
 * its place in the JSON (path), so the page tests compare it with the JSON too. Nothing is written
 * for a figure that was not measured: the chart says n/a its own way. */
void svg_fig(strbuf *b, double x, double y, const char *anchor, const char *cls, const char *lead,
             const metric_table *t, const void *row, const char *key, const char *path, bool unit);
void svg_line(strbuf *b, double x1, double y1, double x2, double y2, const char *cls);
/* Vertical lines at the n xs, each from y1 down to y2, as one path of classes cls: a chart's grid
 * drawn with a tenth of the bytes of a <line> each (the pages repeat such grids by the hundred). */
void svg_vlines(strbuf *b, const double *xs, int n, double y1, double y2, const char *cls);

/* A circle of radius r at (cx, cy), classes cls, tip may be NULL. */
void svg_circle(strbuf *b, double cx, double cy, double r, const char *cls, const char *tip);
/* The same filled with color (a chart's own palette, "#2f6fb0"). */
void svg_dot(strbuf *b, double cx, double cy, double r, const char *cls, const char *color, const char *tip);
/* A line through n points in color, 2 units wide, classes cls. */
void svg_polyline(strbuf *b, const double *xs, const double *ys, int n, const char *cls, const char *color);
/* Text in color (a chart's own palette), anchored at its start. */
void svg_text_in(strbuf *b, double x, double y, const char *cls, const char *color, const char *text);

/* A step for about `want` ticks over [0, max]: 1, 2 or 5 times a power of ten. */
double svg_nice_step(double max, int want);

/* The chart x of value v on [lo, hi] mapped to [x0, x1], clamped. */
double svg_scale(double v, double lo, double hi, double x0, double x1);

#endif
