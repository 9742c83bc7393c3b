/* JSON output: the run file (model_write) with the derived figures added beside the raw ones.
 * The reader (model_from_json) ignores "summary", "metrics" and "analysis" and recomputes them, so
 * a run file always renders with the current analysis. */
#include "json_report.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices.h"
#include "fd_write.h"
#include "host_idle.h"
#include "memory.h"
#include "model_json.h"
#include "source.h"
#include "json_writer.h"
#include "strbuf.h"
#include "tables.h"

typedef struct {
    cJSON *obj;      /* where values go */
    cJSON *missing;  /* name -> reason, for values that are null */
    bool ok;
} out;

static void put(out *o, const char *name, const metric *m)
{
    if (!o->ok)
        return;
    cJSON *v = m->ok ? cJSON_CreateNumber(m->v) : cJSON_CreateNull();
    if (!v || !cJSON_AddItemToObject(o->obj, name, v)) {
        cJSON_Delete(v);
        o->ok = false;
        return;
    }
    if (!m->ok && !cJSON_AddStringToObject(o->missing, name, metric_why(m)))
        o->ok = false;
}

/* Every figure of a registry table: the value, or null with its reason under not_available. */
static void put_table(out *o, const metric_table *t, const void *row)
{
    for (int i = 0; i < t->n; i++)
        put(o, t->defs[i].key, metric_of(row, &t->defs[i]));
}

/* A new object appended to arr (or added to obj as key) with its not_available object. */
static bool open_row(cJSON *parent, const char *key, cJSON **row, cJSON **missing)
{
    *row = cJSON_CreateObject();
    *missing = cJSON_CreateObject();
    bool added = *row && *missing &&
                 (key ? cJSON_AddItemToObject(parent, key, *row) : cJSON_AddItemToArray(parent, *row));
    if (!added) {
        cJSON_Delete(*row);
        cJSON_Delete(*missing);
        return false;
    }
    return true;
}

static bool close_row(cJSON *row, cJSON *missing, bool ok)
{
    if (!cJSON_AddItemToObject(row, "not_available", missing)) {
        cJSON_Delete(missing);
        return false;
    }
    return ok;
}

static bool state_row_json(cJSON *arr, const char *key, const account_row *r);

static bool kernel_metrics(cJSON *arr, const kernel_summary *s)
{
    cJSON *k, *missing;
    if (!open_row(arr, NULL, &k, &missing))
        return false;
    out o = {k, missing, true};
    o.ok = cJSON_AddStringToObject(k, "name", s->name) && cJSON_AddNumberToObject(k, "launches", s->launches);
    put_table(&o, &kernel_summary_table, s);
    if (o.ok && s->occupancy_pct.ok)
        o.ok = cJSON_AddNumberToObject(k, "active_blocks_per_sm", s->active_blocks) &&
               cJSON_AddStringToObject(k, "occupancy_limiter", s->limiter);
    return close_row(k, missing, o.ok);
}

static bool workload_metrics_json(cJSON *w, const workload_metrics *r)
{
    cJSON *mj, *missing;
    if (!open_row(w, "metrics", &mj, &missing))
        return false;
    out o = {mj, missing, true};
    put_table(&o, &workload_metric_table, r);
    cJSON *kernels = o.ok ? cJSON_AddArrayToObject(mj, "kernels") : NULL;
    o.ok = o.ok && kernels && cJSON_AddNumberToObject(mj, "kernels_per_product", r->kernels_per_product) &&
           cJSON_AddStringToObject(mj, "verdict", verdict_name(r->verdict)) &&
           cJSON_AddStringToObject(mj, "verdict_reason", r->verdict_text) &&
           cJSON_AddStringToObject(mj, "bound", bound_name(r->bound)) &&
           cJSON_AddStringToObject(mj, "bound_reason", r->bound_text) &&
           (r->gap_phase[0] ? cJSON_AddStringToObject(mj, "largest_gap_phase", r->gap_phase) != NULL : true);
    for (int i = 0; o.ok && i < r->nkernels; i++)
        o.ok = kernel_metrics(kernels, &r->kernels[i]);
    return close_row(mj, missing, o.ok);
}

static bool add_int3(cJSON *obj, const char *key, const int v[3])
{
    cJSON *a = cJSON_CreateIntArray(v, 3);
    if (!a || !cJSON_AddItemToObject(obj, key, a)) {
        cJSON_Delete(a);
        return false;
    }
    return true;
}

static bool flow_json(cJSON *arr, const copy_flow *f)
{
    cJSON *row, *missing;
    if (!open_row(arr, NULL, &row, &missing))
        return false;
    out o = {row, missing, true};
    /* A memset row has no direction: "memory" is the memory it set. */
    o.ok = cJSON_AddStringToObject(row, "kind", f->memset ? "memset" : "memcpy") &&
           (f->memset ? cJSON_AddStringToObject(row, "memory", mem_kind_name(f->host)) != NULL
                      : cJSON_AddStringToObject(row, "dir", copy_dir_name(f->dir)) &&
                            cJSON_AddStringToObject(row, "host_memory", mem_kind_name(f->host))) &&
           cJSON_AddNumberToObject(row, "count", f->count);
    put_table(&o, &copy_flow_table, f);
    return close_row(row, missing, o.ok);
}

static bool kernel_stat_json(cJSON *arr, const kernel_stat *k)
{
    cJSON *row, *missing;
    if (!open_row(arr, NULL, &row, &missing))
        return false;
    out o = {row, missing, true};
    o.ok = cJSON_AddStringToObject(row, "name", k->name) && cJSON_AddNumberToObject(row, "count", k->count) &&
           add_int3(row, "grid", k->grid) && add_int3(row, "block", k->block);
    if (o.ok && k->has_resources)
        o.ok = cJSON_AddNumberToObject(row, "registers", k->registers) &&
               cJSON_AddNumberToObject(row, "static_smem", k->static_smem) &&
               cJSON_AddNumberToObject(row, "dynamic_smem", k->dynamic_smem);
    put_table(&o, &kernel_stat_table, k);
    if (o.ok && k->occupancy_pct.ok)
        o.ok = cJSON_AddNumberToObject(row, "active_blocks_per_sm", k->active_blocks) &&
               cJSON_AddStringToObject(row, "occupancy_limiter", k->limiter);
    return close_row(row, missing, o.ok);
}

static bool api_stat_json(cJSON *arr, const api_stat *k)
{
    cJSON *row, *missing;
    if (!open_row(arr, NULL, &row, &missing))
        return false;
    out o = {row, missing, true};
    o.ok = cJSON_AddStringToObject(row, "name", k->name) && cJSON_AddNumberToObject(row, "count", k->count);
    put_table(&o, &api_stat_table, k);
    return close_row(row, missing, o.ok);
}

/* One region's figures: what it is, the registry's figures, copies per direction and memory
 * kind, kernels by total time, the idle gaps and the verdict with its advice. */
