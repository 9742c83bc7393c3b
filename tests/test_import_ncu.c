/* Nsight Compute's CSV export (src/import/ncu_csv.c, ncu_attach.c), on the files recorded on the
 * H200 in samples/ncu/ (their README says how): examples/counter_kernels, 3 kernels launched 4
 * times each in turn, under ncu's raw page and, in another ncu run, its details page, and an
 * `mmprof profile` run of the same program. Checked:
 *  - the raw page imports as 12 launches whose FP32 instruction counts are the program's own
 *    (counter_kernels.own.txt, the program's account, not figures copied from the CSV);
 *  - the details page imports as the same 12 launches, instruction counts n/a (its sections have
 *    none), and agrees with the raw page where both have a counter (two ncu runs: within 2
 *    percentage points, 5% in duration); units with a prefix are converted, others left n/a;
 *  - both agree with mmprof's own counter pass of the program (samples/h200-profile-counters.json,
 *    CUPTI's range profiler, a third run): instruction counts equal, percentages of peak within
 *    8 points (the largest difference seen is add_one's memory throughput, 46.4% under ncu and
 *    52.9% under mmprof, whose replay counts its memory restore's write-backs: docs/reading.md
 *    measured 5.7-6.0 points), achieved occupancy within 2 points, durations within 10%;
 *  - `mmprof report RUN --ncu FILE.csv` gives each launch to the run's kernel record of its name
 *    and launch order, says so on stderr, shows them in the counter section and leaves the
 *    wall-time account as it was; a subset of launches, a launch of another shape and names the
 *    run lacks are said and never matched;
 *  - bad files are refused with the file and line named, exit 2 and no output written;
 *  - the content tells the format: the CSVs are not taken for JSON or SQLite, nor those for CSV. */
#include <cjson/cJSON.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis.h"
#include "import.h"
#include "model_json.h"
#include "ncu_csv.h"
#include "test_support.h"

#define RAW "samples/ncu/counter_kernels.raw.csv"
#define DETAILS "samples/ncu/counter_kernels.details.csv"
#define PROFILE "samples/ncu/counter_kernels.profile.json"
#define OWN "samples/ncu/counter_kernels.own.txt"
#define OWN_COUNTERS "samples/h200-profile-counters.json"
#define KINETO "samples/h200-matmul-copies.kineto.json"
#define NSYS "tests/fuzz/corpus/import_nsys/new_style.sqlite"
#define LAUNCHES 12
#define RAW_HEAD_LINES 10 /* ncu's and the program's 8 lines, the header, the units */

static const char *const in_turn[3] = {"ffma_chain", "scale", "add_one"};

/* ---------- helpers ---------- */

static void import_or_fail(const char *path, run_model *m)
{
    char err[512];
    if (!import_file(path, m, err, sizeof err))
        fail_msg("%s", err);
}

static const char *base_name_of(const kernel_counters *k, char *buf, size_t len)
{
    kernel_display_name(k->name, buf, len);
    return buf;
}

/* The program's own account (counter_kernels.own.txt): "expect KERNEL OP COUNT" per kernel. */
typedef struct {
    char kernel[32];
    counter_id c;
    double count;
} own_count;

static int own_counts(own_count out[3])
{
    char *text = read_file(OWN, NULL);
    assert_non_null(text);
    int n = 0;
    for (char *line = strtok(text, "\n"); line && n < 3; line = strtok(NULL, "\n")) {
        char kernel[32], op[8];
        long long count;
        if (sscanf(line, "expect %31s %7s %lld", kernel, op, &count) != 3)
            continue;
        snprintf(out[n].kernel, sizeof out[n].kernel, "%s", kernel);
        out[n].c = strcmp(op, "ffma") == 0 ? CTR_FFMA : strcmp(op, "fmul") == 0 ? CTR_FMUL : CTR_FADD;
        out[n].count = (double)count;
        n++;
    }
    free(text);
    return n;
}

