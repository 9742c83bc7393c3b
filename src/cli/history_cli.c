/* mmprof history DB [--range NAME] [--figure KEY]: the figure of every stored run that has it, in
 * the order the runs started, judged against the runs before it (src/analysis/history.h). The
 * figure is a key of the registry (metrics.c): of a range group with --range, else of the run. */
#include "history_cli.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "history.h"
#include "history_report.h"
#include "output_file.h"
#include "run_rows.h"
#include "schema.h"

static void usage(FILE *f)
{
    fputs("Usage: mmprof history DB [OPTIONS]\n"
          "\n"
          "One figure across the runs stored in DB (mmprof store, --db), in the order they started,\n"
          "each judged against the runs before it: its band is their median plus or minus their\n"
          "noise (3 x 1.4826 x their median absolute deviation, 3 x the standard error of a range's\n"
          "median from its own instances, or 2% of the median, whichever is largest); a run outside\n"
          "it changed the figure (!), and starts the runs the next ones are judged against.\n"
          "\n"
          "Options:\n"
          "      --range NAME        the figure of range group NAME (\"step *\": a range's name with\n"
          "                          its trailing number folded), instead of the whole run's\n"
          "      --figure KEY        which figure: a key of the range group (default median_ms) or\n"
          "                          of the run's region (default wall_ms), as the JSON report\n"
          "                          names them; an unknown KEY is refused with the keys there are\n"
          "      --command TEXT      only the runs whose command line holds TEXT (one program's\n"
          "                          runs, where the database keeps several)\n"
          "      --last N            the table shows the last N runs (the band uses them all)\n"
          "  -j, --json FILE         write every run's value, band and change as JSON\n"
          "      --html FILE         write a page that draws the figure, its band and its changes\n"
          "  -q, --quiet             no table on standard output\n"
          "  -h, --help              this help\n"
          "\n"
          "Exit status: 0 (whether or not a run changed the figure); 2 bad option, unknown figure,\n"
          "or a database without runs or without that range; 4 an output could not be written.\n",
          f);
}

typedef struct {
    history_point *p;
    int n, cap;
    bool oom;
} point_list;

static bool add_point(void *ctx, int ncols, const char *const *v)
{
    point_list *l = ctx;
    if (ncols < 5)
        return false;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 256;
        history_point *p = realloc(l->p, (size_t)cap * sizeof *p);
        if (!p) {
            l->oom = true;
            return false;
        }
        l->p = p, l->cap = cap;
    }
    history_point *p = &l->p[l->n++];
    memset(p, 0, sizeof *p);
    p->id = v[0] ? strtoll(v[0], NULL, 10) : 0;
    snprintf(p->started_at, sizeof p->started_at, "%s", v[1] ? v[1] : "");
    snprintf(p->key, sizeof p->key, "%.12s", v[2] ? v[2] : "");
    p->value = v[3] ? strtod(v[3], NULL) : NAN;
    /* A range's own noise is its median's: 1.2533 x the instances' robust sigma / sqrt(count), the
     * standard error of a median; the spread itself (diff's yardstick for one pair) would hide a
     * step's 10% move behind its slowest instances. */
    double mad = v[4] ? strtod(v[4], NULL) : NAN, count = ncols > 5 && v[5] ? strtod(v[5], NULL) : 0;
    p->own_noise = count >= 1 ? 1.2533 * 1.4826 * mad / sqrt(count) : NAN;
    return true;
}

/* The figure's definition in the registry table t describes, or a message listing its keys. */
static const metric_def *figure_of(const rr_table *t, const char *key, const char *what, FILE *err)
{
    const metric_def *d = metric_find(t->figures, key);
    if (d)
        return d;
    fprintf(err, "mmprof history: --figure '%s': not a figure of %s; one of:", key, what);
    for (int i = 0; i < t->figures->n; i++)
        fprintf(err, " %s", t->figures->defs[i].key);
    fprintf(err, "\n");
    return NULL;
}

static int write_doc(const char *opt, const char *path, char *text, FILE *err)
{
    char msg[512];
    output_file f;
    if (!output_open(&f, opt, path, msg, sizeof msg)) {
        fprintf(err, "mmprof history: %s\n", msg);
        free(text);
        return EXIT_OUTPUT;
    }
    int status = EXIT_OK;
    if (!text || !output_write(&f, text, strlen(text), msg, sizeof msg)) {
        fprintf(err, "mmprof history: %s %s\n", opt, text ? msg : "out of memory while rendering");
        status = EXIT_OUTPUT;
    }
    if (!output_close(&f, msg, sizeof msg)) {
        fprintf(err, "mmprof history: %s\n", msg);
        status = EXIT_OUTPUT;
    }
    free(text);
    return status;
}

