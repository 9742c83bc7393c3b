/* The CSV output (csv.h): one table whose columns are the registry's figures.
 *
 * Rows, in this order: one for the run as a whole (its fastest copies); one per region of the run
 * (every region, timeline order); one per kernel name, per copy direction and memory kind (a
 * memset's direction "memset") and per CUDA API call name of each region the reports list (the
 * run, then the workloads or longest ranges: analysis.listed); one per built-in workload (its per-product
 * figures, with its size n, so a sweep's workloads are told apart); one per device (its peaks); in a
 * --devices run (devices.h), one per workload and GPU (alone and together), one per workload over
 * every GPU (the aggregate), one per GPU (its passes) and one per ordered pair of GPUs (the peer
 * matrix; direction "0->1", name the link), after one for the GPUs' passes as a whole; for a job
 * of several ranks, one per rank, per GPU and per straggling NVTX range (ranks.h); one per launch
 * profile --counters profiled; one per stretch of GPU activity over time (analysis.busy); one per
 * listed idle stretch of a GPU (analysis.idle_gaps: name its cause, direction where it lies, count
 * the calls named, host its largest state in the wall-time account and that state's evidence); one per listed region and idle cause (its idle breakdown: name the cause).
 * Where the run carries host activity (host_idle.h): one host_sampling row (name the sampler's
 * mechanism: how the host was seen, call sites taken and skipped); one host_view row per source that saw
 * anything in a listed idle stretch (direction "idle_gap", count the stretch's index among the
 * idle_gap rows, device its GPU) or in a listed region's host-busy idle time (direction
 * "host_busy", the region's columns), name the source ("py", "cpu", "spans"), host its hot frame;
 * after each, one host_function row per frame it names (name "py.hot", "py.user_line",
 * "py.innermost", host the frame); then one call_site row per kernel, copy or call and line it was
 * made from (name the target, direction its kind, count its calls with a site, host the line).
 * Then one account row per wall-time account and one account_state row per state of it
 * (account_rows says what their columns hold), and one account_cause row per host cause of it (name
 * the cause, direction its state, host its words and line). Then one range_group row per group of
 * NVTX ranges or annotations of one name (range_groups.h; the region rows above keep every
 * instance); one stream row per stream with GPU work (stream_rows); one capture row per capture
 * window (capture_rows); a sweep's points and crossovers (sweep_rows). Each workload row is
 * followed by a workload_kernel row per kernel it launched.
 * Where the run has GPU memory data, its rows last (memory_rows says which) and their tables'
 * columns after the others; a run without it has neither. The first columns say what a row is; then each registry
 * table has its own columns, named "table.key (unit)", filled on that table's rows and empty on
 * the others. A figure that was not measured is an empty field: its reason is in the JSON output.
 * Numbers are written as the registry writes data (metric_format_data: 10 significant digits),
 * not with the text report's rounding. */
#include "csv.h"

#include <stdio.h>
#include <string.h>

#include "devices.h"
#include "host_idle.h"
#include "memory.h"
#include "strbuf.h"
#include "sweep.h"

/* The registry tables, in column order, and what each row kind fills. */
typedef enum {
    ROW_RUN, ROW_REGION, ROW_KERNEL, ROW_COPY, ROW_API, ROW_WORKLOAD, ROW_DEVICE,
    ROW_GPUS, ROW_GPU_WORKLOAD, ROW_GPU_AGGREGATE, ROW_GPU_PASS, ROW_PEER, ROW_RANK, ROW_GPU, ROW_STRAGGLER, ROW_LAUNCH,
    ROW_BUSY, ROW_IDLE_GAP, ROW_IDLE_SHARE, ROW_HOST_SAMPLING, ROW_HOST_VIEW, ROW_HOST_FN, ROW_CALL_SITE,
    ROW_ACCOUNT, ROW_ACCOUNT_STATE, ROW_ACCOUNT_CAUSE, ROW_RANGE_GROUP, ROW_STREAM, ROW_CAPTURE,
    ROW_WORKLOAD_KERNEL, ROW_SWEEP_POINT, ROW_CROSSOVER, NROWS,
    /* GPU memory's rows, and their columns, only in a run with memory data (memory.h), so a run
     * without it keeps the columns it always had */
    ROW_MEMORY = NROWS, ROW_MEMORY_HOLDER, ROW_MEMORY_POINT, ROW_MEMORY_LEAK, ROW_MEMORY_RANGE, ROW_MEMORY_FAILURE,
    NROWS_ALL
} row_kind;

