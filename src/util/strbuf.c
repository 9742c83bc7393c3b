/* Growable strings and escaping. See strbuf.h. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(strbuf *b)
{
    memset(b, 0, sizeof *b);
}

void sb_free(strbuf *b)
{
    free(b->s);
    sb_init(b);
}

char *sb_finish(strbuf *b)
{
    char *s = b->oom ? NULL : b->s;
    if (!s && !b->oom)
        s = strdup("");
    if (b->oom)
        free(b->s);
    sb_init(b);
    return s;
}

/* Room for extra more bytes and the terminator. */
static bool reserve(strbuf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->s, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->s = p;
    b->cap = cap;
    return true;
}

void sb_addn(strbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void sb_add(strbuf *b, const char *s)
{
    if (s)
        sb_addn(b, s, strlen(s));
}

/* Formatted straight into the room there is, and again only when it did not fit (formatting
 * twice, to measure and then to write, was half the time of a long run's trace). */
static void sb_vprintf(strbuf *b, const char *fmt, va_list ap)
{
    if (!reserve(b, 64))
        return;
    va_list again;
    va_copy(again, ap);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->s + b->len, room, fmt, ap);
    if (n >= 0 && (size_t)n >= room && reserve(b, (size_t)n))
        n = vsnprintf(b->s + b->len, (size_t)n + 1, fmt, again);
    if (n >= 0 && !b->oom)
        b->len += (size_t)n;
    else if (!b->oom)
        b->s[b->len] = '\0';
    va_end(again);
}

void sb_int(strbuf *b, long long v)
{
    char digits[24], *d = digits + sizeof digits;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do
        *--d = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        *--d = '-';
    sb_addn(b, d, (size_t)(digits + sizeof digits - d));
}

void sb_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void sb_html(strbuf *b, const char *s)
{
    if (!s)
        return;
    const char *run = s; /* start of bytes that need no escape */
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        const char *ent = NULL;
        switch (c) {
        case '&': ent = "&amp;"; break;
        case '<': ent = "&lt;"; break;
        case '>': ent = "&gt;"; break;
        case '"': ent = "&quot;"; break;
        case '\'': ent = "&#39;"; break;
        default:
            if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
                ent = "\xef\xbf\xbd";
        }
        if (ent) {
            sb_addn(b, run, (size_t)(p - run));
            sb_add(b, ent);
            run = p + 1;
        }
    }
    sb_add(b, run);
}

void sb_html_printf(strbuf *b, const char *fmt, ...)
{
    strbuf tmp;
    sb_init(&tmp);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&tmp, fmt, ap);
    va_end(ap);
    if (tmp.oom)
        b->oom = true;
    else
        sb_html(b, tmp.s);
    sb_free(&tmp);
}

/* Length of the valid UTF-8 sequence at p, or 0 when it is not one. */
static int utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    int n = (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0 || (n == 2 && p[0] < 0xc2) || (n == 4 && p[0] > 0xf4))
        return 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    /* Overlong three- and four-byte forms, surrogates, and code points past U+10FFFF. */
    if (n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0)))
        return 0;
    if (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90)))
        return 0;
    return n;
}

void sb_json(strbuf *b, const char *s)
{
    if (!s)
        return;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = utf8_len(p);
        if (n == 0) {
            sb_add(b, "\\ufffd");
            p++;
        } else if (*p == '"' || *p == '\\') {
            char esc[3] = {'\\', (char)*p, '\0'};
            sb_add(b, esc);
            p++;
        } else if (*p < 0x20) {
            sb_printf(b, "\\u%04x", *p);
            p++;
        } else {
            sb_addn(b, (const char *)p, (size_t)n);
            p += n;
        }
    }
}

/* Names wider than their column end in "..." so a cut is never silent. */
void clipped(const char *s, int width, char *buf, size_t len)
{
    size_t n = strlen(s);
    if ((int)n <= width || width < 4)
        snprintf(buf, len, "%s", s);
    else
        snprintf(buf, len, "%.*s...", width - 3, s);
}

bool str_list_vaddf(char ***list, int *n, const char *fmt, va_list ap)
{
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    char **p = realloc(*list, (size_t)(*n + 1) * sizeof *p);
    if (!p)
        return false;
    *list = p;
    if (!(p[*n] = strdup(buf)))
        return false;
    (*n)++;
    return true;
}
