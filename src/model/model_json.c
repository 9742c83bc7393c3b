/* Run model <-> JSON: the document. Its parts are written and read in topic files, each with its
 * writer and reader side by side so that a field added to one is seen missing from the other
 * (model_json_parts.h lists them); the round-trip test reads back what was written and compares.
 * Here: the header (schema, versions, command line, source), the order of the members, the walk of
 * the top level that reads them, and reading a file.
 *
 * The document (schema_version 3): the header, host, collection, devices (devices_json.c), counters
 * (counters_json.c), capture (regions_json.c), the built-in run's section ("builtin": settings,
 * BLAS, tool phases, workloads, peer matrix: builtin_json.c), regions, processes, threads
 * (regions_json.c), warnings, launch counters, the host activity and the memory activity
 * (host_json.c, memory_json.c: written only where a run has them), and last the event store
 * ("events", events_json.c), which is nearly all of a file. Versions 1 and 2 kept the built-in
 * settings at the top and each workload's events inside it; the reader still takes them. */
#include "model_json.h"
#include "model_json_parts.h"
#include "host_json.h"
#include "memory_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_stream.h"
#include "member_drop.h"
#include "source.h"
#include "spill.h"
#include "trace_input.h"

#define RUN_SCHEMA_NAME "mmprof-run"

/* ---------- writing ---------- */

static cJSON *make_warning(const void *a, size_t i, int64_t e) { (void)e; return cJSON_CreateString(((char *const *)a)[i]); }

bool model_write(const run_model *m, json_writer *w, const model_write_hooks *hooks)
{
    int64_t epoch = m->epoch_ns;
    bool ok =
        jw_member(w, "schema", cJSON_CreateString(RUN_SCHEMA_NAME)) &&
        jw_member(w, "schema_version", cJSON_CreateNumber(MMPROF_SCHEMA_VERSION)) &&
        jw_member(w, "tool_version", cJSON_CreateString(m->tool_version)) &&
        jw_member(w, "command_line", cJSON_CreateString(m->command_line ? m->command_line : "")) &&
        jw_member(w, "started_at", cJSON_CreateString(m->started_at)) &&
        jw_member(w, "epoch_ns", mj_int64_string(epoch, true)) &&
        jw_member(w, "source", cJSON_CreateString(run_source_name(m->source))) &&
        jw_member(w, "source_file", m->source_file[0] ? cJSON_CreateString(m->source_file) : cJSON_CreateNull()) &&
        (!m->host.known || jw_member(w, "host", host_json(&m->host))) &&
        jw_member(w, "collection", collection_json(&m->collection)) &&
        mj_write_array(w, "devices", (size_t)m->ndevices, make_device, m->devices, epoch) &&
        (!m->counters.asked || jw_member(w, "counters", counters_json(&m->counters))) &&
        ((!m->capture.asked[0] && m->capture.nwindows == 0) ||
         jw_member(w, "capture", capture_json(&m->capture, epoch))) &&
        (!source_has(m->source, HAS_WORKLOADS) ||
         write_builtin(w, m, hooks ? hooks->workload : NULL, hooks ? hooks->ctx : NULL)) &&
        mj_write_array(w, "regions", (size_t)m->nregions, make_region, m->regions, epoch) &&
        mj_write_array(w, "processes", (size_t)m->nprocesses, make_process, m->processes, epoch) &&
        mj_write_array(w, "threads", (size_t)m->nthreads, make_thread, m->threads, epoch) &&
        mj_write_array(w, "warnings", (size_t)m->nwarnings, make_warning, m->warnings, epoch) &&
        (m->nlaunch_counters == 0 || mj_write_array(w, "launch_counters", (size_t)m->nlaunch_counters,
                                                    make_launch_counters, m->launch_counters, epoch)) &&
        host_json_write(&m->host_activity, epoch, w) && memory_json_write(&m->memory, epoch, w) &&
        write_events(w, &m->events, epoch);
    return ok;
}

cJSON *model_to_json(const run_model *m)
{
    json_writer w;
    jw_tree(&w);
    model_write(m, &w, NULL);
    cJSON *root = NULL;
    jw_end(&w, &root);
    return root;
}