static bool region_json(cJSON *arr, const run_model *m, const region_metrics *r)
{
    const region *rg = &m->regions[r->region];
    cJSON *row, *missing;
    if (!open_row(arr, NULL, &row, &missing))
        return false;
    out o = {row, missing, true};
    o.ok = cJSON_AddNumberToObject(row, "index", r->region) && cJSON_AddStringToObject(row, "name", rg->name) &&
           cJSON_AddStringToObject(row, "kind", region_kind_name(rg->kind)) &&
           (rg->domain ? cJSON_AddStringToObject(row, "domain", rg->domain) != NULL : true) &&
           cJSON_AddNumberToObject(row, "kernels", r->nkernels) && cJSON_AddNumberToObject(row, "copies", r->ncopies) &&
           cJSON_AddNumberToObject(row, "memsets", r->nmemsets) && cJSON_AddNumberToObject(row, "api_calls", r->napis) &&
           cJSON_AddNumberToObject(row, "launch_calls", r->nlaunches) &&
           cJSON_AddNumberToObject(row, "syncs", r->nsyncs) &&
           cJSON_AddNumberToObject(row, "attributed_by_time", r->by_time);
    put_table(&o, &region_metric_table, r);
    cJSON *flows = o.ok ? cJSON_AddArrayToObject(row, "copy_flows") : NULL;
    cJSON *kernels = flows ? cJSON_AddArrayToObject(row, "kernel_stats") : NULL;
    cJSON *apis = kernels ? cJSON_AddArrayToObject(row, "api_stats") : NULL;
    cJSON *gaps = apis ? cJSON_AddArrayToObject(row, "idle_gaps") : NULL;
    o.ok = o.ok && gaps && cJSON_AddStringToObject(row, "verdict", verdict_name(r->verdict)) &&
           cJSON_AddStringToObject(row, "verdict_reason", r->verdict_text) &&
           cJSON_AddStringToObject(row, "advice", r->advice);
    for (int i = 0; o.ok && i < r->nflows; i++)
        o.ok = flow_json(flows, &r->flows[i]);
    for (int i = 0; o.ok && i < r->nkstats; i++)
        o.ok = kernel_stat_json(kernels, &r->kernels[i]);
    for (int i = 0; o.ok && i < r->napistats; i++)
        o.ok = api_stat_json(apis, &r->apis[i]);
    for (int i = 0; o.ok && i < r->ngaps; i++) {
        cJSON *g = cJSON_CreateObject();
        o.ok = g && cJSON_AddItemToArray(gaps, g) &&
               cJSON_AddNumberToObject(g, "start_ns", (double)(r->gaps[i].start_ns - m->epoch_ns)) &&
               cJSON_AddNumberToObject(g, "ms", (double)r->gaps[i].length_ns / 1e6);
    }
    return close_row(row, missing, o.ok);
}

/* A sweep: its sizes, a series per workload and memory kind (a point per size, the registry's
 * figures), and the four crossovers with the one-line answer. */
static bool sweep_json(cJSON *an, const sweep_analysis *s)
{
    cJSON *sw = cJSON_AddObjectToObject(an, "sweep");
    cJSON *sizes = sw ? cJSON_CreateIntArray(s->sizes, s->nsizes) : NULL;
    if (!sizes || !cJSON_AddItemToObject(sw, "sizes", sizes)) {
        cJSON_Delete(sizes);
        return false;
    }
    char line[1024];
    sweep_headline(s, line, sizeof line);
    cJSON *series = cJSON_AddStringToObject(sw, "answer", line) ? cJSON_AddArrayToObject(sw, "series") : NULL;
    for (int i = 0; series && i < s->nseries; i++) {
        const sweep_series *r = &s->series[i];
        cJSON *o = cJSON_CreateObject(), *pts;
        if (!o || !cJSON_AddItemToArray(series, o)) {
            cJSON_Delete(o);
            return false;
        }
        if (!cJSON_AddStringToObject(o, "workload", r->name) ||
            !cJSON_AddStringToObject(o, "host_memory", mem_kind_name(r->mem)) ||
            !cJSON_AddStringToObject(o, "precision", precision_name(r->prec)) || !(pts = cJSON_AddArrayToObject(o, "points")))
            return false;
        for (int k = 0; k < s->nsizes; k++) {
            cJSON *p, *missing;
            if (!open_row(pts, NULL, &p, &missing))
                return false;
            out q = {p, missing, cJSON_AddNumberToObject(p, "n", r->pts[k].n) != NULL};
            if (q.ok && r->pts[k].wl >= 0)
                q.ok = cJSON_AddNumberToObject(p, "workload_index", r->pts[k].wl) != NULL;
            put_table(&q, &sweep_point_table, &r->pts[k]);
            if (!close_row(p, missing, q.ok))
                return false;
        }
    }
    cJSON *cross = series ? cJSON_AddArrayToObject(sw, "crossovers") : NULL;
    for (int i = 0; cross && i < s->ncross; i++) {
        const crossover *c = &s->cross[i];
        cJSON *o, *missing;
        if (!open_row(cross, NULL, &o, &missing))
            return false;
        out q = {o, missing, true};
        q.ok = cJSON_AddStringToObject(o, "host_memory", mem_kind_name(c->mem)) &&
               cJSON_AddStringToObject(o, "basis", c->e2e ? "e2e" : "kernel") &&
               cJSON_AddStringToObject(o, "kind", cross_kind_names[c->kind]) &&
               (c->kind == CROSS_UNKNOWN || (cJSON_AddNumberToObject(o, "below", c->below) &&
                                             cJSON_AddNumberToObject(o, "above", c->above) &&
                                             cJSON_AddStringToObject(o, "workload", c->workload))) &&
               (c->kind != CROSS_UNKNOWN || cJSON_AddStringToObject(o, "reason", c->why));
        put_table(&q, &crossover_table, c);
        if (!close_row(o, missing, q.ok))
            return false;
    }
    return cross != NULL;
}

static bool share_json(cJSON *arr, const rank_share *r)
{
    cJSON *row, *missing;
    if (!open_row(arr, NULL, &row, &missing))
        return false;
    out o = {row, missing, true};
    o.ok = cJSON_AddNumberToObject(row, "rank", r->rank) && cJSON_AddNumberToObject(row, "pid", r->pid) &&
           cJSON_AddNumberToObject(row, "processes", r->nprocs) && cJSON_AddStringToObject(row, "host", r->host) &&
           cJSON_AddNumberToObject(row, "device", r->device) && cJSON_AddNumberToObject(row, "kernels", r->kernels) &&
           cJSON_AddNumberToObject(row, "nccl_kernels", r->comm_kernels) &&
           cJSON_AddNumberToObject(row, "copies", r->copies);
    put_table(&o, &rank_share_table, r);
    return close_row(row, missing, o.ok);
}

