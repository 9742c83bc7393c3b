/* The CSV output: RFC 4180 (CRLF, quoting only where needed, every row as wide as the header),
 * every figure of the registry in the header with its unit, one row per region, per kernel and
 * copy kind of each listed region, per workload and per device, the figures as analysis computed
 * them and n/a as an empty field; and `--csv FILE` on the command line. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze.h"
#include "csv.h"
#include "model_json.h"
#include "sweep_model.h"
#include "tables.h"
#include "test_support.h"

#define MAX_FIELDS 2048
#define MAX_ROWS 4096

/* A parsed document: rows of fields (copies). Fails the test on anything RFC 4180 forbids. */
typedef struct {
    char *f[MAX_ROWS][MAX_FIELDS];
    int nf[MAX_ROWS];
    int nrows;
} csv_doc;

static csv_doc *parse(const char *s)
{
    csv_doc *d = calloc(1, sizeof *d);
    assert_non_null(d);
    char buf[4096];
    while (*s) {
        assert_true(d->nrows < MAX_ROWS);
        int r = d->nrows++;
        for (;;) {
            size_t n = 0;
            if (*s == '"') {
                for (s++;; s++) {
                    assert_true(*s != '\0'); /* an unclosed quote */
                    if (*s == '"' && s[1] == '"') {
                        buf[n++] = '"';
                        s++;
                    } else if (*s == '"') {
                        s++;
                        break;
                    } else {
                        buf[n++] = *s;
                    }
                }
            } else {
                while (*s && *s != ',' && *s != '\r' && *s != '\n') {
                    assert_true(*s != '"'); /* a quote inside an unquoted field */
                    buf[n++] = *s++;
                }
            }
            buf[n] = '\0';
            assert_true(d->nf[r] < MAX_FIELDS);
            d->f[r][d->nf[r]++] = strdup(buf);
            if (*s == ',') {
                s++;
                continue;
            }
            /* Every line ends CRLF, the last one too. */
            assert_true(s[0] == '\r' && s[1] == '\n');
            s += 2;
            break;
        }
    }
    return d;
}

static void doc_free(csv_doc *d)
{
    for (int r = 0; r < d->nrows; r++)
        for (int i = 0; i < d->nf[r]; i++)
            free(d->f[r][i]);
    free(d);
}

static int col(const csv_doc *d, const char *name)
{
    for (int i = 0; i < d->nf[0]; i++)
        if (strcmp(d->f[0][i], name) == 0)
            return i;
    fail_msg("no column '%s'", name);
    return -1;
}

static int count_rows(const csv_doc *d, const char *kind)
{
    int n = 0;
    for (int r = 1; r < d->nrows; r++)
        n += strcmp(d->f[r][0], kind) == 0;
    return n;
}

static void check_document(const analysis *a, const csv_doc *d)
{
    /* The header names every figure of every table, with its unit. */
    const metric_table *tables[] = {&region_metric_table, &kernel_stat_table, &copy_flow_table, &api_stat_table,
                                    &workload_metric_table, &device_peaks_table};
    const char *names[] = {"region", "kernel", "copy", "api", "workload", "device"};
    for (size_t t = 0; t < 6; t++)
        for (int i = 0; i < tables[t]->n; i++) {
            char want[96];
            const metric_def *def = &tables[t]->defs[i];
            if (def->unit[0])
                snprintf(want, sizeof want, "%s.%s (%s)", names[t], def->key, def->unit);
            else
                snprintf(want, sizeof want, "%s.%s", names[t], def->key);
            col(d, want);
        }
    for (int r = 1; r < d->nrows; r++)
        assert_int_equal(d->nf[r], d->nf[0]);
    /* Row counts: every region; kernels and copy kinds of each listed region; workloads; devices. */
    int kernels = 0, copies = 0, calls = 0;
    for (int li = 0; li < a->nlisted; li++) {
        kernels += a->rg[a->listed[li]].nkstats;
        copies += a->rg[a->listed[li]].nflows;
        calls += a->rg[a->listed[li]].napistats;
    }
    assert_int_equal(count_rows(d, "api"), calls);
    assert_int_equal(count_rows(d, "region"), a->nrg);
    assert_int_equal(count_rows(d, "kernel"), kernels);
    assert_int_equal(count_rows(d, "copy"), copies);
    assert_int_equal(count_rows(d, "workload"), a->nwl);
    assert_int_equal(count_rows(d, "device"), a->m->ndevices);
    /* Region rows carry the analysis's figures, empty where n/a, and nothing of other tables. */
    int wall = col(d, "region.wall_ms (ms)"), ratio = col(d, "region.copy_compute_ratio");
    int ktotal = col(d, "kernel.total_ms (ms)");
    for (int r = 1; r < d->nrows; r++) {
        if (strcmp(d->f[r][0], "region") != 0)
            continue;
        const region_metrics *rm = &a->rg[atoi(d->f[r][1])];
        assert_string_equal(d->f[r][2], a->m->regions[rm->region].name);
        assert_close(strtod(d->f[r][wall], NULL), rm->wall_ms.v, 1e-9);
        if (rm->copy_compute_ratio.ok)
            assert_close(strtod(d->f[r][ratio], NULL), rm->copy_compute_ratio.v, 1e-9);
        else
            assert_string_equal(d->f[r][ratio], "");
        assert_string_equal(d->f[r][ktotal], "");
    }
}

