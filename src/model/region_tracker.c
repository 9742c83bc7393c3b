/* Ranges into regions, for every source: see region_tracker.h. */
#include "region_tracker.h"
#include "nesting_order.h"

#include <stdlib.h>
#include <string.h>

void rt_init(region_tracker *t, run_model *m)
{
    memset(t, 0, sizeof *t);
    t->m = m;
    t->latest = INT64_MIN;
}

static void free_ranges(region_tracker *t)
{
    for (size_t i = 0; i < t->nranges; i++) {
        free((char *)t->ranges[i].name);
        free((char *)t->ranges[i].domain);
    }
    free(t->ranges);
    t->ranges = NULL;
    t->nranges = t->capranges = 0;
}

void rt_free(region_tracker *t)
{
    free_ranges(t);
    free(t->open);
    t->open = NULL;
    t->nopen = t->capopen = 0;
}

void rt_saw(region_tracker *t, int64_t ns)
{
    if (ns > t->latest)
        t->latest = ns;
}

/* NVTX's default domain arrives as NULL or as an empty name: both are NULL in the model. */
static const char *domain_or_null(const char *domain) { return domain && domain[0] ? domain : NULL; }

static bool same_domain(const char *a, const char *b)
{
    a = domain_or_null(a);
    b = domain_or_null(b);
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Room for one more element in *arr (n used of *cap); false when memory ran out. */
static bool room(void **arr, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap)
        return true;
    size_t grown_cap = *cap ? *cap * 2 : 16;
    void *grown = realloc(*arr, grown_cap * elem);
    if (!grown)
        return false;
    *arr = grown;
    *cap = grown_cap;
    return true;
}

static bool failed(region_tracker *t)
{
    t->oom = true;
    return false;
}

/* ---------- live ranges ---------- */

static bool open_live(region_tracker *t, bool push, uint32_t pid, uint32_t tid, uint64_t id, const char *domain,
                      const char *name, int64_t ns)
{
    rt_saw(t, ns);
    /* A push nests in the innermost push still open on its thread; a start hangs from the run. */
    int parent = -1;
    for (size_t i = t->nopen; push && i-- > 0;)
        if (t->open[i].push && t->open[i].pid == pid && t->open[i].tid == tid) {
            parent = t->open[i].region;
            break;
        }
    if (!room((void **)&t->open, t->nopen, &t->capopen, sizeof *t->open))
        return failed(t);
    int at = model_add_region(t->m, REGION_NVTX, name, domain_or_null(domain), ns, ns, pid, tid, parent);
    if (at < 0)
        return failed(t);
    t->m->regions[at].push_pop = push;
    t->open[t->nopen++] = (rt_open){.push = push, .pid = pid, .tid = tid, .id = id, .region = at};
    return true;
}

/* Closes open range i at ns (at its start when ns comes before it). */
static void close_live(region_tracker *t, size_t i, int64_t ns)
{
    region *g = &t->m->regions[t->open[i].region];
    if (ns < g->start_ns) {
        t->backwards_clamped++;
        ns = g->start_ns;
    }
    g->end_ns = ns;
    memmove(&t->open[i], &t->open[i + 1], (t->nopen - i - 1) * sizeof *t->open);
    t->nopen--;
}

bool rt_push(region_tracker *t, uint32_t pid, uint32_t tid, const char *domain, const char *name, int64_t ns)
{
    return open_live(t, true, pid, tid, 0, domain, name, ns);
}

bool rt_start(region_tracker *t, uint32_t pid, uint32_t tid, uint64_t id, const char *domain, const char *name,
              int64_t ns)
{
    return open_live(t, false, pid, tid, id, domain, name, ns);
}

bool rt_pop(region_tracker *t, uint32_t pid, uint32_t tid, const char *domain, int64_t ns)
{
    rt_saw(t, ns);
    for (size_t i = t->nopen; i-- > 0;) {
        const rt_open *o = &t->open[i];
        if (o->push && o->pid == pid && o->tid == tid && same_domain(t->m->regions[o->region].domain, domain)) {
            close_live(t, i, ns);
            return true;
        }
    }
    t->unmatched++; /* NVTX ignores a pop with nothing pushed, and so does the report */
    return true;
}

bool rt_end(region_tracker *t, uint32_t pid, uint64_t id, int64_t ns)
{
    rt_saw(t, ns);
    for (size_t i = t->nopen; i-- > 0;)
        if (!t->open[i].push && t->open[i].pid == pid && t->open[i].id == id) {
            close_live(t, i, ns);
            return true;
        }
    t->unmatched++;
    return true;
}

/* ---------- complete intervals ---------- */

static char *dup_or_null(const char *s, bool *ok)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    *ok &= d != NULL;
    return d;
}

bool rt_interval(region_tracker *t, const rt_range *r)
{
    bool never_ended = r->end_ns == RT_OPEN_END;
    if (!never_ended && r->end_ns < r->start_ns) {
        t->backwards_left_out++;
        return true;
    }
    rt_saw(t, r->start_ns);
    if (!never_ended)
        rt_saw(t, r->end_ns);
    if (!room((void **)&t->ranges, t->nranges, &t->capranges, sizeof *t->ranges))
        return failed(t);
    bool ok = true;
    rt_range copy = *r;
    copy.name = dup_or_null(r->name ? r->name : "", &ok);
    copy.domain = dup_or_null(domain_or_null(r->domain), &ok);
    if (!ok) {
        free((char *)copy.name);
        free((char *)copy.domain);
        return failed(t);
    }
    t->ranges[t->nranges++] = copy;
    return true;
}