char *model_to_text(const run_model *m)
{
    strbuf b;
    sb_init(&b);
    json_writer w;
    jw_text(&w, &b);
    bool ok = model_write(m, &w, NULL);
    ok = jw_end(&w, NULL) && ok;
    if (!ok) {
        sb_free(&b);
        return NULL;
    }
    return sb_finish(&b);
}

/* ---------- reading ---------- */

static bool read_warnings(mj_reader *r, const cJSON *root, run_model *m)
{
    const cJSON *warn = mj_get_array(r, root, "warnings");
    if (!warn)
        return false;
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, warn) {
        if (!cJSON_IsString(e)) {
            size_t s = mj_enter(r, "warnings", i);
            mj_fail(r, NULL, "expected a string");
            mj_leave(r, s);
            return false;
        }
        model_add_warning(m, "%s", e->valuestring);
        i++;
    }
    return true;
}

static bool read_header(mj_reader *r, const cJSON *root, run_model *m)
{
    if (!cJSON_IsObject(root))
        return mj_fail(r, NULL, "the run file is not a JSON object");
    char schema[32];
    /* Checked before get_str, whose "schema: missing" would otherwise be the message. */
    if (!cJSON_GetObjectItemCaseSensitive(root, "schema"))
        return mj_fail(r, NULL, "not an mmprof run file (no \"schema\": \"%s\")", RUN_SCHEMA_NAME);
    if (!mj_get_str(r, root, "schema", false, schema, sizeof schema))
        return false;
    if (strcmp(schema, RUN_SCHEMA_NAME) != 0)
        return mj_fail(r, "schema", "is '%s', not an mmprof run file", schema);
    if (!mj_get_int(r, root, "schema_version", 0, INT32_MAX, &m->schema_version))
        return false;
    if (m->schema_version > MMPROF_SCHEMA_VERSION)
        return mj_fail(r, "schema_version", "written by a newer mmprof: schema_version %d; this mmprof reads 1 to %d",
                       m->schema_version, MMPROF_SCHEMA_VERSION);
    if (m->schema_version < 1)
        return mj_fail(r, "schema_version", "is %d; this mmprof reads 1 to %d", m->schema_version,
                       MMPROF_SCHEMA_VERSION);
    r->version = m->schema_version;
    char cmd[4096];
    uint64_t epoch;
    if (!mj_get_str(r, root, "tool_version", false, m->tool_version, sizeof m->tool_version) ||
        !mj_get_str(r, root, "command_line", false, cmd, sizeof cmd) ||
        !mj_get_str(r, root, "started_at", false, m->started_at, sizeof m->started_at) ||
        !mj_parse_u64_string(r, root, "epoch_ns", true, &epoch))
        return false;
    m->epoch_ns = (int64_t)epoch;
    if (!(m->command_line = strdup(cmd)))
        return mj_fail(r, NULL, "out of memory");
    char source[16];
    if (!mj_v1_default(r, root, "source")) {
        if (!mj_get_str(r, root, "source", false, source, sizeof source) ||
            !mj_get_str(r, root, "source_file", true, m->source_file, sizeof m->source_file))
            return false;
        if (!run_source_parse(source, &m->source))
            return mj_fail(r, "source", "expected builtin, kineto, nsys-sqlite or profile, not '%s'", source);
    }
    return true;
}

/* host_split's view of the reader's split arrays "OUTER.KEY" (OUTER "host_activity" or "memory"). */
typedef struct {
    mj_reader *r;
    const char *outer;
} outer_split;

static const mj_split_array *host_split_find(void *ctx, const char *key)
{
    const outer_split *o = ctx;
    const mj_reader *r = o->r;
    char path[64];
    snprintf(path, sizeof path, "%s.%s", o->outer, key);
    for (int i = 0; r->split && i < r->split->narr; i++)
        if (strcmp(r->split->arr[i].path, path) == 0)
            return &r->split->arr[i];
    return NULL;
}

static int host_split_count(void *ctx, const char *key)
{
    const mj_split_array *a = host_split_find(ctx, key);
    return a ? a->n : -1;
}

static cJSON *host_split_element(void *ctx, const char *key, int i)
{
    return mj_split_element(((outer_split *)ctx)->r, host_split_find(ctx, key), i);
}

