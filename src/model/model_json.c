/* Run model <-> JSON. The writer and the reader sit side by side so that a field added to one is
 * seen missing from the other; the round-trip test reads back what was written and compares.
 *
 * The document (schema_version 3): the header (schema, versions, command line, source), host,
 * collection, devices, counters, the built-in run's section ("builtin": settings, BLAS, tool phases,
 * workloads, peer matrix), regions, processes, threads, warnings, launch counters, the host
 * activity and the memory activity (host_json.c, memory_json.c: written only where a run has them),
 * and last the event store ("events"), which is nearly all of a file. Versions 1 and 2 kept the built-in
 * settings at the top and each workload's events inside it; the reader still takes them. */
#include "model_json.h"
#include "host_json.h"
#include "memory_json.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_columns.h"
#include "json_stream.h"
#include "member_drop.h"
#include "source.h"
#include "spill.h"
#include "trace_input.h"

#define RUN_SCHEMA_NAME "mmprof-run"

/* ---------- writing ---------- */

/* Each adder returns false when memory ran out; callers chain them with && and drop the whole
 * tree on the first failure. */
static bool ok_add(cJSON *obj, const char *key, cJSON *item)
{
    if (!item)
        return false;
    if (!cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

static bool add_num(cJSON *o, const char *k, double v) { return ok_add(o, k, cJSON_CreateNumber(v)); }
static bool add_str(cJSON *o, const char *k, const char *v) { return ok_add(o, k, cJSON_CreateString(v ? v : "")); }
static bool add_bool(cJSON *o, const char *k, bool v) { return ok_add(o, k, cJSON_CreateBool(v)); }
static bool add_str_or_null(cJSON *o, const char *k, const char *v)
{
    return ok_add(o, k, (v && v[0]) ? cJSON_CreateString(v) : cJSON_CreateNull());
}
static bool add_int3(cJSON *o, const char *k, const int v[3])
{
    return ok_add(o, k, cJSON_CreateIntArray(v, 3));
}

/* Every object builder ends the same way: the object, or NULL (and nothing leaked) when an adder
 * ran out of memory. */
static cJSON *built(cJSON *o, bool ok)
{
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static bool add_time(cJSON *o, const char *k, int64_t t, int64_t epoch)
{
    return add_num(o, k, (double)(t - epoch));
}

/* The owner (event_owner in model.h) is written only where it is not the run, as most events of
 * a program or trace are: a file without "region" reads as owned by the run. */
static bool add_region(cJSON *o, int region)
{
    return region == 0 || add_num(o, "region", region);
}

/* One writer per event type. */
static cJSON *kernel_json(const kernel_event *k, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_str(o, "name", k->name) && add_time(o, "start_ns", k->start_ns, epoch) &&
              add_time(o, "end_ns", k->end_ns, epoch) && add_num(o, "pid", k->pid) && add_num(o, "device", k->device) &&
              add_num(o, "stream", k->stream) && add_num(o, "correlation", k->correlation) &&
              add_int3(o, "grid", k->grid) && add_int3(o, "block", k->block);
    if (ok && k->has_resources)
        ok = add_num(o, "registers", k->registers) && add_num(o, "static_smem", k->static_smem) &&
             add_num(o, "dynamic_smem", k->dynamic_smem) && add_bool(o, "smem_optin", k->smem_optin) &&
             add_num(o, "local_mem", k->local_mem);
    else if (ok)
        ok = ok_add(o, "registers", cJSON_CreateNull()) && ok_add(o, "static_smem", cJSON_CreateNull()) &&
             ok_add(o, "dynamic_smem", cJSON_CreateNull());
    ok = ok && add_region(o, k->region);
    return built(o, ok);
}

static cJSON *copy_json(const copy_event *c, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_str(o, "dir", copy_dir_name(c->dir)) && add_str(o, "src", mem_kind_name(c->src)) &&
              add_str(o, "dst", mem_kind_name(c->dst)) && add_num(o, "bytes", (double)c->bytes) &&
              add_time(o, "start_ns", c->start_ns, epoch) && add_time(o, "end_ns", c->end_ns, epoch) &&
              add_num(o, "pid", c->pid) && add_num(o, "device", c->device) && add_num(o, "stream", c->stream) &&
              add_num(o, "correlation", c->correlation);
    ok = ok && add_region(o, c->region);
    return built(o, ok);
}

static cJSON *memset_json(const memset_event *s, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_str(o, "mem", mem_kind_name(s->mem)) && add_num(o, "bytes", (double)s->bytes) &&
              add_time(o, "start_ns", s->start_ns, epoch) && add_time(o, "end_ns", s->end_ns, epoch) &&
              add_num(o, "pid", s->pid) && add_num(o, "device", s->device) && add_num(o, "stream", s->stream) &&
              add_num(o, "correlation", s->correlation);
    ok = ok && add_region(o, s->region);
    return built(o, ok);
}

static cJSON *api_json(const api_event *a, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_str(o, "name", a->name) && add_str(o, "kind", api_kind_name(a->kind)) &&
              add_time(o, "start_ns", a->start_ns, epoch) && add_time(o, "end_ns", a->end_ns, epoch) &&
              add_num(o, "pid", a->pid) && add_num(o, "thread", a->thread) && add_num(o, "correlation", a->correlation);
    ok = ok && add_region(o, a->region);
    return built(o, ok);
}

static cJSON *sync_json(const sync_event *s, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_str(o, "kind", sync_kind_name(s->kind)) && add_time(o, "start_ns", s->start_ns, epoch) &&
              add_time(o, "end_ns", s->end_ns, epoch) && add_num(o, "pid", s->pid) &&
              add_num(o, "thread", s->thread) && add_num(o, "stream", s->stream) &&
              add_num(o, "correlation", s->correlation);
    ok = ok && add_region(o, s->region);
    return built(o, ok);
}

static cJSON *occ_json(const occupancy_check *c)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_str(o, "kernel", c->kernel) && add_num(o, "block_size", c->block_size) &&
              add_num(o, "dynamic_smem", c->dynamic_smem) && add_num(o, "registers", c->registers) &&
              add_num(o, "static_smem", c->static_smem) &&
              add_num(o, "runtime_blocks_per_sm", c->runtime_blocks_per_sm);
    return built(o, ok);
}

/* An array of n elements, element i built by make(ctx, i, epoch). */
typedef cJSON *(*element_maker)(const void *ctx, size_t i, int64_t epoch);

static cJSON *array_of(size_t n, element_maker make, const void *ctx, int64_t epoch)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) {
        cJSON *item = make(ctx, i, epoch);
        if (!item || !cJSON_AddItemToArray(arr, item)) {
            cJSON_Delete(item);
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

/* Element makers: ctx is the array the elements come from. */
static cJSON *make_kernel(const void *a, size_t i, int64_t e) { return kernel_json(&((const kernel_event *)a)[i], e); }
static cJSON *make_copy(const void *a, size_t i, int64_t e) { return copy_json(&((const copy_event *)a)[i], e); }
static cJSON *make_memset(const void *a, size_t i, int64_t e) { return memset_json(&((const memset_event *)a)[i], e); }
static cJSON *make_api(const void *a, size_t i, int64_t e) { return api_json(&((const api_event *)a)[i], e); }
static cJSON *make_sync(const void *a, size_t i, int64_t e) { return sync_json(&((const sync_event *)a)[i], e); }
static cJSON *make_occ(const void *a, size_t i, int64_t e) { (void)e; return occ_json(&((const occupancy_check *)a)[i]); }
static cJSON *make_phase(const void *a, size_t i, int64_t e)
{
    const phase *p = &((const phase *)a)[i];
    cJSON *o = cJSON_CreateObject();
    return built(o, o && add_str(o, "name", p->name) && add_time(o, "start_ns", p->start_ns, e) &&
                        add_time(o, "end_ns", p->end_ns, e));
}
static cJSON *make_product_ms(const void *a, size_t i, int64_t e)
{
    (void)e;
    return cJSON_CreateNumber(((const double *)a)[i]);
}

/* A figure NVML did not give (-1) is null. */
static bool add_int_or_null(cJSON *o, const char *k, int v)
{
    return ok_add(o, k, v >= 0 ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static cJSON *reading_json(const device_reading *r)
{
    cJSON *o = cJSON_CreateObject();
    return built(o, o && add_int_or_null(o, "sm_clock_mhz", r->sm_mhz) &&
                        add_int_or_null(o, "mem_clock_mhz", r->mem_mhz) &&
                        add_int_or_null(o, "power_mw", r->power_mw) && add_int_or_null(o, "temp_c", r->temp_c));
}

/* Clock event reasons as the bitmask (what the reader takes) and their names (for people). */
static bool add_reasons(cJSON *o, const char *mask_key, const char *names_key, uint64_t mask)
{
    cJSON *names = cJSON_CreateArray();
    for (int b = 0; names && b < 64; b++) {
        if (!(mask & (1ull << b)))
            continue;
        char unknown[16];
        cJSON *item = cJSON_CreateString(clock_reason_label(b, unknown));
        if (!item || !cJSON_AddItemToArray(names, item)) {
            cJSON_Delete(item);
            cJSON_Delete(names);
            return false;
        }
    }
    return add_num(o, mask_key, (double)mask) && ok_add(o, names_key, names);
}

static cJSON *with_reasons(cJSON *reading, uint64_t mask)
{
    return built(reading, reading && add_reasons(reading, "clock_event_mask", "clock_event_reasons", mask));
}

static cJSON *device_state_json(const device_state *d)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_bool(o, "valid", d->valid) && add_str_or_null(o, "reason", d->reason);
    if (ok && d->valid) {
        int npids = 0;
        while (npids < DEVICE_STATE_MAX_PIDS && d->other_pid[npids])
            npids++;
        ok = add_int_or_null(o, "sm_clock_max_mhz", d->sm_clock_max_mhz) &&
             add_int_or_null(o, "mem_clock_max_mhz", d->mem_clock_max_mhz) &&
             ok_add(o, "power_limit_mw", d->power_limit_mw > 0 ? cJSON_CreateNumber(d->power_limit_mw) : cJSON_CreateNull()) &&
             add_num(o, "samples", d->samples) &&
             ok_add(o, "before", with_reasons(reading_json(&d->before), d->before_reasons)) &&
             ok_add(o, "after", with_reasons(reading_json(&d->after), d->after_reasons)) &&
             ok_add(o, "low", reading_json(&d->low)) && ok_add(o, "high", reading_json(&d->high)) &&
             add_int_or_null(o, "busy_sm_clock_min_mhz", d->busy_sm_min_mhz) &&
             add_reasons(o, "clock_event_mask", "clock_event_reasons", d->reasons) &&
             add_num(o, "other_processes", d->other_pids) &&
             ok_add(o, "other_pids", cJSON_CreateIntArray((const int *)d->other_pid, npids));
    }
    return built(o, ok);
}

/* One kernel's counters: its name and every counter by key, null where it was not collected. */
static cJSON *make_counters(const void *a, size_t i, int64_t e)
{
    (void)e;
    const kernel_counters *k = &((const kernel_counters *)a)[i];
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_str(o, "kernel", k->name);
    for (int c = 0; ok && c < CTR_COUNT; c++)
        ok = ok_add(o, counter_key((counter_id)c), isfinite(k->v[c]) ? cJSON_CreateNumber(k->v[c]) : cJSON_CreateNull());
    return built(o, ok);
}

/* profile --counters: a profiled launch's counters and the launch they belong to. */
static cJSON *make_launch_counters(const void *a, size_t i, int64_t e)
{
    const kernel_counters *k = &((const kernel_counters *)a)[i];
    cJSON *o = make_counters(a, i, e);
    bool ok = o && add_num(o, "pid", k->pid) && add_num(o, "device", k->device) && add_num(o, "correlation", k->correlation);
    return built(o, ok);
}

/* A workload's counter pass: written only where one was asked for, so files without counters
 * stay as they were. */
static bool add_workload_counters(cJSON *o, const workload_run *w)
{
    if (w->ncounters == 0 && !w->counters_why[0])
        return true;
    cJSON *c = cJSON_CreateObject();
    bool ok = c && add_str_or_null(c, "why", w->counters_why) &&
              ok_add(c, "kernels", array_of((size_t)w->ncounters, make_counters, w->counters, 0));
    return ok_add(o, "counters", built(c, ok));
}

static cJSON *workload_json(const workload_run *w, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = add_str(o, "name", w->name) &&
              add_str(o, "host_memory", mem_kind_name(w->host_memory)) &&
              add_bool(o, "needs_gpu", w->needs_gpu) && add_str(o, "precision", precision_name(w->prec)) &&
              add_str(o, "status", status_name(w->status)) &&
              add_str_or_null(o, "status_reason", w->status_reason) &&
              ok_add(o, "device", w->device >= 0 ? cJSON_CreateNumber(w->device) : cJSON_CreateNull()) &&
              add_num(o, "n", w->n) && add_num(o, "repeat", w->repeat) && add_num(o, "launched", w->launched) &&
              add_num(o, "samples", w->samples) &&
              ok_add(o, "noise_pct", w->noise_pct >= 0 ? cJSON_CreateNumber(w->noise_pct) : cJSON_CreateNull()) &&
              add_str_or_null(o, "stopped_by", w->stopped_by != STOP_UNKNOWN ? sample_stop_name(w->stopped_by) : NULL) &&
              add_str(o, "timing", timing_source_name(w->timing)) &&
              ok_add(o, "phases", array_of((size_t)w->nphases, make_phase, w->phases, epoch)) &&
              add_num(o, "region", w->region > 0 ? w->region : -1) &&
              ok_add(o, "product_ms", array_of((size_t)w->nproduct_ms, make_product_ms, w->product_ms, epoch)) &&
              ok_add(o, "occupancy_checks", array_of((size_t)w->nocc, make_occ, w->occ, epoch));
    cJSON *ver = ok ? cJSON_CreateObject() : NULL;
    ok = ok && ver && ok_add(o, "verification", ver) &&
         ok_add(ver, "rel_error", w->verified ? cJSON_CreateNumber(w->rel_error) : cJSON_CreateNull()) &&
         add_num(ver, "bound", w->error_bound);
    /* Only in a --devices run: which pass it ran in. */
    if (ok && w->pass != PASS_ALONE)
        ok = add_str(o, "pass", device_pass_name(w->pass));
    /* Only where it was sampled: CPU workloads and older files have none. */
    if (ok && w->device_state.recorded)
        ok = ok_add(o, "device_state", device_state_json(&w->device_state));
    ok = ok && add_workload_counters(o, w);
    return built(o, ok);
}

static cJSON *device_json(const device_info *d)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_num(o, "index", d->index) && add_str(o, "name", d->name) &&
              add_num(o, "cc_major", d->cc_major) && add_num(o, "cc_minor", d->cc_minor) &&
              add_num(o, "sm_count", d->sm_count) && add_num(o, "clock_khz", d->clock_khz) &&
              add_num(o, "mem_clock_khz", d->mem_clock_khz) && add_num(o, "bus_width_bits", d->bus_width_bits) &&
              add_num(o, "l2_bytes", d->l2_bytes) && add_num(o, "total_mem", (double)d->total_mem) &&
              add_num(o, "free_mem", (double)d->free_mem) &&
              add_num(o, "max_threads_per_sm", d->max_threads_per_sm) &&
              add_num(o, "max_threads_per_block", d->max_threads_per_block) &&
              add_num(o, "max_blocks_per_sm", d->max_blocks_per_sm) && add_num(o, "regs_per_sm", d->regs_per_sm) &&
              add_num(o, "regs_per_block", d->regs_per_block) && add_num(o, "warp_size", d->warp_size) &&
              add_num(o, "smem_per_sm", (double)d->smem_per_sm) &&
              add_num(o, "smem_per_block", (double)d->smem_per_block) &&
              add_num(o, "smem_per_block_optin", (double)d->smem_per_block_optin) &&
              add_num(o, "reserved_smem_per_block", (double)d->reserved_smem_per_block) &&
              add_str(o, "pci_bus_id", d->pci_bus_id) &&
              ok_add(o, "pcie_gen", d->pcie_gen > 0 ? cJSON_CreateNumber(d->pcie_gen) : cJSON_CreateNull()) &&
              ok_add(o, "pcie_width", d->pcie_width > 0 ? cJSON_CreateNumber(d->pcie_width) : cJSON_CreateNull()) &&
              add_str_or_null(o, "pcie_why", d->pcie_why) && add_num(o, "driver_version", d->driver_version) &&
              add_num(o, "runtime_version", d->runtime_version) &&
              (d->memory_bandwidth == 0 || add_num(o, "memory_bandwidth", (double)d->memory_bandwidth));
    return built(o, ok);
}

static cJSON *region_json(const region *g, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_str(o, "name", g->name) &&
              ok_add(o, "domain", g->domain ? cJSON_CreateString(g->domain) : cJSON_CreateNull()) &&
              add_str(o, "kind", region_kind_name(g->kind)) && add_time(o, "start_ns", g->start_ns, epoch) &&
              add_time(o, "end_ns", g->end_ns, epoch) && add_num(o, "pid", g->pid) && add_num(o, "tid", g->tid) &&
              add_num(o, "parent", g->parent) && add_num(o, "workload", g->workload) &&
              add_bool(o, "push_pop", g->push_pop);
    return built(o, ok);
}

static cJSON *make_region(const void *a, size_t i, int64_t e) { return region_json(&((const region *)a)[i], e); }

/* profile's capture windows: what was asked, and each window with its region, reasons and the
 * unrecorded stretches around it (-1: not known). */
static cJSON *make_window(const void *a, size_t i, int64_t e)
{
    const capture_window *w = &((const capture_window *)a)[i];
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_num(o, "region", w->region) && add_num(o, "pid", w->pid) && add_num(o, "number", w->number) &&
              add_time(o, "start_ns", w->start_ns, e) && add_time(o, "end_ns", w->end_ns, e) &&
              add_str(o, "began", w->began) && add_str(o, "began_detail", w->began_detail) &&
              add_str(o, "ended", w->ended) && add_str(o, "ended_detail", w->ended_detail) &&
              add_num(o, "before_ns", (double)w->before_ns) && add_num(o, "after_ns", (double)w->after_ns) &&
              add_num(o, "calls_before", (double)w->calls_before) && add_num(o, "calls_after", (double)w->calls_after);
    return built(o, ok);
}

static cJSON *capture_json(const capture_info *c, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_str(o, "asked", c->asked) &&
              ok_add(o, "windows", array_of((size_t)c->nwindows, make_window, c->windows, epoch));
    return built(o, ok);
}

static cJSON *make_process(const void *a, size_t i, int64_t e)
{
    (void)e;
    const process_info *p = &((const process_info *)a)[i];
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_num(o, "pid", p->pid) && add_str(o, "name", p->name);
    /* Only a process a launcher gave a rank says it (older readers ignore the keys). */
    if (ok && p->rank >= 0)
        ok = add_num(o, "rank", p->rank) && add_num(o, "world_size", p->world_size) &&
             add_num(o, "local_rank", p->local_rank);
    if (ok && p->host[0])
        ok = add_str(o, "host", p->host);
    if (ok && p->records_cut) /* only where true: older readers ignore it */
        ok = cJSON_AddBoolToObject(o, "records_cut", true) != NULL;
    return built(o, ok);
}

static cJSON *make_thread(const void *a, size_t i, int64_t e)
{
    (void)e;
    const thread_info *t = &((const thread_info *)a)[i];
    cJSON *o = cJSON_CreateObject();
    return built(o, o && add_num(o, "pid", t->pid) && add_num(o, "tid", t->tid) && add_str(o, "name", t->name));
}

static cJSON *peer_copy_json(const peer_copy *c)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_bool(o, "measured", c->measured) &&
              ok_add(o, "gbps", c->measured ? cJSON_CreateNumber(c->gbps) : cJSON_CreateNull()) &&
              ok_add(o, "latency_us", c->measured ? cJSON_CreateNumber(c->latency_us) : cJSON_CreateNull()) &&
              add_bool(o, "verified", c->verified) && add_str_or_null(o, "why", c->why);
    return built(o, ok);
}

static cJSON *make_peer(const void *a, size_t i, int64_t e)
{
    (void)e;
    const peer_pair *p = &((const peer_pair *)a)[i];
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_num(o, "src", p->src) && add_num(o, "dst", p->dst) && add_str(o, "link", p->link) &&
              add_str_or_null(o, "link_detail", p->link_detail) && add_bool(o, "can_access_peer", p->can_access_peer) &&
              ok_add(o, "staged", peer_copy_json(&p->copy[PEER_STAGED])) &&
              ok_add(o, "direct", peer_copy_json(&p->copy[PEER_DIRECT]));
    return built(o, ok);
}

/* A --devices run's GPUs and peer matrix (absent from other runs). */
static cJSON *multi_json(const multi_gpu_info *g)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && ok_add(o, "devices", cJSON_CreateIntArray(g->devices, g->ndevices)) &&
              add_num(o, "copy_bytes", (double)g->copy_bytes) && add_num(o, "copy_reps", g->copy_reps) &&
              add_num(o, "latency_bytes", (double)g->latency_bytes) && add_num(o, "latency_reps", g->latency_reps) &&
              add_str_or_null(o, "peer_matrix_why", g->why) &&
              ok_add(o, "peers", array_of((size_t)g->npairs, make_peer, g->pairs, 0));
    return built(o, ok);
}

static cJSON *make_device(const void *a, size_t i, int64_t e) { (void)e; return device_json(&((const device_info *)a)[i]); }
static cJSON *make_warning(const void *a, size_t i, int64_t e) { (void)e; return cJSON_CreateString(((char *const *)a)[i]); }


/* An array member written element by element: each element its own line in a file. */
static bool write_array(json_writer *w, const char *key, size_t n, element_maker make, const void *ctx, int64_t epoch)
{
    bool ok = jw_open_array(w, key);
    for (size_t i = 0; ok && i < n; i++)
        ok = jw_element(w, make(ctx, i, epoch));
    return ok && jw_close(w);
}

/* The decimal text of a 64-bit integer: the seed and the epoch do not fit a JSON number exactly. */
static cJSON *int64_string(int64_t v, bool is_signed)
{
    char buf[32];
    if (is_signed)
        snprintf(buf, sizeof buf, "%lld", (long long)v);
    else
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)(uint64_t)v);
    return cJSON_CreateString(buf);
}

