/* The command line, through the real binary (build/mmprof, or $MMPROF_BIN).
 *
 * Every bad input: a non-zero exit with the status cli.h documents (2 for input, 3 for
 * --require-gpu without a GPU, 4 for an output that cannot be written), a message on stderr that
 * names the argument or file, and nothing on stdout that could pass for a report. Output files
 * are written whole or not at all: a failed run leaves the file that was there, and no temporary
 * file. Then the paths that succeed: --help, --version, --list-workloads, a CPU-only run whose
 * JSON `mmprof report` renders to the same text, and a default run on this machine, which has no
 * GPU and must say so. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli.h"
#include "model_json.h"
#include "test_support.h"

static char *tmp;
static bool have_gpu;

static int group_setup(void **state)
{
    (void)state;
    tmp = make_temp_dir();
    if (!tmp)
        return -1;
    const char *argv[] = {mmprof_bin(), "--require-gpu", "--quiet", "--size", "16", "--workloads", "cuda-naive", NULL};
    cmd_result r = run_argv(argv, NULL);
    have_gpu = r.status == 0;
    cmd_free(&r);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    rm_rf(tmp);
    free(tmp);
    return 0;
}

/* tmp/name (the caller frees it). */
static char *in_tmp(const char *name)
{
    char *p = malloc(strlen(tmp) + strlen(name) + 2);
    assert_non_null(p);
    sprintf(p, "%s/%s", tmp, name);
    return p;
}

static void show(const char *const *argv, const cmd_result *r)
{
    char cmd[1024] = "";
    for (int i = 0; argv[i]; i++)
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s'%s'", i ? " " : "", argv[i]);
    print_message("$ %s\n  -> exit %d; stderr: %s\n", cmd, r->status, r->err[0] ? r->err : "(empty)\n");
}

static cmd_result run(const char *const *argv, const char *const *env)
{
    cmd_result r = run_argv(argv, env);
    show(argv, &r);
    return r;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A failure: the status, every part named on stderr, and no report on stdout. */
static void expect_failure(const char *const *argv, int status, const char *const *parts)
{
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, status);
    for (int i = 0; parts && parts[i]; i++)
        if (!strstr(r.err, parts[i]))
            fail_msg("stderr does not name '%s'", parts[i]);
    assert_string_equal(r.out, "");
    cmd_free(&r);
}

/* mmprof OPT ARG fails as bad input, naming "LONG 'ARG'" (LONG: OPT's long form). */
static void bad_value_of(const char *opt, const char *longopt, const char *arg)
{
    char named[256];
    snprintf(named, sizeof named, "%s '%s'", longopt, arg);
    const char *argv[] = {mmprof_bin(), opt, arg, NULL};
    const char *parts[] = {named, NULL};
    expect_failure(argv, EXIT_USAGE, parts);
}

static void bad_value(const char *opt, const char *arg)
{
    bad_value_of(opt, opt, arg);
}

/* ---------- bad input ---------- */

