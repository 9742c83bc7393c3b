/* Copy/compute overlap, streams, copy and memset rows, and NVTX ranges grouped by name, on
 * timelines built here where each figure is worked out by hand; then on a recorded program
 * (samples/h200-profile-cuda.json: copies_and_streams, whose copies and kernels run on separate
 * streams), where the figures must agree with the events themselves. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "analyze.h"
#include "json_report.h"
#include "text.h"
#include "test_support.h"

#define US 1000LL     /* ns */
#define MS 1000000LL  /* ns */
#define T0 1732981234000000000LL

/* got within tol of want (absolute: several figures here are 0). */
#define assert_double_equal(got, want, tol) near((got), (want), (tol), #got, __LINE__)
static void near(double got, double want, double tol, const char *what, int line)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("line %d: %s is %.12g, want %.12g", line, what, got, want);
}

static void kernel(run_model *m, uint32_t device, uint32_t stream, int64_t s, int64_t e)
{
    kernel_event k = {.name = "k", .start_ns = T0 + s, .end_ns = T0 + e, .pid = 42, .device = device,
                      .stream = stream, .grid = {1, 1, 1}, .block = {32, 1, 1}};
    assert_true(events_add_kernel(&m->events, &k));
}

static void copy(run_model *m, uint32_t device, uint32_t stream, copy_dir dir, uint64_t bytes, int64_t s, int64_t e)
{
    copy_event c = {.dir = dir, .src = dir == COPY_H2D ? MEM_PINNED : MEM_DEVICE,
                    .dst = dir == COPY_H2D ? MEM_DEVICE : MEM_PINNED, .bytes = bytes, .start_ns = T0 + s,
                    .end_ns = T0 + e, .pid = 42, .device = device, .stream = stream};
    assert_true(events_add_copy(&m->events, &c));
}

static void set(run_model *m, uint32_t stream, uint64_t bytes, int64_t s, int64_t e)
{
    memset_event x = {.mem = MEM_DEVICE, .bytes = bytes, .start_ns = T0 + s, .end_ns = T0 + e, .pid = 42,
                      .stream = stream};
    assert_true(events_add_memset(&m->events, &x));
}

static const stream_metrics *stream_of(const analysis *a, uint32_t device, uint32_t stream)
{
    for (int i = 0; i < a->nstreams; i++)
        if (a->streams[i].device == device && a->streams[i].stream == stream)
            return &a->streams[i];
    fail_msg("no stream %u of device %u", stream, device);
    return NULL;
}

/* Device 0: a kernel on stream 7 from 0 to 100 us; an H2D copy on stream 13 from 50 to 150 us (half
 * of it under the kernel) and a D2H copy on stream 13 from 200 to 300 us (none); a memset on stream
 * 7 from 300 to 310 us. Device 1: a copy from 0 to 100 us, at the same time as device 0's kernel
 * but on another GPU, so not hidden. */
