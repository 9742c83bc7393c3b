/* See host_json.h. */
#include "host_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

/* ---------- writing ---------- */

static cJSON *str_or_null(const char *s) { return s ? cJSON_CreateString(s) : cJSON_CreateNull(); }

/* An array of the given items; NULL (and every item freed) when one is NULL or memory ran out. */
static cJSON *row(cJSON **items, int n)
{
    cJSON *a = cJSON_CreateArray();
    bool ok = a != NULL;
    for (int i = 0; i < n; i++) {
        ok = ok && items[i] && cJSON_AddItemToArray(a, items[i]);
        if (!ok)
            cJSON_Delete(items[i]);
    }
    if (!ok)
        cJSON_Delete(a);
    return ok ? a : NULL;
}

#define NUM(v) cJSON_CreateNumber((double)(v))

static cJSON *frame_row(const host_frame *f)
{
    cJSON *v[] = {NUM(f->pid), NUM(f->parent), cJSON_CreateString(host_frame_kind_name(f->kind)), NUM(f->line),
                  NUM(f->offset), str_or_null(f->function), str_or_null(f->file), str_or_null(f->module)};
    return row(v, 8);
}

/* A frame in inlined code and its outer node (host_frame.outer). */
static cJSON *inlined_row(int frame, int outer)
{
    cJSON *v[] = {NUM(frame), NUM(outer)};
    return row(v, 2);
}

static cJSON *sample_row(const host_sample *s, int64_t epoch)
{
    char state[2] = {s->state, '\0'};
    cJSON *v[] = {NUM(s->ts_ns - epoch), NUM(s->pid), NUM(s->tid), NUM(s->frame),
                  cJSON_CreateString(host_sample_source_name(s->source)), s->state ? cJSON_CreateString(state) : cJSON_CreateNull()};
    return row(v, 6);
}

static cJSON *span_row(const host_span *s, int64_t epoch)
{
    cJSON *v[] = {NUM(s->start_ns - epoch), NUM(s->end_ns - epoch), NUM(s->pid), NUM(s->tid), NUM(s->frame)};
    return row(v, 5);
}

static cJSON *site_row(const host_site *s)
{
    cJSON *v[] = {NUM(s->pid), NUM(s->correlation), NUM(s->frame)};
    return row(v, 3);
}

/* The library's counts of its own collection (host_collect_stats), as "sitestat" and "samplestat"
 * objects; null where no process gave them. */
static cJSON *stats_object(bool has, const char *const *keys, const uint64_t *v, int n)
{
    if (!has)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; o && i < n; i++)
        if (!cJSON_AddNumberToObject(o, keys[i], (double)v[i])) {
            cJSON_Delete(o);
            return NULL;
        }
    return o;
}

static const char *const site_keys[] = {"taken", "skipped", "off_ns"};
static const char *const look_keys[] = {"looks_nogil", "looks_gil", "left_out", "torn"};

bool host_json_write(const host_activity *h, int64_t epoch, json_writer *w)
{
    host_names_wait(h); /* the run file may be written while a profile's frames are named */
    const host_collect_stats *st = &h->stats;
    if (!h->nframes && !h->nsamples && !h->nspans && !h->nsites && !h->mechanism[0] && !h->why_not[0] &&
        !h->symbols_why[0] && !st->has_sites && !st->has_looks)
        return true;
    const uint64_t sites[] = {st->sites_taken, st->sites_skipped, st->sites_off_ns};
    const uint64_t looks[] = {st->looks_nogil, st->looks_gil, st->samples_left_out, st->samples_torn};
    bool ok = jw_open_object(w, "host_activity") && jw_member(w, "mechanism", cJSON_CreateString(h->mechanism)) &&
              jw_member(w, "rate_hz", cJSON_CreateNumber(h->rate_hz)) &&
              jw_member(w, "why_not", cJSON_CreateString(h->why_not)) &&
              jw_member(w, "symbols_why", cJSON_CreateString(h->symbols_why)) &&
              jw_member(w, "sitestat", stats_object(st->has_sites, site_keys, sites, 3)) &&
              jw_member(w, "samplestat", stats_object(st->has_looks, look_keys, looks, 4)) &&
              jw_open_array(w, "frames");
    for (int i = 0; ok && i < h->nframes; i++)
        ok = jw_element(w, frame_row(&h->frames[i]));
    ok = ok && jw_close(w);
    /* A member of its own, not a ninth value of a frame's row: a reader before it takes rows of
     * exactly eight, and reads a run with it as before (the outer nodes are frames no stack
     * names); a run without inlined frames is written as it always was. */
    int inlined = 0;
    while (inlined < h->nframes && h->frames[inlined].outer <= 0)
        inlined++;
    if (ok && inlined < h->nframes) {
        ok = jw_open_array(w, "inlined");
        for (int i = inlined; ok && i < h->nframes; i++)
            if (h->frames[i].outer > 0)
                ok = jw_element(w, inlined_row(i, h->frames[i].outer));
        ok = ok && jw_close(w);
    }
    ok = ok && jw_open_array(w, "samples");
    for (size_t i = 0; ok && i < h->nsamples; i++)
        ok = jw_element(w, sample_row(&h->samples[i], epoch));
    ok = ok && jw_close(w) && jw_open_array(w, "spans");
    for (size_t i = 0; ok && i < h->nspans; i++)
        ok = jw_element(w, span_row(&h->spans[i], epoch));
    ok = ok && jw_close(w) && jw_open_array(w, "sites");
    for (size_t i = 0; ok && i < h->nsites; i++)
        ok = jw_element(w, site_row(&h->sites[i]));
    return ok && jw_close(w) && jw_close(w);
}

