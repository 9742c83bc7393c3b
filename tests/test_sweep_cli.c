/* --sizes, --max-noise, --max-time and --cold-l2 through the real binary (build/mmprof, or
 * $MMPROF_BIN): every bad value refused with the option named, exit 2, nothing on stdout and no
 * output file; a CPU-only sweep into one run file that `mmprof report` renders as text, HTML and
 * JSON; the sampling settings recorded in the run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "test_support.h"

/* dir/name (the caller frees it); dir is the group's temporary directory (temp_dir_setup). */
static char *in_tmp(void **state, const char *name)
{
    const char *dir = *state;
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    assert_non_null(p);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Runs mmprof with --json json (when not NULL), then args (NULL-terminated, at most 16). */
static cmd_result run_with(const char *const *args, const char *json)
{
    const char *argv[24];
    int n = 0;
    argv[n++] = mmprof_bin();
    if (json) { /* first, so that an option at the end can lack its value */
        argv[n++] = "--json";
        argv[n++] = json;
    }
    for (int i = 0; args[i]; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    return run_argv(argv, NULL);
}

static void bad_values_refused(void **state)
{
    char many[256] = "";
    for (int i = 1; i <= 33; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%s%d", i > 1 ? "," : "", i * 8);
    const struct {
        const char *args[8];
        const char *want;
    } cases[] = {
        {{"--sizes", "", NULL}, "--sizes '': expected sizes"},
        {{"--sizes", "64:32", NULL}, "--sizes '64:32': the range is reversed"},
        {{"--sizes", "0", NULL}, "--sizes '0': '0' is not a whole number"},
        {{"--sizes", "64,0,128", NULL}, "'0' is not a whole number"},
        {{"--sizes", "64,abc", NULL}, "'abc' is not a whole number"},
        {{"--sizes", "64,-128", NULL}, "'-128' is not a whole number"},
        {{"--sizes", "64,128,64", NULL}, "64 is listed twice"},
        {{"--sizes", many, NULL}, "at most 32 sizes"},
        {{"--sizes", "64,,128", NULL}, "expected sizes separated by single commas"},
        {{"--sizes", "64,128,", NULL}, "expected sizes separated by single commas"},
        {{"--sizes", "64:", NULL}, "expected A:B"},
        {{"--sizes", "x:128", NULL}, "expected A:B"},
        {{"--sizes", "100:1000", NULL}, "a range runs between powers of two"},
        {{"--sizes", "64,128", "--size", "256", NULL}, "--sizes and --size both give the size"},
        {{"--size", "256", "--sizes", "64,128", NULL}, "--sizes and --size both give the size"},
        {{"--sizes", "64,2000000", NULL}, "--sizes '64,2000000': '2000000' is not a whole number from 1 to 1000000"},
        {{"--max-noise", "0", NULL}, "--max-noise '0': expected a positive number of percent"},
        {{"--max-noise", "-1", NULL}, "--max-noise '-1': expected a positive number"},
        {{"--max-noise", "abc", NULL}, "--max-noise 'abc': expected a positive number"},
        {{"--max-noise", "nan", NULL}, "--max-noise 'nan'"},
        {{"--max-noise", "0.5%", NULL}, "--max-noise '0.5%'"},
        {{"--max-noise", "", NULL}, "--max-noise '': expected a positive number"},
        {{"--max-time", "0", NULL}, "--max-time '0': expected a positive number of seconds"},
        {{"--max-time", "1e9", NULL}, "--max-time '1e9'"},
        {{"--sizes", NULL}, "option '--sizes' needs a value"},
        /* Past memory: refused for the size that does not fit, before any work. */
        {{"--sizes", "64,1000000", "--workloads", "cpu-openblas", NULL}, "--sizes: size 1000000 needs"},
    };
    char *json = in_tmp(state, "bad.json");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cmd_result r = run_with(cases[i].args, json);
        if (r.status != 2 || !strstr(r.err, cases[i].want) || r.out[0] || exists(json))
            fail_msg("case %zu: exit %d, stdout '%.80s', stderr '%s'; wanted exit 2 and '%s', no output", i, r.status,
                     r.out, r.err, cases[i].want);
        cmd_free(&r);
    }
    free(json);
}

/* A recorded run takes none of the run options. */
static void report_refuses_run_options(void **state)
{
    (void)state;
    static const char *const opts[][2] = {{"--sizes", "64,128"}, {"--max-noise", "1"}, {"--max-time", "1"}, {"--cold-l2", NULL}};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        const char *argv[] = {mmprof_bin(), "report", sample_path(), opts[i][0], opts[i][1], NULL};
        cmd_result r = run_argv(argv, NULL);
        char want[64];
        snprintf(want, sizeof want, "%s applies to a new run", opts[i][0]);
        if (r.status != 2 || !strstr(r.err, want))
            fail_msg("%s: exit %d, stderr '%s'", opts[i][0], r.status, r.err);
        cmd_free(&r);
    }
}

static cJSON *load_json(const char *path)
{
    char *text = read_file(path, NULL);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    return root;
}

/* One run file holds every size; each workload carries its n and its sampling; `mmprof report`
 * renders it as text, HTML and JSON with the sweep in each. */
static void cpu_sweep_end_to_end(void **state)
{
    char *json = in_tmp(state, "sweep.json"), *html = in_tmp(state, "sweep.html"), *again = in_tmp(state, "again.json");
    const char *args[] = {"--sizes", "32,64,128", "--workloads", "cpu-openblas", "--max-time", "0.05", "-q", NULL};
    cmd_result r = run_with(args, json);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    cmd_free(&r);
    cJSON *root = load_json(json);
    const cJSON *cfg = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "builtin"), "config");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cfg, "sizes")), 3);
    assert_int_equal(cJSON_GetObjectItem(cfg, "n")->valueint, 32);
    assert_true(cJSON_GetObjectItem(cfg, "max_noise_pct")->valuedouble == 0.5);
    assert_true(cJSON_GetObjectItem(cfg, "max_time_s")->valuedouble == 0.05);
    const cJSON *wls = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "builtin"), "workloads");
    assert_int_equal(cJSON_GetArraySize(wls), 3);
    static const int sizes[] = {32, 64, 128};
    for (int i = 0; i < 3; i++) {
        const cJSON *w = cJSON_GetArrayItem(wls, i);
        assert_int_equal(cJSON_GetObjectItem(w, "n")->valueint, sizes[i]);
        int samples = cJSON_GetObjectItem(w, "samples")->valueint;
        assert_true(samples >= 3);
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(w, "product_ms")), samples);
        assert_true(cJSON_IsNumber(cJSON_GetObjectItem(w, "noise_pct")));
        const char *stop = cJSON_GetObjectItem(w, "stopped_by")->valuestring;
        assert_true(strcmp(stop, "noise") == 0 || strcmp(stop, "time") == 0 || strcmp(stop, "max-samples") == 0);
        if (strcmp(stop, "noise") == 0)
            assert_true(cJSON_GetObjectItem(w, "noise_pct")->valuedouble <= 0.5);
        assert_string_equal(cJSON_GetObjectItem(w, "status")->valuestring, "ok");
        /* Each size's workload is measured against its own size: TFLOP/s from its n. */
        const cJSON *mt = cJSON_GetObjectItem(w, "metrics");
        double ms = cJSON_GetObjectItem(mt, "kernel_ms")->valuedouble;
        assert_close(cJSON_GetObjectItem(mt, "tflops")->valuedouble, 2.0 * sizes[i] * sizes[i] * sizes[i] / ms / 1e9, 1e-9);
    }
    const cJSON *sw = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "analysis"), "sweep");
    assert_non_null(sw);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(sw, "series")), 1);
    cJSON_Delete(root);

    const char *rep[] = {mmprof_bin(), "report", json, "--html", html, "--json", again, NULL};
    r = run_argv(rep, NULL);
    if (r.status != 0)
        fail_msg("report: exit %d: %s", r.status, r.err);
    assert_non_null(strstr(r.out, "n = 32 to 128 (a sweep of 3 sizes)"));
    assert_non_null(strstr(r.out, "\nSweep  "));
    assert_non_null(strstr(r.out, "TFLOP/s per size"));
    assert_non_null(strstr(r.out, "\nn = 64\n"));
    cmd_free(&r);
    char *page = read_file(html, NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "<section id=\"sweep\">"));
    assert_non_null(strstr(page, "n = 32 to 128 (3 sizes)"));
    free(page);
    root = load_json(again);
    assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "analysis"), "sweep"));
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "builtin"), "workloads"), 2), "n")->valueint, 128);
    cJSON_Delete(root);
    free(json);
    free(html);
    free(again);
}

