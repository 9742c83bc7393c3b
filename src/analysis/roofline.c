/* Figures from the hardware counters (model.h's kernel_counters): per workload the speed-of-light
 * figures of its main kernel, the product's DRAM bytes and executed FLOPs, achieved FLOP/s,
 * arithmetic intensity and what bounds it; per device the ceilings of the roofline that only the
 * counters know (the L2's bandwidth). Pure functions of the model. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "thresholds.h"


const char *bound_name(bound_kind b)
{
    static const char *const names[] = {"none", "dram", "l1", "l2", "compute", "latency"};
    return (unsigned)b < sizeof names / sizeof names[0] ? names[b] : "none";
}

/* Dense TF32 tensor-core FLOPs per SM per clock: Hopper (9.0) 1024 FMA, A100 (8.0) 512 FMA. */
double tf32_flops_per_sm_clock(int cc_major, int cc_minor)
{
    if (cc_major == 9 && cc_minor == 0)
        return 2048;
    if (cc_major == 8 && cc_minor == 0)
        return 1024;
    return 0;
}

/* L1/shared load bandwidth per SM per clock: 128 B from Volta (7.0) to Hopper (9.0), NVIDIA's
 * architecture whitepapers (A100: 19.5 TB/s at 108 SMs x 1.41 GHz; H100 SXM: 33 TB/s at 132 SMs
 * x 1.98 GHz). No counter of the pass reads it, so the roof comes from the properties. */
double l1_bytes_per_sm_clock(int cc_major)
{
    return cc_major >= 7 && cc_major <= 9 ? 128 : 0;
}

static void take(metric *out, double v, const char *what)
{
    if (isfinite(v))
        metric_set(out, v);
    else
        metric_na(out, "%s was not collected on this GPU", what);
}

/* A share of a whole, as the counters read it: a reading past 100% is no share of anything (one
 * L2 hit rate read 101.4%), so it is n/a with what was read, not clamped to a plausible 100. */
static void take_pct(metric *out, double v, const char *what)
{
    take(out, v, what);
    if (out->ok && (out->v < 0 || out->v > 100))
        metric_na(out, "%s read %.1f%%, outside 0-100%%: not a valid rate", what, out->v);
}

/* The counter entry of the kernel with the longest counter-pass duration (the first when no
 * duration was collected). */
static const kernel_counters *main_counters(const workload_run *w)
{
    const kernel_counters *best = NULL;
    for (int i = 0; i < w->ncounters; i++) {
        const kernel_counters *k = &w->counters[i];
        if (!best || (isfinite(k->v[CTR_DURATION_NS]) &&
                      (!isfinite(best->v[CTR_DURATION_NS]) || k->v[CTR_DURATION_NS] > best->v[CTR_DURATION_NS])))
            best = k;
    }
    return best;
}

/* A counter summed over every kernel of the product; NaN when any kernel lacks it. */
static double summed(const workload_run *w, counter_id c)
{
    double s = 0;
    for (int i = 0; i < w->ncounters; i++)
        s += w->counters[i].v[c];
    return s;
}

static void all_na(workload_metrics *r, const char *why)
{
    metric *all[] = {&r->achieved_occupancy_pct, &r->sm_throughput_pct, &r->memory_throughput_pct,
                     &r->dram_read_bytes, &r->dram_write_bytes, &r->l1_hit_pct, &r->l2_hit_pct,
                     &r->tensor_pct, &r->flops_executed, &r->achieved_tflops, &r->intensity};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        metric_na(all[i], "%s", why);
    r->bound = BOUND_NONE;
    metric_na(&r->bound_pct, "%s", why);
    snprintf(r->bound_text, sizeof r->bound_text, "n/a (%.100s)", why);
}