/* The run's host activity, where it has some (host_json.c reads it; its arrays element by element
 * where the document was split). */
static bool read_host_activity(mj_reader *r, const cJSON *root, run_model *m)
{
    char msg[256] = "";
    outer_split o = {r, "host_activity"};
    host_split split = {&o, host_split_count, host_split_element};
    return host_json_read(root, m->epoch_ns, &split, &m->host_activity, msg, sizeof msg) || mj_fail(r, NULL, "%s", msg);
}

/* The run's memory activity, where it has some (memory_json.c; after the host activity, whose
 * frames its live sets name). */
static bool read_memory(mj_reader *r, const cJSON *root, run_model *m)
{
    char msg[256] = "";
    outer_split o = {r, "memory"};
    host_split split = {&o, host_split_count, host_split_element};
    return memory_json_read(root, m->epoch_ns, &split, &m->host_activity, &m->memory, msg, sizeof msg) ||
           mj_fail(r, NULL, "%s", msg);
}

static bool read_root(mj_reader *r, const cJSON *root, run_model *m)
{
    if (!read_header(r, root, m))
        return false;
    bool v3 = r->version >= 3;
    bool ok =
        mj_read_object(r, root, "host", v3, read_host_obj, m) &&
        mj_read_object(r, root, "collection", false, read_collection_obj, m) && read_devices(r, root, m) &&
        (v3 ? read_counter_info(r, root, &m->counters) &&
                  mj_read_object(r, root, "builtin", !source_has(m->source, HAS_WORKLOADS), read_builtin, m)
            : read_builtin_v2(r, root, m)) &&
        (mj_v1_default(r, root, "regions") || mj_read_each(r, root, "regions", m->epoch_ns, m, read_region, true)) &&
        read_store(r, root, m) && (v3 ? check_workload_regions(r, m) : (link_workload_regions(m), true)) &&
        (mj_v1_default(r, root, "processes") ||
         mj_read_each(r, root, "processes", m->epoch_ns, m, read_process, true)) &&
        (mj_v1_default(r, root, "threads") || mj_read_each(r, root, "threads", m->epoch_ns, m, read_thread, true)) &&
        read_launch_counters(r, root, m) && read_warnings(r, root, m) && read_capture(r, root, m) &&
        read_host_activity(r, root, m) && read_memory(r, root, m);
    if (ok && !source_has(m->source, HAS_WORKLOADS) && m->builtin.nworkloads > 0)
        ok = mj_fail(r, "source", "is %s, but the file holds built-in workloads", run_source_name(m->source));
    return ok;
}

bool model_from_json(const cJSON *root, run_model *m, char *err, size_t errlen)
{
    model_init(m);
    mj_reader r = {.err = err, .errlen = errlen};
    if (!read_root(&r, root, m) ||
        /* A version 1 file (or one that has no regions) gets the whole-run region and the
         * built-in workloads' and phases' regions, as a run recorded now would have. */
        !(model_finish_regions(m, "mmprof run") || mj_fail(&r, NULL, "out of memory"))) {
        model_free(m);
        return false;
    }
    return true;
}

/* ---------- reading a file ---------- */

/* Run files hold every event of a run: tens of MB at most. Refuse anything absurd rather than
 * try to allocate it. */
#define MAX_RUN_FILE_BYTES ((long)1 << 30)

/* Records the elements of the array whose '[' is next in s as d's array path. */
static bool split_elements(json_stream *s, mj_split_doc *d, const char *path)
{
    if (d->narr == (int)(sizeof d->arr / sizeof d->arr[0]))
        return false;
    mj_split_array *a = &d->arr[d->narr++];
    memset(a, 0, sizeof *a);
    copy_str(a->path, sizeof a->path, path);
    js_next(s); /* '[' */
    if (js_peek(s) == ']') {
        js_next(s);
        return true;
    }
    for (;;) {
        const char *text;
        size_t len;
        uint64_t off;
        if (js_value(s, false, 0, &text, &len, &off) != JS_OK)
            return false;
        if (a->n == a->cap) {
            a->cap = a->cap ? 2 * a->cap : 1024;
            /* an element's place per event or sample: spill.h's */
            size_t(*p)[2] = spill_resize(a->el, (size_t)a->n * sizeof *p, (size_t)a->cap * sizeof *p);
            if (!p)
                return false;
            a->el = p;
        }
        a->el[a->n][0] = (size_t)off;
        a->el[a->n][1] = (size_t)js_offset(s);
        a->n++;
        int c = js_peek(s);
        js_next(s);
        if (c == ']')
            return true;
        if (c != ',')
            return false;
    }
}