static const char *const row_names[NROWS_ALL] = {"run", "region", "kernel", "copy", "api", "workload", "device",
                                                 "gpus", "gpu_workload", "gpu_aggregate", "gpu_pass", "peer", "rank",
                                                 "rank_gpu", "straggler", "launch", "busy_span", "idle_gap",
                                                 "idle_breakdown", "host_sampling", "host_view", "host_function",
                                                 "call_site", "account", "account_state", "account_cause", "range_group", "stream",
                                                 "capture", "workload_kernel", "sweep_point", "crossover", "memory",
                                                 "memory_holder",
                                                 "memory_point", "memory_leak", "memory_range", "memory_failure"};

/* The row kinds whose columns this output has: NROWS, or NROWS_ALL with memory data. */
static _Thread_local int row_kinds = NROWS;

static const metric_table *table_of(row_kind k)
{
    switch (k) {
    case ROW_RUN: return &run_metric_table;
    case ROW_GPUS: return &devices_run_table;
    case ROW_LAUNCH: return &launch_counter_table;
    case ROW_BUSY: return &busy_span_table;
    case ROW_IDLE_GAP: return &idle_gap_table;
    case ROW_IDLE_SHARE: return &idle_share_table;
    case ROW_HOST_SAMPLING: return &host_collection_table;
    case ROW_HOST_VIEW: return &host_view_table;
    case ROW_HOST_FN: return &host_fn_table;
    case ROW_CALL_SITE: return &call_site_table;
    case ROW_ACCOUNT: return &account_table;
    case ROW_ACCOUNT_STATE: return &account_row_table;
    case ROW_ACCOUNT_CAUSE: return &account_cause_table;
    case ROW_RANGE_GROUP: return &range_group_table;
    case ROW_STREAM: return &stream_table;
    case ROW_CAPTURE: return &capture_table;
    case ROW_WORKLOAD_KERNEL: return &kernel_summary_table;
    case ROW_SWEEP_POINT: return &sweep_point_table;
    case ROW_CROSSOVER: return &crossover_table;
    case ROW_REGION: return &region_metric_table;
    case ROW_KERNEL: return &kernel_stat_table;
    case ROW_COPY: return &copy_flow_table;
    case ROW_API: return &api_stat_table;
    case ROW_WORKLOAD: return &workload_metric_table;
    case ROW_GPU_WORKLOAD: return &device_workload_table;
    case ROW_GPU_AGGREGATE: return &device_aggregate_table;
    case ROW_GPU_PASS: return &device_pass_table;
    case ROW_PEER: return &peer_table;
    case ROW_RANK:
    case ROW_GPU: return &rank_share_table;
    case ROW_STRAGGLER: return &straggler_table;
    case ROW_MEMORY: return &memory_series_table;
    case ROW_MEMORY_HOLDER: return &memory_holder_table;
    case ROW_MEMORY_POINT: return &memory_point_table;
    case ROW_MEMORY_LEAK: return &memory_leak_table;
    case ROW_MEMORY_RANGE: return &memory_range_table;
    case ROW_MEMORY_FAILURE: return &memory_failure_table;
    default: return &device_peaks_table;
    }
}

const char *csv_row_of_table(const metric_table *t)
{
    for (int k = 0; k < NROWS_ALL; k++)
        if (table_of((row_kind)k) == t)
            return row_names[k];
    return NULL;
}

/* The identifying columns every row has (empty where they do not apply). */
static const char *const id_cols[] = {"row", "region_index", "region", "region_kind", "name", "count",
                                      "direction", "host_memory", "n", "device", "pass", "host"};
#define NID ((int)(sizeof id_cols / sizeof id_cols[0]))
enum { ID_NAME = 4, ID_COUNT = 5, ID_DIRECTION = 6, ID_N = 8, ID_DEVICE = 9, ID_PASS = 10, ID_HOST = 11 };

