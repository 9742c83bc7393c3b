/* Reading one large JSON document a value at a time, in bounded memory.
 *
 * A PyTorch trace is one JSON object whose "traceEvents" array holds millions of small objects.
 * Parsing the whole file into one cJSON tree costs about ten times the file's size; this reader
 * instead walks the document's outer levels itself and hands each value it is asked for (one trace
 * event, one top-level field) back as a span of text, which the caller parses alone with
 * cJSON_ParseWithLength. Memory stays at the largest single value plus a read buffer.
 *
 * It is written by hand because no library Debian ships does this: cJSON parses whole documents
 * only, and the streaming parsers that exist (yajl's callbacks, json-c's tokener) hand back
 * tokens, not a complete element as text or as a cJSON tree, so the per-event code would have to
 * rebuild objects from events. The scanner here only finds where a value ends (strings, escapes,
 * nesting); the values it returns are validated and parsed by cJSON. */
#ifndef MMPROF_JSON_STREAM_H
#define MMPROF_JSON_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_input.h"

/* Deeper nesting is refused: Kineto's events nest five levels, and a bound keeps cJSON's
 * recursion on the values handed to it shallow. */
#define JS_MAX_DEPTH 64

typedef enum {
    JS_OK = 0,
    JS_END,    /* the file ended (inside the value, when scanning one) */
    JS_SYNTAX, /* a closing bracket that does not match; err_offset says where */
    JS_DEEP,   /* nested deeper than JS_MAX_DEPTH; err_offset says where */
    JS_LARGE,  /* a value kept whole is larger than the caller's limit */
    JS_IO,     /* reading failed; ti_error of the input says why */
    JS_NOMEM,
} js_status;

typedef struct {
    trace_input *in;    /* where the text comes from, or */
    const char *text;   /* ... text already in memory, text_len bytes (a run file) */
    size_t text_len, text_pos;
    char *buf;
    size_t cap;
    size_t pos, len;    /* unread bytes are buf[pos, len) */
    uint64_t buf_off;   /* file offset of buf[0] */
    bool eof;
    int errno_saved;    /* EIO when the input failed, ENOMEM when memory ran out */
    uint64_t err_offset;
} json_stream;

/* Reads the JSON text of in (which stays the caller's); a UTF-8 byte-order mark before it is
 * passed over, and offsets still count it. */
void js_attach(json_stream *s, trace_input *in);
/* Reads text[0, len), which stays the caller's and must outlive the stream. */
void js_attach_text(json_stream *s, const char *text, size_t len);
/* Frees the read buffer (the input stays open). */
void js_close(json_stream *s);

/* File offset of the next unread byte. */
uint64_t js_offset(const json_stream *s);

/* Skips white space and returns the next byte without consuming it; -1 at the end of the file
 * (or on a read error: errno_saved is then non-zero). */
int js_peek(json_stream *s);

/* Why reading stopped: JS_END at the end of the input, JS_IO when it failed, JS_NOMEM. */
js_status js_failure(const json_stream *s);

/* Consumes the byte js_peek returned. */
void js_next(json_stream *s);

/* Scans the value that starts at the next non-blank byte. With keep, *text and *len get its whole
 * text (valid until the next call) and it may be at most max_len bytes; without, its bytes are
 * dropped as they are passed. *offset gets its file offset. */
js_status js_value(json_stream *s, bool keep, size_t max_len, const char **text, size_t *len,
                   uint64_t *offset);

/* The number text at t (JSON syntax) times 10^scale, rounded to the nearest integer (half away
 * from zero), computed on the digits: exact where a double is not (past 2^53). false when the
 * result does not fit an int64. */
bool js_decimal_scaled(const char *t, int scale, int64_t *out);

/* The text of the value that key names at the top level of the JSON object text[0, len), or
 * NULL. For text that cJSON has already accepted: it only steps over strings and nesting. */
const char *js_member_text(const char *text, size_t len, const char *key);

#endif
