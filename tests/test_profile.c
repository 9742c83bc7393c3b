/* `mmprof profile`, through the real binary (build/mmprof, or $MMPROF_BIN) on this machine, which
 * has no GPU: the command line (no CMD, "--", options after CMD belong to CMD, options that
 * belong to other commands), the program's exit status passed on (a plain exit, not found, not
 * executable, killed by a signal), its stdin and stdout left alone with the report on stderr
 * or in --text, the refusal under another profiler, the injection library looked for in the
 * two documented places, and NVTX ranges recorded through the real injection library from a
 * program that needs no GPU (tests/nvtx_demo.c): in a forked child too, and from programs that
 * crash or leave through _exit. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "cli.h"
#include "model_json.h"
#include "test_support.h"

extern char **environ;

static char *in_tmp(const char *name) { return path_in(test_tmp, name); }

/* The NVTX demo program beside the test binaries. */
static const char *demo(void) { return beside_bin("tests/nvtx_demo"); }

static cmd_result run(const char *const *argv, const char *const *env)
{
    cmd_result r = run_argv(argv, env);
    print_message("$ mmprof %s ... -> exit %d; stderr: %.600s\n", argv[1] ? argv[1] : "", r.status, r.err);
    return r;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void no_command_is_a_usage_error(void **state)
{
    (void)state;
    char *json = in_tmp("none.json");
    const char *a1[] = {mmprof_bin(), "profile", NULL};
    const char *a2[] = {mmprof_bin(), "profile", "--json", json, "--", NULL};
    const char *const *cases[] = {a1, a2};
    for (int i = 0; i < 2; i++) {
        cmd_result r = run(cases[i], NULL);
        assert_int_equal(r.status, EXIT_USAGE);
        assert_non_null(strstr(r.err, "expected a command"));
        assert_string_equal(r.out, "");
        cmd_free(&r);
    }
    assert_false(exists(json));
    free(json);
}

/* --size belongs to the built-in run; two outputs cannot share a file. */
static void options_of_other_commands_are_refused(void **state)
{
    (void)state;
    const char *a1[] = {mmprof_bin(), "profile", "--size", "16", "--", "true", NULL};
    cmd_result r = run(a1, NULL);
    assert_int_equal(r.status, EXIT_USAGE);
    assert_non_null(strstr(r.err, "--size"));
    cmd_free(&r);
    /* --text names one file: not the same as another output's. */
    const char *a2[] = {mmprof_bin(), "profile", "--text", "same.out", "--json", "same.out", "--", "true", NULL};
    r = run(a2, NULL);
    assert_int_equal(r.status, EXIT_USAGE);
    assert_non_null(strstr(r.err, "same.out"));
    cmd_free(&r);
}

/* Options after CMD are CMD's: the shell prints them, and mmprof writes no file for them. */
static void options_after_command_belong_to_it(void **state)
{
    (void)state;
    char *json = in_tmp("cmd-option.json");
    const char *argv[] = {mmprof_bin(), "profile", "sh", "-c", "echo \"$@\"", "sh", "--json", json, "-q", NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, 0);
    char want[600];
    snprintf(want, sizeof want, "--json %s -q\n", json);
    assert_string_equal(r.out, want);
    assert_false(exists(json));
    assert_non_null(strstr(r.err, "mmprof")); /* the report, on stderr */
    cmd_free(&r);
    free(json);
}

/* "--" ends mmprof's options, so a CMD that starts with "-" is still a command; the status and
 * the JSON come back. */
static void double_dash_and_exit_status(void **state)
{
    (void)state;
    char *json = in_tmp("seven.json");
    const char *argv[] = {mmprof_bin(), "profile", "--json", json, "--", "sh", "-c", "exit 7", NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, 7);
    cmd_free(&r);
    char *text = read_file(json, NULL);
    assert_non_null(text);
    assert_non_null(strstr(text, "\"sh -c exit 7\""));
    free(text);
    free(json);
    const char *dash[] = {mmprof_bin(), "profile", "--", "-not-a-program", NULL};
    r = run(dash, NULL);
    assert_int_equal(r.status, EXIT_NOT_FOUND);
    assert_non_null(strstr(r.err, "-not-a-program"));
    cmd_free(&r);
}

static void missing_or_unrunnable_command(void **state)
{
    (void)state;
    const char *a1[] = {mmprof_bin(), "profile", "mmprof-no-such-command", NULL};
    cmd_result r = run(a1, NULL);
    assert_int_equal(r.status, EXIT_NOT_FOUND);
    assert_non_null(strstr(r.err, "mmprof-no-such-command"));
    assert_string_equal(r.out, "");
    assert_null(strstr(r.err, "Timeline")); /* nothing ran: no report */
    cmd_free(&r);
    char *plain = in_tmp("not-executable");
    assert_true(write_text(plain, "echo hi\n"));
    chmod(plain, 0644);
    const char *a2[] = {mmprof_bin(), "profile", plain, NULL};
    r = run(a2, NULL);
    assert_int_equal(r.status, EXIT_CANNOT_EXEC);
    assert_non_null(strstr(r.err, plain));
    cmd_free(&r);
    free(plain);
}

/* Killed by SIGSEGV: 128 + 11, and what was recorded is written, marked partial. */
static void killed_program_gives_a_partial_report(void **state)
{
    (void)state;
    char *json = in_tmp("killed.json");
    const char *argv[] = {mmprof_bin(), "profile", "--json", json, "sh", "-c", "kill -SEGV $$", NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, 128 + 11);
    assert_non_null(strstr(r.err, "killed by SIGSEGV"));
    assert_non_null(strstr(r.err, "partial"));
    cmd_free(&r);
    char *text = read_file(json, NULL);
    assert_non_null(text);
    assert_non_null(strstr(text, "killed by SIGSEGV"));
    free(text);
    free(json);
}

static void program_without_cuda_is_reported_as_such(void **state)
{
    (void)state;
    char *json = in_tmp("no-cuda.json");
    const char *argv[] = {mmprof_bin(), "profile", "--json", json, "sleep", "0.05", NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "the program made no CUDA calls"));
    cmd_free(&r);
    /* The run file reads back; with nothing recorded the run is the program's lifetime. */
    run_model m;
    load_run(json, &m);
    assert_int_equal(m.collection.source, TIMING_NONE);
    assert_true(m.nregions >= 1);
    int64_t wall = m.regions[0].end_ns - m.regions[0].start_ns;
    assert_true(wall >= 50000000 && wall < 5000000000);
    model_free(&m);
    free(json);
}