/* "ranks": per rank (or GPU process) and per GPU shares, and the stragglers (ranks.h). */
static bool ranks_json(cJSON *an, const rank_analysis *ra)
{
    cJSON *rk = cJSON_AddObjectToObject(an, "ranks");
    cJSON *rows = rk ? cJSON_AddArrayToObject(rk, "rows") : NULL;
    cJSON *gpus = rows ? cJSON_AddArrayToObject(rk, "gpus") : NULL;
    cJSON *st = gpus ? cJSON_AddArrayToObject(rk, "stragglers") : NULL;
    if (!st || !cJSON_AddBoolToObject(rk, "by_rank", ra->by_rank) || !cJSON_AddNumberToObject(rk, "hosts", ra->nhosts))
        return false;
    for (int i = 0; i < ra->nrows; i++)
        if (!share_json(rows, &ra->rows[i]))
            return false;
    for (int i = 0; i < ra->ngpus; i++)
        if (!share_json(gpus, &ra->gpus[i]))
            return false;
    for (int i = 0; i < ra->nstragglers; i++) {
        const straggler *s = &ra->stragglers[i];
        cJSON *row, *missing;
        if (!open_row(st, NULL, &row, &missing))
            return false;
        out o = {row, missing, true};
        const rank_share *who = s->straggler >= 0 ? &ra->rows[s->straggler] : NULL;
        o.ok = cJSON_AddStringToObject(row, "name", s->name) && cJSON_AddNumberToObject(row, "matched", s->matched) &&
               cJSON_AddNumberToObject(row, "ranks", s->rows) &&
               cJSON_AddNumberToObject(row, "last_rank", who ? who->rank : -1) &&
               cJSON_AddNumberToObject(row, "last_pid", who ? who->pid : 0) &&
               cJSON_AddNumberToObject(row, "last_times", s->straggler_times);
        put_table(&o, &straggler_table, s);
        if (!close_row(row, missing, o.ok))
            return false;
    }
    return true;
}

/* One row of a --devices table: ids, then the table's figures. */
static bool device_row(cJSON *arr, const metric_table *t, const void *row, int device, const char *label, int n)
{
    cJSON *r, *missing;
    if (!open_row(arr, NULL, &r, &missing))
        return false;
    bool ok = (device < 0 || cJSON_AddNumberToObject(r, "device", device)) &&
              (!label || cJSON_AddStringToObject(r, "workload", label)) && (n <= 0 || cJSON_AddNumberToObject(r, "n", n));
    out o = {r, missing, ok};
    put_table(&o, t, row);
    return close_row(r, missing, o.ok);
}

/* "devices": a --devices run's figures (devices.h): per GPU and workload, the aggregate, each
 * GPU's passes and the peer matrix; or why the run has none of them. */
static bool devices_json(cJSON *an, const analysis *a)
{
    const devices_analysis *dv = a->devices;
    if (!dv)
        return true;
    const devices_analysis d = *dv;
    cJSON *dj = cJSON_AddObjectToObject(an, "devices");
    cJSON *rows = dj ? cJSON_AddArrayToObject(dj, "workloads") : NULL;
    cJSON *agg = rows ? cJSON_AddArrayToObject(dj, "aggregate") : NULL;
    cJSON *passes = agg ? cJSON_AddArrayToObject(dj, "passes") : NULL;
    cJSON *peers = passes ? cJSON_AddArrayToObject(dj, "peers") : NULL;
    bool ok = peers != NULL;
    for (int i = 0; ok && i < d.nrows; i++)
        ok = device_row(rows, &device_workload_table, &d.rows[i], d.rows[i].device, d.rows[i].label, d.rows[i].n);
    for (int i = 0; ok && i < d.nagg; i++)
        ok = device_row(agg, &device_aggregate_table, &d.agg[i], -1, d.agg[i].label, d.agg[i].n);
    for (int i = 0; ok && i < d.npasses; i++)
        ok = device_row(passes, &device_pass_table, &d.passes[i], d.passes[i].device, NULL, 0);
    for (int i = 0; ok && i < d.npeers; i++) {
        const peer_pair *p = d.peers[i].p;
        cJSON *r, *missing;
        ok = open_row(peers, NULL, &r, &missing);
        if (!ok)
            break;
        ok = cJSON_AddNumberToObject(r, "src", p->src) && cJSON_AddNumberToObject(r, "dst", p->dst) &&
             cJSON_AddStringToObject(r, "link", p->link);
        out o = {r, missing, ok};
        put_table(&o, &peer_table, &d.peers[i]);
        ok = close_row(r, missing, o.ok);
    }
    cJSON *m = ok ? cJSON_CreateObject() : NULL;
    if (m) {
        out o = {dj, m, true};
        put_table(&o, &devices_run_table, dv);
        ok = o.ok && (d.npeers > 0 || cJSON_AddStringToObject(dj, "peer_matrix_not_available", d.peer_why)) &&
             close_row(dj, m, true);
        if (!o.ok)
            cJSON_Delete(m);
    }
    return ok && m;
}

/* A declared table's rows under its parent's row up (tables.h): an array under the last member of
 * its JSON path, each element an object with what ident names it, its figures and their reasons. */
typedef bool (*row_ident)(cJSON *row, const analysis *a, int i, const void *r);

static bool table_rows(cJSON *parent, const table_decl *d, int up, row_ident ident, const analysis *a)
{
    const char *key = strrchr(d->json, '.');
    key = key ? key + 1 : d->json;
    cJSON *arr = cJSON_AddArrayToObject(parent, key);
    bool ok = arr != NULL;
    table_at at = {a, up, d->arg, NULL};
    int n = ok ? d->count(&at) : 0;
    for (int i = 0; ok && i < n; i++) {
        const void *r = d->row(&at, i);
        if (!r)
            continue;
        cJSON *row, *missing;
        ok = open_row(arr, NULL, &row, &missing);
        if (!ok)
            break;
        out o = {row, missing, !ident || ident(row, a, i, r)};
        put_table(&o, d->figures, r);
        ok = close_row(row, missing, o.ok);
    }
    return ok;
}

/* A capture window: its number in its process, its region, and why it opened and closed. */
static bool capture_ident(cJSON *row, const analysis *a, int i, const void *r)
{
    (void)i;
    const capture_window *w = &a->m->capture.windows[((const capture_metrics *)r)->window];
    return cJSON_AddNumberToObject(row, "window", w->number) && cJSON_AddNumberToObject(row, "pid", w->pid) &&
           cJSON_AddNumberToObject(row, "region", w->region) && cJSON_AddStringToObject(row, "began", w->began) &&
           cJSON_AddStringToObject(row, "began_detail", w->began_detail) &&
           cJSON_AddStringToObject(row, "ended", w->ended) && cJSON_AddStringToObject(row, "ended_detail", w->ended_detail);
}

/* profile --delay/--duration/--capture-range: what was asked and each window (capture.h); absent
 * without a capture. */
static bool capture_json(cJSON *an, const analysis *a)
{
    if (!a->m->capture.asked[0] && a->ncapture == 0)
        return true;
    cJSON *cap = cJSON_AddObjectToObject(an, "capture");
    return cap && cJSON_AddStringToObject(cap, "asked", a->m->capture.asked) &&
           table_rows(cap, &table_capture, -1, capture_ident, a);
}

/* Which GPU a stretch of activity is on. */
static bool busy_ident(cJSON *row, const analysis *a, int i, const void *r)
{
    (void)a, (void)i;
    return cJSON_AddNumberToObject(row, "device", ((const busy_span *)r)->device);
}

/* Which stream a row is, with its event counts. */
static bool stream_ident(cJSON *row, const analysis *a, int i, const void *r)
{
    (void)a, (void)i;
    const stream_metrics *s = r;
    return cJSON_AddNumberToObject(row, "device", s->device) && cJSON_AddNumberToObject(row, "stream", s->stream) &&
           cJSON_AddNumberToObject(row, "kernels", s->nkernels) && cJSON_AddNumberToObject(row, "copies", s->ncopies) &&
           cJSON_AddNumberToObject(row, "memsets", s->nmemsets);
}

