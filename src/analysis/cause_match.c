/* The cause table applied: see cause_match.h. fnmatch(3) matches the globs; a glob's longest
 * literal run is looked for first (strstr), since most of a stack's frames match no row and a
 * substring test rules them out cheaply. */
#include "cause_match.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "host_where.h"

/* A row's bit in a frame's mask: the table must fit a word (a test checks it). */
#define MAX_RULES 64
#define STACK_MAX 1024 /* frames of a stack looked at, innermost first */

thread_class thread_class_of(char state)
{
    if (state == 'R')
        return THREAD_RUNNING;
    if (state == 0 || state == '-')
        return THREAD_UNKNOWN;
    return THREAD_WAITING; /* S, D, T, t, I, ...: off the CPU */
}

/* One glob of a list: a, and for a two-part pattern ("FILE:FUNCTION", "FUNCTION@MODULE") b. */
typedef struct {
    char *a, *b;
    char *lit; /* a's longest run without a wildcard, for the substring test ("" none) */
} glob;

typedef struct {
    glob *v;
    int n;
} glob_list;

/* The kinds of frame a row's patterns are for. */
enum { PAT_PY = 0, PAT_NATIVE, PAT_OP, NPAT };

struct cause_matcher {
    const host_activity *h;
    glob_list pats[MAX_RULES][NPAT];
    int nrules;
    uint64_t *mask;       /* per frame node: the rows its frame matches */
    uint8_t *masked;      /* per node: mask computed */
    int16_t (*rule)[3];   /* per node and thread class: the stack's row, -2 not yet named */
    int32_t *user, *via, *detail; /* per node, -2 not yet found */
    uint64_t specific;    /* the specific rows */
    uint64_t ok[3];       /* per thread class, the rows whose wanted state it satisfies */
};

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* g's longest run of plain characters: none of a wildcard, nor inside a bracket expression. */
static char *longest_literal(const char *g)
{
    size_t best = 0, at = 0;
    for (size_t i = 0; g[i];) {
        size_t n = strcspn(g + i, "*?[");
        if (n > best) {
            best = n;
            at = i;
        }
        i += n;
        if (g[i] == '[') { /* to its closing ']' (one right after '[' or "[!" is a member) */
            size_t j = i + 1 + (g[i + 1] == '!');
            j += g[j] == ']';
            while (g[j] && g[j] != ']')
                j++;
            i = g[j] ? j + 1 : j;
        } else if (g[i]) {
            i++;
        }
    }
    return dup_n(g + at, best);
}

static void globs_free(glob_list *l)
{
    for (int i = 0; i < l->n; i++) {
        free(l->v[i].a);
        free(l->v[i].b);
        free(l->v[i].lit);
    }
    free(l->v);
    *l = (glob_list){0};
}

/* "a|b:c" split at '|', each part at its last sep (0: not split). False when memory ran out. */
static bool globs_parse(const char *patterns, char sep, glob_list *out)
{
    *out = (glob_list){0};
    if (!patterns)
        return true;
    int n = 1;
    for (const char *p = patterns; *p; p++)
        n += *p == '|';
    out->v = calloc((size_t)n, sizeof *out->v);
    if (!out->v)
        return false;
    for (const char *p = patterns;; p++) {
        size_t len = strcspn(p, "|");
        const char *split = NULL;
        for (size_t i = 0; sep && i < len; i++)
            if (p[i] == sep)
                split = p + i;
        glob *g = &out->v[out->n++];
        g->a = dup_n(p, split ? (size_t)(split - p) : len);
        g->b = split ? dup_n(split + 1, len - (size_t)(split - p) - 1) : NULL;
        g->lit = g->a ? longest_literal(g->a) : NULL;
        if (!g->a || !g->lit || (split && !g->b)) {
            globs_free(out);
            return false;
        }
        p += len;
        if (!*p)
            break;
    }
    return true;
}

static bool glob_hit(const glob *g, const char *a, const char *b)
{
    if (!a || (g->lit[0] && !strstr(a, g->lit)) || fnmatch(g->a, a, 0) != 0)
        return false;
    return !g->b || fnmatch(g->b, b ? b : "", 0) == 0;
}

static bool globs_hit(const glob_list *l, const char *a, const char *b)
{
    for (int i = 0; i < l->n; i++)
        if (glob_hit(&l->v[i], a, b))
            return true;
    return false;
}