static void bad_sizes(void **state)
{
    (void)state;
    static const char *const sizes[] = {
        "0", "-5", "abc", "12x", "1e3", "+5", " 5", "0x10", "", "1000001",
        "99999999999",            /* fits a long, not the limit */
        "99999999999999999999999" /* does not fit a long */
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        bad_value("--size", sizes[i]);
    bad_value_of("-s", "--size", "0");
}

/* Memory is checked before anything large is allocated, and the message gives both figures. */
static void size_beyond_host_memory(void **state)
{
    (void)state;
    const char *argv[] = {mmprof_bin(), "--size", "1000000", NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, EXIT_USAGE);
    assert_non_null(strstr(r.err, "--size 1000000"));
    const char *avail = strstr(r.err, " GiB is available");
    assert_non_null(avail);
    /* The number in front of it: what the machine has, no more than it has in all. */
    const char *num = avail;
    while (num > r.err && (num[-1] == '.' || (num[-1] >= '0' && num[-1] <= '9')))
        num--;
    double gib = atof(num);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double total = (double)pages * (double)page / (1024.0 * 1024 * 1024);
    print_message("available %.1f GiB of %.1f\n", gib, total);
    assert_true(num < avail && gib > 0 && gib <= total + 0.05);
    assert_string_equal(r.out, "");
    cmd_free(&r);
}

static void bad_options(void **state)
{
    (void)state;
    bad_value("--repeat", "0");
    bad_value("--repeat", "-1");
    bad_value_of("-r", "--repeat", "100001");
    bad_value("--host-memory", "bogus");
    bad_value("--host-memory", "");
    bad_value("--seed", "-1");
    bad_value("--seed", "abc");
    bad_value("--seed", "18446744073709551616"); /* 2^64 */
    bad_value("--color", "bogus");
    bad_value("--device", "-1");
    bad_value("--device", "abc");
}

/* profile --counters' kernel choice: a bad expression or count is named, and both options need
 * profile and --counters. Nothing runs (true would be the program). */
static void counter_kernel_options(void **state)
{
    (void)state;
    const char *bad_re[] = {mmprof_bin(), "profile", "--counters", "--kernels", "gemm(", "--", "true", NULL};
    const char *bad_re_parts[] = {"--kernels 'gemm('", "regular expression", NULL};
    expect_failure(bad_re, EXIT_USAGE, bad_re_parts);
    /* Nested repetitions are refused before regcomp expands them (libFuzzer: over 2 GB). */
    char nested[80] = "s_ep";
    memset(nested + 4, '+', 60);
    nested[64] = '\0';
    const char *blowup[] = {mmprof_bin(), "profile", "--counters", "--kernels", nested, "--", "true", NULL};
    const char *blowup_parts[] = {"--kernels 's_ep+++", "two repetition operators in a row", NULL};
    expect_failure(blowup, EXIT_USAGE, blowup_parts);
    const char *interval[] = {mmprof_bin(), "profile", "--counters", "--kernels", "(a{100}){100}", "--", "true", NULL};
    const char *interval_parts[] = {"--kernels '(a{100}){100}'", "expand past 2048 nodes", NULL};
    expect_failure(interval, EXIT_USAGE, interval_parts);
    /* Optional repetitions nested three deep took 0.9 s to compile for 20 copies. */
    const char *nested3[] = {mmprof_bin(), "profile", "--counters", "--kernels", "((a?)+)?b", "--", "true", NULL};
    const char *nested3_parts[] = {"--kernels '((a?)+)?b'", "nested 3 deep", NULL};
    expect_failure(nested3, EXIT_USAGE, nested3_parts);
    /* What people write is accepted: alternatives, anchors, classes, one level of nesting. */
    const char *fine[] = {mmprof_bin(), "profile", "--counters", "--kernels", "^void (cutlass|sm90)_.*(gemm|GEMM)[0-9]*",
                          "--quiet", "--json", "/dev/null", "--", "true", NULL};
    cmd_result r = run(fine, NULL);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    static const char *const counts[] = {"0", "-1", "abc", "1000001", ""};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        const char *argv[] = {mmprof_bin(), "profile", "--counters", "--max-kernels", counts[i], "--", "true", NULL};
        char named[64];
        snprintf(named, sizeof named, "--max-kernels '%s'", counts[i]);
        const char *parts[] = {named, NULL};
        expect_failure(argv, EXIT_USAGE, parts);
    }
    const char *no_counters[] = {mmprof_bin(), "profile", "--kernels", "gemm", "--", "true", NULL};
    const char *no_counters_parts[] = {"--kernels", "add --counters", NULL};
    expect_failure(no_counters, EXIT_USAGE, no_counters_parts);
    const char *builtin[] = {mmprof_bin(), "--counters", "--max-kernels", "3", NULL};
    const char *builtin_parts[] = {"--max-kernels", "mmprof profile", NULL};
    expect_failure(builtin, EXIT_USAGE, builtin_parts);
    const char *report[] = {mmprof_bin(), "report", "x.json", "--kernels", "gemm", NULL};
    const char *report_parts[] = {"--kernels", "mmprof profile", NULL};
    expect_failure(report, EXIT_USAGE, report_parts);
}

static char **known_workloads(int *count)
{
    const char *argv[] = {mmprof_bin(), "--list-workloads", NULL};
    cmd_result r = run_argv(argv, NULL);
    assert_int_equal(r.status, 0);
    char **names = calloc(64, sizeof *names);
    int n = 0;
    for (char *line = strtok(r.out, "\n"); line && n < 64; line = strtok(NULL, "\n"))
        names[n++] = strndup(line, strcspn(line, " "));
    cmd_free(&r);
    *count = n;
    return names;
}

