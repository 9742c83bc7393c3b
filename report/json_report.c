/* JSON output: model_to_json's tree with the derived figures added beside the raw ones. The
 * reader (model_from_json) ignores "metrics" and "analysis" and recomputes them, so a run file
 * always renders with the current analysis. */
#include "json_report.h"

#include <stdlib.h>
#include <string.h>

#include "model_json.h"
#include "strbuf.h"

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

/* ---------- printing in parts ----------
 * A run's whole tree is about 3.6 times its text: built at once, it was most of the memory
 * `mmprof report --json` needed. The document is printed in parts instead: everything but the
 * workloads (with an empty "workloads" array), then each workload, its tree built, printed and let
 * go in turn, and the parts spliced. cJSON_Print indents by depth with tabs and separates array
 * elements with ", ", so a workload printed on its own, two tabs added after each newline (a
 * string holds no raw newline), reads exactly as it would inside the whole document. */
static cJSON *build_head(const void *ctx)
{
    const analysis *a = ctx;
    run_model head = *a->m;
    head.nworkloads = 0;
    cJSON *root = model_to_json(&head);
    return root && analysis_json(root, a) ? root : NULL;
}

typedef struct {
    const workload_metrics *r;
    int64_t epoch_ns;
} workload_part;

static cJSON *build_workload(const void *ctx)
{
    const workload_part *p = ctx;
    cJSON *w = model_workload_to_json(p->r->w, p->epoch_ns);
    return w && workload_metrics_json(w, p->r) ? w : NULL;
}

char *render_json(const analysis *a)
{
    static const char anchor[] = "\n\t\"workloads\":\t[]";
    char *head = json_print_built(build_head, a);
    char *at = head ? strstr(head, anchor) : NULL;
    if (!at) {
        free(head);
        return NULL;
    }
    size_t split = (size_t)(at - head) + sizeof anchor - 2; /* just past the '[' */
    strbuf b;
    sb_init(&b);
    sb_addn(&b, head, split);
    for (int i = 0; i < a->nwl && !b.oom; i++) {
        workload_part part = {&a->wl[i], a->m->epoch_ns};
        char *w = json_print_built(build_workload, &part);
        if (!w) {
            b.oom = true;
            break;
        }
        if (i > 0)
            sb_add(&b, ", ");
        for (const char *p = w, *nl; *p; p = nl + 1) {
            nl = strchr(p, '\n');
            if (!nl) {
                sb_add(&b, p);
                break;
            }
            sb_addn(&b, p, (size_t)(nl - p));
            sb_add(&b, "\n\t\t");
        }
        free(w);
    }
    sb_add(&b, head + split);
    free(head);
    if (b.oom) {
        sb_free(&b);
        return NULL;
    }
    return sb_finish(&b);
}