typedef struct {
    const char *v[NID];
    char count[24], index[24], n[24], device[24], pair[24];
} ids;

/* A field as RFC 4180 wants it: quoted only when it must be. */
static void field(strbuf *b, const char *s, bool first)
{
    if (!first)
        sb_add(b, ",");
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        sb_add(b, s);
        return;
    }
    sb_add(b, "\"");
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            sb_add(b, "\"");
        sb_addn(b, p, 1);
    }
    sb_add(b, "\"");
}

static void header(strbuf *b)
{
    for (int i = 0; i < NID; i++)
        field(b, id_cols[i], i == 0);
    for (int k = 0; k < row_kinds; k++) {
        const metric_table *t = table_of((row_kind)k);
        for (int i = 0; i < t->n; i++) {
            char name[96];
            if (t->defs[i].unit[0])
                snprintf(name, sizeof name, "%s.%s (%s)", row_names[k], t->defs[i].key, t->defs[i].unit);
            else
                snprintf(name, sizeof name, "%s.%s", row_names[k], t->defs[i].key);
            field(b, name, false);
        }
    }
    sb_add(b, "\r\n");
}

/* One row: its ids, then the figures of its own table in that table's columns. */
static void row(strbuf *b, row_kind kind, const ids *id, const void *figures)
{
    for (int i = 0; i < NID; i++)
        field(b, i == 0 ? row_names[kind] : id->v[i], i == 0);
    for (int k = 0; k < row_kinds; k++) {
        const metric_table *t = table_of((row_kind)k);
        for (int i = 0; i < t->n; i++) {
            sb_add(b, ",");
            if (k != (int)kind)
                continue;
            char v[40];
            metric_format_data(metric_of(figures, &t->defs[i]), v, sizeof v);
            sb_add(b, v);
        }
    }
    sb_add(b, "\r\n");
}

static void region_ids(const run_model *m, int ri, ids *id)
{
    memset(id, 0, sizeof *id);
    const region *rg = &m->regions[ri];
    snprintf(id->index, sizeof id->index, "%d", ri);
    id->v[1] = id->index;
    id->v[2] = rg->name;
    id->v[3] = region_kind_name(rg->kind);
}

/* A job of several ranks (ranks.h): a row per rank, per GPU and per straggling NVTX range; the
 * name says who ("rank 1 GPU 1", "GPU 0 (rank 0)", "step 3 (last: rank 1)"), count its kernels or
 * matched occurrences. */
static void rank_rows(strbuf *b, const rank_analysis *ra)
{
    if (!ra)
        return;
    ids id;
    char name[512];
    for (int g = 0; g < 2; g++)
        for (int i = 0; i < (g ? ra->ngpus : ra->nrows); i++) {
            const rank_share *r = g ? &ra->gpus[i] : &ra->rows[i];
            memset(&id, 0, sizeof id);
            rank_share_label(r, g, true, name, sizeof name);
            id.v[4] = name;
            snprintf(id.count, sizeof id.count, "%d", r->kernels);
            id.v[5] = id.count;
            row(b, g ? ROW_GPU : ROW_RANK, &id, r);
        }
    for (int i = 0; i < ra->nstragglers; i++) {
        const straggler *s = &ra->stragglers[i];
        memset(&id, 0, sizeof id);
        const rank_share *w = s->straggler >= 0 ? &ra->rows[s->straggler] : NULL;
        if (w && w->rank >= 0)
            snprintf(name, sizeof name, "%s (last: rank %d)", s->name, w->rank);
        else if (w)
            snprintf(name, sizeof name, "%s (last: pid %u)", s->name, w->pid);
        else
            snprintf(name, sizeof name, "%s", s->name);
        id.v[4] = name;
        snprintf(id.count, sizeof id.count, "%d", s->matched);
        id.v[5] = id.count;
        row(b, ROW_STRAGGLER, &id, s);
    }
}

