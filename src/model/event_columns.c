/* See event_columns.h. */
#include "event_columns.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t event_columns_min = EVENT_COLUMNS_MIN;

const char *const event_column_kinds[5] = {"kernels", "copies", "memsets", "apis", "syncs"};

enum { K_KERNEL, K_COPY, K_MEMSET, K_API, K_SYNC };

/* Each kind's columns, in the order written; the first four are every kind's. */
#define MAX_COLS 20
static const char *const cols[5][MAX_COLS] = {
    {"start_ns", "dur_ns", "correlation", "region", "pid", "device", "stream", "name", "grid_x", "grid_y", "grid_z",
     "block_x", "block_y", "block_z", "registers", "static_smem", "dynamic_smem", "smem_optin", "local_mem", NULL},
    {"start_ns", "dur_ns", "correlation", "region", "pid", "device", "stream", "dir", "src", "dst", "bytes", NULL},
    {"start_ns", "dur_ns", "correlation", "region", "pid", "device", "stream", "mem", "bytes", NULL},
    {"start_ns", "dur_ns", "correlation", "region", "pid", "thread", "name", "kind", NULL},
    {"start_ns", "dur_ns", "correlation", "region", "pid", "thread", "stream", "kind", NULL},
};
enum { C_START, C_DUR, C_CORR, C_REGION }; /* the shared ones; start and correlation are deltas */

size_t event_count(const event_list *e) { return e->nkernels + e->ncopies + e->nmemsets + e->napis + e->nsyncs; }

static size_t kind_count(const event_list *e, int k)
{
    const size_t n[5] = {e->nkernels, e->ncopies, e->nmemsets, e->napis, e->nsyncs};
    return n[k];
}

/* ---------- writing ---------- */

/* The names table's indices by the names' pointers (the events hold the table's own strings):
 * a long run's 1.8 M calls looked up by pointer, not by hashing and comparing their text. Open
 * addressing, at most half full. */
typedef struct {
    const char **key;
    size_t *index;
    size_t nslots;
} name_index;