int history_main(int argc, char **argv, FILE *out, FILE *err)
{
    enum { OPT_RANGE = 256, OPT_FIGURE, OPT_LAST, OPT_HTML, OPT_COMMAND };
    static const struct option longopts[] = {
        {"range", required_argument, NULL, OPT_RANGE}, {"figure", required_argument, NULL, OPT_FIGURE},
        {"last", required_argument, NULL, OPT_LAST},   {"json", required_argument, NULL, 'j'},
        {"html", required_argument, NULL, OPT_HTML},   {"quiet", no_argument, NULL, 'q'},
        {"command", required_argument, NULL, OPT_COMMAND}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *range = NULL, *key = NULL, *json_path = NULL, *html_path = NULL, *command = NULL;
    long last = 0;
    bool quiet = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":j:qh", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_RANGE: range = optarg; break;
        case OPT_FIGURE: key = optarg; break;
        case OPT_COMMAND: command = optarg; break;
        case OPT_LAST:
            if (!parse_positive(optarg, 1000000000L, &last)) {
                fprintf(err, "mmprof history: --last '%s': expected a whole number of runs, 1 or more\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'j': json_path = optarg; break;
        case OPT_HTML: html_path = optarg; break;
        case 'q': quiet = true; break;
        case 'h': usage(out); return EXIT_OK;
        case ':': fprintf(err, "mmprof history: option '%s' needs a value\n", argv[optind - 1]); return EXIT_USAGE;
        default:
            fprintf(err, "mmprof history: unknown option '%s' (try mmprof history --help)\n", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        fprintf(err, "mmprof history: expected one database (mmprof history DB [--range NAME] [--figure KEY])\n");
        return EXIT_USAGE;
    }
    if (json_path && html_path && strcmp(json_path, html_path) == 0) {
        fprintf(err, "mmprof history: '%s' is named for two outputs\n", json_path);
        return EXIT_USAGE;
    }
    const rr_table *t = &rr_tables[range ? RR_RANGE_GROUPS : RR_REGIONS];
    if (!key)
        key = range ? "median_ms" : "wall_ms";
    const metric_def *def = figure_of(t, key, range ? "a range group" : "the run", err);
    if (!def)
        return EXIT_USAGE;
    char msg[1024];
    db *d = db_open(argv[optind], false, msg, sizeof msg);
    if (!d) {
        fprintf(err, "mmprof history: %s\n", msg);
        return EXIT_USAGE;
    }
    if (!schema_present(d, msg, sizeof msg)) {
        fprintf(err, "mmprof history: %s\n", msg[0] ? msg : "the database holds no runs (store some with mmprof store)");
        db_close(d);
        return EXIT_USAGE;
    }
    strbuf q;
    sb_init(&q);
    sb_printf(&q, "SELECT r.id, r.started_at, r.key, t.\"%s\", %s FROM runs r JOIN %s t ON t.run_id = r.id WHERE ",
              def->key, range ? "t.mad_ms, t.count" : "NULL, NULL", t->name);
    if (range) {
        sb_add(&q, "t.name = ");
        sql_text(&q, range);
    } else
        sb_add(&q, "t.idx = 0");
    if (command) {
        /* LIKE with its wildcards escaped: both databases read it alike (instr and strpos differ) */
        strbuf pat;
        sb_init(&pat);
        sb_add(&pat, "%");
        for (const char *s = command; *s; s++) {
            if (*s == '%' || *s == '_' || *s == '\\')
                sb_add(&pat, "\\");
            sb_addn(&pat, s, 1);
        }
        sb_add(&pat, "%");
        sb_add(&q, " AND r.command_line LIKE ");
        sql_text(&q, pat.oom ? "" : pat.s);
        sb_add(&q, " ESCAPE '\\'");
        sb_free(&pat);
    }
    sb_add(&q, " ORDER BY r.started_at, r.id");
    point_list l = {0};
    int status = EXIT_OK;
    if (q.oom || !db_query(d, q.s, add_point, &l, msg, sizeof msg) || l.oom) {
        fprintf(err, "mmprof history: %s\n", q.oom || l.oom ? "out of memory" : msg);
        status = q.oom || l.oom ? EXIT_OUTPUT : EXIT_USAGE;
    } else if (l.n == 0) {
        fprintf(err, "mmprof history: %s: no stored run%s%s%s has %s%s%s\n", d->name, command ? " whose command line holds '" : "",
                command ? command : "", command ? "'" : "", range ? "a range '" : "a run region", range ? range : "",
                range ? "'" : "");
        status = EXIT_USAGE;
    }
    sb_free(&q);
    if (status == EXIT_OK) {
        history_judge(l.p, l.n);
        char what[300];
        if (range)
            snprintf(what, sizeof what, "range '%s'", range);
        else
            snprintf(what, sizeof what, "the run");
        history_view v = {d->name, what, def->key, def->unit, def->label, l.p, l.n, (int)last};
        if (!quiet && !(json_path && strcmp(json_path, "-") == 0) && !(html_path && strcmp(html_path, "-") == 0))
            render_history_text(&v, out);
        if (json_path && write_doc("--json", json_path, render_history_json(&v), err) != EXIT_OK)
            status = EXIT_OUTPUT;
        if (html_path && write_doc("--html", html_path, render_history_html(&v), err) != EXIT_OK)
            status = EXIT_OUTPUT;
    }
    free(l.p);
    db_close(d);
    return status;
}