/* A --devices run's rows (devices.h); nothing for other runs. */
static void devices_rows(strbuf *b, const analysis *a)
{
    if (!a->devices)
        return;
    const devices_analysis d = *a->devices;
    ids id;
    memset(&id, 0, sizeof id);
    row(b, ROW_GPUS, &id, a->devices);
    for (int i = 0; i < d.nrows; i++) {
        memset(&id, 0, sizeof id);
        id.v[ID_NAME] = d.rows[i].label;
        snprintf(id.n, sizeof id.n, "%d", d.rows[i].n);
        id.v[ID_N] = id.n;
        snprintf(id.device, sizeof id.device, "%d", d.rows[i].device);
        id.v[ID_DEVICE] = id.device;
        row(b, ROW_GPU_WORKLOAD, &id, &d.rows[i]);
    }
    for (int i = 0; i < d.nagg; i++) {
        memset(&id, 0, sizeof id);
        id.v[ID_NAME] = d.agg[i].label;
        snprintf(id.n, sizeof id.n, "%d", d.agg[i].n);
        id.v[ID_N] = id.n;
        row(b, ROW_GPU_AGGREGATE, &id, &d.agg[i]);
    }
    for (int i = 0; i < d.npasses; i++) {
        memset(&id, 0, sizeof id);
        snprintf(id.device, sizeof id.device, "%d", d.passes[i].device);
        id.v[ID_DEVICE] = id.device;
        row(b, ROW_GPU_PASS, &id, &d.passes[i]);
    }
    for (int i = 0; i < d.npeers; i++) {
        const peer_pair *p = d.peers[i].p;
        memset(&id, 0, sizeof id);
        id.v[ID_NAME] = p->link;
        snprintf(id.pair, sizeof id.pair, "%d->%d", p->src, p->dst);
        id.v[ID_DIRECTION] = id.pair;
        snprintf(id.device, sizeof id.device, "%d", p->src);
        id.v[ID_DEVICE] = id.device;
        row(b, ROW_PEER, &id, &d.peers[i]);
    }
}

/* profile --counters: a row per profiled launch, named by its kernel, with its process. */
static void launch_rows(strbuf *b, const analysis *a)
{
    ids id;
    for (int i = 0; i < a->nlaunches; i++) {
        char name[512];
        memset(&id, 0, sizeof id);
        kernel_display_name(a->launches[i].k->name, name, sizeof name);
        id.v[ID_NAME] = name;
        snprintf(id.device, sizeof id.device, "%u", a->launches[i].k->device);
        id.v[ID_DEVICE] = id.device;
        row(b, ROW_LAUNCH, &id, &a->launches[i]);
    }
}

/* The idle stretches with their causes, then each listed region's idle time by cause. */
static void idle_rows(strbuf *b, const analysis *a)
{
    ids id;
    for (int i = 0; i < a->nidle_gaps; i++) {
        const idle_stretch *g = &a->idle_gaps[i];
        memset(&id, 0, sizeof id);
        id.v[ID_NAME] = idle_cause_key(g->cause);
        id.v[ID_DIRECTION] = stretch_where_name(g->where);
        snprintf(id.count, sizeof id.count, "%d", g->ncalls);
        id.v[5] = id.count;
        snprintf(id.device, sizeof id.device, "%u", g->device);
        id.v[ID_DEVICE] = id.device;
        /* host: its largest state in its process's wall-time account, and that state's evidence */
        char host[600];
        const account_row *acc = a->idle_accounts && a->idle_accounts[i].state < WS_COUNT ? &a->idle_accounts[i] : NULL;
        if (acc) {
            int n = snprintf(host, sizeof host, "%s: ", wall_states[acc->state].key);
            account_row_words(acc, host + n, sizeof host - (size_t)n);
            id.v[ID_HOST] = host;
        }
        row(b, ROW_IDLE_GAP, &id, g);
    }
    for (int li = 0; li < a->nlisted; li++)
        for (int c = 0; c < IDLE_NCAUSES; c++) {
            region_ids(a->m, a->listed[li], &id);
            id.v[ID_NAME] = idle_cause_key((idle_cause)c);
            row(b, ROW_IDLE_SHARE, &id, &a->rg[a->listed[li]].idle[c]);
        }
}

