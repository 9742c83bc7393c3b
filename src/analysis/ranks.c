/* See ranks.h. Every event is assigned to its row once and bucketed (a counting sort), so the
 * figures cost O(events log events) however many ranks a merged job has. */
#include "ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

bool is_nccl_kernel(const char *name)
{
    return name && (strstr(name, "ncclKernel") || strstr(name, "ncclDevKernel"));
}

void rank_share_label(const rank_share *r, bool gpu, bool with_host, char *buf, size_t len)
{
    char who[48];
    if (r->rank >= 0)
        snprintf(who, sizeof who, "rank %d", r->rank);
    else
        snprintf(who, sizeof who, "pid %u", r->pid);
    if (gpu)
        snprintf(buf, len, "GPU %d (%s)", r->device, who);
    else if (r->device >= 0)
        snprintf(buf, len, "%s GPU %d", who, r->device);
    else
        snprintf(buf, len, "%s", who);
    size_t n = strlen(buf);
    if (with_host && r->host[0] && n < len)
        snprintf(buf + n, len - n, " @%s", r->host);
}

enum { CLS_COMPUTE = 0, CLS_COMM, CLS_COPY };

/* A GPU interval with its row (or device) and class. */
typedef struct {
    int64_t start, end;
    int key, cls;
} tagged;

typedef struct {
    uint32_t pid;
    int row;
} pid_row;

static int cmp_pid_row(const void *a, const void *b)
{
    const pid_row *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

static int row_of(const pid_row *map, int n, uint32_t pid)
{
    pid_row key = {pid, 0};
    const pid_row *hit = bsearch(&key, map, (size_t)n, sizeof *map, cmp_pid_row);
    return hit ? hit->row : -1;
}

static double pct(int64_t part, int64_t whole) { return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0; }

static int64_t union_of(interval *iv, size_t n, int64_t lo, int64_t hi)
{
    return interval_union(iv, n, lo, hi, NULL, 0, NULL);
}

/* The shares of one row from its intervals (items[0..n), all of its key). */
static bool row_shares(const tagged *items, size_t n, int64_t lo, int64_t hi, rank_share *r)
{
    interval *iv = malloc((n + 1) * sizeof *iv);
    if (!iv)
        return false;
    size_t k = 0;
    int64_t u[5]; /* compute; comm; compute or comm; all; copies and memsets */
    for (int pass = 0; pass < 5; pass++) {
        k = 0;
        for (size_t i = 0; i < n; i++) {
            int c = items[i].cls;
            bool in = pass == 0   ? c == CLS_COMPUTE
                      : pass == 1 ? c == CLS_COMM
                      : pass == 2 ? c != CLS_COPY
                      : pass == 3 ? true
                                  : c == CLS_COPY;
            if (in)
                iv[k++] = (interval){items[i].start, items[i].end};
        }
        u[pass] = union_of(iv, k, lo, hi);
    }
    free(iv);
    /* The row's own span lies inside the job's window, so the unions above hold for it too. */
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        first = items[i].start < first ? items[i].start : first;
        last = items[i].end > last ? items[i].end : last;
    }
    if (n > 0 && last > first) {
        int64_t s = last - first;
        metric_set(&r->span_ms, (double)s / 1e6);
        metric_set(&r->span_idle_pct, pct(s - u[3], s));
        metric_set(&r->span_compute_pct, pct(u[0], s));
        metric_set(&r->span_non_compute_pct, pct(u[3] - u[0], s));
    } else {
        const char *why = n > 0 ? "its GPU work took no time" : "no GPU work";
        metric_na(&r->span_ms, "%s", why);
        metric_na(&r->span_idle_pct, "%s", why);
        metric_na(&r->span_compute_pct, "%s", why);
        metric_na(&r->span_non_compute_pct, "%s", why);
    }
    metric_set(&r->memory_ms, (double)u[4] / 1e6);
    int64_t w = hi - lo;
    metric_set(&r->window_ms, (double)w / 1e6);
    metric_set(&r->busy_pct, pct(u[3], w));
    metric_set(&r->compute_pct, pct(u[0], w));
    metric_set(&r->comm_pct, pct(u[2] - u[0], w));
    metric_set(&r->copy_pct, pct(u[3] - u[2], w));
    metric_set(&r->idle_pct, pct(w - u[3], w));
    metric_set(&r->compute_ms, (double)u[0] / 1e6);
    metric_set(&r->comm_ms, (double)u[1] / 1e6);
    if (u[1] > 0)
        metric_set(&r->overlap_pct, pct(u[0] + u[1] - u[2], u[1]));
    else
        metric_na(&r->overlap_pct, "no NCCL kernels");
    return true;
}