static cJSON *host_json(const host_info *h)
{
    cJSON *o = cJSON_CreateObject();
    return built(o, o && add_str(o, "cpu_model", h->cpu_model) && add_num(o, "logical_cores", h->logical_cores) &&
                        add_bool(o, "avx2", h->has_avx2) && add_bool(o, "avx512f", h->has_avx512f) &&
                        add_str(o, "os", h->os));
}

static cJSON *collection_json(const collection_info *c)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_str(o, "source", timing_source_name(c->source)) && add_str_or_null(o, "reason", c->reason) &&
              add_num(o, "cupti_version", c->cupti_version) && add_num(o, "records", (double)c->records) &&
              add_num(o, "dropped", (double)c->dropped) && add_num(o, "lost_timestamps", (double)c->lost_timestamps) &&
              (c->replayed_kernels == 0 || add_num(o, "replayed_kernels", (double)c->replayed_kernels)) &&
              add_num(o, "overhead_records", (double)c->overhead_records) &&
              add_num(o, "outside_workloads", (double)c->outside_workloads) &&
              add_num(o, "overhead_ns", (double)c->overhead_ns) && add_num(o, "flush_ms", c->flush_ms);
    return built(o, ok);
}

/* Written only where counters were asked for, so other files stay as they were. */
static cJSON *counters_json(const counter_info *c)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_bool(o, "asked", c->asked) &&
              ok_add(o, "passes", c->passes > 0 ? cJSON_CreateNumber(c->passes) : cJSON_CreateNull()) &&
              add_str_or_null(o, "why", c->why) && add_str(o, "kernels", c->kernels) &&
              ok_add(o, "max", c->max > 0 ? cJSON_CreateNumber((double)c->max) : cJSON_CreateNull()) &&
              (!c->from[0] || add_str(o, "from", c->from));
    return built(o, ok);
}

static cJSON *builtin_config_json(const builtin_run *b)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && add_num(o, "n", b->n) && ok_add(o, "seed", int64_string((int64_t)b->seed, false)) &&
              ok_add(o, "repeat", b->repeat_requested > 0 ? cJSON_CreateNumber(b->repeat_requested) : cJSON_CreateNull()) &&
              add_str(o, "host_memory", b->host_memory_requested) &&
              ok_add(o, "sizes", cJSON_CreateIntArray(b->sizes, b->nsizes)) &&
              ok_add(o, "max_noise_pct", b->max_noise_pct > 0 ? cJSON_CreateNumber(b->max_noise_pct) : cJSON_CreateNull()) &&
              ok_add(o, "max_time_s", b->max_time_s > 0 ? cJSON_CreateNumber(b->max_time_s) : cJSON_CreateNull()) &&
              add_bool(o, "cold_l2", b->cold_l2);
    return built(o, ok);
}

static cJSON *blas_json(const blas_info *l)
{
    cJSON *o = cJSON_CreateObject();
    return built(o, o && add_str(o, "config", l->config) && add_str(o, "version", l->version) &&
                        add_str(o, "core", l->core) && add_num(o, "threads", l->threads) &&
                        add_str(o, "library", l->library));
}

/* The built-in run's section: settings, BLAS, the tool's phases, the workloads (each given to
 * hook, which may add to it) and a --devices run's peer matrix. */
static bool write_builtin(json_writer *w, const run_model *m, const model_write_hooks *hooks)
{
    const builtin_run *b = &m->builtin;
    bool ok = jw_open_object(w, "builtin") && jw_member(w, "config", builtin_config_json(b)) &&
              jw_member(w, "blas", blas_json(&b->blas)) &&
              jw_member(w, "gpu_skip_reason", (b->gpu_skip_reason[0] ? cJSON_CreateString(b->gpu_skip_reason)
                                                                      : cJSON_CreateNull())) &&
              jw_member(w, "tool_phases", array_of((size_t)b->ntool_phases, make_phase, b->tool_phases, m->epoch_ns)) &&
              jw_open_array(w, "workloads");
    for (int i = 0; ok && i < b->nworkloads; i++) {
        cJSON *o = workload_json(&b->workloads[i], m->epoch_ns);
        if (o && hooks && hooks->workload && !hooks->workload(o, i, hooks->ctx)) {
            cJSON_Delete(o);
            o = NULL;
        }
        ok = jw_element(w, o);
    }
    ok = ok && jw_close(w);
    if (ok && b->multi.ndevices > 0)
        ok = jw_member(w, "multi_gpu", multi_json(&b->multi));
    return ok && jw_close(w);
}

static bool write_events(json_writer *w, const event_list *e, int64_t epoch)
{
    if (event_columns_fit(e)) /* a long run: the compact form (event_columns.h) */
        return jw_open_object(w, "events") && event_columns_write(w, e, epoch) && jw_close(w);
    return jw_open_object(w, "events") && write_array(w, "kernels", e->nkernels, make_kernel, e->kernels, epoch) &&
           write_array(w, "copies", e->ncopies, make_copy, e->copies, epoch) &&
           write_array(w, "memsets", e->nmemsets, make_memset, e->memsets, epoch) &&
           write_array(w, "apis", e->napis, make_api, e->apis, epoch) &&
           write_array(w, "syncs", e->nsyncs, make_sync, e->syncs, epoch) && jw_close(w);
}