/* Another profiler's variable set: refused before the program runs. */
static void refused_under_another_profiler(void **state)
{
    (void)state;
    char *marker = in_tmp("ran");
    char script[600];
    snprintf(script, sizeof script, "touch '%s'", marker);
    const char *argv[] = {mmprof_bin(), "profile", "sh", "-c", script, NULL};
    const char *vars[] = {"CUDA_INJECTION64_PATH=/opt/nsight/libToolsInjection64.so",
                          "NVTX_INJECTION64_PATH=/opt/nsight/libToolsInjection64.so"};
    for (int i = 0; i < 2; i++) {
        const char *env[] = {vars[i], NULL};
        cmd_result r = run(argv, env);
        assert_int_equal(r.status, EXIT_USAGE);
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(vars[i], '=') - vars[i]), vars[i]);
        assert_non_null(strstr(r.err, name));
        assert_non_null(strstr(r.err, "another profiler"));
        cmd_free(&r);
        assert_false(exists(marker));
    }
    free(marker);
}

/* The program's stdout is its own (the report goes to stderr), and its stdin is the one mmprof
 * was given. */
static void stdin_and_stdout_are_the_programs(void **state)
{
    (void)state;
    char *input = in_tmp("input.txt");
    assert_true(write_text(input, "line one\nline two\n"));
    const char *argv[] = {"sh", "-c", "\"$0\" profile -- cat < \"$1\"", mmprof_bin(), input, NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "line one\nline two\n");
    assert_non_null(strstr(r.err, "Timeline"));
    cmd_free(&r);
    free(input);
}

/* Starts `mmprof profile -- sleep 5` in a process group of its own with default signal
 * dispositions (a shell's background job would ignore SIGINT), sends sig after half a second to
 * the group (a terminal's Ctrl-C) or to mmprof alone, and returns its status; stderr to err_path. */
