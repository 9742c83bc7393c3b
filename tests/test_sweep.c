/* Sweeps: the crossover rule on series with known crossings, the sweep analysis of a synthetic
 * sweep whose times the test sets (tests/sweep_model.h), and its text and JSON sections. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "html.h"
#include "json_report.h"
#include "sweep_model.h"
#include "test_support.h"
#include "text.h"

/* The crossing between sizes a and b with GPU/CPU ratios ra >= 1 > rb, worked out here on its
 * own: log-log linear interpolation. */
static double expected_crossing(double a, double b, double ra, double rb)
{
    return a * pow(b / a, log(ra) / (log(ra) - log(rb)));
}

static void crossing_between_sizes(void **state)
{
    (void)state;
    const int n[] = {100, 1000, 10000};
    const double cpu[] = {1, 10, 100};
    const double gpu[] = {2, 5, 20}; /* ratio 2, 0.5, 0.2 */
    double at = 0;
    int k = -1;
    assert_int_equal(crossover_of(n, gpu, cpu, 3, &at, &k), CROSS_AT);
    assert_int_equal(k, 0);
    assert_close(at, sqrt(100.0 * 1000.0), 1e-12); /* ratios 2 and 1/2: the geometric middle */
    assert_close(at, expected_crossing(100, 1000, 2, 0.5), 1e-12);
}

static void crossing_exactly_at_a_size(void **state)
{
    (void)state;
    const int n[] = {64, 128, 256};
    const double cpu[] = {1, 8, 64};
    const double gpu[] = {4, 8, 16}; /* equal at 128, ahead after */
    double at = 0;
    int k = -1;
    assert_int_equal(crossover_of(n, gpu, cpu, 3, &at, &k), CROSS_AT);
    assert_int_equal(k, 1);
    assert_close(at, 128, 0);
}

static void below_and_beyond_the_range(void **state)
{
    (void)state;
    const int n[] = {64, 128, 256};
    const double cpu[] = {1, 8, 64};
    const double ahead[] = {0.5, 1, 2};
    const double behind[] = {2, 16, 65}; /* never crosses */
    const double late[] = {2, 4, 70};   /* ahead in the middle, behind at the end */
    double at = 0;
    int k = -1;
    assert_int_equal(crossover_of(n, ahead, cpu, 3, &at, &k), CROSS_BELOW_RANGE);
    assert_int_equal(crossover_of(n, behind, cpu, 3, &at, &k), CROSS_BEYOND_RANGE);
    assert_int_equal(crossover_of(n, late, cpu, 3, &at, &k), CROSS_BEYOND_RANGE);
    assert_int_equal(crossover_of(n, ahead, cpu, 0, &at, &k), CROSS_UNKNOWN);
}

/* Ahead, behind, then ahead for good: the crossing is the last one. */
static void the_last_crossing_counts(void **state)
{
    (void)state;
    const int n[] = {64, 128, 256, 512};
    const double cpu[] = {1, 8, 64, 512};
    const double gpu[] = {0.5, 16, 32, 64};
    double at = 0;
    int k = -1;
    assert_int_equal(crossover_of(n, gpu, cpu, 4, &at, &k), CROSS_AT);
    assert_int_equal(k, 1);
    assert_close(at, expected_crossing(128, 256, 2, 0.5), 1e-12);
}

static int analysed(void **state)
{
    run_model *m = malloc(sizeof *m);
    analysis *a = malloc(sizeof *a);
    sweep_model(m);
    if (!analyze(m, a))
        return -1;
    void **both = malloc(2 * sizeof *both);
    both[0] = m, both[1] = a;
    *state = both;
    return 0;
}

static int freed(void **state)
{
    void **both = *state;
    analysis_free(both[1]);
    model_free(both[0]);
    free(both[0]);
    free(both[1]);
    free(both);
    return 0;
}

static const analysis *the_analysis(void **state)
{
    return ((void **)*state)[1];
}

static double ratio_at(const double *gpu_kernel, const double *copy, int k)
{
    return (gpu_kernel[k] + copy[k]) / sweep_cpu_ms[k];
}

