/* The built-in run's section of the run file ("builtin": settings, BLAS, tool phases, workloads with
 * their NVML readings, and a --devices run's peer matrix), and where versions 1 and 2 kept it: at
 * the top of the document. */
#include "model_json_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

/* ---------- writing ---------- */

static cJSON *occ_json(const occupancy_check *c)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_str(o, "kernel", c->kernel) && mj_add_num(o, "block_size", c->block_size) &&
              mj_add_num(o, "dynamic_smem", c->dynamic_smem) && mj_add_num(o, "registers", c->registers) &&
              mj_add_num(o, "static_smem", c->static_smem) &&
              mj_add_num(o, "runtime_blocks_per_sm", c->runtime_blocks_per_sm);
    return mj_built(o, ok);
}
static cJSON *make_occ(const void *a, size_t i, int64_t e) { (void)e; return occ_json(&((const occupancy_check *)a)[i]); }
static cJSON *make_phase(const void *a, size_t i, int64_t e)
{
    const phase *p = &((const phase *)a)[i];
    cJSON *o = cJSON_CreateObject();
    return mj_built(o, o && mj_add_str(o, "name", p->name) && mj_add_time(o, "start_ns", p->start_ns, e) &&
                        mj_add_time(o, "end_ns", p->end_ns, e));
}
static cJSON *make_product_ms(const void *a, size_t i, int64_t e)
{
    (void)e;
    return cJSON_CreateNumber(((const double *)a)[i]);
}

