/* The text report's hardware-counter table (mmprof --counters): per GPU workload its main
 * kernel's speed-of-light figures, the product's DRAM bytes and FLOPs, and what bounds it with
 * the figure that decided. */
#include <string.h>

#include "source.h"
#include "tables.h"
#include "text_parts.h"

/* profile --counters: a row per profiled launch, as many as its declaration shows (the JSON and
 * CSV keep every launch). */
static void launch_counters(ctx *x, const analysis *a)
{
    const run_model *m = a->m;
    char head[400];
    int at = snprintf(head, sizeof head, "%d launch%s", m->nlaunch_counters, m->nlaunch_counters == 1 ? "" : "es");
    if (m->counters.kernels[0])
        at += snprintf(head + at, sizeof head - (size_t)at, " of kernels matching /%.60s/", m->counters.kernels);
    if (m->counters.max > 0)
        at += snprintf(head + at, sizeof head - (size_t)at, " (at most %ld)", m->counters.max);
    if (m->counters.from[0]) /* --ncu, or an import of the CSV alone */
        snprintf(head + at, sizeof head - (size_t)at, " from Nsight Compute's CSV export %.200s (ncu's own run%s)",
                 m->counters.from, !source_has(m->source, HAS_TIMELINE) ? ", no timeline" : ", matched to this run's kernels by name and launch order");
    else
        snprintf(head + at, sizeof head - (size_t)at,
                 ", each replayed within its launch once per counter pass (kernel replay); Nsight Compute's metrics. "
                 "DRAM bytes written: n/a (the replay's memory restore is counted in them)");
    wrapped(x, 20, head);
    fprintf(x->out, "%s%-32s %7s %9s %5s %5s %5s %8s %5s %5s %6s %7s %s%s\n", c(x, DIM), "kernel", "pid", "us", "occ%",
            "SM%", "mem%", "DRAM rd", "L1%", "L2%", "tensor", "TFLOP/s", "bound by", c(x, RESET));
    static const text_col cols[] = {
        {"duration_us", 9, false}, {"achieved_occupancy_pct", 5, false}, {"sm_throughput_pct", 5, false},
        {"memory_throughput_pct", 5, false}, {"dram_read_bytes", 8, true}, {"l1_hit_pct", 5, false},
        {"l2_hit_pct", 5, false}, {"tensor_pct", 6, false}, {"achieved_tflops", 7, false},
    };
    int shown = table_shown(&table_launch, m->nlaunch_counters, false);
    for (int i = 0; i < shown; i++) {
        const launch_metrics *r = &a->launches[i];
        char name[64];
        kernel_display_name(r->k->name, name, sizeof name);
        fprintf(x->out, "%-32.32s %7u", name, r->k->pid);
        fig_cells(x, &launch_counter_table, r, cols, (int)(sizeof cols / sizeof cols[0]));
        fprintf(x->out, " %s\n", r->bound_text);
    }
    if (m->nlaunch_counters > shown)
        fprintf(x->out, "... and %d more launches (every one is in the JSON)\n", m->nlaunch_counters - shown);
    fprintf(x->out, "%sus: the kernel's duration in the counter pass (replayed, slower than its own run). TFLOP/s: "
                    "executed FP32 FLOPs (2 x FFMA + FADD + FMUL) over it.%s\n", c(x, DIM), c(x, RESET));
}

void text_counters(ctx *x, const analysis *a)
{
    const run_model *m = a->m;
    if (!source_has(m->source, HAS_WORKLOADS)) { /* its counters are per launch */
        fprintf(x->out, "\n%sHardware counters%s  ", c(x, BOLD), c(x, RESET));
        if (m->nlaunch_counters == 0)
            wrapped(x, 20, m->counters.why[0] ? m->counters.why : "no launch was profiled");
        else
            launch_counters(x, a);
        return;
    }
    fprintf(x->out, "\n%sHardware counters%s  ", c(x, BOLD), c(x, RESET));
    if (m->counters.why[0]) {
        wrapped(x, 20, m->counters.why);
        return;
    }
    char head[240];
    snprintf(head, sizeof head, "a pass after the timed launches, each kernel replayed for each of %d passes, "
                                "DRAM bytes from one more launch after an L2 flush; Nsight Compute's metrics; bytes "
                                "and FLOPs per product", m->counters.passes);
    wrapped(x, 20, head);
    fprintf(x->out, "%s%-17s %6s %5s %5s %8s %8s %5s %5s %6s %7s %6s %s%s\n", c(x, DIM), "workload", "occ%", "SM%",
            "mem%", "DRAM rd", "DRAM wr", "L1%", "L2%", "tensor", "TFLOP/s", "FLOP/B", "bound by", c(x, RESET));
    static const text_col cols[] = {
        {"achieved_occupancy_pct", 6, false}, {"sm_throughput_pct", 5, false}, {"memory_throughput_pct", 5, false},
        {"dram_read_bytes", 8, true}, {"dram_write_bytes", 8, true}, {"l1_hit_pct", 5, false}, {"l2_hit_pct", 5, false},
        {"tensor_pct", 6, false},
    };
    /* A tensor-core product executes no FP32 FLOPs to count: its TFLOP/s is 2n^3 over the kernel time. */
    static const text_col executed = {"achieved_tflops", 7, false}, nominal = {"tflops", 7, false},
                          intensity = {"intensity", 6, false};
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        const workload_run *w = r->w;
        if (!w->needs_gpu || w->status == WL_SKIPPED || (w->ncounters == 0 && !w->counters_why[0]))
            continue;
        if (w->ncounters == 0) {
            fprintf(x->out, "%-17.17s n/a: ", w->name);
            wrapped(x, 23, w->counters_why);
            continue;
        }
        fprintf(x->out, "%-17.17s", w->name);
        fig_cells(x, &workload_metric_table, r, cols, (int)(sizeof cols / sizeof cols[0]));
        fig_cell(x, &workload_metric_table, r, r->achieved_tflops.ok ? &executed : &nominal);
        fig_cell(x, &workload_metric_table, r, &intensity);
        fprintf(x->out, " %s\n", r->bound_text);
    }
    fprintf(x->out, "%sTFLOP/s: executed FP32 FLOPs (2 x FFMA + FADD + FMUL) over the kernel time; for tensor-core "
                    "products 2n^3 over it. FLOP/B: those FLOPs per DRAM byte.%s\n", c(x, DIM), c(x, RESET));
}
