/* The registry's tables (tables.h): one declaration per table of an analysed run, with the
 * functions that find its rows and say which row each one is.
 *
 * The id columns are the CSV's (table_id_names); what each table puts in them is said beside its
 * ids function. A figure that was not measured stays a figure (metric.h); only the words and
 * numbers that name a row are ids. */
#include "tables.h"

#include <stdio.h>
#include <string.h>

#include "devices.h"
#include "host_idle.h"
#include "memory.h"
#include "sweep.h"

const char *const table_id_names[TID_COUNT_OF] = {"row", "region_index", "region", "region_kind", "name", "count",
                                                  "direction", "host_memory", "n", "device", "pass", "host"};

/* ---------- helpers the ids share ---------- */

static void set_int(table_ids *id, int col, char *buf, size_t len, long long v)
{
    snprintf(buf, len, "%lld", v);
    id->v[col] = buf;
}

#define SET_COUNT(id, v) set_int(id, TID_COUNT, (id)->count, sizeof (id)->count, (long long)(v))
#define SET_N(id, v) set_int(id, TID_N, (id)->n, sizeof (id)->n, (long long)(v))
#define SET_DEVICE(id, v) set_int(id, TID_DEVICE, (id)->device, sizeof (id)->device, (long long)(v))

/* A region's columns: its index, name and kind (ids come zeroed: table_walk clears them). */
static void region_ids(const run_model *m, int ri, table_ids *id)
{
    const region *rg = &m->regions[ri];
    set_int(id, TID_REGION_INDEX, id->index, sizeof id->index, ri);
    id->v[TID_REGION] = rg->name;
    id->v[TID_REGION_KIND] = region_kind_name(rg->kind);
}

/* A table of one row: the run as a whole. */
static int one(const table_at *at) { return (void)at, 1; }

/* ---------- the run, its regions and what the reports list of them ---------- */

static const void *run_row(const table_at *at, int i) { return (void)i, at->a; }

static int region_count(const table_at *at) { return at->a->nrg; }
static const void *region_row(const table_at *at, int i) { return &at->a->rg[i]; }
static void region_row_ids(const table_at *at, int i, table_ids *id) { region_ids(at->a->m, at->a->rg[i].region, id); }

/* The regions the reports list (analysis.listed): a grouping with no row of its own, whose ids
 * (the region's) its kernel, copy and call rows start from. */
static int listed_count(const table_at *at) { return at->a->nlisted; }
static const void *listed_row(const table_at *at, int i) { return &at->a->rg[at->a->listed[i]]; }
static void listed_ids(const table_at *at, int i, table_ids *id) { region_ids(at->a->m, at->a->listed[i], id); }
static const region_metrics *listed_region(const table_at *at) { return &at->a->rg[at->a->listed[at->parent]]; }

static int kernel_count(const table_at *at) { return listed_region(at)->nkstats; }
static const void *kernel_row(const table_at *at, int i) { return &listed_region(at)->kernels[i]; }
/* name the kernel's readable name, count its launches */
static void kernel_ids(const table_at *at, int i, table_ids *id)
{
    const kernel_stat *k = &listed_region(at)->kernels[i];
    *id = *at->up;
    kernel_display_name(k->name, id->text, sizeof id->text);
    id->v[TID_NAME] = id->text;
    SET_COUNT(id, k->count);
}

static int copy_count(const table_at *at) { return listed_region(at)->nflows; }
static const void *copy_row(const table_at *at, int i) { return &listed_region(at)->flows[i]; }
/* count its copies, direction its direction ("memset" for a memset, which has none), host_memory
 * the host side's kind */
static void copy_ids(const table_at *at, int i, table_ids *id)
{
    const copy_flow *f = &listed_region(at)->flows[i];
    *id = *at->up;
    SET_COUNT(id, f->count);
    id->v[TID_DIRECTION] = f->memset ? "memset" : copy_dir_name(f->dir);
    id->v[TID_HOST_MEMORY] = mem_kind_name(f->host);
}

static int api_count(const table_at *at) { return listed_region(at)->napistats; }
static const void *api_row(const table_at *at, int i) { return &listed_region(at)->apis[i]; }
/* name the call, count its calls */
static void api_ids(const table_at *at, int i, table_ids *id)
{
    const api_stat *k = &listed_region(at)->apis[i];
    *id = *at->up;
    id->v[TID_NAME] = k->name;
    SET_COUNT(id, k->count);
}

/* ---------- built-in workloads, devices ---------- */

static int workload_count(const table_at *at) { return at->a->nwl; }
static const void *workload_row(const table_at *at, int i) { return &at->a->wl[i]; }
/* name its label, count its repeats, host_memory its memory (GPU ones), n its size; in a
 * --devices run, device its GPU and pass alone or together */
static void workload_ids(const table_at *at, int i, table_ids *id)
{
    const workload_run *w = at->a->wl[i].w;
    workload_label(w, id->text, sizeof id->text);
    id->v[TID_NAME] = id->text;
    SET_COUNT(id, w->repeat);
    id->v[TID_HOST_MEMORY] = w->needs_gpu ? mem_kind_name(w->host_memory) : NULL;
    SET_N(id, w->n);
    if (w->pass != PASS_ALONE) {
        SET_DEVICE(id, w->device);
        id->v[TID_PASS] = device_pass_name(w->pass);
    }
}

