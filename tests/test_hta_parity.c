/* mmprof against Holistic Trace Analysis (HTA) on mmprof's own committed PyTorch traces
 * (docs/hta-parity.md). HTA cannot run here, so its figures were recorded once by
 * tests/hta_parity.py into tests/data/hta_parity/expected.tsv (with the HTA commit and the call
 * that gave each); this checks what `mmprof import` gives for the same traces today against
 * them, where the doc says the definitions are the same: percentages within 0.1 point, times
 * within 0.1%. It also keeps the doc true: its table of these figures must show HTA's value and
 * mmprof's as they are now, and every registry key it names must exist. */
#include <glob.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "metric.h"
#include "test_support.h"

#define EXPECTED "tests/data/hta_parity/expected.tsv"
#define DOC "docs/hta-parity.md"
#define KERNEL_LABEL 48 /* a kernel name's first characters in the doc's table */

/* One figure of expected.tsv. */
typedef struct {
    const char *traces; /* '+'-joined paths of one job's traces */
    int rank;
    const char *figure; /* HTA's name for it */
    const char *kernel; /* a kernel name, or "-" */
    bool has_hta;       /* HTA gave a number (not NaN) */
    double hta;         /* in HTA's unit: us or % */
    const char *key;    /* mmprof's: "rank.span_ms", "region.gpu_busy_ms", "kernel.total_ms" */
    bool same;          /* the doc says the definitions are the same */
} parity_row;

/* What mmprof gives for one set of traces. */
typedef struct {
    const char *traces;
    cJSON *analysis; /* owned by root */
    cJSON *root;
} imported;

static char *tsv_text, *doc_text;
static parity_row *rows;
static int nrows;
static imported *runs;
static int nruns;

/* Splits line at tabs into at most n fields (in place); how many it found. */
static int split_tabs(char *line, char **f, int n)
{
    int k = 0;
    while (k < n) {
        f[k++] = line;
        char *tab = strchr(line, '\t');
        if (!tab)
            break;
        *tab = '\0';
        line = tab + 1;
    }
    return k;
}

/* expected.tsv: '#' comments, a header line, then traces, rank, figure, kernel, hta, key, same, call. */
static void load_rows(void)
{
    tsv_text = read_file(EXPECTED, NULL);
    assert_non_null(tsv_text);
    bool header = true;
    for (char *save = NULL, *line = strtok_r(tsv_text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        if (header) {
            header = false;
            continue;
        }
        char *f[8];
        if (split_tabs(line, f, 8) != 8)
            fail_msg("%s: a row without 8 fields: %s", EXPECTED, line);
        rows = realloc(rows, (size_t)(nrows + 1) * sizeof *rows);
        assert_non_null(rows);
        parity_row *r = &rows[nrows++];
        char *end;
        r->traces = f[0];
        r->rank = (int)strtol(f[1], &end, 10);
        r->figure = f[2];
        r->kernel = f[3];
        r->has_hta = f[4][0] != '\0';
        r->hta = r->has_hta ? strtod(f[4], &end) : 0;
        r->key = f[5];
        r->same = strcmp(f[6], "yes") == 0;
    }
    assert_true(nrows > 0);
}

/* `mmprof import` of one row's traces, once per set. */
static const cJSON *analysis_of(const char *traces)
{
    for (int i = 0; i < nruns; i++)
        if (strcmp(runs[i].traces, traces) == 0)
            return runs[i].analysis;
    char *json = path_in(test_tmp, "run.json");
    char *list = strdup(traces);
    assert_non_null(list);
    const char *argv[16] = {mmprof_bin(), "import"};
    int n = 2;
    for (char *save = NULL, *p = strtok_r(list, "+", &save); p && n < 12; p = strtok_r(NULL, "+", &save))
        argv[n++] = p;
    argv[n++] = "--json";
    argv[n++] = json;
    argv[n++] = "-q";
    argv[n] = NULL;
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 0)
        fail_msg("mmprof import %s: exit %d: %s", traces, r.status, r.err);
    cmd_free(&r);
    char *text = read_file(json, NULL);
    assert_non_null(text);
    runs = realloc(runs, (size_t)(nruns + 1) * sizeof *runs);
    assert_non_null(runs);
    imported *m = &runs[nruns++];
    m->traces = traces;
    m->root = cJSON_Parse(text);
    assert_non_null(m->root);
    m->analysis = cJSON_GetObjectItem(m->root, "analysis");
    free(text);
    free(list);
    free(json);
    return m->analysis;
}

