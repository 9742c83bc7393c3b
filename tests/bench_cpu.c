/* make bench-cpu (any machine, no GPU): the memory `mmprof report` needs for a large run file.
 *
 * A run file BENCH_COPIES times the sample's events (default 8, about 50 MB: each kernel, copy, memset, API
 * call and sync of samples/h200-2048.json's event store repeated) is rendered by
 * the real binary as `report FILE --trace T --html H --json J`; its peak resident set, from
 * wait4's rusage, less the binary's own at start (`--version`), must stay within 5x the file's
 * size. Before the fix (trace args kept at a
 * strbuf's 4 KiB each, the whole document's cJSON tree beside its text when reading and again
 * when writing) it was 22x: 866 MB for 39 MB; now about 3.3x (122 MB for 37 MB).
 * Also run by make test (one test, counted in the pass/fail line). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "test_support.h"

#define MAX_RATIO 5.0

/* The sample with each workload's event arrays repeated copies times, written to path. */
static void make_big_run(const char *path, int copies)
{
    cJSON *root = read_json(sample_path());
    assert_non_null(root);
    /* Run file schema 3: every event in the one store, "events" (the workloads' own arrays of
     * schema 2 are gone; repeating those left the file at the sample's size). */
    static const char *const arrays[] = {"kernels", "copies", "memsets", "apis", "syncs"};
    cJSON *events = cJSON_GetObjectItem(root, "events");
    assert_non_null(events);
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
        cJSON *arr = cJSON_GetObjectItem(events, arrays[k]);
        int n = cJSON_GetArraySize(arr);
        cJSON *item = arr ? arr->child : NULL;
        for (int i = 0; i < n; i++, item = item->next) /* the originals, walked once */
            for (int c = 1; c < copies; c++)
                cJSON_AddItemToArray(arr, cJSON_Duplicate(item, true));
    }
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    assert_non_null(out);
    assert_true(write_text(path, out));
    cJSON_free(out);
}

/* Runs argv; returns its exit status and its peak RSS in bytes. */
static int peak_rss(const char *const *argv, long long *bytes)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *null = freopen("/dev/null", "w", stdout); /* --version's line is not wanted */
        (void)null;
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    assert_int_equal(wait4(pid, &st, 0, &ru), pid);
    *bytes = (long long)ru.ru_maxrss * 1024; /* kilobytes on Linux */
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void report_memory_within_5x_file(void **state)
{
    (void)state;
    const char *env = getenv("BENCH_COPIES");
    int copies = env ? atoi(env) : 8;
    assert_true(copies >= 1);
    char *tmp = make_temp_dir();
    assert_non_null(tmp);
    char big[512], j[512], h[512], t[512];
    snprintf(big, sizeof big, "%s/big.json", tmp);
    snprintf(j, sizeof j, "%s/J.json", tmp);
    snprintf(h, sizeof h, "%s/H.html", tmp);
    snprintf(t, sizeof t, "%s/T.json", tmp);
    /* Made in a child: wait4's peak counts what the measuring fork inherits, so this process
     * must stay small. */
    pid_t maker = fork();
    assert_true(maker >= 0);
    if (maker == 0) {
        make_big_run(big, copies);
        _exit(0);
    }
    int made;
    assert_int_equal(waitpid(maker, &made, 0), maker);
    assert_true(WIFEXITED(made) && WEXITSTATUS(made) == 0);
    struct stat st;
    assert_int_equal(stat(big, &st), 0);

    long long base, rss;
    const char *version[] = {mmprof_bin(), "--version", NULL};
    const char *argv[] = {mmprof_bin(), "report", big, "-q", "--trace", t, "--html", h, "--json", j, NULL};
    assert_int_equal(peak_rss(version, &base), 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int status = peak_rss(argv, &rss);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* What reading and rendering cost: the peak less what the binary needs to start at all
     * (its libraries, OpenBLAS's buffers), which does not grow with the file. */
    double ratio = (double)(rss - base) / (double)st.st_size;
    print_message("run file %.1f MB (%dx the sample's events): report --trace --html --json peak RSS %.1f MB "
                  "(%.2fx the file); less the binary's own %.1f MB at start: %.2fx the file; %.2f s\n",
                  st.st_size / 1e6, copies, rss / 1e6, (double)rss / (double)st.st_size, base / 1e6, ratio,
                  (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    assert_int_equal(status, 0);
    assert_true(ratio <= MAX_RATIO);
    rm_rf(tmp);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_memory_within_5x_file),
    };
    return cmocka_run_group_tests_name("bench-cpu", tests, NULL, NULL);
}
