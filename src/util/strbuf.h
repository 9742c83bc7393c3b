/* A growable string for the renderers that build a whole document in memory (HTML, trace), with
 * the two escapings they need. Appending never fails loudly: running out of memory sets a flag,
 * later appends do nothing, and sb_finish returns NULL, so a renderer checks once at the end. */
#ifndef MMPROF_STRBUF_H
#define MMPROF_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *s;    /* NUL-terminated while !oom */
    size_t len;
    size_t cap;
    bool oom;
} strbuf;

void sb_init(strbuf *b);
void sb_free(strbuf *b);
/* Hands the string to the caller (who frees it) and empties b; NULL when memory ran out. */
char *sb_finish(strbuf *b);

void sb_add(strbuf *b, const char *s);
void sb_addn(strbuf *b, const char *s, size_t n);
void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* v in decimal, as printf's %lld writes it, without printf (for documents of millions). */
void sb_int(strbuf *b, long long v);

/* s as HTML text or attribute value: & < > " ' become entities; NULL adds nothing. Control
 * characters other than tab and newline, which HTML does not allow, become U+FFFD. */
void sb_html(strbuf *b, const char *s);
/* printf, then escaped as sb_html: for text built from outside strings. */
void sb_html_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s in width columns into buf: cut with "..." when longer, so a cut is never silent (a column's
 * name in the text report, a kernel's in a sentence). */
void clipped(const char *s, int width, char *buf, size_t len);

/* s as the inside of a JSON string (no quotes added): quote, backslash and control characters
 * escaped; bytes that are not valid UTF-8 become U+FFFD, so the document always parses. */
void sb_json(strbuf *b, const char *s);

/* printf's text (cut at 511 bytes) copied onto the end of the list *list of *n strings: a run's or
 * an analysis' warnings. False when memory ran out (the list then holds what it held). */
bool str_list_vaddf(char ***list, int *n, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

#endif
