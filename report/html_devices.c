/* The HTML report's --devices section: each GPU's passes, TFLOP/s per GPU alone and together with
 * the aggregate, and the peer matrix (or why there is none). Column headings, formats and units
 * come from the metric registry (devices.h's tables), each figure marked with its place in the
 * JSON. Written only for a --devices run (sections.h). */
#include <stdio.h>
#include <string.h>

#include "devices.h"
#include "html_parts.h"

/* The registry's columns of t as header cells (the figure's description on hover). */
static void heads(html_ctx *x, const metric_table *t)
{
    for (int i = 0; i < t->n; i++)
        html_fig_heading(x, t, t->defs[i].key);
}

/* The registry's figures of row (at path in the JSON) as cells. */
static void cells(html_ctx *x, const metric_table *t, const void *row, const char *path)
{
    for (int i = 0; i < t->n; i++)
        html_fig_cell(x, t, row, t->defs[i].key, path, false);
}

static void passes(html_ctx *x, const devices_analysis *d)
{
    strbuf *b = x->b;
    sb_add(b, "<div class=\"scroll\"><table><thead><tr><th class=\"r\">GPU</th><th class=\"r\">verified alone</th>"
              "<th class=\"r\">verified together</th>");
    heads(x, &device_pass_table);
    sb_add(b, "</tr></thead><tbody>\n");
    for (int i = 0; i < d->npasses; i++) {
        const device_pass_row *p = &d->passes[i];
        char path[FIG_PATH];
        path_device_pass(path, i);
        sb_printf(b, "<tr><td class=\"r\">%d</td><td class=\"r\">%d of %d</td><td class=\"r\">%d of %d</td>", p->device,
                  p->seq_ok, p->seq_total, p->conc_ok, p->conc_total);
        cells(x, &device_pass_table, p, path);
        sb_add(b, "</tr>\n");
    }
    sb_add(b, "</tbody></table></div>\n");
}

static void workloads(html_ctx *x, const devices_analysis *d)
{
    strbuf *b = x->b;
    sb_add(b, "<h3>TFLOP/s per GPU, alone and together</h3>\n<div class=\"scroll\"><table><thead><tr>"
              "<th>workload</th><th class=\"r\">n</th><th class=\"r\">GPU</th>");
    heads(x, &device_workload_table);
    sb_add(b, "<th class=\"r\" title=\"summed TFLOP/s of every GPU at once, over the best one alone\">all GPUs "
              "TFLOP/s (scaling)</th></tr></thead><tbody>\n");
    for (int i = 0; i < d->nrows; i++) {
        const device_workload_row *r = &d->rows[i];
        const device_aggregate_row *ag = &d->agg[r->agg];
        bool first = i == 0 || d->rows[i - 1].agg != r->agg;
        char path[FIG_PATH];
        path_device_workload(path, i);
        sb_add(b, "<tr><td>");
        if (first)
            sb_html(b, r->label);
        sb_printf(b, "</td><td class=\"r\">%d</td><td class=\"r\">%d</td>", r->n, r->device);
        cells(x, &device_workload_table, r, path);
        sb_add(b, "<td class=\"r\">");
        if (first) {
            path_device_aggregate(path, r->agg);
            html_fig(x, &device_aggregate_table, ag, "aggregate_tflops", path, false);
            sb_add(b, " (");
            html_fig_apart(x, &device_aggregate_table, ag, "scaling", path, false);
            sb_add(b, ")");
        }
        sb_add(b, "</td></tr>\n");
    }
    sb_add(b, "</tbody></table></div>\n");
}

static void peers(html_ctx *x, const devices_analysis *d)
{
    strbuf *b = x->b;
    const multi_gpu_info *g = &x->a->m->builtin.multi;
    sb_add(b, "<h3>Peer copies between GPUs</h3>\n");
    if (d->npeers == 0) {
        sb_add(b, "<p class=\"lede\"><span class=\"na\">n/a</span>: ");
        sb_html(b, d->peer_why);
        sb_add(b, "</p>\n");
        return;
    }
    /* The copies' sizes as the run set them: in MiB when whole, else in bytes. */
    bool mib = g->copy_bytes % (1u << 20) == 0;
    sb_printf(b, "<p class=\"lede\">cudaMemcpyPeerAsync of %llu %s, %d times (bandwidth), and of %llu bytes, "
                 "%d times back to back (latency), timed between cudaEvents; direct: peer access on, staged: off. "
                 "Every large copy's bytes are read back and checked.</p>\n",
              (unsigned long long)(mib ? g->copy_bytes >> 20 : g->copy_bytes), mib ? "MiB" : "bytes", g->copy_reps,
              (unsigned long long)g->latency_bytes, g->latency_reps);
    sb_add(b, "<div class=\"scroll\"><table><thead><tr><th>from</th><th>to</th><th>link (NVML)</th>");
    heads(x, &peer_table);
    sb_add(b, "<th>bytes verified</th></tr></thead><tbody>\n");
    for (int i = 0; i < d->npeers; i++) {
        const peer_pair *p = d->peers[i].p;
        char path[FIG_PATH];
        path_peer(path, i);
        sb_printf(b, "<tr><td>GPU %d</td><td>GPU %d</td><td title=\"", p->src, p->dst);
        sb_html(b, p->link_detail);
        sb_add(b, "\">");
        sb_html(b, p->link);
        sb_add(b, "</td>");
        cells(x, &peer_table, &d->peers[i], path);
        bool vd = p->copy[PEER_DIRECT].verified, vs = p->copy[PEER_STAGED].verified;
        sb_add(b, vd && vs ? "<td>yes, both</td>" : vd ? "<td>direct only</td>" : vs ? "<td>staged only</td>" : "<td>no</td>");
        sb_add(b, "</tr>\n");
    }
    sb_add(b, "</tbody></table></div>\n<ul class=\"lede\">\n");
    for (int i = 0; i < d->npeers; i++) {
        const peer_pair *p = d->peers[i].p;
        sb_printf(b, "<li>GPU %d to GPU %d: ", p->src, p->dst);
        sb_html(b, p->link_detail[0] ? p->link_detail : "no link detail");
        sb_add(b, "</li>\n");
    }
    sb_add(b, "</ul>\n");
}

void html_devices(html_ctx *x)
{
    const devices_analysis d = *x->a->devices;
    strbuf *b = x->b;
    sb_add(b, "<p class=\"answer\"><strong>");
    sb_printf(b, "%d GPU%s", d.npasses, d.npasses == 1 ? "" : "s");
    if (d.wall_speedup.ok) {
        char path[FIG_PATH];
        path_devices(path);
        sb_add(b, ": one after another ");
        html_fig(x, &devices_run_table, x->a->devices, "sequential_wall_ms", path, true);
        sb_add(b, ", all at once ");
        html_fig(x, &devices_run_table, x->a->devices, "concurrent_wall_ms", path, true);
        sb_add(b, " (");
        html_fig(x, &devices_run_table, x->a->devices, "wall_speedup", path, true);
        sb_add(b, ")");
    }
    sb_add(b, "</strong></p>\n<p class=\"lede\">The GPU workloads ran on each GPU alone (one GPU after another), then "
              "on every GPU at once, a host thread driving each. A change below 0 means running together slowed "
              "that GPU.</p>\n");
    passes(x, &d);
    workloads(x, &d);
    peers(x, &d);
}
