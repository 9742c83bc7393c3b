/* The Markdown output (--md FILE): the committed samples rendered through the outputs table's row,
 * checked as GitHub-flavoured Markdown (every table with its alignment row, each row as wide as its
 * heading) and figure by figure against the JSON output of the same analysis: the verdict, each
 * finding, the wall-time accounts' states, the top kernels, the copies and the ranges. Then the
 * command line: --md writes the same document, and a missing argument, a missing directory and a
 * read-only file are refused with their names, leaving nothing behind. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "analyze.h"
#include "json_report.h"
#include "outputs.h"
#include "test_support.h"

#define TRAIN_SAMPLE "samples/h200-profile-train.json"
#define BUILTIN_SAMPLE "samples/h200-2048.json"
#define MAX_CELLS 16
#define TOP 10         /* rows of a top table (markdown.c's MD_TOP) */
#define MD_STATES 6 /* states per account (markdown.c's MD_ACCOUNT_ROWS) */

/* Text as a reader sees it: Markdown's backslash escapes removed. */
static void unescape(const char *s, char *out, size_t len)
{
    size_t n = 0;
    for (; *s && n + 1 < len; s++) {
        if (*s == '\\' && s[1] && strchr("\\`*_[]<>|#", s[1]))
            s++;
        out[n++] = *s;
    }
    out[n] = '\0';
}

/* The cells of a table row ("| a | b \| c |"), unescaped and trimmed; how many. */
static int cells(const char *line, char out[MAX_CELLS][1024])
{
    assert_true(line[0] == '|');
    int n = 0;
    const char *p = line + 1;
    while (*p && *p != '\n') {
        char raw[1024];
        size_t k = 0;
        for (; *p && *p != '\n' && !(*p == '|' && p[-1] != '\\'); p++)
            if (k + 1 < sizeof raw)
                raw[k++] = *p;
        raw[k] = '\0';
        assert_true(*p == '|'); /* every row ends with a pipe */
        p++;
        assert_true(n < MAX_CELLS);
        char *s = raw;
        while (*s == ' ')
            s++;
        size_t l = strlen(s);
        while (l > 0 && s[l - 1] == ' ')
            s[--l] = '\0';
        unescape(s, out[n++], 1024);
    }
    return n;
}

/* The line after the one that starts with head (NULL at the end). */
static const char *line_after(const char *doc, const char *head)
{
    const char *p = strstr(doc, head);
    if (!p)
        fail_msg("no line '%s'", head);
    p = strchr(p, '\n');
    return p && p[1] ? p + 1 : NULL;
}

/* The first table after the line that starts with head: its first data row (after the heading
 * and alignment rows). */
static const char *table_after(const char *doc, const char *head)
{
    const char *p = line_after(doc, head);
    while (p && *p != '|')
        p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
    assert_non_null(p);
    p = strchr(p, '\n') + 1; /* the alignment row */
    return strchr(p, '\n') + 1;
}

static const char *next_line(const char *p)
{
    const char *e = strchr(p, '\n');
    return e ? e + 1 : p + strlen(p);
}

/* Every table: a heading row, an alignment row of as many cells (---: for a figure), rows of as
 * many; a blank line before it. */
static int check_tables(const char *doc)
{
    int tables = 0;
    const char *prev = NULL;
    for (const char *p = doc; *p; prev = p, p = next_line(p)) {
        if (*p != '|' || (prev && *prev == '|'))
            continue;
        assert_true(prev && *prev == '\n');
        char c[MAX_CELLS][1024];
        int width = cells(p, c);
        const char *align = next_line(p);
        int n = cells(align, c);
        assert_int_equal(n, width);
        for (int i = 0; i < n; i++)
            assert_true(strcmp(c[i], "---") == 0 || strcmp(c[i], "---:") == 0);
        for (const char *r = next_line(align); *r == '|'; r = next_line(r))
            assert_int_equal(cells(r, c), width);
        tables++;
    }
    return tables;
}

/* Member key of o, a number (NaN, a failure, where the JSON lacks it). */
static double num(const cJSON *o, const char *key)
{
    double v = cJSON_GetNumberValue(cJSON_GetObjectItem(o, key));
    assert_false(isnan(v));
    return v;
}

static const char *str(const cJSON *o, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));
    if (!s)
        fail_msg("no string '%s'", key);
    return s;
}

/* A cell's figure against the JSON's, within the rounding of its format (decimals places). */
static void assert_cell(const char *cell, double want, int decimals)
{
    char *end;
    double got = strtod(cell, &end);
    if (end == cell || *end)
        fail_msg("cell '%s' is not a number (want %g)", cell, want);
    if (fabs(got - want) > 0.5 * pow(10, -decimals) + 1e-9)
        fail_msg("cell '%s' against the JSON's %.6f", cell, want);
}

/* Rows of the table after head against the JSON array rows: each row's count (column count_col)
 * and a figure (column fig_col, JSON key) as the JSON has them; the rows a top table leaves out
 * are said under it. */