/* Nesting styles first (push/pop, then annotations), start/end last: the order regions are added. */
static int style_rank(range_style s) { return s == RANGE_PUSH_POP ? 0 : s == RANGE_ANNOTATION ? 1 : 2; }

/* Ranges of one style and thread together, by start, the enclosing (longer) before the enclosed;
 * ties keep the order they came in, so the regions do not depend on the sort. */
static int by_thread_then_time(const void *a, const void *b, void *arg)
{
    const rt_range *ranges = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const rt_range *x = &ranges[i], *y = &ranges[j];
    int sx = style_rank(x->style), sy = style_rank(y->style);
    if (sx != sy)
        return sx < sy ? -1 : 1;
    int c = nesting_order(x->pid, x->tid, x->start_ns, x->end_ns, y->pid, y->tid, y->start_ns, y->end_ns);
    if (c)
        return c;
    return (i > j) - (i < j);
}

static bool encloses(const rt_range *outer, const rt_range *inner)
{
    return outer->style == inner->style && outer->pid == inner->pid && outer->tid == inner->tid &&
           outer->start_ns <= inner->start_ns && inner->end_ns <= outer->end_ns;
}

/* The intervals as regions, in order; each nesting one's parent is the innermost of its style
 * and thread that contains it. */
static bool add_intervals(region_tracker *t)
{
    if (t->nranges == 0)
        return true;
    size_t n = t->nranges;
    size_t *order = malloc(n * sizeof *order);
    size_t *stack = malloc(n * sizeof *stack); /* positions in order, innermost last */
    int *index = malloc(n * sizeof *index);    /* each position's region, as the model gave it */
    if (!order || !stack || !index) {
        free(order);
        free(stack);
        free(index);
        return failed(t);
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    if (n > 1)
        qsort_r(order, n, sizeof *order, by_thread_then_time, t->ranges);
    size_t depth = 0;
    bool ok = true;
    for (size_t k = 0; k < n && ok; k++) {
        const rt_range *r = &t->ranges[order[k]];
        bool nests = r->style != RANGE_START_END;
        while (depth > 0 && !encloses(&t->ranges[order[stack[depth - 1]]], r))
            depth--;
        int parent = nests && depth > 0 ? index[stack[depth - 1]] : -1;
        region_kind kind = r->style == RANGE_ANNOTATION ? REGION_ANNOTATION : REGION_NVTX;
        int at = model_add_region(t->m, kind, r->name, r->domain, r->start_ns, r->end_ns, r->pid, r->tid, parent);
        ok = at >= 0;
        index[k] = at;
        if (ok)
            t->m->regions[at].push_pop = r->style == RANGE_PUSH_POP;
        if (nests)
            stack[depth++] = k;
    }
    free(order);
    free(stack);
    free(index);
    return ok || failed(t);
}

/* ---------- the end ---------- */

static const char *plural(size_t n, const char *one, const char *many) { return n == 1 ? one : many; }

bool rt_finish(region_tracker *t, const char *label)
{
    if (t->oom)
        return false;
    int64_t latest = t->latest;
    for (size_t i = 0; i < t->nopen; i++) {
        region *g = &t->m->regions[t->open[i].region];
        g->end_ns = latest > g->start_ns ? latest : g->start_ns;
    }
    t->never_ended += t->nopen;
    t->nopen = 0;
    for (size_t i = 0; i < t->nranges; i++) {
        rt_range *r = &t->ranges[i];
        if (r->end_ns != RT_OPEN_END)
            continue;
        r->end_ns = latest > r->start_ns ? latest : r->start_ns;
        t->never_ended++;
    }
    bool ok = add_intervals(t);
    free_ranges(t);
    if (!ok)
        return false;
    run_model *m = t->m;
    if (t->never_ended)
        model_add_warning(m, "%s: %zu NVTX %s still open at the end (never ended); %s at the last event recorded",
                          label, t->never_ended, plural(t->never_ended, "range was", "ranges were"),
                          plural(t->never_ended, "it ends", "they end"));
    if (t->unmatched)
        model_add_warning(m, "%s: %zu NVTX %s no open range; ignored", label, t->unmatched,
                          plural(t->unmatched, "pop or end matches", "pops or ends match"));
    if (t->backwards_left_out)
        model_add_warning(m, "%s: %zu %s; left out", label, t->backwards_left_out,
                          plural(t->backwards_left_out, "range ends before it starts", "ranges end before they start"));
    if (t->backwards_clamped)
        model_add_warning(m, "%s: %zu NVTX %s before %s (by the timestamps); given zero length", label,
                          t->backwards_clamped, plural(t->backwards_clamped, "range was closed", "ranges were closed"),
                          plural(t->backwards_clamped, "it was opened", "they were opened"));
    return true;
}
