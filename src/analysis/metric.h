/* A figure that was measured or carries the reason it could not be (nvtop's valid bit): a
 * renderer prints "n/a (reason)", JSON writes null with the reason, never a 0 nobody measured.
 *
 * The metric registry: each figure a report shows is defined once, here, with its key (JSON and
 * CSV), label, unit, format and how it is computed; text, JSON, HTML and trace arguments walk the
 * tables instead of naming figures one by one, so a new figure is one line in metrics.c. */
#ifndef MMPROF_METRIC_H
#define MMPROF_METRIC_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    double v;
    bool ok;
    /* When !ok, why (metric_na; read it through metric_why): interned, one copy of each distinct
     * reason for the process's life, so that a long run's thousands of regions, with a table of
     * figures per kernel and per call each, hold a pointer per figure rather than 96 bytes. */
    const char *reason;
} metric;

/* The reason of an n/a figure ("" where none was given). */
static inline const char *metric_why(const metric *m) { return m->reason ? m->reason : ""; }

void metric_set(metric *m, double v);
void metric_na(metric *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* scale * a / b, or n/a with the reason of whichever input is missing. */
void metric_ratio(metric *out, const metric *a, const metric *b, double scale);
/* The memcpy-to-compute ratio: copy time over kernel time of the same work (a region's summed
 * times, one product's); n/a with the reason where either is missing or no kernel ran. */
void copy_compute(metric *out, const metric *copy_ms, const metric *kernel_ms);

/* Which way a figure improves, for comparisons (mmprof compare): times lower, throughputs higher;
 * NONE for figures that only describe (bytes, shares, occupancy). */
typedef enum { BETTER_NONE = 0, BETTER_LOWER, BETTER_HIGHER } metric_better;

typedef struct {
    const char *key;   /* snake_case: the JSON member and CSV column */
    const char *label; /* a short heading */
    const char *unit;  /* "ms", "GB/s", "%", "B", "TFLOP/s", "x", "" */
    const char *fmt;   /* printf format of the value alone */
    size_t offset;     /* of the metric inside the struct the table describes */
    const char *what;  /* how it is computed, one line */
    metric_better better;
} metric_def;

typedef struct {
    const char *name; /* what one row is: "region", "workload", "kernel", ... (unique, no spaces) */
    const metric_def *defs;
    int n;
} metric_table;

/* The tables (metrics.c): one per struct of figures. */
extern const metric_table workload_metric_table;  /* workload_metrics (analysis.h) */
extern const metric_table kernel_summary_table;   /* kernel_summary (analysis.h) */
extern const metric_table device_peaks_table;     /* device_peaks (analysis.h) */
extern const metric_table region_metric_table;    /* region_metrics (regions.h) */
extern const metric_table kernel_stat_table;      /* kernel_stat (regions.h) */
extern const metric_table copy_flow_table;        /* copy_flow (regions.h) */
extern const metric_table sweep_point_table;      /* sweep_point (sweep.h) */
extern const metric_table crossover_table;        /* crossover (sweep.h) */
extern const metric_table api_stat_table;         /* api_stat (regions.h) */
extern const metric_table rank_share_table;       /* rank_share (ranks.h): per rank and per GPU */
extern const metric_table straggler_table;        /* straggler (ranks.h) */
extern const metric_table device_workload_table;  /* device_workload_row (devices.h) */
extern const metric_table device_aggregate_table; /* device_aggregate_row (devices.h) */
extern const metric_table device_pass_table;      /* device_pass_row (devices.h) */
extern const metric_table peer_table;             /* peer_row (devices.h) */
extern const metric_table launch_counter_table;   /* launch_metrics (analysis.h): profile --counters */
extern const metric_table busy_span_table;        /* busy_span (analysis.h) */
extern const metric_table run_metric_table;       /* analysis (analysis.h): the run as a whole */
extern const metric_table devices_run_table;      /* devices_analysis (devices.h): a --devices run as a whole */
extern const metric_table stream_table;           /* stream_metrics (overlap.h) */
extern const metric_table range_group_table;      /* range_group (range_groups.h) */
extern const metric_table idle_gap_table;         /* idle_stretch (idle_causes.h): analysis.idle_gaps */
extern const metric_table idle_share_table;       /* idle_share (idle_causes.h): analysis.idle_breakdown */
extern const metric_table capture_table;          /* capture_metrics (capture.h): profile's capture windows */
extern const metric_table host_view_table;        /* host_view (host_where.h): analysis.host */
extern const metric_table host_fn_table;          /* host_fn (host_where.h): a host view's frames */
extern const metric_table call_site_table;        /* call_site (call_sites.h): analysis.host.sites */
extern const metric_table host_collection_table;  /* host_collection (host_idle.h): analysis.host.collection */
extern const metric_table account_table;          /* wall_account (accounts.h): analysis.accounts */
extern const metric_table account_row_table;      /* account_row (accounts.h): an account's states */
extern const metric_table account_cause_table;    /* host_cause_row (accounts.h): an account's host causes */
/* finding (summary.h): a finding's deciding figure, one table per unit (finding_table) */
extern const metric_table finding_ms_table, finding_pct_table, finding_x_table, finding_runs_table,
    finding_events_table, finding_n_table, finding_mb_table;
/* GPU memory (memory.h): analysis.memory */
extern const metric_table memory_series_table;  /* mem_series: per process and device */
extern const metric_table memory_holder_table;  /* mem_holder: live at a peak or a failure, by site */
extern const metric_table memory_point_table;   /* mem_point: a series' timeline */
extern const metric_table memory_leak_table;    /* mem_leak: never freed, by site */
extern const metric_table memory_range_table;   /* mem_range: a range's or a group's peak and growth */
extern const metric_table memory_failure_table; /* mem_failure_row: a failed allocation */
extern const metric_table compare_row_table;      /* cmp_row (compare.h): one figure of two runs compared */

static inline const metric *metric_of(const void *row, const metric_def *d)
{
    return (const metric *)((const char *)row + d->offset);
}

const metric_def *metric_find(const metric_table *t, const char *key);

/* Tables of values (value_figures.c): figures a sentence or a renderer prints from a number it
 * holds rather than from a row's metric (a verdict's ratio of two times, a device's memory, an
 * option the run echoes, a diff's change). Each row declares the value's unit and format once, as
 * a row table's do; their offsets are 0 and mean nothing: the value is passed (value_text). They
 * are not among metric_tables, whose rows name a struct's metrics. */
extern const metric_table verdict_figure_table; /* verdict.c's sentences */
extern const metric_table report_value_table;   /* the record's facts and the options a report echoes */
extern const metric_table diff_value_table;     /* mmprof diff's change of a figure */
extern const metric_table history_value_table;  /* mmprof history's value of a figure and its band */
extern const metric_table *const value_tables[];
extern const int value_ntables;

/* Every table above, and the one of a name (NULL for none). */
extern const metric_table *const metric_tables[];
extern const int metric_ntables;
const metric_table *metric_table_named(const char *name);
/* Figure key of row (a struct t describes), and its definition in *def; NULL for a key t does not
 * have (a renderer's mistake, which its tests catch). */
const metric *metric_get(const metric_table *t, const void *row, const char *key, const metric_def **def);

/* The value in the definition's format, with its unit when with_unit ("3.271 ms"; "55.2%" and
 * "13.3x" without a space); "n/a" when not measured.
 * With the unit, bytes ("B") are shown with a decimal prefix and three significant digits
 * ("67.1 MB"), as every output shows them; without it, as the format says. */
void metric_format(const metric_def *d, const metric *m, bool with_unit, char *buf, size_t len);
/* The same for a value the caller holds: v as d's format and unit say (v is printed as it is,
 * NaN included: the caller says n/a where it was not measured). */
void metric_format_value(const metric_def *d, double v, bool with_unit, char *buf, size_t len);

/* A number as text, held by value: a sentence formats several at once, each one a call's result
 * (its array lives to the end of the full expression that called, C11 6.2.4p8), so no buffer is
 * declared per figure. */
typedef struct {
    char s[48];
} num_text;
/* v formatted as key of table t (a value table, or a row table's figure) says, with its unit when
 * unit; "?key" for a key t does not have (a caller's mistake, which the outputs' tests show). */
num_text value_text(const metric_table *t, const char *key, double v, bool unit);

/* The value as data for another program (the CSV): ten significant digits whatever the figure's
 * display format, so a spreadsheet gets what analysis computed, not the report's rounding; ""
 * when not measured (the reason is the JSON's). */
void metric_format_data(const metric *m, char *buf, size_t len);

#endif
