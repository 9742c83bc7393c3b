/* Hardware counters (mmprof --counters) without a GPU: the figures derived from them on a
 * recorded H200 run that has them (samples/h200-2048-counters.json), each computed again here
 * from the run file's raw counters read with cJSON (not the model reader), and the reports
 * that show them: the text table, the ladder's columns, the HTML roofline. Then the run file's
 * round trip, old files without counters, the no-permission message and a run with nothing to
 * count. */
#include <cjson/cJSON.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cupti.h>

#include "analyze.h"
#include "counters.h"
#include "html.h"
#include "model_json.h"
#include "test_support.h"
#include "text.h"

#define COUNTERS_SAMPLE "samples/h200-2048-counters.json"

static run_model sample;
static analysis an;
static cJSON *raw;

static int load(void **state)
{
    (void)state;
    return recorded_load(COUNTERS_SAMPLE, &sample, &an, &raw) ? 0 : -1;
}

static int unload(void **state)
{
    (void)state;
    recorded_free(&sample, &an, raw);
    return 0;
}

/* The raw counter `key` of kernel k of workload i, from the file itself; NaN for null. */
static double raw_counter(int i, int k, const char *key)
{
    const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(raw, "builtin"), "workloads"), i);
    const cJSON *kern = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(w, "counters"), "kernels"), k);
    const cJSON *v = cJSON_GetObjectItem(kern, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int raw_nkernels(int i)
{
    const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(raw, "builtin"), "workloads"), i);
    return cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(w, "counters"), "kernels"));
}

/* The sample really has counters: every GPU workload's counter pass ran on every kernel. */
static void sample_has_counters(void **state)
{
    (void)state;
    assert_true(sample.counters.asked);
    assert_string_equal(sample.counters.why, "");
    assert_true(sample.counters.passes > 0);
    int with = 0;
    for (int i = 0; i < sample.builtin.nworkloads; i++) {
        const workload_run *w = &sample.builtin.workloads[i];
        if (!w->needs_gpu || w->status != WL_OK)
            continue;
        if (w->ncounters > 0) {
            with++;
            assert_int_equal(w->ncounters, raw_nkernels(i));
        } else {
            assert_true(w->counters_why[0] || w->host_memory != MEM_PINNED);
        }
    }
    assert_true(with >= 12);
}

/* FLOPs executed, achieved FLOP/s and intensity, computed again from the raw counts. */
static void derived_figures(void **state)
{
    (void)state;
    int checked = 0;
    for (int i = 0; i < an.nwl; i++) {
        const workload_metrics *r = &an.wl[i];
        if (r->w->ncounters == 0) {
            assert_false(r->flops_executed.ok);
            assert_int_equal(r->bound, BOUND_NONE);
            continue;
        }
        double flops = 0, bytes = 0;
        for (int k = 0; k < raw_nkernels(i); k++) {
            flops += 2 * raw_counter(i, k, "ffma") + raw_counter(i, k, "fadd") + raw_counter(i, k, "fmul");
            bytes += raw_counter(i, k, "dram_read_bytes") + raw_counter(i, k, "dram_write_bytes");
        }
        assert_true(r->flops_executed.ok);
        assert_close(r->flops_executed.v, flops, 1e-12);
        double product = 2.0 * pow(r->w->n, 3);
        if (r->w->prec == PREC_FP32) {
            /* Every FP32 product, ours and cuBLAS's, executes 2n^3 FLOPs (to the 1%). */
            assert_close(flops, product, 0.01);
            assert_true(r->achieved_tflops.ok);
            assert_close(r->achieved_tflops.v, flops / r->kernel_ms.v / 1e9, 1e-12);
            assert_close(r->intensity.v, flops / bytes, 1e-12);
        } else {
            /* Tensor-core products execute almost no FP32 FLOPs: their rate is the product's. */
            assert_true(flops < 0.5 * product);
            assert_false(r->achieved_tflops.ok);
            assert_close(r->intensity.v, product / bytes, 1e-12);
        }
        checked++;
    }
    assert_true(checked >= 12);
}

