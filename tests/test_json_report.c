/* The JSON report: every figure of the metric registry is written for every workload, kernel,
 * device and region; a measured figure as its number, a figure that could not be had as null
 * with its reason under not_available, never as 0. Checked on the recorded H200 runs, whose
 * analysis has figures of both sorts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "analyze.h"
#include "json_report.h"
#include "output_file.h"
#include "test_support.h"

typedef struct {
    int measured, missing;
} tally;

/* Each def of table, as row (the analysis's struct) says, in obj (its JSON object). */
static void check_row(const metric_table *t, const void *row, const cJSON *obj, const char *where, tally *n)
{
    assert_non_null(obj);
    const cJSON *na = cJSON_GetObjectItemCaseSensitive(obj, "not_available");
    if (!cJSON_IsObject(na))
        fail_msg("%s: no not_available object", where);
    for (int i = 0; i < t->n; i++) {
        const metric_def *d = &t->defs[i];
        const metric *m = metric_of(row, d);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, d->key);
        if (!v)
            fail_msg("%s: %s missing", where, d->key);
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(na, d->key);
        if (m->ok) {
            if (!cJSON_IsNumber(v))
                fail_msg("%s: %s measured (%g) but written as %s", where, d->key, m->v,
                         cJSON_IsNull(v) ? "null" : "a non-number");
            assert_close(v->valuedouble, m->v, 1e-12);
            if (why)
                fail_msg("%s: %s measured but listed under not_available", where, d->key);
            n->measured++;
        } else {
            if (!cJSON_IsNull(v))
                fail_msg("%s: %s is n/a (%s) but written as %g, not null", where, d->key, metric_why(m),
                         cJSON_IsNumber(v) ? v->valuedouble : -1.0);
            if (!cJSON_IsString(why) || strcmp(why->valuestring, metric_why(m)) != 0)
                fail_msg("%s: %s is null without its reason '%s'", where, d->key, metric_why(m));
            n->missing++;
        }
    }
}

static void check_run(const char *path)
{
    run_model m;
    load_run(path, &m);
    analysis a;
    assert_true(analyze(&m, &a));
    char *text = render_json(&a);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    tally n = {0, 0};
    char where[160];

    const cJSON *wls = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "builtin"), "workloads");
    assert_int_equal(cJSON_GetArraySize(wls), a.nwl);
    for (int i = 0; i < a.nwl; i++) {
        const cJSON *mj = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(wls, i), "metrics");
        snprintf(where, sizeof where, "%s workloads[%d]", path, i);
        check_row(&workload_metric_table, &a.wl[i], mj, where, &n);
        const cJSON *ks = cJSON_GetObjectItemCaseSensitive(mj, "kernels");
        assert_int_equal(cJSON_GetArraySize(ks), a.wl[i].nkernels);
        for (int k = 0; k < a.wl[i].nkernels; k++) {
            snprintf(where, sizeof where, "%s workloads[%d].kernels[%d]", path, i, k);
            check_row(&kernel_summary_table, &a.wl[i].kernels[k], cJSON_GetArrayItem(ks, k), where, &n);
        }
    }
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(root, "analysis");
    const cJSON *peaks = cJSON_GetObjectItemCaseSensitive(an, "device_peaks");
    for (int i = 0; i < m.ndevices; i++) {
        snprintf(where, sizeof where, "%s device_peaks[%d]", path, i);
        check_row(&device_peaks_table, &a.peaks[i], cJSON_GetArrayItem(peaks, i), where, &n);
    }
    const cJSON *regions = cJSON_GetObjectItemCaseSensitive(an, "regions");
    assert_int_equal(cJSON_GetArraySize(regions), a.nrg);
    assert_true(a.nrg > 1);
    for (int i = 0; i < a.nrg; i++) {
        const cJSON *rj = cJSON_GetArrayItem(regions, i);
        snprintf(where, sizeof where, "%s regions[%d]", path, i);
        check_row(&region_metric_table, &a.rg[i], rj, where, &n);
        const cJSON *ks = cJSON_GetObjectItemCaseSensitive(rj, "kernel_stats");
        assert_int_equal(cJSON_GetArraySize(ks), a.rg[i].nkstats);
        for (int k = 0; k < a.rg[i].nkstats; k++)
            check_row(&kernel_stat_table, &a.rg[i].kernels[k], cJSON_GetArrayItem(ks, k), where, &n);
        const cJSON *fs = cJSON_GetObjectItemCaseSensitive(rj, "copy_flows");
        assert_int_equal(cJSON_GetArraySize(fs), a.rg[i].nflows);
        for (int k = 0; k < a.rg[i].nflows; k++)
            check_row(&copy_flow_table, &a.rg[i].flows[k], cJSON_GetArrayItem(fs, k), where, &n);
    }
    const cJSON *streams = cJSON_GetObjectItemCaseSensitive(an, "streams");
    assert_int_equal(cJSON_GetArraySize(streams), a.nstreams);
    for (int i = 0; i < a.nstreams; i++) {
        snprintf(where, sizeof where, "%s streams[%d]", path, i);
        check_row(&stream_table, &a.streams[i], cJSON_GetArrayItem(streams, i), where, &n);
    }
    /* The idle stretches, and each listed region's idle time by cause, a row per region and cause. */
    const cJSON *gaps = cJSON_GetObjectItemCaseSensitive(an, "idle_gaps");
    assert_int_equal(cJSON_GetArraySize(gaps), a.nidle_gaps);
    for (int i = 0; i < a.nidle_gaps; i++) {
        snprintf(where, sizeof where, "%s idle_gaps[%d]", path, i);
        check_row(&idle_gap_table, &a.idle_gaps[i], cJSON_GetArrayItem(gaps, i), where, &n);
    }
    const cJSON *bd = cJSON_GetObjectItemCaseSensitive(an, "idle_breakdown");
    assert_int_equal(cJSON_GetArraySize(bd), a.nlisted * IDLE_NCAUSES);
    for (int li = 0; li < a.nlisted; li++)
        for (int c = 0; c < IDLE_NCAUSES; c++) {
            snprintf(where, sizeof where, "%s idle_breakdown[%d]", path, li * IDLE_NCAUSES + c);
            check_row(&idle_share_table, &a.rg[a.listed[li]].idle[c], cJSON_GetArrayItem(bd, li * IDLE_NCAUSES + c),
                      where, &n);
        }
    /* The runs have figures of both sorts, so both branches above were taken. */
    assert_true(n.measured > 100);
    assert_true(n.missing > 10);
    cJSON_Delete(root);
    free(text);
    analysis_free(&a);
    model_free(&m);
}