static int interrupted(int sig, bool group, const char *err_path)
{
    const char *argv[] = {mmprof_bin(), "profile", "--", "sleep", "5", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t all;
    sigfillset(&all);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, argv[0], &fa, &at, (char *const *)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    usleep(500000);
    kill(group ? -pid : pid, sig);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Ctrl-C reaches the whole process group: the program dies of it, mmprof (which ignores it while
 * waiting) reports and exits 128 + SIGINT. SIGTERM sent to mmprof alone is passed to the
 * program. */
static void interrupts_reach_the_program(void **state)
{
    (void)state;
    char *err = in_tmp("interrupted.txt");
    const int sigs[] = {SIGINT, SIGTERM};
    const char *said[] = {"killed by SIGINT", "killed by SIGTERM"};
    for (int i = 0; i < 2; i++) {
        int status = interrupted(sigs[i], i == 0, err);
        char *text = read_file(err, NULL);
        assert_non_null(text);
        print_message("signal %d -> exit %d; stderr: %.300s\n", sigs[i], status, text);
        assert_int_equal(status, 128 + sigs[i]);
        assert_non_null(strstr(text, said[i]));
        assert_non_null(strstr(text, "Timeline"));
        free(text);
    }
    free(err);
}

/* --text FILE: the report there, nothing on stderr. */
static void text_report_to_a_file(void **state)
{
    (void)state;
    char *txt = in_tmp("report.txt");
    const char *argv[] = {mmprof_bin(), "profile", "--text", txt, "--", "sh", "-c", "echo out", NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "out\n");
    assert_string_equal(r.err, "");
    char *text = read_file(txt, NULL);
    assert_non_null(text);
    assert_non_null(strstr(text, "Timeline"));
    free(text);
    cmd_free(&r);
    free(txt);
}

/* --text works for every command: `mmprof report RUN --text F` prints nothing and writes F. */
static void text_option_for_every_command(void **state)
{
    (void)state;
    char *txt = in_tmp("sample.txt");
    const char *argv[] = {mmprof_bin(), "report", sample_path(), "--text", txt, "--color", "never", NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "");
    char *text = read_file(txt, NULL);
    assert_non_null(text);
    assert_non_null(strstr(text, "cpu-openblas"));
    free(text);
    cmd_free(&r);
    free(txt);
}

/* A copy of the binary with no library beside it or in ../lib/mmprof: 125, naming both paths. */
static void missing_library_names_the_paths_tried(void **state)
{
    (void)state;
    char *dir = in_tmp("bin");
    mkdir(dir, 0755);
    char *copy = in_tmp("bin/mmprof");
    size_t len;
    char *bin = read_file(mmprof_bin(), &len);
    assert_non_null(bin);
    FILE *f = fopen(copy, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bin, 1, len, f), len);
    fclose(f);
    free(bin);
    chmod(copy, 0755);
    const char *argv[] = {copy, "profile", "true", NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, EXIT_PROFILE_FAILED);
    assert_non_null(strstr(r.err, "libmmprof_inject.so"));
    assert_non_null(strstr(r.err, "bin/libmmprof_inject.so"));
    assert_non_null(strstr(r.err, "bin/../lib/mmprof/libmmprof_inject.so"));
    cmd_free(&r);
    free(copy);
    free(dir);
}

/* The regions of a --json report (analysis.regions), parsed. */
static cJSON *load_report(const char *path)
{
    char *text = read_file(path, NULL);
    assert_non_null(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    return doc;
}

/* Regions of the report named name (kind, when not NULL, must match too). */
static int count(const cJSON *doc, const char *name, const char *kind)
{
    const cJSON *regions = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "analysis"), "regions");
    int n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, regions)
    {
        const char *rn = cJSON_GetStringValue(cJSON_GetObjectItem(r, "name"));
        const char *rk = cJSON_GetStringValue(cJSON_GetObjectItem(r, "kind"));
        if (rn && rk && (!name || strcmp(rn, name) == 0) && (!kind || strcmp(rk, kind) == 0))
            n++;
    }
    return n;
}

/* --capture-range nvtx:NAME through the real injection library (its NVTX side needs no GPU): each
 * instance recorded is a capture region inside the range it matched, the skipped ones are not. */
