/* Where the host was: see host_where.h. */
#include "host_where.h"

#include "analysis.h"
#include "nesting_order.h"
#include "spill.h"
#include "strbuf.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *host_from_label(host_from f)
{
    static const char *const labels[HOST_NFROM] = {"Python wall-clock samples", "CPU samples",
                                                   "recorded CPU spans"};
    return f >= 0 && f < HOST_NFROM ? labels[f] : labels[0];
}

const char *host_from_key(host_from f)
{
    static const char *const keys[HOST_NFROM] = {"py", "cpu", "spans"};
    return f >= 0 && f < HOST_NFROM ? keys[f] : keys[0];
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The Python installation's own files: the standard library under lib/pythonX.Y (or lib64), and
 * whatever a package manager installed beside it; and code with no file of its own ("<frozen
 * importlib._bootstrap>", "<string>" from exec, as numba's compiler runs it), but for the user's
 * own typed-in "<stdin>". */
static bool python_library(const char *file)
{
    return strstr(file, "/lib/python") || strstr(file, "/lib64/python") || strstr(file, "site-packages/") ||
           strstr(file, "dist-packages/") || (file[0] == '<' && strcmp(file, "<stdin>") != 0);
}

/* A module the system or a package manager installed: its frames are not the user's even where
 * its debug info names a source file (glibc's "res-name-checking.c", PyTorch's libraries in
 * site-packages, seen on the H200's recordings). */
static bool system_module(const char *module)
{
    return module && (strncmp(module, "/usr/", 5) == 0 || strncmp(module, "/lib/", 5) == 0 ||
                      strncmp(module, "/lib64/", 7) == 0 || strstr(module, "site-packages/") ||
                      strstr(module, "dist-packages/"));
}

bool host_user_frame(const host_frame *f)
{
    if (!f->file || !f->file[0])
        return false;
    if (f->kind == HOST_FRAME_PY)
        return !python_library(f->file);
    return f->kind == HOST_FRAME_NATIVE && f->line > 0 && strncmp(f->file, "/usr/", 5) != 0 &&
           !system_module(f->module);
}

void host_module_name(const char *file, char *buf, size_t len)
{
    const char *p = NULL;
    static const char *const roots[] = {"site-packages/", "dist-packages/"};
    for (size_t i = 0; !p && i < sizeof roots / sizeof roots[0]; i++)
        if ((p = strstr(file, roots[i])))
            p += strlen(roots[i]);
    if (!p && (p = strstr(file, "/python"))) {
        const char *slash = strchr(p + 1, '/');
        p = slash ? slash + 1 : base_name(file);
    }
    if (!p)
        p = base_name(file);
    copy_str(buf, len, p);
    size_t n = strlen(buf);
    if (n > 3 && strcmp(buf + n - 3, ".py") == 0)
        buf[n -= 3] = '\0';
    if (n > 9 && strcmp(buf + n - 9, "/__init__") == 0)
        buf[n -= 9] = '\0';
    for (char *c = buf; *c; c++)
        if (*c == '/')
            *c = '.';
}

/* What is not known is left out of a frame's words, never stood in for ("?"). A native C++ symbol
 * dladdr gave mangled ("_ZN2at6native...") reads demangled, without its parameters; one the
 * demangler refuses stays as it is (a frame of libtorch_cpu.so sampled during PyTorch's import on
 * the H200: it came back mangled, and asking again recursed until the stack overflowed). */
void host_frame_name(const host_frame *f, bool with_line, char *buf, size_t len)
{
    char plain[512];
    if (f->kind == HOST_FRAME_NATIVE && f->function && strncmp(f->function, "_Z", 2) == 0) {
        kernel_display_name(f->function, plain, sizeof plain);
        if (strncmp(plain, "_Z", 2) != 0) {
            host_frame d = *f;
            d.function = plain;
            host_frame_name(&d, with_line, buf, len);
            return;
        }
    }
    /* A C++ name addr2line gave demangled keeps its parameter list: left out, as for a mangled one
     * ("DeviceCachingAllocator::alloc_block(c10" was a name cut inside its parameters). */
    if (f->kind == HOST_FRAME_NATIVE && f->function && strchr(f->function, '(')) {
        kernel_display_name(f->function, plain, sizeof plain);
        if (strcmp(plain, f->function) != 0 && plain[0]) {
            host_frame d = *f;
            d.function = plain;
            host_frame_name(&d, with_line, buf, len);
            return;
        }
    }
    bool named = f->function && f->function[0];
    char cut[84] = "", fn[sizeof cut + 3] = "", where[100], whole[512] = ""; /* fn: " (" cut ")" */
    /* A compiler's " [clone .constprop.0]" suffixes name copies of one function: left out. Names
     * cut to their width end in "..." (clipped), never silently. */
    if (named) {
        const char *clone = strstr(f->function, " [clone ");
        snprintf(whole, sizeof whole, "%.*s", clone ? (int)(clone - f->function) : (int)strlen(f->function), f->function);
        clipped(whole, 60, cut, sizeof cut);
        snprintf(fn, sizeof fn, " (%s)", cut);
        clipped(whole, 80, cut, sizeof cut);
    }
    if (f->kind == HOST_FRAME_OP) {
        snprintf(buf, len, "%.150s", named ? f->function : "an unnamed span");
    } else if (f->file && f->file[0] && (host_user_frame(f) || (f->kind == HOST_FRAME_NATIVE && f->line > 0))) {
        if (with_line && f->line > 0)
            snprintf(buf, len, "%.80s:%d%s", base_name(f->file), f->line, fn);
        else
            snprintf(buf, len, "%.80s%s", base_name(f->file), fn);
    } else if (f->kind == HOST_FRAME_PY && f->file && f->file[0]) {
        host_module_name(f->file, where, sizeof where);
        snprintf(buf, len, "%.90s%s", where, fn);
    } else if (named) {
        if (f->module && f->module[0])
            snprintf(buf, len, "%s (%.60s)", cut, base_name(f->module));
        else
            snprintf(buf, len, "%s", cut);
    } else if (f->module && f->module[0]) {
        snprintf(buf, len, "%.80s+0x%llx", base_name(f->module), (unsigned long long)f->offset);
    } else {
        snprintf(buf, len, "a frame at 0x%llx", (unsigned long long)f->offset);
    }
}

static int cmp_site(const void *pa, const void *pb)
{
    const host_site *a = *(const host_site *const *)pa, *b = *(const host_site *const *)pb;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    return (a->correlation > b->correlation) - (a->correlation < b->correlation);
}

const host_site **host_sites_sorted(const host_activity *h)
{
    const host_site **s = h->nsites ? malloc(h->nsites * sizeof *s) : NULL;
    for (size_t i = 0; s && i < h->nsites; i++)
        s[i] = &h->sites[i];
    if (s)
        qsort(s, h->nsites, sizeof *s, cmp_site);
    return s;
}

const host_site *host_site_find(const host_site *const *sorted, size_t n, uint32_t pid, uint32_t corr)
{
    host_site want = {.pid = pid, .correlation = corr};
    const host_site *w = &want;
    const host_site *const *hit = sorted && n && corr ? bsearch(&w, sorted, n, sizeof *sorted, cmp_site) : NULL;
    return hit ? *hit : NULL;
}

/* ---- the index: samples by time, spans by start ---- */

struct host_where_index {
    const host_activity *h;
    size_t *samples; /* indices into h->samples, by ts */
    size_t *spans;   /* indices into h->spans, by start */
    int64_t longest; /* the longest span, to find those that began before a window */
};

static const host_activity *sort_h; /* qsort has no context argument in C11 */

static int cmp_sample(const void *a, const void *b)
{
    int64_t x = sort_h->samples[*(const size_t *)a].ts_ns, y = sort_h->samples[*(const size_t *)b].ts_ns;
    return (x > y) - (x < y);
}

static int cmp_span(const void *a, const void *b)
{
    int64_t x = sort_h->spans[*(const size_t *)a].start_ns, y = sort_h->spans[*(const size_t *)b].start_ns;
    return (x > y) - (x < y);
}

host_where_index *host_where_build(const host_activity *h)
{
    host_where_index *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->h = h;
    /* As long as the run's samples: spill.h's, as those are */
    x->samples = spill_alloc((h->nsamples ? h->nsamples : 1) * sizeof *x->samples);
    x->spans = spill_alloc((h->nspans ? h->nspans : 1) * sizeof *x->spans);
    if (!x->samples || !x->spans) {
        host_where_index_free(x);
        return NULL;
    }
    for (size_t i = 0; i < h->nsamples; i++)
        x->samples[i] = i;
    for (size_t i = 0; i < h->nspans; i++) {
        x->spans[i] = i;
        if (h->spans[i].end_ns - h->spans[i].start_ns > x->longest)
            x->longest = h->spans[i].end_ns - h->spans[i].start_ns;
    }
    sort_h = h;
    qsort(x->samples, h->nsamples, sizeof *x->samples, cmp_sample);
    qsort(x->spans, h->nspans, sizeof *x->spans, cmp_span);
    return x;
}

void host_where_index_free(host_where_index *x)
{
    if (!x)
        return;
    spill_free(x->samples);
    spill_free(x->spans);
    free(x);
}

/* ---- a view ---- */

/* One weighted look at a thread's stack: a sample (weight 1), or a span's time as the innermost
 * of its thread (weight ns). */
typedef struct {
    uint32_t pid, tid;
    int node;
    int64_t w;
    char state;
} item;

typedef struct {
    item *v;
    size_t n, cap;
} items;

static bool push(items *it, item x)
{
    if (it->n == it->cap) {
        size_t cap = it->cap ? 2 * it->cap : 64;
        item *grown = realloc(it->v, cap * sizeof *grown);
        if (!grown)
            return false;
        it->v = grown;
        it->cap = cap;
    }
    it->v[it->n++] = x;
    return true;
}

static size_t first_at(const size_t *idx, size_t n, int64_t t, int64_t (*key)(const host_activity *, size_t),
                       const host_activity *h)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key(h, idx[mid]) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int64_t sample_ts(const host_activity *h, size_t i) { return h->samples[i].ts_ns; }
static int64_t span_start(const host_activity *h, size_t i) { return h->spans[i].start_ns; }

static bool sample_items(const host_where_index *x, host_sample_source src, int64_t start, int64_t end,
                         host_keep_fn keep, const void *ctx, items *out)
{
    const host_activity *h = x->h;
    for (size_t k = first_at(x->samples, h->nsamples, start, sample_ts, h); k < h->nsamples; k++) {
        const host_sample *s = &h->samples[x->samples[k]];
        if (s->ts_ns >= end)
            break;
        if (s->source != src || (keep && !keep(ctx, s->ts_ns)))
            continue;
        if (!push(out, (item){s->pid, s->tid, s->frame, 1, s->state}))
            return false;
    }
    return true;
}

static int64_t clip(int64_t s, int64_t e, int64_t start, int64_t end)
{
    s = s > start ? s : start;
    e = e < end ? e : end;
    return e > s ? e - s : 0;
}

static int cmp_nest(const void *a, const void *b)
{
    const host_span *x = *(const host_span *const *)a, *y = *(const host_span *const *)b;
    return nesting_order(x->pid, x->tid, x->start_ns, x->end_ns, y->pid, y->tid, y->start_ns, y->end_ns);
}

/* Each span's time in [start, end) as the innermost of its thread: its clipped time less its
 * children's (spans of a thread nest, as Kineto's and nsys's do). */
static bool span_items(const host_where_index *x, int64_t start, int64_t end, items *out)
{
    const host_activity *h = x->h;
    size_t n = 0, cap = 0;
    const host_span **in = NULL;
    for (size_t k = first_at(x->spans, h->nspans, start - x->longest, span_start, h); k < h->nspans; k++) {
        const host_span *s = &h->spans[x->spans[k]];
        if (s->start_ns >= end)
            break;
        if (clip(s->start_ns, s->end_ns, start, end) <= 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            const host_span **grown = realloc(in, cap * sizeof *grown);
            if (!grown) {
                free(in);
                return false;
            }
            in = grown;
        }
        in[n++] = s;
    }
    if (n > 0)
        qsort(in, n, sizeof *in, cmp_nest);
    size_t base = out->n;
    size_t *stack = malloc((n ? n : 1) * sizeof *stack); /* indices into out->v */
    bool ok = stack != NULL;
    size_t depth = 0;
    for (size_t i = 0; ok && i < n; i++) {
        const host_span *s = in[i];
        while (depth > 0) {
            const item *top = &out->v[stack[depth - 1]];
            const host_span *ts = in[stack[depth - 1] - base];
            if (top->pid == s->pid && top->tid == s->tid && ts->end_ns > s->start_ns)
                break;
            depth--;
        }
        int64_t d = clip(s->start_ns, s->end_ns, start, end);
        if (depth > 0)
            out->v[stack[depth - 1]].w -= d;
        ok = push(out, (item){s->pid, s->tid, s->frame, d, 0});
        stack[depth++] = out->n - 1;
    }
    free(stack);
    free(in);
    return ok;
}

/* The thread a view is of: most running weight (state R), then most weight, then the process's
 * main thread (tid == pid), then the lowest tid. */
typedef struct {
    uint32_t pid, tid;
    int64_t w, running;
} thread_w;

static int cmp_thread(const void *a, const void *b)
{
    const thread_w *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

static bool better_thread(const thread_w *a, const thread_w *b)
{
    if (a->running != b->running)
        return a->running > b->running;
    if (a->w != b->w)
        return a->w > b->w;
    if ((a->tid == a->pid) != (b->tid == b->pid))
        return a->tid == a->pid;
    return a->tid < b->tid;
}

static bool choose_thread(const items *it, uint32_t *pid, uint32_t *tid, int *threads)
{
    thread_w *t = malloc(it->n * sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < it->n; i++)
        t[i] = (thread_w){it->v[i].pid, it->v[i].tid, it->v[i].w, it->v[i].state == 'R' ? it->v[i].w : 0};
    qsort(t, it->n, sizeof *t, cmp_thread);
    size_t nt = 0;
    for (size_t i = 0; i < it->n; i++) {
        if (nt > 0 && t[nt - 1].pid == t[i].pid && t[nt - 1].tid == t[i].tid) {
            t[nt - 1].w += t[i].w;
            t[nt - 1].running += t[i].running;
        } else {
            t[nt++] = t[i];
        }
    }
    size_t best = 0;
    for (size_t i = 1; i < nt; i++)
        if (better_thread(&t[i], &t[best]))
            best = i;
    *pid = t[best].pid;
    *tid = t[best].tid;
    *threads = (int)nt;
    free(t);
    return true;
}

/* (node, weight) pairs merged by node. */
typedef struct {
    int node;
    int64_t w;
} node_w;

static int cmp_node(const void *a, const void *b)
{
    const node_w *x = a, *y = b;
    return (x->node > y->node) - (x->node < y->node);
}

static size_t merge_nodes(node_w *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_node);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && v[k - 1].node == v[i].node)
            v[k - 1].w += v[i].w;
        else
            v[k++] = v[i];
    }
    return k;
}

