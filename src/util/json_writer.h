/* Writing one JSON document a member or an element at a time, into a cJSON tree or as text.
 *
 * A run file holds every event of a run: hundreds of thousands of small objects. Built as one
 * cJSON tree before printing, the tree alone was 3.6 times the text. Here each value is built as
 * a small cJSON tree, handed over, and (text backend) printed and let go at once, so memory stays
 * at the document's text plus the largest single value. The same calls make one whole tree (tree
 * backend) for callers that want it (tests, the round trip), so a document has one writer.
 *
 * Written by hand because cJSON prints whole trees only; this composes its printed values, it
 * never parses or searches printed text. The text form is cJSON's unformatted printing of each
 * value (json_print.h prints it so, byte for byte, straight into the text) with a newline after
 * each member and array element, so a document reads one event per line and diffs line by
 * line. */
#ifndef MMPROF_JSON_WRITER_H
#define MMPROF_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "strbuf.h"
#include "text_sink.h"

#define JW_MAX_DEPTH 16

typedef struct {
    cJSON *stack[JW_MAX_DEPTH]; /* tree backend: the open objects and arrays */
    strbuf *text;               /* text backend: where the document goes (NULL: tree backend) */
    bool first[JW_MAX_DEPTH];   /* text backend: nothing written yet at that depth */
    bool array[JW_MAX_DEPTH];   /* text backend: that depth is an array (else an object) */
    int depth;
    bool failed;                /* out of memory, calls out of order, or the sink failed: every later
                                 * call fails */
    const text_sink *sink;      /* text backend: where the text goes once it passes JW_DRAIN_AT
                                 * (jw_drain_to), so it is never whole in memory; NULL: kept */
    cJSON *root;                /* tree backend: the document, once jw_end closed it */
} json_writer;

/* Starts a document (an object): into a tree, or appended to text. */
void jw_tree(json_writer *w);
void jw_text(json_writer *w, strbuf *text);
/* The text of a document's later members, into text of its own: what follows members another
 * writer wrote (so two parts can be written at once and joined, the first's text then this). */
void jw_text_after(json_writer *w, strbuf *text);

/* Text backend: from now on the text is handed to sink each time it passes JW_DRAIN_AT bytes,
 * and whole at jw_end or jw_drain (the strbuf then holds only what is not handed over yet). */
#define JW_DRAIN_AT (1u << 20)
void jw_drain_to(json_writer *w, const text_sink *sink);
/* Hands over what the text holds now (so that the caller may write to the sink itself). */
bool jw_drain(json_writer *w);

/* A member of the open object: key and value, which the writer takes (and frees where it fails;
 * NULL counts as a failure, so a builder's result can be passed straight in). */
bool jw_member(json_writer *w, const char *key, cJSON *value);
/* An element of the open array, likewise. */
bool jw_element(json_writer *w, cJSON *value);
/* Opens an object or array as a member (key) of the open object, or as an element (key NULL) of
 * the open array; jw_close closes the innermost one. */
bool jw_open_object(json_writer *w, const char *key);
bool jw_open_array(json_writer *w, const char *key);
bool jw_close(json_writer *w);
/* A member of the open object: an array of n integers (a run file's event columns, millions of
 * them), each made as it is written: at(i, ctx) for i = 0, 1, ... n - 1 in turn, so a column
 * computed from the events needs no array of its own. Formatted here rather than as cJSON
 * numbers, which print through sprintf and check the result with sscanf: that was most of the
 * time of writing a long run. Tree backend: exact for |v| < 2^53, as any JSON number read as a
 * double. */
typedef int64_t (*jw_int_fn)(size_t i, void *ctx);
bool jw_member_ints_of(json_writer *w, const char *key, size_t n, jw_int_fn at, void *ctx);

/* Text backend, for an array's elements rendered on several threads: w writes elements of an
 * open array into text of its own (first: its first element is the array's first), and
 * jw_append_elements adds such text, in order, to the array open in the document's writer. */
void jw_text_elements(json_writer *w, strbuf *text, bool first);
bool jw_append_elements(json_writer *w, const strbuf *text);

/* Closes the document. Tree backend: *root gets the tree (the caller's), or NULL after a failure.
 * Returns false when anything failed; the text is then incomplete. */
bool jw_end(json_writer *w, cJSON **root);

#endif