/* The launches come in the program's order, named as it names its kernels. */
static void assert_program_order(const run_model *m)
{
    assert_int_equal(m->nlaunch_counters, LAUNCHES);
    char name[96];
    for (int i = 0; i < LAUNCHES; i++)
        assert_string_equal(base_name_of(&m->launch_counters[i], name, sizeof name), in_turn[i % 3]);
}

static double middle(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median of counter c over m's launches of kernel (by its name without parameters). */
static double launch_median(const run_model *m, const char *kernel, counter_id c)
{
    double v[64];
    int n = 0;
    char name[96];
    for (int i = 0; i < m->nlaunch_counters && n < 64; i++)
        if (strcmp(base_name_of(&m->launch_counters[i], name, sizeof name), kernel) == 0 &&
            isfinite(m->launch_counters[i].v[c]))
            v[n++] = m->launch_counters[i].v[c];
    return n ? middle(v, n) : NAN;
}

/* lines from..to (from 1) of path, and then extra, into dir/name: the path. */
static char *lines_of(const char *dir, const char *name, const char *path, int from, int to, const char *extra)
{
    char *text = read_file(path, NULL);
    assert_non_null(text);
    char *out = path_in(dir, name);
    FILE *f = fopen(out, "w");
    assert_non_null(f);
    int line = 1;
    for (const char *p = text; *p; line++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
        if (line >= from && line <= to)
            fwrite(p, 1, n, f);
        p += n;
    }
    if (extra)
        fputs(extra, f);
    fclose(f);
    free(text);
    return out;
}

/* path with the first occurrence of what on line `line` replaced by with, into dir/name. */
static char *edited(const char *dir, const char *name, const char *path, int line, const char *what, const char *with)
{
    char *text = read_file(path, NULL);
    assert_non_null(text);
    char *p = text;
    for (int i = 1; i < line; i++)
        p = strchr(p, '\n') + 1;
    char *at = strstr(p, what);
    assert_non_null(at);
    char *out = path_in(dir, name);
    FILE *f = fopen(out, "w");
    assert_non_null(f);
    fwrite(text, 1, (size_t)(at - text), f);
    fputs(with, f);
    fputs(at + strlen(what), f);
    fclose(f);
    free(text);
    return out;
}

/* ---------- the importer ---------- */

static void raw_page_gives_the_programs_counts(void **state)
{
    (void)state;
    run_model m;
    import_or_fail(RAW, &m);
    assert_int_equal(m.source, SOURCE_NCU);
    assert_int_equal((int)m.events.nkernels, 0); /* counters, no timeline */
    assert_program_order(&m);
    own_count own[3];
    assert_int_equal(own_counts(own), 3);
    char name[96];
    int checked = 0;
    for (int i = 0; i < LAUNCHES; i++) {
        const kernel_counters *k = &m.launch_counters[i];
        for (int j = 0; j < 3; j++)
            if (strcmp(base_name_of(k, name, sizeof name), own[j].kernel) == 0) {
                if (k->v[own[j].c] != own[j].count)
                    fail_msg("launch %d (%s): %s %.0f, the program executes %.0f", i, name, counter_key(own[j].c),
                             k->v[own[j].c], own[j].count);
                checked++;
            }
        assert_true(k->v[CTR_DURATION_NS] > 1000 && k->v[CTR_DURATION_NS] < 1e6);
        assert_true(k->v[CTR_OCCUPANCY_PCT] > 0 && k->v[CTR_OCCUPANCY_PCT] <= 100);
        assert_true(k->v[CTR_SM_PCT] > 0 && k->v[CTR_SM_PCT] <= 100);
        assert_int_equal(k->pid, 588);
        assert_int_equal(k->correlation, 0); /* no kernel record to name */
        assert_false(isfinite(k->v[CTR_DRAM_READ_BYTES])); /* not in this CSV: n/a, not 0 */
    }
    assert_int_equal(checked, LAUNCHES);
    assert_int_equal(m.ndevices, 1);
    assert_string_equal(m.devices[0].name, "NVIDIA H200");
    assert_int_equal(m.devices[0].cc_major, 9);
    assert_int_equal(m.devices[0].sm_count, 132);
    assert_true(m.counters.asked && m.counters.passes > 0);
    assert_string_equal(m.counters.from, RAW);
    model_free(&m);
}

static void details_page_gives_the_same_launches(void **state)
{
    (void)state;
    run_model m;
    import_or_fail(DETAILS, &m);
    assert_program_order(&m);
    for (int i = 0; i < LAUNCHES; i++) {
        const double *v = m.launch_counters[i].v;
        /* The default sections count no instructions: n/a, never 0. */
        assert_false(isfinite(v[CTR_FFMA]) || isfinite(v[CTR_FADD]) || isfinite(v[CTR_FMUL]));
        static const counter_id shown[] = {CTR_DURATION_NS, CTR_SM_PCT, CTR_MEM_PCT, CTR_L1_PCT, CTR_L2_PCT,
                                           CTR_OCCUPANCY_PCT, CTR_DRAM_CYCLES_PER_SECOND};
        for (size_t j = 0; j < sizeof shown / sizeof shown[0]; j++)
            if (!isfinite(v[shown[j]]))
                fail_msg("launch %d: %s n/a", i, counter_key(shown[j]));
        /* "DRAM Throughput" is gpu__dram_throughput, not dram__throughput: not mapped. */
        assert_false(isfinite(v[CTR_DRAM_PCT]));
    }
    assert_int_equal(m.devices[0].cc_major, 9);
    model_free(&m);
}

/* A run of counters has no timeline: the reports say timing is n/a and judge no span of time. */
static void reports_of_an_import_have_no_timeline(void **state)
{
    (void)state;
    const char *text[] = {mmprof_bin(), "import", RAW, "--color", "never", NULL};
    cmd_result r = run_argv(text, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    assert_non_null(strstr(r.out, "Nsight Compute CSV export " RAW));
    assert_non_null(strstr(r.out, "Timing  GPU: none: an Nsight Compute CSV export holds each launch's counters"));
    assert_non_null(strstr(r.out, "Hardware counters  12 launches from Nsight Compute's CSV export"));
    static const char *const absent[] = {"Where the time went", "Timeline", "Verdicts", "No GPU activity"};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
        if (strstr(r.out, absent[i]))
            fail_msg("the report of a CSV of counters has '%s':\n%s", absent[i], r.out);
    cmd_free(&r);
    const char *md[] = {mmprof_bin(), "import", RAW, "--md", "-", NULL};
    r = run_argv(md, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Counters: the longest profiled launch"));
    assert_null(strstr(r.out, "**Verdict**"));
    cmd_free(&r);
}

/* Two ncu runs of the program: where both pages have a counter, they agree. */
static void raw_and_details_agree(void **state)
{
    (void)state;
    run_model raw, det;
    import_or_fail(RAW, &raw);
    import_or_fail(DETAILS, &det);
    int compared = 0;
    for (int i = 0; i < LAUNCHES; i++)
        for (int c = 0; c < CTR_COUNT; c++) {
            double a = raw.launch_counters[i].v[c], b = det.launch_counters[i].v[c];
            if (!isfinite(a) || !isfinite(b))
                continue;
            const char *key = counter_key((counter_id)c);
            bool pct = strstr(key, "_pct") != NULL;
            double off = pct ? fabs(a - b) : fabs(a - b) / fabs(a);
            double within = pct ? 2.0 : c == CTR_DURATION_NS ? 0.05 : 0.005;
            if (off > within)
                fail_msg("launch %d %s: raw %g, details %g", i, key, a, b);
            compared++;
        }
    assert_true(compared >= LAUNCHES * 7);
    model_free(&raw);
    model_free(&det);
}

/* mmprof's own counter pass (CUPTI's range profiler) of the same program against ncu's. */
static void agrees_with_mmprofs_own_counters(void **state)
{
    (void)state;
    run_model own;
    load_run(OWN_COUNTERS, &own);
    const char *pages[] = {RAW, DETAILS};
    for (int p = 0; p < 2; p++) {
        run_model ncu;
        import_or_fail(pages[p], &ncu);
        int compared = 0;
        for (int k = 0; k < 3; k++) {
            for (int c = 0; c < CTR_COUNT; c++) {
                double a = launch_median(&ncu, in_turn[k], (counter_id)c), b = launch_median(&own, in_turn[k], (counter_id)c);
                if (!isfinite(a) || !isfinite(b))
                    continue;
                const char *key = counter_key((counter_id)c);
                double within = c == CTR_FFMA || c == CTR_FADD || c == CTR_FMUL ? 0
                                : c == CTR_OCCUPANCY_PCT                       ? 2
                                : strstr(key, "_pct")                          ? 8
                                : c == CTR_DURATION_NS                         ? 0.10 * b
                                                                               : 0.01 * b;
                if (fabs(a - b) > within)
                    fail_msg("%s %s %s: ncu %g, mmprof %g", pages[p], in_turn[k], key, a, b);
                compared++;
            }
            /* Exact counts: every launch, not the median. */
            for (int i = 0; p == 0 && i < ncu.nlaunch_counters; i++) {
                char name[96];
                if (strcmp(base_name_of(&ncu.launch_counters[i], name, sizeof name), in_turn[k]) != 0)
                    continue;
                for (int c = CTR_FFMA; c <= CTR_FMUL; c++)
                    assert_true(ncu.launch_counters[i].v[c] == launch_median(&own, in_turn[k], (counter_id)c));
            }
        }
        assert_true(compared >= 3 * 7); /* occupancy, SM, memory, L1, L2, duration, DRAM clock at least */
        model_free(&ncu);
    }
    model_free(&own);
}

/* A unit with a prefix is converted to the counter's own; one of another kind leaves it n/a, said. */
static void units_are_converted_or_refused(void **state)
{
    const char *dir = *state;
    char *us = edited(dir, "us.csv", DETAILS, 1, "\"Duration\",\"ns\",\"24,096\"", "\"Duration\",\"usecond\",\"24.096\"");
    char *cycles = edited(dir, "cycles.csv", DETAILS, 1, "\"Duration\",\"ns\"", "\"Duration\",\"cycle\"");
    run_model m;
    import_or_fail(us, &m);
    assert_close(m.launch_counters[0].v[CTR_DURATION_NS], 24096, 1e-12);
    model_free(&m);
    import_or_fail(cycles, &m);
    assert_false(isfinite(m.launch_counters[0].v[CTR_DURATION_NS]));
    assert_true(isfinite(m.launch_counters[1].v[CTR_DURATION_NS]));
    bool said = false;
    for (int i = 0; i < m.nwarnings; i++)
        said |= strstr(m.warnings[i], "Duration (duration_ns) is given in 'cycle', not a unit of its kind: left n/a") != NULL;
    assert_true(said);
    model_free(&m);
    free(us), free(cycles);
}

/* ncu's demangled names and CUPTI's mangled ones meet. */
static void kernel_names_meet(void **state)
{
    (void)state;
    static const char *const same[][2] = {
        {"scale(const float *, float *, int)", "_Z5scalePKfPfi"},
        {"ffma_chain(float *, int)", "_Z10ffma_chainPfi"},
        {"void k<const float *>(const unsigned int *, int)", "void k<float const*>(unsigned int const*, int)"},
        {"ns::f(const ns::T<int> &)", "ns::f(ns::T<int> const&)"},
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        char *a = ncu_kernel_key(same[i][0]), *b = ncu_kernel_key(same[i][1]);
        if (strcmp(a, b) != 0)
            fail_msg("'%s' -> '%s', '%s' -> '%s'", same[i][0], a, same[i][1], b);
        free(a), free(b);
    }
    char *a = ncu_kernel_key("scale(float *, float *, int)"), *b = ncu_kernel_key("scale(const float *, float *, int)");
    assert_string_not_equal(a, b);
    free(a), free(b);
}

/* ---------- report RUN --ncu ---------- */

/* The section of text from the line starting `from` to the next line starting `to`. */
static char *section(const char *text, const char *from, const char *to)
{
    const char *a = strstr(text, from);
    assert_non_null(a);
    const char *b = strstr(a + strlen(from), to);
    assert_non_null(b);
    return strndup(a, (size_t)(b - a));
}

/* The n-th (from 0) kernel record of the run named like kernel, by start. */
static const kernel_event *nth_kernel(const run_model *m, const char *kernel, int n)
{
    const kernel_event *order[64];
    int k = 0;
    char name[96];
    for (size_t i = 0; i < m->events.nkernels && k < 64; i++) {
        kernel_display_name(m->events.kernels[i].name, name, sizeof name);
        if (strcmp(name, kernel) == 0)
            order[k++] = &m->events.kernels[i];
    }
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && order[j - 1]->start_ns > order[j]->start_ns; j--) {
            const kernel_event *t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    return n < k ? order[n] : NULL;
}

static void report_ncu_matches_every_launch(void **state)
{
    const char *dir = *state;
    char *json = path_in(dir, "with-ncu.json");
    const char *argv[] = {mmprof_bin(), "report", PROFILE, "--ncu", RAW, "--json", json, "--color", "never", NULL};
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    assert_non_null(strstr(r.err, "12 of its 12 launches matched to the run's kernels by name and launch order"));
    assert_non_null(strstr(r.out, "Hardware counters  12 launches from Nsight Compute's CSV export"));
    assert_non_null(strstr(r.out, "compute pipe (SM throughput 83% of peak)"));
    /* The launches were not replayed in this run: its wall-time account is as without --ncu. */
    const char *plain_argv[] = {mmprof_bin(), "report", PROFILE, "--color", "never", NULL};
    cmd_result plain = run_argv(plain_argv, NULL);
    assert_int_equal(plain.status, 0);
    char *with = section(r.out, "Where the time went", "Timeline"), *without = section(plain.out, "Where the time went", "Timeline");
    assert_string_equal(with, without);
    free(with), free(without);
    cmd_free(&plain);
    cmd_free(&r);

    run_model run, got;
    load_run(PROFILE, &run);
    load_run(json, &got);
    assert_program_order(&got);
    assert_string_equal(got.counters.from, RAW);
    own_count own[3];
    assert_int_equal(own_counts(own), 3);
    char name[96];
    for (int i = 0; i < LAUNCHES; i++) {
        const kernel_counters *k = &got.launch_counters[i];
        const kernel_event *e = nth_kernel(&run, in_turn[i % 3], i / 3);
        assert_non_null(e);
        assert_int_equal(k->correlation, e->correlation);
        assert_int_equal(k->pid, e->pid);
        for (int j = 0; j < 3; j++)
            if (strcmp(base_name_of(k, name, sizeof name), own[j].kernel) == 0)
                assert_true(k->v[own[j].c] == own[j].count);
    }
    model_free(&run);
    model_free(&got);
    free(json);
}

/* Runs report PROFILE --ncu csv --json into dir: the result, and the run file's launches in *m
 * (when it exits 0). */
static cmd_result report_with(const char *dir, const char *csv, run_model *m)
{
    char *json = path_in(dir, "out.json");
    unlink(json);
    const char *argv[] = {mmprof_bin(), "report", PROFILE, "--ncu", csv, "--json", json, "-q", NULL};
    cmd_result r = run_argv(argv, NULL);
    if (r.status == 0)
        load_run(json, m);
    else
        assert_int_not_equal(access(json, F_OK), 0); /* nothing written */
    free(json);
    return r;
}

static void report_ncu_says_what_did_not_match(void **state)
{
    const char *dir = *state;
    run_model run, m;
    load_run(PROFILE, &run);
    /* ncu profiled the first two launches alone (--launch-count 2). */
    char *two = lines_of(dir, "two.csv", RAW, 1, RAW_HEAD_LINES + 2, NULL);
    cmd_result r = report_with(dir, two, &m);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    assert_non_null(strstr(r.err, "2 of its 2 launches matched"));
    assert_non_null(strstr(r.err, "4 launches in the run, 1 in the CSV"));
    assert_int_equal(m.nlaunch_counters, 2);
    assert_int_equal(m.launch_counters[1].correlation, nth_kernel(&run, "scale", 0)->correlation);
    model_free(&m);
    cmd_free(&r);
    /* A launch of another shape is no launch of the run's. */
    char *shape = edited(dir, "shape.csv", RAW, RAW_HEAD_LINES + 1, "\"(528, 1, 1)\"", "\"(529, 1, 1)\"");
    r = report_with(dir, shape, &m);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "11 of its 12 launches matched"));
    assert_non_null(strstr(r.err, "launch ID 0 (ffma_chain(float *, int), grid 529x1x1"));
    assert_int_equal(m.launch_counters[0].correlation, nth_kernel(&run, "scale", 0)->correlation);
    model_free(&m);
    cmd_free(&r);
    /* Names the run does not have: nothing to give them to. */
    char *other = edited(dir, "other.csv", two, RAW_HEAD_LINES + 1, "ffma_chain(float *, int)", "ffma_chain(double *, int)");
    char *none = edited(dir, "none.csv", other, RAW_HEAD_LINES + 2, "scale(const float *", "scale(float *");
    r = report_with(dir, none, &m);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "none of its 2 launches matched a kernel of the run"));
    cmd_free(&r);
    r = report_with(dir, other, &m);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "1 launch of ffma_chain(double *, int): no kernel of that name in the run"));
    assert_int_equal(m.nlaunch_counters, 1);
    model_free(&m);
    cmd_free(&r);
    /* A run with counters of its own, and a built-in run, take none. */
    const char *taken[][2] = {{OWN_COUNTERS, "has hardware counters already"}, {"samples/h200-2048.json", "built-in"}};
    for (int i = 0; i < 2; i++) {
        const char *argv[] = {mmprof_bin(), "report", taken[i][0], "--ncu", RAW, "-q", "--text", "/dev/null", NULL};
        r = run_argv(argv, NULL);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, taken[i][1]));
        cmd_free(&r);
    }
    model_free(&run);
    free(two), free(shape), free(other), free(none);
}