/* A figure NVML did not give (-1) is null. */
static bool add_int_or_null(cJSON *o, const char *k, int v)
{
    return mj_ok_add(o, k, v >= 0 ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static cJSON *reading_json(const device_reading *r)
{
    cJSON *o = cJSON_CreateObject();
    return mj_built(o, o && add_int_or_null(o, "sm_clock_mhz", r->sm_mhz) &&
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
    return mj_add_num(o, mask_key, (double)mask) && mj_ok_add(o, names_key, names);
}

static cJSON *with_reasons(cJSON *reading, uint64_t mask)
{
    return mj_built(reading, reading && add_reasons(reading, "clock_event_mask", "clock_event_reasons", mask));
}

static cJSON *device_state_json(const device_state *d)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_bool(o, "valid", d->valid) && mj_add_str_or_null(o, "reason", d->reason);
    if (ok && d->valid) {
        int npids = 0;
        while (npids < DEVICE_STATE_MAX_PIDS && d->other_pid[npids])
            npids++;
        ok = add_int_or_null(o, "sm_clock_max_mhz", d->sm_clock_max_mhz) &&
             add_int_or_null(o, "mem_clock_max_mhz", d->mem_clock_max_mhz) &&
             mj_ok_add(o, "power_limit_mw", d->power_limit_mw > 0 ? cJSON_CreateNumber(d->power_limit_mw) : cJSON_CreateNull()) &&
             mj_add_num(o, "samples", d->samples) &&
             mj_ok_add(o, "before", with_reasons(reading_json(&d->before), d->before_reasons)) &&
             mj_ok_add(o, "after", with_reasons(reading_json(&d->after), d->after_reasons)) &&
             mj_ok_add(o, "low", reading_json(&d->low)) && mj_ok_add(o, "high", reading_json(&d->high)) &&
             add_int_or_null(o, "busy_sm_clock_min_mhz", d->busy_sm_min_mhz) &&
             add_reasons(o, "clock_event_mask", "clock_event_reasons", d->reasons) &&
             mj_add_num(o, "other_processes", d->other_pids) &&
             mj_ok_add(o, "other_pids", cJSON_CreateIntArray((const int *)d->other_pid, npids));
    }
    return mj_built(o, ok);
}

static cJSON *workload_json(const workload_run *w, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok =
        mj_add_str(o, "name", w->name) && mj_add_str(o, "host_memory", mem_kind_name(w->host_memory)) &&
        mj_add_bool(o, "needs_gpu", w->needs_gpu) && mj_add_str(o, "precision", precision_name(w->prec)) &&
        mj_add_str(o, "status", status_name(w->status)) && mj_add_str_or_null(o, "status_reason", w->status_reason) &&
        mj_ok_add(o, "device", w->device >= 0 ? cJSON_CreateNumber(w->device) : cJSON_CreateNull()) &&
        mj_add_num(o, "n", w->n) && mj_add_num(o, "repeat", w->repeat) && mj_add_num(o, "launched", w->launched) &&
        mj_add_num(o, "samples", w->samples) &&
        mj_ok_add(o, "noise_pct", w->noise_pct >= 0 ? cJSON_CreateNumber(w->noise_pct) : cJSON_CreateNull()) &&
        mj_add_str_or_null(o, "stopped_by", w->stopped_by != STOP_UNKNOWN ? sample_stop_name(w->stopped_by) : NULL) &&
        mj_add_str(o, "timing", timing_source_name(w->timing)) &&
        mj_ok_add(o, "phases", mj_array_of((size_t)w->nphases, make_phase, w->phases, epoch)) &&
        mj_add_num(o, "region", w->region > 0 ? w->region : -1) &&
        mj_ok_add(o, "product_ms", mj_array_of((size_t)w->nproduct_ms, make_product_ms, w->product_ms, epoch)) &&
        mj_ok_add(o, "occupancy_checks", mj_array_of((size_t)w->nocc, make_occ, w->occ, epoch));
    cJSON *ver = ok ? cJSON_CreateObject() : NULL;
    ok = ok && ver && mj_ok_add(o, "verification", ver) &&
         mj_ok_add(ver, "rel_error", w->verified ? cJSON_CreateNumber(w->rel_error) : cJSON_CreateNull()) &&
         mj_add_num(ver, "bound", w->error_bound);
    /* Only in a --devices run: which pass it ran in. */
    if (ok && w->pass != PASS_ALONE)
        ok = mj_add_str(o, "pass", device_pass_name(w->pass));
    /* Only where it was sampled: CPU workloads and older files have none. */
    if (ok && w->device_state.recorded)
        ok = mj_ok_add(o, "device_state", device_state_json(&w->device_state));
    ok = ok && add_workload_counters(o, w);
    return mj_built(o, ok);
}

static cJSON *peer_copy_json(const peer_copy *c)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_bool(o, "measured", c->measured) &&
              mj_ok_add(o, "gbps", c->measured ? cJSON_CreateNumber(c->gbps) : cJSON_CreateNull()) &&
              mj_ok_add(o, "latency_us", c->measured ? cJSON_CreateNumber(c->latency_us) : cJSON_CreateNull()) &&
              mj_add_bool(o, "verified", c->verified) && mj_add_str_or_null(o, "why", c->why);
    return mj_built(o, ok);
}

static cJSON *make_peer(const void *a, size_t i, int64_t e)
{
    (void)e;
    const peer_pair *p = &((const peer_pair *)a)[i];
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_num(o, "src", p->src) && mj_add_num(o, "dst", p->dst) && mj_add_str(o, "link", p->link) &&
              mj_add_str_or_null(o, "link_detail", p->link_detail) &&
              mj_add_bool(o, "can_access_peer", p->can_access_peer) &&
              mj_ok_add(o, "staged", peer_copy_json(&p->copy[PEER_STAGED])) &&
              mj_ok_add(o, "direct", peer_copy_json(&p->copy[PEER_DIRECT]));
    return mj_built(o, ok);
}

/* A --devices run's GPUs and peer matrix (absent from other runs). */
static cJSON *multi_json(const multi_gpu_info *g)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_ok_add(o, "devices", cJSON_CreateIntArray(g->devices, g->ndevices)) &&
              mj_add_num(o, "copy_bytes", (double)g->copy_bytes) && mj_add_num(o, "copy_reps", g->copy_reps) &&
              mj_add_num(o, "latency_bytes", (double)g->latency_bytes) &&
              mj_add_num(o, "latency_reps", g->latency_reps) && mj_add_str_or_null(o, "peer_matrix_why", g->why) &&
              mj_ok_add(o, "peers", mj_array_of((size_t)g->npairs, make_peer, g->pairs, 0));
    return mj_built(o, ok);
}

