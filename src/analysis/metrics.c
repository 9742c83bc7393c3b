/* The metric registry (metric.h): every figure a report shows, defined once. The key is the
 * JSON member and CSV column; renderers take labels, units and formats from here. */
#include <stddef.h>

#include "accounts.h"
#include "analysis.h"
#include "compare.h"
#include "ranks.h"
#include "devices.h"
#include "capture.h"
#include "host_idle.h"
#include "regions.h"
#include "summary.h"
#include "memory.h"

#define DEF(type, field, key, label, unit, fmt, what) {key, label, unit, fmt, offsetof(type, field), what, BETTER_NONE}
/* Each table's macro X has X_LO (lower is better: times) and X_HI (higher is better: throughputs)
 * beside it; plain X describes without a direction. */
#define DEF_BY(better, type, field, key, label, unit, fmt, what) \
    {key, label, unit, fmt, offsetof(type, field), what, better}
#define TABLE(var, name, defs) const metric_table var = {name, defs, (int)(sizeof defs / sizeof defs[0])}

#define W(field, key, label, unit, fmt, what) DEF(workload_metrics, field, key, label, unit, fmt, what)
#define W_LO(field, key, label, unit, fmt, what) DEF_BY(BETTER_LOWER, workload_metrics, field, key, label, unit, fmt, what)
#define W_HI(field, key, label, unit, fmt, what) DEF_BY(BETTER_HIGHER, workload_metrics, field, key, label, unit, fmt, what)
static const metric_def workload_defs[] = {
    W_LO(kernel_ms, "kernel_ms", "kernel", "ms", "%.3f", "median kernel time of one product over the timed launches"),
    W_LO(kernel_total_ms, "kernel_total_ms", "kernel total", "ms", "%.3f", "kernel time of the whole compute phase"),
    W_LO(kernel_spread_pct, "kernel_spread_pct", "spread", "%", "%.1f", "(max - min) / median of per-product kernel times"),
    W(noise_pct, "noise_pct", "noise", "%", "%.2f", "relative noise: stdev / mean of the timed samples (sampling stops below --max-noise)"),
    W_LO(h2d_ms, "h2d_ms", "H2D", "ms", "%.3f", "host-to-device copy time of one product"),
    W(h2d_bytes, "h2d_bytes", "H2D bytes", "B", "%.0f", "bytes copied host to device per product"),
    W_HI(h2d_gbps, "h2d_gbps", "H2D GB/s", "GB/s", "%.1f", "H2D bytes / H2D time (GB = 1e9 bytes)"),
    W_HI(h2d_link_pct, "h2d_link_pct", "H2D %link", "%", "%.0f", "H2D GB/s over the PCIe link's ceiling"),
    W_LO(d2h_ms, "d2h_ms", "D2H", "ms", "%.3f", "device-to-host copy time of one product"),
    W(d2h_bytes, "d2h_bytes", "D2H bytes", "B", "%.0f", "bytes copied device to host per product"),
    W_HI(d2h_gbps, "d2h_gbps", "D2H GB/s", "GB/s", "%.1f", "D2H bytes / D2H time"),
    W_HI(d2h_link_pct, "d2h_link_pct", "D2H %link", "%", "%.0f", "D2H GB/s over the PCIe link's ceiling"),
    W_LO(copy_ms, "copy_ms", "copies", "ms", "%.3f", "H2D + D2H per product"),
    W_LO(copy_compute_ratio, "copy_compute_ratio_per_product", "copy:kern", "", "%.2f", "memcpy-to-compute ratio of one product: its copy time (H2D + D2H) over its kernel time"),
    W_LO(e2e_ms, "e2e_ms", "e2e", "ms", "%.3f", "H2D + kernel + D2H per product"),
    W_HI(tflops, "tflops", "TFLOP/s", "TFLOP/s", "%.2f", "2n^3 / kernel time"),
    W_HI(tflops_e2e, "tflops_e2e", "e2e TFLOP/s", "TFLOP/s", "%.2f", "2n^3 / end-to-end time"),
    W_HI(peak_pct, "peak_pct", "%peak", "%", "%.1f", "kernel TFLOP/s over the device's peak for its precision: FP32 lanes, or the TF32 tensor cores for a TF32 product"),
    W_HI(busy_pct, "busy_pct", "busy", "%", "%.1f", "union of kernel, copy and memset intervals over the copy-in, compute and copy-out phases"),
    W_LO(gap_ms, "largest_gap_ms", "largest gap", "ms", "%.3f", "largest GPU idle stretch inside those phases"),
    W_HI(vs_cublas_pct, "vs_cublas_pct", "%cuBLAS", "%", "%.1f", "cuBLAS's kernel time (same precision and memory) as a percentage of this one's: above 100 beats the library"),
    W_HI(speedup, "speedup_vs_cpu", "vs CPU", "x", "%.2f", "cpu-openblas product time over kernel time"),
    W_HI(speedup_e2e, "speedup_vs_cpu_e2e", "e2e/CPU", "x", "%.2f", "cpu-openblas product time over end-to-end time"),
    W(event_agreement_pct, "cupti_vs_event_pct", "CUPTI vs events", "%", "%+.2f", "CUPTI kernel median against the cudaEvent median"),
    W(h2d_fastest_pct, "h2d_fastest_pct", "H2D % of fastest", "%", "%.0f", "H2D GB/s over the run's fastest H2D GB/s"),
    W(d2h_fastest_pct, "d2h_fastest_pct", "D2H % of fastest", "%", "%.0f", "D2H GB/s over the run's fastest D2H GB/s"),
    /* From the counter pass (--counters): the main kernel's figures, the product's bytes and FLOPs. */
    W(achieved_occupancy_pct, "achieved_occupancy_pct", "ach. occ", "%", "%.1f", "active warps over the SM's maximum, averaged over the kernel (sm__warps_active)"),
    W(sm_throughput_pct, "sm_throughput_pct", "SM SOL", "%", "%.1f", "compute (SM) throughput, % of peak (sm__throughput)"),
    W(memory_throughput_pct, "memory_throughput_pct", "mem SOL", "%", "%.1f", "memory throughput, % of peak (gpu__compute_memory_throughput)"),
    W(dram_read_bytes, "dram_read_bytes", "DRAM read", "B", "%.0f", "bytes read from DRAM by one product's kernels"),
    W(dram_write_bytes, "dram_write_bytes", "DRAM write", "B", "%.0f", "bytes written to DRAM by one product's kernels"),
    W(l1_hit_pct, "l1_hit_pct", "L1 hit", "%", "%.1f", "L1 sector hit rate of the main kernel"),
    W(l2_hit_pct, "l2_hit_pct", "L2 hit", "%", "%.1f", "L2 sector hit rate of the main kernel"),
    W(tensor_pct, "tensor_pct", "tensor", "%", "%.1f", "tensor pipe active cycles, % of peak (mma.sync and, on Hopper, wgmma)"),
    W(flops_executed, "flops_executed", "FLOPs", "", "%.4g", "2 x FFMA + FADD + FMUL thread instructions executed"),
    W_HI(achieved_tflops, "achieved_tflops", "ach. TFLOP/s", "TFLOP/s", "%.2f", "executed FP32 FLOPs / kernel time"),
    W(intensity, "intensity", "FLOP/B", "FLOP/B", "%.1f", "executed FLOPs (2n^3 on the tensor pipe) per DRAM byte"),
    W(bound_pct, "bound_pct", "bound %", "%", "%.0f", "the busiest unit's throughput (DRAM, L1, L2 or SM), % of its peak: what decides the bound"),
};
TABLE(workload_metric_table, "workload", workload_defs);