static void set_fn(host_fn *out, const char *name, bool user, int64_t w, int64_t total, host_from f)
{
    copy_str(out->name, sizeof out->name, name);
    out->user = user;
    metric_set(&out->share_pct, 100.0 * (double)w / (double)total);
    if (f == HOST_FROM_SPANS) {
        metric_na(&out->samples, "timed spans, not samples");
        metric_set(&out->ms, (double)w / 1e6);
    } else {
        metric_set(&out->samples, (double)w);
        metric_na(&out->ms, "counted in samples, not timed");
    }
}

/* Named frames merged by their words, heaviest first; the top ones to out (up to max). */
typedef struct {
    char name[HOST_NAME];
    bool user;
    int64_t w;
} named_w;

static int cmp_named(const void *a, const void *b)
{
    return strcmp(((const named_w *)a)->name, ((const named_w *)b)->name);
}

static int cmp_named_w(const void *a, const void *b)
{
    const named_w *x = a, *y = b;
    if (x->w != y->w)
        return x->w < y->w ? 1 : -1;
    return strcmp(x->name, y->name);
}

static bool top_named(const host_activity *h, node_w *v, size_t n, bool with_line, int64_t total, host_from f,
                      host_fn *out, int max, int *nout)
{
    *nout = 0;
    n = merge_nodes(v, n);
    if (n == 0)
        return true;
    named_w *nw = malloc(n * sizeof *nw);
    if (!nw)
        return false;
    for (size_t i = 0; i < n; i++) {
        host_frame_name(&h->frames[v[i].node], with_line, nw[i].name, sizeof nw[i].name);
        nw[i].user = host_user_frame(&h->frames[v[i].node]);
        nw[i].w = v[i].w;
    }
    qsort(nw, n, sizeof *nw, cmp_named);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && strcmp(nw[k - 1].name, nw[i].name) == 0)
            nw[k - 1].w += nw[i].w;
        else
            nw[k++] = nw[i];
    }
    qsort(nw, k, sizeof *nw, cmp_named_w);
    for (size_t i = 0; i < k && *nout < max; i++)
        set_fn(&out[(*nout)++], nw[i].name, nw[i].user, nw[i].w, total, f);
    free(nw);
    return true;
}