/* Records the value that starts next in s (an object) as d's path, whole. */
static bool split_span(json_stream *s, mj_split_doc *d, const char *path)
{
    if (d->narr == (int)(sizeof d->arr / sizeof d->arr[0]))
        return false;
    const char *text;
    size_t len;
    uint64_t off;
    if (js_value(s, false, 0, &text, &len, &off) != JS_OK)
        return false;
    mj_split_array *a = &d->arr[d->narr++];
    memset(a, 0, sizeof *a);
    copy_str(a->path, sizeof a->path, path);
    if (!(a->el = malloc(sizeof *a->el)))
        return false;
    a->el[0][0] = (size_t)off;
    a->el[0][1] = (size_t)js_offset(s);
    a->n = 1, a->cap = 1, a->span = true;
    return true;
}

/* The value that starts next in s, parsed alone and added to o as key (nothing when it is not
 * valid JSON: the caller sees it missing). */
static void inner_value(json_stream *s, mj_split_doc *d, cJSON *o, const char *key)
{
    const char *text;
    size_t len;
    uint64_t off;
    if (js_value(s, false, 0, &text, &len, &off) != JS_OK)
        return;
    const char *stop = NULL;
    size_t end = (size_t)js_offset(s);
    cJSON *v = cJSON_ParseWithLengthOpts(d->buf + off, end - (size_t)off, &stop, false);
    if (!v || stop != d->buf + end || !cJSON_AddItemToObject(o, key, v))
        cJSON_Delete(v);
}

/* The key of the member that starts next in s, into key (false when it is not a plain string). */
static bool member_key(json_stream *s, char *key, size_t len)
{
    const char *text;
    size_t n;
    uint64_t off;
    if (js_peek(s) != '"' || js_value(s, true, 256, &text, &n, &off) != JS_OK)
        return false;
    cJSON *k = cJSON_ParseWithLength(text, n);
    bool ok = cJSON_IsString(k);
    if (ok)
        copy_str(key, len, k->valuestring);
    cJSON_Delete(k);
    if (!ok || js_peek(s) != ':')
        return false;
    js_next(s);
    return true;
}

/* The members a report writes beside the run, which the reader recomputes instead of reading
 * (json_report.c): a long run's "analysis" is a third of its file. */
static bool derived_member(const char *key)
{
    return strcmp(key, "summary") == 0 || strcmp(key, "analysis") == 0;
}

/* How a member of "events" or "host_activity" is read (split_members). */
typedef enum { KEEP_IN_TREE, SPLIT_ELEMENTS, SPLIT_WHOLE } split_how;

static split_how split_kind(const char *outer, const char *inner, int c)
{
    if (strcmp(outer, "events") == 0) /* one event per element, or a kind's columns (event_columns.h) */
        return c == '[' && strcmp(inner, "names") != 0 ? SPLIT_ELEMENTS : c == '{' ? SPLIT_WHOLE : KEEP_IN_TREE;
    /* the memory activity's events and samples (memory_json.c): a trace's grow with its tensors */
    if (strcmp(outer, "memory") == 0)
        return c == '[' && (strcmp(inner, "events") == 0 || strcmp(inner, "samples") == 0) ? SPLIT_ELEMENTS : KEEP_IN_TREE;
    /* the host activity's record arrays (host_json.c): samples and sites grow with the run */
    bool records = strcmp(inner, "frames") == 0 || strcmp(inner, "samples") == 0 || strcmp(inner, "spans") == 0 ||
                   strcmp(inner, "sites") == 0;
    return c == '[' && records ? SPLIT_ELEMENTS : KEEP_IN_TREE;
}

/* The object whose '{' is next in s (outer's value), one level down: each member split_kind says
 * to split recorded in d (an empty array or object standing in for it in value), the others
 * parsed into value. */
