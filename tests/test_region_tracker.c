/* The region tracker (src/model/region_tracker.c) on its own, with ranges handed to it as each
 * source would:
 *  - push/pop nesting per thread, with two threads interleaved and a pop matching its own domain;
 *  - start/end by id across threads, overlapping, hanging from the run;
 *  - pops and ends that match nothing (ignored, said), ranges left open (closed at the latest time
 *    seen, said), a close before its open (zero length, said);
 *  - complete intervals in any order nested by containment on their thread, ties in arrival order,
 *    styles apart, start/end intervals after the nesting ones, never-ended ones closed at the end,
 *    backwards ones left out (said);
 *  - parents offset by the regions the model held before.
 * The model's first region is the run (model_add_region makes it before the first range), so a
 * range at the top has the run, 0, as its parent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "region_tracker.h"

static int region_named(const run_model *m, const char *name)
{
    for (int i = 0; i < m->nregions; i++)
        if (strcmp(m->regions[i].name, name) == 0)
            return i;
    fail_msg("no region %s", name);
    return -1;
}

static bool has_warning(const run_model *m, const char *a, const char *b)
{
    for (int i = 0; i < m->nwarnings; i++)
        if (strstr(m->warnings[i], a) && (!b || strstr(m->warnings[i], b)))
            return true;
    return false;
}

static void finish(region_tracker *t, const char *label)
{
    assert_true(rt_finish(t, label));
    rt_free(t);
}

/* Two threads push and pop interleaved; a range of domain "io" pushed inside one of the default
 * domain is popped by its own domain's pop, and nests in what its thread had open. */
static void push_pop_nests_per_thread(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    region_tracker t;
    rt_init(&t, &m);
    assert_true(rt_push(&t, 1, 10, NULL, "epoch", 100));
    assert_true(rt_push(&t, 1, 20, "", "loader", 110));
    assert_true(rt_push(&t, 1, 10, "", "step", 120));
    assert_true(rt_push(&t, 1, 10, "io", "flush", 130));
    assert_true(rt_push(&t, 1, 20, NULL, "decode", 140));
    assert_true(rt_pop(&t, 1, 10, NULL, 150)); /* the default domain's innermost: step, not flush */
    assert_true(rt_pop(&t, 1, 20, NULL, 160)); /* decode */
    assert_true(rt_pop(&t, 1, 10, "io", 170)); /* flush */
    assert_true(rt_pop(&t, 1, 10, NULL, 180)); /* epoch */
    assert_true(rt_pop(&t, 1, 20, NULL, 190)); /* loader */
    finish(&t, "test");
    assert_int_equal(m.nregions, 1 + 5);
    int epoch = region_named(&m, "epoch"), loader = region_named(&m, "loader"), step = region_named(&m, "step");
    int flush = region_named(&m, "flush"), decode = region_named(&m, "decode");
    /* In the order they were pushed, after the run. */
    assert_int_equal(m.regions[0].kind, REGION_RUN);
    assert_int_equal(epoch, 1);
    assert_int_equal(loader, 2);
    assert_int_equal(decode, 5);
    assert_int_equal(m.regions[epoch].parent, 0);
    assert_int_equal(m.regions[loader].parent, 0);
    assert_int_equal(m.regions[step].parent, epoch);
    assert_int_equal(m.regions[flush].parent, step);
    assert_int_equal(m.regions[decode].parent, loader);
    assert_int_equal(m.regions[step].end_ns, 150);
    assert_int_equal(m.regions[flush].end_ns, 170);
    assert_int_equal(m.regions[decode].end_ns, 160);
    assert_int_equal(m.regions[epoch].end_ns, 180);
    assert_int_equal(m.regions[loader].end_ns, 190);
    assert_string_equal(m.regions[flush].domain, "io");
    assert_null(m.regions[step].domain); /* "" is the default domain */
    for (int i = 1; i < m.nregions; i++) {
        assert_true(m.regions[i].push_pop);
        assert_int_equal(m.regions[i].kind, REGION_NVTX);
        assert_int_equal(m.regions[i].pid, 1);
    }
    assert_int_equal(m.nwarnings, 0);
    model_free(&m);
}

/* start/end ranges close by id, from another thread, overlapping, and never nest. */
static void start_end_by_id(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    region_tracker t;
    rt_init(&t, &m);
    assert_true(rt_push(&t, 1, 10, NULL, "outer", 100));
    assert_true(rt_start(&t, 1, 10, 7, "io", "load", 110));
    assert_true(rt_start(&t, 1, 20, 8, NULL, "save", 120));
    assert_true(rt_end(&t, 1, 7, 200)); /* load ends after save began: they overlap */
    assert_true(rt_end(&t, 1, 8, 210));
    assert_true(rt_pop(&t, 1, 10, NULL, 300));
    finish(&t, "test");
    int load = region_named(&m, "load"), save = region_named(&m, "save");
    assert_int_equal(m.regions[load].parent, 0);
    assert_int_equal(m.regions[save].parent, 0);
    assert_false(m.regions[load].push_pop);
    assert_int_equal(m.regions[load].end_ns, 200);
    assert_int_equal(m.regions[save].end_ns, 210);
    assert_int_equal(m.regions[save].tid, 20);
    assert_string_equal(m.regions[load].domain, "io");
    assert_int_equal(m.nwarnings, 0);
    model_free(&m);
}