static size_t slot_of(const name_index *x, const char *p)
{
    size_t h = (size_t)((((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull) >> 32) & (x->nslots - 1);
    while (x->key[h] && x->key[h] != p)
        h = (h + 1) & (x->nslots - 1);
    return h;
}

static bool name_index_build(name_index *x, const event_list *e)
{
    size_t n;
    const char *const *names = events_names(e, &n);
    x->nslots = 64;
    while (x->nslots < 2 * n)
        x->nslots *= 2;
    x->key = calloc(x->nslots, sizeof *x->key);
    x->index = malloc(x->nslots * sizeof *x->index);
    if (!x->key || !x->index)
        return false;
    for (size_t i = 0; i < n; i++) {
        size_t h = slot_of(x, names[i]);
        x->key[h] = names[i];
        x->index[h] = i;
    }
    return true;
}

static void name_index_free(name_index *x)
{
    free(x->key);
    free(x->index);
}

/* name's index in e's names table, SIZE_MAX when it is not there: by pointer, else by its text
 * (a list a test filled by hand with strings of its own). */
static size_t index_of(const name_index *x, const event_list *e, const char *name)
{
    size_t h = slot_of(x, name);
    return x->key[h] ? x->index[h] : events_name_index(e, name);
}

/* Column c of event i of kind k as written, but for the deltas (taken by the caller). */
static int64_t raw(const event_list *e, const name_index *names, int k, size_t i, int c, int64_t epoch)
{
    int64_t start = 0, end = 0, corr = 0, region = 0;
    switch (k) {
    case K_KERNEL: {
        const kernel_event *x = &e->kernels[i];
        start = x->start_ns, end = x->end_ns, corr = x->correlation, region = x->region;
        const int64_t v[] = {0, 0, 0, 0, x->pid, x->device, x->stream, 0, x->grid[0], x->grid[1], x->grid[2],
                             x->block[0], x->block[1], x->block[2], x->has_resources ? x->registers : -1,
                             x->static_smem, x->dynamic_smem, x->smem_optin, x->local_mem};
        if (c == 7)
            return (int64_t)index_of(names, e, x->name);
        if (c > C_REGION)
            return v[c];
        break;
    }
    case K_COPY: {
        const copy_event *x = &e->copies[i];
        start = x->start_ns, end = x->end_ns, corr = x->correlation, region = x->region;
        const int64_t v[] = {0, 0, 0, 0, x->pid, x->device, x->stream, x->dir, x->src, x->dst, (int64_t)x->bytes};
        if (c > C_REGION)
            return v[c];
        break;
    }
    case K_MEMSET: {
        const memset_event *x = &e->memsets[i];
        start = x->start_ns, end = x->end_ns, corr = x->correlation, region = x->region;
        const int64_t v[] = {0, 0, 0, 0, x->pid, x->device, x->stream, x->mem, (int64_t)x->bytes};
        if (c > C_REGION)
            return v[c];
        break;
    }
    case K_API: {
        const api_event *x = &e->apis[i];
        start = x->start_ns, end = x->end_ns, corr = x->correlation, region = x->region;
        if (c == 6)
            return (int64_t)index_of(names, e, x->name);
        const int64_t v[] = {0, 0, 0, 0, x->pid, x->thread, 0, x->kind};
        if (c > C_REGION)
            return v[c];
        break;
    }
    default: {
        const sync_event *x = &e->syncs[i];
        start = x->start_ns, end = x->end_ns, corr = x->correlation, region = x->region;
        const int64_t v[] = {0, 0, 0, 0, x->pid, x->thread, x->stream, x->kind};
        if (c > C_REGION)
            return v[c];
        break;
    }
    }
    return c == C_START ? start - epoch : c == C_DUR ? end - start : c == C_CORR ? corr : region;
}

bool event_columns_fit(const event_list *e)
{
    if (event_count(e) < event_columns_min)
        return false;
    name_index names;
    bool fit = name_index_build(&names, e);
    for (size_t i = 0; fit && i < e->nkernels; i++)
        fit = index_of(&names, e, e->kernels[i].name) != SIZE_MAX;
    for (size_t i = 0; fit && i < e->napis; i++)
        fit = index_of(&names, e, e->apis[i].name) != SIZE_MAX;
    name_index_free(&names);
    return fit;
}

/* One column's values as written: starts and correlation ids as differences from the event
 * before, each made when the writer asks (jw_member_ints_of: in order). */
typedef struct {
    const event_list *e;
    const name_index *names;
    int k, c;
    int64_t epoch, prev;
} column_cursor;

static int64_t column_value(size_t i, void *p)
{
    column_cursor *x = p;
    int64_t v = raw(x->e, x->names, x->k, i, x->c, x->epoch);
    int64_t out = x->c == C_START || x->c == C_CORR ? v - x->prev : v;
    x->prev = v;
    return out;
}

bool event_columns_write(json_writer *w, const event_list *e, int64_t epoch)
{
    size_t nnames;
    const char *const *names = events_names(e, &nnames);
    name_index index;
    bool ok = name_index_build(&index, e) && jw_member(w, "form", cJSON_CreateString("columns"));
    if (ok) {
        cJSON *arr = cJSON_CreateArray();
        for (size_t i = 0; arr && i < nnames; i++)
            if (!cJSON_AddItemToArray(arr, cJSON_CreateString(names[i]))) {
                cJSON_Delete(arr);
                arr = NULL;
            }
        ok = jw_member(w, "names", arr);
    }
    for (int k = 0; ok && k < 5; k++) {
        ok = jw_open_object(w, event_column_kinds[k]);
        for (int c = 0; ok && cols[k][c]; c++) {
            column_cursor x = {e, &index, k, c, epoch, 0};
            ok = jw_member_ints_of(w, cols[k][c], kind_count(e, k), column_value, &x);
        }
        ok = ok && jw_close(w);
    }
    name_index_free(&index);
    return ok;
}

/* ---------- reading ---------- */

static bool fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return false;
}

static const char *blank(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* An integer at *p (JSON syntax, no fraction or exponent), into *out; advances *p. */
static bool integer(const char **p, const char *end, int64_t *out)
{
    const char *s = *p;
    bool neg = s < end && *s == '-';
    s += neg;
    if (s >= end || *s < '0' || *s > '9' || (*s == '0' && s + 1 < end && s[1] >= '0' && s[1] <= '9'))
        return false;
    uint64_t v = 0;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        if (v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (s < end && (*s == '.' || *s == 'e' || *s == 'E'))
        return false;
    if (v > (uint64_t)INT64_MAX + neg)
        return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    *p = s;
    return true;
}

/* A column being read: where its next number is. */
typedef struct {
    const char *at;
    bool found;
} cursor;

/* Finds each column's array in the object text[0, len) (a plain key, then '['), and counts the
 * first column's numbers into *n. Keys are the writer's: no escapes. */
static bool find_columns(int k, const char *text, size_t len, cursor *cur, size_t *n, char *err, size_t errlen)
{
    size_t counts[MAX_COLS] = {0};
    const char *p = blank(text, text + len), *end = text + len;
    const char *kind = event_column_kinds[k];
    if (p >= end || *p++ != '{')
        return fail(err, errlen, "%s: expected an object of columns", kind);
    p = blank(p, end);
    if (p < end && *p == '}')
        return fail(err, errlen, "%s: no columns", kind);
    for (;;) {
        p = blank(p, end);
        const char *q = p < end && *p == '"' ? memchr(p + 1, '"', (size_t)(end - p - 1)) : NULL;
        if (!q || memchr(p + 1, '\\', (size_t)(q - p - 1)))
            return fail(err, errlen, "%s: expected a column's name", kind);
        int c = 0;
        while (cols[k][c] && !(strlen(cols[k][c]) == (size_t)(q - p - 1) && memcmp(cols[k][c], p + 1, (size_t)(q - p - 1)) == 0))
            c++;
        if (!cols[k][c])
            return fail(err, errlen, "%s: unknown column '%.*s'", kind, (int)(q - p - 1 > 40 ? 40 : q - p - 1), p + 1);
        if (cur[c].found)
            return fail(err, errlen, "%s.%s: given twice", kind, cols[k][c]);
        p = blank(q + 1, end);
        if (p >= end || *p++ != ':' || (p = blank(p, end)) >= end || *p != '[')
            return fail(err, errlen, "%s.%s: expected an array of integers", kind, cols[k][c]);
        cur[c] = (cursor){.at = p + 1, .found = true};
        /* Past the array: numbers, commas and blanks only. */
        size_t count = 0;
        const char *s = blank(p + 1, end);
        if (s < end && *s == ']') {
            p = s + 1;
        } else {
            for (;;) {
                int64_t v;
                if (!integer(&s, end, &v))
                    return fail(err, errlen, "%s.%s[%zu]: expected an integer", kind, cols[k][c], count);
                count++;
                s = blank(s, end);
                if (s < end && *s == ',') {
                    s = blank(s + 1, end);
                    continue;
                }
                if (s < end && *s == ']')
                    break;
                return fail(err, errlen, "%s.%s[%zu]: expected ',' or ']'", kind, cols[k][c], count);
            }
            p = s + 1;
        }
        counts[c] = count;
        p = blank(p, end);
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (p < end && *p == '}' && blank(p + 1, end) == end)
            break;
        return fail(err, errlen, "%s: expected ',' or '}' after column %s", kind, cols[k][c]);
    }
    for (int c = 0; cols[k][c]; c++) {
        if (!cur[c].found)
            return fail(err, errlen, "%s.%s: missing", kind, cols[k][c]);
        if (counts[c] != counts[0])
            return fail(err, errlen, "%s.%s: %zu values, but start_ns has %zu", kind, cols[k][c], counts[c],
                        counts[0]);
    }
    *n = counts[0];
    return true;
}

/* The next number of a column (already checked to be one). */
static int64_t next(cursor *c)
{
    int64_t v = 0;
    while (*c->at == ' ' || *c->at == '\n' || *c->at == '\t' || *c->at == '\r' || *c->at == ',')
        c->at++;
    integer(&c->at, c->at + 32, &v);
    return v;
}

static bool in(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

/* The range of column c (from the fifth) of kind k; a copy's direction is one of the
 * directions (dir: its range is checked by value). */
typedef struct {
    int64_t lo, hi;
    bool dir;
} column_range;

static column_range range_of(int k, int c, const event_column_limits *lim)
{
    const char *name = cols[k][c];
    column_range r = {0, UINT32_MAX, false};
    if (strcmp(name, "device") == 0)
        r.hi = lim->ndevices - 1;
    else if (strcmp(name, "name") == 0)
        r.hi = (int64_t)lim->nnames - 1;
    else if (strcmp(name, "registers") == 0)
        r.lo = -1, r.hi = 65536;
    else if (strcmp(name, "smem_optin") == 0)
        r.hi = 1;
    else if (strcmp(name, "bytes") == 0)
        r.hi = INT64_MAX;
    else if (strcmp(name, "dir") == 0)
        r.dir = true;
    else if (strcmp(name, "src") == 0 || strcmp(name, "dst") == 0 || strcmp(name, "mem") == 0)
        r.hi = MEM_MANAGED;
    else if (strcmp(name, "kind") == 0)
        r.hi = k == K_API ? API_DRIVER : SYNC_CONTEXT;
    else if (strncmp(name, "grid", 4) == 0 || strncmp(name, "block", 5) == 0 || strstr(name, "smem") ||
             strcmp(name, "local_mem") == 0)
        r.hi = INT32_MAX;
    return r;
}

static bool in_range(const column_range *r, int64_t x)
{
    if (r->dir)
        return in(x, 0, (x == COPY_D2D || x == COPY_H2H || x == COPY_P2P) ? x : COPY_D2H);
    return in(x, r->lo, r->hi);
}

/* The list's copy of file name i, made at its first use (so the list's names come in the order
 * events first use them, as when each event's name was interned); NULL when memory ran out. */
static const char *own_name(event_list *ev, const event_column_limits *lim, const char **own, int64_t i)
{
    if (!own[i])
        own[i] = events_intern(ev, lim->names[i]);
    return own[i];
}

bool event_columns_read(int k, const char *text, size_t len, const event_column_limits *lim, event_list *ev,
                        char *err, size_t errlen)
{
    cursor cur[MAX_COLS] = {0};
    size_t n = 0;
    if (!find_columns(k, text, len, cur, &n, err, errlen))
        return false;
    const char *kind = event_column_kinds[k];
    int nc = 0;
    column_range range[MAX_COLS];
    for (; cols[k][nc]; nc++)
        range[nc] = range_of(k, nc, lim);
    const char **own = calloc(lim->nnames ? lim->nnames : 1, sizeof *own);
    if (!own)
        return fail(err, errlen, "out of memory");
    int64_t start = lim->epoch, corr = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t v[MAX_COLS];
        for (int c = 0; c < nc; c++)
            v[c] = next(&cur[c]);
        int64_t end = 0;
        const char *bad = NULL;
        if (__builtin_add_overflow(start, v[C_START], &start))
            bad = "start_ns";
        else if (__builtin_add_overflow(corr, v[C_CORR], &corr))
            bad = "correlation";
        else if (v[C_DUR] < 0 || __builtin_add_overflow(start, v[C_DUR], &end))
            bad = "dur_ns";
        else if (!in(corr, 0, UINT32_MAX))
            bad = "correlation";
        else if (!in(v[C_REGION], 0, lim->nregions - 1))
            bad = "region";
        else if (!in(v[4], 0, UINT32_MAX))
            bad = "pid";
        for (int c = 5; !bad && c < nc; c++)
            if (!in_range(&range[c], v[c]))
                bad = cols[k][c];
        if (bad) {
            free(own);
            return fail(err, errlen, "%s.%s[%zu]: out of range", kind, bad, i);
        }
        bool ok;
        switch (k) {
        case K_KERNEL: {
            kernel_event x = {
                .name = (char *)own_name(ev, lim, own, v[7]), .start_ns = start, .end_ns = end, .pid = (uint32_t)v[4],
                .device = (uint32_t)v[5], .stream = (uint32_t)v[6], .correlation = (uint32_t)corr,
                .grid = {(int)v[8], (int)v[9], (int)v[10]}, .block = {(int)v[11], (int)v[12], (int)v[13]},
                .has_resources = v[14] >= 0, .registers = v[14] >= 0 ? (int)v[14] : 0,
                .static_smem = (int)v[15], .dynamic_smem = (int)v[16], .smem_optin = v[17] != 0,
                .local_mem = (int)v[18], .region = (int)v[C_REGION],
            };
            ok = x.name && events_push_kernel(ev, &x);
            break;
        }
        case K_COPY: {
            copy_event x = {.dir = (copy_dir)v[7], .src = (mem_kind)v[8], .dst = (mem_kind)v[9],
                            .bytes = (uint64_t)v[10], .start_ns = start, .end_ns = end, .pid = (uint32_t)v[4],
                            .device = (uint32_t)v[5], .stream = (uint32_t)v[6], .correlation = (uint32_t)corr,
                            .region = (int)v[C_REGION]};
            ok = events_add_copy(ev, &x);
            break;
        }
        case K_MEMSET: {
            memset_event x = {.mem = (mem_kind)v[7], .bytes = (uint64_t)v[8], .start_ns = start, .end_ns = end,
                              .pid = (uint32_t)v[4], .device = (uint32_t)v[5], .stream = (uint32_t)v[6],
                              .correlation = (uint32_t)corr, .region = (int)v[C_REGION]};
            ok = events_add_memset(ev, &x);
            break;
        }
        case K_API: {
            api_event x = {.name = (char *)own_name(ev, lim, own, v[6]), .start_ns = start, .end_ns = end, .kind = (api_kind)v[7],
                           .pid = (uint32_t)v[4], .thread = (uint32_t)v[5], .correlation = (uint32_t)corr,
                           .region = (int)v[C_REGION]};
            ok = x.name && events_push_api(ev, &x);
            break;
        }
        default: {
            sync_event x = {.kind = (sync_kind)v[7], .start_ns = start, .end_ns = end, .pid = (uint32_t)v[4],
                            .thread = (uint32_t)v[5], .stream = (uint32_t)v[6], .correlation = (uint32_t)corr,
                            .region = (int)v[C_REGION]};
            ok = events_add_sync(ev, &x);
            break;
        }
        }
        if (!ok) {
            free(own);
            return fail(err, errlen, "out of memory");
        }
    }
    free(own);
    return true;
}