static cJSON *builtin_config_json(const builtin_run *b)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_num(o, "n", b->n) && mj_ok_add(o, "seed", mj_int64_string((int64_t)b->seed, false)) &&
              mj_ok_add(o, "repeat", b->repeat_requested > 0 ? cJSON_CreateNumber(b->repeat_requested) : cJSON_CreateNull()) &&
              mj_add_str(o, "host_memory", b->host_memory_requested) &&
              mj_ok_add(o, "sizes", cJSON_CreateIntArray(b->sizes, b->nsizes)) &&
              mj_ok_add(o, "max_noise_pct", b->max_noise_pct > 0 ? cJSON_CreateNumber(b->max_noise_pct) : cJSON_CreateNull()) &&
              mj_ok_add(o, "max_time_s", b->max_time_s > 0 ? cJSON_CreateNumber(b->max_time_s) : cJSON_CreateNull()) &&
              mj_add_bool(o, "cold_l2", b->cold_l2);
    return mj_built(o, ok);
}

static cJSON *blas_json(const blas_info *l)
{
    cJSON *o = cJSON_CreateObject();
    return mj_built(o, o && mj_add_str(o, "config", l->config) && mj_add_str(o, "version", l->version) &&
                        mj_add_str(o, "core", l->core) && mj_add_num(o, "threads", l->threads) &&
                        mj_add_str(o, "library", l->library));
}

/* The built-in run's section: settings, BLAS, the tool's phases, the workloads (each given to
 * hook, which may add to it) and a --devices run's peer matrix. */