static int wl_kernel_count(const table_at *at) { return at->a->wl[at->parent].nkernels; }
static const void *wl_kernel_row(const table_at *at, int i) { return &at->a->wl[at->parent].kernels[i]; }
/* the workload's ids, name the kernel, count its launches */
static void wl_kernel_ids(const table_at *at, int i, table_ids *id)
{
    const kernel_summary *ks = &at->a->wl[at->parent].kernels[i];
    *id = *at->up;
    id->v[TID_NAME] = ks->name;
    SET_COUNT(id, ks->launches);
}

static int device_count(const table_at *at) { return at->a->m->ndevices; }
static const void *device_row(const table_at *at, int i) { return &at->a->peaks[i]; }
static void device_ids(const table_at *at, int i, table_ids *id) { id->v[TID_NAME] = at->a->m->devices[i].name; }

/* A --devices run (devices.h): the GPUs' passes as a whole, a row per workload and GPU, per
 * workload over every GPU, per GPU, per ordered pair of GPUs. */
static int gpus_count(const table_at *at) { return at->a->devices != NULL; }
static const void *gpus_row(const table_at *at, int i) { return (void)i, at->a->devices; }

static int gpu_wl_count(const table_at *at) { return at->a->devices ? at->a->devices->nrows : 0; }
static const void *gpu_wl_row(const table_at *at, int i) { return &at->a->devices->rows[i]; }
/* name the workload, n its size, device the GPU */
static void gpu_wl_ids(const table_at *at, int i, table_ids *id)
{
    const device_workload_row *r = &at->a->devices->rows[i];
    id->v[TID_NAME] = r->label;
    SET_N(id, r->n);
    SET_DEVICE(id, r->device);
}

static int gpu_agg_count(const table_at *at) { return at->a->devices ? at->a->devices->nagg : 0; }
static const void *gpu_agg_row(const table_at *at, int i) { return &at->a->devices->agg[i]; }
static void gpu_agg_ids(const table_at *at, int i, table_ids *id)
{
    const device_aggregate_row *r = &at->a->devices->agg[i];
    id->v[TID_NAME] = r->label;
    SET_N(id, r->n);
}

static int gpu_pass_count(const table_at *at) { return at->a->devices ? at->a->devices->npasses : 0; }
static const void *gpu_pass_row(const table_at *at, int i) { return &at->a->devices->passes[i]; }
static void gpu_pass_ids(const table_at *at, int i, table_ids *id) { SET_DEVICE(id, at->a->devices->passes[i].device); }

static int peer_count(const table_at *at) { return at->a->devices ? at->a->devices->npeers : 0; }
static const void *peer_row_of(const table_at *at, int i) { return &at->a->devices->peers[i]; }
/* name the link, direction "0->1", device the source */
static void peer_ids(const table_at *at, int i, table_ids *id)
{
    const peer_pair *p = at->a->devices->peers[i].p;
    id->v[TID_NAME] = p->link;
    snprintf(id->pair, sizeof id->pair, "%d->%d", p->src, p->dst);
    id->v[TID_DIRECTION] = id->pair;
    SET_DEVICE(id, p->src);
}

/* ---------- a job of several ranks (ranks.h) ---------- */

/* arg 0: per rank, 1: per GPU; name says who ("rank 1 GPU 1", "GPU 0 (rank 0)"), count its kernels */
static int rank_count(const table_at *at)
{
    const rank_analysis *ra = at->a->ranks;
    return !ra ? 0 : at->arg ? ra->ngpus : ra->nrows;
}
static const rank_share *rank_of(const table_at *at, int i)
{
    return at->arg ? &at->a->ranks->gpus[i] : &at->a->ranks->rows[i];
}
static const void *rank_row(const table_at *at, int i) { return rank_of(at, i); }
static void rank_ids(const table_at *at, int i, table_ids *id)
{
    const rank_share *r = rank_of(at, i);
    rank_share_label(r, at->arg, true, id->text, sizeof id->text);
    id->v[TID_NAME] = id->text;
    SET_COUNT(id, r->kernels);
}

static int straggler_count(const table_at *at) { return at->a->ranks ? at->a->ranks->nstragglers : 0; }
static const void *straggler_row(const table_at *at, int i) { return &at->a->ranks->stragglers[i]; }
/* name the range and who was last ("step 3 (last: rank 1)"), count its matched occurrences */
static void straggler_ids(const table_at *at, int i, table_ids *id)
{
    const rank_analysis *ra = at->a->ranks;
    const straggler *s = &ra->stragglers[i];
    const rank_share *w = s->straggler >= 0 ? &ra->rows[s->straggler] : NULL;
    if (w && w->rank >= 0)
        snprintf(id->text, sizeof id->text, "%s (last: rank %d)", s->name, w->rank);
    else if (w)
        snprintf(id->text, sizeof id->text, "%s (last: pid %u)", s->name, w->pid);
    else
        snprintf(id->text, sizeof id->text, "%s", s->name);
    id->v[TID_NAME] = id->text;
    SET_COUNT(id, s->matched);
}