static char *csv_of(const run_model *m, analysis *a)
{
    assert_true(analyze(m, a));
    char *csv = render_csv(a);
    assert_non_null(csv);
    return csv;
}

static void builtin_run_by_hand(void **state)
{
    (void)state;
    run_model m;
    small_builtin_run(&m);
    analysis a;
    char *csv = csv_of(&m, &a);
    csv_doc *d = parse(csv);
    check_document(&a, d);
    /* cuda-naive (pageable): kernel 3.0 ms per product, copies 5.0 ms, copy:kern 5/3. */
    int name = col(d, "name"), k = col(d, "workload.kernel_ms (ms)"), r = col(d, "workload.copy_compute_ratio_per_product");
    bool seen = false;
    for (int i = 1; i < d->nrows; i++)
        if (strcmp(d->f[i][0], "workload") == 0 && strcmp(d->f[i][name], "cuda-naive (pageable)") == 0) {
            assert_close(strtod(d->f[i][k], NULL), 3.0, 1e-9);
            assert_close(strtod(d->f[i][r], NULL), 5.0 / 3.0, 1e-9);
            seen = true;
        }
    assert_true(seen);
    doc_free(d);
    free(csv);
    analysis_free(&a);
    model_free(&m);
}

/* A memset's row says it is one in the direction column (it has no direction), with the memory
 * it set. */
static void memset_row_says_memset(void **state)
{
    (void)state;
    run_model m;
    small_builtin_run(&m);
    add_device_memset(&m, 1 << 20);
    analysis a;
    char *csv = csv_of(&m, &a);
    csv_doc *d = parse(csv);
    check_document(&a, d);
    int dir = col(d, "direction"), mem = col(d, "host_memory"), bytes = col(d, "copy.bytes (B)");
    int memsets = 0;
    for (int i = 1; i < d->nrows; i++)
        if (strcmp(d->f[i][0], "copy") == 0 && strcmp(d->f[i][dir], "memset") == 0) {
            assert_string_equal(d->f[i][mem], "device");
            assert_close(strtod(d->f[i][bytes], NULL), 1 << 20, 0);
            memsets++;
        }
    assert_true(memsets > 0);
    doc_free(d);
    free(csv);
    analysis_free(&a);
    model_free(&m);
}

/* A sweep: each workload has a row per size, its n in the "n" column. */
static void sweep_rows_by_size(void **state)
{
    (void)state;
    run_model m;
    sweep_model(&m);
    analysis a;
    char *csv = csv_of(&m, &a);
    csv_doc *d = parse(csv);
    check_document(&a, d);
    int name = col(d, "name"), n = col(d, "n"), k = col(d, "workload.kernel_ms (ms)");
    int seen = 0;
    for (int i = 1; i < d->nrows; i++) {
        if (strcmp(d->f[i][0], "workload") != 0 || strcmp(d->f[i][name], "cublas-sgemm (pinned)") != 0)
            continue;
        int size = atoi(d->f[i][n]), s = 0;
        while (s < SWEEP_SIZES && sweep_n[s] != size)
            s++;
        assert_true(s < SWEEP_SIZES);
        assert_close(strtod(d->f[i][k], NULL), sweep_cublas_ms[s], 1e-6);
        seen |= 1 << s;
    }
    assert_int_equal(seen, (1 << SWEEP_SIZES) - 1);
    doc_free(d);
    free(csv);
    analysis_free(&a);
    model_free(&m);
}

/* A kernel name with a comma and quotes is one field, quoted, quotes doubled. */
static void names_are_quoted(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m);
    kernel_event k = m.events.kernels[1]; /* renamed through the store, which owns names */
    k.name = (char *)"gemm<float, \"tn\">\nline";
    assert_true(events_add_kernel(&m.events, &k));
    m.events.kernels[1] = m.events.kernels[--m.events.nkernels];
    analysis a;
    char *csv = csv_of(&m, &a);
    assert_non_null(strstr(csv, ",\"gemm<float, \"\"tn\"\">\nline\","));
    csv_doc *d = parse(csv);
    check_document(&a, d);
    int name = col(d, "name");
    bool seen = false;
    for (int i = 1; i < d->nrows; i++)
        seen |= strcmp(d->f[i][name], "gemm<float, \"tn\">\nline") == 0;
    assert_true(seen);
    doc_free(d);
    free(csv);
    analysis_free(&a);
    model_free(&m);
}