bool model_write(const run_model *m, json_writer *w, const model_write_hooks *hooks)
{
    int64_t epoch = m->epoch_ns;
    bool ok = jw_member(w, "schema", cJSON_CreateString(RUN_SCHEMA_NAME)) &&
              jw_member(w, "schema_version", cJSON_CreateNumber(MMPROF_SCHEMA_VERSION)) &&
              jw_member(w, "tool_version", cJSON_CreateString(m->tool_version)) &&
              jw_member(w, "command_line", cJSON_CreateString(m->command_line ? m->command_line : "")) &&
              jw_member(w, "started_at", cJSON_CreateString(m->started_at)) &&
              jw_member(w, "epoch_ns", int64_string(epoch, true)) &&
              jw_member(w, "source", cJSON_CreateString(run_source_name(m->source))) &&
              jw_member(w, "source_file", m->source_file[0] ? cJSON_CreateString(m->source_file) : cJSON_CreateNull()) &&
              (!m->host.known || jw_member(w, "host", host_json(&m->host))) &&
              jw_member(w, "collection", collection_json(&m->collection)) &&
              write_array(w, "devices", (size_t)m->ndevices, make_device, m->devices, epoch) &&
              (!m->counters.asked || jw_member(w, "counters", counters_json(&m->counters))) &&
              ((!m->capture.asked[0] && m->capture.nwindows == 0) ||
               jw_member(w, "capture", capture_json(&m->capture, epoch))) &&
              (!source_has(m->source, HAS_WORKLOADS) || write_builtin(w, m, hooks)) &&
              write_array(w, "regions", (size_t)m->nregions, make_region, m->regions, epoch) &&
              write_array(w, "processes", (size_t)m->nprocesses, make_process, m->processes, epoch) &&
              write_array(w, "threads", (size_t)m->nthreads, make_thread, m->threads, epoch) &&
              write_array(w, "warnings", (size_t)m->nwarnings, make_warning, m->warnings, epoch) &&
              (m->nlaunch_counters == 0 ||
               write_array(w, "launch_counters", (size_t)m->nlaunch_counters, make_launch_counters, m->launch_counters,
                           epoch)) &&
              host_json_write(&m->host_activity, epoch, w) && memory_json_write(&m->memory, epoch, w) &&
              write_events(w, &m->events, epoch);
    return ok;
}

cJSON *model_to_json(const run_model *m)
{
    json_writer w;
    jw_tree(&w);
    model_write(m, &w, NULL);
    cJSON *root = NULL;
    jw_end(&w, &root);
    return root;
}

char *model_to_text(const run_model *m)
{
    strbuf b;
    sb_init(&b);
    json_writer w;
    jw_text(&w, &b);
    bool ok = model_write(m, &w, NULL);
    ok = jw_end(&w, NULL) && ok;
    if (!ok) {
        sb_free(&b);
        return NULL;
    }
    return sb_finish(&b);
}
/* ---------- reading ---------- */

/* Where the reader is in the tree, for error messages. */
typedef struct {
    char *err;
    size_t errlen;
    bool failed;
    int version; /* the file's schema_version */
    char path[160];
    int ndevices;      /* devices read so far: what a kernel's or copy's device may name */
    int nregions;      /* regions read so far: what an event's region may name */
    const struct split_doc *split; /* the arrays read element by element (NULL: all in the tree) */
    bool syntax;       /* the failure was an element's syntax error, whose message names the file */
} reader;

static bool fail(reader *r, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(reader *r, const char *key, const char *fmt, ...)
{
    if (r->failed)
        return false;
    r->failed = true;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* A failure of the document as a whole has no path to put in front. */
    snprintf(r->err, r->errlen, "%s%s%s%s%s", r->path, (r->path[0] && key) ? "." : "", key ? key : "",
             (r->path[0] || key) ? ": " : "", msg);
    return false;
}

static const cJSON *field(reader *r, const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        fail(r, key, "missing");
    return v;
}

static bool get_num(reader *r, const cJSON *o, const char *key, double *out)
{
    const cJSON *v = field(r, o, key);
    if (!v)
        return false;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return fail(r, key, "expected a number");
    *out = v->valuedouble;
    return true;
}

/* An integral number within [lo, hi]. */
static bool get_i64(reader *r, const cJSON *o, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    double d;
    if (!get_num(r, o, key, &d))
        return false;
    if (d != floor(d) || d < (double)lo || d > (double)hi)
        return fail(r, key, "expected an integer from %lld to %lld", (long long)lo, (long long)hi);
    *out = (int64_t)d;
    return true;
}

static bool get_int(reader *r, const cJSON *o, const char *key, int lo, int hi, int *out)
{
    int64_t v = 0;
    if (!get_i64(r, o, key, lo, hi, &v))
        return false;
    *out = (int)v;
    return true;
}

static bool get_u32(reader *r, const cJSON *o, const char *key, uint32_t *out)
{
    int64_t v = 0;
    if (!get_i64(r, o, key, 0, UINT32_MAX, &v))
        return false;
    *out = (uint32_t)v;
    return true;
}

static bool get_u64(reader *r, const cJSON *o, const char *key, uint64_t *out)
{
    int64_t v = 0;
    if (!get_i64(r, o, key, 0, (int64_t)1 << 53, &v))
        return false;
    *out = (uint64_t)v;
    return true;
}

/* A string, or null/"" as an empty string when nullable. */
static bool get_str(reader *r, const cJSON *o, const char *key, bool nullable, char *buf, size_t len)
{
    const cJSON *v = field(r, o, key);
    if (!v)
        return false;
    if (nullable && cJSON_IsNull(v)) {
        buf[0] = '\0';
        return true;
    }
    if (!cJSON_IsString(v))
        return fail(r, key, nullable ? "expected a string or null" : "expected a string");
    copy_str(buf, len, v->valuestring);
    return true;
}

/* A string of any length, duplicated into *out (the caller frees it); null reads as NULL when
 * nullable. */
static bool get_owned_str(reader *r, const cJSON *o, const char *key, bool nullable, char **out)
{
    const cJSON *v = field(r, o, key);
    if (!v)
        return false;
    *out = NULL;
    if (nullable && cJSON_IsNull(v))
        return true;
    if (!cJSON_IsString(v))
        return fail(r, key, nullable ? "expected a string or null" : "expected a string");
    return (*out = strdup(v->valuestring)) != NULL || fail(r, NULL, "out of memory");
}

/* True when key came with version 2 and a version 1 file lacks it: the field keeps its default
 * (pid 0, runtime API, no memsets or syncs, a built-in run). Later files must have it. */
static bool v1_default(const reader *r, const cJSON *o, const char *key)
{
    return r->version < 2 && !cJSON_GetObjectItemCaseSensitive(o, key);
}

static bool get_pid(reader *r, const cJSON *o, uint32_t *pid)
{
    return v1_default(r, o, "pid") || get_u32(r, o, "pid", pid);
}

static bool get_bool(reader *r, const cJSON *o, const char *key, bool *out)
{
    const cJSON *v = field(r, o, key);
    if (!v)
        return false;
    if (!cJSON_IsBool(v))
        return fail(r, key, "expected true or false");
    *out = cJSON_IsTrue(v);
    return true;
}

static bool get_int3(reader *r, const cJSON *o, const char *key, int out[3])
{
    const cJSON *v = field(r, o, key);
    if (!v)
        return false;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
        return fail(r, key, "expected an array of 3 integers");
    for (int i = 0; i < 3; i++) {
        const cJSON *e = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || e->valuedouble < 0 ||
            e->valuedouble > INT32_MAX)
            return fail(r, key, "expected an array of 3 non-negative integers");
        out[i] = (int)e->valuedouble;
    }
    return true;
}

static const cJSON *get_array(reader *r, const cJSON *o, const char *key)
{
    const cJSON *v = field(r, o, key);
    if (v && !cJSON_IsArray(v)) {
        fail(r, key, "expected an array");
        return NULL;
    }
    return v;
}

static const cJSON *get_object(reader *r, const cJSON *o, const char *key)
{
    const cJSON *v = field(r, o, key);
    if (v && !cJSON_IsObject(v)) {
        fail(r, key, "expected an object");
        return NULL;
    }
    return v;
}

/* Members added within version 2 (a sweep's sizes, sampling by noise): a file written before them
 * lacks them and keeps the defaults, so it loads and renders as it did. */
static bool absent(const cJSON *o, const char *key)
{
    return !cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A number or null (null and absence keep *out). */
static bool get_num_or_null(reader *r, const cJSON *o, const char *key, double lo, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return true;
    if (!get_num(r, o, key, out))
        return false;
    return *out >= lo || fail(r, key, "expected a number from %g", lo);
}

/* Enters element i of array key: path becomes "key[i]"; leave() restores it. */
static size_t enter(reader *r, const char *key, int i)
{
    size_t saved = strlen(r->path);
    snprintf(r->path + saved, sizeof r->path - saved, "%s%s[%d]", saved ? "." : "", key, i);
    return saved;
}

static size_t enter_obj(reader *r, const char *key)
{
    size_t saved = strlen(r->path);
    snprintf(r->path + saved, sizeof r->path - saved, "%s%s", saved ? "." : "", key);
    return saved;
}

static void leave(reader *r, size_t saved) { r->path[saved] = '\0'; }

/* Times in the file are relative to the epoch; bounded so that adding it back cannot overflow. */
#define MAX_REL_NS ((int64_t)1 << 53)

static bool get_time(reader *r, const cJSON *o, const char *key, int64_t epoch, int64_t *out)
{
    int64_t rel;
    if (!get_i64(r, o, key, -MAX_REL_NS, MAX_REL_NS, &rel))
        return false;
    /* The epoch is read from a string and may be anything an int64 holds. */
    if ((rel > 0 && epoch > INT64_MAX - rel) || (rel < 0 && epoch < INT64_MIN - rel))
        return fail(r, key, "lies outside the clock's range once epoch_ns is added");
    *out = epoch + rel;
    return true;
}

static bool read_interval(reader *r, const cJSON *o, int64_t epoch, int64_t *start, int64_t *end)
{
    if (!get_time(r, o, "start_ns", epoch, start) || !get_time(r, o, "end_ns", epoch, end))
        return false;
    if (*end < *start)
        return fail(r, "end_ns", "ends before it starts");
    return true;
}

static bool read_phases(reader *r, const cJSON *o, const char *key, int64_t epoch, phase *out, int max, int *n)
{
    const cJSON *arr = get_array(r, o, key);
    if (!arr)
        return false;
    if (cJSON_GetArraySize(arr) > max)
        return fail(r, key, "more than %d phases", max);
    *n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
        size_t s = enter(r, key, *n);
        phase *p = &out[*n];
        bool ok = cJSON_IsObject(e) ? (get_str(r, e, "name", false, p->name, sizeof p->name) &&
                                       read_interval(r, e, epoch, &p->start_ns, &p->end_ns))
                                    : fail(r, NULL, "expected an object");
        leave(r, s);
        if (!ok)
            return false;
        (*n)++;
    }
    return true;
}

/* A kernel's or copy's device indexes run.devices: one beyond them would be read out of bounds
 * (and overflowed the trace's process ids), so it is refused where it is read. */
static bool device_known(reader *r, uint32_t device)
{
    if (device < (uint32_t)r->ndevices)
        return true;
    if (r->ndevices == 0)
        return fail(r, "device", "%u names no recorded device (the run has none)", device);
    return fail(r, "device", "%u names no recorded device (expected 0 to %d)", device, r->ndevices - 1);
}

/* An event's owner: absent means the run; a region read before the events (the file's regions
 * come first, and a version 1 or 2 file's workload events are given theirs by the reader). */
static bool read_event_region(reader *r, const cJSON *e, int *region)
{
    *region = 0;
    if (absent(e, "region"))
        return true;
    if (!get_int(r, e, "region", 0, INT32_MAX, region))
        return false;
    return *region < r->nregions ||
           fail(r, "region", "is %d; the run has %d region%s", *region, r->nregions, r->nregions == 1 ? "" : "s");
}

/* Event readers: one per event type, each appending to an event_list. */
static bool read_kernel(reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    kernel_event k;
    memset(&k, 0, sizeof k);
    if (!read_interval(r, e, epoch, &k.start_ns, &k.end_ns) || !get_pid(r, e, &k.pid) ||
        !get_u32(r, e, "device", &k.device) || !get_u32(r, e, "stream", &k.stream) ||
        !get_u32(r, e, "correlation", &k.correlation) || !get_int3(r, e, "grid", k.grid) ||
        !get_int3(r, e, "block", k.block))
        return false;
    if (!device_known(r, k.device) || !read_event_region(r, e, &k.region))
        return false;
    const cJSON *regs = field(r, e, "registers");
    if (!regs)
        return false;
    k.has_resources = !cJSON_IsNull(regs);
    if (k.has_resources &&
        (!get_int(r, e, "registers", 0, 65536, &k.registers) ||
         !get_int(r, e, "static_smem", 0, 1 << 30, &k.static_smem) ||
         !get_int(r, e, "dynamic_smem", 0, 1 << 30, &k.dynamic_smem) ||
         !get_bool(r, e, "smem_optin", &k.smem_optin) || !get_int(r, e, "local_mem", 0, 1 << 30, &k.local_mem)))
        return false;
    if (!get_owned_str(r, e, "name", false, &k.name))
        return false;
    bool ok = events_add_kernel(dst, &k) || fail(r, NULL, "out of memory");
    free(k.name);
    return ok;
}

static bool read_mem_kind(reader *r, const cJSON *e, const char *key, mem_kind *out)
{
    char name[16];
    if (!get_str(r, e, key, false, name, sizeof name))
        return false;
    return mem_kind_parse(name, out) || fail(r, key, "unknown memory kind '%s'", name);
}

