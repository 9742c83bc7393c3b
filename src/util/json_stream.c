/* Streaming JSON scanner. See json_stream.h for what it does and why it is hand-written. */
#include "json_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define JS_CHUNK (1u << 20) /* bytes read at a time */

static bool fill(json_stream *s);

void js_attach(json_stream *s, trace_input *in)
{
    memset(s, 0, sizeof *s);
    s->in = in;
    /* Editors on Windows put a byte-order mark before UTF-8 text; JSON does not, but it is no content. */
    static const char bom[3] = {(char)0xEF, (char)0xBB, (char)0xBF};
    while (s->len < sizeof bom && fill(s))
        ;
    if (s->len >= sizeof bom && memcmp(s->buf, bom, sizeof bom) == 0)
        s->pos = sizeof bom;
}

void js_attach_text(json_stream *s, const char *text, size_t len)
{
    memset(s, 0, sizeof *s);
    s->text = text;
    s->text_len = len;
}

void js_close(json_stream *s)
{
    free(s->buf);
    memset(s, 0, sizeof *s);
}

uint64_t js_offset(const json_stream *s) { return s->buf_off + s->pos; }

/* Drops the consumed bytes buf[0, pos), makes room and reads another chunk after the unread
 * ones. false when nothing more could be read (end of file, a read error, or no memory). */
static bool fill(json_stream *s)
{
    if (s->pos > 0) {
        memmove(s->buf, s->buf + s->pos, s->len - s->pos);
        s->buf_off += s->pos;
        s->len -= s->pos;
        s->pos = 0;
    }
    if (s->eof || s->errno_saved)
        return false;
    if (s->cap - s->len < JS_CHUNK) {
        size_t cap = s->cap ? s->cap : JS_CHUNK;
        while (cap - s->len < JS_CHUNK)
            cap *= 2;
        char *b = realloc(s->buf, cap);
        if (!b) {
            s->errno_saved = ENOMEM;
            return false;
        }
        s->buf = b;
        s->cap = cap;
    }
    size_t got;
    if (s->text) {
        got = s->text_len - s->text_pos < JS_CHUNK ? s->text_len - s->text_pos : JS_CHUNK;
        memcpy(s->buf + s->len, s->text + s->text_pos, got);
        s->text_pos += got;
    } else {
        got = ti_read(s->in, s->buf + s->len, JS_CHUNK);
    }
    if (got == 0) {
        if (s->in && ti_failed(s->in))
            s->errno_saved = EIO;
        else
            s->eof = true;
        return false;
    }
    s->len += got;
    return true;
}

/* More input while scanning at *i (kept from s->pos when keep, else from *i on); *i follows the
 * bytes as fill moves them. false when nothing more came: err_offset says where it stopped. */
static bool more(json_stream *s, size_t *i, bool keep)
{
    if (!keep)
        s->pos = *i;
    size_t before = s->pos;
    uint64_t at = s->buf_off + *i;
    bool got = fill(s);
    *i -= before;
    if (!got)
        s->err_offset = at;
    return got;
}

js_status js_failure(const json_stream *s)
{
    return s->errno_saved == ENOMEM ? JS_NOMEM : s->errno_saved ? JS_IO : JS_END;
}

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int js_peek(json_stream *s)
{
    for (;;) {
        while (s->pos < s->len && blank(s->buf[s->pos]))
            s->pos++;
        if (s->pos < s->len)
            return (unsigned char)s->buf[s->pos];
        if (!fill(s))
            return -1;
    }
}

void js_next(json_stream *s)
{
    if (s->pos < s->len)
        s->pos++;
}

/* A scalar (number, true, false, null) ends at the first byte that can follow a value. */
static bool ends_scalar(char c) { return blank(c) || c == ',' || c == ']' || c == '}' || c == ':'; }