#define K(field, key, label, unit, fmt, what) DEF(kernel_summary, field, key, label, unit, fmt, what)
#define K_LO(field, key, label, unit, fmt, what) DEF_BY(BETTER_LOWER, kernel_summary, field, key, label, unit, fmt, what)
#define K_HI(field, key, label, unit, fmt, what) DEF_BY(BETTER_HIGHER, kernel_summary, field, key, label, unit, fmt, what)
static const metric_def kernel_summary_defs[] = {
    K_LO(median_ms, "median_ms", "median", "ms", "%.3f", "median duration over the compute phase's launches"),
    K(occupancy_pct, "occupancy_pct", "occupancy", "%", "%.0f", "theoretical occupancy (cuda_occupancy.h)"),
    K_HI(tflops, "tflops", "TFLOP/s", "TFLOP/s", "%.2f", "2n^3 / median, when one kernel makes one product"),
};
TABLE(kernel_summary_table, "workload_kernel", kernel_summary_defs);

#define P(field, key, label, unit, fmt, what) DEF(device_peaks, field, key, label, unit, fmt, what)
static const metric_def device_peak_defs[] = {
    P(fp32_tflops, "fp32_tflops", "FP32 peak", "TFLOP/s", "%.1f", "SMs x FP32 lanes per SM x 2 x SM clock"),
    P(hbm_gbps, "memory_gbps", "memory", "GB/s", "%.0f", "2 x memory clock x bus width, or the bandwidth the source reports where it gives no clock (Nsight Systems' memoryBandwidth)"),
    P(tf32_tflops, "tf32_tflops", "TF32 peak", "TFLOP/s", "%.1f", "SMs x dense TF32 tensor FLOPs per SM per clock x SM clock"),
    P(l1_gbps, "l1_gbps", "L1", "GB/s", "%.0f", "SMs x 128 B per SM per clock (L1/shared load bandwidth, sm_70 to sm_90) x SM clock"),
    P(l2_gbps, "l2_gbps", "L2", "GB/s", "%.0f", "the L2's peak bandwidth as the counters read it (lts__t_bytes peak x L2 clock)"),
    P(link_gbps, "link_gbps", "PCIe link", "GB/s", "%.1f", "per direction, from the link's generation and width"),
};
TABLE(device_peaks_table, "device", device_peak_defs);

#define R(field, key, label, unit, fmt, what) DEF(region_metrics, field, key, label, unit, fmt, what)
#define R_LO(field, key, label, unit, fmt, what) DEF_BY(BETTER_LOWER, region_metrics, field, key, label, unit, fmt, what)
#define R_HI(field, key, label, unit, fmt, what) DEF_BY(BETTER_HIGHER, region_metrics, field, key, label, unit, fmt, what)
static const metric_def region_defs[] = {
    R_LO(wall_ms, "wall_ms", "wall", "ms", "%.3f", "the region's own span, from its start to its end"),
    R_LO(kernel_ms, "kernel_ms", "kernel", "ms", "%.3f", "summed durations of the kernels launched from inside the region (its thread, or its process's threads that had no range open)"),
    R_LO(memcpy_ms, "memcpy_ms", "memcpy", "ms", "%.3f", "summed durations of the copies launched from inside, every direction"),
    R_LO(memset_ms, "memset_ms", "memset", "ms", "%.3f", "summed durations of the memsets launched from inside"),
    R(memset_bytes, "memset_bytes", "memset bytes", "B", "%.0f", "bytes set by the memsets launched from inside"),
    R(copy_hidden_pct, "copy_hidden_pct", "copies hidden", "%", "%.0f", "of the region's copy time, the part a kernel ran on the same GPU during (copies overlapped with compute)"),
    R(kernel_hidden_pct, "kernel_hidden_pct", "kernels overlapped", "%", "%.0f", "of the region's kernel time, the part a copy ran on the same GPU during"),
    R_LO(copy_compute_ratio, "copy_compute_ratio", "copy:kern", "", "%.2f", "memcpy-to-compute ratio: the region's summed copy time (every direction) over its summed kernel time"),
    R_LO(h2d_ms, "h2d_ms", "H2D", "ms", "%.3f", "host-to-device copy time, launched from inside"),
    R(h2d_bytes, "h2d_bytes", "H2D bytes", "B", "%.0f", "bytes copied host to device, launched from inside"),
    R_HI(h2d_gbps, "h2d_gbps", "H2D GB/s", "GB/s", "%.1f", "H2D bytes / H2D time"),
    R_LO(d2h_ms, "d2h_ms", "D2H", "ms", "%.3f", "device-to-host copy time, launched from inside"),
    R(d2h_bytes, "d2h_bytes", "D2H bytes", "B", "%.0f", "bytes copied device to host, launched from inside"),
    R_HI(d2h_gbps, "d2h_gbps", "D2H GB/s", "GB/s", "%.1f", "D2H bytes / D2H time"),
    R(gpu_span_ms, "gpu_span_ms", "GPU span", "ms", "%.3f", "the region's work projected onto the GPU: from the first of its kernels, copies and memsets to start to the last to end (Nsight Systems' NVTX GPU projection)"),
    R_HI(projected_busy_pct, "projected_busy_pct", "busy in span", "%", "%.1f", "union of the region's own GPU work over its GPU span"),
    R(gpu_busy_ms, "gpu_busy_ms", "GPU busy", "ms", "%.3f", "union of the kernels, copies and memsets that ran during the region's span, whoever launched them (its process's; the run: all)"),
    R_HI(busy_pct, "busy_pct", "busy", "%", "%.1f", "GPU busy time during the region over its wall time (executed during, as HTA windows a step)"),
    R(kernel_during_ms, "kernel_during_ms", "kernel during", "ms", "%.3f", "kernel time that ran during the region's span, whoever launched it"),
    R_LO(lead_idle_ms, "lead_idle_ms", "before GPU", "ms", "%.3f", "from the region's start to the first GPU work during it (start-up, compilation, loading)"),
    R_LO(tail_idle_ms, "tail_idle_ms", "after GPU", "ms", "%.3f", "from the last GPU work during the region to its end"),
    R_LO(largest_gap_ms, "largest_gap_ms", "largest gap", "ms", "%.3f", "longest stretch with nothing on the GPU between GPU work during the region (before the first and after the last apart)"),
    R_LO(idle_ms, "idle_ms", "idle", "ms", "%.3f", "wall time with nothing on the GPU during the region: wall_ms - gpu_busy_ms, broken down by cause in idle_breakdown"),
    R_LO(launch_us, "launch_us", "launch", "us", "%.1f", "median duration of the API calls that launched kernels"),
    R_LO(kernel_us, "kernel_us", "kernel median", "us", "%.1f", "median kernel duration"),
    R_LO(short_kernel_pct, "short_kernel_pct", "short kernels", "%", "%.0f", "kernels under 10 us, % of launches"),
    R_LO(sync_ms, "sync_ms", "sync", "ms", "%.3f", "host time waiting in synchronization"),
    R_LO(api_ms, "api_ms", "API", "ms", "%.3f", "host time in CUDA runtime and driver calls"),
    R_HI(tflops, "tflops", "TFLOP/s", "TFLOP/s", "%.2f", "FLOPs over kernel time, where the region carries a FLOP count"),
};
TABLE(region_metric_table, "region", region_defs);