/* The recorded H200 run (loads once the run-file reader takes its schema). */
static void sample_run(void **state)
{
    (void)state;
    run_model m;
    load_sample(&m);
    analysis a;
    char *csv = csv_of(&m, &a);
    csv_doc *d = parse(csv);
    check_document(&a, d);
    doc_free(d);
    free(csv);
    analysis_free(&a);
    model_free(&m);
}

/* `mmprof report RUN --csv FILE` writes it; the same path for two outputs is refused. */
static void command_line_writes_it(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_non_null(dir);
    char run[600], out[600];
    snprintf(run, sizeof run, "%s/run.json", dir);
    snprintf(out, sizeof out, "%s/figures.csv", dir);
    run_model m;
    small_builtin_run(&m);
    cJSON *j = model_to_json(&m);
    char *text = cJSON_Print(j);
    assert_true(write_text(run, text));
    free(text);
    cJSON_Delete(j);
    model_free(&m);
    const char *argv[] = {mmprof_bin(), "report", run, "--quiet", "--csv", out, NULL};
    cmd_result r = run_argv(argv, NULL);
    if (r.status != 0)
        fail_msg("mmprof exited %d: %s", r.status, r.err);
    cmd_free(&r);
    char *csv = read_file(out, NULL);
    assert_non_null(csv);
    assert_true(strncmp(csv, "row,region_index,region,", 24) == 0);
    free(csv);
    const char *twice[] = {mmprof_bin(), "report", run, "--quiet", "--csv", out, "--html", out, NULL};
    r = run_argv(twice, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "is named for two outputs"));
    cmd_free(&r);
    rm_rf(dir);
    free(dir);
}

/* The registry's tables, walked: each one the CSV carries has every column in the header of a
 * sample's CSV (the capture sample: it has streams, capture windows, accounts and memory), and
 * the ones it does not carry are exactly those listed here, each with why. A table added to the
 * registry without its CSV rows fails here. */
static void every_registry_table_reaches_the_csv(void **state)
{
    (void)state;
    static const char *const not_carried[] = {
        "compare",               /* mmprof compare's own output */
        "finding_ms", "finding_pct", "finding_x", "finding_runs", "finding_events", "finding_n",
        "finding_mb",            /* the summary's findings: sentences, in the text, JSON and page */
    };
    run_model m;
    char err[512];
    assert_true(model_read_file("samples/h200-profile-capture.json", &m, err, sizeof err));
    analysis a;
    assert_true(analyze(&m, &a));
    char *csv = render_csv(&a);
    assert_non_null(csv);
    char *end = strstr(csv, "\r\n");
    assert_non_null(end);
    *end = '\0';
    for (int i = 0; i < metric_ntables; i++) {
        const metric_table *t = metric_tables[i];
        const table_decl *d = table_of_figures(t);
        const char *row_name = d ? d->name : NULL;
        bool listed = false;
        for (size_t k = 0; k < sizeof not_carried / sizeof not_carried[0]; k++)
            listed |= strcmp(t->name, not_carried[k]) == 0;
        if (!row_name) {
            if (!listed)
                fail_msg("registry table %s reaches no CSV row", t->name);
            continue;
        }
        if (listed)
            fail_msg("table %s is carried: take it off the list", t->name);
        for (int c = 0; c < t->n; c++) {
            char col[160];
            if (t->defs[c].unit[0])
                snprintf(col, sizeof col, "%s.%s (%s)", row_name, t->defs[c].key, t->defs[c].unit);
            else
                snprintf(col, sizeof col, "%s.%s", row_name, t->defs[c].key);
            if (!strstr(csv, col))
                fail_msg("column %s of table %s is not in the header", col, t->name);
        }
    }
    free(csv);
    analysis_free(&a);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin_run_by_hand),
        cmocka_unit_test(memset_row_says_memset),
        cmocka_unit_test(sweep_rows_by_size),
        cmocka_unit_test(names_are_quoted),
        cmocka_unit_test(sample_run),
        cmocka_unit_test(command_line_writes_it),
        cmocka_unit_test(every_registry_table_reaches_the_csv),
    };
    return cmocka_run_group_tests_name("csv", tests, NULL, NULL);
}
