/* The tables a run is kept as (run_rows.h), and its rows made from its analysis. */
#include "run_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_sites.h"
#include "host_idle.h"
#include "memory.h"
#include "sha256.h"
#include "stats.h"

#define N(a) (int)(sizeof a / sizeof a[0])

static const rr_col run_cols[] = {
    {"started_at", RR_TEXT, "when the run started (ISO 8601, UTC): history's order"},
    {"source", RR_TEXT, "builtin, profile, kineto, nsys"},
    {"command_line", RR_TEXT, "the command that was run or profiled"},
    {"tool_version", RR_TEXT, "the mmprof that recorded it"},
    {"host", RR_TEXT, "the host of its first process, or the CPU model"},
    {"device", RR_TEXT, "its first GPU's name"},
    {"events", RR_INT, "kernels, copies, memsets, API calls and syncs recorded"},
    {"processes", RR_INT, "processes recorded"},
};
static const rr_col device_cols[] = {
    {"idx", RR_INT, "the device's index in the run"},
    {"name", RR_TEXT, "its name"},
    {"cc", RR_TEXT, "compute capability, \"9.0\""},
    {"sm_count", RR_INT, "multiprocessors"},
    {"memory_bytes", RR_INT, "total device memory"},
    {"pci_bus_id", RR_TEXT, "where it sits"},
};
static const rr_col region_cols[] = {
    {"idx", RR_INT, "its index in the run's regions (0: the run)"},
    {"kind", RR_TEXT, "run, workload, phase, nvtx, annotation, capture"},
    {"name", RR_TEXT, "its name"},
    {"verdict", RR_TEXT, "its verdict"},
};
static const rr_col group_cols[] = {
    {"name", RR_TEXT, "the folded name (\"step *\")"},
    {"kind", RR_TEXT, "nvtx or annotation"},
    {"domain", RR_TEXT, "NVTX domain, NULL for the default"},
    {"count", RR_INT, "instances"},
    {"verdict", RR_TEXT, "the verdict most instances got"},
};
static const rr_col group_extra[] = {
    {"mad_ms", RR_REAL, "median absolute deviation of the instances' wall times: the group's own noise"},
    {"q1_ms", RR_REAL, "first quartile of the instances' wall times"},
    {"q3_ms", RR_REAL, "third quartile"},
};
static const rr_col kernel_cols[] = {
    {"name", RR_TEXT, "the kernel's name (demangled)"},
    {"launches", RR_INT, "launches in the run"},
};
static const rr_col copy_cols[] = {
    {"kind", RR_TEXT, "direction and host memory (\"HtoD pageable\"), or \"memset device\""},
    {"count", RR_INT, "copies or memsets"},
};
static const rr_col account_cols[] = {
    {"idx", RR_INT, "its place in the run's accounts"},
    {"scope", RR_TEXT, "run, process, before_steps, group, group_median, group_worst, region"},
    {"name", RR_TEXT, "what it accounts: the process, the range group, the region"},
    {"pid", RR_INT, "the process, 0 for the run's processes summed"},
    {"instances", RR_INT, "ranges summed (scope group), else 1"},
    {"verdict", RR_TEXT, "the verdict its largest state gives"},
    {"range_group", RR_TEXT, "scopes group, group_median, group_worst: the range group's name (\"step *\")"},
};
static const rr_col state_cols[] = {
    {"account", RR_INT, "accounts.idx of the account"},
    {"state", RR_TEXT, "the wall-time state (gpu_compute, input, compile, ...)"},
    {"cause", RR_TEXT, "its top evidence's cause row, \"\" none"},
    {"why", RR_TEXT, "that evidence in words"},
    {"at", RR_TEXT, "the user's line"},
    {"via", RR_TEXT, "the library frame that line called"},
};
static const rr_col cause_cols[] = {
    {"account", RR_INT, "accounts.idx of the account"},
    {"cause", RR_TEXT, "the cause row, \"\" where nothing named the time"},
    {"why", RR_TEXT, "its top evidence in words"},
    {"at", RR_TEXT, "the user's line"},
    {"via", RR_TEXT, "the library frame it called"},
};
static const rr_col site_cols[] = {
    {"kind", RR_TEXT, "kernel, copy, memset, call"},
    {"target", RR_TEXT, "the kernel's, copy's or call's name"},
    {"at", RR_TEXT, "the user's line that launched it"},
};
static const rr_col workload_cols[] = {
    {"label", RR_TEXT, "the built-in workload and its host memory, \"cuda-naive (pinned)\""},
    {"n", RR_INT, "the matrix size"},
    {"verdict", RR_TEXT, "its verdict"},
};
static const rr_col launch_cols[] = {
    {"kernel", RR_TEXT, "the profiled launch's kernel (profile --counters)"},
    {"device", RR_INT, "its GPU"},
};
static const rr_col memory_cols[] = {
    {"pid", RR_INT, "the process (0: a device's NVML readings alone)"},
    {"device", RR_INT, "the GPU"},
    {"peak_in", RR_TEXT, "the innermost range open at the peak"},
};

