/* The memory analysis' lines over time (mem_builder.h): each series' timeline of buckets,
 * each process's live bytes with its devices summed (for the ranges' peaks and growth), the
 * device's NVML readings, and each process's allocation calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "array_grow.h"
#include "key_sort.h"
#include "mem_builder.h"

static bool alloc_call(const char *name)
{
    static const char *const calls[] = {"cudaMalloc", "cudaFree", "cudaHostAlloc", "cuMemAlloc", "cuMemFree",
                                        "cuMemHostAlloc", "cuMemCreate", "cuMemRelease", "cuMemMap", "cuMemUnmap",
                                        "cuMemAddressReserve", "cuMemAddressFree", NULL};
    for (const char *const *c = calls; *c; c++)
        if (strncmp(name, *c, strlen(*c)) == 0)
            return true;
    return false;
}

typedef struct {
    uint32_t pid, tid;
    int64_t start, end;
} call_span;

static int cmp_call(const void *a, const void *b)
{
    const call_span *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* Each process's allocation and free calls: a driver call inside a runtime one on the same thread
 * (cudaMalloc calls cuMemAlloc) is one call, so each thread's calls are merged where they nest. */
bool mem_alloc_calls(builder *b)
{
    const event_list *ev = &b->m->events;
    call_span *c = NULL;
    size_t n = 0;
    const char *last = NULL;
    bool last_alloc = false;
    for (size_t i = 0; i < ev->napis; i++) {
        const api_event *a = &ev->apis[i];
        if (a->name != last) { /* names are the store's: one check per distinct name */
            last = a->name;
            last_alloc = a->name && alloc_call(a->name);
        }
        if (!last_alloc)
            continue;
        call_span *g = array_grow(c, n, sizeof *g);
        if (!g) {
            free(c);
            return false;
        }
        c = g;
        c[n++] = (call_span){a->pid, a->thread, a->start_ns, a->end_ns};
    }
    if (n > 1)
        qsort(c, n, sizeof *c, cmp_call);
    memory_analysis *x = b->x;
    for (int si = 0; si < x->nseries; si++) {
        mem_series *s = &x->series[si];
        double calls = 0, ns = 0;
        for (size_t i = 0; i < n;) {
            size_t j = i + 1;
            int64_t end = c[i].end;
            while (j < n && c[j].pid == c[i].pid && c[j].tid == c[i].tid && c[j].start < end) {
                end = c[j].end > end ? c[j].end : end;
                j++;
            }
            if (c[i].pid == s->pid) {
                calls++;
                ns += (double)(end - c[i].start);
            }
            i = j;
        }
        if (s->device_only) {
            metric_na(&s->alloc_calls, "the device's readings: no process of its own");
            metric_na(&s->alloc_call_ms, "the device's readings: no process of its own");
        } else if (n == 0 && ev->napis == 0) {
            metric_na(&s->alloc_calls, "the run has no API calls");
            metric_na(&s->alloc_call_ms, "the run has no API calls");
        } else {
            metric_set(&s->alloc_calls, calls);
            metric_set(&s->alloc_call_ms, ns / 1e6);
        }
    }
    free(c);
    return true;
}