/* Which ranges a group is: name, kind, domain, instances, and its verdicts counted. */
static bool group_ident(cJSON *row, const analysis *a, int i, const void *r)
{
    (void)i;
    const range_group *g = r;
    const region_metrics *w = &a->rg[g->worst];
    bool ok = cJSON_AddStringToObject(row, "name", g->name) &&
              cJSON_AddStringToObject(row, "kind", region_kind_name(g->kind)) &&
              (g->domain ? cJSON_AddStringToObject(row, "domain", g->domain) : cJSON_AddNullToObject(row, "domain")) &&
              cJSON_AddNumberToObject(row, "count", g->count) && cJSON_AddNumberToObject(row, "with_gpu", g->with_gpu) &&
              cJSON_AddStringToObject(row, "verdict", verdict_name(g->verdict));
    cJSON *counts = ok ? cJSON_AddObjectToObject(row, "verdicts") : NULL;
    for (int v = 0; counts && v < VERDICT_COUNT; v++)
        if (g->verdicts[v] > 0 && !cJSON_AddNumberToObject(counts, verdict_name((verdict_kind)v), g->verdicts[v]))
            return false;
    cJSON *worst = counts ? cJSON_AddObjectToObject(row, "worst") : NULL;
    if (!worst || !cJSON_AddNumberToObject(worst, "region", g->worst) ||
        !cJSON_AddStringToObject(worst, "verdict", verdict_name(w->verdict)) ||
        !cJSON_AddStringToObject(worst, "verdict_text", w->verdict_text))
        return false;
    /* The instances a group row shows: the median (the steady state) and the longest, and the
     * advice they got, each text once with how many instances got it. */
    const int which[] = {g->median, g->longest};
    const char *const names[] = {"median_instance", "longest_instance"};
    for (int k = 0; k < 2; k++) {
        cJSON *o = cJSON_AddObjectToObject(row, names[k]);
        if (!o || !cJSON_AddNumberToObject(o, "region", which[k]) ||
            !cJSON_AddStringToObject(o, "verdict", verdict_name(a->rg[which[k]].verdict)))
            return false;
    }
    cJSON *instances = cJSON_AddArrayToObject(row, "instances");
    for (int k = 0; instances && k < g->count; k++)
        if (!cJSON_AddItemToArray(instances, cJSON_CreateNumber(g->members[k])))
            return false;
    cJSON *advice = instances && cJSON_AddNumberToObject(row, "listed", g->listed) ? cJSON_AddArrayToObject(row, "advice") : NULL;
    for (int k = 0; advice && k < g->nadvice; k++) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(advice, o) || !cJSON_AddStringToObject(o, "text", a->rg[g->advice[k].region].advice) ||
            !cJSON_AddNumberToObject(o, "count", g->advice[k].count) ||
            !cJSON_AddNumberToObject(o, "first_region", g->advice[k].region))
            return false;
    }
    return advice && cJSON_AddNumberToObject(row, "advice_other", g->advice_other);
}

/* profile --counters: which launch a row is. */
static bool launch_ident(cJSON *row, const analysis *a, int i, const void *r)
{
    (void)a, (void)i;
    const launch_metrics *l = r;
    const kernel_counters *k = l->k;
    return cJSON_AddStringToObject(row, "kernel", k->name) && cJSON_AddNumberToObject(row, "pid", k->pid) &&
           cJSON_AddNumberToObject(row, "device", k->device) && cJSON_AddNumberToObject(row, "correlation", k->correlation) &&
           cJSON_AddStringToObject(row, "bound", bound_name(l->bound)) &&
           cJSON_AddStringToObject(row, "bound_reason", l->bound_text);
}

/* A frame of a host view: its words, whether it is the user's code, and host_fn_table's figures. */
static bool host_fn_json(cJSON *parent, const char *key, const host_fn *f)
{
    cJSON *row, *missing;
    if (!open_row(parent, key, &row, &missing))
        return false;
    out o = {row, missing, true};
    o.ok = cJSON_AddStringToObject(row, "name", f->name) && cJSON_AddBoolToObject(row, "user", f->user);
    put_table(&o, &host_fn_table, f);
    return close_row(row, missing, o.ok);
}

/* "host": where the host was in a window (host_where.h), a view per source that saw anything;
 * "host_none" says why there is none. Written only where the run carries host activity. */
static bool host_views_json(cJSON *row, const analysis *a, const host_view v[HOST_NFROM])
{
    if (!a->host || !a->host->sampled)
        return true;
    cJSON *arr = cJSON_AddArrayToObject(row, "host");
    bool ok = arr != NULL;
    for (int f = 0; ok && f < HOST_NFROM; f++) {
        if (!v[f].any)
            continue;
        cJSON *r, *missing;
        if (!(ok = open_row(arr, NULL, &r, &missing)))
            break;
        out o = {r, missing, true};
        cJSON *top = NULL;
        o.ok = cJSON_AddStringToObject(r, "source", host_from_key(v[f].from)) &&
               cJSON_AddStringToObject(r, "source_label", host_from_label(v[f].from)) &&
               cJSON_AddNumberToObject(r, "pid", v[f].pid) && cJSON_AddNumberToObject(r, "tid", v[f].tid) &&
               cJSON_AddNumberToObject(r, "threads", v[f].threads) &&
               (v[f].hot.name[0] ? host_fn_json(r, "hot", &v[f].hot) : cJSON_AddNullToObject(r, "hot") != NULL) &&
               (v[f].user.name[0] ? host_fn_json(r, "user_line", &v[f].user)
                                  : cJSON_AddNullToObject(r, "user_line") != NULL) &&
               (top = cJSON_AddArrayToObject(r, "innermost"));
        for (int k = 0; o.ok && k < v[f].ntop; k++)
            o.ok = host_fn_json(top, NULL, &v[f].top[k]);
        put_table(&o, &host_view_table, &v[f]);
        ok = close_row(r, missing, o.ok);
    }
    if (ok && !host_view_headline(v))
        ok = cJSON_AddStringToObject(row, "host_none", a->host->none[0] ? a->host->none : "no host samples in it");
    return ok;
}

/* "call_sites": the line each kernel, copy, memset or call was made from (call_sites.h). */
static bool call_sites_json(cJSON *an, const analysis *a)
{
    if (!a->host)
        return true;
    /* how the host was seen: the sampler's words and the registry's figures (host_collection) */
    cJSON *smp, *missing;
    if (!open_row(an, "host_sampling", &smp, &missing))
        return false;
    const host_activity *h = &a->m->host_activity;
    out o = {smp, missing, true};
    o.ok = cJSON_AddStringToObject(smp, "mechanism", h->mechanism) && cJSON_AddStringToObject(smp, "why_not", h->why_not);
    put_table(&o, &host_collection_table, &a->host->collection);
    bool ok = close_row(smp, missing, o.ok);
    cJSON *arr = ok ? cJSON_AddArrayToObject(an, "call_sites") : NULL;
    ok = arr != NULL;
    for (int i = 0; ok && i < a->host->nsites; i++) {
        const call_site_row *s = &a->host->sites[i];
        cJSON *r = cJSON_CreateObject(), *sites = NULL;
        ok = r && cJSON_AddItemToArray(arr, r) && cJSON_AddStringToObject(r, "kind", s->kind) &&
             cJSON_AddStringToObject(r, "name", s->name) && cJSON_AddNumberToObject(r, "calls", s->calls) &&
             cJSON_AddNumberToObject(r, "other_sites", s->other_sites) && (sites = cJSON_AddArrayToObject(r, "sites"));
        for (int k = 0; ok && k < s->nsites; k++) {
            cJSON *row, *missing;
            if (!(ok = open_row(sites, NULL, &row, &missing)))
                break;
            out o = {row, missing, true};
            o.ok = cJSON_AddStringToObject(row, "at", s->sites[k].at);
            put_table(&o, &call_site_table, &s->sites[k]);
            ok = close_row(row, missing, o.ok);
        }
    }
    return ok;
}

