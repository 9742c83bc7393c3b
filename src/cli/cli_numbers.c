/* Numbers on the command line. See cli_numbers.h. */
#include "cli_numbers.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

bool parse_positive(const char *s, long max, long *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno == ERANGE || *end != '\0' || v <= 0 || v > max)
        return false;
    *out = v;
    return true;
}

bool parse_positive_real(const char *opt, const char *arg, double max, const char *unit, double *out, FILE *err)
{
    errno = 0;
    char *end;
    double v = arg[0] ? strtod(arg, &end) : 0;
    if (!arg[0] || errno == ERANGE || *end != '\0' || !isfinite(v) || v <= 0 || v > max) {
        fprintf(err, "mmprof: %s '%s': expected a positive number of %s, at most %g\n", opt, arg, unit, max);
        return false;
    }
    *out = v;
    return true;
}