static bool valid_node(const host_activity *h, int node)
{
    return node >= 0 && node < h->nframes;
}

/* The innermost frame with a name, and the innermost of the user's (else that named one). */
static int named_frame(const host_activity *h, int node)
{
    for (int i = node, guard = 0; valid_node(h, i) && guard < h->nframes; i = h->frames[i].parent, guard++)
        if (h->frames[i].function && h->frames[i].function[0])
            return i;
    return -1;
}

int host_user_node(const host_activity *h, int node)
{
    for (int i = node, guard = 0; valid_node(h, i) && guard < h->nframes; i = h->frames[i].parent, guard++)
        if (host_user_frame(&h->frames[i]))
            return i;
    return named_frame(h, node);
}

int host_outer_node(const host_activity *h, int node)
{
    int o = valid_node(h, node) ? h->frames[node].outer : 0;
    return o > node && valid_node(h, o) && host_user_frame(&h->frames[o]) ? o : -1;
}

/* The hot frame: from the outermost frames down, the heaviest child while it carries more than
 * HOST_HOT_PCT of the total; of those, the deepest with a name (an unnamed native frame is told
 * by its caller). inc holds every node on a stack with its inclusive weight. */
static int hot_frame(const host_activity *h, const node_w *inc, size_t n, int64_t total, int64_t *w)
{
    int at = -1, named = -1;
    *w = 0;
    for (;;) {
        int best = -1;
        int64_t bw = 0;
        for (size_t i = 0; i < n; i++)
            if (h->frames[inc[i].node].parent == at && inc[i].w > bw) {
                best = inc[i].node;
                bw = inc[i].w;
            }
        if (best < 0 || 100.0 * (double)bw <= HOST_HOT_PCT * (double)total)
            return named;
        at = best;
        if (h->frames[at].function && h->frames[at].function[0]) {
            named = at;
            *w = bw;
        }
    }
}

