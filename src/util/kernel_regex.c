/* See kernel_regex.h. The walk reads the expression as ERE's grammar does:
 *   expr   := branch ('|' branch)*      cost: the sum
 *   branch := piece*                    cost: the sum
 *   piece  := atom quant*               each quant: '*' '?' c+1, '+' 2c+1, {m,n} c*max(m,n,1)+1
 *   atom   := '(' expr ')' | '[' ... ']' | '\' char | any other char     cost: 1 (a group: inner+1)
 * and keeps two more things: whether two repetition operators follow each other ("a?+": POSIX
 * leaves its meaning undefined), and how deep repetitions nest ("((a?)+)?" is 3). Node count alone
 * did not bound the time: on this machine 30 copies of "a?+?+?+?" (900 nodes) ran past 10 s, 20 of
 * "((a?)+)?" (180 nodes) took 0.9 s, while nesting of 2 stayed in milliseconds (60 of "(a?)+": 3 ms);
 * a random search over 42,000 expressions within these bounds found none slower than 1 s (strings
 * of optional groups such as "(a?b?)+(a{1,4})+(a*){0,8}...").
 * A malformed expression is walked as far as it reads; regcomp then says what is wrong. */
#include "kernel_regex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP (2.0 * KERNEL_REGEX_MAX_NODES)

typedef struct {
    const char *p;
    int depth;      /* of groups, while walking */
    int nesting;    /* the deepest nesting of repetitions seen */
    bool adjacent;  /* two repetition operators in a row */
} walker;

/* What a piece of the expression costs, and how deep repetitions nest in it. */
typedef struct {
    double cost;
    int nest;
} weight;

static double capped(double c)
{
    return c > CAP ? CAP : c;
}

static weight expr(walker *w);

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

static weight atom(walker *w)
{
    char c = *w->p;
    if (c == '(') {
        w->p++;
        w->depth++;
        weight inner = w->depth > 64 ? (weight){CAP, 0} : expr(w);
        w->depth--;
        if (*w->p == ')')
            w->p++;
        return (weight){capped(inner.cost + 1), inner.nest};
    }
    if (c == '[') {
        bracket(w);
        return (weight){1, 0};
    }
    if (c == '\\' && w->p[1])
        w->p++;
    w->p++;
    return (weight){1, 0};
}

/* A bound of {m,n}: the number (past 65536 held there: regcomp refuses over RE_DUP_MAX, 32767,
 * and the estimate only needs to know it is large), or -1 when there is none. */
static long bound(walker *w)
{
    if (*w->p < '0' || *w->p > '9')
        return -1;
    char *end;
    long v = strtol(w->p, &end, 10);
    w->p = end;
    return v > 65536 || v < 0 ? 65536 : v;
}

/* One repetition operator at w->p applied to cost c: the new cost, or -1 when there is none. */
static double quantifier(walker *w, double c)
{
    char q = *w->p;
    if (q == '*' || q == '?') {
        w->p++;
        return c + 1;
    }
    if (q == '+') {
        w->p++;
        return 2 * c + 1;
    }
    if (q != '{')
        return -1;
    const char *at = w->p++;
    long m = bound(w), n = m;
    if (m < 0 && *w->p == ',') /* "{,n}": glibc reads it as {0,n} (libFuzzer found {,27893}) */
        m = n = 0;
    if (*w->p == ',') {
        w->p++;
        n = bound(w);
        if (n < 0)
            n = m + 1; /* {m,}: m copies and a star */
    }
    if (m < 0 || *w->p != '}') { /* not an interval: regcomp judges it */
        w->p = at;
        return -1;
    }
    w->p++;
    long times = n > m ? n : m;
    return c * (double)(times > 1 ? times : 1) + 1;
}

static weight piece(walker *w)
{
    weight a = atom(w);
    double c = quantifier(w, a.cost);
    if (c < 0)
        return a;
    a.nest++;
    double again = quantifier(w, c);
    for (; again >= 0; again = quantifier(w, c)) {
        w->adjacent = true;
        c = capped(again);
        a.nest++;
    }
    if (a.nest > w->nesting)
        w->nesting = a.nest;
    return (weight){capped(c), a.nest};
}

static weight branch(walker *w)
{
    weight b = {0, 0};
    while (*w->p && *w->p != '|' && !(*w->p == ')' && w->depth > 0)) {
        weight p = piece(w);
        b.cost = capped(b.cost + p.cost);
        b.nest = p.nest > b.nest ? p.nest : b.nest;
    }
    return b;
}

static weight expr(walker *w)
{
    weight e = branch(w);
    while (*w->p == '|') {
        w->p++;
        weight b = branch(w);
        e.cost = capped(e.cost + b.cost);
        e.nest = b.nest > e.nest ? b.nest : e.nest;
    }
    return e;
}

/* Walks the whole of s into w; its cost. */
static double walk(walker *w, const char *s)
{
    memset(w, 0, sizeof *w);
    w->p = s;
    double c = 0;
    while (*w->p) { /* a ')' with no '(' at the top: read on, as regcomp will refuse it */
        c = capped(c + expr(w).cost);
        if (*w->p)
            w->p++;
    }
    return c;
}

double kernel_regex_cost(const char *s)
{
    walker w;
    return walk(&w, s);
}

bool kernel_regex_compile(regex_t *re, const char *s, char *why, size_t len)
{
    size_t n = strlen(s);
    if (n > KERNEL_REGEX_MAX_LEN) {
        snprintf(why, len, "longer than %d characters", KERNEL_REGEX_MAX_LEN);
        return false;
    }
    walker w;
    double cost = walk(&w, s);
    if (w.adjacent) {
        snprintf(why, len, "two repetition operators in a row (as in 'a?+'), which POSIX leaves undefined");
        return false;
    }
    if (w.nesting > KERNEL_REGEX_MAX_NESTING) {
        snprintf(why, len, "repetitions nested %d deep (as in '((a?)+)?'); at most %d", w.nesting,
                 KERNEL_REGEX_MAX_NESTING);
        return false;
    }
    if (cost > KERNEL_REGEX_MAX_NODES) {
        snprintf(why, len, "its repetitions expand past %d nodes (as in '(a{100}){100}')", KERNEL_REGEX_MAX_NODES);
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