static bool split_members(json_stream *s, mj_split_doc *d, const char *outer, cJSON *value)
{
    js_next(s); /* '{' */
    bool ok = true, first = true;
    while (ok) {
        char inner[24], path[96];
        if (first && js_peek(s) == '}')
            break;
        first = false;
        ok = member_key(s, inner, sizeof inner) && !cJSON_HasObjectItem(value, inner);
        snprintf(path, sizeof path, "%s.%s", outer, inner);
        split_how how = ok ? split_kind(outer, inner, js_peek(s)) : KEEP_IN_TREE;
        if (ok && how == SPLIT_ELEMENTS)
            ok = cJSON_AddArrayToObject(value, inner) && split_elements(s, d, path);
        else if (ok && how == SPLIT_WHOLE)
            ok = cJSON_AddObjectToObject(value, inner) && split_span(s, d, path);
        else /* the columns' "form" and "names", the host activity's rate and counts */
            ok = ok && (inner_value(s, d, value, inner), true) && cJSON_HasObjectItem(value, inner);
        int sep = ok ? js_peek(s) : -1;
        if (sep == ',')
            js_next(s);
        else
            ok = ok && sep == '}';
        if (sep == '}')
            break;
    }
    js_next(s); /* '}' */
    return ok;
}

/* Walks the document's top level: every member's value is parsed alone into *root, but the
 * event arrays ("events".kernels, ... and an older file's "workloads") and the host activity's
 * record arrays (split_members), which are recorded in d element by element and stand in the
 * tree as empty arrays, and the derived members, which are
 * stepped over (their brackets and strings must close; nothing reads their values). False when
 * the text is not shaped as expected: the caller then parses it whole, so a malformed file gets
 * cJSON's own error. */
static bool split_document(mj_split_doc *d, cJSON **root)
{
    json_stream s;
    js_attach_text(&s, d->buf, d->len);
    cJSON *doc = cJSON_CreateObject();
    bool ok = doc && js_peek(&s) == '{';
    if (ok)
        js_next(&s);
    if (ok && js_peek(&s) == '}')
        js_next(&s);
    else
        for (;;) {
            char key[64];
            if (!(ok = member_key(&s, key, sizeof key)))
                break;
            int c = js_peek(&s);
            cJSON *value = NULL;
            if ((strcmp(key, "events") == 0 || strcmp(key, "host_activity") == 0 || strcmp(key, "memory") == 0) && c == '{' &&
                !cJSON_HasObjectItem(doc, key)) {
                value = cJSON_CreateObject();
                ok = value && split_members(&s, d, key, value);
            } else if (strcmp(key, "workloads") == 0 && c == '[' && !cJSON_HasObjectItem(doc, key)) {
                value = cJSON_CreateArray();
                ok = value && split_elements(&s, d, "workloads");
            } else if (derived_member(key) && (c == '{' || c == '[')) {
                const char *text;
                size_t len;
                uint64_t off;
                ok = js_value(&s, false, 0, &text, &len, &off) == JS_OK;
                value = ok ? cJSON_CreateNull() : NULL; /* stands in for it */
                ok = value != NULL;
            } else {
                const char *text;
                size_t len;
                uint64_t off;
                ok = js_value(&s, false, 0, &text, &len, &off) == JS_OK;
                const char *stop = NULL;
                size_t end = (size_t)js_offset(&s);
                value = ok ? cJSON_ParseWithLengthOpts(d->buf + off, end - (size_t)off, &stop, false) : NULL;
                ok = value && stop == d->buf + end;
            }
            if (!ok || !cJSON_AddItemToObject(doc, key, value)) {
                cJSON_Delete(value);
                ok = false;
                break;
            }
            c = js_peek(&s);
            js_next(&s);
            if (c == '}')
                break;
            if (c != ',') {
                ok = false;
                break;
            }
        }
    ok = ok && js_peek(&s) < 0 && s.errno_saved == 0;
    js_close(&s);
    if (!ok) {
        cJSON_Delete(doc);
        return false;
    }
    *root = doc;
    return true;
}

static void split_free(mj_split_doc *d)
{
    for (int i = 0; i < d->narr; i++)
        spill_free(d->arr[i].el);
    d->narr = 0;
}