bool write_builtin(json_writer *w, const run_model *m, workload_hook hook, void *ctx)
{
    const builtin_run *b = &m->builtin;
    bool ok =
        jw_open_object(w, "builtin") && jw_member(w, "config", builtin_config_json(b)) &&
        jw_member(w, "blas", blas_json(&b->blas)) &&
        jw_member(w, "gpu_skip_reason",
                  (b->gpu_skip_reason[0] ? cJSON_CreateString(b->gpu_skip_reason) : cJSON_CreateNull())) &&
        jw_member(w, "tool_phases", mj_array_of((size_t)b->ntool_phases, make_phase, b->tool_phases, m->epoch_ns)) &&
        jw_open_array(w, "workloads");
    for (int i = 0; ok && i < b->nworkloads; i++) {
        cJSON *o = workload_json(&b->workloads[i], m->epoch_ns);
        if (o && hook && !hook(o, i, ctx)) {
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

/* ---------- reading ---------- */

/* A number or null (null and absence keep *out). */
static bool get_num_or_null(mj_reader *r, const cJSON *o, const char *key, double lo, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return true;
    if (!mj_get_num(r, o, key, out))
        return false;
    return *out >= lo || mj_fail(r, key, "expected a number from %g", lo);
}

static bool read_phases(mj_reader *r, const cJSON *o, const char *key, int64_t epoch, phase *out, int max, int *n)
{
    const cJSON *arr = mj_get_array(r, o, key);
    if (!arr)
        return false;
    if (cJSON_GetArraySize(arr) > max)
        return mj_fail(r, key, "more than %d phases", max);
    *n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
        size_t s = mj_enter(r, key, *n);
        phase *p = &out[*n];
        bool ok = cJSON_IsObject(e) ? (mj_get_str(r, e, "name", false, p->name, sizeof p->name) &&
                                       mj_read_interval(r, e, epoch, &p->start_ns, &p->end_ns))
                                    : mj_fail(r, NULL, "expected an object");
        mj_leave(r, s);
        if (!ok)
            return false;
        (*n)++;
    }
    return true;
}

static bool read_occ(mj_reader *r, const cJSON *e, int64_t epoch, void *w)
{
    (void)epoch;
    occupancy_check c;
    memset(&c, 0, sizeof c);
    if (!mj_get_str(r, e, "kernel", false, c.kernel, sizeof c.kernel) ||
        !mj_get_int(r, e, "block_size", 1, 4096, &c.block_size) ||
        !mj_get_int(r, e, "dynamic_smem", 0, 1 << 30, &c.dynamic_smem) ||
        !mj_get_int(r, e, "registers", 0, 65536, &c.registers) ||
        !mj_get_int(r, e, "static_smem", 0, 1 << 30, &c.static_smem) ||
        !mj_get_int(r, e, "runtime_blocks_per_sm", 0, 4096, &c.runtime_blocks_per_sm))
        return false;
    return workload_add_occ(w, &c) || mj_fail(r, NULL, "out of memory");
}

static bool read_product_ms(mj_reader *r, const cJSON *e, int64_t epoch, void *w)
{
    (void)epoch;
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0)
        return mj_fail(r, NULL, "expected a non-negative number");
    return workload_add_product_ms(w, e->valuedouble) || mj_fail(r, NULL, "out of memory");
}

/* An integer from 0 to hi, or null read as -1 (NVML gave none). */
static bool get_int_or_null(mj_reader *r, const cJSON *o, const char *key, int hi, int *out)
{
    const cJSON *v = mj_field(r, o, key);
    if (!v)
        return false;
    if (cJSON_IsNull(v)) {
        *out = -1;
        return true;
    }
    return mj_get_int(r, o, key, 0, hi, out);
}

static bool read_reading(mj_reader *r, const cJSON *o, const char *key, device_reading *out, uint64_t *mask)
{
    const cJSON *v = mj_get_object(r, o, key);
    if (!v)
        return false;
    size_t s = mj_enter_obj(r, key);
    bool ok = get_int_or_null(r, v, "sm_clock_mhz", 1 << 20, &out->sm_mhz) &&
              get_int_or_null(r, v, "mem_clock_mhz", 1 << 20, &out->mem_mhz) &&
              get_int_or_null(r, v, "power_mw", INT32_MAX, &out->power_mw) &&
              get_int_or_null(r, v, "temp_c", 1000, &out->temp_c) &&
              (!mask || mj_get_u64(r, v, "clock_event_mask", mask));
    mj_leave(r, s);
    return ok;
}

/* device_state (optional: files from before it existed load without it). The reasons are read
 * from the mask; their names beside it are for people. */
static bool read_device_state(mj_reader *r, const cJSON *o, device_state *d)
{
    memset(d, 0, sizeof *d);
    d->recorded = true;
    if (!mj_get_bool(r, o, "valid", &d->valid) || !mj_get_str(r, o, "reason", true, d->reason, sizeof d->reason))
        return false;
    if (!d->valid)
        return true;
    const cJSON *pids = mj_get_array(r, o, "other_pids");
    if (!pids ||
        !get_int_or_null(r, o, "sm_clock_max_mhz", 1 << 20, &d->sm_clock_max_mhz) ||
        !get_int_or_null(r, o, "mem_clock_max_mhz", 1 << 20, &d->mem_clock_max_mhz) ||
        !get_int_or_null(r, o, "power_limit_mw", INT32_MAX, &d->power_limit_mw) ||
        !mj_get_int(r, o, "samples", 0, INT32_MAX, &d->samples) ||
        !read_reading(r, o, "before", &d->before, &d->before_reasons) ||
        !read_reading(r, o, "after", &d->after, &d->after_reasons) ||
        !read_reading(r, o, "low", &d->low, NULL) || !read_reading(r, o, "high", &d->high, NULL) ||
        !get_int_or_null(r, o, "busy_sm_clock_min_mhz", 1 << 20, &d->busy_sm_min_mhz) ||
        !mj_get_u64(r, o, "clock_event_mask", &d->reasons) ||
        !mj_get_int(r, o, "other_processes", 0, INT32_MAX, &d->other_pids))
        return false;
    if (d->power_limit_mw < 0)
        d->power_limit_mw = 0;
    int i = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, pids) {
        if (!cJSON_IsNumber(p) || p->valuedouble != floor(p->valuedouble) || p->valuedouble < 1 ||
            p->valuedouble > UINT32_MAX)
            return mj_fail(r, "other_pids", "expected an array of process ids");
        if (i < DEVICE_STATE_MAX_PIDS)
            d->other_pid[i++] = (uint32_t)p->valuedouble;
    }
    return true;
}

