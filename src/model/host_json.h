/* host_activity (host_activity.h) in the run file: the "host_activity" member, written and read
 * apart from the rest of model_json.c so the two change independently.
 *
 * A run may carry a million samples, so every record is an array of numbers in a fixed order,
 * not an object (about 30 bytes a sample), and the call tree is stored once, each stack named by
 * its innermost node:
 *   "host_activity": {"mechanism": "...", "rate_hz": 97, "why_not": "...", "symbols_why": "...",
 *     "frames":  [[pid, parent, kind, line, offset, function, file, module], ...]
 *     "inlined": [[frame, outer], ...]
 *     "samples": [[ts_ns, pid, tid, frame, source, state], ...]
 *     "spans":   [[start_ns, end_ns, pid, tid, frame], ...]
 *     "sites":   [[pid, correlation, frame], ...]}
 * parent and frame are indices into frames (-1: none; a parent comes before its children, and a
 * frame named by a record is of the record's process); "inlined" (absent where no frame has one,
 * and in files before it) pairs a native frame whose address lies in inlined code with its outer
 * node (host_frame.outer: a later native frame of its process, naming the function the code lies
 * in at its line of the call); kind "native" | "py" | "op"; source "cpu" |
 * "py"; state one letter or null; function, file, module strings or null; times relative to
 * epoch_ns, as the events'. A run without host activity has no such member. */
#ifndef MMPROF_HOST_JSON_H
#define MMPROF_HOST_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "host_activity.h"
#include "json_writer.h"

/* Writes h as the open object's "host_activity" member, or nothing when h is empty. False when
 * memory ran out. */
bool host_json_write(const host_activity *h, int64_t epoch, json_writer *w);

/* Where the member's record arrays may be read element by element instead of from the tree: a
 * long run's samples and sites grow with its length (13 k and 28 k a minute, 450 bytes each as a
 * cJSON tree), so model_json.c keeps each element's place in the text and parses it alone.
 * count(ctx, key): the elements of array key, -1 where it is read from the tree; element(ctx,
 * key, i): element i parsed (the caller deletes it), NULL where it is not valid JSON (ctx then
 * holds that error, so err is left alone). */
typedef struct {
    void *ctx;
    int (*count)(void *ctx, const char *key);
    cJSON *(*element)(void *ctx, const char *key, int i);
} host_split;

/* The elements of array arr, or of split's array key where it has it (element by element), each
 * handed to each(ctx, rec, i) in turn (an element parsed from split is freed after), until one
 * returns false. False then, or when split could not parse an element (its error stands). Shared
 * by the run file's members of records (host_json.c, memory_json.c). */
typedef bool (*json_record_fn)(void *ctx, const cJSON *rec, int index);
bool json_records_each(const cJSON *arr, const host_split *split, const char *key, json_record_fn each, void *ctx);

/* Reads root's "host_activity" member into h (empty where absent); its arrays from split where
 * that has them (NULL: all from the tree). On failure returns false with err saying where
 * ("host_activity.samples[3][3]: names no frame") and leaves what was read in h for the caller to
 * free. */
bool host_json_read(const cJSON *root, int64_t epoch, const host_split *split, host_activity *h, char *err,
                    size_t errlen);

#endif