/* model_read_text of a text that left drop's value out as it was read (NULL: the whole text). */
static bool read_text(const char *name, const char *buf, size_t len, const member_drop *drop, run_model *m,
                      char *err, size_t errlen)
{
    mj_cjson_watch();
    model_init(m);
    /* JSON text has no NUL byte; one would cut a string short wherever it is read. */
    const char *nul = memchr(buf, '\0', len);
    if (nul) {
        mj_syntax_error(name, buf, len, 0, (size_t)(nul - buf), drop, err, errlen);
        return false;
    }
    mj_split_doc d = {.name = name, .buf = buf, .len = len, .drop = drop};
    cJSON *root = NULL;
    if (!split_document(&d, &root)) {
        split_free(&d);
        const char *end = NULL;
        root = cJSON_ParseWithLengthOpts(buf, len + 1, &end, true); /* the NUL included */
        if (!root) {
            mj_syntax_error(name, buf, len, 0, end ? (size_t)(end - buf) : 0, drop, err, errlen);
            return false;
        }
    }
    char inner[384];
    mj_reader r = {.err = inner, .errlen = sizeof inner, .split = &d};
    bool ok = read_root(&r, root, m);
    /* As model_from_json: the regions a version 1 file lacks. */
    if (ok && !model_finish_regions(m, "mmprof run")) {
        snprintf(inner, sizeof inner, "out of memory");
        ok = false;
    }
    if (!ok) {
        if (r.syntax)
            snprintf(err, errlen, "%s", inner);
        else
            snprintf(err, errlen, "run file '%s': %s", name, inner);
        model_free(m);
    }
    cJSON_Delete(root);
    split_free(&d);
    return ok;
}

bool model_read_text(const char *name, const char *buf, size_t len, run_model *m, char *err, size_t errlen)
{
    return read_text(name, buf, len, NULL, m, err, errlen);
}

/* A run file as users have it, like a trace (trace_input.h): a path, "-" for standard input, a
 * pipe; plain, gzip, zstd or xz, told by content. Read whole, the reader parsing members in its own
 * order, but for the "analysis" a report wrote beside the run (member_drop.h): the reader recomputes
 * it, and it is a third of a long run's text. */
bool model_read_file(const char *path, run_model *m, char *err, size_t errlen)
{
    model_init(m); /* empty on every failure, as model_from_json leaves it, so freeing it is safe */
    trace_input in;
    char why[320];
    if (!ti_open(&in, path, why, sizeof why)) {
        /* why is "NAME: reason"; the file is quoted here, as every run-file message quotes it */
        size_t n = strlen(in.name);
        const char *reason = strncmp(why, in.name, n) == 0 && why[n] == ':' ? why + n + 2 : why;
        snprintf(err, errlen, "cannot read run file '%s': %s", in.name, reason);
        return false;
    }
    enum { CHUNK = 65536 };
    char *buf = NULL, *chunk = malloc(CHUNK);
    size_t len = 0, cap = 0;
    bool ok = chunk != NULL;
    if (!ok)
        snprintf(err, errlen, "out of memory");
    member_drop drop;
    md_init(&drop, "analysis");
    while (ok) {
        if (len + CHUNK + 4 + 1 > cap) {
            cap = cap ? cap * 2 : 1 << 20;
            /* A long run's text is tens of MB: held as its events are (spill.h) */
            char *p = cap > (size_t)MAX_RUN_FILE_BYTES ? NULL : spill_resize(buf, len, cap);
            if (!p) {
                snprintf(err, errlen, "run file '%s' is too large", in.name);
                ok = false;
                break;
            }
            buf = p;
        }
        size_t got = ti_read(&in, chunk, CHUNK);
        len += md_take(&drop, chunk, got, buf + len);
        if (got == 0) {
            if (ti_failed(&in)) {
                snprintf(err, errlen, "cannot read run file '%s': %s", in.name, ti_error(&in));
                ok = false;
            }
            break;
        }
    }
    free(chunk);
    char name[sizeof in.name];
    copy_str(name, sizeof name, in.name);
    ti_close(&in);
    if (!ok) {
        spill_free(buf);
        return false;
    }
    buf[len] = '\0';
    ok = read_text(name, buf, len, &drop, m, err, errlen);
    spill_free(buf);
    return ok;
}
