/* mmprof profile's capture options (--delay, --duration, --capture-range, --capture-count,
 * --capture-skip), checked together once cli_parse has seen them all: each value, then the
 * combinations, every message naming the option. */
#include <string.h>

#include "cli.h"

/* A whole number in [lo, hi], no sign or trailing text. */
static bool whole(const char *s, long lo, long hi, long *out)
{
    if (strcmp(s, "0") == 0 && lo == 0) {
        *out = 0;
        return true;
    }
    return parse_positive(s, hi, out) && *out >= lo;
}

static bool seconds(const char *opt, const char *arg, int64_t *ns, FILE *err)
{
    double s;
    if (!parse_positive_real(opt, arg, CAPTURE_MAX_SECONDS, "seconds", &s, err))
        return false;
    *ns = (int64_t)(s * 1e9 + 0.5);
    return true;
}

bool capture_options(const capture_args *a, cli_options *o, FILE *err)
{
    capture_config *c = &o->capture;
    capture_config_init(c);
    const char *given = a->delay ? "--delay" : a->duration ? "--duration" : a->range ? "--capture-range"
                      : a->count ? "--capture-count" : a->skip ? "--capture-skip" : NULL;
    if (!given)
        return true;
    if (!o->profile_mode) {
        fprintf(err, "mmprof: %s chooses when mmprof profile records a program: it applies to mmprof profile only\n",
                given);
        return false;
    }
    if (a->delay && !seconds("--delay", a->delay, &c->delay_ns, err))
        return false;
    if (a->duration && !seconds("--duration", a->duration, &c->duration_ns, err))
        return false;
    char why[160];
    if (a->range && !capture_parse_range(a->range, c, why, sizeof why)) {
        fprintf(err, "mmprof profile: --capture-range '%s': %s\n", a->range, why);
        return false;
    }
    if (a->count && !whole(a->count, 1, CAPTURE_MAX_COUNT, &c->count)) {
        fprintf(err, "mmprof profile: --capture-count '%s': expected a whole number from 1 to %ld\n", a->count,
                CAPTURE_MAX_COUNT);
        return false;
    }
    if (a->skip && !whole(a->skip, 0, CAPTURE_MAX_COUNT, &c->skip)) {
        fprintf(err, "mmprof profile: --capture-skip '%s': expected a whole number from 0 to %ld\n", a->skip,
                CAPTURE_MAX_COUNT);
        return false;
    }
    if (a->range && (a->delay || a->duration)) {
        fprintf(err, "mmprof profile: %s and --capture-range both choose when to record: use one\n",
                a->delay ? "--delay" : "--duration");
        return false;
    }
    if (!a->range && (a->count || a->skip)) {
        fprintf(err, "mmprof profile: %s counts the ranges --capture-range names: add --capture-range\n",
                a->count ? "--capture-count" : "--capture-skip");
        return false;
    }
    if (!a->range)
        c->mode = CAPTURE_TIME;
    return true;
}