static void check_top_table(const char *doc, const char *head, const cJSON *rows, int count_col, int fig_col,
                            const char *key, int top)
{
    const char *p = table_after(doc, head);
    int n = cJSON_GetArraySize(rows), shown = 0;
    for (; *p == '|'; p = next_line(p), shown++) {
        char c[MAX_CELLS][1024];
        cells(p, c);
        const cJSON *row = cJSON_GetArrayItem(rows, shown);
        assert_non_null(row);
        assert_cell(c[count_col], num(row, "count"), 0);
        assert_cell(c[fig_col], num(row, key), 3);
    }
    assert_int_equal(shown, n < top ? n : top);
    if (n > top) {
        char more[64];
        snprintf(more, sizeof more, "\n%d more ", n - top);
        assert_non_null(strstr(p, more));
    }
}

/* The wall-time accounts the report shows (not the listed regions'), each with its name, its
 * verdict and its largest states' times and shares as the JSON has them. */
static int check_accounts(const char *doc, const cJSON *accounts)
{
    int shown = 0;
    const cJSON *acc;
    cJSON_ArrayForEach(acc, accounts)
    {
        if (strcmp(str(acc, "scope"), "region") == 0)
            continue;
        char head[400], line[2048];
        snprintf(head, sizeof head, "**%s** (", str(acc, "name"));
        /* the heading as the reader sees it: find the line, unescaped, that starts so */
        const char *p = doc, *at = NULL;
        for (; *p && !at; p = next_line(p)) {
            size_t l = (size_t)(next_line(p) - p);
            char raw[2048];
            snprintf(raw, sizeof raw, "%.*s", (int)(l && p[l - 1] == '\n' ? l - 1 : l), p);
            unescape(raw, line, sizeof line);
            if (strncmp(line, head, strlen(head)) == 0)
                at = p;
        }
        if (!at)
            fail_msg("no account '%s'", head);
        char tail[64];
        snprintf(tail, sizeof tail, "): **%s**", str(acc, "verdict"));
        assert_non_null(strstr(line, tail));
        const char *r = next_line(next_line(next_line(next_line(at)))); /* blank, heading, alignment */
        const cJSON *states = cJSON_GetObjectItem(acc, "states");
        int k = 0;
        for (; *r == '|'; r = next_line(r), k++) {
            char c[MAX_CELLS][1024];
            cells(r, c);
            const cJSON *s = cJSON_GetArrayItem(states, k);
            assert_non_null(s);
            assert_cell(c[1], num(s, "ms"), 3);
            assert_cell(c[2], num(s, "share_pct"), 1);
        }
        int n = cJSON_GetArraySize(states);
        assert_int_equal(k, n < MD_STATES ? n : MD_STATES);
        shown++;
    }
    return shown;
}

/* The run analysed into a, rendered through the outputs table's "md" row. */
static char *markdown_of(const run_model *m, analysis *a)
{
    const output_def *row = output_named("md");
    assert_non_null(row);
    assert_string_equal(row->option, "--md");
    assert_true(analyze(m, a));
    char *doc = row->render(a);
    assert_non_null(doc);
    return doc;
}

/* The sample rendered through the table's "md" row, against the JSON output of its analysis. */
static void sample_against_json(const char *path, bool account_wanted, bool ranges_wanted)
{
    run_model m;
    load_run(path, &m);
    analysis a;
    char *doc = markdown_of(&m, &a);
    char *json_text = render_json(&a);
    assert_non_null(json_text);
    cJSON *j = cJSON_Parse(json_text);
    assert_non_null(j);
    const cJSON *an = cJSON_GetObjectItem(j, "analysis");

    assert_true(strncmp(doc, "## mmprof report\n", 17) == 0);
    int tables = check_tables(doc);

    /* The verdict: the run account's. */
    const cJSON *accounts = cJSON_GetObjectItem(an, "wall_accounts");
    const cJSON *run = cJSON_GetArrayItem(accounts, 0);
    assert_int_equal(run != NULL, account_wanted);
    if (run) {
        assert_string_equal(str(run, "scope"), "run");
        char line[2048], raw[2048];
        const char *p = strstr(doc, "\n**Verdict**: ");
        assert_non_null(p);
        p += strlen("\n**Verdict**: ");
        snprintf(raw, sizeof raw, "%.*s", (int)strcspn(p, "\n"), p);
        unescape(raw, line, sizeof line);
        assert_string_equal(line, str(run, "verdict_text"));
        assert_true(strncmp(line, str(run, "verdict"), strlen(str(run, "verdict"))) == 0);
        assert_true(check_accounts(doc, accounts) >= 1);
    }

    /* Each finding, numbered, as the JSON words it. */
    const cJSON *findings = cJSON_GetObjectItem(j, "summary");
    assert_true(cJSON_GetArraySize(findings) > 0);
    const char *p = line_after(doc, "### Summary");
    p = next_line(p); /* the blank line */
    int i = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, findings)
    {
        char want[2048], raw[2048], got[2048];
        snprintf(want, sizeof want, "%d. %s", ++i, str(f, "text"));
        snprintf(raw, sizeof raw, "%.*s", (int)strcspn(p, "\n"), p);
        unescape(raw, got, sizeof got);
        assert_string_equal(got, want);
        p = next_line(p);
    }

    /* The whole run's top tables. */
    const cJSON *run_region = cJSON_GetArrayItem(cJSON_GetObjectItem(an, "regions"), 0);
    assert_int_equal((int)num(run_region, "index"), 0);
    check_top_table(doc, "### Kernels by total time", cJSON_GetObjectItem(run_region, "kernel_stats"), 1, 2, "total_ms",
                    TOP);
    check_top_table(doc, "### Copies", cJSON_GetObjectItem(run_region, "copy_flows"), 2, 4, "ms", 1000);
    const cJSON *groups = cJSON_GetObjectItem(an, "range_groups");
    assert_int_equal(cJSON_GetArraySize(groups) > 0, ranges_wanted);
    if (ranges_wanted)
        check_top_table(doc, "### Ranges by total time", groups, 1, 2, "total_ms", TOP);
    else
        assert_null(strstr(doc, "### Ranges"));
    assert_true(tables >= 2);

    cJSON_Delete(j);
    free(json_text);
    free(doc);
    analysis_free(&a);
    model_free(&m);
}