/* ---------- reading ---------- */

typedef struct {
    char *err;
    size_t errlen;
    int64_t epoch;
    const char *array; /* "frames", ... */
    int index;         /* the record's place in it */
} hreader;

static bool fail(hreader *r, int field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(hreader *r, int field, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!r->array)
        snprintf(r->err, r->errlen, "host_activity: %s", msg);
    else if (field < 0)
        snprintf(r->err, r->errlen, "host_activity.%s[%d]: %s", r->array, r->index, msg);
    else
        snprintf(r->err, r->errlen, "host_activity.%s[%d][%d]: %s", r->array, r->index, field, msg);
    return false;
}

/* Field i of a record: an integer in [lo, hi]. */
static bool rec_int(hreader *r, const cJSON *rec, int i, double lo, double hi, int64_t *out)
{
    const cJSON *v = cJSON_GetArrayItem(rec, i);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble) ||
        v->valuedouble < lo || v->valuedouble > hi)
        return fail(r, i, "expected an integer from %.0f to %.0f", lo, hi);
    *out = (int64_t)v->valuedouble;
    return true;
}

/* Bounded so that adding the epoch back cannot overflow (model_json_parts.c's rule for event times). */
#define MAX_REL_NS ((double)((int64_t)1 << 53))

static bool rec_time(hreader *r, const cJSON *rec, int i, int64_t *out)
{
    int64_t rel;
    if (!rec_int(r, rec, i, -MAX_REL_NS, MAX_REL_NS, &rel))
        return false;
    if ((rel > 0 && r->epoch > INT64_MAX - rel) || (rel < 0 && r->epoch < INT64_MIN - rel))
        return fail(r, i, "lies outside the clock's range once epoch_ns is added");
    *out = r->epoch + rel;
    return true;
}

/* Field i: a string, or null (NULL) where nullable. */
static bool rec_str(hreader *r, const cJSON *rec, int i, bool nullable, const char **out)
{
    const cJSON *v = cJSON_GetArrayItem(rec, i);
    *out = NULL;
    if (nullable && cJSON_IsNull(v))
        return true;
    if (!cJSON_IsString(v))
        return fail(r, i, nullable ? "expected a string or null" : "expected a string");
    *out = v->valuestring;
    return true;
}

/* Field i: a frame of process pid (-1 where allowed: none). */
static bool rec_frame(hreader *r, const host_activity *h, const cJSON *rec, int i, uint32_t pid, int *out)
{
    int64_t f;
    if (!rec_int(r, rec, i, -1, (double)h->nframes - 1, &f))
        return false;
    if (f >= 0 && h->frames[f].pid != pid)
        return fail(r, i, "names a frame of process %u, not of its own %u", h->frames[f].pid, pid);
    *out = (int)f;
    return true;
}

static bool read_frame(hreader *r, host_activity *h, const cJSON *rec)
{
    int64_t pid, parent, line, offset;
    const char *kind, *function, *file, *module;
    host_frame f = {0};
    if (!rec_int(r, rec, 0, 0, UINT32_MAX, &pid) || !rec_int(r, rec, 1, -1, (double)h->nframes - 1, &parent) ||
        !rec_str(r, rec, 2, false, &kind) || !rec_int(r, rec, 3, 0, INT32_MAX, &line) ||
        !rec_int(r, rec, 4, 0, MAX_REL_NS, &offset) || !rec_str(r, rec, 5, true, &function) ||
        !rec_str(r, rec, 6, true, &file) || !rec_str(r, rec, 7, true, &module))
        return false;
    if (!host_frame_kind_parse(kind, &f.kind))
        return fail(r, 2, "expected \"native\", \"py\" or \"op\"");
    if (parent >= 0 && h->frames[parent].pid != (uint32_t)pid)
        return fail(r, 1, "names a frame of process %u, not of its own %u", h->frames[parent].pid, (uint32_t)pid);
    f.pid = (uint32_t)pid;
    f.parent = (int)parent;
    f.line = (int)line;
    f.offset = (uint64_t)offset;
    f.function = (char *)function;
    f.file = (char *)file;
    f.module = (char *)module;
    return host_add_frame(h, &f) >= 0 || fail(r, -1, "out of memory");
}