static void copies_hidden_under_kernels(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    m.source = SOURCE_PROFILE;
    kernel(&m, 0, 7, 0, 100 * US);
    copy(&m, 0, 13, COPY_H2D, 1000, 50 * US, 150 * US);
    copy(&m, 0, 13, COPY_D2H, 3000, 200 * US, 300 * US);
    set(&m, 7, 4096, 300 * US, 310 * US);
    copy(&m, 1, 3, COPY_H2D, 1000, 0, 100 * US);
    assert_true(model_finish_regions(&m, "prog"));
    analysis a;
    assert_true(analyze(&m, &a));
    const region_metrics *run = &a.rg[0];
    /* Copy time 300 us, of which 50 us under the kernel; kernel time 100 us, 50 us under a copy. */
    assert_true(run->copy_hidden_pct.ok);
    assert_double_equal(run->copy_hidden_pct.v, 100.0 * 50 / 300, 1e-9);
    assert_double_equal(run->kernel_hidden_pct.v, 50.0, 1e-9);
    /* Flows: device 0's and 1's H2D (pinned, one flow), D2H, then the memset. */
    assert_int_equal(run->nflows, 3);
    assert_int_equal(run->flows[0].dir, COPY_H2D);
    assert_int_equal(run->flows[0].count, 2);
    assert_double_equal(run->flows[0].hidden_pct.v, 25.0, 1e-9);
    assert_double_equal(run->flows[0].min_ms.v, 0.1, 1e-12);
    assert_double_equal(run->flows[0].mean_ms.v, 0.1, 1e-12);
    assert_true(run->flows[0].stddev_ms.ok);
    assert_double_equal(run->flows[0].stddev_ms.v, 0, 1e-12);
    assert_int_equal(run->flows[1].dir, COPY_D2H);
    assert_double_equal(run->flows[1].hidden_pct.v, 0.0, 1e-9);
    assert_false(run->flows[1].stddev_ms.ok);
    assert_true(run->flows[2].memset);
    assert_int_equal(run->flows[2].count, 1);
    assert_double_equal(run->flows[2].bytes.v, 4096, 0);
    assert_double_equal(run->flows[2].gbps.v, 4096 / (0.01 * 1e6), 1e-9);

    /* Streams, by device then stream. */
    assert_int_equal(a.nstreams, 3);
    const stream_metrics *s7 = stream_of(&a, 0, 7), *s13 = stream_of(&a, 0, 13), *d1 = stream_of(&a, 1, 3);
    assert_int_equal(s7->nkernels, 1);
    assert_int_equal(s7->nmemsets, 1);
    assert_double_equal(s7->busy_ms.v, 0.110, 1e-12);
    assert_double_equal(s7->overlap_ms.v, 0.050, 1e-12);
    assert_double_equal(s13->busy_ms.v, 0.200, 1e-12);
    assert_double_equal(s13->overlap_ms.v, 0.050, 1e-12);
    assert_double_equal(s13->overlap_pct.v, 25.0, 1e-9);
    assert_double_equal(s13->copy_hidden_pct.v, 100.0 * 50 / 200, 1e-9);
    assert_false(s7->copy_hidden_pct.ok);
    /* Alone on its GPU: no overlap with device 0's streams. */
    assert_double_equal(d1->overlap_ms.v, 0, 0);
    assert_double_equal(d1->copy_hidden_pct.v, 0, 0);
    /* The run spans 0 to 310 us. */
    assert_double_equal(s13->busy_pct.v, 100.0 * 200 / 310, 1e-9);
    analysis_free(&a);
    model_free(&m);
}

/* Three streams busy at once for part of the time: each stream's overlap counts the time any
 * other was busy, once. */
static void three_streams_overlap_once(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    m.source = SOURCE_PROFILE;
    kernel(&m, 0, 1, 0, 100 * US);
    kernel(&m, 0, 2, 20 * US, 60 * US);
    kernel(&m, 0, 3, 40 * US, 120 * US);
    kernel(&m, 0, 1, 100 * US, 130 * US); /* touches its first: one busy stretch 0-130 */
    assert_true(model_finish_regions(&m, "prog"));
    analysis a;
    assert_true(analyze(&m, &a));
    const stream_metrics *s1 = stream_of(&a, 0, 1), *s2 = stream_of(&a, 0, 2), *s3 = stream_of(&a, 0, 3);
    assert_double_equal(s1->busy_ms.v, 0.130, 1e-12);
    /* Stream 1 shares 20-120 us with 2 or 3: 100 us. */
    assert_double_equal(s1->overlap_ms.v, 0.100, 1e-12);
    assert_double_equal(s2->overlap_ms.v, 0.040, 1e-12);
    assert_double_equal(s3->overlap_ms.v, 0.080, 1e-12);
    assert_double_equal(s3->overlap_pct.v, 100.0, 1e-9);
    analysis_free(&a);
    model_free(&m);
}

static int nvtx(run_model *m, const char *name, region_kind kind, int64_t s, int64_t e)
{
    int r = model_add_region(m, kind, name, NULL, T0 + s, T0 + e, 42, 1, -1);
    assert_true(r >= 0);
    return r;
}

