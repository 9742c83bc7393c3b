/* mmprof compare: the noise rule on constructed numbers, matching (repeats, unmatched regions and
 * workloads) on built models, the recorded H200 run against itself and against a copy whose
 * cuda-tiled (pinned) kernels were made 10% longer, imports written as run files, and bad input
 * through the real binary. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyze.h"
#include "compare.h"
#include "model_json.h"
#include "test_support.h"

/* ---------- the rule ---------- */

static void judge_rule(void **state)
{
    (void)state;
    double ch;
    /* Beyond the larger noise: the direction decides. */
    assert_int_equal(cmp_judge(100, 110, 2, 3, BETTER_LOWER, &ch), CMP_WORSE);
    assert_close(ch, 10, 1e-12);
    assert_int_equal(cmp_judge(100, 90, 2, 3, BETTER_LOWER, &ch), CMP_BETTER);
    assert_int_equal(cmp_judge(100, 110, 2, 3, BETTER_HIGHER, &ch), CMP_BETTER);
    assert_int_equal(cmp_judge(100, 90, 2, 3, BETTER_HIGHER, &ch), CMP_WORSE);
    assert_int_equal(cmp_judge(100, 110, 2, 3, BETTER_NONE, &ch), CMP_CHANGED);
    /* Inside the larger of the two noises, either side's: same. */
    assert_int_equal(cmp_judge(100, 102.9, 1, 3, BETTER_LOWER, &ch), CMP_SAME);
    assert_int_equal(cmp_judge(100, 102.9, 3, 1, BETTER_LOWER, &ch), CMP_SAME);
    assert_int_equal(cmp_judge(100, 97.5, 2.5, NAN, BETTER_LOWER, &ch), CMP_SAME);
    assert_int_equal(cmp_judge(100, 103.1, 3, 1, BETTER_LOWER, &ch), CMP_WORSE);
    /* No noise at all: the change alone. */
    assert_int_equal(cmp_judge(100, 100.5, NAN, NAN, BETTER_LOWER, &ch), CMP_WORSE);
    assert_int_equal(cmp_judge(5, 5, NAN, NAN, BETTER_LOWER, &ch), CMP_SAME);
    assert_close(ch, 0, 0);
    /* A base of 0 has no relative change; a negative base's change is relative to its size. */
    assert_int_equal(cmp_judge(0, 1, 1, 1, BETTER_LOWER, &ch), CMP_NO_BASE);
    assert_int_equal(cmp_judge(-2, -1, 10, 10, BETTER_NONE, &ch), CMP_CHANGED);
    assert_close(ch, 50, 1e-12);

    const metric_def *kern = metric_find(&workload_metric_table, "kernel_ms");
    const metric_def *busy = metric_find(&workload_metric_table, "busy_pct");
    assert_int_equal(kern->better, BETTER_LOWER);
    assert_int_equal(metric_find(&workload_metric_table, "tflops")->better, BETTER_HIGHER);
    assert_int_equal(metric_find(&region_metric_table, "h2d_bytes")->better, BETTER_NONE);
    assert_string_equal(cmp_verdict_text(CMP_WORSE, kern), "slower");
    assert_string_equal(cmp_verdict_text(CMP_BETTER, kern), "faster");
    assert_string_equal(cmp_verdict_text(CMP_WORSE, busy), "worse");

    metric n;
    noise_pct_of((const double[]){1, 2, 3}, 3, &n);
    assert_true(n.ok);
    assert_close(n.v, 50, 1e-12); /* sample stdev 1 over mean 2 */
    noise_pct_of((const double[]){4}, 1, &n);
    assert_false(n.ok);
}

/* ---------- on models ---------- */

static void analyse(const run_model *m, analysis *a)
{
    assert_true(analyze(m, a));
}