static void unknown_workload(void **state)
{
    (void)state;
    int count;
    char **names = known_workloads(&count);
    assert_true(count >= 2);
    /* The message names the bad one and lists every known one. */
    const char *argv[] = {mmprof_bin(), "--workloads", "cpu-openblas,nope", NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, EXIT_USAGE);
    assert_non_null(strstr(r.err, "'nope'"));
    for (int i = 0; i < count; i++) {
        if (!strstr(r.err, names[i]))
            fail_msg("the message does not list '%s'", names[i]);
        free(names[i]);
    }
    free(names);
    assert_string_equal(r.out, "");
    cmd_free(&r);

    const char *none[] = {mmprof_bin(), "--workloads", ",", NULL};
    const char *parts[] = {"names no workload", NULL};
    expect_failure(none, EXIT_USAGE, parts);
}

static void unknown_and_incomplete_options(void **state)
{
    (void)state;
    const char *bogus[] = {mmprof_bin(), "--bogus", NULL};
    const char *bogus_parts[] = {"'--bogus'", NULL};
    expect_failure(bogus, EXIT_USAGE, bogus_parts);
    const char *x[] = {mmprof_bin(), "-x", NULL};
    const char *x_parts[] = {"'-x'", NULL};
    expect_failure(x, EXIT_USAGE, x_parts);
    /* Inside a cluster the unknown letter is named, not the argument before it. */
    const char *cluster[] = {mmprof_bin(), "--size", "8", "-xq", NULL};
    expect_failure(cluster, EXIT_USAGE, x_parts);
    const char *flag_value[] = {mmprof_bin(), "--quiet=yes", NULL};
    const char *flag_parts[] = {"--quiet", NULL};
    expect_failure(flag_value, EXIT_USAGE, flag_parts);
    const char *stray[] = {mmprof_bin(), "--size", "8", "stray", NULL};
    const char *stray_parts[] = {"'stray'", NULL};
    expect_failure(stray, EXIT_USAGE, stray_parts);

    static const char *const needs_value[] = {"--size", "-s", "--json", "--workloads", "--color", "--seed"};
    for (size_t i = 0; i < sizeof needs_value / sizeof needs_value[0]; i++) {
        char named[64];
        snprintf(named, sizeof named, "'%s' needs a value", needs_value[i]);
        const char *argv[] = {mmprof_bin(), needs_value[i], NULL};
        const char *parts[] = {named, NULL};
        expect_failure(argv, EXIT_USAGE, parts);
    }

    const char *twice[] = {mmprof_bin(), "--json", "same.json", "--trace", "same.json", NULL};
    const char *twice_parts[] = {"'same.json'", NULL};
    expect_failure(twice, EXIT_USAGE, twice_parts);
}

/* Without a GPU the device index cannot be checked: the run goes on without the GPU workloads
 * and says why, as any run here does. Asking for the GPU makes it an error. */
static void device_index_without_gpu(void **state)
{
    (void)state;
    if (have_gpu)
        skip();
    const char *argv[] = {mmprof_bin(), "--device", "7", "--size", "16", "--color", "never", NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, EXIT_OK);
    assert_non_null(strstr(r.out, "GPU workloads skipped: "));
    cmd_free(&r);
    const char *req[] = {mmprof_bin(), "--device", "7", "--require-gpu", "--size", "16", NULL};
    const char *parts[] = {"--require-gpu", NULL};
    expect_failure(req, EXIT_NO_GPU, parts);
}

/* ---------- mmprof report ---------- */

static char *write_tmp(const char *name, const char *text)
{
    char *p = in_tmp(name);
    assert_true(write_text(p, text));
    return p;
}

/* The sample with one change, written to tmp/name. */
static char *spoilt_sample(const char *name, const char *key, cJSON *value)
{
    cJSON *root = read_json(sample_path());
    assert_non_null(root);
    assert_true(cJSON_ReplaceItemInObjectCaseSensitive(root, key, value));
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    char *p = write_tmp(name, out);
    cJSON_free(out);
    return p;
}