/* ---------- the timeline: launches, busy stretches, idle stretches ---------- */

static int launch_count(const table_at *at) { return at->a->nlaunches; }
static const void *launch_row(const table_at *at, int i) { return &at->a->launches[i]; }
/* name the kernel, device its GPU */
static void launch_ids(const table_at *at, int i, table_ids *id)
{
    kernel_display_name(at->a->launches[i].k->name, id->text, sizeof id->text);
    id->v[TID_NAME] = id->text;
    SET_DEVICE(id, at->a->launches[i].k->device);
}

static int busy_count(const table_at *at) { return at->a->nbusy; }
static const void *busy_row(const table_at *at, int i) { return &at->a->busy[i]; }
static void busy_ids(const table_at *at, int i, table_ids *id) { SET_DEVICE(id, at->a->busy[i].device); }

static int gap_count(const table_at *at) { return at->a->nidle_gaps; }
static const void *gap_row(const table_at *at, int i) { return &at->a->idle_gaps[i]; }
/* name its cause, direction where it lies, count the calls named, device its GPU, host its largest
 * state in its process's wall-time account and that state's evidence */
static void gap_ids(const table_at *at, int i, table_ids *id)
{
    const analysis *a = at->a;
    const idle_stretch *g = &a->idle_gaps[i];
    id->v[TID_NAME] = idle_cause_key(g->cause);
    id->v[TID_DIRECTION] = stretch_where_name(g->where);
    SET_COUNT(id, g->ncalls);
    SET_DEVICE(id, g->device);
    const account_row *acc = a->idle_accounts && a->idle_accounts[i].state < WS_COUNT ? &a->idle_accounts[i] : NULL;
    if (acc) {
        int n = snprintf(id->text, sizeof id->text, "%s: ", wall_states[acc->state].key);
        account_row_words(acc, id->text + n, sizeof id->text - (size_t)n);
        id->v[TID_HOST] = id->text;
    }
}

/* A listed region's idle time by cause: the region's columns, name the cause. */
static int share_count(const table_at *at) { return at->a->nlisted * IDLE_NCAUSES; }
static const void *share_row(const table_at *at, int i)
{
    return &at->a->rg[at->a->listed[i / IDLE_NCAUSES]].idle[i % IDLE_NCAUSES];
}
static void share_ids(const table_at *at, int i, table_ids *id)
{
    region_ids(at->a->m, at->a->listed[i / IDLE_NCAUSES], id);
    id->v[TID_NAME] = idle_cause_key((idle_cause)(i % IDLE_NCAUSES));
}

/* ---------- the host (host_idle.h) ---------- */

static int sampling_count(const table_at *at) { return at->a->host != NULL; }
static const void *sampling_row(const table_at *at, int i) { return (void)i, &at->a->host->collection; }
/* name the sampler's mechanism */
static void sampling_ids(const table_at *at, int i, table_ids *id)
{
    (void)i;
    id->v[TID_NAME] = at->a->m->host_activity.mechanism;
}

/* The host views: HOST_NFROM per listed idle stretch, then per listed region's host-busy time. */
static int view_count(const table_at *at)
{
    const host_analysis *h = at->a->host;
    return h ? (h->ngaps + h->nregions) * HOST_NFROM : 0;
}
static const host_view *view_of(const analysis *a, int i)
{
    const host_analysis *h = a->host;
    return i < h->ngaps * HOST_NFROM ? &h->gaps[i] : &h->regions[i - h->ngaps * HOST_NFROM];
}
static const void *view_row(const table_at *at, int i)
{
    const host_view *v = view_of(at->a, i);
    return v->any ? v : NULL;
}
/* In an idle stretch: direction "idle_gap", count the stretch's index, device its GPU; in a
 * region's host-busy time: the region's columns, direction "host_busy". Name the source ("py",
 * "cpu", "spans"), host its hot frame. */
static void view_ids(const table_at *at, int i, table_ids *id)
{
    const analysis *a = at->a;
    const host_view *v = view_of(a, i);
    int gap = i / HOST_NFROM;
    if (gap < a->host->ngaps) {
        id->v[TID_DIRECTION] = "idle_gap";
        SET_COUNT(id, gap);
        SET_DEVICE(id, a->idle_gaps[gap].device);
    } else {
        region_ids(a->m, a->listed[gap - a->host->ngaps], id);
        id->v[TID_DIRECTION] = "host_busy";
    }
    id->v[TID_NAME] = host_from_key(v->from);
    id->v[TID_HOST] = v->hot.name[0] ? v->hot.name : NULL;
}