/* A host view's row and its frames' (see the top of the file); id holds the window's columns. */
static void host_view_rows(strbuf *b, ids *id, const host_view v[HOST_NFROM])
{
    for (int f = 0; f < HOST_NFROM; f++) {
        if (!v[f].any)
            continue;
        char name[32];
        id->v[ID_NAME] = host_from_key(v[f].from);
        id->v[ID_HOST] = v[f].hot.name[0] ? v[f].hot.name : NULL;
        row(b, ROW_HOST_VIEW, id, &v[f]);
        const host_fn *fns[2 + HOST_TOP] = {&v[f].hot, &v[f].user};
        for (int k = 0; k < v[f].ntop; k++)
            fns[2 + k] = &v[f].top[k];
        for (int k = 0; k < 2 + v[f].ntop; k++) {
            if (!fns[k]->name[0])
                continue;
            snprintf(name, sizeof name, "%s.%s", host_from_key(v[f].from),
                     k == 0 ? "hot" : k == 1 ? "user_line" : "innermost");
            id->v[ID_NAME] = name;
            id->v[ID_HOST] = fns[k]->name;
            row(b, ROW_HOST_FN, id, fns[k]);
        }
    }
}

static void host_rows(strbuf *b, const analysis *a)
{
    const host_analysis *h = a->host;
    if (!h)
        return;
    ids id;
    memset(&id, 0, sizeof id);
    id.v[ID_NAME] = a->m->host_activity.mechanism;
    row(b, ROW_HOST_SAMPLING, &id, &h->collection);
    for (int i = 0; i < h->ngaps; i++) {
        memset(&id, 0, sizeof id);
        id.v[ID_DIRECTION] = "idle_gap";
        snprintf(id.count, sizeof id.count, "%d", i);
        id.v[ID_COUNT] = id.count;
        snprintf(id.device, sizeof id.device, "%u", a->idle_gaps[i].device);
        id.v[ID_DEVICE] = id.device;
        host_view_rows(b, &id, &h->gaps[i * HOST_NFROM]);
    }
    for (int li = 0; li < h->nregions; li++) {
        region_ids(a->m, a->listed[li], &id);
        id.v[ID_DIRECTION] = "host_busy";
        host_view_rows(b, &id, &h->regions[li * HOST_NFROM]);
    }
    for (int i = 0; i < h->nsites; i++)
        for (int k = 0; k < h->sites[i].nsites; k++) {
            memset(&id, 0, sizeof id);
            id.v[ID_NAME] = h->sites[i].name;
            id.v[ID_DIRECTION] = h->sites[i].kind;
            snprintf(id.count, sizeof id.count, "%d", h->sites[i].calls);
            id.v[ID_COUNT] = id.count;
            id.v[ID_HOST] = h->sites[i].sites[k].at;
            row(b, ROW_CALL_SITE, &id, &h->sites[i].sites[k]);
        }
}

/* The wall-time accounts (accounts.h): a row per account (name its name, direction its scope, count
 * its instances, region its region where it has one, host its verdict), then one per state of it
 * (name the state, direction the account's scope, count the account's index among the account
 * rows, host its cause's words and the user's line). */
static void account_rows(strbuf *b, const analysis *a)
{
    for (int i = 0; i < a->naccounts; i++) {
        const wall_account *acc = &a->accounts[i];
        ids id;
        if (acc->region >= 0)
            region_ids(a->m, acc->region, &id);
        else
            memset(&id, 0, sizeof id);
        id.v[ID_NAME] = acc->name;
        id.v[ID_DIRECTION] = account_scope_name(acc->scope);
        snprintf(id.count, sizeof id.count, "%d", acc->instances);
        id.v[ID_COUNT] = id.count;
        id.v[ID_HOST] = verdict_name(acc->verdict);
        row(b, ROW_ACCOUNT, &id, acc);
        for (int k = 0; k < acc->nrows; k++) {
            const account_row *r = &acc->rows[k];
            char host[512];
            snprintf(host, sizeof host, "%s%s%s", r->why, r->at[0] ? " at " : "", r->at);
            memset(&id, 0, sizeof id);
            id.v[ID_NAME] = wall_states[r->state].key;
            id.v[ID_DIRECTION] = account_scope_name(acc->scope);
            snprintf(id.count, sizeof id.count, "%d", i);
            id.v[ID_COUNT] = id.count;
            id.v[ID_HOST] = host;
            row(b, ROW_ACCOUNT_STATE, &id, r);
        }
        for (int k = 0; k < acc->ncauses; k++) {
            const host_cause_row *h = &acc->causes[k];
            char host[512];
            snprintf(host, sizeof host, "%s%s%s", h->why, h->at[0] ? " at " : "", h->at);
            memset(&id, 0, sizeof id);
            id.v[ID_NAME] = h->cause[0] ? h->cause : "not_known";
            id.v[ID_DIRECTION] = host_cause_state_key(h);
            snprintf(id.count, sizeof id.count, "%d", i);
            id.v[ID_COUNT] = id.count;
            id.v[ID_HOST] = host;
            row(b, ROW_ACCOUNT_CAUSE, &id, h);
        }
    }
}

