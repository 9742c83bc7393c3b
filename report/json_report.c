/* JSON output: model_to_json's tree with the derived figures added beside the raw ones. The
 * reader (model_from_json) ignores "metrics" and "analysis" and recomputes them, so a run file
 * always renders with the current analysis. */
#include "json_report.h"

#include <stdlib.h>

#include "model_json.h"

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
    if (!m->ok && !cJSON_AddStringToObject(o->missing, name, m->why))
        o->ok = false;
}

static bool kernel_metrics(cJSON *arr, const kernel_summary *s)
{
    cJSON *k = cJSON_CreateObject(), *missing = cJSON_CreateObject();
    if (!k || !missing || !cJSON_AddItemToArray(arr, k)) {
        cJSON_Delete(k);
        cJSON_Delete(missing);
        return false;
    }
    out o = {k, missing, true};
    o.ok = cJSON_AddStringToObject(k, "name", s->name) && cJSON_AddNumberToObject(k, "launches", s->launches);
    put(&o, "median_ms", &s->median_ms);
    put(&o, "occupancy_pct", &s->occupancy_pct);
    put(&o, "tflops", &s->tflops);
    if (o.ok && s->occupancy_pct.ok)
        o.ok = cJSON_AddNumberToObject(k, "active_blocks_per_sm", s->active_blocks) &&
               cJSON_AddStringToObject(k, "occupancy_limiter", s->limiter);
    if (!cJSON_AddItemToObject(k, "not_available", missing)) {
        cJSON_Delete(missing);
        return false;
    }
    return o.ok;
}

static bool workload_metrics_json(cJSON *w, const workload_metrics *r)
{
    cJSON *mj = cJSON_CreateObject(), *missing = cJSON_CreateObject();
    if (!mj || !missing || !cJSON_AddItemToObject(w, "metrics", mj)) {
        cJSON_Delete(mj);
        cJSON_Delete(missing);
        return false;
    }
    out o = {mj, missing, true};
    put(&o, "kernel_ms", &r->kernel_ms);
    put(&o, "kernel_total_ms", &r->kernel_total_ms);
    put(&o, "kernel_spread_pct", &r->kernel_spread_pct);
    put(&o, "h2d_ms", &r->h2d_ms);
    put(&o, "h2d_bytes", &r->h2d_bytes);
    put(&o, "h2d_gbps", &r->h2d_gbps);
    put(&o, "h2d_link_pct", &r->h2d_link_pct);
    put(&o, "d2h_ms", &r->d2h_ms);
    put(&o, "d2h_bytes", &r->d2h_bytes);
    put(&o, "d2h_gbps", &r->d2h_gbps);
    put(&o, "d2h_link_pct", &r->d2h_link_pct);
    put(&o, "copy_ms", &r->copy_ms);
    put(&o, "copy_compute_ratio", &r->copy_compute_ratio);
    put(&o, "e2e_ms", &r->e2e_ms);
    put(&o, "tflops", &r->tflops);
    put(&o, "tflops_e2e", &r->tflops_e2e);
    put(&o, "peak_pct", &r->peak_pct);
    put(&o, "busy_pct", &r->busy_pct);
    put(&o, "largest_gap_ms", &r->gap_ms);
    put(&o, "vs_cublas_pct", &r->vs_cublas_pct);
    put(&o, "speedup_vs_cpu", &r->speedup);
    put(&o, "speedup_vs_cpu_e2e", &r->speedup_e2e);
    put(&o, "cupti_vs_event_pct", &r->event_agreement_pct);
    cJSON *kernels = o.ok ? cJSON_AddArrayToObject(mj, "kernels") : NULL;
    o.ok = o.ok && kernels && cJSON_AddNumberToObject(mj, "kernels_per_product", r->kernels_per_product) &&
           cJSON_AddStringToObject(mj, "verdict", verdict_name(r->verdict)) &&
           cJSON_AddStringToObject(mj, "verdict_reason", r->verdict_text) &&
           (r->gap_phase[0] ? cJSON_AddStringToObject(mj, "largest_gap_phase", r->gap_phase) != NULL : true);
    for (int i = 0; o.ok && i < r->nkernels; i++)
        o.ok = kernel_metrics(kernels, &r->kernels[i]);
    if (!cJSON_AddItemToObject(mj, "not_available", missing)) {
        cJSON_Delete(missing);
        return false;
    }
    return o.ok;
}

static bool analysis_json(cJSON *root, const analysis *a)
{
    cJSON *an = cJSON_AddObjectToObject(root, "analysis");
    cJSON *peaks = an ? cJSON_AddArrayToObject(an, "device_peaks") : NULL;
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
        put(&o, "fp32_tflops", &a->peaks[i].fp32_tflops);
        put(&o, "memory_gbps", &a->peaks[i].hbm_gbps);
        put(&o, "link_gbps", &a->peaks[i].link_gbps);
        if (!o.ok || !cJSON_AddNumberToObject(p, "fp32_lanes_per_sm", a->peaks[i].fp32_lanes_per_sm) ||
            !cJSON_AddItemToObject(p, "not_available", missing))
            return false;
    }
    cJSON *missing = cJSON_CreateObject();
    if (!missing)
        return false;
    out o = {an, missing, true};
    put(&o, "fastest_h2d_gbps", &a->best_h2d_gbps);
    put(&o, "fastest_d2h_gbps", &a->best_d2h_gbps);
    if (!cJSON_AddItemToObject(an, "not_available", missing)) {
        cJSON_Delete(missing);
        return false;
    }
    cJSON *warn = o.ok ? cJSON_AddArrayToObject(an, "warnings") : NULL;
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

static cJSON *build(const void *ctx)
{
    const analysis *a = ctx;
    cJSON *root = model_to_json(a->m);
    if (!root)
        return NULL;
    bool ok = true;
    cJSON *wls = cJSON_GetObjectItemCaseSensitive(root, "workloads");
    for (int i = 0; ok && i < a->nwl; i++)
        ok = workload_metrics_json(cJSON_GetArrayItem(wls, i), &a->wl[i]);
    ok = ok && analysis_json(root, a);
    return ok ? root : NULL;
}

char *render_json(const analysis *a)
{
    return json_print_built(build, a);
}
