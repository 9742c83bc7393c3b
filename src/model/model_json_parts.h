/* Inside the run file's reader and writer: what model_json.c (the document: header, schema
 * versions, the top-level walk, reading a file) and its topic files share, and each topic file's
 * entry points. Each topic file holds one part of the document, its writer and its reader side by
 * side, so that a field added to one is seen missing from the other: events_json.c (the event
 * store), builtin_json.c (the built-in run's section), counters_json.c, devices_json.c,
 * regions_json.c; host_json.c and memory_json.c, with their own headers, the host and memory
 * activity. The helpers are in model_json_parts.c, which calls none of them: no file calls back up
 * into model_json.c. Not for other callers: model_json.h is the run file's interface. The shared
 * helpers and their types are global, so they begin with mj_ (model JSON): a short name such as
 * fail or field would clash with the first other file to define one. */
#ifndef MMPROF_MODEL_JSON_PARTS_H
#define MMPROF_MODEL_JSON_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "json_writer.h"
#include "member_drop.h"
#include "model.h"

/* ---------- writing ---------- */

/* An array of n elements, element i built by make(ctx, i, epoch). */
typedef cJSON *(*mj_element_maker)(const void *ctx, size_t i, int64_t epoch);

/* The adders, builders and array writers (model_json_parts.c says what each does). */
bool mj_ok_add(cJSON *obj, const char *key, cJSON *item);
bool mj_add_num(cJSON *o, const char *k, double v);
bool mj_add_str(cJSON *o, const char *k, const char *v);
bool mj_add_bool(cJSON *o, const char *k, bool v);
bool mj_add_str_or_null(cJSON *o, const char *k, const char *v);
cJSON *mj_built(cJSON *o, bool ok);
bool mj_add_time(cJSON *o, const char *k, int64_t t, int64_t epoch);
cJSON *mj_array_of(size_t n, mj_element_maker make, const void *ctx, int64_t epoch);
bool mj_write_array(json_writer *w, const char *key, size_t n, mj_element_maker make, const void *ctx, int64_t epoch);
cJSON *mj_int64_string(int64_t v, bool is_signed);

/* ---------- reading ---------- */

/* Where the reader is in the tree, for error messages. */
typedef struct {
    char *err;
    size_t errlen;
    bool failed;
    int version; /* the file's schema_version */
    char path[160];
    int ndevices;      /* devices read so far: what a kernel's or copy's device may name */
    int nregions;      /* regions read so far: what an event's region may name */
    const struct mj_split_doc *split; /* the arrays read element by element (NULL: all in the tree) */
    bool syntax;       /* the failure was an element's syntax error, whose message names the file */
} mj_reader;

/* Reads one element of an array into dst (an event_list, a workload, the run). */
typedef bool (*mj_element_reader)(mj_reader *, const cJSON *, int64_t, void *dst);

/* ---------- arrays read element by element ----------
 * A run file's event arrays hold nearly all of it; a cJSON tree of the whole document was 3.6
 * times its text. model_read_text finds those arrays' elements (json_stream, the scanner the
 * importers use) and leaves them out of the tree; read_each then parses one element at a time,
 * reads it and lets its tree go. */
typedef struct {
    char path[32];     /* "events.kernels", or "workloads" (versions 1 and 2) */
    size_t (*el)[2];   /* each element's [start, end) in the text */
    int n, cap;
    bool span;         /* not an array: el[0] is the whole value's text (event columns) */
} mj_split_array;

typedef struct mj_split_doc {
    const char *name, *buf;
    size_t len;
    const member_drop *drop; /* what the text left out as it was read (NULL: nothing), for messages */
    mj_split_array arr[16]; /* the events' five kinds, the workloads, the host activity's four arrays, the
                          * memory's events and samples */
    int narr;
} mj_split_doc;

/* An object member read by fn inside its path; absent is refused unless optional. */
typedef bool (*mj_object_reader)(mj_reader *, const cJSON *, void *);