#define S(field, key, label, unit, fmt, what) DEF(kernel_stat, field, key, label, unit, fmt, what)
#define S_LO(field, key, label, unit, fmt, what) DEF_BY(BETTER_LOWER, kernel_stat, field, key, label, unit, fmt, what)
static const metric_def kernel_stat_defs[] = {
    S_LO(total_ms, "total_ms", "total", "ms", "%.3f", "summed durations"),
    S(share_pct, "share_pct", "share", "%", "%.1f", "of the region's kernel time"),
    S_LO(mean_ms, "mean_ms", "average", "ms", "%.3f", "mean launch"),
    S_LO(min_ms, "min_ms", "min", "ms", "%.3f", "shortest launch"),
    S_LO(median_ms, "median_ms", "median", "ms", "%.3f", "median launch"),
    S_LO(max_ms, "max_ms", "max", "ms", "%.3f", "longest launch"),
    S_LO(stddev_ms, "stddev_ms", "stddev", "ms", "%.3f", "sample standard deviation of the launches"),
    S(occupancy_pct, "occupancy_pct", "occupancy", "%", "%.0f", "theoretical occupancy (cuda_occupancy.h)"),
};
TABLE(kernel_stat_table, "kernel", kernel_stat_defs);

#define F(field, key, label, unit, fmt, what) DEF(copy_flow, field, key, label, unit, fmt, what)
#define F_LO(field, key, label, unit, fmt, what) DEF_BY(BETTER_LOWER, copy_flow, field, key, label, unit, fmt, what)
#define F_HI(field, key, label, unit, fmt, what) DEF_BY(BETTER_HIGHER, copy_flow, field, key, label, unit, fmt, what)
static const metric_def copy_flow_defs[] = {
    F(bytes, "bytes", "bytes", "B", "%.0f", "bytes moved"),
    F_LO(ms, "ms", "time", "ms", "%.3f", "summed copy durations"),
    F_HI(gbps, "gbps", "GB/s", "GB/s", "%.1f", "bytes / time"),
    F(mean_bytes, "mean_bytes", "per copy", "B", "%.0f", "mean bytes per copy (or memset)"),
    F_LO(mean_ms, "mean_ms", "average", "ms", "%.3f", "mean duration of one copy or memset"),
    F_LO(min_ms, "min_ms", "min", "ms", "%.3f", "shortest one"),
    F_LO(median_ms, "median_ms", "median", "ms", "%.3f", "median one"),
    F_LO(max_ms, "max_ms", "max", "ms", "%.3f", "longest one"),
    F_LO(stddev_ms, "stddev_ms", "stddev", "ms", "%.3f", "sample standard deviation of their durations"),
    F(hidden_pct, "hidden_pct", "under kernels", "%", "%.0f", "of the copy time, the part a kernel ran on the same GPU during (hidden under compute)"),
};
TABLE(copy_flow_table, "copy", copy_flow_defs);

#define SP(field, key, label, unit, fmt, what) DEF(sweep_point, field, key, label, unit, fmt, what)
static const metric_def sweep_point_defs[] = {
    SP(kernel_ms, "kernel_ms", "kernel", "ms", "%.3f", "median kernel time of one product at this size"),
    SP(e2e_ms, "e2e_ms", "e2e", "ms", "%.3f", "H2D + kernel + D2H per product at this size"),
    /* Three decimals: a sweep's smallest sizes run at hundredths of a TFLOP/s (0.041 at n = 64),
     * which two decimals would flatten to 0.04 and 0.05 for every workload. */
    SP(tflops, "tflops", "TFLOP/s", "TFLOP/s", "%.3f", "2n^3 / kernel time"),
    SP(tflops_e2e, "tflops_e2e", "e2e TFLOP/s", "TFLOP/s", "%.3f", "2n^3 / end-to-end time"),
    SP(noise_pct, "noise_pct", "noise", "%", "%.2f", "stdev / mean of the timed samples"),
    SP(speedup_e2e, "speedup_vs_cpu_e2e", "e2e/CPU", "x", "%.2f", "cpu-openblas product time at this size over end-to-end time"),
};
TABLE(sweep_point_table, "sweep_point", sweep_point_defs);

#define C(field, key, label, unit, fmt, what) DEF(crossover, field, key, label, unit, fmt, what)
static const metric_def crossover_defs[] = {
    C(n, "n", "crossover n", "", "%.0f", "size from which the GPU beats cpu-openblas, log-log interpolated between the sizes around it"),
};
TABLE(crossover_table, "crossover", crossover_defs);

#define A(field, key, label, unit, fmt, what) DEF(api_stat, field, key, label, unit, fmt, what)
static const metric_def api_stat_defs[] = {
    A(total_ms, "total_ms", "total", "ms", "%.3f", "summed durations of the calls"),
    A(share_pct, "share_pct", "share", "%", "%.1f", "of the region's time in API calls"),
    A(median_us, "median_us", "median", "us", "%.1f", "median call"),
    A(min_us, "min_us", "min", "us", "%.1f", "shortest call"),
    A(max_us, "max_us", "max", "us", "%.1f", "longest call"),
};
TABLE(api_stat_table, "api", api_stat_defs);

#define CW(field, key, label, unit, fmt, what) DEF(capture_metrics, field, key, label, unit, fmt, what)
static const metric_def capture_defs[] = {
    CW(wall_ms, "wall_ms", "window", "ms", "%.3f", "the capture window's span, from the marker that opened it to the one that closed it"),
    CW(kernels, "kernels", "kernels", "", "%.0f", "kernels launched by the window's process while it was open (its region's)"),
    CW(before_ms, "before_ms", "before", "ms", "%.3f", "unrecorded time before the window: from the process's start or the previous window's end"),
    CW(after_ms, "after_ms", "after", "ms", "%.3f", "unrecorded time after the window: to the next window's start or the process's end"),
    CW(calls_before, "calls_before", "calls before", "", "%.0f", "CUDA runtime calls made in the unrecorded time before the window (counted by a callback, not traced)"),
    CW(calls_after, "calls_after", "calls after", "", "%.0f", "CUDA runtime calls made in the unrecorded time after the window"),
};
TABLE(capture_table, "capture", capture_defs);