static bool read_copy(reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    copy_event c;
    memset(&c, 0, sizeof c);
    char dir[16];
    if (!get_str(r, e, "dir", false, dir, sizeof dir) || !read_mem_kind(r, e, "src", &c.src) ||
        !read_mem_kind(r, e, "dst", &c.dst) || !get_u64(r, e, "bytes", &c.bytes) ||
        !read_interval(r, e, epoch, &c.start_ns, &c.end_ns) || !get_pid(r, e, &c.pid) ||
        !get_u32(r, e, "device", &c.device) || !get_u32(r, e, "stream", &c.stream) ||
        !get_u32(r, e, "correlation", &c.correlation))
        return false;
    if (!device_known(r, c.device) || !read_event_region(r, e, &c.region))
        return false;
    if (!copy_dir_parse(dir, &c.dir))
        return fail(r, "dir", "expected HtoD, DtoH, DtoD, HtoH, PtoP or other, not '%s'", dir);
    return events_add_copy(dst, &c) || fail(r, NULL, "out of memory");
}

static bool read_memset(reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    memset_event m;
    memset(&m, 0, sizeof m);
    if (!read_mem_kind(r, e, "mem", &m.mem) || !get_u64(r, e, "bytes", &m.bytes) ||
        !read_interval(r, e, epoch, &m.start_ns, &m.end_ns) || !get_pid(r, e, &m.pid) ||
        !get_u32(r, e, "device", &m.device) || !get_u32(r, e, "stream", &m.stream) ||
        !get_u32(r, e, "correlation", &m.correlation) || !read_event_region(r, e, &m.region))
        return false;
    return events_add_memset(dst, &m) || fail(r, NULL, "out of memory");
}

static bool read_api(reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    api_event a;
    memset(&a, 0, sizeof a);
    char kind[16];
    if (!read_interval(r, e, epoch, &a.start_ns, &a.end_ns) || !get_pid(r, e, &a.pid) ||
        !get_u32(r, e, "thread", &a.thread) || !get_u32(r, e, "correlation", &a.correlation) ||
        !read_event_region(r, e, &a.region))
        return false;
    if (!v1_default(r, e, "kind")) {
        if (!get_str(r, e, "kind", false, kind, sizeof kind))
            return false;
        if (!api_kind_parse(kind, &a.kind))
            return fail(r, "kind", "expected runtime or driver, not '%s'", kind);
    }
    if (!get_owned_str(r, e, "name", false, &a.name))
        return false;
    bool ok = events_add_api(dst, &a) || fail(r, NULL, "out of memory");
    free(a.name);
    return ok;
}

static bool read_sync(reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    sync_event y;
    memset(&y, 0, sizeof y);
    char kind[24];
    if (!get_str(r, e, "kind", false, kind, sizeof kind) || !read_interval(r, e, epoch, &y.start_ns, &y.end_ns) ||
        !get_pid(r, e, &y.pid) || !get_u32(r, e, "thread", &y.thread) || !get_u32(r, e, "stream", &y.stream) ||
        !get_u32(r, e, "correlation", &y.correlation) || !read_event_region(r, e, &y.region))
        return false;
    if (!sync_kind_parse(kind, &y.kind))
        return fail(r, "kind", "expected unknown, event, stream-wait-event, stream or context, not '%s'", kind);
    return events_add_sync(dst, &y) || fail(r, NULL, "out of memory");
}

static bool read_occ(reader *r, const cJSON *e, int64_t epoch, void *w)
{
    (void)epoch;
    occupancy_check c;
    memset(&c, 0, sizeof c);
    if (!get_str(r, e, "kernel", false, c.kernel, sizeof c.kernel) ||
        !get_int(r, e, "block_size", 1, 4096, &c.block_size) ||
        !get_int(r, e, "dynamic_smem", 0, 1 << 30, &c.dynamic_smem) ||
        !get_int(r, e, "registers", 0, 65536, &c.registers) ||
        !get_int(r, e, "static_smem", 0, 1 << 30, &c.static_smem) ||
        !get_int(r, e, "runtime_blocks_per_sm", 0, 4096, &c.runtime_blocks_per_sm))
        return false;
    return workload_add_occ(w, &c) || fail(r, NULL, "out of memory");
}

static bool read_product_ms(reader *r, const cJSON *e, int64_t epoch, void *w)
{
    (void)epoch;
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0)
        return fail(r, NULL, "expected a non-negative number");
    return workload_add_product_ms(w, e->valuedouble) || fail(r, NULL, "out of memory");
}

/* Reads one element of an array into dst (an event_list, a workload, the run). */
typedef bool (*element_reader)(reader *, const cJSON *, int64_t, void *dst);

/* ---------- arrays read element by element ----------
 * A run file's event arrays hold nearly all of it; a cJSON tree of the whole document was 3.6
 * times its text. model_read_text finds those arrays' elements (json_stream, the scanner the
 * importers use) and leaves them out of the tree; read_each then parses one element at a time,
 * reads it and lets its tree go. */
typedef struct {
    char path[32];     /* "events.kernels", or "workloads" (versions 1 and 2) */
    size_t (*el)[2];   /* each element's [start, end) in the text */
    int n, cap;
    bool span;         /* not an array: el[0] is the whole value's text (event columns) */
} split_array;

typedef struct split_doc {
    const char *name, *buf;
    size_t len;
    const member_drop *drop; /* what the text left out as it was read (NULL: nothing), for messages */
    split_array arr[16]; /* the events' five kinds, the workloads, the host activity's four arrays, the
                          * memory's events and samples */
    int narr;
} split_doc;

static const split_array *split_find(const reader *r, const char *key)
{
    if (!r->split)
        return NULL;
    char path[sizeof r->path + 64];
    snprintf(path, sizeof path, "%s%s%s", r->path, r->path[0] ? "." : "", key);
    for (int i = 0; i < r->split->narr; i++)
        if (strcmp(r->split->arr[i].path, path) == 0)
            return &r->split->arr[i];
    return NULL;
}

static void syntax_error(const char *name, const char *buf, size_t len, size_t from, size_t at,
                         const member_drop *drop, char *err, size_t errlen);

/* Element i of a split array, parsed alone; NULL (and the error given) when it is not valid JSON. */
static cJSON *split_element(reader *r, const split_array *a, int i)
{
    const split_doc *d = r->split;
    size_t start = a->el[i][0], end = a->el[i][1];
    const char *stop = NULL;
    cJSON *e = cJSON_ParseWithLengthOpts(d->buf + start, end - start, &stop, false);
    if (!e || stop != d->buf + end) {
        cJSON_Delete(e);
        size_t at = stop ? (size_t)(stop - d->buf) : start;
        if (!r->failed) {
            r->failed = true;
            syntax_error(d->name, d->buf, d->len, start, at, d->drop, r->err, r->errlen);
            r->syntax = true;
        }
        return NULL;
    }
    return e;
}

static bool read_each(reader *r, const cJSON *o, const char *key, int64_t epoch, void *w,
                      element_reader read_one, bool objects)
{
    const cJSON *arr = get_array(r, o, key);
    if (!arr)
        return false;
    const split_array *sa = split_find(r, key);
    int n = sa ? sa->n : cJSON_GetArraySize(arr);
    const cJSON *e = sa ? NULL : arr->child;
    for (int i = 0; i < n; i++) {
        cJSON *parsed = sa ? split_element(r, sa, i) : NULL;
        if (sa && !parsed)
            return false;
        const cJSON *el = sa ? parsed : e;
        size_t s = enter(r, key, i);
        bool ok = (!objects || cJSON_IsObject(el)) ? read_one(r, el, epoch, w) : fail(r, NULL, "expected an object");
        leave(r, s);
        cJSON_Delete(parsed);
        if (!ok)
            return false;
        if (!sa)
            e = e->next;
    }
    return true;
}

/* The event arrays of o (the run's "events", or a version 1 or 2 workload), appended to ev. What
 * was read stays in ev on failure, for the caller to free. memsets and syncs came with version 2. */
static bool read_events(reader *r, const cJSON *o, const char *api_key, int64_t epoch, event_list *ev)
{
    return read_each(r, o, "kernels", epoch, ev, read_kernel, true) &&
           read_each(r, o, "copies", epoch, ev, read_copy, true) &&
           (v1_default(r, o, "memsets") || read_each(r, o, "memsets", epoch, ev, read_memset, true)) &&
           read_each(r, o, api_key, epoch, ev, read_api, true) &&
           (v1_default(r, o, "syncs") || read_each(r, o, "syncs", epoch, ev, read_sync, true));
}

/* An integer from 0 to hi, or null read as -1 (NVML gave none). */
static bool get_int_or_null(reader *r, const cJSON *o, const char *key, int hi, int *out)
{
    const cJSON *v = field(r, o, key);
    if (!v)
        return false;
    if (cJSON_IsNull(v)) {
        *out = -1;
        return true;
    }
    return get_int(r, o, key, 0, hi, out);
}

static bool read_reading(reader *r, const cJSON *o, const char *key, device_reading *out, uint64_t *mask)
{
    const cJSON *v = get_object(r, o, key);
    if (!v)
        return false;
    size_t s = enter_obj(r, key);
    bool ok = get_int_or_null(r, v, "sm_clock_mhz", 1 << 20, &out->sm_mhz) &&
              get_int_or_null(r, v, "mem_clock_mhz", 1 << 20, &out->mem_mhz) &&
              get_int_or_null(r, v, "power_mw", INT32_MAX, &out->power_mw) &&
              get_int_or_null(r, v, "temp_c", 1000, &out->temp_c) &&
              (!mask || get_u64(r, v, "clock_event_mask", mask));
    leave(r, s);
    return ok;
}

/* device_state (optional: files from before it existed load without it). The reasons are read
 * from the mask; their names beside it are for people. */
static bool read_device_state(reader *r, const cJSON *o, device_state *d)
{
    memset(d, 0, sizeof *d);
    d->recorded = true;
    if (!get_bool(r, o, "valid", &d->valid) || !get_str(r, o, "reason", true, d->reason, sizeof d->reason))
        return false;
    if (!d->valid)
        return true;
    const cJSON *pids = get_array(r, o, "other_pids");
    if (!pids ||
        !get_int_or_null(r, o, "sm_clock_max_mhz", 1 << 20, &d->sm_clock_max_mhz) ||
        !get_int_or_null(r, o, "mem_clock_max_mhz", 1 << 20, &d->mem_clock_max_mhz) ||
        !get_int_or_null(r, o, "power_limit_mw", INT32_MAX, &d->power_limit_mw) ||
        !get_int(r, o, "samples", 0, INT32_MAX, &d->samples) ||
        !read_reading(r, o, "before", &d->before, &d->before_reasons) ||
        !read_reading(r, o, "after", &d->after, &d->after_reasons) ||
        !read_reading(r, o, "low", &d->low, NULL) || !read_reading(r, o, "high", &d->high, NULL) ||
        !get_int_or_null(r, o, "busy_sm_clock_min_mhz", 1 << 20, &d->busy_sm_min_mhz) ||
        !get_u64(r, o, "clock_event_mask", &d->reasons) ||
        !get_int(r, o, "other_processes", 0, INT32_MAX, &d->other_pids))
        return false;
    if (d->power_limit_mw < 0)
        d->power_limit_mw = 0;
    int i = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, pids) {
        if (!cJSON_IsNumber(p) || p->valuedouble != floor(p->valuedouble) || p->valuedouble < 1 ||
            p->valuedouble > UINT32_MAX)
            return fail(r, "other_pids", "expected an array of process ids");
        if (i < DEVICE_STATE_MAX_PIDS)
            d->other_pid[i++] = (uint32_t)p->valuedouble;
    }
    return true;
}

/* A sweep's sizes: at most MAX_SWEEP_SIZES whole numbers from 1. */
static bool read_sizes(reader *r, const cJSON *cfg, builtin_run *m)
{
    if (absent(cfg, "sizes"))
        return true;
    const cJSON *a = get_array(r, cfg, "sizes");
    if (!a)
        return false;
    if (cJSON_GetArraySize(a) > MAX_SWEEP_SIZES)
        return fail(r, "sizes", "more than %d sizes", MAX_SWEEP_SIZES);
    const cJSON *e;
    cJSON_ArrayForEach(e, a) {
        if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || e->valuedouble < 1 ||
            e->valuedouble > INT32_MAX)
            return fail(r, "sizes", "expected whole numbers from 1");
        m->sizes[m->nsizes++] = (int)e->valuedouble;
    }
    return true;
}

static bool read_counters(reader *r, const cJSON *e, int64_t epoch, void *w)
{
    (void)epoch;
    kernel_counters k;
    memset(&k, 0, sizeof k);
    for (int c = 0; c < CTR_COUNT; c++) {
        k.v[c] = NAN;
        const char *key = counter_key((counter_id)c);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, key);
        if (v && !cJSON_IsNull(v) && !get_num(r, e, key, &k.v[c]))
            return false;
    }
    if (!get_owned_str(r, e, "kernel", false, &k.name))
        return false;
    bool ok = workload_add_counters(w, &k) || fail(r, NULL, "out of memory");
    free(k.name);
    return ok;
}

static bool read_one_launch(reader *r, const cJSON *e, int64_t epoch, void *m)
{
    (void)epoch;
    workload_run tmp;
    memset(&tmp, 0, sizeof tmp);
    bool ok = read_counters(r, e, 0, &tmp);
    if (ok && tmp.ncounters == 1) {
        kernel_counters *k = &tmp.counters[0];
        ok = get_u32(r, e, "pid", &k->pid) && get_u32(r, e, "device", &k->device) &&
             get_u32(r, e, "correlation", &k->correlation);
        if (ok && k->device >= (uint32_t)((run_model *)m)->ndevices)
            ok = fail(r, "device", "no such device in the run");
        ok = ok && (model_add_launch_counters(m, k) || fail(r, NULL, "out of memory"));
    }
    workload_clear(&tmp);
    return ok;
}

/* profile --counters: the profiled launches (files without them have none). */
static bool read_launch_counters(reader *r, const cJSON *root, run_model *m)
{
    return absent(root, "launch_counters") || read_each(r, root, "launch_counters", m->epoch_ns, m, read_one_launch, true);
}