const rr_table rr_tables[RR_NTABLES] = {
    [RR_RUNS] = {"runs", "one per stored run", run_cols, N(run_cols), NULL, NULL, 0},
    [RR_DEVICES] = {"devices", "one per GPU of a run", device_cols, N(device_cols), &device_peaks_table, NULL, 0},
    [RR_REGIONS] = {"regions", "the run and its listed regions (the longest NVTX ranges and annotations)", region_cols,
                    N(region_cols), &region_metric_table, NULL, 0},
    [RR_RANGE_GROUPS] = {"range_groups", "NVTX ranges and annotations grouped by name, with their instances' spread",
                         group_cols, N(group_cols), &range_group_table, group_extra, N(group_extra)},
    [RR_KERNELS] = {"kernels", "one per kernel name over the whole run", kernel_cols, N(kernel_cols), &kernel_stat_table,
                    NULL, 0},
    [RR_COPIES] = {"copies", "copies by direction and host memory, memsets by memory, over the whole run", copy_cols,
                   N(copy_cols), &copy_flow_table, NULL, 0},
    [RR_ACCOUNTS] = {"accounts", "the wall-time accounts: the run, its processes, the time before the steps, each "
                                 "range group (summed, median, worst) and each listed region",
                     account_cols, N(account_cols), &account_table, NULL, 0},
    [RR_ACCOUNT_STATES] = {"account_states", "an account's states with time, with their top evidence", state_cols,
                           N(state_cols), &account_row_table, NULL, 0},
    [RR_ACCOUNT_CAUSES] = {"account_causes", "what the accounted thread did, by cause, whatever the GPU did",
                           cause_cols, N(cause_cols), &account_cause_table, NULL, 0},
    [RR_CALL_SITES] = {"call_sites", "the user's lines that launched each kernel, copy and memset", site_cols,
                       N(site_cols), &call_site_table, NULL, 0},
    [RR_WORKLOADS] = {"workloads", "a built-in run's workloads (with --counters, their counters)", workload_cols,
                      N(workload_cols), &workload_metric_table, NULL, 0},
    [RR_LAUNCHES] = {"launches", "profile --counters: each profiled launch's counters", launch_cols, N(launch_cols),
                     &launch_counter_table, NULL, 0},
    [RR_MEMORY] = {"memory", "GPU memory per process and device, where the run recorded it", memory_cols,
                   N(memory_cols), &memory_series_table, NULL, 0},
};

int rr_ncols(const rr_table *t) { return t->nids + (t->figures ? t->figures->n : 0) + t->nextra; }

const char *rr_col_name(const rr_table *t, int c)
{
    if (c < t->nids)
        return t->ids[c].name;
    c -= t->nids;
    int nf = t->figures ? t->figures->n : 0;
    return c < nf ? t->figures->defs[c].key : t->extra[c - nf].name;
}

rr_type rr_col_type(const rr_table *t, int c) { return c < t->nids ? t->ids[c].type : RR_REAL; }

int rr_col_find(const rr_table *t, const char *name)
{
    for (int c = 0, n = rr_ncols(t); c < n; c++)
        if (strcmp(rr_col_name(t, c), name) == 0)
            return c;
    return -1;
}

const rr_table *rr_table_named(const char *name)
{
    for (int i = 0; i < RR_NTABLES; i++)
        if (strcmp(rr_tables[i].name, name) == 0)
            return &rr_tables[i];
    return NULL;
}

rr_val *rr_add_row(rr_rows *t)
{
    int nc = rr_ncols(t->t);
    if (t->nrows == t->cap) {
        int cap = t->cap ? 2 * t->cap : 8;
        rr_val *v = realloc(t->vals, (size_t)cap * (size_t)nc * sizeof *v);
        if (!v)
            return NULL;
        t->vals = v, t->cap = cap;
    }
    rr_val *row = t->vals + (size_t)t->nrows++ * (size_t)nc;
    for (int c = 0; c < nc; c++)
        row[c] = (rr_val){NULL, 0, true};
    return row;
}

