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

#include <stdio.h>

#include "analysis.h"

/* The document as a string (the caller frees it), or NULL when memory ran out. */
char *render_trace(const analysis *a);

/* The largest JSON trace chrome://tracing opens: 256 MiB (google/trace-viewer#627). Perfetto's
 * UI holds a trace in the browser's memory, typically 2 GB, at 2 to 4 times its size
 * (perfetto.dev/docs/visualization/large-traces), so past this it may fail too. */
#define TRACE_VIEWER_MAX_BYTES ((size_t)256 << 20)

/* Says on err that a trace of bytes is too large to open comfortably, with the figure and what
 * to do instead; nothing below TRACE_VIEWER_MAX_BYTES. */
void trace_size_warning(size_t bytes, const char *path, FILE *err);

#endif
