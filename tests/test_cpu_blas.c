/* The CPU side of a run: OpenBLAS's sgemm and the FP64 reference against a plain triple loop,
 * the inputs' generator, the relative Frobenius error and the verdict drawn from it, and the
 * cpu-openblas workload's phases.
 *
 * Products are compared element by element with the rounding-error bound of a dot product
 * computed in any order: |fl(x.y) - x.y| <= gamma_k |x|.|y|, gamma_k = k u / (1 - k u), u the
 * unit roundoff (2^-24 for float, 2^-53 for double). No tolerance here is tuned to what was seen. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cpu_workload.h"
#include "inputs.h"
#include "stats.h"
#include "test_support.h"
#include "verify.h"

static const int sizes[] = {1, 2, 3, 7, 17, 64, 100};

static double gamma_k(int k, double u)
{
    return k * u / (1 - k * u);
}

/* ref = A x B and absref = |A| x |B|, in double, one multiply-add at a time. */
static void naive(int n, const float *A, const float *B, double *ref, double *absref)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0, a = 0;
            for (int k = 0; k < n; k++) {
                s += (double)A[i * n + k] * B[k * n + j];
                a += fabs((double)A[i * n + k] * B[k * n + j]);
            }
            ref[i * n + j] = s;
            absref[i * n + j] = a;
        }
}

typedef struct {
    int n;
    size_t count;
    float *A, *B;
    double *ref, *absref;
} inputs;

static inputs make_inputs(int n, uint64_t seed)
{
    inputs in = {.n = n, .count = (size_t)n * n};
    in.A = malloc(in.count * sizeof *in.A);
    in.B = malloc(in.count * sizeof *in.B);
    in.ref = malloc(in.count * sizeof *in.ref);
    in.absref = malloc(in.count * sizeof *in.absref);
    assert_true(in.A && in.B && in.ref && in.absref);
    fill_uniform(in.A, in.count, seed, 0);
    fill_uniform(in.B, in.count, seed, 1);
    naive(n, in.A, in.B, in.ref, in.absref);
    return in;
}

static void free_inputs(inputs *in)
{
    free(in->A);
    free(in->B);
    free(in->ref);
    free(in->absref);
}

/* Each run draws new inputs; the seed is printed so a failure can be replayed. */
static uint64_t new_seed(int n)
{
    uint64_t seed = fresh_seed() + (uint64_t)n;
    print_message("n = %d, seed %llu\n", n, (unsigned long long)seed);
    return seed;
}

static void sgemm_matches_naive(void **state)
{
    (void)state;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int n = sizes[s];
        inputs in = make_inputs(n, new_seed(n));
        float *C = malloc(in.count * sizeof *C);
        assert_non_null(C);
        memset(C, 0xFF, in.count * sizeof *C); /* NaN: an element left unwritten fails */
        cpu_sgemm(n, in.A, in.B, C);
        /* The float product's error, plus the double loop's own (far smaller). */
        double g = gamma_k(n, 0x1p-24) + gamma_k(n, 0x1p-53);
        for (size_t i = 0; i < in.count; i++) {
            double err = fabs((double)C[i] - in.ref[i]);
            if (!(err <= g * in.absref[i]))
                fail_msg("n = %d, C[%zu] = %.9g, exact %.17g: error %.3g above the bound %.3g", n, i,
                         (double)C[i], in.ref[i], err, g * in.absref[i]);
        }
        /* And the figure the report gives passes the report's own bound. */
        double rel = rel_frobenius_error(C, in.ref, in.count);
        assert_true(rel <= error_bound(PREC_FP32));
        free(C);
        free_inputs(&in);
    }
}

static void reference_matches_naive(void **state)
{
    (void)state;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int n = sizes[s];
        inputs in = make_inputs(n, new_seed(n));
        double *ref = malloc(in.count * sizeof *ref);
        assert_non_null(ref);
        assert_true(reference_product(n, in.A, in.B, ref));
        /* Both in double: each within gamma_n of the exact value. */
        double g = 2 * gamma_k(n, 0x1p-53);
        for (size_t i = 0; i < in.count; i++)
            if (!(fabs(ref[i] - in.ref[i]) <= g * in.absref[i]))
                fail_msg("n = %d, ref[%zu] = %.17g, naive %.17g", n, i, ref[i], in.ref[i]);
        free(ref);
        free_inputs(&in);
    }
}