static void sample_figures_are_numbers_or_null_with_reason(void **state)
{
    (void)state;
    check_run(sample_path());
}

static void event_timed_sample_too(void **state)
{
    (void)state;
    check_run(NCU_SAMPLE);
}

/* A run of 1,100 regions: its regions are written 256 at a time in parts on threads
 * (json_report.c), and its model's members may be rendered while the analysis runs
 * (json_model_text_start), into memory or a scratch file; the analysis, let 64 KiB ahead,
 * waits for them and then goes to the sink itself. The document is the same text every way, and
 * the regions keep their order. */
static void many_regions_written_in_parts_in_order(void **state)
{
    (void)state;
    run_model m;
    load_run("samples/h200-profile-torch.json", &m);
    const region *run = &m.regions[0];
    int64_t span = run->end_ns - run->start_ns;
    enum { EXTRA = 1100 };
    for (int i = 0; i < EXTRA; i++) {
        char name[16];
        snprintf(name, sizeof name, "r%04d", i);
        assert_true(model_add_region(&m, REGION_NVTX, name, NULL, run->start_ns + span * i / EXTRA,
                                     run->start_ns + span * (i + 1) / EXTRA, m.processes[0].pid, 1, -1) >= 0);
        run = &m.regions[0]; /* the array may have moved */
    }
    json_model_text *early = json_model_text_start(&m, -1);
    json_model_text *scratch = json_model_text_start(&m, output_scratch(NULL));
    assert_non_null(early);
    assert_non_null(scratch);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_true(a.nrg >= EXTRA);
    char *serial = render_json(&a), *overlapped = render_json_from(&a, early);
    assert_non_null(serial);
    assert_non_null(overlapped);
    assert_string_equal(serial, overlapped);
    const char *an = strstr(serial, "\n\"analysis\": ");
    assert_non_null(an);
    assert_true(strlen(an) > 16 * (64u << 10));
    kept_text k;
    text_sink sink = kept_sink(&k);
    char err[256];
    size_t ahead = json_analysis_ahead;
    json_analysis_ahead = 64u << 10;
    assert_true(render_json_to(&a, scratch, &sink, err, sizeof err));
    json_analysis_ahead = ahead;
    assert_kept_whole(&k, strdup(serial), 8, "1,100 regions");
    cJSON *root = cJSON_Parse(serial);
    const cJSON *regions = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "analysis"), "regions");
    assert_int_equal(cJSON_GetArraySize(regions), a.nrg);
    int next = 0;
    for (int i = 0; i < a.nrg; i++) {
        const cJSON *rj = cJSON_GetArrayItem(regions, i);
        assert_int_equal(cJSON_GetObjectItemCaseSensitive(rj, "index")->valueint, a.rg[i].region);
        const char *name = cJSON_GetObjectItemCaseSensitive(rj, "name")->valuestring;
        char want[16];
        snprintf(want, sizeof want, "r%04d", next);
        next += strcmp(name, want) == 0;
    }
    assert_int_equal(next, EXTRA); /* every added region, in the order added */
    cJSON_Delete(root);
    free(serial);
    free(overlapped);
    analysis_free(&a);
    model_free(&m);
}

/* path's document handed over in pieces (its model's members through a scratch file where the
 * run is not a built-in one) is the document rendered whole; at least `least` pieces. */
static void streamed_is_whole(const char *path, int least)
{
    run_model m;
    load_run(path, &m);
    json_model_text *early = json_model_text_start(&m, output_scratch(NULL));
    analysis a;
    assert_true(analyze(&m, &a));
    kept_text k;
    text_sink sink = kept_sink(&k);
    char err[256];
    assert_true(render_json_to(&a, early, &sink, err, sizeof err));
    assert_kept_whole(&k, render_json(&a), least, path);
    analysis_free(&a);
    model_free(&m);
}

/* A built-in run's 5 MB (drained each MiB as written) and a profile's (its events read back from
 * the scratch file they were written to beside the analysis). */
static void streamed_in_pieces_as_whole(void **state)
{
    (void)state;
    streamed_is_whole("samples/h200-2048.json", 5);
    streamed_is_whole("samples/h200-profile-train.json", 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_figures_are_numbers_or_null_with_reason),
        cmocka_unit_test(event_timed_sample_too),
        cmocka_unit_test(many_regions_written_in_parts_in_order),
        cmocka_unit_test(streamed_in_pieces_as_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