static void nvtx_capture_windows(void **state)
{
    (void)state;
    char *json = in_tmp("capture.json");
    const char *counts[][2] = {{"2", "0"}, {"1", "1"}, {"5", "0"}};
    const int want[] = {2, 1, 2}; /* nvtx_demo pushes "inner\tstep" twice */
    for (int c = 0; c < 3; c++) {
        const char *argv[] = {mmprof_bin(), "profile", "--quiet", "--json", json, "--capture-range", "nvtx:inner\tstep",
                              "--capture-count", counts[c][0], "--capture-skip", counts[c][1], "--", demo(), NULL};
        cmd_result r = run(argv, NULL);
        assert_int_equal(r.status, 0);
        cmd_free(&r);
        run_model m;
        load_run(json, &m);
        int windows = 0, inner = 0;
        int64_t inner_start[2] = {0, 0}, inner_end[2] = {0, 0};
        for (int i = 1; i < m.nregions; i++)
            if (m.regions[i].kind == REGION_NVTX && strcmp(m.regions[i].name, "inner\tstep") == 0 && inner < 2) {
                inner_start[inner] = m.regions[i].start_ns;
                inner_end[inner++] = m.regions[i].end_ns;
            }
        /* Only the ranges opened inside a window are recorded: the instances captured. */
        assert_int_equal(inner, want[c]);
        for (int i = 1; i < m.nregions; i++) {
            const region *g = &m.regions[i];
            if (g->kind != REGION_CAPTURE)
                continue;
            int k = windows++; /* the instance it recorded, the k-th range recorded */
            char name[64];
            snprintf(name, sizeof name, "capture %d", windows);
            assert_string_equal(g->name, name);
            assert_int_equal(g->pid, m.processes[0].pid);
            assert_true(g->start_ns >= inner_start[k] && g->end_ns <= inner_end[k]);
        }
        assert_int_equal(windows, want[c]);
        model_free(&m);
    }
    /* A range the program never opens: no window, and the report says so. */
    const char *none[] = {mmprof_bin(), "profile", "--quiet", "--json", json, "--capture-range", "nvtx:nonexistent@nowhere",
                          "--", demo(), NULL};
    cmd_result r = run(none, NULL);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    run_model m;
    load_run(json, &m);
    assert_int_equal(m.capture.nwindows, 0);
    assert_string_equal(m.capture.asked, "the first 1 instance(s) of NVTX range 'nonexistent' (domain nowhere)");
    bool warned = false;
    for (int i = 0; i < m.nwarnings; i++)
        warned |= strstr(m.warnings[i], "no capture window opened") != NULL;
    assert_true(warned);
    model_free(&m);
    free(json);
}

/* A profile names its native frames on a thread while the analysis starts (symbolize.h): the run
 * file, written while they are named, and the text report still carry the names. The program
 * here only leaves a record stream with a frame inside main of a program built with -g, and a
 * sample on it. */