/* A stream row per stream with GPU work (overlap.h): device its GPU, name "stream N", count its
 * kernels, copies and memsets together. */
static void stream_rows(strbuf *b, const analysis *a)
{
    for (int i = 0; i < a->nstreams; i++) {
        const stream_metrics *st = &a->streams[i];
        ids id;
        memset(&id, 0, sizeof id);
        char name[32];
        snprintf(name, sizeof name, "stream %u", st->stream);
        id.v[ID_NAME] = name;
        snprintf(id.device, sizeof id.device, "%u", st->device);
        id.v[ID_DEVICE] = id.device;
        snprintf(id.count, sizeof id.count, "%d", st->nkernels + st->ncopies + st->nmemsets);
        id.v[ID_COUNT] = id.count;
        row(b, ROW_STREAM, &id, st);
    }
}

/* A sweep (sweep.h): a sweep_point row per series and size (name the workload, host_memory its
 * memory, n the size), then a crossover row per crossover (name the workload past it, host_memory
 * its memory, direction its basis "e2e" or "kernel", host its kind). */
static void sweep_rows(strbuf *b, const analysis *a)
{
    const sweep_analysis *s = a->sweep;
    for (int i = 0; s && i < s->nseries; i++) {
        const sweep_series *r = &s->series[i];
        for (int k = 0; k < s->nsizes; k++) {
            ids id;
            memset(&id, 0, sizeof id);
            id.v[ID_NAME] = r->name;
            id.v[7] = r->mem == MEM_UNKNOWN ? NULL : mem_kind_name(r->mem);
            snprintf(id.n, sizeof id.n, "%d", r->pts[k].n);
            id.v[ID_N] = id.n;
            row(b, ROW_SWEEP_POINT, &id, &r->pts[k]);
        }
    }
    for (int i = 0; s && i < s->ncross; i++) {
        const crossover *c = &s->cross[i];
        ids id;
        memset(&id, 0, sizeof id);
        id.v[ID_NAME] = c->workload;
        id.v[7] = mem_kind_name(c->mem);
        id.v[ID_DIRECTION] = c->e2e ? "e2e" : "kernel";
        id.v[ID_HOST] = cross_kind_names[c->kind];
        row(b, ROW_CROSSOVER, &id, c);
    }
}

/* A capture row per capture window (capture.h): the window's region's columns, name "window N",
 * direction how it began, host how it ended. */
static void capture_rows(strbuf *b, const analysis *a)
{
    for (int i = 0; i < a->ncapture; i++) {
        const capture_window *w = &a->m->capture.windows[a->capture[i].window];
        ids id;
        if (w->region >= 0)
            region_ids(a->m, w->region, &id);
        else
            memset(&id, 0, sizeof id);
        char name[32];
        snprintf(name, sizeof name, "window %d", w->number);
        id.v[ID_NAME] = name;
        id.v[ID_DIRECTION] = w->began;
        id.v[ID_HOST] = w->ended;
        row(b, ROW_CAPTURE, &id, &a->capture[i]);
    }
}

/* A range_group row per group of same-named ranges: name the group ("step *"), count its
 * instances, region_index and region its median instance, region_kind its kind, direction its NVTX
 * domain, host the median instance's verdict. */
