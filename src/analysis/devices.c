/* See devices.h. */
#include "devices.h"

#include <stdlib.h>
#include <string.h>

/* Widens [*lo, *hi] (empty while *hi <= *lo) to take in [a, b]. */
static void widen(int64_t *lo, int64_t *hi, int64_t a, int64_t b)
{
    if (b <= a)
        return;
    if (*hi <= *lo) {
        *lo = a, *hi = b;
        return;
    }
    if (a < *lo)
        *lo = a;
    if (b > *hi)
        *hi = b;
}

static void span_of(const workload_run *w, int64_t *lo, int64_t *hi)
{
    if (w->nphases > 0)
        widen(lo, hi, w->phases[0].start_ns, w->phases[w->nphases - 1].end_ns);
}

static void wall(metric *out, int64_t lo, int64_t hi, const char *pass)
{
    if (hi > lo)
        metric_set(out, (double)(hi - lo) / 1e6);
    else
        metric_na(out, "no workload ran in the %s pass", pass);
}

/* The row of (device, label, n), made when new. */
static device_workload_row *row_for(devices_analysis *d, int device, const char *label, int n)
{
    for (int i = 0; i < d->nrows; i++)
        if (d->rows[i].device == device && d->rows[i].n == n && strcmp(d->rows[i].label, label) == 0)
            return &d->rows[i];
    device_workload_row *r = &d->rows[d->nrows++];
    memset(r, 0, sizeof *r);
    r->device = device, r->n = n, r->wl_seq = r->wl_conc = -1;
    copy_str(r->label, sizeof r->label, label);
    return r;
}

static void pass_figures(const analysis *a, int wl, bool *verified, metric *tflops, metric *kernel_ms,
                         const char *pass)
{
    if (wl < 0) {
        metric_na(tflops, "not run in the %s pass", pass);
        metric_na(kernel_ms, "not run in the %s pass", pass);
        return;
    }
    const workload_run *w = a->wl[wl].w;
    *verified = w->status == WL_OK && w->verified;
    *tflops = a->wl[wl].tflops;
    *kernel_ms = a->wl[wl].kernel_ms;
    if (w->status != WL_OK)
        metric_na(tflops, "%s", w->status_reason[0] ? w->status_reason : status_name(w->status));
}

static device_aggregate_row *agg_for(devices_analysis *d, const char *label, int n)
{
    for (int i = 0; i < d->nagg; i++)
        if (d->agg[i].n == n && strcmp(d->agg[i].label, label) == 0)
            return &d->agg[i];
    device_aggregate_row *g = &d->agg[d->nagg++];
    memset(g, 0, sizeof *g);
    g->n = n;
    copy_str(g->label, sizeof g->label, label);
    metric_na(&g->aggregate_tflops, "no GPU measured in the concurrent pass");
    metric_na(&g->one_gpu_tflops, "no GPU measured in the sequential pass");
    metric_na(&g->worst_change_pct, "no GPU measured in both passes");
    return g;
}

static int by_workload_then_gpu(const void *pa, const void *pb)
{
    const device_workload_row *a = pa, *b = pb;
    return a->agg != b->agg ? (a->agg > b->agg) - (a->agg < b->agg) : (a->device > b->device) - (a->device < b->device);
}

static void aggregate(devices_analysis *d)
{
    for (int i = 0; i < d->nrows; i++) {
        device_workload_row *r = &d->rows[i];
        device_aggregate_row *g = agg_for(d, r->label, r->n);
        r->agg = (int)(g - d->agg);
        if (r->conc_tflops.ok) {
            metric_set(&g->aggregate_tflops, (g->ngpus ? g->aggregate_tflops.v : 0) + r->conc_tflops.v);
            g->ngpus++;
        }
        if (r->seq_tflops.ok && (!g->one_gpu_tflops.ok || r->seq_tflops.v > g->one_gpu_tflops.v))
            metric_set(&g->one_gpu_tflops, r->seq_tflops.v);
        if (r->change_pct.ok && (!g->worst_change_pct.ok || r->change_pct.v < g->worst_change_pct.v))
            metric_set(&g->worst_change_pct, r->change_pct.v);
    }
    for (int i = 0; i < d->nagg; i++)
        metric_ratio(&d->agg[i].scaling, &d->agg[i].aggregate_tflops, &d->agg[i].one_gpu_tflops, 1.0);
    qsort(d->rows, (size_t)d->nrows, sizeof *d->rows, by_workload_then_gpu);
}