/* A profiled PyTorch loop: the accounts of the run, the time before the first step and the steps. */
static void profiled_training_loop(void **state)
{
    (void)state;
    sample_against_json(TRAIN_SAMPLE, true, true);
}

/* The built-in 2048 run: no ranges grouped. */
static void builtin_2048(void **state)
{
    (void)state;
    sample_against_json(BUILTIN_SAMPLE, true, false);
}

/* A range's name with Markdown in it stays one cell, in code: a pipe escaped, a backtick and a line
 * end made harmless. */
static void names_stay_in_their_cell(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m);
    int train = 1;
    while (train < m.nregions && strcmp(m.regions[train].name, "train") != 0)
        train++;
    assert_true(train < m.nregions);
    free(m.regions[train].name);
    m.regions[train].name = strdup("step<f|`tn`>\n*x*");
    assert_non_null(m.regions[train].name);
    analysis a;
    char *doc = markdown_of(&m, &a);
    assert_non_null(strstr(doc, "\n| `step<f\\|'tn'> *x*` | 1 |"));
    assert_true(check_tables(doc) >= 3);
    free(doc);
    analysis_free(&a);
    model_free(&m);
}

/* `mmprof report RUN --md FILE` writes the document; a bad --md is refused with its name. */
static void command_line(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_non_null(dir);
    char *out = path_in(dir, "report.md"), *missing = path_in(dir, "no/report.md"), *ro = path_in(dir, "ro.md");
    const char *argv[] = {mmprof_bin(), "report", TRAIN_SAMPLE, "--quiet", "--md", out, NULL};
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 0)
        fail_msg("mmprof exited %d: %s", r.status, r.err);
    cmd_free(&r);
    char *written = read_file(out, NULL);
    assert_non_null(written);
    run_model m;
    load_run(TRAIN_SAMPLE, &m);
    analysis a;
    char *doc = markdown_of(&m, &a);
    assert_string_equal(written, doc); /* the binary's document is the one the row renders */
    free(doc);
    free(written);
    analysis_free(&a);
    model_free(&m);

    /* No value: named, exit 2. */
    const char *noarg[] = {mmprof_bin(), "report", TRAIN_SAMPLE, "--quiet", "--md", NULL};
    r = run_argv(noarg, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "'--md' needs a value"));
    cmd_free(&r);
    /* A folder that does not exist: named, exit 4, nothing made. */
    int before = dir_entries(dir, NULL);
    const char *nodir[] = {mmprof_bin(), "report", TRAIN_SAMPLE, "--quiet", "--md", missing, NULL};
    r = run_argv(nodir, NULL);
    assert_int_equal(r.status, 4);
    assert_non_null(strstr(r.err, "--md"));
    assert_non_null(strstr(r.err, missing));
    cmd_free(&r);
    /* A read-only file: named, exit 4, left as it was, no temporary beside it. */
    assert_true(write_text(ro, "old\n"));
    assert_int_equal(chmod(ro, 0444), 0);
    const char *rdonly[] = {mmprof_bin(), "report", TRAIN_SAMPLE, "--quiet", "--md", ro, NULL};
    r = run_argv(rdonly, NULL);
    assert_int_equal(r.status, 4);
    assert_non_null(strstr(r.err, ro));
    cmd_free(&r);
    char *kept = read_file(ro, NULL);
    assert_string_equal(kept, "old\n");
    free(kept);
    int temporaries;
    assert_int_equal(dir_entries(dir, &temporaries), before + 1);
    assert_int_equal(temporaries, 0);
    free(out);
    free(missing);
    free(ro);
    rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(profiled_training_loop),
        cmocka_unit_test(builtin_2048),
        cmocka_unit_test(names_stay_in_their_cell),
        cmocka_unit_test(command_line),
    };
    return cmocka_run_group_tests_name("markdown", tests, NULL, NULL);
}