static void report_bad_input(void **state)
{
    (void)state;
    const char *none[] = {mmprof_bin(), "report", NULL};
    const char *none_parts[] = {"expected a run file", NULL};
    expect_failure(none, EXIT_USAGE, none_parts);

    char *missing = in_tmp("missing.json");
    char *bad_json = write_tmp("bad.json", "{\"schema\": \"mmprof-run\", ");
    char *trace = write_tmp("trace.json", "{\"traceEvents\": [], \"displayTimeUnit\": \"ns\"}");
    char *version = spoilt_sample("v2.json", "schema_version", cJSON_CreateNumber(MMPROF_SCHEMA_VERSION + 1));
    struct { const char *path, *detail; } cases[] = {
        {missing, "No such file"},
        {tmp, "Is a directory"},
        {bad_json, "not valid JSON"},
        {trace, "not an mmprof run file"},
        {version, "schema_version"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char named[600];
        snprintf(named, sizeof named, "'%s'", cases[i].path);
        const char *argv[] = {mmprof_bin(), "report", cases[i].path, NULL};
        const char *parts[] = {named, cases[i].detail, NULL};
        expect_failure(argv, EXIT_USAGE, parts);
    }
    /* Options that shape a new run make no sense for a recorded one. */
    const char *sized[] = {mmprof_bin(), "report", sample_path(), "--size", "64", NULL};
    const char *sized_parts[] = {"--size", NULL};
    expect_failure(sized, EXIT_USAGE, sized_parts);
    free(missing);
    free(bad_json);
    free(trace);
    free(version);
}

/* ---------- output files ---------- */

static int count_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, ".mmprof-", 8) == 0;
    closedir(d);
    return n;
}

static void json_into_missing_directory(void **state)
{
    (void)state;
    char *dir = in_tmp("no-such-dir");
    char *path = in_tmp("no-such-dir/run.json");
    char named[600];
    snprintf(named, sizeof named, "'%s'", path);
    /* Refused before the run: no report on stdout, nothing made on disk. */
    const char *argv[] = {mmprof_bin(), "--size", "8", "--workloads", "cpu-openblas", "--json", path, NULL};
    const char *parts[] = {"--json", named, "does not exist", NULL};
    expect_failure(argv, EXIT_OUTPUT, parts);
    assert_false(exists(dir));
    const char *rep[] = {mmprof_bin(), "report", sample_path(), "--json", path, NULL};
    expect_failure(rep, EXIT_OUTPUT, parts);
    assert_false(exists(dir));
    free(dir);
    free(path);
}

static void json_onto_a_directory(void **state)
{
    (void)state;
    char *dir = in_tmp("a-directory");
    assert_int_equal(mkdir(dir, 0755), 0);
    char named[600];
    snprintf(named, sizeof named, "'%s'", dir);
    const char *argv[] = {mmprof_bin(), "report", sample_path(), "--json", dir, NULL};
    const char *parts[] = {named, "is a directory", NULL};
    expect_failure(argv, EXIT_OUTPUT, parts);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    DIR *d = opendir(dir);
    int entries = 0;
    while (readdir(d))
        entries++;
    closedir(d);
    assert_int_equal(entries, 2); /* . and .. */
    assert_int_equal(count_temporaries(tmp), 0);

    const char *empty[] = {mmprof_bin(), "report", sample_path(), "--json", "", NULL};
    const char *empty_parts[] = {"--json", "empty", NULL};
    expect_failure(empty, EXIT_OUTPUT, empty_parts);
    free(dir);
}

/* Runs argv as the unprivileged user nobody, for what root's permissions would hide. Returns
 * false when this process cannot switch users. */
static bool run_as_nobody(const char *const *argv, cmd_result *r)
{
    char *out = in_tmp("nobody.out"), *err = in_tmp("nobody.err");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || dup2(o, STDOUT_FILENO) < 0 || dup2(e, STDERR_FILENO) < 0)
            _exit(125);
        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
            _exit(126);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r->out = read_file(out, NULL);
    r->err = read_file(err, NULL);
    unlink(out);
    unlink(err);
    free(out);
    free(err);
    if (!r->out)
        r->out = strdup("");
    if (!r->err)
        r->err = strdup("");
    return r->status != 125 && r->status != 126 && r->status != 127;
}