/* Buckets items by key (0..nkeys) and computes each key's shares into rows[key]. */
static bool shares_by_key(tagged *items, size_t n, int nkeys, int64_t lo, int64_t hi, rank_share *rows)
{
    size_t *at = calloc((size_t)nkeys + 1, sizeof *at);
    tagged *sorted = malloc((n + 1) * sizeof *sorted);
    if (!at || !sorted) {
        free(at);
        free(sorted);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        at[items[i].key + 1]++;
    for (int k = 0; k < nkeys; k++)
        at[k + 1] += at[k];
    size_t *fill = calloc((size_t)nkeys + 1, sizeof *fill);
    bool ok = fill != NULL;
    if (ok) {
        memcpy(fill, at, ((size_t)nkeys + 1) * sizeof *fill);
        for (size_t i = 0; i < n; i++)
            sorted[fill[items[i].key]++] = items[i];
        for (int k = 0; ok && k < nkeys; k++)
            ok = row_shares(sorted + at[k], at[k + 1] - at[k], lo, hi, &rows[k]);
    }
    free(fill);
    free(at);
    free(sorted);
    return ok;
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (*x > *y) - (*x < *y);
}

/* Per row: NCCL kernel ends in start order; the k-th of each row is the same collective (every
 * rank runs the job's collectives in one order). */
static bool collective_skew(const tagged *items, size_t n, rank_analysis *ra)
{
    int64_t **ends = calloc((size_t)ra->nrows, sizeof *ends);
    size_t *cnt = calloc((size_t)ra->nrows, sizeof *cnt);
    tagged *comm = malloc((n + 1) * sizeof *comm);
    bool ok = ends && cnt && comm;
    size_t nc = 0;
    for (size_t i = 0; ok && i < n; i++)
        if (items[i].cls == CLS_COMM)
            comm[nc++] = items[i];
    for (size_t i = 0; ok && i < nc; i++)
        cnt[comm[i].key]++;
    for (int r = 0; ok && r < ra->nrows; r++)
        ok = (ends[r] = malloc((cnt[r] + 1) * sizeof **ends)) != NULL;
    if (ok) {
        /* start order per row: sort each row's (start, end) pairs by start. */
        int64_t *starts = malloc((nc + 1) * 2 * sizeof *starts);
        size_t *fill = calloc((size_t)ra->nrows, sizeof *fill);
        ok = starts && fill;
        for (int r = 0; ok && r < ra->nrows; r++) {
            size_t k = 0;
            for (size_t i = 0; i < nc; i++)
                if (comm[i].key == r) {
                    starts[2 * k] = comm[i].start;
                    starts[2 * k + 1] = comm[i].end;
                    k++;
                }
            qsort(starts, k, 2 * sizeof *starts, cmp_i64); /* by start, the first of each pair */
            for (size_t j = 0; j < k; j++)
                ends[r][j] = starts[2 * j + 1];
        }
        free(starts);
        free(fill);
    }
    for (int r = 0; ok && r < ra->nrows; r++) {
        size_t m = cnt[r] < cnt[0] ? cnt[r] : cnt[0];
        if (m == 0) {
            metric_na(&ra->rows[r].coll_skew_us, cnt[r] ? "the first row ran no NCCL kernels" : "no NCCL kernels");
            continue;
        }
        double *d = malloc(m * sizeof *d);
        if (!(ok = d != NULL))
            break;
        for (size_t j = 0; j < m; j++)
            d[j] = (double)(ends[r][j] - ends[0][j]) / 1e3;
        metric_set(&ra->rows[r].coll_skew_us, median_of(d, (int)m));
        free(d);
    }
    for (int r = 0; ends && r < ra->nrows; r++)
        free(ends[r]);
    free(ends);
    free(cnt);
    free(comm);
    return ok;
}

/* An NVTX range of a row. */
typedef struct {
    const region *g;
    int row;
} nvtx_item;

static int str_cmp0(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : ""); }