/* A sweep's sizes: at most MAX_SWEEP_SIZES whole numbers from 1. */
static bool read_sizes(mj_reader *r, const cJSON *cfg, builtin_run *m)
{
    if (mj_absent(cfg, "sizes"))
        return true;
    const cJSON *a = mj_get_array(r, cfg, "sizes");
    if (!a)
        return false;
    if (cJSON_GetArraySize(a) > MAX_SWEEP_SIZES)
        return mj_fail(r, "sizes", "more than %d sizes", MAX_SWEEP_SIZES);
    const cJSON *e;
    cJSON_ArrayForEach(e, a) {
        if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || e->valuedouble < 1 ||
            e->valuedouble > INT32_MAX)
            return mj_fail(r, "sizes", "expected whole numbers from 1");
        m->sizes[m->nsizes++] = (int)e->valuedouble;
    }
    return true;
}

/* A workload. Versions 1 and 2 kept its events inside it: they are staged in w->timed, to join
 * the store, owned by the workload's region, when model_finish_regions runs. */
static bool read_workload(mj_reader *r, const cJSON *e, int64_t epoch, int ndevices, workload_run *w)
{
    char mem[16], prec[16], status[16], timing[16];
    if (!mj_get_str(r, e, "name", false, w->name, sizeof w->name) ||
        !mj_get_str(r, e, "host_memory", false, mem, sizeof mem) || !mj_get_bool(r, e, "needs_gpu", &w->needs_gpu) ||
        !mj_get_str(r, e, "precision", false, prec, sizeof prec) ||
        !mj_get_str(r, e, "status", false, status, sizeof status) ||
        !mj_get_str(r, e, "status_reason", true, w->status_reason, sizeof w->status_reason) ||
        !mj_get_int(r, e, "repeat", 0, INT32_MAX, &w->repeat) ||
        !mj_get_int(r, e, "launched", 0, INT32_MAX, &w->launched) ||
        !mj_get_str(r, e, "timing", false, timing, sizeof timing) ||
        /* w->n is the run's n here: a built-in workload multiplies at least 1 x 1, an import's 0. */
        !(mj_absent(e, "n") || mj_get_int(r, e, "n", w->n > 0 ? 1 : 0, INT32_MAX, &w->n)) ||
        !(mj_absent(e, "samples") || mj_get_int(r, e, "samples", 0, INT32_MAX, &w->samples)) ||
        !get_num_or_null(r, e, "noise_pct", 0, &w->noise_pct))
        return false;
    const cJSON *stop = cJSON_GetObjectItemCaseSensitive(e, "stopped_by");
    if (stop && !cJSON_IsNull(stop) && (!cJSON_IsString(stop) || !sample_stop_parse(stop->valuestring, &w->stopped_by)))
        return mj_fail(r, "stopped_by", "expected noise, time, repeat, max-samples or null");
    if (!mem_kind_parse(mem, &w->host_memory))
        return mj_fail(r, "host_memory", "unknown memory kind '%s'", mem);
    if (!precision_parse(prec, &w->prec))
        return mj_fail(r, "precision", "expected fp32 or tf32");
    if (!status_parse(status, &w->status))
        return mj_fail(r, "status", "expected ok, failed, error or skipped");
    if (!timing_source_parse(timing, &w->timing))
        return mj_fail(r, "timing", "expected none, cupti, cudaEvent or host-clock");
    const cJSON *dev = mj_field(r, e, "device");
    if (!dev)
        return false;
    if (cJSON_IsNull(dev))
        w->device = -1;
    else if (!mj_get_int(r, e, "device", 0, ndevices > 0 ? ndevices - 1 : 0, &w->device) || ndevices == 0)
        return mj_fail(r, "device", "names no recorded device");
    if (!read_phases(r, e, "phases", epoch, w->phases, MAX_PHASES, &w->nphases) ||
        /* the region is checked once the regions are read */
        (r->version < 3 ? !read_events(r, e, "api_calls", epoch, &w->timed)
                        : !mj_get_int(r, e, "region", -1, INT32_MAX, &w->region)) ||
        !mj_read_each(r, e, "product_ms", epoch, w, read_product_ms, false) ||
        !mj_read_each(r, e, "occupancy_checks", epoch, w, read_occ, true))
        return false;
    const cJSON *ver = mj_get_object(r, e, "verification");
    if (!ver)
        return false;
    size_t s = mj_enter_obj(r, "verification");
    const cJSON *rel = mj_field(r, ver, "rel_error");
    bool ok = rel && mj_get_num(r, ver, "bound", &w->error_bound);
    if (ok && !cJSON_IsNull(rel)) {
        /* NaN is written as null by cJSON, so a failed comparison reads back as unverified. */
        ok = mj_get_num(r, ver, "rel_error", &w->rel_error);
        w->verified = ok;
    }
    mj_leave(r, s);
    char pass[16];
    if (ok && !mj_absent(e, "pass")) {
        ok = mj_get_str(r, e, "pass", false, pass, sizeof pass);
        if (ok && !device_pass_parse(pass, &w->pass))
            ok = mj_fail(r, "pass", "expected alone, sequential or concurrent");
    }
    const cJSON *ds = cJSON_GetObjectItemCaseSensitive(e, "device_state");
    if (ok && ds) {
        s = mj_enter_obj(r, "device_state");
        ok = cJSON_IsObject(ds) ? read_device_state(r, ds, &w->device_state) : mj_fail(r, NULL, "expected an object");
        mj_leave(r, s);
    }
    return ok && read_workload_counters(r, e, w);
}