/* [frame, outer]: a native frame in inlined code, and its outer node: a later native frame of its
 * process, so that following outer always ends. */
static bool read_inlined(hreader *r, host_activity *h, const cJSON *rec)
{
    int64_t frame, outer;
    if (!rec_int(r, rec, 0, 0, (double)h->nframes - 1, &frame) || !rec_int(r, rec, 1, 0, (double)h->nframes - 1, &outer))
        return false;
    host_frame *f = &h->frames[frame];
    const host_frame *o = &h->frames[outer];
    if (outer <= frame)
        return fail(r, 1, "names no frame after its own");
    if (o->pid != f->pid)
        return fail(r, 1, "names a frame of process %u, not of its own %u", o->pid, f->pid);
    if (f->kind != HOST_FRAME_NATIVE || o->kind != HOST_FRAME_NATIVE)
        return fail(r, -1, "names a frame that is not native");
    if (f->outer > 0)
        return fail(r, 0, "names a frame given an outer node before");
    f->outer = (int)outer;
    return true;
}

static bool read_sample(hreader *r, host_activity *h, const cJSON *rec)
{
    int64_t pid, tid;
    const char *source, *state;
    host_sample s = {0};
    if (!rec_time(r, rec, 0, &s.ts_ns) || !rec_int(r, rec, 1, 0, UINT32_MAX, &pid) ||
        !rec_int(r, rec, 2, 0, UINT32_MAX, &tid) || !rec_frame(r, h, rec, 3, (uint32_t)pid, &s.frame) ||
        !rec_str(r, rec, 4, false, &source) || !rec_str(r, rec, 5, true, &state))
        return false;
    if (!host_sample_source_parse(source, &s.source))
        return fail(r, 4, "expected \"cpu\" or \"py\"");
    if (state && (strlen(state) != 1 || !((*state >= 'A' && *state <= 'Z') || (*state >= 'a' && *state <= 'z'))))
        return fail(r, 5, "expected a letter or null");
    s.pid = (uint32_t)pid;
    s.tid = (uint32_t)tid;
    s.state = state ? *state : 0;
    return host_add_sample(h, &s) || fail(r, -1, "out of memory");
}

static bool read_span(hreader *r, host_activity *h, const cJSON *rec)
{
    int64_t pid, tid;
    host_span s = {0};
    if (!rec_time(r, rec, 0, &s.start_ns) || !rec_time(r, rec, 1, &s.end_ns) ||
        !rec_int(r, rec, 2, 0, UINT32_MAX, &pid) || !rec_int(r, rec, 3, 0, UINT32_MAX, &tid) ||
        !rec_frame(r, h, rec, 4, (uint32_t)pid, &s.frame))
        return false;
    if (s.end_ns < s.start_ns)
        return fail(r, 1, "ends before it starts");
    s.pid = (uint32_t)pid;
    s.tid = (uint32_t)tid;
    return host_add_span(h, &s) || fail(r, -1, "out of memory");
}

static bool read_site(hreader *r, host_activity *h, const cJSON *rec)
{
    int64_t pid, corr;
    host_site s = {0};
    if (!rec_int(r, rec, 0, 0, UINT32_MAX, &pid) || !rec_int(r, rec, 1, 0, UINT32_MAX, &corr) ||
        !rec_frame(r, h, rec, 2, (uint32_t)pid, &s.frame))
        return false;
    if (s.frame < 0)
        return fail(r, 2, "a call site needs a frame");
    s.pid = (uint32_t)pid;
    s.correlation = (uint32_t)corr;
    return host_add_site(h, &s) || fail(r, -1, "out of memory");
}