static int cmp_nvtx(const void *a, const void *b)
{
    const nvtx_item *x = a, *y = b;
    int c = str_cmp0(x->g->name, y->g->name);
    if (!c)
        c = str_cmp0(x->g->domain, y->g->domain);
    if (!c)
        c = (x->row > y->row) - (x->row < y->row);
    if (!c)
        c = (x->g->start_ns > y->g->start_ns) - (x->g->start_ns < y->g->start_ns);
    return c;
}

static int cmp_lag(const void *a, const void *b)
{
    const straggler *x = a, *y = b;
    double lx = x->max_lag_ms.ok ? x->max_lag_ms.v : -1, ly = y->max_lag_ms.ok ? y->max_lag_ms.v : -1;
    return (lx < ly) - (lx > ly);
}

/* One name's items (sorted by row, then start): the k-th occurrence of each row matched. */
static bool one_straggler(const nvtx_item *it, size_t n, int nrows, straggler *s)
{
    memset(s, 0, sizeof *s);
    s->name = it[0].g->name;
    size_t *first = malloc(((size_t)nrows + 1) * sizeof *first), *count = calloc((size_t)nrows + 1, sizeof *count);
    int *last = calloc((size_t)nrows + 1, sizeof *last);
    double *lags = malloc((n + 1) * sizeof *lags);
    if (!first || !count || !last || !lags) {
        free(first);
        free(count);
        free(last);
        free(lags);
        return false;
    }
    double total = 0;
    size_t maxk = 0;
    for (size_t i = 0; i < n; i++) {
        int r = it[i].row;
        if (count[r]++ == 0) {
            first[r] = i;
            s->rows++;
        }
        if (count[r] > maxk)
            maxk = count[r];
        total += (double)(it[i].g->end_ns - it[i].g->start_ns) / 1e6;
    }
    int nl = 0;
    for (size_t k = 0; k < maxk; k++) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        int who = -1, have = 0;
        for (int r = 0; r < nrows; r++) {
            if (count[r] <= k)
                continue;
            int64_t e = it[first[r] + k].g->end_ns;
            have++;
            if (e < lo)
                lo = e;
            if (e > hi) {
                hi = e;
                who = r;
            }
        }
        if (have < 2)
            continue;
        lags[nl++] = (double)(hi - lo) / 1e6;
        last[who]++;
    }
    s->matched = nl;
    s->straggler = -1;
    for (int r = 0; r < nrows; r++)
        if (last[r] > s->straggler_times) {
            s->straggler_times = last[r];
            s->straggler = r;
        }
    if (nl > 0) {
        double mx = 0;
        for (int i = 0; i < nl; i++)
            mx = lags[i] > mx ? lags[i] : mx;
        metric_set(&s->median_lag_ms, median_of(lags, nl));
        metric_set(&s->max_lag_ms, mx);
    } else {
        metric_na(&s->median_lag_ms, "no occurrence opened by two ranks");
        metric_na(&s->max_lag_ms, "no occurrence opened by two ranks");
    }
    metric_set(&s->mean_ms, total / (double)n);
    free(first);
    free(count);
    free(last);
    free(lags);
    return true;
}

