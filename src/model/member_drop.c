/* See member_drop.h. */
#include "member_drop.h"

#include <string.h>

void md_init(member_drop *d, const char *key)
{
    memset(d, 0, sizeof *d);
    d->key = key;
}

/* A byte inside a string: false once it closed the string. */
static bool string_byte(member_drop *d, char c)
{
    if (d->escape)
        d->escape = false;
    else if (c == '\\')
        d->escape = true;
    else if (c == '"')
        return d->in_string = false;
    return true;
}

/* A byte of the left-out value: only its newlines go out (after the "null" that stands for it), so
 * what is written never passes what came in by more than those four bytes. */
static size_t skip_byte(member_drop *d, char c, char *out)
{
    if (d->in_string)
        string_byte(d, c);
    else if (c == '"')
        d->in_string = true;
    else if (c == '{' || c == '[')
        d->skip_depth++;
    else if ((c == '}' || c == ']') && --d->skip_depth == 0) {
        d->state = MD_DONE;
        d->gap_at = d->kept;
        d->gap = d->taken + 1 - d->value_at - (4 + d->newlines);
        return 0;
    }
    if (c != '\n')
        return 0;
    d->newlines++;
    *out = '\n';
    return 1;
}

/* A byte outside the left-out value, written out: the scanner's state follows it. */
static void copy_byte(member_drop *d, char c)
{
    if (d->in_string) {
        bool open = string_byte(d, c);
        if (!d->in_key)
            return;
        if (open && d->nkey < sizeof d->name)
            d->name[d->nkey++] = c;
        else if (open)
            d->too_long = true;
        else {
            d->in_key = false;
            if (d->state == MD_COPY && !d->too_long && d->nkey == strlen(d->key) && memcmp(d->name, d->key, d->nkey) == 0)
                d->state = MD_AFTER_KEY;
        }
        return;
    }
    switch (c) {
    case '"':
        d->in_string = true;
        if (d->depth == 1 && d->key_next) {
            d->in_key = true;
            d->nkey = 0;
            d->too_long = false;
            d->key_next = false;
        }
        break;
    case '{':
    case '[':
        d->key_next = ++d->depth == 1 && c == '{';
        break;
    case '}':
    case ']':
        d->depth--;
        break;
    case ',':
        d->key_next = d->depth == 1;
        break;
    case ':':
        if (d->state == MD_AFTER_KEY) {
            d->state = MD_BEFORE_VALUE;
            return;
        }
        break;
    default:
        break;
    }
    if (d->state == MD_BEFORE_VALUE && c != ' ' && c != '\n' && c != '\t' && c != '\r')
        d->state = MD_COPY; /* a string or a scalar: kept */
}

size_t md_take(member_drop *d, const char *in, size_t len, char *out)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++, d->taken++) {
        char c = in[i];
        size_t w;
        if (d->state == MD_SKIP) {
            w = skip_byte(d, c, out + n);
        } else if (d->state == MD_BEFORE_VALUE && (c == '{' || c == '[')) {
            d->state = MD_SKIP;
            d->skip_depth = 1;
            d->value_at = d->taken;
            memcpy(out + n, "null", 4);
            w = 4;
        } else {
            copy_byte(d, c);
            out[n] = c;
            w = 1;
        }
        n += w;
        d->kept += w;
    }
    return n;
}

uint64_t md_original(const member_drop *d, uint64_t at)
{
    return d->state == MD_DONE && at >= d->gap_at ? at + d->gap : at;
}
