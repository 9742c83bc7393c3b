/* GPU tests of `mmprof profile` (make test-gpu, on a machine with a CUDA device; make gpu-build
 * first: it builds build/examples/copies_and_streams). Without a usable GPU every test reports
 * itself skipped.
 *
 * examples/copies_and_streams.cu is an ordinary CUDA program that writes its own account of what
 * it did (counts, bytes, cudaEvent times of its one-at-a-time "timed" phase); mmprof profile's
 * JSON report must agree with it:
 *  - kernels, copies and bytes each way equal the program's (the whole run);
 *  - in the "timed" NVTX range, kernel time and pinned copy time each way within 2% of the
 *    program's events, pageable copy time within 5% (a pageable copy is staged through a pinned
 *    buffer by the driver, and events around it also count the host side of the staging), and
 *    never longer than the events (the operation lies inside its event pair). The example sizes
 *    its timed work so that what a pair counts beyond the operation (the launch latency, one
 *    staging chunk) is well inside those bounds; its comment says how;
 *  - a forked child's kernels are recorded too (its own process, its own stream file);
 *  - a program killed by SIGSEGV still gives a report, marked partial, with status 139. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "test_support.h"

static bool have_gpu;
static int group_setup(void **state)
{
    have_gpu = gpu_usable();
    return test_tmp_setup(state);
}

/* The example beside the test binaries: BUILD/examples/copies_and_streams. */
static const char *example(void) { return beside_bin("examples/copies_and_streams"); }

static cJSON *load_json(const char *path)
{
    char *text = read_file(path, NULL);
    if (!text)
        fail_msg("%s was not written", path);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!doc)
        fail_msg("%s is not JSON", path);
    return doc;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    if (!cJSON_IsNumber(v))
        fail_msg("no number '%s'", key);
    return v->valuedouble;
}

/* The report's region named name (kind too), or fails. */
static const cJSON *find_region(const cJSON *report, const char *name, const char *kind)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(cJSON_GetObjectItem(report, "analysis"), "regions"))
    {
        const char *n = cJSON_GetStringValue(cJSON_GetObjectItem(r, "name"));
        const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(r, "kind"));
        if (n && k && strcmp(n, name) == 0 && strcmp(k, kind) == 0)
            return r;
    }
    fail_msg("no %s region '%s' in the report", kind, name);
    return NULL;
}

/* A region's copy flow (direction and host memory kind): its field key, or -1 when absent. */
static double flow(const cJSON *r, const char *dir, const char *host, const char *key)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(r, "copy_flows"))
    {
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "kind")), "memcpy") == 0 &&
            strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "dir")), dir) == 0 &&
            strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "host_memory")), host) == 0)
            return num(f, key);
    }
    return -1;
}

/* Runs `mmprof profile --json RUN -- copies_and_streams OWN [mode]`; returns the status. */
static int profile_example(const char *mode, char **run_json, char **own_json, char **err)
{
    *run_json = path_in(test_tmp, mode[0] ? mode : "plain");
    char own_name[64];
    snprintf(own_name, sizeof own_name, "own-%s.json", mode[0] ? mode : "plain");
    *own_json = path_in(test_tmp, own_name);
    const char *argv[] = {mmprof_bin(), "profile", "--json", *run_json, "--", example(), *own_json,
                          mode[0] ? mode : NULL, NULL};
    cmd_result r = run_argv(argv, NULL);
    print_message("mmprof profile %s %s -> exit %d\nstdout: %s\nstderr: %s\n", example(), mode, r.status, r.out, r.err);
    *err = r.err;
    r.err = NULL;
    int status = r.status;
    cmd_free(&r);
    return status;
}