static int cmp_sample(const void *a, const void *b, void *ctx)
{
    const mem_sample *s = ctx, *x = &s[*(const size_t *)a], *y = &s[*(const size_t *)b];
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

/* The device's readings, as indices by (device, time). */
size_t *mem_sorted_samples(const memory_activity *mem)
{
    size_t *o = malloc((mem->nsamples ? mem->nsamples : 1) * sizeof *o);
    for (size_t i = 0; o && i < mem->nsamples; i++)
        o[i] = i;
    if (o && mem->nsamples > 1)
        qsort_r(o, mem->nsamples, sizeof *o, cmp_sample, mem->samples);
    return o;
}

static bool same_point(const mem_point *p, const mem_point *q)
{
    return p->live_bytes.ok == q->live_bytes.ok && p->live_bytes.v == q->live_bytes.v &&
           p->reserved_bytes.ok == q->reserved_bytes.ok && p->reserved_bytes.v == q->reserved_bytes.v &&
           p->device_used_bytes.ok == q->device_used_bytes.ok && p->device_used_bytes.v == q->device_used_bytes.v;
}

/* Series si's timeline: MEM_POINTS buckets of the run's span, each with the most live, reserved
 * and used bytes in it (what a bucket starts with counts: a value lasts until it changes); a
 * bucket the same as the one before is left out, the last kept. NVML's readings of the device, and
 * its peak and total. */
bool mem_series_timeline(builder *b, int si, const size_t *samples)
{
    memory_analysis *x = b->x;
    mem_series *s = &x->series[si];
    const memory_activity *mem = &b->m->memory;
    const steps *w = &b->walk[si];
    size_t k0 = 0;
    while (k0 < mem->nsamples && mem->samples[samples[k0]].device != s->device)
        k0++;
    size_t k1 = k0;
    while (k1 < mem->nsamples && mem->samples[samples[k1]].device == s->device)
        k1++;
    int64_t used_peak = -1, total = -1;
    for (size_t k = k0; k < k1; k++) {
        const mem_sample *r = &mem->samples[samples[k]];
        used_peak = (int64_t)r->used > used_peak ? (int64_t)r->used : used_peak;
        total = (int64_t)r->total;
    }
    const char *why = mem->nvml_why[0] ? mem->nvml_why : "no NVML reading of this device was recorded";
    if (used_peak >= 0) {
        metric_set(&s->device_used_peak_bytes, (double)used_peak);
        metric_set(&s->device_total_bytes, (double)total);
    } else {
        metric_na(&s->device_used_peak_bytes, "%s", why);
        metric_na(&s->device_total_bytes, "%s", why);
    }
    int64_t span = b->run_end - b->run_start, width = span / MEM_POINTS + 1;
    int64_t live = w->initial, reserved = -1, used = -1;
    bool seen = false;
    size_t j = 0, k = k0;
    s->first_point = x->npoints;
    for (int p = 0; p < MEM_POINTS; p++) {
        int64_t start = b->run_start + (int64_t)p * width, end = start + width;
        int64_t most = live, res = reserved, u = used;
        for (; j < w->n && (w->t[j] < end || p == MEM_POINTS - 1); j++) {
            live = w->live[j], reserved = w->reserved[j], seen = true;
            most = live > most ? live : most;
            res = reserved > res ? reserved : res;
        }
        for (; k < k1 && (mem->samples[samples[k]].ts_ns < end || p == MEM_POINTS - 1); k++) {
            used = (int64_t)mem->samples[samples[k]].used;
            u = used > u ? used : u;
        }
        mem_point pt = {.t_ns = start};
        metric_set(&pt.t_ms, mem_ms_from(start, b->run_start));
        if (s->device_only) {
            metric_na(&pt.live_bytes, "no allocation recorded on this device");
            metric_na(&pt.reserved_bytes, "no allocation recorded on this device");
        } else {
            metric_set(&pt.live_bytes, seen || most ? (double)most : 0);
            if (res >= 0)
                metric_set(&pt.reserved_bytes, (double)res);
            else
                metric_na(&pt.reserved_bytes, "no reserved total given yet");
        }
        if (u >= 0)
            metric_set(&pt.device_used_bytes, (double)u);
        else
            metric_na(&pt.device_used_bytes, "%s", used_peak >= 0 ? "no NVML reading yet" : why);
        bool last = p == MEM_POINTS - 1;
        if (x->npoints > s->first_point && !last && same_point(&x->points[x->npoints - 1], &pt))
            continue;
        mem_point *g = array_grow(x->points, (size_t)x->npoints, sizeof *g);
        if (!g)
            return false;
        x->points = g;
        g[x->npoints++] = pt;
    }
    s->npoints = x->npoints - s->first_point;
    return true;
}

static int cmp_i64_pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Each process's live bytes over time, every device of it summed: a change of one device's series
 * changes the sum by its difference. */
bool mem_pid_lines(builder *b)
{
    memory_analysis *x = b->x;
    for (int si = 0; si < x->nseries; si++) {
        if (x->series[si].device_only || mem_pid_of(&b->tl, x->series[si].pid))
            continue;
        uint32_t pid = x->series[si].pid;
        size_t n = 0;
        for (int j = si; j < x->nseries; j++)
            n += x->series[j].pid == pid && !x->series[j].device_only ? b->walk[j].n : 0;
        int64_t (*ch)[3] = malloc((n ? n : 1) * sizeof *ch); /* time, order, delta */
        mem_pid_line *g = array_grow(b->tl.pids, (size_t)b->tl.npids, sizeof *g);
        if (!ch || !g) {
            free(ch);
            return false;
        }
        b->tl.pids = g;
        mem_pid_line *p = &g[b->tl.npids++];
        memset(p, 0, sizeof *p);
        p->pid = pid;
        size_t c = 0;
        for (int j = si; j < x->nseries; j++) {
            if (x->series[j].pid != pid || x->series[j].device_only)
                continue;
            const steps *w = &b->walk[j];
            for (size_t i = 0; i < w->n; i++, c++)
                ch[c][0] = w->t[i], ch[c][1] = (int64_t)c, ch[c][2] = w->live[i] - (i ? w->live[i - 1] : w->initial);
        }
        qsort(ch, n, sizeof *ch, cmp_i64_pair);
        p->t = malloc((n ? n : 1) * sizeof *p->t);
        p->live = malloc((n ? n : 1) * sizeof *p->live);
        p->block_max = malloc((n / MEM_BLOCK + 1) * sizeof *p->block_max);
        if (!p->t || !p->live || !p->block_max) {
            free(ch);
            return false;
        }
        int64_t sum = 0;
        for (int j = si; j < x->nseries; j++)
            if (x->series[j].pid == pid && !x->series[j].device_only)
                sum += b->walk[j].initial;
        p->initial = sum;
        for (size_t i = 0; i < n; i++) {
            sum += ch[i][2];
            if (p->n && p->t[p->n - 1] == ch[i][0]) {
                p->live[p->n - 1] = sum;
                continue;
            }
            p->t[p->n] = ch[i][0];
            p->live[p->n++] = sum;
        }
        for (size_t i = 0; i < p->n; i++)
            if (i % MEM_BLOCK == 0 || p->live[i] > p->block_max[i / MEM_BLOCK])
                p->block_max[i / MEM_BLOCK] = p->live[i];
        free(ch);
    }
    return true;
}

const mem_pid_line *mem_pid_of(const mem_timeline *tl, uint32_t pid)
{
    for (int i = 0; i < tl->npids; i++)
        if (tl->pids[i].pid == pid)
            return &tl->pids[i];
    return NULL;
}

/* The index of the last change at or before t, or SIZE_MAX. */
static size_t last_at(const mem_pid_line *p, int64_t t)
{
    size_t n = sorted_count_upto(p->t, p->n, t);
    return n ? n - 1 : SIZE_MAX;
}

int64_t mem_live_at(const mem_pid_line *p, int64_t t)
{
    size_t i = last_at(p, t);
    return i == SIZE_MAX ? p->initial : p->live[i];
}

int64_t mem_max_in(const mem_pid_line *p, int64_t start, int64_t end)
{
    int64_t most = mem_live_at(p, start);
    size_t i = last_at(p, start), stop = last_at(p, end);
    i = i == SIZE_MAX ? 0 : i + 1;
    if (stop == SIZE_MAX)
        return most;
    while (i <= stop) {
        if (i % MEM_BLOCK == 0 && i + MEM_BLOCK - 1 <= stop) {
            most = p->block_max[i / MEM_BLOCK] > most ? p->block_max[i / MEM_BLOCK] : most;
            i += MEM_BLOCK;
        } else {
            most = p->live[i] > most ? p->live[i] : most;
            i++;
        }
    }
    return most;
}

