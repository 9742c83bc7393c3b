/* libFuzzer target: run files. The bytes go through model_read_text, the entry `mmprof report`
 * uses (parse, then check every field), and whatever is accepted is analysed and rendered by
 * every renderer, so a value the reader lets through but a report cannot handle (the overflowing
 * device index was one) is found too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "html.h"
#include "json_report.h"
#include "model_json.h"
#include "text.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    run_model m;
    char err[512];
    bool ok = model_read_text("fuzz", buf, size, &m, err, sizeof err);
    free(buf);
    if (!ok)
        return 0;
    analysis a;
    if (analyze(&m, &a)) {
        render_text(&a, sink, true);
        char *(*const renderers[])(const analysis *) = {render_json, render_html, render_trace};
        for (size_t i = 0; i < sizeof renderers / sizeof renderers[0]; i++)
            free(renderers[i](&a));
        analysis_free(&a);
    }
    model_free(&m);
    return 0;
}