static void sweep_of_the_synthetic_run(void **state)
{
    const analysis *a = the_analysis(state);
    const sweep_analysis *s = a->sweep;
    assert_non_null(s);
    assert_int_equal(s->nsizes, SWEEP_SIZES);
    for (int k = 0; k < SWEEP_SIZES; k++)
        assert_int_equal(s->sizes[k], sweep_n[k]);
    assert_int_equal(s->nseries, 6); /* the CPU, two workloads x two kinds, TF32 pinned */
    assert_true(s->cpu >= 0);
    assert_string_equal(s->series[s->cpu].name, "cpu-openblas");
    /* The fastest FP32 GPU workload everywhere is cuBLAS: TF32, faster still, is not counted. */
    for (int slot = 0; slot < 2; slot++)
        for (int k = 0; k < SWEEP_SIZES; k++) {
            assert_string_equal(s->series[s->best_e2e[slot][k]].name, "cublas-sgemm");
            assert_string_equal(s->series[s->best_kernel[slot][k]].name, "cublas-sgemm");
            assert_int_equal(s->series[s->best_e2e[slot][k]].mem, slot ? MEM_PINNED : MEM_PAGEABLE);
        }
    /* Each point is its own size's workload: TFLOP/s from that n. */
    const sweep_series *cub = &s->series[s->best_kernel[1][0]];
    for (int k = 0; k < SWEEP_SIZES; k++)
        assert_close(cub->pts[k].tflops.v, 2.0 * pow(sweep_n[k], 3) / (sweep_cublas_ms[k] * 1e9), 1e-6);

    /* Pinned, end to end: behind at 256, ahead from 512. */
    const crossover *pin = &s->cross[0];
    assert_int_equal(pin->mem, MEM_PINNED);
    assert_true(pin->e2e);
    assert_int_equal(pin->kind, CROSS_AT);
    assert_int_equal(pin->below, 256);
    assert_int_equal(pin->above, 512);
    assert_string_equal(pin->workload, "cublas-sgemm");
    assert_close(pin->n.v, expected_crossing(256, 512, ratio_at(sweep_cublas_ms, sweep_pinned_copy_ms, 0),
                                             ratio_at(sweep_cublas_ms, sweep_pinned_copy_ms, 1)), 1e-5);
    /* Pageable, end to end: the copies keep the GPU behind up to 1024. */
    const crossover *page = &s->cross[1];
    assert_int_equal(page->kind, CROSS_AT);
    assert_int_equal(page->below, 1024);
    assert_close(page->n.v, expected_crossing(1024, 2048, ratio_at(sweep_cublas_ms, sweep_pageable_copy_ms, 2),
                                              ratio_at(sweep_cublas_ms, sweep_pageable_copy_ms, 3)), 1e-5);
    /* Kernels alone: ahead already at the smallest size. */
    assert_int_equal(s->cross[2].kind, CROSS_BELOW_RANGE);
    assert_false(s->cross[2].n.ok);
    assert_non_null(strstr(metric_why(&s->cross[2].n), "below the range"));

    char line[1024], want[128];
    sweep_headline(s, line, sizeof line);
    snprintf(want, sizeof want, "with pinned copies the GPU pays off from n = %.0f", pin->n.v);
    assert_non_null(strstr(line, want));
    snprintf(want, sizeof want, "with pageable copies from n = %.0f", page->n.v);
    assert_non_null(strstr(line, want));
    assert_non_null(strstr(line, "below the range"));
}

/* The per-workload figures compare with cpu-openblas at the workload's own n. */
static void speedups_at_the_same_size(void **state)
{
    const analysis *a = the_analysis(state);
    int checked = 0;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        if (strcmp(r->w->name, "cublas-sgemm") != 0 || r->w->host_memory != MEM_PINNED)
            continue;
        int k = 0;
        while (sweep_n[k] != r->w->n)
            k++;
        assert_close(r->speedup.v, sweep_cpu_ms[k] / sweep_cublas_ms[k], 1e-6);
        assert_close(r->tflops.v, 2.0 * pow(r->w->n, 3) / (sweep_cublas_ms[k] * 1e9), 1e-6);
        checked++;
    }
    assert_int_equal(checked, SWEEP_SIZES);
}

/* A run of one size has no sweep. */
static void one_size_no_sweep(void **state)
{
    (void)state;
    run_model m;
    analysis a;
    load_sample(&m);
    assert_true(analyze(&m, &a));
    assert_null(a.sweep);
    analysis_free(&a);
    model_free(&m);
}

