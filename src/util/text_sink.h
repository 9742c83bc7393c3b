/* Where a renderer's text goes as it is made: a file being written (output_stream.h), a scratch
 * file, or memory. A renderer that writes through one never holds its whole output, which for a
 * long run's run file or trace is hundreds of megabytes. */
#ifndef MMPROF_TEXT_SINK_H
#define MMPROF_TEXT_SINK_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    /* Takes len bytes of text; false when they could not be written (the sink keeps why). */
    bool (*write)(void *ctx, const char *data, size_t len);
    void *ctx;
} text_sink;

static inline bool sink_write(const text_sink *s, const char *data, size_t len)
{
    return len == 0 || s->write(s->ctx, data, len);
}

#endif
