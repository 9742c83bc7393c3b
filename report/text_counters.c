/* The text report's hardware-counter table (mmprof --counters): per GPU workload its main
 * kernel's speed-of-light figures, the product's DRAM bytes and FLOPs, and what bounds it with
 * the figure that decided. */
#include <string.h>

#include "text_parts.h"

/* A metric scaled by 1/div (bytes as MB) in f, or n/a noted for the footer. */
static const char *scaled(ctx *x, char *buf, size_t len, const metric *m, double div, const char *f, const char *what)
{
    metric s = *m;
    if (s.ok)
        s.v /= div;
    return fmt(x, buf, len, &s, f, what);
}

/* Rows shown; the JSON and CSV keep every launch. */
#define MAX_LAUNCH_ROWS 40

/* profile --counters: a row per profiled launch. */
static void launch_counters(ctx *x, const analysis *a)
{
    const run_model *m = a->m;
    char head[400];
    int at = snprintf(head, sizeof head, "%d launch%s", m->nlaunch_counters, m->nlaunch_counters == 1 ? "" : "es");
    if (m->counters.kernels[0])
        at += snprintf(head + at, sizeof head - (size_t)at, " of kernels matching /%.60s/", m->counters.kernels);
    if (m->counters.max > 0)
        at += snprintf(head + at, sizeof head - (size_t)at, " (at most %ld)", m->counters.max);
    snprintf(head + at, sizeof head - (size_t)at,
             ", each replayed within its launch once per counter pass (kernel replay); Nsight Compute's metrics. "
             "DRAM bytes written: n/a (the replay's memory restore is counted in them)");
    wrapped(x, 20, head);
    fprintf(x->out, "%s%-32s %7s %9s %5s %4s %4s %8s %4s %4s %6s %7s %s%s\n", c(x, DIM), "kernel", "pid", "us", "occ%",
            "SM%", "mem%", "DRAM rd", "L1%", "L2%", "tensor", "TFLOP/s", "bound by", c(x, RESET));
    for (int i = 0; i < m->nlaunch_counters && i < MAX_LAUNCH_ROWS; i++) {
        const launch_metrics r = a->launches[i];
        char name[64], b[10][24];
        kernel_display_name(r.k->name, name, sizeof name);
        fprintf(x->out, "%-32.32s %7u %9s %5s %4s %4s %6sMB %4s %4s %6s %7s %s\n", name, r.k->pid,
                fmt(x, b[0], 24, &r.duration_us, "%.1f", "duration"),
                fmt(x, b[1], 24, &r.achieved_occupancy_pct, "%.1f", "achieved occupancy"),
                fmt(x, b[2], 24, &r.sm_throughput_pct, "%.0f", "SM throughput"),
                fmt(x, b[3], 24, &r.memory_throughput_pct, "%.0f", "memory throughput"),
                scaled(x, b[4], 24, &r.dram_read_bytes, 1e6, "%.1f", "DRAM read"),
                fmt(x, b[5], 24, &r.l1_hit_pct, "%.0f", "L1 hit rate"),
                fmt(x, b[6], 24, &r.l2_hit_pct, "%.0f", "L2 hit rate"),
                fmt(x, b[7], 24, &r.tensor_pct, "%.1f", "tensor pipe"),
                fmt(x, b[8], 24, &r.achieved_tflops, "%.2f", "achieved TFLOP/s"), r.bound_text);
    }
    if (m->nlaunch_counters > MAX_LAUNCH_ROWS)
        fprintf(x->out, "... and %d more launches (every one is in the JSON)\n", m->nlaunch_counters - MAX_LAUNCH_ROWS);
    fprintf(x->out, "%sus: the kernel's duration in the counter pass (replayed, slower than its own run). TFLOP/s: "
                    "executed FP32 FLOPs (2 x FFMA + FADD + FMUL) over it.%s\n", c(x, DIM), c(x, RESET));
}

void text_counters(ctx *x, const analysis *a)
{
    const run_model *m = a->m;
    if (!m->counters.asked)
        return;
    if (m->source == SOURCE_PROFILE) {
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
        char b[10][24];
        fprintf(x->out, "%-17.17s %6s %5s %5s %6sMB %6sMB %5s %5s %6s %7s %6s %s\n", w->name,
                fmt(x, b[0], 24, &r->achieved_occupancy_pct, "%.1f", "achieved occupancy"),
                fmt(x, b[1], 24, &r->sm_throughput_pct, "%.0f", "SM throughput"),
                fmt(x, b[2], 24, &r->memory_throughput_pct, "%.0f", "memory throughput"),
                scaled(x, b[3], 24, &r->dram_read_bytes, 1e6, "%.1f", "DRAM read"),
                scaled(x, b[4], 24, &r->dram_write_bytes, 1e6, "%.1f", "DRAM written"),
                fmt(x, b[5], 24, &r->l1_hit_pct, "%.0f", "L1 hit rate"),
                fmt(x, b[6], 24, &r->l2_hit_pct, "%.0f", "L2 hit rate"),
                fmt(x, b[7], 24, &r->tensor_pct, "%.1f", "tensor pipe"),
                fmt(x, b[8], 24, r->achieved_tflops.ok ? &r->achieved_tflops : &r->tflops, "%.2f", "achieved TFLOP/s"),
                fmt(x, b[9], 24, &r->intensity, "%.0f", "arithmetic intensity"), r->bound_text);
    }
    fprintf(x->out, "%sTFLOP/s: executed FP32 FLOPs (2 x FFMA + FADD + FMUL) over the kernel time; for tensor-core "
                    "products 2n^3 over it. FLOP/B: those FLOPs per DRAM byte.%s\n", c(x, DIM), c(x, RESET));
}