js_status js_value(json_stream *s, bool keep, size_t max_len, const char **text, size_t *len,
                   uint64_t *offset)
{
    if (js_peek(s) < 0) {
        s->err_offset = js_offset(s);
        return js_failure(s);
    }
    *offset = js_offset(s);
    char open[JS_MAX_DEPTH];
    int depth = 0;
    bool in_string = false, scalar = false;
    size_t i = s->pos; /* scan position; with keep, s->pos stays at the value's first byte */
    for (;;) {
        if (i == s->len) {
            if (!more(s, &i, keep)) {
                if (scalar && s->eof)
                    break; /* a scalar may end the file */
                return js_failure(s);
            }
            if (keep && i > max_len) {
                s->err_offset = *offset;
                return JS_LARGE;
            }
            continue;
        }
        if (in_string) {
            /* The common case: plain characters up to the next quote or backslash. */
            const char *b = s->buf;
            while (i < s->len && b[i] != '"' && b[i] != '\\')
                i++;
            if (i == s->len)
                continue;
            if (b[i] == '\\') {
                if (i + 1 == s->len) {
                    /* The escaped byte is in the next chunk: read it before stepping over. */
                    if (!more(s, &i, keep))
                        return js_failure(s);
                    continue;
                }
                i += 2;
                continue;
            }
            in_string = false;
            i++;
            if (depth == 0)
                break;
            continue;
        }
        char c = s->buf[i];
        if (scalar) {
            if (ends_scalar(c))
                break;
            i++;
            continue;
        }
        switch (c) {
        case '"':
            in_string = true;
            break;
        case '{':
        case '[':
            if (depth == JS_MAX_DEPTH) {
                s->err_offset = s->buf_off + i;
                return JS_DEEP;
            }
            open[depth++] = c;
            break;
        case '}':
        case ']':
            if (depth == 0 || open[depth - 1] != (c == '}' ? '{' : '[')) {
                s->err_offset = s->buf_off + i;
                return JS_SYNTAX;
            }
            depth--;
            break;
        default:
            if (depth == 0) {
                scalar = true;
                continue;
            }
        }
        i++;
        if (depth == 0 && !in_string)
            break;
    }
    if (keep && i - s->pos > max_len) {
        s->err_offset = *offset;
        return JS_LARGE;
    }
    *text = s->buf + s->pos;
    *len = i - s->pos;
    s->pos = i;
    return JS_OK;
}

/* ---------- numbers read from their text ---------- */

/* The number text at t (JSON syntax) times 10^scale, rounded to the nearest integer, half away
 * from zero. false when it does not fit an int64. Works on the digits, so no precision is lost. */
bool js_decimal_scaled(const char *t, int scale, int64_t *out)
{
    enum { KEEP = 40 }; /* significant digits kept: more than any int64 needs */
    char digits[KEEP];
    int nd = 0;
    long exp10 = scale;
    bool neg = *t == '-', point = false;
    if (neg)
        t++;
    for (;; t++) {
        if (*t == '.' && !point) {
            point = true;
            continue;
        }
        if (*t < '0' || *t > '9')
            break;
        if (nd == 0 && *t == '0') {
            if (point)
                exp10--; /* a leading zero after the point: 0.001 */
            continue;
        }
        if (nd < KEEP) {
            digits[nd++] = (char)(*t - '0');
            if (point)
                exp10--;
        } else if (!point) {
            exp10++; /* an integer digit past those kept scales the value up */
        }
    }
    if (*t == 'e' || *t == 'E') {
        long e = strtol(t + 1, NULL, 10);
        exp10 += e > 1000 ? 1000 : e < -1000 ? -1000 : e;
    }
    long whole = nd + exp10; /* digits before the point once scaled */
    if (nd == 0 || whole < 0) {
        *out = 0;
        return true;
    }
    if (whole > 19)
        return false;
    uint64_t v = 0;
    for (long i = 0; i < whole; i++) {
        uint64_t d = i < nd ? (uint64_t)digits[i] : 0;
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (whole < nd && digits[whole] >= 5)
        v++;
    if (v > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return true;
}

/* The text of the number that key names at the top level of the object text[0, len), or NULL.
 * cJSON has checked the text already, so this only has to step over strings and nesting. */
const char *js_member_text(const char *text, size_t len, const char *key)
{
    size_t klen = strlen(key);
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '"') {
            size_t start = ++i;
            while (i < len && text[i] != '"')
                i += text[i] == '\\' ? 2 : 1;
            if (depth != 1 || i >= len)
                continue;
            size_t j = i + 1;
            while (j < len && blank(text[j]))
                j++;
            if (j >= len || text[j] != ':')
                continue; /* a value, not a key */
            if (i - start == klen && memcmp(text + start, key, klen) == 0) {
                for (j++; j < len && blank(text[j]); j++)
                    ;
                return j < len ? text + j : NULL;
            }
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return NULL;
}