/* One idle stretch: which GPU, where, its cause, the calls with most time in it and the ranges
 * open during it, then the registry's figures (idle_gap_table). */
static bool idle_gap_json(cJSON *arr, const analysis *a, const idle_stretch *x)
{
    cJSON *row, *missing;
    if (!open_row(arr, NULL, &row, &missing))
        return false;
    out o = {row, missing, true};
    cJSON *calls = NULL, *ranges = NULL;
    o.ok = cJSON_AddNumberToObject(row, "device", x->device) &&
           cJSON_AddStringToObject(row, "where", stretch_where_name(x->where)) &&
           cJSON_AddStringToObject(row, "cause", idle_cause_key(x->cause)) &&
           cJSON_AddStringToObject(row, "cause_label", idle_cause_label(x->cause)) &&
           (x->next[0] ? cJSON_AddStringToObject(row, "next", x->next) : cJSON_AddNullToObject(row, "next")) &&
           (calls = cJSON_AddArrayToObject(row, "calls")) && (ranges = cJSON_AddArrayToObject(row, "open_ranges"));
    for (int i = 0; o.ok && i < x->ncalls; i++) {
        cJSON *c = cJSON_CreateObject();
        o.ok = c && cJSON_AddItemToArray(calls, c) && cJSON_AddStringToObject(c, "name", x->calls[i].name) &&
               cJSON_AddNumberToObject(c, "pid", x->calls[i].pid) &&
               cJSON_AddNumberToObject(c, "thread", x->calls[i].thread) &&
               cJSON_AddNumberToObject(c, "count", x->calls[i].count) &&
               cJSON_AddStringToObject(c, "cause", idle_cause_key(x->calls[i].cause)) &&
               cJSON_AddNumberToObject(c, "ms", x->calls[i].ms.v);
    }
    for (int i = 0; o.ok && i < x->nranges; i++) {
        const region *rg = &a->m->regions[x->open_ranges[i]];
        cJSON *c = cJSON_CreateObject();
        o.ok = c && cJSON_AddItemToArray(ranges, c) && cJSON_AddNumberToObject(c, "region", x->open_ranges[i]) &&
               cJSON_AddStringToObject(c, "name", rg->name);
    }
    put_table(&o, &idle_gap_table, x);
    if (o.ok && a->host)
        o.ok = host_views_json(row, a, &a->host->gaps[(x - a->idle_gaps) * HOST_NFROM]);
    /* its largest idle state in its process's wall-time account, with the evidence */
    const account_row *acc = a->idle_accounts ? &a->idle_accounts[x - a->idle_gaps] : NULL;
    if (o.ok)
        o.ok = acc && acc->state < WS_COUNT ? state_row_json(row, "account", acc) : cJSON_AddNullToObject(row, "account") != NULL;
    return close_row(row, missing, o.ok);
}

/* "idle_gaps" and "idle_breakdown": the run's idle stretches explained, and each listed region's
 * idle time by cause, a row per region and cause (idle_share_table), in listed order. */
static bool idle_json(cJSON *an, const analysis *a)
{
    cJSON *gaps = cJSON_AddArrayToObject(an, "idle_gaps");
    bool ok = gaps && cJSON_AddNumberToObject(an, "idle_gaps_not_listed", a->idle_gaps_unlisted);
    for (int i = 0; ok && i < a->nidle_gaps; i++)
        ok = idle_gap_json(gaps, a, &a->idle_gaps[i]);
    cJSON *bd = ok ? cJSON_AddArrayToObject(an, "idle_breakdown") : NULL;
    ok = bd != NULL;
    for (int li = 0; ok && li < a->nlisted; li++) {
        const region_metrics *r = &a->rg[a->listed[li]];
        for (int c = 0; ok && c < IDLE_NCAUSES; c++) {
            cJSON *row, *missing;
            ok = open_row(bd, NULL, &row, &missing);
            if (!ok)
                break;
            out o = {row, missing, true};
            o.ok = cJSON_AddNumberToObject(row, "region", r->region) &&
                   cJSON_AddStringToObject(row, "name", a->m->regions[r->region].name) &&
                   cJSON_AddStringToObject(row, "cause", idle_cause_key((idle_cause)c)) &&
                   cJSON_AddStringToObject(row, "cause_label", idle_cause_label((idle_cause)c));
            put_table(&o, &idle_share_table, &r->idle[c]);
            /* The host-busy share names the functions it was (host_idle.h). */
            if (o.ok && c == IDLE_HOST_BUSY && a->host && li < a->host->nregions)
                o.ok = host_views_json(row, a, &a->host->regions[li * HOST_NFROM]);
            ok = close_row(row, missing, o.ok);
        }
    }
    return ok;
}

/* One state of an account with its evidence (account_row_table's figures), into arr, or as key
 * of arr where key is given. */
static bool state_row_json(cJSON *arr, const char *key, const account_row *r)
{
    cJSON *srow, *smissing;
    if (!open_row(arr, key, &srow, &smissing))
        return false;
    out so = {srow, smissing, true};
    so.ok = cJSON_AddStringToObject(srow, "state", wall_states[r->state].key) &&
            cJSON_AddStringToObject(srow, "label", wall_states[r->state].label) &&
            cJSON_AddStringToObject(srow, "group", wall_groups[wall_states[r->state].group].key) &&
            cJSON_AddBoolToObject(srow, "gpu", wall_state_gpu(r->state)) &&
            (r->cause[0] ? cJSON_AddStringToObject(srow, "cause", r->cause) : cJSON_AddNullToObject(srow, "cause")) &&
            cJSON_AddStringToObject(srow, "why", r->why) && cJSON_AddStringToObject(srow, "at", r->at) &&
            cJSON_AddStringToObject(srow, "via", r->via) && cJSON_AddBoolToObject(srow, "few_samples", r->few_samples);
    put_table(&so, &account_row_table, r);
    return close_row(srow, smissing, so.ok);
}

/* "wall_accounts": where the wall-clock time went (accounts.h), each account with its verdict and
 * its states, each state with its evidence and account_row_table's figures. */