/* A view's frames: its hot one, the user's line, then the innermost ones. */
static int fn_count(const table_at *at) { return 2 + view_of(at->a, at->parent)->ntop; }
static const host_fn *fn_of(const table_at *at, int i)
{
    const host_view *v = view_of(at->a, at->parent);
    return i == 0 ? &v->hot : i == 1 ? &v->user : &v->top[i - 2];
}
static const void *fn_row(const table_at *at, int i) { return fn_of(at, i)->name[0] ? fn_of(at, i) : NULL; }
/* the view's ids, name "py.hot", "py.user_line" or "py.innermost", host the frame */
static void fn_ids(const table_at *at, int i, table_ids *id)
{
    const host_view *v = view_of(at->a, at->parent);
    *id = *at->up;
    snprintf(id->pair, sizeof id->pair, "%s.%s", host_from_key(v->from),
             i == 0 ? "hot" : i == 1 ? "user_line" : "innermost");
    id->v[TID_NAME] = id->pair;
    id->v[TID_HOST] = fn_of(at, i)->name;
}

/* The call sites: a grouping per target (kernel, copy or call), a row per site of it. */
static int target_count(const table_at *at) { return at->a->host ? at->a->host->nsites : 0; }
static const void *target_row(const table_at *at, int i) { return &at->a->host->sites[i]; }
static int site_count(const table_at *at) { return at->a->host->sites[at->parent].nsites; }
static const void *site_row(const table_at *at, int i) { return &at->a->host->sites[at->parent].sites[i]; }
/* name the target, direction its kind, count its calls with a site, host the line */
static void site_ids(const table_at *at, int i, table_ids *id)
{
    const call_site_row *t = &at->a->host->sites[at->parent];
    id->v[TID_NAME] = t->name;
    id->v[TID_DIRECTION] = t->kind;
    SET_COUNT(id, t->calls);
    id->v[TID_HOST] = t->sites[i].at;
}

/* ---------- wall-time accounts (accounts.h) ---------- */

static int account_count(const table_at *at) { return at->a->naccounts; }
static const void *account_row_of(const table_at *at, int i) { return &at->a->accounts[i]; }
/* its region's columns where it has one, name its name, direction its scope, count its
 * instances, host its verdict */
static void account_ids(const table_at *at, int i, table_ids *id)
{
    const wall_account *acc = &at->a->accounts[i];
    if (acc->region >= 0)
        region_ids(at->a->m, acc->region, id);
    id->v[TID_NAME] = acc->name;
    id->v[TID_DIRECTION] = account_scope_name(acc->scope);
    SET_COUNT(id, acc->instances);
    id->v[TID_HOST] = verdict_name(acc->verdict);
}

static int state_count(const table_at *at) { return at->a->accounts[at->parent].nrows; }
static const void *state_row(const table_at *at, int i) { return &at->a->accounts[at->parent].rows[i]; }
/* name the state, direction the account's scope, count the account's index among the account
 * rows, host its cause's words and the user's line */
static void state_ids(const table_at *at, int i, table_ids *id)
{
    const wall_account *acc = &at->a->accounts[at->parent];
    const account_row *r = &acc->rows[i];
    snprintf(id->text, sizeof id->text, "%s%s%s", r->why, r->at[0] ? " at " : "", r->at);
    id->v[TID_NAME] = wall_states[r->state].key;
    id->v[TID_DIRECTION] = account_scope_name(acc->scope);
    SET_COUNT(id, at->parent);
    id->v[TID_HOST] = id->text;
}

static int cause_count(const table_at *at) { return at->a->accounts[at->parent].ncauses; }
static const void *cause_row(const table_at *at, int i) { return &at->a->accounts[at->parent].causes[i]; }
/* name the cause, direction its state, count the account's index, host its words and line */
static void cause_ids(const table_at *at, int i, table_ids *id)
{
    const host_cause_row *h = &at->a->accounts[at->parent].causes[i];
    snprintf(id->text, sizeof id->text, "%s%s%s", h->why, h->at[0] ? " at " : "", h->at);
    id->v[TID_NAME] = h->cause[0] ? h->cause : "not_known";
    id->v[TID_DIRECTION] = host_cause_state_key(h);
    SET_COUNT(id, at->parent);
    id->v[TID_HOST] = id->text;
}

/* ---------- groups, streams, capture windows, a sweep ---------- */

static int group_count(const table_at *at) { return at->a->ngroups; }
static const void *group_row(const table_at *at, int i) { return &at->a->groups[i]; }
/* region_index, region and region_kind its median instance, name the group ("step *"), count
 * its instances, direction its NVTX domain, host the median instance's verdict */
static void group_ids(const table_at *at, int i, table_ids *id)
{
    const range_group *g = &at->a->groups[i];
    region_ids(at->a->m, g->median, id);
    id->v[TID_NAME] = g->name;
    SET_COUNT(id, g->count);
    id->v[TID_DIRECTION] = g->domain;
    id->v[TID_HOST] = verdict_name(at->a->rg[g->median].verdict);
}

static int stream_count(const table_at *at) { return at->a->nstreams; }
static const void *stream_row(const table_at *at, int i) { return &at->a->streams[i]; }
/* name "stream N", device its GPU, count its kernels, copies and memsets together */
static void stream_ids(const table_at *at, int i, table_ids *id)
{
    const stream_metrics *st = &at->a->streams[i];
    snprintf(id->text, sizeof id->text, "stream %u", st->stream);
    id->v[TID_NAME] = id->text;
    SET_DEVICE(id, st->device);
    SET_COUNT(id, st->nkernels + st->ncopies + st->nmemsets);
}

