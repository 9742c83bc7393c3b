/* Escaping of the record stream's text fields. See stream_format.h. */
#include "stream_format.h"

void stream_escape(strbuf *b, const char *s)
{
    if (!s)
        return;
    const char *run = s;
    for (; *s; s++) {
        const char *esc = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : NULL;
        if (!esc)
            continue;
        sb_addn(b, run, (size_t)(s - run));
        sb_add(b, esc);
        run = s + 1;
    }
    sb_addn(b, run, (size_t)(s - run));
}

void stream_unescape(char *s)
{
    char *out = s;
    for (; *s; s++) {
        if (*s != '\\' || !s[1]) {
            *out++ = *s;
            continue;
        }
        s++;
        *out++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s;
    }
    *out = '\0';
}