static const cmp_row *row_of(const comparison *c, bool region, const char *entity, const char *key)
{
    for (int i = 0; i < c->nrows; i++)
        if (c->rows[i].is_region == region && strcmp(c->rows[i].entity, entity) == 0 &&
            strcmp(c->rows[i].def->key, key) == 0)
            return &c->rows[i];
    fail_msg("no row for %s %s", entity, key);
    return NULL;
}

static void sample_against_itself(void **state)
{
    (void)state;
    run_model b, n;
    load_sample(&b);
    load_sample(&n);
    analysis ab, an;
    analyse(&b, &ab);
    analyse(&n, &an);
    comparison c;
    assert_true(compare_runs(&ab, &an, 5, &c));
    assert_int_equal(c.entities, ab.nwl + ab.nrg);
    assert_int_equal(c.nunmatched, 0);
    assert_true(c.nrows > 1000);
    assert_int_equal(c.counts[CMP_SAME], c.nrows);
    assert_int_equal(c.regressions, 0);
    /* Noise comes from the per-product times: cuda-tiled (pinned) has 12. */
    const cmp_row *k = row_of(&c, false, "cuda-tiled (pinned)", "kernel_ms");
    assert_true(k->noise_base.ok);
    assert_true(k->noise_base.v > 0 && k->noise_base.v < 5);
    assert_false(row_of(&c, false, "cuda-tiled (pinned)", "h2d_ms")->noise_base.ok);
    comparison_free(&c);
    analysis_free(&ab);
    analysis_free(&an);
    model_free(&b);
    model_free(&n);
}

static workload_run *workload_of(run_model *m, const char *label)
{
    for (int i = 0; i < m->builtin.nworkloads; i++) {
        char l[64];
        workload_label(&m->builtin.workloads[i], l, sizeof l);
        if (strcmp(l, label) == 0)
            return &m->builtin.workloads[i];
    }
    fail_msg("no workload %s", label);
    return NULL;
}

/* Each kernel of the workload lasts factor times as long. */
static void stretch_kernels(run_model *m, const char *label, double factor)
{
    workload_run *w = workload_of(m, label);
    for (size_t k = 0; k < m->events.nkernels; k++) {
        kernel_event *e = &m->events.kernels[k];
        if (e->region == w->region)
            e->end_ns = e->start_ns + llround((double)(e->end_ns - e->start_ns) * factor);
    }
}

static void slower_kernels_found(void **state)
{
    (void)state;
    run_model b, n;
    load_sample(&b);
    load_sample(&n);
    stretch_kernels(&n, "cuda-tiled (pinned)", 1.1);
    analysis ab, an;
    analyse(&b, &ab);
    analyse(&n, &an);
    comparison c;
    assert_true(compare_runs(&ab, &an, 5, &c));
    const cmp_row *k = row_of(&c, false, "cuda-tiled (pinned)", "kernel_ms");
    assert_int_equal(k->verdict, CMP_WORSE);
    assert_true(k->change_pct.ok);
    assert_close(k->change_pct.v, 10, 1e-3);
    assert_true(k->regression);
    assert_int_equal(row_of(&c, false, "cuda-tiled (pinned)", "tflops")->verdict, CMP_WORSE);
    const cmp_row *rk = row_of(&c, true, "cuda-tiled (pinned) / compute", "kernel_us");
    assert_int_equal(rk->verdict, CMP_WORSE);
    assert_true(rk->noise_base.ok); /* from the launches of the phase's kernel */
    /* A built-in region's sums depend on how many products were sampled: not compared. */
    for (int i = 0; i < c.nrows; i++)
        assert_false(c.rows[i].is_region && strcmp(c.rows[i].def->key, "kernel_ms") == 0);
    /* The others did not move. */
    assert_int_equal(row_of(&c, false, "cuda-tiled (pageable)", "kernel_ms")->verdict, CMP_SAME);
    assert_int_equal(row_of(&c, false, "cublas-sgemm (pinned)", "kernel_ms")->verdict, CMP_SAME);
    /* A change with no noise estimate never counts against the threshold. */
    const cmp_row *e2e = row_of(&c, false, "cuda-tiled (pinned)", "e2e_ms");
    assert_int_equal(e2e->verdict, CMP_WORSE);
    assert_false(e2e->noise_known);
    assert_false(e2e->regression);
    assert_true(c.regressions > 0);
    comparison_free(&c);
    /* Above the threshold: nothing counts. */
    assert_true(compare_runs(&ab, &an, 20, &c));
    assert_int_equal(c.regressions, 0);
    comparison_free(&c);
    analysis_free(&ab);
    analysis_free(&an);
    model_free(&b);
    model_free(&n);
}