static int capture_count(const table_at *at) { return at->a->ncapture; }
static const void *capture_row(const table_at *at, int i) { return &at->a->capture[i]; }
/* the window's region's columns, name "window N", direction how it began, host how it ended */
static void capture_ids(const table_at *at, int i, table_ids *id)
{
    const capture_window *w = &at->a->m->capture.windows[at->a->capture[i].window];
    if (w->region >= 0)
        region_ids(at->a->m, w->region, id);
    snprintf(id->text, sizeof id->text, "window %d", w->number);
    id->v[TID_NAME] = id->text;
    id->v[TID_DIRECTION] = w->began;
    id->v[TID_HOST] = w->ended;
}

/* A sweep's points: every series at every size. */
static int point_count(const table_at *at)
{
    const sweep_analysis *s = at->a->sweep;
    return s ? s->nseries * s->nsizes : 0;
}
static const void *point_row(const table_at *at, int i)
{
    const sweep_analysis *s = at->a->sweep;
    return &s->series[i / s->nsizes].pts[i % s->nsizes];
}
/* name the workload, host_memory its memory, n the size */
static void point_ids(const table_at *at, int i, table_ids *id)
{
    const sweep_analysis *s = at->a->sweep;
    const sweep_series *r = &s->series[i / s->nsizes];
    id->v[TID_NAME] = r->name;
    id->v[TID_HOST_MEMORY] = r->mem == MEM_UNKNOWN ? NULL : mem_kind_name(r->mem);
    SET_N(id, r->pts[i % s->nsizes].n);
}

static int cross_count(const table_at *at) { return at->a->sweep ? at->a->sweep->ncross : 0; }
static const void *cross_row(const table_at *at, int i) { return &at->a->sweep->cross[i]; }
/* name the workload past it, host_memory its memory, direction its basis, host its kind */
static void cross_ids(const table_at *at, int i, table_ids *id)
{
    const crossover *c = &at->a->sweep->cross[i];
    id->v[TID_NAME] = c->workload;
    id->v[TID_HOST_MEMORY] = mem_kind_name(c->mem);
    id->v[TID_DIRECTION] = c->e2e ? "e2e" : "kernel";
    id->v[TID_HOST] = cross_kind_names[c->kind];
}

/* ---------- GPU memory (memory.h) ---------- */

static bool has_memory(const analysis *a) { return a->memory != NULL; }

/* Ids of a memory row of process pid on device: device its GPU, count its pid. */
static void pid_device_ids(table_ids *id, uint32_t pid, uint32_t device)
{
    SET_DEVICE(id, device);
    SET_COUNT(id, pid);
}

static int series_count(const table_at *at) { return at->a->memory ? at->a->memory->nseries : 0; }
static const void *series_row(const table_at *at, int i) { return &at->a->memory->series[i]; }
/* per process and device: name "pid N" ("device" for the device's own series) */
static void series_ids(const table_at *at, int i, table_ids *id)
{
    const mem_series *s = &at->a->memory->series[i];
    pid_device_ids(id, s->pid, s->device);
    if (s->device_only)
        snprintf(id->text, sizeof id->text, "device");
    else
        snprintf(id->text, sizeof id->text, "pid %u", s->pid);
    id->v[TID_NAME] = id->text;
}

/* Holders: arg 0 a series' call sites at its peak ("by_site"), 1 its libraries ("by_allocator"),
 * 2 a failure's live set ("at_failure"). */
enum { HOLD_BY_SITE, HOLD_BY_ALLOCATOR, HOLD_AT_FAILURE };
static void holder_span(const table_at *at, int *first, int *n)
{
    const memory_analysis *x = at->a->memory;
    if (at->arg == HOLD_AT_FAILURE) {
        *first = x->failures[at->parent].first_holder, *n = x->failures[at->parent].nholders;
        return;
    }
    const mem_series *s = &x->series[at->parent];
    *first = at->arg == HOLD_BY_SITE ? s->first_holder : s->first_lib;
    *n = at->arg == HOLD_BY_SITE ? s->nholders : s->nlibs;
}
static int holder_count(const table_at *at)
{
    int first, n;
    holder_span(at, &first, &n);
    return n;
}
static const void *holder_row(const table_at *at, int i)
{
    int first, n;
    holder_span(at, &first, &n);
    return &at->a->memory->holders[first + i];
}
/* the series' or failure's ids, name the call site, direction how it holds, host the library */
static void holder_ids(const table_at *at, int i, table_ids *id)
{
    static const char *const how[] = {"by_site", "by_allocator", "at_failure"};
    const mem_holder *h = holder_row(at, i);
    *id = *at->up;
    id->v[TID_NAME] = h->at;
    id->v[TID_DIRECTION] = how[at->arg];
    id->v[TID_HOST] = h->allocator;
}

static int mpoint_count(const table_at *at) { return at->a->memory->series[at->parent].npoints; }
static const void *mpoint_row(const table_at *at, int i)
{
    return &at->a->memory->points[at->a->memory->series[at->parent].first_point + i];
}
/* the series' ids, direction "timeline" */
static void mpoint_ids(const table_at *at, int i, table_ids *id)
{
    (void)at, (void)i;
    *id = *at->up;
    id->v[TID_DIRECTION] = "timeline";
}