/* The bound: the unit nearest its peak, when at least 60% of it; latency otherwise. */
static void bound_decided_by_the_busiest_unit(void **state)
{
    (void)state;
    static const struct {
        const char *key;
        bound_kind b;
    } units[] = {{"dram_throughput_pct", BOUND_DRAM},
                 {"l1_throughput_pct", BOUND_L1},
                 {"l2_throughput_pct", BOUND_L2},
                 {"sm_throughput_pct", BOUND_COMPUTE}};
    int seen[6] = {0};
    for (int i = 0; i < an.nwl; i++) {
        const workload_metrics *r = &an.wl[i];
        if (r->w->ncounters == 0)
            continue;
        /* The main kernel: the longest in the counter pass. */
        int main_k = 0;
        for (int k = 1; k < raw_nkernels(i); k++)
            if (raw_counter(i, k, "duration_ns") > raw_counter(i, main_k, "duration_ns"))
                main_k = k;
        int top = 0;
        for (int u = 1; u < 4; u++)
            if (raw_counter(i, main_k, units[u].key) > raw_counter(i, main_k, units[top].key))
                top = u;
        bound_kind want = raw_counter(i, main_k, units[top].key) >= 60 ? units[top].b : BOUND_LATENCY;
        if (r->bound != want)
            fail_msg("%s: bound %s, expected %s (%s)", r->w->name, bound_name(r->bound), bound_name(want), r->bound_text);
        seen[r->bound]++;
        /* The decisive figure is quoted. */
        char pct[16];
        snprintf(pct, sizeof pct, "%.0f%%", raw_counter(i, main_k, units[top].key));
        assert_non_null(strstr(r->bound_text, pct));
        /* ... and kept as the figure that decided (the summary's counters finding quotes it). */
        assert_true(r->bound_pct.ok);
        assert_close(r->bound_pct.v, raw_counter(i, main_k, units[top].key), 1e-12);
    }
    /* The ladder is not bound by one thing only: its kernels differ in what limits them. */
    int kinds = 0;
    for (int b = BOUND_DRAM; b <= BOUND_LATENCY; b++)
        kinds += seen[b] > 0;
    assert_true(kinds >= 2);
}

/* The roofline's ceilings: FP32 and TF32 from the device's properties, the L2 from the counters. */
static void ceilings(void **state)
{
    (void)state;
    const device_peaks *p = &an.peaks[0];
    const device_info *d = &sample.devices[0];
    assert_true(p->tf32_tflops.ok);
    assert_close(p->tf32_tflops.v, d->sm_count * 2048.0 * d->clock_khz * 1e3 / 1e12, 1e-12);
    assert_true(p->l2_gbps.ok);
    /* The L2 is faster than HBM, and not absurdly so. */
    assert_true(p->l2_gbps.v > p->hbm_gbps.v && p->l2_gbps.v < 20 * p->hbm_gbps.v);
    /* L1/shared: 128 B per SM per clock, faster than the L2. */
    assert_true(p->l1_gbps.ok);
    assert_close(p->l1_gbps.v, d->sm_count * 128.0 * d->clock_khz * 1e3 / 1e9, 1e-12);
    assert_true(p->l1_gbps.v > p->l2_gbps.v);
}

/* The summary names what bounds the fastest own kernel, with the figure that decided it. */
static void summary_names_the_bound(void **state)
{
    (void)state;
    const workload_metrics *best = NULL;
    for (int i = 0; i < an.nwl; i++) {
        const workload_metrics *r = &an.wl[i];
        if (r->ladder_row && r->w->needs_gpu && r->library >= 0 && &an.wl[r->library] != r && r->bound_pct.ok &&
            r->tflops.ok && (!best || r->tflops.v > best->tflops.v))
            best = r;
    }
    assert_non_null(best);
    const finding *f = NULL;
    for (int i = 0; i < an.nsummary; i++)
        if (an.summary[i].kind == FIND_COUNTERS)
            f = &an.summary[i];
    assert_non_null(f);
    assert_close(f->figure.v, best->bound_pct.v, 1e-12);
    assert_non_null(strstr(f->text, best->w->name));
    assert_non_null(strstr(f->text, best->bound_text));
}

/* The HTML roofline: a point per ladder workload with counters, the four ceilings, the table. */
static void html_roofline_points(void **state)
{
    (void)state;
    char *html = render_html(&an);
    assert_non_null(html);
    int points = 0, want = 0;
    for (const char *p = html; (p = strstr(p, "<circle class=\"pt")); p++)
        points++;
    for (int i = 0; i < an.nwl; i++)
        want += an.wl[i].ladder_row && an.wl[i].w->ncounters > 0 && an.wl[i].intensity.ok;
    assert_int_equal(points, want + 2); /* and the legend's two markers, FP32 and TF32 */
    assert_true(want >= 12);
    assert_non_null(strstr(html, ">L1/shared "));
    assert_non_null(strstr(html, "FP32 "));
    assert_non_null(strstr(html, "TF32 tensor "));
    assert_non_null(strstr(html, "HBM "));
    assert_non_null(strstr(html, ">L2 "));
    assert_non_null(strstr(html, "<table class=\"counters"));
    free(html);
}

/* The text report: the counters table with each workload's bound, the ladder's new columns. */
static void text_table(void **state)
{
    (void)state;
    char *buf = text_report_of(&an);
    assert_non_null(buf);
    assert_non_null(strstr(buf, "Hardware counters"));
    assert_non_null(strstr(buf, "ach.occ% bound"));
    for (int i = 0; i < an.nwl; i++)
        if (an.wl[i].w->ncounters > 0 && !strstr(buf, an.wl[i].bound_text))
            fail_msg("%s's bound '%s' is not in the text report", an.wl[i].w->name, an.wl[i].bound_text);
    free(buf);
}

