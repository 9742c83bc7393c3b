/* The resource-bound and outside-control parts of profile's capture (issue 23), without a GPU:
 * - the control block (src/collect/capture_control.c): --max-size's sizes, the command word,
 *   the shared byte counter stamping the cap once, and TARGET found by directory and by pid;
 * - `mmprof capture start|stop TARGET` through the real binary against a profile directory made
 *   here (a fake profile: the control file the launcher writes), its refusals exiting 2;
 * - --max-size on a real process: nvtx_demo's NVTX lines stop at the cap, in a forked child
 *   too, and the report says recording stopped there;
 * - a window closed by max-size or by mmprof capture read back from the stream and named in the
 *   report; merged run files keep every file's windows;
 * - a killed process's partial records (analysis/incomplete.c) on the recorded H200 training
 *   loop: its kernels after the kill dropped, the run's verdict is withheld with the counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyze.h"
#include "capture_control.h"
#include "cli.h"
#include "incomplete.h"
#include "model_json.h"
#include "html.h"
#include "model_merge.h"
#include "stream_format.h"
#include "stream_read.h"
#include "test_support.h"
#include "trace.h"

#define TRAIN_SAMPLE "samples/h200-profile-train.json"

/* A directory named as the launcher names its profile directories. */
static char *profile_dir(void)
{
    char *d = strdup("/tmp/mmprof-profile-XXXXXX");
    assert_non_null(d);
    assert_non_null(mkdtemp(d));
    return d;
}

