/* The outputs a report is written as, declared once: each row its name, option, file suffix,
 * renderer and --help lines. The command line takes its options from this table
 * (src/cli/cli.c: parsing, --help, two outputs on one path), main opens, renders and writes every
 * output named from it (src/cli/main.c), and tests/test_docs_options.sh checks that the man page
 * and the bash completion list every row --help prints. A new output is its renderer file and one
 * row of outputs.c. */
#ifndef MMPROF_REPORT_OUTPUTS_H
#define MMPROF_REPORT_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "text_sink.h"

struct analysis;
struct json_model_text;

/* What a renderer that writes as it goes is handed: the analysis, and for the run file its
 * model's members rendered while the analysis ran (json_report.h), which that renderer takes. */
typedef struct {
    const struct analysis *a;
    struct json_model_text *model_text; /* NULL: none (then taken from a) */
} output_input;

/* A document rendered whole: its text (the caller frees it), or NULL when memory ran out. A
 * renderer file declares its function with this type (`output_render_fn render_markdown;`), so
 * the row and the definition are checked against one signature. */
typedef char *output_render_fn(const struct analysis *a);
/* A document handed to sink as it is made (the run file and the trace grow with the run: hundreds
 * of megabytes). False with why in err, or where the sink failed. */
typedef bool output_stream_fn(output_input *in, const text_sink *sink, char *err, size_t errlen);

typedef struct {
    const char *name;       /* "md": as the docs and tests/render_samples.sh name it */
    const char *option;     /* "--md" (getopt's long option is the name after the dashes) */
    char short_option;      /* 'j' for -j, or 0 */
    const char *suffix;     /* ".md": the file name's ending in the docs and rendered samples */
    output_render_fn *render; /* one of render and stream */
    output_stream_fn *stream;
    /* Said before the document is written and after (the trace: which window of the run it holds,
     * a size past what viewers open); NULL: nothing. */
    void (*before)(const struct analysis *a, const char *path, FILE *err);
    void (*after)(size_t bytes, const char *path, FILE *err);
    const char *help;       /* --help's words after "--md FILE", lines joined by '\n' */
} output_def;

/* The table, in the order --help lists the outputs and main writes them. */
#define OUTPUTS_MAX 12
extern const output_def outputs[];
extern const int noutputs;

/* The row of a name ("json"), NULL for none. */
const output_def *output_named(const char *name);
/* The row's index in outputs[]: what cli_options.out_path is indexed by. */
int output_index(const output_def *d);

/* --help's lines for the outputs: "  -j, --json FILE         write ..." with the continuation
 * lines under the first's words. */
void outputs_help(FILE *f);

/* The text report as a string (no colour), for --text FILE. */
output_render_fn render_text_string;

#endif