/* Written and read back, every counter is the same (NaN stays NaN). */
static void round_trip(void **state)
{
    (void)state;
    cJSON *tree = model_to_json(&sample);
    assert_non_null(tree);
    char *text = cJSON_PrintUnformatted(tree);
    cJSON_Delete(tree);
    assert_non_null(text);
    char err[512];
    run_model back;
    assert_true(model_read_text("round trip", text, strlen(text), &back, err, sizeof err));
    free(text);
    assert_int_equal(back.counters.asked, sample.counters.asked);
    assert_int_equal(back.counters.passes, sample.counters.passes);
    for (int i = 0; i < sample.builtin.nworkloads; i++) {
        const workload_run *a = &sample.builtin.workloads[i], *b = &back.builtin.workloads[i];
        assert_int_equal(a->ncounters, b->ncounters);
        assert_string_equal(a->counters_why, b->counters_why);
        for (int k = 0; k < a->ncounters; k++) {
            assert_string_equal(a->counters[k].name, b->counters[k].name);
            for (int c = 0; c < CTR_COUNT; c++)
                assert_true((isnan(a->counters[k].v[c]) && isnan(b->counters[k].v[c])) ||
                            a->counters[k].v[c] == b->counters[k].v[c]);
        }
    }
    model_free(&back);
}

/* A run file from before counters: read as before, every counter figure n/a with the reason. */
static void old_file_has_none(void **state)
{
    (void)state;
    run_model m;
    analysis a;
    char err[512];
    assert_true(model_read_file("samples/h200-2048.json", &m, err, sizeof err));
    assert_false(m.counters.asked);
    assert_true(analyze(&m, &a));
    for (int i = 0; i < a.nwl; i++) {
        assert_false(a.wl[i].achieved_occupancy_pct.ok);
        assert_int_equal(a.wl[i].bound, BOUND_NONE);
        if (a.wl[i].w->needs_gpu)
            assert_non_null(strstr(metric_why(&a.wl[i].achieved_occupancy_pct), "--counters"));
    }
    /* No counters section at all (nor its navigation entry): the run has nothing for it. */
    char *html = render_html(&a);
    assert_null(strstr(html, "id=\"roofline\""));
    assert_null(strstr(html, "href=\"#roofline\""));
    assert_null(strstr(html, "<circle class=\"pt"));
    free(html);
    analysis_free(&a);
    model_free(&m);
}

/* No permission to read counters: the message names NVIDIA's setting. */
static void no_permission_message(void **state)
{
    (void)state;
    char why[256];
    counters_reason(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiProfilerGetCounterAvailability", why, sizeof why);
    assert_non_null(strstr(why, "NVreg_RestrictProfilingToAdminUsers"));
    assert_non_null(strstr(why, "ERR_NVGPUCTRPERM"));
    counters_reason(CUPTI_ERROR_NOT_SUPPORTED, "cuptiRangeProfilerEnable", why, sizeof why);
    assert_non_null(strstr(why, "does not support"));
}

/* --counters with nothing on a GPU: the run goes on, the counters are n/a and say why. */
static void nothing_to_count(void **state)
{
    (void)state;
    char *json = path_in(test_tmp, "cpu.json");
    const char *argv[] = {mmprof_bin(), "--size", "64", "--workloads", "cpu-openblas", "--counters", "-q", "--json", json, NULL};
    cmd_result r = run_argv(argv, NULL);
    assert_int_equal(r.status, 0);
    run_model m;
    char err[512];
    assert_true(model_read_file(json, &m, err, sizeof err));
    assert_true(m.counters.asked);
    assert_string_equal(m.counters.why, "no GPU workload ran");
    model_free(&m);
    cmd_free(&r);
    free(json);
}

int main(void)
{
    const struct CMUnitTest sample_tests[] = {
        cmocka_unit_test(sample_has_counters),
        cmocka_unit_test(derived_figures),
        cmocka_unit_test(bound_decided_by_the_busiest_unit),
        cmocka_unit_test(ceilings),
        cmocka_unit_test(html_roofline_points),
        cmocka_unit_test(summary_names_the_bound),
        cmocka_unit_test(text_table),
    };
    const struct CMUnitTest other[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(old_file_has_none),
        cmocka_unit_test(no_permission_message),
        cmocka_unit_test(nothing_to_count),
    };
    int failed = cmocka_run_group_tests_name("counters on the H200 sample", sample_tests, load, NULL);
    failed += cmocka_run_group_tests_name("counters elsewhere", other, test_tmp_setup, test_tmp_teardown);
    unload(NULL);
    return failed;
}