static void text_section(void **state)
{
    const analysis *a = the_analysis(state);
    char *t = text_report_of(a);
    char want[160];
    snprintf(want, sizeof want, "with pinned copies the GPU pays off from n = %.0f", a->sweep->cross[0].n.v);
    const char *sweep = strstr(t, "Sweep  ");
    assert_non_null(sweep);
    /* The answer first: before every table of the report. */
    assert_true(strstr(t, "Workloads") > sweep);
    char flat[1024];
    size_t j = 0;
    for (const char *p = sweep; *p && j + 1 < sizeof flat && strncmp(p, "\n\n", 2) != 0; p++)
        if (*p != '\n')
            flat[j++] = *p;
        else
            while (p[1] == ' ')
                p++;
    flat[j] = '\0';
    if (!strstr(flat, want))
        fail_msg("'%s' not in '%s'", want, flat);
    /* The per-size table: a row per size with cuBLAS named the fastest. */
    const char *table = strstr(t, "CPU against the fastest FP32 GPU workload");
    assert_non_null(table);
    for (int k = 0; k < SWEEP_SIZES; k++) {
        char row[16];
        snprintf(row, sizeof row, "\n%6d ", sweep_n[k]);
        assert_non_null(strstr(table, row));
    }
    assert_non_null(strstr(table, "cublas-sgemm"));
    /* TFLOP/s per size: the noisy CPU point (2.5 % at 2048, limit 0.5 %) is marked. */
    const char *tf = strstr(t, "TFLOP/s per size");
    assert_non_null(tf);
    const char *cpu = strstr(tf, "\ncpu-openblas");
    assert_non_null(cpu);
    const char *eol = strchr(cpu + 1, '\n');
    assert_non_null(eol);
    assert_true(eol[-1] == '*');
    assert_true(memchr(cpu + 1, '*', (size_t)(eol - cpu - 2)) == NULL);
    /* Every line fits 100 columns. */
    for (const char *p = t; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > TEXT_WIDTH)
            fail_msg("line of %zu columns: %.*s", len, (int)len, p);
        p += len + (e != NULL);
    }
    /* The workload tables head each size. */
    assert_non_null(strstr(t, "\nn = 1024\n"));
    free(t);
}

static void json_section(void **state)
{
    const analysis *a = the_analysis(state);
    char *text = render_json(a);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    const cJSON *sw = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "analysis"), "sweep");
    assert_non_null(sw);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(sw, "sizes")), SWEEP_SIZES);
    const cJSON *series = cJSON_GetObjectItem(sw, "series");
    assert_int_equal(cJSON_GetArraySize(series), a->sweep->nseries);
    const cJSON *ser;
    cJSON_ArrayForEach(ser, series) {
        const cJSON *pts = cJSON_GetObjectItem(ser, "points");
        assert_int_equal(cJSON_GetArraySize(pts), SWEEP_SIZES);
        const cJSON *p;
        int k = 0;
        cJSON_ArrayForEach(p, pts) {
            assert_int_equal(cJSON_GetObjectItem(p, "n")->valueint, sweep_n[k++]);
            /* Every registered figure: a number, or null with its reason. */
            for (int d = 0; d < sweep_point_table.n; d++) {
                const cJSON *v = cJSON_GetObjectItem(p, sweep_point_table.defs[d].key);
                assert_non_null(v);
                if (cJSON_IsNull(v))
                    assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "not_available"),
                                                        sweep_point_table.defs[d].key));
                else
                    assert_true(cJSON_IsNumber(v));
            }
        }
    }
    const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(sw, "crossovers"), 0);
    assert_string_equal(cJSON_GetObjectItem(c0, "kind")->valuestring, "at");
    assert_string_equal(cJSON_GetObjectItem(c0, "host_memory")->valuestring, "pinned");
    assert_string_equal(cJSON_GetObjectItem(c0, "basis")->valuestring, "e2e");
    assert_close(cJSON_GetObjectItem(c0, "n")->valuedouble, a->sweep->cross[0].n.v, 1e-12);
    const cJSON *c2 = cJSON_GetArrayItem(cJSON_GetObjectItem(sw, "crossovers"), 2);
    assert_string_equal(cJSON_GetObjectItem(c2, "kind")->valuestring, "below_range");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(c2, "n")));
    /* The workloads carry their own n and sampling. */
    const cJSON *w3 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "builtin"), "workloads"), 3);
    assert_true(cJSON_GetObjectItem(w3, "n")->valueint == sweep_n[0]);
    assert_string_equal(cJSON_GetObjectItem(w3, "stopped_by")->valuestring, "noise");
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(w3, "metrics"), "noise_pct")));
    cJSON_Delete(root);
    free(text);
}