/* One capture window (make_window); its region must be a capture region already read. */
static bool read_window(reader *r, const cJSON *e, int64_t epoch, void *arg)
{
    run_model *m = arg;
    capture_window w;
    memset(&w, 0, sizeof w);
    int64_t pid;
    bool ok = get_int(r, e, "region", 1, m->nregions - 1, &w.region) && get_i64(r, e, "pid", 0, UINT32_MAX, &pid) &&
              get_int(r, e, "number", 1, INT32_MAX, &w.number) && read_interval(r, e, epoch, &w.start_ns, &w.end_ns) &&
              get_str(r, e, "began", false, w.began, sizeof w.began) &&
              get_str(r, e, "began_detail", false, w.began_detail, sizeof w.began_detail) &&
              get_str(r, e, "ended", false, w.ended, sizeof w.ended) &&
              get_str(r, e, "ended_detail", false, w.ended_detail, sizeof w.ended_detail) &&
              get_i64(r, e, "before_ns", -1, INT64_MAX, &w.before_ns) && get_i64(r, e, "after_ns", -1, INT64_MAX, &w.after_ns) &&
              get_i64(r, e, "calls_before", -1, INT64_MAX, &w.calls_before) &&
              get_i64(r, e, "calls_after", -1, INT64_MAX, &w.calls_after);
    if (!ok)
        return false;
    if (m->regions[w.region].kind != REGION_CAPTURE)
        return fail(r, "region", "is not a capture region");
    w.pid = (uint32_t)pid;
    capture_info *c = &m->capture;
    capture_window *p = realloc(c->windows, (size_t)(c->nwindows + 1) * sizeof *p);
    if (!p)
        return fail(r, NULL, "out of memory");
    c->windows = p;
    p[c->nwindows++] = w;
    return true;
}

/* profile's "capture" object, where it has one (capture_json). */
static bool read_capture(reader *r, const cJSON *root, run_model *m)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "capture");
    if (!o)
        return true;
    size_t s = enter_obj(r, "capture");
    bool ok = cJSON_IsObject(o) ? get_str(r, o, "asked", false, m->capture.asked, sizeof m->capture.asked) &&
                                      read_each(r, o, "windows", m->epoch_ns, m, read_window, true)
                                : fail(r, NULL, "expected an object");
    leave(r, s);
    return ok;
}

/* What was asked of the counters: version 3's "counters" object. */
static bool read_counter_info(reader *r, const cJSON *root, counter_info *c)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "counters");
    if (!o)
        return true;
    size_t s = enter_obj(r, "counters");
    const cJSON *passes = cJSON_GetObjectItemCaseSensitive(o, "passes");
    const cJSON *max = cJSON_GetObjectItemCaseSensitive(o, "max");
    int n = 0;
    bool ok = cJSON_IsObject(o) ? get_bool(r, o, "asked", &c->asked) &&
                                      (!passes || cJSON_IsNull(passes) || get_int(r, o, "passes", 1, 100000, &c->passes)) &&
                                      get_str(r, o, "why", true, c->why, sizeof c->why) &&
                                      get_str(r, o, "kernels", true, c->kernels, sizeof c->kernels) &&
                                      (!max || cJSON_IsNull(max) || get_int(r, o, "max", 1, 1000000, &n)) &&
                                      (absent(o, "from") || get_str(r, o, "from", false, c->from, sizeof c->from))
                                : fail(r, NULL, "expected an object");
    c->max = n;
    leave(r, s);
    return ok;
}

/* Versions 1 and 2 kept the counters' settings in "config": the built-in run's pass and its
 * reason, and a profile's --kernels and --max-kernels beside its launches. */
static bool read_counter_config_v2(reader *r, const cJSON *root, const cJSON *cfg, run_model *m)
{
    counter_info *c = &m->counters;
    const cJSON *passes = cJSON_GetObjectItemCaseSensitive(cfg, "counter_passes");
    const cJSON *max = cJSON_GetObjectItemCaseSensitive(cfg, "counter_max");
    int n = 0;
    size_t s = enter_obj(r, "config");
    bool ok = (absent(cfg, "counters") || get_bool(r, cfg, "counters", &c->asked)) &&
              (!passes || cJSON_IsNull(passes) || get_int(r, cfg, "counter_passes", 1, 100000, &c->passes)) &&
              (absent(cfg, "counters_why") || get_str(r, cfg, "counters_why", true, c->why, sizeof c->why)) &&
              (absent(cfg, "counter_kernels") || get_str(r, cfg, "counter_kernels", true, c->kernels, sizeof c->kernels)) &&
              (!max || cJSON_IsNull(max) || get_int(r, cfg, "counter_max", 1, 1000000, &n));
    leave(r, s);
    c->max = n;
    /* A profile with counters wrote its launches, none or more; its config said so only there. */
    if (!absent(root, "launch_counters"))
        c->asked = true;
    return ok;
}

/* A workload's "counters" object, when it has one (files from before counters have none). */
static bool read_workload_counters(reader *r, const cJSON *e, workload_run *w)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(e, "counters");
    if (!c)
        return true;
    size_t s = enter_obj(r, "counters");
    bool ok = cJSON_IsObject(c) ? get_str(r, c, "why", true, w->counters_why, sizeof w->counters_why) &&
                                      read_each(r, c, "kernels", 0, w, read_counters, true)
                                : fail(r, NULL, "expected an object");
    leave(r, s);
    return ok;
}

/* A workload. Versions 1 and 2 kept its events inside it: they are staged in w->timed, to join
 * the store, owned by the workload's region, when model_finish_regions runs. */
static bool read_workload(reader *r, const cJSON *e, int64_t epoch, int ndevices, workload_run *w)
{
    char mem[16], prec[16], status[16], timing[16];
    if (!get_str(r, e, "name", false, w->name, sizeof w->name) ||
        !get_str(r, e, "host_memory", false, mem, sizeof mem) || !get_bool(r, e, "needs_gpu", &w->needs_gpu) ||
        !get_str(r, e, "precision", false, prec, sizeof prec) || !get_str(r, e, "status", false, status, sizeof status) ||
        !get_str(r, e, "status_reason", true, w->status_reason, sizeof w->status_reason) ||
        !get_int(r, e, "repeat", 0, INT32_MAX, &w->repeat) || !get_int(r, e, "launched", 0, INT32_MAX, &w->launched) ||
        !get_str(r, e, "timing", false, timing, sizeof timing) ||
        /* w->n is the run's n here: a built-in workload multiplies at least 1 x 1, an import's 0. */
        !(absent(e, "n") || get_int(r, e, "n", w->n > 0 ? 1 : 0, INT32_MAX, &w->n)) ||
        !(absent(e, "samples") || get_int(r, e, "samples", 0, INT32_MAX, &w->samples)) ||
        !get_num_or_null(r, e, "noise_pct", 0, &w->noise_pct))
        return false;
    const cJSON *stop = cJSON_GetObjectItemCaseSensitive(e, "stopped_by");
    if (stop && !cJSON_IsNull(stop) && (!cJSON_IsString(stop) || !sample_stop_parse(stop->valuestring, &w->stopped_by)))
        return fail(r, "stopped_by", "expected noise, time, repeat, max-samples or null");
    if (!mem_kind_parse(mem, &w->host_memory))
        return fail(r, "host_memory", "unknown memory kind '%s'", mem);
    if (!precision_parse(prec, &w->prec))
        return fail(r, "precision", "expected fp32 or tf32");
    if (!status_parse(status, &w->status))
        return fail(r, "status", "expected ok, failed, error or skipped");
    if (!timing_source_parse(timing, &w->timing))
        return fail(r, "timing", "expected none, cupti, cudaEvent or host-clock");
    const cJSON *dev = field(r, e, "device");
    if (!dev)
        return false;
    if (cJSON_IsNull(dev))
        w->device = -1;
    else if (!get_int(r, e, "device", 0, ndevices > 0 ? ndevices - 1 : 0, &w->device) || ndevices == 0)
        return fail(r, "device", "names no recorded device");
    if (!read_phases(r, e, "phases", epoch, w->phases, MAX_PHASES, &w->nphases) ||
        /* the region is checked once the regions are read */
        (r->version < 3 ? !read_events(r, e, "api_calls", epoch, &w->timed)
                        : !get_int(r, e, "region", -1, INT32_MAX, &w->region)) ||
        !read_each(r, e, "product_ms", epoch, w, read_product_ms, false) ||
        !read_each(r, e, "occupancy_checks", epoch, w, read_occ, true))
        return false;
    const cJSON *ver = get_object(r, e, "verification");
    if (!ver)
        return false;
    size_t s = enter_obj(r, "verification");
    const cJSON *rel = field(r, ver, "rel_error");
    bool ok = rel && get_num(r, ver, "bound", &w->error_bound);
    if (ok && !cJSON_IsNull(rel)) {
        /* NaN is written as null by cJSON, so a failed comparison reads back as unverified. */
        ok = get_num(r, ver, "rel_error", &w->rel_error);
        w->verified = ok;
    }
    leave(r, s);
    char pass[16];
    if (ok && !absent(e, "pass")) {
        ok = get_str(r, e, "pass", false, pass, sizeof pass);
        if (ok && !device_pass_parse(pass, &w->pass))
            ok = fail(r, "pass", "expected alone, sequential or concurrent");
    }
    const cJSON *ds = cJSON_GetObjectItemCaseSensitive(e, "device_state");
    if (ok && ds) {
        s = enter_obj(r, "device_state");
        ok = cJSON_IsObject(ds) ? read_device_state(r, ds, &w->device_state) : fail(r, NULL, "expected an object");
        leave(r, s);
    }
    return ok && read_workload_counters(r, e, w);
}

/* Region i (the next one: m->nregions) encloses nothing before it, so parent links only point
 * back and can be followed without a cycle check; the first is the run. Workloads are read by
 * now. */
static bool read_region(reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    run_model *m = dst;
    int i = m->nregions;
    char kind_name[16];
    region g;
    memset(&g, 0, sizeof g);
    if (!get_str(r, e, "kind", false, kind_name, sizeof kind_name) ||
        !read_interval(r, e, epoch, &g.start_ns, &g.end_ns) || !get_u32(r, e, "pid", &g.pid) ||
        !get_u32(r, e, "tid", &g.tid) || !get_int(r, e, "parent", -1, INT32_MAX, &g.parent) ||
        !get_int(r, e, "workload", -1, INT32_MAX, &g.workload) || !get_bool(r, e, "push_pop", &g.push_pop))
        return false;
    if (!region_kind_parse(kind_name, &g.kind))
        return fail(r, "kind", "expected run, workload, phase, nvtx or annotation, not '%s'", kind_name);
    if ((i == 0) != (g.kind == REGION_RUN))
        return fail(r, "kind", i == 0 ? "the first region is the run's (kind run), not '%s'"
                                      : "'%s' after the first region: a run has one run region", kind_name);
    if (g.parent >= i || (i > 0 && g.parent < 0))
        return fail(r, "parent", "is %d; a region's parent is an earlier region (0 to %d)", g.parent, i - 1);
    if (g.workload >= m->builtin.nworkloads)
        return fail(r, "workload", "is %d; the run has %d workload%s", g.workload, m->builtin.nworkloads,
                    m->builtin.nworkloads == 1 ? "" : "s");
    if (!get_owned_str(r, e, "name", false, &g.name) || !get_owned_str(r, e, "domain", true, &g.domain)) {
        free(g.name);
        return false;
    }
    int at = model_add_region(m, g.kind, g.name, g.domain, g.start_ns, g.end_ns, g.pid, g.tid, g.parent);
    free(g.name);
    free(g.domain);
    if (at < 0)
        return fail(r, NULL, "out of memory");
    m->regions[at].workload = g.workload;
    m->regions[at].push_pop = g.push_pop;
    r->nregions = m->nregions;
    return true;
}

static bool read_process(reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    (void)epoch;
    process_info p;
    if (!get_u32(r, e, "pid", &p.pid) || !get_str(r, e, "name", false, p.name, sizeof p.name))
        return false;
    p.rank = p.world_size = p.local_rank = -1;
    p.host[0] = '\0';
    if (cJSON_HasObjectItem(e, "rank") &&
        !(get_int(r, e, "rank", 0, INT32_MAX, &p.rank) && get_int(r, e, "world_size", -1, INT32_MAX, &p.world_size) &&
          get_int(r, e, "local_rank", -1, INT32_MAX, &p.local_rank)))
        return false;
    if (cJSON_HasObjectItem(e, "host") && !get_str(r, e, "host", false, p.host, sizeof p.host))
        return false;
    if (!model_add_process(dst, p.pid, p.name))
        return fail(r, NULL, "out of memory");
    model_set_process_rank(dst, p.pid, p.rank, p.world_size, p.local_rank, p.host);
    run_model *m = dst;
    bool cut = false;
    if (cJSON_HasObjectItem(e, "records_cut") && !get_bool(r, e, "records_cut", &cut))
        return false;
    m->processes[m->nprocesses - 1].records_cut = cut;
    return true;
}

static bool read_thread(reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    (void)epoch;
    thread_info t;
    if (!get_u32(r, e, "pid", &t.pid) || !get_u32(r, e, "tid", &t.tid) ||
        !get_str(r, e, "name", false, t.name, sizeof t.name))
        return false;
    return model_add_thread(dst, t.pid, t.tid, t.name) || fail(r, NULL, "out of memory");
}