static bool find_stragglers(const run_model *m, const pid_row *map, int nmap, rank_analysis *ra)
{
    nvtx_item *it = malloc(((size_t)m->nregions + 1) * sizeof *it);
    if (!it)
        return false;
    size_t n = 0;
    for (int i = 0; i < m->nregions; i++) {
        const region *g = &m->regions[i];
        int r = g->kind == REGION_NVTX ? row_of(map, nmap, g->pid) : -1;
        if (r >= 0 && g->name)
            it[n++] = (nvtx_item){g, r};
    }
    if (n > 0)
        qsort(it, n, sizeof *it, cmp_nvtx);
    bool ok = true;
    for (size_t i = 0; ok && i < n;) {
        size_t j = i;
        while (j < n && str_cmp0(it[j].g->name, it[i].g->name) == 0 && str_cmp0(it[j].g->domain, it[i].g->domain) == 0)
            j++;
        if (it[j - 1].row != it[i].row) { /* opened by two rows at least */
            straggler *grown = realloc(ra->stragglers, (size_t)(ra->nstragglers + 1) * sizeof *grown);
            ok = grown != NULL;
            if (ok) {
                ra->stragglers = grown;
                ok = one_straggler(it + i, j - i, ra->nrows, &grown[ra->nstragglers]);
                ra->nstragglers += ok && grown[ra->nstragglers].matched > 0;
            }
        }
        i = j;
    }
    free(it);
    if (ok && ra->nstragglers > 1)
        qsort(ra->stragglers, (size_t)ra->nstragglers, sizeof *ra->stragglers, cmp_lag);
    return ok;
}

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    return (*x > *y) - (*x < *y);
}

/* The pids that have GPU events, sorted (one pass over the events, not one per process). */
static uint32_t *gpu_pids(const run_model *m, size_t *n_out)
{
    const event_list *e = &m->events;
    uint32_t *p = malloc((e->nkernels + e->ncopies + e->nmemsets + 1) * sizeof *p);
    if (!p)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < e->nkernels; i++)
        p[n++] = e->kernels[i].pid;
    for (size_t i = 0; i < e->ncopies; i++)
        p[n++] = e->copies[i].pid;
    for (size_t i = 0; i < e->nmemsets; i++)
        p[n++] = e->memsets[i].pid;
    if (n > 0)
        qsort(p, n, sizeof *p, cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || p[u - 1] != p[i])
            p[u++] = p[i];
    *n_out = u;
    return p;
}

/* The rows: which processes make each. */
static bool make_rows(const run_model *m, rank_analysis *ra, pid_row **map_out, int *nmap)
{
    pid_row *map = malloc(((size_t)m->nprocesses + 1) * sizeof *map);
    bool *gpu = calloc((size_t)m->nprocesses + 1, sizeof *gpu);
    if (!map || !gpu) {
        free(map);
        free(gpu);
        return false;
    }
    size_t npids = 0;
    uint32_t *pids = gpu_pids(m, &npids);
    if (!pids) {
        free(map);
        free(gpu);
        return false;
    }
    for (int i = 0; i < m->nprocesses; i++)
        gpu[i] = bsearch(&m->processes[i].pid, pids, npids, sizeof *pids, cmp_u32) != NULL;
    free(pids);
    for (int i = 0; i < m->nprocesses; i++)
        ra->by_rank |= gpu[i] && m->processes[i].rank >= 0;
    int n = 0;
    bool ok = true;
    for (int i = 0; ok && i < m->nprocesses; i++) {
        const process_info *p = &m->processes[i];
        if (!gpu[i] && p->rank < 0)
            continue;
        int row = -1;
        if (p->rank >= 0)
            for (int r = 0; r < ra->nrows; r++)
                if (ra->rows[r].rank == p->rank && strcmp(ra->rows[r].host, p->host) == 0)
                    row = r;
        if (row < 0) {
            if (!gpu[i])
                continue; /* a rank's process without GPU work joins its rank's row only */
            rank_share *grown = realloc(ra->rows, (size_t)(ra->nrows + 1) * sizeof *grown);
            if (!(ok = grown != NULL))
                break;
            ra->rows = grown;
            row = ra->nrows++;
            memset(&grown[row], 0, sizeof *grown);
            grown[row].rank = p->rank;
            grown[row].pid = p->pid;
            grown[row].device = -1;
            copy_str(grown[row].host, sizeof grown[row].host, p->host);
        }
        ra->rows[row].nprocs++;
        map[n++] = (pid_row){p->pid, row};
    }
    free(gpu);
    if (!ok) {
        free(map);
        return false;
    }
    qsort(map, (size_t)n, sizeof *map, cmp_pid_row);
    *map_out = map;
    *nmap = n;
    return true;
}