/* splitmix64's published first output for state 0 is 0xE220A8397B1DCDAF; its top 24 bits make
 * the first element of A for seed 0. */
static void inputs_are_splitmix64(void **state)
{
    (void)state;
    float x[1000], y[1000];
    fill_uniform(x, 1, 0, 0);
    assert_true(x[0] == 2.0f * (0xE220A8 / 16777216.0f) - 1.0f);

    fill_uniform(x, 1000, 42, 0);
    fill_uniform(y, 1000, 42, 0);
    assert_memory_equal(x, y, sizeof x); /* the same seed, the same matrix */
    double sum = 0;
    for (int i = 0; i < 1000; i++) {
        assert_true(x[i] >= -1.0f && x[i] < 1.0f);
        sum += x[i];
    }
    /* Uniform on [-1, 1): mean 0, standard deviation of the mean 1/sqrt(3000); 6 of those. */
    assert_true(fabs(sum / 1000) < 6 / sqrt(3000.0));
    fill_uniform(y, 1000, 42, 1);
    assert_true(memcmp(x, y, sizeof x) != 0); /* B differs from A */
    fill_uniform(y, 1000, 43, 0);
    assert_true(memcmp(x, y, sizeof x) != 0); /* another seed, another matrix */
}

static void frobenius_error(void **state)
{
    (void)state;
    double ref[4] = {3, 4, 0, 0};
    float exact[4] = {3, 4, 0, 0};
    assert_close(rel_frobenius_error(exact, ref, 4), 0, 0);
    /* ||(0, 1)|| / ||(3, 4)|| = 1/5. */
    float off[4] = {3, 5, 0, 0};
    assert_close(rel_frobenius_error(off, ref, 4), 0.2, 1e-15);
    /* Scaled by 1.5: the error is half the norm. */
    float scaled[4] = {4.5f, 6, 0, 0};
    assert_close(rel_frobenius_error(scaled, ref, 4), 0.5, 1e-15);
    /* A NaN or an infinity anywhere: no error can be computed. */
    float nan_at_end[4] = {3, 4, 0, NAN};
    assert_true(isnan(rel_frobenius_error(nan_at_end, ref, 4)));
    float inf[4] = {INFINITY, 4, 0, 0};
    assert_true(isnan(rel_frobenius_error(inf, ref, 4)));
    /* A zero reference: zero is exact, anything else infinitely wrong. */
    double zero[2] = {0, 0};
    float zc[2] = {0, 0}, nz[2] = {0, 1e-30f};
    assert_close(rel_frobenius_error(zc, zero, 2), 0, 0);
    assert_true(isinf(rel_frobenius_error(nz, zero, 2)));
}

static void verify_sets_status(void **state)
{
    (void)state;
    double ref[4] = {3, 4, 0, 0};
    workload_run w;

    memset(&w, 0, sizeof w);
    float exact[4] = {3, 4, 0, 0};
    verify_into(&w, exact, ref, 4);
    assert_int_equal(w.status, WL_OK);
    assert_true(w.verified);
    assert_close(w.rel_error, 0, 0);
    assert_close(w.error_bound, error_bound(PREC_FP32), 0);

    /* One element off by 1e-4 of the norm: above FP32's bound, within TF32's. */
    float off[4] = {3, 4, 5e-4f, 0};
    memset(&w, 0, sizeof w);
    verify_into(&w, off, ref, 4);
    assert_int_equal(w.status, WL_FAILED);
    assert_true(w.verified);
    assert_close(w.rel_error, (double)5e-4f / 5, 1e-12);
    assert_non_null(strstr(w.status_reason, "above the bound"));
    memset(&w, 0, sizeof w);
    w.prec = PREC_TF32;
    verify_into(&w, off, ref, 4);
    assert_int_equal(w.status, WL_OK);
    assert_close(w.error_bound, error_bound(PREC_TF32), 0);

    /* An element never written keeps its NaN poison: failed, with no error to report. */
    float poison[4];
    memcpy(poison, exact, sizeof poison);
    memset(&poison[2], 0xFF, sizeof poison[2]);
    memset(&w, 0, sizeof w);
    verify_into(&w, poison, ref, 4);
    assert_int_equal(w.status, WL_FAILED);
    assert_false(w.verified);
    assert_non_null(strstr(w.status_reason, "NaN"));
}