/* --ncu needs a run of a program, and is never written over. */
static void ncu_option_where_it_applies(void **state)
{
    const char *dir = *state;
    const char *builtin[] = {mmprof_bin(), "--ncu", RAW, "--size", "64", NULL};
    cmd_result r = run_argv(builtin, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--ncu gives Nsight Compute's counters to the kernels of a program"));
    cmd_free(&r);
    char *csv = path_in(dir, "ncu.csv");
    r = run_shell("cp %s %s", RAW, csv);
    cmd_free(&r);
    const char *over[] = {mmprof_bin(), "report", PROFILE, "--ncu", csv, "--csv", csv, NULL};
    r = run_argv(over, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "would overwrite the --ncu file it reads"));
    cmd_free(&r);
    char *kept = read_file(csv, NULL), *raw = read_file(RAW, NULL);
    assert_string_equal(kept, raw);
    free(kept), free(raw), free(csv);
}

/* ---------- bad files ---------- */

/* import (or report --ncu) of input: exit 2, a message naming it with want, no output written. */
static void refused(const char *dir, bool attach, const char *input, const char *want)
{
    char *json = path_in(dir, "refused.json");
    assert_true(write_text(json, "previous contents\n"));
    const char *imp[] = {mmprof_bin(), "import", input, "--json", json, NULL};
    const char *rep[] = {mmprof_bin(), "report", PROFILE, "--ncu", input, "--json", json, NULL};
    cmd_result r = run_argv(attach ? rep : imp, NULL);
    if (r.status != 2 || !strstr(r.err, input) || !strstr(r.err, want))
        fail_msg("%s %s: exit %d, want 2 and '%s' with the file named: %s", attach ? "report --ncu" : "import", input,
                 r.status, want, r.err);
    char *kept = read_file(json, NULL);
    assert_string_equal(kept, "previous contents\n");
    free(kept);
    cmd_free(&r);
    free(json);
}

