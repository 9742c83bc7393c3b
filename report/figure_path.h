/* Where json_report.c writes each row of figures in the JSON report, as a path
 * ("analysis.regions[3]", "builtin.workloads[2].metrics"). The HTML page marks every figure it
 * shows with its path and registry table (data-fig, data-t), and the tests look each one up in
 * the JSON the same command wrote, so a page and its JSON cannot show a figure two ways. */
#ifndef MMPROF_REPORT_FIGURE_PATH_H
#define MMPROF_REPORT_FIGURE_PATH_H

#include <stdio.h>

#define FIG_PATH 96

/* The summary's finding i (its unit's finding table). */
#define path_finding(b, i) snprintf((b), FIG_PATH, "summary[%d]", (i))
/* The run as a whole (run_metric_table). */
#define path_run(b) snprintf((b), FIG_PATH, "analysis")
/* analysis.rg[i], for region i (region_metric_table). */
#define path_region(b, i) snprintf((b), FIG_PATH, "analysis.regions[%d]", (i))
#define path_kernel_stat(b, i, k) snprintf((b), FIG_PATH, "analysis.regions[%d].kernel_stats[%d]", (i), (k))
#define path_copy_flow(b, i, f) snprintf((b), FIG_PATH, "analysis.regions[%d].copy_flows[%d]", (i), (f))
#define path_api_stat(b, i, k) snprintf((b), FIG_PATH, "analysis.regions[%d].api_stats[%d]", (i), (k))
/* analysis.wl[w] (workload_metric_table) and its kernel summaries (kernel_summary_table). */
#define path_workload(b, w) snprintf((b), FIG_PATH, "builtin.workloads[%d].metrics", (w))
#define path_kernel_summary(b, w, k) snprintf((b), FIG_PATH, "builtin.workloads[%d].metrics.kernels[%d]", (w), (k))
/* analysis.peaks[d] (device_peaks_table). */
#define path_device_peaks(b, d) snprintf((b), FIG_PATH, "analysis.device_peaks[%d]", (d))
/* analysis.launches[i] (launch_counter_table), analysis.busy[i] (busy_span_table). */
#define path_launch(b, i) snprintf((b), FIG_PATH, "analysis.launch_counters[%d]", (i))
#define path_busy(b, i) snprintf((b), FIG_PATH, "analysis.busy_series[%d]", (i))
#define path_range_group(b, i) snprintf((b), FIG_PATH, "analysis.range_groups[%d]", (i))
#define path_stream(b, i) snprintf((b), FIG_PATH, "analysis.streams[%d]", (i))
/* analysis.idle_gaps[i] (idle_gap_table); the breakdown of listed region li, cause c
 * (idle_share_table): a row per listed region and cause, in that order. */
#define path_idle_gap(b, i) snprintf((b), FIG_PATH, "analysis.idle_gaps[%d]", (i))
#define path_idle_share(b, li, c) snprintf((b), FIG_PATH, "analysis.idle_breakdown[%d]", (li) * IDLE_NCAUSES + (c))
/* analysis.call_sites[i].sites[k] (call_site_table); a host view's frames are under the row of
 * its window ("analysis.idle_gaps[3].host[0].hot": host_function_table). */
#define path_call_site(b, i, k) snprintf((b), FIG_PATH, "analysis.call_sites[%d].sites[%d]", (i), (k))
/* How the host was seen (host_collection_table). */
#define path_host_sampling(b) snprintf((b), FIG_PATH, "analysis.host_sampling")
/* A sweep: series s's point at size index k (sweep_point_table); crossover c (crossover_table). */
#define path_sweep_point(b, s, k) snprintf((b), FIG_PATH, "analysis.sweep.series[%d].points[%d]", (s), (k))
#define path_crossover(b, c) snprintf((b), FIG_PATH, "analysis.sweep.crossovers[%d]", (c))
/* Ranks (rank_share_table, straggler_table). */
#define path_rank_row(b, i) snprintf((b), FIG_PATH, "analysis.ranks.rows[%d]", (i))
#define path_rank_gpu(b, i) snprintf((b), FIG_PATH, "analysis.ranks.gpus[%d]", (i))
#define path_straggler(b, i) snprintf((b), FIG_PATH, "analysis.ranks.stragglers[%d]", (i))
/* profile's capture windows (capture_table). */
#define path_capture(b, i) snprintf((b), FIG_PATH, "analysis.capture.windows[%d]", (i))
/* The wall-time accounts (account_table) and their states (account_row_table). */
#define path_account(b, i) snprintf((b), FIG_PATH, "analysis.wall_accounts[%d]", (i))
#define path_account_state(b, i, k) snprintf((b), FIG_PATH, "analysis.wall_accounts[%d].states[%d]", (i), (k))
/* A --devices run (devices.h's tables). */
#define path_devices(b) snprintf((b), FIG_PATH, "analysis.devices")
#define path_device_workload(b, i) snprintf((b), FIG_PATH, "analysis.devices.workloads[%d]", (i))
#define path_device_aggregate(b, i) snprintf((b), FIG_PATH, "analysis.devices.aggregate[%d]", (i))
#define path_device_pass(b, i) snprintf((b), FIG_PATH, "analysis.devices.passes[%d]", (i))
#define path_peer(b, i) snprintf((b), FIG_PATH, "analysis.devices.peers[%d]", (i))

#endif
