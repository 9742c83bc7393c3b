/* The run model's JSON form, through cJSON. Reading what was written gives the same model. */
#ifndef MMPROF_MODEL_JSON_H
#define MMPROF_MODEL_JSON_H

#include <cjson/cJSON.h>

#include "json_writer.h"
#include "model.h"

/* What a writer of a report adds to the run file's own members: workload(o, i, ctx) may add to
 * workload i's object before it is written (false: out of memory). */
typedef struct {
    bool (*workload)(cJSON *o, int i, void *ctx);
    void *ctx;
} model_write_hooks;

/* Writes the model's members, of the current schema_version, into w's open document (the
 * caller opens and ends it, and may add members before and after); hooks may be NULL. Times are
 * written relative to m->epoch_ns. False when memory ran out. */
bool model_write(const run_model *m, json_writer *w, const model_write_hooks *hooks);

/* The model as one cJSON tree (the caller owns it), or NULL when memory ran out. */
cJSON *model_to_json(const run_model *m);
/* The model as run-file text (the caller frees it), or NULL when memory ran out. */
char *model_to_text(const run_model *m);

/* Fills m from a tree written by model_to_json, of schema_version 3 or (from an older mmprof) 1
 * or 2, whose missing fields take their defaults; either way m ends with its regions made
 * (model_finish_regions), and m->schema_version says which version the tree was. On failure
 * returns false, leaves m empty and puts in err where the tree went wrong
 * ("events.kernels[0].start_ns: expected an integer"). Fields the writer adds for readers
 * (metrics, analysis, summary) are ignored. A workload's "device_state" (NVML's readings) is
 * optional: a file without it loads with the state not recorded. */
bool model_from_json(const cJSON *root, run_model *m, char *err, size_t errlen);

/* Reads a run file: the whole file, parsed and checked. Errors name the file; on failure m is
 * left empty, as by model_from_json. */
bool model_read_file(const char *path, run_model *m, char *err, size_t errlen);

/* Reads a run file's text (buf[len] must be '\0'); name is the file's name for messages. The
 * entry model_read_file uses, and the fuzz target's. The event arrays are parsed one element at
 * a time, the rest as one tree: the same document is accepted or refused as model_from_json
 * does it. */
bool model_read_text(const char *name, const char *buf, size_t len, run_model *m, char *err, size_t errlen);

#endif