/* The registry's definition of a row's key ("rank.span_ms": table "rank", key "span_ms"). */
static const metric_def *def_of(const char *key)
{
    char table[32];
    const char *dot = strchr(key, '.');
    if (!dot || (size_t)(dot - key) >= sizeof table)
        return NULL;
    snprintf(table, sizeof table, "%.*s", (int)(dot - key), key);
    const metric_table *t = metric_table_named(table);
    return t ? metric_find(t, dot + 1) : NULL;
}

/* mmprof's figure for a row, in HTA's unit (its milliseconds as microseconds): false when the
 * JSON has no such row or key; *have false when the figure is n/a (null). */
static bool mmprof_value(const parity_row *r, bool *have, double *v)
{
    const cJSON *a = analysis_of(r->traces), *item = NULL;
    const metric_def *d = def_of(r->key);
    const char *name = strchr(r->key, '.');
    if (!a || !d)
        return false;
    name++;
    const cJSON *region = cJSON_GetArrayItem(cJSON_GetObjectItem(a, "regions"), 0), *x;
    if (strncmp(r->key, "rank.", 5) == 0) {
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(cJSON_GetObjectItem(a, "ranks"), "rows")) {
            const cJSON *rank = cJSON_GetObjectItem(x, "rank");
            if (cJSON_IsNumber(rank) && rank->valueint == r->rank)
                item = cJSON_GetObjectItem(x, name);
        }
    } else if (strncmp(r->key, "region.", 7) == 0) {
        item = cJSON_GetObjectItem(region, name);
    } else {
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(region, "kernel_stats")) {
            const cJSON *kernel = cJSON_GetObjectItem(x, "name");
            if (cJSON_IsString(kernel) && strcmp(kernel->valuestring, r->kernel) == 0)
                item = cJSON_GetObjectItem(x, name);
        }
    }
    if (!item)
        return false;
    *have = cJSON_IsNumber(item);
    *v = *have ? item->valuedouble * (strcmp(d->unit, "ms") == 0 ? 1e3 : 1) : 0;
    return true;
}

/* Percentages within 0.1 point, times within 0.1%; both n/a agrees (no NCCL kernel to overlap). */
static bool agrees(const parity_row *r, bool have, double v)
{
    if (!r->has_hta || !have)
        return r->has_hta == have;
    if (strcmp(def_of(r->key)->unit, "%") == 0)
        return fabs(v - r->hta) <= 0.1;
    return fabs(v - r->hta) <= 1e-3 * fabs(r->hta) + 1e-9;
}

static int setup(void **state)
{
    test_tmp_setup(state);
    load_rows();
    doc_text = read_file(DOC, NULL);
    return doc_text ? 0 : -1;
}

static int teardown(void **state)
{
    for (int i = 0; i < nruns; i++)
        cJSON_Delete(runs[i].root);
    free(runs);
    free(rows);
    free(tsv_text);
    free(doc_text);
    return test_tmp_teardown(state);
}

/* Every figure whose definition is HTA's agrees with HTA's recorded value. */
static void figures_agree_with_hta(void **state)
{
    (void)state;
    int checked = 0, bad = 0;
    for (int i = 0; i < nrows; i++) {
        const parity_row *r = &rows[i];
        if (!def_of(r->key))
            fail_msg("%s: %s is no key of the metric registry", EXPECTED, r->key);
        if (!r->same)
            continue;
        bool have;
        double v;
        if (!mmprof_value(r, &have, &v))
            fail_msg("%s rank %d: mmprof's JSON has no %s%s%s", r->traces, r->rank, r->key,
                     strcmp(r->kernel, "-") ? " for kernel " : "", strcmp(r->kernel, "-") ? r->kernel : "");
        checked++;
        if (!agrees(r, have, v)) {
            bad++;
            printf("differs: %s rank %d %s %.40s: HTA %.6f, mmprof %s = %.6f\n", r->traces, r->rank, r->figure,
                   r->kernel, r->hta, r->key, have ? v : NAN);
        }
    }
    printf("%d figures checked against HTA's, %d differ\n", checked, bad);
    assert_true(checked > 0);
    assert_int_equal(bad, 0);
}

