/* The registry's tables of values (metric.h): figures printed from a number the caller holds, each
 * row declaring once how the value reads (unit and format), as metrics.c's rows do for the
 * figures of a row. A sentence names the row by its key (value_text), never a printf format. */
#include "metric.h"

#define VAL(key, label, unit, fmt, what) {key, label, unit, fmt, 0, what, BETTER_NONE}
#define TABLE(var, name, defs) const metric_table var = {name, defs, (int)(sizeof defs / sizeof defs[0])}

/* The verdict's sentences (verdict.c): the figure that decided a span's verdict and its advice.
 * A product's are per product. Their formats are the sentences' own: a sentence rounds a share to
 * a whole percent and TFLOP/s to one decimal, where a table gives more. */
static const metric_def verdict_figure_defs[] = {
    VAL("kernel_ms", "kernels", "ms", "%.3f", "kernel time of the span"),
    VAL("copy_ms", "copies", "ms", "%.3f", "copy time of the span"),
    VAL("wall_ms", "wall", "ms", "%.3f", "the span's wall time"),
    VAL("sync_ms", "sync", "ms", "%.3f", "host time waiting in synchronization"),
    VAL("lead_idle_ms", "before GPU", "ms", "%.3f", "from the span's start to its first GPU work"),
    VAL("largest_gap_ms", "largest gap", "ms", "%.3f", "the longest stretch with nothing on the GPU"),
    VAL("copy_compute_ratio", "memcpy:compute", "", "%.2f", "copy time over kernel time"),
    VAL("busy_pct", "busy", "%", "%.1f", "GPU busy time over the span's wall time"),
    VAL("short_kernel_pct", "short kernels", "%", "%.0f", "kernels under 10 us, % of launches"),
    VAL("launch_us", "launch", "us", "%.1f", "median duration of a launch call"),
    VAL("kernel_us", "kernel median", "us", "%.1f", "median kernel duration"),
    VAL("tflops", "TFLOP/s", "TFLOP/s", "%.1f", "FLOPs over kernel time"),
    VAL("peak_pct", "%peak", "%", "%.1f", "that over the device's peak for the product's precision"),
    VAL("top_kernel_share_pct", "top kernel", "%", "%.0f", "of kernel time, the kernel that takes most"),
    VAL("copy_gbps", "GB/s", "GB/s", "%.1f", "a direction's copies from one kind of host memory: bytes / time"),
    VAL("pageable_pct", "pageable", "%", "%.0f", "of copy time, the copies from pageable host memory"),
    VAL("small_copies", "small copies", "", "%.0f", "copies moving less than 64 KB each"),
    VAL("copy_hidden_pct", "copies hidden", "%", "%.0f", "of copy time, the part kernels ran during"),
};
TABLE(verdict_figure_table, "verdict_figure", verdict_figure_defs);

/* What a report prints that no analysis row holds: the record's own facts (a device's memory, a
 * verification's error, an event's time as recorded), the options the run or command echoes. */
static const metric_def report_value_defs[] = {
    VAL("device_memory_gib", "memory", "GiB", "%.1f", "the device's memory as its record gives it, in GiB (2^30 bytes)"),
    VAL("max_noise_pct", "max noise", "%", "%.2f", "--max-noise: sampling stops once the noise is at most this"),
    VAL("max_time_s", "max time", "s", "%.2f", "--max-time: ... or once this much sampling per workload and size passed"),
    VAL("flush_ms", "flush", "ms", "%.1f", "the collector's final flush of CUPTI's buffers, by its own clock"),
    VAL("rel_error", "error", "", "%.1e", "relative Frobenius error of a product against an FP64 OpenBLAS one"),
    VAL("error_bound", "bound", "", "%.0e", "the error a product's verification allows"),
    VAL("tool_phase_ms", "phase", "ms", "%.0f", "one phase of mmprof's own time in a built-in run"),
    VAL("event_ms", "time", "ms", "%.3f", "an event's time or length as the record has it (its nanoseconds in ms)"),
    VAL("axis_ms", "time", "ms", "%.1f", "a time axis's end, from the run's start"),
    VAL("copy_mib", "bytes", "MiB", "%.1f", "a copy's bytes as its record gave them, in MiB"),
    VAL("peer_copy_mib", "peer copy", "MiB", "%.0f", "the bytes of one timed peer copy of a --devices run, in MiB"),
    VAL("smem_kib", "shared memory", "KiB", "%.1f", "a kernel's shared memory per block (static and dynamic), in KiB"),
    VAL("idle_call_ms", "call", "ms", "%.3f", "a CUDA call's time inside an idle stretch (analysis.idle_gaps[].calls[].ms)"),
    VAL("trace_window_s", "trace window", "s", "%.3f", "a windowed trace: the run's time it keeps, and the run's length"),
    VAL("trace_mb", "trace", "MB", "%.0f", "a trace file's size, in MB of 10^6 bytes"),
    VAL("compare_threshold_pct", "threshold", "%", "%.4g", "mmprof compare --threshold"),
    VAL("diff_threshold_pct", "threshold", "%", "%g", "mmprof diff --threshold"),
};
TABLE(report_value_table, "report_value", report_value_defs);

/* mmprof diff (diff.h): how much a figure changed, and the noise the change had to beat. */
static const metric_def diff_value_defs[] = {
    VAL("value_ms", "value", "ms", "%.3f", "the figure on one side, in the text"),
    VAL("number", "number", "", "%.6g", "a number of the JSON, and the Markdown table's figure on one side"),
    VAL("delta_ms", "change", "ms", "%+.3f", "new less base"),
    VAL("delta_pct", "change", "%", "%+.1f", "that over the base"),
    VAL("noise_ms", "noise", "ms", "%.3f", "the change to beat: the larger side's spread, or the floor"),
    /* a state's part of a range's change: a tenth of a millisecond where that is a small part of
     * it, else three decimals */
    VAL("part_ms", "part", "ms", "%+.1f", "a state's part of a range's change, 1 ms or more"),
    VAL("part_small_ms", "part", "ms", "%+.3f", "a state's part of a range's change, under 1 ms"),
};
TABLE(diff_value_table, "diff_change", diff_value_defs);

/* mmprof history (history.h): one figure across stored runs. The figure is any key of a range
 * group or of the run's region, so its value is shown one way whatever its own format (the
 * figure's unit heads the column), the band's median and noise another. */
static const metric_def history_value_defs[] = {
    VAL("value", "value", "", "%.4f", "the figure in one run, in the text table's column"),
    VAL("figure", "figure", "", "%.4g", "a value in four significant digits: the band's median, the page's values and its axis's ends"),
    VAL("band", "noise", "", "%.3g", "the noise of the runs a run is judged against: its band is their median plus or minus this"),
    VAL("change_pct", "change", "%", "%+.1f", "a run that changed the figure: its value against the median"),
    VAL("number", "number", "", "%.6g", "a number of the JSON"),
};
TABLE(history_value_table, "history_point", history_value_defs);

const metric_table *const value_tables[] = {&verdict_figure_table, &report_value_table, &diff_value_table,
                                            &history_value_table};
const int value_ntables = (int)(sizeof value_tables / sizeof value_tables[0]);