static bool read_peer_copy(mj_reader *r, const cJSON *o, const char *key, peer_copy *c)
{
    const cJSON *e = mj_get_object(r, o, key);
    if (!e)
        return false;
    size_t s = mj_enter_obj(r, key);
    bool ok = mj_get_bool(r, e, "measured", &c->measured) && mj_get_bool(r, e, "verified", &c->verified) &&
              mj_get_str(r, e, "why", true, c->why, sizeof c->why) &&
              (!c->measured || (mj_get_num(r, e, "gbps", &c->gbps) && mj_get_num(r, e, "latency_us", &c->latency_us)));
    if (ok && c->measured && (c->gbps < 0 || c->latency_us < 0))
        ok = mj_fail(r, c->gbps < 0 ? "gbps" : "latency_us", "expected a figure from 0");
    mj_leave(r, s);
    return ok;
}

static bool read_peer(mj_reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    (void)epoch;
    multi_gpu_info *g = dst;
    peer_pair *p = &g->pairs[g->npairs];
    memset(p, 0, sizeof *p);
    int hi = r->ndevices > 0 ? r->ndevices - 1 : 0;
    if (!mj_get_int(r, e, "src", 0, hi, &p->src) || !mj_get_int(r, e, "dst", 0, hi, &p->dst) ||
        !mj_get_str(r, e, "link", false, p->link, sizeof p->link) ||
        !mj_get_str(r, e, "link_detail", true, p->link_detail, sizeof p->link_detail) ||
        !mj_get_bool(r, e, "can_access_peer", &p->can_access_peer) ||
        !read_peer_copy(r, e, "staged", &p->copy[PEER_STAGED]) || !read_peer_copy(r, e, "direct", &p->copy[PEER_DIRECT]))
        return false;
    if (p->src == p->dst)
        return mj_fail(r, "dst", "a pair's two GPUs are the same (%d)", p->src);
    g->npairs++;
    return true;
}