static int cmp_row(const void *a, const void *b)
{
    const rank_share *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The GPU events as tagged intervals, keyed by row (or by device with by_device). */
static tagged *gather(const run_model *m, const pid_row *map, int nmap, bool by_device, size_t *n_out,
                      rank_analysis *ra)
{
    const event_list *e = &m->events;
    tagged *t = malloc((e->nkernels + e->ncopies + e->nmemsets + 1) * sizeof *t);
    if (!t)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < e->nkernels; i++) {
        const kernel_event *k = &e->kernels[i];
        int r = row_of(map, nmap, k->pid);
        if (r < 0)
            continue;
        bool comm = is_nccl_kernel(k->name);
        if (!by_device) {
            ra->rows[r].kernels++;
            ra->rows[r].comm_kernels += comm;
        }
        t[n++] = (tagged){k->start_ns, k->end_ns, by_device ? (int)k->device : r, comm ? CLS_COMM : CLS_COMPUTE};
    }
    for (size_t i = 0; i < e->ncopies; i++) {
        const copy_event *c = &e->copies[i];
        int r = row_of(map, nmap, c->pid);
        if (r < 0)
            continue;
        ra->rows[r].copies += !by_device;
        t[n++] = (tagged){c->start_ns, c->end_ns, by_device ? (int)c->device : r, CLS_COPY};
    }
    for (size_t i = 0; i < e->nmemsets; i++) {
        const memset_event *s = &e->memsets[i];
        int r = row_of(map, nmap, s->pid);
        if (r >= 0)
            t[n++] = (tagged){s->start_ns, s->end_ns, by_device ? (int)s->device : r, CLS_COPY};
    }
    *n_out = n;
    return t;
}

/* Each rank row's most used GPU (by its events' count), and the per-GPU rows. */
static bool per_gpu(const run_model *m, const pid_row *map, int nmap, int64_t lo, int64_t hi, rank_analysis *ra)
{
    size_t n;
    tagged *t = gather(m, map, nmap, true, &n, ra);
    if (!t)
        return false;
    int nd = m->ndevices;
    for (size_t i = 0; i < n; i++)
        if (t[i].key >= nd)
            nd = t[i].key + 1;
    rank_share *g = calloc((size_t)nd + 1, sizeof *g);
    int *uses = calloc((size_t)nd + 1, sizeof *uses);
    bool ok = g && uses && shares_by_key(t, n, nd, lo, hi, g);
    free(t);
    /* Keep the GPUs that ran something; name each by the rank that used it (the first such). */
    for (int d = 0; ok && d < nd; d++) {
        g[d].device = d;
        g[d].rank = -1;
    }
    if (ok) {
        const event_list *e = &m->events;
        for (size_t i = 0; i < e->nkernels; i++) {
            int r = row_of(map, nmap, e->kernels[i].pid);
            uint32_t d = e->kernels[i].device;
            if (r < 0 || d >= (uint32_t)nd)
                continue;
            uses[d]++;
            g[d].kernels++;
            g[d].comm_kernels += is_nccl_kernel(e->kernels[i].name);
            if (g[d].rank < 0 && !g[d].nprocs) {
                g[d].rank = ra->rows[r].rank;
                g[d].pid = ra->rows[r].pid;
                copy_str(g[d].host, sizeof g[d].host, ra->rows[r].host);
                g[d].nprocs = 1;
            }
        }
        int k = 0;
        for (int d = 0; d < nd; d++)
            if (uses[d] > 0)
                g[k++] = g[d];
        ra->gpus = g;
        ra->ngpus = k;
        g = NULL;
    }
    free(g);
    free(uses);
    return ok;
}

