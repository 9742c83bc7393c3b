/* mmprof compare: reads two run files, analyses each, compares them and renders the comparison.
 * A file given as both BASE and NEW (the same file, by device and inode, under any name) is
 * refused: comparing a run with itself says nothing, and in a CI script it is a mistake that
 * would otherwise pass silently. A copy of a run compares as "same within noise". */
#include "compare_cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "compare_report.h"
#include "analyze.h"
#include "model_json.h"
#include "output_file.h"

static void usage(FILE *f)
{
    fputs("Usage: mmprof compare BASE NEW [OPTIONS]\n"
          "\n"
          "Compares two run files (mmprof --json, mmprof import ... --json): each workload (matched by\n"
          "label, e.g. \"cuda-naive (pinned)\", and by its size n when either run is a sweep) and each\n"
          "region (by kind and name path; the n-th repeat with the n-th), figure by figure, for every\n"
          "figure both runs measured.\n"
          "\n"
          "The rule (nvbench's): change = (new - base) / base. A change counts only when\n"
          "|change| > max(noise of base, noise of new), noise being stdev / mean of the timed samples\n"
          "(a workload's recorded sampling noise, else its per-product times; a region's main-kernel\n"
          "launches); otherwise it is \"same within noise\". A change that counts is faster or slower\n"
          "by the figure's direction (times lower is better, throughputs higher); \"(noise n/a)\" marks\n"
          "a figure with no samples.\n"
          "\"!\" marks a figure worse by more than --threshold and beyond a known noise.\n"
          "\n"
          "Options:\n"
          "      --threshold PCT     exit 1 when a figure got worse by more than PCT % and beyond its\n"
          "                          noise (for CI); figures without a noise estimate never count;\n"
          "                          without the option, changes never fail the command\n"
          "  -j, --json FILE         write the comparison as JSON (every figure)\n"
          "  -a, --all               list every figure, not only those that changed\n"
          "  -q, --quiet             no table on standard output\n"
          "  -h, --help              this help\n"
          "\n"
          "Built-in runs sample each workload until its noise is low enough, so totals over the\n"
          "products timed (a workload's kernel total, a built-in region's sums) are not compared.\n"
          "Files of schema version 1 are brought up to date on reading and compare with version 2 files.\n"
          "Runs from different GPUs or sizes compare with a warning. BASE and NEW may not be one file.\n"
          "\n"
          "Exit status: 0 no figure worse than the threshold (or none given); 1 a figure worse beyond\n"
          "the threshold and the noise; 2 bad option, unreadable or invalid run file, or one file given\n"
          "twice; 4 the JSON file could not be written.\n",
          f);
}

/* A percentage: a non-negative decimal number, with or without a trailing '%'. */
static bool parse_pct(const char *s, double *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return false;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v) || v < 0)
        return false;
    if (*end == '%')
        end++;
    if (*end)
        return false;
    *out = v;
    return true;
}

/* Warnings about the pair, kept for the JSON and said on stderr. */
typedef struct {
    char *text[8];
    int n;
} pair_warnings;