static void native_frames_named_in_the_run_file(void **state)
{
    (void)state;
    char *src = in_tmp("probe.c"), *stream = in_tmp("4242.stream"), *json = in_tmp("run.json"), *txt = in_tmp("run.txt");
    assert_true(write_text(src, "int main(void)\n{\n    return 0;\n}\n"));
    cmd_result b = run_shell("cd '%s' && cc -g -O0 -fPIE -pie -o probe probe.c && nm probe | awk '$3 == \"main\" {print $1}'",
                             test_tmp);
    assert_int_equal(b.status, 0);
    unsigned long long main_at = strtoull(b.out, NULL, 16);
    assert_true(main_at > 0);
    cmd_free(&b);
    char text[1024];
    snprintf(text, sizeof text,
             "mmprof-stream\t1\nprocess\t4242\t1\t10\tprobe\n"
             "frame\t1\t0\tnative\t0\t%llu\tdynsym\t\t%s/probe\n"
             "sample\t1796054920537216543\t4242\t1\tcpu\tR\nsampler\t100\tcpu-timer\t\n",
             main_at + 4, test_tmp);
    assert_true(write_text(stream, text));
    /* An addr2line that answers 0.4 s late, so the file and line come after the run file's
     * writing has begun: only a writer that waits for them has them. */
    cmd_result which = run_shell("command -v addr2line");
    assert_int_equal(which.status, 0);
    which.out[strcspn(which.out, "\n")] = '\0';
    char *slow = in_tmp("addr2line"), script[512];
    snprintf(script, sizeof script, "#!/bin/sh\nsleep 0.4\nexec '%s' \"$@\"\n", which.out);
    cmd_free(&which);
    assert_true(write_text(slow, script));
    assert_int_equal(chmod(slow, 0755), 0);
    char *old = strdup(getenv("PATH")), *path = NULL;
    assert_true(asprintf(&path, "%s:%s", test_tmp, old) > 0);
    setenv("PATH", path, 1);
    const char *argv[] = {mmprof_bin(), "profile", "--quiet", "--json", json, "--text", txt, "--", "sh", "-c",
                          "cp \"$1\" \"$MMPROF_PROFILE_DIR\"/", "sh", stream, NULL};
    cmd_result r = run(argv, NULL);
    setenv("PATH", old, 1);
    free(old);
    free(path);
    free(slow);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    run_model m;
    load_run(json, &m);
    assert_int_equal(m.host_activity.nframes, 1);
    const host_frame *f = &m.host_activity.frames[0];
    assert_string_equal(f->function, "main");
    assert_non_null(f->file);
    assert_non_null(strstr(f->file, "probe.c"));
    assert_true(f->line >= 1 && f->line <= 4);
    model_free(&m);
    free(src);
    free(stream);
    free(json);
    free(txt);
}

/* NVTX ranges through the real injection library, from the parent and from a forked child: both
 * processes, every range (a tab inside a name kept), the registered string in its domain. */
static void nvtx_ranges_of_every_process(void **state)
{
    (void)state;
    char *json = in_tmp("nvtx.json");
    const char *argv[] = {mmprof_bin(), "profile", "--json", json, "--", demo(), "fork", NULL};
    cmd_result r = run(argv, NULL);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "nvtx_demo done\n");
    assert_non_null(strstr(r.err, "2 processes"));
    cmd_free(&r);
    cJSON *doc = load_report(json);
    assert_int_equal(count(doc, "main", "nvtx"), 1);
    assert_int_equal(count(doc, "child", "nvtx"), 1);
    assert_int_equal(count(doc, "inner\tstep", "nvtx"), 4);
    assert_int_equal(count(doc, "start-end", "nvtx"), 2);
    assert_int_equal(count(doc, "nvtx_demo", "run"), 1);
    assert_int_equal(count(doc, NULL, "nvtx"), 10);
    int registered = 0; /* named with its domain, as the renderers show it */
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "analysis"), "regions"))
        registered += strstr(cJSON_GetStringValue(cJSON_GetObjectItem(g, "name")), "registered step") != NULL;
    assert_int_equal(registered, 2);
    cJSON_Delete(doc);

    /* The run file itself: two processes, each range on the process and thread that opened it,
     * nested in its thread's enclosing push, the registered string in its domain. */
    run_model m;
    load_run(json, &m);
    assert_int_equal(m.source, SOURCE_PROFILE);
    assert_int_equal(m.nprocesses, 2);
    assert_string_equal(m.processes[0].name, "nvtx_demo fork");
    for (int i = 1; i < m.nregions; i++) {
        const region *g = &m.regions[i];
        const region *top = g;
        while (top->parent > 0)
            top = &m.regions[top->parent];
        /* "main" is the parent's top range, "child" the child's; start-end stands alone. */
        if (strcmp(g->name, "start-end") != 0)
            assert_int_equal(g->pid, m.processes[strcmp(top->name, "main") == 0 ? 0 : 1].pid);
        assert_int_equal(g->tid, g->pid); /* the main thread of each */
        assert_int_equal(g->push_pop, strcmp(g->name, "start-end") != 0);
        if (strcmp(g->name, "registered step") == 0) {
            assert_string_equal(g->domain, "demo-domain");
            assert_true(strcmp(m.regions[g->parent].name, "main") == 0 || strcmp(m.regions[g->parent].name, "child") == 0);
        } else {
            assert_null(g->domain);
        }
    }
    model_free(&m);
    free(json);
}