static void counts_bytes_and_times_match_the_program(void **state)
{
    (void)state;
    if (!have_gpu)
        skip();
    char *run_json, *own_json, *err;
    assert_int_equal(profile_example("", &run_json, &own_json, &err), 0);
    cJSON *run = load_json(run_json), *own = load_json(own_json);
    const cJSON *all = find_region(run, "copies_and_streams", "run");
    assert_int_equal((int)num(all, "kernels"), (int)num(own, "kernels"));
    assert_int_equal((int)num(all, "copies"), (int)(num(own, "h2d_copies") + num(own, "d2h_copies")));
    assert_close(num(all, "h2d_bytes"), num(own, "h2d_bytes"), 0);
    assert_close(num(all, "d2h_bytes"), num(own, "d2h_bytes"), 0);

    const cJSON *timed = find_region(run, "timed", "nvtx");
    print_message("timed: kernel %.4f ms (events %.4f); HtoD pinned %.4f (%.4f), pageable %.4f (%.4f); "
                  "DtoH pinned %.4f (%.4f), pageable %.4f (%.4f)\n",
                  num(timed, "kernel_ms"), num(own, "timed_kernel_ms"), flow(timed, "HtoD", "pinned", "ms"),
                  num(own, "timed_h2d_pinned_ms"), flow(timed, "HtoD", "pageable", "ms"),
                  num(own, "timed_h2d_pageable_ms"), flow(timed, "DtoH", "pinned", "ms"),
                  num(own, "timed_d2h_pinned_ms"), flow(timed, "DtoH", "pageable", "ms"),
                  num(own, "timed_d2h_pageable_ms"));
    assert_close(num(timed, "kernel_ms"), num(own, "timed_kernel_ms"), 0.02);
    assert_close(flow(timed, "HtoD", "pinned", "ms"), num(own, "timed_h2d_pinned_ms"), 0.02);
    assert_close(flow(timed, "DtoH", "pinned", "ms"), num(own, "timed_d2h_pinned_ms"), 0.02);
    assert_close(flow(timed, "HtoD", "pageable", "ms"), num(own, "timed_h2d_pageable_ms"), 0.05);
    assert_close(flow(timed, "DtoH", "pageable", "ms"), num(own, "timed_d2h_pageable_ms"), 0.05);
    /* Inside the pair: never longer than the events, but for rounding of the two clocks' reads. */
    assert_true(num(timed, "kernel_ms") <= num(own, "timed_kernel_ms") * 1.001);
    assert_true(flow(timed, "HtoD", "pinned", "ms") <= num(own, "timed_h2d_pinned_ms") * 1.001);
    assert_true(flow(timed, "DtoH", "pinned", "ms") <= num(own, "timed_d2h_pinned_ms") * 1.001);
    assert_true(flow(timed, "HtoD", "pageable", "ms") <= num(own, "timed_h2d_pageable_ms") * 1.001);
    assert_true(flow(timed, "DtoH", "pageable", "ms") <= num(own, "timed_d2h_pageable_ms") * 1.001);
    assert_close(flow(timed, "HtoD", "pinned", "bytes"), num(own, "timed_pinned_bytes"), 0);
    assert_close(flow(timed, "DtoH", "pinned", "bytes"), num(own, "timed_pinned_bytes"), 0);
    assert_close(flow(timed, "HtoD", "pageable", "bytes"), num(own, "timed_pageable_bytes"), 0);
    assert_close(flow(timed, "DtoH", "pageable", "bytes"), num(own, "timed_pageable_bytes"), 0);
    cJSON_Delete(run);
    cJSON_Delete(own);
    free(run_json);
    free(own_json);
    free(err);
}

static void forked_child_is_recorded(void **state)
{
    (void)state;
    if (!have_gpu)
        skip();
    char *run_json, *own_json, *err;
    assert_int_equal(profile_example("fork", &run_json, &own_json, &err), 0);
    cJSON *run = load_json(run_json), *own = load_json(own_json);
    const cJSON *all = find_region(run, "copies_and_streams", "run");
    assert_int_equal((int)num(own, "child_kernels"), 3);
    assert_int_equal((int)num(all, "kernels"), (int)(num(own, "kernels") + num(own, "child_kernels")));
    assert_close(num(all, "d2h_bytes"), num(own, "d2h_bytes") + num(own, "child_d2h_bytes"), 0);
    const cJSON *child = find_region(run, "child", "nvtx");
    assert_int_equal((int)num(child, "kernels"), 3);
    cJSON_Delete(run);
    cJSON_Delete(own);
    free(run_json);
    free(own_json);
    free(err);
}

static void crashing_program_gives_a_partial_report(void **state)
{
    (void)state;
    if (!have_gpu)
        skip();
    char *run_json, *own_json, *err;
    assert_int_equal(profile_example("crash", &run_json, &own_json, &err), 128 + 11);
    cJSON *run = load_json(run_json);
    bool partial = false, no_exit = false;
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(run, "warnings"))
    {
        partial |= strstr(cJSON_GetStringValue(w), "killed by SIGSEGV") != NULL;
        no_exit |= strstr(cJSON_GetStringValue(w), "without running its exit handlers") != NULL;
    }
    assert_true(partial);
    assert_true(no_exit);
    /* The work ended a second before the crash: CUPTI's periodic flush (100 ms) handed over its
     * records by then. */
    const cJSON *all = find_region(run, "copies_and_streams", "run");
    print_message("kernels recorded before the crash: %.0f\n", num(all, "kernels"));
    assert_true(num(all, "kernels") > 0);
    cJSON_Delete(run);
    free(run_json);
    free(own_json);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_bytes_and_times_match_the_program),
        cmocka_unit_test(forked_child_is_recorded),
        cmocka_unit_test(crashing_program_gives_a_partial_report),
    };
    return cmocka_run_group_tests(tests, group_setup, test_tmp_teardown);
}