static void cpu_workload_phases(void **state)
{
    (void)state;
    int n = 48;
    inputs in = make_inputs(n, new_seed(n));
    run_model m;
    model_init(&m);
    workload_run *w = model_add_workload(&m);
    assert_non_null(w);
    sample_rule three = cpu_sample_rule(3, 0.5, 500);
    cpu_run(n, in.A, in.B, in.ref, &three, w);
    assert_string_equal(w->name, "cpu-openblas");
    assert_false(w->needs_gpu);
    assert_int_equal(w->timing, TIMING_HOST_CLOCK);
    assert_int_equal(w->status, WL_OK);
    assert_true(w->verified && w->rel_error <= w->error_bound);
    assert_int_equal(w->repeat, 3);
    assert_int_equal(w->nproduct_ms, 3);
    assert_int_equal(w->samples, 3);
    assert_int_equal(w->stopped_by, STOP_REPEAT);
    assert_int_equal(w->n, n);
    assert_int_equal(w->launched, 4); /* the warm-up too */
    static const char *const order[] = {"allocate", "warm-up", "compute", "verify"};
    assert_int_equal(w->nphases, 4);
    for (int i = 0; i < 4; i++) {
        assert_string_equal(w->phases[i].name, order[i]);
        assert_true(w->phases[i].end_ns >= w->phases[i].start_ns);
        if (i > 0)
            assert_true(w->phases[i].start_ns >= w->phases[i - 1].end_ns);
    }
    /* The timed products lie inside the compute phase. */
    double sum = 0;
    for (int i = 0; i < w->nproduct_ms; i++) {
        assert_true(w->product_ms[i] > 0);
        sum += w->product_ms[i];
    }
    const phase *c = workload_find_phase(w, "compute");
    assert_true(sum * 1e6 <= (double)(c->end_ns - c->start_ns));

    /* No --repeat: sampled until the noise or the time says stop, at least 3, the noise recorded
     * as computed from the products kept. */
    workload_run *chosen = model_add_workload(&m);
    sample_rule by_noise = cpu_sample_rule(0, 0.5, 20);
    cpu_run(n, in.A, in.B, in.ref, &by_noise, chosen);
    assert_true(chosen->repeat >= 3);
    assert_int_equal(chosen->nproduct_ms, chosen->repeat);
    assert_int_equal(chosen->samples, chosen->repeat);
    assert_true(chosen->stopped_by == STOP_NOISE || chosen->stopped_by == STOP_TIME ||
                chosen->stopped_by == STOP_MAX_SAMPLES);
    assert_close(chosen->noise_pct, relative_noise_pct(chosen->product_ms, chosen->nproduct_ms), 1e-12);
    if (chosen->stopped_by == STOP_NOISE)
        assert_true(chosen->noise_pct <= 0.5);

    /* Against a wrong reference the workload fails, and says by how much. */
    in.ref[0] += 1.0;
    workload_run *wrong = model_add_workload(&m);
    sample_rule one = cpu_sample_rule(1, 0.5, 500);
    cpu_run(n, in.A, in.B, in.ref, &one, wrong);
    assert_int_equal(wrong->status, WL_FAILED);
    assert_true(wrong->rel_error > wrong->error_bound);
    model_free(&m);
    free_inputs(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sgemm_matches_naive),
        cmocka_unit_test(reference_matches_naive),
        cmocka_unit_test(inputs_are_splitmix64),
        cmocka_unit_test(frobenius_error),
        cmocka_unit_test(verify_sets_status),
        cmocka_unit_test(cpu_workload_phases),
    };
    return cmocka_run_group_tests_name("cpu blas", tests, NULL, NULL);
}