static void warn(pair_warnings *w, FILE *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn(pair_warnings *w, FILE *err, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(err, "mmprof compare: warning: %s\n", buf);
    if (w->n < 8 && (w->text[w->n] = strdup(buf)))
        w->n++;
}

static void check_pair(const run_model *b, const run_model *n, pair_warnings *w, FILE *err)
{
    const char *db = b->ndevices > 0 ? b->devices[0].name : "no GPU";
    const char *dn = n->ndevices > 0 ? n->devices[0].name : "no GPU";
    if (strcmp(db, dn) != 0)
        warn(w, err, "the runs come from different devices: BASE '%s', NEW '%s'", db, dn);
    if (b->schema_version != n->schema_version)
        warn(w, err, "BASE is schema_version %d, NEW %d: version 1 was brought up to date on reading "
                     "(regions made from its workloads), so the figures compare alike",
             b->schema_version, n->schema_version);
    if (b->source != n->source)
        warn(w, err, "BASE is a %s run, NEW a %s run: only what both have is compared", run_source_name(b->source),
             run_source_name(n->source));
    else if (b->builtin.n != n->builtin.n)
        warn(w, err, "the matrix sizes differ: BASE n = %d, NEW n = %d", b->builtin.n, n->builtin.n);
}

int compare_main(int argc, char **argv, FILE *out, FILE *err)
{
    static const struct option longopts[] = {
        {"threshold", required_argument, NULL, 't'}, {"json", required_argument, NULL, 'j'},
        {"all", no_argument, NULL, 'a'},             {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
    };
    double threshold = -1;
    const char *json_path = NULL;
    bool all = false, quiet = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":j:aqh", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (!parse_pct(optarg, &threshold)) {
                fprintf(err, "mmprof compare: --threshold '%s': expected a percentage of 0 or more, e.g. 5\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'j': json_path = optarg; break;
        case 'a': all = true; break;
        case 'q': quiet = true; break;
        case 'h': usage(out); return EXIT_OK;
        case ':':
            fprintf(err, "mmprof compare: option '%s' needs a value\n", argv[optind - 1]);
            return EXIT_USAGE;
        default:
            fprintf(err, "mmprof compare: unknown option '%s' (try mmprof compare --help)\n", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        fprintf(err, "mmprof compare: expected two run files, BASE and NEW (got %d; try mmprof compare --help)\n",
                argc - optind);
        return EXIT_USAGE;
    }
    const char *paths[2] = {argv[optind], argv[optind + 1]};
    struct stat st[2];
    for (int i = 0; i < 2; i++)
        if (stat(paths[i], &st[i]) != 0) {
            fprintf(err, "mmprof compare: %s: cannot read run file '%s': %s\n", i ? "NEW" : "BASE", paths[i], strerror(errno));
            return EXIT_USAGE;
        }
    if (st[0].st_dev == st[1].st_dev && st[0].st_ino == st[1].st_ino) {
        fprintf(err, "mmprof compare: BASE '%s' and NEW '%s' are the same file; compare two runs (a copy of a "
                     "run compares as same within noise)\n", paths[0], paths[1]);
        return EXIT_USAGE;
    }
    char msg[512];
    output_file jf;
    if (json_path) {
        /* Opened before any work, as every output is (output_file.h); an input it names is refused
         * by device and inode. */
        if (!output_open(&jf, "--json", json_path, msg, sizeof msg)) {
            fprintf(err, "mmprof compare: %s\n", msg);
            return EXIT_OUTPUT;
        }
        for (int i = 0; i < 2; i++)
            if (output_is(&jf, &st[i])) {
                fprintf(err, "mmprof compare: --json '%s' would overwrite the run file it reads\n", json_path);
                output_close(&jf, msg, sizeof msg);
                return EXIT_USAGE;
            }
    }

    run_model m[2];
    analysis a[2];
    int status = EXIT_USAGE, have = 0, analysed = 0;
    pair_warnings pw = {.n = 0};
    comparison cmp;
    memset(&cmp, 0, sizeof cmp);
    for (; have < 2; have++)
        if (!model_read_file(paths[have], &m[have], msg, sizeof msg)) {
            fprintf(err, "mmprof compare: %s: %s\n", have ? "NEW" : "BASE", msg);
            goto out;
        }
    for (; analysed < 2; analysed++) {
        char too_large[256];
        if (!analysis_fits(&m[analysed], too_large, sizeof too_large)) {
            fprintf(err, "mmprof compare: '%s': %s\n", paths[analysed], too_large);
            status = EXIT_USAGE;
            goto out;
        }
        if (!analyze(&m[analysed], &a[analysed])) {
            fprintf(err, "mmprof compare: out of memory while analysing '%s'\n", paths[analysed]);
            status = EXIT_OUTPUT;
            goto out;
        }
    }
    check_pair(&m[0], &m[1], &pw, err);
    if (!compare_runs(&a[0], &a[1], threshold, &cmp)) {
        fprintf(err, "mmprof compare: out of memory while comparing\n");
        status = EXIT_OUTPUT;
        goto out;
    }
    status = cmp.regressions > 0 ? EXIT_WORKLOAD_FAILED : EXIT_OK;
    compare_report rep = {.base = {paths[0], &m[0]}, .new_run = {paths[1], &m[1]}, .c = &cmp,
                          .warnings = pw.text, .nwarnings = pw.n, .exit_status = status};
    if (!quiet)
        render_compare_text(&rep, all, out);
    if (json_path) {
        char *text = render_compare_json(&rep);
        size_t len = text ? strlen(text) : 0;
        char *full = text ? realloc(text, len + 2) : NULL;
        if (full) {
            full[len++] = '\n';
            full[len] = '\0';
        }
        if (!full || !output_write(&jf, full, len, msg, sizeof msg)) {
            fprintf(err, "mmprof compare: %s\n", full ? msg : "out of memory while rendering the JSON");
            status = EXIT_OUTPUT;
        }
        free(full ? full : text);
    }

out:
    if (json_path && !output_close(&jf, msg, sizeof msg)) {
        fprintf(err, "mmprof compare: %s\n", msg);
        status = EXIT_OUTPUT;
    }
    comparison_free(&cmp);
    for (int i = 0; i < analysed; i++)
        analysis_free(&a[i]);
    for (int i = 0; i < have; i++)
        model_free(&m[i]);
    for (int i = 0; i < pw.n; i++)
        free(pw.text[i]);
    return status;
}