static bool read_device(reader *r, const cJSON *e, device_info *d)
{
    int64_t total, free_mem, smem_sm, smem_blk, smem_optin, reserved;
    const int64_t big = (int64_t)1 << 53;
    bool ok = get_int(r, e, "index", 0, 1024, &d->index) && get_str(r, e, "name", false, d->name, sizeof d->name) &&
              get_int(r, e, "cc_major", 0, 100, &d->cc_major) && get_int(r, e, "cc_minor", 0, 100, &d->cc_minor) &&
              get_int(r, e, "sm_count", 0, 1 << 20, &d->sm_count) &&
              get_int(r, e, "clock_khz", 0, INT32_MAX, &d->clock_khz) &&
              get_int(r, e, "mem_clock_khz", 0, INT32_MAX, &d->mem_clock_khz) &&
              get_int(r, e, "bus_width_bits", 0, 1 << 20, &d->bus_width_bits) &&
              get_int(r, e, "l2_bytes", 0, INT32_MAX, &d->l2_bytes) && get_i64(r, e, "total_mem", 0, big, &total) &&
              get_i64(r, e, "free_mem", 0, big, &free_mem) &&
              get_int(r, e, "max_threads_per_sm", 0, 1 << 20, &d->max_threads_per_sm) &&
              get_int(r, e, "max_threads_per_block", 0, 1 << 20, &d->max_threads_per_block) &&
              get_int(r, e, "max_blocks_per_sm", 0, 1 << 20, &d->max_blocks_per_sm) &&
              get_int(r, e, "regs_per_sm", 0, 1 << 24, &d->regs_per_sm) &&
              get_int(r, e, "regs_per_block", 0, 1 << 24, &d->regs_per_block) &&
              get_int(r, e, "warp_size", 0, 1024, &d->warp_size) && get_i64(r, e, "smem_per_sm", 0, big, &smem_sm) &&
              get_i64(r, e, "smem_per_block", 0, big, &smem_blk) &&
              get_i64(r, e, "smem_per_block_optin", 0, big, &smem_optin) &&
              get_i64(r, e, "reserved_smem_per_block", 0, big, &reserved) &&
              get_str(r, e, "pci_bus_id", false, d->pci_bus_id, sizeof d->pci_bus_id) &&
              get_str(r, e, "pcie_why", true, d->pcie_why, sizeof d->pcie_why) &&
              get_int(r, e, "driver_version", 0, INT32_MAX, &d->driver_version) &&
              get_int(r, e, "runtime_version", 0, INT32_MAX, &d->runtime_version) &&
              (absent(e, "memory_bandwidth") || get_u64(r, e, "memory_bandwidth", &d->memory_bandwidth));
    if (!ok)
        return false;
    const cJSON *gen = field(r, e, "pcie_gen"), *width = field(r, e, "pcie_width");
    if (!gen || !width)
        return false;
    if ((!cJSON_IsNull(gen) && !get_int(r, e, "pcie_gen", 1, 16, &d->pcie_gen)) ||
        (!cJSON_IsNull(width) && !get_int(r, e, "pcie_width", 1, 64, &d->pcie_width)))
        return false;
    d->total_mem = (uint64_t)total;
    d->free_mem = (uint64_t)free_mem;
    d->smem_per_sm = (uint64_t)smem_sm;
    d->smem_per_block = (uint64_t)smem_blk;
    d->smem_per_block_optin = (uint64_t)smem_optin;
    d->reserved_smem_per_block = (uint64_t)reserved;
    return true;
}

static bool parse_u64_string(reader *r, const cJSON *o, const char *key, bool is_signed, uint64_t *out)
{
    char buf[32];
    if (!get_str(r, o, key, false, buf, sizeof buf))
        return false;
    char *end;
    errno = 0;
    if (is_signed) {
        long long v = strtoll(buf, &end, 10);
        *out = (uint64_t)v;
    } else {
        if (buf[0] == '-')
            return fail(r, key, "expected a decimal integer in a string");
        *out = strtoull(buf, &end, 10);
    }
    if (errno || end == buf || *end)
        return fail(r, key, "expected a decimal integer in a string");
    return true;
}

static bool read_peer_copy(reader *r, const cJSON *o, const char *key, peer_copy *c)
{
    const cJSON *e = get_object(r, o, key);
    if (!e)
        return false;
    size_t s = enter_obj(r, key);
    bool ok = get_bool(r, e, "measured", &c->measured) && get_bool(r, e, "verified", &c->verified) &&
              get_str(r, e, "why", true, c->why, sizeof c->why) &&
              (!c->measured || (get_num(r, e, "gbps", &c->gbps) && get_num(r, e, "latency_us", &c->latency_us)));
    if (ok && c->measured && (c->gbps < 0 || c->latency_us < 0))
        ok = fail(r, c->gbps < 0 ? "gbps" : "latency_us", "expected a figure from 0");
    leave(r, s);
    return ok;
}

static bool read_peer(reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    (void)epoch;
    multi_gpu_info *g = dst;
    peer_pair *p = &g->pairs[g->npairs];
    memset(p, 0, sizeof *p);
    int hi = r->ndevices > 0 ? r->ndevices - 1 : 0;
    if (!get_int(r, e, "src", 0, hi, &p->src) || !get_int(r, e, "dst", 0, hi, &p->dst) ||
        !get_str(r, e, "link", false, p->link, sizeof p->link) ||
        !get_str(r, e, "link_detail", true, p->link_detail, sizeof p->link_detail) ||
        !get_bool(r, e, "can_access_peer", &p->can_access_peer) ||
        !read_peer_copy(r, e, "staged", &p->copy[PEER_STAGED]) || !read_peer_copy(r, e, "direct", &p->copy[PEER_DIRECT]))
        return false;
    if (p->src == p->dst)
        return fail(r, "dst", "a pair's two GPUs are the same (%d)", p->src);
    g->npairs++;
    return true;
}

static bool read_multi(reader *r, const cJSON *o, run_model *m)
{
    multi_gpu_info *g = &m->builtin.multi;
    const cJSON *devs = get_array(r, o, "devices");
    if (!devs)
        return false;
    const cJSON *e;
    cJSON_ArrayForEach(e, devs) {
        if (g->ndevices >= MAX_RUN_DEVICES || !cJSON_IsNumber(e) || e->valuedouble < 0 ||
            e->valuedouble >= m->ndevices || e->valuedouble != (int)e->valuedouble)
            return fail(r, "devices", "expected at most %d indices of recorded devices (0 to %d)", MAX_RUN_DEVICES,
                        m->ndevices - 1);
        g->devices[g->ndevices++] = (int)e->valuedouble;
    }
    const cJSON *peers = get_array(r, o, "peers");
    int np = peers ? cJSON_GetArraySize(peers) : 0;
    if (!peers || !get_u64(r, o, "copy_bytes", &g->copy_bytes) || !get_int(r, o, "copy_reps", 0, INT32_MAX, &g->copy_reps) ||
        !get_u64(r, o, "latency_bytes", &g->latency_bytes) ||
        !get_int(r, o, "latency_reps", 0, INT32_MAX, &g->latency_reps) ||
        !get_str(r, o, "peer_matrix_why", true, g->why, sizeof g->why))
        return false;
    if (np > g->ndevices * (g->ndevices - 1))
        return fail(r, "peers", "%d pairs for %d GPUs (at most %d)", np, g->ndevices, g->ndevices * (g->ndevices - 1));
    if (np > 0 && !(g->pairs = calloc((size_t)np, sizeof *g->pairs)))
        return fail(r, NULL, "out of memory");
    return read_each(r, o, "peers", 0, g, read_peer, true);
}

static bool read_host(reader *r, const cJSON *h, host_info *hi)
{
    hi->known = true;
    return get_str(r, h, "cpu_model", false, hi->cpu_model, sizeof hi->cpu_model) &&
           get_int(r, h, "logical_cores", 0, 1 << 20, &hi->logical_cores) && get_bool(r, h, "avx2", &hi->has_avx2) &&
           get_bool(r, h, "avx512f", &hi->has_avx512f) && get_str(r, h, "os", false, hi->os, sizeof hi->os);
}

/* BLAS: version 3's "blas" object, or the "blas_" members of an older file's "host". */
static bool read_blas(reader *r, const cJSON *o, const char *prefix, blas_info *b)
{
    char k[5][24];
    static const char *const names[] = {"config", "version", "core", "threads", "library"};
    for (int i = 0; i < 5; i++)
        snprintf(k[i], sizeof k[i], "%s%s", prefix, names[i]);
    return get_str(r, o, k[0], false, b->config, sizeof b->config) &&
           get_str(r, o, k[1], false, b->version, sizeof b->version) &&
           get_str(r, o, k[2], false, b->core, sizeof b->core) && get_int(r, o, k[3], 0, 1 << 20, &b->threads) &&
           get_str(r, o, k[4], false, b->library, sizeof b->library);
}

/* A built-in run's settings ("config" in every version). A profile or import of version 1 or 2
 * wrote one too, with n 0: only a built-in run multiplies matrices. */
static bool read_config(reader *r, const cJSON *cfg, bool builtin, builtin_run *b)
{
    const cJSON *rep = field(r, cfg, "repeat");
    return get_int(r, cfg, "n", builtin ? 1 : 0, INT32_MAX, &b->n) && parse_u64_string(r, cfg, "seed", false, &b->seed) &&
           rep && (cJSON_IsNull(rep) || get_int(r, cfg, "repeat", 1, INT32_MAX, &b->repeat_requested)) &&
           get_str(r, cfg, "host_memory", false, b->host_memory_requested, sizeof b->host_memory_requested) &&
           get_num_or_null(r, cfg, "max_noise_pct", 0, &b->max_noise_pct) &&
           get_num_or_null(r, cfg, "max_time_s", 0, &b->max_time_s) &&
           (absent(cfg, "cold_l2") || get_bool(r, cfg, "cold_l2", &b->cold_l2)) && read_sizes(r, cfg, b);
}

static bool read_collection(reader *r, const cJSON *c, collection_info *ci)
{
    char src[16];
    int64_t overhead_ns = 0;
    bool ok = get_str(r, c, "source", false, src, sizeof src) && get_str(r, c, "reason", true, ci->reason, sizeof ci->reason) &&
              get_int(r, c, "cupti_version", 0, INT32_MAX, &ci->cupti_version) && get_u64(r, c, "records", &ci->records) &&
              get_u64(r, c, "dropped", &ci->dropped) && get_u64(r, c, "lost_timestamps", &ci->lost_timestamps) &&
              (absent(c, "replayed_kernels") || get_u64(r, c, "replayed_kernels", &ci->replayed_kernels)) &&
              get_u64(r, c, "overhead_records", &ci->overhead_records) &&
              (v1_default(r, c, "outside_workloads") || get_u64(r, c, "outside_workloads", &ci->outside_workloads)) &&
              get_i64(r, c, "overhead_ns", 0, (int64_t)1 << 53, &overhead_ns) && get_num(r, c, "flush_ms", &ci->flush_ms);
    if (ok && !timing_source_parse(src, &ci->source))
        ok = fail(r, "source", "expected none, cupti, cudaEvent or host-clock");
    ci->overhead_ns = overhead_ns;
    return ok;
}

/* An object member read by fn inside its path; absent is refused unless optional. */
typedef bool (*object_reader)(reader *, const cJSON *, void *);
static bool read_object(reader *r, const cJSON *o, const char *key, bool optional, object_reader fn, void *dst)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v && optional)
        return true;
    if (!get_object(r, o, key))
        return false;
    size_t s = enter_obj(r, key);
    bool ok = fn(r, v, dst);
    leave(r, s);
    return ok;
}

static bool read_host_obj(reader *r, const cJSON *o, void *m)
{
    run_model *rm = m;
    /* Versions 1 and 2 kept the built-in run's BLAS here, and wrote a host for every source. */
    return read_host(r, o, &rm->host) && (r->version >= 3 || read_blas(r, o, "blas_", &rm->builtin.blas));
}
static bool read_collection_obj(reader *r, const cJSON *o, void *m) { return read_collection(r, o, &((run_model *)m)->collection); }
static bool read_blas_obj(reader *r, const cJSON *o, void *b) { return read_blas(r, o, "", b); }
static bool read_multi_obj(reader *r, const cJSON *o, void *m) { return read_multi(r, o, m); }

static bool read_devices(reader *r, const cJSON *root, run_model *m)
{
    const cJSON *devs = get_array(r, root, "devices");
    if (!devs)
        return false;
    int nd = cJSON_GetArraySize(devs);
    if (nd > 0 && !(m->devices = calloc((size_t)nd, sizeof *m->devices)))
        return fail(r, NULL, "out of memory");
    const cJSON *e;
    cJSON_ArrayForEach(e, devs) {
        size_t s = enter(r, "devices", m->ndevices);
        bool ok = cJSON_IsObject(e) ? read_device(r, e, &m->devices[m->ndevices]) : fail(r, NULL, "expected an object");
        leave(r, s);
        if (!ok)
            return false;
        m->ndevices++;
        r->ndevices = m->ndevices;
    }
    return true;
}

/* The workloads of o ("builtin" in version 3, the document in 1 and 2). */
static bool read_workloads(reader *r, const cJSON *o, run_model *m)
{
    const cJSON *wls = get_array(r, o, "workloads");
    if (!wls)
        return false;
    const split_array *sa = split_find(r, "workloads");
    int n = sa ? sa->n : cJSON_GetArraySize(wls);
    const cJSON *e = sa ? NULL : wls->child;
    for (int i = 0; i < n; i++) {
        cJSON *parsed = sa ? split_element(r, sa, i) : NULL;
        if (sa && !parsed)
            return false;
        const cJSON *el = sa ? parsed : e;
        workload_run *w = model_add_workload(m);
        size_t s = enter(r, "workloads", i);
        bool ok = !w ? fail(r, NULL, "out of memory")
                     : cJSON_IsObject(el) ? read_workload(r, el, m->epoch_ns, m->ndevices, w)
                                          : fail(r, NULL, "expected an object");
        leave(r, s);
        cJSON_Delete(parsed);
        if (!ok)
            return false;
        if (!sa)
            e = e->next;
    }
    return true;
}