static void json_into_unwritable_directory(void **state)
{
    (void)state;
    char *dir = in_tmp("read-only");
    char *path = in_tmp("read-only/run.json");
    char *old = in_tmp("read-only/old.json");
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_true(write_text(old, "old content\n"));
    assert_int_equal(chmod(dir, 0555), 0);
    /* The real probe: root writes into a 0555 directory all the same. */
    char *probe = in_tmp("read-only/probe");
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0644);
    bool privileged = fd >= 0;
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    }
    free(probe);
    const char *argv[] = {mmprof_bin(), "report", sample_path(), "--json", path, NULL};
    cmd_result r;
    if (!privileged) {
        r = run(argv, NULL);
    } else {
        /* As root: run it as nobody, who may enter tmp but not write into the directory. */
        assert_int_equal(chmod(tmp, 0711), 0);
        bool switched = run_as_nobody(argv, &r);
        if (!switched) {
            cmd_free(&r);
            print_message("running as root and cannot switch to nobody: nothing unwritable to test\n");
            skip();
        }
        show(argv, &r);
    }
    assert_int_equal(r.status, EXIT_OUTPUT);
    assert_non_null(strstr(r.err, "not writable"));
    assert_non_null(strstr(r.err, path));
    assert_string_equal(r.out, "");
    cmd_free(&r);
    assert_false(exists(path));
    char *kept = read_file(old, NULL);
    assert_string_equal(kept, "old content\n");
    free(kept);
    assert_int_equal(count_temporaries(dir), 0);
    chmod(dir, 0755);
    free(dir);
    free(path);
    free(old);
}

/* A run that fails leaves the file at its --json path as it was, and no temporary beside it. */
static void failed_runs_keep_old_output(void **state)
{
    (void)state;
    char *path = write_tmp("keep.json", "the previous run\n");
    char *bad = write_tmp("broken.json", "{ not json");
    const char *const cases[][8] = {
        {mmprof_bin(), "report", bad, "--json", path, NULL},
        {mmprof_bin(), "--size", "0", "--json", path, NULL},
        {mmprof_bin(), "--size", "1000000", "--json", path, NULL},
        {mmprof_bin(), "report", path, "--json", path, NULL}, /* would overwrite its input */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cmd_result r = run(cases[i], NULL);
        assert_int_equal(r.status, EXIT_USAGE);
        assert_string_equal(r.out, "");
        cmd_free(&r);
        char *now = read_file(path, NULL);
        assert_string_equal(now, "the previous run\n");
        free(now);
        assert_int_equal(count_temporaries(tmp), 0);
    }
    free(path);
    free(bad);
}

/* ---------- what succeeds ---------- */

static void help_version_list(void **state)
{
    (void)state;
    const char *help[] = {mmprof_bin(), "--help", NULL};
    cmd_result r = run(help, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Usage: mmprof"));
    assert_non_null(strstr(r.out, "Exit status"));
    assert_string_equal(r.err, "");
    cmd_free(&r);

    const char *version[] = {mmprof_bin(), "--version", NULL};
    r = run(version, NULL);
    assert_int_equal(r.status, 0);
    char want[64];
    snprintf(want, sizeof want, "mmprof %s", MMPROF_VERSION);
    assert_true(strncmp(r.out, want, strlen(want)) == 0);
    cmd_free(&r);

    const char *list[] = {mmprof_bin(), "--list-workloads", NULL};
    r = run(list, NULL);
    assert_int_equal(r.status, 0);
    assert_true(strncmp(r.out, "cpu-openblas ", 13) == 0 || strstr(r.out, "\ncpu-openblas "));
    /* Each line says where it runs. */
    int lines = 0, tagged = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        lines++;
        tagged += strstr(line, " CPU ") || strstr(line, " GPU ");
    }
    assert_int_equal(tagged, lines);
    cmd_free(&r);
}

/* A CPU-only run here, its JSON read back, and `mmprof report` on that JSON prints the same
 * report the run printed. */