#define RS(field, key, label, unit, fmt, what) DEF(rank_share, field, key, label, unit, fmt, what)
#define RS_LO(field, key, label, unit, fmt, what) DEF_BY(BETTER_LOWER, rank_share, field, key, label, unit, fmt, what)
#define RS_HI(field, key, label, unit, fmt, what) DEF_BY(BETTER_HIGHER, rank_share, field, key, label, unit, fmt, what)
static const metric_def rank_share_defs[] = {
    RS_HI(busy_pct, "busy_pct", "busy", "%", "%.1f", "union of kernels, copies and memsets over the job's GPU window (first to last GPU event of any rank)"),
    RS(compute_pct, "compute_pct", "compute", "%", "%.1f", "non-NCCL kernels (union) over the window"),
    RS_LO(comm_pct, "comm_pct", "comm", "%", "%.1f", "NCCL kernels (ncclKernel*, ncclDevKernel*) not under a compute kernel, over the window"),
    RS_LO(copy_pct, "copy_pct", "copies", "%", "%.1f", "copies and memsets under neither compute nor NCCL, over the window"),
    RS_LO(idle_pct, "idle_pct", "idle", "%", "%.1f", "no GPU work: 100 - compute - comm - copies"),
    RS(compute_ms, "compute_ms", "compute", "ms", "%.3f", "union of non-NCCL kernel intervals"),
    RS(comm_ms, "comm_ms", "NCCL", "ms", "%.3f", "union of NCCL kernel intervals"),
    RS_HI(overlap_pct, "overlap_pct", "hidden", "%", "%.1f", "share of NCCL time during which a compute kernel of the same rank ran (communication hidden under compute)"),
    RS(coll_skew_us, "coll_skew_us", "coll. skew", "us", "%.1f", "median, over the k-th NCCL kernel of each rank, of its end minus the first rank's: near 0 on one host; across hosts the clock offset the merge could not remove"),
    RS(window_ms, "window_ms", "window", "ms", "%.3f", "the job's GPU window the shares are over"),
    RS(memory_ms, "memory_ms", "memory", "ms", "%.3f", "union of copy and memset intervals"),
    /* Over the row's own span, as Holistic Trace Analysis's temporal breakdown (docs/hta-parity.md). */
    RS(span_ms, "span_ms", "own span", "ms", "%.3f", "the row's own GPU span: from its first kernel, copy or memset to start to its last to end"),
    RS_LO(span_idle_pct, "span_idle_pct", "idle in span", "%", "%.1f", "no GPU work, over the row's own span"),
    RS(span_compute_pct, "span_compute_pct", "compute in span", "%", "%.1f", "non-NCCL kernels (union) over the row's own span"),
    RS(span_non_compute_pct, "span_non_compute_pct", "non-compute in span", "%", "%.1f", "GPU work under no compute kernel (NCCL kernels, copies, memsets) over the row's own span: 100 - idle - compute"),
};
TABLE(rank_share_table, "rank", rank_share_defs);

#define ST(field, key, label, unit, fmt, what) DEF(straggler, field, key, label, unit, fmt, what)
#define ST_LO(field, key, label, unit, fmt, what) DEF_BY(BETTER_LOWER, straggler, field, key, label, unit, fmt, what)
static const metric_def straggler_defs[] = {
    ST_LO(median_lag_ms, "median_lag_ms", "median lag", "ms", "%.3f", "last rank's end of the range minus the first rank's, median over its occurrences (the k-th of each rank)"),
    ST_LO(max_lag_ms, "max_lag_ms", "max lag", "ms", "%.3f", "the largest such lag"),
    ST(mean_ms, "mean_ms", "mean", "ms", "%.3f", "mean duration of the range over ranks and occurrences"),
};
TABLE(straggler_table, "straggler", straggler_defs);

/* A --devices run (devices.h): each GPU's workloads alone and together, the aggregate over GPUs,
 * each GPU's passes, and the peer matrix. */
#define DW(field, key, label, unit, fmt, what) DEF(device_workload_row, field, key, label, unit, fmt, what)
#define DW_BY(b, field, key, label, unit, fmt, what) DEF_BY(b, device_workload_row, field, key, label, unit, fmt, what)
static const metric_def device_workload_defs[] = {
    DW_BY(BETTER_HIGHER, seq_tflops, "sequential_tflops", "alone", "TFLOP/s", "%.2f", "2n^3 / median kernel time, this GPU alone busy"),
    DW_BY(BETTER_HIGHER, conc_tflops, "concurrent_tflops", "together", "TFLOP/s", "%.2f", "2n^3 / median kernel time, every listed GPU busy at once"),
    DW(change_pct, "concurrent_change_pct", "change", "%", "%+.1f", "TFLOP/s together against alone, minus 1: below 0, running together slowed this GPU"),
    DW_BY(BETTER_LOWER, seq_kernel_ms, "sequential_kernel_ms", "kernel alone", "ms", "%.3f", "median kernel time of one product, alone"),
    DW_BY(BETTER_LOWER, conc_kernel_ms, "concurrent_kernel_ms", "kernel together", "ms", "%.3f", "median kernel time of one product, together"),
};
TABLE(device_workload_table, "gpu_workload", device_workload_defs);

#define DG(field, key, label, unit, fmt, what) DEF(device_aggregate_row, field, key, label, unit, fmt, what)
static const metric_def device_aggregate_defs[] = {
    DG(aggregate_tflops, "aggregate_tflops", "all GPUs", "TFLOP/s", "%.2f", "summed TFLOP/s of every GPU running at once"),
    DG(one_gpu_tflops, "one_gpu_tflops", "one GPU", "TFLOP/s", "%.2f", "the best TFLOP/s of one GPU alone"),
    DG(scaling, "scaling", "scaling", "x", "%.2f", "all GPUs over one GPU (ideal: the number of GPUs)"),
    DG(worst_change_pct, "worst_change_pct", "worst change", "%", "%+.1f", "the largest slowdown of one GPU running with the others"),
};
TABLE(device_aggregate_table, "gpu_aggregate", device_aggregate_defs);

#define DP(field, key, label, unit, fmt, what) DEF_BY(BETTER_LOWER, device_pass_row, field, key, label, unit, fmt, what)
static const metric_def device_pass_defs[] = {
    DP(seq_wall_ms, "sequential_wall_ms", "wall alone", "ms", "%.1f", "its workloads' span with this GPU alone busy"),
    DP(conc_wall_ms, "concurrent_wall_ms", "wall together", "ms", "%.1f", "its workloads' span with every listed GPU busy"),
};
TABLE(device_pass_table, "gpu_pass", device_pass_defs);

#define PR(b, field, key, label, unit, fmt, what) DEF_BY(b, peer_row, field, key, label, unit, fmt, what)
static const metric_def peer_defs[] = {
    PR(BETTER_HIGHER, direct_gbps, "direct_gbps", "GB/s direct", "GB/s", "%.1f", "cudaMemcpyPeerAsync with peer access on: bytes / time (GB = 1e9 bytes)"),
    PR(BETTER_LOWER, direct_latency_us, "direct_latency_us", "us direct", "us", "%.2f", "mean time of one small copy, back to back, peer access on"),
    PR(BETTER_HIGHER, staged_gbps, "staged_gbps", "GB/s staged", "GB/s", "%.1f", "cudaMemcpyPeerAsync with peer access off (the driver stages the copy)"),
    PR(BETTER_LOWER, staged_latency_us, "staged_latency_us", "us staged", "us", "%.2f", "mean time of one small copy, back to back, peer access off"),
};
TABLE(peer_table, "peer_pair", peer_defs);