static bool read_tool_phases(reader *r, const cJSON *o, run_model *m)
{
    builtin_run *b = &m->builtin;
    return read_phases(r, o, "tool_phases", m->epoch_ns, b->tool_phases,
                       (int)(sizeof b->tool_phases / sizeof b->tool_phases[0]), &b->ntool_phases);
}

/* Version 3's "builtin" section. */
static bool read_builtin(reader *r, const cJSON *o, void *dst)
{
    run_model *m = dst;
    builtin_run *b = &m->builtin;
    const cJSON *cfg = get_object(r, o, "config");
    size_t s = cfg ? enter_obj(r, "config") : 0;
    bool ok = cfg && read_config(r, cfg, true, b);
    if (cfg)
        leave(r, s);
    ok = ok && read_object(r, o, "blas", false, read_blas_obj, &b->blas) &&
         get_str(r, o, "gpu_skip_reason", true, b->gpu_skip_reason, sizeof b->gpu_skip_reason) &&
         read_tool_phases(r, o, m) && read_workloads(r, o, m) && read_object(r, o, "multi_gpu", true, read_multi_obj, m);
    return ok;
}

/* Each workload's region, as version 3 names it: a workload region of that workload, or -1 for
 * one that never ran. */
static bool check_workload_regions(reader *r, const run_model *m)
{
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        int g = m->builtin.workloads[i].region;
        if (g == -1 || (g < m->nregions && m->regions[g].kind == REGION_WORKLOAD && m->regions[g].workload == i))
            continue;
        size_t s = enter(r, "builtin.workloads", i);
        fail(r, "region", "is %d, not a workload region of this workload", g);
        leave(r, s);
        return false;
    }
    return true;
}

/* A version 2 file names each workload's region in its regions (a version 1 file has none: they
 * are made by model_finish_regions, which also moves the workloads' staged events into the store). */
static void link_workload_regions(run_model *m)
{
    for (int g = 0; g < m->nregions; g++)
        if (m->regions[g].kind == REGION_WORKLOAD && m->regions[g].workload >= 0)
            m->builtin.workloads[m->regions[g].workload].region = g;
}

static bool read_warnings(reader *r, const cJSON *root, run_model *m)
{
    const cJSON *warn = get_array(r, root, "warnings");
    if (!warn)
        return false;
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, warn) {
        if (!cJSON_IsString(e)) {
            size_t s = enter(r, "warnings", i);
            fail(r, NULL, "expected a string");
            leave(r, s);
            return false;
        }
        model_add_warning(m, "%s", e->valuestring);
        i++;
    }
    return true;
}

/* A long run's events in columns (event_columns.h): the names table from the tree, each kind's
 * columns from the file's text (or, for a tree made in memory, from its printed form). */
static bool read_columns(reader *r, const cJSON *ev, run_model *m)
{
    char form[16];
    if (!get_str(r, ev, "form", false, form, sizeof form))
        return false;
    if (strcmp(form, "columns") != 0)
        return fail(r, "form", "is '%s'; this mmprof reads \"columns\"", form);
    const cJSON *names = get_array(r, ev, "names");
    if (!names)
        return false;
    int nn = cJSON_GetArraySize(names);
    const char **table = malloc((size_t)(nn ? nn : 1) * sizeof *table);
    if (!table)
        return fail(r, NULL, "out of memory");
    int i = 0;
    for (const cJSON *e = names->child; e; e = e->next, i++)
        if (!cJSON_IsString(e)) {
            free(table);
            size_t s = enter(r, "names", i);
            bool ok = fail(r, NULL, "expected a string");
            leave(r, s);
            return ok;
        } else {
            table[i] = e->valuestring;
        }
    event_column_limits lim = {.names = table, .nnames = (size_t)nn, .ndevices = r->ndevices,
                               .nregions = r->nregions, .epoch = m->epoch_ns};
    bool ok = true;
    for (int k = 0; ok && k < 5; k++) {
        const char *kind = event_column_kinds[k];
        const split_array *sa = split_find(r, kind);
        char *printed = NULL;
        const char *text = NULL;
        size_t len = 0;
        if (sa && sa->span) {
            text = r->split->buf + sa->el[0][0];
            len = sa->el[0][1] - sa->el[0][0];
        } else {
            const cJSON *o = get_object(r, ev, kind);
            if (!o) {
                ok = false;
                break;
            }
            if (!(printed = cJSON_PrintUnformatted(o))) {
                ok = fail(r, NULL, "out of memory");
                break;
            }
            text = printed, len = strlen(printed);
        }
        char why[256];
        ok = event_columns_read(k, text, len, &lim, &m->events, why, sizeof why) || fail(r, NULL, "%s", why);
        free(printed);
    }
    free(table);
    return ok;
}

/* The run's own events: version 2 and 3's "events" (a version 1 file has none there). */
static bool read_store(reader *r, const cJSON *root, run_model *m)
{
    if (v1_default(r, root, "events"))
        return true;
    const cJSON *ev = get_object(r, root, "events");
    if (!ev)
        return false;
    size_t s = enter_obj(r, "events");
    bool ok = cJSON_HasObjectItem(ev, "form") ? read_columns(r, ev, m) : read_events(r, ev, "apis", m->epoch_ns, &m->events);
    leave(r, s);
    return ok;
}

static bool read_header(reader *r, const cJSON *root, run_model *m)
{
    if (!cJSON_IsObject(root))
        return fail(r, NULL, "the run file is not a JSON object");
    char schema[32];
    /* Checked before get_str, whose "schema: missing" would otherwise be the message. */
    if (!cJSON_GetObjectItemCaseSensitive(root, "schema"))
        return fail(r, NULL, "not an mmprof run file (no \"schema\": \"%s\")", RUN_SCHEMA_NAME);
    if (!get_str(r, root, "schema", false, schema, sizeof schema))
        return false;
    if (strcmp(schema, RUN_SCHEMA_NAME) != 0)
        return fail(r, "schema", "is '%s', not an mmprof run file", schema);
    if (!get_int(r, root, "schema_version", 0, INT32_MAX, &m->schema_version))
        return false;
    if (m->schema_version > MMPROF_SCHEMA_VERSION)
        return fail(r, "schema_version", "written by a newer mmprof: schema_version %d; this mmprof reads 1 to %d",
                    m->schema_version, MMPROF_SCHEMA_VERSION);
    if (m->schema_version < 1)
        return fail(r, "schema_version", "is %d; this mmprof reads 1 to %d", m->schema_version, MMPROF_SCHEMA_VERSION);
    r->version = m->schema_version;
    char cmd[4096];
    uint64_t epoch;
    if (!get_str(r, root, "tool_version", false, m->tool_version, sizeof m->tool_version) ||
        !get_str(r, root, "command_line", false, cmd, sizeof cmd) ||
        !get_str(r, root, "started_at", false, m->started_at, sizeof m->started_at) ||
        !parse_u64_string(r, root, "epoch_ns", true, &epoch))
        return false;
    m->epoch_ns = (int64_t)epoch;
    if (!(m->command_line = strdup(cmd)))
        return fail(r, NULL, "out of memory");
    char source[16];
    if (!v1_default(r, root, "source")) {
        if (!get_str(r, root, "source", false, source, sizeof source) ||
            !get_str(r, root, "source_file", true, m->source_file, sizeof m->source_file))
            return false;
        if (!run_source_parse(source, &m->source))
            return fail(r, "source", "expected builtin, kineto, nsys-sqlite or profile, not '%s'", source);
    }
    return true;
}

/* Versions 1 and 2: the built-in run's settings, tool phases, workloads and peer matrix at the
 * top of the document (written for every source, empty but for a built-in run). */
static bool read_builtin_v2(reader *r, const cJSON *root, run_model *m)
{
    const cJSON *cfg = get_object(r, root, "config");
    if (!cfg)
        return false;
    size_t s = enter_obj(r, "config");
    bool ok = read_config(r, cfg, source_has(m->source, HAS_WORKLOADS), &m->builtin);
    leave(r, s);
    return ok && read_counter_config_v2(r, root, cfg, m) &&
           get_str(r, root, "gpu_skip_reason", true, m->builtin.gpu_skip_reason, sizeof m->builtin.gpu_skip_reason) &&
           read_tool_phases(r, root, m) && read_workloads(r, root, m) &&
           read_object(r, root, "multi_gpu", true, read_multi_obj, m);
}

/* host_split's view of the reader's split arrays "OUTER.KEY" (OUTER "host_activity" or "memory"). */
typedef struct {
    reader *r;
    const char *outer;
} outer_split;

static const split_array *host_split_find(void *ctx, const char *key)
{
    const outer_split *o = ctx;
    const reader *r = o->r;
    char path[64];
    snprintf(path, sizeof path, "%s.%s", o->outer, key);
    for (int i = 0; r->split && i < r->split->narr; i++)
        if (strcmp(r->split->arr[i].path, path) == 0)
            return &r->split->arr[i];
    return NULL;
}

static int host_split_count(void *ctx, const char *key)
{
    const split_array *a = host_split_find(ctx, key);
    return a ? a->n : -1;
}

static cJSON *host_split_element(void *ctx, const char *key, int i)
{
    return split_element(((outer_split *)ctx)->r, host_split_find(ctx, key), i);
}

/* The run's host activity, where it has some (host_json.c reads it; its arrays element by element
 * where the document was split). */
static bool read_host_activity(reader *r, const cJSON *root, run_model *m)
{
    char msg[256] = "";
    outer_split o = {r, "host_activity"};
    host_split split = {&o, host_split_count, host_split_element};
    return host_json_read(root, m->epoch_ns, &split, &m->host_activity, msg, sizeof msg) || fail(r, NULL, "%s", msg);
}

/* The run's memory activity, where it has some (memory_json.c; after the host activity, whose
 * frames its live sets name). */
static bool read_memory(reader *r, const cJSON *root, run_model *m)
{
    char msg[256] = "";
    outer_split o = {r, "memory"};
    host_split split = {&o, host_split_count, host_split_element};
    return memory_json_read(root, m->epoch_ns, &split, &m->host_activity, &m->memory, msg, sizeof msg) ||
           fail(r, NULL, "%s", msg);
}

static bool read_root(reader *r, const cJSON *root, run_model *m)
{
    if (!read_header(r, root, m))
        return false;
    bool v3 = r->version >= 3;
    bool ok = read_object(r, root, "host", v3, read_host_obj, m) &&
              read_object(r, root, "collection", false, read_collection_obj, m) && read_devices(r, root, m) &&
              (v3 ? read_counter_info(r, root, &m->counters) &&
                        read_object(r, root, "builtin", !source_has(m->source, HAS_WORKLOADS), read_builtin, m)
                  : read_builtin_v2(r, root, m)) &&
              (v1_default(r, root, "regions") || read_each(r, root, "regions", m->epoch_ns, m, read_region, true)) &&
              read_store(r, root, m) && (v3 ? check_workload_regions(r, m) : (link_workload_regions(m), true)) &&
              (v1_default(r, root, "processes") || read_each(r, root, "processes", m->epoch_ns, m, read_process, true)) &&
              (v1_default(r, root, "threads") || read_each(r, root, "threads", m->epoch_ns, m, read_thread, true)) &&
              read_launch_counters(r, root, m) && read_warnings(r, root, m) && read_capture(r, root, m) &&
              read_host_activity(r, root, m) && read_memory(r, root, m);
    if (ok && !source_has(m->source, HAS_WORKLOADS) && m->builtin.nworkloads > 0)
        ok = fail(r, "source", "is %s, but the file holds built-in workloads", run_source_name(m->source));
    return ok;
}

bool model_from_json(const cJSON *root, run_model *m, char *err, size_t errlen)
{
    model_init(m);
    reader r = {.err = err, .errlen = errlen};
    if (!read_root(&r, root, m) ||
        /* A version 1 file (or one that has no regions) gets the whole-run region and the
         * built-in workloads' and phases' regions, as a run recorded now would have. */
        !(model_finish_regions(m, "mmprof run") || fail(&r, NULL, "out of memory"))) {
        model_free(m);
        return false;
    }
    return true;
}

/* ---------- reading a file ---------- */

/* Run files hold every event of a run: tens of MB at most. Refuse anything absurd rather than
 * try to allocate it. */
#define MAX_RUN_FILE_BYTES ((long)1 << 30)

/* How deeply the text before `at` is nested (brackets outside strings): cJSON gives up at
 * CJSON_NESTING_LIMIT levels, which is valid JSON it will not read, not a syntax error. */