static bool view_figures(const host_activity *h, const items *it, host_from f, host_view *out)
{
    int64_t total = 0, known = 0, waiting = 0;
    size_t chain = 0;
    for (size_t i = 0; i < it->n; i++) {
        const item *x = &it->v[i];
        if (x->pid != out->pid || x->tid != out->tid)
            continue;
        total += x->w;
        known += x->state ? x->w : 0;
        waiting += x->state == 'S' || x->state == 'D' ? x->w : 0;
        for (int k = x->node, guard = 0; valid_node(h, k) && guard < h->nframes; k = h->frames[k].parent, guard++)
            chain++;
    }
    if (total <= 0)
        return true; /* spans wholly covered by their children: nothing to weigh */
    out->any = true;
    if (f == HOST_FROM_SPANS) {
        metric_na(&out->samples, "timed spans, not samples");
        metric_set(&out->ms, (double)total / 1e6);
        metric_na(&out->waiting_pct, "spans carry no thread state");
    } else {
        metric_set(&out->samples, (double)total);
        metric_na(&out->ms, "counted in samples, not timed");
        if (f == HOST_FROM_CPU)
            metric_na(&out->waiting_pct, "CPU samples are taken only while the thread runs");
        else if (known == 0)
            metric_na(&out->waiting_pct, "the samples carry no thread state");
        else
            metric_set(&out->waiting_pct, 100.0 * (double)waiting / (double)known);
    }
    node_w *inc = malloc((chain ? chain : 1) * sizeof *inc);
    node_w *self = malloc(it->n * sizeof *self), *user = malloc(it->n * sizeof *user);
    bool ok = inc && self && user;
    size_t ni = 0, ns = 0, nu = 0;
    for (size_t i = 0; ok && i < it->n; i++) {
        const item *x = &it->v[i];
        if (x->pid != out->pid || x->tid != out->tid || x->w <= 0)
            continue;
        for (int k = x->node, guard = 0; valid_node(h, k) && guard < h->nframes; k = h->frames[k].parent, guard++)
            inc[ni++] = (node_w){k, x->w};
        int s = named_frame(h, x->node), u = host_user_node(h, x->node);
        if (s >= 0)
            self[ns++] = (node_w){s, x->w};
        if (u >= 0)
            user[nu++] = (node_w){u, x->w};
    }
    if (ok) {
        ni = merge_nodes(inc, ni);
        int64_t hw;
        int hot = hot_frame(h, inc, ni, total, &hw);
        if (hot >= 0) {
            char name[HOST_NAME];
            host_frame_name(&h->frames[hot], host_user_frame(&h->frames[hot]), name, sizeof name);
            set_fn(&out->hot, name, host_user_frame(&h->frames[hot]), hw, total, f);
        }
        int one;
        ok = top_named(h, self, ns, false, total, f, out->top, HOST_TOP, &out->ntop) &&
             top_named(h, user, nu, true, total, f, &out->user, 1, &one);
    }
    free(inc);
    free(self);
    free(user);
    return ok;
}

