/* What the run file's topic files share (model_json_parts.h): the writer's adders and array
 * builders, the reader's field getters, its path for messages, and the arrays read element by
 * element. */
#include "model_json_parts.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- writing ---------- */

/* Each adder returns false when memory ran out; callers chain them with && and drop the whole
 * tree on the first failure. */
bool mj_ok_add(cJSON *obj, const char *key, cJSON *item)
{
    if (!item)
        return false;
    if (!cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

bool mj_add_num(cJSON *o, const char *k, double v) { return mj_ok_add(o, k, cJSON_CreateNumber(v)); }
bool mj_add_str(cJSON *o, const char *k, const char *v) { return mj_ok_add(o, k, cJSON_CreateString(v ? v : "")); }
bool mj_add_bool(cJSON *o, const char *k, bool v) { return mj_ok_add(o, k, cJSON_CreateBool(v)); }
bool mj_add_str_or_null(cJSON *o, const char *k, const char *v)
{
    return mj_ok_add(o, k, (v && v[0]) ? cJSON_CreateString(v) : cJSON_CreateNull());
}

/* Every object builder ends the same way: the object, or NULL (and nothing leaked) when an adder
 * ran out of memory. */
cJSON *mj_built(cJSON *o, bool ok)
{
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

bool mj_add_time(cJSON *o, const char *k, int64_t t, int64_t epoch)
{
    return mj_add_num(o, k, (double)(t - epoch));
}

cJSON *mj_array_of(size_t n, mj_element_maker make, const void *ctx, int64_t epoch)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) {
        cJSON *item = make(ctx, i, epoch);
        if (!item || !cJSON_AddItemToArray(arr, item)) {
            cJSON_Delete(item);
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

/* An array member written element by element: each element its own line in a file. */
bool mj_write_array(json_writer *w, const char *key, size_t n, mj_element_maker make, const void *ctx, int64_t epoch)
{
    bool ok = jw_open_array(w, key);
    for (size_t i = 0; ok && i < n; i++)
        ok = jw_element(w, make(ctx, i, epoch));
    return ok && jw_close(w);
}

/* The decimal text of a 64-bit integer: the seed and the epoch do not fit a JSON number exactly. */
cJSON *mj_int64_string(int64_t v, bool is_signed)
{
    char buf[32];
    if (is_signed)
        snprintf(buf, sizeof buf, "%lld", (long long)v);
    else
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)(uint64_t)v);
    return cJSON_CreateString(buf);
}

/* ---------- reading ---------- */

bool mj_fail(mj_reader *r, const char *key, const char *fmt, ...)
{
    if (r->failed)
        return false;
    r->failed = true;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* A failure of the document as a whole has no path to put in front. */
    snprintf(r->err, r->errlen, "%s%s%s%s%s", r->path, (r->path[0] && key) ? "." : "", key ? key : "",
             (r->path[0] || key) ? ": " : "", msg);
    return false;
}

const cJSON *mj_field(mj_reader *r, const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        mj_fail(r, key, "missing");
    return v;
}

bool mj_get_num(mj_reader *r, const cJSON *o, const char *key, double *out)
{
    const cJSON *v = mj_field(r, o, key);
    if (!v)
        return false;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return mj_fail(r, key, "expected a number");
    *out = v->valuedouble;
    return true;
}

/* An integral number within [lo, hi]. */
bool mj_get_i64(mj_reader *r, const cJSON *o, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    double d;
    if (!mj_get_num(r, o, key, &d))
        return false;
    if (d != floor(d) || d < (double)lo || d > (double)hi)
        return mj_fail(r, key, "expected an integer from %lld to %lld", (long long)lo, (long long)hi);
    *out = (int64_t)d;
    return true;
}

bool mj_get_int(mj_reader *r, const cJSON *o, const char *key, int lo, int hi, int *out)
{
    int64_t v = 0;
    if (!mj_get_i64(r, o, key, lo, hi, &v))
        return false;
    *out = (int)v;
    return true;
}

bool mj_get_u32(mj_reader *r, const cJSON *o, const char *key, uint32_t *out)
{
    int64_t v = 0;
    if (!mj_get_i64(r, o, key, 0, UINT32_MAX, &v))
        return false;
    *out = (uint32_t)v;
    return true;
}

bool mj_get_u64(mj_reader *r, const cJSON *o, const char *key, uint64_t *out)
{
    int64_t v = 0;
    if (!mj_get_i64(r, o, key, 0, (int64_t)1 << 53, &v))
        return false;
    *out = (uint64_t)v;
    return true;
}

/* A string, or null/"" as an empty string when nullable. */
bool mj_get_str(mj_reader *r, const cJSON *o, const char *key, bool nullable, char *buf, size_t len)
{
    const cJSON *v = mj_field(r, o, key);
    if (!v)
        return false;
    if (nullable && cJSON_IsNull(v)) {
        buf[0] = '\0';
        return true;
    }
    if (!cJSON_IsString(v))
        return mj_fail(r, key, nullable ? "expected a string or null" : "expected a string");
    copy_str(buf, len, v->valuestring);
    return true;
}

/* A string of any length, duplicated into *out (the caller frees it); null reads as NULL when
 * nullable. */
bool mj_get_owned_str(mj_reader *r, const cJSON *o, const char *key, bool nullable, char **out)
{
    const cJSON *v = mj_field(r, o, key);
    if (!v)
        return false;
    *out = NULL;
    if (nullable && cJSON_IsNull(v))
        return true;
    if (!cJSON_IsString(v))
        return mj_fail(r, key, nullable ? "expected a string or null" : "expected a string");
    return (*out = strdup(v->valuestring)) != NULL || mj_fail(r, NULL, "out of memory");
}

/* True when key came with version 2 and a version 1 file lacks it: the field keeps its default
 * (pid 0, runtime API, no memsets or syncs, a built-in run). Later files must have it. */
bool mj_v1_default(const mj_reader *r, const cJSON *o, const char *key)
{
    return r->version < 2 && !cJSON_GetObjectItemCaseSensitive(o, key);
}

bool mj_get_bool(mj_reader *r, const cJSON *o, const char *key, bool *out)
{
    const cJSON *v = mj_field(r, o, key);
    if (!v)
        return false;
    if (!cJSON_IsBool(v))
        return mj_fail(r, key, "expected true or false");
    *out = cJSON_IsTrue(v);
    return true;
}

const cJSON *mj_get_array(mj_reader *r, const cJSON *o, const char *key)
{
    const cJSON *v = mj_field(r, o, key);
    if (v && !cJSON_IsArray(v)) {
        mj_fail(r, key, "expected an array");
        return NULL;
    }
    return v;
}

const cJSON *mj_get_object(mj_reader *r, const cJSON *o, const char *key)
{
    const cJSON *v = mj_field(r, o, key);
    if (v && !cJSON_IsObject(v)) {
        mj_fail(r, key, "expected an object");
        return NULL;
    }
    return v;
}

/* Members added within version 2 (a sweep's sizes, sampling by noise): a file written before them
 * lacks them and keeps the defaults, so it loads and renders as it did. */
bool mj_absent(const cJSON *o, const char *key)
{
    return !cJSON_GetObjectItemCaseSensitive(o, key);
}

/* Enters element i of array key: path becomes "key[i]"; mj_leave() restores it. */
size_t mj_enter(mj_reader *r, const char *key, int i)
{
    size_t saved = strlen(r->path);
    snprintf(r->path + saved, sizeof r->path - saved, "%s%s[%d]", saved ? "." : "", key, i);
    return saved;
}

size_t mj_enter_obj(mj_reader *r, const char *key)
{
    size_t saved = strlen(r->path);
    snprintf(r->path + saved, sizeof r->path - saved, "%s%s", saved ? "." : "", key);
    return saved;
}

void mj_leave(mj_reader *r, size_t saved) { r->path[saved] = '\0'; }

/* Times in the file are relative to the epoch; bounded so that adding it back cannot overflow. */
#define MAX_REL_NS ((int64_t)1 << 53)

static bool get_time(mj_reader *r, const cJSON *o, const char *key, int64_t epoch, int64_t *out)
{
    int64_t rel;
    if (!mj_get_i64(r, o, key, -MAX_REL_NS, MAX_REL_NS, &rel))
        return false;
    /* The epoch is read from a string and may be anything an int64 holds. */
    if ((rel > 0 && epoch > INT64_MAX - rel) || (rel < 0 && epoch < INT64_MIN - rel))
        return mj_fail(r, key, "lies outside the clock's range once epoch_ns is added");
    *out = epoch + rel;
    return true;
}

bool mj_read_interval(mj_reader *r, const cJSON *o, int64_t epoch, int64_t *start, int64_t *end)
{
    if (!get_time(r, o, "start_ns", epoch, start) || !get_time(r, o, "end_ns", epoch, end))
        return false;
    if (*end < *start)
        return mj_fail(r, "end_ns", "ends before it starts");
    return true;
}

/* ---------- arrays read element by element (model_json_parts.h says why) ---------- */

const mj_split_array *mj_split_find(const mj_reader *r, const char *key)
{
    if (!r->split)
        return NULL;
    char path[sizeof r->path + 64];
    snprintf(path, sizeof path, "%s%s%s", r->path, r->path[0] ? "." : "", key);
    for (int i = 0; i < r->split->narr; i++)
        if (strcmp(r->split->arr[i].path, path) == 0)
            return &r->split->arr[i];
    return NULL;
}

/* Element i of a split array, parsed alone; NULL (and the error given) when it is not valid JSON. */
cJSON *mj_split_element(mj_reader *r, const mj_split_array *a, int i)
{
    const mj_split_doc *d = r->split;
    size_t start = a->el[i][0], end = a->el[i][1];
    const char *stop = NULL;
    cJSON *e = cJSON_ParseWithLengthOpts(d->buf + start, end - start, &stop, false);
    if (!e || stop != d->buf + end) {
        cJSON_Delete(e);
        size_t at = stop ? (size_t)(stop - d->buf) : start;
        if (!r->failed) {
            r->failed = true;
            mj_syntax_error(d->name, d->buf, d->len, start, at, d->drop, r->err, r->errlen);
            r->syntax = true;
        }
        return NULL;
    }
    return e;
}

bool mj_read_each(mj_reader *r, const cJSON *o, const char *key, int64_t epoch, void *w,
                      mj_element_reader read_one, bool objects)
{
    const cJSON *arr = mj_get_array(r, o, key);
    if (!arr)
        return false;
    const mj_split_array *sa = mj_split_find(r, key);
    int n = sa ? sa->n : cJSON_GetArraySize(arr);
    const cJSON *e = sa ? NULL : arr->child;
    for (int i = 0; i < n; i++) {
        cJSON *parsed = sa ? mj_split_element(r, sa, i) : NULL;
        if (sa && !parsed)
            return false;
        const cJSON *el = sa ? parsed : e;
        size_t s = mj_enter(r, key, i);
        bool ok = (!objects || cJSON_IsObject(el)) ? read_one(r, el, epoch, w) : mj_fail(r, NULL, "expected an object");
        mj_leave(r, s);
        cJSON_Delete(parsed);
        if (!ok)
            return false;
        if (!sa)
            e = e->next;
    }
    return true;
}

bool mj_parse_u64_string(mj_reader *r, const cJSON *o, const char *key, bool is_signed, uint64_t *out)
{
    char buf[32];
    if (!mj_get_str(r, o, key, false, buf, sizeof buf))
        return false;
    char *end;
    errno = 0;
    if (is_signed) {
        long long v = strtoll(buf, &end, 10);
        *out = (uint64_t)v;
    } else {
        if (buf[0] == '-')
            return mj_fail(r, key, "expected a decimal integer in a string");
        *out = strtoull(buf, &end, 10);
    }
    if (errno || end == buf || *end)
        return mj_fail(r, key, "expected a decimal integer in a string");
    return true;
}
bool mj_read_object(mj_reader *r, const cJSON *o, const char *key, bool optional, mj_object_reader fn, void *dst)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v && optional)
        return true;
    if (!mj_get_object(r, o, key))
        return false;
    size_t s = mj_enter_obj(r, key);
    bool ok = fn(r, v, dst);
    mj_leave(r, s);
    return ok;
}

