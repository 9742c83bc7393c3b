/* The outputs table (outputs.h): one row per output, in --help's order. */
#include "outputs.h"

#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "html.h"
#include "json_report.h"
#include "text.h"
#include "trace.h"

/* The renderers without a header of their own: each file declares itself with the table's type. */
output_render_fn render_markdown; /* markdown.c */

/* The run file takes the model's members rendered while the analysis ran. */
static bool json_stream(output_input *in, const text_sink *sink, char *err, size_t errlen)
{
    struct json_model_text *t = in->model_text;
    in->model_text = NULL;
    return render_json_to(in->a, t, sink, err, errlen);
}

static bool trace_stream(output_input *in, const text_sink *sink, char *err, size_t errlen)
{
    return render_trace_to(in->a, sink, err, errlen);
}

char *render_text_string(const analysis *a)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    render_text(a, f, false);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

const output_def outputs[] = {
    {"json", "--json", 'j', ".json", NULL, json_stream, NULL, NULL,
     "write the run as JSON (re-render it with `mmprof report`); an\n"
     "output named .gz, .zst or .xz is written compressed"},
    {"html", "--html", 0, ".html", render_html, NULL, NULL, NULL, "write a self-contained HTML report"},
    {"trace", "--trace", 0, ".trace.json", NULL, trace_stream, trace_window_note, trace_size_warning,
     "write a Chrome/Perfetto trace"},
    {"csv", "--csv", 0, ".csv", render_csv, NULL, NULL, NULL,
     "write every figure as CSV: a row per region, kernel, copy kind,\n"
     "workload and device"},
    {"md", "--md", 0, ".md", render_markdown, NULL, NULL, NULL,
     "write the summary, the wall-time account and the top tables as\n"
     "GitHub-flavoured Markdown (a pull-request comment)"},
    {"text", "--text", 0, ".txt", render_text_string, NULL, NULL, NULL,
     "write the text report to FILE instead of printing it"},
};
const int noutputs = (int)(sizeof outputs / sizeof outputs[0]);
_Static_assert(sizeof outputs / sizeof outputs[0] <= OUTPUTS_MAX, "OUTPUTS_MAX is too small for the table");

const output_def *output_named(const char *name)
{
    for (int i = 0; i < noutputs; i++)
        if (strcmp(outputs[i].name, name) == 0)
            return &outputs[i];
    return NULL;
}

int output_index(const output_def *d)
{
    return (int)(d - outputs);
}

/* The column --help's descriptions start at. */
#define HELP_COLUMN 26

void outputs_help(FILE *f)
{
    for (int i = 0; i < noutputs; i++) {
        const output_def *d = &outputs[i];
        char lead[64];
        if (d->short_option)
            snprintf(lead, sizeof lead, "-%c, %s FILE", d->short_option, d->option);
        else
            snprintf(lead, sizeof lead, "    %s FILE", d->option);
        fprintf(f, "  %-*s", HELP_COLUMN - 2, lead);
        for (const char *p = d->help; *p;) {
            size_t n = strcspn(p, "\n");
            fprintf(f, "%.*s\n", (int)n, p);
            p += n;
            if (*p == '\n' && *++p)
                fprintf(f, "%*s", HELP_COLUMN, "");
        }
    }
}
