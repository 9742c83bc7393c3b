/* The sweep and measurement options: --sizes LIST or A:B, --max-noise, --max-time. Each bad value
 * is refused with the option named and what was expected. */
#include "cli_sweep.h"
#include "cli_numbers.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool power_of_two(long v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

static bool sizes_range(const char *arg, const char *colon, cli_options *o, FILE *err)
{
    char lo_s[32];
    size_t len = (size_t)(colon - arg);
    long lo, hi;
    if (len >= sizeof lo_s) {
        fprintf(err, "mmprof: --sizes '%s': expected A:B with whole numbers from 1 to %d\n", arg, MAX_SIZE);
        return false;
    }
    memcpy(lo_s, arg, len);
    lo_s[len] = '\0';
    if (!parse_positive(lo_s, MAX_SIZE, &lo) || !parse_positive(colon + 1, MAX_SIZE, &hi)) {
        fprintf(err, "mmprof: --sizes '%s': expected A:B with whole numbers from 1 to %d\n", arg, MAX_SIZE);
        return false;
    }
    if (lo > hi) {
        fprintf(err, "mmprof: --sizes '%s': the range is reversed (%ld is above %ld)\n", arg, lo, hi);
        return false;
    }
    if (!power_of_two(lo) || !power_of_two(hi)) {
        fprintf(err, "mmprof: --sizes '%s': a range runs between powers of two (e.g. 64:8192); "
                     "list other sizes with commas\n", arg);
        return false;
    }
    o->nsizes = 0;
    for (long v = lo; v <= hi; v *= 2) /* at most 20 powers of two below MAX_SIZE */
        o->sizes[o->nsizes++] = (int)v;
    return true;
}

static bool sizes_list(const char *arg, cli_options *o, FILE *err)
{
    o->nsizes = 0;
    const char *p = arg;
    for (;;) {
        size_t len = strcspn(p, ",");
        char tok[32];
        long v;
        if (len == 0 || len >= sizeof tok) {
            fprintf(err, "mmprof: --sizes '%s': expected sizes separated by single commas "
                         "(e.g. 256,512,1000) or a range of powers of two (e.g. 64:8192)\n", arg);
            return false;
        }
        memcpy(tok, p, len);
        tok[len] = '\0';
        if (!parse_positive(tok, MAX_SIZE, &v)) {
            fprintf(err, "mmprof: --sizes '%s': '%s' is not a whole number from 1 to %d\n", arg, tok, MAX_SIZE);
            return false;
        }
        for (int i = 0; i < o->nsizes; i++)
            if (o->sizes[i] == v) {
                fprintf(err, "mmprof: --sizes '%s': %ld is listed twice\n", arg, v);
                return false;
            }
        if (o->nsizes == MAX_SWEEP_SIZES) {
            fprintf(err, "mmprof: --sizes '%s': at most %d sizes\n", arg, MAX_SWEEP_SIZES);
            return false;
        }
        o->sizes[o->nsizes++] = (int)v;
        if (p[len] == '\0')
            return true;
        p += len + 1;
    }
}

bool parse_sizes(const char *arg, cli_options *o, FILE *err)
{
    const char *colon = strchr(arg, ':');
    bool ok = colon ? sizes_range(arg, colon, o, err) : sizes_list(arg, o, err);
    if (ok && o->nsizes == 1) { /* one size is a plain run */
        o->n = o->sizes[0];
        o->nsizes = 0;
    } else if (ok) {
        o->n = o->sizes[0];
    }
    return ok;
}