static void bad_files_are_refused(void **state)
{
    const char *dir = *state;
    char *plain = path_in(dir, "plain.csv");
    assert_true(write_text(plain, "a,b,c\n1,2,3\n"));
    char *nokernel = path_in(dir, "nokernel.csv");
    assert_true(write_text(nokernel, "\"ID\",\"Name\"\n\"0\",\"x\"\n"));
    char *log = path_in(dir, "log.csv");
    assert_true(write_text(log, "==PROF== Connected to process 1\nhello\n==PROF== Disconnected from process 1\n"));
    char *nounits = path_in(dir, "nounits.csv");
    {
        char *head = lines_of(dir, "head.csv", RAW, 1, RAW_HEAD_LINES - 1, NULL);
        char *row = lines_of(dir, "row.csv", RAW, RAW_HEAD_LINES + 1, RAW_HEAD_LINES + 1, NULL);
        char *a = read_file(head, NULL), *b = read_file(row, NULL);
        FILE *f = fopen(nounits, "w");
        fputs(a, f), fputs(b, f), fclose(f);
        free(a), free(b), free(head), free(row);
    }
    char *badnum = edited(dir, "badnum.csv", RAW, RAW_HEAD_LINES + 1, "\"553,648,128\"", "\"55x\"");
    char *quoted = lines_of(dir, "quoted.csv", RAW, 1, RAW_HEAD_LINES, "\"0\",\"588\",\"counter_ker");
    char *shortrow = lines_of(dir, "short.csv", RAW, 1, RAW_HEAD_LINES, "\"0\",\"588\",\"counter_kernels\"\n");
    char *nolaunch = lines_of(dir, "nolaunch.csv", RAW, 1, RAW_HEAD_LINES, NULL);
    char *twice = lines_of(dir, "twice.csv", RAW, 1, RAW_HEAD_LINES + 1, NULL);
    {
        char *row = lines_of(dir, "row.csv", RAW, RAW_HEAD_LINES + 1, RAW_HEAD_LINES + 1, NULL), *b = read_file(row, NULL);
        FILE *f = fopen(twice, "a");
        fputs(b, f), fclose(f);
        free(b), free(row);
    }
    refused(dir, false, plain, "or an Nsight Compute CSV export (ncu --csv)");
    refused(dir, false, nokernel, "line 1: not an Nsight Compute CSV export: its header has no \"ID\" and \"Kernel Name\"");
    refused(dir, false, log, "no header line starting \"ID\"");
    refused(dir, false, nounits, "line 10: expected the raw page's row of units");
    refused(dir, false, badnum, "line 11: smsp__sass_thread_inst_executed_op_ffma_pred_on.sum of launch ID 0: '55x' is not a number");
    refused(dir, false, quoted, "line 11: the file ends inside a quoted field (cut short?)");
    refused(dir, false, shortrow, "line 11: 3 fields where the header has 542 columns");
    refused(dir, false, nolaunch, "with no launches");
    refused(dir, false, twice, "line 12: launch ID 0 appears twice");
    refused(dir, true, plain, "no header line starting \"ID\"");
    refused(dir, true, badnum, "'55x' is not a number");
    free(plain), free(nokernel), free(log), free(nounits), free(badnum), free(quoted), free(shortrow), free(nolaunch),
        free(twice);
}

