/* No output shows a fact it does not have: every committed sample rendered as mmprof renders it
 * (tests/render_samples.sh: each run file, the ranks of one job merged, each PyTorch trace, the
 * two Kineto rank traces merged), and the inputs that lack the most (a ROCm trace of AMD GPUs,
 * Nsight Systems exports of both schemas), into text and CSV; none of them holds a placeholder
 * for something the source did not record: "?", "unknown", a clock of 0 MHz, 0 threads or
 * logical cores, version 0.0 of a driver or runtime, compute capability sm_00. A figure the
 * source lacks is left out or n/a with its reason.
 *
 * The checked outputs are those of the text and CSV renderers. render_samples.sh writes the HTML
 * page too; its placeholders are the page's renderer's to remove, and "html" joins OUTPUTS below
 * when they are gone. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_support.h"

/* The file name endings of the outputs checked. */
static const char *const OUTPUTS[] = {".txt", ".csv"};

/* Inputs beyond the samples, each imported alone. */
static const char *const SPARSE_INPUTS[][2] = {
    {"rocm", "tests/data/kineto/rocm_copies.json"},
    {"nsys-new", "tests/fuzz/corpus/import_nsys/new_style.sqlite"},
    {"nsys-old", "tests/fuzz/corpus/import_nsys/old_style.sqlite"},
};

/* Where text shows a placeholder: the placeholder, or NULL. "0 MHz" counts only as a number of its
 * own (1980 MHz is a clock). */
static const char *placeholder_in(const char *text, const char **at)
{
    static const char *const words[] = {"?", "unknown", " 0 threads", " 0 logical cores", "runtime 0.0", "driver 0.0",
                                        "sm_00"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if ((*at = strstr(text, words[i])))
            return words[i];
    for (const char *p = text; (p = strstr(p, "0 MHz")); p++) {
        bool in_number = p > text && ((p[-1] >= '0' && p[-1] <= '9') || p[-1] == '.');
        if (!in_number) {
            *at = p;
            return "0 MHz";
        }
    }
    return NULL;
}

static bool is_output(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof OUTPUTS / sizeof OUTPUTS[0]; i++) {
        size_t e = strlen(OUTPUTS[i]);
        if (n > e && strcmp(name + n - e, OUTPUTS[i]) == 0)
            return true;
    }
    return false;
}

/* Fails naming each output of dir that shows a placeholder, with its line; returns how many
 * outputs were read. */
static int check_outputs(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int read = 0, bad = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_output(e->d_name))
            continue;
        char *path = path_in(dir, e->d_name);
        char *text = read_file(path, NULL);
        assert_non_null(text);
        read++;
        const char *at, *word = placeholder_in(text, &at);
        if (word) {
            const char *line = at;
            while (line > text && line[-1] != '\n')
                line--;
            print_error("%s shows '%s': %.*s\n", e->d_name, word, (int)strcspn(line, "\n"), line);
            bad++;
        }
        free(text);
        free(path);
    }
    closedir(d);
    if (bad)
        fail_msg("%d output%s show%s a placeholder", bad, bad == 1 ? "" : "s", bad == 1 ? "s" : "");
    return read;
}

static void samples_show_no_placeholders(void **state)
{
    const char *dir = *state;
    cmd_result r = run_shell("tests/render_samples.sh \"$MMPROF\" '%s'", dir);
    if (r.status != 0 || r.err[0])
        fail_msg("render_samples.sh: exit %d\n%s", r.status, r.err);
    cmd_free(&r);
    for (size_t i = 0; i < sizeof SPARSE_INPUTS / sizeof SPARSE_INPUTS[0]; i++) {
        const char *name = SPARSE_INPUTS[i][0], *input = SPARSE_INPUTS[i][1];
        r = run_shell("\"$MMPROF\" import '%s' --text '%s/%s.txt' --csv '%s/%s.csv' -q", input, dir, name, dir, name);
        if (r.status != 0)
            fail_msg("mmprof import %s: exit %d\n%s", input, r.status, r.err);
        cmd_free(&r);
    }
    /* 17 renderings of the samples and the sparse inputs, each as text and CSV. */
    int n = check_outputs(dir);
    if (n < 2 * (17 + (int)(sizeof SPARSE_INPUTS / sizeof SPARSE_INPUTS[0])))
        fail_msg("only %d outputs were rendered", n);
}

/* The check itself: it finds each placeholder, and a clock that merely ends in 0 is none. */
static void placeholders_are_found(void **state)
{
    (void)state;
    const char *at;
    assert_null(placeholder_in("GPU 0   NVIDIA H200, sm_90, 132 SMs at 1980 MHz, driver 13.0, runtime 13.0", &at));
    assert_null(placeholder_in("BLAS    OpenBLAS 0.3.26, core Cooperlake, 10 threads", &at));
    static const char *const shown[] = {"132 SMs at 0 MHz", "OpenBLAS ?, core ?", "driver 0.0", "runtime 0.0, x",
                                        "sm_00", "unknown CPU, 0 logical cores", "core x, 0 threads", "0 MHz"};
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
        if (!placeholder_in(shown[i], &at))
            fail_msg("'%s' passed as no placeholder", shown[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(placeholders_are_found),
        cmocka_unit_test_setup_teardown(samples_show_no_placeholders, temp_dir_setup, temp_dir_teardown),
    };
    return cmocka_run_group_tests_name("no placeholders", tests, NULL, NULL);
}