static void view_na(host_view *out, const char *why)
{
    metric_na(&out->samples, "%s", why);
    metric_na(&out->ms, "%s", why);
    metric_na(&out->waiting_pct, "%s", why);
    metric_na(&out->running_pct, "%s", out->from == HOST_FROM_PY ? why : "only Python wall-clock samples are set "
                                                                        "against CPU samples");
}

/* A Python view's running_pct: the thread's CPU samples in the window over its wall-clock ones. */
static void running(const host_where_index *x, int64_t start, int64_t end, host_keep_fn keep, const void *ctx,
                    host_view *v)
{
    const host_activity *h = x->h;
    bool any_cpu = false;
    size_t n = 0;
    for (size_t i = 0; i < h->nsamples && !any_cpu; i++)
        any_cpu = h->samples[i].source == HOST_SAMPLE_CPU;
    if (!any_cpu) {
        metric_na(&v->running_pct, "the run has no CPU samples");
        return;
    }
    for (size_t k = first_at(x->samples, h->nsamples, start, sample_ts, h); k < h->nsamples; k++) {
        const host_sample *s = &h->samples[x->samples[k]];
        if (s->ts_ns >= end)
            break;
        n += s->source == HOST_SAMPLE_CPU && s->pid == v->pid && s->tid == v->tid && (!keep || keep(ctx, s->ts_ns));
    }
    /* A thread runs on one CPU at most: more CPU samples than wall-clock ones are the Python
     * sampler's missed ticks (15 against 14 in an H200 recording's 304 ms stretch read "107%
     * running"), not more than all of the time. */
    double pct = 100.0 * (double)n / v->samples.v;
    metric_set(&v->running_pct, pct < 100 ? pct : 100);
}