static void run_then_report_same_text(void **state)
{
    (void)state;
    char *json = in_tmp("cpu.json");
    const char *argv[] = {mmprof_bin(), "--size", "64", "--workloads", "cpu-openblas", "--seed", "7",
                          "--json", json, "--color", "never", NULL};
    cmd_result ran = run(argv, NULL);
    assert_int_equal(ran.status, 0);
    assert_non_null(strstr(ran.out, "cpu-openblas"));
    assert_null(strchr(ran.out, '\033'));

    run_model m;
    char err[512];
    if (!model_read_file(json, &m, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(m.builtin.n, 64);
    assert_int_equal(m.builtin.seed, 7);
    assert_int_equal(m.builtin.nworkloads, 1);
    assert_string_equal(m.builtin.workloads[0].name, "cpu-openblas");
    assert_int_equal(m.builtin.workloads[0].status, WL_OK);
    model_free(&m);
    /* An ordinary file: readable by others, not mkstemp's 0600. */
    struct stat st;
    assert_int_equal(stat(json, &st), 0);
    mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
    assert_int_equal(count_temporaries(tmp), 0);

    const char *env[] = {"NO_COLOR=1", NULL};
    const char *rep[] = {mmprof_bin(), "report", json, "--color", "auto", NULL};
    cmd_result again = run(rep, env);
    assert_int_equal(again.status, 0);
    assert_string_equal(again.out, ran.out);
    cmd_free(&again);

    /* The JSON a report writes is a run file too, and renders the same again. */
    char *json2 = in_tmp("cpu-again.json");
    const char *rewrite[] = {mmprof_bin(), "report", json, "--json", json2, "--quiet", NULL};
    cmd_result q = run(rewrite, NULL);
    assert_int_equal(q.status, 0);
    assert_string_equal(q.out, ""); /* --quiet */
    cmd_free(&q);
    const char *rep2[] = {mmprof_bin(), "report", json2, "--color", "never", NULL};
    cmd_result third = run(rep2, NULL);
    assert_int_equal(third.status, 0);
    assert_string_equal(third.out, ran.out);
    cmd_free(&third);
    cmd_free(&ran);
    free(json);
    free(json2);
}

/* Output of argv run on a terminal (a pseudo-terminal here), stdout and stderr together. */
static char *run_on_terminal(const char *const *argv, const char *const *env, int *status)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(master >= 0);
    assert_int_equal(grantpt(master), 0);
    assert_int_equal(unlockpt(master), 0);
    char *slave = strdup(ptsname(master));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setsid();
        int s = open(slave, O_RDWR);
        int devnull = open("/dev/null", O_RDONLY);
        if (s < 0 || devnull < 0 || dup2(devnull, STDIN_FILENO) < 0 || dup2(s, STDOUT_FILENO) < 0 ||
            dup2(s, STDERR_FILENO) < 0)
            _exit(127);
        for (int i = 0; env && env[i]; i++)
            putenv((char *)env[i]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    free(slave);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len + 4096 >= cap)
            buf = realloc(buf, cap *= 2);
        ssize_t n = read(master, buf + len, 4096);
        if (n > 0)
            len += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else
            break; /* EIO once the child has gone and the terminal closed */
    }
    buf[len] = '\0';
    close(master);
    int st;
    waitpid(pid, &st, 0);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return buf;
}

static void color_follows_terminal_and_no_color(void **state)
{
    (void)state;
    const char *argv[] = {mmprof_bin(), "report", sample_path(), NULL};
    const char *unset[] = {"NO_COLOR=", NULL};
    int status;
    char *out = run_on_terminal(argv, unset, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "\033[")); /* a terminal, NO_COLOR empty: color */
    free(out);
    const char *no_color[] = {"NO_COLOR=1", NULL};
    out = run_on_terminal(argv, no_color, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "NVIDIA H200"));
    assert_null(strchr(out, '\033'));
    free(out);
    const char *never[] = {mmprof_bin(), "report", sample_path(), "--color", "never", NULL};
    out = run_on_terminal(never, unset, &status);
    assert_null(strchr(out, '\033'));
    free(out);
    /* Not a terminal: no color unless asked for. */
    cmd_result r = run(argv, NULL);
    assert_null(strchr(r.out, '\033'));
    cmd_free(&r);
    const char *always[] = {mmprof_bin(), "report", sample_path(), "--color", "always", NULL};
    r = run(always, no_color);
    assert_non_null(strstr(r.out, "\033["));
    cmd_free(&r);
}

