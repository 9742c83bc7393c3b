/* Checking a product against the FP64 reference. */
#ifndef MMPROF_VERIFY_H
#define MMPROF_VERIFY_H

#include <stddef.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ||C - ref||_F / ||ref||_F. NaN when C holds a NaN or an infinity (an element never written
 * keeps the NaN poison it was filled with), so a comparison with a bound fails. */
double rel_frobenius_error(const float *C, const double *ref, size_t count);

/* The bound a product in this precision must meet. FP32 rounding over n-term sums of inputs in
 * [-1, 1) stays near 1e-6; TF32 keeps 10 mantissa bits and lands near 3e-4. */
double error_bound(precision p);

/* Fills w->rel_error, error_bound and verified, and sets status to WL_OK or WL_FAILED. */
void verify_into(workload_run *w, const float *C, const double *ref, size_t count);

#ifdef __cplusplus
}
#endif

#endif