/* A crash inside an open range and an _exit with one open: the ranges are there (each was
 * written when it opened), closed at the last record, and said to be; the status is passed on. */
static void nvtx_ranges_survive_crash_and_exit(void **state)
{
    (void)state;
    const char *modes[] = {"crash", "exit"};
    const char *open_range[] = {"crashing", "left open"};
    const int status[] = {128 + 11, 3};
    for (int i = 0; i < 2; i++) {
        char *json = in_tmp("nvtx-end.json");
        const char *argv[] = {mmprof_bin(), "profile", "--json", json, "--", demo(), modes[i], NULL};
        cmd_result r = run(argv, NULL);
        assert_int_equal(r.status, status[i]);
        assert_non_null(strstr(r.err, "still open"));
        cmd_free(&r);
        cJSON *doc = load_report(json);
        assert_int_equal(count(doc, open_range[i], "nvtx"), 1);
        assert_int_equal(count(doc, "inner\tstep", "nvtx"), 2);
        cJSON_Delete(doc);
        free(json);
    }
}

/* The library's CUDA entry point, called as the driver calls it (tests/inject_probe.c): the
 * process is recorded, its normal exit marked (no "exit handlers" warning), and on a machine
 * where CUPTI cannot start, why is a warning; through _exit as well, since the preloaded
 * libmmprof_exit.so flushes before the process ends (a multiprocessing worker's way out). */
static void cuda_entry_point_marks_exit_and_failures(void **state)
{
    (void)state;
    const char *modes[] = {"normal", "exit"};
    for (int i = 0; i < 2; i++) {
        char *json = in_tmp("probe.json");
        const char *argv[] = {mmprof_bin(), "profile", "--json", json, "--", beside_bin("tests/inject_probe"), modes[i],
                              NULL};
        cmd_result r = run(argv, NULL);
        assert_int_equal(r.status, i == 0 ? 0 : 5);
        assert_string_equal(r.out, "InitializeInjection returned 1\n");
        cmd_free(&r);
        run_model m;
        load_run(json, &m);
        assert_int_equal(m.nprocesses, 1);
        assert_string_equal(m.processes[0].name, i == 0 ? "inject_probe normal" : "inject_probe exit");
        bool no_exit = false, collect_failed = false, no_cuda = false;
        for (int w = 0; w < m.nwarnings; w++) {
            no_exit |= strstr(m.warnings[w], "without running its exit handlers") != NULL;
            collect_failed |= strstr(m.warnings[w], "could not collect everything") != NULL;
            no_cuda |= strstr(m.warnings[w], "made no CUDA calls") != NULL;
        }
        /* Through _exit too the exit is marked: libmmprof_exit.so, preloaded, flushes first. */
        assert_false(no_exit);
        assert_false(no_cuda); /* cuInit's entry point ran */
        print_message("CUPTI %s here\n", collect_failed ? "could not start" : "started");
        model_free(&m);
        free(json);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_command_is_a_usage_error),
        cmocka_unit_test(options_of_other_commands_are_refused),
        cmocka_unit_test(options_after_command_belong_to_it),
        cmocka_unit_test(double_dash_and_exit_status),
        cmocka_unit_test(missing_or_unrunnable_command),
        cmocka_unit_test(killed_program_gives_a_partial_report),
        cmocka_unit_test(program_without_cuda_is_reported_as_such),
        cmocka_unit_test(refused_under_another_profiler),
        cmocka_unit_test(stdin_and_stdout_are_the_programs),
        cmocka_unit_test(text_report_to_a_file),
        cmocka_unit_test(text_option_for_every_command),
        cmocka_unit_test(interrupts_reach_the_program),
        cmocka_unit_test(missing_library_names_the_paths_tried),
        cmocka_unit_test(native_frames_named_in_the_run_file),
        cmocka_unit_test(nvtx_ranges_of_every_process),
        cmocka_unit_test(nvtx_capture_windows),
        cmocka_unit_test(nvtx_ranges_survive_crash_and_exit),
        cmocka_unit_test(cuda_entry_point_marks_exit_and_failures),
    };
    return cmocka_run_group_tests(tests, test_tmp_setup, test_tmp_teardown);
}