/* profile --counters: one profiled launch (analysis.launches). */
#define L(field, key, label, unit, fmt, what) DEF(launch_metrics, field, key, label, unit, fmt, what)
static const metric_def launch_defs[] = {
    L(duration_us, "duration_us", "duration", "us", "%.1f", "the kernel's duration in the counter pass (replayed: slower than its own run)"),
    L(achieved_occupancy_pct, "achieved_occupancy_pct", "ach. occ", "%", "%.1f", "active warps over the SM's maximum, averaged over the kernel (sm__warps_active)"),
    L(sm_throughput_pct, "sm_throughput_pct", "SM SOL", "%", "%.1f", "compute (SM) throughput, % of peak (sm__throughput)"),
    L(memory_throughput_pct, "memory_throughput_pct", "mem SOL", "%", "%.1f", "memory throughput, % of peak (gpu__compute_memory_throughput); kernel replay's memory restore is counted in it"),
    L(dram_read_bytes, "dram_read_bytes", "DRAM read", "B", "%.0f", "bytes read from DRAM by the launch"),
    L(l1_hit_pct, "l1_hit_pct", "L1 hit", "%", "%.1f", "L1 sector hit rate"),
    L(l2_hit_pct, "l2_hit_pct", "L2 hit", "%", "%.1f", "L2 sector hit rate"),
    L(tensor_pct, "tensor_pct", "tensor", "%", "%.1f", "tensor pipe active cycles, % of peak"),
    L(flops_executed, "flops_executed", "FLOPs", "", "%.4g", "2 x FFMA + FADD + FMUL thread instructions executed"),
    L(achieved_tflops, "achieved_tflops", "FP32 TFLOP/s", "TFLOP/s", "%.3f", "executed FP32 FLOPs over the duration"),
    L(bound_pct, "bound_pct", "bound %", "%", "%.0f", "the busiest unit's throughput (DRAM, L1, L2 or SM), % of its peak: what decides the bound"),
};
TABLE(launch_counter_table, "launch", launch_defs);

/* The run's GPU activity over time (analysis.busy). */
#define BS(field, key, label, unit, fmt, what) DEF(busy_span, field, key, label, unit, fmt, what)
static const metric_def busy_span_defs[] = {
    BS(start_ms, "start_ms", "start", "ms", "%.3f", "from the run's start"),
    BS(length_ms, "length_ms", "length", "ms", "%.3f", "a stretch of GPU work: kernels, copies and memsets closer than 1/1000 of the run joined"),
    BS(busy_ms, "busy_ms", "busy", "ms", "%.3f", "union of the GPU's intervals inside it"),
    BS(busy_pct, "busy_pct", "busy", "%", "%.0f", "that over its length"),
};
TABLE(busy_span_table, "busy_span", busy_span_defs);

/* Each stream of each GPU over the run (analysis.streams). */
#define STRM(field, key, label, unit, fmt, what) DEF(stream_metrics, field, key, label, unit, fmt, what)
static const metric_def stream_defs[] = {
    STRM(kernel_ms, "kernel_ms", "kernels", "ms", "%.3f", "summed kernel durations on the stream"),
    STRM(copy_ms, "copy_ms", "copies", "ms", "%.3f", "summed copy durations on the stream"),
    STRM(memset_ms, "memset_ms", "memsets", "ms", "%.3f", "summed memset durations on the stream"),
    STRM(busy_ms, "busy_ms", "busy", "ms", "%.3f", "union of the stream's kernel, copy and memset intervals"),
    STRM(busy_pct, "busy_pct", "busy", "%", "%.1f", "that over the run's span"),
    STRM(overlap_ms, "overlap_ms", "with others", "ms", "%.3f", "of its busy time, the time another stream of the same GPU was busy too"),
    STRM(overlap_pct, "overlap_pct", "with others", "%", "%.0f", "that over its busy time"),
    STRM(copy_hidden_pct, "copy_hidden_pct", "copies hidden", "%", "%.0f", "of its copy time, the part a kernel (any stream) ran during"),
};
TABLE(stream_table, "stream", stream_defs);

/* The run's longest idle stretches of each GPU with their causes (analysis.idle_gaps). */
#define IG(field, key, label, unit, fmt, what) DEF(idle_stretch, field, key, label, unit, fmt, what)
static const metric_def idle_gap_defs[] = {
    IG(start_ms, "start_ms", "at", "ms", "%.3f", "its start, from the run's start"),
    IG(ms, "ms", "idle", "ms", "%.3f", "its length: nothing ran on the GPU (kernels, copies, memsets)"),
    IG(cause_pct, "cause_pct", "cause", "%", "%.0f", "the share of it under its cause (the cause with most of it)"),
    IG(by[IDLE_BETWEEN_KERNELS], "between_kernels_ms", "between kernels", "ms", "%.3f", "the whole stretch when it lies between GPU work and lasts 10 us or less (launch latency)"),
    IG(by[IDLE_MODULE_LOAD], "module_load_ms", "module load", "ms", "%.3f", "of it, time in module loading, lazy kernel loading or JIT calls (cuModuleLoad*, cuLibraryLoad*, nvrtc)"),
    IG(by[IDLE_CONTEXT], "context_ms", "context", "ms", "%.3f", "of it, time in context creation or teardown (or the first long runtime call, which creates it)"),
    IG(by[IDLE_ALLOC], "alloc_ms", "alloc", "ms", "%.3f", "of it, time in memory allocation, freeing or pinning calls"),
    IG(by[IDLE_PAGEABLE_COPY], "pageable_copy_ms", "pageable copy", "ms", "%.3f", "of it, time in copy calls whose host memory was pageable"),
    IG(by[IDLE_SYNC], "sync_ms", "sync", "ms", "%.3f", "of it, time the host waited on the GPU (synchronize calls and records)"),
    IG(by[IDLE_OTHER_API], "other_api_ms", "other API", "ms", "%.3f", "of it, time in any other CUDA call"),
    IG(by[IDLE_HOST_BUSY], "host_busy_ms", "host busy", "ms", "%.3f", "of it, time with no CUDA call in progress on any thread: the host busy outside CUDA"),
};
TABLE(idle_gap_table, "idle_gap", idle_gap_defs);

/* One cause's part of a region's idle time (region_metrics.idle: analysis.idle_breakdown). */
#define IS(field, key, label, unit, fmt, what) DEF(idle_share, field, key, label, unit, fmt, what)
static const metric_def idle_share_defs[] = {
    IS(ms, "ms", "idle", "ms", "%.3f", "the region's idle time under this cause (every idle stretch split by what the host did)"),
    IS(share_pct, "share_pct", "share", "%", "%.1f", "that over the region's idle time"),
};
TABLE(idle_share_table, "idle_share", idle_share_defs);

/* Where the host was in a window (host_where.h: analysis.host): one source's view of one thread. */
#define HV(field, key, label, unit, fmt, what) DEF(host_view, field, key, label, unit, fmt, what)
static const metric_def host_view_defs[] = {
    HV(samples, "samples", "samples", "", "%.0f", "the thread's samples of this source in the window (the thread with most running samples)"),
    HV(ms, "ms", "spans", "ms", "%.3f", "recorded CPU spans: the time they cover on the thread in the window"),
    HV(waiting_pct, "waiting_pct", "waiting", "%", "%.0f", "of its Python wall-clock samples, those with the thread asleep or waiting (state S or D)"),
    HV(running_pct, "running_pct", "running", "%", "%.0f", "its CPU samples in the window over its Python wall-clock ones (about its CPU use; 50% or more overrules a waiting state)"),
};
TABLE(host_view_table, "host_view", host_view_defs);