/* A run of NVTX ranges only: name, count times each, one after the other. */
static void nvtx_run(run_model *m, const char *const *names, const int *counts, int nnames)
{
    model_init(m);
    int64_t t = 1000;
    for (int i = 0; i < nnames; i++)
        for (int k = 0; k < counts[i]; k++, t += 1000)
            assert_true(model_add_region(m, REGION_NVTX, names[i], NULL, t, t + 500, 1, 1, -1) >= 0);
    m->source = SOURCE_PROFILE;
    assert_true(model_finish_regions(m, "trace"));
}

static void unmatched_and_repeats(void **state)
{
    (void)state;
    run_model b, n;
    nvtx_run(&b, (const char *const[]){"step", "load", "save"}, (const int[]){3, 1, 1}, 3);
    nvtx_run(&n, (const char *const[]){"step", "load", "eval"}, (const int[]){2, 1, 1}, 3);
    analysis ab, an;
    analyse(&b, &ab);
    analyse(&n, &an);
    comparison c;
    assert_true(compare_runs(&ab, &an, -1, &c));
    /* The whole run, step #1, step #2, load. */
    assert_int_equal(c.entities, 4);
    assert_int_equal(c.nunmatched, 3);
    assert_string_equal(c.unmatched[0].side, "base");
    assert_string_equal(c.unmatched[0].name, "step #3");
    assert_string_equal(c.unmatched[1].name, "save");
    assert_string_equal(c.unmatched[2].side, "new");
    assert_string_equal(c.unmatched[2].name, "eval");
    assert_true(c.unmatched[2].is_region);
    assert_string_equal(c.unmatched[2].kind, "nvtx");
    /* Matched repeats: their wall times are all 500 ns, the same. */
    const cmp_row *w = row_of(&c, true, "step #2", "wall_ms");
    assert_int_equal(w->verdict, CMP_SAME);
    comparison_free(&c);
    analysis_free(&ab);
    analysis_free(&an);
    model_free(&b);
    model_free(&n);
}

static void renamed_workload_unmatched(void **state)
{
    (void)state;
    run_model b, n;
    load_sample(&b);
    load_sample(&n);
    for (int i = 0; i < n.builtin.nworkloads; i++)
        if (strcmp(n.builtin.workloads[i].name, "cuda-naive") == 0)
            snprintf(n.builtin.workloads[i].name, sizeof n.builtin.workloads[i].name, "cuda-naive2");
    analysis ab, an;
    analyse(&b, &ab);
    analyse(&n, &an);
    comparison c;
    assert_true(compare_runs(&ab, &an, -1, &c));
    /* Its two runs (pageable, pinned), on each side; their regions keep their labels. */
    assert_int_equal(c.nunmatched, 4);
    int base = 0, fresh = 0;
    for (int i = 0; i < c.nunmatched; i++) {
        assert_false(c.unmatched[i].is_region);
        base += strcmp(c.unmatched[i].side, "base") == 0 && strncmp(c.unmatched[i].name, "cuda-naive (", 12) == 0;
        fresh += strcmp(c.unmatched[i].side, "new") == 0 && strncmp(c.unmatched[i].name, "cuda-naive2 (", 13) == 0;
    }
    assert_int_equal(base, 2);
    assert_int_equal(fresh, 2);
    comparison_free(&c);
    analysis_free(&ab);
    analysis_free(&an);
    model_free(&b);
    model_free(&n);
}