/* The field getters, the reader's path and the element-by-element arrays (model_json_parts.c). */
bool mj_fail(mj_reader *r, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const cJSON *mj_field(mj_reader *r, const cJSON *o, const char *key);
bool mj_get_num(mj_reader *r, const cJSON *o, const char *key, double *out);
bool mj_get_i64(mj_reader *r, const cJSON *o, const char *key, int64_t lo, int64_t hi, int64_t *out);
bool mj_get_int(mj_reader *r, const cJSON *o, const char *key, int lo, int hi, int *out);
bool mj_get_u32(mj_reader *r, const cJSON *o, const char *key, uint32_t *out);
bool mj_get_u64(mj_reader *r, const cJSON *o, const char *key, uint64_t *out);
bool mj_get_str(mj_reader *r, const cJSON *o, const char *key, bool nullable, char *buf, size_t len);
bool mj_get_owned_str(mj_reader *r, const cJSON *o, const char *key, bool nullable, char **out);
bool mj_v1_default(const mj_reader *r, const cJSON *o, const char *key);
bool mj_get_bool(mj_reader *r, const cJSON *o, const char *key, bool *out);
const cJSON *mj_get_array(mj_reader *r, const cJSON *o, const char *key);
const cJSON *mj_get_object(mj_reader *r, const cJSON *o, const char *key);
bool mj_absent(const cJSON *o, const char *key);
size_t mj_enter(mj_reader *r, const char *key, int i);
size_t mj_enter_obj(mj_reader *r, const char *key);
void mj_leave(mj_reader *r, size_t saved);
bool mj_read_interval(mj_reader *r, const cJSON *o, int64_t epoch, int64_t *start, int64_t *end);
const mj_split_array *mj_split_find(const mj_reader *r, const char *key);
cJSON *mj_split_element(mj_reader *r, const mj_split_array *a, int i);
bool mj_read_each(mj_reader *r, const cJSON *o, const char *key, int64_t epoch, void *w, mj_element_reader read_one,
               bool objects);
bool mj_parse_u64_string(mj_reader *r, const cJSON *o, const char *key, bool is_signed, uint64_t *out);
bool mj_read_object(mj_reader *r, const cJSON *o, const char *key, bool optional, mj_object_reader fn, void *dst);
void mj_syntax_error(const char *name, const char *buf, size_t len, size_t from, size_t at, const member_drop *drop,
                  char *err, size_t errlen);
/* Installs cJSON's allocation hooks (once) and forgets what they noted: called before each read,
 * so that syntax_error can tell memory running out from text that is not JSON. */
void mj_cjson_watch(void);

/* ---------- the topics' entry points ---------- */

/* events_json.c */
bool write_events(json_writer *w, const event_list *e, int64_t epoch);
bool read_events(mj_reader *r, const cJSON *o, const char *api_key, int64_t epoch, event_list *ev);
bool read_store(mj_reader *r, const cJSON *root, run_model *m);

/* builtin_json.c */
/* hook: model_write_hooks.workload, given as itself (with its ctx) so that no file here includes
 * model_json.h, the file above them all. */
typedef bool (*workload_hook)(cJSON *o, int i, void *ctx);
bool write_builtin(json_writer *w, const run_model *m, workload_hook hook, void *ctx);
bool read_blas(mj_reader *r, const cJSON *o, const char *prefix, blas_info *b);
bool read_builtin(mj_reader *r, const cJSON *o, void *dst);
bool check_workload_regions(mj_reader *r, const run_model *m);
void link_workload_regions(run_model *m);
bool read_builtin_v2(mj_reader *r, const cJSON *root, run_model *m);

/* counters_json.c */
cJSON *make_launch_counters(const void *a, size_t i, int64_t e);
bool add_workload_counters(cJSON *o, const workload_run *w);
cJSON *counters_json(const counter_info *c);
bool read_launch_counters(mj_reader *r, const cJSON *root, run_model *m);
bool read_counter_info(mj_reader *r, const cJSON *root, counter_info *c);
bool read_counter_config_v2(mj_reader *r, const cJSON *root, const cJSON *cfg, run_model *m);
bool read_workload_counters(mj_reader *r, const cJSON *e, workload_run *w);

/* devices_json.c */
cJSON *make_device(const void *a, size_t i, int64_t e);
cJSON *host_json(const host_info *h);
cJSON *collection_json(const collection_info *c);
bool read_host_obj(mj_reader *r, const cJSON *o, void *m);
bool read_collection_obj(mj_reader *r, const cJSON *o, void *m);
bool read_devices(mj_reader *r, const cJSON *root, run_model *m);

/* regions_json.c */
cJSON *make_region(const void *a, size_t i, int64_t e);
cJSON *capture_json(const capture_info *c, int64_t epoch);
cJSON *make_process(const void *a, size_t i, int64_t e);
cJSON *make_thread(const void *a, size_t i, int64_t e);
bool read_capture(mj_reader *r, const cJSON *root, run_model *m);
bool read_region(mj_reader *r, const cJSON *e, int64_t epoch, void *dst);
bool read_process(mj_reader *r, const cJSON *e, int64_t epoch, void *dst);
bool read_thread(mj_reader *r, const cJSON *e, int64_t epoch, void *dst);

#endif
