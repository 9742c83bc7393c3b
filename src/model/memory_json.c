/* See memory_json.h. */
#include "memory_json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "model.h"

/* Memory kinds as this member names them (mem_kind's numbers): model.c's names read "host" for an
 * unknown kind, which an allocation is not. */
static const char *const kind_names[] = {"unknown", "pageable", "pinned", "device", "array", "managed"};
#define NKINDS ((int)(sizeof kind_names / sizeof kind_names[0]))

static const char *kind_name(int k) { return k >= 0 && k < NKINDS ? kind_names[k] : "unknown"; }

/* JSON numbers are doubles: integers are exact up to 2^53. */
#define EXACT ((double)((int64_t)1 << 53))

/* ---------- writing ---------- */

#define NUM(v) cJSON_CreateNumber((double)(v))

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

static cJSON *address(uint64_t a)
{
    if ((double)a <= EXACT)
        return NUM(a);
    char hex[24];
    snprintf(hex, sizeof hex, "0x%" PRIx64, a);
    return cJSON_CreateString(hex);
}

static cJSON *index_or_null(int i) { return i >= 0 ? NUM(i) : cJSON_CreateNull(); }
static cJSON *given_or_null(int64_t v) { return v >= 0 ? NUM(v) : cJSON_CreateNull(); }

static cJSON *event_row(const mem_event *e, int64_t epoch)
{
    cJSON *v[] = {NUM(e->ts_ns - epoch), cJSON_CreateString(mem_op_name((mem_op)e->op)), cJSON_CreateString(kind_name(e->kind)),
                  NUM(e->pid), NUM(e->tid), NUM(e->device), NUM(e->stream), NUM(e->correlation), address(e->address),
                  NUM(e->bytes), index_or_null(e->allocator), address(e->pool), given_or_null(e->pool_size),
                  given_or_null(e->total_allocated), given_or_null(e->total_reserved)};
    return row(v, 15);
}

static cJSON *pool_row(const mem_pool_event *p, int64_t epoch)
{
    cJSON *v[] = {NUM(p->ts_ns - epoch), cJSON_CreateString(mem_pool_op_name((mem_pool_op)p->op)), NUM(p->pid),
                  NUM(p->device), NUM(p->correlation), cJSON_CreateBool(p->managed), address(p->address), NUM(p->size),
                  NUM(p->utilized), NUM(p->release_threshold)};
    return row(v, 10);
}

static cJSON *failure_row(const mem_failure *f, int64_t epoch)
{
    cJSON *v[] = {NUM(f->ts_ns - epoch), NUM(f->pid), NUM(f->tid), NUM(f->device), NUM(f->correlation),
                  cJSON_CreateString(kind_name(f->kind)), NUM(f->bytes), NUM(f->error), index_or_null(f->api),
                  index_or_null(f->error_name), f->has_live ? NUM(f->live_count) : cJSON_CreateNull(),
                  f->has_live ? NUM(f->live_bytes) : cJSON_CreateNull(),
                  f->has_live ? NUM(f->untracked) : cJSON_CreateNull(), NUM(f->nlive)};
    return row(v, 14);
}

static cJSON *live_row(const mem_live_group *g)
{
    cJSON *v[] = {NUM(g->frame), NUM(g->device), cJSON_CreateString(kind_name(g->kind)), NUM(g->count), NUM(g->bytes)};
    return row(v, 5);
}

static cJSON *sample_row(const mem_sample *s, int64_t epoch)
{
    cJSON *v[] = {NUM(s->ts_ns - epoch), NUM(s->pid), NUM(s->device), NUM(s->used), NUM(s->total)};
    return row(v, 5);
}

bool memory_json_write(const memory_activity *m, int64_t epoch, json_writer *w)
{
    if (!memory_any(m))
        return true;
    bool ok = jw_open_object(w, "memory") && jw_open_array(w, "names");
    for (int i = 0; ok && i < m->nnames; i++)
        ok = jw_element(w, cJSON_CreateString(m->names[i]));
    ok = ok && jw_close(w) && jw_member(w, "nvml_why", cJSON_CreateString(m->nvml_why)) && jw_open_array(w, "events");
    for (size_t i = 0; ok && i < m->nevents; i++)
        ok = jw_element(w, event_row(&m->events[i], epoch));
    ok = ok && jw_close(w) && jw_open_array(w, "pools");
    for (int i = 0; ok && i < m->npools; i++)
        ok = jw_element(w, pool_row(&m->pools[i], epoch));
    ok = ok && jw_close(w) && jw_open_array(w, "failures");
    for (int i = 0; ok && i < m->nfailures; i++)
        ok = jw_element(w, failure_row(&m->failures[i], epoch));
    ok = ok && jw_close(w) && jw_open_array(w, "live");
    for (int i = 0; ok && i < m->nlive; i++)
        ok = jw_element(w, live_row(&m->live[i]));
    ok = ok && jw_close(w) && jw_open_array(w, "samples");
    for (size_t i = 0; ok && i < m->nsamples; i++)
        ok = jw_element(w, sample_row(&m->samples[i], epoch));
    return ok && jw_close(w) && jw_close(w);
}