/* Two exports are not merged: nothing tells they are of one run. */
static void exports_are_imported_alone(void **state)
{
    (void)state;
    const char *argv[] = {mmprof_bin(), "import", RAW, DETAILS, "-q", "--text", "/dev/null", NULL};
    cmd_result r = run_argv(argv, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "an Nsight Compute CSV export is imported alone"));
    cmd_free(&r);
}

/* ---------- the content tells the format ---------- */

static const char *detected(const char *path)
{
    trace_input in;
    char err[512];
    if (!ti_open(&in, path, err, sizeof err))
        fail_msg("%s", err);
    const import_source *s = import_detect(&in, err, sizeof err);
    ti_close(&in);
    return s ? s->name : "(none)";
}

static void content_tells_the_format(void **state)
{
    const char *dir = *state;
    assert_string_equal(detected(RAW), "an Nsight Compute CSV export (ncu --csv)");
    assert_string_equal(detected(DETAILS), "an Nsight Compute CSV export (ncu --csv)");
    assert_string_equal(detected(KINETO), "a PyTorch profiler trace (JSON)");
    assert_string_equal(detected(NSYS), "an Nsight Systems SQLite export");
    /* Imported from CSV alone (ncu --import report.ncu-rep --csv): the header first. */
    char *bare = lines_of(dir, "bare.csv", RAW, RAW_HEAD_LINES - 1, 100, NULL);
    assert_string_equal(detected(bare), "an Nsight Compute CSV export (ncu --csv)");
    /* The test alone, on each other format's first bytes. */
    char *kineto = read_file(KINETO, NULL), *sqlite = read_file(NSYS, NULL);
    assert_false(ncu_csv_content(kineto, 4096));
    assert_false(ncu_csv_content(sqlite, 100));
    assert_false(ncu_csv_content("\"name\",\"value\"\n", 15));
    assert_true(ncu_csv_content("\xEF\xBB\xBF\"ID\",\"Process ID\"", 22));
    free(kineto), free(sqlite), free(bare);
    /* Names lie, content does not: a CSV named .json, piped and compressed. */
    char *json = path_in(dir, "named.json"), *out = path_in(dir, "out.json");
    cmd_result r = run_shell("cp %s %s && \"$MMPROF\" import %s -q --json %s && gzip -c %s | \"$MMPROF\" import - -q "
                             "--json %s", RAW, json, json, out, RAW, out);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    cmd_free(&r);
    run_model m;
    load_run(out, &m);
    assert_int_equal(m.source, SOURCE_NCU);
    assert_int_equal(m.nlaunch_counters, LAUNCHES);
    model_free(&m);
    free(json), free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(raw_page_gives_the_programs_counts),
        cmocka_unit_test(details_page_gives_the_same_launches),
        cmocka_unit_test(reports_of_an_import_have_no_timeline),
        cmocka_unit_test(raw_and_details_agree),
        cmocka_unit_test(agrees_with_mmprofs_own_counters),
        cmocka_unit_test_setup_teardown(units_are_converted_or_refused, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test(kernel_names_meet),
        cmocka_unit_test_setup_teardown(report_ncu_matches_every_launch, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(report_ncu_says_what_did_not_match, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(ncu_option_where_it_applies, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test_setup_teardown(bad_files_are_refused, temp_dir_setup, temp_dir_teardown),
        cmocka_unit_test(exports_are_imported_alone),
        cmocka_unit_test_setup_teardown(content_tells_the_format, temp_dir_setup, temp_dir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
