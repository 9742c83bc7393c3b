/* mmprof profile's capture options (--delay, --duration, --capture-range, --capture-count,
 * --capture-skip): every bad value and combination exits 2 naming the option, through the real
 * binary; good ones reach the program as the MMPROF_CAPTURE_* variables the injection library
 * reads, and capture_config reads back what the launcher set (capture_config.c, linked here). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "capture_config.h"
#include "cli.h"
#include "test_support.h"

static void show(const char *const *argv, const cmd_result *r)
{
    char cmd[1024] = "";
    for (int i = 0; argv[i]; i++)
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s'%s'", i ? " " : "", argv[i]);
    print_message("$ %s\n  -> exit %d; stderr: %s\n", cmd, r->status, r->err[0] ? r->err : "(empty)\n");
}

/* `mmprof profile ARGS... -- true` exits 2 with every one of parts on stderr, nothing on stdout,
 * and the program never ran (it would print nothing anyway: true). */
static void refused(const char *const *args, const char *const *parts)
{
    const char *argv[16] = {mmprof_bin(), "profile"};
    int n = 2;
    for (int i = 0; args[i]; i++)
        argv[n++] = args[i];
    argv[n++] = "--";
    argv[n++] = "true";
    argv[n] = NULL;
    cmd_result r = run_argv(argv, NULL);
    show(argv, &r);
    assert_int_equal(r.status, EXIT_USAGE);
    for (int i = 0; parts[i]; i++)
        if (!strstr(r.err, parts[i]))
            fail_msg("stderr does not name '%s'", parts[i]);
    assert_string_equal(r.out, "");
    cmd_free(&r);
}

#define REFUSED(parts, ...)                                      \
    do {                                                         \
        const char *a_[] = {__VA_ARGS__, NULL};                  \
        const char *p_[] = {parts, NULL};                        \
        refused(a_, p_);                                         \
    } while (0)

static void bad_values(void **state)
{
    (void)state;
    REFUSED("--delay 'x'", "--delay", "x");
    REFUSED("--delay '0'", "--delay", "0");
    REFUSED("--delay '-1'", "--delay", "-1");
    REFUSED("--delay '1e9'", "--delay", "1e9");
    REFUSED("--duration '2s'", "--duration", "2s");
    REFUSED("--duration ''", "--duration", "");
    REFUSED("--capture-range 'nsys'", "--capture-range", "nsys");
    REFUSED("--capture-range 'cudaProfilerApi'", "--capture-range", "cudaProfilerApi");
    REFUSED("--capture-range 'nvtx:'", "--capture-range", "nvtx:");
    REFUSED("--capture-range 'nvtx:@d'", "--capture-range", "nvtx:@d");
    REFUSED("--capture-range 'nvtx:step@'", "--capture-range", "nvtx:step@");
    REFUSED("--capture-count '0'", "--capture-range", "cuda-profiler", "--capture-count", "0");
    REFUSED("--capture-count 'two'", "--capture-range", "cuda-profiler", "--capture-count", "two");
    REFUSED("--capture-skip '-1'", "--capture-range", "nvtx:step", "--capture-skip", "-1");
    REFUSED("--capture-skip '1.5'", "--capture-range", "nvtx:step", "--capture-skip", "1.5");
}

static void conflicts(void **state)
{
    (void)state;
    REFUSED("--delay and --capture-range", "--delay", "1", "--capture-range", "cuda-profiler");
    REFUSED("--duration and --capture-range", "--capture-range", "nvtx:step", "--duration", "3");
    REFUSED("--capture-count counts", "--capture-count", "2");
    REFUSED("--capture-skip counts", "--delay", "1", "--capture-skip", "2");
}