static int leak_count(const table_at *at) { return at->a->memory ? at->a->memory->nleaks : 0; }
static const void *leak_row(const table_at *at, int i) { return &at->a->memory->leaks[i]; }
/* name the site, direction the step range, host the library */
static void leak_ids(const table_at *at, int i, table_ids *id)
{
    const mem_leak *l = &at->a->memory->leaks[i];
    pid_device_ids(id, l->pid, l->device);
    id->v[TID_NAME] = l->at;
    id->v[TID_DIRECTION] = l->step;
    id->v[TID_HOST] = l->allocator;
}

static int mrange_count(const table_at *at) { return at->a->memory ? at->a->memory->nranges : 0; }
static const void *mrange_row(const table_at *at, int i) { return &at->a->memory->ranges[i]; }
/* a range's region's columns, or name the group */
static void mrange_ids(const table_at *at, int i, table_ids *id)
{
    const mem_range *r = &at->a->memory->ranges[i];
    if (r->region >= 0)
        region_ids(at->a->m, r->region, id);
    else
        id->v[TID_NAME] = r->name;
}

static int failure_count(const table_at *at) { return at->a->memory ? at->a->memory->nfailures : 0; }
static const void *failure_row(const table_at *at, int i) { return &at->a->memory->failures[i]; }
/* name the call, direction its error, host its site, count the pid, device its GPU */
static void failure_ids(const table_at *at, int i, table_ids *id)
{
    const mem_failure_row *f = &at->a->memory->failures[i];
    pid_device_ids(id, f->pid, f->device);
    id->v[TID_NAME] = f->api;
    id->v[TID_DIRECTION] = f->error;
    id->v[TID_HOST] = f->at;
}

/* ---------- the declarations ---------- */

#define TOP NULL
const table_decl table_run = {"run", &run_metric_table, TOP, 0, one, run_row, NULL, NULL, "analysis",
                                 "one", 0, 0, "the run as a whole (its fastest copies)"};
const table_decl table_region = {"region", &region_metric_table, TOP, 0, region_count, region_row, region_row_ids,
                                    NULL, "analysis.regions", "timeline", 0, 0, "a region: the run, a workload, an NVTX range"};
const table_decl table_listed = {"listed_region", NULL, TOP, 0, listed_count, listed_row, listed_ids, NULL, NULL,
                                    "the run, then the workloads or the longest ranges (analysis.listed)", 0, 0,
                                    "a region the reports list (no row: its kernels, copies and calls are)"};
const table_decl table_kernel = {"kernel", &kernel_stat_table, &table_listed, 0, kernel_count, kernel_row, kernel_ids,
                                    NULL, "analysis.regions[listed].kernel_stats", "GPU time, largest first", 15, 50,
                                    "a kernel name in a listed region"};
const table_decl table_copy = {"copy", &copy_flow_table, &table_listed, 0, copy_count, copy_row, copy_ids, NULL,
                                  "analysis.regions[listed].copy_flows", "direction, then memory kind", 0, 0,
                                  "the copies of one direction and memory kind (or the memsets) in a listed region"};
const table_decl table_api = {"api", &api_stat_table, &table_listed, 0, api_count, api_row, api_ids, NULL, "analysis.regions[listed].api_stats",
                                 "time in the call, largest first", 10, 25, "a CUDA API call name in a listed region"};
const table_decl table_workload = {"workload", &workload_metric_table, TOP, 0, workload_count, workload_row,
                                      workload_ids, NULL, "builtin.workloads[].metrics", "run order", 0, 0,
                                      "a built-in workload's per-product figures"};
const table_decl table_device = {"device", &device_peaks_table, TOP, 0, device_count, device_row, device_ids, NULL,
                                    "analysis.device_peaks", "device index", 0, 0, "a GPU's peaks"};
const table_decl table_gpus = {"gpus", &devices_run_table, TOP, 0, gpus_count, gpus_row, NULL, NULL,
                                  "analysis.devices", "one", 0, 0, "a --devices run's passes as a whole"};
const table_decl table_gpu_wl = {"gpu_workload", &device_workload_table, TOP, 0, gpu_wl_count, gpu_wl_row,
                                    gpu_wl_ids, NULL, "analysis.devices.workloads", "workload, then GPU", 0, 0,
                                    "a workload on one GPU, alone and with the others"};
const table_decl table_gpu_agg = {"gpu_aggregate", &device_aggregate_table, TOP, 0, gpu_agg_count, gpu_agg_row,
                                     gpu_agg_ids, NULL, "analysis.devices.aggregate", "run order", 0, 0,
                                     "a workload over every GPU"};
const table_decl table_gpu_pass = {"gpu_pass", &device_pass_table, TOP, 0, gpu_pass_count, gpu_pass_row,
                                      gpu_pass_ids, NULL, "analysis.devices.passes", "device index", 0, 0,
                                      "a GPU's share of the two passes"};