/* ---------- reading ---------- */

typedef struct {
    char *err;
    size_t errlen;
    int64_t epoch;
    const host_activity *host;
    const char *array;
    int index;
    int live_announced; /* the groups the failures read so far announce */
} mreader;

static bool fail(mreader *r, int field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(mreader *r, int field, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!r->array)
        snprintf(r->err, r->errlen, "memory: %s", msg);
    else if (field < 0)
        snprintf(r->err, r->errlen, "memory.%s[%d]: %s", r->array, r->index, msg);
    else
        snprintf(r->err, r->errlen, "memory.%s[%d][%d]: %s", r->array, r->index, field, msg);
    return false;
}

static bool rec_num(mreader *r, const cJSON *rec, int i, double lo, double hi, double *out)
{
    const cJSON *v = cJSON_GetArrayItem(rec, i);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble) ||
        v->valuedouble < lo || v->valuedouble > hi)
        return fail(r, i, "expected an integer from %.0f to %.0f", lo, hi);
    *out = v->valuedouble;
    return true;
}

static bool rec_u64(mreader *r, const cJSON *rec, int i, uint64_t *out)
{
    double d;
    if (!rec_num(r, rec, i, 0, EXACT, &d))
        return false;
    *out = (uint64_t)d;
    return true;
}

static bool rec_u32(mreader *r, const cJSON *rec, int i, uint32_t *out)
{
    double d;
    if (!rec_num(r, rec, i, 0, UINT32_MAX, &d))
        return false;
    *out = (uint32_t)d;
    return true;
}

/* A count given or null (-1). */
static bool rec_given(mreader *r, const cJSON *rec, int i, int64_t *out)
{
    if (cJSON_IsNull(cJSON_GetArrayItem(rec, i))) {
        *out = -1;
        return true;
    }
    double d;
    if (!rec_num(r, rec, i, 0, EXACT, &d))
        return false;
    *out = (int64_t)d;
    return true;
}

static bool rec_time(mreader *r, const cJSON *rec, int i, int64_t *out)
{
    double d;
    if (!rec_num(r, rec, i, -EXACT, EXACT, &d))
        return false;
    int64_t rel = (int64_t)d;
    if ((rel > 0 && r->epoch > INT64_MAX - rel) || (rel < 0 && r->epoch < INT64_MIN - rel))
        return fail(r, i, "lies outside the clock's range once epoch_ns is added");
    *out = r->epoch + rel;
    return true;
}

static bool rec_address(mreader *r, const cJSON *rec, int i, uint64_t *out)
{
    const cJSON *v = cJSON_GetArrayItem(rec, i);
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        char *end;
        if (s[0] != '0' || s[1] != 'x' || !s[2])
            return fail(r, i, "expected an address: a number or a \"0x...\" string");
        unsigned long long a = strtoull(s + 2, &end, 16);
        if (*end)
            return fail(r, i, "expected an address: a number or a \"0x...\" string");
        *out = a;
        return true;
    }
    return rec_u64(r, rec, i, out);
}

/* A names index or null (-1). */
static bool rec_name(mreader *r, const memory_activity *m, const cJSON *rec, int i, int *out)
{
    if (cJSON_IsNull(cJSON_GetArrayItem(rec, i))) {
        *out = -1;
        return true;
    }
    double d;
    if (!rec_num(r, rec, i, 0, (double)m->nnames - 1, &d))
        return false;
    *out = (int)d;
    return true;
}

static bool rec_word(mreader *r, const cJSON *rec, int i, const char **out)
{
    const cJSON *v = cJSON_GetArrayItem(rec, i);
    *out = "";
    if (!cJSON_IsString(v))
        return fail(r, i, "expected a string");
    *out = v->valuestring;
    return true;
}

static bool rec_kind(mreader *r, const cJSON *rec, int i, uint8_t *out)
{
    const char *s;
    if (!rec_word(r, rec, i, &s))
        return false;
    for (int k = 0; k < NKINDS; k++)
        if (strcmp(s, kind_names[k]) == 0) {
            *out = (uint8_t)k;
            return true;
        }
    return fail(r, i, "unknown memory kind '%s'", s);
}