static bool accounts_json(cJSON *an, const analysis *a)
{
    cJSON *arr = cJSON_AddArrayToObject(an, "wall_accounts");
    bool ok = arr != NULL;
    for (int i = 0; ok && i < a->naccounts; i++) {
        const wall_account *acc = &a->accounts[i];
        cJSON *row, *missing, *states = NULL;
        if (!open_row(arr, NULL, &row, &missing))
            return false;
        out o = {row, missing, true};
        o.ok = cJSON_AddStringToObject(row, "scope", account_scope_name(acc->scope)) &&
               cJSON_AddStringToObject(row, "name", acc->name) &&
               (acc->region >= 0 ? cJSON_AddNumberToObject(row, "region", acc->region)
                                 : cJSON_AddNullToObject(row, "region")) &&
               (acc->group >= 0 ? cJSON_AddNumberToObject(row, "group", acc->group) : cJSON_AddNullToObject(row, "group")) &&
               cJSON_AddNumberToObject(row, "pid", acc->pid) && cJSON_AddNumberToObject(row, "processes", acc->processes) &&
               cJSON_AddNumberToObject(row, "instances", acc->instances) &&
               cJSON_AddStringToObject(row, "verdict", verdict_name(acc->verdict)) &&
               cJSON_AddStringToObject(row, "verdict_text", acc->verdict_text) &&
               cJSON_AddStringToObject(row, "advice", acc->advice);
        put_table(&o, &account_table, acc);
        if (o.ok)
            o.ok = (states = cJSON_AddArrayToObject(row, "states")) != NULL;
        for (int k = 0; o.ok && k < acc->nrows; k++)
            o.ok = state_row_json(states, NULL, &acc->rows[k]);
        cJSON *causes = o.ok ? cJSON_AddArrayToObject(row, "host_causes") : NULL;
        o.ok = o.ok && causes;
        for (int k = 0; o.ok && k < acc->ncauses; k++) {
            const host_cause_row *h = &acc->causes[k];
            cJSON *crow, *cmissing;
            if (!open_row(causes, NULL, &crow, &cmissing)) {
                o.ok = false;
                break;
            }
            out co = {crow, cmissing, true};
            const char *state = host_cause_state_key(h);
            co.ok = (h->cause[0] ? cJSON_AddStringToObject(crow, "cause", h->cause) : cJSON_AddNullToObject(crow, "cause")) &&
                    cJSON_AddStringToObject(crow, "state", state) && cJSON_AddStringToObject(crow, "why", h->why) &&
                    cJSON_AddStringToObject(crow, "at", h->at) && cJSON_AddStringToObject(crow, "via", h->via);
            put_table(&co, &account_cause_table, h);
            o.ok = close_row(crow, cmissing, co.ok);
        }
        ok = close_row(row, missing, o.ok);
    }
    /* "wall_bands": each accounted process's timeline in stretches of one state (the page's
     * timeline draws them), each with its state's evidence over it */
    cJSON *bands = ok ? cJSON_AddArrayToObject(an, "wall_bands") : NULL;
    ok = ok && bands;
    for (int i = 0; ok && i < a->nbands; i++) {
        const account_band *b = &a->bands[i];
        cJSON *o = cJSON_CreateObject();
        ok = o && cJSON_AddItemToArray(bands, o) && cJSON_AddNumberToObject(o, "pid", b->pid) &&
             cJSON_AddNumberToObject(o, "start_ms", (double)(b->start_ns - a->m->regions[0].start_ns) / 1e6) &&
             cJSON_AddNumberToObject(o, "end_ms", (double)(b->end_ns - a->m->regions[0].start_ns) / 1e6) &&
             state_row_json(o, "state", &b->row);
    }
    return ok;
}

/* "analysis" up to its regions: the devices' peaks and the run's figures. */
static bool analysis_head(cJSON *an, const analysis *a)
{
    cJSON *peaks = cJSON_AddArrayToObject(an, "device_peaks");
    if (!peaks)
        return false;
    for (int i = 0; i < a->m->ndevices; i++) {
        cJSON *p = cJSON_CreateObject(), *missing = cJSON_CreateObject();
        if (!p || !missing || !cJSON_AddItemToArray(peaks, p)) {
            cJSON_Delete(p);
            cJSON_Delete(missing);
            return false;
        }
        out o = {p, missing, true};
        put_table(&o, &device_peaks_table, &a->peaks[i]);
        if (!o.ok || !cJSON_AddNumberToObject(p, "fp32_lanes_per_sm", a->peaks[i].fp32_lanes_per_sm) ||
            !cJSON_AddItemToObject(p, "not_available", missing))
            return false;
    }
    cJSON *missing = cJSON_CreateObject();
    if (!missing)
        return false;
    out o = {an, missing, true};
    put_table(&o, &run_metric_table, a);
    if (!cJSON_AddItemToObject(an, "not_available", missing)) {
        cJSON_Delete(missing);
        return false;
    }
    return o.ok;
}

/* GPU memory (memory.h): its rows, each with what names it. */
static bool holder_ident(cJSON *row, const analysis *a, int i, const void *r)
{
    (void)a, (void)i;
    const mem_holder *h = r;
    return cJSON_AddStringToObject(row, "at", h->at) && cJSON_AddStringToObject(row, "allocator", h->allocator);
}

static bool series_ident(cJSON *row, const analysis *a, int i, const void *r)
{
    const mem_series *s = r;
    return cJSON_AddNumberToObject(row, "pid", s->pid) && cJSON_AddNumberToObject(row, "device", s->device) &&
           cJSON_AddBoolToObject(row, "device_only", s->device_only) &&
           cJSON_AddBoolToObject(row, "allocator_totals", s->totals) && cJSON_AddStringToObject(row, "peak_in", s->peak_in) &&
           table_rows(row, &table_holder_site, i, holder_ident, a) &&
           table_rows(row, &table_holder_lib, i, holder_ident, a) && table_rows(row, &table_mpoint, i, NULL, a);
}

static bool leak_ident(cJSON *row, const analysis *a, int i, const void *r)
{
    (void)a, (void)i;
    const mem_leak *l = r;
    return cJSON_AddNumberToObject(row, "pid", l->pid) && cJSON_AddNumberToObject(row, "device", l->device) &&
           cJSON_AddStringToObject(row, "at", l->at) && cJSON_AddStringToObject(row, "allocator", l->allocator) &&
           cJSON_AddStringToObject(row, "step", l->step) && cJSON_AddBoolToObject(row, "leak_per_step", l->per_step);
}

static bool range_ident(cJSON *row, const analysis *a, int i, const void *rr)
{
    (void)a, (void)i;
    const mem_range *r = rr;
    return (r->region >= 0 ? cJSON_AddNumberToObject(row, "region", r->region) != NULL
                           : cJSON_AddNullToObject(row, "region") != NULL) &&
           cJSON_AddStringToObject(row, "name", r->name) && cJSON_AddNumberToObject(row, "pid", r->pid);
}

static bool failure_ident(cJSON *row, const analysis *a, int i, const void *r)
{
    const mem_failure_row *f = r;
    return cJSON_AddNumberToObject(row, "pid", f->pid) && cJSON_AddNumberToObject(row, "tid", f->tid) &&
           cJSON_AddNumberToObject(row, "device", f->device) && cJSON_AddBoolToObject(row, "out_of_memory", f->out_of_memory) &&
           cJSON_AddStringToObject(row, "api", f->api) && cJSON_AddStringToObject(row, "error", f->error) &&
           cJSON_AddStringToObject(row, "at", f->at) && cJSON_AddStringToObject(row, "in", f->in) &&
           table_rows(row, &table_holder_fail, i, holder_ident, a);
}