/* The unit nearest its peak decides; the figure that decided is named with it. */
static void decide_bound(const kernel_counters *k, bound_kind *bound, metric *pct_out, char *text, size_t len)
{
    static const struct {
        counter_id c;
        bound_kind b;
        const char *unit, *figure;
    } units[] = {
        {CTR_DRAM_PCT, BOUND_DRAM, "DRAM", "DRAM throughput"},
        {CTR_L1_PCT, BOUND_L1, "L1/shared", "L1/shared throughput"},
        {CTR_L2_PCT, BOUND_L2, "L2", "L2 throughput"},
        {CTR_SM_PCT, BOUND_COMPUTE, "compute pipe", "SM throughput"},
    };
    int top = -1;
    for (int i = 0; i < (int)(sizeof units / sizeof units[0]); i++)
        if (isfinite(k->v[units[i].c]) && (top < 0 || k->v[units[i].c] > k->v[units[top].c]))
            top = i;
    if (top < 0) {
        *bound = BOUND_NONE;
        snprintf(text, len, "n/a (no throughput counter was collected)");
        metric_na(pct_out, "no throughput counter was collected");
        return;
    }
    double pct = k->v[units[top].c];
    take_pct(pct_out, pct, units[top].figure);
    if (pct >= BOUND_PCT) {
        *bound = units[top].b;
        snprintf(text, len, "%s (%s %.0f%% of peak)", units[top].unit, units[top].figure, pct);
        return;
    }
    *bound = BOUND_LATENCY;
    double occ = k->v[CTR_OCCUPANCY_PCT];
    if (isfinite(occ))
        snprintf(text, len, "latency/occupancy (busiest unit %s at %.0f%%, achieved occupancy %.0f%%)",
                 units[top].unit, pct, occ);
    else
        snprintf(text, len, "latency (busiest unit %s at %.0f%% of peak)", units[top].unit, pct);
}

void counter_figures(const run_model *m, workload_metrics *r)
{
    const workload_run *w = r->w;
    if (!w->needs_gpu || w->ncounters == 0) {
        all_na(r, w->counters_why[0] ? w->counters_why
                  : !w->needs_gpu   ? "not a GPU workload"
                  : m->counters.why[0] ? m->counters.why
                  : m->counters.asked       ? "no counter pass for this run of the workload (the other host-memory run has it)"
                                      : "counters were not read (mmprof --counters)");
        return;
    }
    const kernel_counters *k = main_counters(w);
    take_pct(&r->achieved_occupancy_pct, k->v[CTR_OCCUPANCY_PCT], "achieved occupancy");
    take_pct(&r->sm_throughput_pct, k->v[CTR_SM_PCT], "SM throughput");
    take_pct(&r->memory_throughput_pct, k->v[CTR_MEM_PCT], "memory throughput");
    take(&r->dram_read_bytes, summed(w, CTR_DRAM_READ_BYTES), "DRAM bytes read");
    take(&r->dram_write_bytes, summed(w, CTR_DRAM_WRITE_BYTES), "DRAM bytes written");
    take_pct(&r->l1_hit_pct, k->v[CTR_L1_HIT_PCT], "the L1 hit rate");
    take_pct(&r->l2_hit_pct, k->v[CTR_L2_HIT_PCT], "the L2 hit rate");
    take_pct(&r->tensor_pct, k->v[CTR_TENSOR_PCT], "tensor-pipe activity");
    take(&r->flops_executed, 2 * summed(w, CTR_FFMA) + summed(w, CTR_FADD) + summed(w, CTR_FMUL),
         "FP32 instruction counts");

    /* Achieved FLOP/s from executed FP32 FLOPs. A tensor-core product executes (almost) none: its
     * FLOPs run on the tensor pipe, which the FP32 counts miss, so its rate is the product's. */
    double product = product_flops(w->n);
    bool fp32_counted = r->flops_executed.ok && r->flops_executed.v >= 0.5 * product;
    if (!r->flops_executed.ok)
        metric_na(&r->achieved_tflops, "%s", metric_why(&r->flops_executed));
    else if (!fp32_counted)
        metric_na(&r->achieved_tflops, "the product ran on the tensor pipe; FP32 instruction counts miss its FLOPs");
    else if (!r->kernel_ms.ok || r->kernel_ms.v <= 0)
        metric_na(&r->achieved_tflops, "%s", r->kernel_ms.ok ? "zero kernel time" : metric_why(&r->kernel_ms));
    else
        metric_set(&r->achieved_tflops, r->flops_executed.v / r->kernel_ms.v / 1e9);

    double bytes = r->dram_read_bytes.ok && r->dram_write_bytes.ok ? r->dram_read_bytes.v + r->dram_write_bytes.v : NAN;
    double flops = fp32_counted ? r->flops_executed.v : product;
    if (!isfinite(bytes))
        metric_na(&r->intensity, "DRAM bytes were not collected");
    else if (bytes <= 0)
        metric_na(&r->intensity, "no DRAM traffic was counted");
    else
        metric_set(&r->intensity, flops / bytes);
    decide_bound(k, &r->bound, &r->bound_pct, r->bound_text, sizeof r->bound_text);
}

