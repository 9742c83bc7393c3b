/* mmprof: where the time of a matrix multiply goes, on the CPU, in CUDA kernels and in cuBLAS.
 *
 * main wires the pipeline: parse the command line, check that every output can be written (before
 * seconds of work, not after), run, read or import the run model, analyse it, render each output. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "cli.h"
#include "cli_builtin.h"
#include "compare_cli.h"
#include "import.h"
#include "interrupt.h"
#include "json_report.h"
#include "model_json.h"
#include "model_merge.h"
#include "ncu_csv.h"
#include "output_file.h"
#include "output_stream.h"
#include "profile.h"
#include "rank_env.h"
#include "run_store.h"
#include "source.h"
#include "stage_times.h"
#include "store_cli.h"
#include "diff_cli.h"
#include "history_cli.h"
#include "text.h"
#include "output_compress.h"

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

/* Every file output named: its row of the outputs table (outputs.h), path and where it goes. */
typedef struct {
    const output_def *def;
    const char *path;   /* NULL: not asked for */
    output_file file;
} file_output;

/* f rendered and written through the output's temporary file (output_stream.h), compressed where
 * its name asks; EXIT_OUTPUT with a message on stderr when anything failed. */
static int write_output(output_input *in, file_output *f)
{
    const analysis *a = in->a;
    char err[512], why[256] = "out of memory";
    /* --json run.json.zst (or .gz, .xz): written compressed (output_compress.h); read back by content. */
    compress_kind ck = f->file.is_stdout ? COMPRESS_NONE : output_compress_kind(f->path);
    output_stream *s = output_stream_open(&f->file, ck, err, sizeof err);
    if (!s) {
        fprintf(stderr, "mmprof: %s\n", err);
        return EXIT_OUTPUT;
    }
    if (f->def->before)
        f->def->before(a, f->path, stderr);
    text_sink sink = output_stream_sink(s);
    bool rendered;
    if (f->def->stream) {
        rendered = f->def->stream(in, &sink, why, sizeof why);
    } else {
        /* A text rendered whole: refused before any of it is written where it cannot fit. */
        char *text = f->def->render(a);
        size_t len = text ? strlen(text) : 0;
        if (text && ck == COMPRESS_NONE && !output_room(&f->file, len, err, sizeof err)) {
            free(text);
            output_stream_abandon(s);
            fprintf(stderr, "mmprof: %s\n", err);
            return EXIT_OUTPUT;
        }
        rendered = text && sink_write(&sink, text, len);
        free(text);
    }
    uint64_t bytes = output_stream_bytes(s);
    if (!rendered && !output_stream_failed(s)) {
        output_stream_abandon(s);
        fprintf(stderr, "mmprof: %s '%s': %s while rendering\n", f->def->option, f->path, why);
        return EXIT_OUTPUT;
    }
    if (!output_stream_close(s, err, sizeof err)) {
        fprintf(stderr, "mmprof: %s\n", err);
        return EXIT_OUTPUT;
    }
    if (f->def->after)
        f->def->after(bytes, f->path, stderr);
    return rendered ? EXIT_OK : EXIT_OUTPUT;
}

static int write_outputs(output_input *in, file_output *outs, int n)
{
    int status = 0;
    for (int i = 0; i < n; i++) {
        if (!outs[i].path)
            continue;
        char err[512], stage[64];
        if (write_output(in, &outs[i]) != EXIT_OK)
            status = EXIT_OUTPUT;
        if (!output_close(&outs[i].file, err, sizeof err)) {
            fprintf(stderr, "mmprof: %s\n", err);
            status = EXIT_OUTPUT;
        }
        snprintf(stage, sizeof stage, "%s rendered and written", outs[i].def->option);
        stage_mark(stage);
    }
    return status;
}

/* Standard output's writes, checked: a full disk or a closed pipe must not pass for a report. */
static bool stdout_ok(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return true;
    fprintf(stderr, "mmprof: standard output: write failed: %s\n",
            errno == EPIPE ? "the reader closed the pipe" : strerror(errno));
    return false;
}

/* Opens every output before any work, and refuses an output that is the run file being read or
 * another output, by device and inode (so ./x, x and a symlink to x are one file). */
