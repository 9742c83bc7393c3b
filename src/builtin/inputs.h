/* The run's inputs: A and B filled from one seed, and the FP64 reference product. */
#ifndef MMPROF_INPUTS_H
#define MMPROF_INPUTS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/* Uniform in [-1, 1), from splitmix64 seeded by (seed, stream): A is stream 0, B stream 1, so
 * the same seed gives the same matrices on any machine. */
void fill_uniform(float *x, size_t count, uint64_t seed, uint64_t stream);

/* ref = A x B in double precision through OpenBLAS's dgemm (row-major, n x n). Returns false
 * when the double copies of A and B cannot be allocated. */
bool reference_product(int n, const float *A, const float *B, double *ref);

/* A seed from the clock, for runs that did not ask for one. */
uint64_t fresh_seed(void);

#endif