/* Each row's most used device (by kernel count), from one pass over the kernels. */
static bool main_device(const run_model *m, const pid_row *map, int nmap, rank_analysis *ra)
{
    int nd = m->ndevices;
    int *c = calloc((size_t)ra->nrows * (size_t)nd + 1, sizeof *c);
    if (!c)
        return false;
    for (size_t i = 0; i < m->events.nkernels; i++) {
        int r = row_of(map, nmap, m->events.kernels[i].pid);
        uint32_t d = m->events.kernels[i].device;
        if (r >= 0 && d < (uint32_t)nd)
            c[(size_t)r * (size_t)nd + d]++;
    }
    for (int r = 0; r < ra->nrows; r++) {
        int best = 0;
        for (int d = 0; d < nd; d++)
            if (c[(size_t)r * (size_t)nd + (size_t)d] > best) {
                best = c[(size_t)r * (size_t)nd + (size_t)d];
                ra->rows[r].device = d;
            }
    }
    free(c);
    return true;
}

static void count_hosts(rank_analysis *ra)
{
    ra->nhosts = 0;
    for (int r = 0; r < ra->nrows; r++) {
        bool seen = false;
        for (int q = 0; q < r; q++)
            seen |= strcmp(ra->rows[q].host, ra->rows[r].host) == 0;
        ra->nhosts += !seen;
    }
}

bool analyze_ranks(const run_model *m, rank_analysis **out)
{
    *out = NULL;
    rank_analysis *ra = calloc(1, sizeof *ra);
    pid_row *map = NULL;
    int nmap = 0;
    if (!ra || !make_rows(m, ra, &map, &nmap)) {
        free(ra);
        return false;
    }
    if (ra->nrows < 2 && !ra->by_rank) {
        free(map);
        rank_analysis_free(ra);
        return true;
    }
    /* Rows in rank order (then pid); the map follows. */
    int *order = malloc(((size_t)ra->nrows + 1) * sizeof *order);
    rank_share *sorted = malloc(((size_t)ra->nrows + 1) * sizeof *sorted);
    bool ok = order && sorted;
    if (ok) {
        memcpy(sorted, ra->rows, (size_t)ra->nrows * sizeof *sorted);
        qsort(sorted, (size_t)ra->nrows, sizeof *sorted, cmp_row);
        for (int r = 0; r < ra->nrows; r++)
            for (int q = 0; q < ra->nrows; q++)
                if (sorted[q].pid == ra->rows[r].pid)
                    order[r] = q;
        for (int i = 0; i < nmap; i++)
            map[i].row = order[map[i].row];
        free(ra->rows);
        ra->rows = sorted;
        sorted = NULL;
    }
    free(order);
    free(sorted);
    size_t n = 0;
    tagged *t = ok ? gather(m, map, nmap, false, &n, ra) : NULL;
    ok = t != NULL;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; ok && i < n; i++) {
        lo = t[i].start < lo ? t[i].start : lo;
        hi = t[i].end > hi ? t[i].end : hi;
    }
    if (lo > hi)
        lo = hi = 0;
    ok = ok && shares_by_key(t, n, ra->nrows, lo, hi, ra->rows) && collective_skew(t, n, ra) &&
         per_gpu(m, map, nmap, lo, hi, ra) && find_stragglers(m, map, nmap, ra);
    ok = ok && main_device(m, map, nmap, ra);
    count_hosts(ra);
    free(t);
    free(map);
    if (!ok) {
        rank_analysis_free(ra);
        return false;
    }
    *out = ra;
    return true;
}

void rank_analysis_free(rank_analysis *r)
{
    if (!r)
        return;
    free(r->rows);
    free(r->gpus);
    free(r->stragglers);
    free(r);
}
