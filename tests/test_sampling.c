/* The sampling rule (src/builtin/sampling.c) against a fake clock: each sample advances the clock
 * by its own length, as a real timed product would. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>

#include "sampling.h"
#include "stats.h"
#include "test_support.h"

typedef struct {
    double clock_ms;
    double (*sample)(int i); /* the i-th sample's length */
    int batches;
    int fail_at;             /* a take that starts at this index fails; -1 never */
} fake;

static int take(void *ctx, int first, int count, double *ms)
{
    fake *f = ctx;
    if (first == f->fail_at)
        return -1;
    f->batches++;
    for (int i = 0; i < count; i++) {
        ms[i] = f->sample(first + i);
        f->clock_ms += ms[i];
    }
    return 0;
}

static double clock_ms(void *ctx)
{
    return ((fake *)ctx)->clock_ms;
}

static double steady(int i) { (void)i; return 1.0; }
static double jumpy(int i) { return i % 2 ? 1.2 : 1.0; }          /* noise ~9.7 %, never lower */
static double settling(int i) { return i < 10 ? (i % 2 ? 1.01 : 0.99) : 1.0; } /* 1 %, then steady */
static double slow(int i) { return i % 2 ? 44.0 : 40.0; }

static const sample_rule gpu_rule = {.min_samples = 10, .max_samples = 1000, .max_noise_pct = 0.5,
                                     .max_time_ms = 500};

static void noise_formula(void **state)
{
    (void)state;
    const double v[] = {1, 2, 3}; /* mean 2, sample stdev 1 */
    assert_close(relative_noise_pct(v, 3), 50.0, 1e-12);
    assert_true(relative_noise_pct(v, 1) < 0);
    const double zero[] = {0, 0};
    assert_true(relative_noise_pct(zero, 2) < 0);
}

/* Steady samples stop by noise, but not before the minimum. */
static void stops_by_noise_at_the_minimum(void **state)
{
    (void)state;
    fake f = {.sample = steady, .fail_at = -1};
    double ms[1000];
    sample_result r;
    assert_int_equal(sample_until(&gpu_rule, 1.0, take, clock_ms, &f, ms, &r), 0);
    assert_int_equal(r.samples, 10);
    assert_int_equal(r.stopped_by, STOP_NOISE);
    assert_close(r.noise_pct, 0, 0);
}

/* Noisy at first: more samples until the noise falls under the limit. */
static void samples_until_the_noise_falls(void **state)
{
    (void)state;
    fake f = {.sample = settling, .fail_at = -1};
    double ms[1000];
    sample_result r;
    assert_int_equal(sample_until(&gpu_rule, 1.0, take, clock_ms, &f, ms, &r), 0);
    assert_int_equal(r.stopped_by, STOP_NOISE);
    assert_true(r.samples > 10);
    assert_true(r.noise_pct <= 0.5);
    /* ... and the noise of one sample fewer would not have done: it stopped when it could. */
    assert_true(relative_noise_pct(ms, r.samples / 2) > 0.5);
    assert_close(r.noise_pct, relative_noise_pct(ms, r.samples), 0);
}

/* Noise that never falls: the time limit stops it, shortly after the limit. */
static void stops_by_time(void **state)
{
    (void)state;
    fake f = {.sample = jumpy, .fail_at = -1};
    double ms[1000];
    sample_result r;
    sample_rule rule = gpu_rule;
    rule.max_time_ms = 50;
    assert_int_equal(sample_until(&rule, 1.1, take, clock_ms, &f, ms, &r), 0);
    assert_int_equal(r.stopped_by, STOP_TIME);
    assert_true(f.clock_ms >= 50);
    assert_true(f.clock_ms < 50 + 2 * 1.2 + 1e-9); /* batches sized to the time left */
    assert_true(r.noise_pct > 5);
}

/* A sample longer than the time left still runs once more than needed for a noise, never ten. */
static void slow_samples_fit_the_time(void **state)
{
    (void)state;
    fake f = {.sample = slow, .fail_at = -1};
    double ms[1000];
    sample_result r;
    sample_rule rule = gpu_rule;
    rule.max_time_ms = 100;
    assert_int_equal(sample_until(&rule, 40, take, clock_ms, &f, ms, &r), 0);
    assert_int_equal(r.stopped_by, STOP_TIME);
    assert_int_equal(r.samples, 3);
}

static void stops_at_the_cap(void **state)
{
    (void)state;
    fake f = {.sample = jumpy, .fail_at = -1};
    double ms[40];
    sample_result r;
    sample_rule rule = gpu_rule;
    rule.max_samples = 40;
    rule.max_time_ms = 1e9;
    assert_int_equal(sample_until(&rule, 1.0, take, clock_ms, &f, ms, &r), 0);
    assert_int_equal(r.stopped_by, STOP_MAX_SAMPLES);
    assert_int_equal(r.samples, 40);
}

/* --repeat: exactly that many, in one batch, whatever the noise. */
static void fixed_count(void **state)
{
    (void)state;
    fake f = {.sample = jumpy, .fail_at = -1};
    double ms[7];
    sample_result r;
    sample_rule rule = gpu_rule;
    rule.fixed = 7;
    assert_int_equal(sample_until(&rule, 1.0, take, clock_ms, &f, ms, &r), 0);
    assert_int_equal(r.samples, 7);
    assert_int_equal(r.stopped_by, STOP_REPEAT);
    assert_int_equal(f.batches, 1);
    assert_true(r.noise_pct > 5);
}

static void a_failed_take_stops(void **state)
{
    (void)state;
    fake f = {.sample = jumpy, .fail_at = 10};
    double ms[1000];
    sample_result r;
    assert_int_equal(sample_until(&gpu_rule, 1.0, take, clock_ms, &f, ms, &r), -1);
    assert_int_equal(r.samples, 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(noise_formula),
        cmocka_unit_test(stops_by_noise_at_the_minimum),
        cmocka_unit_test(samples_until_the_noise_falls),
        cmocka_unit_test(stops_by_time),
        cmocka_unit_test(slow_samples_fit_the_time),
        cmocka_unit_test(stops_at_the_cap),
        cmocka_unit_test(fixed_count),
        cmocka_unit_test(a_failed_take_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