/* A range of powers of two, --repeat (a fixed count, no noise rule recorded) and --cold-l2 (on a
 * run without a GPU: accepted, and the run says no flush happened). */
static void range_repeat_and_cold_l2(void **state)
{
    char *json = in_tmp(state, "range.json");
    const char *args[] = {"--sizes", "16:64", "--workloads", "cpu-openblas", "--repeat", "4", "--cold-l2", "-q", NULL};
    cmd_result r = run_with(args, json);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    cmd_free(&r);
    cJSON *root = load_json(json);
    const cJSON *cfg = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "builtin"), "config");
    const cJSON *sizes = cJSON_GetObjectItem(cfg, "sizes");
    assert_int_equal(cJSON_GetArraySize(sizes), 3);
    assert_int_equal(cJSON_GetArrayItem(sizes, 2)->valueint, 64);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cfg, "max_noise_pct")));
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(cfg, "cold_l2")));
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(cJSON_GetObjectItem(root, "builtin"), "workloads")) {
        assert_int_equal(cJSON_GetObjectItem(w, "samples")->valueint, 4);
        assert_string_equal(cJSON_GetObjectItem(w, "stopped_by")->valuestring, "repeat");
    }
    cJSON_Delete(root);

    /* One size in --sizes is a plain run. */
    const char *one[] = {"--sizes", "64:64", "--workloads", "cpu-openblas", "--repeat", "3", "-q", NULL};
    r = run_with(one, json);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    root = load_json(json);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "builtin"), "config"), "sizes")), 0);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "builtin"), "config"), "n")->valueint, 64);
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "analysis"), "sweep"));
    cJSON_Delete(root);
    free(json);
}

static void help_states_the_noise(void **state)
{
    (void)state;
    const char *argv[] = {mmprof_bin(), "--help", NULL};
    cmd_result r = run_argv(argv, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "--sizes LIST"));
    assert_non_null(strstr(r.out, "stdev / mean"));
    assert_non_null(strstr(r.out, "--cold-l2"));
    cmd_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_values_refused),
        cmocka_unit_test(report_refuses_run_options),
        cmocka_unit_test(cpu_sweep_end_to_end),
        cmocka_unit_test(range_repeat_and_cold_l2),
        cmocka_unit_test(help_states_the_noise),
    };
    return cmocka_run_group_tests(tests, temp_dir_setup, temp_dir_teardown);
}