static int open_outputs(const cli_options *o, file_output *outs, int n)
{
    char err[512];
    struct stat in;
    bool have_in = o->report_mode && stat(o->run_file, &in) == 0;
    for (int i = 0; i < n; i++) {
        if (!outs[i].path)
            continue;
        if (!output_open(&outs[i].file, outs[i].def->option, outs[i].path, err, sizeof err)) {
            fprintf(stderr, "mmprof: %s\n", err);
            return EXIT_OUTPUT;
        }
        const output_file *f = &outs[i].file;
        if (have_in && output_is(f, &in) && S_ISREG(in.st_mode)) {
            fprintf(stderr, "%s: %s '%s' is the %s '%s' it reads; not overwriting it\n",
                    o->import_mode ? "mmprof import" : "mmprof report", outs[i].def->option, outs[i].path,
                    o->import_mode ? "trace" : "run file", o->run_file);
            return EXIT_USAGE;
        }
        for (int j = 0; j < i; j++)
            if (outs[j].path && output_is(&outs[j].file, &f->st) && (S_ISREG(f->st.st_mode) || f->is_stdout)) {
                fprintf(stderr, "mmprof: %s '%s' and %s '%s' are the same file\n", outs[j].def->option, outs[j].path,
                        outs[i].def->option, outs[i].path);
                return EXIT_USAGE;
            }
    }
    return EXIT_OK;
}

/* Outputs about this large for a run file of `bytes` bytes (measured on the samples: the JSON
 * is as large again, the trace about as large, the page a little less). The JSON of a run not
 * built in (scratch) needs as much again while it is written: its events go first to a scratch
 * file beside it, read back into it once the analysis is done. Warned about before the analysis
 * when the disk has less; the write itself refuses what does not fit. */
static void warn_space(const file_output *outs, int n, uint64_t bytes, bool scratch)
{
    for (int i = 0; i < n; i++) {
        if (!outs[i].path || outs[i].file.in_place)
            continue;
        bool json = scratch && outs[i].def == output_named("json");
        uint64_t space = output_free_space(&outs[i].file), need = json ? 2 * bytes : bytes;
        if (space != UINT64_MAX && space < need)
            fprintf(stderr, "mmprof: warning: %s '%s': about %llu bytes to write%s and %llu free\n", outs[i].def->option,
                    outs[i].path, (unsigned long long)need, json ? " (half of them to a scratch file beside it)" : "",
                    (unsigned long long)space);
    }
}

/* One recorded run or trace (import), or several merged into one (the ranks of a job). */
static bool read_one(const cli_options *o, const char *path, run_model *m)
{
    char err[512];
    bool ok = o->import_mode ? import_file(path, m, err, sizeof err) : model_read_file(path, m, err, sizeof err);
    if (!ok)
        fprintf(stderr, "%s: %s\n", o->import_mode ? "mmprof import" : "mmprof report", err);
    return ok;
}