/* A sweep on either side: workloads match by label and size, and a workload's recorded sampling
 * noise is the noise of its timed figures (the per-product times only where none was recorded). */
static void sweep_matched_by_size(void **state)
{
    (void)state;
    run_model b, n;
    load_sample(&b);
    load_sample(&n);
    n.builtin.nsizes = 2;
    n.builtin.sizes[0] = 2048;
    n.builtin.sizes[1] = 4096;
    workload_of(&n, "cuda-naive (pinned)")->n = 4096;
    workload_of(&b, "cuda-tiled (pinned)")->noise_pct = 3.25;
    analysis ab, an;
    analyse(&b, &ab);
    analyse(&n, &an);
    comparison c;
    assert_true(compare_runs(&ab, &an, -1, &c));
    /* cuda-naive (pinned) at 2048 in the base and at 4096 in the new run meet nothing. */
    assert_int_equal(c.nunmatched, 2);
    for (int i = 0; i < c.nunmatched; i++)
        assert_string_equal(c.unmatched[i].name, strcmp(c.unmatched[i].side, "base") == 0
                                                     ? "cuda-naive (pinned), n = 2048"
                                                     : "cuda-naive (pinned), n = 4096");
    const cmp_row *k = row_of(&c, false, "cuda-tiled (pinned), n = 2048", "kernel_ms");
    assert_true(k->noise_base.ok);
    assert_float_equal(k->noise_base.v, 3.25, 1e-12);
    assert_true(k->noise_new.ok); /* none recorded: from the per-product times */
    assert_true(k->noise_new.v > 0 && k->noise_new.v < 5);
    comparison_free(&c);
    analysis_free(&ab);
    analysis_free(&an);
    model_free(&b);
    model_free(&n);
}

/* ---------- through the binary ---------- */

/* The sample, edited by edit (NULL: as it is), written to dir/name. */
static char *sample_copy(const char *dir, const char *name, void (*edit)(cJSON *root))
{
    cJSON *root = read_json(sample_path());
    assert_non_null(root);
    if (edit)
        edit(root);
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    char *path = path_in(dir, name);
    assert_true(write_text(path, out));
    cJSON_free(out);
    return path;
}

/* cuda-tiled (pinned)'s kernels (those its region owns) 10% longer, in the file. */
static void slow_tiled(cJSON *root)
{
    cJSON *w;
    double region = -1;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(cJSON_GetObjectItem(root, "builtin"), "workloads"))
        if (strcmp(cJSON_GetObjectItem(w, "name")->valuestring, "cuda-tiled") == 0 &&
            strcmp(cJSON_GetObjectItem(w, "host_memory")->valuestring, "pinned") == 0)
            region = cJSON_GetObjectItem(w, "region")->valuedouble;
    assert_true(region > 0);
    cJSON *k;
    int slowed = 0;
    cJSON_ArrayForEach(k, cJSON_GetObjectItem(cJSON_GetObjectItem(root, "events"), "kernels")) {
        const cJSON *g = cJSON_GetObjectItem(k, "region");
        if (!g || g->valuedouble != region)
            continue;
        double s = cJSON_GetObjectItem(k, "start_ns")->valuedouble, e = cJSON_GetObjectItem(k, "end_ns")->valuedouble;
        cJSON_SetNumberValue(cJSON_GetObjectItem(k, "end_ns"), s + round((e - s) * 1.1));
        slowed++;
    }
    assert_true(slowed > 0);
}

static void other_gpu(cJSON *root)
{
    cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "devices"), 0);
    cJSON_ReplaceItemInObject(d, "name", cJSON_CreateString("NVIDIA H100 80GB HBM3"));
}

