/* mmprof diff A B: two runs, from run files or from a database (--db), compared structurally
 * (src/analysis/diff.h) and rendered as text, JSON or Markdown (report/diff_report.h). */
#include "diff_cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "diff.h"
#include "diff_report.h"
#include "output_file.h"
#include "run_store.h"
#include "store.h"

static void usage(FILE *f)
{
    fputs("Usage: mmprof diff A B [OPTIONS]\n"
          "\n"
          "What changed from run A to run B, where and why: each NVTX range group (by name; its\n"
          "median instance), each kernel (by name; its total time), each state of the run's\n"
          "wall-time account and each cause of it, matched by name on both sides. A and B are run\n"
          "files, or with --db runs of that database (an id, or the start of a run's key).\n"
          "\n"
          "A change is called only beyond the noise: a range repeated 3 times or more brings its\n"
          "own, 3 x 1.4826 x the median absolute deviation of its instances' wall times (the larger\n"
          "side's); a kernel 3 x its launches' stddev x sqrt(launches); and every change must also\n"
          "pass a floor, 2% of the larger side for repeated figures and 25% for those measured once\n"
          "(--min-change sets both), and for the run's states and causes and ranges run once, 2% of\n"
          "the run's wall time. A range that changed says where its time went: the states of its\n"
          "median instance, base against new (\"waiting for input +17.9 ms at train.py:38\").\n"
          "\n"
          "Options:\n"
          "      --db DB             A and B name runs of the database DB (SQLite file or\n"
          "                          postgresql://...); a path that is a file stays a run file\n"
          "      --threshold PCT     exit 1 when a range, kernel, state or cause got slower beyond\n"
          "                          its noise by more than PCT % (new work: PCT % of A's wall time)\n"
          "      --min-change PCT    the floor a change must pass, in % of the larger side\n"
          "  -j, --json FILE         write every thing compared as JSON\n"
          "      --md FILE           write the changes as a Markdown table (a CI summary), as\n"
          "                          report's --md writes a run's\n"
          "      --markdown FILE     the same as --md (its first name)\n"
          "  -a, --all               text and Markdown: list the things within noise too\n"
          "  -q, --quiet             no text on standard output\n"
          "  -h, --help              this help\n"
          "\n"
          "Exit status: 0 nothing past the threshold (or none given); 1 a change past it; 2 bad\n"
          "option, unreadable run file or unknown run; 4 an output or the database failed.\n",
          f);
}

static bool parse_pct(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = s && *s && *s != '-' ? strtod(s, &end) : -1;
    if (v < 0 || errno || !isfinite(v) || (*end && strcmp(end, "%") != 0))
        return false;
    *out = v;
    return true;
}

/* One side: a run file, or a run of the database. */
static bool load_side(const char *ref, db *d, run_rows *out, char *name, size_t namelen, char *err, size_t errlen)
{
    struct stat st;
    if (!d || stat(ref, &st) == 0) {
        snprintf(name, namelen, "%s", ref);
        return run_rows_of_file(ref, out, err, errlen);
    }
    long long id;
    if (!store_find(d, ref, &id, err, errlen) || !store_load(d, id, out, err, errlen))
        return false;
    snprintf(name, namelen, "run %lld (%.12s) of %s, started %s", id, out->key, d->name,
             rr_text(&out->tables[RR_RUNS], 0, "started_at"));
    return true;
}

static int write_doc(output_file *f, const char *opt, char *text, FILE *err)
{
    char msg[512];
    int status = 0;
    if (!text || !output_write(f, text, strlen(text), msg, sizeof msg)) {
        fprintf(err, "mmprof diff: %s %s\n", opt, text ? msg : "out of memory while rendering");
        status = EXIT_OUTPUT;
    }
    free(text);
    if (!output_close(f, msg, sizeof msg)) {
        fprintf(err, "mmprof diff: %s\n", msg);
        status = EXIT_OUTPUT;
    }
    return status;
}