/* The capture options belong to profile: the built-in run, report and import refuse them. */
static void profile_only(void **state)
{
    (void)state;
    const char *cases[][3] = {
        {"--delay", "1", NULL}, {"--duration", "1", NULL}, {"--capture-range", "cuda-profiler", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[] = {mmprof_bin(), cases[i][0], cases[i][1], NULL};
        cmd_result r = run_argv(argv, NULL);
        show(argv, &r);
        assert_int_equal(r.status, EXIT_USAGE);
        assert_non_null(strstr(r.err, cases[i][0]));
        assert_non_null(strstr(r.err, "mmprof profile only"));
        cmd_free(&r);
        const char *rep[] = {mmprof_bin(), "report", "samples/h200-2048.json", cases[i][0], cases[i][1], NULL};
        r = run_argv(rep, NULL);
        show(rep, &r);
        assert_int_equal(r.status, EXIT_USAGE);
        assert_non_null(strstr(r.err, cases[i][0]));
        cmd_free(&r);
    }
}

/* What the program sees: the variables of its options, nothing for a plain profile. */
static char *program_env(const char *const *opts)
{
    const char *argv[16] = {mmprof_bin(), "profile", "--quiet"};
    int n = 3;
    for (int i = 0; opts[i]; i++)
        argv[n++] = opts[i];
    argv[n++] = "--";
    argv[n++] = "sh";
    argv[n++] = "-c";
    argv[n++] = "env | grep '^MMPROF_CAPTURE_' | sort";
    argv[n] = NULL;
    cmd_result r = run_argv(argv, NULL);
    show(argv, &r);
    assert_int_equal(r.status, 0);
    char *out = r.out;
    r.out = NULL;
    cmd_free(&r);
    return out;
}

static void options_reach_the_program(void **state)
{
    (void)state;
    const char *none[] = {NULL};
    char *env = program_env(none);
    assert_string_equal(env, "");
    free(env);

    const char *timed[] = {"--delay", "1.5", "--duration", "0.25", NULL};
    env = program_env(timed);
    assert_non_null(strstr(env, "MMPROF_CAPTURE_DELAY_NS=1500000000\n"));
    assert_non_null(strstr(env, "MMPROF_CAPTURE_DURATION_NS=250000000\n"));
    assert_non_null(strstr(env, "MMPROF_CAPTURE_START_NS="));
    assert_null(strstr(env, "MMPROF_CAPTURE_RANGE"));
    free(env);

    const char *nvtx[] = {"--capture-range", "nvtx:train step@my@lib", "--capture-count", "3", "--capture-skip", "2",
                          NULL};
    env = program_env(nvtx);
    assert_non_null(strstr(env, "MMPROF_CAPTURE_RANGE=nvtx:train step@my@lib\n"));
    assert_non_null(strstr(env, "MMPROF_CAPTURE_COUNT=3\n"));
    assert_non_null(strstr(env, "MMPROF_CAPTURE_SKIP=2\n"));
    free(env);

    const char *cp[] = {"--capture-range", "cuda-profiler", NULL};
    env = program_env(cp);
    assert_non_null(strstr(env, "MMPROF_CAPTURE_RANGE=cuda-profiler\n"));
    assert_non_null(strstr(env, "MMPROF_CAPTURE_COUNT=1\n")); /* nsys's default: the first range */
    assert_non_null(strstr(env, "MMPROF_CAPTURE_SKIP=0\n"));
    free(env);
}

static void clear_env(void)
{
    const char *vars[] = {CAPTURE_ENV_START, CAPTURE_ENV_DELAY, CAPTURE_ENV_DURATION,
                          CAPTURE_ENV_RANGE, CAPTURE_ENV_COUNT, CAPTURE_ENV_SKIP};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

/* The library reads back what the launcher set; the last '@' splits name and domain. */
static void config_round_trip(void **state)
{
    (void)state;
    capture_config c, back;
    capture_config_init(&c);
    char why[160];
    assert_true(capture_parse_range("nvtx:a@b@dom", &c, why, sizeof why));
    assert_string_equal(c.nvtx_name, "a@b");
    assert_string_equal(c.nvtx_domain, "dom");
    c.start_ns = 1700000000123456789LL;
    c.count = 4;
    c.skip = 7;
    clear_env();
    assert_true(capture_config_setenv(&c));
    capture_config_from_env(&back);
    assert_int_equal(back.mode, CAPTURE_NVTX);
    assert_string_equal(back.nvtx_name, "a@b");
    assert_string_equal(back.nvtx_domain, "dom");
    assert_int_equal(back.start_ns, c.start_ns);
    assert_int_equal(back.count, 4);
    assert_int_equal(back.skip, 7);

    capture_config_init(&c);
    c.mode = CAPTURE_TIME;
    c.start_ns = 5;
    c.delay_ns = 2000000000;
    clear_env();
    assert_true(capture_config_setenv(&c));
    capture_config_from_env(&back);
    assert_int_equal(back.mode, CAPTURE_TIME);
    assert_int_equal(back.delay_ns, 2000000000);
    assert_int_equal(back.duration_ns, 0);
    char d[200];
    capture_describe(&back, d, sizeof d);
    assert_string_equal(d, "from 2 s after launch to the end");

    assert_true(capture_parse_range("cuda-profiler", &c, why, sizeof why));
    assert_int_equal(c.mode, CAPTURE_CUDA_PROFILER);
    assert_false(capture_parse_range("nvtx:", &c, why, sizeof why));
    clear_env();
}

/* Anything the library cannot read means record everything, never nothing. */
static void malformed_env_records_everything(void **state)
{
    (void)state;
    const char *bad[][2] = {
        {CAPTURE_ENV_RANGE, "nvtx:"}, {CAPTURE_ENV_COUNT, "0"}, {CAPTURE_ENV_SKIP, "x"}, {CAPTURE_ENV_RANGE, "bogus"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clear_env();
        setenv(CAPTURE_ENV_START, "1", 1);
        setenv(CAPTURE_ENV_RANGE, "cuda-profiler", 1);
        setenv(CAPTURE_ENV_COUNT, "1", 1);
        setenv(CAPTURE_ENV_SKIP, "0", 1);
        setenv(bad[i][0], bad[i][1], 1);
        capture_config c;
        capture_config_from_env(&c);
        assert_int_equal(c.mode, CAPTURE_ALL);
    }
    clear_env();
    setenv(CAPTURE_ENV_START, "1", 1);
    setenv(CAPTURE_ENV_DELAY, "-5", 1);
    setenv(CAPTURE_ENV_DURATION, "0", 1);
    capture_config c;
    capture_config_from_env(&c);
    assert_int_equal(c.mode, CAPTURE_ALL);
    clear_env();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_values),
        cmocka_unit_test(conflicts),
        cmocka_unit_test(profile_only),
        cmocka_unit_test(options_reach_the_program),
        cmocka_unit_test(config_round_trip),
        cmocka_unit_test(malformed_env_records_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