static void group_rows(strbuf *b, const analysis *a)
{
    for (int i = 0; i < a->ngroups; i++) {
        const range_group *g = &a->groups[i];
        ids id;
        region_ids(a->m, g->median, &id);
        id.v[ID_NAME] = g->name;
        snprintf(id.count, sizeof id.count, "%d", g->count);
        id.v[ID_COUNT] = id.count;
        id.v[ID_DIRECTION] = g->domain;
        id.v[ID_HOST] = verdict_name(a->rg[g->median].verdict);
        row(b, ROW_RANGE_GROUP, &id, g);
    }
}

/* GPU memory (memory.h): a memory row per process and device (device its GPU, count its pid, name
 * "pid N"), after each its holders at the peak (name the call site, direction "by_site"; the
 * libraries: "by_allocator", host the library) and its timeline's points (direction "timeline");
 * a memory_leak row per call site never freed (name the site, direction the step range, host the
 * library); a memory_range row per range and group (the listed region's columns, or name the
 * group's); a memory_failure row per failed allocation (name the call, direction its error,
 * host its site, count the pid) with its holders (direction "at_failure"). */
static void holder_rows(strbuf *b, const memory_analysis *x, int first, int n, const char *how, const ids *of)
{
    for (int i = first; i < first + n; i++) {
        ids id = *of;
        id.v[ID_NAME] = x->holders[i].at;
        id.v[ID_DIRECTION] = how;
        id.v[ID_HOST] = x->holders[i].allocator;
        row(b, ROW_MEMORY_HOLDER, &id, &x->holders[i]);
    }
}

/* Ids of a memory row of process pid on device: device its GPU, count its pid. */
static void pid_device_ids(ids *id, uint32_t pid, uint32_t device)
{
    memset(id, 0, sizeof *id);
    snprintf(id->device, sizeof id->device, "%u", device);
    id->v[ID_DEVICE] = id->device;
    snprintf(id->count, sizeof id->count, "%u", pid);
    id->v[ID_COUNT] = id->count;
}

static void memory_rows(strbuf *b, const analysis *a)
{
    const memory_analysis *x = a->memory;
    if (!x)
        return;
    ids id;
    char name[48];
    for (int i = 0; i < x->nseries; i++) {
        const mem_series *s = &x->series[i];
        pid_device_ids(&id, s->pid, s->device);
        snprintf(name, sizeof name, s->device_only ? "device" : "pid %u", s->pid);
        id.v[ID_NAME] = name;
        row(b, ROW_MEMORY, &id, s);
        holder_rows(b, x, s->first_holder, s->nholders, "by_site", &id);
        holder_rows(b, x, s->first_lib, s->nlibs, "by_allocator", &id);
        for (int p = s->first_point; p < s->first_point + s->npoints; p++) {
            ids pt = id;
            pt.v[ID_DIRECTION] = "timeline";
            row(b, ROW_MEMORY_POINT, &pt, &x->points[p]);
        }
    }
    for (int i = 0; i < x->nleaks; i++) {
        const mem_leak *l = &x->leaks[i];
        pid_device_ids(&id, l->pid, l->device);
        id.v[ID_NAME] = l->at;
        id.v[ID_DIRECTION] = l->step;
        id.v[ID_HOST] = l->allocator;
        row(b, ROW_MEMORY_LEAK, &id, l);
    }
    for (int i = 0; i < x->nranges; i++) {
        const mem_range *r = &x->ranges[i];
        if (r->region >= 0)
            region_ids(a->m, r->region, &id);
        else
            memset(&id, 0, sizeof id), id.v[ID_NAME] = r->name;
        row(b, ROW_MEMORY_RANGE, &id, r);
    }
    for (int i = 0; i < x->nfailures; i++) {
        const mem_failure_row *f = &x->failures[i];
        pid_device_ids(&id, f->pid, f->device);
        id.v[ID_NAME] = f->api;
        id.v[ID_DIRECTION] = f->error;
        id.v[ID_HOST] = f->at;
        row(b, ROW_MEMORY_FAILURE, &id, f);
        ids at = id;
        holder_rows(b, x, f->first_holder, f->nholders, "at_failure", &at);
    }
}