static const range_group *group_of(const analysis *a, const char *name)
{
    for (int i = 0; i < a->ngroups; i++)
        if (strcmp(a->groups[i].name, name) == 0)
            return &a->groups[i];
    fail_msg("no group %s", name);
    return NULL;
}

/* Four "step" ranges of 1, 2, 3 and 10 ms, 0.5 ms apart (the last idle but for a 0.1 ms kernel), PyTorch's
 * numbered steps folded into one group, and a "compile" annotation with no GPU work, long enough
 * to be listed with its account. */
static void ranges_grouped_by_name(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    m.source = SOURCE_KINETO;
    int64_t at = 0;
    const int64_t len[] = {1 * MS, 2 * MS, 3 * MS, 10 * MS};
    for (int i = 0; i < 4; i++) {
        nvtx(&m, "step", REGION_NVTX, at, at + len[i]);
        /* Busy all through, but the last: a 0.1 ms kernel in 10 ms. */
        kernel(&m, 0, 7, at, at + (i < 3 ? len[i] : MS / 10));
        at += len[i] + MS / 2; /* apart: a kernel starting as a range closes would be in both */
    }
    nvtx(&m, "ProfilerStep#1", REGION_ANNOTATION, 0, 3 * MS);
    nvtx(&m, "ProfilerStep#2", REGION_ANNOTATION, 3 * MS, 6 * MS);
    nvtx(&m, "compile", REGION_ANNOTATION, 20 * MS, 30 * MS);
    assert_true(model_finish_regions(&m, "trace"));
    analysis a;
    assert_true(analyze(&m, &a));
    assert_int_equal(a.ngroups, 3);
    const range_group *step = group_of(&a, "step");
    assert_int_equal(step->count, 4);
    assert_double_equal(step->total_ms.v, 16, 1e-9);
    assert_double_equal(step->mean_ms.v, 4, 1e-9);
    assert_double_equal(step->median_ms.v, 2.5, 1e-9);
    assert_double_equal(step->min_ms.v, 1, 1e-9);
    assert_double_equal(step->max_ms.v, 10, 1e-9);
    assert_double_equal(step->kernel_ms.v, 6.1, 1e-9);
    assert_double_equal(step->busy_pct.v, 100.0 * 6.1 / 16, 1e-9);
    assert_int_equal(step->verdicts[VERDICT_COMPUTE_BOUND], 3);
    assert_int_equal(step->verdicts[VERDICT_IDLE], 1);
    assert_int_equal(step->verdict, VERDICT_COMPUTE_BOUND);
    assert_string_equal(m.regions[step->worst].name, "step");
    assert_int_equal(m.regions[step->worst].end_ns - m.regions[step->worst].start_ns, 10 * MS);
    const range_group *ps = group_of(&a, "ProfilerStep#*");
    assert_int_equal(ps->count, 2);
    assert_int_equal(ps->kind, REGION_ANNOTATION);
    const range_group *compile = group_of(&a, "compile");
    assert_int_equal(compile->with_gpu, 0);
    /* No GPU work, and nothing recorded of the host: its wall-time account says idle, not known. */
    assert_int_equal(compile->verdict, VERDICT_IDLE);
    /* Longest in all first: step (16 ms), compile (10 ms), ProfilerStep (6 ms). */
    assert_string_equal(a.groups[0].name, "step");
    assert_string_equal(a.groups[1].name, "compile");
    /* compile has no GPU work but lasts REGION_LIST_NO_GPU_PCT of the run or more: it
     * is listed, with its account, after the ranges with GPU work in timeline order. */
    assert_int_equal(a.no_gpu_regions, 0);
    assert_int_equal(a.nlisted, 1 + 7);
    bool listed = false;
    for (int i = 0; i < a.nlisted; i++)
        listed |= strcmp(m.regions[a.listed[i]].name, "compile") == 0;
    assert_true(listed);
    assert_false(a.listed_by_gpu);
    analysis_free(&a);
    model_free(&m);

    char buf[16];
    range_group_name("ProfilerStep#12", buf, sizeof buf);
    assert_string_equal(buf, "ProfilerStep#*");
    range_group_name("step 3", buf, sizeof buf);
    assert_string_equal(buf, "step *");
    range_group_name("layer3", buf, sizeof buf);
    assert_string_equal(buf, "layer3");
    range_group_name("#5", buf, sizeof buf);
    assert_string_equal(buf, "#5");
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A group row against its instances, read back from the JSON report as a user would: five steps
 * "step 0".."step 4" of 3, 1, 4, 2 and 6 ms, each busy with its kernels but the last (idle for its
 * last 5 ms). The group's count is the number of its instances, its median the median of their
 * walls and its median instance the one of that wall, its longest the one of the largest; the
 * text tells the group in one row, and no instance in the Timeline table. */
static void group_row_is_its_instances(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    m.source = SOURCE_KINETO;
    const int64_t len[] = {3 * MS, 1 * MS, 4 * MS, 2 * MS, 6 * MS};
    int64_t at = 0;
    for (int i = 0; i < 5; i++) {
        char name[24];
        snprintf(name, sizeof name, "step %d", i);
        nvtx(&m, name, REGION_NVTX, at, at + len[i]);
        kernel(&m, 0, 7, at, at + (i < 4 ? len[i] : MS));
        at += len[i] + MS / 2;
    }
    assert_true(model_finish_regions(&m, "trace"));
    analysis a;
    assert_true(analyze(&m, &a));
    char *json = render_json(&a);
    assert_non_null(json);
    cJSON *root = cJSON_Parse(json);
    assert_non_null(root);
    const cJSON *an = cJSON_GetObjectItem(root, "analysis");
    const cJSON *regions = cJSON_GetObjectItem(an, "regions"), *groups = cJSON_GetObjectItem(an, "range_groups");
    const cJSON *g = NULL, *it;
    cJSON_ArrayForEach(it, groups)
        if (strcmp(cJSON_GetObjectItem(it, "name")->valuestring, "step *") == 0)
            g = it;
    assert_non_null(g);
    /* the instances are every region of the JSON whose name folds to the group's */
    double walls[8];
    int n = 0;
    cJSON_ArrayForEach(it, regions) {
        const char *name = cJSON_GetObjectItem(it, "name")->valuestring;
        if (strncmp(name, "step ", 5) != 0)
            continue;
        assert_true(n < 8);
        walls[n++] = cJSON_GetObjectItem(it, "wall_ms")->valuedouble;
    }
    assert_int_equal(n, 5);
    assert_int_equal(cJSON_GetObjectItem(g, "count")->valueint, n);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(g, "instances")), n);
    qsort(walls, (size_t)n, sizeof *walls, cmp_dbl);
    assert_double_equal(cJSON_GetObjectItem(g, "median_ms")->valuedouble, walls[n / 2], 1e-9);
    assert_double_equal(cJSON_GetObjectItem(g, "min_ms")->valuedouble, walls[0], 1e-9);
    assert_double_equal(cJSON_GetObjectItem(g, "max_ms")->valuedouble, walls[n - 1], 1e-9);
    int med = cJSON_GetObjectItem(cJSON_GetObjectItem(g, "median_instance"), "region")->valueint;
    int lon = cJSON_GetObjectItem(cJSON_GetObjectItem(g, "longest_instance"), "region")->valueint;
    assert_double_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(regions, med), "wall_ms")->valuedouble, walls[n / 2], 1e-9);
    assert_double_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(regions, lon), "wall_ms")->valuedouble, walls[n - 1], 1e-9);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(regions, med), "name")->valuestring, "step 0");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(regions, lon), "name")->valuestring, "step 4");
    /* each distinct advice once, counted over the instances */
    int told = cJSON_GetObjectItem(g, "advice_other")->valueint;
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(g, "advice"))
        told += cJSON_GetObjectItem(it, "count")->valueint;
    assert_true(told <= n);
    cJSON_Delete(root);
    free(json);
    /* the text: the group's one row, no instance row in the Timeline table */
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    assert_non_null(f);
    render_text(&a, f, false);
    fclose(f);
    const char *rep = strstr(text, "\nRepeated ranges");
    assert_non_null(rep);
    assert_non_null(strstr(rep, "\nstep *                       5      3.000     1.000      6.000 step 4"));
    const char *tl = strstr(text, "\nTimeline  regions:");
    assert_non_null(tl);
    assert_true(strstr(tl, "\n  step ") == NULL || strstr(tl, "\n  step ") > rep);
    free(text);
    analysis_free(&a);
    model_free(&m);
}

