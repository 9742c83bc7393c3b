/* The capture windows of `mmprof profile --delay/--duration/--capture-range` (run_model.capture):
 * one row of figures per window, beside its region's own figures (each window is a region of kind
 * "capture", so what ran in it comes from the region analysis like any region's). What this adds
 * is what lies outside the window: how long the program ran unrecorded before and after it, and
 * the CUDA runtime calls it made there. */
#ifndef MMPROF_CAPTURE_H
#define MMPROF_CAPTURE_H

#include <stdbool.h>

#include "metric.h"
#include "model.h"
#include "regions.h"

typedef struct {
    int window;          /* its index in run_model.capture.windows */
    metric wall_ms;      /* the window's span */
    metric kernels;      /* kernels launched inside it (its region's) */
    metric before_ms, after_ms;       /* unrecorded stretch before and after it */
    metric calls_before, calls_after; /* CUDA runtime calls made there */
} capture_metrics;

/* One row per window of m, from the regions' figures rg; false when memory ran out. */
bool analyze_capture(const run_model *m, const region_metrics *rg, capture_metrics **out, int *n);

#endif