static cmd_result compare(const char *const *args)
{
    const char *argv[16] = {mmprof_bin(), "compare"};
    int n = 2;
    for (int i = 0; args[i] && n < 15; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    return run_argv(argv, NULL);
}

static void expect_status(cmd_result *r, int want, const char *what)
{
    if (r->status != want)
        fail_msg("%s: exit %d, want %d\nstdout: %s\nstderr: %s", what, r->status, want, r->out, r->err);
}

static void lines_fit(const char *text, size_t width)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        if (n > width)
            fail_msg("line of %zu columns: %.*s", n, (int)n, p);
        p += n + (p[n] == '\n');
    }
}

static void binary_copy_same_slowed_worse(void **state)
{
    const char *dir = *state;
    char *copy = sample_copy(dir, "copy.json", NULL);
    char *slow = sample_copy(dir, "slow.json", slow_tiled);
    char *json = path_in(dir, "cmp.json");

    cmd_result r = compare((const char *const[]){sample_path(), copy, "--threshold", "5", NULL});
    expect_status(&r, 0, "the sample against its copy");
    assert_non_null(strstr(r.out, " 0 slower/worse, 0 faster/better, 0 changed,"));
    assert_null(strstr(r.out, "slower"" ")); /* no row */
    lines_fit(r.out, 100);
    cmd_free(&r);

    r = compare((const char *const[]){sample_path(), slow, "--threshold", "5", "--json", json, NULL});
    expect_status(&r, 1, "the sample against slowed kernels, --threshold 5");
    lines_fit(r.out, 100);
    assert_non_null(strstr(r.out, "\nworkload cuda-tiled (pinned)\n"));
    assert_non_null(strstr(r.out, "+10.0%"));
    assert_non_null(strstr(r.out, "slower !"));
    char *text = read_file(json, NULL);
    assert_non_null(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, "mmprof-compare");
    cJSON *sum = cJSON_GetObjectItem(doc, "summary");
    assert_int_equal(cJSON_GetObjectItem(sum, "exit_status")->valueint, 1);
    assert_true(cJSON_GetObjectItem(sum, "regressions")->valueint > 0);
    bool seen = false;
    cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "rows")) {
        if (!cJSON_IsTrue(cJSON_GetObjectItem(row, "region")) &&
            strcmp(cJSON_GetObjectItem(row, "name")->valuestring, "cuda-tiled (pinned)") == 0 &&
            strcmp(cJSON_GetObjectItem(row, "figure")->valuestring, "kernel_ms") == 0) {
            seen = true;
            assert_string_equal(cJSON_GetObjectItem(row, "verdict")->valuestring, "slower");
            assert_true(cJSON_IsTrue(cJSON_GetObjectItem(row, "regression")));
            assert_true(cJSON_IsNumber(cJSON_GetObjectItem(row, "noise_base_pct")));
            assert_true(cJSON_IsNumber(cJSON_GetObjectItem(row, "noise_new_pct")));
            /* The text shows the row's noises as the registry formats them. */
            char noise[2][32], both[72];
            static const char *const keys[] = {"noise_base_pct", "noise_new_pct"};
            for (int k = 0; k < 2; k++) {
                metric m;
                metric_set(&m, cJSON_GetObjectItem(row, keys[k])->valuedouble);
                metric_format(metric_find(&compare_row_table, keys[k]), &m, true, noise[k], sizeof noise[k]);
            }
            snprintf(both, sizeof both, "%s / %s", noise[0], noise[1]);
            if (!strstr(r.out, both))
                fail_msg("the text does not show the noise '%s':\n%s", both, r.out);
        }
    }
    assert_true(seen);
    cJSON_Delete(doc);
    cmd_free(&r);

    /* Without a threshold, or above the change, changes do not fail it. */
    r = compare((const char *const[]){sample_path(), slow, "-q", NULL});
    expect_status(&r, 0, "slowed kernels, no threshold");
    assert_string_equal(r.out, "");
    cmd_free(&r);
    r = compare((const char *const[]){sample_path(), slow, "--threshold", "12%", "-q", NULL});
    expect_status(&r, 0, "slowed kernels, --threshold 12%");
    cmd_free(&r);
    /* --all lists the figures that did not move too. */
    r = compare((const char *const[]){sample_path(), slow, "--all", NULL});
    expect_status(&r, 0, "--all");
    assert_non_null(strstr(r.out, "\nworkload cublas-sgemm (pinned)\n"));
    assert_non_null(strstr(r.out, "same within noise\n"));
    assert_null(strstr(r.out, "not shown"));
    lines_fit(r.out, 100);
    cmd_free(&r);
    free(copy);
    free(slow);
    free(json);
}

