/* libFuzzer target: record streams, as `mmprof profile` reads them back from the profiled
 * processes (stream_read_file). Any bytes must be read (bad lines counted and skipped) or refused
 * with a message, with no crash, leak or undefined behaviour; what is read must go to a run file
 * and come back with as much host activity (frames, samples, sites), so a value the stream reader
 * lets through but the run file cannot hold is found too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model_json.h"
#include "stream_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz.stream", 0);
        if (fd < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();
    run_model m;
    model_init(&m);
    m.source = SOURCE_PROFILE; /* as profile.c's build_model reads them */
    stream_summary s = {0};
    char err[512];
    if (!stream_read_file(path, &m, &s, err, sizeof err)) {
        model_free(&m);
        return 0;
    }
    if (!model_finish_regions(&m, "fuzz")) {
        model_free(&m);
        return 0;
    }
    m.epoch_ns = m.regions[0].start_ns;
    char *text = model_to_text(&m);
    if (text) {
        run_model back;
        if (!model_read_text("fuzz", text, strlen(text), &back, err, sizeof err)) {
            /* The stream reader takes GPU events on a device no device line described, which the
             * run file refuses (a real stream describes its devices first): only a refusal of
             * the host activity is this target's finding. */
            if (strstr(err, "host_activity")) {
                fprintf(stderr, "run file refused: %s\n", err);
                abort();
            }
            free(text);
            model_free(&m);
            return 0;
        }
        const host_activity *a = &m.host_activity, *b = &back.host_activity;
        if (back.events.nkernels != m.events.nkernels || back.events.napis != m.events.napis ||
            b->nframes != a->nframes || b->nsamples != a->nsamples || b->nsites != a->nsites ||
            strcmp(b->mechanism, a->mechanism) != 0 || strcmp(b->why_not, a->why_not) != 0)
            abort();
        model_free(&back);
        free(text);
    }
    model_free(&m);
    return 0;
}
