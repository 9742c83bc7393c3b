/* Statistics shared by the stages. See stats.h. */
#include "stats.h"

#include <math.h>

double relative_noise_pct(const double *v, int n)
{
    if (n < 2)
        return -1;
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    double mean = sum / n;
    if (!(mean > 0))
        return -1;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    return 100.0 * sqrt(ss / (n - 1)) / mean;
}