static bool read_multi(mj_reader *r, const cJSON *o, run_model *m)
{
    multi_gpu_info *g = &m->builtin.multi;
    const cJSON *devs = mj_get_array(r, o, "devices");
    if (!devs)
        return false;
    const cJSON *e;
    cJSON_ArrayForEach(e, devs) {
        if (g->ndevices >= MAX_RUN_DEVICES || !cJSON_IsNumber(e) || e->valuedouble < 0 ||
            e->valuedouble >= m->ndevices || e->valuedouble != (int)e->valuedouble)
            return mj_fail(r, "devices", "expected at most %d indices of recorded devices (0 to %d)", MAX_RUN_DEVICES,
                           m->ndevices - 1);
        g->devices[g->ndevices++] = (int)e->valuedouble;
    }
    const cJSON *peers = mj_get_array(r, o, "peers");
    int np = peers ? cJSON_GetArraySize(peers) : 0;
    if (!peers || !mj_get_u64(r, o, "copy_bytes", &g->copy_bytes) || !mj_get_int(r, o, "copy_reps", 0, INT32_MAX, &g->copy_reps) ||
        !mj_get_u64(r, o, "latency_bytes", &g->latency_bytes) ||
        !mj_get_int(r, o, "latency_reps", 0, INT32_MAX, &g->latency_reps) ||
        !mj_get_str(r, o, "peer_matrix_why", true, g->why, sizeof g->why))
        return false;
    if (np > g->ndevices * (g->ndevices - 1))
        return mj_fail(r, "peers", "%d pairs for %d GPUs (at most %d)", np, g->ndevices,
                       g->ndevices * (g->ndevices - 1));
    if (np > 0 && !(g->pairs = calloc((size_t)np, sizeof *g->pairs)))
        return mj_fail(r, NULL, "out of memory");
    return mj_read_each(r, o, "peers", 0, g, read_peer, true);
}

/* BLAS: version 3's "blas" object, or the "blas_" members of an older file's "host". */
bool read_blas(mj_reader *r, const cJSON *o, const char *prefix, blas_info *b)
{
    char k[5][24];
    static const char *const names[] = {"config", "version", "core", "threads", "library"};
    for (int i = 0; i < 5; i++)
        snprintf(k[i], sizeof k[i], "%s%s", prefix, names[i]);
    return mj_get_str(r, o, k[0], false, b->config, sizeof b->config) &&
           mj_get_str(r, o, k[1], false, b->version, sizeof b->version) &&
           mj_get_str(r, o, k[2], false, b->core, sizeof b->core) && mj_get_int(r, o, k[3], 0, 1 << 20, &b->threads) &&
           mj_get_str(r, o, k[4], false, b->library, sizeof b->library);
}

/* A built-in run's settings ("config" in every version). A profile or import of version 1 or 2
 * wrote one too, with n 0: only a built-in run multiplies matrices. */
static bool read_config(mj_reader *r, const cJSON *cfg, bool builtin, builtin_run *b)
{
    const cJSON *rep = mj_field(r, cfg, "repeat");
    return mj_get_int(r, cfg, "n", builtin ? 1 : 0, INT32_MAX, &b->n) && mj_parse_u64_string(r, cfg, "seed", false, &b->seed) &&
           rep && (cJSON_IsNull(rep) || mj_get_int(r, cfg, "repeat", 1, INT32_MAX, &b->repeat_requested)) &&
           mj_get_str(r, cfg, "host_memory", false, b->host_memory_requested, sizeof b->host_memory_requested) &&
           get_num_or_null(r, cfg, "max_noise_pct", 0, &b->max_noise_pct) &&
           get_num_or_null(r, cfg, "max_time_s", 0, &b->max_time_s) &&
           (mj_absent(cfg, "cold_l2") || mj_get_bool(r, cfg, "cold_l2", &b->cold_l2)) && read_sizes(r, cfg, b);
}
static bool read_blas_obj(mj_reader *r, const cJSON *o, void *b) { return read_blas(r, o, "", b); }
static bool read_multi_obj(mj_reader *r, const cJSON *o, void *m) { return read_multi(r, o, m); }