bool cause_glob_list(const char *patterns, const char *s)
{
    if (!patterns || !s)
        return false;
    char one[512];
    for (const char *p = patterns;; p++) {
        size_t len = strcspn(p, "|");
        if (len < sizeof one) {
            memcpy(one, p, len);
            one[len] = '\0';
            if (fnmatch(one, s, 0) == 0)
                return true;
        }
        p += len;
        if (!*p)
            return false;
    }
}

void cause_matcher_free(cause_matcher *cm)
{
    if (!cm)
        return;
    for (int r = 0; r < cm->nrules; r++)
        for (int k = 0; k < NPAT; k++)
            globs_free(&cm->pats[r][k]);
    free(cm->mask);
    free(cm->masked);
    free(cm->rule);
    free(cm->user);
    free(cm->via);
    free(cm->detail);
    free(cm);
}

cause_matcher *cause_matcher_build(const host_activity *h)
{
    host_names_wait(h); /* its arrays are per frame, and a profile's naming may still add some */
    cause_matcher *cm = calloc(1, sizeof *cm);
    if (!cm)
        return NULL;
    cm->h = h;
    cm->nrules = cause_nrules < MAX_RULES ? cause_nrules : MAX_RULES;
    bool ok = true;
    for (int r = 0; ok && r < cm->nrules; r++) {
        const cause_rule *c = &cause_rules[r];
        ok = globs_parse(c->py, ':', &cm->pats[r][PAT_PY]) && globs_parse(c->native, '@', &cm->pats[r][PAT_NATIVE]) &&
             globs_parse(c->op, 0, &cm->pats[r][PAT_OP]);
        if (c->tier == TIER_SPECIFIC)
            cm->specific |= UINT64_C(1) << r;
        for (int k = 0; k < 3; k++) {
            bool fits = c->want == WANT_ANY || k == THREAD_UNKNOWN || (c->want == WANT_RUNNING) == (k == THREAD_RUNNING);
            if (fits)
                cm->ok[k] |= UINT64_C(1) << r;
        }
    }
    size_t n = h->nframes > 0 ? (size_t)h->nframes : 1;
    cm->mask = calloc(n, sizeof *cm->mask);
    cm->masked = calloc(n, 1);
    cm->rule = malloc(n * sizeof *cm->rule);
    cm->user = malloc(n * sizeof *cm->user);
    cm->via = malloc(n * sizeof *cm->via);
    cm->detail = malloc(n * sizeof *cm->detail);
    if (!ok || !cm->mask || !cm->masked || !cm->rule || !cm->user || !cm->via || !cm->detail) {
        cause_matcher_free(cm);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        cm->rule[i][0] = cm->rule[i][1] = cm->rule[i][2] = -2;
        cm->user[i] = cm->via[i] = cm->detail[i] = -2;
    }
    return cm;
}

static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path;
}

/* The rows frame node i matches, computed once. */
static uint64_t frame_mask(cause_matcher *cm, int i)
{
    if (cm->masked[i])
        return cm->mask[i];
    const host_frame *f = &cm->h->frames[i];
    uint64_t m = 0;
    for (int r = 0; r < cm->nrules; r++) {
        bool hit = false;
        if (f->kind == HOST_FRAME_PY)
            hit = globs_hit(&cm->pats[r][PAT_PY], f->file ? f->file : "", f->function);
        else if (f->kind == HOST_FRAME_NATIVE)
            hit = globs_hit(&cm->pats[r][PAT_NATIVE], f->function ? f->function : "", base_name(f->module));
        else
            hit = globs_hit(&cm->pats[r][PAT_OP], f->function ? f->function : "", NULL);
        if (hit)
            m |= UINT64_C(1) << r;
    }
    cm->mask[i] = m;
    cm->masked[i] = 1;
    return m;
}

static int lowest_bit(uint64_t m) { return __builtin_ctzll(m); }

/* A part of nvcc's launch stub by its name: a kernel's __device_stub__, or the runtime header's
 * helper inlined into it. */
static bool stub_part(const char *function)
{
    return function && (strstr(function, "__device_stub__") || strncmp(function, "__cudaLaunchKernel_helper", 25) == 0);
}

/* Whether node user, which the stack's frame via was called from (-1 none), is a part of nvcc's
 * launch stub: one by its name, or the kernel's own host function, which calls one. */
static bool in_launch_stub(const host_activity *h, int user, int via)
{
    return stub_part(h->frames[user].function) || (via >= 0 && stub_part(h->frames[via].function));
}

/* The frames a stack's words quote: the user's line, the frame it called, and (for an import) the
 * first module executed inside the matched frame. stack[0] is the innermost node. */