/* A peak of every SM at the SM clock: SMs x per_sm_clock x clock / scale, or n/a with why ("what"
 * names the rate for a compute capability the table does not know). */
static void sm_clock_peak(metric *out, const device_info *dev, double per_sm_clock, double scale, const char *what)
{
    if (dev->cc_major <= 0)
        metric_na(out, "compute capability not reported");
    else if (per_sm_clock <= 0)
        metric_na(out, "%s not known for compute capability %d.%d", what, dev->cc_major, dev->cc_minor);
    else if (dev->clock_khz <= 0 || dev->sm_count <= 0)
        metric_na(out, "SM clock or count not reported");
    else
        metric_set(out, dev->sm_count * per_sm_clock * dev->clock_khz * 1e3 / scale);
}

void counter_ceilings(const run_model *m, device_peaks *peaks)
{
    for (int d = 0; d < m->ndevices; d++) {
        const device_info *dev = &m->devices[d];
        sm_clock_peak(&peaks[d].tf32_tflops, dev, tf32_flops_per_sm_clock(dev->cc_major, dev->cc_minor), 1e12,
                      "TF32 tensor rate");
        sm_clock_peak(&peaks[d].l1_gbps, dev, l1_bytes_per_sm_clock(dev->cc_major), 1e9, "L1 bandwidth");
        metric_na(&peaks[d].l2_gbps, "%s", m->counters.asked ? "no counter pass read the L2's peak bandwidth"
                                                       : "the L2's bandwidth comes from the counters (mmprof --counters)");
        for (int i = 0; i < m->builtin.nworkloads && !peaks[d].l2_gbps.ok; i++) {
            const workload_run *w = &m->builtin.workloads[i];
            for (int k = 0; w->device == d && k < w->ncounters; k++) {
                double bpc = w->counters[k].v[CTR_L2_PEAK_BYTES_PER_CYCLE], hz = w->counters[k].v[CTR_L2_CYCLES_PER_SECOND];
                if (isfinite(bpc) && isfinite(hz) && bpc > 0 && hz > 0) {
                    metric_set(&peaks[d].l2_gbps, bpc * hz / 1e9);
                    break;
                }
            }
        }
    }
}

void launch_counter_figures(const kernel_counters *k, launch_metrics *r)
{
    memset(r, 0, sizeof *r);
    r->k = k;
    double ns = k->v[CTR_DURATION_NS];
    take(&r->duration_us, isfinite(ns) ? ns / 1e3 : NAN, "the kernel's duration");
    take_pct(&r->achieved_occupancy_pct, k->v[CTR_OCCUPANCY_PCT], "achieved occupancy");
    take_pct(&r->sm_throughput_pct, k->v[CTR_SM_PCT], "SM throughput");
    take_pct(&r->memory_throughput_pct, k->v[CTR_MEM_PCT], "memory throughput");
    take(&r->dram_read_bytes, k->v[CTR_DRAM_READ_BYTES], "DRAM bytes read");
    take_pct(&r->l1_hit_pct, k->v[CTR_L1_HIT_PCT], "the L1 hit rate");
    take_pct(&r->l2_hit_pct, k->v[CTR_L2_HIT_PCT], "the L2 hit rate");
    take_pct(&r->tensor_pct, k->v[CTR_TENSOR_PCT], "tensor-pipe activity");
    take(&r->flops_executed, 2 * k->v[CTR_FFMA] + k->v[CTR_FADD] + k->v[CTR_FMUL], "FP32 instruction counts");
    /* A kernel busy on the tensor pipe does its FLOPs there, where the FP32 counts miss them. */
    if (!r->flops_executed.ok)
        metric_na(&r->achieved_tflops, "%s", metric_why(&r->flops_executed));
    else if (r->tensor_pct.ok && r->tensor_pct.v >= 1.0)
        metric_na(&r->achieved_tflops, "runs on the tensor pipe (%.0f%% active); FP32 instruction counts miss its FLOPs",
                  r->tensor_pct.v);
    else if (!r->duration_us.ok || r->duration_us.v <= 0)
        metric_na(&r->achieved_tflops, "%s", r->duration_us.ok ? "zero duration" : metric_why(&r->duration_us));
    else
        metric_set(&r->achieved_tflops, r->flops_executed.v / (r->duration_us.v * 1e-6) / 1e12);
    decide_bound(k, &r->bound, &r->bound_pct, r->bound_text, sizeof r->bound_text);
}