static void binary_pairs_with_warnings(void **state)
{
    const char *dir = *state;
    char *h100 = sample_copy(dir, "h100.json", other_gpu);
    cmd_result r = compare((const char *const[]){V1_SAMPLE, h100, "-q", NULL});
    expect_status(&r, 0, "runs of two devices");
    assert_non_null(strstr(r.err, "different devices: BASE 'NVIDIA H200', NEW 'NVIDIA H100 80GB HBM3'"));
    cmd_free(&r);

    /* The sample is schema_version 1; mmprof report writes it again as version 3. */
    char *v2 = path_in(dir, "v2.json");
    const char *rep[] = {mmprof_bin(), "report", V1_SAMPLE, "-q", "--json", v2, NULL};
    r = run_argv(rep, NULL);
    expect_status(&r, 0, "report --json");
    cmd_free(&r);
    r = compare((const char *const[]){V1_SAMPLE, v2, "--threshold", "0", NULL});
    expect_status(&r, 0, "version 1 against version 3");
    assert_non_null(strstr(r.err, "BASE is schema_version 1, NEW 3"));
    assert_non_null(strstr(r.out, " 0 slower/worse, 0 faster/better, 0 changed,"));
    cmd_free(&r);
    free(h100);
    free(v2);
}

/* Imports written as run files compare like built-in runs: regions by kind and path. */
static void binary_imports(void **state)
{
    const char *dir = *state;
    char *a = path_in(dir, "a.json"), *b = path_in(dir, "b.json");
    const char *imp_a[] = {mmprof_bin(), "import", "samples/h200-train-step.kineto.json", "-q", "--json", a, NULL};
    const char *imp_b[] = {mmprof_bin(), "import", "samples/h200-train-step.kineto.json", "-q", "--json", b, NULL};
    cmd_result r = run_argv(imp_a, NULL);
    expect_status(&r, 0, "import a");
    cmd_free(&r);
    r = run_argv(imp_b, NULL);
    expect_status(&r, 0, "import b");
    cmd_free(&r);
    r = compare((const char *const[]){a, b, "--threshold", "0", NULL});
    expect_status(&r, 0, "an import against the same import");
    assert_non_null(strstr(r.out, "(0 unmatched)"));
    assert_non_null(strstr(r.out, " 0 slower/worse, 0 faster/better, 0 changed,"));
    cmd_free(&r);
    /* Against the built-in sample: told, and only the whole run matches. */
    r = compare((const char *const[]){sample_path(), a, "-q", NULL});
    expect_status(&r, 0, "built-in against an import");
    assert_non_null(strstr(r.err, "BASE is a builtin run, NEW a kineto run"));
    cmd_free(&r);
    free(a);
    free(b);
}

static void refused(const char *const *args, const char *want)
{
    cmd_result r = compare(args);
    expect_status(&r, 2, want);
    if (!strstr(r.err, want))
        fail_msg("stderr lacks '%s': %s", want, r.err);
    assert_string_equal(r.out, "");
    cmd_free(&r);
}

