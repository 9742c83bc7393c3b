/* The noise band of a figure over runs, and its changes (history.h). */
#include "history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void history_judge(history_point *p, int n)
{
    double w[HISTORY_WINDOW];
    int stretch = 0; /* the first run since the last change */
    for (int i = 0; i < n; i++) {
        p[i].baseline = p[i].band = NAN;
        p[i].changed = 0;
        int from = i - HISTORY_WINDOW > stretch ? i - HISTORY_WINDOW : stretch, k = 0;
        for (int j = from; j < i; j++)
            if (isfinite(p[j].value))
                w[k++] = p[j].value;
        if (k < HISTORY_MIN_RUNS || !isfinite(p[i].value))
            continue;
        double med = median_of(w, k);
        for (int j = 0; j < k; j++)
            w[j] = fabs(w[j] - med);
        double mad = median_of(w, k);
        double band = fmax(HISTORY_SIGMAS * 1.4826 * mad, HISTORY_FLOOR_PCT / 100 * fabs(med));
        if (isfinite(p[i].own_noise))
            band = fmax(band, HISTORY_SIGMAS * p[i].own_noise);
        p[i].baseline = med;
        p[i].band = band;
        if (fabs(p[i].value - med) > band) {
            p[i].changed = p[i].value > med ? 1 : -1;
            stretch = i;
        }
    }
}
