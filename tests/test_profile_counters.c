/* `mmprof profile --counters` without a GPU, on a run recorded on the H200
 * (samples/h200-profile-counters.json: examples/counter_kernels, whose kernels execute known
 * instruction counts, under --kernels 'ffma_chain|scale|add_one' --max-kernels 9). Checked: the
 * launches the run holds and what was asked, the program's exact instruction counts, the figures
 * derived per launch recomputed here from the file's raw values (read with cJSON, not the model
 * reader), the text and HTML reports, the JSON round trip, and a merge of two such runs. */
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

#include "analysis.h"
#include "html.h"
#include "model_json.h"
#include "model_merge.h"
#include "test_support.h"
#include "text.h"

#define SAMPLE "samples/h200-profile-counters.json"
#define LAUNCHES 9

/* examples/counter_kernels.cu: THREADS x ITERS FFMAs, N FMULs, N FADDs. */
#define FFMA_CHAIN (132LL * 1024 * 4096)
#define N_ELEMS (1LL << 24)

static run_model sample;
static analysis an;
static cJSON *raw;

static int load(void **state)
{
    (void)state;
    return recorded_load(SAMPLE, &sample, &an, &raw) ? 0 : -1;
}

static int unload(void **state)
{
    (void)state;
    recorded_free(&sample, &an, raw);
    return 0;
}

/* Launch i's raw value of key from the file; NaN for null. */
static double raw_value(int i, const char *key)
{
    const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(raw, "launch_counters"), i);
    const cJSON *v = cJSON_GetObjectItem(k, key);
    assert_non_null(v);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static bool has_process(uint32_t pid)
{
    for (int i = 0; i < sample.nprocesses; i++)
        if (sample.processes[i].pid == pid)
            return true;
    return false;
}

/* Nine launches, three of each kernel, each the program's own instruction count exactly, tied to
 * its process and device; DRAM bytes written n/a; the replayed kernels' records counted. */
static void launches_and_exact_counts(void **state)
{
    (void)state;
    assert_int_equal(sample.source, SOURCE_PROFILE);
    assert_true(sample.counters.asked);
    assert_string_equal(sample.counters.kernels, "ffma_chain|scale|add_one");
    assert_int_equal(sample.counters.max, LAUNCHES);
    assert_int_equal(sample.nlaunch_counters, LAUNCHES);
    assert_int_equal(sample.collection.replayed_kernels, LAUNCHES);
    int seen[3] = {0};
    uint32_t last_corr = 0;
    for (int i = 0; i < sample.nlaunch_counters; i++) {
        const kernel_counters *k = &sample.launch_counters[i];
        assert_true(has_process(k->pid));
        assert_true(k->device < (uint32_t)sample.ndevices);
        assert_true(k->correlation > last_corr); /* in launch order */
        last_corr = k->correlation;
        assert_true(isnan(k->v[CTR_DRAM_WRITE_BYTES]));
        assert_true(isfinite(k->v[CTR_OCCUPANCY_PCT]) && isfinite(k->v[CTR_DURATION_NS]));
        if (strstr(k->name, "ffma_chain")) {
            seen[0]++;
            assert_true(k->v[CTR_FFMA] == (double)FFMA_CHAIN);
        } else if (strstr(k->name, "scale")) {
            seen[1]++;
            assert_true(k->v[CTR_FMUL] == (double)N_ELEMS);
        } else if (strstr(k->name, "add_one")) {
            seen[2]++;
            assert_true(k->v[CTR_FADD] == (double)N_ELEMS);
        } else {
            fail_msg("launch %d is %s, which --kernels did not choose", i, k->name);
        }
    }
    assert_int_equal(seen[0], 3);
    assert_int_equal(seen[1], 3);
    assert_int_equal(seen[2], 3);
}

