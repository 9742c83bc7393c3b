/* Inputs and the FP64 reference. */
#include "inputs.h"

#include <cblas.h>
#include <stdlib.h>
#include <time.h>

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void fill_uniform(float *x, size_t count, uint64_t seed, uint64_t stream)
{
    uint64_t state = seed ^ (stream * 0xD1B54A32D192ED03ull);
    for (size_t i = 0; i < count; i++) {
        /* The top 24 bits give a float in [0, 1) exactly. */
        float u = (float)(splitmix64(&state) >> 40) * (1.0f / 16777216.0f);
        x[i] = 2.0f * u - 1.0f;
    }
}

bool reference_product(int n, const float *A, const float *B, double *ref)
{
    size_t count = (size_t)n * (size_t)n;
    double *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        a[i] = A[i];
        b[i] = B[i];
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, ref, n);
    free(a);
    free(b);
    return true;
}

uint64_t fresh_seed(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t s = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
    /* Kept below 2^53 so the seed reads back exactly from tools that parse JSON as doubles. */
    return splitmix64(&s) >> 11;
}
