/* The spread of a set of durations and their median. See spread.h. */
#include "spread.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void duration_spread(double *d, int c, metric *mean, metric *min, metric *median, metric *max, metric *stddev,
                     const char *one)
{
    double sum = 0, sq = 0;
    for (int i = 0; i < c; i++)
        sum += d[i];
    double avg = sum / c;
    for (int i = 0; i < c; i++)
        sq += (d[i] - avg) * (d[i] - avg);
    qsort(d, (size_t)c, sizeof *d, cmp_double);
    metric_set(mean, avg);
    metric_set(min, d[0]);
    metric_set(max, d[c - 1]);
    metric_set(median, (c % 2) ? d[c / 2] : 0.5 * (d[c / 2 - 1] + d[c / 2]));
    if (c > 1)
        metric_set(stddev, sqrt(sq / (c - 1)));
    else
        metric_na(stddev, "%s", one);
}

double median_of(const double *v, int n)
{
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return v[0];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double med = (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return med;
}
