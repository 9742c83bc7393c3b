/* The summary (summary.c) on runs built here, where each finding's figure is worked out by hand,
 * and its place in every output: first in the text report, on the HTML page's first section,
 * first member of the JSON document. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze.h"
#include "html.h"
#include "json_report.h"
#include "test_support.h"
#include "text.h"

static const finding *find_kind(const analysis *a, finding_kind k)
{
    for (int i = 0; i < a->nsummary; i++)
        if (a->summary[i].kind == k)
            return &a->summary[i];
    return NULL;
}

/* small_builtin_run: 3 of 4 GPU runs copy-bound; pinned copies 0.9 ms against pageable 5.0 ms
 * (5.6x); cuda-naive at 0.5 / 3.0 = 16.7% of cublas-sgemm; crossover at 0.9 ms with one pinned
 * run (cublas-sgemm, 0.5 ms) below it; fastest end to end cublas-sgemm pinned, 10 / 1.4 = 7.1x. */
static void builtin_findings_by_hand(void **state)
{
    (void)state;
    run_model m;
    small_builtin_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_true(a.nsummary >= 6);
    const finding *f = find_kind(&a, FIND_COPY_BOUND);
    assert_non_null(f);
    assert_close(f->figure.v, 3, 0);
    assert_non_null(strstr(f->text, "3 of 4 GPU runs are copy-bound"));
    assert_non_null(strstr(f->text, "every pageable run, and 1 of 2 pinned ones"));
    f = find_kind(&a, FIND_PINNED);
    assert_non_null(f);
    assert_close(f->figure.v, 5.0 / 0.9, 1e-9);
    assert_string_equal(f->unit, "x");
    f = find_kind(&a, FIND_BEST_KERNEL);
    assert_non_null(f);
    assert_close(f->figure.v, 100.0 * 0.5 / 3.0, 1e-9);
    assert_non_null(strstr(f->text, "cuda-naive at 16.7% of cublas-sgemm"));
    f = find_kind(&a, FIND_CROSSOVER);
    assert_non_null(f);
    assert_close(f->figure.v, 0.9, 1e-9);
    assert_non_null(strstr(f->text, "1 of 2 pinned runs, from cublas-sgemm (0.500 ms)"));
    f = find_kind(&a, FIND_SPEEDUP);
    assert_non_null(f);
    assert_close(f->figure.v, 10.0 / 1.4, 1e-9);
    assert_non_null(strstr(f->text, "cublas-sgemm (pinned)"));
    assert_non_null(find_kind(&a, FIND_BUSY));
    assert_null(find_kind(&a, FIND_FAILED));
    /* Heaviest first, and the copy-bound count (3 of 4: weight 87.5) leads. */
    for (int i = 1; i < a.nsummary; i++)
        assert_true(a.summary[i - 1].weight >= a.summary[i].weight);
    assert_int_equal(a.summary[0].kind, FIND_COPY_BOUND);
    analysis_free(&a);
    model_free(&m);
}

/* A failed workload goes first, whatever else the run says. */
static void failure_leads(void **state)
{
    (void)state;
    run_model m;
    small_builtin_run(&m);
    m.builtin.workloads[2].status = WL_FAILED;
    analysis a;
    assert_true(analyze(&m, &a));
    assert_int_equal(a.summary[0].kind, FIND_FAILED);
    assert_non_null(strstr(a.summary[0].text, "1 of 5 workload runs failed (cuda-naive (pinned))"));
    analysis_free(&a);
    model_free(&m);
}

/* A profiled program: its verdict (copy-bound: the 30 ms copy holds that much of the run's wall, by
 * its wall-time account), where the GPU time went and its top kernel (gemm_kernel, 20 of 20.5 ms of
 * kernels). */
static void timeline_findings_by_hand(void **state)
{
    (void)state;
    run_model m;
    small_profiled_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_int_equal(a.summary[0].kind, FIND_VERDICT);
    assert_string_equal(a.summary[0].unit, "%");
    assert_close(a.summary[0].figure.v, 100.0 * 30 / a.rg[0].wall_ms.v, 1e-6);
    assert_non_null(strstr(a.summary[0].text, "copy-bound"));
    assert_non_null(strstr(a.summary[0].text, "Try: pin host memory"));
    const finding *f = find_kind(&a, FIND_TOP_KERNEL);
    assert_non_null(f);
    assert_close(f->figure.v, 100.0 * 20 / 20.5, 1e-9);
    assert_non_null(strstr(f->text, "gemm_kernel takes 97.6% of kernel time (10 launches"));
    f = find_kind(&a, FIND_GPU_TIME);
    assert_non_null(f);
    assert_close(f->figure.v, 100.0 * 20.5 / 50.5, 1e-9);
    assert_null(find_kind(&a, FIND_COPY_BOUND));
    analysis_free(&a);
    model_free(&m);
}

/* Every output shows the same findings, before anything else. */
static void every_output_opens_with_it(void **state)
{
    (void)state;
    run_model m;
    small_builtin_run(&m);
    analysis a;
    assert_true(analyze(&m, &a));
    char *text = text_report_of(&a);
    const char *sum = strstr(text, "\nSummary\n");
    assert_non_null(sum);
    const char *first_table = strstr(text, "\nWorkloads");
    assert_non_null(first_table);
    assert_true(sum < first_table);
    assert_non_null(strstr(sum, " 1. 3 of 4 GPU runs are copy-bound"));
    free(text);

    char *html = render_html(&a);
    assert_non_null(html);
    const char *sec = strstr(html, "<section id=\"findings\">");
    assert_non_null(sec);
    assert_true(sec < strstr(html, "<section id=\"ladder\">"));
    /* The deciding figure is marked with its place in the JSON, like every figure on the page. */
    const char *f = strstr(sec, "<li class=\"f-copy_bound\"><span class=\"fig\"><span class=\"num\" data-t=\"finding_runs\"");
    assert_non_null(f);
    assert_non_null(strstr(f, " data-u=\"0\">3</span><small> runs</small></span>"));
    free(html);

    char *json = render_json(&a);
    assert_non_null(json);
    const char *first = strchr(json, '"');
    assert_non_null(first);
    assert_true(strncmp(first, "\"summary\"", 9) == 0);
    assert_non_null(strstr(json, "\"kind\":\"copy_bound\""));
    free(json);
    analysis_free(&a);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin_findings_by_hand),
        cmocka_unit_test(failure_leads),
        cmocka_unit_test(timeline_findings_by_hand),
        cmocka_unit_test(every_output_opens_with_it),
    };
    return cmocka_run_group_tests_name("summary", tests, NULL, NULL);
}
