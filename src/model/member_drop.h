/* A JSON document's text as it is read, with the value of one top-level member left out: a run
 * file's "analysis" (what a report writes beside the run, a third of a long run's file), which the
 * reader steps over anyway (model_json.c recomputes it), so that reading a long run's file holds
 * 70 MB of text rather than 107.
 *
 * The value, an object or an array, becomes null followed by the newlines it held, so every line
 * number after it stays what it was; md_original maps an offset of the kept text back to the
 * file's, for messages. A value that never closes (a file cut inside it) leaves the kept text
 * without its end, which the reader then refuses as it refuses any cut file. Only the first such
 * member at the top level is left out; a scalar value of that key is kept. Written by hand: this is
 * a few lines of the scanning json_stream.c does, over chunks that arrive before the document is
 * whole, where no JSON library Debian ships hands back the text it passed over. */
#ifndef MMPROF_MEMBER_DROP_H
#define MMPROF_MEMBER_DROP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *key;  /* the member whose value is left out */
    int depth;        /* of the text so far: 1 inside the document's object */
    int skip_depth;   /* while leaving the value out: its nesting */
    bool in_string, escape;
    bool key_next;    /* at depth 1: the next string is a member's key */
    bool in_key;      /* reading one: key[0, nkey), too_long once it passed the room */
    char name[32];
    size_t nkey;
    bool too_long;
    enum { MD_COPY, MD_AFTER_KEY, MD_BEFORE_VALUE, MD_SKIP, MD_DONE } state;
    uint64_t taken, kept; /* bytes taken in and written out so far */
    uint64_t value_at;    /* where the left-out value began, in the bytes taken */
    uint64_t newlines;    /* the left-out value's, written out as it is passed over */
    uint64_t gap_at;      /* where the text after the left-out value begins, in the kept text */
    uint64_t gap;         /* bytes left out there: the value less "null" and its newlines */
} member_drop;

void md_init(member_drop *d, const char *key);
/* Takes the next len bytes of the document and writes what is kept to out, which has room for
 * len + 4 bytes; returns how many it wrote. */
size_t md_take(member_drop *d, const char *in, size_t len, char *out);
/* The file's offset of offset at of the kept text. */
uint64_t md_original(const member_drop *d, uint64_t at);

#endif