bool rr_set_text(rr_val *v, const char *s)
{
    free(v->s);
    v->s = strdup(s ? s : "");
    v->null = v->s == NULL;
    return v->s != NULL;
}

void rr_set_num(rr_val *v, double x)
{
    v->v = x;
    v->null = !isfinite(x);
}

static void set_metric(rr_val *v, const metric *m)
{
    if (m->ok)
        rr_set_num(v, m->v);
}

/* The registry's figures of one struct into a row, after its ids. */
static void set_figures(const rr_table *t, rr_val *row, const void *src)
{
    for (int i = 0; t->figures && i < t->figures->n; i++)
        set_metric(&row[t->nids + i], metric_of(src, &t->figures->defs[i]));
}

double rr_num(const rr_rows *t, int row, const char *name)
{
    int c = rr_col_find(t->t, name);
    if (c < 0 || row < 0 || row >= t->nrows)
        return NAN;
    const rr_val *v = &t->vals[(size_t)row * (size_t)rr_ncols(t->t) + (size_t)c];
    return v->null || v->s ? NAN : v->v;
}

const char *rr_text(const rr_rows *t, int row, const char *name)
{
    int c = rr_col_find(t->t, name);
    if (c < 0 || row < 0 || row >= t->nrows)
        return "";
    const rr_val *v = &t->vals[(size_t)row * (size_t)rr_ncols(t->t) + (size_t)c];
    return v->s ? v->s : "";
}

