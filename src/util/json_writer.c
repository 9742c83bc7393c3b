/* See json_writer.h. */
#include "json_writer.h"

#include "json_print.h"

#include <stdlib.h>
#include <string.h>

static bool failed(json_writer *w)
{
    w->failed = true;
    return false;
}

static void start(json_writer *w, strbuf *text)
{
    memset(w, 0, sizeof *w);
    w->text = text;
}

void jw_tree(json_writer *w)
{
    start(w, NULL);
    w->stack[0] = cJSON_CreateObject();
    if (!w->stack[0])
        w->failed = true;
}

void jw_text(json_writer *w, strbuf *text)
{
    start(w, text);
    sb_add(text, "{");
    w->first[0] = true;
}

void jw_text_after(json_writer *w, strbuf *text)
{
    start(w, text);
    w->first[0] = false;
}

void jw_text_elements(json_writer *w, strbuf *text, bool first)
{
    start(w, text);
    w->depth = 1;
    w->array[1] = true;
    w->first[1] = first;
}

void jw_drain_to(json_writer *w, const text_sink *sink) { w->sink = sink; }

/* Hands the text to the sink: all of it, or once it passes JW_DRAIN_AT. */
static bool drain(json_writer *w, bool all)
{
    strbuf *b = w->text;
    if (w->failed || (b && b->oom))
        return failed(w);
    if (!b || !w->sink || (!all && b->len < JW_DRAIN_AT))
        return true;
    bool ok = sink_write(w->sink, b->s, b->len);
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
    return ok || failed(w);
}

bool jw_drain(json_writer *w) { return drain(w, true); }

bool jw_append_elements(json_writer *w, const strbuf *text)
{
    if (w->failed || !w->text || w->depth == 0 || !w->array[w->depth] || text->oom)
        return failed(w);
    if (text->len > 0) {
        w->first[w->depth] = false;
        if (w->sink) /* straight through: a long run's regions are tens of megabytes */
            return (drain(w, true) && sink_write(w->sink, text->s, text->len)) || failed(w);
        sb_addn(w->text, text->s, text->len);
    }
    return !w->text->oom || failed(w);
}

/* Text backend: the separator and, for a member, the quoted key. */
static void text_prefix(json_writer *w, const char *key)
{
    strbuf *b = w->text;
    sb_add(b, w->first[w->depth] ? "\n" : ",\n");
    w->first[w->depth] = false;
    if (key) {
        sb_add(b, "\"");
        sb_json(b, key);
        sb_add(b, "\": ");
    }
}

/* Where a value goes: key into the open object, or (key NULL) onto the open array. */
static bool place(json_writer *w, const char *key, cJSON *value)
{
    if (w->failed || !value) {
        cJSON_Delete(value);
        return failed(w);
    }
    if (w->text) {
        text_prefix(w, key);
        bool printed = json_print(w->text, value);
        cJSON_Delete(value);
        return (printed && !w->text->oom && drain(w, false)) || failed(w);
    }
    cJSON *at = w->stack[w->depth];
    bool ok = key ? cJSON_IsObject(at) && cJSON_AddItemToObject(at, key, value)
                  : cJSON_IsArray(at) && cJSON_AddItemToArray(at, value);
    if (!ok) {
        cJSON_Delete(value);
        return failed(w);
    }
    return true;
}

bool jw_member(json_writer *w, const char *key, cJSON *value) { return place(w, key, value); }
bool jw_element(json_writer *w, cJSON *value) { return place(w, NULL, value); }

static bool open(json_writer *w, const char *key, bool array)
{
    if (w->failed || w->depth + 1 >= JW_MAX_DEPTH)
        return failed(w);
    if (w->text) {
        text_prefix(w, key);
        sb_add(w->text, array ? "[" : "{");
        w->depth++;
        w->first[w->depth] = true;
        w->array[w->depth] = array;
        return (!w->text->oom && drain(w, false)) || failed(w);
    }
    cJSON *v = array ? cJSON_CreateArray() : cJSON_CreateObject();
    if (!place(w, key, v))
        return false;
    w->stack[++w->depth] = v; /* placed: the parent owns it */
    return true;
}

bool jw_open_object(json_writer *w, const char *key) { return open(w, key, false); }
bool jw_open_array(json_writer *w, const char *key) { return open(w, key, true); }

bool jw_close(json_writer *w)
{
    if (w->failed || w->depth == 0)
        return failed(w);
    if (w->text)
        sb_add(w->text, w->array[w->depth] ? "]" : "}");
    w->depth--;
    return (!(w->text && w->text->oom) && drain(w, false)) || failed(w);
}

/* The decimal digits of v into end's left, returning where they start. */
static char *int_text(char *end, int64_t v)
{
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        *--end = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        *--end = '-';
    return end;
}

bool jw_member_ints_of(json_writer *w, const char *key, size_t n, jw_int_fn at, void *ctx)
{
    if (w->failed)
        return false;
    if (!w->text) {
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; a && i < n; i++)
            if (!cJSON_AddItemToArray(a, cJSON_CreateNumber((double)at(i, ctx)))) {
                cJSON_Delete(a);
                a = NULL;
            }
        return place(w, key, a);
    }
    text_prefix(w, key);
    sb_add(w->text, "[");
    char chunk[4096];
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        char digits[24], *d = int_text(digits + sizeof digits, at(i, ctx));
        size_t len = (size_t)(digits + sizeof digits - d);
        if (used + len + 1 > sizeof chunk) {
            sb_addn(w->text, chunk, used);
            used = 0;
            if (!drain(w, false)) /* a column is millions of numbers */
                return false;
        }
        if (i)
            chunk[used++] = ',';
        memcpy(chunk + used, d, len);
        used += len;
    }
    sb_addn(w->text, chunk, used);
    sb_add(w->text, "]");
    return (!w->text->oom && drain(w, false)) || failed(w);
}

bool jw_end(json_writer *w, cJSON **root)
{
    bool ok = !w->failed && w->depth == 0;
    if (w->text) {
        sb_add(w->text, "\n}\n");
        ok = ok && !w->text->oom && drain(w, true);
    } else if (root) {
        *root = ok ? w->stack[0] : NULL;
        if (!ok)
            cJSON_Delete(w->stack[0]);
    } else {
        cJSON_Delete(w->stack[0]);
    }
    w->stack[0] = NULL;
    return ok;
}