static int depth_at(const char *buf, size_t at)
{
    int depth = 0, deepest = 0;
    bool in_str = false;
    for (size_t i = 0; i < at; i++) {
        char c = buf[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
        } else if (c == '"') {
            in_str = true;
        } else if (c == '[' || c == '{') {
            depth++;
            deepest = depth > deepest ? depth : deepest;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return deepest;
}

/* The message for text that cJSON stopped reading at byte `at` of buf (from `from`, where the
 * value it was reading began). */
/* cJSON answers NULL both for text that is not JSON and for memory that ran out, so its
 * allocations come through here (installed at the first read), which notes the second: under a
 * memory limit a run file is then said to have run out of memory, not to be broken. */
static _Thread_local bool cjson_ran_out;

static void *cjson_malloc(size_t n)
{
    void *p = malloc(n);
    cjson_ran_out |= p == NULL;
    return p;
}

static void cjson_hooks(void)
{
    cJSON_Hooks h = {cjson_malloc, free};
    cJSON_InitHooks(&h);
}

/* The message for a fault at byte at of the text (from: where the value being read began). Where
 * the text left a value out as it was read (drop), the byte is the file's; lines are the same
 * either way (the value's newlines were kept). */
static void syntax_error(const char *name, const char *buf, size_t len, size_t from, size_t at,
                         const member_drop *drop, char *err, size_t errlen)
{
    int line = 1;
    for (size_t i = 0; i < at && i < len; i++)
        line += buf[i] == '\n';
    unsigned long long byte = drop ? md_original(drop, at) : at;
    if (cjson_ran_out)
        snprintf(err, errlen, "run file '%s': out of memory while reading it (near byte %llu, line %d)", name, byte,
                 line);
    else if (depth_at(buf + from, (at < len ? at + 1 : len) - from) > CJSON_NESTING_LIMIT)
        snprintf(err, errlen, "run file '%s' is nested deeper than %d levels (near byte %llu, line %d)", name,
                 CJSON_NESTING_LIMIT, byte, line);
    else
        snprintf(err, errlen, "run file '%s' is not valid JSON (near byte %llu, line %d)", name, byte, line);
}

/* Records the elements of the array whose '[' is next in s as d's array path. */
static bool split_elements(json_stream *s, split_doc *d, const char *path)
{
    if (d->narr == (int)(sizeof d->arr / sizeof d->arr[0]))
        return false;
    split_array *a = &d->arr[d->narr++];
    memset(a, 0, sizeof *a);
    copy_str(a->path, sizeof a->path, path);
    js_next(s); /* '[' */
    if (js_peek(s) == ']') {
        js_next(s);
        return true;
    }
    for (;;) {
        const char *text;
        size_t len;
        uint64_t off;
        if (js_value(s, false, 0, &text, &len, &off) != JS_OK)
            return false;
        if (a->n == a->cap) {
            a->cap = a->cap ? 2 * a->cap : 1024;
            /* an element's place per event or sample: spill.h's */
            size_t(*p)[2] = spill_resize(a->el, (size_t)a->n * sizeof *p, (size_t)a->cap * sizeof *p);
            if (!p)
                return false;
            a->el = p;
        }
        a->el[a->n][0] = (size_t)off;
        a->el[a->n][1] = (size_t)js_offset(s);
        a->n++;
        int c = js_peek(s);
        js_next(s);
        if (c == ']')
            return true;
        if (c != ',')
            return false;
    }
}

/* Records the value that starts next in s (an object) as d's path, whole. */
static bool split_span(json_stream *s, split_doc *d, const char *path)
{
    if (d->narr == (int)(sizeof d->arr / sizeof d->arr[0]))
        return false;
    const char *text;
    size_t len;
    uint64_t off;
    if (js_value(s, false, 0, &text, &len, &off) != JS_OK)
        return false;
    split_array *a = &d->arr[d->narr++];
    memset(a, 0, sizeof *a);
    copy_str(a->path, sizeof a->path, path);
    if (!(a->el = malloc(sizeof *a->el)))
        return false;
    a->el[0][0] = (size_t)off;
    a->el[0][1] = (size_t)js_offset(s);
    a->n = 1, a->cap = 1, a->span = true;
    return true;
}

/* The value that starts next in s, parsed alone and added to o as key (nothing when it is not
 * valid JSON: the caller sees it missing). */
static void inner_value(json_stream *s, split_doc *d, cJSON *o, const char *key)
{
    const char *text;
    size_t len;
    uint64_t off;
    if (js_value(s, false, 0, &text, &len, &off) != JS_OK)
        return;
    const char *stop = NULL;
    size_t end = (size_t)js_offset(s);
    cJSON *v = cJSON_ParseWithLengthOpts(d->buf + off, end - (size_t)off, &stop, false);
    if (!v || stop != d->buf + end || !cJSON_AddItemToObject(o, key, v))
        cJSON_Delete(v);
}

/* The key of the member that starts next in s, into key (false when it is not a plain string). */
static bool member_key(json_stream *s, char *key, size_t len)
{
    const char *text;
    size_t n;
    uint64_t off;
    if (js_peek(s) != '"' || js_value(s, true, 256, &text, &n, &off) != JS_OK)
        return false;
    cJSON *k = cJSON_ParseWithLength(text, n);
    bool ok = cJSON_IsString(k);
    if (ok)
        copy_str(key, len, k->valuestring);
    cJSON_Delete(k);
    if (!ok || js_peek(s) != ':')
        return false;
    js_next(s);
    return true;
}

/* The members a report writes beside the run, which the reader recomputes instead of reading
 * (json_report.c): a long run's "analysis" is a third of its file. */
static bool derived_member(const char *key)
{
    return strcmp(key, "summary") == 0 || strcmp(key, "analysis") == 0;
}

/* How a member of "events" or "host_activity" is read (split_members). */
typedef enum { KEEP_IN_TREE, SPLIT_ELEMENTS, SPLIT_WHOLE } split_how;

static split_how split_kind(const char *outer, const char *inner, int c)
{
    if (strcmp(outer, "events") == 0) /* one event per element, or a kind's columns (event_columns.h) */
        return c == '[' && strcmp(inner, "names") != 0 ? SPLIT_ELEMENTS : c == '{' ? SPLIT_WHOLE : KEEP_IN_TREE;
    /* the memory activity's events and samples (memory_json.c): a trace's grow with its tensors */
    if (strcmp(outer, "memory") == 0)
        return c == '[' && (strcmp(inner, "events") == 0 || strcmp(inner, "samples") == 0) ? SPLIT_ELEMENTS : KEEP_IN_TREE;
    /* the host activity's record arrays (host_json.c): samples and sites grow with the run */
    bool records = strcmp(inner, "frames") == 0 || strcmp(inner, "samples") == 0 || strcmp(inner, "spans") == 0 ||
                   strcmp(inner, "sites") == 0;
    return c == '[' && records ? SPLIT_ELEMENTS : KEEP_IN_TREE;
}

/* The object whose '{' is next in s (outer's value), one level down: each member split_kind says
 * to split recorded in d (an empty array or object standing in for it in value), the others
 * parsed into value. */
static bool split_members(json_stream *s, split_doc *d, const char *outer, cJSON *value)
{
    js_next(s); /* '{' */
    bool ok = true, first = true;
    while (ok) {
        char inner[24], path[96];
        if (first && js_peek(s) == '}')
            break;
        first = false;
        ok = member_key(s, inner, sizeof inner) && !cJSON_HasObjectItem(value, inner);
        snprintf(path, sizeof path, "%s.%s", outer, inner);
        split_how how = ok ? split_kind(outer, inner, js_peek(s)) : KEEP_IN_TREE;
        if (ok && how == SPLIT_ELEMENTS)
            ok = cJSON_AddArrayToObject(value, inner) && split_elements(s, d, path);
        else if (ok && how == SPLIT_WHOLE)
            ok = cJSON_AddObjectToObject(value, inner) && split_span(s, d, path);
        else /* the columns' "form" and "names", the host activity's rate and counts */
            ok = ok && (inner_value(s, d, value, inner), true) && cJSON_HasObjectItem(value, inner);
        int sep = ok ? js_peek(s) : -1;
        if (sep == ',')
            js_next(s);
        else
            ok = ok && sep == '}';
        if (sep == '}')
            break;
    }
    js_next(s); /* '}' */
    return ok;
}

/* Walks the document's top level: every member's value is parsed alone into *root, but the
 * event arrays ("events".kernels, ... and an older file's "workloads") and the host activity's
 * record arrays (split_members), which are recorded in d element by element and stand in the
 * tree as empty arrays, and the derived members, which are
 * stepped over (their brackets and strings must close; nothing reads their values). False when
 * the text is not shaped as expected: the caller then parses it whole, so a malformed file gets
 * cJSON's own error. */
static bool split_document(split_doc *d, cJSON **root)
{
    json_stream s;
    js_attach_text(&s, d->buf, d->len);
    cJSON *doc = cJSON_CreateObject();
    bool ok = doc && js_peek(&s) == '{';
    if (ok)
        js_next(&s);
    if (ok && js_peek(&s) == '}')
        js_next(&s);
    else
        for (;;) {
            char key[64];
            if (!(ok = member_key(&s, key, sizeof key)))
                break;
            int c = js_peek(&s);
            cJSON *value = NULL;
            if ((strcmp(key, "events") == 0 || strcmp(key, "host_activity") == 0 || strcmp(key, "memory") == 0) && c == '{' &&
                !cJSON_HasObjectItem(doc, key)) {
                value = cJSON_CreateObject();
                ok = value && split_members(&s, d, key, value);
            } else if (strcmp(key, "workloads") == 0 && c == '[' && !cJSON_HasObjectItem(doc, key)) {
                value = cJSON_CreateArray();
                ok = value && split_elements(&s, d, "workloads");
            } else if (derived_member(key) && (c == '{' || c == '[')) {
                const char *text;
                size_t len;
                uint64_t off;
                ok = js_value(&s, false, 0, &text, &len, &off) == JS_OK;
                value = ok ? cJSON_CreateNull() : NULL; /* stands in for it */
                ok = value != NULL;
            } else {
                const char *text;
                size_t len;
                uint64_t off;
                ok = js_value(&s, false, 0, &text, &len, &off) == JS_OK;
                const char *stop = NULL;
                size_t end = (size_t)js_offset(&s);
                value = ok ? cJSON_ParseWithLengthOpts(d->buf + off, end - (size_t)off, &stop, false) : NULL;
                ok = value && stop == d->buf + end;
            }
            if (!ok || !cJSON_AddItemToObject(doc, key, value)) {
                cJSON_Delete(value);
                ok = false;
                break;
            }
            c = js_peek(&s);
            js_next(&s);
            if (c == '}')
                break;
            if (c != ',') {
                ok = false;
                break;
            }
        }
    ok = ok && js_peek(&s) < 0 && s.errno_saved == 0;
    js_close(&s);
    if (!ok) {
        cJSON_Delete(doc);
        return false;
    }
    *root = doc;
    return true;
}

static void split_free(split_doc *d)
{
    for (int i = 0; i < d->narr; i++)
        spill_free(d->arr[i].el);
    d->narr = 0;
}

/* model_read_text of a text that left drop's value out as it was read (NULL: the whole text). */
static bool read_text(const char *name, const char *buf, size_t len, const member_drop *drop, run_model *m,
                      char *err, size_t errlen)
{
    static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;
    pthread_once(&hooks_once, cjson_hooks);
    cjson_ran_out = false;
    model_init(m);
    /* JSON text has no NUL byte; one would cut a string short wherever it is read. */
    const char *nul = memchr(buf, '\0', len);
    if (nul) {
        syntax_error(name, buf, len, 0, (size_t)(nul - buf), drop, err, errlen);
        return false;
    }
    split_doc d = {.name = name, .buf = buf, .len = len, .drop = drop};
    cJSON *root = NULL;
    if (!split_document(&d, &root)) {
        split_free(&d);
        const char *end = NULL;
        root = cJSON_ParseWithLengthOpts(buf, len + 1, &end, true); /* the NUL included */
        if (!root) {
            syntax_error(name, buf, len, 0, end ? (size_t)(end - buf) : 0, drop, err, errlen);
            return false;
        }
    }
    char inner[384];
    reader r = {.err = inner, .errlen = sizeof inner, .split = &d};
    bool ok = read_root(&r, root, m);
    /* As model_from_json: the regions a version 1 file lacks. */
    if (ok && !model_finish_regions(m, "mmprof run")) {
        snprintf(inner, sizeof inner, "out of memory");
        ok = false;
    }
    if (!ok) {
        if (r.syntax)
            snprintf(err, errlen, "%s", inner);
        else
            snprintf(err, errlen, "run file '%s': %s", name, inner);
        model_free(m);
    }
    cJSON_Delete(root);
    split_free(&d);
    return ok;
}

bool model_read_text(const char *name, const char *buf, size_t len, run_model *m, char *err, size_t errlen)
{
    return read_text(name, buf, len, NULL, m, err, errlen);
}

/* A run file as users have it, like a trace (trace_input.h): a path, "-" for standard input, a
 * pipe; plain, gzip, zstd or xz, told by content. Read whole, the reader parsing members in its own
 * order, but for the "analysis" a report wrote beside the run (member_drop.h): the reader recomputes
 * it, and it is a third of a long run's text. */
bool model_read_file(const char *path, run_model *m, char *err, size_t errlen)
{
    model_init(m); /* empty on every failure, as model_from_json leaves it, so freeing it is safe */
    trace_input in;
    char why[320];
    if (!ti_open(&in, path, why, sizeof why)) {
        /* why is "NAME: reason"; the file is quoted here, as every run-file message quotes it */
        size_t n = strlen(in.name);
        const char *reason = strncmp(why, in.name, n) == 0 && why[n] == ':' ? why + n + 2 : why;
        snprintf(err, errlen, "cannot read run file '%s': %s", in.name, reason);
        return false;
    }
    enum { CHUNK = 65536 };
    char *buf = NULL, *chunk = malloc(CHUNK);
    size_t len = 0, cap = 0;
    bool ok = chunk != NULL;
    if (!ok)
        snprintf(err, errlen, "out of memory");
    member_drop drop;
    md_init(&drop, "analysis");
    while (ok) {
        if (len + CHUNK + 4 + 1 > cap) {
            cap = cap ? cap * 2 : 1 << 20;
            /* A long run's text is tens of MB: held as its events are (spill.h) */
            char *p = cap > (size_t)MAX_RUN_FILE_BYTES ? NULL : spill_resize(buf, len, cap);
            if (!p) {
                snprintf(err, errlen, "run file '%s' is too large", in.name);
                ok = false;
                break;
            }
            buf = p;
        }
        size_t got = ti_read(&in, chunk, CHUNK);
        len += md_take(&drop, chunk, got, buf + len);
        if (got == 0) {
            if (ti_failed(&in)) {
                snprintf(err, errlen, "cannot read run file '%s': %s", in.name, ti_error(&in));
                ok = false;
            }
            break;
        }
    }
    free(chunk);
    char name[sizeof in.name];
    copy_str(name, sizeof name, in.name);
    ti_close(&in);
    if (!ok) {
        spill_free(buf);
        return false;
    }
    buf[len] = '\0';
    ok = read_text(name, buf, len, &drop, m, err, errlen);
    spill_free(buf);
    return ok;
}