/* GPU memory (memory.h): analysis.memory, present only where the run has memory data. */
static bool memory_json(cJSON *an, const analysis *a)
{
    const memory_analysis *x = a->memory;
    cJSON *mem = cJSON_AddObjectToObject(an, "memory");
    return mem && cJSON_AddStringToObject(mem, "nvml_why", x->nvml_why) &&
           table_rows(mem, &table_memory, -1, series_ident, a) && table_rows(mem, &table_leak, -1, leak_ident, a) &&
           table_rows(mem, &table_mrange, -1, range_ident, a) && table_rows(mem, &table_failure, -1, failure_ident, a);
}

/* "analysis" after its regions. */
static bool analysis_tail(cJSON *an, const analysis *a)
{
    if (a->sweep && !sweep_json(an, a->sweep))
        return false;
    if (a->ranks && !ranks_json(an, a->ranks))
        return false;
    if (!devices_json(an, a))
        return false;
    if (a->nlaunches > 0 &&
        !table_rows(an, &table_launch, -1, launch_ident, a))
        return false;
    if (!table_rows(an, &table_busy, -1, busy_ident, a))
        return false;
    if (!table_rows(an, &table_stream, -1, stream_ident, a))
        return false;
    if (!table_rows(an, &table_group, -1, group_ident, a))
        return false;
    if (!idle_json(an, a) || !call_sites_json(an, a) || !capture_json(an, a) || !accounts_json(an, a))
        return false;
    if (a->memory && !memory_json(an, a))
        return false;
    /* Which regions the text and page list, and what they leave out (choose_listed). */
    cJSON *listed = cJSON_AddArrayToObject(an, "listed_regions");
    if (!listed)
        return false;
    for (int i = 0; i < a->nlisted; i++) {
        cJSON *x = cJSON_CreateNumber(a->listed[i]);
        if (!x || !cJSON_AddItemToArray(listed, x)) {
            cJSON_Delete(x);
            return false;
        }
    }
    if (!cJSON_AddNumberToObject(an, "regions_without_gpu_work", a->no_gpu_regions) ||
        !cJSON_AddNumberToObject(an, "regions_not_listed", a->unlisted) ||
        !cJSON_AddStringToObject(an, "listed_order", a->listed_by_gpu ? "gpu-time" : "timeline"))
        return false;
    cJSON *warn = cJSON_AddArrayToObject(an, "warnings");
    if (!warn)
        return false;
    for (int i = 0; i < a->nwarnings; i++) {
        cJSON *s = cJSON_CreateString(a->warnings[i]);
        if (!s || !cJSON_AddItemToArray(warn, s)) {
            cJSON_Delete(s);
            return false;
        }
    }
    return true;
}

/* "summary": the findings, heaviest first, as the first member of the document: what to read
 * before anything else. Each has its kind, sentence and deciding figure with its unit. */