static bool read_event(mreader *r, memory_activity *m, const cJSON *rec)
{
    mem_event e = {0};
    const char *op;
    mem_op o;
    if (!rec_time(r, rec, 0, &e.ts_ns) || !rec_word(r, rec, 1, &op) || !rec_kind(r, rec, 2, &e.kind) ||
        !rec_u32(r, rec, 3, &e.pid) || !rec_u32(r, rec, 4, &e.tid) || !rec_u32(r, rec, 5, &e.device) ||
        !rec_u32(r, rec, 6, &e.stream) || !rec_u32(r, rec, 7, &e.correlation) || !rec_address(r, rec, 8, &e.address) ||
        !rec_u64(r, rec, 9, &e.bytes) || !rec_name(r, m, rec, 10, &e.allocator) || !rec_address(r, rec, 11, &e.pool) ||
        !rec_given(r, rec, 12, &e.pool_size) || !rec_given(r, rec, 13, &e.total_allocated) ||
        !rec_given(r, rec, 14, &e.total_reserved))
        return false;
    if (!mem_op_parse(op, &o))
        return fail(r, 1, "expected \"alloc\" or \"free\"");
    e.op = (uint8_t)o;
    return memory_add_event(m, &e) || fail(r, -1, "out of memory");
}

static bool read_pool(mreader *r, memory_activity *m, const cJSON *rec)
{
    mem_pool_event p = {0};
    const char *op;
    mem_pool_op o;
    const cJSON *managed = cJSON_GetArrayItem(rec, 5);
    if (!rec_time(r, rec, 0, &p.ts_ns) || !rec_word(r, rec, 1, &op) || !rec_u32(r, rec, 2, &p.pid) ||
        !rec_u32(r, rec, 3, &p.device) || !rec_u32(r, rec, 4, &p.correlation))
        return false;
    if (!cJSON_IsBool(managed))
        return fail(r, 5, "expected true or false");
    if (!rec_address(r, rec, 6, &p.address) || !rec_u64(r, rec, 7, &p.size) || !rec_u64(r, rec, 8, &p.utilized) ||
        !rec_u64(r, rec, 9, &p.release_threshold))
        return false;
    if (!mem_pool_op_parse(op, &o))
        return fail(r, 1, "expected \"created\", \"destroyed\" or \"trimmed\"");
    p.op = (uint8_t)o;
    p.managed = cJSON_IsTrue(managed);
    return memory_add_pool(m, &p) || fail(r, -1, "out of memory");
}

static bool read_failure(mreader *r, memory_activity *m, const cJSON *rec)
{
    mem_failure f = {0};
    double error, nlive;
    int64_t count, bytes, untracked;
    if (!rec_time(r, rec, 0, &f.ts_ns) || !rec_u32(r, rec, 1, &f.pid) || !rec_u32(r, rec, 2, &f.tid) ||
        !rec_u32(r, rec, 3, &f.device) || !rec_u32(r, rec, 4, &f.correlation) || !rec_kind(r, rec, 5, &f.kind) ||
        !rec_u64(r, rec, 6, &f.bytes) || !rec_num(r, rec, 7, INT32_MIN, INT32_MAX, &error) ||
        !rec_name(r, m, rec, 8, &f.api) || !rec_name(r, m, rec, 9, &f.error_name) || !rec_given(r, rec, 10, &count) ||
        !rec_given(r, rec, 11, &bytes) || !rec_given(r, rec, 12, &untracked) || !rec_num(r, rec, 13, 0, 1 << 24, &nlive))
        return false;
    f.error = (int)error;
    f.has_live = count >= 0;
    if (f.has_live != (bytes >= 0) || f.has_live != (untracked >= 0))
        return fail(r, 10, "live_count, live_bytes and untracked are all given or all null");
    if (!f.has_live && nlive > 0)
        return fail(r, 13, "groups of a live set that was not given");
    f.live_count = f.has_live ? (uint64_t)count : 0;
    f.live_bytes = f.has_live ? (uint64_t)bytes : 0;
    f.untracked = f.has_live ? (uint64_t)untracked : 0;
    if (!memory_add_failure(m, &f))
        return fail(r, -1, "out of memory");
    /* Its groups come in "live", after the previous failures' (read_live). */
    mem_failure *added = &m->failures[m->nfailures - 1];
    added->first_live = r->live_announced;
    added->nlive = (int)nlive;
    if (r->live_announced > INT32_MAX - (int)nlive)
        return fail(r, 13, "too many groups");
    r->live_announced += (int)nlive;
    return true;
}

/* Group i belongs to the failure whose announced range holds i; its frame must be of that
 * failure's process. */