/* ---------- what a text that is not JSON is told ---------- */

/* How deeply the text before `at` is nested (brackets outside strings): cJSON gives up at
 * CJSON_NESTING_LIMIT levels, which is valid JSON it will not read, not a syntax error. */
static int depth_at(const char *buf, size_t at)
{
    int depth = 0, deepest = 0;
    bool in_str = false;
    for (size_t i = 0; i < at; i++) {
        char c = buf[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
        } else if (c == '"') {
            in_str = true;
        } else if (c == '[' || c == '{') {
            depth++;
            deepest = depth > deepest ? depth : deepest;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return deepest;
}

/* cJSON answers NULL both for text that is not JSON and for memory that ran out, so its
 * allocations come through here (installed at the first read), which notes the second: under a
 * memory limit a run file is then said to have run out of memory, not to be broken. */
static _Thread_local bool cjson_ran_out;

static void *cjson_malloc(size_t n)
{
    void *p = malloc(n);
    cjson_ran_out |= p == NULL;
    return p;
}

static void cjson_hooks(void)
{
    cJSON_Hooks h = {cjson_malloc, free};
    cJSON_InitHooks(&h);
}

void mj_cjson_watch(void)
{
    static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;
    pthread_once(&hooks_once, cjson_hooks);
    cjson_ran_out = false;
}

/* The message for a fault at byte at of the text (from: where the value being read began). Where
 * the text left a value out as it was read (drop), the byte is the file's; lines are the same
 * either way (the value's newlines were kept). */
void mj_syntax_error(const char *name, const char *buf, size_t len, size_t from, size_t at,
                         const member_drop *drop, char *err, size_t errlen)
{
    int line = 1;
    for (size_t i = 0; i < at && i < len; i++)
        line += buf[i] == '\n';
    unsigned long long byte = drop ? md_original(drop, at) : at;
    if (cjson_ran_out)
        snprintf(err, errlen, "run file '%s': out of memory while reading it (near byte %llu, line %d)", name, byte,
                 line);
    else if (depth_at(buf + from, (at < len ? at + 1 : len) - from) > CJSON_NESTING_LIMIT)
        snprintf(err, errlen, "run file '%s' is nested deeper than %d levels (near byte %llu, line %d)", name,
                 CJSON_NESTING_LIMIT, byte, line);
    else
        snprintf(err, errlen, "run file '%s' is not valid JSON (near byte %llu, line %d)", name, byte, line);
}