static cJSON *summary_json(const analysis *a)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < a->nsummary; i++) {
        const finding *f = &a->summary[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            cJSON_Delete(arr);
            return NULL;
        }
        if (!cJSON_AddStringToObject(o, "kind", finding_kind_name(f->kind)) ||
            !cJSON_AddStringToObject(o, "text", f->text) || !cJSON_AddNumberToObject(o, "value", f->figure.v) ||
            !cJSON_AddStringToObject(o, "unit", f->unit) || !cJSON_AddNumberToObject(o, "weight", f->weight)) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

/* Each workload of the run file gets its figures ("metrics") beside its raw facts. */
static bool workload_hook(cJSON *o, int i, void *ctx)
{
    const analysis *a = ctx;
    return i < a->nwl && workload_metrics_json(o, &a->wl[i]);
}

/* Writes the members built in an and takes them out of it: each array's elements one a line. */
static bool write_members(json_writer *w, cJSON *an)
{
    bool ok = true;
    while (ok && an->child) {
        cJSON *item = cJSON_DetachItemViaPointer(an, an->child);
        if (cJSON_IsArray(item)) {
            ok = jw_open_array(w, item->string);
            while (ok && item->child)
                ok = jw_element(w, cJSON_DetachItemViaPointer(item, item->child));
            ok = ok && jw_close(w);
            cJSON_Delete(item);
        } else {
            char key[64];
            snprintf(key, sizeof key, "%s", item->string);
            ok = jw_member(w, key, item);
        }
    }
    return ok;
}

/* Regions [lo, hi) as elements of the "regions" array, into text of their own. */
typedef struct {
    const analysis *a;
    int lo, hi;
    strbuf text;
    bool ok;
} region_part;

static void *write_regions(void *p)
{
    region_part *x = p;
    json_writer w;
    jw_text_elements(&w, &x->text, x->lo == 0);
    cJSON *one = cJSON_CreateArray();
    x->ok = one != NULL;
    for (int i = x->lo; x->ok && i < x->hi; i++)
        x->ok = region_json(one, x->a->m, &x->a->rg[i]) && jw_element(&w, cJSON_DetachItemViaPointer(one, one->child));
    cJSON_Delete(one);
    x->ok = x->ok && !w.failed;
    return NULL;
}

#define REGION_WRITERS 4     /* threads that write a long run's regions */
#define REGIONS_A_PART 256   /* regions a writer builds at a time; fewer are written on the caller's thread */

/* "analysis": its members one by one, each array's elements one a line; the regions (thousands
 * in a long run, each with its tables: about half the time of writing a minute of training's
 * run file) built a few hundred at a time, in parts on threads of their own, joined in order and
 * handed on before the next parts are built: the document's tree is never whole in memory, nor
 * the regions' text. */
static bool write_analysis(json_writer *w, const analysis *a)
{
    cJSON *an = cJSON_CreateObject();
    bool ok = an && jw_open_object(w, "analysis") && analysis_head(an, a) && write_members(w, an) &&
              jw_open_array(w, "regions");
    for (int first = 0; ok && first < a->nrg; first += REGION_WRITERS * REGIONS_A_PART) {
        int nparts = 0;
        region_part part[REGION_WRITERS];
        pthread_t thread[REGION_WRITERS];
        bool apart[REGION_WRITERS] = {false};
        for (int lo = first; nparts < REGION_WRITERS && lo < a->nrg; lo += REGIONS_A_PART, nparts++) {
            int hi = a->nrg - lo < REGIONS_A_PART ? a->nrg : lo + REGIONS_A_PART;
            region_part *x = &part[nparts];
            *x = (region_part){a, lo, hi, {0}, false};
            sb_init(&x->text);
            apart[nparts] = nparts > 0 && pthread_create(&thread[nparts], NULL, write_regions, x) == 0;
        }
        write_regions(&part[0]);
        for (int k = 0; k < nparts; k++) {
            if (apart[k])
                pthread_join(thread[k], NULL);
            else if (k > 0)
                write_regions(&part[k]);
            ok = ok && part[k].ok && jw_append_elements(w, &part[k].text);
            sb_free(&part[k].text);
        }
    }
    ok = ok && jw_close(w) && analysis_tail(an, a) && write_members(w, an);
    cJSON_Delete(an);
    return ok && jw_close(w);
}

/* The document's last member, "analysis", written on a thread of its own while the model's
 * members are written (a long run's events in columns, and its thousands of regions: about as
 * long each), then joined after them. Its text waits in memory only up to json_analysis_ahead bytes:
 * then the writer waits until the model's members are written, and from then on writes to the
 * sink itself (the caller's thread only waits for it). A long run's analysis is tens of
 * megabytes, which held whole were the peak of writing its run file. */
size_t json_analysis_ahead = 4 * JW_DRAIN_AT;

typedef struct {
    const analysis *a;
    const text_sink *sink;
    pthread_mutex_t lock;
    pthread_cond_t turn;
    strbuf ahead;   /* written before the model's members were */
    bool its_turn;  /* the model's members are written: the sink is the writer's */
    bool abandoned; /* the caller failed: every write fails */
    bool ok;
} analysis_part;

/* The analysis writer's sink: ahead while the model's members are written, the caller's sink
 * once they are. */
static bool part_write(void *ctx, const char *data, size_t len)
{
    analysis_part *x = ctx;
    pthread_mutex_lock(&x->lock);
    while (!x->its_turn && !x->abandoned && x->ahead.len + len > json_analysis_ahead)
        pthread_cond_wait(&x->turn, &x->lock);
    bool ok = !x->abandoned;
    if (ok && !x->its_turn) {
        sb_addn(&x->ahead, data, len);
        ok = !x->ahead.oom;
        len = 0;
    }
    pthread_mutex_unlock(&x->lock);
    if (ok && len > 0 && x->ahead.len > 0) { /* its turn: nothing else writes to the sink now */
        ok = sink_write(x->sink, x->ahead.s, x->ahead.len);
        x->ahead.len = 0;
    }
    return ok && sink_write(x->sink, data, len);
}

static void *write_analysis_part(void *p)
{
    analysis_part *x = p;
    strbuf b;
    sb_init(&b);
    json_writer w;
    jw_text_after(&w, &b);
    text_sink to = {part_write, x};
    jw_drain_to(&w, &to);
    x->ok = write_analysis(&w, x->a);
    x->ok = jw_end(&w, NULL) && x->ok;
    sb_free(&b);
    return NULL;
}

/* The model's members are written (ok), or could not be: the analysis writer goes on to the sink,
 * or stops. */
static void part_turn(analysis_part *x, bool ok)
{
    pthread_mutex_lock(&x->lock);
    x->its_turn = ok;
    x->abandoned = !ok;
    pthread_cond_broadcast(&x->turn);
    pthread_mutex_unlock(&x->lock);
}

struct json_model_text {
    const run_model *m;
    pthread_t thread;
    strbuf text;  /* the text, or (with a scratch file) what is not handed to it yet */
    int fd;       /* the scratch file, -1: none */
    int error;    /* errno of a failed write to it */
    bool ok;
};

static bool scratch_write(void *ctx, const char *data, size_t len)
{
    json_model_text *x = ctx;
    return fd_write_all(x->fd, data, len, &x->error);
}

/* The model's members after "summary", which comes first and needs the analysis. */
static void *write_model_part(void *p)
{
    json_model_text *x = p;
    json_writer w;
    jw_text_after(&w, &x->text);
    text_sink to_scratch = {scratch_write, x};
    if (x->fd >= 0)
        jw_drain_to(&w, &to_scratch);
    x->ok = model_write(x->m, &w, NULL) && !w.failed && w.depth == 0 && !x->text.oom && jw_drain(&w);
    return NULL;
}

json_model_text *json_model_text_start(const run_model *m, int scratch)
{
    json_model_text *t = source_has(m->source, HAS_WORKLOADS) ? NULL : calloc(1, sizeof *t);
    if (!t) {
        if (scratch >= 0)
            close(scratch);
        return NULL;
    }
    t->m = m;
    t->fd = scratch;
    sb_init(&t->text);
    if (pthread_create(&t->thread, NULL, write_model_part, t) != 0) {
        sb_free(&t->text);
        if (scratch >= 0)
            close(scratch);
        free(t);
        return NULL;
    }
    return t;
}

static void model_text_free(json_model_text *t)
{
    sb_free(&t->text);
    if (t->fd >= 0)
        close(t->fd);
    free(t);
}

void json_model_text_free(json_model_text *t)
{
    if (!t)
        return;
    pthread_join(t->thread, NULL);
    model_text_free(t);
}

/* t's text to sink: read back from its scratch file, or from memory. */
static bool model_text_out(json_model_text *t, const text_sink *sink, char *err, size_t errlen)
{
    if (t->fd < 0)
        return sink_write(sink, t->text.s, t->text.len);
    if (lseek(t->fd, 0, SEEK_SET) != 0) {
        snprintf(err, errlen, "cannot read back the scratch file of the run's events: %s", strerror(errno));
        return false;
    }
    char *buf = malloc(JW_DRAIN_AT);
    bool ok = buf != NULL;
    for (ssize_t n; ok && (n = read(t->fd, buf, JW_DRAIN_AT)) != 0;) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(err, errlen, "cannot read back the scratch file of the run's events: %s", strerror(errno));
            ok = false;
            break;
        }
        ok = sink_write(sink, buf, (size_t)n);
    }
    if (!buf)
        snprintf(err, errlen, "out of memory");
    free(buf);
    return ok;
}

/* The run file with the figures beside the raw facts: the summary first, then the model's
 * members (each workload with its metrics), then the analysis. Written a member or an element
 * at a time (json_writer.h) and handed to sink as it goes. */
bool render_json_to(const analysis *a, json_model_text *t, const text_sink *sink, char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    analysis_part part = {.a = a, .sink = sink};
    pthread_mutex_init(&part.lock, NULL);
    pthread_cond_init(&part.turn, NULL);
    sb_init(&part.ahead);
    pthread_t helper;
    bool apart = pthread_create(&helper, NULL, write_analysis_part, &part) == 0;
    strbuf b;
    sb_init(&b);
    json_writer w;
    jw_text(&w, &b);
    jw_drain_to(&w, sink);
    model_write_hooks hooks = {workload_hook, (void *)a};
    bool ok = jw_member(&w, "summary", summary_json(a));
    if (t && t->m == a->m) {
        pthread_join(t->thread, NULL);
        if (t->ok)
            ok = ok && jw_drain(&w) && model_text_out(t, sink, err, errlen);
        else if (t->error)
            ok = false, snprintf(err, errlen, "the run's events, written ahead to a scratch file: %s", strerror(t->error));
        else
            ok = false;
        model_text_free(t);
    } else {
        json_model_text_free(t);
        ok = ok && model_write(a->m, &w, &hooks) && w.depth == 0 && jw_drain(&w);
    }
    part_turn(&part, ok);
    if (apart)
        pthread_join(helper, NULL);
    else if (ok)
        write_analysis_part(&part);
    ok = ok && part.ok && sink_write(sink, part.ahead.s, part.ahead.len);
    sb_free(&part.ahead);
    sb_free(&b);
    pthread_cond_destroy(&part.turn);
    pthread_mutex_destroy(&part.lock);
    return ok;
}

static bool to_memory(void *ctx, const char *data, size_t len)
{
    strbuf *b = ctx;
    sb_addn(b, data, len);
    return !b->oom;
}

char *render_json_from(const analysis *a, json_model_text *t)
{
    strbuf out;
    sb_init(&out);
    text_sink sink = {to_memory, &out};
    char err[256];
    if (!render_json_to(a, t, &sink, err, sizeof err) || out.oom) {
        sb_free(&out);
        return NULL;
    }
    return sb_finish(&out);
}

char *render_json(const analysis *a) { return render_json_from(a, NULL); }
