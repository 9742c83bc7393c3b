/* mmprof profile's capture options (--delay, --duration, --capture-range, --capture-count,
 * --capture-skip, --max-size), checked together once cli_parse has seen them all: each value, then
 * the combinations, every message naming the option. And `mmprof capture start|stop TARGET`, the
 * command that opens and closes a manual capture from outside (capture_control.h). */
#include <limits.h>
#include <string.h>

#include "capture_control.h"
#include "cli_capture.h"
#include "cli_numbers.h"

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
                      : a->count ? "--capture-count" : a->skip ? "--capture-skip" : a->max_size ? "--max-size" : NULL;
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
    if (c->mode == CAPTURE_MANUAL && (a->count || a->skip)) {
        fprintf(err, "mmprof profile: %s counts ranges; --capture-range manual opens and closes its windows by "
                     "`mmprof capture start|stop`, as often as they are given\n",
                a->count ? "--capture-count" : "--capture-skip");
        return false;
    }
    if (a->max_size && !capture_parse_size(a->max_size, &c->max_bytes)) {
        fprintf(err, "mmprof profile: --max-size '%s': expected a size in bytes, optionally with K, M, G or T "
                     "(powers of 1024), from 1 to 1P: 500M, 2G\n",
                a->max_size);
        return false;
    }
    if (!a->range)
        c->mode = CAPTURE_TIME; /* --max-size alone: one window from CUDA's start to the cap */
    return true;
}

static const char capture_help[] =
    "Usage: mmprof capture start|stop TARGET\n"
    "\n"
    "Opens (start) or closes (stop) the capture window of a running `mmprof profile\n"
    "--capture-range manual`, in every profiled process of it, within one flush period (100 ms).\n"
    "TARGET: the pid or the profile directory that mmprof profile printed on standard error at\n"
    "its start (the pid of any process of the profiled job works too). Each window's begin and\n"
    "end are in the report, with control-start and control-stop as their reasons.\n"
    "\n"
    "Options:\n"
    "  -h, --help              this help\n"
    "\n"
    "Exit status: 0 the command was given; 2 a bad command, a TARGET that is no running profile,\n"
    "or a profile not started with --capture-range manual.\n";

int capture_main(int argc, char **argv, FILE *out, FILE *err)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(capture_help, out);
        return EXIT_OK;
    }
    if (argc != 3 || (strcmp(argv[1], "start") != 0 && strcmp(argv[1], "stop") != 0)) {
        fprintf(err, "mmprof capture: expected `mmprof capture start|stop TARGET`%s%s (mmprof capture --help)\n",
                argc > 1 ? ", not " : "", argc > 1 ? argv[1] : "");
        return EXIT_USAGE;
    }
    bool start = argv[1][2] == 'a';
    char dir[PATH_MAX], why[PATH_MAX + 160];
    if (!capture_control_find(argv[2], dir, sizeof dir, why, sizeof why)) {
        fprintf(err, "mmprof capture %s: %s\n", argv[1], why);
        return EXIT_USAGE;
    }
    capture_shared *s = capture_control_map(dir, why, sizeof why);
    if (!s) {
        fprintf(err, "mmprof capture %s: %s\n", argv[1], why);
        return EXIT_USAGE;
    }
    if (!s->manual) {
        fprintf(err, "mmprof capture %s: the profile in %s (pid %lld) was not started with --capture-range manual: "
                     "its windows are not opened from outside\n",
                argv[1], dir, (long long)s->launcher);
        capture_control_unmap(s);
        return EXIT_USAGE;
    }
    uint64_t word = capture_control_command(s, start);
    fprintf(out, "mmprof capture: %s sent to the profile in %s (pid %lld) as command %llu%s\n", argv[1], dir,
            (long long)s->launcher, (unsigned long long)(word >> 1),
            __atomic_load_n(&s->capped_ns, __ATOMIC_ACQUIRE) ? "; but its records already reached --max-size: "
                                                               "nothing more is recorded"
                                                             : "");
    capture_control_unmap(s);
    return EXIT_OK;
}