/* --cold-l2's flush is a memset between launches in the compute phase: the GPU is busy then. */
static void flush_memsets_count_as_busy(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    m.builtin.n = 64;
    m.devices = calloc(1, sizeof *m.devices);
    m.ndevices = 1;
    int64_t t = 1000000000000LL, ms = 1000000;
    workload_run *w = model_add_workload(&m);
    copy_str(w->name, sizeof w->name, "cublas-sgemm");
    w->needs_gpu = true;
    w->host_memory = MEM_PINNED;
    w->device = 0;
    w->repeat = 1;
    w->status = WL_OK;
    sweep_phase(w, "copy-in", t, t + ms);
    sweep_phase(w, "compute", t + ms, t + 3 * ms);
    sweep_phase(w, "copy-out", t + 3 * ms, t + 4 * ms);
    copy_event in = {.dir = COPY_H2D, .src = MEM_PINNED, .dst = MEM_DEVICE, .bytes = 1, .start_ns = t, .end_ns = t + ms};
    copy_event out = {.dir = COPY_D2H, .src = MEM_DEVICE, .dst = MEM_PINNED, .bytes = 1, .start_ns = t + 3 * ms,
                      .end_ns = t + 4 * ms};
    memset_event flush = {.mem = MEM_DEVICE, .bytes = 1 << 20, .start_ns = t + ms, .end_ns = t + ms + ms / 2};
    kernel_event k = {.name = "k", .start_ns = t + ms + ms / 2, .end_ns = t + 3 * ms};
    workload_add_copy(w, &in);
    workload_add_copy(w, &out);
    workload_add_memset(w, &flush);
    workload_add_kernel(w, &k);
    assert_true(model_finish_regions(&m, "t"));
    analysis a;
    assert_true(analyze(&m, &a));
    assert_close(a.wl[0].busy_pct.v, 100.0, 1e-12);
    assert_close(a.wl[0].gap_ms.v, 0, 0);
    analysis_free(&a);
    model_free(&m);
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void html_section(void **state)
{
    const analysis *a = the_analysis(state);
    char *page = render_html(a);
    assert_non_null(page);
    const char *sec = strstr(page, "<section id=\"sweep\">");
    assert_non_null(sec);
    const char *end = strstr(sec, "</section>");
    assert_non_null(end);
    size_t len = (size_t)(end - sec);
    char *s = strndup(sec, len);
    char want[160];
    snprintf(want, sizeof want, "with pinned copies the GPU pays off from n = %.0f", a->sweep->cross[0].n.v);
    assert_non_null(strstr(s, want));
    assert_non_null(strstr(s, "sweep-time"));
    assert_non_null(strstr(s, "sweep-tflops"));
    /* Two crossovers fall inside the range (pinned and pageable, end to end), each marked where
     * it falls; the kernel one is below the range, so not drawn. */
    assert_int_equal(count_of(s, "class=\"crossover\""), 2);
    snprintf(want, sizeof want, "pinned e2e: n = <tspan data-t=\"crossover\" data-fig=\"analysis.sweep.crossovers[0].n\" "
             "data-u=\"0\">%.0f</tspan>", a->sweep->cross[0].n.v);
    assert_non_null(strstr(s, want));
    /* The time chart: four lines (CPU, kernel, pinned and pageable e2e), a dot per size each;
     * the TFLOP/s chart: the CPU and the three pinned GPU workloads. */
    const char *tf = strstr(s, "sweep-tflops");
    char *time_part = strndup(s, (size_t)(tf - s));
    assert_int_equal(count_of(time_part, "<path class=\"ser\""), 4);
    assert_int_equal(count_of(time_part, "<circle"), 4 * SWEEP_SIZES);
    assert_int_equal(count_of(tf, "<path class=\"ser\""), 4);
    free(time_part);
    /* The table: a row per size. */
    assert_int_equal(count_of(s, "<tr><td class=\"r\">"), SWEEP_SIZES);
    free(s);
    /* The per-workload sections show the largest size only, each saying so: a card, a timeline
     * and a kernel row per workload at every size made the committed sweep's page 6.8 MB. Each
     * card names its size and its sampling. */
    int largest = a->sweep->sizes[a->sweep->nsizes - 1];
    assert_int_equal(a->sweep->detail_n, largest);
    snprintf(want, sizeof want, "<span class=\"quiet\">n = %d</span>", largest);
    assert_non_null(strstr(page, want));
    for (int k = 0; k + 1 < a->sweep->nsizes; k++) {
        snprintf(want, sizeof want, "<span class=\"quiet\">n = %d</span>", a->sweep->sizes[k]);
        assert_null(strstr(page, want));
    }
    snprintf(want, sizeof want, "<p class=\"sweep-size\"><b>n = %d</b>, the sweep's largest size.", largest);
    assert_true(count_of(page, want) >= 4); /* ladder, copies, timeline, workloads, speedup, kernels */
    assert_non_null(strstr(page, "1 sample, stopped by noise"));
    free(page);

    /* A single-size run has no sweep section. */
    run_model m;
    analysis one;
    load_sample(&m);
    assert_true(analyze(&m, &one));
    page = render_html(&one);
    assert_null(strstr(page, "id=\"sweep\""));
    free(page);
    analysis_free(&one);
    model_free(&m);
}

/* The committed H200 sweep (64:8192, every default workload; xz-compressed: 44 MB of JSON): each
 * crossover the analysis reports is checked against the workloads' own per-product times, found
 * here by another path: at each size the fastest FP32 GPU run of the memory kind (end to end or
 * kernel only) against cpu-openblas, and the crossing interpolated log-log between the two sizes
 * around it. */
#define SWEEP_SAMPLE "samples/h200-sweep-64-8192.json.xz"

static double best_gpu_ms(const analysis *a, int n, mem_kind mem, bool e2e)
{
    double best = 0;
    for (int i = 0; i < a->nwl; i++) {
        const workload_metrics *r = &a->wl[i];
        const workload_run *w = r->w;
        const metric *t = e2e ? &r->e2e_ms : &r->kernel_ms;
        if (w->n == n && w->needs_gpu && w->status == WL_OK && w->prec == PREC_FP32 && w->host_memory == mem && t->ok &&
            (best == 0 || t->v < best))
            best = t->v;
    }
    return best;
}

static double cpu_ms(const analysis *a, int n)
{
    for (int i = 0; i < a->nwl; i++)
        if (!a->wl[i].w->needs_gpu && a->wl[i].w->n == n && a->wl[i].kernel_ms.ok)
            return a->wl[i].kernel_ms.v;
    return 0;
}

static void committed_h200_sweep(void **state)
{
    (void)state;
    run_model m;
    load_run(SWEEP_SAMPLE, &m);
    analysis a;
    assert_true(analyze(&m, &a));
    assert_non_null(a.sweep);
    assert_int_equal(a.sweep->nsizes, 8);
    int checked = 0;
    for (int c = 0; c < a.sweep->ncross; c++) {
        const crossover *x = &a.sweep->cross[c];
        if (x->kind != CROSS_AT || x->below == x->above)
            continue;
        double g0 = best_gpu_ms(&a, x->below, x->mem, x->e2e), g1 = best_gpu_ms(&a, x->above, x->mem, x->e2e);
        double c0 = cpu_ms(&a, x->below), c1 = cpu_ms(&a, x->above);
        assert_true(g0 > 0 && g1 > 0 && c0 > 0 && c1 > 0);
        /* The GPU loses at the smaller size and wins at the larger one. */
        assert_true(g0 >= c0);
        assert_true(g1 < c1);
        double r0 = log(g0 / c0), r1 = log(g1 / c1);
        double want = exp(log(x->below) + (log(x->above) - log(x->below)) * r0 / (r0 - r1));
        print_message("%s %s: n = %.1f between %d and %d (independently %.1f)\n", mem_kind_name(x->mem),
                      x->e2e ? "end to end" : "kernel only", x->n.v, x->below, x->above, want);
        assert_close(x->n.v, want, 1e-9);
        checked++;
    }
    assert_true(checked >= 2);
    /* The answer comes first in the summary, its figure the pinned end-to-end crossing. */
    assert_true(a.nsummary > 1);
    assert_int_equal(a.summary[0].kind, FIND_SWEEP);
    assert_close(a.summary[0].figure.v, a.sweep->cross[0].n.v, 0);
    assert_non_null(strstr(a.summary[0].text, "pays off from n = 90"));
    analysis_free(&a);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crossing_between_sizes),
        cmocka_unit_test(committed_h200_sweep),
        cmocka_unit_test(crossing_exactly_at_a_size),
        cmocka_unit_test(below_and_beyond_the_range),
        cmocka_unit_test(the_last_crossing_counts),
        cmocka_unit_test_setup_teardown(sweep_of_the_synthetic_run, analysed, freed),
        cmocka_unit_test_setup_teardown(speedups_at_the_same_size, analysed, freed),
        cmocka_unit_test(one_size_no_sweep),
        cmocka_unit_test(flush_memsets_count_as_busy),
        cmocka_unit_test_setup_teardown(text_section, analysed, freed),
        cmocka_unit_test_setup_teardown(json_section, analysed, freed),
        cmocka_unit_test_setup_teardown(html_section, analysed, freed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