char *render_csv(const analysis *a)
{
    const run_model *m = a->m;
    strbuf b;
    sb_init(&b);
    row_kinds = a->memory ? NROWS_ALL : NROWS;
    header(&b);
    ids id;
    memset(&id, 0, sizeof id);
    row(&b, ROW_RUN, &id, a);
    for (int i = 0; i < a->nrg; i++) {
        region_ids(m, a->rg[i].region, &id);
        row(&b, ROW_REGION, &id, &a->rg[i]);
    }
    for (int li = 0; li < a->nlisted; li++) {
        const region_metrics *r = &a->rg[a->listed[li]];
        for (int k = 0; k < r->nkstats; k++) {
            char name[512];
            region_ids(m, r->region, &id);
            kernel_display_name(r->kernels[k].name, name, sizeof name);
            id.v[4] = name;
            snprintf(id.count, sizeof id.count, "%d", r->kernels[k].count);
            id.v[5] = id.count;
            row(&b, ROW_KERNEL, &id, &r->kernels[k]);
        }
        for (int f = 0; f < r->nflows; f++) {
            region_ids(m, r->region, &id);
            snprintf(id.count, sizeof id.count, "%d", r->flows[f].count);
            id.v[5] = id.count;
            id.v[6] = r->flows[f].memset ? "memset" : copy_dir_name(r->flows[f].dir); /* a memset has no direction */
            id.v[7] = mem_kind_name(r->flows[f].host);
            row(&b, ROW_COPY, &id, &r->flows[f]);
        }
        for (int k = 0; k < r->napistats; k++) {
            region_ids(m, r->region, &id);
            id.v[4] = r->apis[k].name;
            snprintf(id.count, sizeof id.count, "%d", r->apis[k].count);
            id.v[5] = id.count;
            row(&b, ROW_API, &id, &r->apis[k]);
        }
    }
    for (int i = 0; i < a->nwl; i++) {
        char label[64];
        memset(&id, 0, sizeof id);
        workload_label(a->wl[i].w, label, sizeof label);
        id.v[4] = label;
        snprintf(id.count, sizeof id.count, "%d", a->wl[i].w->repeat);
        id.v[5] = id.count;
        id.v[7] = a->wl[i].w->needs_gpu ? mem_kind_name(a->wl[i].w->host_memory) : NULL;
        snprintf(id.n, sizeof id.n, "%d", a->wl[i].w->n);
        id.v[8] = id.n;
        if (a->wl[i].w->pass != PASS_ALONE) {
            snprintf(id.device, sizeof id.device, "%d", a->wl[i].w->device);
            id.v[ID_DEVICE] = id.device;
            id.v[ID_PASS] = device_pass_name(a->wl[i].w->pass);
        }
        row(&b, ROW_WORKLOAD, &id, &a->wl[i]);
        /* its kernels after it: the workload's ids, name the kernel, count its launches */
        for (int k = 0; k < a->wl[i].nkernels; k++) {
            const kernel_summary *ks = &a->wl[i].kernels[k];
            ids kid = id;
            kid.v[4] = ks->name;
            snprintf(kid.count, sizeof kid.count, "%d", ks->launches);
            kid.v[5] = kid.count;
            row(&b, ROW_WORKLOAD_KERNEL, &kid, ks);
        }
    }
    for (int i = 0; i < m->ndevices; i++) {
        memset(&id, 0, sizeof id);
        id.v[4] = m->devices[i].name;
        row(&b, ROW_DEVICE, &id, &a->peaks[i]);
    }
    devices_rows(&b, a);
    rank_rows(&b, a->ranks);
    launch_rows(&b, a);
    for (int i = 0; i < a->nbusy; i++) {
        memset(&id, 0, sizeof id);
        snprintf(id.device, sizeof id.device, "%d", a->busy[i].device);
        id.v[ID_DEVICE] = id.device;
        row(&b, ROW_BUSY, &id, &a->busy[i]);
    }
    idle_rows(&b, a);
    host_rows(&b, a);
    account_rows(&b, a);
    group_rows(&b, a);
    stream_rows(&b, a);
    capture_rows(&b, a);
    sweep_rows(&b, a);
    memory_rows(&b, a);
    return sb_finish(&b);
}