static void binary_bad_input(void **state)
{
    const char *dir = *state;
    char *copy = sample_copy(dir, "copy.json", NULL);
    char *link = path_in(dir, "link.json");
    assert_int_equal(symlink(copy, link), 0);
    char *notrun = path_in(dir, "notrun.json");
    assert_true(write_text(notrun, "{\"traceEvents\": []}\n"));
    char *missing = path_in(dir, "missing.json");
    char *out = path_in(dir, "out.json");

    refused((const char *const[]){sample_path(), sample_path(), NULL}, "are the same file");
    refused((const char *const[]){copy, link, NULL}, "are the same file");
    refused((const char *const[]){sample_path(), missing, NULL}, "NEW: cannot read run file");
    refused((const char *const[]){missing, copy, NULL}, missing);
    refused((const char *const[]){sample_path(), notrun, NULL}, "not an mmprof run file");
    refused((const char *const[]){sample_path(), NULL}, "expected two run files");
    refused((const char *const[]){sample_path(), copy, "--threshold", "-3", NULL}, "--threshold '-3'");
    refused((const char *const[]){sample_path(), copy, "--threshold", "five", NULL}, "--threshold 'five'");
    refused((const char *const[]){sample_path(), copy, "--json", copy, NULL}, "would overwrite");
    refused((const char *const[]){sample_path(), copy, "--bogus", NULL}, "unknown option '--bogus'");
    /* Nothing was written on the way out. */
    assert_int_not_equal(access(out, F_OK), 0);
    cmd_result r = compare((const char *const[]){"--help", NULL});
    expect_status(&r, 0, "--help");
    assert_non_null(strstr(r.out, "|change| > max(noise of base, noise of new)"));
    lines_fit(r.out, 100);
    cmd_free(&r);
    free(copy);
    free(link);
    free(notrun);
    free(missing);
    free(out);
}

/* Two real runs of the same code on the H200 (mmprof --size 2048, one after the other; kept
 * xz-compressed in tests/data/same-code): nothing is judged a regression beyond 5% and the noise,
 * every workload's per-product kernel time is the same within noise (the GPU ones moved less than
 * 2%), and the totals that depend on
 * how many products each run sampled are not compared. */
static void same_code_twice(void **state)
{
    (void)state;
    const char *names[2] = {"a", "b"};
    run_model m[2];
    analysis a[2];
    for (int i = 0; i < 2; i++) {
        char xz[128];
        snprintf(xz, sizeof xz, "tests/data/same-code/h200-2048-same-code-%s.json.xz", names[i]);
        load_run(xz, &m[i]);
        assert_true(analyze(&m[i], &a[i]));
    }
    comparison c;
    assert_true(compare_runs(&a[0], &a[1], 5, &c));
    assert_int_equal(c.regressions, 0);
    int kernels = 0;
    for (int i = 0; i < c.nrows; i++) {
        const cmp_row *r = &c.rows[i];
        assert_false(!r->is_region && strcmp(r->def->key, "kernel_total_ms") == 0);
        assert_false(r->is_region && strcmp(r->def->key, "kernel_ms") == 0);
        if (!r->is_region && strcmp(r->def->key, "kernel_ms") == 0) {
            if (r->verdict != CMP_SAME)
                fail_msg("%s kernel_ms %+.2f%% (noise %.2f%% / %.2f%%) not same within noise", r->entity,
                         r->change_pct.v, r->noise_base.v, r->noise_new.v);
            if (strncmp(r->entity, "cpu-", 4) != 0 && fabs(r->change_pct.v) >= 2)
                fail_msg("%s kernel_ms moved %+.2f%% between two runs of the same code", r->entity, r->change_pct.v);
            kernels++;
        }
    }
    assert_int_equal(kernels, 25); /* every workload's per-product kernel time: same within noise */
    comparison_free(&c);
    for (int i = 0; i < 2; i++) {
        analysis_free(&a[i]);
        model_free(&m[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(judge_rule),
        cmocka_unit_test(sample_against_itself),
        cmocka_unit_test(same_code_twice),
        cmocka_unit_test(slower_kernels_found),
        cmocka_unit_test(unmatched_and_repeats),
        cmocka_unit_test(renamed_workload_unmatched),
        cmocka_unit_test(sweep_matched_by_size),
        cmocka_unit_test_setup_teardown(binary_copy_same_slowed_worse, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(binary_pairs_with_warnings, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(binary_imports, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(binary_bad_input, temp_dir_setup, temp_dir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
