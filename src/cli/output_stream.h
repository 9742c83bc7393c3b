/* An output written as it is rendered: text handed over in pieces (text_sink.h) is compressed
 * where the name asks (output_compress.h) and appended to the output's temporary file, which
 * replaces the file only when the last piece is in (output_file.h: nothing half-written, the
 * user's file kept on any failure). Memory is a buffer, not the output: a long run's run file and
 * trace are hundreds of megabytes of text. An output written in place (standard output, a pipe, a
 * device) gets its text as it comes, so a failure part-way leaves the reader part of it, and the
 * exit status (4) says so; a regular file never holds half a report. */
#ifndef MMPROF_OUTPUT_STREAM_H
#define MMPROF_OUTPUT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output_compress.h"
#include "output_file.h"
#include "text_sink.h"

typedef struct output_stream output_stream;

/* Begins writing o (output_open's), compressed as kind. NULL with a message in err. */
output_stream *output_stream_open(output_file *o, compress_kind kind, char *err, size_t errlen);

/* The sink that writes into s. */
text_sink output_stream_sink(output_stream *s);

/* The text's bytes so far (before compression). */
uint64_t output_stream_bytes(const output_stream *s);

/* Whether a write through the sink failed (output_stream_close then says why). */
bool output_stream_failed(const output_stream *s);

/* Ends the text with a newline where it does not end with one (a text file does), finishes the
 * compression and puts the file in place. False with a message in err when anything failed since
 * the open (a full disk, a closed pipe, a failed write through the sink): then nothing replaces
 * the user's file. Frees s either way. */
bool output_stream_close(output_stream *s, char *err, size_t errlen);

/* Gives up: the temporary is removed, the user's file stays. Frees s. */
void output_stream_abandon(output_stream *s);

#endif