bool host_view_of(const host_where_index *x, host_from f, int64_t start, int64_t end, host_keep_fn keep,
                  const void *ctx, host_view *out)
{
    memset(out, 0, sizeof *out);
    out->from = f;
    view_na(out, f == HOST_FROM_SPANS ? "no CPU spans in it" : "no host samples in it");
    if (end <= start)
        return true;
    items it = {0};
    bool ok = f == HOST_FROM_SPANS ? span_items(x, start, end, &it)
                                   : sample_items(x, f == HOST_FROM_PY ? HOST_SAMPLE_PY : HOST_SAMPLE_CPU, start, end, keep, ctx, &it);
    if (ok && it.n > 0 && (ok = choose_thread(&it, &out->pid, &out->tid, &out->threads)))
        ok = view_figures(x->h, &it, f, out);
    free(it.v);
    if (ok && out->any && f == HOST_FROM_PY)
        running(x, start, end, keep, ctx, out);
    return ok;
}

const host_view *host_view_headline(const host_view v[HOST_NFROM])
{
    for (int f = 0; f < HOST_NFROM; f++)
        if (v[f].any)
            return &v[f];
    return NULL;
}

bool host_view_waited(const host_view *v)
{
    return v->any && v->waiting_pct.ok && v->waiting_pct.v >= HOST_HOT_PCT &&
           !(v->running_pct.ok && v->running_pct.v >= HOST_HOT_PCT);
}