const table_decl table_peer = {"peer", &peer_table, TOP, 0, peer_count, peer_row_of, peer_ids, NULL,
                                  "analysis.devices.peers", "source, then destination", 0, 0,
                                  "an ordered pair of GPUs (the peer matrix)"};
const table_decl table_rank = {"rank", &rank_share_table, TOP, 0, rank_count, rank_row, rank_ids, NULL,
                                  "analysis.ranks.rows", "rank", 0, 0, "a rank of a job"};
const table_decl table_rank_gpu = {"rank_gpu", &rank_share_table, TOP, 1, rank_count, rank_row, rank_ids, NULL,
                                      "analysis.ranks.gpus", "GPU", 0, 0, "a GPU of a job"};
const table_decl table_straggler = {"straggler", &straggler_table, TOP, 0, straggler_count, straggler_row,
                                       straggler_ids, NULL, "analysis.ranks.stragglers", "spread, largest first", 12,
                                       40, "an NVTX range whose ranks finished apart"};
const table_decl table_launch = {"launch", &launch_counter_table, TOP, 0, launch_count, launch_row, launch_ids,
                                    NULL, "analysis.launch_counters", "launch order", 40, 0,
                                    "a launch profile --counters profiled"};
const table_decl table_busy = {"busy_span", &busy_span_table, TOP, 0, busy_count, busy_row, busy_ids, NULL,
                                  "analysis.busy_series", "device, then time", 0, 0,
                                  "a stretch of GPU activity over time"};
const table_decl table_gap = {"idle_gap", &idle_gap_table, TOP, 0, gap_count, gap_row, gap_ids, NULL,
                                 "analysis.idle_gaps", "length, longest first", 0, 0, "a listed idle stretch of a GPU"};
const table_decl table_share = {"idle_breakdown", &idle_share_table, TOP, 0, share_count, share_row, share_ids,
                                   NULL, "analysis.idle_breakdown", "listed region, then cause", 0, 0,
                                   "a listed region's idle time of one cause"};
const table_decl table_sampling = {"host_sampling", &host_collection_table, TOP, 0, sampling_count, sampling_row,
                                      sampling_ids, NULL, "analysis.host_sampling", "one", 0, 0,
                                      "how the host was seen"};
const table_decl table_view = {"host_view", &host_view_table, TOP, 0, view_count, view_row, view_ids, NULL,
                                  "analysis.idle_gaps[].host, analysis.idle_breakdown[].host", "idle stretch, then listed region; source", 0, 0,
                                  "what one source saw of the host in an idle stretch or a region's host-busy time"};
const table_decl table_fn = {"host_function", &host_fn_table, &table_view, 0, fn_count, fn_row, fn_ids, NULL,
                                "hot, user_line, innermost", "hot, the user's line, then innermost", 0, 0,
                                "a frame a host view names"};
const table_decl table_target = {"call_target", NULL, TOP, 0, target_count, target_row, NULL, NULL, NULL,
                                    "calls with a site, most first", 0, 0,
                                    "a kernel, copy or call made from a line (no row: its sites are)"};
const table_decl table_site = {"call_site", &call_site_table, &table_target, 0, site_count, site_row, site_ids, NULL,
                                  "analysis.call_sites[].sites", "calls, most first", 0, 0,
                                  "a line a kernel, copy or call was made from"};
const table_decl table_account = {"account", &account_table, TOP, 0, account_count, account_row_of, account_ids,
                                     NULL, "analysis.wall_accounts", "the run, its processes, then steps", 0, 0,
                                     "a wall-time account"};
const table_decl table_state = {"account_state", &account_row_table, &table_account, 0, state_count, state_row,
                                   state_ids, NULL, "states", "share, largest first", 0, 0,
                                   "a state of a wall-time account"};
const table_decl table_cause = {"account_cause", &account_cause_table, &table_account, 0, cause_count, cause_row,
                                   cause_ids, NULL, "host_causes", "time, largest first", 0, 0,
                                   "a host cause in a wall-time account"};
const table_decl table_group = {"range_group", &range_group_table, TOP, 0, group_count, group_row, group_ids, NULL,
                                   "analysis.range_groups", "total time, largest first", 0, 0,
                                   "NVTX ranges or annotations of one name"};
const table_decl table_stream = {"stream", &stream_table, TOP, 0, stream_count, stream_row, stream_ids, NULL,
                                    "analysis.streams", "device, then stream", 0, 0, "a stream with GPU work"};
const table_decl table_capture = {"capture", &capture_table, TOP, 0, capture_count, capture_row, capture_ids, NULL,
                                     "analysis.capture.windows", "time", 0, 0, "a capture window"};
const table_decl table_wl_kernel = {"workload_kernel", &kernel_summary_table, &table_workload, 0, wl_kernel_count,
                                       wl_kernel_row, wl_kernel_ids, NULL, "kernels", "launch order", 0, 0,
                                       "a kernel a built-in workload launched"};
const table_decl table_point = {"sweep_point", &sweep_point_table, TOP, 0, point_count, point_row, point_ids, NULL,
                                   "analysis.sweep.series[].points", "series, then size", 0, 0,
                                   "a sweep series at one size"};
