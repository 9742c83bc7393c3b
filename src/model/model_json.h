/* The run model's JSON form, through cJSON. Reading what was written gives the same model. */
#ifndef MMPROF_MODEL_JSON_H
#define MMPROF_MODEL_JSON_H

#include <cjson/cJSON.h>

#include "model.h"

/* The model as a cJSON tree of the current schema_version (the caller owns it), or NULL when
 * memory ran out. Times are written relative to m->epoch_ns. */
cJSON *model_to_json(const run_model *m);

/* One workload as model_to_json writes it in "workloads" (the caller owns it), or NULL. */
cJSON *model_workload_to_json(const workload_run *w, int64_t epoch);

/* Fills m from a tree written by model_to_json, of schema_version 2 or (from an older mmprof) 1,
 * whose missing fields take their defaults; either way m ends with its regions made
 * (model_finish_regions), and m->schema_version says which version the tree was. On failure
 * returns false, leaves m empty and puts in err where the tree went wrong
 * ("workloads[1].kernels[0].start_ns: expected an integer"). Fields the writer adds for readers
 * (metrics, analysis) are ignored. A workload's "device_state" (NVML's readings) is optional in
 * either version: a file without it loads with the state not recorded. */
bool model_from_json(const cJSON *root, run_model *m, char *err, size_t errlen);

/* Reads a run file: the whole file, parsed and checked. Errors name the file; on failure m is
 * left empty, as by model_from_json. */
bool model_read_file(const char *path, run_model *m, char *err, size_t errlen);

/* Calls build(ctx) with cJSON allocating its nodes from an arena (a few million nodes, each a
 * malloc of its own otherwise), prints the tree it returns, and releases the tree. The text is
 * the caller's to free; NULL when build returned NULL or memory ran out. The tree must not be
 * given to cJSON_Delete (build's own failures may: it does nothing then). */
char *json_print_built(cJSON *(*build)(const void *ctx), const void *ctx);

/* Reads a run file's text (buf[len] must be '\0'); name is the file's name for messages. The
 * entry model_read_file uses, and the fuzz target's. */
bool model_read_text(const char *name, const char *buf, size_t len, run_model *m, char *err, size_t errlen);

#endif