void host_view_words(const host_view *v, char *buf, size_t len)
{
    if (!v || !v->any) {
        copy_str(buf, len, "");
        return;
    }
    /* The frame a sentence names: the hot one where there is one, else the heaviest innermost. */
    const host_fn *named = v->hot.name[0] ? &v->hot : v->ntop > 0 ? &v->top[0] : &v->user;
    char of[64];
    if (v->from == HOST_FROM_SPANS)
        snprintf(of, sizeof of, "of %.0f ms of %s", v->ms.v, host_from_label(v->from));
    else
        snprintf(of, sizeof of, "of %.0f %s", v->samples.v, host_from_label(v->from));
    if (host_view_waited(v) && v->user.name[0]) {
        snprintf(buf, len, "slept/waited in %s (%.0f%% %s asleep or waiting)", v->user.name, v->waiting_pct.v, of);
        return;
    }
    if (!named->name[0]) { /* stacks of native frames no symbol named */
        snprintf(buf, len, "in frames with no name (%s%s)", of + 3,
                 v->from == HOST_FROM_CPU ? ": the modules' symbols were not read" : "");
        return;
    }
    char from[HOST_NAME + 16] = "";
    if (v->user.user && !named->user && named != &v->user)
        snprintf(from, sizeof from, ", from %s", v->user.name);
    else if (named->user && v->user.user)
        named = &v->user; /* the user's own code: its line */
    snprintf(buf, len, "in %s %.0f%% %s%s", named->name, named->share_pct.v, of, from);
}

void host_none_words(const host_activity *h, char *buf, size_t len)
{
    if (h->why_not[0] && h->nsamples == 0)
        snprintf(buf, len, "no host samples: sampling off (%.200s)", h->why_not);
    else if (h->mechanism[0] || h->nsamples > 0 || h->nspans > 0)
        copy_str(buf, len, h->nspans > 0 && h->nsamples == 0 ? "no CPU spans in it" : "no host samples in it");
    else
        copy_str(buf, len, "");
}
