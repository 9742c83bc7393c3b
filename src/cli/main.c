/* mmprof: where the time of a matrix multiply goes, on the CPU, in CUDA kernels and in cuBLAS.
 *
 * main wires the pipeline: parse the command line, check that every output can be written (before
 * seconds of work, not after), run, read or import the run model, analyse it, render each output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cli.h"
#include "csv.h"
#include "html.h"
#include "import.h"
#include "json_report.h"
#include "model_json.h"
#include "output_file.h"
#include "profile.h"
#include "runner.h"
#include "text.h"
#include "trace.h"

static bool use_color(color_mode mode, FILE *f)
{
    if (mode == COLOR_ALWAYS)
        return true;
    if (mode == COLOR_NEVER)
        return false;
    const char *no = getenv("NO_COLOR");
    if (no && no[0])
        return false;
    return isatty(fileno(f));
}

/* Every file output: its option name, path and renderer. */
typedef struct {
    const char *option;
    const char *path;
    char *(*render)(const analysis *a);
} file_output;

static int write_outputs(const analysis *a, const file_output *outs, int n)
{
    int status = 0;
    for (int i = 0; i < n; i++) {
        if (!outs[i].path)
            continue;
        char err[512];
        char *text = outs[i].render(a);
        if (!text) {
            fprintf(stderr, "mmprof: %s '%s': out of memory while rendering\n", outs[i].option, outs[i].path);
            status = EXIT_OUTPUT;
            continue;
        }
        size_t len = strlen(text);
        /* A text file ends with a newline. */
        bool nl = len == 0 || text[len - 1] != '\n';
        char *full = nl ? malloc(len + 2) : text;
        if (nl && full) {
            memcpy(full, text, len);
            full[len++] = '\n';
            full[len] = '\0';
        }
        if (!full || !write_file_atomic(outs[i].option, outs[i].path, full, len, err, sizeof err)) {
            fprintf(stderr, "mmprof: %s\n", full ? err : "out of memory");
            status = EXIT_OUTPUT;
        }
        if (full != text)
            free(full);
        free(text);
    }
    return status;
}

int main(int argc, char **argv)
{
    cli_options o;
    int rc = cli_parse(argc, argv, &o, stdout, stderr);
    if (rc >= 0)
        return rc;

    const file_output outs[] = {
        {"--json", o.json_path, render_json},
        {"--html", o.html_path, render_html},
        {"--trace", o.trace_path, render_trace},
        {"--csv", o.csv_path, render_csv},
        {"--text", o.text_path, render_text_string},
    };
    int nouts = (int)(sizeof outs / sizeof outs[0]);
    for (int i = 0; i < nouts; i++) {
        char err[512];
        if (outs[i].path && !output_path_ok(outs[i].option, outs[i].path, err, sizeof err)) {
            fprintf(stderr, "mmprof: %s\n", err);
            return EXIT_OUTPUT;
        }
    }

    run_model m;
    int status;
    if (o.import_mode) {
        char err[512];
        if (!import_file(o.run_file, &m, err, sizeof err)) {
            fprintf(stderr, "mmprof import: %s\n", err);
            return EXIT_USAGE;
        }
        status = EXIT_OK;
    } else if (o.report_mode) {
        char err[512];
        if (!model_read_file(o.run_file, &m, err, sizeof err)) {
            fprintf(stderr, "mmprof report: %s\n", err);
            return EXIT_USAGE;
        }
        status = EXIT_OK;
        for (int i = 0; i < m.nworkloads; i++)
            if (m.workloads[i].status == WL_FAILED || m.workloads[i].status == WL_ERROR)
                status = EXIT_WORKLOAD_FAILED;
    } else if (o.profile_mode) {
        if (!profile_run(&o, &m, &status, stderr))
            return status;
    } else {
        status = run_profile(&o, argc, argv, &m, stderr);
        if (status != EXIT_OK && status != EXIT_WORKLOAD_FAILED)
            return status;
    }

    analysis a;
    if (!analyze(&m, &a)) {
        fprintf(stderr, "mmprof: out of memory while analysing the run\n");
        model_free(&m);
        return EXIT_OUTPUT;
    }
    /* profile: the report goes to stderr, so the program's stdout stays its own. */
    FILE *text = o.profile_mode ? stderr : stdout;
    if (!o.quiet && !o.text_path) {
        render_text(&a, text, use_color(o.color, text));
        fflush(text);
    }
    int out_status = write_outputs(&a, outs, nouts);
    analysis_free(&a);
    model_free(&m);
    return out_status ? out_status : status;
}