/* A pop with nothing pushed on its thread (or only another domain's), an end of an id never
 * started: ignored, and said once with their count. */
static void unmatched_closes_are_ignored_and_said(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    region_tracker t;
    rt_init(&t, &m);
    assert_true(rt_pop(&t, 1, 10, NULL, 50));
    assert_true(rt_push(&t, 1, 10, "io", "read", 100));
    assert_true(rt_pop(&t, 1, 10, NULL, 110)); /* not io's */
    assert_true(rt_pop(&t, 1, 11, "io", 115)); /* not this thread's */
    assert_true(rt_end(&t, 1, 99, 120));
    assert_true(rt_pop(&t, 1, 10, "io", 130));
    finish(&t, "process 1 (demo)");
    assert_int_equal(m.nregions, 1 + 1);
    assert_int_equal(m.regions[1].end_ns, 130);
    assert_int_equal(m.nwarnings, 1);
    assert_true(has_warning(&m, "process 1 (demo): 4 NVTX pops or ends match no open range; ignored", NULL));
    model_free(&m);
}

/* Ranges still open when the source ends close at the latest time it saw (its own events
 * included), and the report says how many. */
static void open_ranges_close_at_the_latest_time(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    region_tracker t;
    rt_init(&t, &m);
    assert_true(rt_push(&t, 1, 10, NULL, "train", 100));
    assert_true(rt_push(&t, 1, 10, NULL, "step", 200));
    assert_true(rt_start(&t, 1, 12, 3, NULL, "prefetch", 250));
    rt_saw(&t, 900); /* a kernel that ended later than any range line */
    rt_saw(&t, 400);
    assert_true(rt_interval(&t, &(rt_range){.style = RANGE_PUSH_POP, .name = "never", .pid = 1, .tid = 30, .start_ns = 300,
                                .end_ns = RT_OPEN_END}));
    finish(&t, "NVTX_EVENTS");
    for (int i = 1; i < m.nregions; i++)
        assert_int_equal(m.regions[i].end_ns, 900);
    assert_int_equal(m.regions[region_named(&m, "step")].parent, region_named(&m, "train"));
    assert_true(has_warning(&m, "NVTX_EVENTS: 4 NVTX ranges were still open at the end", "at the last event"));

    /* Nothing after the open: it is closed where it began, never before. */
    model_free(&m);
    model_init(&m);
    rt_init(&t, &m);
    assert_true(rt_push(&t, 1, 10, NULL, "last", 500));
    finish(&t, "x");
    assert_int_equal(m.regions[1].end_ns, 500);
    assert_true(has_warning(&m, "x: 1 NVTX range was still open", NULL));
    model_free(&m);
}

/* A close stamped before its open (a clock that went back) keeps the range, with no length. */
static void close_before_open_is_zero_length(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    region_tracker t;
    rt_init(&t, &m);
    assert_true(rt_push(&t, 1, 10, NULL, "odd", 500));
    assert_true(rt_pop(&t, 1, 10, NULL, 400));
    finish(&t, "p");
    assert_int_equal(m.regions[1].start_ns, 500);
    assert_int_equal(m.regions[1].end_ns, 500);
    assert_true(has_warning(&m, "p: 1 NVTX range was closed before it was opened", "zero length"));
    model_free(&m);
}

/* Complete intervals handed in reverse, shuffled across two threads: nested by containment on
 * their own thread, added by thread and start with the enclosing first. */