/* Each committed PyTorch trace (the samples named *.kineto.json) has HTA's figures recorded. */
static void every_sample_trace_is_covered(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob("samples/*.kineto.json", 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        bool seen = false;
        for (int k = 0; k < nrows && !seen; k++)
            seen = strstr(rows[k].traces, g.gl_pathv[i]) != NULL;
        if (!seen)
            fail_msg("%s has no HTA figures in %s: run tests/hta_parity.py --tsv", g.gl_pathv[i], EXPECTED);
    }
    globfree(&g);
}

static void number(char *buf, size_t len, bool have, double v)
{
    if (have)
        snprintf(buf, len, "%.3f", v);
    else
        snprintf(buf, len, "n/a");
}

/* The row as docs/hta-parity.md shows it (tests/hta_parity.py --markdown prints the same). */
static void doc_row(const parity_row *r, bool have, double v, char *buf, size_t len)
{
    char kernel[KERNEL_LABEL + 8], hta[32], mine[32];
    if (strcmp(r->kernel, "-") == 0)
        snprintf(kernel, sizeof kernel, "-");
    else
        snprintf(kernel, sizeof kernel, "`%.*s%s`", KERNEL_LABEL, r->kernel,
                 strlen(r->kernel) > KERNEL_LABEL ? "..." : "");
    number(hta, sizeof hta, r->has_hta, r->hta);
    number(mine, sizeof mine, have, v);
    snprintf(buf, len, "| %s | %d | %s | %s | %s | %s | `%s` | %s | %s |", r->traces, r->rank, r->figure, kernel,
             hta, mine, r->key, r->same ? "yes" : "no", agrees(r, have, v) ? "yes" : "no");
}

/* The doc's table shows HTA's recorded value and mmprof's current one for every figure. */
static void doc_shows_both_values(void **state)
{
    (void)state;
    int missing = 0;
    for (int i = 0; i < nrows; i++) {
        bool have = false;
        double v = 0;
        if (!mmprof_value(&rows[i], &have, &v))
            fail_msg("%s: mmprof's JSON has no %s", rows[i].traces, rows[i].key);
        char line[512];
        doc_row(&rows[i], have, v, line, sizeof line);
        if (!strstr(doc_text, line)) {
            missing++;
            printf("%s lacks: %s\n", DOC, line);
        }
    }
    if (missing)
        fail_msg("%d rows of %s are not in %s as they are now: tests/hta_parity.py --markdown prints them", missing,
                 EXPECTED, DOC);
}

/* Every `table.key` the doc names is a figure of the registry. */
static void doc_names_registry_keys(void **state)
{
    (void)state;
    int named = 0;
    for (const char *p = strchr(doc_text, '`'); p; p = strchr(p + 1, '`')) {
        const char *end = strchr(p + 1, '`');
        if (!end)
            break;
        char word[96];
        size_t n = (size_t)(end - p - 1);
        if (n < sizeof word) {
            snprintf(word, sizeof word, "%.*s", (int)n, p + 1);
            char table[32];
            const char *dot = strchr(word, '.');
            bool plain = dot && strspn(word, "abcdefghijklmnopqrstuvwxyz0123456789_.") == n;
            if (plain && (size_t)(dot - word) < sizeof table) {
                snprintf(table, sizeof table, "%.*s", (int)(dot - word), word);
                if (metric_table_named(table)) {
                    named++;
                    if (!def_of(word))
                        fail_msg("%s names `%s`, which is no figure of the registry (src/analysis/metrics.c)", DOC,
                                 word);
                }
            }
        }
        p = end;
    }
    assert_true(named > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(figures_agree_with_hta),
        cmocka_unit_test(every_sample_trace_is_covered),
        cmocka_unit_test(doc_shows_both_values),
        cmocka_unit_test(doc_names_registry_keys),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
