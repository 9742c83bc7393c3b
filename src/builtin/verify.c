/* Relative Frobenius error against the FP64 reference. */
#include "verify.h"

#include <math.h>
#include <stdio.h>

double rel_frobenius_error(const float *C, const double *ref, size_t count)
{
    double diff = 0, norm = 0;
    for (size_t i = 0; i < count; i++) {
        double c = C[i];
        if (!isfinite(c))
            return NAN;
        double d = c - ref[i];
        diff += d * d;
        norm += ref[i] * ref[i];
    }
    if (norm == 0)
        return diff == 0 ? 0 : INFINITY;
    return sqrt(diff / norm);
}

double error_bound(precision p)
{
    return p == PREC_TF32 ? 1e-3 : 1e-5;
}

void verify_into(workload_run *w, const float *C, const double *ref, size_t count)
{
    double e = rel_frobenius_error(C, ref, count);
    w->error_bound = error_bound(w->prec);
    w->verified = !isnan(e);
    w->rel_error = isnan(e) ? 0 : e;
    /* Written this way round, NaN fails too. */
    w->status = (w->verified && e <= w->error_bound) ? WL_OK : WL_FAILED;
    if (w->status == WL_FAILED)
        snprintf(w->status_reason, sizeof w->status_reason, isnan(e)
                     ? "result holds NaN or infinity: elements never written, or overflow"
                     : "relative error %.3g above the bound %.1g", e, w->error_bound);
}