/* More ranges with GPU work than are listed: those with the most GPU time, most first. */
static void many_ranges_listed_by_gpu_time(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    m.source = SOURCE_PROFILE;
    int n = MAX_LISTED_REGIONS + 5;
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "r%d", i);
        nvtx(&m, name, REGION_NVTX, i * MS, (i + 1) * MS);
        kernel(&m, 0, 7, i * MS + US, i * MS + US + (i + 1) * (MS / 100));
    }
    assert_true(model_finish_regions(&m, "prog"));
    analysis a;
    assert_true(analyze(&m, &a));
    assert_true(a.listed_by_gpu);
    assert_int_equal(a.nlisted, 1 + MAX_LISTED_REGIONS);
    assert_int_equal(a.unlisted, 5);
    char want[16];
    snprintf(want, sizeof want, "r%d", n - 1);
    assert_string_equal(m.regions[a.listed[1]].name, want);
    for (int i = 2; i < a.nlisted; i++)
        assert_true(a.rg[a.listed[i]].kernel_ms.v <= a.rg[a.listed[i - 1]].kernel_ms.v);
    analysis_free(&a);
    model_free(&m);
}

/* The recorded program: each stream's counts and times are the events', and every copy's hidden
 * part, summed by brute force over the kernels of its GPU, matches the run's figure. */