static bool read_runs(const cli_options *o, run_model *m)
{
    if (!read_one(o, o->run_file, m))
        return false;
    if (o->nmore_files == 0)
        return true;
    merge_state s;
    if (!model_merge_begin(&s, m, o->run_file)) {
        fprintf(stderr, "mmprof: out of memory while merging\n");
        model_merge_finish(&s, m);
        model_free(m);
        return false;
    }
    for (int i = 0; i < o->nmore_files; i++) {
        run_model next;
        char err[512];
        bool ok = read_one(o, o->more_files[i], &next);
        if (ok && !model_merge(&s, m, &next, o->more_files[i], err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", o->import_mode ? "mmprof import" : "mmprof report", err);
            model_free(&next);
            ok = false;
        } else if (ok)
            model_free(&next);
        if (!ok) {
            model_merge_finish(&s, m);
            model_free(m);
            return false;
        }
    }
    return model_merge_finish(&s, m);
}

/* --ncu FILE: Nsight Compute's counters given to the run's kernels (ncu_csv.h), what matched said
 * on stderr. A recorded run that cannot take them is refused (false, m freed); a program just
 * profiled keeps its report without them. */
static bool attach_ncu(const cli_options *o, run_model *m)
{
    char err[1024];
    if (ncu_attach_file(m, o->ncu_file, stderr, err, sizeof err))
        return true;
    const char *cmd = o->import_mode ? "mmprof import" : o->profile_mode ? "mmprof profile" : "mmprof report";
    fprintf(stderr, "%s: --ncu %s%s\n", cmd, err, o->profile_mode ? "; reporting the run without them" : "");
    if (o->profile_mode)
        return true;
    model_free(m);
    return false;
}

/* profile: %r and %h in the output paths become the launcher's rank and the host, so that
 * `torchrun ... mmprof profile --json run.%r.json -- python3 train.py` writes one file per rank. */
static bool expand_rank_paths(cli_options *o, char expanded[OUTPUTS_MAX][PATH_MAX])
{
    rank_env r;
    rank_env_read(&r);
    for (int i = 0; i < noutputs; i++) {
        char why[400];
        const char **path = &o->out_path[i];
        if (!*path || !strchr(*path, '%'))
            continue;
        if (!rank_env_expand(&r, *path, expanded[i], PATH_MAX, why, sizeof why)) {
            fprintf(stderr, "mmprof profile: %s %s: %s\n", outputs[i].option, *path, why);
            return false;
        }
        *path = expanded[i];
    }
    return true;
}

int main(int argc, char **argv)
{
    /* A closed pipe is an error to report (exit 4), not a silent death by SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    interrupt_install(output_remove_temporary);
    /* `mmprof compare BASE NEW`: a command of its own (compare_cli.c). */
    if (argc > 1 && strcmp(argv[1], "compare") == 0)
        return compare_main(argc - 1, argv + 1, stdout, stderr);
    /* `mmprof diff A B`: what changed between two profiles (diff_cli.c). */
    if (argc > 1 && strcmp(argv[1], "diff") == 0)
        return diff_main(argc - 1, argv + 1, stdout, stderr);
    /* `mmprof history DB`: a figure across stored runs (history_cli.c). */
    if (argc > 1 && strcmp(argv[1], "history") == 0)
        return history_main(argc - 1, argv + 1, stdout, stderr);
    /* `mmprof store DB RUN...`: run files into a database (store_cli.c). */
    if (argc > 1 && strcmp(argv[1], "store") == 0)
        return store_main(argc - 1, argv + 1, stdout, stderr);
    /* `mmprof capture start|stop TARGET`: to a running profile (cli_capture.c). */
    if (argc > 1 && strcmp(argv[1], "capture") == 0)
        return capture_main(argc - 1, argv + 1, stdout, stderr);
    cli_options o;
    int rc = cli_parse(argc, argv, &o, stdout, stderr);
    if (rc >= 0)
        return rc == EXIT_OK && !stdout_ok() ? EXIT_OUTPUT : rc;
    stage_mark("start"); /* the clock of MMPROF_TIMINGS starts here */

    static char expanded[OUTPUTS_MAX][PATH_MAX];
    if (o.profile_mode && !expand_rank_paths(&o, expanded))
        return EXIT_USAGE;
    file_output outs[OUTPUTS_MAX];
    int nouts = noutputs;
    bool any_output = false;
    for (int i = 0; i < nouts; i++) {
        outs[i] = (file_output){&outputs[i], o.out_path[i], {0}};
        any_output |= o.out_path[i] != NULL;
    }
    rc = open_outputs(&o, outs, nouts);
    if (rc != EXIT_OK)
        return rc;
    /* An output on standard output takes it: the text report would corrupt it. */
    bool text = !o.quiet;
    for (int i = 0; i < nouts; i++)
        text &= !(outs[i].path && outs[i].file.is_stdout);
    if (o.quiet && !any_output) {
        fputs("mmprof: warning: --quiet and no", stderr);
        for (int i = 0; i < nouts; i++)
            fprintf(stderr, "%s %s", i == 0 ? "" : i == nouts - 1 ? " or" : ",", outputs[i].option);
        fputs(": this run writes no report; only the exit status tells the outcome\n", stderr);
    }
    /* --text FILE: the text report goes there, not to standard output (nor profile's stderr). */
    const char *text_file = o.out_path[output_index(output_named("text"))];
    /* What the renderers are handed: the analysis, and the run file's model members. */
    output_input render_in = {NULL, NULL};
    const int run_file = output_index(output_named("json"));

    /* --db: opened (and made) before any work, as every output is; written after the analysis. */
    db *store = NULL;
    if (o.db) {
        char err[1024];
        if (!(store = db_open(o.db, true, err, sizeof err))) {
            fprintf(stderr, "mmprof: --db: %s\n", err);
            return EXIT_OUTPUT;
        }
    }

    run_model m;
    int status;
    struct stat in;
    if (o.report_mode) {
        if (!read_runs(&o, &m))
            return EXIT_USAGE;
        if (stat(o.run_file, &in) == 0) /* report and import read a file */
            warn_space(outs, nouts, (uint64_t)in.st_size, !source_has(m.source, HAS_WORKLOADS));
        status = EXIT_OK;
        for (int i = 0; i < m.builtin.nworkloads; i++)
            if (m.builtin.workloads[i].status == WL_FAILED || m.builtin.workloads[i].status == WL_ERROR)
                status = EXIT_WORKLOAD_FAILED;
    } else if (o.profile_mode) {
        if (!profile_program(&o, &m, &status, stderr))
            return status;
    } else {
        builtin_options b;
        cli_builtin_options(&o, argc, argv, !o.quiet && isatty(fileno(stderr)), &b);
        status = builtin_exit_status(run_builtin(&b, &m, stderr));
        if (status != EXIT_OK && status != EXIT_WORKLOAD_FAILED)
            return status;
    }

    if (o.ncu_file && !attach_ncu(&o, &m))
        return EXIT_USAGE;
    stage_mark(o.report_mode ? "run files read" : "run");
    if (o.out_path[run_file]) /* into a scratch file beside the output, or in memory where none can be made */
        render_in.model_text = json_model_text_start(&m, output_scratch(&outs[run_file].file));
    analysis a;
    char too_large[256];
    if (!analysis_fits(&m, too_large, sizeof too_large)) {
        json_model_text_free(render_in.model_text);
        fprintf(stderr, "mmprof: %s\n", too_large);
        model_free(&m);
        return EXIT_USAGE;
    }
    if (!analyze(&m, &a)) {
        json_model_text_free(render_in.model_text);
        fprintf(stderr, "mmprof: out of memory while analysing the run\n");
        model_free(&m);
        return EXIT_OUTPUT;
    }
    stage_mark("analysis");
    int out_status = EXIT_OK;
    render_in.a = &a;
    if (text && !text_file && o.profile_mode) {
        /* profile: the report goes to stderr, so the program's stdout stays its own. */
        render_text(&a, stderr, use_color(o.color, stderr));
        fflush(stderr);
    } else if (text && !text_file) {
        render_text(&a, stdout, use_color(o.color, stdout));
        if (!stdout_ok())
            out_status = EXIT_OUTPUT;
    }
    stage_mark("text report");
    if (write_outputs(&render_in, outs, nouts) != EXIT_OK)
        out_status = EXIT_OUTPUT;
    if (store) {
        char err[1024], real[PATH_MAX];
        const char *from = o.report_mode && o.nmore_files == 0 && realpath(o.run_file, real) ? real : NULL;
        if (!run_store(store, &a, from, o.quiet ? NULL : stderr, err, sizeof err)) {
            fprintf(stderr, "mmprof: --db: %s; the run was not stored\n", err);
            out_status = EXIT_OUTPUT;
        }
        db_close(store);
        stage_mark("stored");
    }
    json_model_text_free(render_in.model_text); /* where --json was not rendered */
    analysis_free(&a);
    model_free(&m);
    stage_mark("freed");
    /* The last buffered bytes and the close itself can fail too (a full disk, a closed pipe). */
    if (fclose(stdout) != 0 && out_status == EXIT_OK) {
        fprintf(stderr, "mmprof: standard output: write failed: %s\n", strerror(errno));
        out_status = EXIT_OUTPUT;
    }
    status = out_status ? out_status : status;
    if (!o.report_mode && run_builtin_abandoned())
        _exit(status); /* a workload's thread still runs: no destructors under it */
    return status;
}