/* One element of "workloads": a workload added to the model, then read into it. */
static bool read_one_workload(mj_reader *r, const cJSON *e, int64_t epoch, void *model)
{
    run_model *m = model;
    workload_run *w = model_add_workload(m);
    return w ? read_workload(r, e, epoch, m->ndevices, w) : mj_fail(r, NULL, "out of memory");
}

/* The workloads of o ("builtin" in version 3, the document in 1 and 2). */
static bool read_workloads(mj_reader *r, const cJSON *o, run_model *m)
{
    return mj_read_each(r, o, "workloads", m->epoch_ns, m, read_one_workload, true);
}

static bool read_tool_phases(mj_reader *r, const cJSON *o, run_model *m)
{
    builtin_run *b = &m->builtin;
    return read_phases(r, o, "tool_phases", m->epoch_ns, b->tool_phases,
                       (int)(sizeof b->tool_phases / sizeof b->tool_phases[0]), &b->ntool_phases);
}

/* Version 3's "builtin" section. */
bool read_builtin(mj_reader *r, const cJSON *o, void *dst)
{
    run_model *m = dst;
    builtin_run *b = &m->builtin;
    const cJSON *cfg = mj_get_object(r, o, "config");
    size_t s = cfg ? mj_enter_obj(r, "config") : 0;
    bool ok = cfg && read_config(r, cfg, true, b);
    if (cfg)
        mj_leave(r, s);
    ok = ok && mj_read_object(r, o, "blas", false, read_blas_obj, &b->blas) &&
         mj_get_str(r, o, "gpu_skip_reason", true, b->gpu_skip_reason, sizeof b->gpu_skip_reason) &&
         read_tool_phases(r, o, m) && read_workloads(r, o, m) && mj_read_object(r, o, "multi_gpu", true, read_multi_obj, m);
    return ok;
}

/* Each workload's region, as version 3 names it: a workload region of that workload, or -1 for
 * one that never ran. */
bool check_workload_regions(mj_reader *r, const run_model *m)
{
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        int g = m->builtin.workloads[i].region;
        if (g == -1 || (g < m->nregions && m->regions[g].kind == REGION_WORKLOAD && m->regions[g].workload == i))
            continue;
        size_t s = mj_enter(r, "builtin.workloads", i);
        mj_fail(r, "region", "is %d, not a workload region of this workload", g);
        mj_leave(r, s);
        return false;
    }
    return true;
}

/* A version 2 file names each workload's region in its regions (a version 1 file has none: they
 * are made by model_finish_regions, which also moves the workloads' staged events into the store). */
void link_workload_regions(run_model *m)
{
    for (int g = 0; g < m->nregions; g++)
        if (m->regions[g].kind == REGION_WORKLOAD && m->regions[g].workload >= 0)
            m->builtin.workloads[m->regions[g].workload].region = g;
}

/* Versions 1 and 2: the built-in run's settings, tool phases, workloads and peer matrix at the
 * top of the document (written for every source, empty but for a built-in run). */
bool read_builtin_v2(mj_reader *r, const cJSON *root, run_model *m)
{
    const cJSON *cfg = mj_get_object(r, root, "config");
    if (!cfg)
        return false;
    size_t s = mj_enter_obj(r, "config");
    bool ok = read_config(r, cfg, source_has(m->source, HAS_WORKLOADS), &m->builtin);
    mj_leave(r, s);
    return ok && read_counter_config_v2(r, root, cfg, m) &&
           mj_get_str(r, root, "gpu_skip_reason", true, m->builtin.gpu_skip_reason,
                      sizeof m->builtin.gpu_skip_reason) &&
           read_tool_phases(r, root, m) && read_workloads(r, root, m) &&
           mj_read_object(r, root, "multi_gpu", true, read_multi_obj, m);
}
