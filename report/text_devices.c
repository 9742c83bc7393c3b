/* The text report's --devices section: each GPU's passes, TFLOP/s per GPU alone and together with
 * the aggregate over GPUs, and the peer matrix (or why there is none). Fits TEXT_WIDTH. */
#include <string.h>

#include "devices.h"
#include "text_parts.h"

static void passes(ctx *x, const devices_analysis *d)
{
    fprintf(x->out, "\n%sGPUs%s  the GPU workloads on each GPU alone (one GPU after another), then on all "
                    "at once (a host thread each)\n", c(x, BOLD), c(x, RESET));
    fprintf(x->out, "%s%-5s %-14s %14s %16s %16s%s\n", c(x, DIM), "GPU", "verified alone", "wall alone ms",
            "verified together", "wall together ms", c(x, RESET));
    const metric_table *t = &device_pass_table;
    for (int i = 0; i < d->npasses; i++) {
        const device_pass_row *p = &d->passes[i];
        char b[2][24], v1[24], v2[24];
        snprintf(v1, sizeof v1, "%d of %d", p->seq_ok, p->seq_total);
        snprintf(v2, sizeof v2, "%d of %d", p->conc_ok, p->conc_total);
        fprintf(x->out, "%-5d %-14s %14s %16s %16s\n", p->device, v1, fig(x, b[0], 24, t, p, "sequential_wall_ms", false),
                v2, fig(x, b[1], 24, t, p, "concurrent_wall_ms", false));
    }
    char b[3][24];
    fprintf(x->out, "Wall time: one GPU after another %s, all at once %s (%s)\n",
            fig(x, b[0], 24, &devices_run_table, d, "sequential_wall_ms", true),
            fig(x, b[1], 24, &devices_run_table, d, "concurrent_wall_ms", true),
            fig(x, b[2], 24, &devices_run_table, d, "wall_speedup", true));
}

static void tflops(ctx *x, const devices_analysis *d)
{
    fprintf(x->out, "\n%sTFLOP/s per GPU, alone and together%s  2n^3 / median kernel time; change < 0: slower "
                    "together\n", c(x, BOLD), c(x, RESET));
    fprintf(x->out, "%s%-28s %6s %5s %9s %9s %8s%s\n", c(x, DIM), "workload", "n", "GPU", "alone", "together",
            "change", c(x, RESET));
    for (int i = 0; i < d->nrows; i++) {
        const device_workload_row *r = &d->rows[i];
        const device_aggregate_row *ag = &d->agg[r->agg];
        bool first = i == 0 || d->rows[i - 1].agg != r->agg, last = i + 1 == d->nrows || d->rows[i + 1].agg != r->agg;
        char b[3][24], label[32];
        const metric_table *t = &device_workload_table;
        clipped(r->label, 28, label, sizeof label);
        fprintf(x->out, "%-28s %6d %5d %9s %9s %8s%s\n", first ? label : "", r->n, r->device,
                fig(x, b[0], 24, t, r, "sequential_tflops", false), fig(x, b[1], 24, t, r, "concurrent_tflops", false),
                fig(x, b[2], 24, t, r, "concurrent_change_pct", true),
                r->seq_verified && r->conc_verified ? "" : "  (not verified)");
        if (last)
            fprintf(x->out, "%-28s %6s %5s %9s %9s %8s\n", "", "", "all", "",
                    fig(x, b[0], 24, &device_aggregate_table, ag, "aggregate_tflops", false),
                    fig(x, b[1], 24, &device_aggregate_table, ag, "scaling", true));
    }
}

static void peer_matrix(ctx *x, const run_model *m, const devices_analysis *d)
{
    const multi_gpu_info *g = &m->builtin.multi;
    if (d->npeers == 0) {
        fprintf(x->out, "\n%sPeer copies%s  n/a: %s\n", c(x, BOLD), c(x, RESET), d->peer_why);
        return;
    }
    char line[256];
    snprintf(line, sizeof line, "cudaMemcpyPeerAsync of %s x %d (GB/s) and of %llu B x %d back to back "
                                "(latency); direct: peer access on, staged: off",
             value_text(&report_value_table, "peer_copy_mib", (double)g->copy_bytes / (1024.0 * 1024.0), true).s,
             g->copy_reps, (unsigned long long)g->latency_bytes,
             g->latency_reps);
    fprintf(x->out, "\n%sPeer copies%s  ", c(x, BOLD), c(x, RESET));
    wrapped(x, 13, line);
    fprintf(x->out, "%s%-8s %-7s %11s %10s %11s %10s  %s%s\n", c(x, DIM), "GPUs", "link", "GB/s direct", "us direct",
            "GB/s staged", "us staged", "bytes verified", c(x, RESET));
    for (int i = 0; i < d->npeers; i++) {
        const peer_row *r = &d->peers[i];
        const peer_pair *p = r->p;
        char pair[16];
        snprintf(pair, sizeof pair, "%d -> %d", p->src, p->dst);
        bool vd = p->copy[PEER_DIRECT].verified, vs = p->copy[PEER_STAGED].verified;
        static const text_col cols[] = {
            {"direct_gbps", 11, false}, {"direct_latency_us", 10, false}, {"staged_gbps", 11, false},
            {"staged_latency_us", 10, false},
        };
        fprintf(x->out, "%-8s %-7s", pair, p->link);
        fig_cells(x, &peer_table, r, cols, (int)(sizeof cols / sizeof cols[0]));
        fprintf(x->out, "  %s\n", vd && vs ? "yes, both" : vd ? "direct only" : vs ? "staged only" : "no");
        if (p->link_detail[0]) {
            fputs("         ", x->out);
            wrapped(x, 9, p->link_detail);
        }
    }
}

void text_devices(ctx *x, const analysis *a)
{
    const devices_analysis *d = a->devices;
    passes(x, d);
    tflops(x, d);
    peer_matrix(x, a->m, d);
}