/* A frame's part of a host view (host_fn: its hot frame, user's line, innermost frames). */
#define HF(field, key, label, unit, fmt, what) DEF(host_fn, field, key, label, unit, fmt, what)
static const metric_def host_fn_defs[] = {
    HF(share_pct, "share_pct", "share", "%", "%.0f", "of the view's samples (or span time): on the stack (hot frame, user's line) or innermost (top frames)"),
    HF(samples, "samples", "samples", "", "%.0f", "the samples that share is of"),
    HF(ms, "ms", "time", "ms", "%.3f", "the span time that share is of"),
};
TABLE(host_fn_table, "host_function", host_fn_defs);

/* How the host was seen (analysis.host.collection: host_idle.h). */
#define HC(field, key, label, unit, fmt, what) DEF(host_collection, field, key, label, unit, fmt, what)
static const metric_def host_collection_defs[] = {
    HC(py_samples, "py_samples", "Python samples", "", "%.0f", "Python wall-clock samples: every Python thread's stack, each period, running or not"),
    HC(cpu_samples, "cpu_samples", "CPU samples", "", "%.0f", "CPU-time samples: the instruction a thread was running when its CPU-time timer fired"),
    HC(rate_hz, "rate_hz", "rate", "Hz", "%.0f", "the sampling rate asked (--sample-rate)"),
    HC(sites, "sites", "call sites", "", "%.0f", "CUDA calls (launches, copies, memsets, syncs) whose host stack was recorded"),
    HC(sites_skipped, "sites_skipped", "skipped", "", "%.0f", "calls seen in a callback and left without a call site, to hold the cost of taking them to 1% of the process's wall time (the library's count at exit)"),
    HC(sites_off_ms, "sites_off_ms", "callbacks off", "ms", "%.0f", "time the call sites' CUPTI callbacks were off to hold that cost: calls made then were not seen (the library's count at exit)"),
    HC(sites_pct, "sites_pct", "with a site", "%", "%.1f", "kernels, copies and memsets launched by a call with a call site, over all of them (the records): the shares of call sites are of that sample"),
    HC(nogil_pct, "nogil_pct", "without the GIL", "%", "%.1f", "Python looks made by reading the threads' frames from memory rather than under the GIL"),
    HC(left_out, "left_out", "left out", "", "%.0f", "Python thread samples not written: a code object not named yet"),
    HC(torn, "torn", "torn", "", "%.0f", "Python thread samples not written: the thread moved while its frames were read"),
};
TABLE(host_collection_table, "host_collection", host_collection_defs);

/* One call site of a kernel, copy, memset or call (analysis.host.sites: call_sites.h). */
#define CS(field, key, label, unit, fmt, what) DEF(call_site, field, key, label, unit, fmt, what)
static const metric_def call_site_defs[] = {
    CS(count, "count", "calls", "", "%.0f", "launches (or calls) of the target whose host stack's user line is this one"),
    CS(share_pct, "share_pct", "share", "%", "%.0f", "of the target's launches with a recorded call site"),
};
TABLE(call_site_table, "call_site", call_site_defs);

/* NVTX ranges and annotations grouped by name (analysis.groups), as nsys's nvtx_sum. */
#define RG(field, key, label, unit, fmt, what) DEF(range_group, field, key, label, unit, fmt, what)
static const metric_def range_group_defs[] = {
    RG(total_ms, "total_ms", "total", "ms", "%.3f", "summed wall time of its instances"),
    RG(share_pct, "share_pct", "time", "%", "%.1f", "that over every group's summed wall time (nested ranges count in both)"),
    RG(mean_ms, "mean_ms", "average", "ms", "%.3f", "mean wall time of one instance"),
    RG(median_ms, "median_ms", "median", "ms", "%.3f", "median wall time of one instance"),
    RG(min_ms, "min_ms", "min", "ms", "%.3f", "shortest instance"),
    RG(max_ms, "max_ms", "max", "ms", "%.3f", "longest instance"),
    RG(stddev_ms, "stddev_ms", "stddev", "ms", "%.3f", "sample standard deviation of the instances' wall times"),
    RG(kernel_ms, "kernel_ms", "kernels", "ms", "%.3f", "summed kernel time launched from inside its instances"),
    RG(copy_ms, "copy_ms", "copies", "ms", "%.3f", "summed copy time launched from inside its instances"),
    RG(gpu_busy_ms, "gpu_busy_ms", "GPU busy", "ms", "%.3f", "summed GPU busy time during its instances (executed during)"),
    RG(busy_pct, "busy_pct", "busy", "%", "%.1f", "GPU busy time over the summed wall time"),
    RG(median_busy_pct, "median_busy_pct", "median busy", "%", "%.1f", "the median of its instances' GPU busy %"),
};
TABLE(range_group_table, "range_group", range_group_defs);

/* The run as a whole (analysis). */
#define RN(field, key, label, unit, fmt, what) DEF_BY(BETTER_HIGHER, analysis, field, key, label, unit, fmt, what)
static const metric_def run_defs[] = {
    RN(best_h2d_gbps, "fastest_h2d_gbps", "fastest H2D", "GB/s", "%.1f", "the fastest host-to-device bandwidth of any workload"),
    RN(best_d2h_gbps, "fastest_d2h_gbps", "fastest D2H", "GB/s", "%.1f", "the fastest device-to-host bandwidth of any workload"),
    RN(best_h2d_pinned_gbps, "fastest_h2d_pinned_gbps", "fastest pinned H2D", "GB/s", "%.1f", "the fastest host-to-device bandwidth of a workload with pinned host memory"),
    RN(best_h2d_pageable_gbps, "fastest_h2d_pageable_gbps", "fastest pageable H2D", "GB/s", "%.1f", "the fastest host-to-device bandwidth of a workload with pageable host memory"),
    RN(med_h2d_pinned_gbps, "median_h2d_pinned_gbps", "pinned H2D", "GB/s", "%.1f", "the median host-to-device bandwidth of the summary's GPU runs with pinned host memory (a sweep's at its largest size)"),
    RN(med_h2d_pageable_gbps, "median_h2d_pageable_gbps", "pageable H2D", "GB/s", "%.1f", "the median host-to-device bandwidth of the summary's GPU runs with pageable host memory"),
    RN(pinned_h2d_x, "pinned_h2d_speedup", "pinned H2D", "x", "%.1f", "median pinned H2D bandwidth against the median pageable one, of the summary's GPU runs"),
    RN(best_d2h_pinned_gbps, "fastest_d2h_pinned_gbps", "fastest pinned D2H", "GB/s", "%.1f", "the fastest device-to-host bandwidth of a workload with pinned host memory"),
    RN(best_d2h_pageable_gbps, "fastest_d2h_pageable_gbps", "fastest pageable D2H", "GB/s", "%.1f", "the fastest device-to-host bandwidth of a workload with pageable host memory"),
    RN(med_d2h_pinned_gbps, "median_d2h_pinned_gbps", "pinned D2H", "GB/s", "%.1f", "the median device-to-host bandwidth of the summary's GPU runs with pinned host memory"),
    RN(med_d2h_pageable_gbps, "median_d2h_pageable_gbps", "pageable D2H", "GB/s", "%.1f", "the median device-to-host bandwidth of the summary's GPU runs with pageable host memory"),
    RN(pinned_d2h_x, "pinned_d2h_speedup", "pinned D2H", "x", "%.1f", "median pinned D2H bandwidth against the median pageable one, of the summary's GPU runs"),
    DEF_BY(BETTER_LOWER, analysis, med_copy_pinned_ms, "median_copy_pinned_ms", "pinned copies", "ms", "%.3f", "the median copy time per product (A and B in, C out) of the summary's GPU runs with pinned host memory"),
    DEF_BY(BETTER_LOWER, analysis, med_copy_pageable_ms, "median_copy_pageable_ms", "pageable copies", "ms", "%.3f", "the median copy time per product of the summary's GPU runs with pageable host memory"),
    RN(pinned_copy_x, "pinned_copy_speedup", "pinned copies", "x", "%.1f", "median pageable copy time per product over the median pinned one, of the summary's GPU runs"),
};
TABLE(run_metric_table, "run", run_defs);

