/* See kernel_regex.h. The estimate walks the expression as ERE's grammar reads it:
 *   expr   := branch ('|' branch)*      cost: the sum
 *   branch := piece*                    cost: the sum
 *   piece  := atom quant*               each quant: '*' '?' c+1, '+' 2c+1, {m,n} c*max(m,n,1)+1
 *   atom   := '(' expr ')' | '[' ... ']' | '\' char | any other char     cost: 1 (a group: inner+1)
 * A malformed expression is estimated as far as it reads; regcomp then says what is wrong. */
#include "kernel_regex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP (2.0 * KERNEL_REGEX_MAX_NODES)

typedef struct {
    const char *p;
    int depth;
} walker;

static double capped(double c)
{
    return c > CAP ? CAP : c;
}

static double expr(walker *w);

/* A bracket expression from its '[': to the ']' that closes it (a ']' first is a member). */
static void bracket(walker *w)
{
    w->p++;
    if (*w->p == '^')
        w->p++;
    if (*w->p == ']')
        w->p++;
    while (*w->p && *w->p != ']') {
        if (w->p[0] == '[' && (w->p[1] == ':' || w->p[1] == '.' || w->p[1] == '=')) {
            char close = w->p[1];
            const char *end = w->p + 2;
            while (*end && !(end[0] == close && end[1] == ']'))
                end++;
            w->p = *end ? end + 2 : end;
            continue;
        }
        w->p++;
    }
    if (*w->p)
        w->p++;
}

static double atom(walker *w)
{
    char c = *w->p;
    if (c == '(') {
        w->p++;
        w->depth++;
        double inner = w->depth > 64 ? CAP : expr(w);
        w->depth--;
        if (*w->p == ')')
            w->p++;
        return capped(inner + 1);
    }
    if (c == '[') {
        bracket(w);
        return 1;
    }
    if (c == '\\' && w->p[1])
        w->p++;
    w->p++;
    return 1;
}

/* A bound of {m,n}: the number, or -1 when there is none. */
static long bound(walker *w)
{
    if (*w->p < '0' || *w->p > '9')
        return -1;
    char *end;
    long v = strtol(w->p, &end, 10);
    w->p = end;
    return v;
}

static double piece(walker *w)
{
    double c = atom(w);
    for (;;) {
        char q = *w->p;
        if (q == '*' || q == '?') {
            w->p++;
            c = c + 1;
        } else if (q == '+') {
            w->p++;
            c = 2 * c + 1;
        } else if (q == '{') {
            const char *at = w->p++;
            long m = bound(w), n = m;
            if (*w->p == ',') {
                w->p++;
                n = bound(w);
                if (n < 0)
                    n = m + 1; /* {m,}: m copies and a star */
            }
            if (m < 0 || *w->p != '}') { /* not an interval: regcomp judges it */
                w->p = at + 1;
                return capped(c);
            }
            w->p++;
            long times = n > m ? n : m;
            c = c * (double)(times > 1 ? times : 1) + 1;
        } else {
            return capped(c);
        }
        c = capped(c);
    }
}

static double branch(walker *w)
{
    double c = 0;
    while (*w->p && *w->p != '|' && !(*w->p == ')' && w->depth > 0))
        c = capped(c + piece(w));
    return c;
}

static double expr(walker *w)
{
    double c = branch(w);
    while (*w->p == '|') {
        w->p++;
        c = capped(c + branch(w));
    }
    return c;
}

double kernel_regex_cost(const char *s)
{
    walker w = {s, 0};
    double c = 0;
    while (*w.p) { /* a ')' with no '(' at the top: read on, as regcomp will refuse it */
        c = capped(c + expr(&w));
        if (*w.p)
            w.p++;
    }
    return c;
}

bool kernel_regex_compile(regex_t *re, const char *s, char *why, size_t len)
{
    size_t n = strlen(s);
    if (n > KERNEL_REGEX_MAX_LEN) {
        snprintf(why, len, "longer than %d characters", KERNEL_REGEX_MAX_LEN);
        return false;
    }
    if (kernel_regex_cost(s) > KERNEL_REGEX_MAX_NODES) {
        snprintf(why, len, "its repetitions expand past %d nodes (nested + or {m,n})", KERNEL_REGEX_MAX_NODES);
        return false;
    }
    int rc = regcomp(re, s, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[128];
        regerror(rc, re, msg, sizeof msg);
        snprintf(why, len, "not an extended regular expression (%s)", msg);
        return false;
    }
    return true;
}