/* Per launch: FLOPs, FP32 TFLOP/s over the counter pass's duration, and the bound (the busiest of
 * DRAM, L1, L2 and SM throughput at 60% or more, else latency), all from the file's raw values. */
static void figures_from_raw_values(void **state)
{
    (void)state;
    static const struct {
        const char *key, *unit;
    } units[] = {{"dram_throughput_pct", "DRAM"}, {"l1_throughput_pct", "L1/shared"}, {"l2_throughput_pct", "L2"},
                 {"sm_throughput_pct", "compute pipe"}};
    for (int i = 0; i < sample.nlaunch_counters; i++) {
        launch_metrics r;
        launch_counter_figures(&sample.launch_counters[i], &r);
        double flops = 2 * raw_value(i, "ffma") + raw_value(i, "fadd") + raw_value(i, "fmul");
        assert_true(r.flops_executed.ok);
        assert_close(r.flops_executed.v, flops, 1e-12);
        assert_true(r.duration_us.ok);
        assert_close(r.duration_us.v, raw_value(i, "duration_ns") / 1e3, 1e-12);
        double tensor = raw_value(i, "tensor_pct");
        if (tensor >= 1.0) {
            assert_false(r.achieved_tflops.ok);
        } else {
            assert_true(r.achieved_tflops.ok);
            assert_close(r.achieved_tflops.v, flops / (raw_value(i, "duration_ns") * 1e-9) / 1e12, 1e-9);
        }
        int top = 0;
        for (int u = 1; u < 4; u++)
            if (raw_value(i, units[u].key) > raw_value(i, units[top].key))
                top = u;
        if (raw_value(i, units[top].key) >= 60)
            assert_non_null(strstr(r.bound_text, units[top].unit));
        else
            assert_non_null(strstr(r.bound_text, "latency"));
        assert_false(r.dram_read_bytes.ok != isfinite(raw_value(i, "dram_read_bytes")));
        assert_true(r.bound_pct.ok);
        assert_close(r.bound_pct.v, raw_value(i, units[top].key), 1e-12);
    }
    /* The summary names what bounds the longest profiled launch, with that figure. */
    int longest = 0;
    for (int i = 1; i < sample.nlaunch_counters; i++)
        if (raw_value(i, "duration_ns") > raw_value(longest, "duration_ns"))
            longest = i;
    const finding *f = NULL;
    for (int i = 0; i < an.nsummary; i++)
        if (an.summary[i].kind == FIND_COUNTERS)
            f = &an.summary[i];
    assert_non_null(f);
    assert_close(f->figure.v, an.launches[longest].bound_pct.v, 1e-12);
    assert_non_null(strstr(f->text, "longest profiled launch"));
}

/* s with every run of white space one space: the report wraps its paragraphs. */
static char *flat(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    assert_non_null(out);
    for (; *s; s++)
        if (!(*s == ' ' || *s == '\n') || (o > out && o[-1] != ' '))
            *o++ = *s == '\n' ? ' ' : *s;
    *o = '\0';
    return out;
}

/* The text report: what was asked, a row per launch with its bound, DRAM written n/a with the
 * reason, and the warning that the launches are off the timeline. */
static void text_report(void **state)
{
    (void)state;
    char *buf = text_report_of(&an);
    assert_non_null(buf);
    char *one = flat(buf);
    assert_non_null(strstr(one, "9 launches of kernels matching /ffma_chain|scale|add_one/ (at most 9)"));
    assert_non_null(strstr(one, "DRAM bytes written: n/a (the replay's memory restore is counted in them)"));
    assert_non_null(strstr(one, "9 profiled launches (--counters) have no place on the timeline"));
    free(one);
    for (int i = 0; i < sample.nlaunch_counters; i++) {
        launch_metrics r;
        launch_counter_figures(&sample.launch_counters[i], &r);
        if (!strstr(buf, r.bound_text))
            fail_msg("launch %d's bound '%s' is not in the text report", i, r.bound_text);
    }
    /* Its rows: between the section's head and its footnote, one per launch. */
    const char *from = strstr(buf, "Hardware counters"), *to = from ? strstr(from, "\nus: the kernel's duration") : NULL;
    assert_non_null(to);
    int rows = 0;
    for (const char *p = from; (p = strstr(p, "\nffma_chain ")) && p < to; p++)
        rows++;
    assert_int_equal(rows, 3);
    free(buf);
}

