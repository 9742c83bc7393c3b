/* Hardware counters in the run file: what was asked ("counters", or a version 1 or 2 "config"),
 * a built-in workload's counter pass, and profile --counters' launches ("launch_counters"). */
#include "model_json_parts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------- writing ---------- */

/* One kernel's counters: its name and every counter by key, null where it was not collected. */
static cJSON *make_counters(const void *a, size_t i, int64_t e)
{
    (void)e;
    const kernel_counters *k = &((const kernel_counters *)a)[i];
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_str(o, "kernel", k->name);
    for (int c = 0; ok && c < CTR_COUNT; c++)
        ok = mj_ok_add(o, counter_key((counter_id)c), isfinite(k->v[c]) ? cJSON_CreateNumber(k->v[c]) : cJSON_CreateNull());
    return mj_built(o, ok);
}

/* profile --counters: a profiled launch's counters and the launch they belong to. */
cJSON *make_launch_counters(const void *a, size_t i, int64_t e)
{
    const kernel_counters *k = &((const kernel_counters *)a)[i];
    cJSON *o = make_counters(a, i, e);
    bool ok = o && mj_add_num(o, "pid", k->pid) && mj_add_num(o, "device", k->device) && mj_add_num(o, "correlation", k->correlation);
    return mj_built(o, ok);
}

/* A workload's counter pass: written only where one was asked for, so files without counters
 * stay as they were. */
bool add_workload_counters(cJSON *o, const workload_run *w)
{
    if (w->ncounters == 0 && !w->counters_why[0])
        return true;
    cJSON *c = cJSON_CreateObject();
    bool ok = c && mj_add_str_or_null(c, "why", w->counters_why) &&
              mj_ok_add(c, "kernels", mj_array_of((size_t)w->ncounters, make_counters, w->counters, 0));
    return mj_ok_add(o, "counters", mj_built(c, ok));
}

/* Written only where counters were asked for, so other files stay as they were. */
cJSON *counters_json(const counter_info *c)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_bool(o, "asked", c->asked) &&
              mj_ok_add(o, "passes", c->passes > 0 ? cJSON_CreateNumber(c->passes) : cJSON_CreateNull()) &&
              mj_add_str_or_null(o, "why", c->why) && mj_add_str(o, "kernels", c->kernels) &&
              mj_ok_add(o, "max", c->max > 0 ? cJSON_CreateNumber((double)c->max) : cJSON_CreateNull()) &&
              (!c->from[0] || mj_add_str(o, "from", c->from));
    return mj_built(o, ok);
}

/* ---------- reading ---------- */

static bool read_counters(mj_reader *r, const cJSON *e, int64_t epoch, void *w)
{
    (void)epoch;
    kernel_counters k;
    memset(&k, 0, sizeof k);
    for (int c = 0; c < CTR_COUNT; c++) {
        k.v[c] = NAN;
        const char *key = counter_key((counter_id)c);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, key);
        if (v && !cJSON_IsNull(v) && !mj_get_num(r, e, key, &k.v[c]))
            return false;
    }
    if (!mj_get_owned_str(r, e, "kernel", false, &k.name))
        return false;
    bool ok = workload_add_counters(w, &k) || mj_fail(r, NULL, "out of memory");
    free(k.name);
    return ok;
}

static bool read_one_launch(mj_reader *r, const cJSON *e, int64_t epoch, void *m)
{
    (void)epoch;
    workload_run tmp;
    memset(&tmp, 0, sizeof tmp);
    bool ok = read_counters(r, e, 0, &tmp);
    if (ok && tmp.ncounters == 1) {
        kernel_counters *k = &tmp.counters[0];
        ok = mj_get_u32(r, e, "pid", &k->pid) && mj_get_u32(r, e, "device", &k->device) &&
             mj_get_u32(r, e, "correlation", &k->correlation);
        if (ok && k->device >= (uint32_t)((run_model *)m)->ndevices)
            ok = mj_fail(r, "device", "no such device in the run");
        ok = ok && (model_add_launch_counters(m, k) || mj_fail(r, NULL, "out of memory"));
    }
    workload_clear(&tmp);
    return ok;
}