static void copy_metrics(const peer_copy *c, metric *gbps, metric *lat, const char *mode)
{
    if (c->measured && c->verified) {
        metric_set(gbps, c->gbps);
        metric_set(lat, c->latency_us);
        return;
    }
    const char *why = c->why[0] ? c->why : c->measured ? "the copied bytes did not verify" : "not measured";
    metric_na(gbps, "%s: %s", mode, why);
    metric_na(lat, "%s: %s", mode, why);
}

static void peers(const run_model *m, devices_analysis *d)
{
    const multi_gpu_info *g = &m->builtin.multi;
    if (g->npairs == 0) {
        copy_str(d->peer_why, sizeof d->peer_why, g->why[0] ? g->why : "no pair of GPUs was measured");
        return;
    }
    for (int i = 0; i < g->npairs; i++) {
        peer_row *r = &d->peers[d->npeers++];
        r->p = &g->pairs[i];
        copy_metrics(&r->p->copy[PEER_STAGED], &r->staged_gbps, &r->staged_latency_us, "peer access off");
        copy_metrics(&r->p->copy[PEER_DIRECT], &r->direct_gbps, &r->direct_latency_us, "peer access on");
    }
}

bool devices_analyze(const analysis *a, devices_analysis *d)
{
    memset(d, 0, sizeof *d);
    const run_model *m = a->m;
    if (m->builtin.multi.ndevices == 0) {
        copy_str(d->why, sizeof d->why, m->builtin.multi.why[0] ? m->builtin.multi.why : "not a --devices run");
        copy_str(d->peer_why, sizeof d->peer_why, d->why);
        return true;
    }
    d->multi = true;
    d->rows = calloc((size_t)(a->nwl > 0 ? a->nwl : 1), sizeof *d->rows);
    d->agg = calloc((size_t)(a->nwl > 0 ? a->nwl : 1), sizeof *d->agg);
    d->peers = calloc((size_t)(m->builtin.multi.npairs > 0 ? m->builtin.multi.npairs : 1), sizeof *d->peers);
    if (!d->rows || !d->agg || !d->peers) {
        devices_free(d);
        return false;
    }
    int64_t conc_lo = 0, conc_hi = 0, seq_sum = 0;
    for (int k = 0; k < m->builtin.multi.ndevices; k++) {
        device_pass_row *p = &d->passes[d->npasses++];
        p->device = m->builtin.multi.devices[k];
        int64_t slo = 0, shi = 0, clo = 0, chi = 0;
        for (int i = 0; i < a->nwl; i++) {
            const workload_run *w = a->wl[i].w;
            if (w->device != p->device || w->pass == PASS_ALONE)
                continue;
            bool seq = w->pass == PASS_SEQUENTIAL, ok = w->status == WL_OK && w->verified;
            (*(seq ? &p->seq_total : &p->conc_total))++;
            *(seq ? &p->seq_ok : &p->conc_ok) += ok;
            span_of(w, seq ? &slo : &clo, seq ? &shi : &chi);
            char label[64];
            workload_label(w, label, sizeof label);
            device_workload_row *r = row_for(d, p->device, label, w->n);
            *(seq ? &r->wl_seq : &r->wl_conc) = i;
        }
        wall(&p->seq_wall_ms, slo, shi, "sequential");
        wall(&p->conc_wall_ms, clo, chi, "concurrent");
        seq_sum += shi > slo ? shi - slo : 0;
        widen(&conc_lo, &conc_hi, clo, chi);
    }
    if (seq_sum > 0)
        metric_set(&d->seq_wall_ms, (double)seq_sum / 1e6);
    else
        metric_na(&d->seq_wall_ms, "no workload ran in the sequential pass");
    wall(&d->conc_wall_ms, conc_lo, conc_hi, "concurrent");
    metric_ratio(&d->wall_speedup, &d->seq_wall_ms, &d->conc_wall_ms, 1.0);
    for (int i = 0; i < d->nrows; i++) {
        device_workload_row *r = &d->rows[i];
        pass_figures(a, r->wl_seq, &r->seq_verified, &r->seq_tflops, &r->seq_kernel_ms, "sequential");
        pass_figures(a, r->wl_conc, &r->conc_verified, &r->conc_tflops, &r->conc_kernel_ms, "concurrent");
        metric_ratio(&r->change_pct, &r->conc_tflops, &r->seq_tflops, 100.0);
        if (r->change_pct.ok)
            r->change_pct.v -= 100.0;
    }
    aggregate(d);
    peers(m, d);
    return true;
}

void devices_free(devices_analysis *d)
{
    free(d->rows);
    free(d->agg);
    free(d->peers);
    memset(d, 0, sizeof *d);
}