/* ---------- from an analysis ---------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile q of sorted v (linear between the two nearest). */
static double quantile(const double *v, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)pos;
    return lo + 1 < n ? v[lo] + (pos - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

/* The spread of a group's instances: MAD, first and third quartiles of their wall times. The
 * registry's group figures give centre and stddev; a diff needs a spread one slow instance does
 * not move (a step that compiled), hence the median's own deviation. */
static bool group_spread(const analysis *a, const range_group *g, rr_val *row, const rr_table *t)
{
    const run_model *m = a->m;
    size_t cap = (size_t)(g->count > 0 ? g->count : 1);
    double *w = malloc(2 * cap * sizeof *w);
    if (!w)
        return false;
    int n = 0;
    char folded[RANGE_GROUP_NAME];
    for (int i = 1; i < m->nregions && i < a->nrg && n < g->count; i++) {
        const region *r = &m->regions[i];
        if (r->kind != g->kind || !a->rg[i].wall_ms.ok)
            continue;
        if ((r->domain == NULL) != (g->domain == NULL) || (r->domain && strcmp(r->domain, g->domain) != 0))
            continue;
        range_group_name(r->name, folded, sizeof folded);
        if (strcmp(folded, g->name) == 0)
            w[n++] = a->rg[i].wall_ms.v;
    }
    if (n > 0) {
        double *dev = w + cap;
        qsort(w, (size_t)n, sizeof *w, cmp_double);
        double med = quantile(w, n, 0.5);
        for (int i = 0; i < n; i++)
            dev[i] = fabs(w[i] - med);
        qsort(dev, (size_t)n, sizeof *dev, cmp_double);
        rr_set_num(&row[rr_col_find(t, "mad_ms")], quantile(dev, n, 0.5));
        rr_set_num(&row[rr_col_find(t, "q1_ms")], quantile(w, n, 0.25));
        rr_set_num(&row[rr_col_find(t, "q3_ms")], quantile(w, n, 0.75));
    }
    free(w);
    return true;
}

static bool set_int(rr_val *v, long long x)
{
    rr_set_num(v, (double)x);
    return true;
}

#define ROW(tbl)                                          \
    rr_val *row = rr_add_row(&out->tables[tbl]);          \
    const rr_table *t = &rr_tables[tbl];                  \
    if (!row)                                             \
        return false;                                     \
    (void)t

static bool run_row(const analysis *a, run_rows *out)
{
    const run_model *m = a->m;
    ROW(RR_RUNS);
    const char *host = m->nprocesses > 0 && m->processes[0].host[0] ? m->processes[0].host
                       : m->host.known                                ? m->host.cpu_model
                                                                      : "";
    size_t events = m->events.nkernels + m->events.ncopies + m->events.nmemsets + m->events.napis + m->events.nsyncs;
    return rr_set_text(&row[0], m->started_at) && rr_set_text(&row[1], run_source_name(m->source)) &&
           rr_set_text(&row[2], m->command_line ? m->command_line : "") && rr_set_text(&row[3], m->tool_version) &&
           rr_set_text(&row[4], host) && rr_set_text(&row[5], m->ndevices > 0 ? m->devices[0].name : "") &&
           set_int(&row[6], (long long)events) && set_int(&row[7], m->nprocesses);
}

static bool device_rows(const analysis *a, run_rows *out)
{
    for (int i = 0; i < a->m->ndevices; i++) {
        const device_info *d = &a->m->devices[i];
        ROW(RR_DEVICES);
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
        set_int(&row[0], d->index);
        if (!rr_set_text(&row[1], d->name) || !rr_set_text(&row[2], cc) || !rr_set_text(&row[5], d->pci_bus_id))
            return false;
        set_int(&row[3], d->sm_count);
        set_int(&row[4], (long long)d->total_mem);
        if (a->peaks)
            set_figures(t, row, &a->peaks[i]);
    }
    return true;
}

static bool region_rows(const analysis *a, run_rows *out)
{
    for (int li = 0; li < a->nlisted; li++) {
        int i = a->listed[li];
        const region *g = &a->m->regions[i];
        ROW(RR_REGIONS);
        set_int(&row[0], i);
        if (!rr_set_text(&row[1], region_kind_name(g->kind)) || !rr_set_text(&row[2], g->name) ||
            !rr_set_text(&row[3], verdict_name(a->rg[i].verdict)))
            return false;
        set_figures(t, row, &a->rg[i]);
    }
    return true;
}

static bool group_rows(const analysis *a, run_rows *out)
{
    for (int i = 0; i < a->ngroups; i++) {
        const range_group *g = &a->groups[i];
        ROW(RR_RANGE_GROUPS);
        if (!rr_set_text(&row[0], g->name) || !rr_set_text(&row[1], region_kind_name(g->kind)) ||
            (g->domain && !rr_set_text(&row[2], g->domain)) || !rr_set_text(&row[4], verdict_name(g->verdict)))
            return false;
        set_int(&row[3], g->count);
        set_figures(t, row, g);
        if (!group_spread(a, g, row, t))
            return false;
    }
    return true;
}

/* Kernels and copies of the whole run: the run region's tables. */
static bool run_gpu_rows(const analysis *a, run_rows *out)
{
    if (a->nrg == 0)
        return true;
    const region_metrics *r = &a->rg[0];
    for (int i = 0; i < r->nkstats; i++) {
        ROW(RR_KERNELS);
        if (!rr_set_text(&row[0], r->kernels[i].name))
            return false;
        set_int(&row[1], r->kernels[i].count);
        set_figures(t, row, &r->kernels[i]);
    }
    for (int i = 0; i < r->nflows; i++) {
        const copy_flow *f = &r->flows[i];
        ROW(RR_COPIES);
        char kind[64];
        if (f->memset)
            snprintf(kind, sizeof kind, "memset %s", mem_kind_name(f->host));
        else
            snprintf(kind, sizeof kind, "%s %s", copy_dir_name(f->dir), mem_kind_name(f->host));
        if (!rr_set_text(&row[0], kind))
            return false;
        set_int(&row[1], f->count);
        set_figures(t, row, f);
    }
    return true;
}

static bool evidence(rr_val *row, const char *cause, const char *why, const char *at, const char *via)
{
    return rr_set_text(&row[0], cause) && rr_set_text(&row[1], why) && rr_set_text(&row[2], at) &&
           rr_set_text(&row[3], via);
}

static bool account_rows(const analysis *a, run_rows *out)
{
    for (int i = 0; i < a->naccounts; i++) {
        const wall_account *w = &a->accounts[i];
        {
            ROW(RR_ACCOUNTS);
            set_int(&row[0], i);
            if (!rr_set_text(&row[1], account_scope_name(w->scope)) || !rr_set_text(&row[2], w->name) ||
                !rr_set_text(&row[5], verdict_name(w->verdict)))
                return false;
            set_int(&row[3], w->pid);
            set_int(&row[4], w->instances);
            bool grouped = w->scope == ACC_GROUP || w->scope == ACC_GROUP_MEDIAN || w->scope == ACC_GROUP_WORST;
            if (grouped && w->group >= 0 && w->group < a->ngroups && !rr_set_text(&row[6], a->groups[w->group].name))
                return false;
            set_figures(t, row, w);
        }
        for (int s = 0; s < w->nrows; s++) {
            const account_row *r = &w->rows[s];
            ROW(RR_ACCOUNT_STATES);
            set_int(&row[0], i);
            if (!rr_set_text(&row[1], wall_states[r->state].key) || !evidence(row + 2, r->cause, r->why, r->at, r->via))
                return false;
            set_figures(t, row, r);
        }
        for (int s = 0; s < w->ncauses; s++) {
            const host_cause_row *c = &w->causes[s];
            ROW(RR_ACCOUNT_CAUSES);
            set_int(&row[0], i);
            if (!evidence(row + 1, c->cause, c->why, c->at, c->via))
                return false;
            set_figures(t, row, c);
        }
    }
    return true;
}

static bool site_rows(const analysis *a, run_rows *out)
{
    for (int i = 0; a->host && i < a->host->nsites; i++) {
        const call_site_row *s = &a->host->sites[i];
        for (int j = 0; j < s->nsites; j++) {
            ROW(RR_CALL_SITES);
            if (!rr_set_text(&row[0], s->kind) || !rr_set_text(&row[1], s->name) || !rr_set_text(&row[2], s->sites[j].at))
                return false;
            set_figures(t, row, &s->sites[j]);
        }
    }
    return true;
}

static bool builtin_rows(const analysis *a, run_rows *out)
{
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *w = &a->wl[i];
        ROW(RR_WORKLOADS);
        char label[96];
        workload_label(w->w, label, sizeof label);
        if (!rr_set_text(&row[0], label) || !rr_set_text(&row[2], verdict_name(w->verdict)))
            return false;
        set_int(&row[1], w->w->n);
        set_figures(t, row, w);
    }
    for (int i = 0; i < a->nlaunches; i++) {
        const launch_metrics *l = &a->launches[i];
        ROW(RR_LAUNCHES);
        if (!rr_set_text(&row[0], l->k->name))
            return false;
        set_int(&row[1], l->k->device);
        set_figures(t, row, l);
    }
    return true;
}