/* profile --counters: the profiled launches (files without them have none). */
bool read_launch_counters(mj_reader *r, const cJSON *root, run_model *m)
{
    return mj_absent(root, "launch_counters") || mj_read_each(r, root, "launch_counters", m->epoch_ns, m, read_one_launch, true);
}

/* What was asked of the counters: version 3's "counters" object. */
bool read_counter_info(mj_reader *r, const cJSON *root, counter_info *c)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "counters");
    if (!o)
        return true;
    size_t s = mj_enter_obj(r, "counters");
    const cJSON *passes = cJSON_GetObjectItemCaseSensitive(o, "passes");
    const cJSON *max = cJSON_GetObjectItemCaseSensitive(o, "max");
    int n = 0;
    bool ok = cJSON_IsObject(o) ? mj_get_bool(r, o, "asked", &c->asked) &&
                                      (!passes || cJSON_IsNull(passes) || mj_get_int(r, o, "passes", 1, 100000, &c->passes)) &&
                                      mj_get_str(r, o, "why", true, c->why, sizeof c->why) &&
                                      mj_get_str(r, o, "kernels", true, c->kernels, sizeof c->kernels) &&
                                      (!max || cJSON_IsNull(max) || mj_get_int(r, o, "max", 1, 1000000, &n)) &&
                                      (mj_absent(o, "from") || mj_get_str(r, o, "from", false, c->from, sizeof c->from))
                                : mj_fail(r, NULL, "expected an object");
    c->max = n;
    mj_leave(r, s);
    return ok;
}

/* Versions 1 and 2 kept the counters' settings in "config": the built-in run's pass and its
 * reason, and a profile's --kernels and --max-kernels beside its launches. */
bool read_counter_config_v2(mj_reader *r, const cJSON *root, const cJSON *cfg, run_model *m)
{
    counter_info *c = &m->counters;
    const cJSON *passes = cJSON_GetObjectItemCaseSensitive(cfg, "counter_passes");
    const cJSON *max = cJSON_GetObjectItemCaseSensitive(cfg, "counter_max");
    int n = 0;
    size_t s = mj_enter_obj(r, "config");
    bool ok = (mj_absent(cfg, "counters") || mj_get_bool(r, cfg, "counters", &c->asked)) &&
              (!passes || cJSON_IsNull(passes) || mj_get_int(r, cfg, "counter_passes", 1, 100000, &c->passes)) &&
              (mj_absent(cfg, "counters_why") || mj_get_str(r, cfg, "counters_why", true, c->why, sizeof c->why)) &&
              (mj_absent(cfg, "counter_kernels") || mj_get_str(r, cfg, "counter_kernels", true, c->kernels, sizeof c->kernels)) &&
              (!max || cJSON_IsNull(max) || mj_get_int(r, cfg, "counter_max", 1, 1000000, &n));
    mj_leave(r, s);
    c->max = n;
    /* A profile with counters wrote its launches, none or more; its config said so only there. */
    if (!mj_absent(root, "launch_counters"))
        c->asked = true;
    return ok;
}

/* A workload's "counters" object, when it has one (files from before counters have none). */
bool read_workload_counters(mj_reader *r, const cJSON *e, workload_run *w)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(e, "counters");
    if (!c)
        return true;
    size_t s = mj_enter_obj(r, "counters");
    bool ok = cJSON_IsObject(c) ? mj_get_str(r, c, "why", true, w->counters_why, sizeof w->counters_why) &&
                                      mj_read_each(r, c, "kernels", 0, w, read_counters, true)
                                : mj_fail(r, NULL, "expected an object");
    mj_leave(r, s);
    return ok;
}
