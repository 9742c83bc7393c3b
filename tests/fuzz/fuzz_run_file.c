/* libFuzzer target: run files. The bytes go through model_read_text, the entry `mmprof report`
 * uses (parse, then check every field), and whatever is accepted is analysed and rendered by
 * every renderer, so a value the reader lets through but a report cannot handle (the overflowing
 * device index was one) is found too. model_read_text parses the event arrays one element at a
 * time; the same bytes parsed whole (cJSON_ParseWithOpts, model_from_json) must be accepted or
 * refused alike, with as many workloads and events. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "html.h"
#include <cjson/cJSON.h>
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
    cJSON *tree = cJSON_ParseWithOpts(buf, NULL, true);
    run_model whole;
    bool whole_ok = tree && model_from_json(tree, &whole, err, sizeof err);
    cJSON_Delete(tree);
    /* Parsed in parts, a workload may nest CJSON_NESTING_LIMIT levels below the document's top
     * rather than from it: inputs that deep are left out of the comparison. */
    size_t brackets = 0;
    for (size_t i = 0; i < size; i++)
        brackets += buf[i] == '[' || buf[i] == '{';
    /* cJSON_ParseWithOpts stops at a NUL byte, which the reader refuses anywhere. */
    bool has_nul = memchr(buf, '\0', size) != NULL;
    if (!has_nul && brackets < CJSON_NESTING_LIMIT - 10 && (ok != whole_ok || (ok && (m.builtin.nworkloads != whole.builtin.nworkloads || m.events.nkernels != whole.events.nkernels ||
                                    m.events.napis != whole.events.napis))))
        abort();
    if (whole_ok)
        model_free(&whole);
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
