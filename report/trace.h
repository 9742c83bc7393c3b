/* The trace output: the run as Chrome trace event JSON, which Perfetto and chrome://tracing open.
 *
 * One process for the host (mmprof's NVTX phases, each workload's NVTX phases, CUDA runtime
 * calls per host thread) and one per GPU (a thread per stream for kernels, one per copy
 * direction). Every interval is a complete ('X') event in microseconds from the run's start,
 * with its figures as args; 'M' events name and order processes and threads. Intervals that would
 * overlap without nesting on one thread go to a second thread of the same name, so Perfetto never
 * needs an overflow track. */
#ifndef MMPROF_REPORT_TRACE_H
#define MMPROF_REPORT_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "text_sink.h"

/* The document as a string (the caller frees it), or NULL when memory ran out. */
char *render_trace(const analysis *a);
/* The same document handed to sink as it is written (never whole in memory). False with why in
 * err, or where the sink failed (the sink says why). */
bool render_trace_to(const analysis *a, const text_sink *sink, char *err, size_t errlen);
/* How much text render_trace_to gathers before handing it over: 1 MiB; tests lower it. */
extern size_t trace_spill_bytes;

/* A long run's trace is windowed. Past TRACE_MAX_EVENTS slices it keeps the run's GPU work
 * (kernels and copies), its NVTX ranges and annotations, capture windows and mmprof's own phases
 * whole, and the CUDA API calls, host samples and CPU spans of the run's first stretch only:
 * those starting before the time at which the budget is spent (a minute of training is 1.8 M API
 * calls and 0.1 M kernels). Where the GPU work alone is over the budget, the GPU work after that
 * time goes too. The trace says so in otherData.windowed, trace_window_note on stderr; the HTML
 * timeline windows the same way at its own budget (html_events.c). */
/* 700,000: the H200's minute of PyTorch training windowed at a million slices wrote 264 MB (its
 * API calls carry call sites, its host samples stacks), over chrome://tracing's 256 MB below; at
 * this budget the synthetic minute's (make bench-long) is 147 MB, and that run's about 185 MB by
 * the same proportion (not measured again). */
#define TRACE_MAX_EVENTS 700000

/* The budget in use: TRACE_MAX_EVENTS; tests lower it. */
extern size_t trace_max_events;

typedef struct {
    bool windowed;
    int64_t host_cut, gpu_cut; /* API calls and host samples and spans, and kernels and copies,
                                * starting at or after these are left out (INT64_MAX: none) */
    size_t total, kept;        /* slices of the run, and of the trace */
} trace_window;

/* The window of a's trace; false when memory ran out. */
bool trace_window_of(const analysis *a, trace_window *w);

/* Says on err what the trace of a (written to path) leaves out, as its otherData.windowed says;
 * nothing when it keeps everything. */
void trace_window_note(const analysis *a, const char *path, FILE *err);

/* The largest JSON trace chrome://tracing opens: 256 MiB (google/trace-viewer#627). Perfetto's
 * UI holds a trace in the browser's memory, typically 2 GB, at 2 to 4 times its size
 * (perfetto.dev/docs/visualization/large-traces), so past this it may fail too. */
#define TRACE_VIEWER_MAX_BYTES ((size_t)256 << 20)

/* Says on err that a trace of bytes is too large to open comfortably, with the figure and what
 * to do instead; nothing below TRACE_VIEWER_MAX_BYTES. */
void trace_size_warning(size_t bytes, const char *path, FILE *err);

#endif
