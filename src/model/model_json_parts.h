/* Inside the run file's reader and writer: what model_json.c (the document: header, schema
 * versions, the top-level walk, reading a file) and its topic files share, and each topic file's
 * entry points. Each topic file holds one part of the document, its writer and its reader side by
 * side, so that a field added to one is seen missing from the other: events_json.c (the event
 * store), builtin_json.c (the built-in run's section), counters_json.c, devices_json.c,
 * regions_json.c; host_json.c and memory_json.c, with their own headers, the host and memory
 * activity. The helpers are in model_json_parts.c, which calls none of them: no file calls back up
 * into model_json.c. Not for other callers: model_json.h is the run file's interface. */
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
typedef cJSON *(*element_maker)(const void *ctx, size_t i, int64_t epoch);

/* The adders, builders and array writers (model_json_parts.c says what each does). */
bool ok_add(cJSON *obj, const char *key, cJSON *item);
bool add_num(cJSON *o, const char *k, double v);
bool add_str(cJSON *o, const char *k, const char *v);
bool add_bool(cJSON *o, const char *k, bool v);
bool add_str_or_null(cJSON *o, const char *k, const char *v);
cJSON *built(cJSON *o, bool ok);
bool add_time(cJSON *o, const char *k, int64_t t, int64_t epoch);
cJSON *array_of(size_t n, element_maker make, const void *ctx, int64_t epoch);
bool write_array(json_writer *w, const char *key, size_t n, element_maker make, const void *ctx, int64_t epoch);
cJSON *int64_string(int64_t v, bool is_signed);

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
    const struct split_doc *split; /* the arrays read element by element (NULL: all in the tree) */
    bool syntax;       /* the failure was an element's syntax error, whose message names the file */
} reader;

/* Reads one element of an array into dst (an event_list, a workload, the run). */
typedef bool (*element_reader)(reader *, const cJSON *, int64_t, void *dst);

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
} split_array;

typedef struct split_doc {
    const char *name, *buf;
    size_t len;
    const member_drop *drop; /* what the text left out as it was read (NULL: nothing), for messages */
    split_array arr[16]; /* the events' five kinds, the workloads, the host activity's four arrays, the
                          * memory's events and samples */
    int narr;
} split_doc;

/* An object member read by fn inside its path; absent is refused unless optional. */
typedef bool (*object_reader)(reader *, const cJSON *, void *);

/* The field getters, the reader's path and the element-by-element arrays (model_json_parts.c). */
bool fail(reader *r, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const cJSON *field(reader *r, const cJSON *o, const char *key);
bool get_num(reader *r, const cJSON *o, const char *key, double *out);
bool get_i64(reader *r, const cJSON *o, const char *key, int64_t lo, int64_t hi, int64_t *out);
bool get_int(reader *r, const cJSON *o, const char *key, int lo, int hi, int *out);
bool get_u32(reader *r, const cJSON *o, const char *key, uint32_t *out);
bool get_u64(reader *r, const cJSON *o, const char *key, uint64_t *out);
bool get_str(reader *r, const cJSON *o, const char *key, bool nullable, char *buf, size_t len);
bool get_owned_str(reader *r, const cJSON *o, const char *key, bool nullable, char **out);
bool v1_default(const reader *r, const cJSON *o, const char *key);
bool get_bool(reader *r, const cJSON *o, const char *key, bool *out);
const cJSON *get_array(reader *r, const cJSON *o, const char *key);
const cJSON *get_object(reader *r, const cJSON *o, const char *key);
bool absent(const cJSON *o, const char *key);
size_t enter(reader *r, const char *key, int i);
size_t enter_obj(reader *r, const char *key);
void leave(reader *r, size_t saved);
bool read_interval(reader *r, const cJSON *o, int64_t epoch, int64_t *start, int64_t *end);
const split_array *split_find(const reader *r, const char *key);
cJSON *split_element(reader *r, const split_array *a, int i);
bool read_each(reader *r, const cJSON *o, const char *key, int64_t epoch, void *w, element_reader read_one,
               bool objects);
bool parse_u64_string(reader *r, const cJSON *o, const char *key, bool is_signed, uint64_t *out);
bool read_object(reader *r, const cJSON *o, const char *key, bool optional, object_reader fn, void *dst);
void syntax_error(const char *name, const char *buf, size_t len, size_t from, size_t at, const member_drop *drop,
                  char *err, size_t errlen);
/* Installs cJSON's allocation hooks (once) and forgets what they noted: called before each read,
 * so that syntax_error can tell memory running out from text that is not JSON. */
void cjson_watch(void);

/* ---------- the topics' entry points ---------- */

/* events_json.c */
bool write_events(json_writer *w, const event_list *e, int64_t epoch);
bool read_events(reader *r, const cJSON *o, const char *api_key, int64_t epoch, event_list *ev);
bool read_store(reader *r, const cJSON *root, run_model *m);

/* builtin_json.c */
/* hook: model_write_hooks.workload, given as itself (with its ctx) so that no file here includes
 * model_json.h, the file above them all. */
typedef bool (*workload_hook)(cJSON *o, int i, void *ctx);
bool write_builtin(json_writer *w, const run_model *m, workload_hook hook, void *ctx);
bool read_blas(reader *r, const cJSON *o, const char *prefix, blas_info *b);
bool read_builtin(reader *r, const cJSON *o, void *dst);
bool check_workload_regions(reader *r, const run_model *m);
void link_workload_regions(run_model *m);
bool read_builtin_v2(reader *r, const cJSON *root, run_model *m);

/* counters_json.c */
cJSON *make_launch_counters(const void *a, size_t i, int64_t e);
bool add_workload_counters(cJSON *o, const workload_run *w);
cJSON *counters_json(const counter_info *c);
bool read_launch_counters(reader *r, const cJSON *root, run_model *m);
bool read_counter_info(reader *r, const cJSON *root, counter_info *c);
bool read_counter_config_v2(reader *r, const cJSON *root, const cJSON *cfg, run_model *m);
bool read_workload_counters(reader *r, const cJSON *e, workload_run *w);

/* devices_json.c */
cJSON *make_device(const void *a, size_t i, int64_t e);
cJSON *host_json(const host_info *h);
cJSON *collection_json(const collection_info *c);
bool read_host_obj(reader *r, const cJSON *o, void *m);
bool read_collection_obj(reader *r, const cJSON *o, void *m);
bool read_devices(reader *r, const cJSON *root, run_model *m);

/* regions_json.c */
cJSON *make_region(const void *a, size_t i, int64_t e);
cJSON *capture_json(const capture_info *c, int64_t epoch);
cJSON *make_process(const void *a, size_t i, int64_t e);
cJSON *make_thread(const void *a, size_t i, int64_t e);
bool read_capture(reader *r, const cJSON *root, run_model *m);
bool read_region(reader *r, const cJSON *e, int64_t epoch, void *dst);
bool read_process(reader *r, const cJSON *e, int64_t epoch, void *dst);
bool read_thread(reader *r, const cJSON *e, int64_t epoch, void *dst);

#endif