int diff_main(int argc, char **argv, FILE *out, FILE *err)
{
    enum { OPT_DB = 256, OPT_THRESHOLD, OPT_MIN_CHANGE, OPT_MARKDOWN };
    static const struct option longopts[] = {
        {"db", required_argument, NULL, OPT_DB},
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"min-change", required_argument, NULL, OPT_MIN_CHANGE},
        {"json", required_argument, NULL, 'j'},
        {"md", required_argument, NULL, OPT_MARKDOWN},
        {"markdown", required_argument, NULL, OPT_MARKDOWN}, /* its first name, kept */
        {"all", no_argument, NULL, 'a'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    diff_options opt = {.threshold_pct = -1, .min_change_pct = -1};
    const char *db_name = NULL, *json_path = NULL, *md_path = NULL;
    bool all = false, quiet = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":j:aqh", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_DB: db_name = optarg; break;
        case OPT_THRESHOLD:
        case OPT_MIN_CHANGE:
            if (!parse_pct(optarg, c == OPT_THRESHOLD ? &opt.threshold_pct : &opt.min_change_pct)) {
                fprintf(err, "mmprof diff: %s '%s': expected a percentage of 0 or more, e.g. 5\n",
                        c == OPT_THRESHOLD ? "--threshold" : "--min-change", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'j': json_path = optarg; break;
        case OPT_MARKDOWN: md_path = optarg; break;
        case 'a': all = true; break;
        case 'q': quiet = true; break;
        case 'h': usage(out); return EXIT_OK;
        case ':': fprintf(err, "mmprof diff: option '%s' needs a value\n", argv[optind - 1]); return EXIT_USAGE;
        default:
            fprintf(err, "mmprof diff: unknown option '%s' (try mmprof diff --help)\n", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        fprintf(err, "mmprof diff: expected two runs, A and B (got %d; try mmprof diff --help)\n", argc - optind);
        return EXIT_USAGE;
    }
    if (json_path && md_path && strcmp(json_path, md_path) == 0 && strcmp(json_path, "-") != 0) {
        fprintf(err, "mmprof diff: '%s' is named for two outputs\n", json_path);
        return EXIT_USAGE;
    }
    char msg[1024];
    output_file jf, mf;
    if (json_path && !output_open(&jf, "--json", json_path, msg, sizeof msg)) {
        fprintf(err, "mmprof diff: %s\n", msg);
        return EXIT_OUTPUT;
    }
    if (md_path && !output_open(&mf, "--md", md_path, msg, sizeof msg)) {
        fprintf(err, "mmprof diff: %s\n", msg);
        if (json_path)
            output_close(&jf, msg, sizeof msg);
        return EXIT_OUTPUT;
    }
    db *d = NULL;
    if (db_name && !(d = db_open(db_name, false, msg, sizeof msg))) {
        fprintf(err, "mmprof diff: --db: %s\n", msg);
        if (json_path)
            output_close(&jf, msg, sizeof msg);
        if (md_path)
            output_close(&mf, msg, sizeof msg);
        return EXIT_USAGE;
    }
    run_rows r[2];
    char names[2][700];
    int have = 0, status = EXIT_OK;
    for (; have < 2; have++)
        if (!load_side(argv[optind + have], d, &r[have], names[have], sizeof names[have], msg, sizeof msg)) {
            fprintf(err, "mmprof diff: %s: %s\n", have ? "B" : "A", msg);
            status = EXIT_USAGE;
            break;
        }
    run_diff df = {0};
    if (status == EXIT_OK && !diff_runs(&r[0], &r[1], &opt, &df)) {
        fprintf(err, "mmprof diff: out of memory while comparing\n");
        status = EXIT_OUTPUT;
    }
    diff_names dn = {names[0], names[1], all};
    if (status == EXIT_OK && !quiet && !(json_path && strcmp(json_path, "-") == 0) &&
        !(md_path && strcmp(md_path, "-") == 0))
        render_diff_text(&df, &dn, out);
    int wrote = EXIT_OK;
    if (status != EXIT_OK) {
        /* nothing to write: the outputs stay as they were */
        if (json_path)
            output_close(&jf, msg, sizeof msg);
        if (md_path)
            output_close(&mf, msg, sizeof msg);
    } else {
        if (json_path)
            wrote |= write_doc(&jf, "--json", render_diff_json(&df, &dn), err);
        if (md_path)
            wrote |= write_doc(&mf, "--md", render_diff_markdown(&df, &dn), err);
        status = wrote ? EXIT_OUTPUT : df.regressions > 0 ? EXIT_WORKLOAD_FAILED : EXIT_OK;
    }
    run_diff_free(&df);
    for (int i = 0; i < have; i++)
        run_rows_free(&r[i]);
    db_close(d);
    return status;
}