static void quoted_frames(cause_matcher *cm, const int *stack, int depth, int matched, int rule)
{
    int node = stack[0];
    if (cm->user[node] == -2) {
        int user = host_user_node(cm->h, node), via = -1;
        for (int k = 0; user >= 0 && k < depth && stack[k] != user; k++)
            via = stack[k];
        /* nvcc's launch stub (the kernel's own name at its line, calling __device_stub__..., or
         * the runtime header's __cudaLaunchKernel_helper inlined into that) is the user's code,
         * but the line a reader wants is its caller's, or the line the stub was inlined at (its
         * outer node): each part of it passed over as call_sites.c's site_node passes over them,
         * so that the account and the call sites name one line for one launch */
        for (int guard = 0; user >= 0 && guard < cm->h->nframes && in_launch_stub(cm->h, user, via); guard++) {
            int up = host_outer_node(cm->h, user);
            if (up < 0 && cm->h->frames[user].parent >= 0)
                up = host_user_node(cm->h, cm->h->frames[user].parent);
            if (up < 0 || !host_user_frame(&cm->h->frames[up]))
                break; /* no caller of the user's: the stub it is */
            via = user;
            user = up;
        }
        cm->user[node] = user;
        cm->via[node] = user >= 0 && user != node ? via : -1;
    }
    if (rule >= 0 && cause_rules[rule].detail == DETAIL_PACKAGE && cm->detail[node] == -2) {
        cm->detail[node] = -1;
        for (int k = matched - 1; k >= 0; k--) {
            const host_frame *f = &cm->h->frames[stack[k]];
            if (f->kind == HOST_FRAME_PY && f->function && strcmp(f->function, "<module>") == 0 && f->file &&
                strncmp(f->file, "<frozen", 7) != 0) {
                cm->detail[node] = stack[k];
                break;
            }
        }
    }
}

cause_hit cause_of_stack(cause_matcher *cm, int node, thread_class c)
{
    cause_hit hit = {-1, -1, -1, -1};
    if (!cm || node < 0 || node >= cm->h->nframes)
        return hit;
    int stack[STACK_MAX], depth = 0;
    for (int n = node; n >= 0 && depth < STACK_MAX; n = cm->h->frames[n].parent)
        stack[depth++] = n;
    int rule = cm->rule[node][c], matched = depth;
    if (rule == -2) {
        rule = -1;
        uint64_t any = 0;
        for (int k = depth - 1; k >= 0; k--) { /* specific rows: the outermost frame first */
            uint64_t m = frame_mask(cm, stack[k]);
            any |= m;
            if (rule < 0 && (m & cm->specific & cm->ok[c])) {
                rule = lowest_bit(m & cm->specific & cm->ok[c]);
                matched = k;
            }
        }
        uint64_t generic = any & ~cm->specific & cm->ok[c];
        if (rule < 0 && generic) /* generic rows: the first in the table that any frame matches */
            rule = lowest_bit(generic);
        cm->rule[node][c] = (int16_t)rule;
    } else if (rule >= 0 && cause_rules[rule].detail != DETAIL_NONE) {
        for (int k = depth - 1; k >= 0; k--)
            if (frame_mask(cm, stack[k]) & (UINT64_C(1) << rule)) {
                matched = k;
                break;
            }
    }
    quoted_frames(cm, stack, depth, matched, rule);
    hit.rule = rule;
    hit.user = cm->user[node];
    hit.via = cm->via[node];
    hit.detail = rule >= 0 && cause_rules[rule].detail != DETAIL_NONE ? cm->detail[node] : -1;
    return hit;
}

bool cause_rule_specific(int r)
{
    return r >= 0 && r < cause_nrules && cause_rules[r].tier == TIER_SPECIFIC;
}

int cause_rule_find(const char *id)
{
    for (int r = 0; r < cause_nrules; r++)
        if (strcmp(cause_rules[r].id, id) == 0)
            return r;
    return -1;
}

int cause_of_api(const char *name)
{
    char n[64];
    api_display_name(name ? name : "", n, sizeof n);
    for (int r = 0; r < cause_nrules; r++)
        if (cause_glob_list(cause_rules[r].api, n))
            return r;
    return cause_rule_find("other_api");
}

int cause_of_range(const char *kind, const char *name)
{
    char s[320];
    snprintf(s, sizeof s, "%s:%s", kind, name ? name : "");
    for (int r = 0; r < cause_nrules; r++)
        if (cause_glob_list(cause_rules[r].range, s))
            return r;
    return -1;
}