const table_decl table_cross = {"crossover", &crossover_table, TOP, 0, cross_count, cross_row, cross_ids, NULL,
                                   "analysis.sweep.crossovers", "pinned e2e, pageable e2e, pinned kernel, pageable kernel",
                                   0, 0, "a size where the GPU starts to beat the CPU"};
const table_decl table_memory = {"memory", &memory_series_table, TOP, 0, series_count, series_row, series_ids,
                                    has_memory, "analysis.memory.series", "process, then device", 0, 0,
                                    "GPU memory of a process on a device"};
const table_decl table_holder_site = {"memory_holder", &memory_holder_table, &table_memory, HOLD_BY_SITE, holder_count,
                                         holder_row, holder_ids, has_memory, "holders", "bytes, most first", 0, 0,
                                         "a call site's memory live at a series' peak"};
const table_decl table_holder_lib = {"memory_holder", &memory_holder_table, &table_memory, HOLD_BY_ALLOCATOR,
                                        holder_count, holder_row, holder_ids, has_memory, "allocators",
                                        "bytes, most first", 0, 0, "a library's memory live at a series' peak"};
const table_decl table_mpoint = {"memory_point", &memory_point_table, &table_memory, 0, mpoint_count, mpoint_row,
                                    mpoint_ids, has_memory, "timeline", "time", 0, 0, "a point of a series' timeline"};
const table_decl table_leak = {"memory_leak", &memory_leak_table, TOP, 0, leak_count, leak_row, leak_ids,
                                  has_memory, "analysis.memory.never_freed", "bytes, most first", 0, 0,
                                  "a call site whose memory was never freed"};
const table_decl table_mrange = {"memory_range", &memory_range_table, TOP, 0, mrange_count, mrange_row, mrange_ids,
                                    has_memory, "analysis.memory.ranges", "listed regions, then groups", 0, 0,
                                    "a range's or group's peak and growth"};
const table_decl table_failure = {"memory_failure", &memory_failure_table, TOP, 0, failure_count, failure_row,
                                     failure_ids, has_memory, "analysis.memory.failures", "time", 0, 0,
                                     "a failed allocation"};
const table_decl table_holder_fail = {"memory_holder", &memory_holder_table, &table_failure, HOLD_AT_FAILURE,
                                         holder_count, holder_row, holder_ids, has_memory, "holders",
                                         "bytes, most first", 0, 0, "memory live at a failed allocation"};

const table_decl *const report_tables[] = {
    &table_run, &table_region, &table_listed, &table_kernel, &table_copy, &table_api, &table_workload, &table_device, &table_gpus, &table_gpu_wl,
    &table_gpu_agg, &table_gpu_pass, &table_peer, &table_rank, &table_rank_gpu, &table_straggler, &table_launch, &table_busy, &table_gap, &table_share,
    &table_sampling, &table_view, &table_fn, &table_target, &table_site, &table_account, &table_state, &table_cause, &table_group, &table_stream,
    &table_capture, &table_wl_kernel, &table_point, &table_cross, &table_memory, &table_holder_site, &table_holder_lib, &table_mpoint, &table_leak,
    &table_mrange, &table_failure, &table_holder_fail,
};
const int report_ntables = (int)(sizeof report_tables / sizeof report_tables[0]);
_Static_assert(sizeof report_tables / sizeof report_tables[0] <= TABLES_MAX, "raise TABLES_MAX");

const table_decl *table_named(const char *name)
{
    for (int i = 0; i < report_ntables; i++)
        if (strcmp(report_tables[i]->name, name) == 0)
            return report_tables[i];
    return NULL;
}

const table_decl *table_of_figures(const metric_table *t)
{
    for (int i = 0; i < report_ntables; i++)
        if (report_tables[i]->figures == t)
            return report_tables[i];
    return NULL;
}

int table_shown(const table_decl *d, int n, bool page)
{
    int limit = page ? d->page_shown : d->shown;
    return limit > 0 && n > limit ? limit : n;
}

/* ---------- the walk ---------- */

typedef struct {
    const analysis *a;
    table_row_fn fn;
    void *ctx;
} walk;

static bool walk_table(const walk *w, const table_decl *d, int parent, const table_ids *up)
{
    table_at at = {w->a, parent, d->arg, up};
    int n = d->count(&at);
    for (int i = 0; i < n; i++) {
        const void *row = d->row(&at, i);
        if (!row)
            continue;
        /* its ids, once: for fn, and for the rows under it to start from */
        table_ids ids;
        memset(&ids, 0, sizeof ids);
        if (d->ids)
            d->ids(&at, i, &ids);
        if (d->figures && !w->fn(w->ctx, d, &ids, row))
            return false;
        for (int k = 0; k < report_ntables; k++)
            if (report_tables[k]->parent == d && !walk_table(w, report_tables[k], i, &ids))
                return false;
    }
    return true;
}

bool table_walk(const analysis *a, table_row_fn fn, void *ctx)
{
    walk w = {a, fn, ctx};
    for (int k = 0; k < report_ntables; k++)
        if (!report_tables[k]->parent && !walk_table(&w, report_tables[k], -1, NULL))
            return false;
    return true;
}