static void intervals_in_any_order_nest_by_containment(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    /* The run and two regions already there (another file's): parents are offset past them. */
    assert_int_equal(model_add_region(&m, REGION_NVTX, "earlier", NULL, 0, 1, 9, 9, -1), 1);
    assert_int_equal(model_add_region(&m, REGION_NVTX, "earlier2", NULL, 0, 1, 9, 9, 1), 2);
    region_tracker t;
    rt_init(&t, &m);
    const rt_range in[] = {
        {RANGE_ANNOTATION, "backward", NULL, 7, 2, 150, 400},     /* thread 2 */
        {RANGE_ANNOTATION, "forward", NULL, 7, 1, 120, 180},
        {RANGE_ANNOTATION, "mm", NULL, 7, 1, 130, 140},
        {RANGE_ANNOTATION, "step", NULL, 7, 1, 100, 300},
        {RANGE_ANNOTATION, "optimizer", NULL, 7, 1, 200, 300},    /* ends with step: inside it */
        {RANGE_ANNOTATION, "sgd", NULL, 7, 1, 250, 260},
        {RANGE_ANNOTATION, "late", NULL, 7, 1, 290, 350},         /* crosses step's end: beside it */
        {RANGE_ANNOTATION, "inner4", NULL, 8, 4, 20, 30},         /* inside outer3's time, not its thread */
        {RANGE_ANNOTATION, "outer3", NULL, 8, 3, 10, 2000},
    };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        assert_true(rt_interval(&t, &in[sizeof in / sizeof in[0] - 1 - i]));
    finish(&t, "trace.json");
    assert_int_equal(m.nregions, 3 + 9);
    const char *order[] = {"step", "forward", "mm", "optimizer", "sgd", "late", "backward", "outer3", "inner4"};
    for (int i = 0; i < 9; i++)
        assert_string_equal(m.regions[3 + i].name, order[i]);
    int step = region_named(&m, "step");
    assert_int_equal(m.regions[step].parent, 0);
    assert_int_equal(m.regions[region_named(&m, "forward")].parent, step);
    assert_int_equal(m.regions[region_named(&m, "mm")].parent, region_named(&m, "forward"));
    assert_int_equal(m.regions[region_named(&m, "optimizer")].parent, step);
    assert_int_equal(m.regions[region_named(&m, "sgd")].parent, region_named(&m, "optimizer"));
    assert_int_equal(m.regions[region_named(&m, "late")].parent, 0);
    assert_int_equal(m.regions[region_named(&m, "backward")].parent, 0); /* its own thread */
    assert_int_equal(m.regions[region_named(&m, "inner4")].parent, 0);
    for (int i = 3; i < m.nregions; i++) {
        assert_int_equal(m.regions[i].kind, REGION_ANNOTATION);
        assert_false(m.regions[i].push_pop);
    }
    assert_int_equal(m.regions[2].parent, 1); /* what was there is left alone */
    assert_int_equal(m.nwarnings, 0);
    model_free(&m);
}

/* Equal intervals: the first to arrive encloses the second. Styles do not nest in each other,
 * start/end ones come after every nesting one with no parent, and backwards ones are left out. */
static void ties_styles_and_backwards_intervals(void **state)
{
    (void)state;
    run_model m;
    model_init(&m);
    region_tracker t;
    rt_init(&t, &m);
    assert_true(rt_interval(&t, &(rt_range){RANGE_START_END, "load", "io", 3, 1, 0, 1000}));
    assert_true(rt_interval(&t, &(rt_range){RANGE_PUSH_POP, "a", NULL, 3, 1, 100, 200}));
    assert_true(rt_interval(&t, &(rt_range){RANGE_PUSH_POP, "b", NULL, 3, 1, 100, 200}));
    assert_true(rt_interval(&t, &(rt_range){RANGE_ANNOTATION, "ann", NULL, 3, 1, 120, 130}));
    assert_true(rt_interval(&t, &(rt_range){RANGE_PUSH_POP, "bad", NULL, 3, 1, 300, 299}));
    assert_true(rt_interval(&t, &(rt_range){RANGE_START_END, "bad2", NULL, 3, 1, 300, 200}));
    finish(&t, "NVTX_EVENTS");
    assert_int_equal(m.nregions, 1 + 4);
    assert_string_equal(m.regions[1].name, "a");
    assert_string_equal(m.regions[2].name, "b");
    assert_string_equal(m.regions[3].name, "ann");
    assert_string_equal(m.regions[4].name, "load");
    assert_int_equal(m.regions[1].parent, 0);
    assert_int_equal(m.regions[2].parent, 1);
    assert_int_equal(m.regions[3].parent, 0); /* an annotation is not inside an NVTX push */
    assert_int_equal(m.regions[3].kind, REGION_ANNOTATION);
    assert_int_equal(m.regions[4].parent, 0);
    assert_false(m.regions[4].push_pop);
    assert_true(m.regions[1].push_pop);
    assert_string_equal(m.regions[4].domain, "io");
    assert_true(has_warning(&m, "NVTX_EVENTS: 2 ranges end before they start; left out", NULL));
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(push_pop_nests_per_thread),
        cmocka_unit_test(start_end_by_id),
        cmocka_unit_test(unmatched_closes_are_ignored_and_said),
        cmocka_unit_test(open_ranges_close_at_the_latest_time),
        cmocka_unit_test(close_before_open_is_zero_length),
        cmocka_unit_test(intervals_in_any_order_nest_by_containment),
        cmocka_unit_test(ties_styles_and_backwards_intervals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