static void recorded_program_agrees_with_its_events(void **state)
{
    (void)state;
    run_model m;
    load_run("samples/h200-profile-cuda.json", &m);
    analysis a;
    assert_true(analyze(&m, &a));
    const event_list *e = &m.events;
    int kernels = 0, copies = 0, memsets = 0;
    for (int i = 0; i < a.nstreams; i++) {
        kernels += a.streams[i].nkernels;
        copies += a.streams[i].ncopies;
        memsets += a.streams[i].nmemsets;
    }
    assert_int_equal(kernels, (int)e->nkernels);
    assert_int_equal(copies, (int)e->ncopies);
    assert_int_equal(memsets, (int)e->nmemsets);
    assert_true(a.nstreams >= 2);
    double copy = 0, hidden = 0;
    for (size_t i = 0; i < e->ncopies; i++) {
        const copy_event *c = &e->copies[i];
        copy += (double)(c->end_ns - c->start_ns);
        /* Directly: the kernels of its GPU clipped to the copy, merged, summed. */
        interval *iv = malloc((e->nkernels + 1) * sizeof *iv);
        size_t n = 0;
        for (size_t k = 0; k < e->nkernels; k++) {
            const kernel_event *x = &e->kernels[k];
            int64_t s = x->start_ns > c->start_ns ? x->start_ns : c->start_ns;
            int64_t t = x->end_ns < c->end_ns ? x->end_ns : c->end_ns;
            if (x->device == c->device && t > s)
                iv[n++] = (interval){s, t};
        }
        n = interval_merge(iv, n);
        for (size_t k = 0; k < n; k++)
            hidden += (double)(iv[k].end - iv[k].start);
        free(iv);
    }
    const region_metrics *run = &a.rg[0];
    assert_true(run->copy_hidden_pct.ok);
    assert_double_equal(run->copy_hidden_pct.v, 100.0 * hidden / copy, 1e-6);
    analysis_free(&a);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copies_hidden_under_kernels),
        cmocka_unit_test(three_streams_overlap_once),
        cmocka_unit_test(ranges_grouped_by_name),
        cmocka_unit_test(group_row_is_its_instances),
        cmocka_unit_test(many_ranges_listed_by_gpu_time),
        cmocka_unit_test(recorded_program_agrees_with_its_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