static bool read_live(mreader *r, memory_activity *m, const cJSON *rec)
{
    mem_live_group g = {0};
    double frame;
    if (!rec_num(r, rec, 0, -1, (double)r->host->nframes - 1, &frame) || !rec_u32(r, rec, 1, &g.device) ||
        !rec_kind(r, rec, 2, &g.kind) || !rec_u64(r, rec, 3, &g.count) || !rec_u64(r, rec, 4, &g.bytes))
        return false;
    g.frame = (int)frame;
    int owner = 0;
    while (owner < m->nfailures && m->failures[owner].first_live + m->failures[owner].nlive <= m->nlive)
        owner++;
    if (owner == m->nfailures)
        return fail(r, -1, "a group beyond those the failures announced");
    if (g.frame >= 0 && r->host->frames[g.frame].pid != m->failures[owner].pid)
        return fail(r, 0, "names a frame of process %u, not of its failure's %u", r->host->frames[g.frame].pid,
                    m->failures[owner].pid);
    size_t n = (size_t)m->nlive;
    void *grown = array_grow(m->live, n, sizeof *m->live);
    if (!grown)
        return fail(r, -1, "out of memory");
    m->live = grown;
    m->live[m->nlive++] = g;
    return true;
}

static bool read_sample(mreader *r, memory_activity *m, const cJSON *rec)
{
    mem_sample s = {0};
    if (!rec_time(r, rec, 0, &s.ts_ns) || !rec_u32(r, rec, 1, &s.pid) || !rec_u32(r, rec, 2, &s.device) ||
        !rec_u64(r, rec, 3, &s.used) || !rec_u64(r, rec, 4, &s.total))
        return false;
    return memory_add_sample(m, &s) || fail(r, -1, "out of memory");
}

typedef bool (*record_reader)(mreader *r, memory_activity *m, const cJSON *rec);

typedef struct {
    mreader *r;
    memory_activity *m;
    record_reader read;
    int width;
} records;

static bool one_record(void *ctx, const cJSON *rec, int index)
{
    records *c = ctx;
    c->r->index = index;
    return cJSON_IsArray(rec) && cJSON_GetArraySize(rec) == c->width ? c->read(c->r, c->m, rec)
                                                                       : fail(c->r, -1, "expected an array of %d values", c->width);
}

/* Array key of o (or of split, where it has it), each element a record of width values. */
static bool read_records(mreader *r, const cJSON *o, const host_split *split, const char *key, int width,
                         memory_activity *m, record_reader read)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(arr))
        return fail(r, -1, "%s: %s", key, arr ? "expected an array" : "missing");
    r->array = key;
    records c = {r, m, read, width};
    if (!json_records_each(arr, split, key, one_record, &c))
        return false;
    r->array = NULL;
    return true;
}

static bool read_names(mreader *r, const cJSON *o, memory_activity *m)
{
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(o, "names");
    if (!cJSON_IsArray(names))
        return fail(r, -1, "names: %s", names ? "expected an array" : "missing");
    r->array = "names";
    r->index = 0;
    for (const cJSON *n = names->child; n; n = n->next, r->index++) {
        if (!cJSON_IsString(n))
            return fail(r, -1, "expected a string");
        int before = m->nnames;
        if (memory_name(m, n->valuestring) != before)
            return fail(r, -1, m->nnames == before ? "a name given twice" : "out of memory");
    }
    r->array = NULL;
    return true;
}

bool memory_json_read(const cJSON *root, int64_t epoch, const host_split *split, const host_activity *h,
                      memory_activity *m, char *err, size_t errlen)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "memory");
    if (!o)
        return true;
    mreader r = {.err = err, .errlen = errlen, .epoch = epoch, .host = h};
    if (!cJSON_IsObject(o))
        return fail(&r, -1, "expected an object");
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(o, "nvml_why");
    if (!cJSON_IsString(why))
        return fail(&r, -1, "nvml_why: %s", why ? "expected a string" : "missing");
    copy_str(m->nvml_why, sizeof m->nvml_why, why->valuestring);
    if (!read_names(&r, o, m) || !read_records(&r, o, split, "events", 15, m, read_event) ||
        !read_records(&r, o, NULL, "pools", 10, m, read_pool) ||
        !read_records(&r, o, NULL, "failures", 14, m, read_failure) ||
        !read_records(&r, o, NULL, "live", 5, m, read_live) ||
        !read_records(&r, o, split, "samples", 5, m, read_sample))
        return false;
    if (m->nlive != r.live_announced)
        return fail(&r, -1, "live: %d groups, but the failures announce %d", m->nlive, r.live_announced);
    return true;
}