/* A --devices run as a whole (devices_analysis). */
#define DR(b, field, key, label, unit, fmt, what) DEF_BY(b, devices_analysis, field, key, label, unit, fmt, what)
static const metric_def devices_run_defs[] = {
    DR(BETTER_LOWER, seq_wall_ms, "sequential_wall_ms", "wall alone", "ms", "%.1f", "the sequential pass, every GPU one after another"),
    DR(BETTER_LOWER, conc_wall_ms, "concurrent_wall_ms", "wall together", "ms", "%.1f", "the concurrent pass, first start to last end over every GPU"),
    DR(BETTER_HIGHER, wall_speedup, "wall_speedup", "speedup", "x", "%.2f", "sequential over concurrent wall time"),
};
TABLE(devices_run_table, "gpus", devices_run_defs);

/* The summary's findings (summary.h): each one's deciding figure ("value" in the JSON's summary),
 * described by the table of its unit (finding_table). */
#define FIND(name, unit, fmt, what) \
    static const metric_def finding_##name##_defs[] = {{"value", "figure", unit, fmt, offsetof(finding, figure), what, BETTER_NONE}}; \
    TABLE(finding_##name##_table, "finding_" #name, finding_##name##_defs)
FIND(ms, "ms", "%.3f", "the time a finding rests on");
FIND(pct, "%", "%.1f", "the percentage a finding rests on");
FIND(x, "x", "%.1f", "the ratio a finding rests on");
FIND(runs, "runs", "%.0f", "how many workload runs a finding counts");
FIND(events, "events", "%.0f", "how many GPU events a finding counts");
FIND(n, "n", "%.0f", "the matrix size a finding names");
FIND(mb, "MB", "%.1f", "the memory a finding rests on, in MB of 10^6 bytes (asked, leaked per step, at the peak)");

/* mmprof compare: what it adds to each figure it compares (the figure itself keeps its own
 * definition). The noise is the timed samples' noise, in the format every report gives it. */
#define CR(field, key, label, unit, fmt, what) DEF(cmp_row, field, key, label, unit, fmt, what)
static const metric_def compare_row_defs[] = {
    CR(change_pct, "change_pct", "change", "%", "%+.1f", "(new - base) / base"),
    CR(noise_base, "noise_base_pct", "noise base", "%", "%.2f", "stdev / mean of the base run's timed samples"),
    CR(noise_new, "noise_new_pct", "noise new", "%", "%.2f", "stdev / mean of the new run's timed samples"),
};
TABLE(compare_row_table, "compare", compare_row_defs);

/* The wall-time accounts (accounts.h): each span's states, and the span itself. */
#define AR(field, key, label, unit, fmt, what) DEF(account_row, field, key, label, unit, fmt, what)
static const metric_def account_row_defs[] = {
    AR(ms, "ms", "time", "ms", "%.3f", "the state's time in the span: every instant of the span is in exactly one state"),
    AR(share_pct, "share_pct", "share", "%", "%.1f", "the state's time over the span's wall time"),
    AR(host_wait_pct, "host_wait_pct", "host waits", "%", "%.0f",
       "a GPU state: of its time, the share the accounted thread spent in a synchronising CUDA call"),
    AR(samples, "samples", "samples", "", "%.0f", "host samples of the accounted thread taken in the state"),
    AR(cause_pct, "cause_pct", "cause share", "%", "%.0f",
       "of the state's time, the share its top evidence (cause, user's line, library entry) holds"),
};
TABLE(account_row_table, "account_state", account_row_defs);

#define HR(field, key, label, unit, fmt, what) DEF(host_cause_row, field, key, label, unit, fmt, what)
static const metric_def account_cause_defs[] = {
    HR(ms, "ms", "time", "ms", "%.3f", "the time the accounted thread spent in this cause, whatever the GPU did"),
    HR(share_pct, "share_pct", "share", "%", "%.1f", "that time over the span's wall time"),
    HR(cause_pct, "cause_pct", "line share", "%", "%.0f",
       "of that time, the share its top evidence (user's line, library entry, call) holds"),
};
TABLE(account_cause_table, "account_cause", account_cause_defs);

#define AC(field, key, label, unit, fmt, what) DEF(wall_account, field, key, label, unit, fmt, what)
#define AC_LO(field, key, label, unit, fmt, what) DEF_BY(BETTER_LOWER, wall_account, field, key, label, unit, fmt, what)
#define AC_HI(field, key, label, unit, fmt, what) DEF_BY(BETTER_HIGHER, wall_account, field, key, label, unit, fmt, what)
static const metric_def account_defs[] = {
    AC(start_ms, "start_ms", "at", "ms", "%.3f", "the span's start, from the run's"),
    AC_LO(wall_ms, "wall_ms", "wall", "ms", "%.3f", "the span's wall time, summed over the processes or instances it sums"),
    AC_HI(gpu_pct, "gpu_pct", "GPU working", "%", "%.1f", "the GPU states' share of the wall: the GPU ran the process's work"),
    AC_LO(idle_pct, "idle_pct", "GPU idle", "%", "%.1f", "the idle states' share of the wall: the GPU ran nothing of the process"),
    AC(verdict_pct, "verdict_pct", "verdict share", "%", "%.1f", "the share of the wall the verdict's states hold"),
};
TABLE(account_table, "account", account_defs);
/* GPU memory (memory.h): per process and device, what held it, its timeline, what was never freed,
 * ranges and steps, failed allocations. */
#define MS(field, key, label, unit, fmt, what) DEF(mem_series, field, key, label, unit, fmt, what)
#define MS_LO(field, key, label, unit, fmt, what) DEF_BY(BETTER_LOWER, mem_series, field, key, label, unit, fmt, what)
static const metric_def memory_series_defs[] = {
    MS_LO(peak_bytes, "peak_bytes", "peak", "B", "%.0f", "the most device memory live at once: allocations not yet freed (cudaMalloc, pools, VMM), or the allocator's own total where the trace gives it"),
    MS(peak_ms, "peak_ms", "at", "ms", "%.3f", "when the peak was first reached, from the run's start"),
    MS_LO(reserved_peak_bytes, "reserved_peak_bytes", "reserved", "B", "%.0f", "the most the allocators held from the driver: live bytes outside pools plus the pools' sizes, or the trace's Total Reserved"),
    MS(pinned_peak_bytes, "pinned_peak_bytes", "pinned", "B", "%.0f", "the most pinned host memory live at once (cudaHostAlloc, cudaMallocHost)"),
    MS(managed_peak_bytes, "managed_peak_bytes", "managed", "B", "%.0f", "the most managed memory live at once (cudaMallocManaged)"),
    MS(end_bytes, "end_bytes", "at end", "B", "%.0f", "device memory live at the record's end"),
    MS(allocations, "allocations", "allocs", "", "%.0f", "allocations recorded (every kind)"),
    MS(frees, "frees", "frees", "", "%.0f", "frees recorded (every kind)"),
    MS(allocated_bytes, "allocated_bytes", "allocated", "B", "%.0f", "device bytes allocated in all"),
    MS_LO(never_freed_bytes, "never_freed_bytes", "never freed", "B", "%.0f", "device bytes allocated in the record and not freed by its end"),
    MS(never_freed_count, "never_freed_count", "never freed", "", "%.0f", "those allocations"),
    MS_LO(alloc_calls, "alloc_calls", "alloc calls", "", "%.0f", "the process's allocation and free calls (a driver call inside a runtime one counted once)"),
    MS_LO(alloc_call_ms, "alloc_call_ms", "in alloc calls", "ms", "%.3f", "host time in those calls"),
    MS_LO(failed, "failed", "failed", "", "%.0f", "allocations of the process on the device that failed"),
    MS(device_used_peak_bytes, "device_used_peak_bytes", "device used", "B", "%.0f", "the most memory in use on the device by everyone, as NVML read it (5 times a second)"),
    MS(device_total_bytes, "device_total_bytes", "device total", "B", "%.0f", "the device's memory, as NVML reports it"),
};
TABLE(memory_series_table, "memory", memory_series_defs);

#define MH(field, key, label, unit, fmt, what) DEF(mem_holder, field, key, label, unit, fmt, what)
static const metric_def memory_holder_defs[] = {
    MH(bytes, "bytes", "bytes", "B", "%.0f", "device bytes it held then"),
    MH(count, "count", "allocations", "", "%.0f", "its allocations live then"),
    MH(share_pct, "share_pct", "share", "%", "%.0f", "of the live bytes then"),
};
TABLE(memory_holder_table, "memory_holder", memory_holder_defs);

#define MP(field, key, label, unit, fmt, what) DEF(mem_point, field, key, label, unit, fmt, what)
static const metric_def memory_point_defs[] = {
    MP(t_ms, "t_ms", "at", "ms", "%.3f", "the bucket's start, from the run's start (the run's span in 400 buckets)"),
    MP(live_bytes, "live_bytes", "live", "B", "%.0f", "the most device memory live in the bucket"),
    MP(reserved_bytes, "reserved_bytes", "reserved", "B", "%.0f", "the most reserved in the bucket"),
    MP(device_used_bytes, "device_used_bytes", "device used", "B", "%.0f", "the most in use on the device by everyone in the bucket (NVML)"),
};
TABLE(memory_point_table, "memory_point", memory_point_defs);

#define ML(field, key, label, unit, fmt, what) DEF(mem_leak, field, key, label, unit, fmt, what)
#define ML_LO(field, key, label, unit, fmt, what) DEF_BY(BETTER_LOWER, mem_leak, field, key, label, unit, fmt, what)
static const metric_def memory_leak_defs[] = {
    ML_LO(bytes, "bytes", "never freed", "B", "%.0f", "device bytes its allocations left live at the record's end"),
    ML(count, "count", "allocations", "", "%.0f", "those allocations"),
    ML_LO(per_step_bytes, "per_step_bytes", "per step", "B", "%.0f", "median over the steps (instances of the process's longest range repeated 3 times or more) of the bytes it allocated in one and never freed"),
    ML(steps_pct, "steps_pct", "of steps", "%", "%.0f", "steps that left some of it live; 75% or more with a median above 0 is a leak per step"),
};
TABLE(memory_leak_table, "memory_leak", memory_leak_defs);

#define MR(field, key, label, unit, fmt, what) DEF(mem_range, field, key, label, unit, fmt, what)
static const metric_def memory_range_defs[] = {
    MR(instances, "instances", "instances", "", "%.0f", "the range's instances with memory recorded in their process"),
    MR(peak_bytes, "peak_bytes", "peak", "B", "%.0f", "the most device memory live in its process during it (any instance)"),
    MR(growth_bytes, "growth_bytes", "growth", "B", "%+.0f", "live device bytes at its end less at its start (a group's: the median instance)"),
    MR(growth_total_bytes, "growth_total_bytes", "growth in all", "B", "%+.0f", "a group's: from its first instance's start to its last one's end, each process's summed"),
    MR(growing_pct, "growing_pct", "grew", "%", "%.0f", "a group's: instances that ended with more live than they began with"),
};
TABLE(memory_range_table, "memory_range", memory_range_defs);

#define MF(field, key, label, unit, fmt, what) DEF(mem_failure_row, field, key, label, unit, fmt, what)
static const metric_def memory_failure_defs[] = {
    MF(requested_bytes, "requested_bytes", "asked", "B", "%.0f", "the bytes the failed call asked for"),
    MF(t_ms, "t_ms", "at", "ms", "%.3f", "when it failed, from the run's start"),
    MF(live_bytes, "live_bytes", "live", "B", "%.0f", "every allocation of the process the injection library held then (every kind), written at once"),
    MF(live_count, "live_count", "allocations", "", "%.0f", "those allocations"),
    MF(untracked, "untracked", "untracked", "", "%.0f", "allocations the library's table could not hold: the live set lacks them"),
    MF(device_used_bytes, "device_used_bytes", "device used", "B", "%.0f", "memory in use on the device by everyone at NVML's last reading before it"),
    MF(device_total_bytes, "device_total_bytes", "device total", "B", "%.0f", "the device's memory, as NVML reports it"),
};
TABLE(memory_failure_table, "memory_failure", memory_failure_defs);

const metric_table *const metric_tables[] = {
    &workload_metric_table, &kernel_summary_table, &device_peaks_table, &region_metric_table, &kernel_stat_table,
    &copy_flow_table, &sweep_point_table, &crossover_table, &api_stat_table, &rank_share_table, &straggler_table,
    &device_workload_table, &device_aggregate_table, &device_pass_table, &peer_table, &launch_counter_table,
    &busy_span_table, &run_metric_table, &devices_run_table, &stream_table, &range_group_table, &idle_gap_table,
    &idle_share_table, &finding_ms_table,
    &finding_pct_table, &finding_x_table, &finding_runs_table, &finding_events_table, &finding_n_table,
    &compare_row_table, &capture_table, &host_view_table, &host_fn_table, &call_site_table, &host_collection_table,
    &account_table, &account_row_table, &account_cause_table,
    &finding_mb_table, &memory_series_table, &memory_holder_table, &memory_point_table, &memory_leak_table,
    &memory_range_table, &memory_failure_table,
};
const int metric_ntables = (int)(sizeof metric_tables / sizeof metric_tables[0]);