static bool memory_rows(const analysis *a, run_rows *out)
{
    for (int i = 0; a->memory && i < a->memory->nseries; i++) {
        const mem_series *s = &a->memory->series[i];
        ROW(RR_MEMORY);
        set_int(&row[0], s->pid);
        set_int(&row[1], s->device);
        if (!rr_set_text(&row[2], s->peak_in))
            return false;
        set_figures(t, row, s);
    }
    return true;
}

bool run_rows_from_analysis(const analysis *a, run_rows *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < RR_NTABLES; i++)
        out->tables[i].t = &rr_tables[i];
    bool ok = run_row(a, out) && device_rows(a, out) && region_rows(a, out) && group_rows(a, out) &&
              run_gpu_rows(a, out) && account_rows(a, out) && site_rows(a, out) && builtin_rows(a, out) &&
              memory_rows(a, out);
    if (!ok) {
        run_rows_free(out);
        return false;
    }
    run_rows_key(out);
    return true;
}

void run_rows_key(run_rows *r)
{
    sha256_ctx c;
    sha256_init(&c);
    for (int i = 0; i < RR_NTABLES; i++) {
        const rr_rows *t = &r->tables[i];
        int nc = rr_ncols(t->t);
        sha256_add(&c, t->t->name, strlen(t->t->name) + 1);
        for (size_t k = 0; k < (size_t)t->nrows * (size_t)nc; k++) {
            const rr_val *v = &t->vals[k];
            char num[32];
            /* %.17g: the double itself, so two runs that differ in any figure differ in key */
            const char *s = v->null ? "\x01" : v->s ? v->s : (snprintf(num, sizeof num, "%.17g", v->v), num);
            sha256_add(&c, s, strlen(s) + 1);
        }
    }
    sha256_hex(&c, r->key);
}

void run_rows_free(run_rows *r)
{
    for (int i = 0; i < RR_NTABLES; i++) {
        rr_rows *t = &r->tables[i];
        if (t->t) {
            size_t n = (size_t)t->nrows * (size_t)rr_ncols(t->t);
            for (size_t k = 0; k < n; k++)
                free(t->vals[k].s);
        }
        free(t->vals);
        t->vals = NULL;
        t->nrows = t->cap = 0;
    }
}