bool json_records_each(const cJSON *arr, const host_split *split, const char *key, json_record_fn each, void *ctx)
{
    int n = split ? split->count(split->ctx, key) : -1;
    const cJSON *e = n < 0 ? arr->child : NULL;
    for (int i = 0; n < 0 ? e != NULL : i < n; i++) {
        cJSON *parsed = n < 0 ? NULL : split->element(split->ctx, key, i);
        if (n >= 0 && !parsed)
            return false; /* the split's error stands */
        bool ok = each(ctx, n < 0 ? e : parsed, i);
        cJSON_Delete(parsed);
        if (!ok)
            return false;
        if (n < 0)
            e = e->next;
    }
    return true;
}

typedef bool (*record_reader)(hreader *r, host_activity *h, const cJSON *rec);

typedef struct {
    hreader *r;
    host_activity *h;
    record_reader read;
    int width;
} records;

static bool one_record(void *ctx, const cJSON *rec, int index)
{
    records *c = ctx;
    c->r->index = index;
    return cJSON_IsArray(rec) && cJSON_GetArraySize(rec) == c->width ? c->read(c->r, c->h, rec)
                                                                       : fail(c->r, -1, "expected an array of %d values", c->width);
}

/* Array key of o (or of split, where it has it), each element a record of width fields read by
 * read. */
static bool read_records(hreader *r, const cJSON *o, const host_split *split, const char *key, int width,
                         host_activity *h, record_reader read)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(arr))
        return fail(r, -1, "%s: %s", key, arr ? "expected an array" : "missing");
    r->array = key;
    records c = {r, h, read, width};
    if (!json_records_each(arr, split, key, one_record, &c))
        return false;
    r->array = NULL;
    return true;
}

/* A string member of o into buf. */
static bool read_text(hreader *r, const cJSON *o, const char *key, char *buf, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(v))
        return fail(r, -1, "%s: %s", key, v ? "expected a string" : "missing");
    copy_str(buf, len, v->valuestring);
    return true;
}

/* An optional stats object (absent or null: not said; files before it have none) into v[n]; keys
 * from the required-th on may be absent (0: counts added later). */
static bool read_stats(hreader *r, const cJSON *o, const char *key, const char *const *keys, uint64_t *v, int n,
                       int required, bool *has)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!s || cJSON_IsNull(s))
        return true;
    if (!cJSON_IsObject(s))
        return fail(r, -1, "%s: expected an object or null", key);
    for (int i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(s, keys[i]);
        v[i] = 0;
        if (!x && i >= required)
            continue;
        if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0 && x->valuedouble <= 9007199254740992.0) ||
            x->valuedouble != (double)(uint64_t)x->valuedouble)
            return fail(r, -1, "%s.%s: expected a count", key, keys[i]);
        v[i] = (uint64_t)x->valuedouble;
    }
    *has = true;
    return true;
}

bool host_json_read(const cJSON *root, int64_t epoch, const host_split *split, host_activity *h, char *err,
                    size_t errlen)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "host_activity");
    if (!o)
        return true;
    hreader r = {.err = err, .errlen = errlen, .epoch = epoch};
    if (!cJSON_IsObject(o))
        return fail(&r, -1, "expected an object");
    const cJSON *rate = cJSON_GetObjectItemCaseSensitive(o, "rate_hz");
    if (!cJSON_IsNumber(rate) || !(rate->valuedouble >= 0 && rate->valuedouble < 1e9))
        return fail(&r, -1, "rate_hz: expected a number from 0 below 1e9");
    h->rate_hz = rate->valuedouble;
    host_collect_stats *st = &h->stats;
    uint64_t sites[3], looks[4];
    if (!read_stats(&r, o, "sitestat", site_keys, sites, 3, 2, &st->has_sites) || /* off_ns came later */
        !read_stats(&r, o, "samplestat", look_keys, looks, 4, 4, &st->has_looks))
        return false;
    if (st->has_sites)
        st->sites_taken = sites[0], st->sites_skipped = sites[1], st->sites_off_ns = sites[2];
    if (st->has_looks)
        st->looks_nogil = looks[0], st->looks_gil = looks[1], st->samples_left_out = looks[2], st->samples_torn = looks[3];
    return read_text(&r, o, "mechanism", h->mechanism, sizeof h->mechanism) &&
           read_text(&r, o, "why_not", h->why_not, sizeof h->why_not) &&
           read_text(&r, o, "symbols_why", h->symbols_why, sizeof h->symbols_why) &&
           read_records(&r, o, split, "frames", 8, h, read_frame) &&
           (!cJSON_GetObjectItemCaseSensitive(o, "inlined") || /* absent before it, and where none is */
            read_records(&r, o, split, "inlined", 2, h, read_inlined)) &&
           read_records(&r, o, split, "samples", 6, h, read_sample) &&
           read_records(&r, o, split, "spans", 5, h, read_span) && read_records(&r, o, split, "sites", 3, h, read_site);
}
