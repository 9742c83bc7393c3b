/* What the importers' libFuzzer targets share: any bytes as a file must come back imported or
 * refused with a message naming the file, with no crash, leak or undefined behaviour (ASan and
 * UBSan watch); what is imported is then analysed and rendered by every renderer, so a value an
 * importer lets through but a report cannot handle is found too.
 *
 * The importers read a path, so each input goes to a memfd and is read through /proc/self/fd
 * (fuzz_import), or through a pipe another thread writes (fuzz_import_pipe.c). */
#ifndef MMPROF_FUZZ_IMPORT_H
#define MMPROF_FUZZ_IMPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze.h"
#include "csv.h"
#include "html.h"
#include "import.h"
#include "json_report.h"
#include "text.h"
#include "trace.h"

typedef bool (*importer)(const char *path, run_model *m, char *err, size_t errlen);

/* Imports path and checks the outcome: refused with a message naming the file and an empty
 * model, or analysed and rendered by every renderer. */
static int fuzz_import_path(importer import, const char *path)
{
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    run_model m;
    model_init(&m);
    char err[512] = "";
    if (!import(path, &m, err, sizeof err)) {
        /* Refused: a message that names the file, and nothing left in the model. */
        if (strncmp(err, path, strlen(path)) != 0 || m.nregions || m.events.nkernels || m.ndevices)
            abort();
        model_free(&m);
        return 0;
    }
    analysis a;
    if (analyze(&m, &a)) {
        render_text(&a, sink, false);
        char *(*renderers[])(const analysis *) = {render_json, render_html, render_trace, render_csv};
        for (size_t i = 0; i < sizeof renderers / sizeof renderers[0]; i++)
            free(renderers[i](&a));
        analysis_free(&a);
    }
    model_free(&m);
    return 0;
}

/* unused where a target reads another way (fuzz_import_pipe.c) */
__attribute__((unused)) static int fuzz_import(importer import, const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("input", 0);
        if (fd < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();
    return fuzz_import_path(import, path);
}

#endif