/* This machine has no GPU: the default run completes, and the report says plainly that the GPU
 * workloads were skipped and why. */
static void default_run_without_gpu(void **state)
{
    (void)state;
    if (have_gpu)
        skip();
    const char *argv[] = {mmprof_bin(), "--size", "128", "--color", "never", NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, EXIT_OK);
    int count;
    char **names = known_workloads(&count);
    for (int i = 0; i < count; i++) {
        char row[64];
        snprintf(row, sizeof row, "\n%-16s ", names[i]);
        const char *line = strstr(r.out, row);
        if (!line)
            fail_msg("no row for %s", names[i]);
        size_t len = strcspn(line + 1, "\n");
        bool skipped = memmem(line + 1, len, "skipped", 7) != NULL;
        /* Only the CPU workload ran. */
        assert_int_equal(skipped, strcmp(names[i], "cpu-openblas") != 0);
        free(names[i]);
    }
    free(names);
    const char *why = strstr(r.out, "GPU workloads skipped: ");
    assert_non_null(why);
    why += strlen("GPU workloads skipped: ");
    assert_true(strcspn(why, "\n") > 3); /* a reason, not an empty string */
    cmd_free(&r);
}

static void require_gpu_without_gpu(void **state)
{
    (void)state;
    if (have_gpu)
        skip();
    const char *argv[] = {mmprof_bin(), "--require-gpu", "--size", "16", NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, EXIT_NO_GPU);
    const char *msg = strstr(r.err, "--require-gpu: ");
    assert_non_null(msg);
    assert_true(strlen(msg) > strlen("--require-gpu: ") + 3); /* and the reason */
    assert_string_equal(r.out, "");
    cmd_free(&r);
}

/* Progress goes to stderr on a terminal (a pseudo-terminal from script(1) here): each step with
 * the workload and size, the line cleared at the end; nothing with -q or when stderr is a pipe. */
static void progress_on_a_terminal_only(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -w cpu-openblas -s 32 -r 1", mmprof_bin());
    const char *tty[] = {"script", "-qec", cmd, "/dev/null", NULL};
    cmd_result r = run_argv(tty, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "mmprof: [1/3] inputs, n = 32"));
    assert_non_null(strstr(r.out, "mmprof: [3/3] cpu-openblas, n = 32"));
    const char *last = strstr(r.out, "[3/3] cpu-openblas");
    assert_non_null(strstr(last, " so far)\r\033[K")); /* the line is cleared before the report */
    cmd_free(&r);
    snprintf(cmd, sizeof cmd, "%s -w cpu-openblas -s 32 -r 1 -q", mmprof_bin());
    const char *quiet[] = {"script", "-qec", cmd, "/dev/null", NULL};
    r = run_argv(quiet, NULL);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.out, "mmprof: ["));
    cmd_free(&r);
    const char *pipe[] = {mmprof_bin(), "-w", "cpu-openblas", "-s", "32", "-r", "1", NULL};
    r = run_argv(pipe, NULL);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.err, "mmprof: ["));
    assert_null(strchr(r.err, '\r'));
    cmd_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(progress_on_a_terminal_only),
        cmocka_unit_test(bad_sizes),
        cmocka_unit_test(size_beyond_host_memory),
        cmocka_unit_test(bad_options),
        cmocka_unit_test(counter_kernel_options),
        cmocka_unit_test(unknown_workload),
        cmocka_unit_test(unknown_and_incomplete_options),
        cmocka_unit_test(device_index_without_gpu),
        cmocka_unit_test(report_bad_input),
        cmocka_unit_test(json_into_missing_directory),
        cmocka_unit_test(json_onto_a_directory),
        cmocka_unit_test(json_into_unwritable_directory),
        cmocka_unit_test(failed_runs_keep_old_output),
        cmocka_unit_test(help_version_list),
        cmocka_unit_test(run_then_report_same_text),
        cmocka_unit_test(color_follows_terminal_and_no_color),
        cmocka_unit_test(default_run_without_gpu),
        cmocka_unit_test(require_gpu_without_gpu),
    };
    return cmocka_run_group_tests_name("cli", tests, group_setup, group_teardown);
}