static void sizes(void **state)
{
    (void)state;
    uint64_t v;
    assert_true(capture_parse_size("500M", &v));
    assert_true(v == 500ull << 20);
    assert_true(capture_parse_size("2g", &v) && v == 2ull << 30);
    assert_true(capture_parse_size("1048576", &v) && v == 1048576);
    assert_true(capture_parse_size("1T", &v) && v == 1ull << 40);
    const char *bad[] = {"", "0", "0M", "-1M", "1.5G", "5MB", "M", " 5M", "2P", "99999999999999999999", "1025T"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (capture_parse_size(bad[i], &v))
            fail_msg("'%s' was taken as a size", bad[i]);
}

static void control_block(void **state)
{
    (void)state;
    char *dir = profile_dir(), why[512], found[4096];
    assert_true(capture_control_create(dir, true, 1000, 4242, why, sizeof why));
    assert_false(capture_control_create(dir, true, 1000, 4242, why, sizeof why)); /* never replaced */
    capture_shared *s = capture_control_map(dir, why, sizeof why);
    assert_non_null(s);
    assert_int_equal(s->manual, 1);
    assert_int_equal(s->launcher, 4242);
    /* Commands: each one counted, the last one's kind in the low bit. */
    assert_true(capture_control_command(s, true) == (1 << 1 | 1));
    assert_true(capture_control_command(s, false) == (2 << 1));
    assert_true(capture_control_command(s, true) == (3 << 1 | 1));
    /* The cap: stamped once, by the add that reached it. */
    assert_false(capture_control_add_bytes(s, 600, 11));
    assert_int_equal(s->capped_ns, 0);
    assert_true(capture_control_add_bytes(s, 400, 22));
    assert_true(capture_control_add_bytes(s, 5, 33));
    assert_int_equal(s->capped_ns, 22);
    assert_true(s->bytes == 1005);
    /* TARGET: the directory, or a pid mapping the block (this process does now). */
    assert_true(capture_control_find(dir, found, sizeof found, why, sizeof why));
    assert_string_equal(found, dir);
    char pid[24];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    assert_true(capture_control_find(pid, found, sizeof found, why, sizeof why));
    assert_string_equal(found, dir);
    capture_control_unmap(s);
    assert_false(capture_control_find(pid, found, sizeof found, why, sizeof why)); /* unmapped */
    assert_non_null(strstr(why, "is not an mmprof profile"));
    rm_rf(dir);
    free(dir);
}

static cmd_result capture_cmd(const char *verb, const char *target)
{
    const char *argv[] = {mmprof_bin(), "capture", verb, target, NULL};
    return argv[3] ? run_argv(argv, NULL) : run_argv((const char *const[]){mmprof_bin(), "capture", verb, NULL}, NULL);
}

/* `mmprof capture` against a profile directory made here, as the launcher makes it. */
static void capture_command(void **state)
{
    (void)state;
    char *dir = profile_dir(), why[512];
    assert_true(capture_control_create(dir, true, 0, 77, why, sizeof why));
    capture_shared *s = capture_control_map(dir, why, sizeof why);
    assert_non_null(s);

    cmd_result r = capture_cmd("start", dir);
    assert_int_equal(r.status, EXIT_OK);
    assert_non_null(strstr(r.out, "start sent"));
    cmd_free(&r);
    assert_true(__atomic_load_n(&s->command, __ATOMIC_ACQUIRE) == (1 << 1 | 1));
    char pid[24];
    snprintf(pid, sizeof pid, "%d", (int)getpid()); /* this process maps it: a pid finds it too */
    r = capture_cmd("stop", pid);
    assert_int_equal(r.status, EXIT_OK);
    cmd_free(&r);
    assert_true(__atomic_load_n(&s->command, __ATOMIC_ACQUIRE) == (2 << 1));

    /* Refusals: exit 2, a message naming what is wrong, the block untouched. */
    struct {
        const char *verb, *target, *says;
    } bad[] = {
        {"pause", dir, "expected `mmprof capture start|stop TARGET`"},
        {"start", "/", "is not a running profile's directory"},
        {"start", "12ab", "neither a profile directory nor a process id"},
        {"start", "999999999", "no process 999999999"},
        {"start", NULL, "expected `mmprof capture start|stop TARGET`"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = capture_cmd(bad[i].verb, bad[i].target);
        print_message("capture %s %s -> %d: %s", bad[i].verb, bad[i].target ? bad[i].target : "", r.status, r.err);
        assert_int_equal(r.status, EXIT_USAGE);
        assert_non_null(strstr(r.err, bad[i].says));
        assert_string_equal(r.out, "");
        cmd_free(&r);
    }
    capture_control_unmap(s);
    rm_rf(dir);
    free(dir);
    /* A profile not started with --capture-range manual. */
    dir = profile_dir();
    assert_true(capture_control_create(dir, false, 0, 78, why, sizeof why));
    r = capture_cmd("start", dir);
    assert_int_equal(r.status, EXIT_USAGE);
    assert_non_null(strstr(r.err, "not started with --capture-range manual"));
    cmd_free(&r);
    s = capture_control_map(dir, why, sizeof why);
    assert_true(s->command == 0);
    capture_control_unmap(s);
    rm_rf(dir);
    free(dir);
}

/* The options: --max-size's values, and manual with what counts ranges. */
static void options(void **state)
{
    (void)state;
    struct {
        const char *a, *b, *c, *says;
    } bad[] = {
        {"--max-size", "5MB", NULL, "--max-size '5MB'"},
        {"--max-size", "0", NULL, "--max-size '0'"},
        {"--capture-range", "manual", "--capture-count", "--capture-count counts ranges"},
        {"--capture-range", "manual", "--capture-skip", "--capture-skip counts ranges"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *argv[] = {mmprof_bin(), "profile", bad[i].a, bad[i].b, bad[i].c, "2", "--", "true", NULL};
        if (!bad[i].c)
            argv[4] = "--", argv[5] = "true", argv[6] = NULL;
        cmd_result r = run_argv(argv, NULL);
        print_message("%s %s %s -> %d: %s", bad[i].a, bad[i].b, bad[i].c ? bad[i].c : "", r.status, r.err);
        assert_int_equal(r.status, EXIT_USAGE);
        assert_non_null(strstr(r.err, bad[i].says));
        cmd_free(&r);
    }
    /* Accepted: the library gets the cap, and the launcher prints how to address a manual one. */
    capture_config c;
    setenv(CAPTURE_ENV_START, "5", 1);
    setenv(CAPTURE_ENV_RANGE, "manual", 1);
    setenv(CAPTURE_ENV_COUNT, "1", 1);
    setenv(CAPTURE_ENV_SKIP, "0", 1);
    setenv(CAPTURE_ENV_MAX_BYTES, "2048", 1);
    capture_config_from_env(&c);
    assert_int_equal(c.mode, CAPTURE_MANUAL);
    assert_true(c.max_bytes == 2048);
    char what[640];
    capture_describe(&c, what, sizeof what);
    assert_string_equal(what, "between mmprof capture start and stop, up to 2 KiB of records (--max-size)");
    unsetenv(CAPTURE_ENV_RANGE);
    unsetenv(CAPTURE_ENV_MAX_BYTES);
    const char *argv[] = {mmprof_bin(), "profile", "-q", "--capture-range", "manual", "--", "true", NULL};
    cmd_result r = run_argv(argv, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "recording is off until `mmprof capture start "));
    cmd_free(&r);
}

static int count_regions(const char *path, const char *name)
{
    run_model m;
    load_run(path, &m);
    int n = 0;
    for (int i = 0; i < m.nregions; i++)
        n += strcmp(m.regions[i].name, name) == 0;
    model_free(&m);
    return n;
}

/* --max-size on a real process (NVTX lines need no GPU): the job's lines stop at the cap, the
 * forked child's counted with its parent's, and the report says where recording stopped. */
static void max_size_stops_nvtx_lines(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    char *full = path_in(dir, "full.json"), *capped = path_in(dir, "capped.json");
    const char *demo = beside_bin("tests/nvtx_demo");
    char demo_path[4096];
    snprintf(demo_path, sizeof demo_path, "%s", demo);
    const char *a1[] = {mmprof_bin(), "profile", "-q", "--json", full, "--", demo_path, "fork", NULL};
    cmd_result r = run_argv(a1, NULL);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    const char *a2[] = {mmprof_bin(), "profile", "-q", "--max-size", "1", "--json", capped, "--", demo_path, "fork", NULL};
    r = run_argv(a2, NULL);
    print_message("stderr: %s\n", r.err);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "nvtx_demo done\n"); /* the program ran on to its end */
    cmd_free(&r);
    char *f = read_file(full, NULL), *c = read_file(capped, NULL);
    assert_non_null(f);
    assert_non_null(c);
    /* Whole: the child's and the parent's inner steps; capped at 1 byte, none: the first process
     * header reaches the cap, and neither process writes a range after it (the forked child's
     * bytes count with its parent's, in the one control block). */
    int whole = count_regions(full, "inner\tstep"), cut = count_regions(capped, "inner\tstep");
    print_message("inner steps: %d whole, %d under --max-size 1\n", whole, cut);
    assert_int_equal(whole, 4);
    assert_int_equal(cut, 0);
    assert_non_null(strstr(c, "recording stopped at the --max-size cap: the record files reached 1 B"));
    assert_non_null(strstr(c, "everything up to 1 B of records (--max-size)"));
    free(f);
    free(c);
    free(full);
    free(capped);
    rm_rf(dir);
    free(dir);
}
/* Under a capture option only the NVTX ranges opened inside a window are written: a loop's
 * ranges outside would grow the record and run files with the run's length. nvtx_demo's first
 * "inner\tstep" opens the one window (count 1); its enclosing "main" range, the second inner
 * step and the later ranges fall outside. */
static void capture_keeps_only_window_ranges(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    char *out = path_in(dir, "capture.json");
    char demo_path[4096];
    snprintf(demo_path, sizeof demo_path, "%s", beside_bin("tests/nvtx_demo"));
    const char *argv[] = {mmprof_bin(), "profile", "-q", "--capture-range", "nvtx:inner\tstep", "--capture-count", "1",
                          "--json", out, "--", demo_path, NULL};
    cmd_result r = run_argv(argv, NULL);
    print_message("stderr: %s\n", r.err);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    int inner = count_regions(out, "inner\tstep"), outer = count_regions(out, "main"),
        later = count_regions(out, "registered step");
    print_message("regions: inner %d, main %d, registered step %d\n", inner, outer, later);
    assert_int_equal(inner, 1);
    assert_int_equal(outer, 0);
    assert_int_equal(later, 0);
    free(out);
    rm_rf(dir);
    free(dir);
}

/* One process's stream with a window opened by mmprof capture start and closed by the cap, and a
 * second one opened and closed from outside. */
static void put_stream(const char *dir)
{
    strbuf b;
    sb_init(&b);
    sb_add(&b, "mmprof-stream\t1\nprocess\t300\t1\t1000\t./serve\n"
               "capconf\tbetween mmprof capture start and stop, up to 500 MiB of records (--max-size)\ncuda\t1100\n");
    stream_format_capture(&b, 2000, true, 1, "control-start", 4, "mmprof capture start (command 1)");
    sb_add(&b, "api\t2100\t2110\t0\t300\t11\tcudaLaunchKernel_v7000\n"
               "kernel\t2120\t2300\t0\t7\t11\t1\t1\t1\t32\t1\t1\t8\t0\t0\t0\t0\tk1\n");
    stream_format_capture(&b, 2600, false, 1, "control-stop", 4, "mmprof capture stop (command 2)");
    stream_format_capture(&b, 3000, true, 2, "control-start", 9, "mmprof capture start (command 3)");
    sb_add(&b, "api\t3100\t3110\t0\t300\t12\tcudaLaunchKernel_v7000\n"
               "kernel\t3120\t3300\t0\t7\t12\t1\t1\t1\t32\t1\t1\t8\t0\t0\t0\t0\tk1\n");
    stream_format_capture(&b, 3500, false, 2, "max-size", 9,
                          "the job's record files reached 500 MiB (--max-size) at 0.000 s after launch");
    sb_add(&b, "capcalls\t9000\t40\nexit\t9000\n");
    char *path = path_in(dir, "300.stream");
    assert_true(write_text(path, b.s));
    free(path);
    sb_free(&b);
}

/* Fails unless the output doc (freed here) holds every one of parts. */
static void holds_all(const char *what, char *doc, const char *const *parts)
{
    assert_non_null(doc);
    for (int i = 0; parts[i]; i++)
        if (!strstr(doc, parts[i]))
            fail_msg("the %s lacks '%s'", what, parts[i]);
    free(doc);
}

static void read_windows(const char *dir, run_model *m)
{
    model_init(m);
    m->source = SOURCE_PROFILE;
    stream_summary s = {0};
    char err[256];
    assert_true(stream_read_dir(dir, m, &s, err, sizeof err));
    assert_true(model_finish_regions(m, "serve"));
}

static void control_and_max_size_windows_reported(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    put_stream(dir);
    run_model m;
    read_windows(dir, &m);
    assert_int_equal(m.capture.nwindows, 2);
    assert_string_equal(m.capture.windows[0].began, "control-start");
    assert_string_equal(m.capture.windows[0].ended, "control-stop");
    assert_string_equal(m.capture.windows[1].ended, "max-size");
    assert_true(m.capture.windows[1].calls_after == 31); /* 40 at exit, 9 at the cap */
    analysis a;
    assert_true(analyze(&m, &a));
    /* The text; the page: a Capture section (in its navigation too) with each window's reasons and
     * figures, marked with their place in the JSON; the Chrome trace: a track of the windows. */
    holds_all("text", text_report_of(&a),
              (const char *const[]){"from mmprof capture start (command 1) to mmprof capture stop (command 2)",
                                    "to the job's record files reached 500 MiB (--max-size)", NULL});
    holds_all("page", render_html(&a),
              (const char *const[]){"<section id=\"capture\">", "href=\"#capture\"",
                                    "<code>control-stop</code> mmprof capture stop (command 2)",
                                    "<code>max-size</code> the job&#39;s record files reached 500 MiB",
                                    "data-fig=\"analysis.capture.windows[1].calls_after\"",
                                    /* the windows on the timeline, first, with their reasons on hover */
                                    "<li data-track=\"0\" data-kind=\"capture\" data-events=\"2\">capture windows",
                                    "\"from mmprof capture start (command 1) to mmprof capture stop (command 2)\"",
                                    "The capture windows come first", NULL});
    holds_all("trace", render_trace(&a),
              (const char *const[]){"\"capture windows\"", "\"name\":\"capture 2: control-start to max-size\"",
                                    "\"calls_after\":31", NULL});
    analysis_free(&a);

    /* Two rank files merged: both files' windows, each on its own region and process. */
    run_model other;
    read_windows(dir, &other);
    merge_state ms;
    char err[256];
    assert_true(model_merge_begin(&ms, &m, "a"));
    assert_true(model_merge(&ms, &m, &other, "b", err, sizeof err));
    assert_true(model_merge_finish(&ms, &m));
    model_free(&other);
    assert_int_equal(m.capture.nwindows, 4);
    for (int i = 0; i < 4; i++) {
        const capture_window *w = &m.capture.windows[i];
        assert_true(w->region > 0 && w->region < m.nregions);
        assert_int_equal(m.regions[w->region].kind, REGION_CAPTURE);
        assert_int_equal(m.regions[w->region].pid, w->pid);
        assert_true(m.regions[w->region].start_ns == w->start_ns);
    }
    assert_true(m.capture.windows[0].pid != m.capture.windows[2].pid); /* the second file's renumbered */
    assert_string_equal(m.capture.windows[3].ended, "max-size");
    assert_true(analyze(&m, &a));
    assert_int_equal(a.ncapture, 4);
    analysis_free(&a);
    model_free(&m);
    rm_rf(dir);
    free(dir);
}

/* A capture that began after the program's first CUDA calls (4 before it), whose launches' kernels
 * ran 3 ms later, the GPU still busy with what was launched before the window: the stretch before
 * the first recorded kernel is not called idle nor explained, the run's busy share is n/a with
 * its reason, and no verdict prints a busy figure it does not have. A window with no calls before
 * it (the program's start) keeps its lead idle time. */
static void capture_backlog_not_called_idle(void **state)
{
    (void)state;
    for (int calls_before = 4; calls_before >= 0; calls_before -= 4) {
        char *dir = make_temp_dir();
        strbuf b;
        sb_init(&b);
        sb_add(&b, "mmprof-stream\t1\nprocess\t300\t1\t1000\t./loop\n"
                   "capconf\tthe first instance of NVTX range 'step'\ncuda\t1100\n");
        stream_format_capture(&b, 2000000, true, 1, "nvtx-begin", (uint64_t)calls_before, "NVTX range step began");
        for (int k = 0; k < 3; k++)
            sb_printf(&b, "api\t%d\t%d\t0\t300\t%d\tcudaLaunchKernel_v7000\n"
                          "kernel\t%d\t%d\t0\t7\t%d\t1\t1\t1\t32\t1\t1\t8\t0\t0\t0\t0\tk1\n",
                      2000100 + k * 1000, 2000200 + k * 1000, 11 + k, 5000000 + k * 400000, 5400000 + k * 400000,
                      11 + k);
        stream_format_capture(&b, 2500000, false, 1, "nvtx-end", (uint64_t)calls_before, "NVTX range step ended");
        sb_add(&b, "exit\t6500000\n");
        char *path = path_in(dir, "300.stream");
        assert_true(write_text(path, b.s));
        free(path);
        sb_free(&b);
        run_model m;
        read_windows(dir, &m);
        analysis a;
        assert_true(analyze(&m, &a));
        const region_metrics *run = &a.rg[0];
        char *text = text_report_of(&a);
        assert_non_null(text);
        if (calls_before > 0) {
            assert_false(run->busy_pct.ok);
            assert_non_null(strstr(metric_why(&run->busy_pct), "launched before the capture"));
            assert_false(run->lead_idle_ms.ok);
            assert_int_not_equal(run->verdict, VERDICT_IDLE);
            /* the unseen start is not recorded, in the account too, and is never the verdict */
            if (!strstr(text, "not recorded"))
                fail_msg("no 'not recorded' in:\n%s", text);
            assert_null(strstr(text, "GPU idle"));
            assert_null(strstr(text, "100.0%, kernels"));
            assert_int_equal(run->verdict, VERDICT_COMPUTE_BOUND);
            /* the summary's verdict rests on the kernels' share of the wall, not on a 0% busy share */
            const wall_account *acc = run_account(&a);
            assert_non_null(acc);
            for (int i = 0; i < a.nsummary; i++)
                if (a.summary[i].kind == FIND_VERDICT) {
                    assert_string_equal(a.summary[i].unit, "%");
                    assert_true(a.summary[i].figure.v == acc->verdict_pct.v);
                    assert_true(acc->verdict_pct.v > 0);
                }
        } else {
            assert_true(run->busy_pct.ok && run->lead_idle_ms.ok);
            assert_true(run->lead_idle_ms.v > 2.9); /* from the window's start to the first kernel */
        }
        free(text);
        analysis_free(&a);
        model_free(&m);
        rm_rf(dir);
        free(dir);
    }
}

/* The recorded training loop as if SIGKILLed at its middle: the API calls all arrived, the
 * kernels that started after the kill did not. */
static void killed_process_verdicts_withheld(void **state)
{
    (void)state;
    run_model m;
    load_run(TRAIN_SAMPLE, &m);
    analysis a;
    assert_true(analyze(&m, &a));
    verdict_kind whole = a.rg[0].verdict;
    assert_int_equal(a.nincomplete, 0);
    analysis_free(&a);

    /* Cut, but every launch has its kernel (a forced flush kept them): the verdicts stand, and
     * the counts say so (each launch call counted once, a driver call inside a runtime one not). */
    m.processes[0].records_cut = true;
    assert_true(analyze(&m, &a));
    assert_int_equal(a.nincomplete, 1);
    assert_true(a.incomplete[0].launches == (int64_t)m.events.nkernels);
    assert_true(a.incomplete[0].kernels == a.incomplete[0].launches);
    assert_true(a.incomplete[0].copy_calls == (int64_t)m.events.ncopies);
    assert_int_equal(a.rg[0].verdict, whole);
    analysis_free(&a);

    /* Kernels that started after the middle of the GPU work lost. */
    int64_t first = INT64_MAX, last = 0;
    for (size_t i = 0; i < m.events.nkernels; i++) {
        first = m.events.kernels[i].start_ns < first ? m.events.kernels[i].start_ns : first;
        last = m.events.kernels[i].start_ns > last ? m.events.kernels[i].start_ns : last;
    }
    int64_t mid = first + (last - first) / 2;
    size_t kept = 0, total = m.events.nkernels;
    for (size_t i = 0; i < m.events.nkernels; i++)
        if (m.events.kernels[i].start_ns < mid) /* names stay in the list's pool */
            m.events.kernels[kept++] = m.events.kernels[i];
    m.events.nkernels = kept;
    assert_true(kept > 0 && kept < total);
    assert_true(analyze(&m, &a));
    assert_int_equal(a.rg[0].verdict, VERDICT_NONE);
    char want[160];
    snprintf(want, sizeof want, "%zu of %zu launched kernels", kept, total);
    print_message("%s\n", a.rg[0].verdict_text);
    assert_non_null(strstr(a.rg[0].verdict_text, "records incomplete"));
    assert_non_null(strstr(a.rg[0].verdict_text, want));
    char warning[160];
    snprintf(warning, sizeof warning, "%zu of %zu kernel launches recorded", kept, total);
    bool warned = false;
    for (int i = 0; i < a.nwarnings; i++)
        warned |= strstr(a.warnings[i], warning) != NULL;
    assert_true(warned);
    /* Every output: the text names it, and the run file keeps the cut through a round trip. */
    char *text = text_report_of(&a);
    assert_non_null(strstr(text, "records incomplete"));
    free(text);
    analysis_free(&a);
    char *json = model_to_text(&m), err[256];
    assert_non_null(json);
    run_model back;
    assert_true(model_read_text("cut.json", json, strlen(json), &back, err, sizeof err));
    assert_true(back.processes[0].records_cut);
    model_free(&back);
    free(json);
    model_free(&m);
}

/* A runtime launch and the driver launch it makes (cudaLaunchKernel calling cuLaunchKernel, each
 * with its own correlation id): one launch, whose kernel correlates with the runtime call. */
static void driver_launch_inside_runtime_counted_once(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m);
    size_t n = m.events.napis;
    int runtime = 0;
    for (size_t i = 0; i < n; i++) {
        api_event a = m.events.apis[i];
        if (strncmp(a.name, "cudaLaunchKernel", 16) != 0)
            continue;
        runtime++;
        api_event d = {.name = "cuLaunchKernel", .start_ns = a.start_ns + 1, .end_ns = a.end_ns - 1, .kind = API_DRIVER,
                       .pid = a.pid, .thread = a.thread, .correlation = 100000 + (uint32_t)i};
        assert_true(events_add_api(&m.events, &d));
    }
    /* And a driver launch of its own (a Triton kernel), outside any runtime call: counted. */
    api_event own = {.name = "cuLaunchKernel", .start_ns = 1, .end_ns = 2, .kind = API_DRIVER,
                     .pid = m.events.apis[0].pid, .thread = m.events.apis[0].thread, .correlation = 99999};
    assert_true(events_add_api(&m.events, &own));
    m.processes[0].records_cut = true;
    incomplete_process *p;
    int np;
    assert_true(analyze_incomplete(&m, &p, &np));
    assert_int_equal(np, 1);
    assert_int_equal(runtime, 11);
    assert_true(p[0].launches == runtime + 1);
    assert_true(p[0].kernels == runtime);
    char why[320];
    assert_true(incomplete_reason(p, np, 0, why, sizeof why));
    assert_non_null(strstr(why, "11 of 12 launched kernels"));
    free(p);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes),
        cmocka_unit_test(control_block),
        cmocka_unit_test(capture_command),
        cmocka_unit_test(options),
        cmocka_unit_test(max_size_stops_nvtx_lines),
        cmocka_unit_test(capture_keeps_only_window_ranges),
        cmocka_unit_test(control_and_max_size_windows_reported),
        cmocka_unit_test(capture_backlog_not_called_idle),
        cmocka_unit_test(killed_process_verdicts_withheld),
        cmocka_unit_test(driver_launch_inside_runtime_counted_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
