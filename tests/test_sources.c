/* The sources' descriptors (src/model/source.h): every source has a whole row, each row names its
 * source as the run file does, what a source cannot have reaches its figures as their reason, and
 * report/ asks the rows: no SOURCE_ value is named there. */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze.h"
#include "host_idle.h"
#include "import.h"
#include "model_json.h"
#include "source.h"
#include "test_support.h"

static bool filled(const char *s)
{
    return s && s[0];
}

/* Each source's row: its own value, every name filled in and its own, the run file's key read
 * back to the source; each group of figures either had or with why not; a value past the table
 * gets a row rather than memory past it. */
static void every_source_has_a_whole_row(void **state)
{
    (void)state;
    for (int s = 0; s < SOURCE_COUNT; s++) {
        const source_desc *d = &source_descs[s];
        if (!filled(d->key) || !filled(d->name) || !filled(d->one) || !filled(d->recorder) || !filled(d->api_calls))
            fail_msg("source %d: its row in src/model/source.c lacks a name (key, name, one, recorder, api_calls)", s);
        assert_int_equal(d->source, s);
        assert_ptr_equal(source_of((run_source)s), d);
        run_source back;
        assert_true(run_source_parse(d->key, &back));
        assert_int_equal(back, s);
        assert_string_equal(run_source_name((run_source)s), d->key);
        for (int t = 0; t < s; t++) {
            assert_string_not_equal(source_descs[t].key, d->key);
            assert_string_not_equal(source_descs[t].name, d->name);
            assert_string_not_equal(source_descs[t].one, d->one);
        }
        for (int f = 0; f < HAS_COUNT; f++) {
            const char *why = source_why_not((run_source)s, (source_figs)f);
            assert_true(why == NULL || filled(why));
            assert_int_equal(source_has((run_source)s, (source_figs)f), why == NULL);
        }
    }
    /* every group is one some source has: a group no source has is no capability */
    for (int f = 0; f < HAS_COUNT; f++) {
        bool some = false;
        for (int s = 0; s < SOURCE_COUNT; s++)
            some |= source_has((run_source)s, (source_figs)f);
        assert_true(some);
    }
    run_source none;
    assert_false(run_source_parse("no-such-source", &none));
    assert_ptr_equal(source_of(SOURCE_COUNT), &source_descs[SOURCE_BUILTIN]);
    assert_ptr_equal(source_of((run_source)-1), &source_descs[SOURCE_BUILTIN]);
}

/* What a source cannot have is n/a with its row's reason: a profiled program's and a PyTorch
 * trace's fastest copies (figures of the built-in workloads), and the trace's host samples. */
static void why_not_reaches_the_figures(void **state)
{
    (void)state;
    run_model m;
    char err[512];
    analysis a;
    assert_true(model_read_file("samples/h200-profile-cuda.json", &m, err, sizeof err));
    assert_int_equal(m.source, SOURCE_PROFILE);
    assert_true(analyze(&m, &a));
    assert_false(a.best_h2d_gbps.ok);
    assert_string_equal(metric_why(&a.best_h2d_gbps), source_why_not(SOURCE_PROFILE, HAS_WORKLOADS));
    assert_false(a.pinned_copy_x.ok);
    assert_string_equal(metric_why(&a.pinned_copy_x), source_why_not(SOURCE_PROFILE, HAS_WORKLOADS));
    assert_non_null(a.host);
    assert_true(a.host->collection.py_samples.ok || a.host->collection.cpu_samples.ok);
    analysis_free(&a);
    model_free(&m);

    assert_true(import_kineto("samples/h200-matmul-copies.kineto.json", &m, err, sizeof err));
    assert_int_equal(m.source, SOURCE_KINETO);
    assert_true(analyze(&m, &a));
    assert_string_equal(metric_why(&a.best_d2h_gbps), source_why_not(SOURCE_KINETO, HAS_WORKLOADS));
    assert_non_null(a.host);
    const host_collection *c = &a.host->collection;
    const metric *counted[] = {&c->py_samples, &c->cpu_samples, &c->rate_hz, &c->sites_skipped, &c->nogil_pct};
    for (size_t i = 0; i < sizeof counted / sizeof counted[0]; i++) {
        assert_false(counted[i]->ok);
        assert_string_equal(metric_why(counted[i]), source_why_not(SOURCE_KINETO, HAS_HOST_SAMPLES));
    }
    analysis_free(&a);
    model_free(&m);
}

/* report/ renders what the rows and the analysis say; it names no source. */
static void report_names_no_source(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob("report/*.[ch]", 0, NULL, &g), 0);
    assert_true(g.gl_pathc > 40);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char *text = read_file(g.gl_pathv[i], NULL);
        assert_non_null(text);
        const char *at = strstr(text, "SOURCE_");
        if (at) {
            int line = 1;
            for (const char *p = text; p < at; p++)
                line += *p == '\n';
            fail_msg("%s:%d names a source (%.24s): ask its row (source.h) or the analysis instead", g.gl_pathv[i],
                     line, at);
        }
        free(text);
    }
    globfree(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_source_has_a_whole_row),
        cmocka_unit_test(why_not_reaches_the_figures),
        cmocka_unit_test(report_names_no_source),
    };
    return cmocka_run_group_tests_name("sources", tests, NULL, NULL);
}