/* The page: the launch table with a row per launch, no roofline (no intensity without DRAM bytes
 * written), and the reason said. */
static void html_table(void **state)
{
    (void)state;
    char *html = render_html(&an);
    assert_non_null(html);
    int rows = 0;
    for (const char *p = html; (p = strstr(p, "<tr><td title=\"")); p++)
        rows++;
    assert_int_equal(rows, LAUNCHES);
    assert_null(strstr(html, "<circle class=\"pt"));
    assert_non_null(strstr(html, "No roofline: DRAM bytes written are n/a under kernel replay"));
    assert_non_null(strstr(html, "<code>ffma_chain|scale|add_one</code>"));
    free(html);
}

static void same_launches(const run_model *a, const run_model *b, int offset)
{
    for (int i = 0; i < a->nlaunch_counters; i++) {
        const kernel_counters *x = &a->launch_counters[i], *y = &b->launch_counters[offset + i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->correlation, y->correlation);
        for (int c = 0; c < CTR_COUNT; c++)
            assert_true((isnan(x->v[c]) && isnan(y->v[c])) || x->v[c] == y->v[c]);
    }
}

/* Written and read back: the launches, what was asked and the replayed count are the same. */
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
    assert_true(back.counters.asked);
    assert_string_equal(back.counters.kernels, sample.counters.kernels);
    assert_int_equal(back.counters.max, sample.counters.max);
    assert_int_equal(back.collection.replayed_kernels, sample.collection.replayed_kernels);
    assert_int_equal(back.nlaunch_counters, sample.nlaunch_counters);
    same_launches(&sample, &back, 0);
    for (int i = 0; i < sample.nlaunch_counters; i++) {
        assert_int_equal(back.launch_counters[i].pid, sample.launch_counters[i].pid);
        assert_int_equal(back.launch_counters[i].device, sample.launch_counters[i].device);
    }
    model_free(&back);
}

/* Two such runs merged (as two ranks' files would be): every launch of both, the second file's
 * renumbered with its process, on the same device. */
static void merged_runs_keep_every_launch(void **state)
{
    (void)state;
    run_model a, b;
    char err[512];
    assert_true(model_read_file(SAMPLE, &a, err, sizeof err));
    assert_true(model_read_file(SAMPLE, &b, err, sizeof err));
    merge_state s;
    assert_true(model_merge_begin(&s, &a, "first"));
    assert_true(model_merge(&s, &a, &b, "second", err, sizeof err));
    assert_true(model_merge_finish(&s, &a));
    model_free(&b);
    assert_int_equal(a.nlaunch_counters, 2 * LAUNCHES);
    assert_int_equal(a.collection.replayed_kernels, 2 * LAUNCHES);
    same_launches(&sample, &a, 0);
    same_launches(&sample, &a, LAUNCHES);
    uint32_t first = a.launch_counters[0].pid, second = a.launch_counters[LAUNCHES].pid;
    assert_true(first != second);
    bool known = false;
    for (int i = 0; i < a.nprocesses; i++)
        known |= a.processes[i].pid == second;
    assert_true(known);
    assert_int_equal(a.launch_counters[LAUNCHES].device, a.launch_counters[0].device);
    model_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(launches_and_exact_counts),
        cmocka_unit_test(figures_from_raw_values),
        cmocka_unit_test(text_report),
        cmocka_unit_test(html_table),
        cmocka_unit_test(round_trip),
        cmocka_unit_test(merged_runs_keep_every_launch),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
